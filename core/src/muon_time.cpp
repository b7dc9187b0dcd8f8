// Muon (Jordan et al. 2024, "Muon: An optimizer for hidden layers in neural networks";
// Liu et al. 2025, "Muon is Scalable for LLM Training", arXiv:2502.16982): SGD momentum
// whose update is orthogonalised by Newton-Schulz iterations on each weight matrix.
#include "muon_time.hpp"

#include <algorithm>

namespace gpucalc {

double ns_matrix_time(const Kernels& k, double a, double b) {
  const double m = std::min(a, b), n = std::max(a, b);
  if (m <= 0) return 0.0;
  return kMuonNsSteps * (2 * k.gemm16(2 * m * m * n) + k.gemm16(2 * m * m * m));
}

namespace {

double attention_time(const ModelShape& m, const Kernels& k) {
  const double h = static_cast<double>(m.hidden), a = static_cast<double>(m.heads);
  if (m.attention == AttentionType::mla) {
    const MlaShape& x = m.mla;
    const double qk = static_cast<double>(x.qk_nope_head_dim + x.qk_rope_head_dim);
    const double q = x.q_lora_rank > 0 ? ns_matrix_time(k, h, static_cast<double>(x.q_lora_rank)) +
                                             ns_matrix_time(k, static_cast<double>(x.q_lora_rank), a * qk)
                                       : ns_matrix_time(k, h, a * qk);
    return q + ns_matrix_time(k, h, static_cast<double>(x.kv_lora_rank + x.qk_rope_head_dim)) +
           ns_matrix_time(k, static_cast<double>(x.kv_lora_rank),
                          a * static_cast<double>(x.qk_nope_head_dim + x.v_head_dim)) +
           ns_matrix_time(k, a * static_cast<double>(x.v_head_dim), h);
  }
  const double d = static_cast<double>(m.head_dim), g = static_cast<double>(m.kv_heads);
  return ns_matrix_time(k, h, a * d) + 2 * ns_matrix_time(k, h, g * d) + ns_matrix_time(k, a * d, h);
}

// An MLP of width f: Megatron's linear_fc1 holds gate and up as one h × 2f weight.
double mlp_time(const ModelShape& m, const Kernels& k, double f) {
  if (f <= 0) return 0.0;
  const double h = static_cast<double>(m.hidden);
  return ns_matrix_time(k, h, gated_ffn(m.ffn_act) ? 2 * f : f) + ns_matrix_time(k, f, h);
}

}  // namespace

MuonLayerTime muon_layer_time(const ModelShape& m, const Kernels& k, bool moe_layer) {
  MuonLayerTime r;
  r.dense = attention_time(m, k);
  if (!moe_layer) {
    r.dense += mlp_time(m, k, static_cast<double>(m.ffn_hidden));
    return r;
  }
  r.dense += mlp_time(m, k, static_cast<double>(m.moe.shared_expert_ffn_hidden)) +
             ns_matrix_time(k, static_cast<double>(m.moe.experts), static_cast<double>(m.hidden));
  r.expert = mlp_time(m, k, static_cast<double>(m.moe.expert_ffn_hidden));
  return r;
}

}  // namespace gpucalc
