// Model shape: the architecture of a dense decoder-only transformer, its exact
// parameter count and its training FLOPs per token.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gpucalc {

// swiglu and geglu are gated MLPs (gate, up, down: 3·h·f); gelu is the plain two-matrix MLP.
enum class FfnAct { swiglu, gelu, geglu };
enum class Norm { rmsnorm, layernorm };
// alibi (Baichuan 2 13B) has no parameters, like rope; learned adds an s_max·h table.
enum class PositionEmbedding { rope, learned, alibi };

struct ModelShape {
  std::string id;    // preset id, or "custom"
  std::string name;
  int64_t layers = 0;      // L
  int64_t hidden = 0;      // h
  int64_t heads = 0;       // a (query heads)
  int64_t kv_heads = 0;    // g (key/value heads; = a without GQA)
  int64_t head_dim = 0;    // d (defaults to h / a)
  int64_t ffn_hidden = 0;  // f
  int64_t vocab = 0;       // V
  FfnAct ffn_act = FfnAct::swiglu;
  Norm norm = Norm::rmsnorm;
  bool tied_embeddings = false;
  bool qkv_bias = false;     // Qwen2/2.5: biases on the Q, K, V projections only
  bool linear_bias = false;  // GPT-2/3: biases on every linear layer
  int64_t norms_per_layer = 2;  // 2 (pre-attention, pre-MLP); Gemma 2/3 add post-attention and post-MLP: 4
  bool qk_norm = false;          // Qwen3 / Gemma 3: a norm over each head's q and k (head_dim weights each)
  PositionEmbedding position = PositionEmbedding::rope;
  bool dropout = false;  // dropout layers in training (GPT-3/Megatron); modern LLMs train without
  int64_t max_position_embeddings = 0;  // learned position table size
  int64_t published_params = 0;         // presets: the total their source reports
  int64_t published_params_tolerance = 0;  // presets whose published total is rounded: allowed |difference|
  std::string source;
};

// Parameter counts, exact. Per-layer terms follow the Megatron/HF module layout:
//  attention  Q h·a·d, K and V h·g·d each, O a·d·h      (sizing-model.md §1)
//  MLP        gated (SwiGLU, GeGLU) 3·h·f; GELU 2·h·f
//  norms      RMSNorm h per norm, LayerNorm 2h (weight+bias); norms_per_layer (2, or 4 for
//             Gemma 2/3) per layer + final; qk_norm adds 2·d per layer (one q, one k norm)
//  embedding  V·h (+ s_max·h learned positions); head V·h unless tied
struct ParamCounts {
  int64_t attention = 0;      // per layer, incl. biases
  int64_t mlp = 0;            // per layer, incl. biases
  int64_t layer_norms = 0;    // per layer, incl. q/k norms
  int64_t per_layer = 0;      // attention + mlp + layer_norms
  int64_t layers_total = 0;   // L · per_layer
  int64_t embedding = 0;      // token embedding V·h
  int64_t position = 0;       // learned position embedding table
  int64_t final_norm = 0;
  int64_t head = 0;           // output projection; 0 when tied (it reuses the embedding)
  int64_t total = 0;
  // Parameters that take part in a matmul per token: every layer weight plus the
  // output projection (V·h, tied or not). Embedding lookups are not matmuls.
  int64_t matmul = 0;
};

ParamCounts count_params(const ModelShape& m);

// True for the gated MLPs (SwiGLU, GeGLU): three h×f matrices, two f-wide activations
// feeding the product.
inline bool gated_ffn(FfnAct a) { return a != FfnAct::gelu; }

// d: the explicit head_dim, or h / a.
int64_t head_dim(const ModelShape& m);

// Linear-layer weights of one layer (biases and norms excluded): the Ψ that 6·Ψ counts.
int64_t layer_matmul_params(const ModelShape& m);

// Presets from data/models.json (embedded at build time).
const std::vector<ModelShape>& model_presets();
const ModelShape* find_model(const std::string& id);

}  // namespace gpucalc
