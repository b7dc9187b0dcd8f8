// The performance model's pieces, each against its formula (docs/performance-model.md).
#include <catch2/catch.hpp>
#include <cmath>

#include "gpucalc/compute.hpp"
#include "gpucalc/network.hpp"
#include "gpucalc/search.hpp"

using namespace gpucalc;

namespace {
Problem llama70b_h100() {
  Problem p;
  p.model = *find_model("llama-3.1-70b");
  p.training.seq_len = 8192;
  p.training.global_batch = 1024;
  p.training.tokens = 1e12;
  p.gpu = *find_gpu("h100-sxm-80gb");
  p.perf = perf_profile_for("h100-sxm-80gb");
  return p;
}

// Its usual layout in these tests: TP 8 × DP 16 on 128 GPUs, ZeRO-1.
Layout tp8_dp16(int64_t micro_batch = 1) {
  Layout l;
  l.tp = 8;
  l.dp = 16;
  l.micro_batch = micro_batch;
  l.zero_stage = 1;
  return l;
}
}  // namespace

TEST_CASE("a group inside the NVLink domain uses scale-up, one spanning nodes its members' NICs", "[perf][network]") {
  const Gpu g = *find_gpu("h100-sxm-80gb");
  const PerfProfile perf = perf_profile_for(g.id);
  const Fabric f = fabric_for(g, perf);
  const double up = 450e9 * *perf.scaleup.value, nic = 400e9 / 8 * *perf.scaleout.value;
  const GroupShape tp = shape_of(f, Group{8, 1});
  CHECK(tp.domains == 1);
  CHECK(bus_bytes_per_s(f, tp) == Approx(up));
  // DP 2 at stride 8 (TP 8 inside): one member per node, its own NIC bounds the ring.
  const GroupShape dp = shape_of(f, Group{2, 8});
  CHECK(dp.per_domain == 1);
  CHECK(dp.domains == 2);
  CHECK(bus_bytes_per_s(f, dp) == Approx(nic));
  // TP 2 x CP 4 = 8: still one node.
  CHECK(shape_of(f, Group{4, 2}).domains == 1);
  // FSDP over 64 GPUs without TP: 8 members per node, one ring per NIC, so 8 NICs carry
  // the inter-node traffic (NCCL), capped by the NVLink rate.
  const GroupShape fsdp = shape_of(f, Group{64, 1});
  CHECK(fsdp.per_domain == 8);
  CHECK(fsdp.domains == 8);
  CHECK(bus_bytes_per_s(f, fsdp) == Approx(std::min(up, 8 * nic)));
  // Not rail-optimised: the rings cross the spine on one NIC's rate.
  Fabric spine = f;
  spine.rail_optimized = false;
  CHECK(bus_bytes_per_s(spine, fsdp) == Approx(nic));
}

TEST_CASE("collectives follow NCCL's cost model: ring volume, hop latency, tree for large all-reduces",
          "[perf][network]") {
  const Gpu g = *find_gpu("h100-sxm-80gb");
  const Fabric f = fabric_for(g, perf_profile_for(g.id));
  const double S = 1e9;
  // One node, ring all-gather: 7/8 of the buffer at the NVLink bus rate, 7 NVLink hops.
  CHECK(all_gather_s(f, Group{8, 1}, S) == Approx(7.0 / 8 * S / f.up_bytes_per_s + f.base_latency_s + 7 * f.up_hop_s));
  CHECK(reduce_scatter_s(f, Group{8, 1}, S) == Approx(all_gather_s(f, Group{8, 1}, S)));
  // Large buffer: an all-reduce moves twice an all-gather's volume.
  CHECK(all_reduce_s(f, Group{8, 1}, S) / all_gather_s(f, Group{8, 1}, S) == Approx(2.0).epsilon(0.01));
  // 4,096 ranks one per node (rail): a small all-reduce takes the tree, whose latency
  // grows with log2 of the nodes, not with the ranks.
  const double small = 1e3;
  const double tree = 2.0 * 12 * f.tree_out_hop_s;
  CHECK(all_reduce_s(f, Group{4096, 8}, small) == Approx(tree + 2.0 * 4095 / 4096 * small / f.out_bytes_per_s));
  // In-network reduction (SHARP/NVLS) moves the buffer once instead of 2(n-1)/n times.
  Fabric sharp = f;
  sharp.in_network_reduction = true;
  CHECK(all_reduce_s(sharp, Group{8, 1}, S) < 0.6 * all_reduce_s(f, Group{8, 1}, S));
}

TEST_CASE("TP with SP costs 4 collectives forward and 6 backward per layer", "[perf][tp]") {
  // Korthikanti et al. 2022 §4.2.2: all-gather + reduce-scatter per all-reduce, and the
  // stored sequence-sharded inputs of the two column-parallel linears re-gathered.
  Problem p = llama70b_h100();
  const Layout l = tp8_dp16();
  const StepTime st = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency);
  const double act = 2.0 * 8192 * 8192;  // bytes of one s·b·h activation
  const double one = all_gather_s(fabric_for(p.gpu, p.perf), Group{8, 1}, act);
  const double m = 1024.0 / 16;
  CHECK(st.tp_comm_s == Approx(m * 80 * 10 * one).epsilon(1e-9));
}

TEST_CASE("TP overlap: PyTorch async TP hides its measured share, Megatron's chunked ring more", "[perf][tp]") {
  // torchtitan's June 2025 async-TP benchmark: 0.313-0.453 of the priced TP time saved over
  // four runs, mean 0.375 (data/perf.json async_tp_hidden). Transformer Engine userbuffers
  // (Megatron --tp-comm-overlap) pipeline t chunks: only the first and any excess show.
  CHECK(perf_data().async_tp_hidden == Approx(0.375));
  Problem p = llama70b_h100();
  const Layout l = tp8_dp16();
  const auto tp_time = [&](Framework fw, bool overlap) {
    p.training.framework = fw;
    p.training.overlap_tp_comm = overlap;
    return step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency).tp_comm_s;
  };
  const double titan = tp_time(Framework::torchtitan, false);
  CHECK(tp_time(Framework::torchtitan, true) == Approx(titan * (1 - 0.375)).epsilon(1e-9));
  const double megatron = tp_time(Framework::megatron, false);
  CHECK(tp_time(Framework::megatron, true) == Approx(megatron / 8).epsilon(1e-6));  // GEMMs cover the rest
}

TEST_CASE("Ulysses CP costs two all-to-alls forward, Q K V in and O out, and two backward per layer", "[perf][cp]") {
  // Jacobs et al. 2023 (DeepSpeed-Ulysses) §3: s/cp tokens of every local head become the
  // full sequence of 1/cp of the heads. Llama 3.1 70B on TP 8: 8 query heads and 1 KV head
  // per rank; with cp 4 the KV head is repeated to 4 before the exchange.
  Problem p = llama70b_h100();
  p.training.cp_comm = CpComm::ulysses;
  Layout l;
  l.tp = 8;
  l.cp = 4;
  l.dp = 4;
  l.micro_batch = 1;
  l.zero_stage = 1;
  const StepTime st = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency);
  const double M = 8192.0 / 4;  // local tokens per micro-batch
  const Fabric f = fabric_for(p.gpu, p.perf);
  const double qkv = all_to_all_s(f, Group{4, 8}, 2.0 * M * (8 * 128 + 2 * 4 * 128));
  const double o = all_to_all_s(f, Group{4, 8}, 2.0 * M * 8 * 128);
  const double m = static_cast<double>(p.training.global_batch) / 4;
  CHECK(st.cp_comm_s == Approx(m * 80 * 2 * (qkv + o)).epsilon(1e-9));
  // Ring CP on the same layout hides its K/V passes under 8K-token attention.
  p.training.cp_comm = CpComm::ring;
  CHECK(step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency).cp_comm_s < st.cp_comm_s);
}

TEST_CASE("ZeRO-3 moves 1.5x the data-parallel volume of an all-reduce", "[perf][zero]") {
  // Rajbhandari et al. 2020 (ZeRO), communication analysis of stage 3: all-gather forward +
  // all-gather backward + reduce-scatter.
  Problem p = llama70b_h100();
  p.training.grad_dtype_bytes = 2;  // equal gradient and weight bytes
  p.training.global_batch = 64;
  Layout l;
  l.tp = 8;
  l.dp = 64;
  l.micro_batch = 1;  // one micro-batch per step
  l.zero_stage = 0;
  const double ar = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency).dp_comm_total_s;
  l.zero_stage = 3;
  const double z3 = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency).dp_comm_total_s;
  // Latency apart (a collective of ~0 bytes is its latency): ZeRO-3 moves 1.5x the bytes,
  // in one collective per layer and pass (80 layers x 3), each paying the ring's latency.
  const Fabric f = fabric_for(p.gpu, p.perf);
  const Group dp{64, 8};
  const double ar_lat = all_reduce_s(f, dp, 1e-9), ag_lat = all_gather_s(f, dp, 1e-9);
  CHECK((z3 - 3 * 80 * ag_lat) / (ar - ar_lat) == Approx(1.5).epsilon(1e-3));
  CHECK(3 * 80 * ag_lat / z3 > 0.05);  // 64 ranks over 64 nodes: the latency is not negligible
}

TEST_CASE("a data-parallel collective hidden under compute slows it by the measured 18.9%", "[perf][overlap]") {
  // Lee et al. 2025 (arXiv 2507.03114): compute overlapping a collective runs 18.9% slower
  // on average (data/perf.json overlap_slowdown). A collective of C s under T s of compute
  // then shows max(C - T, C·s/(1+s)) (core/src/step_time.cpp overlapped_exposed).
  const double s = 0.189;
  Problem p = llama70b_h100();
  Layout l = tp8_dp16(8);
  StepTime st = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency);
  // ZeRO-1 on 128 GPUs at micro-batch 8: the reduce-scatter and the all-gather each fit under
  // a micro-batch's backward and forward, so what shows is the slowdown of the compute they overlap.
  REQUIRE(st.dp_comm_total_s > 0.1);
  CHECK(st.dp_comm_exposed_s == Approx(st.dp_comm_total_s * s / (1 + s)).epsilon(1e-9));
  // At micro-batch 1 the reduce-scatter outlasts a micro-batch's backward: its excess shows,
  // more than the slowdown alone and less than the whole collective.
  l.micro_batch = 1;
  st = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency);
  CHECK(st.dp_comm_exposed_s > st.dp_comm_total_s * s / (1 + s) * 1.5);
  CHECK(st.dp_comm_exposed_s < st.dp_comm_total_s);
  // Not overlapped (training.overlap_grad_reduce and overlap_param_gather off): all of it.
  p.training.overlap_grad_reduce = false;
  p.training.overlap_param_gather = false;
  st = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency);
  CHECK(st.dp_comm_exposed_s == Approx(st.dp_comm_total_s).epsilon(1e-12));
}

TEST_CASE("DGX B300 crosses nodes at DGX B200's achieved rate, as its published runs show", "[perf][network]") {
  // data/perf.json MB-B300-NET: moving gpt-oss-120b from EP 8 inside a node to EP 64 over 8
  // nodes cost DGX B300 4.35 s per step and DGX B200 4.21 s (Megatron-Bridge 26.02 and
  // 26.02.01 tables), so B300's 800 Gb/s ConnectX-8 is priced at B200's 0.85 x 400 Gb/s.
  const auto nic = [](const char* id) {
    const Gpu g = *find_gpu(id);
    return fabric_for(g, perf_profile_for(g.id)).out_bytes_per_s;
  };
  CHECK(*find_gpu("b300-288gb")->scaleout_gbps.value == 800);
  CHECK(nic("b300-288gb") == Approx(0.85 * 400e9 / 8));
  CHECK(nic("b300-288gb") == Approx(nic("b200-180gb")));
  // GB300 (no published run crosses its NVL72 domain) keeps 0.85 of its 800 Gb/s.
  CHECK(nic("gb300-279gb") == Approx(0.85 * 800e9 / 8));
}

TEST_CASE("a power cap slows compute by (cap / TDP)^(1/3)", "[perf][power]") {
  Problem p = llama70b_h100();
  const Layout l = tp8_dp16();
  const double full = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency).compute_s;
  p.gpu.power_limit_w.value = 500.0;
  const double capped = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency).compute_s;
  // Compute is mostly tensor-core time; HBM-bound kernels do not slow down.
  CHECK(capped / full <= std::cbrt(700.0 / 500.0) + 1e-12);
  CHECK(capped / full > 1.10);
}

TEST_CASE("GB200, B300 and GB300 sustain B200's measured tensor rate scaled by (TDP ratio)^(1/3)", "[perf][power]") {
  // data/perf.json: only B200's throttled rate is measured (FLASHINFER-THROTTLE); the
  // other Blackwell parts derive theirs from it with the same P ∝ f³ rule as a power cap.
  const Gpu b200 = *find_gpu("b200-180gb");
  const double b200_rate = *b200.bf16_tflops.value * *perf_profile_for(b200.id).sustained_clock.value;
  for (const char* id : {"gb200-186gb", "b300-288gb", "gb300-279gb"}) {
    const Gpu g = *find_gpu(id);
    const double derived = b200_rate * std::cbrt(*g.tdp_w.value / *b200.tdp_w.value) / *g.bf16_tflops.value;
    CHECK(*perf_profile_for(id).sustained_clock.value == Approx(derived).margin(0.0005));
  }
  // GB200 at 1,200 W: 0.853 · 2,250 · 1.2^(1/3) / 2,500 = 0.816.
  CHECK(*perf_profile_for("gb200-186gb").sustained_clock.value == Approx(0.816).margin(0.0005));
  // GB300 at 1,400 W: 0.853 · 2,250 · 1.4^(1/3) / 2,500 = 0.859.
  CHECK(*perf_profile_for("gb300-279gb").sustained_clock.value == Approx(0.859).margin(0.0005));
}

TEST_CASE("the PyTorch-native stacks' attention runs at SDPA's FlashAttention-2 rate", "[perf][attention]") {
  // pytorch/pytorch#142132: SDPA's default flash backend 329.5 TFLOP/s forward against
  // cuDNN's 631.3 on H100 (data/perf.json attention_fa2 = 0.522); Megatron keeps cuDNN's.
  Problem p = llama70b_h100();
  p.training.framework = Framework::torchtitan;
  const Layout l = tp8_dp16();
  REQUIRE(p.perf.attention_fa2.value);
  CHECK(*p.perf.attention_fa2.value == Approx(329.5 / 631.3).margin(1e-3));
  const double fa2 = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency).compute_s;
  PerfProfile native = p.perf;
  native.attention_fa2.value.reset();
  const double cudnn = step_time(p.model, p.training, l, p.gpu, native, p.efficiency).compute_s;
  // Causal FlashAttention: M·s·a·(d+d)/t FLOPs forward, 2.5× that backward, per layer.
  const double fl = 8192.0 * 8192 * 64 * 256 / 8;
  const double peak16 = 989e12 * *p.perf.sustained_clock.value;
  const double core = fl / (peak16 * *p.perf.attention_fwd.value) + 2.5 * fl / (peak16 * *p.perf.attention_bwd.value);
  const double m = 1024.0 / 16;
  CHECK(fa2 - cudnn == Approx(m * 80 * core * (1 / *p.perf.attention_fa2.value - 1)).epsilon(1e-6));
  // Megatron (Transformer Engine's cuDNN attention) is priced as before.
  p.training.framework = Framework::megatron;
  CHECK(step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency).compute_s ==
        step_time(p.model, p.training, l, p.gpu, native, p.efficiency).compute_s);
  // A100's profile measures FA2 itself: no factor.
  CHECK_FALSE(perf_profile_for("a100-sxm-80gb").attention_fa2.value);
}

TEST_CASE("materialised attention is never faster than its HBM traffic (roofline)", "[perf][roofline]") {
  Problem p = llama70b_h100();
  p.training.flash_attention = false;
  const Layout l = tp8_dp16();
  const StepTime st = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency);
  // QKᵀ writes and ·V reads a/t × s × s scores of 2 B each, forward and twice backward.
  const double score_bytes = 2.0 * 2 * 8192.0 * 8192 * 64 / 8;
  const double hbm = 3.35e12 * *p.perf.memory.value;
  CHECK(st.compute_s >= 64 * 80 * 3 * score_bytes / hbm);
}

TEST_CASE("a GPU without a measured profile falls back to the default and says so", "[perf]") {
  const PerfProfile d = perf_profile_for("ascend-910c");
  CHECK(d.profile_id == "default");
  CHECK(d.matmul.confidence == "low");
  const PerfProfile h800 = perf_profile_for("h800-sxm-80gb");  // alias of the H100 profile
  CHECK(h800.profile_id == "h100-sxm-80gb");
  CHECK(h800.matmul.value == perf_profile_for("h100-sxm-80gb").matmul.value);
  CHECK(h800.matmul.confidence == "medium");  // a sibling's measurement, not its own
}
