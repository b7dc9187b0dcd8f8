// Performance-model constants: achievable efficiencies of one accelerator's matmul,
// attention, memory and network, with their provenance (data/perf.json).
#pragma once
#include <string>
#include <vector>

#include "gpucalc/hardware.hpp"

namespace gpucalc {

struct PerfProfile {
  std::string profile_id;  // the data/perf.json profile these came from ("default" if none)
  Spec matmul;             // asymptotic fraction of the dense BF16/FP16 peak for large GEMMs
  Spec fp8_matmul;         // the same for FP8 GEMMs (of the FP8 peak)
  Spec fp4_matmul;         // the same for NVFP4 GEMMs (of the FP4 peak)
  Spec sustained_clock;    // sustained / peak tensor clock under power-limited dense math
  Spec sm_count;           // streaming multiprocessors: one GEMM output tile each per wave
  Spec attention_fwd;      // fused attention forward, fraction of the matmul peak
  Spec attention_bwd;      // fused attention backward
  Spec memory;             // fraction of HBM bandwidth for large streams
  Spec scaleup;            // achieved fraction of scale-up bandwidth (NCCL bus bandwidth)
  Spec scaleout;           // achieved fraction of scale-out bandwidth
  // FlashAttention-2 kernels (PyTorch SDPA's default flash backend, the flash-attn 2
  // package) relative to attention_fwd/bwd, where those measure a faster native kernel
  // (FA3 / cuDNN on Hopper); absent: the same kernel class, 1.
  Spec attention_fa2;
  // The causal sequence attention_fwd/bwd were measured at, where it is not
  // data/perf.json attention_tiles.reference_span (absent: that).
  Spec attention_span;
  // false for the default profile and when data/perf.json derives the profile from sibling
  // parts instead of measuring this one ("measured": false): such answers take the
  // unmeasured-accelerator range.
  bool measured = true;
};

// A piecewise-linear curve y(x), clamped at both ends.
struct Curve {
  std::vector<double> x, y;
  std::string source;
  double at(double v) const;
};

// NCCL's latency model, Simple protocol (data/perf.json nccl_latency), microseconds.
struct NcclLatency {
  double ring_base_us = 8.4, tree_base_us = 0;
  double ring_hop_up_us = 5.7, ring_hop_out_us = 6.6;
  double tree_hop_up_us = 28, tree_hop_out_us = 50;
};

struct PerfData {
  Curve matmul_rolloff;               // fraction of the asymptote vs GEMM size in GFLOP
  Curve memory_rolloff;               // fraction of the asymptote vs transfer size in MB
  double tile_m = 256, tile_n = 128;  // GEMM output tile (NVIDIA's GEMM guide)
  NcclLatency nccl;
  // Megatron-Core MoE layer: fixed time per MoE layer per micro-batch, forward and
  // backward, beyond its priced operations, by CUDA-graph mode (unspecified, none,
  // per_layer, full_iteration: the CudaGraphs order; data/perf.json moe_layer_overhead).
  double moe_layer_overhead_s[4] = {0, 0, 0, 0};
  // ... and a time per local expert (E / ep) per MoE layer per micro-batch, every mode:
  // each local expert is its own GEMMs and casts (data/perf.json moe_layer_overhead).
  double moe_local_expert_overhead_s = 0;
  // Fraction by which compute slows while a data-parallel collective overlaps it
  // (data/perf.json overlap_slowdown).
  double overlap_slowdown = 0;
  // Share of the TP/SP collectives PyTorch's async tensor parallelism (torchtitan's
  // enable_async_tensor_parallel) hides, measured (data/perf.json async_tp_hidden).
  double async_tp_hidden = 0;
  // Attention speed at a head dimension over its speed at 128, forward and backward:
  // cuDNN fused attention (Megatron-Core) and FlashAttention-2 (PyTorch-native stacks)
  // (data/perf.json attention_head_dim).
  Curve att_hd_fused_fwd, att_hd_fused_bwd, att_hd_fa2_fwd, att_hd_fa2_bwd;
  // Tiled attention's fixed cost per query tile, in key-tile iterations, forward and
  // backward; the keys per tile; the causal sequence the profiles' fractions are for
  // (data/perf.json attention_tiles; 0: no span correction).
  double att_tile_keys = 128, att_fixed_tiles_fwd = 0, att_fixed_tiles_bwd = 0, att_span_ref = 8192;
};

// A tiled attention kernel's speed at `span` (2 × keys per query) over its speed at the
// causal sequence `ref`: e(u)/e(u_ref), e(u) = u/(c0 + u + δ), u = span/2 keys per query in
// key tiles; δ the tiles walked in part (0.5 causal, 1 sliding window); at most 1.
double attention_span_speed(const PerfData& d, double span, double ref, bool windowed, bool backward);

const PerfData& perf_data();

// The profile for a catalog id (a "base+custom" id uses its base), via aliases,
// field by field falling back to the default profile.
PerfProfile perf_profile_for(const std::string& gpu_id);

}  // namespace gpucalc
