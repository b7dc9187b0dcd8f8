#include "gpucalc/critical_batch.hpp"

#include <cmath>
#include <string>

#include "decimal.hpp"

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

Message critical_batch_extrapolated(const CriticalBatch& cb) {
  const auto g = [](double x) { return format_general(x, 3); };
  return coded("critical_batch_extrapolated",
               "the critical-batch law was fitted on compute budgets of {fit_min} to {fit_max} FLOPs; "
               "{flops} FLOPs is an extrapolation (Llama 3 405B at 3.8e25 FLOPs ended at 16M tokens)",
               {{"fit_min", g(kCriticalBatchFitMinFlops)},
                {"fit_max", g(kCriticalBatchFitMaxFlops)},
                {"flops", g(cb.compute_flops)}});
}

}  // namespace gpucalc
