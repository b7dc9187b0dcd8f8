// "Will it fit?" as a question (docs/memory-model.md §6b): for a fixed layout, the
// largest micro-batch and the longest sequence whose peak stays under a memory limit.
#pragma once
#include <cstdint>

#include "gpucalc/memory.hpp"

namespace gpucalc {

struct FitLimits {
  int64_t max_micro_batch = 0;  // 0: not even one sequence per micro-batch fits
  int64_t max_seq_len = 0;      // 0: not even the shortest sequence the layout allows fits
};

// Largest micro-batch (the number of micro-batches per step kept, so the pipeline holds
// as many in flight) and longest sequence (a multiple of 2·cp with context parallelism,
// at the layout's micro-batch) whose worst-stage peak is at most limit_bytes. The peak
// grows with both, so each is a doubling then a bisection; the search stops at
// kFitMaxMicroBatch and kFitMaxSeqLen.
inline constexpr int64_t kFitMaxMicroBatch = 1 << 16;
inline constexpr int64_t kFitMaxSeqLen = 1 << 24;
FitLimits fit_limits(const ModelShape& m, const Training& t, const Layout& l, const Overheads& o, double limit_bytes);

}  // namespace gpucalc
