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
  bool reuses;  // whether the answer after it comes from the cache
};

std::vector<Edit> edits() {
  return {
      {"deadline 59 days", [](json& s) { s["target"]["days"] = 59; }, true},
      {"deadline 60 days", [](json& s) { s["target"]["days"] = 60; }, true},
      {"deadline 20 days (more GPUs)", [](json& s) { s["target"]["days"] = 20; }, true},
      {"deadline 2 days (unreachable)", [](json& s) { s["target"]["days"] = 2; }, true},
      {"unreachable, objective: cost", [](json& s) { s["target"]["objective"] = "cost"; }, true},
      {"objective: gpus", [](json& s) { s["target"]["objective"] = "gpus"; }, true},
      {"10T tokens", [](json& s) { s["training"]["tokens"] = 10e12; }, true},
      {"a price in USD",
       [](json& s) {
         s["cost"] = {{"currency", "USD"}, {"price_per_gpu_hour", 2.5}};
       },
       true},
      {"the price in CNY",
       [](json& s) {
         s["cost"] = {{"currency", "CNY"}, {"price_per_gpu_hour", 15}};
       },
       true},
      {"objective: cost", [](json& s) { s["target"]["objective"] = "cost"; }, true},
      {"a budget", [](json& s) { s["target"]["max_cost"] = 3e7; }, true},
      {"goodput: MTBF 2000 h",
       [](json& s) {
         s["goodput"] = {{"mtbf_hours", 2000}};
       },
       true},
      {"energy: PUE 1.3",
       [](json& s) {
         s["energy"] = {{"pue", 1.3}};
       },
       true},
      {"renamed", [](json& s) { s["name"] = "mine"; }, true},
      {"sequence length 4096", [](json& s) { s["training"]["seq_len"] = 4096; }, false},
      {"deadline 45 days", [](json& s) { s["target"]["days"] = 45; }, true},
      {"memory limit 70%", [](json& s) { s["target"]["max_memory_fraction"] = 0.7; }, false},
      {"H20", [](json& s) { s["gpu"] = "h20-96gb"; }, false},
      {"deadline 90 days", [](json& s) { s["target"]["days"] = 90; }, true},
      {"tp fixed at 4",
       [](json& s) {
         s["parallel"] = {{"tp", 4}};
       },
       false},
      {"no deadline", [](json& s) { s["target"].erase("days"); }, true},
      {"8 GPUs (nothing fits)",
       [](json& s) {
         s["parallel"] = {{"gpus", 8}};
       },
       false},
      {"8 GPUs, deadline 30 days", [](json& s) { s["target"]["days"] = 30; }, true},
      {"back to H100", [](json& s) { s["gpu"] = "h100-sxm-80gb"; }, false},
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
    CHECK(search_cache_hits() - before == (e.reuses ? 2 : 1));  // search_json reuses evaluate_json's search
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
