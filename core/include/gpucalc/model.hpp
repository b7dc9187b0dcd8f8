// Model shape: the architecture of a dense decoder-only transformer, its exact
// parameter count and its training FLOPs per token.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gpucalc {

// swiglu and geglu are gated MLPs (gate, up, down: 3·h·f); gelu is the plain two-matrix MLP.
// swiglu_clamped: gpt-oss's gated activation with its inputs clamped (HF swiglu_limit).
enum class FfnAct { swiglu, gelu, geglu, swiglu_clamped };
enum class Norm { rmsnorm, layernorm };
// alibi (Baichuan 2 13B) has no parameters, like rope; learned adds an s_max·h table.
enum class PositionEmbedding { rope, learned, alibi };

// Mixture of Experts (Shazeer et al. 2017; Fedus et al. 2021 Switch; DeepSeekMoE, Dai et
// al. 2024): the MLP of every layer after `first_dense_layers` is `experts` routed
// experts of width expert_ffn_hidden (top_k per token) plus shared experts (always
// active) of total width shared_expert_ffn_hidden, and a router (an E×h gate matrix).
struct MoeShape {
  int64_t experts = 0;                   // routed experts E (0: dense model)
  int64_t top_k = 0;                     // k, routed experts per token
  int64_t expert_ffn_hidden = 0;         // f_e, one routed expert's intermediate width
  int64_t shared_experts = 0;            // always-on experts (DeepSeekMoE, Qwen2-MoE)
  int64_t shared_expert_ffn_hidden = 0;  // total intermediate width of the shared block
  bool shared_expert_gate = false;       // Qwen2-MoE: a sigmoid h→1 gate on the shared expert
  int64_t first_dense_layers = 0;        // DeepSeek-V3: the first 3 layers keep a dense MLP (ffn_hidden)
  bool router_bias = false;              // DeepSeek-V3: e_score_correction_bias, E per layer
  // Node-limited routing (DeepSeek-V3 §2.1.2, arXiv 2412.19437): the experts form `groups`
  // equal groups and a token's top_k experts come from at most `group_topk` of them
  // (Hugging Face n_group / topk_group; Megatron-Core moe_router_num_groups / group_topk).
  // 0: no limit.
  int64_t groups = 0;
  int64_t group_topk = 0;
  // Worst expert's load over the mean (1 = perfectly balanced). The busiest EP rank sets
  // the layer's time and its activation memory. capacity_factor (Fedus et al. 2021 §2.1)
  // caps it: tokens beyond capacity are dropped.
  double load_imbalance = 1.0;
  double capacity_factor = 0.0;  // 0: dropless
};

// Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434 §2.1): queries through a
// q_lora_rank bottleneck (0: a plain h → a·(d_nope+d_rope) projection, DeepSeek-V2-Lite),
// keys and values through a shared kv_lora_rank latent plus one d_rope RoPE key shared by
// all heads; value heads of v_head_dim.
enum class AttentionType { standard, mla };
struct MlaShape {
  int64_t q_lora_rank = 0, kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
};

struct ModelShape {
  std::string id;  // preset id, or "custom"
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
  bool qkv_bias = false;        // Qwen2/2.5: biases on the Q, K, V projections only
  bool linear_bias = false;     // GPT-2/3, gpt-oss: biases on every linear layer (experts included)
  int64_t norms_per_layer = 2;  // 2 (pre-attention, pre-MLP); Gemma 2/3 add post-attention and post-MLP: 4
  bool qk_norm = false;         // Qwen3 / Gemma 3: a norm over each head's q and k (head_dim weights each)
  PositionEmbedding position = PositionEmbedding::rope;
  bool dropout = false;                 // dropout layers in training (GPT-3/Megatron); modern LLMs train without
  int64_t max_position_embeddings = 0;  // learned position table size
  // YaRN's attention factor on RoPE's cos and sin (gpt-oss: 0.1·ln 32 + 1); 1: none.
  double rope_attention_factor = 1.0;
  // Sliding-window (local) attention (Mistral 7B v0.1, Gemma 2/3, gpt-oss): each query
  // attends to at most the last sliding_window tokens, on sliding_window_layers of the
  // layers (the others attend over the whole sequence). 0: none.
  int64_t sliding_window = 0;
  int64_t sliding_window_layers = 0;
  MoeShape moe;
  // Multi-token prediction (DeepSeek-V3, arXiv 2412.19437 §2.2): D sequential modules, each
  // an RMSNorm on the hidden state and on the next token's embedding, a 2h → h projection,
  // one Transformer block shaped like the model's last layer (MoE in DeepSeek-V3) and a
  // final norm; embedding and output head are shared with the main model, but each module
  // runs the head and the loss again. Training only (inference drops it). Megatron-Core
  // places the modules on the last pipeline stage.
  int64_t mtp_layers = 0;
  AttentionType attention = AttentionType::standard;
  MlaShape mla;
  int64_t published_active_params = 0;  // MoE presets: activated parameters per token their source reports
  int64_t published_active_tolerance = 0;
  // DeepSeek counts activated parameters without the input embedding lookup (it is not a
  // matmul); Qwen and Mistral count it.
  bool active_params_include_input_embedding = true;
  int64_t published_params = 0;            // presets: the total their source reports
  int64_t published_params_tolerance = 0;  // presets whose published total is rounded: allowed |difference|
  std::string source;
};

// Parameter counts, exact. Per-layer terms follow the Megatron/HF module layout:
//  attention  Q h·a·d, K and V h·g·d each, O a·d·h
//  MLP        gated (SwiGLU, GeGLU) 3·h·f; GELU 2·h·f
//  norms      RMSNorm h per norm, LayerNorm 2h (weight+bias); norms_per_layer (2, or 4 for
//             Gemma 2/3) per layer + final; qk_norm adds 2·d per layer (one q, one k norm)
//  embedding  V·h (+ s_max·h learned positions); head V·h unless tied
//  MoE layer  E·3·h·f_e routed + 3·h·f_shared + router E·h (+E bias) (+h shared gate)
//  MLA        q: h·q_r + q_r (norm) + q_r·a·(d_n+d_r)  (or h·a·(d_n+d_r) without q_r);
//             kv: h·(kv_r+d_r) + kv_r (norm) + kv_r·a·(d_n+d_v); o: a·d_v·h
struct ParamCounts {
  int64_t attention = 0;    // per layer, incl. biases (MLA: incl. its two latent norms)
  int64_t mlp = 0;          // per dense layer, incl. biases
  int64_t layer_norms = 0;  // per layer, incl. q/k norms
  int64_t per_layer = 0;    // attention + mlp + layer_norms (a dense layer)
  // MoE: a MoE layer's MLP block, split into what EP shards and what every rank keeps.
  int64_t expert = 0;          // one routed expert
  int64_t routed_experts = 0;  // E · expert, per MoE layer
  int64_t shared_mlp = 0;      // shared experts + their gate, per MoE layer
  int64_t router = 0;          // E·h (+ E bias), per MoE layer
  int64_t moe_per_layer = 0;   // attention + routed + shared + router + layer_norms
  int64_t dense_layers = 0;    // layers with a dense MLP (all of them without MoE)
  int64_t moe_layers = 0;
  int64_t layers_total = 0;  // dense_layers · per_layer + moe_layers · moe_per_layer
  int64_t embedding = 0;     // token embedding V·h
  int64_t position = 0;      // learned position embedding table
  int64_t final_norm = 0;
  int64_t head = 0;  // output projection; 0 when tied (it reuses the embedding)
  int64_t total = 0;
  // Parameters that take part in a matmul per token: every layer weight plus the
  // output projection (V·h, tied or not). Embedding lookups are not matmuls.
  int64_t matmul = 0;
  // Per token: every parameter but the routed experts not chosen (top_k of E active).
  int64_t active = 0;
  int64_t active_matmul = 0;  // matmul parameters a token passes through (6·this = its FLOPs)
  // Multi-token prediction (ModelShape::mtp_layers), outside every count above (those are
  // the main model, as published): one module's own parameters (its block, two input
  // norms, the 2h·h projection and its final norm; embedding and head are shared), all D
  // modules' parameters, and the matmul parameters a token passes through in them: the
  // block's active ones, the projection and the shared V·h head run again.
  int64_t mtp_module = 0;
  int64_t mtp = 0;
  int64_t mtp_active_matmul = 0;
};

ParamCounts count_params(const ModelShape& m);

// True for the gated MLPs (SwiGLU, GeGLU): three h×f matrices, two f-wide activations
// feeding the product.
inline bool gated_ffn(FfnAct a) { return a != FfnAct::gelu; }

// d: the explicit head_dim, or h / a.
int64_t head_dim(const ModelShape& m);

// Linear-layer weights of one dense layer (biases and norms excluded): the Ψ that 6·Ψ counts.
int64_t layer_matmul_params(const ModelShape& m);
// Linear weights a token passes through in one attention block, in a dense MLP, and in a
// MoE layer's MLP (top_k routed experts + shared + router).
int64_t attention_matmul_params(const ModelShape& m);
int64_t dense_mlp_matmul_params(const ModelShape& m);
int64_t moe_mlp_active_matmul_params(const ModelShape& m);

inline bool is_moe(const ModelShape& m) { return m.moe.experts > 0; }
// An MTP module's block has the shape of the model's last layer (Megatron-Bridge
// flop_utils counts it as MoE when the last layer is): MoE unless every layer is dense.
inline bool mtp_block_is_moe(const ModelShape& m) { return m.moe.experts > 0 && m.moe.first_dense_layers < m.layers; }
inline bool is_mla(const ModelShape& m) { return m.attention == AttentionType::mla; }
// The busiest expert's load over the mean: the scenario's imbalance, capped by the
// capacity factor when tokens beyond capacity are dropped (Fedus et al. 2021 §2.1).
inline double expert_load(const ModelShape& m) {
  const double imb = m.moe.load_imbalance > 1.0 ? m.moe.load_imbalance : 1.0;
  if (m.moe.capacity_factor <= 0) return imb;
  const double cf = m.moe.capacity_factor > 1.0 ? m.moe.capacity_factor : 1.0;
  return imb < cf ? imb : cf;
}
// Query-key and value widths per head: d and d for standard attention, d_nope + d_rope and
// d_v for MLA.
int64_t qk_head_dim(const ModelShape& m);
int64_t v_head_dim(const ModelShape& m);
// Total intermediate width of a MoE layer's shared experts (0 without them):
// shared_expert_ffn_hidden, or shared_experts × expert_ffn_hidden.
int64_t shared_expert_width(const ModelShape& m);
// Layers [begin, end) with a dense MLP among them (the first first_dense_layers).
int64_t dense_layers_in(const ModelShape& m, int64_t begin, int64_t end);

// Presets from data/models.json (embedded at build time).
const std::vector<ModelShape>& model_presets();
const ModelShape* find_model(const std::string& id);

}  // namespace gpucalc
