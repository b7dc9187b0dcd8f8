// Megatron-Core activation CPU offloading (training.offload.activation_layers, its
// --cpu-offloading-num-layers): the offloaded layers' saved tensors in host memory but one,
// and each copy's time beyond the layer it hides under (core/src/step_time.cpp
// activation_offload_time); the Grace superchips' NVLink-C2C host link (gpus.json
// host_link_gbs).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "gpucalc/api.hpp"
#include "gpucalc/compute.hpp"
#include "gpucalc/hardware.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/scenario.hpp"

using namespace gpucalc;
using json = nlohmann::ordered_json;

namespace {

// Llama 3 70B on 64 GB200 as Megatron-Bridge's 26.04.01 FP8 Megatron-FSDP run
// (validation/mbridge260401_llama3_70b_64xgb200_fp8_fsdp.json), `offload` the training's
// offload object.
std::string offload_layers_scenario(const std::string& offload) {
  return R"({"model":"llama-3.1-70b","gpu":"gb200-186gb","training":{"tokens":1e12,"seq_len":8192,)"
         R"("global_batch":256,"micro_batch":2,"precision":"fp8","zero_stage":3,"grad_dtype":"bf16",)"
         R"("recompute":"none","offload":)" +
         offload + R"(},"parallel":{"gpus":64,"tp":1,"pp":1,"dp":64,"cp":1}})";
}

json offload_layers_answer(const std::string& offload) {
  const json env = json::parse(evaluate_json(offload_layers_scenario(offload)));
  REQUIRE(env["ok"] == true);
  return env["value"];
}

// Its layout: TP 1, PP 1, DP 64 (ZeRO-3), micro-batch 2, no recomputation.
Layout offload_layers_layout() {
  Layout l;
  l.dp = 64;
  l.micro_batch = 2;
  l.zero_stage = 3;
  return l;
}

std::string offload_layers_error(const std::string& sc) {
  const json env = json::parse(evaluate_json(sc));
  REQUIRE(env["ok"] == false);
  return env["error"]["code"].get<std::string>() + " at " + env["error"]["path"].get<std::string>();
}

}  // namespace

TEST_CASE("Grace superchips copy to the host over NVLink-C2C and other parts over PCIe", "[offload][catalog]") {
  const Training t;
  // 900 GB/s bidirectional per Grace and its two GPUs: 225 GB/s per GPU and direction, at the
  // 80% a pinned copy reaches over PCIe (no C2C measurement).
  CHECK(host_link_bytes_per_s(*find_gpu("gb200-186gb"), t) == Approx(225e9 * 0.8));
  CHECK(host_link_bytes_per_s(*find_gpu("gb300-279gb"), t) == Approx(225e9 * 0.8));
  // PCIe 5.0 x16, 63 GB/s per direction.
  CHECK(host_link_bytes_per_s(*find_gpu("h100-sxm-80gb"), t) == Approx(63e9 * 0.8));
  Training given;
  given.offload.pcie_gbs = 100;
  CHECK(host_link_bytes_per_s(*find_gpu("gb200-186gb"), given) == Approx(100e9));
}

TEST_CASE("offloaded layers keep one layer's activations on the GPU and the rest on the host", "[offload][memory]") {
  const json none = offload_layers_answer(R"({})"), forty = offload_layers_answer(R"({"activation_layers":40})");
  const Scenario s = *parse_scenario(offload_layers_scenario(R"({})"));
  const Layout l = offload_layers_layout();
  const double per_layer = activation_bytes_per_layer(s.problem.model, s.problem.training, l);
  const double host = forty["memory"]["host_bytes"].get<double>();
  CHECK(host == Approx(39 * per_layer).epsilon(1e-9));
  CHECK(none["memory"]["activations_bytes"].get<double>() - forty["memory"]["activations_bytes"].get<double>() ==
        Approx(host).epsilon(1e-6));
  // The host term names its source, and ZeRO-Offload's beside it when the optimizer is there too.
  const auto host_source = [](const json& v) {
    for (const json& it : v["memory"]["items"])
      if (it["name"] == "host_offloaded_states") return it["source"].get<std::string>();
    return std::string();
  };
  CHECK(host_source(forty) == "Megatron-Core --cpu-offloading-num-layers");
  CHECK(host_source(offload_layers_answer(R"({"activation_layers":40,"optimizer":true})")) ==
        "Ren et al. 2021 (ZeRO-Offload) §4; Megatron-Core --cpu-offloading-num-layers");
  // The published run fits the 186 GB of a GB200 with it; without it its 80 layers of
  // activations alone are well above them.
  CHECK(none["memory"]["activations_bytes"].get<double>() > 1.5 * 186e9);
}

TEST_CASE("a copy shows only what it takes beyond the layer it hides under", "[offload][time]") {
  // A link fast enough hides every copy; a slow one shows, per micro-batch and offloaded layer,
  // the two copies less a layer's forward and backward: the difference between two slow links
  // is the copies' alone, 2 × N × m × B × (1/l1 − 1/l2).
  const json fast = offload_layers_answer(R"({"activation_layers":40,"pcie_gbs":10000})");
  CHECK(fast["performance"]["breakdown"]["offload_s"].get<double>() == 0.0);
  const json slow = offload_layers_answer(R"({"activation_layers":40,"pcie_gbs":10})");
  const json slower = offload_layers_answer(R"({"activation_layers":40,"pcie_gbs":5})");
  const Scenario s = *parse_scenario(offload_layers_scenario(R"({})"));
  const Layout l = offload_layers_layout();
  const double bytes = activation_bytes_per_layer(s.problem.model, s.problem.training, l);
  const double m = 2;  // 256 sequences over 64 ranks, 2 at a time
  CHECK(slower["performance"]["breakdown"]["offload_s"].get<double>() -
            slow["performance"]["breakdown"]["offload_s"].get<double>() ==
        Approx(2 * 40 * m * bytes * (1 / 5e9 - 1 / 10e9)).epsilon(1e-9));
  // On the C2C link of the published run the forward copies show and the backward ones hide.
  const json c2c = offload_layers_answer(R"({"activation_layers":40})");
  const double shown = c2c["performance"]["breakdown"]["offload_s"].get<double>();
  CHECK(shown > 0.0);
  CHECK(shown < 40 * m * bytes / (225e9 * 0.8));
}

TEST_CASE("activation offloading keeps to what Megatron-Core allows", "[offload][errors]") {
  const std::string ok = offload_layers_scenario(R"({"activation_layers":40})");
  CHECK(offload_layers_error(offload_layers_scenario(R"({"activation_layers":80})")) ==
        "offload_layers_max at /training/offload/activation_layers");
  std::string titan = ok;
  titan.replace(titan.find(R"("recompute")"), 0, R"("framework":"torchtitan",)");
  CHECK(offload_layers_error(titan) == "offload_layers_framework at /training/offload/activation_layers");
  std::string full = ok;
  full.replace(full.find(R"("recompute":"none")"), 18, R"("recompute":"full")");
  CHECK(offload_layers_error(full) == "offload_layers_recompute at /training/offload/activation_layers");
  std::string piped = ok;
  piped.replace(piped.find(R"("pp":1,"dp":64)"), 14, R"("pp":2,"dp":32)");
  CHECK(offload_layers_error(piped) == "offload_layers_pp at /parallel/pp");
  // A step time measured on another layout is held to the single stage too.
  std::string measured = ok;
  measured.insert(measured.size() - 1,
                  R"(,"calibration":{"measured_step_time_s":9,"layout":{"tp":1,"pp":2,"dp":32,"cp":1,"vpp":1,)"
                  R"("micro_batch":2,"zero_stage":3,"recompute":"none"}})");
  CHECK(offload_layers_error(measured) == "offload_layers_pp at /calibration/layout/pp");
  // ... and without recomputation.
  std::string recomputed = measured;
  recomputed.replace(recomputed.find(R"("pp":2,"dp":32)"), 14, R"("pp":1,"dp":64)");
  recomputed.replace(recomputed.find(R"("recompute":"none"}})"), 18, R"("recompute":"full")");
  CHECK(offload_layers_error(recomputed) == "offload_layers_recompute at /calibration/layout/recompute");
  // Left open, the search keeps to a single stage without recomputation.
  const json env = json::parse(evaluate_json(
      R"({"model":"llama-3.1-70b","gpu":"gb200-186gb","training":{"tokens":1e12,"seq_len":8192,"global_batch":256,)"
      R"("offload":{"activation_layers":20}},"parallel":{"gpus":64}})"));
  REQUIRE(env["ok"] == true);
  CHECK(env["value"]["plan"]["pp"] == 1);
  CHECK(env["value"]["plan"]["recompute"] == "none");
}

TEST_CASE("the Megatron export passes the offloaded layers and the others say they cannot", "[offload][export]") {
  const std::string sc = offload_layers_scenario(R"({"activation_layers":40})");
  const json mg = json::parse(export_json(sc, "megatron"));
  REQUIRE(mg["ok"] == true);
  CHECK(mg["value"]["text"].get<std::string>().find("--cpu-offloading-num-layers 40") != std::string::npos);
  const json titan = json::parse(export_json(sc, "torchtitan"));
  REQUIRE(titan["ok"] == true);
  CHECK(titan["value"]["warnings"].dump().find("training.offload.activation_layers = 40") != std::string::npos);
}
