// Scenario format v1: good input parses to the right structs; every bad input in
// tests/cli/bad_inputs.txt is refused with the JSON pointer of its field.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "gpucalc/api.hpp"
#include "gpucalc/scenario.hpp"

using namespace gpucalc;
using json = nlohmann::ordered_json;

TEST_CASE("every bad input in the shared table is refused naming its field", "[scenario][errors]") {
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/tests/cli/bad_inputs.txt");
  REQUIRE(in);
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    std::string path = line.substr(0, tab);
    if (path == "-") path = "";
    const std::string scenario = line.substr(tab + 1);
    INFO(scenario);
    const json env = json::parse(evaluate_json(scenario), nullptr, false);
    REQUIRE(env.is_object());
    CHECK(env["ok"] == false);
    CHECK(env["error"]["path"] == path);
    CHECK_FALSE(env["error"]["message"].get<std::string>().empty());
    ++cases;
  }
  CHECK(cases >= 15);
}

TEST_CASE("error messages say what was expected and what was found", "[scenario][errors]") {
  const json env = json::parse(
      evaluate_json(R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":-4}})"));
  CHECK(env["error"]["message"] == "must be a positive integer, got -4");
  const json bad = json::parse(evaluate_json(R"({"model": "llama-3.1-8b", )"));
  CHECK(bad["error"]["message"].get<std::string>().find("line 1, column") != std::string::npos);
  const json unk = json::parse(evaluate_json(
      R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":8192,"lr":3e-4}})"));
  CHECK(unk["error"]["path"] == "/training/lr");
  CHECK(unk["error"]["message"].get<std::string>().rfind("unknown field", 0) == 0);
}

TEST_CASE("a full scenario parses into the typed structs", "[scenario]") {
  auto s = parse_scenario(R"({
    "model": "llama-3.1-70b", "gpu": {"base": "h100-sxm-80gb", "memory_gib": 96, "bf16_tflops": 800},
    "training": {"tokens": 1.5e13, "seq_len": 8192, "global_batch_tokens": 16777216, "micro_batch": 2,
                 "precision": "bf16", "recompute": "full", "zero_stage": 1, "stage": "pretrain"},
    "parallel": {"tp": 8, "pp": 4}, "target": {"days": 60}, "assume": {"mfu": 0.38}})");
  REQUIRE(s.ok());
  CHECK(s->problem.model.layers == 80);
  CHECK(s->problem.gpu.memory_gib.value == 96.0);
  CHECK(s->problem.gpu.memory_gib.source == "scenario");
  CHECK(s->problem.gpu.fp8_tflops.value == 1979.0);  // kept from the base entry
  CHECK(s->problem.training.global_batch == 2048);
  CHECK(s->problem.training.tokens == 1.5e13);
  CHECK(*s->constraints.micro_batch == 2);
  CHECK(*s->constraints.recompute == Recompute::full);
  CHECK(*s->constraints.zero_stage == 1);
  CHECK(*s->constraints.tp == 8);
  CHECK_FALSE(s->constraints.dp.has_value());
  CHECK(*s->target_days == 60.0);
  CHECK(*s->problem.efficiency.mfu == 0.38);
}

TEST_CASE("an absent global batch defaults to about 4M tokens and says so", "[scenario]") {
  auto s =
      parse_scenario(R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096}})");
  REQUIRE(s.ok());
  CHECK(s->problem.training.global_batch == 1024);
  REQUIRE(s->defaults_applied.size() == 1);
}

// A fine-tune's default is Llama 2's supervised fine-tuning batch, 64 sequences (Touvron et
// al. 2023 §3.1), not pre-training's 4M tokens (2,048 sequences of 2,048: a 2M-token
// dataset was refused for a batch the reader never chose); any default is cut to the
// sequences the tokens hold.
TEST_CASE("a fine-tune's absent global batch defaults to 64 sequences, cut to the tokens", "[scenario]") {
  const auto batch = [](const std::string& training) {
    auto s =
        parse_scenario(R"({"model":"qwen2.5-7b","gpu":"rtx-4090-24gb","training":{"seq_len":2048)" + training + "}}");
    REQUIRE(s.ok());
    const auto& d = s->defaults_applied;
    const auto it =
        std::find_if(d.begin(), d.end(), [](const auto& m) { return m.code.rfind("default_global_batch", 0) == 0; });
    REQUIRE(it != d.end());
    return std::pair(s->problem.training.global_batch, it->code);
  };
  // 2,000 samples of 1,000 tokens, LoRA: 64 sequences.
  CHECK(batch(R"(,"stage":"lora","dataset":{"samples":2000,"avg_tokens":1000,"epochs":1})") ==
        std::pair<int64_t, std::string>(64, "default_global_batch_finetune"));
  CHECK(batch(R"(,"stage":"full_finetune","tokens":1e9)") ==
        std::pair<int64_t, std::string>(64, "default_global_batch_finetune"));
  // 100,000 tokens hold 48 sequences of 2,048.
  CHECK(batch(R"(,"stage":"qlora","tokens":1e5)") == std::pair<int64_t, std::string>(48, "default_global_batch_cut"));
  // Pre-training: 4M tokens (2,048 sequences of 2,048), or what 1e6 tokens hold (488).
  CHECK(batch(R"(,"tokens":1e12)") == std::pair<int64_t, std::string>(2048, "default_global_batch"));
  CHECK(batch(R"(,"tokens":1e6)") == std::pair<int64_t, std::string>(488, "default_global_batch_cut"));
  // A batch the reader gives is kept and checked: more than the tokens is still refused.
  const json e = json::parse(evaluate_json(
      R"({"model":"qwen2.5-7b","gpu":"rtx-4090-24gb","training":{"seq_len":2048,"tokens":1e5,"global_batch":64}})"));
  CHECK(e["error"]["path"] == "/training/tokens");
}

// Samples are cut at seq_len, so an average above it counts tokens the job never trains
// (1,000 samples of 100,000 tokens at seq_len 4,096: 1e8 tokens counted, at most 4.1e6 trained).
TEST_CASE("a dataset's average sample longer than seq_len is refused at avg_tokens", "[scenario][errors]") {
  const json e = json::parse(evaluate_json(R"({"model":"qwen2.5-7b","gpu":"rtx-4090-24gb","training":{"seq_len":4096,
      "stage":"lora","dataset":{"samples":1000,"avg_tokens":100000}}})"));
  CHECK(e["ok"] == false);
  CHECK(e["error"]["path"] == "/training/dataset/avg_tokens");
  CHECK(e["error"]["code"] == "avg_tokens_over_seq_len");
  CHECK(e["error"]["params"]["seq_len"] == "4096");
  // At seq_len itself it is accepted.
  const json ok = json::parse(evaluate_json(R"({"model":"qwen2.5-7b","gpu":"rtx-4090-24gb","training":{"seq_len":4096,
      "stage":"lora","dataset":{"samples":1000,"avg_tokens":4096}},"parallel":{"gpus":1}})"));
  CHECK(ok["ok"] == true);
}

TEST_CASE("a custom model object is counted like the preset it copies", "[scenario][params]") {
  const json a = json::parse(evaluate_json(R"({"model":{"layers":80,"hidden":8192,"heads":64,"kv_heads":8,
      "ffn_hidden":28672,"vocab":128256,"ffn_act":"swiglu","tied_embeddings":false},
      "gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":8192},"parallel":{"gpus":64}})"));
  REQUIRE(a["ok"] == true);
  CHECK(a["value"]["model"]["params"] == 70553706496);
}

TEST_CASE("JSON numbers written as floats are accepted when they are whole", "[scenario]") {
  auto s =
      parse_scenario(R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":8.192e3}})");
  REQUIRE(s.ok());
  CHECK(s->problem.training.seq_len == 8192);
}

TEST_CASE("every spelling of a scenario enum reads back as its own enumerator", "[scenario][errors]") {
  // The parser maps a choice by its position in the allowed list (Reader::choice_index), so
  // a list and its enum must keep one order: reordering either is caught here.
  const auto read = [](const std::string& model, const std::string& training, const std::string& rest = "") {
    auto s = parse_scenario(R"({"model":{"base":"llama-3.1-8b")" + model +
                            R"(},"gpu":"b200-180gb","training":{"tokens":1e12,"seq_len":4096)" + training + "}" + rest +
                            "}");
    INFO((s ? std::string() : s.error().path + ": " + s.error().message));
    REQUIRE(s.ok());
    return *s;
  };
  const auto t = [&](const char* key, const std::string& v) {
    return read("", std::string(R"(,")") + key + R"(":")" + v + "\"");
  };
  for (Precision p : {Precision::bf16, Precision::fp16, Precision::fp8, Precision::fp4})
    CHECK(t("precision", to_string(p)).problem.training.precision == p);
  for (Optimizer o :
       {Optimizer::adamw, Optimizer::adam8bit, Optimizer::sgd, Optimizer::lion, Optimizer::adafactor, Optimizer::muon})
    CHECK(t("optimizer", to_string(o)).problem.training.optimizer == o);
  for (Recompute r : {Recompute::none, Recompute::selective, Recompute::full})
    CHECK(*t("recompute", to_string(r)).constraints.recompute == r);
  for (Framework f :
       {Framework::megatron, Framework::torchtitan, Framework::deepspeed, Framework::hf, Framework::torchtune})
    CHECK(t("framework", to_string(f)).problem.training.framework == f);
  CHECK(t("stage", "pretrain").problem.training.stage == Stage::pretrain);
  CHECK(t("stage", "full_finetune").problem.training.stage == Stage::full_finetune);
  CHECK(read("", R"(,"precision":"fp8","fp8_recipe":"tensorwise")").problem.training.fp8_recipe ==
        Fp8Recipe::tensorwise);
  CHECK(read("", R"(,"precision":"fp8","fp8_recipe":"delayed")").problem.training.fp8_recipe == Fp8Recipe::delayed);
  CHECK(read("", R"(,"precision":"fp8","fp8_recipe":"mxfp8")").problem.training.fp8_recipe == Fp8Recipe::mxfp8);
  CHECK(t("moe_dispatcher", "alltoall").problem.training.moe_dispatcher == MoeDispatcher::alltoall);
  CHECK(t("moe_dispatcher", "deepep").problem.training.moe_dispatcher == MoeDispatcher::deepep);
  CHECK(t("cp_comm", "ring").problem.training.cp_comm == CpComm::ring);
  CHECK(t("cp_comm", "ulysses").problem.training.cp_comm == CpComm::ulysses);
  CHECK(t("cuda_graphs", "none").problem.training.cuda_graphs == CudaGraphs::none);
  CHECK(t("cuda_graphs", "per_layer").problem.training.cuda_graphs == CudaGraphs::per_layer);
  CHECK(t("cuda_graphs", "full_iteration").problem.training.cuda_graphs == CudaGraphs::full_iteration);
  CHECK(t("grad_dtype", "fp32").problem.training.grad_dtype_bytes == 4);
  CHECK(t("grad_dtype", "bf16").problem.training.grad_dtype_bytes == 2);
  const auto m = [&](const char* key, const char* v) {
    return read(std::string(R"(,")") + key + R"(":")" + v + "\"", "").problem.model;
  };
  CHECK(m("ffn_act", "swiglu").ffn_act == FfnAct::swiglu);
  CHECK(m("ffn_act", "gelu").ffn_act == FfnAct::gelu);
  CHECK(m("ffn_act", "geglu").ffn_act == FfnAct::geglu);
  CHECK(m("ffn_act", "swiglu_clamped").ffn_act == FfnAct::swiglu_clamped);
  CHECK(m("norm", "rmsnorm").norm == Norm::rmsnorm);
  CHECK(m("norm", "layernorm").norm == Norm::layernorm);
  CHECK(m("position_embedding", "rope").position == PositionEmbedding::rope);
  CHECK(m("position_embedding", "alibi").position == PositionEmbedding::alibi);
  for (Objective o : {Objective::gpus, Objective::cost, Objective::days})
    CHECK(read("", "", std::string(R"(,"target":{"days":60,"objective":")") + to_string(o) + "\"}").objective == o);
  for (Currency c : {Currency::usd, Currency::cny})
    CHECK(read("", "", std::string(R"(,"cost":{"currency":")") + to_string(c) + "\"}").problem.cost.currency == c);
}
