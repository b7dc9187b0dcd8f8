// Plan: what the training job is (tokens, batch, precision, optimizer) and how
// it is laid out on GPUs (TP, PP, DP, CP, EP, virtual stages, micro-batch,
// ZeRO stage, recomputation), with the divisibility rules a layout must obey.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "gpucalc/error.hpp"
#include "gpucalc/model.hpp"

namespace gpucalc {

enum class Precision { bf16, fp16, fp8 };
enum class Recompute { none, selective, full };
enum class Stage { pretrain, full_finetune };
enum class Optimizer { adamw };
// The training framework whose memory behaviour to model. They differ in what
// "selective" recomputation saves, how the loss is computed, whether TP linears keep
// their all-gathered inputs, and how FSDP groups parameters (docs/memory-model.md §8).
enum class Framework { megatron, torchtitan };

const char* to_string(Precision p);
const char* to_string(Recompute r);
const char* to_string(Stage s);
const char* to_string(Optimizer o);
const char* to_string(Framework f);

struct Training {
  double tokens = 0;            // training tokens T
  int64_t seq_len = 0;          // s
  int64_t global_batch = 0;     // B, sequences per optimizer step
  Precision precision = Precision::bf16;
  Optimizer optimizer = Optimizer::adamw;
  Stage stage = Stage::pretrain;
  bool flash_attention = true;    // no s² score tensor is stored (Dao et al. 2022)
  bool sequence_parallel = true;  // Korthikanti et al. 2022 SP whenever tp > 1
  Framework framework = Framework::megatron;
  // training.grad_dtype: "bf16" (2 B) or "fp32" (4 B); absent = the framework's default.
  std::optional<int> grad_dtype_bytes;
  bool overlap_grad_reduce = true;   // DP reduce-scatter/all-reduce overlapped with backward
  bool overlap_param_gather = true;  // ZeRO-1/2 parameter all-gather overlapped with forward
};

// Bytes per parameter of model states before sharding (docs/memory-model.md §1).
//  megatron:   2 (16-bit weights) + 4 (fp32 gradients: Megatron-LM forces fp32 gradient
//              accumulation and reduction with bf16, arguments.py
//              accumulate_allreduce_grads_in_fp32; 2 with fp16) + 12 (fp32 master, m, v)
//  torchtitan: 4 (FSDP2 keeps the sharded parameters in fp32, they are the master copy)
//              + 4 (fp32 gradients, reduce_dtype float32) + 8 (AdamW m, v)
// A scenario's grad_dtype overrides the gradient size.
struct StateBytes {
  double weights = 2, gradients = 2, optimizer = 12;
};
StateBytes state_bytes(const Training& t);

// A fully decided layout.
struct Layout {
  int64_t tp = 1, pp = 1, dp = 1, cp = 1, ep = 1, vpp = 1;
  int64_t micro_batch = 1;  // b, sequences per micro-batch per DP rank
  int zero_stage = 0;       // 0..3; FSDP full-shard = 3
  Recompute recompute = Recompute::none;

  int64_t gpus() const { return tp * pp * dp * cp; }
};

// Micro-batches per step per pipeline: m = B / (dp · b).
int64_t micro_batches(const Training& t, const Layout& l);

// The divisibility and range rules a layout must obey, by name (one place for the
// conditions; check_layout words them, the search only asks whether any is broken).
enum class LayoutRule {
  none, tp_positive, pp_positive, dp_positive, cp_positive, vpp_positive, tp_heads, tp_kv_heads, tp_ffn,
  pp_layers, vpp_needs_pp, vpp_layers, cp_seq_len, ep_dense, mb_positive, dp_batch, mb_batch,
  vpp_micro_batches, zero_stage
};
LayoutRule broken_rule(const ModelShape& m, const Training& t, const Layout& l);

// Checks a layout against the model and batch. Error paths point into the
// scenario ("/parallel/tp", "/training/micro_batch", ...).
std::optional<Error> check_layout(const ModelShape& m, const Training& t, const Layout& l);

// Layers held by the pipeline stage with the most layers: vpp · ceil(L / (pp·vpp)).
// Uneven splits are allowed (Llama 3 405B: 126 layers on 16 stages), the fuller stage
// bounds both memory and time.
int64_t layers_per_stage_max(const ModelShape& m, const Layout& l);

}  // namespace gpucalc
