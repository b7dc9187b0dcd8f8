// Muon (training.optimizer "muon"): one fp32 momentum on the hidden layers' matrices, AdamW
// on the embedding and head (Jordan et al. 2024; Megatron-LM --optimizer muon), and the
// Newton-Schulz iterations' matmuls in the optimizer step (core/src/muon_time.cpp).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "../../core/src/layer_time.hpp"
#include "../../core/src/muon_time.hpp"
#include "gpucalc/api.hpp"
#include "gpucalc/hardware.hpp"
#include "gpucalc/perf.hpp"
#include "gpucalc/scenario.hpp"

using namespace gpucalc;
using json = nlohmann::ordered_json;

namespace {

// Llama 3.1 70B on 64 H100 as TP 8 × DP 8, every layout field fixed.
json muon_answer(const std::string& optimizer, int zero_stage) {
  const std::string sc =
      R"({"model":"llama-3.1-70b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":8192,"global_batch":512,)"
      R"("micro_batch":1,"recompute":"selective","optimizer":")" +
      optimizer + R"(","zero_stage":)" + std::to_string(zero_stage) +
      R"(},"parallel":{"gpus":64,"tp":8,"pp":1,"dp":8}})";
  const json env = json::parse(evaluate_json(sc));
  REQUIRE(env["ok"] == true);
  return env["value"];
}

}  // namespace

TEST_CASE("Muon keeps one fp32 moment on the matrices and AdamW's two on the embedding and head", "[muon][memory]") {
  const json adam = muon_answer("adamw", 0), muon = muon_answer("muon", 0);
  const json& pb = adam["model"]["params_breakdown"];
  const double tp = 8;
  // AdamW under Megatron: fp32 master + two fp32 moments, 12 B per parameter; Muon: master +
  // momentum, 8 B, and the embedding and untied head's second moment, 4 B each.
  const double stage_params = adam["memory"]["optimizer_bytes"].get<double>() / 12.0;
  const double vocab = (pb["embedding"].get<double>() + pb["output_head"].get<double>()) / tp;
  CHECK(muon["memory"]["optimizer_bytes"].get<double>() == Approx(8.0 * stage_params + 4.0 * vocab).epsilon(1e-12));
  // The formula says so, each part over its shard under ZeRO-1.
  std::string formula;
  const json sharded = muon_answer("muon", 1);
  for (const json& it : sharded["memory"]["items"])
    if (it["name"] == "optimizer_states") formula = it["formula"].get<std::string>();
  CHECK(formula ==
        "8 B × stage params (fp32 master + muon state) / (dp·cp = 8) + 4 B × embedding and output-head params "
        "(AdamW's second moment) / (dp·cp = 8)");
  // ZeRO-1 shards it over the 8 data-parallel ranks.
  CHECK(sharded["memory"]["optimizer_bytes"].get<double>() ==
        Approx(muon["memory"]["optimizer_bytes"].get<double>() / 8).epsilon(1e-12));
}

TEST_CASE("a Newton-Schulz step costs five iterations of X·Xᵀ, A·A and B·X", "[muon]") {
  const Scenario s =
      *parse_scenario(R"({"model":"llama-3.1-70b","gpu":"h100-sxm-80gb","training":{"tokens":1e9,"seq_len":4096}})");
  const Kernels k = kernels_for(s.problem.gpu, perf_profile_for("h100-sxm-80gb"), s.problem.training, Efficiency{});
  const double rate = k.peak16 * k.mm_eff16;  // every GEMM below is past the size roll-off (data/perf.json)
  // A square 8192 matrix (Llama 3.1 70B's q and o): 5 × (2·8192³ + 2·8192³ + 2·8192³).
  CHECK(ns_matrix_time(k, 8192, 8192) == Approx(5 * 6 * 8192.0 * 8192 * 8192 / rate).epsilon(1e-12));
  // Its fused gate/up projection, 8192 × 57344: m = 8192, 5 × (4·m²·n + 2·m³); the same transposed.
  const double fc1 = 5 * (4 * 8192.0 * 8192 * 57344 + 2 * 8192.0 * 8192 * 8192) / rate;
  CHECK(ns_matrix_time(k, 8192, 57344) == Approx(fc1).epsilon(1e-12));
  CHECK(ns_matrix_time(k, 57344, 8192) == Approx(fc1).epsilon(1e-12));
  // A layer: q, k, v, o, fc1, fc2, whole.
  const ModelShape& m = s.problem.model;
  const double layer = 2 * ns_matrix_time(k, 8192, 8192) + 2 * ns_matrix_time(k, 8192, 1024) +
                       ns_matrix_time(k, 8192, 2.0 * 28672) + ns_matrix_time(k, 28672, 8192);
  CHECK(muon_layer_time(m, k, false).dense == Approx(layer).epsilon(1e-12));
  CHECK(muon_layer_time(m, k, false).expert == 0);
}

TEST_CASE("the step pays the Newton-Schulz time of its matrices, shared by a sharded optimizer", "[muon]") {
  const double adam0 = muon_answer("adamw", 0)["performance"]["breakdown"]["optimizer_s"].get<double>();
  const double adam1 = muon_answer("adamw", 1)["performance"]["breakdown"]["optimizer_s"].get<double>();
  const double muon0 = muon_answer("muon", 0)["performance"]["breakdown"]["optimizer_s"].get<double>();
  const double muon1 = muon_answer("muon", 1)["performance"]["breakdown"]["optimizer_s"].get<double>();
  // Muon's state traffic is 8 B of the 12 B AdamW reads and writes; what remains of the
  // difference is Newton-Schulz. Every TP rank orthogonalises the 80 layers' matrices whole
  // (--muon-tp-mode duplicated): ~1.3e16 FLOPs, ~18 s on one H100 at its measured BF16 GEMM
  // rate; the distributed optimizer gives each of the 8 DP ranks an eighth.
  const double ns0 = muon0 - adam0 * (2 * 8.0 + 4 + 2) / (2 * 12.0 + 4 + 2);
  const double ns1 = muon1 - adam1 * (2 * 8.0 + 4 + 2) / (2 * 12.0 + 4 + 2);
  CHECK(ns0 > 10.0);
  CHECK(ns0 < 25.0);
  CHECK(ns1 == Approx(ns0 / 8).epsilon(1e-9));
}

TEST_CASE("Muon is refused with a CPU-offloaded optimizer, and exported to each framework's switch", "[muon]") {
  const json env = json::parse(evaluate_json(
      R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb","training":{"tokens":1e9,"seq_len":4096,"optimizer":"muon","offload":{"optimizer":true}}})"));
  REQUIRE(env["ok"] == false);
  CHECK(env["error"]["path"] == "/training/offload/optimizer");
  CHECK(env["error"]["code"] == "muon_offload");
  // Megatron-LM --optimizer muon; DeepSpeed's optimizer type Muon (runtime/config.py
  // MUON_OPTIMIZER); LLaMA-Factory use_muon.
  const std::string job =
      R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb","training":{"tokens":1e9,"seq_len":4096,"global_batch":64,)"
      R"("optimizer":"muon")";
  const auto text = [&](const std::string& extra, const std::string& format) {
    const json out = json::parse(export_json(job + extra + R"(},"parallel":{"gpus":8}})", format));
    REQUIRE(out["ok"] == true);
    return out["value"]["text"].get<std::string>();
  };
  CHECK(text("", "megatron").find("--optimizer muon") != std::string::npos);
  CHECK(text(R"(,"framework":"deepspeed")", "deepspeed").find(R"("type": "Muon")") != std::string::npos);
  const std::string lf = text(R"(,"framework":"hf","stage":"lora")", "llamafactory");
  CHECK(lf.find("use_muon: true") != std::string::npos);
  CHECK(lf.find("optim:") == std::string::npos);
}
