// One transformer layer's time for one micro-batch on one GPU, as named pieces:
// attention GEMMs, core attention, element-wise work, the dense MLP or the MoE block
// (router, grouped expert GEMMs, permutation, all-to-all), recomputation, and the
// TP / CP collectives (docs/performance-model.md).
#pragma once
#include "gpucalc/compute.hpp"
#include "gpucalc/network.hpp"
#include "kernels.hpp"

namespace gpucalc {

// What every piece of a layer needs: the shapes per GPU and the priced kernels.
struct LayerCtx {
  const ModelShape* m = nullptr;
  const Training* t = nullptr;
  const Layout* l = nullptr;
  const Gpu* g = nullptr;
  Kernels k;
  Fabric fabric;
  double h = 0, a = 0, g_kv = 0, d = 0, dqk = 0, dv = 0, ff = 0, tp = 1, cp = 1, s = 0;
  double M = 0;  // tokens per micro-batch per GPU (b·s/cp)
  // Keys a query attends over, ×2, the mean over the layers: s, less with packed documents
  // or sliding windows (plan.hpp attention_spans); `spans` by kind of layer.
  double span = 0;
  AttentionSpans spans;
  double ts = 1;  // sequence-sharded region divisor (tp with SP)
  bool sp = false, swiglu = true, mla = false, frozen = false, qlora = false;
  bool eager = false;             // element-wise ops run as separate eager PyTorch kernels
  double att_bytes_tok = 0;       // attention-side element-wise bytes per token, forward
  double act_bytes_per_f = 0;     // the MLP activation function, bytes per f element
  double dequant_per_weight = 0;  // QLoRA: NF4 read + bf16 write per frozen weight per use
  double fp8_cast_bytes = 0;      // FP8/NVFP4: HBM bytes per element to quantise a GEMM input (0: 16-bit)
  double micro_batches = 1;       // per step: FP8 weight casts are made once a step
};

LayerCtx layer_ctx(const ModelShape& m, const Training& t, const Layout& l, const Gpu& g, const PerfProfile& perf,
                   const Efficiency& e);
// The same with the GPU's kernels and fabric already priced (kernels_for, fabric_for).
LayerCtx layer_ctx(const ModelShape& m, const Training& t, const Layout& l, const Gpu& g, const Kernels& k,
                   const Fabric& fabric, const Efficiency& e);

struct LayerTime {
  double fwd = 0, bwd = 0, recompute = 0;  // compute
  double tp = 0, cp = 0, ep = 0;           // exposed communication
  double overhead = 0;                     // MoE layer fixed time the per-op model misses (moe_time.cpp)
  double compute() const { return fwd + bwd + recompute; }
};

LayerTime layer_time(const LayerCtx& c, bool moe_layer);

// LoRA/QLoRA: the adapters of one layer, forward and backward (lora_time.cpp).
struct AdapterTime {
  double fwd = 0, bwd = 0;
};
AdapterTime lora_adapter_time(const LayerCtx& c, bool moe_layer);

// The fixed time per Megatron-Core MoE layer per micro-batch, forward and backward, that
// the per-op pricing does not cover (moe_time.cpp).
double moe_layer_overhead(const LayerCtx& c);
// Of n places (EP ranks, scale-up domains) holding equal shares of the routed experts, how
// many one token's top_k experts reach on average, under node-limited routing when the
// model has it (layer_time.cpp, beside the EP all-to-all that uses it).
double places_reached(double n, const MoeShape& moe);

// Eager PyTorch ops Megatron-Core runs around the routed experts' grouped GEMMs for
// gpt-oss (the fc2 bias, the clamp of the activation's inputs), over `copies` routed rows
// per token: HBM time per micro-batch, forward, backward, and the part of the forward
// that moe_act recompute runs again (moe_time.cpp).
struct EagerTime {
  double fwd = 0, bwd = 0, act = 0;
};
EagerTime expert_eager_time(const LayerCtx& c, double copies);

// The output layer on the last stage: the V·h/t head GEMM forward and backward, and the
// loss over the logits (HBM-bound).
double head_time(const LayerCtx& c);

}  // namespace gpucalc
