// Scenario format v1 → typed structs. The field names here are the public
// contract documented in docs/scenario-format.md.
#include "gpucalc/scenario.hpp"

#include <algorithm>
#include <cmath>

#include "decimal.hpp"
#include "gpucalc/message.hpp"
#include "gpucalc/search.hpp"
#include "gpucalc/uncertainty.hpp"
#include "hf_config.hpp"
#include "json_input.hpp"

namespace gpucalc {
namespace {

using input::json;
using input::Reader;

constexpr int64_t kMaxGpus = 10'000'000;
constexpr double kMaxParams = 1e15;  // 2,500× Llama 3.1 405B; int64 counts stay far from overflow

std::string preset_ids() {
  std::string s;
  for (const auto& m : model_presets()) s += (s.empty() ? "" : ", ") + m.id;
  return s;
}
std::string gpu_ids() {
  std::string s;
  for (const auto& g : gpu_catalog()) s += (s.empty() ? "" : ", ") + g.id;
  return s;
}

// An id the catalog does not hold: the error at `path`, naming what it likely meant.
void fail_unknown(Reader& r, const std::string& path, bool gpu, const std::string& got) {
  std::vector<std::string> ids;
  if (gpu)
    for (const auto& g : gpu_catalog()) ids.push_back(g.id);
  else
    for (const auto& m : model_presets()) ids.push_back(m.id);
  const std::string shown = input::show(json(got)), known = gpu ? gpu_ids() : preset_ids();
  const std::string likely = input::likely_ids(got, ids);
  if (likely.empty()) {
    if (gpu)
      return r.fail(path, "unknown_gpu", "unknown GPU {got} (known: {known})", {{"got", shown}, {"known", known}});
    return r.fail(path, "unknown_model", "unknown model preset {got} (known: {known})",
                  {{"got", shown}, {"known", known}});
  }
  if (gpu)
    return r.fail(path, "unknown_gpu_likely", "unknown GPU {got}; did you mean {likely}? (known: {known})",
                  {{"got", shown}, {"likely", likely}, {"known", known}});
  r.fail(path, "unknown_model_likely", "unknown model preset {got}; did you mean {likely}? (known: {known})",
         {{"got", shown}, {"likely", likely}, {"known", known}});
}

// model.moe: routed and shared experts (docs/scenario-format.md "MoE").
void read_moe(Reader& r, const json& o, const std::string& P0, ModelShape& m) {
  auto it = o.find("moe");
  if (it == o.end()) return;
  const std::string P = P0 + "/moe";
  if (it->is_null()) {  // a base preset's experts removed: a dense variant
    m.moe = MoeShape{};
    return;
  }
  if (!r.expect_object(&*it, P)) return;
  const json& x = *it;
  r.only_keys(
      x, P,
      {"experts", "top_k", "expert_ffn_hidden", "shared_experts", "shared_expert_ffn_hidden", "shared_expert_gate",
       "first_dense_layers", "router_bias", "groups", "group_topk", "load_imbalance", "capacity_factor"});
  MoeShape e = m.moe;  // a base preset's MoE, overridden field by field
  const bool req = e.experts == 0;
  if (auto v = r.integer(x, P, "experts", req, 2, 100'000)) e.experts = *v;
  if (auto v = r.integer(x, P, "top_k", req, 1, 100'000)) e.top_k = *v;
  if (auto v = r.integer(x, P, "expert_ffn_hidden", req, 1, 10'000'000)) e.expert_ffn_hidden = *v;
  if (auto v = r.integer(x, P, "shared_experts", false, 0, 1'000)) e.shared_experts = *v;
  if (auto v = r.integer(x, P, "shared_expert_ffn_hidden", false, 1, 10'000'000)) e.shared_expert_ffn_hidden = *v;
  if (auto v = r.boolean(x, P, "shared_expert_gate")) e.shared_expert_gate = *v;
  if (auto v = r.integer(x, P, "first_dense_layers", false, 0, 10'000)) e.first_dense_layers = *v;
  if (auto v = r.boolean(x, P, "router_bias")) e.router_bias = *v;
  if (auto v = r.integer(x, P, "groups", false, 0, 100'000)) e.groups = *v;
  if (auto v = r.integer(x, P, "group_topk", false, 1, 100'000)) e.group_topk = *v;
  if (auto v = r.number(x, P, "load_imbalance", false, 1, 64, false)) e.load_imbalance = *v;
  if (auto v = r.number(x, P, "capacity_factor", false, 0, 64, true)) e.capacity_factor = *v;
  if (r.failed()) return;
  const auto str = [](int64_t v) { return std::to_string(v); };
  if (e.top_k > e.experts)
    return r.fail(P + "/top_k", "top_k_above_experts", "cannot exceed experts ({experts}), got {got}",
                  {{"experts", str(e.experts)}, {"got", str(e.top_k)}});
  if (e.groups > 0 && e.experts % e.groups != 0)
    return r.fail(P + "/groups", "groups_divide_experts", "must divide experts ({experts}), got {got}",
                  {{"experts", str(e.experts)}, {"got", str(e.groups)}});
  if (e.groups > 1 && e.group_topk > e.groups)  // without groups (0 or 1) group_topk has no effect
    return r.fail(P + "/group_topk", "group_topk_above_groups", "cannot exceed groups ({groups}), got {got}",
                  {{"groups", str(e.groups)}, {"got", str(e.group_topk)}});
  if (e.first_dense_layers >= m.layers)
    return r.fail(P + "/first_dense_layers", "no_moe_layer_left",
                  "must leave at least one MoE layer: the model has {layers} layers, got {got}",
                  {{"layers", str(m.layers)}, {"got", str(e.first_dense_layers)}});
  if (e.shared_expert_ffn_hidden > 0 && e.shared_experts == 0)
    return r.fail(P + "/shared_expert_ffn_hidden", "needs_shared_experts", "needs shared_experts ≥ 1");
  if (e.shared_expert_gate && e.shared_experts == 0)
    return r.fail(P + "/shared_expert_gate", "needs_shared_experts", "needs shared_experts ≥ 1");
  if (e.capacity_factor > 0 && e.capacity_factor < 1)
    return r.fail(P + "/capacity_factor", "capacity_factor_below_one",
                  "below 1 drops tokens even when perfectly balanced; give at least 1, got {got}",
                  {{"got", input::show(x["capacity_factor"])}});
  m.moe = e;
}

// model.attention: {"type": "mha"} (standard, with heads / kv_heads / head_dim) or MLA.
void read_attention(Reader& r, const json& o, const std::string& P0, ModelShape& m) {
  auto it = o.find("attention");
  if (it == o.end()) return;
  const std::string P = P0 + "/attention";
  if (!r.expect_object(&*it, P)) return;
  const json& x = *it;
  r.only_keys(x, P, {"type", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
  const int type = r.choice_index(x, P, "type", {"mha", "mla"}, true);
  if (r.failed()) return;
  if (type == 0) {
    for (const char* k : {"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"})
      if (x.contains(k)) return r.fail(P + "/" + k, "mla_only", "applies to type \"mla\" only", {{"field", k}});
    m.attention = AttentionType::standard;
    m.mla = MlaShape{};
    return;
  }
  MlaShape a = m.attention == AttentionType::mla ? m.mla : MlaShape{};
  const bool req = m.attention != AttentionType::mla;
  if (auto v = r.integer(x, P, "q_lora_rank", false, 0, 1'000'000)) a.q_lora_rank = *v;
  if (auto v = r.integer(x, P, "kv_lora_rank", req, 1, 1'000'000)) a.kv_lora_rank = *v;
  if (auto v = r.integer(x, P, "qk_nope_head_dim", req, 1, 100'000)) a.qk_nope_head_dim = *v;
  if (auto v = r.integer(x, P, "qk_rope_head_dim", req, 1, 100'000)) a.qk_rope_head_dim = *v;
  if (auto v = r.integer(x, P, "v_head_dim", req, 1, 100'000)) a.v_head_dim = *v;
  if (r.failed()) return;
  if (m.kv_heads != m.heads)
    return r.fail(P0 + "/kv_heads", "mla_kv_heads",
                  "MLA has one latent for all heads: leave kv_heads out or equal to heads ({heads})",
                  {{"heads", std::to_string(m.heads)}});
  m.attention = AttentionType::mla;
  m.mla = a;
}

// The shape a model object starts from: a Hugging Face config.json (model.hf_config), a
// preset (model.base) that its other fields change, or nothing (every field given).
void read_model_base(Reader& r, const json& o, const std::string& P, ModelShape& m, std::vector<Message>& warnings) {
  if (o.contains("hf_config")) {
    if (o.contains("base"))
      return r.fail(coded_error(P + "/base", "hf_config_with_base",
                                "cannot be combined with hf_config (both give the model's shape)"));
    auto imported = import_hf_config(o["hf_config"], P + "/hf_config");
    if (!imported) return r.fail(imported.error());
    m = imported->shape;
    warnings.insert(warnings.end(), imported->warnings.begin(), imported->warnings.end());
  } else if (auto base = r.text(o, P, "base", 64)) {
    const ModelShape* p = find_model(*base);
    if (!p) return fail_unknown(r, P + "/base", false, *base);
    m = *p;
    m.id = *base + "+custom";
    m.published_params = 0;
    m.published_params_tolerance = 0;
  } else {
    m = ModelShape{};
    m.id = "custom";
    m.name = "custom model";
    m.source = "scenario";
  }
}

// The model object's own fields; required where no base gives them.
void read_model_fields(Reader& r, const json& o, const std::string& P, ModelShape& m, bool has_base) {
  const bool req = !has_base;
  // A base's head_dim that is just hidden / heads stays derived when either changes.
  if (m.head_dim * m.heads == m.hidden && !o.contains("head_dim") && (o.contains("hidden") || o.contains("heads")))
    m.head_dim = 0;
  if (auto v = r.text(o, P, "name", 200)) m.name = *v;
  if (auto v = r.integer(o, P, "layers", req, 1, 10'000)) m.layers = *v;
  if (auto v = r.integer(o, P, "hidden", req, 1, 1'000'000)) m.hidden = *v;
  if (auto v = r.integer(o, P, "heads", req, 1, 100'000)) m.heads = *v;
  if (auto v = r.integer(o, P, "kv_heads", false, 1, 100'000)) m.kv_heads = *v;
  else if (!has_base) m.kv_heads = m.heads;
  if (auto v = r.integer(o, P, "head_dim", false, 1, 100'000)) m.head_dim = *v;
  if (auto v = r.integer(o, P, "ffn_hidden", req, 1, 10'000'000)) m.ffn_hidden = *v;
  if (auto v = r.integer(o, P, "vocab", req, 1, 100'000'000)) m.vocab = *v;
  if (int i = r.choice_index(o, P, "ffn_act", {"swiglu", "gelu", "geglu", "swiglu_clamped"}); i >= 0)
    m.ffn_act = FfnAct(i);
  if (auto v = r.boolean(o, P, "tied_embeddings")) m.tied_embeddings = *v;
  if (int i = r.choice_index(o, P, "norm", {"rmsnorm", "layernorm"}); i >= 0) m.norm = Norm(i);
  if (auto v = r.boolean(o, P, "qkv_bias")) m.qkv_bias = *v;
  if (auto v = r.boolean(o, P, "linear_bias")) m.linear_bias = *v;
  if (auto v = r.integer(o, P, "norms_per_layer", false, 1, 16)) m.norms_per_layer = *v;
  if (auto v = r.boolean(o, P, "qk_norm")) m.qk_norm = *v;
  // Multi-token-prediction modules (DeepSeek-V3 trains with 1; Megatron-Core mtp_num_layers).
  if (auto v = r.integer(o, P, "mtp_layers", false, 0, 16)) m.mtp_layers = *v;
  if (int i = r.choice_index(o, P, "position_embedding", {"rope", "learned", "alibi"}); i >= 0)
    m.position = PositionEmbedding(i);
  if (auto v = r.integer(o, P, "max_position_embeddings", false, 1, 100'000'000)) m.max_position_embeddings = *v;
  if (auto v = r.number(o, P, "rope_attention_factor", false, 0.1, 10, false)) m.rope_attention_factor = *v;
  if (auto v = r.boolean(o, P, "dropout")) m.dropout = *v;
  // Sliding-window attention: a window without a layer count covers every layer; a
  // window of 0 turns it off (a preset's too).
  if (auto v = r.integer(o, P, "sliding_window", false, 0, 100'000'000)) {
    m.sliding_window = *v;
    m.sliding_window_layers = *v > 0 ? m.layers : 0;
  }
  if (auto v = r.integer(o, P, "sliding_window_layers", false, 0, 10'000)) m.sliding_window_layers = *v;
  if (r.failed()) return;
  if (m.sliding_window_layers > 0 && m.sliding_window == 0)
    return r.fail(P + "/sliding_window_layers", "sliding_window_layers_need_window",
                  "needs model.sliding_window (the window's length in tokens), got {got} layers with none",
                  {{"got", std::to_string(m.sliding_window_layers)}});
  if (m.sliding_window_layers > m.layers)
    return r.fail(P + "/sliding_window_layers", "sliding_window_layers_too_many",
                  "must not exceed layers ({layers}), got {got}",
                  {{"layers", std::to_string(m.layers)}, {"got", std::to_string(m.sliding_window_layers)}});
}

// Rules across the fields, and a bound on the parameter count.
void check_model_shape(Reader& r, const std::string& P, const ModelShape& m) {
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
    return r.fail(P + "/kv_heads", "kv_heads_divide_heads", "must divide heads ({heads}), got {got}",
                  {{"heads", std::to_string(m.heads)}, {"got", std::to_string(m.kv_heads)}});
  if (m.head_dim == 0 && m.hidden % m.heads != 0)
    return r.fail(P + "/hidden", "hidden_divisible_by_heads",
                  "must be divisible by heads ({heads}) unless head_dim is given, got {got}",
                  {{"heads", std::to_string(m.heads)}, {"got", std::to_string(m.hidden)}});
  if (m.position == PositionEmbedding::learned && m.max_position_embeddings == 0)
    return r.fail(P + "/max_position_embeddings", "learned_positions_need_max",
                  "is required with learned position embeddings");
  // Parameter counts are int64 (model.cpp) and every dimension alone is in range, but
  // L · (h·a·d + h·f) can pass 2^63: bound the total, estimated here in double.
  const double h = static_cast<double>(m.hidden), d = static_cast<double>(m.head_dim ? m.head_dim : m.hidden / m.heads);
  const double mla_w = static_cast<double>(m.mla.q_lora_rank + m.mla.kv_lora_rank + m.mla.qk_nope_head_dim +
                                           m.mla.qk_rope_head_dim + m.mla.v_head_dim);
  const double attn = is_mla(m) ? 3.0 * (h + static_cast<double>(m.heads) * mla_w) * mla_w
                                : h * d * static_cast<double>(2 * m.heads + 2 * m.kv_heads);
  const double mlp =
      3.0 * h *
      (static_cast<double>(m.ffn_hidden) +
       static_cast<double>(m.moe.experts + m.moe.shared_experts) * static_cast<double>(m.moe.expert_ffn_hidden) +
       static_cast<double>(m.moe.shared_expert_ffn_hidden));
  const double params =
      static_cast<double>(m.layers) * (attn + mlp) + h * static_cast<double>(2 * m.vocab + m.max_position_embeddings);
  if (params > kMaxParams) {
    return r.fail(P, "model_too_large", "has about {params} parameters; gpucalc sizes models of up to 1e15",
                  {{"params", format_general(params, 3)}});
  }
}

void read_model(Reader& r, const json& root, ModelShape& m, std::vector<Message>& warnings) {
  auto it = root.find("model");
  if (it == root.end())
    return r.fail("/model", "model_required", "is required (a preset id such as \"llama-3.1-70b\", or an object)");
  if (it->is_string()) {
    const ModelShape* p = find_model(it->get<std::string>());
    if (!p) return fail_unknown(r, "/model", false, it->get<std::string>());
    m = *p;
    return;
  }
  if (!r.expect_object(&*it, "/model")) return;
  const json& o = *it;
  const std::string P = "/model";
  r.only_keys(o, P,
              {"base",
               "name",
               "layers",
               "hidden",
               "heads",
               "kv_heads",
               "head_dim",
               "ffn_hidden",
               "vocab",
               "ffn_act",
               "tied_embeddings",
               "norm",
               "qkv_bias",
               "linear_bias",
               "position_embedding",
               "max_position_embeddings",
               "rope_attention_factor",
               "dropout",
               "norms_per_layer",
               "qk_norm",
               "mtp_layers",
               "sliding_window",
               "sliding_window_layers",
               "moe",
               "attention",
               "hf_config"});
  // model.hf_config: a Hugging Face config.json is the base; fields beside it override it.
  const bool has_base = o.contains("base") || o.contains("hf_config");
  read_model_base(r, o, P, m, warnings);
  if (r.failed()) return;
  read_model_fields(r, o, P, m, has_base);
  if (r.failed()) return;
  read_moe(r, o, P, m);
  read_attention(r, o, P, m);
  if (r.failed()) return;
  check_model_shape(r, P, m);
}

void override_spec(Reader& r, const json& o, const std::string& P, const char* key, Spec& s, double lo, double hi) {
  if (auto v = r.number(o, P, key, false, lo, hi, false)) {
    s.value = *v;
    s.source = "scenario";
    s.confidence = "user";
  }
}

void read_gpu(Reader& r, const json& root, Gpu& g) {
  auto it = root.find("gpu");
  if (it == root.end())
    return r.fail("/gpu", "gpu_required", "is required (a catalog id such as \"h100-sxm-80gb\", or an object)");
  if (it->is_string()) {
    const Gpu* p = find_gpu(it->get<std::string>());
    if (!p) return fail_unknown(r, "/gpu", true, it->get<std::string>());
    g = *p;
  } else {
    if (!r.expect_object(&*it, "/gpu")) return;
    const json& o = *it;
    const std::string P = "/gpu";
    r.only_keys(o, P,
                {"base", "name", "memory_gib", "bf16_tflops", "fp16_tflops", "fp8_tflops", "fp4_tflops",
                 "memory_bw_tbs", "scaleup_gbs", "scaleup_domain", "scaleout_gbps", "tdp_w", "power_limit_w",
                 "rail_optimized", "in_network_reduction", "host_link_gbs"});
    if (auto base = r.text(o, P, "base", 64)) {
      const Gpu* p = find_gpu(*base);
      if (!p) return fail_unknown(r, P + "/base", true, *base);
      g = *p;
      g.id = *base + "+custom";
    } else {
      g = Gpu{};
      g.id = "custom";
      g.name = "custom accelerator";
    }
    if (auto v = r.text(o, P, "name", 200)) g.name = *v;
    // Floors below any real part (1 MiB, 1 GFLOP/s, 1 GB/s, 1 MB/s, 1 Mb/s, 1 W): a vanishing
    // spec made the answer's byte counts 0 and its days overflow
    // (fuzz/corpus/regress-quick-estimate-tiny-memory.json).
    override_spec(r, o, P, "memory_gib", g.memory_gib, 1.0 / 1024, 1e6);
    override_spec(r, o, P, "bf16_tflops", g.bf16_tflops, 1e-3, 1e7);
    override_spec(r, o, P, "fp16_tflops", g.fp16_tflops, 1e-3, 1e7);
    override_spec(r, o, P, "fp8_tflops", g.fp8_tflops, 1e-3, 1e7);
    override_spec(r, o, P, "fp4_tflops", g.fp4_tflops, 1e-3, 1e7);
    override_spec(r, o, P, "memory_bw_tbs", g.memory_bw_tbs, 1e-3, 1e4);
    override_spec(r, o, P, "scaleup_gbs", g.scaleup_gbs, 1e-3, 1e6);
    if (auto v = r.integer(o, P, "scaleup_domain", false, 1, 1'000'000))
      g.scaleup_domain = Spec{static_cast<double>(*v), "scenario", "user"};
    override_spec(r, o, P, "scaleout_gbps", g.scaleout_gbps, 1e-3, 1e6);
    override_spec(r, o, P, "host_link_gbs", g.host_link_gbs, 1e-3, 1e5);
    override_spec(r, o, P, "tdp_w", g.tdp_w, 1, 1e5);
    override_spec(r, o, P, "power_limit_w", g.power_limit_w, 1, 1e5);
    if (auto v = r.boolean(o, P, "rail_optimized")) g.rail_optimized = *v;
    if (auto v = r.boolean(o, P, "in_network_reduction")) g.in_network_reduction = *v;
    if (r.failed()) return;
  }
  const auto unknown = [&](const char* field) {
    r.fail(std::string("/gpu/") + field, "gpu_spec_unknown", "is unknown for {gpu}; set it in a gpu object",
           {{"field", field}, {"gpu", g.name}});
  };
  if (!g.memory_gib.value) return unknown("memory_gib");
  if (!g.bf16_tflops.value && !g.fp16_tflops.value) return unknown("bf16_tflops");
  // The time model streams weights, activations and optimizer states through HBM.
  if (!g.memory_bw_tbs.value) return unknown("memory_bw_tbs");
}

// The code and English template of one way a list entry can be wrong ({known}, {got}).
struct EntryError {
  const char* code;
  const char* en;
};

// An array of distinct names from `names` (LoRA targets, recompute modules) as a bit set;
// the first bad entry is reported at its index. A non-string entry gets `not_string`, or
// with none (code nullptr) is an unknown name like any other.
std::optional<unsigned> read_name_set(Reader& r, const json& arr, const std::string& path, const NamedBit (&names)[7],
                                      EntryError unknown, EntryError not_string) {
  std::string known;
  for (const auto& n : names) {
    if (!known.empty()) known += ", ";
    known += n.name;
  }
  unsigned bits = 0;
  for (size_t i = 0; i < arr.size(); ++i) {
    const json& e = arr[i];
    const std::string at = path + "/" + std::to_string(i);
    if (!e.is_string() && not_string.code) {
      r.fail(at, not_string.code, not_string.en, {{"known", known}, {"got", input::show(e)}});
      return std::nullopt;
    }
    unsigned bit = 0;
    if (e.is_string())
      for (const auto& n : names)
        if (e.get<std::string>() == n.name) bit = n.bit;
    if (!bit) {
      r.fail(at, unknown.code, unknown.en, {{"got", input::show(e)}, {"known", known}});
      return std::nullopt;
    }
    if (bits & bit) {
      r.fail(at, "listed_twice", "lists {got} twice", {{"got", input::show(e)}});
      return std::nullopt;
    }
    bits |= bit;
  }
  return bits;
}

size_t name_index(const json& arr, const char* name) {
  for (size_t i = 0; i < arr.size(); ++i)
    if (arr[i].is_string() && arr[i].get<std::string>() == name) return i;
  return 0;
}

// training.lora: rank, alpha, targets; QLoRA's double quantisation and paged optimizer.
void read_lora(Reader& r, const json& o, const std::string& P0, Scenario& s) {
  Training& t = s.problem.training;
  auto it = o.find("lora");
  const std::string P = P0 + "/lora";
  if (it == o.end()) {
    if (is_adapter_stage(t))
      s.defaults_applied.push_back(
          coded("default_lora", "training.lora = rank 16, alpha 32, every linear of the block (q k v o gate up down)"));
    return;
  }
  if (!is_adapter_stage(t)) return r.fail(P, "lora_stage_only", "applies to stage \"lora\" or \"qlora\" only");
  if (!r.expect_object(&*it, P)) return;
  const json& x = *it;
  r.only_keys(x, P,
              {"rank", "alpha", "targets", "double_quant", "paged_optimizer", "base_dtype", "dropout", "fp32_upcast"});
  LoraConfig& c = t.lora;
  if (auto v = r.integer(x, P, "rank", false, 1, 65'536)) c.rank = *v;
  if (auto v = r.number(x, P, "alpha", false, 0, 1e6, true)) c.alpha = *v;
  if (auto v = r.boolean(x, P, "double_quant")) c.double_quant = *v;
  if (auto v = r.boolean(x, P, "paged_optimizer")) c.paged_optimizer = *v;
  if (auto v = r.boolean(x, P, "fp32_upcast")) c.fp32_upcast = *v;
  if (int i = r.choice_index(x, P, "base_dtype", {"bf16", "fp16", "fp32"}); i >= 0) c.base_bytes = i == 2 ? 4.0 : 2.0;
  if (auto v = r.number(x, P, "dropout", false, 0, 1, false)) c.dropout = *v;
  if (r.failed()) return;
  if (t.stage != Stage::qlora) {
    for (const char* k : {"double_quant", "paged_optimizer", "fp32_upcast"})
      if (x.contains(k))
        return r.fail(P + "/" + k, "qlora_stage_only", "applies to stage \"qlora\" only", {{"field", k}});
  }
  if (auto tg = x.find("targets"); tg != x.end()) {
    const std::string T = P + "/targets";
    if (!tg->is_array() || tg->empty())
      return r.fail(T, "expected_projection_list",
                    "must be a non-empty array of projections (q, k, v, o, gate, up, down), got {got}",
                    {{"got", input::show(*tg)}});
    auto bits =
        read_name_set(r, *tg, T, kLoraTargetNames, {"unknown_projection", "unknown projection {got} (known: {known})"},
                      {"expected_projection", "must be a projection name ({known}), got {got}"});
    if (!bits) return;
    const std::string gate_at = T + "/" + std::to_string(name_index(*tg, "gate"));
    if ((*bits & static_cast<unsigned>(LoraTarget::gate)) && !gated_ffn(s.problem.model.ffn_act))
      return r.fail(gate_at, "no_gate_projection",
                    "the model's MLP has no gate projection (ffn_act gelu: fc1 = up, fc2 = down)");
    c.targets = *bits;
  }
}

// training.offload: ZeRO-Offload / ZeRO-Infinity.
void read_offload(Reader& r, const json& o, const std::string& P0, Scenario& s) {
  auto it = o.find("offload");
  if (it == o.end()) return;
  const std::string P = P0 + "/offload";
  if (!r.expect_object(&*it, P)) return;
  r.only_keys(*it, P, {"optimizer", "params", "pcie_gbs", "host_memory_bw_gbs", "activation_layers"});
  Offload& f = s.problem.training.offload;
  if (auto v = r.boolean(*it, P, "optimizer")) f.optimizer = *v;
  if (auto v = r.boolean(*it, P, "params")) f.params = *v;
  if (auto v = r.number(*it, P, "pcie_gbs", false, 0, 10'000, true)) f.pcie_gbs = *v;
  if (auto v = r.number(*it, P, "host_memory_bw_gbs", false, 0, 100'000, true)) f.host_memory_bw_gbs = *v;
  if (auto v = r.integer(*it, P, "activation_layers", false, 0, 100'000)) f.activation_layers = *v;
}

// training.offload.activation_layers: Megatron-Core's CPU offloading (--cpu-offloading-num-layers),
// which Megatron-Core's TransformerConfig allows only below the model's layer count, without
// pipeline parallelism and without recomputation (transformer_config.py __post_init__).
void check_activation_layers(Reader& r, const std::string& P, Scenario& s) {
  const Training& t = s.problem.training;
  const int64_t n = t.offload.activation_layers;
  if (n == 0) return;
  const std::string A = P + "/offload/activation_layers";
  if (t.framework != Framework::megatron)
    return r.fail(A, "offload_layers_framework",
                  "is Megatron-Core's --cpu-offloading-num-layers; set framework \"megatron\"");
  if (n >= s.problem.model.layers)
    return r.fail(A, "offload_layers_max", "must be less than the model's layers ({of})",
                  {{"of", std::to_string(s.problem.model.layers)}});
  if (s.constraints.recompute && *s.constraints.recompute != Recompute::none)
    return r.fail(A, "offload_layers_recompute", "cannot be combined with recomputation (Megatron-Core)");
  s.constraints.recompute = Recompute::none;
  s.constraints.pp = 1;  // parallel.pp, when given, is checked against it (read_parallel)
}

// training.global_batch_range: the batches the search may pick from, in tokens: { "min",
// "max" } (rule "range", the default) or { "min", "rule": "critical" }, whose max is the
// critical batch of DeepSeek LLM's law for this model and token count (critical_batch.hpp).
// Stored in sequences: min rounded up, max rounded down to whole sequences.
void read_batch_range(Reader& r, const json& v, const std::string& R, Scenario& s) {
  if (!r.expect_object(&v, R)) return;
  r.only_keys(v, R, {"min", "max", "rule"});
  const bool critical = r.choice_index(v, R, "rule", {"range", "critical"}) == 1;
  const auto lo = r.integer(v, R, "min", false, 1, 1'000'000'000'000);
  const auto hi = r.integer(v, R, "max", false, 1, 1'000'000'000'000);
  if (r.failed()) return;
  const Training& t = s.problem.training;
  if (critical && hi)
    return r.fail(R + "/max", "batch_range_max_with_critical",
                  "is set by the critical rule; give max or rule \"critical\", not both");
  if (!critical && !hi) return r.fail(R + "/max", "batch_range_max_missing", "is required unless rule is \"critical\"");
  int64_t max_tokens = hi.value_or(0);
  if (critical) {
    const CriticalBatch cb = critical_batch(s.problem.model, t);
    if (!std::isfinite(cb.tokens) || cb.tokens < 1)
      return r.fail(R + "/rule", "critical_batch_undefined", "gives no critical batch for this model and token count");
    max_tokens = static_cast<int64_t>(std::min(cb.tokens, 1e12));
    s.critical = cb;
    s.batch_rule = BatchRule::critical;
    const auto g = [](double x) { return format_general(x, 3); };
    s.defaults_applied.push_back(
        coded("default_batch_critical",
              "training.global_batch_range.max = {tokens} tokens: the critical batch 0.2920 · C^0.3271 of DeepSeek LLM "
              "(Bi et al. 2024, arXiv 2401.02954) at C = {flops} FLOPs",
              {{"tokens", std::to_string(max_tokens)}, {"flops", g(cb.compute_flops)}}));
    if (cb.extrapolated) s.warnings.push_back(critical_batch_extrapolated(cb));
  } else {
    s.batch_rule = BatchRule::range;
  }
  const int64_t min_tokens = lo.value_or(t.seq_len);
  if (min_tokens > max_tokens)
    return r.fail(R + "/min", "batch_range_inverted", "is above max ({max} tokens), got {got}",
                  {{"max", std::to_string(max_tokens)}, {"got", std::to_string(min_tokens)}});
  const int64_t bmin = (min_tokens + t.seq_len - 1) / t.seq_len, bmax = max_tokens / t.seq_len;
  if (bmax < std::max<int64_t>(bmin, 1))
    return r.fail(R, "batch_range_empty", "holds no whole number of sequences of seq_len ({seq_len}) tokens",
                  {{"seq_len", std::to_string(t.seq_len)}});
  s.batch_min_tokens = min_tokens;
  s.batch_max_tokens = max_tokens;
  s.constraints.batch_min = bmin;
  s.constraints.batch_max = bmax;
}

// training.tokens, or a fine-tuning dataset sized in samples × average length × epochs.
void read_tokens(Reader& r, const json& o, const std::string& P, Scenario& s) {
  Training& t = s.problem.training;
  // Fine-tuning jobs are sized in samples × average length × epochs (training.dataset);
  // give that or tokens.
  const bool has_dataset = o.contains("dataset");
  if (has_dataset && o.contains("tokens"))
    return r.fail(P + "/dataset", "tokens_or_dataset",
                  "give tokens or dataset (samples × avg_tokens × epochs), not both");
  if (!has_dataset) {
    if (auto v = r.number(o, P, "tokens", true, 0, 1e16, true)) t.tokens = *v;
  } else {
    const std::string D = P + "/dataset";
    const auto ds = o.find("dataset");
    if (!r.expect_object(&*ds, D)) return;
    r.only_keys(*ds, D, {"samples", "avg_tokens", "epochs"});
    auto n = r.number(*ds, D, "samples", true, 0, 1e13, true);
    auto len = r.number(*ds, D, "avg_tokens", true, 0, 1e8, true);
    auto ep = r.number(*ds, D, "epochs", false, 0, 1e4, true);
    if (r.failed()) return;
    t.tokens = *n * *len * ep.value_or(1.0);
    if (t.tokens > 1e16) return r.fail(D, "dataset_too_large", "samples × avg_tokens × epochs exceeds 1e16 tokens");
    s.defaults_applied.push_back(coded("default_tokens_from_dataset",
                                       "training.tokens = {tokens} (dataset: samples × avg_tokens × epochs)",
                                       {{"tokens", std::to_string(static_cast<long long>(t.tokens))}}));
  }
}

// The global batch when none is given. Pre-training: about 4M tokens per step, Llama 2's
// batch (Touvron et al. 2023 §2.2). A fine-tune (training.stage other than pretrain, read
// here before read_choices checks it): 64 sequences, Llama 2's supervised fine-tuning
// (§3.1: "a batch size of 64 and sequence length of 4096 tokens"). Either is cut to the
// sequences training.tokens holds, so a small dataset gets one step of all of it rather
// than a refusal for a batch the reader never chose.
void default_batch(const json& o, Scenario& s) {
  Training& t = s.problem.training;
  const auto stage = o.find("stage");
  const bool finetune = stage != o.end() && stage->is_string() && stage->get<std::string>() != "pretrain";
  const double seq = static_cast<double>(t.seq_len);
  const int64_t preferred = finetune ? 64 : std::max<int64_t>(1, static_cast<int64_t>(std::llround(4194304.0 / seq)));
  const int64_t held = std::max<int64_t>(1, static_cast<int64_t>(std::floor(t.tokens / seq)));
  t.global_batch = std::min(preferred, held);
  struct Note {
    const char* code;
    const char* en;
  };
  static constexpr Note kNotes[] = {
      {"default_global_batch",
       "training.global_batch = {sequences} sequences (default: about 4M tokens per step, as Llama 2)"},
      {"default_global_batch_finetune",
       "training.global_batch = {sequences} sequences (default for a fine-tune, as Llama 2's SFT)"},
      {"default_global_batch_cut",
       "training.global_batch = {sequences} sequences (default, cut to what training.tokens holds)"}};
  const Note& n = kNotes[t.global_batch < preferred ? 2 : finetune ? 1 : 0];
  s.defaults_applied.push_back(coded(n.code, n.en, {{"sequences", std::to_string(t.global_batch)}}));
}

// seq_len and the global batch: fixed, in tokens, or a range the search picks from.
void read_batch(Reader& r, const json& o, const std::string& P, Scenario& s) {
  Training& t = s.problem.training;
  if (auto v = r.integer(o, P, "seq_len", true, 1, 100'000'000)) t.seq_len = *v;
  if (r.failed()) return;
  // A dataset's samples are cut at seq_len (LLaMA-Factory's cutoff_len, torchtune's
  // max_seq_len), so an average above it would count tokens the job never trains.
  if (const auto ds = o.find("dataset"); ds != o.end() && ds->contains("avg_tokens")) {
    if (const double avg = ds->at("avg_tokens").get<double>(); avg > static_cast<double>(t.seq_len))
      return r.fail(P + "/dataset/avg_tokens", "avg_tokens_over_seq_len",
                    "is longer than training.seq_len ({seq_len}), where samples are cut, got {got}",
                    {{"seq_len", std::to_string(t.seq_len)}, {"got", input::show(ds->at("avg_tokens"))}});
  }
  auto gb = r.integer(o, P, "global_batch", false, 1, 100'000'000);
  auto gbt = r.integer(o, P, "global_batch_tokens", false, 1, 1'000'000'000'000);
  if (r.failed()) return;
  if (o.contains("global_batch_range")) {
    if (gb || gbt)
      return r.fail(P + "/global_batch_range", "batch_range_or_fixed",
                    "give global_batch (or global_batch_tokens) or global_batch_range, not both");
    read_batch_range(r, o.at("global_batch_range"), P + "/global_batch_range", s);
    if (r.failed()) return;
  } else if (gbt) {
    if (*gbt % t.seq_len != 0)
      return r.fail(P + "/global_batch_tokens", "multiple_of_seq_len",
                    "must be a multiple of seq_len ({seq_len}), got {got}",
                    {{"seq_len", std::to_string(t.seq_len)}, {"got", std::to_string(*gbt)}});
    if (gb && *gb * t.seq_len != *gbt)
      return r.fail(P + "/global_batch_tokens", "batch_tokens_disagree",
                    "disagrees with global_batch × seq_len ({tokens}); give one of them",
                    {{"tokens", std::to_string(*gb * t.seq_len)}});
    t.global_batch = *gbt / t.seq_len;
  } else if (gb) {
    t.global_batch = *gb;
  } else {
    default_batch(o, s);
  }
  // A range's smallest batch must fit in the tokens; the search keeps its batches below them.
  const int64_t least = s.constraints.batch_max > 0 ? s.constraints.batch_min : t.global_batch;
  if (static_cast<double>(least) * static_cast<double>(t.seq_len) > t.tokens)
    return r.fail(P + "/tokens", "tokens_below_batch", "is smaller than one global batch ({tokens} tokens)",
                  {{"tokens", std::to_string(least * t.seq_len)}});
  if (s.constraints.batch_max > 0) {
    s.constraints.batch_max =
        std::min(s.constraints.batch_max, static_cast<int64_t>(t.tokens / static_cast<double>(t.seq_len)));
    t.global_batch = s.constraints.batch_max;  // until the search picks (answer.cpp)
  }
}

// The job's kernels and schedule: micro-batch, precision, optimizer, recompute, ZeRO,
// stage and the MoE / CP / CUDA-graph options.
void read_choices(Reader& r, const json& o, const std::string& P, Scenario& s) {
  Training& t = s.problem.training;
  if (auto v = r.integer(o, P, "micro_batch", false, 1, 1'000'000)) s.constraints.micro_batch = *v;
  // Each list in its enum's declared order (plan.hpp).
  if (int i = r.choice_index(o, P, "precision", {"bf16", "fp16", "fp8", "fp4"}); i >= 0) t.precision = Precision(i);
  if (int i = r.choice_index(o, P, "optimizer", {"adamw", "adam8bit", "sgd", "lion", "adafactor", "muon"}); i >= 0)
    t.optimizer = Optimizer(i);
  if (int i = r.choice_index(o, P, "recompute", {"none", "selective", "full"}); i >= 0)
    s.constraints.recompute = Recompute(i);
  if (auto v = r.integer(o, P, "zero_stage", false, 0, 3)) s.constraints.zero_stage = static_cast<int>(*v);
  if (int i = r.choice_index(o, P, "stage", {"pretrain", "full_finetune", "lora", "qlora"}); i >= 0) t.stage = Stage(i);
  if (auto v = r.boolean(o, P, "master_weights")) t.master_weights = *v;
  if (auto v = r.boolean(o, P, "overlap_moe_comm")) t.overlap_moe_comm = *v;
  if (auto v = r.boolean(o, P, "moe_permute_fusion")) t.moe_permute_fusion = *v;
  if (auto v = r.boolean(o, P, "torch_compile")) t.torch_compile = *v;
  if (auto v = r.boolean(o, P, "liger_kernel")) t.liger_kernel = *v;
  if (auto v = r.boolean(o, P, "overlap_tp_comm")) t.overlap_tp_comm = *v;
  if (int i = r.choice_index(o, P, "fp8_recipe", {"tensorwise", "delayed", "mxfp8"}); i >= 0)
    t.fp8_recipe = Fp8Recipe(i);
  if (int i = r.choice_index(o, P, "moe_dispatcher", {"alltoall", "deepep"}); i >= 0)
    t.moe_dispatcher = MoeDispatcher(i);
  if (int i = r.choice_index(o, P, "cp_comm", {"ring", "ulysses"}); i >= 0) t.cp_comm = CpComm(i);
  if (int i = r.choice_index(o, P, "cuda_graphs", {"none", "per_layer", "full_iteration"}); i >= 0)
    t.cuda_graphs = CudaGraphs(i + 1);  // after `unspecified`
}

// Megatron-Core's selective recompute modules (training.recompute_modules).
void read_recompute_modules(Reader& r, const json& o, const std::string& P, Scenario& s) {
  if (auto rm = o.find("recompute_modules"); rm != o.end() && !r.failed()) {
    const std::string T = P + "/recompute_modules";
    if (!rm->is_array() || rm->empty())
      return r.fail(T, "expected_recompute_modules",
                    "must be a non-empty array of Megatron-Core recompute modules (core_attn, moe_act, layernorm, "
                    "mla_up_proj, mlp, moe, shared_experts), got {got}",
                    {{"got", input::show(*rm)}});
    const auto got = read_name_set(r, *rm, T, kRecomputeModuleNames,
                                   {"unknown_recompute_module", "unknown recompute module {got} (known: {known})"},
                                   {nullptr, nullptr});
    if (!got) return;
    const unsigned bits = *got;
    const ModelShape& m = s.problem.model;
    if (!is_moe(m) &&
        (bits & (static_cast<unsigned>(RecomputeModule::moe_act) | static_cast<unsigned>(RecomputeModule::moe) |
                 static_cast<unsigned>(RecomputeModule::shared_experts))))
      return r.fail(T, "recompute_moe_only", "moe_act, moe and shared_experts apply to MoE models only");
    if (!is_mla(m) && (bits & static_cast<unsigned>(RecomputeModule::mla_up_proj)))
      return r.fail(T, "recompute_mla_only", "mla_up_proj applies to MLA attention only");
    if (s.constraints.recompute && *s.constraints.recompute != Recompute::selective)
      return r.fail(T, "recompute_modules_selective", "applies to recompute \"selective\", got recompute \"{got}\"",
                    {{"got", to_string(*s.constraints.recompute)}});
    s.constraints.recompute = Recompute::selective;
    s.constraints.recompute_modules = bits;
  }
}

// The framework and its switches.
void read_stack(Reader& r, const json& o, const std::string& P, Scenario& s) {
  Training& t = s.problem.training;
  if (auto v = r.boolean(o, P, "flash_attention")) t.flash_attention = *v;
  if (auto v = r.boolean(o, P, "sequence_parallel")) t.sequence_parallel = *v;
  if (int i = r.choice_index(o, P, "framework", {"megatron", "torchtitan", "deepspeed", "hf", "torchtune"}); i >= 0)
    t.framework = Framework(i);
  else if (t.stage == Stage::qlora) {
    // QLoRA's NF4 base is bitsandbytes', run under Transformers + PEFT: the QLoRA paper's
    // stack, TRL's and LLaMA-Factory's. Megatron's fused kernels would price it too fast.
    t.framework = Framework::hf;
    s.defaults_applied.push_back(coded("default_framework_qlora",
                                       "training.framework = \"hf\" (default for stage qlora: Transformers + PEFT + "
                                       "bitsandbytes, the stack of the QLoRA paper, TRL and LLaMA-Factory)"));
  }
  if (auto v = r.boolean(o, P, "optimizer_in_backward")) t.optimizer_in_backward = *v;
  if (auto v = r.boolean(o, P, "activation_offload")) t.activation_offload = *v;
  if (int i = r.choice_index(o, P, "grad_dtype", {"bf16", "fp32"}); i >= 0) t.grad_dtype_bytes = i ? 4 : 2;
  if (auto v = r.boolean(o, P, "overlap_grad_reduce")) t.overlap_grad_reduce = *v;
  if (auto v = r.boolean(o, P, "overlap_param_gather")) t.overlap_param_gather = *v;
  if (auto v = r.integer(o, P, "packed_document_tokens", false, 1, 100'000'000)) t.packed_document_tokens = *v;
}

// What one field allows depends on another: the cross-field rules of training.
void check_training(Reader& r, const json& o, const std::string& P, Scenario& s) {
  Training& t = s.problem.training;
  if (t.packed_document_tokens > t.seq_len)
    return r.fail(P + "/packed_document_tokens", "packed_document_too_long",
                  "must not exceed training.seq_len ({seq_len}): documents are packed into sequences, got {got}",
                  {{"seq_len", std::to_string(t.seq_len)}, {"got", std::to_string(t.packed_document_tokens)}});
  if (t.packed_document_tokens > 0 && !t.flash_attention)
    return r.fail(P + "/packed_document_tokens", "packed_documents_need_flash",
                  "needs flash_attention: per-document attention skips the masked blocks only in variable-length "
                  "kernels (a dense s×s attention computes the masked square in full)");
  // HybridEP's fused permutation is Megatron-Core's flex dispatcher's; elsewhere it would
  // drop permute traffic that the framework still spends.
  if (t.moe_permute_fusion && (t.moe_dispatcher != MoeDispatcher::deepep || t.framework != Framework::megatron))
    return r.fail(P + "/moe_permute_fusion", "moe_permute_fusion_dispatcher",
                  "is Megatron-Core's HybridEP: the flex dispatcher writes tokens in expert order; set framework "
                  "\"megatron\" and moe_dispatcher \"deepep\"");
  if (o.contains("fp8_recipe") && t.precision != Precision::fp8)
    return r.fail(P + "/fp8_recipe", "fp8_recipe_needs_fp8", "applies with precision \"fp8\" only");
  if (t.torch_compile && t.framework == Framework::megatron)
    return r.fail(
        P + "/torch_compile", "torch_compile_megatron",
        "applies to the PyTorch-native frameworks (torchtitan, …); Megatron fuses its element-wise kernels already");
  if (t.liger_kernel && t.framework == Framework::megatron)
    return r.fail(
        P + "/liger_kernel", "liger_kernel_megatron",
        "patches Hugging Face model code (hf, torchtune, …); Megatron fuses its element-wise kernels already");
  if (t.stage == Stage::qlora && quantised_gemms(t.precision))
    return r.fail(P + "/precision", "qlora_fp8",
                  "QLoRA computes in bf16 or fp16 on dequantised NF4 weights; fp8 does not apply");
  // NVFP4 training is Transformer Engine's NVFP4BlockScaling recipe, which Megatron-Core
  // (--fp4-format e2m1) runs; the PyTorch-native stacks have no FP4 training recipe.
  if (t.precision == Precision::fp4 && t.framework != Framework::megatron)
    return r.fail(P + "/precision", "fp4_megatron",
                  "fp4 (NVFP4) training is Transformer Engine's recipe, run by Megatron-Core; set framework "
                  "\"megatron\", got \"{got}\"",
                  {{"got", to_string(t.framework)}});
  if (t.precision == Precision::fp4 && is_adapter_stage(t))
    return r.fail(P + "/precision", "fp4_adapters",
                  "fp4 (NVFP4) applies to pre-training and full fine-tuning; LoRA adapters run in bf16 or fp8");
  if (is_adapter_stage(t) && t.framework == Framework::torchtitan)
    return r.fail(P + "/framework", "torchtitan_lora",
                  "torchtitan has no LoRA recipe; use the megatron profile (NeMo/Megatron-Bridge LoRA)");
  if (const auto lo = o.find("lora");
      lo != o.end() && lo->is_object() && lo->contains("fp32_upcast") && t.framework != Framework::hf)
    return r.fail(P + "/lora/fp32_upcast", "fp32_upcast_hf", "applies to framework \"hf\" (PEFT), got \"{got}\"",
                  {{"got", to_string(t.framework)}});
  if (t.optimizer_in_backward && t.framework != Framework::torchtune)
    return r.fail(P + "/optimizer_in_backward", "optimizer_in_backward_torchtune",
                  "is torchtune's optimizer_in_bwd; set framework \"torchtune\", got \"{got}\"",
                  {{"got", to_string(t.framework)}});
  if ((t.cuda_graphs == CudaGraphs::per_layer || t.cuda_graphs == CudaGraphs::full_iteration) &&
      t.framework != Framework::megatron)
    return r.fail(P + "/cuda_graphs", "cuda_graphs_megatron",
                  "is Megatron-Core's --cuda-graph-impl; set framework \"megatron\", got \"{got}\"",
                  {{"got", to_string(t.framework)}});
  if (t.activation_offload) {
    const std::string A = P + "/activation_offload";
    if (t.framework != Framework::torchtune && t.framework != Framework::hf)
      return r.fail(A, "activation_offload_framework",
                    "is torchtune's enable_activation_offloading or TRL's activation_offloading; set framework "
                    "\"torchtune\" or \"hf\", got \"{got}\"",
                    {{"got", to_string(t.framework)}});
    if (s.constraints.recompute && *s.constraints.recompute != Recompute::full)
      return r.fail(A, "activation_offload_recompute",
                    "offloads the checkpoints of recompute \"full\", got recompute \"{got}\"",
                    {{"got", to_string(*s.constraints.recompute)}});
    s.constraints.recompute = Recompute::full;
  }
  if (t.offload.params && s.constraints.zero_stage && *s.constraints.zero_stage < 3)
    return r.fail(P + "/offload/params", "offload_params_zero3",
                  "offloading parameters needs zero_stage 3 (ZeRO-Infinity), got {got}",
                  {{"got", std::to_string(*s.constraints.zero_stage)}});
  if (t.offload.optimizer && t.optimizer == Optimizer::muon)
    return r.fail(P + "/offload/optimizer", "muon_offload",
                  "cannot be used with optimizer \"muon\": no CPU Muon is modelled (Newton-Schulz runs as GPU "
                  "matmuls)");
  if (t.offload.optimizer && s.constraints.zero_stage && *s.constraints.zero_stage < 1)
    return r.fail(P + "/offload/optimizer", "offload_optimizer_zero1",
                  "offloading the optimizer needs zero_stage ≥ 1 (ZeRO-Offload), got 0");
  if (t.precision == Precision::fp8 && !s.problem.gpu.fp8_tflops.value)
    r.fail(P + "/precision", "no_fp8_peak",
           "fp8 needs an FP8 peak, which {gpu} does not have; set gpu.fp8_tflops or use bf16",
           {{"gpu", s.problem.gpu.name}});
  if (t.precision == Precision::fp4 && !s.problem.gpu.fp4_tflops.value)
    r.fail(P + "/precision", "no_fp4_peak",
           "fp4 needs an FP4 peak, which {gpu} does not have (FP4 tensor cores start with Blackwell); set "
           "gpu.fp4_tflops or use fp8",
           {{"gpu", s.problem.gpu.name}});
  if (t.precision == Precision::bf16 && !s.problem.gpu.bf16_tflops.value)
    r.fail(P + "/precision", "no_bf16_peak",
           "bf16 needs a BF16 peak, which {gpu} does not have (e.g. V100); use fp16 or set gpu.bf16_tflops",
           {{"gpu", s.problem.gpu.name}});
}

void read_training(Reader& r, const json& root, Scenario& s) {
  auto it = root.find("training");
  if (!r.expect_object(it == root.end() ? nullptr : &*it, "/training")) return;
  const json& o = *it;
  const std::string P = "/training";
  r.only_keys(o, P,
              {"tokens",
               "seq_len",
               "global_batch",
               "global_batch_tokens",
               "global_batch_range",
               "micro_batch",
               "precision",
               "optimizer",
               "recompute",
               "zero_stage",
               "stage",
               "flash_attention",
               "sequence_parallel",
               "framework",
               "grad_dtype",
               "overlap_grad_reduce",
               "overlap_param_gather",
               "master_weights",
               "lora",
               "offload",
               "overlap_moe_comm",
               "dataset",
               "recompute_modules",
               "moe_dispatcher",
               "moe_permute_fusion",
               "cp_comm",
               "cuda_graphs",
               "torch_compile",
               "liger_kernel",
               "fp8_recipe",
               "overlap_tp_comm",
               "optimizer_in_backward",
               "activation_offload",
               "packed_document_tokens"});
  read_tokens(r, o, P, s);
  if (r.failed()) return;
  read_batch(r, o, P, s);
  if (r.failed()) return;
  read_choices(r, o, P, s);
  if (r.failed()) return;
  read_recompute_modules(r, o, P, s);
  if (r.failed()) return;
  read_lora(r, o, P, s);
  read_offload(r, o, P, s);
  read_stack(r, o, P, s);
  if (r.failed()) return;
  check_training(r, o, P, s);
  if (!r.failed()) check_activation_layers(r, P, s);
}

// The product tp × pp × cp × dp of the fixed factors, for parallel and calibration.layout
// alike; above kMaxGpus it fails at the factor that passes it and gives nullopt. Each factor
// is at most kMaxGpus, so stopping once the product passes it keeps it within int64
// (tp 1e6 × pp 1e5 × cp 1e6 × dp 1e7 would not be).
std::optional<int64_t> gpu_product(Reader& r, const std::string& P, const Constraints& c) {
  int64_t fixed = 1;
  for (const auto& [v, key] :
       {std::pair{c.tp, "tp"}, std::pair{c.pp, "pp"}, std::pair{c.cp, "cp"}, std::pair{c.dp, "dp"}}) {
    fixed *= v.value_or(1);
    if (fixed > kMaxGpus) {
      r.fail(P + "/" + key, "too_many_gpus", "makes tp × pp × dp × cp exceed {max} GPUs, the most gpucalc sizes",
             {{"max", std::to_string(kMaxGpus)}});
      return std::nullopt;
    }
  }
  return fixed;
}

void read_parallel(Reader& r, const json& root, Scenario& s) {
  auto it = root.find("parallel");
  if (it == root.end()) return;
  if (!r.expect_object(&*it, "/parallel")) return;
  const json& o = *it;
  const std::string P = "/parallel";
  r.only_keys(o, P,
              {"gpus", "tp", "pp", "dp", "cp", "ep", "etp", "vpp", "first_stage_layers", "last_stage_layers", "shard"});
  Constraints& c = s.constraints;
  c.gpus = r.integer(o, P, "gpus", false, 1, kMaxGpus);
  c.tp = r.integer(o, P, "tp", false, 1, 1'000'000);
  c.pp = r.integer(o, P, "pp", false, 1, 100'000);
  if (s.problem.training.offload.activation_layers > 0 && !r.failed()) {
    if (c.pp && *c.pp > 1)
      return r.fail(P + "/pp", "offload_layers_pp",
                    "must be 1: Megatron-Core offloads activations without pipeline parallelism");
    c.pp = 1;
  }
  c.dp = r.integer(o, P, "dp", false, 1, kMaxGpus);
  c.cp = r.integer(o, P, "cp", false, 1, 1'000'000);
  c.ep = r.integer(o, P, "ep", false, 1, 1'000'000);
  c.etp = r.integer(o, P, "etp", false, 1, 1'000'000);
  c.vpp = r.integer(o, P, "vpp", false, 1, 1'000);
  c.shard = r.integer(o, P, "shard", false, 1, kMaxGpus);
  const auto first = r.integer(o, P, "first_stage_layers", false, 1, 1'000'000);
  const auto last = r.integer(o, P, "last_stage_layers", false, 1, 1'000'000);
  if (r.failed()) return;
  // An uneven split is a property of one pipeline depth: it needs pp fixed (the layout
  // check then words what does not add up).
  if ((first || last) && !c.pp)
    return r.fail(P + (first ? "/first_stage_layers" : "/last_stage_layers"), "uneven_split_needs_pp",
                  "needs parallel.pp fixed (the split is per pipeline depth)");
  c.first_stage_layers = first.value_or(0);
  c.last_stage_layers = last.value_or(0);
  const ModelShape& m = s.problem.model;
  const Training& t = s.problem.training;
  const auto str = [](int64_t v) { return std::to_string(v); };
  // Early, specific divisibility errors for what the scenario fixed.
  const auto bad = [&](const char* key, const char* code, std::string_view en, int64_t of, int64_t got) {
    r.fail(P + "/" + key, code, en, {{"of", str(of)}, {"got", str(got)}});
  };
  if (c.tp && m.heads % *c.tp != 0)
    return bad("tp", "tp_divide_heads", "must divide the model's attention heads ({of}), got {got}", m.heads, *c.tp);
  if (c.tp && m.kv_heads % *c.tp != 0)
    return bad("tp", "tp_divide_kv_heads", "must divide the model's KV heads ({of}), got {got}", m.kv_heads, *c.tp);
  if (c.pp && *c.pp > m.layers)
    return bad("pp", "pp_above_layers", "cannot exceed the model's layers ({of}), got {got}", m.layers, *c.pp);
  if (c.cp && *c.cp > 1 && t.seq_len % (2 * *c.cp) != 0)
    return r.fail(P + "/cp", "cp_divide_seq_len", "2 × cp ({twice_cp}) must divide seq_len ({seq_len})",
                  {{"twice_cp", str(2 * *c.cp)}, {"seq_len", str(t.seq_len)}});
  if (c.ep && *c.ep != 1 && !is_moe(m))
    return r.fail(P + "/ep", "ep_dense", "the model has no experts (dense); ep must be 1, got {got}",
                  {{"got", str(*c.ep)}});
  if (c.ep && is_moe(m) && m.moe.experts % *c.ep != 0)
    return bad("ep", "ep_divide_experts", "must divide the model's routed experts ({of}), got {got}", m.moe.experts,
               *c.ep);
  if (c.etp && !is_moe(m))
    return r.fail(P + "/etp", "etp_moe_only", "applies to MoE models only (expert tensor parallelism)");
  if (c.etp && c.tp && *c.tp % *c.etp != 0)
    return bad("etp", "etp_divide_tp", "must divide tp ({of}), got {got}", *c.tp, *c.etp);
  if (c.etp && is_moe(m) && m.moe.expert_ffn_hidden % *c.etp != 0)
    return bad("etp", "etp_divide_expert_ffn", "must divide the experts' expert_ffn_hidden ({of}), got {got}",
               m.moe.expert_ffn_hidden, *c.etp);
  if (c.shard && c.dp && *c.dp % *c.shard != 0)
    return bad("shard", "shard_divide_dp",
               "must divide dp ({of}): the sharding groups tile the data-parallel ranks, got {got}", *c.dp, *c.shard);
  if (c.dp && c.batch_max == 0 && t.global_batch % *c.dp != 0)
    return bad("dp", "dp_divide_batch", "must divide the global batch ({of} sequences), got {got}", t.global_batch,
               *c.dp);
  const std::optional<int64_t> product = gpu_product(r, P, c);
  if (!product) return;
  const int64_t fixed = *product;
  if (c.gpus) {
    const bool all = c.tp && c.pp && c.cp && c.dp;
    if (all && fixed != *c.gpus)
      return r.fail(P + "/gpus", "gpus_equal_product", "must equal tp × pp × dp × cp = {product}, got {got}",
                    {{"product", str(fixed)}, {"got", str(*c.gpus)}});
    if (*c.gpus % fixed != 0)
      return r.fail(P + "/gpus", "gpus_multiple_of_product",
                    "must be a multiple of the fixed tp × pp × dp × cp = {product}, got {got}",
                    {{"product", str(fixed)}, {"got", str(*c.gpus)}});
  } else if (c.tp && c.pp && c.dp) {
    c.gpus = fixed;  // everything given but the count: the count follows
  }
}

void read_target_assume(Reader& r, const json& root, Scenario& s) {
  if (auto it = root.find("target"); it != root.end()) {
    if (!r.expect_object(&*it, "/target")) return;
    r.only_keys(*it, "/target", {"days", "max_memory_fraction", "max_cost", "objective"});
    s.target_days = r.number(*it, "/target", "days", false, 0, 1e6, true);
    if (auto v = r.number(*it, "/target", "max_memory_fraction", false, 0, 1, true))
      s.problem.memory_limit_fraction = *v;
    s.max_cost = r.number(*it, "/target", "max_cost", false, 0, 1e15, true);
    if (int i = r.choice_index(*it, "/target", "objective", {"gpus", "cost", "days"}); i >= 0)
      s.objective = Objective(i);
  }
  if (auto it = root.find("assume"); it != root.end()) {
    if (!r.expect_object(&*it, "/assume")) return;
    const std::string P = "/assume";
    r.only_keys(*it, P, {"mfu", "hfu", "cuda_context_gib", "nccl_buffer_mib", "fragmentation", "cluster_efficiency"});
    s.problem.efficiency.mfu = r.number(*it, P, "mfu", false, 0, 1, true);
    s.problem.efficiency.hfu = r.number(*it, P, "hfu", false, 0, 1, true);
    if (s.problem.efficiency.mfu && s.problem.efficiency.hfu)
      r.fail(P + "/hfu", "mfu_or_hfu", "give assume.mfu or assume.hfu, not both");
    Overheads& ov = s.problem.overheads;
    if (auto v = r.number(*it, P, "cuda_context_gib", false, 0, 64, false)) ov.cuda_context_bytes = *v * 1073741824.0;
    if (auto v = r.number(*it, P, "nccl_buffer_mib", false, 0, 65536, false))
      ov.nccl_bytes_per_communicator = *v * 1048576.0;
    if (auto v = r.number(*it, P, "fragmentation", false, 0, 1, false)) ov.fragmentation = *v;
    if (auto v = r.number(*it, P, "cluster_efficiency", false, 0, 1, true)) {
      s.cluster_efficiency = *v;
      s.cluster_efficiency_default = false;
    }
  }
}

// One facility or grid figure, given at most once across /energy, /cost and /cost/owned.
void energy_field(Reader& r, const json& o, const std::string& P, const char* key, double lo, double hi, double& field,
                  bool& is_default, std::string& given_at) {
  auto v = r.number(o, P, key, false, lo, hi, false);
  if (!v) return;
  if (!given_at.empty())
    return r.fail(P + "/" + key, "given_twice", "is also given at {other}; give it once", {{"other", given_at}});
  field = *v;
  is_default = false;
  given_at = P + "/" + key;
}

// cost, energy and goodput (docs/scenario-format.md, docs/cost.md). Prices are resolved
// here: the scenario's, else the catalog's dated default for the GPU.
void read_cost_energy_goodput(Reader& r, const json& root, Scenario& s) {
  CostModel& cm = s.problem.cost;
  EnergyInputs& en = cm.energy;
  std::string host_at, pue_at, grid_at;
  // Ranges: host overhead 0-10× the GPUs' power; PUE 1 (no facility overhead) to 5; grid
  // intensity up to 3 kg/kWh (the dirtiest coal plants emit about 1.2).
  const auto facility = [&](const json& o, const std::string& P, bool grid) {
    energy_field(r, o, P, "host_overhead", 0, 10, en.host_overhead, en.host_overhead_default, host_at);
    energy_field(r, o, P, "pue", 1, 5, en.pue, en.pue_default, pue_at);
    if (grid) energy_field(r, o, P, "grid_kg_co2_per_kwh", 0, 3, en.grid_kg_co2_per_kwh, en.grid_default, grid_at);
  };
  if (auto it = root.find("energy"); it != root.end()) {
    if (!r.expect_object(&*it, "/energy")) return;
    r.only_keys(*it, "/energy", {"host_overhead", "pue", "grid_kg_co2_per_kwh"});
    facility(*it, "/energy", true);
  }
  std::optional<double> price, map_price;
  if (auto it = root.find("cost"); it != root.end() && !r.failed()) {
    const std::string P = "/cost";
    if (!r.expect_object(&*it, P)) return;
    const json& o = *it;
    r.only_keys(o, P,
                {"price_per_gpu_hour", "prices_per_gpu_hour", "currency", "usd_cny", "owned", "grid_kg_co2_per_kwh"});
    if (int i = r.choice_index(o, P, "currency", {"USD", "CNY"}); i >= 0) cm.currency = Currency(i);
    // CNY per USD; the yuan has traded between about 6 and 8.3 per dollar since 2005.
    if (auto v = r.number(o, P, "usd_cny", false, 0.1, 100, true)) cm.fx = FxRate{*v, "", "scenario", "user", true};
    price = r.number(o, P, "price_per_gpu_hour", false, 0, 1e6, true);
    // Per-accelerator prices, keyed by catalog id (for compare across accelerators, and
    // for the many China-market parts without a public price): the scenario's own GPU
    // (or its custom GPU's base) takes its entry.
    if (auto pm = o.find("prices_per_gpu_hour"); pm != o.end() && !r.failed()) {
      const std::string M = P + "/prices_per_gpu_hour";
      if (!r.expect_object(&*pm, M)) return;
      if (pm->empty()) return r.fail(M, "prices_empty", "must name at least one catalog GPU id with its price");
      const std::string& gid = s.problem.gpu.id;
      const std::string owner = gid.substr(0, gid.find('+'));
      for (const auto& [key, val] : pm->items()) {
        if (!find_gpu(key)) return fail_unknown(r, M + "/" + input::pointer_token(key), true, key);
        auto v = r.number(*pm, M, key.c_str(), true, 0, 1e6, true);
        if (r.failed()) return;
        if (key == owner) {
          if (price)
            return r.fail(M + "/" + input::pointer_token(key), "second_price",
                          "gives a second price for the scenario's GPU; cost.price_per_gpu_hour already sets it");
          map_price = *v;
        }
      }
    }
    energy_field(r, o, P, "grid_kg_co2_per_kwh", 0, 3, en.grid_kg_co2_per_kwh, en.grid_default, grid_at);
    if (auto ow = o.find("owned"); ow != o.end() && !r.failed()) {
      const std::string Q = P + "/owned";
      if (price || o.contains("prices_per_gpu_hour"))
        return r.fail(
            Q, "rented_or_owned",
            "give price_per_gpu_hour / prices_per_gpu_hour (rented GPUs) or owned (an owned cluster), not both");
      if (!r.expect_object(&*ow, Q)) return;
      r.only_keys(
          *ow, Q,
          {"purchase_price_per_gpu", "amortization_years", "host_overhead", "pue", "electricity_price_per_kwh"});
      OwnedCluster oc;
      if (auto v = r.number(*ow, Q, "purchase_price_per_gpu", true, 0, 1e9, true)) oc.purchase_price_per_gpu = *v;
      if (auto v = r.number(*ow, Q, "amortization_years", true, 0, 100, true)) oc.amortization_years = *v;
      if (auto v = r.number(*ow, Q, "electricity_price_per_kwh", true, 0, 1000, false))
        oc.electricity_price_per_kwh = *v;
      facility(*ow, Q, false);
      cm.mode = CostMode::owned;
      cm.owned = oc;
    }
  }
  if (r.failed()) return;
  const Gpu& g = s.problem.gpu;
  if (cm.mode == CostMode::rented) {
    if (price || map_price) {
      RentalPrice rp;
      rp.value = price ? *price : *map_price;
      rp.per_accelerator = !price;
      rp.currency = cm.currency.value_or(Currency::usd);
      rp.from_scenario = true;
      cm.rental = rp;
    } else {
      price_from_catalog(s);
    }
  } else if (!g.power_limit_w.value && !g.tdp_w.value) {
    cm.unpriced = coded(
        "owned_no_power",
        "gpu.tdp_w is unknown for {gpu}, so an owned cluster's electricity cannot be priced; set it in a gpu object",
        {{"gpu", g.name}});
  }

  if (auto it = root.find("goodput"); it != root.end()) {
    const std::string P = "/goodput";
    if (!r.expect_object(&*it, P)) return;
    const json& o = *it;
    GoodputInputs& gp = s.problem.goodput;
    r.only_keys(o, P,
                {"enabled", "mtbf_hours", "interruptions_per_day", "checkpoint_interval_minutes",
                 "checkpoint_write_seconds", "restart_minutes"});
    if (auto v = r.boolean(o, P, "enabled")) gp.enabled = *v;
    const auto mtbf = r.number(o, P, "mtbf_hours", false, 0, 1e9, true);
    gp.interruptions_per_day = r.number(o, P, "interruptions_per_day", false, 0, 1e5, true);
    if (mtbf && gp.interruptions_per_day)
      return r.fail(P + "/interruptions_per_day", "mtbf_or_interruptions",
                    "give mtbf_hours (per GPU) or interruptions_per_day (the whole job), not both");
    if (mtbf) gp.mtbf_hours = *mtbf;
    gp.mtbf_default = !mtbf && !gp.interruptions_per_day;
    gp.checkpoint_interval_minutes = r.number(o, P, "checkpoint_interval_minutes", false, 0, 1e6, true);
    if (auto v = r.number(o, P, "checkpoint_write_seconds", false, 0, 1e5, false)) {
      gp.checkpoint_write_seconds = *v;
      gp.write_default = false;
    }
    if (auto v = r.number(o, P, "restart_minutes", false, 0, 1e5, false)) {
      gp.restart_minutes = *v;
      gp.restart_default = false;
    }
  }
}

// calibration.layout: the layout a step time was measured on, each choice the scenario's
// own layout would have to fix (calibration_layout_gap).
void read_calibration_layout(Reader& r, const json& o, const std::string& P, Scenario& s, Calibration cal) {
  if (!r.expect_object(&o, P)) return;
  r.only_keys(o, P, {"tp", "pp", "dp", "cp", "vpp", "ep", "micro_batch", "global_batch", "zero_stage", "recompute"});
  Constraints c;
  c.tp = r.integer(o, P, "tp", false, 1, 1 << 20);
  c.pp = r.integer(o, P, "pp", false, 1, 1 << 20);
  c.dp = r.integer(o, P, "dp", false, 1, 1 << 24);
  c.cp = r.integer(o, P, "cp", false, 1, 1 << 20);
  if (!gpu_product(r, P, c)) return;  // as parallel
  c.vpp = r.integer(o, P, "vpp", false, 1, 1 << 20);
  c.ep = r.integer(o, P, "ep", false, 1, 1 << 20);
  c.micro_batch = r.integer(o, P, "micro_batch", false, 1, 1 << 20);
  cal.global_batch = r.integer(o, P, "global_batch", false, 1, 1LL << 40);
  if (auto v = r.integer(o, P, "zero_stage", false, 0, 3)) c.zero_stage = static_cast<int>(*v);
  if (int i = r.choice_index(o, P, "recompute", {"none", "selective", "full"}); i >= 0) c.recompute = Recompute(i);
  if (r.failed()) return;
  // Megatron-Core's CPU offloading runs on one stage: the measured layout's too
  // (check_activation_layers), and without recomputation.
  if (s.problem.training.offload.activation_layers > 0) {
    if (c.pp && *c.pp > 1)
      return r.fail(P + "/pp", "offload_layers_pp",
                    "must be 1: Megatron-Core offloads activations without pipeline parallelism");
    if (c.recompute && *c.recompute != Recompute::none)
      return r.fail(P + "/recompute", "offload_layers_recompute",
                    "cannot be combined with recomputation (Megatron-Core)");
  }
  if (cal.peak_memory_gib)
    return r.fail(P, "calibration_memory_own_layout",
                  "a measured peak memory applies to the scenario's own layout; give it without calibration.layout");
  if (c.pp && *c.pp == 1 && !c.vpp) c.vpp = 1;
  if (c.ep == std::nullopt && !is_moe(s.problem.model)) c.ep = 1;
  Scenario probe = s;
  probe.constraints = c;
  if (auto gap = calibration_layout_gap(probe, true))
    return r.fail(P, "calibration_layout_incomplete",
                  "is missing {field}: a measured step time belongs to one layout (give tp, pp, dp, cp, vpp when pp > "
                  "1, ep with experts, micro_batch, zero_stage, recompute)",
                  {{"field", gap->substr(gap->find('.') + 1)}});
  c.gpus = *c.tp * *c.pp * *c.dp * *c.cp;
  cal.layout = c;
  s.calibration = cal;
}

// calibration (docs/scenario-format.md): a step time or peak memory measured on the
// scenario's own layout, which must be fixed; evaluate() scales by measured / predicted
// (core/src/uncertainty.cpp). Read after parallel and training.
void read_calibration(Reader& r, const json& root, Scenario& s) {
  auto it = root.find("calibration");
  if (it == root.end()) return;
  const std::string P = "/calibration";
  if (!r.expect_object(&*it, P)) return;
  r.only_keys(*it, P, {"measured_step_time_s", "measured_peak_memory_gib", "layout"});
  Calibration cal;
  cal.step_time_s = r.number(*it, P, "measured_step_time_s", false, 0, 1e6, true);
  cal.peak_memory_gib = r.number(*it, P, "measured_peak_memory_gib", false, 0, 1e6, true);
  if (r.failed()) return;
  if (it->contains("layout")) return read_calibration_layout(r, (*it)["layout"], P + "/layout", s, cal);
  if (!cal.step_time_s && !cal.peak_memory_gib)
    return r.fail(P, "calibration_empty", "give measured_step_time_s, measured_peak_memory_gib or both");
  const double cap = capacity_bytes(s.problem.gpu);
  if (cal.peak_memory_gib && *cal.peak_memory_gib * 1073741824.0 > cap) {
    return r.fail(P + "/measured_peak_memory_gib", "measured_peak_above_capacity",
                  "{measured} GiB exceeds the {capacity} GiB of {gpu}; a measured peak fits in device memory",
                  {{"measured", format_general(*cal.peak_memory_gib, 4)},
                   {"capacity", format_general(cap / 1073741824.0, 4)},
                   {"gpu", s.problem.gpu.name}});
  }
  const auto tr = root.find("training");
  const bool batch = tr != root.end() && (tr->contains("global_batch") || tr->contains("global_batch_tokens"));
  if (auto gap = calibration_layout_gap(s, batch))
    return r.fail(P, "calibration_needs_layout",
                  "applies to the one layout it was measured on, so the scenario must fix it: set {field} "
                  "(calibration needs parallel.tp, pp, dp, cp, vpp when pp > 1, ep with experts, and "
                  "training.global_batch, micro_batch, zero_stage, recompute)",
                  {{"field", *gap}});
  s.calibration = cal;
}

}  // namespace

Expected<Scenario> parse_scenario(std::string_view text) {
  auto doc = input::parse_document(text);
  if (!doc) return doc.error();
  const json& root = *doc;
  Reader r;
  if (!root.is_object())
    return coded_error("", "scenario_not_object", "the scenario must be a JSON object, got {got}",
                       {{"got", input::show(root)}});
  r.only_keys(root, "",
              {"version", "name", "description", "model", "gpu", "training", "parallel", "target", "assume", "cost",
               "energy", "goodput", "calibration"});
  if (auto v = r.integer(root, "", "version", false, 1, 1'000'000); v && *v != 1)
    r.fail("/version", "unsupported_version", "this gpucalc reads scenario format version 1, got {got}",
           {{"got", std::to_string(*v)}});
  r.text(root, "", "name", 200);
  r.text(root, "", "description", 4000);
  Scenario s;
  if (!r.failed()) read_model(r, root, s.problem.model, s.warnings);
  if (!r.failed()) read_gpu(r, root, s.problem.gpu);
  if (!r.failed()) s.problem.perf = perf_profile_for(s.problem.gpu.id);
  if (!r.failed()) read_training(r, root, s);
  if (!r.failed()) read_parallel(r, root, s);
  if (!r.failed()) read_target_assume(r, root, s);
  if (!r.failed()) read_cost_energy_goodput(r, root, s);
  if (!r.failed()) read_calibration(r, root, s);
  if (r.failed()) return r.error();
  if (auto e = check_cost_target(s)) return *e;
  return s;
}

void price_from_catalog(Scenario& s) {
  CostModel& cm = s.problem.cost;
  const Gpu& g = s.problem.gpu;
  cm.unpriced = Message{};
  cm.rental = default_rental_price(g, cm.currency, cm.fx);
  if (cm.rental) return;
  cm.unpriced =
      coded("price_unknown", "no public rental price for {gpu} in data/gpus.json; set cost.price_per_gpu_hour",
            {{"gpu", g.name}, {"gpu_id", g.id}});
}

const char* to_string(BatchRule r) {
  switch (r) {
    case BatchRule::range: return "range";
    case BatchRule::critical: return "critical";
    default: return "fixed";
  }
}

bool cost_priced(const Scenario& s) {
  const CostModel& cm = s.problem.cost;
  if (cm.mode == CostMode::rented) return cm.rental.has_value();
  return cm.owned.has_value() && (s.problem.gpu.power_limit_w.value || s.problem.gpu.tdp_w.value);
}

std::optional<Error> check_cost_target(const Scenario& s) {
  if (!s.max_cost || cost_priced(s)) return std::nullopt;
  return wrapping_error("/target/max_cost", "max_cost_unpriced", "needs a priced run, but {reason}",
                        s.problem.cost.unpriced);
}

}  // namespace gpucalc
