// Properties that must hold for every input, checked over seeded random scenarios
// (presets × GPUs × sequence lengths × batches × layouts) rather than pinned examples:
// more DP never raises memory per GPU, every number is finite, the search never picks a
// layout over its memory limit when one fits, days scale with 1/throughput, and no
// valid scenario crashes or answers with a non-finite or non-positive headline number.
// The seed is fixed, so a failure reproduces; INFO names the scenario.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpucalc/api.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/search.hpp"

using namespace gpucalc;
using json = nlohmann::ordered_json;

namespace {

class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed) {}
  // Uniform in [0, n).
  size_t below(size_t n) { return static_cast<size_t>(g_() % n); }
  bool chance(double p) { return static_cast<double>(g_() % 1'000'000) < p * 1e6; }
  template <class T>
  T pick(std::initializer_list<T> xs) {
    return *(xs.begin() + static_cast<std::ptrdiff_t>(below(xs.size())));
  }
  template <class T>
  const T& pick(const std::vector<T>& xs) {
    return xs[below(xs.size())];
  }

 private:
  std::mt19937_64 g_;
};

std::vector<int64_t> divisors_upto(int64_t n, int64_t cap) {
  std::vector<int64_t> out;
  for (int64_t i = 1; i <= n && i <= cap; ++i)
    if (n % i == 0) out.push_back(i);
  return out;
}

// Catalog GPUs the scenario can use as they are (memory and a 16-bit peak known).
std::vector<std::string> usable_gpus() {
  std::vector<std::string> ids;
  for (const auto& g : gpu_catalog())
    if (g.memory_gib.value && (g.bf16_tflops.value || g.fp16_tflops.value)) ids.push_back(g.id);
  return ids;
}

// TP must divide the heads, the KV heads and the FFN width.
int64_t tp_gcd(const ModelShape& m) { return std::gcd(std::gcd(m.heads, m.kv_heads), m.ffn_hidden); }

std::vector<std::string> preset_ids() {
  std::vector<std::string> ids;
  for (const auto& m : model_presets()) ids.push_back(m.id);
  return ids;
}

// A random, well-formed scenario. `mode` 0: a fully fixed layout (one evaluation);
// 1: a fixed GPU count; 2: open, with a deadline. Some combinations are invalid on
// purpose (fp8 on a GPU without an FP8 peak, a layout the batch cannot split): those
// must be refused cleanly, not crash.
json random_scenario(Rng& r, int mode) {
  const std::string model_id = r.pick(preset_ids());
  const ModelShape& m = *find_model(model_id);
  json s;
  s["model"] = model_id;
  s["gpu"] = r.pick(usable_gpus());
  const int64_t seq = r.pick<int64_t>({512, 1024, 2048, 4096, 8192, 16384, 32768, 131072});
  const int64_t batch_tokens = r.pick<int64_t>({1 << 20, 1 << 21, 1 << 22, 1 << 24});
  const int64_t gb = std::max<int64_t>(1, batch_tokens / seq);
  json& t = s["training"];
  t["tokens"] = r.pick({1e11, 1e12, 1.5e13});
  t["seq_len"] = seq;
  t["global_batch"] = gb;
  if (r.chance(0.3)) t["precision"] = r.pick<const char*>({"bf16", "fp16", "fp8", "fp4"});
  if (r.chance(0.3)) t["framework"] = r.pick<const char*>({"megatron", "torchtitan"});
  if (r.chance(0.2)) t["flash_attention"] = r.chance(0.5);
  if (r.chance(0.2)) t["grad_dtype"] = r.pick<const char*>({"bf16", "fp32"});
  if (mode == 0 || r.chance(0.4)) t["recompute"] = r.pick<const char*>({"none", "selective", "full"});
  if (mode == 0 || r.chance(0.4)) t["zero_stage"] = r.pick<int64_t>({0, 1, 2, 3});
  if (r.chance(0.15)) s["assume"]["mfu"] = r.pick({0.2, 0.35, 0.5});
  if (mode == 0) {
    const int64_t tp = r.pick(divisors_upto(tp_gcd(m), 8));
    const int64_t pp = r.pick(divisors_upto(m.layers, 16));
    const int64_t dp = r.pick(divisors_upto(gb, 256));
    s["parallel"] = {{"tp", tp}, {"pp", pp}, {"dp", dp}};
    s["training"]["micro_batch"] = r.pick(divisors_upto(gb / dp, 8));  // not t: adding "parallel" moved it
  } else if (mode == 1) {
    s["parallel"]["gpus"] = r.pick<int64_t>({8, 16, 64, 256, 1024});
  } else {
    s["target"]["days"] = r.pick({30.0, 90.0});
  }
  return s;
}

bool finite_positive(const json& v, const std::string& ptr) {
  const json::json_pointer p(ptr);
  if (!v.contains(p) || !v[p].is_number()) return false;
  const double x = v[p].get<double>();
  return std::isfinite(x) && x > 0;
}

// The headline numbers of one answer (evaluate's value, or search's best and top rows).
void check_answer(const json& a, const std::string& base) {
  for (const char* ptr : {"/memory/total_bytes", "/memory/capacity_bytes", "/performance/step_time_s",
                          "/performance/tokens_per_s_per_gpu", "/performance/mfu", "/training/days",
                          "/training/gpu_hours", "/plan/gpus"}) {
    INFO(base + ptr);
    CHECK(finite_positive(a, base + ptr));
  }
  const json& plan = a[json::json_pointer(base + "/plan")];
  CHECK(plan["gpus"] ==
        plan["tp"].get<int64_t>() * plan["pp"].get<int64_t>() * plan["dp"].get<int64_t>() * plan["cp"].get<int64_t>());
}

void check_refusal(const json& env) {
  REQUIRE(env["error"].is_object());
  const std::string path = env["error"]["path"];
  CHECK((path.empty() || path[0] == '/'));
  CHECK_FALSE(env["error"]["message"].get<std::string>().empty());
}

bool all_finite(const StageMemory& m) {
  for (double x : {m.weights, m.weights_gathered, m.fp8_weight_cache, m.gradients, m.optimizer, m.layer_activations,
                   m.recompute_working, m.logits, m.cuda_context, m.comm_buffers, m.fragmentation, m.total()})
    if (!std::isfinite(x) || x < 0) return false;
  return m.total() > 0;
}

bool all_finite(const StepTime& t) {
  for (double x :
       {t.compute_s, t.tp_comm_s, t.cp_comm_s, t.pp_comm_s, t.dp_comm_exposed_s, t.zero3_comm_exposed_s, t.bubble_s,
        t.optimizer_s, t.dp_comm_total_s, t.bubble_fraction, t.tokens_per_s_per_gpu, t.mfu, t.hfu, t.tflops_per_gpu})
    if (!std::isfinite(x) || x < 0) return false;
  return std::isfinite(t.step_time_s) && t.step_time_s > 0 && t.tokens_per_s_per_gpu > 0;
}

Scenario parsed(const json& s) {
  auto sc = parse_scenario(s.dump());
  INFO(s.dump());
  REQUIRE(sc.ok());
  return *sc;
}

}  // namespace

TEST_CASE("random valid scenarios never crash and answer with finite, positive numbers", "[property]") {
  Rng r(20240611);
  int answered = 0, refused = 0;
  for (int i = 0; i < 150; ++i) {
    const int mode = i % 5 == 4 ? 2 : i % 5 == 3 ? 1 : 0;  // mostly fixed layouts: cheap
    const json s = random_scenario(r, mode);
    INFO("scenario " << i << ": " << s.dump());
    const json env = json::parse(evaluate_json(s.dump()), nullptr, false);
    REQUIRE(env.is_object());
    if (env["ok"] == true) {
      ++answered;
      const json& v = env["value"];
      check_answer(v, "");
      CHECK(finite_positive(v, "/model/params"));
      CHECK(finite_positive(v, "/model/flops_per_token/model"));
      // The search never answers with a layout over its memory limit when one fits.
      if (v["search"]["layouts_fitting"].get<int64_t>() > 0) CHECK(v["memory"]["within_limit"] == true);
    } else {
      ++refused;
      check_refusal(env);
    }
  }
  INFO(answered << " answered, " << refused << " refused");
  CHECK(answered >= 100);  // the generator mostly makes scenarios the core can answer
}

TEST_CASE("the search's best and top layouts stay within the memory limit whenever any layout fits",
          "[property][search]") {
  Rng r(7);
  int checked = 0;
  for (int i = 0; i < 40; ++i) {
    const json s = random_scenario(r, 1 + i % 2);
    INFO("scenario " << i << ": " << s.dump());
    const json env = json::parse(search_json(s.dump(), 5), nullptr, false);
    REQUIRE(env.is_object());
    if (env["ok"] != true) {
      check_refusal(env);
      continue;
    }
    const json& v = env["value"];
    check_answer(v, "/best");
    const bool any_fits = v["search"]["layouts_fitting"].get<int64_t>() > 0;
    if (!any_fits) continue;
    ++checked;
    CHECK(v["best"]["memory"]["within_limit"] == true);
    for (size_t k = 0; k < v["top"].size(); ++k) {
      INFO("top " << k);
      check_answer(v, "/top/" + std::to_string(k));
      CHECK(v["top"][k]["memory"]["within_limit"] == true);
    }
    // And at the struct level: the chosen candidate fits under the limit.
    const Scenario sc = parsed(s);
    const SearchResult sr = search(sc.problem, sc.constraints, sc.target_days);
    REQUIRE(sr.chosen);
    CHECK(sr.chosen->fits);
    CHECK(sr.chosen->memory.total() <= sc.problem.memory_limit_fraction * capacity_bytes(sc.problem.gpu));
  }
  CHECK(checked >= 20);
}

TEST_CASE("more data parallelism never raises memory per GPU for the same layout", "[property][memory]") {
  Rng r(42);
  const Scenario base = parsed(json::parse(
      R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096,"global_batch":4096}})"));
  int compared = 0;
  for (int i = 0; i < 300; ++i) {
    Problem p = base.problem;
    p.model = *find_model(r.pick(preset_ids()));
    p.training.seq_len = r.pick<int64_t>({1024, 4096, 8192, 32768});
    p.training.global_batch = r.pick<int64_t>({1024, 2048, 4096});
    p.training.framework = r.chance(0.5) ? Framework::megatron : Framework::torchtitan;
    p.training.precision = r.pick({Precision::bf16, Precision::fp16, Precision::fp8});
    Layout l;
    l.tp = r.pick(divisors_upto(tp_gcd(p.model), 8));
    l.pp = r.pick(divisors_upto(p.model.layers, 8));
    l.cp = r.pick<int64_t>({1, 1, 2, 4});
    l.vpp = l.pp > 1 ? r.pick<int64_t>({1, 2}) : 1;
    l.zero_stage = r.pick({0, 1, 2, 3});
    l.recompute = r.pick({Recompute::none, Recompute::selective, Recompute::full});
    const int64_t dp1 = r.pick<int64_t>({1, 2, 4, 8, 16});
    const int64_t dp2 = dp1 * r.pick<int64_t>({2, 4, 8});
    l.micro_batch = r.pick<int64_t>({1, 2});
    Layout a = l, b = l;
    a.dp = dp1;
    b.dp = dp2;
    if (check_layout(p.model, p.training, a) || check_layout(p.model, p.training, b)) continue;
    ++compared;
    const StageMemory ma = worst_stage_memory(p.model, p.training, a, p.overheads);
    const StageMemory mb = worst_stage_memory(p.model, p.training, b, p.overheads);
    INFO(p.model.id << " tp " << l.tp << " pp " << l.pp << " vpp " << l.vpp << " cp " << l.cp << " zero "
                    << l.zero_stage << " recompute " << to_string(l.recompute) << " b " << l.micro_batch << ": dp "
                    << dp1 << " → " << dp2 << ": " << ma.total() << " → " << mb.total() << " bytes");
    REQUIRE(all_finite(ma));
    REQUIRE(all_finite(mb));
    CHECK(mb.model_states() <= ma.model_states() * (1 + 1e-12));
    // Activations stage by stage: the fullest stage can change with dp (fewer model states
    // leave stage 0's extra micro-batches in flight the largest), so worst against worst
    // would compare different stages.
    for (int stage : {0, static_cast<int>(l.pp - 1)}) {
      const StageMemory sa = stage_memory(p.model, p.training, a, p.overheads, stage);
      const StageMemory sb = stage_memory(p.model, p.training, b, p.overheads, stage);
      INFO("stage " << stage);
      CHECK(sb.activations() <= sa.activations() * (1 + 1e-12));
    }
    // Once a DP group exists (dp ≥ 2) its NCCL communicator and ZeRO-3's gathered working
    // set are already counted; from dp = 1 they are new, so the total is compared from 2.
    if (dp1 >= 2) CHECK(mb.total() <= ma.total() * (1 + 1e-12));
  }
  CHECK(compared >= 150);
}

TEST_CASE("every memory and time term of a valid layout is finite and non-negative", "[property]") {
  Rng r(99);
  const auto gpus = usable_gpus();
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    const std::string gpu = r.pick(gpus);
    const std::string model = r.pick(preset_ids());
    // bf16, or fp16 where the GPU has no BF16 peak (V100).
    const char* precision = find_gpu(gpu)->bf16_tflops.value ? "bf16" : "fp16";
    const Scenario sc = parsed(json{{"model", model},
                                    {"gpu", gpu},
                                    {"training",
                                     {{"tokens", 1e12},
                                      {"seq_len", r.pick<int64_t>({512, 8192, 131072})},
                                      {"global_batch", r.pick<int64_t>({8, 512, 1536})},
                                      {"precision", precision}}}});
    const Problem& p = sc.problem;
    Layout l;
    l.tp = r.pick(divisors_upto(tp_gcd(p.model), 16));
    l.pp = r.pick(divisors_upto(p.model.layers, 32));
    l.dp = r.pick(divisors_upto(p.training.global_batch, 512));
    l.cp = r.pick<int64_t>({1, 2, 8});
    l.vpp = l.pp > 1 ? r.pick<int64_t>({1, 2, 4}) : 1;
    l.micro_batch = r.pick(divisors_upto(p.training.global_batch / l.dp, 4));
    l.zero_stage = r.pick({0, 1, 2, 3});
    l.recompute = r.pick({Recompute::none, Recompute::selective, Recompute::full});
    if (check_layout(p.model, p.training, l)) continue;
    ++checked;
    const Candidate c = evaluate_layout(p, l);
    INFO(model << " on " << gpu << ": tp " << l.tp << " pp " << l.pp << " dp " << l.dp << " cp " << l.cp << " vpp "
               << l.vpp << " b " << l.micro_batch);
    CHECK(all_finite(c.memory));
    CHECK(all_finite(c.time));
    CHECK(std::isfinite(c.run.days));
    CHECK(c.run.days > 0);
  }
  CHECK(checked >= 100);
}

TEST_CASE("days scale with 1/throughput", "[property][time]") {
  Rng r(3);
  for (int i = 0; i < 60; ++i) {
    json s = random_scenario(r, 0);
    // Keep every GPU able to run it: bf16, or fp16 where the GPU has no BF16 peak (V100).
    s["training"]["precision"] = find_gpu(s["gpu"].get<std::string>())->bf16_tflops.value ? "bf16" : "fp16";
    s.erase("assume");
    auto sc = parse_scenario(s.dump());
    if (!sc) continue;
    const Problem& p = sc->problem;
    Layout l;
    l.tp = *sc->constraints.tp;
    l.pp = *sc->constraints.pp;
    l.dp = *sc->constraints.dp;
    l.micro_batch = *sc->constraints.micro_batch;
    l.zero_stage = *sc->constraints.zero_stage;
    l.recompute = *sc->constraints.recompute;
    if (check_layout(p.model, p.training, l)) continue;
    INFO(s.dump());
    const Candidate c = evaluate_layout(p, l);
    // days = tokens / (tokens/s per GPU × GPUs), the identity the output rests on.
    const double gpus = static_cast<double>(l.gpus());
    CHECK(c.run.days * 86400 == Approx(p.training.tokens / (c.time.tokens_per_s_per_gpu * gpus)).epsilon(1e-9));
    // Twice the tokens: twice the days, the same throughput.
    Problem p2 = p;
    p2.training.tokens *= 2;
    const Candidate c2 = evaluate_layout(p2, l);
    CHECK(c2.time.tokens_per_s_per_gpu == Approx(c.time.tokens_per_s_per_gpu).epsilon(1e-12));
    CHECK(c2.run.days == Approx(2 * c.run.days).epsilon(1e-9));
    // An end-to-end efficiency k times higher: k times the throughput, 1/k the days.
    for (double k : {2.0, 3.0}) {
      Problem pa = p, pb = p;
      pa.efficiency.mfu = 0.15;
      pb.efficiency.mfu = 0.15 * k;
      const Candidate ca = evaluate_layout(pa, l), cb = evaluate_layout(pb, l);
      CHECK(cb.time.tokens_per_s_per_gpu == Approx(k * ca.time.tokens_per_s_per_gpu).epsilon(1e-9));
      CHECK(cb.run.days == Approx(ca.run.days / k).epsilon(1e-9));
      CHECK(cb.run.days * cb.time.tokens_per_s_per_gpu ==
            Approx(ca.run.days * ca.time.tokens_per_s_per_gpu).epsilon(1e-9));
    }
  }
}
