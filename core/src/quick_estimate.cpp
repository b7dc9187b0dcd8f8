#include "gpucalc/quick_estimate.hpp"

#include <algorithm>
#include <cmath>

namespace gpucalc {

QuickEstimate quick_estimate(double params, double memory_gb, double efficiency) {
  QuickEstimate q;
  q.params_billion = params / 1e9;
  q.memory_gb = memory_gb;
  q.efficiency = efficiency;
  const double denom = memory_gb * efficiency;
  q.gpus_raw = denom > 0 ? q.params_billion * kRuleOfThumbBytesPerParam / denom : 0;
  // The scenario reader refuses a custom GPU under 1 MiB (scenario.cpp); this function is
  // called with any numbers, so a vanishing memory stops the count past any cluster
  // instead of overflowing the cast.
  constexpr double kMaxGpus = 1e15;
  if (!(q.gpus_raw < kMaxGpus)) q.gpus_raw = kMaxGpus;
  q.gpus = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(q.gpus_raw - 1e-9)));
  return q;
}

}  // namespace gpucalc
