// Nothing fits (core/src/no_fit.cpp): the answer says from how many GPUs the job fits
// (search.fits_from, warning oom_fix_gpus), or, when the scenario pins a layout that fits
// nowhere, the layout the calculator would choose (search.fits_with_layout_open,
// oom_fix_layout_*), or that nothing does (oom_fix_none), instead of only that it does not fit.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "gpucalc/api.hpp"

using json = nlohmann::ordered_json;

namespace {

json evaluate(const json& scenario) {
  const json env = json::parse(gpucalc::evaluate_json(scenario.dump()));
  REQUIRE(env["ok"] == true);
  return env["value"];
}

bool has_warning(const json& v, const std::string& code) {
  for (const auto& w : v["warnings"])
    if (w["code"] == code) return true;
  return false;
}

// Full fine-tuning of Llama 3.1 405B (405,853,388,800 parameters) on H100 80GB.
json llama405b_full(int64_t gpus) {
  return {{"model", "llama-3.1-405b"},
          {"gpu", "h100-sxm-80gb"},
          {"training", {{"tokens", 1e9}, {"seq_len", 8192}, {"global_batch", 64}, {"stage", "full_finetune"}}},
          {"parallel", {{"gpus", gpus}}}};
}

}  // namespace

TEST_CASE("nothing fits on 8 GPUs: the fewest GPUs on which a layout fits", "[search][no_fit]") {
  const json v = evaluate(llama405b_full(8));
  REQUIRE(v["memory"]["fits"] == false);
  const json& from = v["search"]["fits_from"];
  REQUIRE(from.is_object());
  const int64_t n = from["gpus"].get<int64_t>();
  // Lower bound: Megatron-Core's model states are 2 (bf16 weights) + 4 (fp32 gradients)
  // + 12 (fp32 master and Adam moments; ZeRO paper §3.1, K = 12) = 18 B per parameter,
  // each held by at least one GPU, and each GPU may use 80% of 80 GiB (Fujii et al. 2024):
  // N ≥ 18 × 405,853,388,800 / (0.8 × 85,899,345,920) = 106.3.
  CHECK(n >= 107);
  // Upper bound: on 128 GPUs, TP 8 × PP 16, the states are 18 B × P / 128 = 53.2 GiB per
  // GPU, under the 64 GiB limit with ~11 GiB left for one micro-batch's recomputed layers.
  CHECK(n <= 128);
  CHECK(from["memory_used_fraction"].get<double>() <= 0.8);
  CHECK(from["plan"]["gpus"] == n);
  CHECK(has_warning(v, "oom_at_count"));
  CHECK(has_warning(v, "oom_fix_gpus"));

  // Asked on that many GPUs, the job fits with the same layout and days.
  const json at = evaluate(llama405b_full(n));
  CHECK(at["memory"]["fits"] == true);
  CHECK(at["plan"]["tp"] == from["plan"]["tp"]);
  CHECK(at["plan"]["pp"] == from["plan"]["pp"]);
  CHECK(at["training"]["days"].get<double>() == Approx(from["days"].get<double>()).epsilon(1e-12));
  CHECK(at["search"]["fits_from"].is_null());
  CHECK_FALSE(has_warning(at, "oom_fix_gpus"));
}

TEST_CASE("a comparison row that does not fit says from how many of its accelerator it would", "[search][no_fit]") {
  const json v = evaluate(llama405b_full(8));
  const json env = json::parse(gpucalc::compare_json(llama405b_full(8).dump(), "h100-sxm-80gb,b200-180gb"));
  REQUIRE(env["ok"] == true);
  const json& rows = env["value"]["rows"];
  // The H100 row is the scenario itself: the evaluate answer's count.
  CHECK(rows[0]["memory"]["fits_from_gpus"] == v["search"]["fits_from"]["gpus"]);
  // B200, 180 GiB: N ≥ 18 B × 405,853,388,800 / (0.8 × 193,273,528,320 B) = 47.2, fewer
  // than on H100.
  const int64_t b200 = rows[1]["memory"]["fits_from_gpus"].get<int64_t>();
  CHECK(b200 >= 48);
  CHECK(b200 < v["search"]["fits_from"]["gpus"].get<int64_t>());
}

TEST_CASE("nothing fits at any GPU count: the answer says so", "[search][no_fit]") {
  // A memory limit of 1% of 80 GiB, 0.8 GiB: every GPU holds at least its CUDA context,
  // 1 GiB (docs/memory-model.md), so no GPU count fits.
  json s = llama405b_full(8);
  s["model"] = "llama-3.1-70b";
  s["target"] = {{"max_memory_fraction", 0.01}};
  const json v = evaluate(s);
  CHECK(v["memory"]["fits"] == false);
  CHECK(v["search"]["fits_from"].is_null());
  CHECK(has_warning(v, "oom_fix_none"));
  CHECK_FALSE(has_warning(v, "oom_fix_gpus"));
}

TEST_CASE("the GPU count left open and nothing fits: what must change", "[search][no_fit]") {
  json s = llama405b_full(8);
  s.erase("parallel");
  s["model"] = "llama-3.1-70b";
  s["target"] = {{"max_memory_fraction", 0.01}};  // below the 1 GiB CUDA context, as above
  const json v = evaluate(s);
  CHECK(v["search"]["layouts_fitting"] == 0);
  CHECK(v["search"]["fits_from"].is_null());
  CHECK(has_warning(v, "memory_above_limit"));  // under capacity on many GPUs, over the 1% limit
  CHECK(has_warning(v, "oom_fix_none"));
}

TEST_CASE("a deadline missed because nothing fits says so, not a day count", "[search][no_fit]") {
  json s = llama405b_full(8);
  s.erase("parallel");
  s["model"] = "llama-3.1-70b";
  s["target"] = {{"max_memory_fraction", 0.01}, {"days", 30}};  // below the 1 GiB CUDA context
  const json v = evaluate(s);
  CHECK(v["search"]["target_met"] == false);
  CHECK(has_warning(v, "target_days_no_fit"));
  CHECK_FALSE(has_warning(v, "target_days_unreachable"));
  // A plan that fits and misses its deadline keeps the day count.
  json slow = llama405b_full(8);
  slow["parallel"] = {{"gpus", 256}};
  slow["training"]["tokens"] = 1e13;
  slow["target"] = {{"days", 1}};
  const json w = evaluate(slow);
  CHECK(w["memory"]["fits"] == true);
  CHECK(has_warning(w, "target_days_unreachable"));
  CHECK_FALSE(has_warning(w, "target_days_no_fit"));
}

TEST_CASE("the GPU count left open: no fits_from", "[search][no_fit]") {
  json s = llama405b_full(8);
  s.erase("parallel");
  const json v = evaluate(s);
  CHECK(v["memory"]["fits"] == true);
  CHECK(v["search"]["fits_from"].is_null());
}

// The scenario pins the layout: Llama 3.1 405B's full fine-tune with TP 1 × PP 1 keeps
// every layer's activations and 18 B per parameter of states on each stage of one data-parallel
// rank. ZeRO-3 shards the states, but with TP 1 × PP 1 one GPU still holds one sequence of
// 8,192 tokens through all 126 layers: even recomputed, the layer inputs alone are
// 126 × 8,192 × 16,384 × 2 B = 31.5 GiB, beside the gathered layers and their gradients.
json pinned(int64_t dp) {
  json s = llama405b_full(dp);
  s["parallel"] = {{"tp", 1}, {"pp", 1}, {"dp", dp}, {"cp", 1}};
  s["training"]["micro_batch"] = 1;
  s["training"]["recompute"] = "none";
  return s;
}

TEST_CASE("a pinned layout that fits on no GPU count: the layout the calculator would choose", "[search][no_fit]") {
  const json v = evaluate(pinned(8));
  REQUIRE(v["memory"]["fits"] == false);
  CHECK(v["search"]["fits_from"].is_null());  // dp fixed: no other count to try
  CHECK(has_warning(v, "oom_fix_layout_gpus"));
  CHECK_FALSE(has_warning(v, "oom_fix_none"));
  const json& open = v["search"]["fits_with_layout_open"];
  REQUIRE(open.is_object());
  // The same as the fewest GPUs the open scenario fits on (first test: 107 to 128).
  const json free = evaluate(llama405b_full(8));
  CHECK(open["gpus"] == free["search"]["fits_from"]["gpus"]);
  CHECK(open["days"].get<double>() == Approx(free["search"]["fits_from"]["days"].get<double>()).epsilon(1e-12));
  CHECK(open["memory_used_fraction"].get<double>() <= 0.8);
  const json& chosen = open["plan"]["chosen_by_calculator"];
  for (const char* k : {"gpus", "tp", "pp", "dp", "micro_batch", "recompute"})
    CHECK(std::find(chosen.begin(), chosen.end(), k) != chosen.end());
}

TEST_CASE("a pinned layout that does not fit where another layout of its count does", "[search][no_fit]") {
  // 128 GPUs: TP 8 × PP 16 fits (first test's upper bound); TP 1 × PP 1 × DP 128 does not.
  json s = pinned(128);
  s["training"]["global_batch"] = 128;  // DP 128 divides it
  const json v = evaluate(s);
  REQUIRE(v["memory"]["fits"] == false);
  CHECK(has_warning(v, "oom_fix_layout_here"));
  const json& open = v["search"]["fits_with_layout_open"];
  REQUIRE(open.is_object());
  CHECK(open["gpus"] == 128);
  CHECK(open["memory_used_fraction"].get<double>() <= 0.8);
  // Asked with the layout left open on these 128 GPUs, the answer is that layout.
  json free = llama405b_full(128);
  free["training"]["global_batch"] = 128;
  const json at = evaluate(free);
  CHECK(at["memory"]["fits"] == true);
  CHECK(at["plan"]["tp"] == open["plan"]["tp"]);
  CHECK(at["plan"]["pp"] == open["plan"]["pp"]);
  CHECK(at["training"]["days"].get<double>() == Approx(open["days"].get<double>()).epsilon(1e-12));
  const json& chosen = open["plan"]["chosen_by_calculator"];
  CHECK(std::find(chosen.begin(), chosen.end(), "gpus") == chosen.end());  // the count was kept
}
