// Loads the embedded catalogs (data/gpus.json, data/models.json) once. The data
// is ours and checked by tests, so a malformed entry is a build defect: it is
// skipped rather than crashing, and the catalog tests catch it.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "embedded.hpp"
#include "gpucalc/hardware.hpp"
#include "gpucalc/model.hpp"
#include "json_input.hpp"

namespace gpucalc {
namespace {

using json = nlohmann::ordered_json;

Spec spec_from(const json& j, const char* key) {
  Spec s;
  auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return s;
  auto v = it->find("value");
  if (v != it->end() && v->is_number()) s.value = v->get<double>();
  auto src = it->find("source");
  if (src != it->end() && src->is_string()) s.source = src->get<std::string>();
  auto c = it->find("confidence");
  s.confidence = (c != it->end() && c->is_string()) ? c->get<std::string>() : "low";
  return s;
}

std::string str_or(const json& j, const char* key, const char* fallback) {
  auto it = j.find(key);
  return (it != j.end() && it->is_string()) ? it->get<std::string>() : std::string(fallback);
}

int64_t int_or(const json& j, const char* key, int64_t fallback) {
  auto it = j.find(key);
  return (it != j.end() && it->is_number_integer()) ? it->get<int64_t>() : fallback;
}

bool bool_or(const json& j, const char* key, bool fallback) {
  auto it = j.find(key);
  return (it != j.end() && it->is_boolean()) ? it->get<bool>() : fallback;
}

std::optional<double> number_or_empty(const json& j) {
  if (j.is_number()) return j.get<double>();
  return std::nullopt;
}

// `prices` entries: value is a number, a [low, high] range, or null (known to exist only).
std::vector<Price> prices_from(const json& e) {
  std::vector<Price> out;
  auto list = e.find("prices");
  if (list == e.end() || !list->is_array()) return out;
  for (const auto& p : *list) {
    if (!p.is_object()) continue;
    Price x;
    if (auto v = p.find("value"); v != p.end()) {
      if (v->is_array() && v->size() == 2) {
        x.value = number_or_empty((*v)[0]);
        x.value_max = number_or_empty((*v)[1]);
      } else {
        x.value = number_or_empty(*v);
      }
    }
    x.currency = str_or(p, "currency", "");
    x.unit = str_or(p, "unit", "");
    x.type = str_or(p, "type", "");
    x.region = str_or(p, "region", "");
    x.date = str_or(p, "date", "");
    x.source = str_or(p, "source", "");
    x.confidence = str_or(p, "confidence", "low");
    x.note = str_or(p, "note", "");
    out.push_back(std::move(x));
  }
  return out;
}

FfnAct ffn_act_from(const std::string& s) {
  if (s == "gelu") return FfnAct::gelu;
  if (s == "geglu") return FfnAct::geglu;
  if (s == "swiglu_clamped") return FfnAct::swiglu_clamped;
  return FfnAct::swiglu;
}

PositionEmbedding position_from(const std::string& s) {
  if (s == "learned") return PositionEmbedding::learned;
  if (s == "alibi") return PositionEmbedding::alibi;
  return PositionEmbedding::rope;
}

struct GpuCatalog {
  std::vector<Gpu> gpus;
  json sources;
};

const GpuCatalog& gpu_data() {
  static const GpuCatalog cat = [] {
    GpuCatalog c;
    json doc = input::embedded_document(data::gpus_json());
    if (!doc.is_object()) return c;
    if (auto s = doc.find("sources"); s != doc.end() && s->is_object()) c.sources = *s;
    auto list = doc.find("gpus");
    if (list == doc.end() || !list->is_array()) return c;
    for (const auto& e : *list) {
      if (!e.is_object()) continue;
      Gpu g;
      g.id = str_or(e, "id", "");
      g.name = str_or(e, "name", "");
      g.memory_gib = spec_from(e, "memory_gib");
      g.bf16_tflops = spec_from(e, "bf16_tflops");
      g.fp16_tflops = spec_from(e, "fp16_tflops");
      g.fp8_tflops = spec_from(e, "fp8_tflops");
      g.fp4_tflops = spec_from(e, "fp4_tflops");
      g.memory_bw_tbs = spec_from(e, "memory_bw_tbs");
      g.scaleup_gbs = spec_from(e, "scaleup_gbs");
      g.scaleup_domain = spec_from(e, "scaleup_domain");
      g.scaleout_gbps = spec_from(e, "scaleout_gbps");
      g.tdp_w = spec_from(e, "tdp_w");
      g.host_link_gbs = spec_from(e, "host_link_gbs");
      g.vendor = str_or(e, "vendor", "");
      g.arch = str_or(e, "arch", "");
      g.notes = str_or(e, "notes", "");
      g.least_sure = str_or(e, "least_sure", "");
      g.export_control = str_or(e, "export_control", "");
      g.prices = prices_from(e);
      if (!g.id.empty()) c.gpus.push_back(std::move(g));
    }
    return c;
  }();
  return cat;
}

}  // namespace

const std::vector<Gpu>& gpu_catalog() { return gpu_data().gpus; }

std::vector<std::string> missing_specs(const Gpu& g) {
  std::vector<std::string> out;
  const auto need = [&](const char* name, const Spec& s) {
    if (!s.value) out.emplace_back(name);
  };
  need("memory_gib", g.memory_gib);
  need("bf16_tflops", g.bf16_tflops.value ? g.bf16_tflops : g.fp16_tflops);
  need("memory_bw_tbs", g.memory_bw_tbs);
  need("scaleup_gbs", g.scaleup_gbs);
  need("scaleup_domain", g.scaleup_domain);
  need("scaleout_gbps", g.scaleout_gbps);
  need("tdp_w", g.tdp_w);
  return out;
}

const Gpu* find_gpu(const std::string& id) {
  for (const auto& g : gpu_catalog())
    if (g.id == id) return &g;
  return nullptr;
}

std::string gpu_source_citation(const std::string& key) {
  const auto& s = gpu_data().sources;
  auto it = s.find(key);
  return (it != s.end() && it->is_string()) ? it->get<std::string>() : key;
}

const std::vector<ModelShape>& model_presets() {
  static const std::vector<ModelShape> presets = [] {
    std::vector<ModelShape> out;
    json doc = input::embedded_document(data::models_json());
    if (!doc.is_object() || !doc.contains("models") || !doc["models"].is_array()) return out;
    for (const auto& e : doc["models"]) {
      if (!e.is_object()) continue;
      ModelShape m;
      m.id = str_or(e, "id", "");
      m.name = str_or(e, "name", "");
      m.layers = int_or(e, "layers", 0);
      m.hidden = int_or(e, "hidden", 0);
      m.heads = int_or(e, "heads", 0);
      m.kv_heads = int_or(e, "kv_heads", m.heads);
      m.head_dim = int_or(e, "head_dim", 0);
      m.ffn_hidden = int_or(e, "ffn_hidden", 0);
      m.vocab = int_or(e, "vocab", 0);
      m.ffn_act = ffn_act_from(str_or(e, "ffn_act", "swiglu"));
      m.norm = str_or(e, "norm", "rmsnorm") == "layernorm" ? Norm::layernorm : Norm::rmsnorm;
      m.tied_embeddings = bool_or(e, "tied_embeddings", false);
      m.qkv_bias = bool_or(e, "qkv_bias", false);
      m.linear_bias = bool_or(e, "linear_bias", false);
      m.norms_per_layer = int_or(e, "norms_per_layer", 2);
      m.mtp_layers = int_or(e, "mtp_layers", 0);
      m.qk_norm = bool_or(e, "qk_norm", false);
      m.position = position_from(str_or(e, "position_embedding", "rope"));
      m.dropout = bool_or(e, "dropout", false);
      m.max_position_embeddings = int_or(e, "max_position_embeddings", 0);
      if (auto it = e.find("rope_attention_factor"); it != e.end() && it->is_number())
        m.rope_attention_factor = it->get<double>();
      m.sliding_window = int_or(e, "sliding_window", 0);
      m.sliding_window_layers = int_or(e, "sliding_window_layers", m.sliding_window > 0 ? m.layers : 0);
      if (auto it = e.find("moe"); it != e.end() && it->is_object()) {
        const json& x = *it;
        m.moe.experts = int_or(x, "experts", 0);
        m.moe.top_k = int_or(x, "top_k", 0);
        m.moe.expert_ffn_hidden = int_or(x, "expert_ffn_hidden", 0);
        m.moe.shared_experts = int_or(x, "shared_experts", 0);
        m.moe.shared_expert_ffn_hidden = int_or(x, "shared_expert_ffn_hidden", 0);
        m.moe.shared_expert_gate = bool_or(x, "shared_expert_gate", false);
        m.moe.first_dense_layers = int_or(x, "first_dense_layers", 0);
        m.moe.router_bias = bool_or(x, "router_bias", false);
        m.moe.groups = int_or(x, "groups", 0);
        m.moe.group_topk = int_or(x, "group_topk", 0);
      }
      if (auto it = e.find("attention"); it != e.end() && it->is_object() && str_or(*it, "type", "") == "mla") {
        const json& x = *it;
        m.attention = AttentionType::mla;
        m.mla.q_lora_rank = int_or(x, "q_lora_rank", 0);
        m.mla.kv_lora_rank = int_or(x, "kv_lora_rank", 0);
        m.mla.qk_nope_head_dim = int_or(x, "qk_nope_head_dim", 0);
        m.mla.qk_rope_head_dim = int_or(x, "qk_rope_head_dim", 0);
        m.mla.v_head_dim = int_or(x, "v_head_dim", 0);
      }
      m.published_active_params = int_or(e, "published_active_params", 0);
      m.published_active_tolerance = int_or(e, "published_active_params_tolerance", 0);
      m.active_params_include_input_embedding = bool_or(e, "active_params_include_input_embedding", true);
      m.published_params = int_or(e, "published_params", 0);
      m.published_params_tolerance = int_or(e, "published_params_tolerance", 0);
      m.source = str_or(e, "source", "");
      if (!m.id.empty()) out.push_back(std::move(m));
    }
    return out;
  }();
  return presets;
}

const ModelShape* find_model(const std::string& id) {
  for (const auto& m : model_presets())
    if (m.id == id) return &m;
  return nullptr;
}

}  // namespace gpucalc
