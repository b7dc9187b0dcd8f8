// FLOPs and time, pinned to Narayanan et al. 2021 and the PaLM accounting.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include <nlohmann/json.hpp>

#include "gpucalc/api.hpp"
#include "gpucalc/compute.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/network.hpp"
#include "gpucalc/perf.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/search.hpp"

using namespace gpucalc;

namespace {
ModelShape megatron_gpt(int64_t L, int64_t h, int64_t a) {
  ModelShape m;
  m.layers = L;
  m.hidden = h;
  m.heads = a;
  m.kv_heads = a;
  m.ffn_hidden = 4 * h;
  m.vocab = 51200;
  m.ffn_act = FfnAct::gelu;
  m.norm = Norm::layernorm;
  m.linear_bias = true;
  m.dropout = true;
  m.position = PositionEmbedding::learned;
  m.max_position_embeddings = 2048;
  return m;
}
}  // namespace

TEST_CASE("FLOPs per token equal Narayanan eq. (3) with and without recomputation", "[compute]") {
  const double L = 128, h = 25600, V = 51200, s = 2048;
  const ModelShape m = megatron_gpt(128, 25600, 160);
  // eq. (3), per token: 96·L·h²(1 + s/(6h) + V/(16·L·h)) with full recomputation,
  // 72·L·h²(1 + s/(6h) + V/(12·L·h)) without.
  CHECK(flops_per_token(m, 2048, Recompute::full).hardware ==
        Approx(96 * L * h * h * (1 + s / (6 * h) + V / (16 * L * h))).epsilon(1e-12));
  CHECK(flops_per_token(m, 2048, Recompute::none).model ==
        Approx(72 * L * h * h * (1 + s / (6 * h) + V / (12 * L * h))).epsilon(1e-12));
  // Model FLOPs never include recomputation.
  CHECK(flops_per_token(m, 2048, Recompute::full).model == flops_per_token(m, 2048, Recompute::none).model);
}

TEST_CASE("Narayanan §5.1: 1T parameters, 450B tokens, 3072 A100 at 163 TFLOP/s take about 84 days",
          "[compute][time]") {
  const double days = narayanan_training_seconds(450e9, 1e12, 3072, 163e12, true) / 86400;
  CHECK(days == Approx(84).epsilon(0.015));  // the paper rounds 83.2 to "≈84"

  // The full path: the paper's 1T configuration (L 128, h 25600, a 160; TP 8, PP 64,
  // DP 6, batch 3072 × 2048 tokens) achieving 163 TFLOP/s of hardware FLOPs. Our exact
  // FLOPs (eq. 3, incl. attention and logits) are 1.4% above 8·Ψ, so 84.9 days.
  Problem p;
  p.model = megatron_gpt(128, 25600, 160);
  p.training.seq_len = 2048;
  p.training.global_batch = 3072;
  p.training.tokens = 450e9;
  p.gpu = *find_gpu("a100-sxm-80gb");
  Layout l;
  l.tp = 8;
  l.pp = 64;
  l.dp = 6;
  l.micro_batch = 1;
  l.recompute = Recompute::full;
  REQUIRE_FALSE(check_layout(p.model, p.training, l));
  const auto f = flops_per_token(p.model, 2048, Recompute::full);
  p.efficiency.mfu = 163e12 / 312e12 * f.model / f.hardware;  // end-to-end, bubbles included
  const Candidate c = evaluate_layout(p, l);
  CHECK(c.time.hfu == Approx(163.0 / 312).epsilon(1e-9));
  CHECK(c.run.days == Approx(84.96).epsilon(0.002));
  CHECK(c.run.days == Approx(84).epsilon(0.015));
}

TEST_CASE("the pipeline bubble is (p-1)/(v·m) of the compute time", "[compute][pipeline]") {
  Problem p;
  p.model = *find_model("llama-3.1-70b");
  p.training.seq_len = 8192;
  p.training.global_batch = 512;
  p.training.tokens = 1e12;
  p.gpu = *find_gpu("h100-sxm-80gb");
  Layout l;
  l.tp = 8;
  l.pp = 4;
  l.dp = 8;
  l.micro_batch = 1;  // m = 64
  // The bubble is (p-1)/v slots of one micro-batch's time on the stage, which
  // includes its TP, CP and PP communication (Narayanan et al. 2021 §2.2).
  auto st = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency);
  const auto slot_work = [](const StepTime& x) { return x.compute_s + x.tp_comm_s + x.cp_comm_s + x.pp_comm_s; };
  CHECK(st.bubble_s / slot_work(st) == Approx(3.0 / 64).epsilon(1e-12));
  l.vpp = 5;  // 80 / (4·5) = 4 layers per chunk
  st = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency);
  CHECK(st.bubble_s / slot_work(st) == Approx(3.0 / (5 * 64)).epsilon(1e-12));
  // The parts add up to the step.
  CHECK(st.step_time_s ==
        Approx(slot_work(st) + st.bubble_s + st.dp_comm_exposed_s + st.zero3_comm_exposed_s + st.optimizer_s)
            .epsilon(1e-12));
}

TEST_CASE("days scale with 1/throughput and GPU-hours stay put when only efficiency changes", "[compute][property]") {
  Problem p;
  p.model = *find_model("llama-3.1-8b");
  p.training.seq_len = 8192;
  p.training.global_batch = 512;
  p.training.tokens = 1e12;
  p.gpu = *find_gpu("h100-sxm-80gb");
  Layout l;
  l.dp = 64;
  l.zero_stage = 3;
  p.efficiency.mfu = 0.4;
  const auto a = evaluate_layout(p, l);
  p.efficiency.mfu = 0.2;
  const auto b = evaluate_layout(p, l);
  CHECK(b.run.days == Approx(2 * a.run.days).epsilon(1e-12));
  CHECK(a.time.tokens_per_s_per_gpu == Approx(2 * b.time.tokens_per_s_per_gpu).epsilon(1e-12));
  // 6Ψ·T / (n · peak · mfu): 8B model, 1T tokens, 64 H100 at 40%.
  const auto f = flops_per_token(p.model, 8192, Recompute::none);
  CHECK(a.run.days == Approx(1e12 * f.model / (64 * 989e12 * 0.4) / 86400).epsilon(1e-12));
}

TEST_CASE("an uneven pipeline split: Llama 3 405B as 7 + 14 x 8 + 7 layers (Megatron-Core first/last stage layers)",
          "[compute][pipeline]") {
  // Llama 3 (Dubey et al. 2024, §3.3.2) balances its 16 stages by taking one layer off
  // the first and the last stage, which also run the embedding and the output layer.
  Problem p;
  p.model = *find_model("llama-3.1-405b");
  p.training.seq_len = 8192;
  p.training.global_batch = 2048;
  p.training.tokens = 1e12;
  p.gpu = *find_gpu("h100-sxm-80gb");
  Layout even;
  even.tp = 8;
  even.pp = 16;
  even.dp = 64;
  even.micro_batch = 1;
  even.recompute = Recompute::selective;
  Layout split = even;
  split.first_stage_layers = 7;
  split.last_stage_layers = 7;
  REQUIRE_FALSE(check_layout(p.model, p.training, split));
  CHECK(stage_layer_count(p.model, split, 0) == 7);
  for (int64_t s = 1; s < 15; ++s) CHECK(stage_layer_count(p.model, split, s) == 8);
  CHECK(stage_layer_count(p.model, split, 15) == 7);
  CHECK(layers_per_stage_max(p.model, split) == 8);
  CHECK(stage_layer_count(p.model, even, 15) == 8);  // ceil(126 / 16)

  // The first stage keeps the same micro-batches in flight with 7 layers instead of 8.
  const StageMemory me = stage_memory(p.model, p.training, even, p.overheads, 0);
  const StageMemory ms = stage_memory(p.model, p.training, split, p.overheads, 0);
  CHECK(ms.in_flight == me.in_flight);
  CHECK(ms.layer_activations == Approx(me.layer_activations * 7.0 / 8.0).epsilon(1e-12));

  // Time: the slowest stage sets the pace. Even, it is the last (8 layers + the output
  // layer); split 7/7, a middle one (8 layers, no head): less compute per micro-batch.
  // A split that leaves the last stage as full as before (6 + 14 × 8 + 8) changes nothing.
  const auto st_even = step_time(p.model, p.training, even, p.gpu, p.perf, p.efficiency);
  const auto st_split = step_time(p.model, p.training, split, p.gpu, p.perf, p.efficiency);
  CHECK(st_split.compute_s < st_even.compute_s);
  Layout same = even;
  same.first_stage_layers = 6;
  same.last_stage_layers = 8;
  REQUIRE_FALSE(check_layout(p.model, p.training, same));
  CHECK(step_time(p.model, p.training, same, p.gpu, p.perf, p.efficiency).compute_s ==
        Approx(st_even.compute_s).epsilon(1e-12));

  // Interleaved, a slot lasts the largest chunk: 8 layers over v = 3 chunks → 3 of 8,
  // so the bubble is (p-1)·3/8 of one micro-batch's stage time (m = 32), not (p-1)/3.
  split.vpp = 3;
  REQUIRE_FALSE(check_layout(p.model, p.training, split));
  const auto st3 = step_time(p.model, p.training, split, p.gpu, p.perf, p.efficiency);
  const double slot = (st3.compute_s + st3.tp_comm_s + st3.cp_comm_s + st3.pp_comm_s) / 32.0;
  CHECK(st3.bubble_s == Approx(15.0 * 3.0 / 8.0 * slot).epsilon(1e-12));

  // MoE: DeepSeek-V3's 3 dense layers fall on the first stage (pp 8: 7 + 6 × 7 + 12).
  const ModelShape ds = *find_model("deepseek-v3");
  Layout moe;
  moe.pp = 8;
  moe.first_stage_layers = 7;
  moe.last_stage_layers = 12;
  CHECK(stage_layers(ds, moe, 0).total == 7);
  CHECK(stage_layers(ds, moe, 0).dense == 3);
  CHECK(stage_layers(ds, moe, 1).dense == 0);
  CHECK(stage_layers(ds, moe, 7).total == 12);
}

// DeepSeek-V3's multi-token-prediction module (arXiv 2412.19437 §2.2, D = 1), as
// Megatron-Core runs it: on the last pipeline stage, a MoE block, the 2h → h projection
// and the shared output head once more.
TEST_CASE("MTP: FLOPs per token and the last stage's extra work", "[compute][mtp]") {
  const ModelShape with = *find_model("deepseek-v3");
  REQUIRE(with.mtp_layers == 1);
  ModelShape without = with;
  without.mtp_layers = 0;
  const int64_t s = 4096;
  // 6 per matmul parameter a token passes through (the MoE block's active weights, the
  // projection, the head) plus the block's attention, 6·s·a·(d_qk + d_v): Megatron-Bridge
  // flop_utils counts num_layers + mtp_num_layers layers and the logits × (1 + mtp).
  const double h = 7168, V = 129280, a = 128;
  const double block = static_cast<double>(attention_matmul_params(with) + moe_mlp_active_matmul_params(with));
  const double extra = 6.0 * (block + 2 * h * h + V * h) + 6.0 * s * a * (192 + 128);
  const FlopsPerToken f1 = flops_per_token(with, s, Recompute::none), f0 = flops_per_token(without, s, Recompute::none);
  CHECK(f1.model - f0.model == Approx(extra).epsilon(1e-12));
  CHECK(f1.hardware == f1.model);

  // PP2 as 31 + 30 layers, the last stage critical (it holds the head): MTP adds to it a MoE
  // block, the projection and the head and loss again; one more MoE layer on the last
  // stage (30 + 31) adds the block only. The head's V·h = 0.93B matmul weights outweigh a
  // DeepSeek-V3 MoE layer's 0.6B active ones, so the MTP adds more than 1.5 layers' time.
  auto run = [&](int mtp, int64_t first, int64_t last) {
    auto sc = parse_scenario(R"({"model":{"base":"deepseek-v3","mtp_layers":)" + std::to_string(mtp) +
                             R"(},"gpu":"b200-180gb","training":{"tokens":1e12,"seq_len":4096,"global_batch":2048,
      "micro_batch":1,"precision":"fp8","zero_stage":1,"moe_dispatcher":"alltoall"}})");
    REQUIRE(sc.ok());
    const Problem& p = sc->problem;
    Layout l;
    l.pp = 2;
    l.dp = 128;
    l.ep = 8;
    l.micro_batch = 1;
    l.zero_stage = 1;
    l.first_stage_layers = first;
    l.last_stage_layers = last;
    l.recompute = Recompute::selective;
    l.recompute_modules = static_cast<unsigned>(RecomputeModule::mla_up_proj);
    REQUIRE_FALSE(check_layout(p.model, p.training, l));
    return std::make_pair(step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency),
                          stage_memory(p.model, p.training, l, Overheads{}, 1));
  };
  const auto [st0, mem0] = run(0, 31, 30);
  const auto [st1, mem1] = run(1, 31, 30);
  const auto [st_layer, mem_layer] = run(0, 30, 31);
  const double per_block = st_layer.compute_s - st0.compute_s;  // one MoE layer, every micro-batch
  REQUIRE(per_block > 0);
  CHECK(st1.compute_s - st0.compute_s > 1.5 * per_block);
  CHECK(st1.step_time_s > st_layer.step_time_s);
  // Memory on the last stage: the MTP block's states and activations, a second set of logits.
  CHECK(mem1.weights > mem0.weights);
  CHECK(mem1.logits == Approx(2.0 * mem0.logits).epsilon(1e-12));
  CHECK(mem1.layer_activations > mem0.layer_activations);
}

TEST_CASE("packed documents: attention FLOPs count each document's span, not the sequence's", "[compute][packing]") {
  // Narayanan et al. 2021 eq. (3) with the attention term's s replaced by the document
  // length d: each token attends within its own document (FlashAttention varlen).
  const double L = 128, h = 25600, V = 51200, d = 256;
  const ModelShape m = megatron_gpt(128, 25600, 160);
  Training t;
  t.seq_len = 2048;
  t.packed_document_tokens = 256;
  CHECK(flops_per_token(m, 2048, Recompute::none, &t).model ==
        Approx(72 * L * h * h * (1 + d / (6 * h) + V / (12 * L * h))).epsilon(1e-12));
  // A dense s×s attention computes the masked square in full; a document as long as the
  // sequence changes nothing.
  t.flash_attention = false;
  CHECK(flops_per_token(m, 2048, Recompute::none, &t).model == flops_per_token(m, 2048, Recompute::none).model);
  t.flash_attention = true;
  t.packed_document_tokens = 2048;
  CHECK(flops_per_token(m, 2048, Recompute::none, &t).model == flops_per_token(m, 2048, Recompute::none).model);
}

TEST_CASE("packed documents: shorter attention, faster steps, and a full-length document is no packing",
          "[compute][packing]") {
  const auto tokens_per_s = [](const std::string& extra) {
    const json env = json::parse(evaluate_json(
        R"({"model":"llama-3.1-70b","gpu":"h100-sxm-80gb","training":{"tokens":1e9,"seq_len":4096,"global_batch":32,)"
        R"("micro_batch":1,"stage":"full_finetune","zero_stage":1,"recompute":"none")" +
        extra + R"(},"parallel":{"gpus":16,"tp":4,"pp":4,"dp":1}})"));
    REQUIRE(env["ok"] == true);
    return env["value"]["performance"]["tokens_per_s_per_gpu"].get<double>();
  };
  const double one = tokens_per_s(""), full = tokens_per_s(R"(,"packed_document_tokens":4096)");
  const double squad = tokens_per_s(R"(,"packed_document_tokens":256)");
  CHECK(full == Approx(one).epsilon(1e-12));
  // Attention is ~4% of a 70B model's FLOPs at 4,096 tokens and runs below the GEMMs'
  // rate; 256-token documents cut its FLOPs 16-fold but run at about a quarter of the
  // 4K rate per FLOP (one key tile per query tile: data/perf.json attention_tiles), so
  // they save 2-8% of the step, not more.
  CHECK(squad / one > 1.02);
  CHECK(squad / one < 1.08);
}

TEST_CASE("attention slows with the keys a query attends over, as cuDNN measures it", "[compute][attention_span]") {
  // data/perf.json attention_tiles: a fixed cost per 128-row query tile of c0 key-tile
  // iterations (3.5 forward, 4.25 backward), e(u) = u / (c0 + u + δ), relative to the
  // 8K causal reference (u = 32, δ = 0.5).
  const PerfData& d = perf_data();
  REQUIRE(d.att_fixed_tiles_fwd == 3.5);
  REQUIRE(d.att_fixed_tiles_bwd == 4.25);
  CHECK(attention_span_speed(d, 4096, 8192, false, false) == Approx((16 / 20.0) / (32 / 36.0)).epsilon(1e-12));
  CHECK(attention_span_speed(d, 4096, 8192, false, true) == Approx((16 / 20.75) / (32 / 36.75)).epsilon(1e-12));
  // Against the cuDNN runs (NVIDIA/cudnn-frontend benchmark/sdpa_benchmark_training/results):
  // H200 forward at 4K 591 of 644 TFLOP/s at 8K (cuDNN 9.19), within 3%; GB200 backward at
  // 2K 885 of 1332 (cuDNN 9.22), within 10%.
  CHECK(attention_span_speed(d, 4096, 8192, false, false) == Approx(591.0 / 644).epsilon(0.03));
  CHECK(attention_span_speed(d, 2048, 8192, false, true) == Approx(885.0 / 1332).epsilon(0.10));
  // gpt-oss's 128-token window over 4K (a span of 2w − w²/s), head dim 64, not fitted:
  // GB200 164 TFLOP/s forward, 186 backward against its 8K head-dim-128 rates times the
  // head-dim-64 factors (1574 × 0.670, 1332 × 0.836): 0.156 and 0.167; the model gives
  // 0.20 and 0.18, within 30%.
  const double win = 2 * 128.0 - 128.0 * 128 / 4096;
  CHECK(attention_span_speed(d, win, 8192, true, false) == Approx(164 / (1574 * 0.670)).epsilon(0.30));
  CHECK(attention_span_speed(d, win, 8192, true, true) == Approx(186 / (1332 * 0.836)).epsilon(0.15));
  // Past the reference no gain is taken (the 32K runs sit within -8% to +7% of 8K).
  CHECK(attention_span_speed(d, 131072, 8192, false, false) == 1.0);
}

TEST_CASE("sliding windows: attention FLOPs count each layer's window, the others the sequence",
          "[compute][sliding_window]") {
  // A causal window of w keys over s tokens attends (1/s)·Σᵢ min(i, w) ≈ w − w²/(2s) keys per
  // query, a span of 2w − w²/s in place of s (plan.hpp attention_span). Gemma 3 27B at
  // 4,096 tokens: 52 of 62 layers slide over 1,024 tokens.
  const ModelShape& m = *find_model("gemma-3-27b");
  REQUIRE(m.sliding_window == 1024);
  REQUIRE(m.sliding_window_layers == 52);
  ModelShape full = m;
  full.sliding_window = full.sliding_window_layers = 0;
  const double s = 4096, w = 1024, span = (10 * s + 52 * (2 * w - w * w / s)) / 62;
  CHECK(span == Approx(2163.6129).epsilon(1e-6));
  const double saved = 6.0 * 62 * (s - span) * 32 * (128 + 128);  // 6·L·Δs·a·(d_qk + d_v)
  CHECK(flops_per_token(full, 4096, Recompute::none).model - flops_per_token(m, 4096, Recompute::none).model ==
        Approx(saved).epsilon(1e-9));
  // A window as long as the sequence, or attention without a windowed kernel, saves nothing.
  CHECK(flops_per_token(m, 1024, Recompute::none).model == flops_per_token(full, 1024, Recompute::none).model);
  Training t;
  t.seq_len = 4096;
  t.flash_attention = false;
  CHECK(flops_per_token(m, 4096, Recompute::none, &t).model == flops_per_token(full, 4096, Recompute::none).model);
  // Packed 512-token documents inside 1,024-token windows: the documents bound it.
  t.flash_attention = true;
  t.packed_document_tokens = 512;
  Training t_full = t;
  CHECK(flops_per_token(m, 4096, Recompute::none, &t).model ==
        flops_per_token(full, 4096, Recompute::none, &t_full).model);
}

TEST_CASE("sliding windows with context parallelism: Transformer Engine exchanges only the halo",
          "[compute][sliding_window][cp]") {
  // TE's p2p CP for a causal left window (AttnFuncWithCPAndKVP2PSWA): each rank fetches the
  // w keys and values before each of its two chunks, one exchange forward and the halo's
  // gradients backward, and runs first the chunk that needs none, so each exchange hides
  // under half of the layer's attention. Four windowed layers, s = 32,768, w = 1,024,
  // CP 4 across two nodes (TP 4): per layer the halo is 2w tokens of K and V, and the
  // attention spans 2w − w²/s keys (plan.hpp attention_spans).
  const auto run = [](const std::string& framework) {
    const json env = json::parse(
        evaluate_json(R"({"model":{"layers":4,"hidden":1024,"heads":8,"kv_heads":8,"head_dim":128,"ffn_hidden":4096,)"
                      R"("vocab":32000,"sliding_window":1024,"sliding_window_layers":4},"gpu":"h100-sxm-80gb",)"
                      R"("training":{"tokens":1e9,"seq_len":32768,"global_batch":2,"micro_batch":1,"zero_stage":1,)"
                      R"("recompute":"none","framework":")" +
                      framework + R"("},"parallel":{"gpus":32,"tp":4,"pp":1,"cp":4,"dp":2}})"));
    REQUIRE(env["ok"] == true);
    return env["value"]["performance"]["breakdown"]["cp_comm_s"].get<double>();
  };
  const Gpu& g = *find_gpu("h100-sxm-80gb");
  const PerfProfile p = perf_profile_for("h100-sxm-80gb");
  const double peak = peak_flops(g, Precision::bf16) * *p.sustained_clock.value;
  const double s = 32768, w = 1024, span = 2 * w - w * w / s, M = s / 4;
  const double fl = M * span * 8 * (128 + 128) / 4;  // M·span·a·(d_qk + d_v)/tp
  // The window runs slower per FLOP than the 8K reference (data/perf.json attention_tiles).
  const double v_fwd = attention_span_speed(perf_data(), span, 8192, true, false);
  const double v_bwd = attention_span_speed(perf_data(), span, 8192, true, true);
  const double fwd = fl / (peak * *p.attention_fwd.value * v_fwd),
               bwd = 2.5 * fl / (peak * *p.attention_bwd.value * v_bwd);
  const double halo = p2p_s(fabric_for(g, p), true, 2.0 * (2 * w) * (2 * 8 * 128) / 4);  // 2 B · 2w · (K+V)/tp
  REQUIRE(halo > fwd / 2);  // the case where the exchange shows
  const double expected = 4 * (std::max(0.0, halo - fwd / 2) + std::max(0.0, halo - bwd / 2));
  CHECK(run("megatron") == Approx(expected).epsilon(1e-9));
  // The ring (cp − 1 blocks of M tokens each way) where the window path is not taken.
  const double ring = 3 * p2p_s(fabric_for(g, p), true, 2.0 * M * (2 * 8 * 128) / 4);
  CHECK(run("torchtitan") > 4 * (ring - fwd));
}

TEST_CASE("narrow heads: attention at head dim 64 runs at cuDNN's measured fraction of its head-dim-128 rate",
          "[compute][attention]") {
  // Shah et al. 2024 (FlashAttention-3) Figs. 5-6, H100, 4K: cuDNN forward 408 vs 609
  // TFLOP/s, backward 417 vs 499 (data/perf.json attention_head_dim). Two models with the
  // same attention FLOPs, 32 heads of 64 and 16 of 128: the narrow one's compute is longer
  // by each layer's attention time × (609/408 − 1) forward and × (499/417 − 1) backward.
  const auto compute_s = [](int heads) {
    const json env = json::parse(evaluate_json(
        R"({"model":{"layers":16,"hidden":2048,"heads":)" + std::to_string(heads) + R"(,"kv_heads":)" +
        std::to_string(heads) + R"(,"head_dim":)" + std::to_string(2048 / heads) +
        R"(,"ffn_hidden":8192,"vocab":32000},"gpu":"h100-sxm-80gb","training":{"tokens":1e9,"seq_len":8192,)"
        R"("global_batch":8,"micro_batch":1,"zero_stage":1,"recompute":"none"},"parallel":{"gpus":8,"tp":1,"pp":1,"dp":8}})"));
    REQUIRE(env["ok"] == true);
    return env["value"]["performance"]["breakdown"]["compute_s"].get<double>();
  };
  const PerfProfile p = perf_profile_for("h100-sxm-80gb");
  const double peak = peak_flops(*find_gpu("h100-sxm-80gb"), Precision::bf16) * *p.sustained_clock.value;
  const double fl = 8192.0 * 8192 * 32 * (64 + 64);  // M·span·a·(d_qk + d_v), one micro-batch of one sequence
  const double fwd = fl / (peak * *p.attention_fwd.value), bwd = 2.5 * fl / (peak * *p.attention_bwd.value);
  const double extra = 16 * (fwd * (1 / 0.67 - 1) + bwd * (1 / 0.836 - 1));
  CHECK(compute_s(32) - compute_s(16) == Approx(extra).epsilon(1e-6));
}
