// What each training.framework can run (core/src/plan.cpp check_framework): Hugging Face
// Trainer / Accelerate and torchtune have no pipeline schedule and checkpoint whole layers;
// DeepSpeed's pipeline engine takes ZeRO 0-1 only and has no interleaving. The search
// never offers what the framework cannot run, and a scenario that fixes it gets the error
// naming the field.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "gpucalc/api.hpp"

using namespace gpucalc;
using json = nlohmann::ordered_json;

namespace {

// LoRA of Qwen2.5-72B (examples/lora-qwen2.5-72b-8xh100.json) with the GPU count open:
// the fewest GPUs that hold it, where pipelining would be the natural pick.
std::string lora_job(const std::string& framework, const std::string& parallel = "{}", const std::string& extra = "") {
  return R"({"model":"qwen2.5-72b","gpu":"h100-sxm-80gb","training":{"tokens":2e8,"seq_len":4096,"global_batch":64,)"
         R"("stage":"lora","optimizer":"adam8bit","lora":{"rank":64,"alpha":128},"framework":")" +
         framework + "\"" + extra + R"(},"parallel":)" + parallel + "}";
}

json rules_envelope(const std::string& scenario) { return json::parse(evaluate_json(scenario)); }

}  // namespace

TEST_CASE("the search offers no pipeline and no selective recompute to Hugging Face and torchtune",
          "[search][framework]") {
  for (const char* fw : {"hf", "torchtune"}) {
    INFO(fw);
    const json env = rules_envelope(lora_job(fw));
    REQUIRE(env["ok"] == true);
    const json& plan = env["value"]["plan"];
    CHECK(plan["pp"] == 1);
    CHECK(plan["vpp"] == 1);
    CHECK(plan["recompute"] != "selective");
  }
  // Megatron-LM pipelines and recomputes selectively; its plan is not held to these rules.
  REQUIRE(rules_envelope(lora_job("megatron"))["ok"] == true);
}

TEST_CASE("DeepSpeed's pipeline runs with ZeRO 0 or 1 and without interleaving", "[search][framework]") {
  const json env = rules_envelope(lora_job("deepspeed"));
  REQUIRE(env["ok"] == true);
  const json& plan = env["value"]["plan"];
  CHECK(plan["vpp"] == 1);
  if (plan["pp"].get<int>() > 1) CHECK(plan["zero_stage"].get<int>() <= 1);
}

TEST_CASE("a layout the framework cannot run is refused with the field to change", "[framework]") {
  struct Case {
    std::string scenario, path, code;
  };
  const Case cases[] = {
      {lora_job("hf", R"({"gpus":8,"pp":2})"), "/parallel/pp", "framework_no_pp"},
      {lora_job("torchtune", R"({"gpus":8,"tp":1,"pp":2,"dp":4})"), "/parallel/pp", "framework_no_pp"},
      {lora_job("torchtune", "{}", R"(,"recompute":"selective")"), "/training/recompute", "framework_no_selective"},
      {lora_job("hf", R"({"gpus":8})", R"(,"recompute_modules":["core_attn"])"), "/training/recompute",
       "framework_no_selective"},
      {lora_job("deepspeed", R"({"gpus":8,"tp":1,"pp":2})", R"(,"zero_stage":3)"), "/training/zero_stage",
       "deepspeed_pp_zero"},
      {lora_job("deepspeed", R"({"gpus":8,"pp":2,"vpp":2})"), "/parallel/vpp", "framework_no_vpp"},
  };
  for (const Case& c : cases) {
    INFO(c.scenario);
    const json env = rules_envelope(c.scenario);
    REQUIRE(env["ok"] == false);
    CHECK(env["error"]["path"] == c.path);
    CHECK(env["error"]["code"] == c.code);
  }
  // A measured layout the framework cannot run is named under the calibration's layout.
  const json cal = rules_envelope(lora_job(
      "hf", R"({"gpus":8})",
      R"(},"calibration":{"measured_step_time_s":10,"layout":{"tp":1,"pp":2,"vpp":1,"dp":4,"cp":1,"micro_batch":1,)"
      R"("global_batch":64,"zero_stage":1,"recompute":"full"})"));
  REQUIRE(cal["ok"] == false);
  CHECK(cal["error"]["path"] == "/calibration/layout/pp");
  CHECK(cal["error"]["code"] == "framework_no_pp");
  // The same layouts under Megatron-LM are fine.
  CHECK(rules_envelope(lora_job("megatron", R"({"gpus":8,"pp":2,"vpp":2})"))["ok"] == true);
  CHECK(rules_envelope(lora_job("megatron", R"({"gpus":8,"tp":1,"pp":2})", R"(,"zero_stage":1)"))["ok"] == true);
}
