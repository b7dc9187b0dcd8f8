// Memory: bytes per GPU for model states (weights, gradients, optimizer) under
// ZeRO 0-3, activations under TP/SP/CP/PP and recomputation, the output layer's
// logits, and runtime overheads. Every term is documented in docs/memory-model.md.
#pragma once
#include <algorithm>
#include <cstdint>

#include "gpucalc/hardware.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/plan.hpp"

namespace gpucalc {

// Runtime overheads, named so the output can show and the scenario can override them.
struct Overheads {
  // CUDA context + cuBLAS/cuDNN workspaces, per process. Measured 0.3-2 GB
  // (docs/memory-model.md §6); we take 1 GiB as the midpoint seen on Hopper with CUDA 12.
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
  int stage = 0;       // 0-based stage index (0 = first)
  int64_t layers = 0;  // layers held by this GPU (all its virtual chunks)
  // model states
  double weights = 0;           // 16-bit weight shard held between steps
  double weights_gathered = 0;  // ZeRO-3: unsharded layers being used/prefetched
  double fp8_weight_cache = 0;  // FP8 copies of local weights (Transformer Engine)
  double gradients = 0;
  double optimizer = 0;  // fp32 master weights + Adam m and v
  // activations
  double layer_activations = 0;  // saved for backward, all micro-batches in flight
  double recompute_working = 0;  // one layer's full activations rebuilt during backward
  double logits = 0;             // output layer and loss (last stage only)
  int64_t in_flight = 0;         // micro-batch-chunks whose activations are held
  // runtime
  double cuda_context = 0;
  double comm_buffers = 0;
  double fragmentation = 0;
  // Not on the GPU: host memory this GPU's process needs for offloaded (or paged) states.
  double host_bytes = 0;
  double host_activations = 0;  // of host_bytes: checkpointed activations (activation offloading)
  // The framework frees the loss's tensors before backward rebuilds the first checkpointed
  // layer (framework_profile().loss_before_rebuild): the peak holds the larger of the two.
  bool loss_before_rebuild = false;

  double model_states() const { return weights + weights_gathered + fp8_weight_cache + gradients + optimizer; }
  double activations() const {
    return layer_activations + (loss_before_rebuild ? std::max(recompute_working, logits) : recompute_working + logits);
  }
  double other() const { return cuda_context + comm_buffers + fragmentation; }
  double total() const { return model_states() + activations() + other(); }
  // What the caching allocator counts: live tensors (allocated), and with its
  // fragmentation (reserved); total() adds the CUDA context and NCCL's own buffers.
  double allocated() const { return model_states() + activations(); }
  double reserved() const { return allocated() + fragmentation; }
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
// moe_layer: the layer's MLP is the MoE block (routed and shared experts, router).
double activation_bytes_per_layer(const ModelShape& m, const Training& t, const Layout& l, bool moe_layer = false);

// Layers a pipeline stage holds (all its virtual chunks) and how many of them have a
// dense MLP: layer j sits in chunk j / c, c = ceil(L / (pp·vpp)), chunk i on stage i mod pp.
struct StageLayers {
  int64_t total = 0, dense = 0;
  int64_t mtp = 0;  // multi-token-prediction modules (the last stage's; outside total)
  int64_t moe() const { return total - dense; }
};
StageLayers stage_layers(const ModelShape& m, const Layout& l, int stage);

// Trainable LoRA adapter parameters of one layer (dense or MoE), before TP: r·(in + out)
// per targeted projection (Hu et al. 2021 §4.1).
// active_only: count top_k routed experts' adapters (those a token passes through), not all E.
double lora_params_per_layer(const ModelShape& m, const LoraConfig& c, bool moe_layer, bool active_only = false);
// Frozen base-weight bytes per parameter: 2 (bf16), QLoRA's NF4 linear weights 4 bits +
// block constants: 32 bits per 64 (0.5 bit), or with double quantisation 8 bits per 64
// plus 32 per 64·256 (0.127 bit) (Dettmers et al. 2023 §3).
double nf4_bytes_per_param(bool double_quant);
// A QLoRA base prepared by Hugging Face PEFT (framework hf, lora.fp32_upcast):
// prepare_model_for_kbit_training casts the embedding, the norms and the head to fp32,
// and bitsandbytes' Linear4bit returns its input's dtype, so the residual stream, norm
// outputs and MLP run in fp32 too (docs/memory-model.md §1b).
bool peft_fp32_upcast(const Training& t);
// Bytes per element of the activations on the residual stream: 2 (bf16/fp16), 4 under
// peft_fp32_upcast.
double stream_elem_bytes(const Training& t);

// Memory of pipeline stage `stage` (0..pp-1).
StageMemory stage_memory(const ModelShape& m, const Training& t, const Layout& l, const Overheads& o, int stage);

// The stage with the largest total (first or last: the middle ones never exceed both).
StageMemory worst_stage_memory(const ModelShape& m, const Training& t, const Layout& l, const Overheads& o);

double capacity_bytes(const Gpu& g);

// The fewest GPUs that can hold the model's states even fully sharded: at least the
// frozen or trained weights' bytes (2 B, NF4 for QLoRA; plus the gradient and optimizer
// bytes per trained parameter, whatever the ZeRO stage, minus what offload moves to the
// host) must fit in `cap` bytes per GPU. A lower bound: no layout of fewer GPUs has a
// worst stage within `cap` (the search skips those counts; tests/core/search_space_test.cpp).
int64_t min_gpus_to_hold_states(const ModelShape& m, const Training& t, double cap);

}  // namespace gpucalc
