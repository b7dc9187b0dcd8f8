#include "gpucalc/perf.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "embedded.hpp"
#include "json_input.hpp"

namespace gpucalc {
namespace {

using json = nlohmann::ordered_json;

const json& doc() {
  static const json d = [] {
    json j = input::embedded_document(data::perf_json());
    return j.is_object() ? j : json::object();
  }();
  return d;
}

Curve curve_from(const json& j, const char* xkey, const char* ykey = "fraction") {
  Curve c;
  if (!j.is_object()) return c;
  auto xs = j.find(xkey);
  auto ys = j.find(ykey);
  if (xs == j.end() || ys == j.end() || !xs->is_array() || !ys->is_array() || xs->size() != ys->size()) return c;
  for (size_t i = 0; i < xs->size(); ++i) {
    if (!(*xs)[i].is_number() || !(*ys)[i].is_number()) return Curve{};
    c.x.push_back((*xs)[i].get<double>());
    c.y.push_back((*ys)[i].get<double>());
  }
  if (auto s = j.find("source"); s != j.end() && s->is_string()) c.source = s->get<std::string>();
  return c;
}

bool fill(Spec& s, const json& profile, const char* key) {
  auto it = profile.find(key);
  if (it == profile.end() || !it->is_object()) return false;
  auto v = it->find("value");
  if (v == it->end() || !v->is_number()) return false;
  s.value = v->get<double>();
  s.source = it->value("source", "");
  s.confidence = it->value("confidence", "low");
  return true;
}

}  // namespace

double Curve::at(double v) const {
  if (x.empty()) return 1.0;
  if (v <= x.front()) return y.front();
  for (size_t i = 1; i < x.size(); ++i) {
    if (v <= x[i]) {
      const double f = (v - x[i - 1]) / (x[i] - x[i - 1]);
      return y[i - 1] + f * (y[i] - y[i - 1]);
    }
  }
  return y.back();
}

const PerfData& perf_data() {
  static const PerfData d = [] {
    PerfData p;
    const json& j = doc();
    if (auto it = j.find("matmul_size_rolloff"); it != j.end()) p.matmul_rolloff = curve_from(*it, "gflop");
    if (auto it = j.find("memory_size_rolloff"); it != j.end()) p.memory_rolloff = curve_from(*it, "mb");
    if (auto it = j.find("gemm_tile"); it != j.end() && it->is_object()) {
      if (auto m = it->find("m"); m != it->end() && m->is_number()) p.tile_m = m->get<double>();
      if (auto n = it->find("n"); n != it->end() && n->is_number()) p.tile_n = n->get<double>();
    }
    if (auto it = j.find("nccl_latency"); it != j.end() && it->is_object()) {
      const auto num = [&](const char* group, const char* key, double& out) {
        auto g = it->find(group);
        if (g == it->end() || !g->is_object()) return;
        if (auto v = g->find(key); v != g->end() && v->is_number()) out = v->get<double>();
      };
      num("base_us", "ring", p.nccl.ring_base_us);
      num("base_us", "tree", p.nccl.tree_base_us);
      num("ring_hop_us", "scaleup", p.nccl.ring_hop_up_us);
      num("ring_hop_us", "scaleout", p.nccl.ring_hop_out_us);
      num("tree_hop_us", "scaleup", p.nccl.tree_hop_up_us);
      num("tree_hop_us", "scaleout", p.nccl.tree_hop_out_us);
    }
    if (auto it = j.find("moe_layer_overhead"); it != j.end() && it->is_object())
      if (auto v = it->find("value_ms"); v != it->end() && v->is_object()) {
        const char* modes[4] = {"unspecified", "none", "per_layer", "full_iteration"};
        for (int i = 0; i < 4; ++i)
          if (auto x = v->find(modes[i]); x != v->end() && x->is_number())
            p.moe_layer_overhead_s[i] = x->get<double>() / 1e3;
        if (auto x = v->find("per_local_expert"); x != v->end() && x->is_number())
          p.moe_local_expert_overhead_s = x->get<double>() / 1e3;
      }
    if (auto it = j.find("overlap_slowdown"); it != j.end() && it->is_object())
      if (auto v = it->find("value"); v != it->end() && v->is_number()) p.overlap_slowdown = v->get<double>();
    if (auto it = j.find("async_tp_hidden"); it != j.end() && it->is_object())
      if (auto v = it->find("value"); v != it->end() && v->is_number()) p.async_tp_hidden = v->get<double>();
    if (auto it = j.find("attention_head_dim"); it != j.end() && it->is_object()) {
      const json none = json::object();
      const json& fused = it->contains("fused") ? (*it)["fused"] : none;
      const json& fa2 = it->contains("fa2") ? (*it)["fa2"] : none;
      p.att_hd_fused_fwd = curve_from(fused, "head_dim", "fwd");
      p.att_hd_fused_bwd = curve_from(fused, "head_dim", "bwd");
      p.att_hd_fa2_fwd = curve_from(fa2, "head_dim", "fwd");
      p.att_hd_fa2_bwd = curve_from(fa2, "head_dim", "bwd");
    }
    if (auto it = j.find("attention_tiles"); it != j.end() && it->is_object()) {
      const auto num = [&](const json& o, const char* key, double& out) {
        if (auto v = o.find(key); v != o.end() && v->is_number()) out = v->get<double>();
      };
      num(*it, "keys_per_tile", p.att_tile_keys);
      num(*it, "reference_span", p.att_span_ref);
      if (auto f = it->find("fixed_tiles"); f != it->end() && f->is_object()) {
        num(*f, "fwd", p.att_fixed_tiles_fwd);
        num(*f, "bwd", p.att_fixed_tiles_bwd);
      }
    }
    return p;
  }();
  return d;
}

double attention_span_speed(const PerfData& d, double span, double ref, bool windowed, bool backward) {
  const double c0 = backward ? d.att_fixed_tiles_bwd : d.att_fixed_tiles_fwd;
  if (c0 <= 0 || span <= 0 || ref <= 0 || d.att_tile_keys <= 0) return 1.0;
  const auto e = [&](double s, double delta) {
    const double u = s / (2 * d.att_tile_keys);
    return u / (c0 + u + delta);
  };
  // Past the reference the measured rates stay within -8% to +7% of it (32K against 8K;
  // GB200's backward falls): no gain is taken there.
  return std::min(1.0, e(span, windowed ? 1.0 : 0.5) / e(ref, 0.5));
}

PerfProfile perf_profile_for(const std::string& gpu_id) {
  const json& j = doc();
  std::string id = gpu_id;
  if (auto plus = id.find('+'); plus != std::string::npos) id = id.substr(0, plus);
  const json empty = json::object();
  const json& profiles = j.contains("profiles") && j["profiles"].is_object() ? j["profiles"] : empty;
  std::string key = id;
  if (!profiles.contains(key)) {
    if (auto a = j.find("aliases"); a != j.end() && a->is_object() && a->contains(id) && (*a)[id].is_string())
      key = (*a)[id].get<std::string>();
  }
  const json& own = profiles.contains(key) && profiles[key].is_object() ? profiles[key] : empty;
  const json& def = profiles.contains("default") && profiles["default"].is_object() ? profiles["default"] : empty;
  PerfProfile p;
  p.profile_id = own.empty() ? "default" : key;
  p.measured = !own.empty();  // the default profile is assumed, not measured
  if (auto m = own.find("measured"); m != own.end() && m->is_boolean()) p.measured = m->get<bool>();
  const auto take = [&](Spec& s, const char* k) {
    if (!fill(s, own, k)) fill(s, def, k);
  };
  take(p.matmul, "matmul");
  take(p.fp8_matmul, "fp8_matmul");
  take(p.fp4_matmul, "fp4_matmul");
  take(p.sustained_clock, "sustained_clock");
  take(p.sm_count, "sm_count");
  take(p.attention_fwd, "attention_fwd");
  take(p.attention_bwd, "attention_bwd");
  take(p.attention_fa2, "attention_fa2");
  take(p.attention_span, "attention_span");
  take(p.memory, "memory");
  take(p.scaleup, "scaleup");
  take(p.scaleout, "scaleout");
  // A measured sibling stands in for this GPU: say so in the confidence.
  if (key != id && !own.empty()) {
    for (Spec* s : {&p.matmul, &p.fp8_matmul, &p.fp4_matmul, &p.attention_fwd, &p.attention_bwd})
      if (s->confidence == "high") s->confidence = "medium";
  }
  return p;
}

}  // namespace gpucalc
