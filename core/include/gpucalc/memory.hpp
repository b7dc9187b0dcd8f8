// Memory: bytes per GPU for model states (weights, gradients, optimizer) under
// ZeRO 0-3, activations under TP/SP/CP/PP and recomputation, the output layer's
// logits, and runtime overheads. Every term is documented in docs/memory-model.md.
#pragma once
#include <cstdint>

#include "gpucalc/hardware.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/plan.hpp"

namespace gpucalc {

// Runtime overheads, named so the output can show and the scenario can override them.
struct Overheads {
  // CUDA context + cuBLAS/cuDNN workspaces, per process. Measured 0.3-2 GB
  // (sizing-model.md §3); we take 1 GiB as the midpoint seen on Hopper with CUDA 12.
  double cuda_context_bytes = 1.0 * (1ull << 30);
  // NCCL: NCCL_BUFFSIZE (4 MiB default) × 2 (send+recv) × channels, per
  // communicator the GPU is a member of (NCCL docs, "NCCL_BUFFSIZE"; channels
  // default up to 32 on NVLink/IB Hopper systems, we count 16 on average).
  double nccl_bytes_per_communicator = 4.0 * (1 << 20) * 2 * 16;
  // Caching-allocator fragmentation: reserved minus allocated, as a fraction of
  // what the allocator holds (activations, gradients, transients). PyTorch's
  // expandable segments keep it near 5-10%; we take 8%.
  double fragmentation = 0.08;
};

// One pipeline stage's memory per GPU, in bytes. All doubles so that products of
// large dims never overflow; output rounds to integers.
struct StageMemory {
  int stage = 0;            // 0-based stage index (0 = first)
  int64_t layers = 0;       // layers held by this GPU (all its virtual chunks)
  // model states
  double weights = 0;       // 16-bit weight shard held between steps
  double weights_gathered = 0;  // ZeRO-3: unsharded layers being used/prefetched
  double fp8_weight_cache = 0;  // FP8 copies of local weights (Transformer Engine)
  double gradients = 0;
  double optimizer = 0;     // fp32 master weights + Adam m and v
  // activations
  double layer_activations = 0;  // saved for backward, all micro-batches in flight
  double recompute_working = 0;  // one layer's full activations rebuilt during backward
  double logits = 0;             // output layer and loss (last stage only)
  int64_t in_flight = 0;         // micro-batch-chunks whose activations are held
  // runtime
  double cuda_context = 0;
  double comm_buffers = 0;
  double fragmentation = 0;

  double model_states() const { return weights + weights_gathered + fp8_weight_cache + gradients + optimizer; }
  double activations() const { return layer_activations + recompute_working + logits; }
  double other() const { return cuda_context + comm_buffers + fragmentation; }
  double total() const { return model_states() + activations() + other(); }
};

// Mixed-precision AdamW model states for `params` parameters under ZeRO `stage`,
// sharded over `shard` ranks (Rajbhandari et al. 2020 §3.1, §5.1-5.3): 2 B weights,
// 2 B gradients, K = 12 B optimizer (fp32 master, momentum, variance) per parameter;
// stage 1 shards the optimizer, 2 also gradients, 3 also weights.
struct ModelStates {
  double weights = 0, gradients = 0, optimizer = 0;
  double total() const { return weights + gradients + optimizer; }
};
ModelStates model_state_bytes(double params, int zero_stage, double shard, StateBytes per_param = {});

// Bytes saved for backward per transformer layer per micro-batch, on one GPU
// (derived tensor by tensor in docs/memory-model.md; Korthikanti et al. 2022 for GPT).
double activation_bytes_per_layer(const ModelShape& m, const Training& t, const Layout& l);

// Memory of pipeline stage `stage` (0..pp-1).
StageMemory stage_memory(const ModelShape& m, const Training& t, const Layout& l,
                         const Overheads& o, int stage);

// The stage with the largest total (first or last: the middle ones never exceed both).
StageMemory worst_stage_memory(const ModelShape& m, const Training& t, const Layout& l,
                               const Overheads& o);

double capacity_bytes(const Gpu& g);

}  // namespace gpucalc
