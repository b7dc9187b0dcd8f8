// Plan: what the training job is (tokens, batch, precision, optimizer) and how
// it is laid out on GPUs (TP, PP, DP, CP, EP, virtual stages, micro-batch,
// ZeRO stage, recomputation), with the divisibility rules a layout must obey.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "gpucalc/error.hpp"
#include "gpucalc/model.hpp"

namespace gpucalc {

// fp4: NVFP4 (Transformer Engine NVFP4BlockScaling, Megatron --fp4-format e2m1): the
// linear layers' GEMMs in FP4 E2M1 with an E4M3 scale per 16 elements; attention, the
// output layer and the element-wise work stay 16-bit.
enum class Precision { bf16, fp16, fp8, fp4 };
// FP8 or FP4: GEMM inputs quantised by Transformer Engine (or torchao) before each GEMM.
inline bool quantised_gemms(Precision p) { return p == Precision::fp8 || p == Precision::fp4; }
// Bytes per NVFP4 element: the E2M1 nibble and one E4M3 scale per block of 16 (the
// per-tensor FP32 scale is negligible).
constexpr double kNvfp4Bytes = 0.5 + 1.0 / 16;
enum class Recompute { none, selective, full };
enum class Stage { pretrain, full_finetune, lora, qlora };
// Megatron-Core's selective recomputation modules (--recompute-modules, Megatron-Core
// TransformerConfig.recompute_modules): what "selective" drops and rebuilds in backward.
// core_attn is the default (Korthikanti et al. 2022 §5); MoE recipes add moe_act and
// layernorm (Megatron MoE model zoo, Qwen3-235B on H100) or mla_up_proj and mlp
// (DeepSeek-V3 on H100).
enum class RecomputeModule : unsigned {
  core_attn = 1,
  moe_act = 2,
  layernorm = 4,
  mla_up_proj = 8,
  mlp = 16,
  moe = 32,
  shared_experts = 64
};
// How MoE tokens travel between EP ranks: Megatron-Core's all-to-all dispatcher sends
// every routed copy; DeepEP (DeepSeek 2025) sends each token once per remote scale-up
// domain and fans it out over NVLink, in FP8 when the GEMMs are FP8.
enum class MoeDispatcher { alltoall, deepep };
// Context parallelism's exchange (training.cp_comm): ring, P2P passes of K and V blocks
// overlapped with blockwise attention (Megatron-Core's default, TE cp_comm_type "p2p");
// ulysses, all-to-alls that turn the sequence-sharded Q, K, V into head-sharded full
// sequences and O back (Jacobs et al. 2023, DeepSpeed-Ulysses; TE "a2a"; MindSpeed
// ulysses_cp_algo).
enum class CpComm { ring, ulysses };
// Megatron-Core CUDA graphs (--cuda-graph-impl, --cuda-graph-scope): none; per_layer, Transformer
// Engine graphs of each layer's attention, router and dispatch preprocessing (scope attn,
// moe_router, moe_preprocess); full_iteration, the whole forward-backward as one graph
// (impl local, scope full_iteration). They take the host's kernel launches off the critical path.
// unspecified: the scenario does not say (priced as the measured runs' mix).
enum class CudaGraphs { unspecified, none, per_layer, full_iteration };
// FP8 scaling (NVIDIA Transformer Engine): per-tensor current scaling ("FP8-CS" in the
// Megatron-Bridge tables) takes each tensor's amax just before casting it, delayed
// scaling uses the amax history (the amax is fused into the producing kernel), MXFP8
// (Blackwell) scales each block of 32 values as it casts.
enum class Fp8Recipe { tensorwise, delayed, mxfp8 };
// Optimizer state per trainable parameter (docs/memory-model.md §1b): AdamW two fp32
// moments (Loshchilov & Hutter 2019); 8-bit Adam two 8-bit moments with one fp32 absmax
// per 2048-value block (Dettmers et al. 2022, bitsandbytes); SGD with momentum one fp32
// buffer; Lion one fp32 momentum (Chen et al. 2023); Adafactor a factored second moment,
// one row and one column vector per matrix, no first moment (Shazeer & Stern 2018 §3-4,
// beta1 = 0 as in the paper's default); Muon one fp32 momentum on the hidden layers'
// matrices, AdamW's two on the embedding and output head (Jordan et al. 2024; Megatron-LM
// routes embeddings, the head and non-matrix parameters to Adam, --muon-scalar-optimizer).
enum class Optimizer { adamw, adam8bit, sgd, lion, adafactor, muon };
// The training framework whose memory behaviour to model. They differ in what
// "selective" recomputation saves, how the loss is computed, whether TP linears keep
// their all-gathered inputs, how FSDP groups parameters, where offloaded gradients go
// and in what dtype states are kept (docs/memory-model.md §7, core/src/framework.cpp):
// Megatron-LM/Core (NeMo, MindSpeed), torchtitan (FSDP2), DeepSpeed (ZeRO 1-3,
// ZeRO-Offload/Infinity), Hugging Face Transformers Trainer + PEFT + bitsandbytes, and
// torchtune.
enum class Framework { megatron, torchtitan, deepspeed, hf, torchtune };

const char* to_string(Precision p);
const char* to_string(Recompute r);
const char* to_string(Stage s);
const char* to_string(Optimizer o);
const char* to_string(Framework f);

// LoRA (Hu et al. 2021): frozen W plus a trained low-rank B·A of rank r on the target
// projections; QLoRA (Dettmers et al. 2023) stores the frozen linear weights in 4-bit
// NF4 with double-quantised block constants.
enum class LoraTarget : unsigned { q = 1, k = 2, v = 4, o = 8, gate = 16, up = 32, down = 64 };
struct LoraConfig {
  int64_t rank = 16;
  double alpha = 32;
  unsigned targets = 0x7f;       // bit set of LoraTarget; default every linear of the block
  bool double_quant = true;      // QLoRA: quantise the fp32 absmax constants again (0.127 bit/param)
  bool paged_optimizer = false;  // QLoRA: optimizer states in CUDA unified memory, paged to host
  double base_bytes = 2;         // LoRA: bytes per frozen base weight (2 = bf16/fp16, 4 = fp32 as loaded by default)
  double dropout = 0;            // LoRA dropout probability (PEFT lora_dropout); > 0 adds a dropout kernel per adapter
  // QLoRA under framework hf: PEFT's prepare_model_for_kbit_training casts the embedding,
  // norms and head to fp32 (TRL, the QLoRA reference); false is LLaMA-Factory's default
  // (upcast_layernorm false), which keeps them and the residual stream in 16 bits.
  bool fp32_upcast = true;
};
inline bool has_target(const LoraConfig& c, LoraTarget t) { return (c.targets & static_cast<unsigned>(t)) != 0; }

// ZeRO-Offload (Ren et al. 2021) and ZeRO-Infinity (Rajbhandari et al. 2021): optimizer
// states (fp32 master, moments) and their update on the host; optionally the 16-bit
// parameters too (ZeRO-3 only), fetched over PCIe for every use.
struct Offload {
  bool optimizer = false;
  bool params = false;
  double host_memory_bw_gbs = 0;  // per GPU share of host DRAM bandwidth for the CPU optimizer step; 0 = default
  double pcie_gbs = 0;            // GPU-host link per direction, GB/s; 0 = by GPU generation (PCIe 4.0/5.0 x16)
  // Megatron-Core CPU offloading (--cpu-offloading-num-layers, Transformer Engine's
  // offload context): the saved activations of the first N layers are copied to host
  // memory as forward leaves each layer and brought back one layer ahead of backward.
  int64_t activation_layers = 0;
};

struct Training {
  double tokens = 0;         // training tokens T
  int64_t seq_len = 0;       // s
  int64_t global_batch = 0;  // B, sequences per optimizer step
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
  bool master_weights = true;        // fp32 master copy of 16-bit weights (mixed precision)
  LoraConfig lora;                   // stage lora / qlora
  Offload offload;
  bool overlap_moe_comm =
      false;  // EP all-to-all hidden under other micro-batches' compute (DualPipe, 1F1B A2A overlap)
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  // training.moe_permute_fusion: the flex dispatcher's HybridEP kernels write the received
  // tokens in local-expert order and combine them back (Megatron-Core
  // moe_permute_fusion_into_hybridep), so no separate permute / unpermute pass runs.
  bool moe_permute_fusion = false;
  CpComm cp_comm = CpComm::ring;
  CudaGraphs cuda_graphs = CudaGraphs::unspecified;  // training.cuda_graphs (framework megatron)
  // training.torch_compile: PyTorch stacks (torchtitan) fuse their element-wise ops with
  // torch.compile instead of running them as separate eager kernels.
  bool torch_compile = false;
  // training.liger_kernel: Liger's Triton kernels patched into the Hugging Face model
  // (fused RMSNorm, RoPE, SwiGLU; linkedin/Liger-Kernel apply_liger_kernel_to_*), which
  // NeMo AutoModel applies by default (nemo_automodel/_transformers/auto_model.py).
  bool liger_kernel = false;
  // training.overlap_tp_comm: Transformer Engine's userbuffers pipeline the TP/SP
  // all-gathers and reduce-scatters with the GEMMs beside them (Megatron
  // --tp-comm-overlap; on in NVIDIA's performance recipes whenever TP > 1).
  bool overlap_tp_comm = false;
  // training.fp8_recipe: how FP8 GEMM inputs are scaled (Transformer Engine recipes).
  Fp8Recipe fp8_recipe = Fp8Recipe::tensorwise;
  // torchtune optimizer_in_bwd: each parameter is updated, and its gradient freed, as soon
  // as the gradient is ready, so one parameter's gradient is alive at a time.
  bool optimizer_in_backward = false;
  // torchtune enable_activation_offloading / TRL activation_offloading (OffloadActivations):
  // the checkpointed activations go to pinned host memory during forward and come back
  // just before their backward; needs recompute "full".
  bool activation_offload = false;
  // training.packed_document_tokens: sequences packed from documents of this length
  // (length-weighted mean, Σd²/Σd), each attending only within itself through
  // variable-length attention kernels (FlashAttention varlen / cu_seqlens, Transformer
  // Engine THD); 0: one document per sequence.
  int64_t packed_document_tokens = 0;
};

// The causal span a query attends over, ×2 (seq_len for one document per sequence):
// attention's score and value FLOPs per token scale with it. Packed documents and sliding
// windows shorten it only where the attention kernel skips the masked blocks
// (FlashAttention's varlen and window paths); a dense s×s attention computes the masked
// square in full. A causal window of w tokens over a document of d attends
// (1/d)·Σᵢ min(i, w) ≈ w − w²/(2d) keys per query for w < d, d/2 for w ≥ d: a span of
// 2w − w²/d. t = nullptr: one document per sequence, flash attention.
struct AttentionSpans {
  double full = 0;            // a layer attending over the whole document
  double windowed = 0;        // a sliding-window layer (= full where no window applies)
  double windowed_share = 0;  // the share of the layers that are windowed (0: none applies)
  double mean = 0;            // averaged over the layers
};
inline AttentionSpans attention_spans(const ModelShape& m, const Training* t, int64_t seq_len) {
  const bool flash = t == nullptr || t->flash_attention;
  const int64_t doc =
      t && flash && t->packed_document_tokens > 0 ? std::min(seq_len, t->packed_document_tokens) : seq_len;
  const double d = static_cast<double>(doc);
  AttentionSpans r{d, d, 0.0, d};
  if (!flash || m.sliding_window <= 0 || m.sliding_window_layers <= 0 || m.sliding_window >= doc || m.layers <= 0)
    return r;
  const double w = static_cast<double>(m.sliding_window);
  const double windowed = static_cast<double>(std::min(m.sliding_window_layers, m.layers));
  const double layers = static_cast<double>(m.layers);
  r.windowed = 2 * w - w * w / d;
  r.windowed_share = windowed / layers;
  r.mean = ((layers - windowed) * d + windowed * r.windowed) / layers;
  return r;
}
// The mean span over the layers (above).
inline double attention_span(const ModelShape& m, const Training* t, int64_t seq_len) {
  return attention_spans(m, t, seq_len).mean;
}

// Element-wise ops run as separate eager PyTorch kernels: the PyTorch-native stacks
// without torch.compile. Megatron fuses them (Transformer Engine, Apex kernels).
inline bool eager_kernels(const Training& t) {
  return t.framework != Framework::megatron && !t.torch_compile && !t.liger_kernel;
}

struct Layout;
// True when the layout's selective recomputation rebuilds module `mod`.
bool recomputes(const Layout& l, RecomputeModule mod);

// The scenario names of the recompute modules and LoRA targets, with their bits, in the
// order the answer lists them (one table for the parser and the report).
struct NamedBit {
  const char* name;
  unsigned bit;
};
extern const NamedBit kRecomputeModuleNames[7];
extern const NamedBit kLoraTargetNames[7];

inline bool is_adapter_stage(const Training& t) { return t.stage == Stage::lora || t.stage == Stage::qlora; }

// Bytes per parameter of model states before sharding (docs/memory-model.md §1).
//  megatron:   2 (16-bit weights) + 4 (fp32 gradients: Megatron-LM forces fp32 gradient
//              accumulation and reduction with bf16, arguments.py
//              accumulate_allreduce_grads_in_fp32; 2 with fp16) + 12 (fp32 master, m, v)
//  torchtitan: 4 (FSDP2 keeps the sharded parameters in fp32, they are the master copy)
//              + 4 (fp32 gradients, reduce_dtype float32) + 8 (AdamW m, v); hf the same
//              (Trainer autocast over an fp32 model)
//  deepspeed:  2 + 2 + 12 (the ZeRO paper's mixed-precision Adam)
//  torchtune:  2 + 2 + 4 (bf16 everything, no master copy; AdamW moments in bf16)
// A scenario's grad_dtype overrides the gradient size.
// optimizer = fp32 master (when kept apart from the weights) + the optimizer's own state.
struct StateBytes {
  double weights = 2, gradients = 2, optimizer = 12;
  // Muon: AdamW's second moment on the embedding and output head (their first moment is
  // in `optimizer`), bytes per such parameter; 0 for every other optimizer.
  double adam_extra = 0;
};
StateBytes state_bytes(const Training& t, const ModelShape* m = nullptr);
// Bytes of the optimizer's own state per trainable parameter (no master copy). Adafactor's
// factored moment depends on matrix shapes: rows·cols params hold (rows + cols)·4 bytes.
double optimizer_state_bytes(Optimizer o, double rows = 0, double cols = 0);

// A fully decided layout.
struct Layout {
  int64_t tp = 1, pp = 1, dp = 1, cp = 1, ep = 1, vpp = 1;
  // Expert tensor parallelism (Megatron-Core --expert-tensor-parallel-size): how many
  // ranks split one expert's width, a divisor of tp (MoE recipes often use 1). The expert
  // ranks of a stage, tp·cp·dp of them, fold into etp × ep × expert-DP ("MoE parallel
  // folding", Liu et al. 2025).
  int64_t etp = 1;
  // Hybrid sharding (PyTorch HSDP, DeepSpeed ZeRO++ hpZ): ZeRO/FSDP shards the model
  // states over `shard` of the dp ranks and replicates them across dp / shard groups;
  // 0 = over all of dp.
  int64_t shard = 0;
  int64_t micro_batch = 1;  // b, sequences per micro-batch per DP rank
  int zero_stage = 0;       // 0..3; FSDP full-shard = 3
  Recompute recompute = Recompute::none;
  // With recompute "selective": the Megatron-Core modules rebuilt (bit set of RecomputeModule).
  unsigned recompute_modules = static_cast<unsigned>(RecomputeModule::core_attn);
  // Uneven pipeline split (Megatron-Core --decoder-first-pipeline-num-layers and
  // --decoder-last-pipeline-num-layers): the layers of the first and the last stage, 0 =
  // an even share; the other stages split the rest evenly. Used to lighten the stages
  // that also carry the embedding or the output layer and loss.
  int64_t first_stage_layers = 0, last_stage_layers = 0;
  // Sequences per optimizer step when the search chose the batch from a range
  // (training.global_batch_range): dp · micro_batch · micro-batches. 0 = training.global_batch.
  int64_t global_batch = 0;

  // EP splits the experts over ep of the stage's tp·cp·dp ranks; it adds no GPUs.
  int64_t gpus() const { return tp * pp * dp * cp; }
};

// The layout's global batch B in sequences: its own when the search chose it, else the training's.
inline int64_t global_batch(const Training& t, const Layout& l) {
  return l.global_batch > 0 ? l.global_batch : t.global_batch;
}
// Micro-batches per step per pipeline: m = B / (dp · b).
int64_t micro_batches(const Training& t, const Layout& l);
// The expert-data-parallel group a routed expert's parameters are replicated (and ZeRO-
// sharded) over: tp·cp·dp / (etp·ep).
// The DP ranks ZeRO/FSDP shards over (times cp for the whole sharding group).
inline int64_t zero_shard(const Layout& l) { return l.shard > 0 ? l.shard : l.dp; }
inline int64_t expert_dp(const Layout& l) { return l.tp * l.cp * l.dp / (l.etp * l.ep); }
// The ranks ZeRO/FSDP shards a routed expert's states over: the expert-data-parallel
// group, cut to the hybrid-sharding group's share of it (shard / dp).
inline int64_t expert_shard(const Layout& l) {
  const int64_t e = expert_dp(l) * zero_shard(l) / l.dp;
  return e > 1 ? e : 1;
}

// The divisibility and range rules a layout must obey, by name (one place for the
// conditions; check_layout words them, the search only asks whether any is broken).
enum class LayoutRule {
  none,
  tp_positive,
  pp_positive,
  dp_positive,
  cp_positive,
  vpp_positive,
  tp_heads,
  tp_kv_heads,
  tp_ffn,
  pp_layers,
  vpp_needs_pp,
  vpp_layers,
  cp_seq_len,
  cp_ulysses_heads,
  ep_dense,
  ep_positive,
  ep_experts,
  ep_dp_cp,
  tp_expert_ffn,
  etp_tp,
  mb_positive,
  dp_batch,
  mb_batch,
  vpp_micro_batches,
  zero_stage,
  split_needs_pp,
  split_first,
  split_last,
  split_rest,
  shard_dp,
  shard_zero,
  framework_pp,
  framework_vpp,
  framework_pp_zero,
  framework_selective
};
LayoutRule broken_rule(const ModelShape& m, const Training& t, const Layout& l);
// The rules of what training.framework can run (pipeline, interleaving, ZeRO with a
// pipeline, selective recompute), with the error naming the field; nullopt when it can.
std::optional<Error> check_framework(const Training& t, const Layout& l);

// Checks a layout against the model and batch. Error paths point into the
// scenario ("/parallel/tp", "/training/micro_batch", ...).
std::optional<Error> check_layout(const ModelShape& m, const Training& t, const Layout& l);

// Layers held by the pipeline stage with the most layers: vpp · ceil(L / (pp·vpp)).
// Uneven splits are allowed (Llama 3 405B: 126 layers on 16 stages), the fuller stage
// bounds both memory and time. With first/last_stage_layers, the largest stage's count.
int64_t layers_per_stage_max(const ModelShape& m, const Layout& l);
// True when the layout sets the first or the last stage's layers itself.
inline bool uneven_split(const Layout& l) { return l.first_stage_layers > 0 || l.last_stage_layers > 0; }
// Layers of pipeline stage `stage` (0-based): layers_per_stage_max without an uneven
// split (every stage is charged the fullest one's), else the stage's own count.
int64_t stage_layer_count(const ModelShape& m, const Layout& l, int64_t stage);

}  // namespace gpucalc
