// Calibration that carries (core/src/calibration_fit.cpp, docs/performance-model.md
// "Calibration"): the compute knob fitted to one measured run prices the others. Tested on
// published series measured with one software stack on one cluster: calibrated on the
// smallest run, the larger ones are predicted and their errors asserted: within ±10% for
// Narayanan et al. 2021 Table 1 (measured −6.0%, −8.9%, −6.9%) and ±5% for Korthikanti et
// al. 2022 Table 5 (+1.7%, −0.6%, +4.2%); docs/performance-model.md "Calibration".
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "gpucalc/calibration_fit.hpp"
#include "gpucalc/report.hpp"
#include "source_file.hpp"

using namespace gpucalc;
using json = nlohmann::ordered_json;

namespace {

json row(const std::string& id) { return json::parse(read_source_file("validation/" + id + ".json")); }

json run(const json& scenario, const std::optional<FittedKnobs>& k) {
  Expected<Scenario> s = parse_scenario(scenario.dump());
  REQUIRE(s);
  Expected<Answer> a = evaluate(with_knobs(*s, k));
  REQUIRE(a);
  return json::parse(to_json(*a));
}

// The row's first reported figure as the model reports it, and the step time it implies:
// a throughput (HFU, TFLOP/s) is the model's FLOPs over the step, so the measured step is
// the predicted one × predicted / reported; a step time is itself.
double predicted_metric(const json& v, const std::string& key) {
  if (key == "hfu") return v["performance"]["hfu"].get<double>();
  if (key == "step_time_s") return v["performance"]["step_time_s"].get<double>();
  FAIL("no rule for metric " << key);
  return 0;
}

double error_of(const json& r, const json& v) {
  const std::string key = r["reported"].begin().key();
  return predicted_metric(v, key) / r["reported"].begin().value().get<double>() - 1;
}

double measured_step(const json& r) {
  const json v = run(r["scenario"], std::nullopt);
  const std::string key = r["reported"].begin().key();
  const double reported = r["reported"].begin().value().get<double>();
  const double step = v["performance"]["step_time_s"].get<double>();
  return key == "step_time_s" ? reported : step * predicted_metric(v, key) / reported;
}

FittedKnobs fit_on(const json& r) {
  json sc = r["scenario"];
  sc["calibration"] = {{"measured_step_time_s", measured_step(r)}};
  Expected<Scenario> s = parse_scenario(sc.dump());
  REQUIRE(s);
  Expected<std::optional<FittedKnobs>> k = fit_knobs(*s);
  REQUIRE(k);
  REQUIRE(k->has_value());
  return **k;
}

}  // namespace

TEST_CASE("Narayanan et al. 2021 Table 1: calibrated on 1.7B / 32 GPUs, the 145.6B-1T runs on 1,536-3,072 GPUs",
          "[calibration]") {
  const json small = row("megatron2021_t1_1.7b");
  const FittedKnobs k = fit_on(small);
  // The model is +10.8% on the 1.7B run's HFU (docs/validation.md): the knob takes it out.
  CHECK(k.compute_scale == Approx(1 / (1 + error_of(small, run(small["scenario"], std::nullopt)))).epsilon(0.02));
  CHECK(std::abs(error_of(small, run(small["scenario"], k))) < 1e-6);
  // Carried to the larger runs: 145.6B −6.0%, 529.6B −8.9%, 1T −6.9% (uncalibrated +2.4%,
  // −1.0%, +1.9%): the 1.7B run (hidden 2304, micro-batch 16 on one GPU) loses more to
  // what the model does not price than the large runs' GEMMs do, and the knob carries it.
  for (const char* id : {"megatron2021_t1_145.6b", "megatron2021_t1_529.6b", "megatron2021_t1_1008b"}) {
    const json r = row(id);
    const double e = error_of(r, run(r["scenario"], k));
    INFO(id << " error " << e);
    CHECK(std::abs(e) <= 0.10);
  }
}

TEST_CASE("Korthikanti et al. 2022 Table 5: calibrated on 22B / 8 GPUs, 175B-1T on 64-512 GPUs", "[calibration]") {
  const json small = row("korthikanti2022_22b");
  const FittedKnobs k = fit_on(small);
  CHECK(std::abs(error_of(small, run(small["scenario"], k))) < 1e-6);
  // Uncalibrated −1.8%, −4.2%, +0.3%; the 22B run's −3.3% carried: +1.7%, −0.6%, +4.2%.
  for (const char* id : {"korthikanti2022_175b", "korthikanti2022_530b", "korthikanti2022_1t"}) {
    const json r = row(id);
    const double e = error_of(r, run(r["scenario"], k));
    INFO(id << " error " << e);
    CHECK(std::abs(e) <= 0.05);
  }
}

TEST_CASE("a step time measured on 64 GPUs sizes the 4,096-GPU run: the knob carries into every layout searched",
          "[calibration]") {
  json sc = json::parse(R"({"model":"llama-3.1-70b","gpu":"h100-sxm-80gb",
    "training":{"tokens":1e12,"seq_len":8192,"global_batch":1024},"parallel":{"gpus":4096}})");
  const json plain = run(sc, std::nullopt);
  // Measured: TP 8 × PP 4 × DP 2 at micro-batch 1, global batch 64, 1.3× the model's step.
  json at64 = json::parse(R"({"model":"llama-3.1-70b","gpu":"h100-sxm-80gb",
    "training":{"tokens":1e12,"seq_len":8192,"global_batch":64,"micro_batch":1,"zero_stage":1,"recompute":"selective"},
    "parallel":{"tp":8,"pp":4,"dp":2,"cp":1,"vpp":1}})");
  const double predicted64 = run(at64, std::nullopt)["performance"]["step_time_s"].get<double>();
  sc["calibration"] = {{"measured_step_time_s", 1.3 * predicted64},
                       {"layout",
                        {{"tp", 8},
                         {"pp", 4},
                         {"dp", 2},
                         {"cp", 1},
                         {"vpp", 1},
                         {"micro_batch", 1},
                         {"global_batch", 64},
                         {"zero_stage", 1},
                         {"recompute", "selective"}}}};
  const json v = run(sc, std::nullopt);
  const json& f = v["calibration"]["fitted"];
  CHECK(f["measured_s"].get<double>() == Approx(1.3 * predicted64));
  CHECK(f["predicted_s"].get<double>() == Approx(predicted64));
  // Some of the 64-GPU step is communication the knob does not touch, so the compute knob
  // falls further than 1/1.3.
  const double kc = f["compute_scale"].get<double>();
  CHECK(kc < 1 / 1.3);
  CHECK(kc > 0.5);
  CHECK(f["network_scale"].get<double>() == 1.0);
  CHECK(v["plan"]["gpus"] == 4096);
  // The 4,096-GPU answer is the model's with the knob: slower than the uncalibrated one,
  // by at most the knob, and no step_time factor (its layout is not the measured one).
  const double t = v["performance"]["step_time_s"].get<double>();
  const double t0 = plain["performance"]["step_time_s"].get<double>();
  CHECK(t > t0);
  CHECK(t <= t0 / kc * 1.0001);
  CHECK(v["calibration"]["step_time"].is_null());
  bool noted = false;
  for (const auto& w : v["warnings"])
    if (w["code"] == "calibration_fitted") noted = true;
  CHECK(noted);
}
