#include "gpucalc/model.hpp"

namespace gpucalc {

int64_t head_dim(const ModelShape& m) {
  if (m.head_dim > 0) return m.head_dim;
  return m.heads > 0 ? m.hidden / m.heads : 0;
}

int64_t layer_matmul_params(const ModelShape& m) {
  const int64_t h = m.hidden, a = m.heads, g = m.kv_heads, d = head_dim(m), f = m.ffn_hidden;
  const int64_t attn = h * a * d + 2 * h * g * d + a * d * h;  // Q, K, V, O
  const int64_t mlp = (gated_ffn(m.ffn_act) ? 3 : 2) * h * f;  // gate+up+down, or fc1+fc2
  return attn + mlp;
}

ParamCounts count_params(const ModelShape& m) {
  // Module-by-module count (sizing-model.md §1; Narayanan et al. 2021 eq. 2 for GPT).
  const int64_t h = m.hidden, a = m.heads, g = m.kv_heads, d = head_dim(m), f = m.ffn_hidden;
  ParamCounts p;
  p.attention = h * a * d + 2 * h * g * d + a * d * h;
  if (m.linear_bias) {
    p.attention += a * d + 2 * g * d + h;  // Q, K, V and output biases
  } else if (m.qkv_bias) {
    p.attention += a * d + 2 * g * d;      // Qwen2: Q, K, V biases, no output bias
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
  p.layers_total = m.layers * p.per_layer;
  p.embedding = m.vocab * h;
  p.position = (m.position == PositionEmbedding::learned) ? m.max_position_embeddings * h : 0;
  p.final_norm = norm;
  p.head = m.tied_embeddings ? 0 : m.vocab * h;
  p.total = p.layers_total + p.embedding + p.position + p.final_norm + p.head;
  p.matmul = m.layers * layer_matmul_params(m) + m.vocab * h;
  return p;
}

}  // namespace gpucalc
