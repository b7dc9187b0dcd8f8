// The time of a layer's LoRA adapters (Hu et al. 2021 §4.1): per adapted linear y = W·x,
// the adapter adds scale · B·(A·dropout(x)) with A r×d_in and B d_out×r. With r in the
// tens the two GEMMs do 2·r·(d_in + d_out) FLOPs per token but read the whole input x and
// write the whole d_out output: HBM-bound (Williams et al. 2009 roofline). The frameworks
// run the rest as separate element-wise kernels: PEFT `lora_B(lora_A(dropout(x))) *
// scaling` then `result + …` (huggingface/peft src/peft/tuners/lora/layer.py Linear.forward),
// NeMo AutoModel `lora_res * self.scale`, `F.dropout(lora_res)`, `res + lora_res`
// (NVIDIA-NeMo/Automodel nemo_automodel/components/_peft/lora.py LinearLoRA.forward),
// torchtune `(alpha / rank) * lora_b(lora_a(dropout(x)))` then `out + lora_out`
// (pytorch/torchtune torchtune/modules/peft/lora.py LoRALinear.forward), Megatron-Bridge
// ParallelLinearAdapter `x * (alpha / dim)` then `linear_output + adapter_output`.
// Megatron puts one adapter on each fused linear (linear_qkv, linear_fc1); the PyTorch
// stacks put one on each nn.Linear (q_proj, k_proj, v_proj, gate_proj, up_proj), each
// reading x again.
#include <vector>

#include "gpucalc/memory.hpp"
#include "layer_time.hpp"

namespace gpucalc {
namespace {

struct Adapted {
  double in = 0, out = 0;  // widths on this GPU
};

// The adapted linears of one layer on this GPU (TP splits the column-parallel outputs
// and the row-parallel inputs), with `copies` tokens per token through them (MoE experts).
struct AdaptedSet {
  std::vector<Adapted> linears;
  void add(double in, double out) {
    if (in > 0 && out > 0) linears.push_back({in, out});
  }
};

AdaptedSet attention_adapters(const LayerCtx& c) {
  AdaptedSet s;
  const LoraConfig& lc = c.t->lora;
  const bool fused = c.t->framework == Framework::megatron;
  if (c.mla) {
    const MlaShape& x = c.m->mla;
    const double qr = static_cast<double>(x.q_lora_rank), kr = static_cast<double>(x.kv_lora_rank),
                 dr = static_cast<double>(x.qk_rope_head_dim), dn = static_cast<double>(x.qk_nope_head_dim);
    if (has_target(lc, LoraTarget::q)) {
      if (qr > 0) s.add(c.h, qr), s.add(qr, c.a * c.dqk / c.tp);
      else s.add(c.h, c.a * c.dqk / c.tp);
    }
    if (has_target(lc, LoraTarget::k) || has_target(lc, LoraTarget::v))
      s.add(c.h, kr + dr), s.add(kr, c.a * (dn + c.dv) / c.tp);
  } else {
    const double q = has_target(lc, LoraTarget::q) ? c.a * c.d / c.tp : 0.0;
    const double k = has_target(lc, LoraTarget::k) ? c.g_kv * c.d / c.tp : 0.0;
    const double v = has_target(lc, LoraTarget::v) ? c.g_kv * c.d / c.tp : 0.0;
    if (fused) {
      s.add(c.h, q + k + v);
    } else {
      s.add(c.h, q), s.add(c.h, k), s.add(c.h, v);
    }
  }
  if (has_target(lc, LoraTarget::o)) s.add(c.a * c.dv / c.tp, c.h);
  return s;
}

void mlp_adapters(const LayerCtx& c, double f, AdaptedSet& s) {
  const LoraConfig& lc = c.t->lora;
  const double gate = c.swiglu && has_target(lc, LoraTarget::gate) ? f / c.tp : 0.0;
  const double up = has_target(lc, LoraTarget::up) ? f / c.tp : 0.0;
  if (c.t->framework == Framework::megatron) {
    s.add(c.h, gate + up);
  } else {
    s.add(c.h, gate), s.add(c.h, up);
  }
  if (has_target(lc, LoraTarget::down)) s.add(f / c.tp, c.h);
}

// One adapter over m tokens: the two thin GEMMs forward and backward (with their weight
// gradients) at the roofline of what they move, and the element-wise kernels around
// them. Forward: the scale (read and write d_out, 2 B each), the add into the base
// output (read 2, write 1), the dropout (read, write, 1-byte mask) when p > 0. Backward:
// the scale and dropout again on the output gradient, and autograd's sum of the
// adapter's input gradient into the base linear's (read 2, write 1 of d_in).
AdapterTime one_adapter(const LayerCtx& c, double m, const Adapted& a) {
  const Kernels& k = c.k;
  const double r = static_cast<double>(c.t->lora.rank);
  const double drop = c.t->lora.dropout > 0 ? 5.0 : 0.0;
  const double out_bytes = m * a.out * 2.0;
  AdapterTime t;
  t.fwd = k.linear_fwd(m, r, a.in) + k.linear_fwd(m, a.out, r);
  t.bwd = k.linear_bwd(m, r, a.in, false) + k.linear_bwd(m, a.out, r, false);
  const double fwd_bytes = m * a.out * (4.0 + 6.0 + drop);
  const double bwd_bytes = m * a.out * (4.0 + drop) + m * a.in * 6.0;
  t.fwd += k.mem(fwd_bytes, out_bytes);
  t.bwd += k.mem(bwd_bytes, out_bytes);
  return t;
}

}  // namespace

AdapterTime lora_adapter_time(const LayerCtx& c, bool moe_layer) {
  AdapterTime t;
  const auto sum = [&](const AdaptedSet& s, double m) {
    for (const Adapted& a : s.linears) {
      const AdapterTime x = one_adapter(c, m, a);
      t.fwd += x.fwd;
      t.bwd += x.bwd;
    }
  };
  sum(attention_adapters(c), c.M);
  AdaptedSet mlp;
  if (!moe_layer) {
    mlp_adapters(c, c.ff, mlp);
    sum(mlp, c.M);
    return t;
  }
  // Every routed expert carries its own adapters (PEFT matches module names): the k
  // routed copies of each token pass one expert's adapters each; the shared experts see
  // every token.
  mlp_adapters(c, static_cast<double>(c.m->moe.expert_ffn_hidden), mlp);
  sum(mlp, c.M * static_cast<double>(c.m->moe.top_k) * expert_load(*c.m));
  const double fs = static_cast<double>(shared_expert_width(*c.m));
  if (fs > 0) {
    AdaptedSet shared;
    mlp_adapters(c, fs, shared);
    sum(shared, c.M);
  }
  return t;
}

}  // namespace gpucalc
