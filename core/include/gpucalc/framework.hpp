// Training frameworks as memory profiles (docs/memory-model.md §7): the terms of the
// peak that differ between stacks, each with the code or paper it is read from, and how
// each stack's own peak-memory figure is measured. Data, not branches in the formulas:
// core/src/memory.cpp asks the profile.
#pragma once
#include "gpucalc/plan.hpp"

namespace gpucalc {

// What a published or logged peak counts (docs/memory-model.md §6):
//  allocated: the caching allocator's peak of live tensors (torch.cuda.max_memory_allocated);
//  reserved:  the allocator's peak reservation, allocated + fragmentation
//             (torch.cuda.max_memory_reserved);
//  device:    everything on the device, reserved + CUDA context + NCCL buffers (nvidia-smi,
//             or an out-of-memory boundary).
enum class MemoryBasis { allocated, reserved, device };
const char* to_string(MemoryBasis b);

// A profile's prose: the code of its coded message (data/messages.json) and its English.
struct CodedText {
  const char* code;
  const char* en;
};

struct FrameworkProfile {
  Framework framework;
  // Bytes per local logit the output layer and loss hold at their peak.
  double loss_bytes_per_logit;
  CodedText loss_formula;
  CodedText loss_source;
  // The loss's tensors are freed before backward rebuilds the first checkpointed layer,
  // so the peak holds the larger of the two, not both.
  bool loss_before_rebuild;
  // With offload.optimizer the gradients go to host memory as backward produces them;
  // the GPU keeps a bucket of grad_bucket_elems 16-bit elements at most (0 = none beyond
  // the gathered FSDP unit's). The same reduce bucket caps a ZeRO-3 layer's unsharded
  // gradient (0 = the whole layer's).
  bool offload_streams_gradients;
  double grad_bucket_elems;
  CodedText offload_source;
  // Why a gradient takes the bytes it does on this stack (core/src/plan.cpp state_bytes).
  CodedText grad_source;
  // ZeRO-3: the most of the next unit prefetched, in elements (0 = the whole next layer).
  double prefetch_bucket_elems;
  // What the stack's own peak-memory log reports.
  MemoryBasis logs;
  const char* logs_source;
};
const FrameworkProfile& framework_profile(Framework f);

}  // namespace gpucalc
