// The critical batch: the batch size above which more tokens per step stop buying
// proportionally fewer steps, as a published law of the compute budget. DeepSeek LLM (Bi et
// al. 2024, arXiv 2401.02954, §3.1 eq. 1): B_opt = 0.2920 · C^0.3271 tokens, with C = M · D
// the compute budget in FLOPs, M the non-embedding FLOPs per token (§3.2: 6 · the
// non-embedding matmul parameters + 6 · n_layer · d_model · l_seq for attention) and D the
// tokens. The law was fitted on small-scale grid searches of budgets from 1e17 to 2e19 FLOPs
// and checked at 1e20 (Figure 3); beyond that it is an extrapolation. Sanity reference: Llama
// 3 405B (3.8e25 FLOPs) grew its batch 4M → 8M → 16M tokens (Dubey et al. 2024, arXiv
// 2407.21783, §3.4.1), below the law's 68M.
#pragma once
#include "gpucalc/message.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/plan.hpp"

namespace gpucalc {

inline constexpr double kCriticalBatchCoef = 0.2920, kCriticalBatchExp = 0.3271;
// The compute budgets the law was fitted and checked on (FLOPs).
inline constexpr double kCriticalBatchFitMinFlops = 1e17, kCriticalBatchFitMaxFlops = 1e20;

struct CriticalBatch {
  double flops_per_token = 0;  // M
  double compute_flops = 0;    // C = M · D
  double tokens = 0;           // B_opt
  bool extrapolated = false;   // C outside the fitted range
};

CriticalBatch critical_batch(const ModelShape& m, const Training& t);

// The warning that cb's budget lies outside the law's fitted range (critical_batch_extrapolated).
Message critical_batch_extrapolated(const CriticalBatch& cb);

}  // namespace gpucalc
