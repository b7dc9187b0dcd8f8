// Issue 4: fine-tuning stages (LoRA, QLoRA), optimizers, offload and Mixture of Experts,
// each pinned to the number its source gives or to the formula it cites.
#include <catch2/catch.hpp>
#include <cmath>

#include "../../core/src/layer_time.hpp"
#include "gpucalc/api.hpp"
#include "gpucalc/compute.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/search.hpp"
#include "source_file.hpp"

#include <nlohmann/json.hpp>

using namespace gpucalc;
using json = nlohmann::ordered_json;

namespace {
json answer(const std::string& scenario) {
  const json env = json::parse(evaluate_json(scenario));
  INFO(env.dump());
  REQUIRE(env["ok"] == true);
  return env["value"];
}
const ModelShape& preset(const char* id) {
  const ModelShape* m = find_model(id);
  REQUIRE(m);
  return *m;
}
}  // namespace

TEST_CASE("LoRA adapters on every linear of Llama 3.1 8B at rank 8: 20,971,520 parameters", "[lora]") {
  // r·(d_in + d_out) per projection (Hu et al. 2021 §4.1): q 8·(4096+4096), k and v
  // 8·(4096+1024), o 8·(4096+4096), gate/up/down 8·(4096+14336), × 32 layers — the figure
  // PEFT's print_trainable_parameters reports for this model and configuration.
  LoraConfig c;
  c.rank = 8;
  const ModelShape& m = preset("llama-3.1-8b");
  CHECK(lora_params_per_layer(m, c, false) == 8.0 * (2 * 8192 + 2 * 5120 + 3 * 18432));
  CHECK(32 * lora_params_per_layer(m, c, false) == 20'971'520);
  // q and v only (the LoRA paper's choice): 8·(8192 + 5120) per layer.
  c.targets = static_cast<unsigned>(LoraTarget::q) | static_cast<unsigned>(LoraTarget::v);
  CHECK(lora_params_per_layer(m, c, false) == 8.0 * (8192 + 5120));
}

TEST_CASE("NF4 with double quantisation stores 4.127 bits per weight", "[qlora]") {
  // Dettmers et al. 2023 §3: 4 bits + 32/64 bits of absmax per 64-block, or with double
  // quantisation 8/64 + 32/(64·256) = 0.127 bits.
  CHECK(nf4_bytes_per_param(true) * 8 == Approx(4.127).margin(0.0005));
  CHECK(nf4_bytes_per_param(false) * 8 == Approx(4.5).epsilon(1e-12));
}

TEST_CASE("optimizer state bytes per parameter", "[optimizer]") {
  CHECK(optimizer_state_bytes(Optimizer::adamw) == 8);                               // fp32 m, v
  CHECK(optimizer_state_bytes(Optimizer::adam8bit) == Approx(2.0039).margin(1e-4));  // Dettmers et al. 2022, block 2048
  CHECK(optimizer_state_bytes(Optimizer::sgd) == 4);
  CHECK(optimizer_state_bytes(Optimizer::lion) == 4);  // Chen et al. 2023: one moment
  // Adafactor (Shazeer & Stern 2018): a 4096 × 14336 matrix keeps 4096 + 14336 fp32 values.
  CHECK(optimizer_state_bytes(Optimizer::adafactor, 4096, 14336) == Approx(4.0 * (4096 + 14336) / (4096.0 * 14336)));
  // Mixed precision adds the fp32 master copy (Megatron profile: 2 + 4 + (4 + state)).
  Training t;
  t.optimizer = Optimizer::adam8bit;
  CHECK(state_bytes(t).optimizer == Approx(4 + 2.0039).margin(1e-4));
  t.master_weights = false;
  CHECK(state_bytes(t).optimizer == Approx(2.0039).margin(1e-4));
}

TEST_CASE("QLoRA 8B on one GPU: frozen NF4 base, adapters train, memory falls", "[qlora]") {
  const std::string base = R"({"model": "llama-3.1-8b", "gpu": "h100-sxm-80gb", "parallel": {"gpus": 1},
    "training": {"tokens": 1e8, "seq_len": 2048, "global_batch": 2, "micro_batch": 2, "recompute": "full", "stage": ")";
  // The Megatron profile, named: a QLoRA scenario without a framework runs on hf (next case).
  const json q = answer(base + R"(qlora", "framework": "megatron", "lora": {"rank": 8}}})");
  const json lo = answer(base + R"(lora", "lora": {"rank": 8}}})");
  const json full = answer(base + R"(full_finetune"}})");
  CHECK(q["model"]["trainable_params"] == 20'971'520);
  CHECK(full["model"]["trainable_params"] == 8'030'261'248);
  const ParamCounts pc = count_params(preset("llama-3.1-8b"));
  const double lora = 20'971'520.0;
  // Weights: NF4 linear layers + 2 B norms, embedding and head + 2 B adapters.
  const double linear = static_cast<double>(pc.layers_total - 32 * pc.layer_norms);
  const double rest = static_cast<double>(pc.total) - linear;
  const auto weights = [](const json& a) {
    for (const auto& i : a["memory"]["items"])
      if (i["name"] == "weights") return i["bytes"].get<double>();
    return -1.0;
  };
  CHECK(weights(q) == Approx(linear * nf4_bytes_per_param(true) + rest * 2 + lora * 2).epsilon(1e-6));
  CHECK(weights(lo) == Approx(static_cast<double>(pc.total) * 2 + lora * 2).epsilon(1e-6));
  // Adapters only: 4 B fp32 gradients, 12 B master + AdamW moments (megatron profile).
  CHECK(q["memory"]["gradients_bytes"].get<double>() == Approx(4 * lora).epsilon(1e-6));
  CHECK(q["memory"]["optimizer_bytes"].get<double>() == Approx(12 * lora).epsilon(1e-6));
  CHECK(q["memory"]["total_bytes"] < lo["memory"]["total_bytes"]);
  CHECK(lo["memory"]["total_bytes"] < full["memory"]["total_bytes"]);
  // Frozen weights skip their weight gradients: 4·Ψ + 6·Ψ_adapters + attention per token.
  const double att = 6.0 * 32 * 2048 * 32 * (128 + 128);
  CHECK(lo["model"]["flops_per_token"]["model"].get<double>() ==
        Approx(4.0 * static_cast<double>(pc.matmul) + 6 * lora + att).epsilon(1e-9));
}

TEST_CASE("QLoRA without a framework runs on hf (Transformers + PEFT + bitsandbytes), and says so", "[qlora]") {
  const std::string base = R"({"model": "llama-3.1-8b", "gpu": "rtx-4090-24gb", "parallel": {"gpus": 1},
    "training": {"tokens": 1e8, "seq_len": 2048, "global_batch": 2, "stage": ")";
  const auto noted = [](const json& a) {
    for (const auto& d : a["defaults_applied"])
      if (d["code"] == "default_framework_qlora") return true;
    return false;
  };
  const json q = answer(base + R"(qlora"}})");
  CHECK(q["plan"]["framework"] == "hf");
  CHECK(noted(q));
  // Under hf, PEFT's prepare_model_for_kbit_training keeps the embedding and head in fp32
  // (docs/memory-model.md §1b): the 4-bit base weighs more than on the Megatron profile.
  const json named = answer(base + R"(qlora", "framework": "megatron"}})");
  CHECK(named["plan"]["framework"] == "megatron");
  CHECK_FALSE(noted(named));
  CHECK(q["memory"]["weights_bytes"].get<double>() > named["memory"]["weights_bytes"].get<double>());
  // LoRA on a 16-bit base keeps the Megatron default.
  const json lo = answer(base + R"(lora"}})");
  CHECK(lo["plan"]["framework"] == "megatron");
  CHECK_FALSE(noted(lo));
}

TEST_CASE("fine-tuning tokens from samples × average length × epochs", "[dataset]") {
  const json a = answer(R"({"model": "llama-3.1-8b", "gpu": "h100-sxm-80gb", "parallel": {"gpus": 8},
    "training": {"seq_len": 4096, "global_batch": 64, "stage": "lora",
                 "dataset": {"samples": 52000, "avg_tokens": 350, "epochs": 3}}})");
  CHECK(a["training"]["tokens"] == 52000.0 * 350 * 3);
}

TEST_CASE("ZeRO-Offload moves master weights and moments to the host", "[offload]") {
  const std::string s = R"({"model": "llama-3.1-8b", "gpu": "h100-sxm-80gb",
    "parallel": {"tp": 1, "pp": 1, "dp": 8},
    "training": {"tokens": 1e9, "seq_len": 4096, "global_batch": 64, "micro_batch": 1, "zero_stage": 2, "recompute": "full")";
  const json on = answer(s + R"(, "offload": {"optimizer": true}}})");
  const json off = answer(s + "}}");
  const double P = 8'030'261'248.0 / 8;  // shard of one of 8 ranks (tp 1, pp 1)
  CHECK(on["memory"]["optimizer_bytes"] == 0.0);
  // Host: 12 B (fp32 master, m, v) + 4 B fp32 gradient copy per parameter of the shard.
  CHECK(on["memory"]["host_bytes"].get<double>() == Approx(16 * P).epsilon(1e-6));
  CHECK(off["memory"]["optimizer_bytes"].get<double>() == Approx(12 * P).epsilon(1e-6));
  // The CPU step and the PCIe round trip cost time.
  CHECK(on["performance"]["breakdown"]["optimizer_s"] > off["performance"]["breakdown"]["optimizer_s"]);
}

TEST_CASE("MoE FLOPs count the activated experts only", "[moe]") {
  const ModelShape& m = preset("mixtral-8x7b");
  const ParamCounts pc = count_params(m);
  const FlopsPerToken f = flops_per_token(m, 4096, Recompute::none);
  // 6·(attention + 2 of 8 experts + router, per layer, + head) + 12·L·s·a·d.
  const double per_layer = 4096.0 * 4096 * 2 + 2.0 * 4096 * 1024 + 2 * 3.0 * 4096 * 14336 + 8.0 * 4096;
  CHECK(static_cast<double>(pc.active_matmul) == 32 * per_layer + 32000.0 * 4096);
  CHECK(f.model == Approx(6.0 * static_cast<double>(pc.active_matmul) + 12.0 * 32 * 4096 * 32 * 128).epsilon(1e-12));
}

TEST_CASE("expert parallelism shards the experts, ZeRO shards them over expert-DP", "[moe][memory]") {
  const ModelShape& m = preset("mixtral-8x7b");
  Training t;
  t.seq_len = 4096;
  t.global_batch = 64;
  Layout l;
  l.dp = 8;
  l.ep = 8;
  l.micro_batch = 1;
  l.zero_stage = 1;
  const ParamCounts pc = count_params(m);
  const StageMemory a = stage_memory(m, t, l, Overheads{}, 0);
  // One expert per GPU per layer (8 experts / ep 8), everything else replicated.
  const double nonexpert = static_cast<double>(pc.total - 32 * pc.routed_experts);
  const double experts = 32.0 * static_cast<double>(pc.expert);
  CHECK(a.weights == Approx(2 * (nonexpert + experts)).epsilon(1e-9));
  // ZeRO-1: non-expert optimizer states over dp·cp = 8, expert ones over
  // expert-DP = tp·cp·dp / (etp·ep) = 1.
  CHECK(a.optimizer == Approx(12 * nonexpert / 8 + 12 * experts / 1).epsilon(1e-9));
  l.ep = 1;
  const StageMemory b = stage_memory(m, t, l, Overheads{}, 0);
  CHECK(b.weights == Approx(2.0 * static_cast<double>(pc.total)).epsilon(1e-9));
}

TEST_CASE("the search opens EP for MoE models and keeps ep within the experts", "[moe][search]") {
  auto s = parse_scenario(R"({"model": "mixtral-8x7b", "gpu": "h100-sxm-80gb", "parallel": {"gpus": 64},
    "training": {"tokens": 1e12, "seq_len": 4096, "global_batch": 512}})");
  REQUIRE(s);
  int64_t max_ep = 1;
  bool any_ep = false;
  enumerate_layouts(s->problem, s->constraints, [&](const Layout& l) {
    max_ep = std::max(max_ep, l.ep);
    any_ep = any_ep || l.ep > 1;
    CHECK(8 % l.ep == 0);
    CHECK((l.tp * l.cp * l.dp) % (l.ep * l.etp) == 0);
    return true;
  });
  CHECK(any_ep);
  CHECK(max_ep == 8);
}

TEST_CASE("Megatron-Core recompute modules drop what they rebuild", "[recompute]") {
  const ModelShape& m = preset("llama-3.1-70b");
  Training t;
  t.seq_len = 8192;
  t.global_batch = 512;
  Layout l;
  l.tp = 8;
  l.dp = 64;
  l.recompute = Recompute::selective;
  const double attn_only = activation_bytes_per_layer(m, t, l);
  l.recompute_modules |= static_cast<unsigned>(RecomputeModule::layernorm);
  const double with_norms = activation_bytes_per_layer(m, t, l);
  // layernorm: the two norm outputs (QKV and MLP-in inputs, sequence-sharded by SP) go,
  // 2 · 2 B · s·b·h / t.
  CHECK(attn_only - with_norms == Approx(2.0 * 2 * 8192 * 8192 / 8).epsilon(1e-12));
  l.recompute_modules |= static_cast<unsigned>(RecomputeModule::mlp);
  // mlp: the SwiGLU MLP's gate, up and product (3·f/t), 2 B each.
  CHECK(with_norms - activation_bytes_per_layer(m, t, l) == Approx(2.0 * 8192 * 3 * 28672 / 8).epsilon(1e-12));
}

TEST_CASE("Megatron-Core MoE layers add their fitted fixed time per layer per micro-batch", "[moe][time]") {
  // data/perf.json moe_layer_overhead: ms per MoE layer per micro-batch by CUDA-graph mode,
  // plus ms per local expert (E / ep) whatever the mode (fitted by
  // scripts/fit-moe-overhead.mjs). Qwen3-30B-A3B (128 experts) on 8 GPUs without
  // pipelining: every one of its 48 MoE layers on the one stage, 512 / (8 · 2) = 32
  // micro-batches, no bubble; ep 8 leaves 16 experts on each GPU.
  const json ms = json::parse(read_source_file("data/perf.json"))["moe_layer_overhead"]["value_ms"];
  const double per_expert = ms["per_local_expert"].get<double>();
  CHECK(per_expert > 0);
  const std::string moe_head =
      R"({"model":"qwen3-30b-a3b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096,
    "global_batch":512,"micro_batch":2,"precision":"bf16")";
  const std::string moe_tail = R"(},"parallel":{"gpus":8,"tp":1,"pp":1,"dp":8,"ep":8}})";
  const json a = answer(moe_head + moe_tail);
  CHECK(a["plan"]["micro_batches"] == 32);
  const json& b = a["performance"]["breakdown"];
  CHECK(b["moe_overhead_s"].get<double>() ==
        Approx(32 * 48 * (ms["unspecified"].get<double>() + 16 * per_expert) / 1e3).epsilon(1e-9));
  // training.cuda_graphs picks its mode's time; graphs take host launches off the path, so
  // none > per_layer >= full_iteration, the order every leave-one-model-out fit keeps.
  for (const char* mode : {"none", "per_layer", "full_iteration"}) {
    INFO(mode);
    const json g = answer(moe_head + R"(,"cuda_graphs":")" + mode + "\"" + moe_tail);
    CHECK(g["performance"]["breakdown"]["moe_overhead_s"].get<double>() ==
          Approx(32 * 48 * (ms[mode].get<double>() + 16 * per_expert) / 1e3).epsilon(1e-9));
  }
  CHECK(ms["none"].get<double>() > ms["per_layer"].get<double>());
  CHECK(ms["per_layer"].get<double>() >= ms["full_iteration"].get<double>());
  // Half the expert-parallel group, twice the local experts: 32 per GPU, the per-expert
  // part doubles (ep 4 on the 8 GPUs: dp 8 with expert-data-parallel 2).
  const json ep4 = answer(moe_head + R"(},"parallel":{"gpus":8,"tp":1,"pp":1,"dp":8,"ep":4}})");
  CHECK(ep4["performance"]["breakdown"]["moe_overhead_s"].get<double>() - b["moe_overhead_s"].get<double>() ==
        Approx(32 * 48 * 16 * per_expert / 1e3).epsilon(1e-9));
  // The breakdown still adds up to the step.
  double sum = 0;
  for (const char* k : {"compute_s", "tp_comm_s", "cp_comm_s", "ep_comm_s", "moe_overhead_s", "offload_s", "pp_comm_s",
                        "dp_comm_exposed_s", "zero3_comm_exposed_s", "bubble_s", "optimizer_s"})
    sum += b[k].get<double>();
  CHECK(sum == Approx(a["performance"]["step_time_s"].get<double>()).epsilon(1e-12));
  // A dense model has none; assume.hfu's efficiency already includes it.
  const json dense = answer(R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096,
    "global_batch":512},"parallel":{"gpus":8}})");
  CHECK(dense["performance"]["breakdown"]["moe_overhead_s"] == 0.0);
  const json hfu =
      answer(R"({"model":"qwen3-30b-a3b","gpu":"h100-sxm-80gb","assume":{"hfu":0.3},"training":{"tokens":1e12,
    "seq_len":4096,"global_batch":512,"micro_batch":2},"parallel":{"gpus":8,"tp":1,"pp":1,"dp":8,"ep":8}})");
  CHECK(hfu["performance"]["breakdown"]["moe_overhead_s"] == 0.0);
}

TEST_CASE("DeepEP sends a token once to each rank holding any of its experts", "[moe][time]") {
  // DeepEP's dispatch layout (is_token_in_rank) sends a token's hidden state once per
  // destination rank and combines one row per token and rank, where Megatron-Core's
  // all-to-all dispatcher moves one copy per routed expert. Qwen3-30B-A3B (top-8 of 128)
  // on one 8-GPU node, EP 8, no overlap: with uniform routing a token reaches
  // 8·(1 − (7/8)^8) = 5.25 of the 8 ranks, so DeepEP's all-to-all time is 0.656 of the
  // plain dispatcher's (NVLink only; the latency terms, the same for both, add about 1%).
  const std::string head =
      R"({"model":"qwen3-30b-a3b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096,
    "global_batch":512,"micro_batch":2,"precision":"bf16","recompute":"none","moe_dispatcher":")";
  const std::string tail = R"("},"parallel":{"gpus":8,"tp":1,"pp":1,"dp":8,"ep":8}})";
  const double plain = answer(head + "alltoall" + tail)["performance"]["breakdown"]["ep_comm_s"].get<double>();
  const double deepep = answer(head + "deepep" + tail)["performance"]["breakdown"]["ep_comm_s"].get<double>();
  REQUIRE(plain > 0);
  CHECK(deepep / plain == Approx(1 - std::pow(7.0 / 8, 8)).epsilon(0.02));
}

TEST_CASE("HybridEP's fused permutation drops the permute and unpermute passes", "[moe][time]") {
  // training.moe_permute_fusion (Megatron-Core --moe-permute-fusion-into-hybridep): HybridEP's
  // dispatch writes the received tokens in local-expert order and its combine restores the
  // order, so get_permuted_hidden_states_by_experts returns its input and no permute /
  // unpermute kernel runs. Those passes read and write each routed copy (2 B · h) twice
  // forward, twice that backward: Qwen3-30B-A3B (top-8, h 2,048, 48 MoE layers) on 8 H100
  // at EP 8, micro-batches of 2 × 4,096 tokens, 32 per step: 48 · 32 · 3 · (2 · 4 · 8 ·
  // 2,048 · 8,192 B) / (3.35 TB/s · 0.9, H100's HBM and its profile's achieved fraction)
  // = 1.6411 s less compute per step.
  const auto compute = [](const char* dispatcher, const char* fused) {
    return answer(std::string(R"({"model":"qwen3-30b-a3b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,
      "seq_len":4096,"global_batch":512,"micro_batch":2,"precision":"bf16","recompute":"none","moe_dispatcher":")") +
                  dispatcher + R"(","moe_permute_fusion":)" + fused +
                  R"(},"parallel":{"gpus":8,"tp":1,"pp":1,"dp":8,"ep":8}})")["performance"]["breakdown"]["compute_s"]
        .get<double>();
  };
  const double expected = 48.0 * 32 * 3 * (2.0 * 4 * 8 * 2048 * 8192) / (3.35e12 * 0.9);
  CHECK(compute("deepep", "false") - compute("deepep", "true") == Approx(expected).epsilon(1e-3));
  // It is HybridEP's: with Megatron-Core's all-to-all dispatcher it is an error that names the field.
  auto s = parse_scenario(R"({"model":"qwen3-30b-a3b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,
    "seq_len":4096,"moe_permute_fusion":true}})");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().path == "/training/moe_permute_fusion");
  CHECK(s.error().code == "moe_permute_fusion_dispatcher");
  // Megatron-Core's only: under torchtitan the same flag is refused, not silently priced.
  auto titan = parse_scenario(R"({"model":"qwen3-30b-a3b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,
    "seq_len":4096,"framework":"torchtitan","moe_dispatcher":"deepep","moe_permute_fusion":true}})");
  REQUIRE_FALSE(titan.ok());
  CHECK(titan.error().path == "/training/moe_permute_fusion");
  CHECK(titan.error().code == "moe_permute_fusion_dispatcher");
}

TEST_CASE("node-limited routing: DeepSeek-V3's token reaches at most 4 of 8 nodes", "[moe][time]") {
  // DeepSeek-V3 §2.1.2 (arXiv 2412.19437): its 256 experts form 8 groups (n_group) and a
  // token's 8 experts come from at most 4 of them (topk_group), "at most 4 nodes" with a
  // group per node. Groups chosen uniformly: over the 8 groups' places, 8·(1 − C(7,4)/C(8,4))
  // = 4 exactly; over 64 ranks (8 per group) 4 groups × 8·(1 − (7/8)^2) = 7.5, against
  // 64·(1 − (63/64)^8) = 7.57 unlimited. Without groups, uniform routing: 8·(1 − (7/8)^8).
  MoeShape m = preset("deepseek-v3").moe;
  REQUIRE(m.groups == 8);
  REQUIRE(m.group_topk == 4);
  CHECK(places_reached(8, m) == Approx(4.0).epsilon(1e-12));
  CHECK(places_reached(64, m) == Approx(4 * 8 * (1 - 49.0 / 64)).epsilon(1e-12));
  CHECK(places_reached(2, m) == Approx(2 * (1 - (4.0 * 3 * 2 * 1) / (8 * 7 * 6 * 5))).epsilon(1e-12));
  m.groups = 0;
  CHECK(places_reached(8, m) == Approx(8 * (1 - std::pow(7.0 / 8, 8))).epsilon(1e-12));
  // On 1,024 H100, EP 64 over 8 nodes with DeepEP, the inter-node part sets the
  // all-to-all's time: a token crosses to 4 · 7/8 remote nodes instead of 5.25 · 7/8, so
  // the EP time is 4/5.25 = 0.762 of the time with the limit lifted (group_topk = groups),
  // less the latency terms both share.
  const std::string head = R"({"model":{"base":"deepseek-v3","moe":{"group_topk":)";
  const std::string tail = R"(}},"gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096,
    "global_batch":8192,"micro_batch":1,"precision":"bf16","moe_dispatcher":"deepep"},
    "parallel":{"gpus":1024,"tp":2,"pp":8,"vpp":4,"ep":64}})";
  const auto ep_s = [&](const char* g) {
    return answer(head + g + tail)["performance"]["breakdown"]["ep_comm_s"].get<double>();
  };
  const double lifted = ep_s("8");
  REQUIRE(lifted > 0);
  CHECK(ep_s("4") / lifted == Approx(4 / (8 * (1 - std::pow(7.0 / 8, 8)))).epsilon(0.03));
}

TEST_CASE("EP all-to-all overlap leaves the passes no other micro-batch pairs with exposed", "[moe][time]") {
  // Megatron-Core's overlap_moe_expert_parallel_comm (combined 1F1B) runs one micro-batch's
  // forward beside another's backward, each hiding the other's all-to-all. Without
  // pipelining the first forward and the last backward run alone
  // (pipeline_parallel/combined_1f1b.py): 1 of m passes each way shows all of its A2A.
  // Qwen3-30B-A3B on one 8-GPU H100 node, EP 8: a layer's A2A over NVLink is far below its
  // compute, so a paired pass hides all of it and the exposed time is the unoverlapped
  // one divided by m.
  const auto ep = [](int gbs, const char* overlap, const char* parallel) {
    const std::string s = R"({"model":"qwen3-30b-a3b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096,
      "global_batch":)" + std::to_string(gbs) +
                          R"(,"micro_batch":1,"precision":"bf16","recompute":"none","overlap_moe_comm":)" + overlap +
                          R"(},"parallel":)" + parallel + "}";
    return answer(s)["performance"]["breakdown"]["ep_comm_s"].get<double>();
  };
  const char* flat = R"({"gpus":8,"tp":1,"pp":1,"dp":8,"ep":8})";
  // m = 32 micro-batches per step (256 sequences over dp 8).
  const double plain = ep(256, "false", flat);
  REQUIRE(plain > 0);
  CHECK(ep(256, "true", flat) == Approx(plain / 32).epsilon(1e-9));
  // One micro-batch: nothing to pair with, nothing hidden.
  CHECK(ep(8, "true", flat) == Approx(ep(8, "false", flat)).epsilon(1e-12));
  // Interleaved pipelining (required for the overlap when PP > 1): over the stages, a stage
  // runs p - 1 + (v - 1)·p + 1 warmup chunks alone and as many cooldown chunks (schedules.py,
  // one extra warmup chunk with the overlap), of m·v chunks each way. PP 2, VP 2, m = 16:
  // 4 of 32.
  const char* piped = R"({"gpus":8,"tp":1,"pp":2,"dp":4,"vpp":2,"ep":4})";
  const double piped_plain = ep(64, "false", piped);
  REQUIRE(piped_plain > 0);
  CHECK(ep(64, "true", piped) == Approx(piped_plain * 4.0 / 32.0).epsilon(1e-9));
  // m = 2: the warmup alone is all of it.
  CHECK(ep(8, "true", piped) == Approx(ep(8, "false", piped)).epsilon(1e-12));
}

TEST_CASE("with the EP overlap the search keeps to what Megatron-Core runs", "[moe][search]") {
  // Megatron-Core asserts virtual stages when pp > 1 and no full recomputation under
  // overlap_moe_expert_parallel_comm (transformer_config.py): where vpp and recompute are left
  // open, the search offers neither. DeepSeek-V3 on H800 with the overlap (the DualPipe
  // example) once chose full recomputation on pp 2 without interleaving.
  const json a = answer(read_source_file("examples/deepseek-v3-moe-h800.json"));
  const json& plan = a["plan"];
  CHECK(plan["recompute"] != "full");
  if (plan["pp"].get<int>() > 1) CHECK(plan["vpp"].get<int>() > 1);
  // A fixed pp 2 with vpp left open: interleaved. Without the overlap the same search may
  // pick vpp 1 (the rule is the overlap's, not the search's).
  const std::string base = R"({"model":"qwen3-30b-a3b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096,
    "global_batch":256,"micro_batch":1,"precision":"bf16","overlap_moe_comm":true},"parallel":{"gpus":8,"tp":1,"pp":2,"ep":4}})";
  const json piped = answer(base);
  CHECK(piped["plan"]["vpp"].get<int>() > 1);
  CHECK(piped["plan"]["recompute"] != "full");
  // When the fixed fields leave no interleaved layout, the error names the overlap: pp 8
  // with 12 micro-batches, not a multiple of pp, cannot interleave.
  const json env = json::parse(evaluate_json(
      R"({"model":"qwen3-30b-a3b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096,
    "global_batch":12,"micro_batch":1,"precision":"bf16","overlap_moe_comm":true},"parallel":{"gpus":8,"tp":1,"pp":8,"ep":1}})"));
  REQUIRE(env["ok"] == false);
  CHECK(env["error"]["code"] == "moe_overlap_no_layout");
  CHECK(env["error"]["path"] == "/training/overlap_moe_comm");
}

TEST_CASE("Megatron-Core adds gpt-oss's expert fc2 bias with eager per-expert ops", "[moe][time]") {
  // TEGroupedMLP._apply_bias (Megatron-LM a329dd6, 2025-09): split, t + b·p per local
  // expert, cat, over every routed row of h elements in bf16: 12 B forward and 16 B
  // backward per element, HBM-bound (moe_time.cpp expert_eager_time). gpt-oss-120b (top-4,
  // h 2880) on one 8-GPU H100 node, EP 8 (16 local experts), micro-batch 1 of 4096 tokens,
  // 64 / 8 = 8 micro-batches, 36 MoE layers: each micro-batch's rows are
  // 4 · 2880 · 4096 = 47.2M elements, one expert's slice 2 B · 47.2M / 16 = 5.9 MB, which
  // the memory size roll-off (data/perf.json memory_size_rolloff, linear between its
  // points) runs at 0.667 + (5.9 − 1) / 9 · (0.833 − 0.667) of H100's 3.35 TB/s × 0.9.
  const auto compute = [](const char* model, const char* graphs) {
    const std::string s = std::string(R"({"model":)") + model +
                          R"(,"gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096,"global_batch":64,
      "micro_batch":1,"precision":"bf16","recompute":"none","cuda_graphs":")" +
                          graphs + R"("},"parallel":{"gpus":8,"tp":1,"pp":1,"dp":8,"ep":8}})";
    return answer(s)["performance"]["breakdown"]["compute_s"].get<double>();
  };
  const char* plain = R"({"base":"gpt-oss-120b","linear_bias":false})";
  const double elems = 4.0 * 2880 * 4096, seg_mb = 2.0 * elems / 16 / 1e6;
  const double rolloff = 0.667 + (seg_mb - 1) / 9 * (0.833 - 0.667);
  const double per_pass = 28.0 * elems / (3.35e12 * 0.9 * rolloff);
  CHECK(compute("\"gpt-oss-120b\"", "none") - compute(plain, "none") == Approx(8 * 36 * per_pass).epsilon(1e-6));
  // A full-iteration CUDA graph cannot hold the host-synchronising split; the recipes that
  // capture one fuse the bias into Transformer Engine's op fuser instead: no such cost.
  CHECK(compute("\"gpt-oss-120b\"", "full_iteration") == Approx(compute(plain, "full_iteration")).epsilon(1e-12));
}

TEST_CASE("Megatron-Core clamps gpt-oss's activation inputs with eager ops", "[moe][time]") {
  // weighted_bias_quick_geglu_impl (Megatron-LM 2e29a5e, 2025-09) splits the fc1 output,
  // clamps each half and concatenates them before the fused activation: 8 B forward and
  // 10 B backward per fc1-output element in bf16, and the forward again under moe_act
  // recompute (moe_time.cpp expert_eager_time). gpt-oss-120b on 8 H100, EP 8, micro-batch
  // 1 of 4096 tokens, 8 micro-batches, 36 layers: 4 · 2 · 2880 · 4096 = 94.4M elements
  // per micro-batch; each clamp moves one half, 94.4 MB, at 0.833 + (94.4 − 10) / 90 ·
  // (1 − 0.833) of H100's 3.35 TB/s × 0.9 (data/perf.json memory_size_rolloff).
  const auto compute = [](const char* act, const char* recompute) {
    const std::string s = std::string(R"({"model":{"base":"gpt-oss-120b","ffn_act":")") + act +
                          R"("},"gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096,"global_batch":64,
      "micro_batch":1,"precision":"bf16",)" +
                          recompute + R"(},"parallel":{"gpus":8,"tp":1,"pp":1,"dp":8,"ep":8}})";
    return answer(s)["performance"]["breakdown"]["compute_s"].get<double>();
  };
  const double elems = 4.0 * 2 * 2880 * 4096;
  const double rolloff = 0.833 + (elems / 1e6 - 10) / 90 * (1 - 0.833);
  const double per_byte = 8 * 36 * elems / (3.35e12 * 0.9 * rolloff);
  const char* none = R"("recompute":"none")";
  CHECK(compute("swiglu_clamped", none) - compute("swiglu", none) == Approx(18 * per_byte).epsilon(1e-6));
  const char* act = R"("recompute_modules":["moe_act"])";
  CHECK(compute("swiglu_clamped", act) - compute("swiglu", act) == Approx(26 * per_byte).epsilon(1e-6));
}

TEST_CASE("YaRN's attention factor keeps Megatron-Core's RoPE unfused", "[moe][time]") {
  // Transformer Engine's fused RoPE takes no attention factor: with gpt-oss's 1.3466
  // Megatron-Core runs the unfused PyTorch ops (rope_utils.py apply_rotary_pos_emb), priced
  // like an eager stack's RoPE: 28 B per q/k element forward instead of 4, backward twice
  // the forward (layer_time.cpp attention_side_bytes). gpt-oss-120b on 8 H100, EP 8,
  // micro-batch 1 of 4096 tokens, 8 micro-batches, 36 layers: (64 + 8) · 64 q/k elements
  // per token. The layer's element-wise pass is ~1 GB, past the memory size roll-off's last
  // point (100 MB: full rate), so the difference is linear at 3.35 TB/s × 0.9.
  const auto compute = [](const char* factor, const char* framework) {
    const std::string s = std::string(R"({"model":{"base":"gpt-oss-120b","rope_attention_factor":)") + factor +
                          R"(},"gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096,"global_batch":64,
      "micro_batch":1,"precision":"bf16","recompute":"none","framework":")" +
                          framework + R"("},"parallel":{"gpus":8,"tp":1,"pp":1,"dp":8,"ep":8}})";
    return answer(s)["performance"]["breakdown"]["compute_s"].get<double>();
  };
  const double per_pass = 24.0 * (64 + 8) * 64 * 4096 / (3.35e12 * 0.9);
  CHECK(compute("1.3466", "megatron") - compute("1", "megatron") == Approx(8 * 36 * 3 * per_pass).epsilon(1e-6));
  // The preset carries gpt-oss's factor.
  CHECK(find_model("gpt-oss-120b")->rope_attention_factor == Approx(0.1 * std::log(32.0) + 1).epsilon(1e-4));
}
