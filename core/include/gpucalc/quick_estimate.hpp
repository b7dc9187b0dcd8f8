// The rule of thumb of the article that started this project, with its arithmetic
// corrected (docs/cost.md "The rule of thumb"; docs/article-check.md), shown beside the
// full answer.
#pragma once
#include <cstdint>

namespace gpucalc {

// assume.cluster_efficiency: the article's "cluster efficiency" (default 0.8).
inline constexpr double kDefaultClusterEfficiency = 0.8;
// 16 B of mixed-precision Adam states per parameter (2 weights + 2 gradients + 12 fp32
// master, m, v: Rajbhandari et al. 2020 §3.1) plus about 4 B of headroom.
inline constexpr double kRuleOfThumbBytesPerParam = 20;

struct QuickEstimate {
  double params_billion = 0;  // the model's parameters / 1e9
  double memory_gb = 0;       // the GPU's memory label (catalog memory_gib, as vendors label it)
  double efficiency = 0;
  double gpus_raw = 0;  // params[B] × 20 / (memory[GB] × efficiency)
  int64_t gpus = 0;     // gpus_raw rounded up
};

// GPUs ≈ params[B] × 20 / (GPU memory[GB] × cluster efficiency): a memory floor for
// full fine-tuning, blind to the token budget, time and parallel layout. The article's
// own example, 70B on 80 GB at 80%, is 70 × 20 / 64 = 21.9 GPUs (it printed 175).
QuickEstimate quick_estimate(double params, double memory_gb, double efficiency);

}  // namespace gpucalc
