// The search cache (core/src/search_cache.hpp): over a sequence of edits of the page's
// default scenario — some that leave every layout's step time alone (deadline, tokens,
// price, currency, objective, budget, goodput, energy), some that do not (accelerator,
// sequence length, memory limit, a fixed tp, the GPU count) — every answer of
// evaluate_json and search_json is the same text, byte for byte, as a fresh one.
#include <catch2/catch.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../../core/src/search_cache.hpp"
#include "gpucalc/api.hpp"
#include "gpucalc/scenario.hpp"
#include "source_file.hpp"

using namespace gpucalc;
using json = nlohmann::ordered_json;

namespace {

struct Edit {
  const char* what;
  std::function<void(json&)> apply;
  // Cache hits of the evaluate_json + search_json pair after it: 2 when both reuse a kept
  // search, 1 when only search_json reuses evaluate_json's, 0 when a calibration's fitted
  // knobs make both search afresh.
  int hits;
};

std::vector<Edit> edits() {
  return {
      {"deadline 59 days", [](json& s) { s["target"]["days"] = 59; }, 2},
      {"deadline 60 days", [](json& s) { s["target"]["days"] = 60; }, 2},
      {"deadline 20 days (more GPUs)", [](json& s) { s["target"]["days"] = 20; }, 2},
      {"deadline 2 days (unreachable)", [](json& s) { s["target"]["days"] = 2; }, 2},
      {"unreachable, objective: cost", [](json& s) { s["target"]["objective"] = "cost"; }, 2},
      {"objective: gpus", [](json& s) { s["target"]["objective"] = "gpus"; }, 2},
      {"10T tokens", [](json& s) { s["training"]["tokens"] = 10e12; }, 2},
      {"a price in USD",
       [](json& s) {
         s["cost"] = {{"currency", "USD"}, {"price_per_gpu_hour", 2.5}};
       },
       2},
      {"the price in CNY",
       [](json& s) {
         s["cost"] = {{"currency", "CNY"}, {"price_per_gpu_hour", 15}};
       },
       2},
      {"objective: cost", [](json& s) { s["target"]["objective"] = "cost"; }, 2},
      {"a budget", [](json& s) { s["target"]["max_cost"] = 3e7; }, 2},
      {"goodput: MTBF 2000 h",
       [](json& s) {
         s["goodput"] = {{"mtbf_hours", 2000}};
       },
       2},
      {"energy: PUE 1.3",
       [](json& s) {
         s["energy"] = {{"pue", 1.3}};
       },
       2},
      {"renamed", [](json& s) { s["name"] = "mine"; }, 2},
      {"sequence length 4096", [](json& s) { s["training"]["seq_len"] = 4096; }, 1},
      {"deadline 45 days", [](json& s) { s["target"]["days"] = 45; }, 2},
      {"memory limit 70%", [](json& s) { s["target"]["max_memory_fraction"] = 0.7; }, 1},
      {"H20", [](json& s) { s["gpu"] = "h20-96gb"; }, 1},
      {"deadline 90 days", [](json& s) { s["target"]["days"] = 90; }, 2},
      {"tp fixed at 4",
       [](json& s) {
         s["parallel"] = {{"tp", 4}};
       },
       1},
      {"no deadline", [](json& s) { s["target"].erase("days"); }, 2},
      {"8 GPUs (nothing fits)",
       [](json& s) {
         s["parallel"] = {{"gpus", 8}};
       },
       1},
      {"8 GPUs, deadline 30 days", [](json& s) { s["target"]["days"] = 30; }, 2},
      // The fewest GPUs that would fit (search.fits_from) is kept with the search; its days follow the tokens.
      {"8 GPUs, 1T tokens", [](json& s) { s["training"]["tokens"] = 1e12; }, 2},
      {"back to H100", [](json& s) { s["gpu"] = "h100-sxm-80gb"; }, 1},
      {"the GPU count free again", [](json& s) { s.erase("parallel"); }, 1},
      {"batch rule: critical",
       [](json& s) {
         s["training"].erase("global_batch_tokens");
         s["training"]["global_batch_range"] = {{"min", 4194304}, {"rule", "critical"}};
       },
       1},
      // The critical batch's ceiling grows with the compute budget: the tokens are in the key.
      {"20T tokens under the rule", [](json& s) { s["training"]["tokens"] = 20e12; }, 1},
      {"deadline 30 days under the rule", [](json& s) { s["target"]["days"] = 30; }, 2},
      {"batch range 4M-32M tokens",
       [](json& s) {
         s["training"]["global_batch_range"] = {{"min", 4194304}, {"max", 33554432}};
       },
       1},
      {"deadline 3 days (unreachable, a larger batch explained)", [](json& s) { s["target"]["days"] = 3; }, 2},
      // A measured step time fits knobs that price every layout: searched afresh every time.
      {"a calibration on a measured layout",
       [](json& s) {
         s["calibration"] = {{"measured_step_time_s", 80.0},
                             {"layout",
                              {{"tp", 8},
                               {"pp", 4},
                               {"dp", 16},
                               {"cp", 1},
                               {"micro_batch", 1},
                               {"vpp", 2},
                               {"global_batch", 4096},
                               {"zero_stage", 1},
                               {"recompute", "selective"}}}};
       },
       0},
      {"the same calibration, deadline 40 days", [](json& s) { s["target"]["days"] = 40; }, 0},
  };
}

}  // namespace

TEST_CASE("cached answers are the fresh answers, byte for byte, over a sequence of edits", "[search][cache]") {
  json s = json::parse(read_source_file("examples/llama-3.1-70b-h100.json"));
  clear_search_cache();
  REQUIRE(json::parse(evaluate_json(s.dump()))["ok"] == true);
  REQUIRE(json::parse(search_json(s.dump(), 10))["ok"] == true);
  for (const Edit& e : edits()) {
    INFO(e.what);
    e.apply(s);
    const std::string text = s.dump();
    const int64_t before = search_cache_hits();
    const std::string cached_eval = evaluate_json(text);
    const std::string cached_search = search_json(text, 10);
    CHECK(search_cache_hits() - before == e.hits);  // search_json reuses evaluate_json's search
    clear_search_cache();
    const std::string fresh_eval = evaluate_json(text);
    clear_search_cache();
    const std::string fresh_search = search_json(text, 10);
    CHECK(cached_eval == fresh_eval);
    CHECK(cached_search == fresh_search);
    // The next edit finds this scenario's search kept, as after a page edit.
    clear_search_cache();
    evaluate_json(text);
  }
}

TEST_CASE("the cache key leaves out only what the choice among GPU counts reads", "[search][cache]") {
  json s = json::parse(read_source_file("examples/llama-3.1-70b-h100.json"));
  const auto key = [](const json& doc) {
    auto parsed = parse_scenario(doc.dump());
    REQUIRE(parsed);
    return time_key(doc.dump(), *parsed);
  };
  const auto base = key(s);
  REQUIRE(base);
  json deadline = s;
  deadline["target"]["days"] = 30;
  CHECK(key(deadline) == base);
  json seq = s;
  seq["training"]["seq_len"] = 4096;
  CHECK(key(seq) != base);
  json batch = s;
  batch["training"]["global_batch_tokens"] = 8388608;
  CHECK(key(batch) != base);
  json memory = s;
  memory["target"]["max_memory_fraction"] = 0.7;
  CHECK(key(memory) != base);
}

TEST_CASE("a comparison from kept searches is the fresh comparison, byte for byte", "[search][cache][compare]") {
  json s = json::parse(read_source_file("examples/llama-3.1-70b-h100.json"));
  const std::string ids = "h100-sxm-80gb,h20-96gb,ascend-910b";
  clear_search_cache();
  compare_json(s.dump(), ids);
  for (double days : {59.0, 60.0, 30.0}) {
    INFO(days);
    s["target"]["days"] = days;
    const int64_t before = search_cache_hits();
    const std::string cached = compare_json(s.dump(), ids);
    CHECK(search_cache_hits() - before == 3);
    clear_search_cache();
    CHECK(cached == compare_json(s.dump(), ids));
  }
}
