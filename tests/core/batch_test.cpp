// The batch as a planner's knob (training.global_batch_range): the critical-batch law, the
// GPU counts between powers of two it opens, the knee of the days-vs-GPUs curve, and what
// an unreachable deadline says.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "gpucalc/api.hpp"
#include "gpucalc/critical_batch.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/search.hpp"

using namespace gpucalc;
using json = nlohmann::ordered_json;

namespace {
json value_of(const std::string& scenario) {
  const json env = json::parse(evaluate_json(scenario));
  REQUIRE(env["ok"] == true);
  return env["value"];
}
json error_of(const std::string& scenario) {
  const json env = json::parse(evaluate_json(scenario));
  REQUIRE(env["ok"] == false);
  return env["error"];
}
bool has_code(const json& notes, const std::string& code) {
  for (const auto& n : notes)
    if (n["code"] == code) return true;
  return false;
}
bool power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }
const char* k405 = R"({"model":"llama-3.1-405b","gpu":"h100-sxm-80gb",
    "training":{"tokens":15e12,"seq_len":8192,"global_batch_tokens":4194304},"target":{"days":60}})";
}  // namespace

TEST_CASE("critical batch of Llama 3.1 405B on 15T tokens, DeepSeek LLM's law", "[batch]") {
  auto s = parse_scenario(R"({"model":"llama-3.1-405b","gpu":"h100-sxm-80gb",
      "training":{"tokens":15e12,"seq_len":8192,"global_batch_range":{"rule":"critical"}}})");
  REQUIRE(s.ok());
  const CriticalBatch cb = critical_batch(s->problem.model, s->problem.training);
  // M = 6 · non-embedding matmul parameters + 6 · n_layer · d_model · l_seq (DeepSeek LLM §3.2):
  // per layer q, o 16384² each, k, v 16384 × 1024 each, MLP 3 × 16384 × 53248.
  const double per_layer = 2.0 * 16384 * 16384 + 2.0 * 16384 * 1024 + 3.0 * 16384 * 53248;
  const double m = 6.0 * 126 * per_layer + 6.0 * 126 * 16384 * 8192;
  CHECK(cb.flops_per_token == Approx(m).epsilon(1e-12));
  CHECK(cb.compute_flops == Approx(m * 15e12).epsilon(1e-12));
  CHECK(cb.tokens == Approx(0.2920 * std::pow(m * 15e12, 0.3271)).epsilon(1e-12));
  CHECK(cb.tokens == Approx(6.781e7).epsilon(1e-3));  // 3.77e25 FLOPs → 67.8M tokens
  // Beyond the law's fitted budgets; above Llama 3 405B's final 16M-token batch (arXiv 2407.21783).
  CHECK(cb.extrapolated);
  CHECK(cb.tokens > 16777216.0);
  // The scenario's range takes it as max, rounded down to whole sequences.
  CHECK(s->batch_rule == BatchRule::critical);
  CHECK(s->constraints.batch_max == static_cast<int64_t>(cb.tokens) / 8192);
  CHECK(s->constraints.batch_max == 8277);
  CHECK(s->constraints.batch_min == 1);
}

TEST_CASE("Kneedle on a synthetic days-vs-GPUs curve", "[batch][knee]") {
  // Perfect scaling to 8 GPUs (days = 64 / n), then almost flat: the knee is at 8.
  std::vector<double> x, y;
  const double days[] = {64, 32, 16, 8, 7, 6.5, 6.25};
  for (int i = 0; i < 7; ++i) {
    x.push_back(std::log(std::pow(2.0, i)));
    y.push_back(std::log(days[i]));
  }
  CHECK(knee_index(x, y) == 3);
  // A straight line in log-log (perfect scaling throughout) has no knee: the last point.
  std::vector<double> ly;
  for (int i = 0; i < 7; ++i) ly.push_back(std::log(64.0 / std::pow(2.0, i)));
  CHECK(knee_index(x, ly) == 6);
  // Nor does one that wiggles a few hundredths around its chord (discrete GPU counts): the
  // H20 default scenario's front, 20 to 16,384 GPUs, its largest gap 0.033 at 64 GPUs.
  const double gpus[] = {20, 32, 40, 64, 80, 128, 160, 256, 320, 512, 640, 1024, 1280, 2048, 2560, 4096, 8192, 16384};
  const double wall[] = {55437.1, 27713.0, 22917.9, 13554.2, 11209.9, 6725.8, 5656.8, 3373.0, 2878.2,
                         1695.0,  1487.6,  854.9,   782.9,   431.4,   417.8,  218.0,  110.9,  60.5};
  std::vector<double> wx, wy;
  for (int i = 0; i < 18; ++i) {
    wx.push_back(std::log2(gpus[i]));
    wy.push_back(std::log2(wall[i]));
  }
  CHECK(knee_index(wx, wy) == 17);
  CHECK(knee_index({0.0, 1.0}, {1.0, 0.0}) == 1);
}

TEST_CASE("a batch range lets the search pick GPU counts between powers of two", "[batch]") {
  // Fixed 4M tokens: 60 days needs a count the batch allows only at powers of two.
  const json fixed = value_of(R"({"model":"llama-3.1-70b","gpu":"h100-sxm-80gb",
      "training":{"tokens":15e12,"seq_len":8192,"global_batch_tokens":4194304},"target":{"days":60}})");
  const json ranged = value_of(R"({"model":"llama-3.1-70b","gpu":"h100-sxm-80gb",
      "training":{"tokens":15e12,"seq_len":8192,"global_batch_range":{"min":4194304,"max":16777216}},
      "target":{"days":60}})");
  const json& p = ranged["plan"];
  CHECK(ranged["search"]["target_met"] == true);
  const int64_t gpus = p["gpus"], batch = p["global_batch"], tokens = p["global_batch_tokens"];
  CHECK_FALSE(power_of_two(gpus));
  CHECK(gpus % 8 == 0);  // whole nodes
  CHECK(gpus <= fixed["plan"]["gpus"].get<int64_t>());
  // The batch it chose: inside the range, dp · micro-batch · micro-batches sequences.
  CHECK(tokens >= 4194304);
  CHECK(tokens <= 16777216);
  CHECK(tokens == batch * 8192);
  CHECK(batch == p["dp"].get<int64_t>() * p["micro_batch"].get<int64_t>() * p["micro_batches"].get<int64_t>());
  CHECK(p["batch_rule"] == "range");
  // Steps follow from the chosen batch.
  CHECK(ranged["training"]["steps"].get<double>() == Approx(15e12 / static_cast<double>(tokens)).epsilon(1e-12));
}

TEST_CASE("an unreachable deadline says why, shows the knee and what would meet it", "[batch][deadline]") {
  const json v = value_of(k405);
  CHECK(v["search"]["target_met"] == false);
  const json& w = v["warnings"];
  CHECK(has_code(w, "target_days_unreachable"));
  CHECK(has_code(w, "deadline_limit_batch"));  // 512 sequences cap dp at 512
  CHECK(has_code(w, "deadline_limit_bubble"));
  CHECK(has_code(w, "deadline_knee"));
  CHECK((has_code(w, "deadline_fix_batch") || has_code(w, "deadline_fix_batch_short")));
  CHECK(has_code(w, "deadline_fix_days"));
  // The knee, not the fastest plan: fewer GPUs than the 24,576 at one micro-batch per step.
  CHECK(v["plan"]["gpus"].get<int64_t>() < 24576);
  CHECK(v["plan"]["global_batch_tokens"] == 4194304);
}

TEST_CASE("global_batch_range errors name the field", "[batch][errors]") {
  const auto err = [](const std::string& range, const std::string& extra = "") {
    return error_of(R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096,)" +
                    extra + R"("global_batch_range":)" + range + "}}");
  };
  json e = err(R"({"min":8388608,"max":4194304})");
  CHECK(e["code"] == "batch_range_inverted");
  CHECK(e["path"] == "/training/global_batch_range/min");
  e = err(R"({"min":1,"max":100})");
  CHECK(e["code"] == "batch_range_empty");
  CHECK(e["path"] == "/training/global_batch_range");
  e = err(R"({"max":"NaN"})");
  CHECK(e["path"] == "/training/global_batch_range/max");
  e = err(R"({"min":4096})");
  CHECK(e["code"] == "batch_range_max_missing");
  e = err(R"({"rule":"critical","max":4194304})");
  CHECK(e["code"] == "batch_range_max_with_critical");
  CHECK(e["path"] == "/training/global_batch_range/max");
  e = err(R"({"max":4194304})", R"("global_batch_tokens":4194304,)");
  CHECK(e["code"] == "batch_range_or_fixed");
  e = err("[1, 2]");
  CHECK(e["path"] == "/training/global_batch_range");
}

TEST_CASE("a fixed GPU count its batch holds back says what a batch up to the critical one gives", "[batch]") {
  // Llama 3.1 70B on 4,096 H100 at the default 4M-token batch: 512 sequences of 8,192 tokens
  // feed at most 512 data-parallel ranks, so the search splits the model over the rest.
  const std::string job = R"({"model":"llama-3.1-70b","gpu":"h100-sxm-80gb","parallel":{"gpus":4096},
      "training":{"tokens":15e12,"seq_len":8192)";
  const json v = value_of(job + "}}");
  REQUIRE(v["plan"]["global_batch"] == 512);
  REQUIRE(512 / v["plan"]["dp"].get<int64_t>() <= 2);
  const json* note = nullptr;
  for (const auto& w : v["warnings"])
    if (w["code"] == "batch_caps_gpus") note = &w;
  REQUIRE(note != nullptr);
  const json& prm = (*note)["params"];
  CHECK(prm["batch_tokens"] == "4194304");
  CHECK(prm["gpus"] == "4096");
  // The bound is DeepSeek LLM's critical batch for this model and token count.
  auto s = parse_scenario(job + "}}");
  REQUIRE(s.ok());
  const CriticalBatch cb = critical_batch(s->problem.model, s->problem.training);
  CHECK(std::stod(prm["critical_tokens"].get<std::string>()) == Approx(cb.tokens).margin(1));
  // 6.3e24 FLOPs is far beyond the budgets the law was fitted on, and the answer says so.
  CHECK(cb.extrapolated);
  CHECK(has_code(v["warnings"], "critical_batch_extrapolated"));
  const double larger = std::stod(prm["larger_tokens"].get<std::string>());
  CHECK(larger >= 2 * 4194304.0);
  CHECK(larger <= cb.tokens);
  // Its days are those of that batch searched at the same count, and at least 10% sooner
  // than the answer's (wall clock, failures included).
  const json at = value_of(job + R"(,"global_batch_tokens":)" + prm["larger_tokens"].get<std::string>() + "}}");
  // (that search may find a layout whose dp the range gives another batch: never slower)
  CHECK(at["goodput"]["days"].get<double>() <= std::stod(prm["days"].get<std::string>()) + 0.051);
  CHECK(at["goodput"]["days"].get<double>() < 0.9 * v["goodput"]["days"].get<double>());
  // Not when the batch is the search's to pick, the GPU count is open, or the batch feeds
  // every rank more than two sequences.
  const auto has = [](const json& a) { return has_code(a["warnings"], "batch_caps_gpus"); };
  CHECK_FALSE(has(value_of(job + R"(,"global_batch_range":{"min":4194304,"rule":"critical"}}})")));
  CHECK_FALSE(has(value_of(R"({"model":"llama-3.1-70b","gpu":"h100-sxm-80gb","target":{"days":60},
      "training":{"tokens":15e12,"seq_len":8192}})")));
  CHECK_FALSE(has(value_of(R"({"model":"llama-3.1-70b","gpu":"h100-sxm-80gb","parallel":{"gpus":256},
      "training":{"tokens":15e12,"seq_len":8192}})")));
}
