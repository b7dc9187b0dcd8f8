// The performance model's pieces, each against its formula (docs/performance-model.md).
#include <catch2/catch.hpp>
#include <cmath>

#include "gpucalc/compute.hpp"
#include "gpucalc/search.hpp"

using namespace gpucalc;

namespace {
Problem llama70b_h100() {
  Problem p;
  p.model = *find_model("llama-3.1-70b");
  p.training.seq_len = 8192; p.training.global_batch = 1024; p.training.tokens = 1e12;
  p.gpu = *find_gpu("h100-sxm-80gb");
  p.perf = perf_profile_for("h100-sxm-80gb");
  return p;
}
}  // namespace

TEST_CASE("a group inside the NVLink domain uses scale-up, one spanning nodes uses its NIC", "[perf][network]") {
  const Gpu g = *find_gpu("h100-sxm-80gb");
  const PerfProfile perf = perf_profile_for(g.id);
  const Link tp = link_for(g, perf, 1, 8);
  CHECK_FALSE(tp.scaleout);
  CHECK(tp.bytes_per_s == Approx(450e9 * *perf.scaleup.value));
  const Link dp = link_for(g, perf, 8, 2);  // TP 8 inside, DP 2 across two nodes
  CHECK(dp.scaleout);
  CHECK(dp.bytes_per_s == Approx(400e9 / 8 * *perf.scaleout.value));
  const Link cp = link_for(g, perf, 2, 4);  // TP 2 × CP 4 = 8: still one node
  CHECK_FALSE(cp.scaleout);
}

TEST_CASE("TP with SP costs 4 collectives forward and 6 backward per layer", "[perf][tp]") {
  // Korthikanti et al. 2022 §4.2.2: all-gather + reduce-scatter per all-reduce, and the
  // stored sequence-sharded inputs of the two column-parallel linears re-gathered.
  Problem p = llama70b_h100();
  Layout l;
  l.tp = 8; l.pp = 1; l.dp = 16; l.micro_batch = 1; l.zero_stage = 1;
  const StepTime st = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency);
  const Link k = link_for(p.gpu, p.perf, 1, 8);
  const double act = 2.0 * 8192 * 8192;  // bytes of one s·b·h activation
  const double one = 7.0 / 8 * act / k.bytes_per_s + k.latency_s;
  const double m = 1024.0 / 16;
  CHECK(st.tp_comm_s == Approx(m * 80 * 10 * one).epsilon(1e-9));
}

TEST_CASE("ZeRO-3 moves 1.5x the data-parallel volume of an all-reduce", "[perf][zero]") {
  // sizing-model.md §4: all-gather forward + all-gather backward + reduce-scatter.
  Problem p = llama70b_h100();
  p.training.grad_dtype_bytes = 2;  // equal gradient and weight bytes
  p.training.global_batch = 64;
  Layout l;
  l.tp = 8; l.dp = 64; l.micro_batch = 1;  // one micro-batch per step
  l.zero_stage = 0;
  const double ar = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency).dp_comm_total_s;
  l.zero_stage = 3;
  const double z3 = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency).dp_comm_total_s;
  CHECK(z3 / ar == Approx(1.5).epsilon(1e-3));  // latency terms aside
}

TEST_CASE("a power cap slows compute by (cap / TDP)^(1/3)", "[perf][power]") {
  Problem p = llama70b_h100();
  Layout l;
  l.tp = 8; l.dp = 16; l.micro_batch = 1; l.zero_stage = 1;
  const double full = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency).compute_s;
  p.gpu.power_limit_w.value = 500.0;
  const double capped = step_time(p.model, p.training, l, p.gpu, p.perf, p.efficiency).compute_s;
  // Compute is mostly tensor-core time; HBM-bound kernels do not slow down.
  CHECK(capped / full <= std::cbrt(700.0 / 500.0) + 1e-12);
  CHECK(capped / full > 1.10);
}

TEST_CASE("materialised attention is never faster than its HBM traffic (roofline)", "[perf][roofline]") {
  Problem p = llama70b_h100();
  p.training.flash_attention = false;
  Layout l;
  l.tp = 8; l.dp = 16; l.micro_batch = 1; l.zero_stage = 1;
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
