#include "gpucalc/model.hpp"

#include <algorithm>

namespace gpucalc {

int64_t head_dim(const ModelShape& m) {
  if (m.head_dim > 0) return m.head_dim;
  return m.heads > 0 ? m.hidden / m.heads : 0;
}

int64_t qk_head_dim(const ModelShape& m) {
  return is_mla(m) ? m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim : head_dim(m);
}
int64_t v_head_dim(const ModelShape& m) { return is_mla(m) ? m.mla.v_head_dim : head_dim(m); }

int64_t attention_matmul_params(const ModelShape& m) {
  const int64_t h = m.hidden, a = m.heads, g = m.kv_heads, d = head_dim(m);
  if (!is_mla(m)) return h * a * d + 2 * h * g * d + a * d * h;  // Q, K, V, O
  // MLA (DeepSeek-V2 §2.1.2-2.1.3; HF modeling_deepseek.py DeepseekV3Attention):
  // q_a_proj h×q_r and q_b_proj q_r×a·(d_n+d_r) (or q_proj h×a·(d_n+d_r)),
  // kv_a_proj_with_mqa h×(kv_r+d_r), kv_b_proj kv_r×a·(d_n+d_v), o_proj a·d_v×h.
  const MlaShape& x = m.mla;
  const int64_t dqk = x.qk_nope_head_dim + x.qk_rope_head_dim;
  const int64_t q = x.q_lora_rank > 0 ? h * x.q_lora_rank + x.q_lora_rank * a * dqk : h * a * dqk;
  const int64_t kv =
      h * (x.kv_lora_rank + x.qk_rope_head_dim) + x.kv_lora_rank * a * (x.qk_nope_head_dim + x.v_head_dim);
  return q + kv + a * x.v_head_dim * h;
}

int64_t dense_mlp_matmul_params(const ModelShape& m) {
  return (gated_ffn(m.ffn_act) ? 3 : 2) * m.hidden * m.ffn_hidden;  // gate+up+down, or fc1+fc2
}

int64_t shared_expert_width(const ModelShape& m) {
  if (m.moe.shared_experts <= 0) return 0;
  return m.moe.shared_expert_ffn_hidden > 0 ? m.moe.shared_expert_ffn_hidden
                                            : m.moe.shared_experts * m.moe.expert_ffn_hidden;
}

namespace {
int64_t ffn_matrices(const ModelShape& m) { return gated_ffn(m.ffn_act) ? 3 : 2; }
}  // namespace

int64_t moe_mlp_active_matmul_params(const ModelShape& m) {
  const int64_t h = m.hidden;
  return m.moe.top_k * ffn_matrices(m) * h * m.moe.expert_ffn_hidden + ffn_matrices(m) * h * shared_expert_width(m) +
         m.moe.experts * h + (m.moe.shared_expert_gate ? h : 0);
}

int64_t layer_matmul_params(const ModelShape& m) { return attention_matmul_params(m) + dense_mlp_matmul_params(m); }

int64_t dense_layers_in(const ModelShape& m, int64_t begin, int64_t end) {
  const int64_t dense = is_moe(m) ? std::min(m.moe.first_dense_layers, m.layers) : m.layers;
  return std::max<int64_t>(0, std::min(end, dense) - begin);
}

ParamCounts count_params(const ModelShape& m) {
  // Module-by-module count (model.hpp; Narayanan et al. 2021 eq. 2 for GPT).
  const int64_t h = m.hidden, a = m.heads, g = m.kv_heads, d = head_dim(m), f = m.ffn_hidden;
  ParamCounts p;
  p.attention = attention_matmul_params(m);
  if (is_mla(m)) {
    p.attention += m.mla.kv_lora_rank + m.mla.q_lora_rank;  // q_a_layernorm, kv_a_layernorm (RMSNorm)
  } else if (m.linear_bias) {
    p.attention += a * d + 2 * g * d + h;  // Q, K, V and output biases
  } else if (m.qkv_bias) {
    p.attention += a * d + 2 * g * d;  // Qwen2: Q, K, V biases, no output bias
  }
  if (gated_ffn(m.ffn_act)) {
    p.mlp = 3 * h * f + (m.linear_bias ? 2 * f + h : 0);
  } else {
    p.mlp = 2 * h * f + (m.linear_bias ? f + h : 0);
  }
  const int64_t norm = (m.norm == Norm::layernorm) ? 2 * h : h;  // LayerNorm has weight and bias
  // Pre-attention and pre-MLP (Gemma 2/3 also post-attention and post-MLP); q/k norms
  // (Qwen3, Gemma 3) normalise each head's d channels, one weight vector for q, one for k.
  const int64_t qk = (m.norm == Norm::layernorm) ? 4 * d : 2 * d;
  p.layer_norms = m.norms_per_layer * norm + (m.qk_norm ? qk : 0);
  p.per_layer = p.attention + p.mlp + p.layer_norms;
  p.dense_layers = dense_layers_in(m, 0, m.layers);
  p.moe_layers = m.layers - p.dense_layers;
  if (is_moe(m)) {
    // Routed experts are MLPs of width f_e (Mixtral, Qwen-MoE, DeepSeekMoE: gate, up,
    // down, no biases; with linear_bias each expert's linears carry biases too, as
    // Megatron's add_bias_linear and gpt-oss's gate_up_proj_bias / down_proj_bias do);
    // the router is a bias-free E×h linear (DeepSeek-V3 adds a per-expert correction
    // bias, gpt-oss a linear bias); Qwen2-MoE gates its shared expert with an h→1 linear.
    const int64_t fe = m.moe.expert_ffn_hidden;
    p.expert = ffn_matrices(m) * h * fe + (m.linear_bias ? (ffn_matrices(m) - 1) * fe + h : 0);
    p.routed_experts = m.moe.experts * p.expert;
    const int64_t fs = shared_expert_width(m);
    p.shared_mlp = ffn_matrices(m) * h * fs + (m.moe.shared_expert_gate ? h : 0) +
                   (m.linear_bias && fs > 0 ? (ffn_matrices(m) - 1) * fs + h : 0);
    p.router = m.moe.experts * h + (m.moe.router_bias ? m.moe.experts : 0);
    p.moe_per_layer = p.attention + p.routed_experts + p.shared_mlp + p.router + p.layer_norms;
  }
  p.layers_total = p.dense_layers * p.per_layer + p.moe_layers * p.moe_per_layer;
  p.embedding = m.vocab * h;
  p.position = (m.position == PositionEmbedding::learned) ? m.max_position_embeddings * h : 0;
  p.final_norm = norm;
  p.head = m.tied_embeddings ? 0 : m.vocab * h;
  p.total = p.layers_total + p.embedding + p.position + p.final_norm + p.head;
  const int64_t attn_mm = attention_matmul_params(m), dense_mm = dense_mlp_matmul_params(m);
  const int64_t moe_mm_all = is_moe(m) ? m.moe.experts * ffn_matrices(m) * h * m.moe.expert_ffn_hidden +
                                             ffn_matrices(m) * h * shared_expert_width(m) + m.moe.experts * h +
                                             (m.moe.shared_expert_gate ? h : 0)
                                       : 0;
  p.matmul = p.dense_layers * (attn_mm + dense_mm) + p.moe_layers * (attn_mm + moe_mm_all) + m.vocab * h;
  const int64_t moe_active_mm = is_moe(m) ? moe_mlp_active_matmul_params(m) : 0;
  p.active_matmul = p.dense_layers * (attn_mm + dense_mm) + p.moe_layers * (attn_mm + moe_active_mm) + m.vocab * h;
  p.active = p.total - p.moe_layers * (m.moe.experts - m.moe.top_k) * p.expert;
  if (m.mtp_layers > 0) {
    // Megatron-Core MultiTokenPredictionLayer: enorm, hnorm (h each), eh_proj (2h → h, no
    // bias), the transformer layer, final_layernorm; embedding and output layer shared.
    const bool moe = mtp_block_is_moe(m);
    const int64_t block = moe ? p.moe_per_layer : p.per_layer;
    const int64_t block_mm = attn_mm + (moe ? moe_active_mm : dense_mm);
    p.mtp_module = block + 2 * norm + 2 * h * h + norm;
    p.mtp = m.mtp_layers * p.mtp_module;
    p.mtp_active_matmul = m.mtp_layers * (block_mm + 2 * h * h + m.vocab * h);
  }
  return p;
}

}  // namespace gpucalc
