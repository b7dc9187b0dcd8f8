// An MoE answer whose expert-parallel all-to-all is left exposed says what DeepEP's
// dispatcher and the all-to-all overlap would give (core/src/moe_comm_hint.cpp).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "../../core/src/search_cache.hpp"
#include "gpucalc/api.hpp"

using json = nlohmann::ordered_json;

namespace {
json value_of(const std::string& scenario) {
  const json env = json::parse(gpucalc::evaluate_json(scenario));
  REQUIRE(env["ok"] == true);
  return env["value"];
}
const json* note_of(const json& v) {
  for (const auto& w : v["warnings"])
    if (w["code"] == "moe_comm_exposed") return &w;
  return nullptr;
}
double gpu_days(const json& v) { return v["plan"]["gpus"].get<double>() * v["goodput"]["days"].get<double>(); }
}  // namespace

TEST_CASE("an exposed MoE all-to-all says what DeepEP and the overlap give", "[moe]") {
  // Qwen3-30B-A3B, 1T tokens in 30 days on H100, Megatron-Core's defaults: the all-to-all
  // dispatcher, no overlap.
  const std::string job = R"({"model":"qwen3-30b-a3b","gpu":"h100-sxm-80gb","target":{"days":30},
      "training":{"tokens":1e12,"seq_len":4096)";
  const json v = value_of(job + "}}");
  const json& b = v["performance"]["breakdown"];
  const double share = b["ep_comm_s"].get<double>() / v["performance"]["step_time_s"].get<double>();
  REQUIRE(share >= 0.1);
  const json* note = note_of(v);
  REQUIRE(note != nullptr);
  const json& prm = (*note)["params"];
  CHECK(prm["dispatcher"] == "alltoall");
  CHECK(prm["overlap"] == "false");
  CHECK(std::stod(prm["share_pct"].get<std::string>()) == Approx(100 * share).margin(0.5));
  // The note is the answer of the same scenario with both set, and at least 10% fewer
  // GPU-hours (wall clock).
  const json both = value_of(job + R"(,"moe_dispatcher":"deepep","overlap_moe_comm":true}})");
  CHECK(prm["gpus"] == std::to_string(both["plan"]["gpus"].get<int64_t>()));
  CHECK(std::stod(prm["days"].get<std::string>()) == Approx(both["goodput"]["days"].get<double>()).margin(0.051));
  CHECK(gpu_days(both) < 0.9 * gpu_days(v));
  CHECK(note_of(both) == nullptr);
  // Not where DeepEP does not run (Ascend), nor outside Megatron-Core, nor for a dense model.
  CHECK(note_of(value_of(R"({"model":"qwen3-30b-a3b","gpu":"ascend-910b","target":{"days":30},
      "training":{"tokens":1e12,"seq_len":4096}})")) == nullptr);
  CHECK(note_of(value_of(job + R"(,"framework":"torchtitan"}})")) == nullptr);
  CHECK(note_of(value_of(R"({"model":"llama-3.1-70b","gpu":"h100-sxm-80gb","target":{"days":30},
      "training":{"tokens":1e12,"seq_len":4096}})")) == nullptr);
}

TEST_CASE("the hints' second searches are kept: a cached answer equals a fresh one", "[moe][cache]") {
  // Qwen3-30B-A3B with an exposed all-to-all (moe_comm_exposed), and Llama 3.1 70B on a
  // fixed 4,096 GPUs its batch holds back (batch_caps_gpus): each answered fresh, then
  // after another deadline or token count from the cache.
  const auto moe = [](const char* days) {
    return std::string(R"({"model":"qwen3-30b-a3b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096},
        "target":{"days":)") +
           days + "}}";
  };
  const auto dense = [](const char* tokens) {
    return std::string(R"({"model":"llama-3.1-70b","gpu":"h100-sxm-80gb","parallel":{"gpus":4096},
        "training":{"seq_len":8192,"tokens":)") +
           tokens + "}}";
  };
  for (const auto& [a, b] : {std::pair{moe("30"), moe("45")}, std::pair{dense("15e12"), dense("10e12")}}) {
    gpucalc::clear_search_cache();
    const std::string fresh_a = gpucalc::evaluate_json(a);
    gpucalc::clear_search_cache();
    const std::string fresh_b = gpucalc::evaluate_json(b);
    const std::string cached_a = gpucalc::evaluate_json(a);  // a's enumeration and hint searches are b's
    CHECK(cached_a == fresh_a);
    CHECK(gpucalc::evaluate_json(b) == fresh_b);
    CHECK((fresh_a.find("moe_comm_exposed") != std::string::npos ||
           fresh_a.find("batch_caps_gpus") != std::string::npos));
  }
}
