// The largest micro-batch and the longest sequence that fit (core/include/gpucalc/fit.hpp).
#include "gpucalc/fit.hpp"

#include <algorithm>
#include <functional>

namespace gpucalc {
namespace {

// The largest n in [1, cap] with fits(n), for a predicate true up to some n and false
// beyond (the peak grows with micro-batch and sequence length); 0 when fits(1) is false.
int64_t largest_fitting(const std::function<bool(int64_t)>& fits, int64_t cap) {
  if (!fits(1)) return 0;
  int64_t lo = 1, hi = 2;
  while (hi <= cap && fits(hi)) {
    lo = hi;
    hi *= 2;
  }
  hi = std::min(hi, cap + 1);  // fits(lo), and hi is beyond the cap or does not fit
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

FitLimits fit_limits(const ModelShape& m, const Training& t, const Layout& l, const Overheads& o, double limit_bytes) {
  FitLimits r;
  const int64_t steps = std::max<int64_t>(1, micro_batches(t, l));
  r.max_micro_batch = largest_fitting(
      [&](int64_t b) {
        Layout x = l;
        x.micro_batch = b;
        Training y = t;
        y.global_batch = l.dp * b * steps;
        return worst_stage_memory(m, y, x, o).total() <= limit_bytes;
      },
      kFitMaxMicroBatch);
  // Context parallelism splits a sequence in 2·cp chunks (Megatron-Core's load-balanced
  // causal split), so the length moves in steps of 2·cp.
  const int64_t unit = l.cp > 1 ? 2 * l.cp : 1;
  r.max_seq_len = unit * largest_fitting(
                             [&](int64_t k) {
                               Training y = t;
                               y.seq_len = k * unit;
                               return worst_stage_memory(m, y, l, o).total() <= limit_bytes;
                             },
                             kFitMaxSeqLen / unit);
  return r;
}

}  // namespace gpucalc
