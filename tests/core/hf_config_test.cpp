// model.hf_config: a Hugging Face config.json mapped onto the model shape. Each
// architecture is pinned by a config.json with the values its Hugging Face repository
// publishes (repo id in the test name; keys and values as in that file, auto_map and
// long rope_scaling blocks shortened where they do not bear on the shape) to the
// parameter count its model card, paper or safetensors index publishes.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "gpucalc/api.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/scenario.hpp"

using namespace gpucalc;
using json = nlohmann::ordered_json;

namespace {

Expected<Scenario> with_config(const std::string& config, const std::string& extra = "") {
  return parse_scenario(R"({"model":{"hf_config":)" + config + extra +
                        R"(},"gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096}})");
}

int64_t total_of(const std::string& config) {
  auto s = with_config(config);
  INFO((s ? std::string() : s.error().path + ": " + s.error().message));
  REQUIRE(s.ok());
  CHECK(s->warnings.empty());
  return count_params(s->problem.model).total;
}

// The preset's shape counted the same way: the import reads what the preset was copied from.
int64_t preset_total(const char* id) { return count_params(*find_model(id)).total; }

}  // namespace

TEST_CASE("hf_config llama: meta-llama/Llama-3.2-1B counts its safetensors total", "[hf_config]") {
  const int64_t n = total_of(R"({
    "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": 128001, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2048,
    "initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 131072, "mlp_bias": false,
    "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8,
    "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
    "transformers_version": "4.45.0.dev0", "use_cache": true, "vocab_size": 128256})");
  CHECK(n == 1235814400);  // Hugging Face safetensors parameter count, exact
}

TEST_CASE("hf_config qwen2: Qwen/Qwen2.5-7B counts 7.62B", "[hf_config]") {
  const int64_t n = total_of(R"({
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02,
    "intermediate_size": 18944, "max_position_embeddings": 131072, "max_window_layers": 28, "model_type": "qwen2",
    "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
    "transformers_version": "4.43.1", "use_cache": true, "use_sliding_window": false, "vocab_size": 152064})");
  CHECK(n == 7615616512);  // safetensors total; model card "7.61B" (QKV biases included)
}

TEST_CASE("hf_config qwen3: Qwen/Qwen3-8B counts 8.19B", "[hf_config]") {
  const int64_t n = total_of(R"({
    "architectures": ["Qwen3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
    "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096,
    "initializer_range": 0.02, "intermediate_size": 12288, "max_position_embeddings": 40960,
    "max_window_layers": 36, "model_type": "qwen3", "num_attention_heads": 32, "num_hidden_layers": 36,
    "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 1000000,
    "sliding_window": null, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
    "transformers_version": "4.51.0", "use_cache": true, "use_sliding_window": false, "vocab_size": 151936})");
  CHECK(n == 8190735360);  // safetensors total; model card "8.2B"
}

TEST_CASE("hf_config qwen3_moe: Qwen/Qwen3-30B-A3B counts 30.5B", "[hf_config]") {
  const int64_t n = total_of(R"({
    "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
    "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128,
    "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 6144,
    "max_position_embeddings": 40960, "max_window_layers": 48, "mlp_only_layers": [], "model_type": "qwen3_moe",
    "moe_intermediate_size": 768, "norm_topk_prob": true, "num_attention_heads": 32, "num_experts": 128,
    "num_experts_per_tok": 8, "num_hidden_layers": 48, "num_key_value_heads": 4, "output_router_logits": false,
    "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001,
    "sliding_window": null, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
    "transformers_version": "4.51.0", "use_cache": true, "use_sliding_window": false, "vocab_size": 151936})");
  CHECK(n == 30532122624);  // safetensors total; model card "30.5B in total and 3.3B activated"
}

TEST_CASE("hf_config qwen2_moe: Qwen/Qwen2-57B-A14B counts 57.41B", "[hf_config]") {
  const int64_t n = total_of(R"({
    "architectures": ["Qwen2MoeForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "decoder_sparse_step": 1, "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 3584,
    "initializer_range": 0.02, "intermediate_size": 18944, "max_position_embeddings": 131072,
    "max_window_layers": 28, "model_type": "qwen2_moe", "moe_intermediate_size": 2560, "norm_topk_prob": false,
    "num_attention_heads": 28, "num_experts": 64, "num_experts_per_tok": 8, "num_hidden_layers": 28,
    "num_key_value_heads": 4, "output_router_logits": false, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
    "router_aux_loss_coef": 0.001, "shared_expert_intermediate_size": 20480, "sliding_window": 131072,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.40.1", "use_cache": true,
    "use_sliding_window": false, "vocab_size": 151936})");
  CHECK(n == 57408658944);  // safetensors total; Qwen2 report "57.41B"
}

TEST_CASE("hf_config mistral: mistralai/Mistral-7B-v0.3 and Mistral-Nemo-Base-2407", "[hf_config]") {
  const int64_t seven = total_of(R"({
    "architectures": ["MistralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2,
    "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
    "max_position_embeddings": 32768, "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "sliding_window": null,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.42.0.dev0",
    "use_cache": true, "vocab_size": 32768})");
  CHECK(seven == 7248023552);  // safetensors total
  // NeMo: head_dim 128 although 5120 / 32 = 160; the explicit value is the one counted.
  const int64_t nemo = total_of(R"({
    "architectures": ["MistralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2,
    "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
    "intermediate_size": 14336, "max_position_embeddings": 128000, "model_type": "mistral",
    "num_attention_heads": 32, "num_hidden_layers": 40, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
    "rope_theta": 1000000.0, "sliding_window": null, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
    "transformers_version": "4.43.0.dev0", "use_cache": true, "vocab_size": 131072})");
  CHECK(nemo == 12247782400);  // safetensors total
}

TEST_CASE("hf_config mixtral: mistralai/Mixtral-8x7B-v0.1 counts 46.7B", "[hf_config]") {
  const int64_t n = total_of(R"({
    "architectures": ["MixtralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2,
    "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
    "max_position_embeddings": 32768, "model_type": "mixtral", "num_attention_heads": 32,
    "num_experts_per_tok": 2, "num_hidden_layers": 32, "num_key_value_heads": 8, "num_local_experts": 8,
    "output_router_logits": false, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.02,
    "sliding_window": null, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
    "transformers_version": "4.36.0.dev0", "use_cache": true, "vocab_size": 32000})");
  CHECK(n == 46702792704);  // safetensors total; mistral.ai "46.7B total"
}

TEST_CASE("hf_config deepseek_v2: deepseek-ai/DeepSeek-V2-Lite counts 15.7B", "[hf_config]") {
  const int64_t n = total_of(R"({
    "architectures": ["DeepseekV2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
    "aux_loss_alpha": 0.001, "bos_token_id": 100000, "eos_token_id": 100001, "first_k_dense_replace": 1,
    "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 10944,
    "kv_lora_rank": 512, "max_position_embeddings": 163840, "model_type": "deepseek_v2",
    "moe_intermediate_size": 1408, "moe_layer_freq": 1, "n_group": 1, "n_routed_experts": 64,
    "n_shared_experts": 2, "norm_topk_prob": false, "num_attention_heads": 16, "num_experts_per_tok": 6,
    "num_hidden_layers": 27, "num_key_value_heads": 16, "pretraining_tp": 1, "q_lora_rank": null,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "rms_norm_eps": 1e-06,
    "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 0.707, "mscale_all_dim": 0.707,
                     "original_max_position_embeddings": 4096, "type": "yarn"},
    "rope_theta": 10000, "routed_scaling_factor": 1.0, "scoring_func": "softmax", "seq_aux": true,
    "tie_word_embeddings": false, "topk_group": 1, "topk_method": "greedy", "torch_dtype": "bfloat16",
    "transformers_version": "4.33.1", "use_cache": true, "v_head_dim": 128, "vocab_size": 102400})");
  CHECK(n == 15706484224);  // safetensors total; arXiv 2405.04434 App. B.1 "15.7B total parameters"
}

TEST_CASE("hf_config deepseek_v3: deepseek-ai/DeepSeek-V3 counts the 671B main model and its MTP module",
          "[hf_config]") {
  auto s = with_config(R"({
    "architectures": ["DeepseekV3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
    "bos_token_id": 0, "eos_token_id": 1, "ep_size": 1, "first_k_dense_replace": 3, "hidden_act": "silu",
    "hidden_size": 7168, "initializer_range": 0.02, "intermediate_size": 18432, "kv_lora_rank": 512,
    "max_position_embeddings": 163840, "model_type": "deepseek_v3", "moe_intermediate_size": 2048,
    "moe_layer_freq": 1, "n_group": 8, "n_routed_experts": 256, "n_shared_experts": 1, "norm_topk_prob": true,
    "num_attention_heads": 128, "num_experts_per_tok": 8, "num_hidden_layers": 61, "num_key_value_heads": 128,
    "num_nextn_predict_layers": 1, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
    "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                            "weight_block_size": [128, 128]},
    "rms_norm_eps": 1e-06, "rope_theta": 10000, "routed_scaling_factor": 2.5, "scoring_func": "sigmoid",
    "tie_word_embeddings": false, "topk_group": 4, "topk_method": "noaux_tc", "torch_dtype": "bfloat16",
    "transformers_version": "4.33.1", "use_cache": true, "v_head_dim": 128, "vocab_size": 129280})");
  REQUIRE(s.ok());
  const ParamCounts c = count_params(s->problem.model);
  // arXiv 2412.19437 §4.2: "671B total parameters, of which 37B are activated"; the
  // published figures are rounded to 1B, so within ±0.5B.
  CHECK(std::llabs(c.total - 671'000'000'000) <= 500'000'000);
  CHECK(c.total == preset_total("deepseek-v3"));
  // num_nextn_predict_layers 1 is the MTP module DeepSeek-V3 trains with: model.mtp_layers,
  // counted beside the main model (the preset's count exactly).
  CHECK(s->warnings.empty());
  CHECK(s->problem.model.mtp_layers == 1);
  CHECK(c.mtp == count_params(*find_model("deepseek-v3")).mtp);
  // n_group 8, topk_group 4: node-limited routing (report §2.1.2), as the preset has it.
  CHECK(s->problem.model.moe.groups == 8);
  CHECK(s->problem.model.moe.group_topk == 4);
}

TEST_CASE("hf_config kimi_k2: moonshotai/Kimi-K2-Instruct counts its 1,026,408,232,448 parameters", "[hf_config]") {
  // Kimi K2 ships DeepSeek-V3's architecture under model_type "kimi_k2": 384 routed experts,
  // 64 heads, one dense layer, no MTP module.
  auto s = with_config(R"({
    "architectures": ["DeepseekV3ForCausalLM"], "auto_map": {"AutoConfig": "configuration_deepseek.DeepseekV3Config"},
    "bos_token_id": 163584, "eos_token_id": 163585, "first_k_dense_replace": 1, "hidden_act": "silu",
    "hidden_size": 7168, "initializer_range": 0.02, "intermediate_size": 18432, "kv_lora_rank": 512,
    "max_position_embeddings": 131072, "model_type": "kimi_k2", "moe_intermediate_size": 2048,
    "moe_layer_freq": 1, "n_group": 1, "n_routed_experts": 384, "n_shared_experts": 1, "norm_topk_prob": true,
    "num_attention_heads": 64, "num_experts_per_tok": 8, "num_hidden_layers": 61, "num_key_value_heads": 64,
    "num_nextn_predict_layers": 0, "pretraining_tp": 1, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64, "rms_norm_eps": 1e-06, "rope_theta": 50000.0, "routed_scaling_factor": 2.827,
    "scoring_func": "sigmoid", "tie_word_embeddings": false, "topk_group": 1, "topk_method": "noaux_tc",
    "torch_dtype": "bfloat16", "transformers_version": "4.48.3", "use_cache": true, "v_head_dim": 128,
    "vocab_size": 163840})");
  REQUIRE(s.ok());
  CHECK(s->warnings.empty());
  const ParamCounts c = count_params(s->problem.model);
  CHECK(c.total == 1'026'408'232'448);  // the checkpoint's safetensors
  CHECK(c.total == preset_total("kimi-k2"));
  CHECK(s->problem.model.moe.groups == 0);  // n_group 1: no group limit
  CHECK(s->problem.model.mtp_layers == 0);
  CHECK(c.router == 384LL * 7168 + 384);  // gate + e_score_correction_bias
}

TEST_CASE("hf_config gpt_oss: openai/gpt-oss-20b and gpt-oss-120b count the model card's 20.91B and 116.83B",
          "[hf_config]") {
  // openai/gpt-oss-20b config.json (quantization_config and the long lists shortened where
  // they do not bear on the shape): experts with biased gate_up / down projections, a
  // biased router, q/k/v/o biases, sliding windows of 128 on the even layers. The model
  // card (arXiv 2508.10925, Table 1) counts 20.91B / 116.83B with the attention sinks
  // (64 per layer), which gpucalc leaves out.
  std::string types;
  for (int i = 0; i < 24; ++i)
    types += std::string(i ? ", " : "") + (i % 2 ? "\"full_attention\"" : "\"sliding_attention\"");
  const std::string config = R"({
    "architectures": ["GptOssForCausalLM"], "attention_bias": true, "attention_dropout": 0.0,
    "eos_token_id": 200002, "experts_per_token": 4, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2880,
    "initial_context_length": 4096, "initializer_range": 0.02, "intermediate_size": 2880, "layer_types": [)" +
                             types + R"(],
    "max_position_embeddings": 131072, "model_type": "gpt_oss", "num_attention_heads": 64,
    "num_experts_per_tok": 4, "num_hidden_layers": 24, "num_key_value_heads": 8, "num_local_experts": 32,
    "output_router_logits": false, "pad_token_id": 199999,
    "quantization_config": {"modules_to_not_convert": ["model.layers.*.self_attn"], "quant_method": "mxfp4"},
    "rms_norm_eps": 1e-05, "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
    "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": false}, "rope_theta": 150000,
    "router_aux_loss_coef": 0.9, "sliding_window": 128, "swiglu_limit": 7.0, "tie_word_embeddings": false,
    "transformers_version": "4.55.0.dev0", "use_cache": true, "vocab_size": 201088})";
  auto s = with_config(config);
  REQUIRE(s.ok());
  CHECK(s->warnings.empty());
  const ModelShape& m = s->problem.model;
  const ParamCounts c = count_params(m);
  CHECK(c.total == 20'914'757'184 - 24 * 64);
  CHECK(c.total == preset_total("gpt-oss-20b"));
  CHECK(c.active - c.embedding == 3'608'307'264 - 24 * 64);  // the card's 3.61B active
  CHECK(m.sliding_window == 128);
  CHECK(m.sliding_window_layers == 12);
  CHECK(m.moe.top_k == 4);
  CHECK(m.moe.router_bias);
  CHECK(m.ffn_act == FfnAct::swiglu_clamped);  // GptOssExperts clamps at swiglu_limit
  // rope_scaling is not read (page weight): YaRN's attention factor stays 1 unless the
  // scenario sets model.rope_attention_factor beside hf_config, as the preset has it.
  CHECK(m.rope_attention_factor == 1.0);
  // gpt-oss-120b: 36 layers, 128 experts (the same file otherwise; no layer_types: even layers slide).
  std::string big = config;
  big.replace(big.find("\"layer_types\""),
              big.find("],", big.find("\"layer_types\"")) + 2 - big.find("\"layer_types\""), "");
  const auto swap = [](std::string& text, const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
  };
  swap(big, "\"num_hidden_layers\": 24", "\"num_hidden_layers\": 36");
  swap(big, "\"num_local_experts\": 32", "\"num_local_experts\": 128");
  auto s120 = with_config(big);
  INFO((s120 ? std::string() : s120.error().path + ": " + s120.error().message));
  REQUIRE(s120.ok());
  CHECK(count_params(s120->problem.model).total == 116'829'156'672 - 36 * 64);
  CHECK(count_params(s120->problem.model).total == preset_total("gpt-oss-120b"));
  CHECK(s120->problem.model.sliding_window_layers == 18);
  // Without attention biases the experts' biases could not be told apart: refused by name.
  std::string unbiased = config;
  swap(unbiased, "\"attention_bias\": true", "\"attention_bias\": false");
  auto bad = with_config(unbiased);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().path == "/model/hf_config/attention_bias");
  CHECK(bad.error().code == "hf_config_unsupported");
}

TEST_CASE("hf_config glm4_moe: zai-org/GLM-4.5-Air and GLM-4.5 count what their presets count", "[hf_config]") {
  // zai-org/GLM-4.5-Air config.json; GLM-4.5's differs in the shape keys swapped below.
  std::string air = R"({
    "architectures": ["Glm4MoeForCausalLM"], "attention_bias": true, "attention_dropout": 0.0,
    "eos_token_id": [151329, 151336, 151338], "first_k_dense_replace": 1, "head_dim": 128, "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 10944, "max_position_embeddings": 131072,
    "model_type": "glm4_moe", "moe_intermediate_size": 1408, "n_group": 1, "n_routed_experts": 128,
    "n_shared_experts": 1, "norm_topk_prob": true, "num_attention_heads": 96, "num_experts_per_tok": 8,
    "num_hidden_layers": 46, "num_key_value_heads": 8, "num_nextn_predict_layers": 1, "pad_token_id": 151329,
    "partial_rotary_factor": 0.5, "rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 1000000,
    "routed_scaling_factor": 1.0, "tie_word_embeddings": false, "topk_group": 1, "torch_dtype": "bfloat16",
    "transformers_version": "4.54.1", "use_cache": true, "use_qk_norm": false, "vocab_size": 151552})";
  auto s = with_config(air);
  REQUIRE(s.ok());
  CHECK(s->warnings.empty());
  const ModelShape& m = s->problem.model;
  CHECK(count_params(m).total == 106'852'251'264);
  CHECK(count_params(m).total == preset_total("glm-4.5-air"));
  CHECK(m.mtp_layers == 1);
  CHECK(m.qkv_bias);
  CHECK_FALSE(m.qk_norm);
  CHECK(m.moe.first_dense_layers == 1);
  CHECK(m.moe.shared_expert_ffn_hidden == 1408);
  const auto swap = [](std::string& text, const std::string& from, const std::string& to) {
    REQUIRE(text.find(from) != std::string::npos);
    text.replace(text.find(from), from.size(), to);
  };
  std::string full = air;
  swap(full, "\"hidden_size\": 4096", "\"hidden_size\": 5120");
  swap(full, "\"intermediate_size\": 10944", "\"intermediate_size\": 12288");
  swap(full, "\"moe_intermediate_size\": 1408", "\"moe_intermediate_size\": 1536");
  swap(full, "\"n_routed_experts\": 128", "\"n_routed_experts\": 160");
  swap(full, "\"num_hidden_layers\": 46", "\"num_hidden_layers\": 92");
  swap(full, "\"first_k_dense_replace\": 1", "\"first_k_dense_replace\": 3");
  swap(full, "\"use_qk_norm\": false", "\"use_qk_norm\": true");
  auto s45 = with_config(full);
  REQUIRE(s45.ok());
  CHECK(count_params(s45->problem.model).total == 352'797'829'024);
  CHECK(count_params(s45->problem.model).total == preset_total("glm-4.5"));
  CHECK(s45->problem.model.qk_norm);
}

TEST_CASE("hf_config num_nextn_predict_layers: imported as model.mtp_layers, checked, overridable", "[hf_config]") {
  const std::string base = R"({"model_type": "deepseek_v3", "hidden_size": 1024, "intermediate_size": 2816,
    "moe_intermediate_size": 256, "n_routed_experts": 16, "n_shared_experts": 1, "num_experts_per_tok": 2,
    "num_attention_heads": 8, "num_hidden_layers": 4, "kv_lora_rank": 128, "q_lora_rank": 256,
    "qk_nope_head_dim": 64, "qk_rope_head_dim": 32, "v_head_dim": 64, "vocab_size": 32000,
    "first_k_dense_replace": 1, "num_nextn_predict_layers": )";
  auto two = with_config(base + "2}");
  REQUIRE(two.ok());
  CHECK(two->problem.model.mtp_layers == 2);
  auto none = with_config(base + "1}", R"(, "mtp_layers": 0)");
  REQUIRE(none.ok());
  CHECK(none->problem.model.mtp_layers == 0);
  auto bad = with_config(base + "-1}");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().path == "/model/hf_config/num_nextn_predict_layers");
}

TEST_CASE("hf_config n_group / topk_group: node-limited routing, read and checked", "[hf_config]") {
  // DeepSeek's MoEGate views a token's scores as n_group equal groups and keeps the best
  // topk_group of them (modeling_deepseek.py); greedy routing (DeepSeek-V2-Lite) has none.
  const std::string base = R"({"model_type": "deepseek_v3", "hidden_size": 1024, "intermediate_size": 2816,
    "moe_intermediate_size": 256, "n_routed_experts": 16, "n_shared_experts": 1, "num_experts_per_tok": 4,
    "num_attention_heads": 8, "num_hidden_layers": 4, "kv_lora_rank": 128, "q_lora_rank": 256,
    "qk_nope_head_dim": 64, "qk_rope_head_dim": 32, "v_head_dim": 64, "vocab_size": 32000,
    "first_k_dense_replace": 1, )";
  auto four = with_config(base + R"("n_group": 4, "topk_group": 2})");
  REQUIRE(four.ok());
  CHECK(four->problem.model.moe.groups == 4);
  CHECK(four->problem.model.moe.group_topk == 2);
  auto greedy = with_config(base + R"("n_group": 4, "topk_group": 2, "topk_method": "greedy"})");
  REQUIRE(greedy.ok());
  CHECK(greedy->problem.model.moe.groups == 0);
  auto uneven = with_config(base + R"("n_group": 3, "topk_group": 2})");
  REQUIRE_FALSE(uneven.ok());
  CHECK(uneven.error().path == "/model/hf_config/n_group");
  CHECK(uneven.error().code == "groups_divide_experts");
  auto above = with_config(base + R"("n_group": 4, "topk_group": 5})");
  REQUIRE_FALSE(above.ok());
  CHECK(above.error().path == "/model/hf_config/topk_group");
}

TEST_CASE("hf_config gemma2: google/gemma-2-9b counts 9.24B", "[hf_config]") {
  const int64_t n = total_of(R"({
    "architectures": ["Gemma2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
    "attn_logit_softcapping": 50.0, "bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": 1,
    "final_logit_softcapping": 30.0, "head_dim": 256, "hidden_act": "gelu_pytorch_tanh",
    "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 3584, "initializer_range": 0.02,
    "intermediate_size": 14336, "max_position_embeddings": 8192, "model_type": "gemma2",
    "num_attention_heads": 16, "num_hidden_layers": 42, "num_key_value_heads": 8, "pad_token_id": 0,
    "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "sliding_window": 4096,
    "sliding_window_size": 4096, "torch_dtype": "float32", "transformers_version": "4.42.0.dev0",
    "use_cache": true, "vocab_size": 256000})");
  CHECK(n == 9241705984);  // safetensors total (tied embeddings, four norms per layer)
}

TEST_CASE("hf_config gemma3: google/gemma-3-12b-it counts its text decoder", "[hf_config]") {
  // text_config leaves vocab_size (262208) and head_dim (256) at the Gemma3TextConfig defaults.
  auto s = with_config(R"({
    "architectures": ["Gemma3ForConditionalGeneration"], "boi_token_index": 255999, "eoi_token_index": 256000,
    "eos_token_id": [1, 106], "image_token_index": 262144, "initializer_range": 0.02, "mm_tokens_per_image": 256,
    "model_type": "gemma3",
    "text_config": {"hidden_size": 3840, "intermediate_size": 15360, "model_type": "gemma3_text",
                    "num_attention_heads": 16, "num_hidden_layers": 48, "num_key_value_heads": 8,
                    "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024},
    "torch_dtype": "bfloat16", "transformers_version": "4.50.0.dev0",
    "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
                      "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 27,
                      "patch_size": 14, "vision_use_head": false}})");
  REQUIRE(s.ok());
  // safetensors total 12,187,325,040 less the SigLIP tower 416,866,032 and the projector
  // 4,424,832 (data/models.json gemma-3-12b) = 11,766,034,176.
  CHECK(count_params(s->problem.model).total == 12187325040 - 416866032 - 4424832);
  REQUIRE(s->warnings.size() == 1);
  CHECK(s->warnings[0].code == "hf_config_vision_not_counted");
  CHECK(s->problem.model.qk_norm);
  CHECK(s->problem.model.norms_per_layer == 4);
  // Five layers of six slide over 1,024 tokens (sliding_window_pattern, default 6): 40 of 48.
  CHECK(s->problem.model.sliding_window == 1024);
  CHECK(s->problem.model.sliding_window_layers == 40);
}

TEST_CASE("hf_config sliding windows: each architecture's layer pattern, and what is not a window",
          "[hf_config][sliding_window]") {
  const auto window = [](const std::string& config) {
    auto s = with_config(config);
    INFO((s ? std::string() : s.error().path + ": " + s.error().message));
    REQUIRE(s.ok());
    CHECK(s->warnings.empty());
    return std::pair<int64_t, int64_t>{s->problem.model.sliding_window, s->problem.model.sliding_window_layers};
  };
  const std::string llama_like =
      R"("hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,)"
      R"( "num_hidden_layers": 32, "vocab_size": 32000)";
  // Mistral-7B-v0.1: a 4,096-token window on every layer; v0.3 and later: null, none.
  CHECK(window(R"({"model_type": "mistral", "sliding_window": 4096, )" + llama_like + "}") ==
        std::pair<int64_t, int64_t>{4096, 32});
  CHECK(window(R"({"model_type": "mistral", "sliding_window": null, )" + llama_like + "}") ==
        std::pair<int64_t, int64_t>{0, 0});
  // Gemma 2: the even layers (is_sliding = not layer_idx % 2): 21 of 42 (google/gemma-2-9b).
  CHECK(window(R"({"model_type": "gemma2", "sliding_window": 4096, "hidden_size": 3584, "intermediate_size": 14336,)"
               R"( "num_attention_heads": 16, "num_key_value_heads": 8, "num_hidden_layers": 42})") ==
        std::pair<int64_t, int64_t>{4096, 21});
  // Gemma 3 27B: every sixth layer global, 52 of 62 slide; an explicit pattern of 2 halves it.
  const std::string g3 = R"({"model_type": "gemma3_text", "hidden_size": 5376, "intermediate_size": 21504,)"
                         R"( "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 128,)"
                         R"( "num_hidden_layers": 62, "sliding_window": 1024)";
  CHECK(window(g3 + "}") == std::pair<int64_t, int64_t>{1024, 52});
  CHECK(window(g3 + R"(, "sliding_window_pattern": 2})") == std::pair<int64_t, int64_t>{1024, 31});
  // layer_types, when listed, is the pattern.
  CHECK(window(R"({"model_type": "mistral", "sliding_window": 128, "hidden_size": 256, "intermediate_size": 512,)"
               R"( "num_attention_heads": 4, "num_hidden_layers": 4, "vocab_size": 1000, "layer_types":)"
               R"( ["sliding_attention", "full_attention", "sliding_attention", "sliding_attention"]})") ==
        std::pair<int64_t, int64_t>{128, 3});
  // Qwen2/3: only with use_sliding_window, on the layers after max_window_layers.
  const std::string qwen = R"({"model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944,)"
                           R"( "num_attention_heads": 28, "num_key_value_heads": 4, "num_hidden_layers": 28,)"
                           R"( "vocab_size": 152064, "sliding_window": 131072, "max_window_layers": 20)";
  CHECK(window(qwen + R"(, "use_sliding_window": false})") == std::pair<int64_t, int64_t>{0, 0});
  CHECK(window(qwen + R"(, "use_sliding_window": true})") == std::pair<int64_t, int64_t>{131072, 8});
  // Phi-3's sliding_window 2047 is not applied by its implementation.
  CHECK(window(R"({"model_type": "phi3", "sliding_window": 2047, )" + llama_like + "}") ==
        std::pair<int64_t, int64_t>{0, 0});
  // A layer_types list of the wrong length is an error at its pointer.
  auto bad = with_config(R"({"model_type": "mistral", "sliding_window": 128, )" + llama_like +
                         R"(, "layer_types": ["sliding_attention"]})");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().path == "/model/hf_config/layer_types");
  CHECK(bad.error().code == "hf_config_layer_types");
}

TEST_CASE("hf_config phi3: microsoft/Phi-3-mini-4k-instruct and microsoft/phi-4", "[hf_config]") {
  const int64_t mini = total_of(R"({
    "_name_or_path": "Phi-3-mini-4k-instruct", "architectures": ["Phi3ForCausalLM"], "attention_bias": false,
    "attention_dropout": 0.0, "bos_token_id": 1, "embd_pdrop": 0.0, "eos_token_id": 32000, "hidden_act": "silu",
    "hidden_size": 3072, "initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 4096,
    "model_type": "phi3", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
    "original_max_position_embeddings": 4096, "pad_token_id": 32000, "resid_pdrop": 0.0, "rms_norm_eps": 1e-05,
    "rope_scaling": null, "rope_theta": 10000.0, "sliding_window": 2047, "tie_word_embeddings": false,
    "torch_dtype": "bfloat16", "transformers_version": "4.40.2", "use_cache": true, "vocab_size": 32064})");
  CHECK(mini == 3821079552);  // safetensors total; model card "3.8B parameters"
  const int64_t phi4 = total_of(R"({
    "architectures": ["Phi3ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 100257, "embd_pdrop": 0.0,
    "eos_token_id": 100265, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
    "intermediate_size": 17920, "max_position_embeddings": 16384, "model_type": "phi3",
    "num_attention_heads": 40, "num_hidden_layers": 40, "num_key_value_heads": 10,
    "original_max_position_embeddings": 16384, "pad_token_id": 100349, "resid_pdrop": 0.0, "rms_norm_eps": 1e-05,
    "rope_scaling": null, "rope_theta": 250000, "sliding_window": null, "tie_word_embeddings": false,
    "torch_dtype": "bfloat16", "transformers_version": "4.47.0", "use_cache": true, "vocab_size": 100352})");
  CHECK(phi4 == 14659507200);  // safetensors total; model card "14B parameters"
}

TEST_CASE("hf_config chatglm and glm4: THUDM/glm-4-9b and THUDM/GLM-4-9B-0414", "[hf_config]") {
  const int64_t chatglm = total_of(R"({
    "_name_or_path": "THUDM/glm-4-9b", "model_type": "chatglm", "architectures": ["ChatGLMModel"],
    "add_bias_linear": false, "add_qkv_bias": true, "apply_query_key_layer_scaling": true,
    "apply_residual_connection_post_layernorm": false, "attention_dropout": 0.0, "attention_softmax_in_fp32": true,
    "bias_dropout_fusion": true, "ffn_hidden_size": 13696, "fp32_residual_connection": false, "hidden_dropout": 0.0,
    "hidden_size": 4096, "kv_channels": 128, "layernorm_epsilon": 1.5625e-07, "multi_query_attention": true,
    "multi_query_group_num": 2, "num_attention_heads": 32, "num_layers": 40, "original_rope": true,
    "padded_vocab_size": 151552, "post_layer_norm": true, "rmsnorm": true, "seq_length": 8192, "use_cache": true,
    "torch_dtype": "bfloat16", "transformers_version": "4.30.2", "tie_word_embeddings": false,
    "eos_token_id": [151329, 151336, 151338], "pad_token_id": 151329})");
  CHECK(chatglm == 9399951360);  // the count two loaders print (data/models.json glm-4-9b)
  // GLM-4-0414 in transformers' Glm4 layout: the same shape with two more RMSNorms per layer
  // (post-self-attention, post-MLP): + 40 · 2 · 4096.
  const int64_t glm4 = total_of(R"({
    "architectures": ["Glm4ForCausalLM"], "attention_bias": true, "attention_dropout": 0.0,
    "eos_token_id": [151329, 151336, 151338], "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096,
    "initializer_range": 0.02, "intermediate_size": 13696, "max_position_embeddings": 32768, "model_type": "glm4",
    "num_attention_heads": 32, "num_hidden_layers": 40, "num_key_value_heads": 2, "pad_token_id": 151329,
    "partial_rotary_factor": 0.5, "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "tie_word_embeddings": false,
    "torch_dtype": "bfloat16", "transformers_version": "4.52.0.dev0", "use_cache": true, "vocab_size": 151552})");
  CHECK(glm4 == chatglm + 40 * 2 * 4096);
  CHECK(std::llabs(glm4 - 9'400'000'000) <= 50'000'000);  // model page "9.4B params", rounded to 0.1B
}

TEST_CASE("hf_config ernie4_5_moe: baidu/ERNIE-4.5-21B-A3B counts 21.83B, 3.35B active", "[hf_config]") {
  // The values of configuration_ernie4_5_moe.py's defaults, which that file says are
  // ERNIE-4.5-21B-A3B-PT's ("21B total, 3B activated" on its model card). By hand:
  //   tied embedding 103,424 × 2,560                          =    264,765,440
  //   28 × attention (q, o 2,560²; k, v 2,560 × 512) + 2 norms = 28 × 15,733,760
  //   layer 0 dense MLP 3 × 2,560 × 12,288                     =     94,371,840
  //   27 × (64 experts 3 × 2,560 × 1,536, 2 shared = one of 3,072 wide,
  //         router 2,560 × 64 and its 64 correction biases)   = 27 × 778,731,584
  //   final norm                                               =          2,560
  //   = 21,825,437,888.
  const std::string config = R"({
    "architectures": ["Ernie4_5_MoeForCausalLM"], "model_type": "ernie4_5_moe", "bos_token_id": 1,
    "eos_token_id": 2, "pad_token_id": 0, "hidden_act": "silu", "hidden_size": 2560, "intermediate_size": 12288,
    "max_position_embeddings": 131072, "num_attention_heads": 20, "num_key_value_heads": 4,
    "num_hidden_layers": 28, "rms_norm_eps": 1e-05, "rope_theta": 500000, "use_bias": false,
    "tie_word_embeddings": true, "vocab_size": 103424, "use_cache": false, "torch_dtype": "bfloat16",
    "moe_num_experts": 64, "moe_num_shared_experts": 2, "moe_layer_start_index": 1, "moe_layer_end_index": 27,
    "moe_intermediate_size": 1536, "moe_capacity": [64, 64, 64], "moe_gate": "topk", "moe_k": 6,
    "moe_layer_interval": 1, "moe_use_aux_free": true, "moe_norm_min": 1e-12})";
  auto s = with_config(config);
  REQUIRE(s.ok());
  CHECK(s->warnings.empty());
  const ParamCounts c = count_params(s->problem.model);
  CHECK(c.total == 21825437888);
  // Active: attention, the dense layer, the embedding, and per MoE layer 6 routed experts,
  // the shared one and the router: 3,346,993,728 + ... ≈ 3.35B ("3B activated").
  CHECK(c.active == Approx(3.35e9).epsilon(0.005));
  // Every other layer MoE, or an end before the last layer: refused by name.
  auto interval = with_config(R"({"model_type": "ernie4_5_moe", "hidden_size": 2560, "num_hidden_layers": 28,
    "num_attention_heads": 20, "num_key_value_heads": 4, "intermediate_size": 12288, "vocab_size": 103424,
    "moe_num_experts": 64, "moe_k": 6, "moe_intermediate_size": 1536, "moe_layer_interval": 2})");
  REQUIRE_FALSE(interval.ok());
  CHECK(interval.error().path == "/model/hf_config/moe_layer_interval");
}

TEST_CASE("hf_config ernie4_5: baidu/ERNIE-4.5-0.3B counts 0.36B", "[hf_config]") {
  // configuration_ernie4_5.py's 0.3B shape: 18 layers of h 1,024, 16 heads of 128 (head_dim
  // given), 2 KV heads, MLP 3,072, tied 103,424-token embedding, no biases. By hand:
  //   embedding 105,906,176 + 18 × (q, o 1,024 × 2,048 each; k, v 1,024 × 256 each; MLP
  //   3 × 1,024 × 3,072; 2 norms) + final norm = 105,906,176 + 18 × 14,157,824 + 1,024
  //   = 360,748,032.
  const int64_t n = total_of(R"({
    "architectures": ["Ernie4_5ForCausalLM"], "model_type": "ernie4_5", "hidden_act": "silu",
    "hidden_size": 1024, "intermediate_size": 3072, "max_position_embeddings": 131072, "head_dim": 128,
    "num_attention_heads": 16, "num_key_value_heads": 2, "num_hidden_layers": 18, "rms_norm_eps": 1e-05,
    "rope_theta": 500000, "use_bias": false, "tie_word_embeddings": true, "vocab_size": 103424})");
  CHECK(n == 360748032);
}

TEST_CASE("hf_config internlm2: internlm/internlm2_5-7b and internlm2_5-20b count their safetensors totals",
          "[hf_config]") {
  // InternLM's remote-code configuration_internlm2.py names the Llama fields; wqkv packs
  // q, k and v into one linear (the same parameters), and config.bias puts biases on wqkv
  // and wo only (default true; the published checkpoints set false).
  const std::string common = R"("architectures": ["InternLM2ForCausalLM"], "attn_implementation": "eager",
    "auto_map": {"AutoConfig": "configuration_internlm2.InternLM2Config"}, "bias": false, "bos_token_id": 1,
    "eos_token_id": 2, "hidden_act": "silu", "initializer_range": 0.02, "max_position_embeddings": 32768,
    "model_type": "internlm2", "pad_token_id": 2, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"type": "dynamic", "factor": 2.0}, "rope_theta": 1000000, "tie_word_embeddings": false,
    "torch_dtype": "bfloat16", "transformers_version": "4.41.0", "use_cache": true, "vocab_size": 92544)";
  const int64_t seven = total_of(R"({)" + common + R"(, "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8})");
  CHECK(seven == 7737708544);  // Hugging Face safetensors count (data/models.json internlm2.5-7b)
  CHECK(seven == preset_total("internlm2.5-7b"));
  const int64_t twenty = total_of(R"({)" + common + R"(, "hidden_size": 6144, "intermediate_size": 16384,
    "num_attention_heads": 48, "num_hidden_layers": 48, "num_key_value_heads": 8})");
  CHECK(twenty == 19861149696);  // Hugging Face safetensors count (data/models.json internlm2.5-20b)
  CHECK(twenty == preset_total("internlm2.5-20b"));
  // Attention biases without MLP biases (the class default when bias is absent): refused by name.
  auto biased = with_config(R"({"model_type": "internlm2", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 92544})");
  REQUIRE_FALSE(biased.ok());
  CHECK(biased.error().path == "/model/hf_config/bias");
  CHECK(biased.error().code == "hf_config_unsupported");
}

TEST_CASE("hf_config: keys not understood are named in one warning, and fields beside it override", "[hf_config]") {
  const std::string cfg = R"({"model_type": "llama", "num_hidden_layers": 16, "hidden_size": 2048,
    "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 8192,
    "vocab_size": 128256, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
    "my_adapter_rank": 8, "logit_scale": 0.5})";
  auto s = with_config(cfg, R"(,"name":"my 1B")");
  REQUIRE(s.ok());
  CHECK(count_params(s->problem.model).total == 1235814400);
  CHECK(s->problem.model.name == "my 1B");
  REQUIRE(s->warnings.size() == 1);
  CHECK(s->warnings[0].code == "hf_config_keys_ignored");
  CHECK(s->warnings[0].params[1] == std::pair<std::string, std::string>{"keys", "logit_scale, my_adapter_rank"});
  // The CLI/wasm answer carries it among its warnings.
  const json env = json::parse(evaluate_json(R"({"model":{"hf_config":)" + cfg +
                                             R"(},"gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096}})"));
  REQUIRE(env["ok"] == true);
  CHECK(env["value"]["warnings"][0]["message"].get<std::string>().find("logit_scale, my_adapter_rank") !=
        std::string::npos);
}

TEST_CASE("hf_config: bad values are errors at their pointer, with a code", "[hf_config][errors]") {
  const auto err = [](const std::string& cfg, const std::string& extra = "") {
    auto s = with_config(cfg, extra);
    REQUIRE_FALSE(s.ok());
    return s.error();
  };
  const std::string llama = R"("model_type": "llama", "hidden_size": 2048, "num_attention_heads": 32,
    "intermediate_size": 8192, "vocab_size": 128256)";
  Error e = err("{" + llama + "}");
  CHECK(e.path == "/model/hf_config/num_hidden_layers");
  CHECK(e.code == "hf_config_required");
  e = err(R"({"model_type": "llama", "num_hidden_layers": 16, "hidden_size": "2048", "num_attention_heads": 32,
    "intermediate_size": 8192, "vocab_size": 128256})");
  CHECK(e.path == "/model/hf_config/hidden_size");
  CHECK(e.code == "hf_config_not_integer");
  e = err(R"({"model_type": "falcon", "num_hidden_layers": 2})");
  CHECK(e.path == "/model/hf_config/model_type");
  CHECK(e.code == "hf_config_model_type");
  e = err("{" + llama + R"(, "num_hidden_layers": 16, "num_key_value_heads": 5})");
  CHECK(e.path == "/model/hf_config/num_key_value_heads");
  CHECK(e.code == "hf_config_kv_heads");
  // Shape-changing values the core cannot count are errors, not warnings.
  e = err("{" + llama + R"(, "num_hidden_layers": 16, "attention_bias": true})");
  CHECK(e.path == "/model/hf_config/attention_bias");
  CHECK(e.code == "hf_config_unsupported");
  e = err(R"({"model_type": "qwen3_moe", "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 4,
    "vocab_size": 100, "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
    "decoder_sparse_step": 2})");
  CHECK(e.path == "/model/hf_config/decoder_sparse_step");
  e = err(R"([1, 2])");
  CHECK(e.path == "/model/hf_config");
  CHECK(e.code == "hf_config_not_object");
  e = err("{" + llama + R"(, "num_hidden_layers": 16})", R"(,"base":"llama-3.1-8b")");
  CHECK(e.path == "/model/base");
  CHECK(e.code == "hf_config_with_base");
  e = err(R"({"model_type": "gemma3", "text_config": {"hidden_size": 64}})");
  CHECK(e.path == "/model/hf_config/text_config/num_hidden_layers");
}

TEST_CASE("hf_config: the imported shape counts what the preset copied from the same config", "[hf_config]") {
  // Llama 3.2 1B's preset and its config.json agree exactly (see the first case).
  CHECK(preset_total("llama-3.2-1b") == 1235814400);
  CHECK(preset_total("deepseek-v2-lite") == 15706484224);
}

TEST_CASE("a base's derived head_dim follows a new hidden or heads (issue 16: 1B counted as 1.40B)", "[scenario]") {
  // Llama 3.1 70B's head_dim 128 is 8192 / 64: with the Llama 3.2 1B widths it must become
  // 2048 / 32 = 64, and the count the 1B's safetensors total, not 1.40B.
  auto s = parse_scenario(R"({"model":{"base":"llama-3.1-70b","layers":16,"hidden":2048,"heads":32,"kv_heads":8,
    "ffn_hidden":8192,"tied_embeddings":true},"gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096}})");
  REQUIRE(s.ok());
  CHECK(head_dim(s->problem.model) == 64);
  CHECK(count_params(s->problem.model).total == 1235814400);
  // Gemma 2's 256 is not 3584 / 16: an architectural choice, kept.
  auto g = parse_scenario(
      R"({"model":{"base":"gemma-2-9b","heads":8},"gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096}})");
  REQUIRE(g.ok());
  CHECK(head_dim(g->problem.model) == 256);
}
