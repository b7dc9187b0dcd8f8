// Megatron-LM (Megatron-Core) arguments for pretrain_gpt.py, as a bash array. Names from
// NVIDIA/Megatron-LM megatron/training/arguments.py at the commit in
// data/frameworks/megatron.json.
#include <cmath>
#include <string>

#include "launch_export_detail.hpp"

namespace gpucalc::launch {
namespace {

struct Args {
  std::string text;
  void add(const std::string& flag, const std::string& value = "") {
    text += "  " + flag + (value.empty() ? "" : " " + value) + "\n";
  }
  void comment(const std::string& c) { text += "  # " + c + "\n"; }
};

void parallel_args(Out& o, Args& a) {
  const Layout& l = o.l;
  const Training& t = o.s.problem.training;
  a.comment("layout: " + num(l.gpus()) + " GPUs = tp " + num(l.tp) + " x pp " + num(l.pp) + " x cp " + num(l.cp) +
            " x dp " + num(l.dp));
  a.add("--tensor-model-parallel-size", num(l.tp));
  a.add("--pipeline-model-parallel-size", num(l.pp));
  if (l.vpp > 1) a.add("--num-virtual-stages-per-pipeline-rank", num(l.vpp));
  if (l.first_stage_layers > 0) a.add("--decoder-first-pipeline-num-layers", num(l.first_stage_layers));
  if (l.last_stage_layers > 0) a.add("--decoder-last-pipeline-num-layers", num(l.last_stage_layers));
  a.add("--context-parallel-size", num(l.cp));
  if (l.cp > 1 && t.cp_comm == CpComm::ulysses) a.add("--cp-comm-type", "a2a");
  if (o.s.problem.model.moe.experts > 0) {
    a.add("--expert-model-parallel-size", num(l.ep));
    a.add("--expert-tensor-parallel-size", num(l.etp));
  }
  if (l.tp > 1 && t.sequence_parallel) a.add("--sequence-parallel");
  if (l.tp > 1 && t.overlap_tp_comm) a.add("--tp-comm-overlap");
}

void batch_args(Out& o, Args& a) {
  const Training& t = o.s.problem.training;
  a.add("--micro-batch-size", num(o.l.micro_batch));
  a.add("--global-batch-size", num(t.global_batch));
  a.add("--seq-length", num(t.seq_len));
  a.add("--train-samples", num(train_steps(o.s) * t.global_batch));
}

// ZeRO stage → Megatron's distributed optimizer (stages 1-2: optimizer states, and with
// them the reduce-scattered gradients) or Megatron-FSDP (stage 3), HSDP → instances.
void sharding_args(Out& o, Args& a) {
  const Layout& l = o.l;
  const Training& t = o.s.problem.training;
  if (l.zero_stage == 1 || l.zero_stage == 2) {
    a.add("--use-distributed-optimizer");
    if (l.zero_stage == 1)
      approximate(o, "zero_stage", "1", "--use-distributed-optimizer", "export_approximate_distopt");
  } else if (l.zero_stage == 3) {
    a.add("--use-megatron-fsdp");  // Megatron-FSDP v1 (the default) turns the distributed optimizer on
    a.add("--data-parallel-sharding-strategy", "optim_grads_params");
  }
  const bool overlap_grad = t.overlap_grad_reduce && l.dp > 1;
  if (overlap_grad) a.add("--overlap-grad-reduce");
  // arguments.py: --overlap-param-gather needs --overlap-grad-reduce and a sharded optimizer.
  if (overlap_grad && l.zero_stage > 0 && t.overlap_param_gather) a.add("--overlap-param-gather");
  if (l.shard > 0 && l.shard < l.dp) {
    if (l.zero_stage == 3) no_equivalent(o, "parallel.shard", num(l.shard));
    else a.add("--num-distributed-optimizer-instances", num(l.dp / l.shard));
  }
  if (t.offload.optimizer) a.add("--optimizer-cpu-offload");
  if (t.offload.activation_layers > 0) a.add("--cpu-offloading-num-layers", num(t.offload.activation_layers));
  if (t.offload.params) no_equivalent(o, "training.offload.params", "true");
}

void precision_args(Out& o, Args& a) {
  const Training& t = o.s.problem.training;
  a.add(t.precision == Precision::fp16 ? "--fp16" : "--bf16");
  if (t.precision == Precision::fp4) {
    // Megatron-Core NVFP4 (Transformer Engine NVFP4BlockScaling), as Megatron-Bridge's
    // bf16_with_nvfp4_mixed recipe sets it.
    a.add("--fp4-format", "e2m1");
    a.add("--fp4-recipe", "nvfp4");
    if (o.l.zero_stage > 0) a.add("--fp4-param-gather");  // the gather gpucalc prices in FP4
    return;
  }
  if (t.precision != Precision::fp8) return;
  a.add("--fp8-format", "hybrid");
  a.add("--fp8-recipe", t.fp8_recipe == Fp8Recipe::delayed ? "delayed"
                        : t.fp8_recipe == Fp8Recipe::mxfp8 ? "mxfp8"
                                                           : "tensorwise");
}

void recompute_args(Out& o, Args& a) {
  const Layout& l = o.l;
  if (l.recompute == Recompute::full) {
    a.add("--recompute-granularity", "full");
    a.add("--recompute-method", "uniform");
    a.add("--recompute-num-layers", "1");
  } else if (l.recompute == Recompute::selective) {
    a.add("--recompute-granularity", "selective");
    a.add("--recompute-modules", recompute_module_list(l.recompute_modules, " "));
  }
}

void optimizer_args(Out& o, Args& a) {
  const Optimizer opt = o.s.problem.training.optimizer;
  // Megatron's "adam" is AdamW: torch.optim.AdamW / TE FusedAdam with decoupled weight decay.
  if (opt == Optimizer::adamw) a.add("--optimizer", "adam");
  else if (opt == Optimizer::sgd) a.add("--optimizer", "sgd");
  else if (opt == Optimizer::lion) a.add("--optimizer", "lion");
  // Muon on the matrices, Adam on embeddings, head and vectors (--muon-scalar-optimizer).
  else if (opt == Optimizer::muon) a.add("--optimizer", "muon");
  else no_equivalent(o, "training.optimizer", to_string(opt));
}

// Sliding windows: --window-size "w,0" (Transformer Engine's (left, right) window), and
// the full-attention layers as --window-attn-skip-freq N, Megatron's "one full attention
// layer after N-1 SWA layers" (⌊L/N⌋ full), when some N gives the scenario's count;
// otherwise Megatron needs the pattern by position, which the scenario does not keep.
void window_args(Out& o, Args& a) {
  const ModelShape& m = o.s.problem.model;
  if (m.sliding_window <= 0 || m.sliding_window_layers <= 0) return;
  a.add("--window-size", num(m.sliding_window) + ",0");
  if (m.sliding_window_layers == m.layers) return;
  for (int64_t n = 2; n <= m.layers; ++n)
    if (m.layers - m.layers / n == m.sliding_window_layers) return a.add("--window-attn-skip-freq", num(n));
  no_equivalent(o, "model.sliding_window_layers", num(m.sliding_window_layers));
}

void model_args(Out& o, Args& a) {
  const ModelShape& m = o.s.problem.model;
  a.comment("model: " + m.name);
  a.add("--num-layers", num(m.layers));
  a.add("--hidden-size", num(m.hidden));
  a.add("--ffn-hidden-size", num(m.ffn_hidden));
  a.add("--num-attention-heads", num(m.heads));
  if (m.kv_heads != m.heads) {
    a.add("--group-query-attention");
    a.add("--num-query-groups", num(m.kv_heads));
  }
  if (m.head_dim * m.heads != m.hidden) a.add("--kv-channels", num(m.head_dim));
  a.add("--max-position-embeddings",
        num(m.max_position_embeddings > 0 ? m.max_position_embeddings : o.s.problem.training.seq_len));
  // YaRN: Megatron-LM's --rotary-scaling-factor F with its default mscale 1 and
  // mscale_all_dim 0 gives the attention factor 0.1·ln F + 1 (_yarn_get_concentration_factor),
  // so F = e^(10·(factor − 1)): 32 for gpt-oss. Its other YaRN settings keep their defaults.
  const bool yarn = m.position == PositionEmbedding::rope && m.rope_attention_factor != 1.0 && !is_mla(m);
  a.add("--position-embedding-type", yarn                                    ? "yarn"
                                     : m.position == PositionEmbedding::rope ? "rope"
                                                                             : "learned_absolute");
  if (yarn) a.add("--rotary-scaling-factor", num(std::round(std::exp(10 * (m.rope_attention_factor - 1)) * 100) / 100));
  if (m.position == PositionEmbedding::alibi) no_equivalent(o, "model.position", "alibi");
  a.add("--normalization", m.norm == Norm::rmsnorm ? "RMSNorm" : "LayerNorm");
  if (m.ffn_act == FfnAct::swiglu) a.add("--swiglu");
  // gpt-oss: Megatron-Core's quick-GELU GLU; its clamp and the +1 on the linear half
  // (activation_func_clamp_value, glu_linear_offset) are config fields with no flag.
  if (m.ffn_act == FfnAct::swiglu_clamped) {
    a.add("--quick-geglu");
    framework_warning(o, "export_clamp_in_code");
  }
  if (m.ffn_act == FfnAct::geglu) no_equivalent(o, "model.ffn_act", "geglu");
  if (!m.tied_embeddings) a.add("--untie-embeddings-and-output-weights");
  if (!m.linear_bias) a.add("--disable-bias-linear");
  if (m.qkv_bias) a.add("--add-qkv-bias");
  if (m.qk_norm) a.add("--qk-layernorm");
  // DeepSeek-V3's and GLM-4.5's multi-token-prediction modules (model.mtp_layers).
  if (m.mtp_layers > 0) a.add("--mtp-num-layers", num(m.mtp_layers));
  window_args(o, a);
  if (m.attention == AttentionType::mla) {
    a.add("--multi-latent-attention");
    if (m.mla.q_lora_rank > 0) a.add("--q-lora-rank", num(m.mla.q_lora_rank));
    a.add("--kv-lora-rank", num(m.mla.kv_lora_rank));
    a.add("--qk-head-dim", num(m.mla.qk_nope_head_dim));
    a.add("--qk-pos-emb-head-dim", num(m.mla.qk_rope_head_dim));
    a.add("--v-head-dim", num(m.mla.v_head_dim));
  }
}

// training.overlap_moe_comm: Megatron-Core's EP all-to-all overlap, with the conditions its
// TransformerConfig asserts at start-up (transformer_config.py, overlap_moe_expert_parallel_comm:
// expert parallelism, virtual pipeline stages when pp > 1, no full recomputation); a plan that
// breaks one is exported as asked and says which, since the run would stop there.
void moe_overlap_args(Out& o, Args& a) {
  a.add("--overlap-moe-expert-parallel-comm");
  if (o.l.ep <= 1) framework_warning(o, "export_moe_overlap_needs_ep");
  if (o.l.pp > 1 && o.l.vpp <= 1) framework_warning(o, "export_moe_overlap_needs_vpp");
  if (o.l.recompute == Recompute::full) framework_warning(o, "export_moe_overlap_full_recompute");
}

void moe_args(Out& o, Args& a) {
  const MoeShape& e = o.s.problem.model.moe;
  if (e.experts == 0) return;
  a.add("--num-experts", num(e.experts));
  a.add("--moe-router-topk", num(e.top_k));
  a.add("--moe-ffn-hidden-size", num(e.expert_ffn_hidden));
  if (e.shared_experts > 0) a.add("--moe-shared-expert-intermediate-size", num(e.shared_expert_ffn_hidden));
  if (e.first_dense_layers > 0)
    a.add("--moe-layer-freq",
          "'([0]*" + num(e.first_dense_layers) + "+[1]*" + num(o.s.problem.model.layers - e.first_dense_layers) + ")'");
  // A router bias without linear biases is DeepSeek-V3's (Kimi K2's, GLM-4.5's) per-expert
  // correction bias of auxiliary-loss-free balancing, which comes with sigmoid scores;
  // with linear_bias (gpt-oss) it is the router linear's own bias (add_bias_linear).
  if (e.router_bias && !o.s.problem.model.linear_bias) {
    a.add("--moe-router-score-function", "sigmoid");
    a.add("--moe-router-enable-expert-bias");
  }
  if (e.groups > 1 && e.group_topk > 0) {  // node-limited routing (DeepSeek-V3 §2.1.2)
    a.add("--moe-router-num-groups", num(e.groups));
    a.add("--moe-router-group-topk", num(e.group_topk));
  }
  if (e.capacity_factor > 0) a.add("--moe-expert-capacity-factor", num(e.capacity_factor));
  if (o.s.problem.training.moe_dispatcher == MoeDispatcher::deepep) {
    // With the permutation fused into the dispatch, the backend is HybridEP's
    // (--moe-permute-fusion-into-hybridep, Megatron-Core token_dispatcher.py _HybridEPManager).
    const bool fused = o.s.problem.training.moe_permute_fusion;
    a.add("--moe-token-dispatcher-type", "flex");
    a.add("--moe-flex-dispatcher-backend", fused ? "hybridep" : "deepep");
    if (fused) a.add("--moe-permute-fusion-into-hybridep");
  } else {
    a.add("--moe-token-dispatcher-type", "alltoall");
  }
  if (o.s.problem.training.overlap_moe_comm) moe_overlap_args(o, a);
}

// CUDA graphs (training.cuda_graphs), as Megatron-LM's arguments.py spells them: per-layer
// Transformer Engine graphs of the attention and, in a MoE layer, the router and the
// dispatch preprocessing (a dense layer's MLP instead); or the whole iteration.
void cuda_graph_args(Out& o, Args& a) {
  const CudaGraphs g = o.s.problem.training.cuda_graphs;
  if (g == CudaGraphs::per_layer) {
    a.add("--cuda-graph-impl", "transformer_engine");
    a.add("--cuda-graph-scope", is_moe(o.s.problem.model) ? "attn moe_router moe_preprocess" : "attn mlp");
  } else if (g == CudaGraphs::full_iteration) {
    a.add("--cuda-graph-impl", "local");
    a.add("--cuda-graph-scope", "full_iteration");
  }
}

}  // namespace

std::string write_megatron(Out& o) {
  Args a;
  parallel_args(o, a);
  batch_args(o, a);
  sharding_args(o, a);
  precision_args(o, a);
  recompute_args(o, a);
  optimizer_args(o, a);
  model_args(o, a);
  moe_args(o, a);
  cuda_graph_args(o, a);
  if (is_adapter_stage(o.s.problem.training)) no_equivalent(o, "training.stage", to_string(o.s.problem.training.stage));
  const int64_t gpus = o.l.gpus();
  return "# Megatron-LM arguments for the plan gpucalc chose (option names: NVIDIA/Megatron-LM\n"
         "# megatron/training/arguments.py, data/frameworks/megatron.json). Add your data,\n"
         "# tokenizer, learning-rate and checkpoint arguments, then launch\n# (" +
         num(gpus) +
         " GPUs in all):\n"
         "#   torchrun --nnodes N --nproc-per-node G pretrain_gpt.py \"${GPUCALC_ARGS[@]}\" ...\n"
         "GPUCALC_ARGS=(\n" +
         a.text + ")\n";
}

}  // namespace gpucalc::launch
