// NVFP4 (training.precision "fp4"): Transformer Engine's NVFP4BlockScaling recipe under
// Megatron-Core, worked out by hand (docs/performance-model.md "NVFP4", docs/memory-model.md
// §2c): the linear layers' GEMMs at the measured fraction of the FP4 peak, their saved
// inputs and cached weights at 0.5 B plus an E4M3 scale per 16 elements.
#include <catch2/catch.hpp>
#include <string>

#include <nlohmann/json.hpp>

#include "gpucalc/api.hpp"
#include "gpucalc/compute.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/perf.hpp"
#include "gpucalc/scenario.hpp"

using namespace gpucalc;
using Json = nlohmann::json;

namespace {

constexpr double kFp4Elem = 0.5 + 1.0 / 16;  // E2M1 nibble + one E4M3 scale per 16 values

Training llama70b(Precision p) {
  Training t;
  t.seq_len = 8192;
  t.global_batch = 2048;
  t.tokens = 15e12;
  t.precision = p;
  return t;
}

// Llama 3.1 70B on B200 at TP 8, PP 1, the step priced with HBM made effectively free so
// only the GEMM and attention rates remain (the casts and element-wise kernels vanish).
StepTime step_on_b200(const std::string& precision) {
  auto sc = parse_scenario(R"({"model":"llama-3.1-70b","gpu":{"base":"b200-180gb","memory_bw_tbs":10000},
    "training":{"tokens":1e12,"seq_len":8192,"global_batch":64,"micro_batch":1,"precision":")" +
                           precision + R"(","zero_stage":1,"recompute":"none"}})");
  REQUIRE(sc.ok());
  const Problem& p = sc->problem;
  Layout l;
  l.tp = 8;
  l.dp = 8;
  l.micro_batch = 1;
  l.zero_stage = 1;
  REQUIRE_FALSE(check_layout(p.model, p.training, l));
  return step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency);
}

}  // namespace

TEST_CASE("Catalog: FP4 peaks of the Blackwell parts, none before", "[fp4][catalog]") {
  // Dense FP4: HGX B200 9,000 and GB200 10,000 TFLOP/s (glennklockwood.com B200 tables),
  // GB300 15,000 (Verda: 1,080 PF per NVL72 rack / 72).
  CHECK(peak_flops(*find_gpu("b200-180gb"), Precision::fp4) == Approx(9000e12));
  CHECK(peak_flops(*find_gpu("gb200-186gb"), Precision::fp4) == Approx(10000e12));
  CHECK(peak_flops(*find_gpu("gb300-279gb"), Precision::fp4) == Approx(15000e12));
  CHECK_FALSE(find_gpu("h100-sxm-80gb")->fp4_tflops.value);
  // B200's NVFP4 GEMM: 3,904 of 9,000 TFLOP/s measured (data/perf.json NVFP4-GEMM).
  CHECK(perf_profile_for("b200-180gb").fp4_matmul.value == Approx(3904.0 / 9000).margin(5e-4));
}

TEST_CASE("NVFP4 GEMMs run at the FP4 rate, attention and the head at the BF16 rate", "[fp4][compute]") {
  // With HBM free, a step is X + K / r: X the attention and output layer (BF16 in every
  // recipe), K the linear layers' GEMM work, r the GEMM rate of the precision — BF16
  // 2,250 × 0.776, FP8 4,500 × 0.763, FP4 9,000 × 0.434 (MAMF and NVFP4-GEMM measurements;
  // the sustained clock multiplies all three). Then (T8 − T4) / (T16 − T8) equals
  // (1/r8 − 1/r4) / (1/r16 − 1/r8) whatever X and K are.
  const double r16 = 2250 * 0.776, r8 = 4500 * 0.763, r4 = 9000 * 0.434;
  const double t16 = step_on_b200("bf16").compute_s, t8 = step_on_b200("fp8").compute_s,
               t4 = step_on_b200("fp4").compute_s;
  REQUIRE(t16 > t8);
  REQUIRE(t8 > t4);
  CHECK((t8 - t4) / (t16 - t8) == Approx((1 / r8 - 1 / r4) / (1 / r16 - 1 / r8)).epsilon(0.01));
}

TEST_CASE("Llama 3.1 70B layer under NVFP4: 25.59 h saved per token instead of 28 (FP8)", "[fp4][memory]") {
  // As tests/core/fp8_memory_test.cpp, units of h = 8192, TP 8 with SP: the QKV and fc1
  // inputs (2 h) and fc2's input (f = 3.5 h) kept as NVFP4 column-wise copies, 0.5625 B
  // each: 5.5 × 0.5625 = 3.09375 h; the 16-bit tensors as before: norms 4 h, Q K V O
  // 4.5 h, the SwiGLU input 14 h. 25.59375 h, plus FlashAttention's fp32 LSE.
  const ModelShape m = *find_model("llama-3.1-70b");
  Layout l;
  l.tp = 8;
  const double sbh = 8192.0 * 8192;
  const double lse = 4.0 * 8192 * 64 / 8;
  CHECK(activation_bytes_per_layer(m, llama70b(Precision::fp4), l) ==
        Approx((22.5 + 5.5 * kFp4Elem) * sbh / 8 + lse).epsilon(1e-12));
}

TEST_CASE("NVFP4 weight cache: row- and column-wise FP4 copies of the local weights", "[fp4][memory]") {
  const ModelShape m = *find_model("llama-3.1-70b");
  Layout l;
  l.tp = 8;
  l.dp = 8;
  l.zero_stage = 1;
  const StageMemory fp8 = stage_memory(m, llama70b(Precision::fp8), l, Overheads{}, 0);
  const StageMemory fp4 = stage_memory(m, llama70b(Precision::fp4), l, Overheads{}, 0);
  REQUIRE(fp8.fp8_weight_cache > 0);  // 1 B per local parameter
  CHECK(fp4.fp8_weight_cache == Approx(2 * kFp4Elem * fp8.fp8_weight_cache).epsilon(1e-12));
}

TEST_CASE("NVFP4's parameter all-gather moves 0.5625 B per weight", "[fp4][network]") {
  // ZeRO-1 under Megatron: the gradients reduce-scattered in fp32 (grad_dtype's default,
  // Megatron's grad_reduce_in_fp32), 4 B per weight, and the updated parameters
  // all-gathered, 2 B per weight under FP8 and 0.5625 B under NVFP4 (fp4_param_gather).
  // Same groups and message counts, so the totals go as (4 + 0.5625) / (4 + 2).
  const double fp8 = step_on_b200("fp8").dp_comm_total_s, fp4 = step_on_b200("fp4").dp_comm_total_s;
  CHECK(fp4 / fp8 == Approx((4 + kFp4Elem) / (4 + 2)).epsilon(0.01));
}

TEST_CASE("fp4 is refused where it does not apply, naming the field", "[fp4][errors]") {
  const auto error = [](const std::string& gpu, const std::string& extra) {
    return Json::parse(evaluate_json(
        R"({"model":"llama-3.1-8b","gpu":")" + gpu +
        R"(","training":{"tokens":1e12,"seq_len":8192,"global_batch":64,"precision":"fp4")" + extra + "}}"));
  };
  const Json h100 = error("h100-sxm-80gb", "");
  REQUIRE_FALSE(h100["ok"].get<bool>());
  CHECK(h100["error"]["path"] == "/training/precision");
  CHECK(h100["error"]["code"] == "no_fp4_peak");
  const Json titan = error("b200-180gb", R"(,"framework":"torchtitan")");
  REQUIRE_FALSE(titan["ok"].get<bool>());
  CHECK(titan["error"]["code"] == "fp4_megatron");
  const Json lora = error("b200-180gb", R"(,"stage":"lora")");
  REQUIRE_FALSE(lora["ok"].get<bool>());
  CHECK(lora["error"]["code"] == "fp4_adapters");
  CHECK(Json::parse(evaluate_json(R"({"model":"llama-3.1-8b","gpu":"b200-180gb","training":{"tokens":1e12,
    "seq_len":8192,"global_batch":64,"precision":"fp4"}})"))["ok"]
            .get<bool>());
}
