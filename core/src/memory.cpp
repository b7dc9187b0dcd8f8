// Per-GPU memory. The formulas are derived and justified term by term in
// docs/memory-model.md; the comments here name each term's source.
#include "gpucalc/memory.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "compiled_problem.hpp"
#include "gpucalc/framework.hpp"
#include "stage_params.hpp"

namespace gpucalc {
namespace {

constexpr double kAct = 2.0;  // bytes per saved activation element (bf16/fp16)

}  // namespace

double lora_params_per_layer(const ModelShape& m, const LoraConfig& c, bool moe_layer, bool active_only) {
  // r·(d_in + d_out) per adapted W: A is r×d_in, B is d_out×r (Hu et al. 2021 §4.1).
  const double r = static_cast<double>(c.rank);
  const double h = static_cast<double>(m.hidden), a = static_cast<double>(m.heads), g = static_cast<double>(m.kv_heads),
               d = static_cast<double>(head_dim(m));
  const auto ad = [&](double in, double out) { return r * (in + out); };
  double n = 0;
  if (is_mla(m)) {
    const MlaShape& x = m.mla;
    const double dqk = static_cast<double>(qk_head_dim(m)), dv = static_cast<double>(x.v_head_dim);
    const double qr = static_cast<double>(x.q_lora_rank), kr = static_cast<double>(x.kv_lora_rank),
                 dr = static_cast<double>(x.qk_rope_head_dim), dn = static_cast<double>(x.qk_nope_head_dim);
    if (has_target(c, LoraTarget::q)) n += qr > 0 ? ad(h, qr) + ad(qr, a * dqk) : ad(h, a * dqk);
    if (has_target(c, LoraTarget::k) || has_target(c, LoraTarget::v)) n += ad(h, kr + dr) + ad(kr, a * (dn + dv));
    if (has_target(c, LoraTarget::o)) n += ad(a * dv, h);
  } else {
    if (has_target(c, LoraTarget::q)) n += ad(h, a * d);
    if (has_target(c, LoraTarget::k)) n += ad(h, g * d);
    if (has_target(c, LoraTarget::v)) n += ad(h, g * d);
    if (has_target(c, LoraTarget::o)) n += ad(a * d, h);
  }
  const bool gated = gated_ffn(m.ffn_act);
  const auto mlp = [&](double f) {
    double x = 0;
    if (gated && has_target(c, LoraTarget::gate)) x += ad(h, f);
    if (has_target(c, LoraTarget::up)) x += ad(h, f);
    if (has_target(c, LoraTarget::down)) x += ad(f, h);
    return x;
  };
  if (!moe_layer) return n + mlp(static_cast<double>(m.ffn_hidden));
  // Every routed and shared expert carries its own adapters (PEFT matches module names).
  const double fs = static_cast<double>(shared_expert_width(m));
  const double experts = static_cast<double>(active_only ? m.moe.top_k : m.moe.experts);
  return n + experts * mlp(static_cast<double>(m.moe.expert_ffn_hidden)) + (fs > 0 ? mlp(fs) : 0.0);
}

bool peft_fp32_upcast(const Training& t) {
  return t.stage == Stage::qlora && t.framework == Framework::hf && t.lora.fp32_upcast;
}

double stream_elem_bytes(const Training& t) { return peft_fp32_upcast(t) ? 4.0 : kAct; }

double nf4_bytes_per_param(bool double_quant) {
  return (4.0 + (double_quant ? 8.0 / 64.0 + 32.0 / (64.0 * 256.0) : 32.0 / 64.0)) / 8.0;
}

namespace {

// Element sizes of the tensors a layer saves for backward (docs/memory-model.md §2c).
// Under Transformer Engine FP8 (Megatron-Core's TE layers), each Linear, LayerNormLinear
// and GroupedLinear with a trained weight quantises its input and keeps only that FP8
// copy for its weight-gradient GEMM, not the 16-bit tensor (TransformerEngine v2.18,
// commit 27486e0, transformer_engine/pytorch/module/linear.py _linear_forward_impl "Discard
// row-wise data" -> saved_inputmat; layernorm_linear.py ln_out_to_save;
// grouped_linear.py inputmats; v1.8 linear.py saved_inputmat_t and layernorm_linear.py
// ln_out in uint8): 1 B per element with delayed or current (tensorwise) scaling, plus
// one E8M0 scale per 32 values with MXFP8 (only the column-wise copy is kept). Tensors
// saved by other kernels stay 16-bit: the norms' inputs, attention's Q, K, V, O, the
// activation function's input (Megatron-Core fused_bias_swiglu without
// activation_func_fp8_input_store), the router's input. torchao's Float8Linear keeps the
// bf16 input (pytorch/ao torchao/float8/float8_linear.py matmul_with_hp_or_float8_args:
// save_for_backward(input_hp, ...)), and under LoRA the frozen base linear keeps nothing
// while the adapter keeps the 16-bit input (NeMo/Megatron-Bridge LoRA sets
// return_layernorm_output on the base; its adapters are Megatron, not TE, linears).
struct SavedElem {
  double act = kAct;        // the residual stream's and the MLP's elements (stream_elem_bytes)
  double gemm_in = kAct;    // a TE linear's own copy of its input
  bool own_copies = false;  // each TE linear keeps its own copy (16-bit: one shared tensor)
  // linear_proj's FP8 copy of the attention output O beside attention's bf16 O. Megatron-
  // Core >= 0.15 makes linear_proj keep the original O instead (set_save_original_input)
  // for every recipe but delayed, which TE does not support there (megatron/core/
  // transformer/attention.py; TE linear.py "DelayedScaling recipe is not supported").
  double proj_extra = 0;
  // A gated MLP run as eager PyTorch ops (Transformers' LlamaMLP / Qwen2MLP forward
  // down_proj(act_fn(gate_proj(x)) * up_proj(x)); torchtitan's and torchtune's
  // FeedForward w2(F.silu(w1(x)) * w3(x))): autograd keeps act_fn's output for the
  // product's backward beside the gate (act_fn's input), the up output and the product
  // (down_proj's input): a fourth f-wide tensor. Fused kernels (Megatron-Core
  // bias_swiglu, Liger's LigerSiLUMulFunction, which saves only gate and up) recompute
  // it in backward; so does a torch.compile'd graph.
  double glu_act = 0;
};
SavedElem saved_elem(const Training& t) {
  SavedElem e;
  // PEFT's 4-bit base: the norms' inputs and outputs, the adapters' saved inputs and the
  // unfused SwiGLU's tensors are fp32; attention runs on the bf16 copies Transformers'
  // FlashAttention path casts Q, K and V to.
  e.act = e.gemm_in = stream_elem_bytes(t);
  if (eager_kernels(t)) e.glu_act = e.act;
  if (!quantised_gemms(t.precision) || t.framework != Framework::megatron || is_adapter_stage(t)) return e;
  // NVFP4 keeps the column-wise (Hadamard-transformed) FP4 copy the Wgrad GEMM reads:
  // 0.5 B and an E4M3 scale per 16 elements.
  e.gemm_in = t.precision == Precision::fp4 ? kNvfp4Bytes : t.fp8_recipe == Fp8Recipe::mxfp8 ? 1.0 + 1.0 / 32.0 : 1.0;
  e.own_copies = true;
  if (t.fp8_recipe == Fp8Recipe::delayed) e.proj_extra = e.gemm_in;
  return e;
}

// Bytes per token per unit of width that the QKV projection's input costs. A TE
// LayerNormLinear keeps its normalised input (ln_out); MLA's input norm feeds two TE
// Linears, the q and kv down-projections (Megatron-Core gpt_layer_specs.py, without
// mla_down_proj_fusion), each keeping its own FP8 copy.
double qkv_input_bytes(const ModelShape& m, const SavedElem& e) {
  return e.own_copies && is_mla(m) ? 2.0 * e.gemm_in : e.gemm_in;
}

// The MLP's input. Dense: fc1 is a TE LayerNormLinear (its ln_out). MoE: the router keeps
// the 16-bit norm output (Megatron-Core moe_utils.py RouterGatingLinearFunction saves
// inp), and under FP8 the shared experts' fc1 keeps an FP8 copy beside it.
double mlp_input_bytes(const ModelShape& m, const Layout& l, const SavedElem& e, bool moe_layer) {
  if (!moe_layer) return e.gemm_in;
  const bool shared = shared_expert_width(m) > 0 && !recomputes(l, RecomputeModule::shared_experts);
  return kAct + (e.own_copies && shared ? e.gemm_in : 0.0);
}

// An MLP's intermediates per token, width w: the activation function keeps its 16-bit
// input (SwiGLU: gate and up, 2w; GELU: w) and fc2 its input, the activation output (w);
// an eager gated MLP also the activation of the gate (w, SavedElem::glu_act).
double mlp_inner_bytes(double mats, double w, const SavedElem& e) {
  return e.act * (mats - 1.0) * w + e.gemm_in * w + (mats > 2.0 ? e.glu_act * w : 0.0);
}

}  // namespace

double activation_bytes_per_layer(const ModelShape& m, const Training& t, const Layout& l, bool moe_layer) {
  // Tensors a layer saves for its backward pass, per micro-batch, per GPU
  // (docs/memory-model.md §2). s is the local sequence s/cp (context parallelism
  // splits the sequence, Megatron-Core CP); TP splits heads and FFN columns; sequence
  // parallelism (Korthikanti et al. 2022 §4.2.2) also splits the norm/residual-region
  // tensors across the TP group.
  const double s = static_cast<double>(t.seq_len) / static_cast<double>(l.cp);
  const double b = static_cast<double>(l.micro_batch);
  const double h = static_cast<double>(m.hidden);
  const double a = static_cast<double>(m.heads);
  const double g = static_cast<double>(m.kv_heads);
  const double d = static_cast<double>(head_dim(m));
  const double tp = static_cast<double>(l.tp);
  // Per-token widths of Q, K, V and the attention output: a·d, g·d, g·d, a·d; MLA
  // materialises per-head keys and values from its latent: a·(d_n+d_r), a·(d_n+d_r), a·d_v.
  const double dqk = static_cast<double>(qk_head_dim(m)), dv = static_cast<double>(v_head_dim(m));
  const double qd = a * dqk, kd = is_mla(m) ? a * dqk : g * d, vd = is_mla(m) ? a * dv : g * d, od = a * dv;
  // The MLP: a dense layer's width f; a MoE layer's routed experts see load·k copies of
  // each token (the busiest rank, docs/memory-model.md §2b) plus the shared experts.
  const double load = moe_layer ? expert_load(m) : 0.0;
  const double k_top = static_cast<double>(m.moe.top_k), fe = static_cast<double>(m.moe.expert_ffn_hidden);
  const double fs = moe_layer ? static_cast<double>(shared_expert_width(m)) : 0.0;
  const double f = moe_layer ? load * k_top * fe + fs : static_cast<double>(m.ffn_hidden);
  const double seq_shard = (t.sequence_parallel && l.tp > 1) ? tp : 1.0;
  const double sb = s * b;
  const bool titan = t.framework == Framework::torchtitan;
  const bool swiglu = gated_ffn(m.ffn_act);  // SwiGLU or GeGLU: gate, up, down
  // FlashAttention keeps only the fp32 log-sum-exp per query row (Dao et al. 2022).
  const double lse = t.flash_attention ? 4.0 * b * s * a / tp : 0.0;

  if (titan && l.recompute == Recompute::selective) {
    // torchtitan's op-level selective AC (torchtitan parallelize_llama.py, _save_list):
    // the block input is checkpointed; the outputs of the matmuls are saved except every
    // second one, plus the attention kernel's outputs and, under TP, the reduce-scatter
    // outputs; everything else is recomputed. Matmul order in a block: wq, wk, wv, wo,
    // then w1, w3, w2 (SwiGLU) or fc1, fc2 (GELU); the 1st, 3rd, 5th, 7th are saved.
    // Row-parallel matmuls (wo, w2) produce full-width partial sums before their
    // reduce-scatter.
    const double full_h = h;  // wo / w2 output per token on one rank
    const double mm_out[] = {qd / tp, kd / tp, vd / tp, full_h, f / tp, f / tp, full_h};
    const int n_mm = swiglu ? 7 : 6;
    double saved = h / seq_shard;  // block input
    for (int i = 0; i < n_mm; ++i) {
      const int idx = swiglu ? i : (i < 5 ? i : 6);  // GELU: fc1 (f/t) then fc2 (h)
      if (i % 2 == 0) saved += mm_out[idx];
    }
    saved += od / tp;                     // attention output (lse added below)
    if (l.tp > 1) saved += 2.0 * h / tp;  // reduce-scatter outputs after wo and w2
    return kAct * sb * saved + lse;
  }

  // Norm/residual region: inputs of the two norms (split by SP) and of the two
  // column-parallel projections, QKV and MLP-in. Megatron keeps those sequence-sharded
  // and re-gathers them in backward (Korthikanti §4.2.2); torchtitan's PrepareModuleInput
  // all-gathers them to Replicate before the linears, which save the full tensor.
  const double linear_in_shard = titan ? 1.0 : seq_shard;
  using RM = RecomputeModule;
  // Megatron-Core selective modules (plan.hpp): layernorm drops the two norm outputs
  // (the QKV and MLP-in inputs), mla_up_proj the per-head Q, K, V, mlp a dense MLP's
  // intermediates, moe_act the experts' activation output, shared_experts the shared
  // experts' intermediates, moe the whole MoE block's; each is rebuilt in backward.
  const bool rc_norm = recomputes(l, RM::layernorm), rc_up = is_mla(m) && recomputes(l, RM::mla_up_proj);
  // Each norm keeps its input (2 per layer; Gemma 2/3 have 4); the QKV and MLP-in
  // projections keep theirs. Per-head q/k norms (Qwen3, Gemma 3) keep Q and K before
  // normalisation.
  const double norms = static_cast<double>(m.norms_per_layer);
  const SavedElem e = saved_elem(t);
  double bytes = e.act * sb * h * norms / seq_shard;
  if (!rc_norm) bytes += sb * h * (qkv_input_bytes(m, e) + mlp_input_bytes(m, l, e, moe_layer)) / linear_in_shard;
  if (m.qk_norm) bytes += e.act * sb * (a + g) * d / tp;
  // Attention: Q, K, V (after RoPE) and the attention output O feeding the output
  // projection: s·b·(2·a·d + 2·g·d); split by TP over heads. Under FP8 with delayed
  // scaling linear_proj also keeps its FP8 copy of O.
  bytes += kAct * sb * ((rc_up ? 0.0 : qd + kd + vd) + od) / tp + e.proj_extra * sb * od / tp;
  if (is_mla(m)) {
    // MLA's latents, computed on every TP rank (Megatron-Core MLA down-projections are
    // not split): the q_a and kv_a outputs feeding their RMSNorms (16-bit) and the
    // normalised latents the up-projections (TE LayerNormLinear) keep, plus the shared
    // RoPE key.
    const double qr = static_cast<double>(m.mla.q_lora_rank), kr = static_cast<double>(m.mla.kv_lora_rank);
    bytes += sb * (kAct * (qr + kr + static_cast<double>(m.mla.qk_rope_head_dim)) + e.gemm_in * (qr + kr));
  }
  const double mats = swiglu ? 3.0 : 2.0;
  if (!moe_layer) {
    if (!recomputes(l, RM::mlp)) bytes += sb * mlp_inner_bytes(mats, f, e) / tp;
  } else if (recomputes(l, RM::moe)) {
    // The whole MoE block is rebuilt: nothing inside it is kept.
  } else {
    // MoE block (Megatron-Core MoE): per routed copy of a token the permuted input (h,
    // the expert fc1's input) and the expert's MLP tensors (split by expert-TP); the
    // routing probability is applied inside the activation (Megatron-Core experts.py,
    // weighted_bias_swiglu), so the expert output before the combine is not kept.
    // moe_act drops the activation output (fc2's input). The shared experts count as a
    // dense MLP of their width; the router keeps fp32 logits and probabilities (E each)
    // on the local tokens.
    // With expert-TP etp < tp each rank routes only its sequence shard (SP): etp/tp of
    // the micro-batch's tokens, at full expert width / etp.
    const double etp = static_cast<double>(l.etp);
    const double expert = recomputes(l, RM::moe_act) ? kAct * (mats - 1.0) * fe : mlp_inner_bytes(mats, fe, e);
    const double shared_kept = recomputes(l, RM::shared_experts) ? 0.0 : mlp_inner_bytes(mats, fs, e) / tp;
    bytes += sb * (load * k_top * (etp / seq_shard) * (e.gemm_in * h + expert / etp) + shared_kept);
    bytes += 8.0 * sb * static_cast<double>(m.moe.experts) / seq_shard;
  }
  // Dropout: 1-byte masks after attention and after the MLP (Korthikanti Table 2's 2sbh).
  if (m.dropout) bytes += 2.0 * sb * h / seq_shard;
  bytes += lse;
  if (!t.flash_attention &&
      (l.recompute == Recompute::none || (l.recompute == Recompute::selective && !recomputes(l, RM::core_attn)))) {
    // Materialised attention: softmax output 2·a·s²·b (+ dropout mask a·s²·b and
    // dropout output 2·a·s²·b): Korthikanti's 5·a·s²·b, or 2·a·s²·b without dropout.
    // Selective recomputation recomputes exactly this part (Korthikanti §5). With CP
    // each rank holds its s/cp queries against all s keys.
    const double s_full = static_cast<double>(t.seq_len);
    bytes += (m.dropout ? 5.0 : 2.0) * (e.act / kAct) * a * s * s_full * b / tp;
  }
  return bytes;
}

StageLayers stage_layers(const ModelShape& m, const Layout& l, int stage) {
  StageLayers r;
  r.total = stage_layer_count(m, l, stage);
  // Megatron-Core builds the MTP block on the last pipeline stage, after the decoder's
  // last layer and before the loss (pipeline_parallel_layer_layout.py).
  if (stage == l.pp - 1) r.mtp = m.mtp_layers;
  if (!is_moe(m)) {
    r.dense = r.total;
    return r;
  }
  if (uneven_split(l)) {
    // Model chunks in pipeline order (chunk k of stage s is virtual stage k·pp + s, as
    // Megatron interleaves them); a stage's layers spread over its vpp chunks as evenly
    // as they go, the first chunks taking the remainder.
    int64_t begin = 0;
    for (int64_t k = 0; k < l.vpp; ++k) {
      for (int64_t s = 0; s < l.pp; ++s) {
        const int64_t n = stage_layer_count(m, l, s);
        const int64_t size = n / l.vpp + (k < n % l.vpp ? 1 : 0);
        if (s == stage) r.dense += dense_layers_in(m, begin, begin + size);
        begin += size;
      }
    }
    return r;
  }
  const int64_t c = (m.layers + l.pp * l.vpp - 1) / (l.pp * l.vpp);
  for (int64_t k = 0; k < l.vpp; ++k) {
    const int64_t idx = k * l.pp + stage;
    r.dense += dense_layers_in(m, idx * c, (idx + 1) * c);
  }
  return r;
}

ModelStates model_state_bytes(double params, int zero_stage, double shard, StateBytes per_param) {
  ModelStates m;
  m.weights = per_param.weights * params / (zero_stage >= 3 ? shard : 1.0);
  m.gradients = per_param.gradients * params / (zero_stage >= 2 ? shard : 1.0);
  m.optimizer = per_param.optimizer * params / (zero_stage >= 1 ? shard : 1.0);
  return m;
}

double capacity_bytes(const Gpu& g) { return g.memory_gib.value.value_or(0.0) * 1073741824.0; }

int64_t min_gpus_to_hold_states(const ModelShape& m, const Training& t, double cap) {
  const ParamCounts pc = count_params(m);
  const StateBytes sb = state_bytes(t, &m);
  const double total = static_cast<double>(pc.total);
  const double trained = is_adapter_stage(t) ? 0.0 : total;
  // Gradients stay whole on the GPUs unless they are consumed as they are made: one at a
  // time under optimizer_in_backward, streamed to the host's optimizer under offload
  // (stage_memory below keeps at most the largest parameter's or one bucket of them).
  const bool streamed =
      t.optimizer_in_backward || (t.offload.optimizer && framework_profile(t.framework).offload_streams_gradients);
  double bytes = (t.stage == Stage::qlora ? 0.5 : 2.0) * total +
                 trained * ((streamed ? 0.0 : sb.gradients) + (t.offload.optimizer ? 0.0 : sb.optimizer));
  if (t.offload.params) bytes = 0;
  if (cap > 0 && bytes > cap) return static_cast<int64_t>(std::floor(bytes / cap));
  return 1;
}

namespace {

// What every stage of one layout shares, worked out once per layout: the state bytes per
// parameter (once per problem when compiled) and the activations saved per layer (dense or
// MoE; as saved, and as rebuilt by full recomputation), each computed on first use by the
// same call as before; the stages' parameters, from the compiled problem's memo if any.
struct LayoutMemo {
  const ModelShape& m;
  const Training& t;
  const Layout& l;
  StateBytes sb;
  StageParamsMemo* stages;
  std::optional<double> act[2], rebuilt[2];  // by moe_layer
  LayoutMemo(const ModelShape& m_, const Training& t_, const Layout& l_, StateBytes sb_,
             StageParamsMemo* stages_ = nullptr)
      : m(m_), t(t_), l(l_), sb(sb_), stages(stages_) {}
  StageParams params(int stage, const ParamCounts& pc) const {
    return stages ? stages->get(m, t, l, stage, pc) : stage_params(m, t, l, stage, pc);
  }
  double activations(bool moe) {
    if (!act[moe]) act[moe] = activation_bytes_per_layer(m, t, l, moe);
    return *act[moe];
  }
  double rebuilt_activations(bool moe) {
    if (!rebuilt[moe]) {
      Layout r = l;
      r.recompute = Recompute::none;  // the rebuilt layer holds every tensor, scores included
      rebuilt[moe] = activation_bytes_per_layer(m, t, r, moe);
    }
    return *rebuilt[moe];
  }
};

// What the pieces of one stage's memory below share: the layout, the stage's parameters,
// how ZeRO shards them and the shape of one micro-batch's activation stream.
struct StageCtx {
  const ModelShape& m;
  const Training& t;
  const Layout& l;
  const StageParams& sp;
  LayoutMemo& memo;
  int stage;
  bool last, titan, z3;
  double shard, eshard;  // ranks the dense and the routed-expert states are sharded over
  const FrameworkProfile& fw;
  double seq_shard, s_local, sbh, act;  // SP split, local sequence, s·b·h, bytes per stream element
};

// Model states, mixed-precision Adam (Rajbhandari et al. 2020 §3.1): 2 bytes of
// 16-bit weights, 2 of 16-bit gradients and K = 12 of optimizer state (fp32 master
// weights, momentum, variance) per parameter (other optimizers: plan.hpp). ZeRO shards
// them over the data-parallel group, which spans dp × cp (Megatron-Core's distributed
// optimizer and FSDP with CP shard over the combined DP-CP group): stage 1 the
// optimizer, 2 also gradients, 3 also weights. Routed-expert parameters are already
// split over the ep ranks of that group, so ZeRO shards them over the rest of it, the
// expert-data-parallel group of dp·cp/ep ranks (Megatron-Core expert DP).
// Hybrid sharding (parallel.shard) keeps the states sharded within groups of shard·cp.
void model_states(const StageCtx& c, StageMemory& r) {
  const Training& t = c.t;
  const Layout& l = c.l;
  const StageParams& sp = c.sp;
  const StateBytes& sb = c.memo.sb;
  const double shard = c.shard, eshard = c.eshard;
  const bool z3 = c.z3;
  if (!is_adapter_stage(t)) {
    const ModelStates a = model_state_bytes(sp.params, l.zero_stage, shard, sb);
    const ModelStates e = model_state_bytes(sp.expert_params, l.zero_stage, eshard, sb);
    r.weights = a.weights + e.weights;
    r.gradients = a.gradients + e.gradients;
    r.optimizer = a.optimizer + e.optimizer;
    // Muon leaves the embedding and output head to AdamW: their second moment too.
    // A tied head on the embedding's own stage is the embedding (stage_params.cpp).
    if (sb.adam_extra > 0) {
      const double head = c.m.tied_embeddings && sp.embedding_local > 0 ? 0.0 : sp.head_local;
      r.optimizer += sb.adam_extra * (sp.embedding_local + head) / (l.zero_stage >= 1 ? shard : 1.0);
    }
  } else {
    // LoRA / QLoRA: the base model is frozen, held as 16-bit weights (QLoRA: its layers'
    // linear weights in NF4) with no gradient and no optimizer state; FSDP / ZeRO-3 still
    // shards it. Only the adapters carry gradients and optimizer states.
    // The base's element size: lora.base_bytes (2 = bf16/fp16, 4 = fp32 as
    // from_pretrained loads without torch_dtype). QLoRA's NF4 linears; its other weights
    // (norms, embedding, head) in 16 bits, or in fp32 under Hugging Face PEFT, whose
    // prepare_model_for_kbit_training casts every non-quantised parameter to fp32
    // (lora.fp32_upcast; LLaMA-Factory by default does not).
    const bool q = t.stage == Stage::qlora;
    const double nf4 = nf4_bytes_per_param(t.lora.double_quant);
    const double dense_bytes = peft_fp32_upcast(t) ? 4.0 : t.lora.base_bytes;
    const double shared_linear = sp.linear - sp.expert_params;
    const double base = q ? (sp.params - shared_linear) * dense_bytes + shared_linear * nf4 : sp.params * dense_bytes;
    const double experts = sp.expert_params * (q ? nf4 : dense_bytes);
    const ModelStates ad = model_state_bytes(sp.adapters, l.zero_stage, shard, sb);
    r.weights = base / (z3 ? shard : 1.0) + experts / (z3 ? eshard : 1.0) + ad.weights;
    r.gradients = ad.gradients;
    r.optimizer = ad.optimizer;
  }
}

// ZeRO-3 / FSDP: the units gathered at a time on top of the shards.
void zero3_working_set(const StageCtx& c, StageMemory& r) {
  const ModelShape& m = c.m;
  const Training& t = c.t;
  const Layout& l = c.l;
  const StageParams& sp = c.sp;
  const double shard = c.shard;
  const bool titan = c.titan, z3 = c.z3, last = c.last;
  const int stage = c.stage;
  if (z3 && shard > 1.0) {
    // Gathered working set: the layer in use and the one being prefetched (2 B/param
    // each) plus the in-use layer's unsharded gradient before its reduce-scatter
    // (2 B/param): PyTorch FSDP forward/backward prefetch; DeepSpeed's ZeRO-3 estimator
    // adds the same 4·largest-layer term. On the last stage the output projection is
    // the largest unit (params + grads). torchtitan wraps the embedding, final norm and
    // head together as the root FSDP unit, gathered for the whole backward, with the
    // head's unsharded gradient alive until that unit's reduce-scatter at the end.
    double unit = 0.0;
    if (is_adapter_stage(t)) {
      // A frozen base has no gradient: the unit in use and the one prefetched, in the
      // base's storage format. FSDP2 gathers QLoRA's NF4 weights as NF4 and dequantises
      // one weight at a time (torchao NF4Tensor FSDP2 all-gather extensions, torchtune
      // QLoRA recipes; the dequantised weight is added below).
      const double per_param = t.stage == Stage::qlora ? nf4_bytes_per_param(t.lora.double_quant) : t.lora.base_bytes;
      r.weights_gathered = 2.0 * per_param * sp.layer_local;
    } else if (titan && l.pp > 1) {
      // torchtitan with PP: FSDP2 does not reshard after forward (parallelize.py:
      // reshard_after_forward = not pp_enabled) and the schedule syncs gradients only on the
      // last micro-batch's backward, so the stage's parameters stay unsharded in bf16 and
      // its unsharded gradients accumulate in the fp32 reduce dtype across micro-batches
      // (FSDPParam.to_accumulated_grad_if_needed): 2 + 4 B per stage parameter.
      r.weights_gathered = (2.0 + 4.0) * (sp.params + sp.expert_params);
    } else if (titan || t.framework == Framework::torchtune) {
      // torchtune shards with FSDP2 the same way (training/_distributed.py shard_model:
      // each layer, then the root module holding the embedding, final norm and head).
      const bool shared = m.tied_embeddings && stage == 0 && last;  // one matrix serves both
      const double root = (stage == 0 ? sp.embedding_local : 0.0) + (last && !shared ? sp.head_local : 0.0);
      unit = 2.0 * root + (last ? 2.0 * sp.head_local : 0.0);
    } else if (last) {
      unit = 4.0 * sp.head_local;
    }
    // The layer in use, the next one prefetched (DeepSpeed: at most its prefetch bucket)
    // and the in-use layer's unsharded gradient before its reduce-scatter (DeepSpeed: at
    // most its reduce bucket), 2 B each.
    const FrameworkProfile& fz = framework_profile(t.framework);
    const auto capped = [&](double cap) { return cap > 0 ? std::min(sp.layer_local, cap) : sp.layer_local; };
    const double layer_set = 2.0 * (sp.layer_local + capped(fz.prefetch_bucket_elems) + capped(fz.grad_bucket_elems));
    if (!is_adapter_stage(t) && !(titan && l.pp > 1)) r.weights_gathered = std::max(layer_set, unit);
  }
}

// Copies of weights made for the matmuls: QLoRA's dequantised weight, Transformer Engine's
// FP8 / NVFP4 cache.
void weight_copies(const StageCtx& c, StageMemory& r) {
  const ModelShape& m = c.m;
  const Training& t = c.t;
  const Layout& l = c.l;
  const StageParams& sp = c.sp;
  const double shard = c.shard, eshard = c.eshard;
  const bool z3 = c.z3;
  if (t.stage == Stage::qlora) {
    // bitsandbytes dequantises each NF4 weight to bf16 for its matmul, one at a time:
    // the largest local linear weight, 2 B per parameter.
    const double h = static_cast<double>(m.hidden);
    const double widest =
        std::max({static_cast<double>(m.heads) * static_cast<double>(qk_head_dim(m)),
                  static_cast<double>(is_moe(m) && sp.layers.dense == 0 ? m.moe.expert_ffn_hidden : m.ffn_hidden)});
    // Under ZeRO-3 / FSDP it comes on top of the gathered NF4 units.
    r.weights_gathered += 2.0 * h * widest / static_cast<double>(l.tp);
  }
  if (quantised_gemms(t.precision) && t.framework == Framework::megatron) {
    // Transformer Engine keeps an FP8 (1 byte) copy of each local weight between
    // micro-batches of a step (fp8 weight caching); torchao's dynamic float8 casts on
    // the fly and keeps none.
    // NVFP4: 0.5 B and a 1-byte scale per 16 weights, row-wise for Fprop and column-wise
    // for Dgrad (the recipe's 16×16 weight blocks make the two consistent).
    const double per_param = t.precision == Precision::fp4 ? 2 * kNvfp4Bytes : 1.0;
    r.fp8_weight_cache = per_param * (sp.params / (z3 ? shard : 1.0) + sp.expert_params / (z3 ? eshard : 1.0));
  }
}

// States moved off the GPU (optimizer_in_backward, offload, QLoRA's paged optimizer).
void offload(const StageCtx& c, StageMemory& r) {
  const ModelShape& m = c.m;
  const Training& t = c.t;
  const Layout& l = c.l;
  const StageParams& sp = c.sp;
  const StateBytes& sb = c.memo.sb;
  const double shard = c.shard;
  const FrameworkProfile& fw = c.fw;
  // Offload (ZeRO-Offload, Ren et al. 2021 §4): the fp32 master weights and optimizer
  // moments live in host memory, with an fp32 copy of the gradient partition the CPU
  // optimizer reads; QLoRA's paged optimizer keeps its states in unified memory that
  // pages to the host under pressure (Dettmers et al. 2023 §3), counted here on the host.
  // offload.params (ZeRO-Infinity, ZeRO-3 only) also moves the 16-bit weight shards.
  if (t.optimizer_in_backward) {
    // torchtune optimizer_in_bwd: a parameter's gradient lives only until its own update,
    // run from its post-accumulate-grad hook: the largest single local parameter's.
    const double widest = static_cast<double>(m.hidden) *
                          std::max(static_cast<double>(m.heads) * static_cast<double>(qk_head_dim(m)),
                                   static_cast<double>(m.ffn_hidden)) /
                          static_cast<double>(l.tp);
    const double largest = std::max({widest, sp.head_local, sp.embedding_local});
    r.gradients = std::min(r.gradients, sb.gradients * largest / (l.zero_stage >= 2 ? shard : 1.0));
  }
  if (t.offload.optimizer || (t.stage == Stage::qlora && t.lora.paged_optimizer)) {
    const double trainable = r.optimizer / std::max(sb.optimizer, 1e-9);  // parameters this GPU updates
    r.host_bytes += r.optimizer + (t.offload.optimizer ? 4.0 * trainable : 0.0);
    r.optimizer = 0;
    if (t.offload.optimizer && fw.offload_streams_gradients && !t.optimizer_in_backward) {
      // The gradients follow the optimizer to the host as backward produces them; the
      // GPU keeps one reduce bucket (DeepSpeed) or only the unit in flight (FSDP). With
      // optimizer_in_backward the one live gradient is consumed on the GPU already.
      r.gradients = std::min(r.gradients, 2.0 * fw.grad_bucket_elems);
    }
  }
  if (t.offload.params) {
    r.host_bytes += r.weights;
    r.weights = 0;
  }
}

// Activations saved for backward by the stage's layers (and MTP blocks).
void saved_activations(const StageCtx& c, StageMemory& r) {
  const ModelShape& m = c.m;
  const Training& t = c.t;
  const Layout& l = c.l;
  const StageParams& sp = c.sp;
  const double seq_shard = c.seq_shard, sbh = c.sbh, act = c.act;
  const int stage = c.stage;
  LayoutMemo& memo = c.memo;
  // Activations. Micro-batch-chunks in flight under 1F1B (Narayanan et al. 2021 §2.2):
  // stage i holds min(m, p - i) micro-batches; interleaved with v chunks, Megatron's
  // schedule warms up (p - i - 1)·2 + (v - 1)·p chunks, so stage 0 holds
  // (1 + (p-1)/(p·v))·L layers' worth (Korthikanti et al. 2022 §4.2.3).
  const int64_t m_count = micro_batches(t, l);
  const int64_t v = l.vpp;
  const int64_t p = l.pp;
  int64_t in_flight;
  if (v == 1) {
    in_flight = std::min<int64_t>(m_count, p - stage);
  } else {
    in_flight = std::min<int64_t>(m_count * v, (p - stage - 1) * 2 + (v - 1) * p + 1);
  }
  in_flight = std::max<int64_t>(in_flight, 1);
  r.in_flight = in_flight;
  const double chunk_layers = static_cast<double>(sp.layers.total) / static_cast<double>(v);
  // A stage's layers mix dense and MoE ones (the dense ones sit on stage 0); the saved
  // bytes per layer are their weighted mean.
  const double dense_share =
      static_cast<double>(sp.layers.dense) / static_cast<double>(std::max<int64_t>(1, sp.layers.total));
  const double per_layer =
      dense_share * memo.activations(false) + (dense_share < 1.0 ? (1.0 - dense_share) * memo.activations(true) : 0.0);
  if (l.recompute == Recompute::full) {
    // Full recomputation checkpoints only each layer's input (2·s·b·h, split by SP; 4·s·b·h
    // on PEFT's fp32 stream)
    // and rebuilds one layer at a time in backward (Korthikanti et al. 2022 §5, Table 2).
    r.layer_activations = static_cast<double>(in_flight) * chunk_layers * act * sbh / seq_shard;
    if (t.activation_offload) {
      // OffloadActivations (torchtune training/_activation_offloading.py, the same code in
      // TRL): each checkpoint is copied to pinned host memory as forward produces it, with
      // at most max_fwd_stash_size = 5 still on the GPU while their copies run, and
      // backward prefetches the next one: 6 checkpoints at most stay on the GPU.
      const double checkpoints = static_cast<double>(in_flight) * chunk_layers;
      const double on_gpu = std::min(checkpoints, 6.0);
      r.host_activations = r.layer_activations * (checkpoints - on_gpu) / checkpoints;
      r.host_bytes += r.host_activations;
      r.layer_activations -= r.host_activations;
    }
    // The rebuilt layer holds every tensor, scores included.
    r.recompute_working = std::max(sp.layers.dense > 0 ? memo.rebuilt_activations(false) : 0.0,
                                   sp.layers.moe() > 0 ? memo.rebuilt_activations(true) : 0.0);
  } else {
    r.layer_activations = static_cast<double>(in_flight) * chunk_layers * per_layer;
    if (t.offload.activation_layers > 0) {
      // Megatron-Core CPU offloading: each offloaded layer's saved tensors leave for host
      // memory as forward finishes the next layer, and backward brings each back one layer
      // ahead (Transformer Engine's double-buffered offload handler): one offloaded layer
      // stays on the GPU at the peak.
      const double offloaded = std::min(static_cast<double>(t.offload.activation_layers), chunk_layers);
      r.host_activations = static_cast<double>(in_flight) * std::max(0.0, offloaded - 1.0) * per_layer;
      r.host_bytes += r.host_activations;
      r.layer_activations -= r.host_activations;
    }
  }
  if (sp.layers.mtp > 0) {
    // MTP blocks ride with the last chunk's micro-batches in flight (about 1/v of the
    // stage's under interleaving), saving what a layer
    // of their kind saves (its input only under full recompute), plus the projection's
    // input (2·s·b·2h) and the two normed inputs it concatenates.
    const bool moe_block = mtp_block_is_moe(m);
    const double block =
        l.recompute == Recompute::full ? kAct * sbh / seq_shard : activation_bytes_per_layer(m, t, l, moe_block);
    const double chunk_in_flight = std::max(1.0, static_cast<double>(in_flight) / static_cast<double>(v));
    r.layer_activations +=
        chunk_in_flight * static_cast<double>(sp.layers.mtp) * (block + 3.0 * kAct * sbh / seq_shard);
  }
}

// The output layer and the loss (the last stage's).
void output_layer(const StageCtx& c, StageMemory& r) {
  const ModelShape& m = c.m;
  const Layout& l = c.l;
  const StageParams& sp = c.sp;
  const bool titan = c.titan;
  const FrameworkProfile& fw = c.fw;
  const double seq_shard = c.seq_shard, s_local = c.s_local, sbh = c.sbh, act = c.act;
  // Output layer on the last stage, one micro-batch at a time (docs/memory-model.md §5).
  // Megatron: the final norm's input and the head's input (2·s·b·h each, split by SP),
  // the 16-bit logits (s·b·V/t) and the fp32 softmax its fused vocab-parallel
  // cross-entropy computes in place and keeps for backward (4·s·b·V/t): 6 B per logit.
  // torchtitan: the head's input is all-gathered (ColwiseParallel, Replicate input) and
  // the loss runs on logits.float() through log-softmax, which at the start of backward
  // holds its fp32 output, the incoming fp32 gradient and the fp32 input gradient:
  // 12 B per logit.
  const double sbv =
      s_local * static_cast<double>(l.micro_batch) * static_cast<double>(m.vocab) / static_cast<double>(l.tp);
  // Other stacks (framework_profile): the norm's and the head's inputs and the bytes
  // per logit their loss holds at its peak.
  r.logits = titan ? kAct * sbh / seq_shard + kAct * sbh + 12.0 * sbv
                   : 2.0 * act * sbh / seq_shard + fw.loss_bytes_per_logit * sbv;
  // Each MTP module computes its own logits and loss over the same tokens; Megatron-Core
  // keeps every loss's saved softmax until the one backward pass.
  r.logits *= static_cast<double>(1 + sp.layers.mtp);
}

// Runtime overheads (docs/memory-model.md §Runtime).
void runtime(const StageCtx& c, const Overheads& o, StageMemory& r) {
  const Layout& l = c.l;
  const double eshard = c.eshard;
  r.cuda_context = o.cuda_context_bytes;
  int communicators = 0;
  if (l.tp > 1) ++communicators;
  if (l.pp > 1) ++communicators;
  if (l.dp > 1) ++communicators;
  if (l.cp > 1) ++communicators;
  if (l.ep > 1) ++communicators;                  // EP all-to-all group
  if (l.ep > 1 && eshard > 1.0) ++communicators;  // expert-data-parallel group
  r.comm_buffers = o.nccl_bytes_per_communicator * communicators;
  r.fragmentation = o.fragmentation * (r.activations() + r.weights_gathered);
}

// One stage's memory with the model's parameter counts already derived.
StageMemory stage_memory(const ModelShape& m, const Training& t, const Layout& l, const Overheads& o, int stage,
                         const ParamCounts& pc, LayoutMemo& memo) {
  StageMemory r;
  r.stage = stage;
  const StageParams sp = memo.params(stage, pc);
  r.layers = sp.layers.total;
  const double seq_shard = (t.sequence_parallel && l.tp > 1) ? static_cast<double>(l.tp) : 1.0;
  const double s_local = static_cast<double>(t.seq_len) / static_cast<double>(l.cp);
  const StageCtx c{m,
                   t,
                   l,
                   sp,
                   memo,
                   stage,
                   stage == l.pp - 1,
                   t.framework == Framework::torchtitan,
                   l.zero_stage >= 3,
                   static_cast<double>(zero_shard(l) * l.cp),
                   static_cast<double>(expert_shard(l)),
                   framework_profile(t.framework),
                   seq_shard,
                   s_local,
                   s_local * static_cast<double>(l.micro_batch) * static_cast<double>(m.hidden),
                   stream_elem_bytes(t)};
  model_states(c, r);
  zero3_working_set(c, r);
  weight_copies(c, r);
  offload(c, r);
  saved_activations(c, r);
  if (c.last) output_layer(c, r);
  r.loss_before_rebuild = c.fw.loss_before_rebuild;
  runtime(c, o, r);
  return r;
}

StageMemory worst_stage_memory(const ModelShape& m, const Training& t, const Layout& l, const Overheads& o,
                               const ParamCounts& pc, StateBytes sb, StageParamsMemo* stages) {
  LayoutMemo memo(m, t, l, sb, stages);
  StageMemory a = stage_memory(m, t, l, o, 0, pc, memo);
  if (l.pp == 1) return a;
  StageMemory z = stage_memory(m, t, l, o, static_cast<int>(l.pp - 1), pc, memo);
  StageMemory worst = z.total() > a.total() ? z : a;
  if ((uneven_split(l) || (is_moe(m) && m.moe.first_dense_layers > 0)) && l.pp > 2) {
    // Stage 0's dense layers are lighter than MoE ones, or an uneven split gave it
    // fewer: the next stage (the middle stages' share, almost as many micro-batches in
    // flight) can be the fullest.
    StageMemory b = stage_memory(m, t, l, o, 1, pc, memo);
    if (b.total() > worst.total()) worst = b;
  }
  return worst;
}

}  // namespace

StageMemory stage_memory(const ModelShape& m, const Training& t, const Layout& l, const Overheads& o, int stage) {
  LayoutMemo memo(m, t, l, state_bytes(t, &m));
  return stage_memory(m, t, l, o, stage, count_params(m), memo);
}

StageMemory worst_stage_memory(const ModelShape& m, const Training& t, const Layout& l, const Overheads& o) {
  return worst_stage_memory(m, t, l, o, count_params(m), state_bytes(t, &m), nullptr);
}

StageMemory worst_stage_memory(const CompiledProblem& cp, const Layout& l) {
  const Problem& p = *cp.problem;
  return worst_stage_memory(p.model, p.training, l, p.overheads, cp.params, cp.state_bytes, &cp.stage_params);
}

}  // namespace gpucalc
