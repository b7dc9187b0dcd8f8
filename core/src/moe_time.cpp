// What the per-op pricing of layer_time.cpp leaves out of a Megatron-Core MoE layer: its
// fixed time (docs/performance-model.md "MoE layer overhead") and the eager ops around
// gpt-oss's routed experts: the fc2 bias and the activation's clamp ("Expert biases",
// "Clamped activation").
#include "layer_time.hpp"

namespace gpucalc {

// Per MoE layer per micro-batch, forward and backward, whatever the layer's size. A
// dropless Megatron-Core MoE layer runs the router's top-k, builds the permutation
// indices, copies each expert's token count to the host to size the all-to-all and the
// grouped GEMM (a device-to-host synchronisation that stops the host running ahead),
// and launches many small per-expert kernels; Megatron-Core's MoE guide names the
// result the "CPU overhead bottleneck" of fine-grained MoE
// (megatron/core/transformer/moe/README.md). No public measurement gives its size, so
// it is one time fitted on measured Megatron-Bridge runs (data/perf.json
// moe_layer_overhead says on which and how well it predicts the others). Other
// frameworks: not measured, not priced. Under assume.hfu the efficiency includes it.
//
// CUDA graphs (training.cuda_graphs) replay captured kernels without the host launching
// each one; Megatron-Core's MoE guide names them the remedy for this overhead. Per-layer
// Transformer Engine graphs of the attention, router and preprocessing leave the
// dispatcher's synchronisation and the expert kernels' launches; a full-iteration graph
// (which needs a sync-free dispatcher) leaves what is not launch time. One time per mode,
// fitted on the runs that used it; a scenario that does not say takes the time fitted on
// all of them together (the published recipes' mix of modes).
//
// Beside it, a time per local expert (E / ep) in every mode: Transformer Engine's
// GroupedLinear runs one GEMM per local expert (fc1 and fc2, forward, input and weight
// gradient) with its casts and padding, so a GPU holding 32 experts runs eight times
// the kernels of one holding 4 for the same FLOPs; graphs take the launches off the
// host but not the tails of many small GEMMs. Fitted with the fixed time.
double moe_layer_overhead(const LayerCtx& c) {
  if (c.t->framework != Framework::megatron) return 0.0;
  const double local_experts = static_cast<double>(c.m->moe.experts) / static_cast<double>(c.l->ep);
  return c.k.data->moe_layer_overhead_s[static_cast<int>(c.t->cuda_graphs)] +
         c.k.data->moe_local_expert_overhead_s * local_experts;
}

// Eager PyTorch ops around gpt-oss's routed experts in Megatron-Core, HBM-bound.
//
// The second-linear (fc2) bias (models with linear_bias), from a329dd6 (2025-09, "Enable
// bias in expert mlp [gpt-oss 5/5]"): TEGroupedMLP._apply_bias adds it after the grouped
// GEMM, weighted by each row's routing probability — `torch.split` of the output and the
// probabilities, `t + b * p` per local expert and a `torch.cat`
// (megatron/core/transformer/moe/experts.py). The first linear's bias rides Transformer
// Engine's grouped GEMM epilogue and costs nothing here. Per routed element, in bf16 (the
// router's probabilities take the input dtype unless moe_router_dtype says otherwise,
// which the gpt-oss recipes do not): forward b·p writes 2 B, the add reads 4 and writes 2,
// the cat reads and writes 2 each: 12 B. Backward the multiply's two gradients each form
// grad·p or grad·b (read 2, write 2) and reduce it (read 2), and the split's gradient is a
// cat again (4 B): 16 B. Each op moves one expert's slice.
//
// The clamp of the activation's inputs (ffn_act swiglu_clamped; Megatron-Core
// activation_func_clamp_value, 7 in Megatron-Bridge's gpt-oss provider), from 2e29a5e
// (2025-09, "Add quick geglu activation for gpt-oss [gpt-oss 4/5]"): before the fused
// weighted quick-GEGLU, weighted_bias_quick_geglu_impl splits the fc1 output into its
// halves, clamps each and concatenates them again (megatron/core/fusions/
// fused_bias_geglu.py). Per fc1-output element in bf16: forward the clamps read 2 and write
// 2, the cat reads 2 and writes 2 (8 B); backward each clamp's gradient reads the gradient
// and its input and writes 2 (6 B), and the split's gradient is a cat (4 B): 10 B. It runs
// again when moe_act is recomputed (`act`).
//
// A full-iteration CUDA graph cannot hold the bias path (its host-side split sizes
// synchronise); the recipes that capture one use Transformer Engine's op fuser
// (use_transformer_engine_op_fuser), whose fused expert MLP takes the bias and the clamp.
// Other frameworks: not priced.
EagerTime expert_eager_time(const LayerCtx& c, double copies) {
  EagerTime r;
  if (c.t->framework != Framework::megatron || c.t->cuda_graphs == CudaGraphs::full_iteration) return r;
  if (c.m->linear_bias) {
    const double elems = copies * c.h * c.M;  // routed rows × h on this GPU per micro-batch
    const double segment = 2.0 * elems * static_cast<double>(c.l->ep) / static_cast<double>(c.m->moe.experts);
    r.fwd = c.k.mem(12.0 * elems, segment);
    r.bwd = c.k.mem(16.0 * elems, segment);
  }
  if (c.m->ffn_act == FfnAct::swiglu_clamped) {
    const double elems =
        copies * c.M * 2.0 * static_cast<double>(c.m->moe.expert_ffn_hidden) / static_cast<double>(c.l->etp);
    r.act = c.k.mem(8.0 * elems, elems);
    r.fwd += r.act;
    r.bwd += c.k.mem(10.0 * elems, elems);
  }
  return r;
}

}  // namespace gpucalc
