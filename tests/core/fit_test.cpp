// Framework memory profiles and the "will it fit?" question, against the fit boundaries
// and model-state tables their sources publish (docs/memory-model.md §7, §6b).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "gpucalc/api.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/plan.hpp"

using json = nlohmann::ordered_json;
using namespace gpucalc;

namespace {
constexpr double GiB = 1073741824.0;

json evaluate(const std::string& scenario) {
  json env = json::parse(evaluate_json(scenario));
  REQUIRE(env["ok"] == true);
  return env["value"];
}

// Unsloth README, "Context length benchmarks": Llama 3.1 8B / 3.3 70B, 4-bit QLoRA on
// every linear layer, rank 32, batch 1, Hugging Face + FlashAttention 2 (the hf profile,
// gradient checkpointing on); the GPU's VRAM as stated.
json unsloth_hf(const char* model, double vram_gib, int64_t seq_len) {
  return evaluate(std::string(R"({"model": ")") + model + R"(", "gpu": {"base": "a100-sxm-80gb", "memory_gib": )" +
                  std::to_string(vram_gib) + R"(}, "training": {"tokens": 1e8, "seq_len": )" + std::to_string(seq_len) +
                  R"(, "global_batch": 1, "micro_batch": 1, "stage": "qlora", "recompute": "full", "framework": "hf",
                  "lora": {"rank": 32, "alpha": 32}}, "parallel": {"gpus": 1, "tp": 1, "pp": 1, "dp": 1}})");
}
}  // namespace

TEST_CASE("Unsloth's Hugging Face + FA2 longest contexts fit, and its OOM rows do not", "[fit][validation]") {
  // '| 24 GB | 78,475 | 5,789 |', '| 80 GB | 342,733 | 28,454 |', '| 8 GB | 2,972 | OOM |';
  // Llama 3.3 70B: 80 GB 6,916 tokens, 48 GB OOM (Hugging Face + FA2 column).
  for (auto [model, vram, ctx] : {std::tuple{"llama-3.1-8b", 24.0, 5789}, std::tuple{"llama-3.1-8b", 80.0, 28454},
                                  std::tuple{"llama-3.1-70b", 80.0, 6916}}) {
    const json v = unsloth_hf(model, vram, ctx);
    INFO(model << " on " << vram << " GB at " << ctx << " tokens");
    CHECK(v["memory"]["fits"] == true);
    CHECK(v["memory"]["fit"]["max_seq_len_at_capacity"].get<int64_t>() >= ctx);
  }
  for (auto [model, vram] : {std::pair{"llama-3.1-8b", 8.0}, std::pair{"llama-3.1-70b", 48.0}}) {
    INFO(model << " on " << vram << " GB: OOM at any length");
    const json v = unsloth_hf(model, vram, 512);
    CHECK(v["memory"]["fits"] == false);
    CHECK(v["memory"]["fit"]["max_seq_len_at_capacity"] == 0);
  }
}

TEST_CASE("ZeRO-Offload trains a 13B model on one 32 GB V100, which without streaming gradients does not fit",
          "[fit][validation][deepspeed]") {
  // Ren et al. 2021 (ZeRO-Offload) §1, §6: 13 billion parameters on a single 32 GB V100.
  // A GPT-2-shaped 13B model (12·h²·L = 12.9B with h 4096, L 64), sequence 1024, batch 1,
  // activation checkpointing: the 2 B/param fp16 weights (26 GB) stay, gradients stream
  // to the host bucket by bucket (one 5e8-element reduce bucket on the GPU).
  const std::string s = R"({"model": {"name": "GPT-2 13B", "layers": 64, "hidden": 4096, "heads": 32,
      "ffn_hidden": 16384, "vocab": 50257, "ffn_act": "gelu", "norm": "layernorm", "linear_bias": true, "qkv_bias": true,
      "position_embedding": "learned", "max_position_embeddings": 1024},
    "gpu": "v100-sxm2-32gb", "training": {"tokens": 1e8, "seq_len": 1024, "global_batch": 1, "micro_batch": 1,
      "precision": "fp16", "recompute": "full", "zero_stage": 2, "framework": ")";
  const std::string tail = R"(", "offload": {"optimizer": true}}, "parallel": {"gpus": 1, "tp": 1, "pp": 1, "dp": 1}})";
  const json ds = evaluate(s + "deepspeed" + tail);
  CHECK(ds["memory"]["fits"] == true);
  CHECK(ds["memory"]["gradients_bytes"].get<double>() == Approx(2.0 * 5e8));  // one reduce bucket
  // Megatron-Core's optimizer CPU offload keeps its fp32 main gradients on the GPU.
  const json mg = evaluate(s + "megatron" + tail);
  CHECK(mg["memory"]["fits"] == false);
}

TEST_CASE("ZeRO paper Table 1: per-device model states of the deepspeed profile", "[memory][zero][deepspeed]") {
  // Rajbhandari et al. 2020 Table 1 (GB = 1e9 B), 7.5B and 128B, DP 4..1024.
  Training t;
  t.framework = Framework::deepspeed;
  const StateBytes b = state_bytes(t);
  CHECK(b.weights + b.gradients + b.optimizer == 16.0);
  const double dps[] = {4, 16, 64, 256, 1024};
  const double os75[] = {52.5, 35.6, 31.4, 30.4, 30.1}, osg75[] = {41.3, 21.6, 16.6, 15.4, 15.1},
               osgp75[] = {30, 7.5, 1.88, 0.47, 0.12};
  const double os128[] = {896, 608, 536, 518, 513}, osg128[] = {704, 368, 284, 263, 257},
               osgp128[] = {512, 128, 32, 8, 2};
  for (int i = 0; i < 5; ++i) {
    INFO("DP " << dps[i]);
    // The table prints three significant figures: within 0.5% or 0.01 GB.
    CHECK(model_state_bytes(7.5e9, 1, dps[i], b).total() / 1e9 == Approx(os75[i]).epsilon(0.005).margin(0.01));
    CHECK(model_state_bytes(7.5e9, 2, dps[i], b).total() / 1e9 == Approx(osg75[i]).epsilon(0.005).margin(0.01));
    CHECK(model_state_bytes(7.5e9, 3, dps[i], b).total() / 1e9 == Approx(osgp75[i]).epsilon(0.005).margin(0.01));
    CHECK(model_state_bytes(128e9, 1, dps[i], b).total() / 1e9 == Approx(os128[i]).epsilon(0.005).margin(0.5));
    CHECK(model_state_bytes(128e9, 2, dps[i], b).total() / 1e9 == Approx(osg128[i]).epsilon(0.005).margin(0.5));
    CHECK(model_state_bytes(128e9, 3, dps[i], b).total() / 1e9 == Approx(osgp128[i]).epsilon(0.005).margin(0.5));
  }
}

TEST_CASE("The fit answer is the boundary of the memory model: one more does not fit", "[fit]") {
  const json v = evaluate(R"({"model": "llama-3.1-8b", "gpu": "rtx-4090-24gb", "training": {"tokens": 1e8,
      "seq_len": 2048, "global_batch": 4, "micro_batch": 1, "stage": "qlora", "recompute": "full", "framework": "torchtune"},
      "parallel": {"gpus": 1, "tp": 1, "pp": 1, "dp": 1}})");
  const int64_t seq = v["memory"]["fit"]["max_seq_len"].get<int64_t>();
  const int64_t mb = v["memory"]["fit"]["max_micro_batch"].get<int64_t>();
  const double limit = 0.8 * 24 * GiB;
  REQUIRE(seq > 2048);
  REQUIRE(mb >= 1);
  const auto peak = [&](int64_t s, int64_t b) {
    return evaluate(R"({"model": "llama-3.1-8b", "gpu": "rtx-4090-24gb", "training": {"tokens": 1e8, "seq_len": )" +
                    std::to_string(s) + R"(, "global_batch": )" + std::to_string(4 * b) + R"(, "micro_batch": )" +
                    std::to_string(b) + R"(, "stage": "qlora", "recompute": "full", "framework": "torchtune"},
                    "parallel": {"gpus": 1, "tp": 1, "pp": 1, "dp": 1}})")["memory"]["total_bytes"]
        .get<double>();
  };
  CHECK(peak(seq, 1) <= limit);
  CHECK(peak(seq + 1, 1) > limit);
  CHECK(peak(2048, mb) <= limit);
  CHECK(peak(2048, mb + 1) > limit);
}

TEST_CASE("ZeRO-3 working sets per framework: frozen bases, torchtitan PP, DeepSpeed buckets",
          "[memory][zero][framework]") {
  const ModelShape m = *find_model("llama-3.1-70b");
  const ParamCounts pc = count_params(m);
  const double layer = static_cast<double>(pc.per_layer);  // one dense layer, tp 1
  Training t;
  t.seq_len = 4096;
  t.global_batch = 64;
  t.tokens = 1e9;
  Layout l;
  l.dp = 8;
  l.zero_stage = 3;
  l.recompute = Recompute::full;
  const Overheads o;

  SECTION("a frozen LoRA base gathers the layer in use and the next, with no gradient: 2 × 2 B × layer") {
    t.stage = Stage::lora;
    CHECK(stage_memory(m, t, l, o, 0).weights_gathered == Approx(2 * 2.0 * layer).epsilon(1e-12));
  }
  SECTION("QLoRA's FSDP2 gathers NF4 and dequantises one weight: 2 × nf4 × layer + 2 B × h·f") {
    t.stage = Stage::qlora;
    const double dequant = 2.0 * 8192 * 28672;
    CHECK(stage_memory(m, t, l, o, 0).weights_gathered ==
          Approx(2 * nf4_bytes_per_param(true) * layer + dequant).epsilon(1e-12));
  }
  SECTION("torchtitan with PP keeps the stage unsharded: (2 + 4) B × stage params") {
    t.framework = Framework::torchtitan;
    l.pp = 4;
    l.dp = 2;
    const StageMemory s1 = stage_memory(m, t, l, o, 1);  // a middle stage: 20 layers, no embedding or head
    CHECK(s1.weights_gathered == Approx(6.0 * 20 * layer).epsilon(1e-12));
  }
  SECTION("DeepSpeed caps the prefetch and the unsharded gradient at 5e8 elements each") {
    t.framework = Framework::deepspeed;
    ModelShape big = m;
    big.hidden = 16384;
    big.heads = 128;
    big.kv_heads = 8;
    big.ffn_hidden = 65536;  // a layer far above 5e8 params
    const double big_layer = static_cast<double>(count_params(big).per_layer);
    REQUIRE(big_layer > 5e8);
    CHECK(stage_memory(big, t, l, o, 0).weights_gathered == Approx(2.0 * (big_layer + 5e8 + 5e8)).epsilon(1e-12));
    t.framework = Framework::megatron;  // FSDP-style: the whole next layer and gradient
    CHECK(stage_memory(big, t, l, o, 0).weights_gathered == Approx(3 * 2.0 * big_layer).epsilon(1e-12));
  }
}

TEST_CASE("offloaded gradients: DeepSpeed keeps one bucket, FSDP2 none, Megatron all", "[memory][offload][framework]") {
  const ModelShape m = *find_model("llama-3.1-8b");
  Training t;
  t.seq_len = 2048;
  t.global_batch = 8;
  t.tokens = 1e9;
  t.offload.optimizer = true;
  Layout l;
  l.dp = 8;
  l.zero_stage = 2;
  l.recompute = Recompute::full;
  const Overheads o;
  t.framework = Framework::deepspeed;
  CHECK(stage_memory(m, t, l, o, 0).gradients == Approx(2.0 * 5e8));
  t.framework = Framework::torchtune;
  CHECK(stage_memory(m, t, l, o, 0).gradients == 0.0);
  t.framework = Framework::megatron;  // fp32 main gradients, sharded over 8 by ZeRO-2
  CHECK(stage_memory(m, t, l, o, 0).gradients ==
        Approx(4.0 * static_cast<double>(count_params(m).total) / 8).epsilon(1e-12));
}
