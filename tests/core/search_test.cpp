// Search: the answer fits, honours what the scenario fixed, and meets the deadline
// with no fewer GPUs than the FLOP bound allows.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gpucalc/api.hpp"
#include "gpucalc/report.hpp"
#include "gpucalc/scenario.hpp"
#include "source_file.hpp"

using namespace gpucalc;
using json = nlohmann::ordered_json;

namespace {
std::string read(const std::string& rel) { return read_source_file(rel); }
}  // namespace

TEST_CASE("Llama 3.1 70B, 15T tokens on H100 within 60 days", "[search][example]") {
  const json env = json::parse(evaluate_json(read("examples/llama-3.1-70b-h100.json")));
  REQUIRE(env["ok"] == true);
  const json& v = env["value"];
  const double days = v["training"]["days"];
  const int64_t gpus = v["plan"]["gpus"];
  CHECK(days <= 60.0);
  CHECK(v["memory"]["fits"] == true);
  CHECK(v["search"]["target_met"] == true);
  // FLOP bound: n ≥ T · F_token / (peak · MFU · 60 days) with F_token = 6Ψ_mm + 12·L·s·a·d;
  // no layout beats the sustained matmul rate, so MFU < 0.803 · 0.88 (data/perf.json).
  const double f = 6.0 * 69'501'714'432.0 + 12.0 * 80 * 8192 * 8192;
  CHECK(v["model"]["flops_per_token"]["model"].get<double>() == Approx(f).epsilon(1e-12));
  const double mfu = v["performance"]["mfu"];
  CHECK(mfu < 0.803 * 0.88);
  CHECK(mfu > 0.30);
  const double bound = 15e12 * f / (989e12 * 0.803 * 0.88 * 60 * 86400);
  CHECK(gpus >= bound);
  CHECK(v["search"]["target_met"] == true);
  CHECK(gpus == v["plan"]["tp"].get<int64_t>() * v["plan"]["pp"].get<int64_t>() * v["plan"]["dp"].get<int64_t>() *
                    v["plan"]["cp"].get<int64_t>());
  // Days follow from the layout's step time: steps × step time.
  const double steps = 15e12 / 16777216.0;
  CHECK(days == Approx(steps * v["performance"]["step_time_s"].get<double>() / 86400).epsilon(1e-12));
}

TEST_CASE("the search keeps what the scenario fixed and chooses the rest", "[search]") {
  auto s = parse_scenario(R"({"model":"llama-3.1-70b","gpu":"h100-sxm-80gb",
      "training":{"tokens":1e12,"seq_len":8192,"global_batch":1024,"recompute":"selective"},
      "parallel":{"gpus":256,"tp":4}})");
  REQUIRE(s.ok());
  auto out = evaluate(*s);
  REQUIRE(out.ok());
  const Layout& l = out->chosen.best.layout;
  CHECK(l.gpus() == 256);
  CHECK(l.tp == 4);
  CHECK(l.recompute == Recompute::selective);
  const json plan = json::parse(to_json(*out))["plan"];
  CHECK(plan["gpus"] == 256);
  const auto chosen = plan["chosen_by_calculator"];
  CHECK(std::find(chosen.begin(), chosen.end(), "tp") == chosen.end());
  CHECK(std::find(chosen.begin(), chosen.end(), "pp") != chosen.end());
}

TEST_CASE("memory.stage_role names a middle stage when it is the fullest", "[search][memory]") {
  // Llama 3.1 8B's 32 layers split 2/14/14/2 over four stages (parallel.first/last_stage_layers).
  // Stage 0 holds 2 layers (218M parameters each) and the embedding (128,256 × 4,096 ≈ 525M,
  // under 3 layers' worth) with 4 micro-batches in flight; stage 1 holds 14 layers with 3
  // (1F1B keeps p − s in flight on stage s; Narayanan et al. 2021 §2.2), so stage 1, a middle
  // stage, is the worst GPU.
  auto s = parse_scenario(R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb",
      "training":{"tokens":1e10,"seq_len":4096,"global_batch":64,"micro_batch":1},
      "parallel":{"gpus":4,"tp":1,"pp":4,"vpp":1,"first_stage_layers":2,"last_stage_layers":2}})");
  REQUIRE(s.ok());
  auto out = evaluate(*s);
  REQUIRE(out.ok());
  const json mem = json::parse(to_json(*out))["memory"];
  CHECK(mem["stage"] == 1);
  CHECK(mem["layers_on_gpu"] == 14);
  CHECK(mem["micro_batches_in_flight"] == 3);
  CHECK(mem["stage_role"] == "middle");  // was "last" before the fix
}

TEST_CASE("the search never returns a layout that does not fit when one does", "[search][property]") {
  for (const char* model : {"llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "gpt3-175b"}) {
    for (const char* gpu : {"a100-sxm-40gb", "h100-sxm-80gb", "h20-96gb"}) {
      for (int gpus : {64, 512}) {
        const std::string sc =
            std::string(R"({"model":")") + model + R"(","gpu":")" + gpu +
            R"(","training":{"tokens":1e12,"seq_len":2048,"global_batch":1024},"parallel":{"gpus":)" +
            std::to_string(gpus) + "}}";
        const json env = json::parse(evaluate_json(sc));
        INFO(sc);
        REQUIRE(env["ok"] == true);
        const json& v = env["value"];
        // The search keeps under 80% of device memory (Fujii et al. 2024's safe line).
        if (v["search"]["layouts_fitting"].get<int64_t>() > 0) {
          CHECK(v["memory"]["within_limit"] == true);
          CHECK(v["memory"]["total_bytes"].get<double>() <= 0.8 * v["memory"]["capacity_bytes"].get<double>());
        } else {
          CHECK(v["memory"]["within_limit"] == false);
        }
        CHECK(std::isfinite(v["training"]["days"].get<double>()));
        CHECK(v["plan"]["gpus"] == gpus);
      }
    }
  }
}

TEST_CASE("without a deadline or a GPU count, the answer is the smallest count that fits", "[search]") {
  const json env = json::parse(evaluate_json(
      R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":8192,"global_batch":512}})"));
  REQUIRE(env["ok"] == true);
  const json& v = env["value"];
  CHECK(v["memory"]["fits"] == true);
  CHECK(v["plan"]["gpus"] == v["search"]["min_gpus_fit"]);
  // 16 B/param of model states alone is 128 GB for 8B: more than one 80 GB GPU.
  CHECK(v["plan"]["gpus"].get<int64_t>() >= 2);
}

TEST_CASE("an unreachable deadline is a warning with the fastest plan, not an error", "[search]") {
  const json env = json::parse(evaluate_json(
      R"({"model":"llama-3.1-405b","gpu":"h100-sxm-80gb","training":{"tokens":15e12,"seq_len":8192,"global_batch":256},"target":{"days":1}})"));
  REQUIRE(env["ok"] == true);
  CHECK(env["value"]["search"]["target_met"] == false);
  bool warned = false;
  for (const auto& w : env["value"]["warnings"])
    warned = warned || w["message"].get<std::string>().find("not reachable") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("gpucalc search returns the best, the top layouts and a GPU-count curve with its Pareto front",
          "[search][curve]") {
  const json env = json::parse(search_json(read("examples/llama-3.1-70b-h100.json"), 5));
  REQUIRE(env["ok"] == true);
  const json& v = env["value"];
  // The best layout is the one evaluate picks.
  const json ev = json::parse(evaluate_json(read("examples/llama-3.1-70b-h100.json")))["value"];
  CHECK(v["best"]["plan"] == ev["plan"]);
  CHECK(v["best"]["training"]["days"] == ev["training"]["days"]);
  // Top layouts: at the best's GPU count, fitting, fastest first.
  REQUIRE(v["top"].size() == 5);
  double prev = 0;
  for (const auto& t : v["top"]) {
    CHECK(t["plan"]["gpus"] == v["best"]["plan"]["gpus"]);
    CHECK(t["memory"]["fits"] == true);
    const double st = t["performance"]["step_time_s"];
    CHECK(st >= prev * (1 - 1e-4));
    prev = st;
  }
  CHECK(v["top"][0]["plan"] == v["best"]["plan"]);
  // Curve: ascending GPU counts; a point is Pareto-optimal iff it is faster than every
  // smaller count; the smallest count is always on the front.
  const json& curve = v["curve"];
  REQUIRE(curve.size() > 3);
  CHECK(curve[0]["pareto"] == true);
  CHECK(curve[0]["gpus"] == v["search"]["min_gpus_fit"]);
  double best_days = 1e300;
  int64_t prev_n = 0;
  for (const auto& pt : curve) {
    CHECK(pt["gpus"].get<int64_t>() > prev_n);
    prev_n = pt["gpus"];
    const double d = pt["days"];
    CHECK(pt["gpu_hours"].get<double>() == Approx(d * 24 * pt["gpus"].get<double>()).epsilon(1e-9));
    // The front and the deadline count wall-clock days: failures, checkpoints, restarts
    // (null when failures outpace progress, at the largest counts).
    const double wall = pt["goodput_days"].is_null() ? 1e300 : pt["goodput_days"].get<double>();
    CHECK(wall >= d);
    CHECK(pt["pareto"] == (wall < best_days));
    best_days = std::min(best_days, wall);
  }
  // The answer is the smallest count on the curve that meets the deadline.
  for (const auto& pt : curve) {
    if (pt["goodput_days"].is_number() && pt["goodput_days"].get<double>() <= 60.0) {
      CHECK(pt["gpus"] == v["best"]["plan"]["gpus"]);
      break;
    }
  }
}

TEST_CASE("search refuses bad input exactly as evaluate does", "[search][errors]") {
  const std::string bad = R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":-4}})";
  CHECK(json::parse(search_json(bad, 10)) == json::parse(evaluate_json(bad)));
}
