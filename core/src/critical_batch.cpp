#include "gpucalc/critical_batch.hpp"

#include <cmath>

namespace gpucalc {

CriticalBatch critical_batch(const ModelShape& m, const Training& t) {
  const ParamCounts pc = count_params(m);
  CriticalBatch c;
  // Non-embedding: the matmul parameters a token passes through, without the output
  // projection onto the vocabulary (V·h); attention scores as DeepSeek LLM §3.2 counts them.
  const double non_embedding = static_cast<double>(pc.active_matmul - m.vocab * m.hidden);
  const double attention =
      6.0 * static_cast<double>(m.layers) * static_cast<double>(m.heads * head_dim(m)) * static_cast<double>(t.seq_len);
  c.flops_per_token = 6.0 * non_embedding + attention;
  c.compute_flops = c.flops_per_token * t.tokens;
  c.tokens = kCriticalBatchCoef * std::pow(c.compute_flops, kCriticalBatchExp);
  c.extrapolated = c.compute_flops < kCriticalBatchFitMinFlops || c.compute_flops > kCriticalBatchFitMaxFlops;
  return c;
}

}  // namespace gpucalc
