// Hugging Face config.json → ModelShape. Field names and defaults follow the
// `transformers` configuration classes (configuration_llama.py, configuration_qwen2.py,
// configuration_qwen3(_moe).py, configuration_mistral.py, configuration_mixtral.py,
// configuration_deepseek_v2/v3.py, configuration_gemma2/3.py, configuration_phi3.py,
// configuration_glm4.py, configuration_glm4_moe.py, configuration_gpt_oss.py), THUDM's configuration_chatglm.py for
// GLM-4 "chatglm" checkpoints and InternLM's configuration_internlm2.py (remote code); the
// module layout each implies is the one model.hpp counts.
#include "hf_config.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include "gpucalc/message.hpp"
#include "json_input.hpp"

namespace gpucalc {
namespace {

using json = nlohmann::ordered_json;

enum class Arch {
  llama,
  mistral,
  qwen2,
  qwen3,
  qwen2_moe,
  qwen3_moe,
  mixtral,
  deepseek_v2,
  deepseek_v3,
  gemma2,
  gemma3,
  phi3,
  glm4,
  chatglm,
  gpt_oss,
  glm4_moe,
  ernie4_5,
  ernie4_5_moe,
  internlm2
};

struct ArchName {
  std::string_view model_type;
  std::string_view architecture;  // architectures[0], when model_type is absent
  Arch arch;
};
constexpr ArchName kArchs[] = {
    {"llama", "LlamaForCausalLM", Arch::llama},
    {"mistral", "MistralForCausalLM", Arch::mistral},
    {"qwen2", "Qwen2ForCausalLM", Arch::qwen2},
    {"qwen3", "Qwen3ForCausalLM", Arch::qwen3},
    {"qwen2_moe", "Qwen2MoeForCausalLM", Arch::qwen2_moe},
    {"qwen3_moe", "Qwen3MoeForCausalLM", Arch::qwen3_moe},
    {"mixtral", "MixtralForCausalLM", Arch::mixtral},
    {"deepseek_v2", "DeepseekV2ForCausalLM", Arch::deepseek_v2},
    {"deepseek_v3", "DeepseekV3ForCausalLM", Arch::deepseek_v3},
    // Moonshot's Kimi K2 ships DeepSeek-V3's architecture under its own model_type
    // (MoonshotAI/Kimi-K2 docs/deploy_guidance.md: "model_type": "kimi_k2").
    {"kimi_k2", "DeepseekV3ForCausalLM", Arch::deepseek_v3},
    {"gemma2", "Gemma2ForCausalLM", Arch::gemma2},
    {"gemma3", "Gemma3ForConditionalGeneration", Arch::gemma3},
    {"gemma3_text", "Gemma3ForCausalLM", Arch::gemma3},
    {"phi3", "Phi3ForCausalLM", Arch::phi3},
    {"glm4", "Glm4ForCausalLM", Arch::glm4},
    {"chatglm", "ChatGLMModel", Arch::chatglm},
    {"gpt_oss", "GptOssForCausalLM", Arch::gpt_oss},
    {"glm4_moe", "Glm4MoeForCausalLM", Arch::glm4_moe},
    {"ernie4_5", "Ernie4_5ForCausalLM", Arch::ernie4_5},
    {"ernie4_5_moe", "Ernie4_5_MoeForCausalLM", Arch::ernie4_5_moe},
    {"internlm2", "InternLM2ForCausalLM", Arch::internlm2},  // InternLM2, 2.5 (fused wqkv: the same count)
};

// Keys that do not change the parameter count (token ids, numerics, RoPE and attention
// windows, dropout, routing arithmetic, serving hints): read silently.
constexpr std::string_view kIgnored[] = {"_name_or_path",
                                         "architectures",
                                         "model_type",
                                         "transformers_version",
                                         "torch_dtype",
                                         "dtype",
                                         "use_cache",
                                         "bos_token_id",
                                         "eos_token_id",
                                         "pad_token_id",
                                         "rope_theta",
                                         "rope_scaling",
                                         "rope_parameters",
                                         "rope_type",
                                         "rope_local_base_freq",
                                         "rope_ratio",
                                         "original_rope",
                                         "partial_rotary_factor",
                                         "rms_norm_eps",
                                         "layer_norm_eps",
                                         "layernorm_epsilon",
                                         "initializer_range",
                                         "initializer_factor",
                                         "attention_dropout",
                                         "hidden_dropout",
                                         "embd_pdrop",
                                         "resid_pdrop",
                                         "max_position_embeddings",
                                         "original_max_position_embeddings",
                                         "seq_length",
                                         "pretraining_tp",
                                         "query_pre_attn_scalar",
                                         "final_logit_softcapping",
                                         "attn_logit_softcapping",
                                         "cache_implementation",
                                         "output_router_logits",
                                         "router_aux_loss_coef",
                                         "router_jitter_noise",
                                         "norm_topk_prob",
                                         "routed_scaling_factor",
                                         "scoring_func",
                                         "aux_loss_alpha",
                                         "seq_aux",
                                         "n_group",
                                         "topk_group",
                                         "ep_size",
                                         "quantization_config",
                                         "auto_map",
                                         "use_bfloat16",
                                         "attention_softmax_in_fp32",
                                         "fp32_residual_connection",
                                         "apply_query_key_layer_scaling",
                                         "apply_residual_connection_post_layernorm",
                                         "bias_dropout_fusion",
                                         "classifier_dropout",
                                         "boi_token_index",
                                         "eoi_token_index",
                                         "image_token_index",
                                         "mm_tokens_per_image",
                                         "use_mrope",
                                         "sliding_window_size",
                                         "multi_query_attention",
                                         "post_layer_norm",
                                         "tokenizer_class",
                                         "use_return_dict",
                                         "initial_context_length",
                                         "moe_norm_min",
                                         "moe_capacity",
                                         "moe_gate",
                                         "moe_use_aux_free",
                                         "attn_implementation"};

std::string str(int64_t v) { return std::to_string(v); }

// Reads one config object, remembering which keys it used.
class Fields {
 public:
  Fields(const json& o, std::string path) : o_(o), path_(std::move(path)) {}
  const std::optional<Error>& error() const { return error_; }
  bool failed() const { return error_.has_value(); }
  std::string at(std::string_view key) const { return path_ + "/" + input::pointer_token(key); }

  // A coded error at key (message.hpp): the English is the template filled in.
  void fail(std::string_view key, std::string code, std::string_view en, Params params) {
    if (!error_) error_ = coded_error(at(key), std::move(code), en, std::move(params));
  }
  // The value of key (null counts as absent, as transformers reads it), marking it used.
  const json* find(std::string_view key) {
    used_.emplace_back(key);
    auto it = o_.find(std::string(key));
    return it == o_.end() || it->is_null() ? nullptr : &*it;
  }
  std::optional<int64_t> integer(std::string_view key, std::optional<int64_t> fallback, int64_t lo, int64_t hi) {
    const json* v = find(key);
    if (!v) {
      if (!fallback)
        fail(key, "hf_config_required", "{key} is required in this config.json", {{"key", std::string(key)}});
      return fallback;
    }
    if (!v->is_number_integer()) {
      fail(key, "hf_config_not_integer", "must be an integer, got {got}", {{"got", input::show(*v)}});
      return std::nullopt;
    }
    const int64_t x =
        v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(hi) ? hi + 1 : v->get<int64_t>();
    if (x < lo || x > hi) {
      fail(key, "hf_config_out_of_range", "must be between {min} and {max}, got {got}",
           {{"min", str(lo)}, {"max", str(hi)}, {"got", input::show(*v)}});
      return std::nullopt;
    }
    return x;
  }
  bool boolean(std::string_view key, bool fallback) {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) {
      fail(key, "hf_config_not_boolean", "must be true or false, got {got}", {{"got", input::show(*v)}});
      return fallback;
    }
    return v->get<bool>();
  }
  std::optional<std::string> text(std::string_view key) {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_string()) {
      fail(key, "hf_config_not_string", "must be a string, got {got}", {{"got", input::show(*v)}});
      return std::nullopt;
    }
    return v->get<std::string>();
  }
  // A key whose value changes the shape in a way the core does not count.
  void unsupported(std::string_view key, const std::string& shown) {
    fail(key, "hf_config_unsupported", "{key} = {value} changes the model's shape in a way gpucalc does not count",
         {{"key", std::string(key)}, {"value", shown}});
  }
  // Keys neither read nor known to be shape-neutral.
  std::vector<std::string> not_understood() const {
    std::vector<std::string> keys;
    for (auto it = o_.begin(); it != o_.end(); ++it)
      if (std::find(used_.begin(), used_.end(), it.key()) == used_.end() &&
          std::find(std::begin(kIgnored), std::end(kIgnored), it.key()) == std::end(kIgnored))
        keys.push_back(it.key());
    return keys;
  }

 private:
  const json& o_;
  std::string path_;
  std::optional<Error> error_;
  std::vector<std::string> used_;
};

constexpr int64_t kDim = 1'000'000, kWide = 10'000'000, kVocab = 100'000'000, kLayers = 10'000, kHeads = 100'000;

// The MLP activation: every architecture here has a gated MLP (gate, up, down).
void read_activation(Fields& f, const char* key, const char* fallback, ModelShape& m) {
  const std::string act = f.text(key).value_or(fallback);
  if (f.failed()) return;
  if (act == "silu" || act == "swish") m.ffn_act = FfnAct::swiglu;
  else if (act == "gelu" || act == "gelu_pytorch_tanh" || act == "gelu_new" || act == "gelu_fast")
    m.ffn_act = FfnAct::geglu;
  else f.unsupported(key, "\"" + act + "\"");
}

// Llama-style attention biases: attention_bias puts a bias on q, k, v and o; mlp_bias on
// gate, up and down. Both (or neither) is a shape the core counts (linear_bias).
void read_llama_biases(Fields& f, ModelShape& m) {
  const bool attn = f.boolean("attention_bias", false);
  const bool mlp = f.boolean("mlp_bias", false);
  if (attn != mlp) return f.unsupported(attn ? "attention_bias" : "mlp_bias", "true");
  m.linear_bias = attn;
}

// The decoder fields every Llama-derived config.json names the same way.
void read_decoder(Fields& f, Arch a, ModelShape& m) {
  const bool gemma = a == Arch::gemma2 || a == Arch::gemma3;
  if (auto v = f.integer("num_hidden_layers", std::nullopt, 1, kLayers)) m.layers = *v;
  if (auto v = f.integer("hidden_size", std::nullopt, 1, kDim)) m.hidden = *v;
  if (auto v = f.integer("num_attention_heads", std::nullopt, 1, kHeads)) m.heads = *v;
  if (auto v = f.integer("num_key_value_heads", m.heads, 1, kHeads)) m.kv_heads = *v;
  // Gemma 2 and Gemma 3 default head_dim to 256 and the vocabulary to 256000 / 262208
  // (configuration_gemma2.py, configuration_gemma3.py); elsewhere head_dim is h / a.
  if (auto v = f.integer("head_dim", gemma ? std::optional<int64_t>(256) : 0, 0, kHeads)) m.head_dim = *v;
  const std::optional<int64_t> vocab = a == Arch::gemma2   ? 256000
                                       : a == Arch::gemma3 ? 262208
                                                           : std::optional<int64_t>();
  if (auto v = f.integer("vocab_size", vocab, 1, kVocab)) m.vocab = *v;
  m.tied_embeddings = f.boolean("tie_word_embeddings", gemma);
  // Gemma: hidden_activation is the MLP's; an older hidden_act beside it is superseded.
  if (gemma && f.find("hidden_activation")) f.find("hidden_act");
  if (gemma)
    read_activation(f, f.find("hidden_activation") ? "hidden_activation" : "hidden_act", "gelu_pytorch_tanh", m);
  else read_activation(f, "hidden_act", "silu", m);
  const bool moe = a == Arch::qwen2_moe || a == Arch::qwen3_moe || a == Arch::mixtral || a == Arch::deepseek_v2 ||
                   a == Arch::deepseek_v3 || a == Arch::gpt_oss || a == Arch::glm4_moe || a == Arch::ernie4_5_moe;
  // (gpt-oss: the experts' width, required.)
  const bool dense_width_unused = moe && a != Arch::gpt_oss;
  if (auto v = f.integer("intermediate_size", dense_width_unused ? std::optional<int64_t>(0) : std::nullopt, 0, kWide))
    m.ffn_hidden = *v;
  if (!dense_width_unused && m.ffn_hidden == 0 && !f.failed())
    f.fail("intermediate_size", "hf_config_out_of_range", "must be between {min} and {max}, got {got}",
           {{"min", "1"}, {"max", str(kWide)}, {"got", "0"}});
  if (gemma) m.norms_per_layer = 4;  // input, post-attention, pre- and post-feedforward RMSNorm
  m.qk_norm = a == Arch::qwen3 || a == Arch::qwen3_moe || a == Arch::gemma3;
  if (a == Arch::qwen2 || a == Arch::qwen2_moe) m.qkv_bias = true;  // Qwen2Attention: q, k, v with bias, o without
  if (a == Arch::glm4) {
    m.qkv_bias = f.boolean("attention_bias", true);  // Glm4Attention: o_proj has no bias
    m.norms_per_layer = 4;                           // input, post-self-attention, post-attention, post-MLP RMSNorm
  }
  if (a == Arch::glm4_moe) {
    m.qkv_bias = f.boolean("attention_bias", false);  // Glm4MoeAttention: q, k, v with bias, o without
    m.qk_norm = f.boolean("use_qk_norm", false);      // per-head q/k RMSNorm (GLM-4.5, not GLM-4.5-Air)
  }
  // InternLM2: config.bias (default true) puts biases on wqkv and wo but none on the MLP, a
  // layout the core does not count; its published checkpoints set it false.
  if (a == Arch::internlm2) {
    if (f.boolean("bias", true)) f.unsupported("bias", "true");
    return;
  }
  // ERNIE 4.5: one use_bias for every projection, attention and MLP (configuration_ernie4_5.py).
  if (a == Arch::ernie4_5 || a == Arch::ernie4_5_moe) {
    m.linear_bias = f.boolean("use_bias", false);
    return;
  }
  const bool fixed_biases = a == Arch::qwen2 || a == Arch::qwen2_moe || a == Arch::glm4 || a == Arch::deepseek_v2 ||
                            a == Arch::deepseek_v3 || a == Arch::gpt_oss || a == Arch::glm4_moe;
  if (!fixed_biases) read_llama_biases(f, m);
}

// Sliding-window attention (model.sliding_window, sliding_window_layers), with the layer
// pattern transformers gives each architecture: layer_types when the config lists it
// ("sliding_attention" / "full_attention"); Qwen2/3 only with use_sliding_window, on the
// layers after the first max_window_layers (configuration_qwen2.py); Gemma 3 on every
// layer but each sliding_window_pattern-th (default 6); Gemma 2 on the even layers
// (is_sliding = not layer_idx % 2), gpt-oss likewise; Mistral and Mixtral on every layer. Phi-3's
// config.json carries sliding_window 2047 that its published implementation does not
// apply in training (it is read and left out).
void read_sliding_window(Fields& f, Arch a, ModelShape& m) {
  if (a == Arch::phi3) {
    f.find("sliding_window");
    return;
  }
  const bool qwen = a == Arch::qwen2 || a == Arch::qwen2_moe || a == Arch::qwen3 || a == Arch::qwen3_moe;
  const bool use = f.boolean("use_sliding_window", !qwen);
  const std::optional<int64_t> w = f.integer("sliding_window", 0, 0, kVocab);
  const json* types = f.find("layer_types");
  const std::optional<int64_t> full_first = f.integer("max_window_layers", m.layers, 0, kLayers);
  const std::optional<int64_t> pattern = f.integer("sliding_window_pattern", 6, 1, kLayers);
  if (f.failed() || !w || *w == 0 || !use) return;
  int64_t n = m.layers;
  if (types) {
    if (!types->is_array() || types->size() != static_cast<size_t>(m.layers))
      return f.fail("layer_types", "hf_config_layer_types",
                    "must list one attention type per layer ({layers}), got {got}",
                    {{"layers", str(m.layers)}, {"got", input::show(*types)}});
    n = 0;
    for (const json& t : *types) {
      if (t == "sliding_attention") ++n;
      else if (t != "full_attention") return f.unsupported("layer_types", input::show(t));
    }
  } else if (qwen) {
    n = m.layers - std::min(m.layers, full_first.value_or(m.layers));
  } else if (a == Arch::gemma3) {
    n = m.layers - m.layers / pattern.value_or(6);
  } else if (a == Arch::gemma2 || a == Arch::gpt_oss) {
    n = (m.layers + 1) / 2;  // gpt-oss: sliding on the even layers, as its layer_types list them
  }
  if (n == 0) return;
  m.sliding_window = *w;
  m.sliding_window_layers = n;
}

// Qwen2-MoE / Qwen3-MoE: every decoder_sparse_step-th layer is MoE unless listed in
// mlp_only_layers; gpucalc counts the all-MoE pattern (step 1, no list), which every
// published Qwen MoE checkpoint uses.
void read_qwen_moe(Fields& f, Arch a, ModelShape& m) {
  if (auto v = f.integer("num_experts", std::nullopt, 2, 100'000)) m.moe.experts = *v;
  if (auto v = f.integer("num_experts_per_tok", std::nullopt, 1, 100'000)) m.moe.top_k = *v;
  if (auto v = f.integer("moe_intermediate_size", std::nullopt, 1, kWide)) m.moe.expert_ffn_hidden = *v;
  if (auto v = f.integer("decoder_sparse_step", 1, 1, kLayers); v && *v != 1)
    f.unsupported("decoder_sparse_step", str(*v));
  if (const json* v = f.find("mlp_only_layers"); v && !(v->is_array() && v->empty()))
    f.unsupported("mlp_only_layers", input::show(*v));
  if (a == Arch::qwen2_moe) {
    if (auto v = f.integer("shared_expert_intermediate_size", 0, 0, kWide); v && *v > 0) {
      m.moe.shared_experts = 1;
      m.moe.shared_expert_ffn_hidden = *v;
      m.moe.shared_expert_gate = true;  // Qwen2MoeSparseMoeBlock.shared_expert_gate: Linear(h, 1)
    }
  }
}

// DeepSeek's MoE layer plan (modeling_deepseek.py; GLM-4.5 keeps it): a dense MLP in the
// first first_k_dense_replace layers, then n_routed_experts experts of
// moe_intermediate_size and n_shared_experts shared ones of that width each, and
// num_nextn_predict_layers multi-token-prediction modules (DeepSeek-V3, arXiv 2412.19437
// §2.2), trained with the model: model.mtp_layers. Training only; the checkpoint's copies
// of the shared embedding and head in its MTP layer are not parameters of their own.
// The config.json names of a fine-grained MoE plan: routed experts, experts per token, the
// experts' width, shared experts of that width each, the dense layers before the first MoE.
struct MoeKeys {
  const char* experts;
  const char* top_k;
  const char* width;
  const char* shared;
  const char* dense_first;
};
constexpr MoeKeys kDeepSeekMoe{"n_routed_experts", "num_experts_per_tok", "moe_intermediate_size", "n_shared_experts",
                               "first_k_dense_replace"};
constexpr MoeKeys kErnieMoe{"moe_num_experts", "moe_k", "moe_intermediate_size", "moe_num_shared_experts",
                            "moe_layer_start_index"};

void read_moe_plan(Fields& f, const MoeKeys& k, ModelShape& m) {
  if (auto v = f.integer(k.experts, std::nullopt, 2, 100'000)) m.moe.experts = *v;
  if (auto v = f.integer(k.top_k, std::nullopt, 1, 100'000)) m.moe.top_k = *v;
  if (auto v = f.integer(k.width, std::nullopt, 1, kWide)) m.moe.expert_ffn_hidden = *v;
  if (auto v = f.integer(k.shared, 0, 0, 1'000)) {
    m.moe.shared_experts = *v;
    m.moe.shared_expert_ffn_hidden = *v * m.moe.expert_ffn_hidden;
  }
  if (auto v = f.integer(k.dense_first, 0, 0, kLayers)) m.moe.first_dense_layers = *v;
}

// Group-limited routing (DeepSeek-V2 group_limited_greedy, V3 noaux_tc): a token's experts
// come from at most topk_group of n_group expert groups (MoeShape::groups).
void read_expert_groups(Fields& f, ModelShape& m) {
  if (auto g = f.integer("n_group", 1, 1, 100'000); g && *g > 1) {
    if (m.moe.experts % *g != 0)  // MoEGate views the scores as n_group equal groups
      return f.fail("n_group", "groups_divide_experts", "must divide experts ({experts}), got {got}",
                    {{"experts", str(m.moe.experts)}, {"got", str(*g)}});
    m.moe.groups = *g;
    if (auto t = f.integer("topk_group", *g, 1, *g)) m.moe.group_topk = *t;
  }
}

void read_deepseek_moe(Fields& f, ModelShape& m) {
  read_moe_plan(f, kDeepSeekMoe, m);
  if (auto v = f.integer("num_nextn_predict_layers", 0, 0, 16)) m.mtp_layers = *v;
}

// DeepSeek-V2/V3: MLA attention and DeepSeek's MoE plan (above).
void read_deepseek(Fields& f, Arch a, ModelShape& m) {
  read_deepseek_moe(f, m);
  if (auto v = f.integer("moe_layer_freq", 1, 1, kLayers); v && *v != 1) f.unsupported("moe_layer_freq", str(*v));
  // noaux_tc routing (V3) adds e_score_correction_bias, E per MoE layer.
  const std::string topk = f.text("topk_method").value_or(a == Arch::deepseek_v3 ? "noaux_tc" : "greedy");
  m.moe.router_bias = topk == "noaux_tc";
  if (topk != "greedy") read_expert_groups(f, m);
  if (auto v = f.integer("q_lora_rank", 0, 0, kDim)) m.mla.q_lora_rank = *v;
  if (auto v = f.integer("kv_lora_rank", std::nullopt, 1, kDim)) m.mla.kv_lora_rank = *v;
  if (auto v = f.integer("qk_nope_head_dim", std::nullopt, 1, kHeads)) m.mla.qk_nope_head_dim = *v;
  if (auto v = f.integer("qk_rope_head_dim", std::nullopt, 1, kHeads)) m.mla.qk_rope_head_dim = *v;
  if (auto v = f.integer("v_head_dim", std::nullopt, 1, kHeads)) m.mla.v_head_dim = *v;
  m.attention = AttentionType::mla;
  m.head_dim = m.mla.v_head_dim;
  m.kv_heads = m.heads;  // one latent for all heads; num_key_value_heads is informational
  m.active_params_include_input_embedding = false;
  if (f.boolean("attention_bias", false)) f.unsupported("attention_bias", "true");
}

// gpt-oss (configuration_gpt_oss.py, modeling_gpt_oss.py): every layer MoE, num_local_experts
// experts of width intermediate_size, each with biased gate_up and down projections, a
// router with bias; attention_bias puts biases on q, k, v and o (gpucalc's linear_bias,
// which also gives the experts theirs); the gated activation clamps its inputs at
// swiglu_limit (swiglu_clamped). The learned attention sinks (one logit per head
// per layer) are not counted. Active parameters leave out the input embedding, as the
// model card counts them.
void read_gpt_oss(Fields& f, ModelShape& m) {
  if (auto v = f.integer("num_local_experts", std::nullopt, 2, 100'000)) m.moe.experts = *v;
  const std::optional<int64_t> per_token = f.integer("experts_per_token", 0, 0, 100'000);
  const std::optional<int64_t> fallback = per_token && *per_token > 0 ? per_token : std::nullopt;
  if (auto v = f.integer("num_experts_per_tok", fallback, 1, 100'000)) m.moe.top_k = *v;
  m.moe.expert_ffn_hidden = m.ffn_hidden;
  m.moe.router_bias = true;
  if (!f.boolean("attention_bias", true)) f.unsupported("attention_bias", "false");
  m.linear_bias = true;
  f.find("swiglu_limit");  // GptOssExperts clamps by it always (default 7.0)
  m.ffn_act = FfnAct::swiglu_clamped;
  m.active_params_include_input_embedding = false;
}

// GLM-4.5 / 4.6 / 4.7 and GLM-4.5-Air (configuration_glm4_moe.py, modeling_glm4_moe.py):
// DeepSeek's MoE plan (dense MLPs of intermediate_size first) with grouped-query
// attention, a router with a per-expert correction bias (Glm4MoeTopkRouter
// e_score_correction_bias), two RMSNorms per layer. Active parameters leave out the input
// embedding.
void read_glm4_moe(Fields& f, ModelShape& m) {
  read_deepseek_moe(f, m);
  read_expert_groups(f, m);
  m.moe.router_bias = true;
  m.active_params_include_input_embedding = false;
}

// ERNIE 4.5 MoE (configuration_ernie4_5_moe.py, modeling_ernie4_5_moe.py; ERNIE-4.5-21B-A3B,
// 300B-A47B): dense MLPs of intermediate_size before moe_layer_start_index, then every
// layer MoE through moe_layer_end_index (-1: the last): moe_num_experts experts of
// moe_intermediate_size, moe_k per token, moe_num_shared_experts shared ones of that width
// each, and a router with a per-expert correction bias (Ernie4_5_MoeStatics
// e_score_correction_bias). Other layer plans (an interval above 1, an earlier end) are
// refused by name.
void read_ernie_moe(Fields& f, ModelShape& m) {
  read_moe_plan(f, kErnieMoe, m);
  if (auto v = f.integer("moe_layer_end_index", -1, -1, kLayers); v && *v != -1 && *v != m.layers - 1)
    f.unsupported("moe_layer_end_index", str(*v));
  if (auto v = f.integer("moe_layer_interval", 1, 1, kLayers); v && *v != 1)
    f.unsupported("moe_layer_interval", str(*v));
  m.moe.router_bias = true;
}

// THUDM's GLM-4 "chatglm" config.json (THUDM/glm-4-9b): Megatron-style names.
void read_chatglm(Fields& f, ModelShape& m) {
  if (auto v = f.integer("num_layers", std::nullopt, 1, kLayers)) m.layers = *v;
  if (auto v = f.integer("hidden_size", std::nullopt, 1, kDim)) m.hidden = *v;
  if (auto v = f.integer("num_attention_heads", std::nullopt, 1, kHeads)) m.heads = *v;
  const bool mqa = f.boolean("multi_query_attention", false);
  if (auto v = f.integer("multi_query_group_num", m.heads, 1, kHeads)) m.kv_heads = mqa ? *v : m.heads;
  if (auto v = f.integer("kv_channels", 0, 0, kHeads)) m.head_dim = *v;
  if (auto v = f.integer("ffn_hidden_size", std::nullopt, 1, kWide)) m.ffn_hidden = *v;
  // padded_vocab_size is the embedding's row count; vocab_size the tokenizer's.
  const std::optional<int64_t> vocab = f.integer("vocab_size", 0, 0, kVocab);
  if (auto v = f.integer("padded_vocab_size", vocab && *vocab ? vocab : std::nullopt, 1, kVocab)) m.vocab = *v;
  m.qkv_bias = f.boolean("add_qkv_bias", false);
  if (f.boolean("add_bias_linear", false)) f.unsupported("add_bias_linear", "true");
  m.norm = f.boolean("rmsnorm", true) ? Norm::rmsnorm : Norm::layernorm;
  m.tied_embeddings = f.boolean("tie_word_embeddings", false);
  m.ffn_act = FfnAct::swiglu;
}

std::optional<Arch> arch_of(Fields& f, std::string& type) {
  if (auto t = f.text("model_type")) {
    type = *t;
    for (const auto& a : kArchs)
      if (a.model_type == *t) return a.arch;
    f.fail("model_type", "hf_config_model_type",
           "model_type \"{model_type}\" is not one gpucalc imports (known: {known})",
           {{"model_type", *t}, {"known", hf_config_model_types()}});
    return std::nullopt;
  }
  if (f.failed()) return std::nullopt;
  const json* arr = f.find("architectures");
  if (arr && arr->is_array() && !arr->empty() && (*arr)[0].is_string()) {
    type = (*arr)[0].get<std::string>();
    for (const auto& a : kArchs)
      if (a.architecture == type) return a.arch;
  }
  f.fail("model_type", "hf_config_model_type_missing",
         "is required (or a known architectures[0]); known model_type values: {known}",
         {{"known", hf_config_model_types()}});
  return std::nullopt;
}

// The keys neither read nor listed as shape-neutral, named in one warning.
void warn_not_understood(const Fields& f, const std::string& path, std::vector<Message>& out) {
  auto keys = f.not_understood();
  if (keys.empty()) return;
  std::sort(keys.begin(), keys.end());  // named alphabetically, whatever the file's order
  std::string list;
  for (const auto& k : keys) list += (list.empty() ? "" : ", ") + k;
  out.push_back(coded("hf_config_keys_ignored",
                      "config.json keys gpucalc does not understand, not counted ({path}): {keys}",
                      {{"path", path}, {"keys", list}}));
}

std::string model_name(const json& o, const std::string& type) {
  auto it = o.find("_name_or_path");
  if (it != o.end() && it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>().substr(0, 200);
  return type;
}

}  // namespace

std::string hf_config_model_types() {
  std::string s;
  for (const auto& a : kArchs) {
    if (!s.empty()) s += ", ";
    s += a.model_type;
  }
  return s;
}

Expected<HfImport> import_hf_config(const json& config, const std::string& path) {
  if (!config.is_object())
    return coded_error(path, "hf_config_not_object", "must be an object (the content of config.json), got {got}",
                       {{"got", input::show(config)}});
  Fields top(config, path);
  std::string type;
  const std::optional<Arch> arch = arch_of(top, type);
  if (!arch) return *top.error();
  HfImport out;
  ModelShape& m = out.shape;
  m.id = "hf_config";
  m.name = model_name(config, type);
  m.source = "model.hf_config (" + type + ")";
  // Gemma 3 multimodal checkpoints nest the decoder in text_config; the vision tower
  // (vision_config) is not counted.
  const json* text = *arch == Arch::gemma3 ? top.find("text_config") : nullptr;
  if (text && !text->is_object())
    return coded_error(top.at("text_config"), "hf_config_text_not_object", "must be an object, got {got}",
                       {{"got", input::show(*text)}});
  Fields inner(text ? *text : config, text ? path + "/text_config" : path);
  Fields& f = text ? inner : top;
  if (text) inner.find("model_type");
  if (*arch == Arch::chatglm) read_chatglm(f, m);
  else read_decoder(f, *arch, m);
  if (*arch != Arch::chatglm) read_sliding_window(f, *arch, m);
  if (*arch == Arch::qwen2_moe || *arch == Arch::qwen3_moe) read_qwen_moe(f, *arch, m);
  if (*arch == Arch::mixtral) {
    if (auto v = f.integer("num_local_experts", std::nullopt, 2, 100'000)) m.moe.experts = *v;
    if (auto v = f.integer("num_experts_per_tok", std::nullopt, 1, 100'000)) m.moe.top_k = *v;
    m.moe.expert_ffn_hidden = m.ffn_hidden;  // MixtralBlockSparseTop2MLP: intermediate_size wide
  }
  if (*arch == Arch::deepseek_v2 || *arch == Arch::deepseek_v3) read_deepseek(f, *arch, m);
  if (*arch == Arch::gpt_oss) read_gpt_oss(f, m);
  if (*arch == Arch::glm4_moe) read_glm4_moe(f, m);
  if (*arch == Arch::ernie4_5_moe) read_ernie_moe(f, m);
  if (text && config.contains("tie_word_embeddings")) m.tied_embeddings = top.boolean("tie_word_embeddings", true);
  if (f.failed()) return *f.error();
  if (top.failed()) return *top.error();
  if (m.ffn_hidden == 0) m.ffn_hidden = m.moe.expert_ffn_hidden;  // an all-MoE model's unused dense width
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
    return coded_error(f.at(*arch == Arch::chatglm ? "multi_query_group_num" : "num_key_value_heads"),
                       "hf_config_kv_heads", "must divide the attention heads ({heads}), got {kv_heads}",
                       {{"heads", str(m.heads)}, {"kv_heads", str(m.kv_heads)}});
  if (m.moe.experts > 0 && m.moe.top_k > m.moe.experts)
    return coded_error(f.at(*arch == Arch::ernie4_5_moe ? kErnieMoe.top_k : kDeepSeekMoe.top_k), "hf_config_top_k",
                       "cannot exceed the routed experts ({experts}), got {top_k}",
                       {{"experts", str(m.moe.experts)}, {"top_k", str(m.moe.top_k)}});
  if (m.moe.first_dense_layers >= m.layers && m.moe.experts > 0)
    return coded_error(f.at(*arch == Arch::ernie4_5_moe ? kErnieMoe.dense_first : kDeepSeekMoe.dense_first),
                       "hf_config_dense_layers", "must leave at least one MoE layer ({layers} layers)",
                       {{"layers", str(m.layers)}});
  if (top.find("vision_config"))
    out.warnings.push_back(
        coded("hf_config_vision_not_counted",
              "counts the text decoder only: the vision tower ({path}) is not part of the model gpucalc sizes",
              {{"path", top.at("vision_config")}}));
  warn_not_understood(top, path, out.warnings);
  if (text) warn_not_understood(inner, path + "/text_config", out.warnings);
  return out;
}

}  // namespace gpucalc
