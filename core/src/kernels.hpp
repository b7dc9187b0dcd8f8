// Per-operation pricing for the time model: GEMM, grouped GEMM, fused attention,
// element-wise (HBM-bound) work and token permutation, each at the efficiency its
// shape gets on one accelerator (docs/performance-model.md "Compute").
#pragma once
#include <algorithm>
#include <cmath>

#include "gpucalc/compute.hpp"
#include "gpucalc/hardware.hpp"
#include "gpucalc/perf.hpp"
#include "gpucalc/plan.hpp"

namespace gpucalc {

struct Kernels {
  double peak = 0;    // matmul peak for the precision at the sustained clock, FLOP/s
  double mm_eff = 0;  // asymptotic matmul efficiency
  // The 16-bit peak and efficiency: under FP8 training the fused attention and the
  // output layer stay in BF16 (Transformer Engine applies FP8 to its own linear layers;
  // FP8 attention is a separate, optional switch; Megatron's output layer is a plain
  // ColumnParallelLinear), so they run at these.
  double peak16 = 0, mm_eff16 = 0;
  double att_fwd = 0, att_bwd = 0;
  double att_span_ref = 8192;  // the causal sequence att_fwd/att_bwd are for
  double hbm = 0;              // achieved HBM bytes/s for large streams
  double sms = 0;              // SMs for wave quantization; 0: none (assume.hfu)
  // Bytes per element a linear's GEMMs move through HBM: its inputs (1 under FP8, else 2),
  // its 16-bit output, and the weight gradient it accumulates (read and written at the
  // gradient's size: Megatron's fused fp32 main_grad accumulation).
  double in_bytes = 2, out_bytes = 2, wgrad_bytes = 8;
  const PerfData* data = nullptr;

  // A GEMM of `flops` moving `bytes` through HBM: the slower of its tensor-core time
  // (size roll-off on the asymptotic efficiency) and its HBM time (the roofline,
  // Williams et al. 2009); the batched attention GEMMs with K = d are HBM-bound.
  double gemm(double flops, double bytes = 0) const {
    const double compute = flops / (peak * mm_eff * data->matmul_rolloff.at(flops / 1e9));
    return bytes > 0 ? std::max(compute, bytes / hbm) : compute;
  }
  // The same in 16-bit (attention without FlashAttention, the output layer).
  double gemm16(double flops, double bytes = 0) const {
    const double compute = flops / (peak16 * mm_eff16 * data->matmul_rolloff.at(flops / 1e9));
    return bytes > 0 ? std::max(compute, bytes / hbm) : compute;
  }
  // Wave quantization (NVIDIA's GEMM guide): an output of `tiles` tiles runs one tile per
  // SM per wave; a last, partial wave idles SMs. Fraction of SM-time doing work.
  double wave_of_tiles(double tiles) const { return sms <= 0 ? 1.0 : tiles / (std::ceil(tiles / sms) * sms); }
  double tiles(double m, double n, bool flip) const {
    const double tm = flip ? data->tile_n : data->tile_m, tn = flip ? data->tile_m : data->tile_n;
    return std::ceil(m / tm) * std::ceil(n / tn);
  }
  // `groups` same-shape m×n outputs in one kernel (a grouped GEMM packs every group's
  // tiles into the same waves), the better of the two tile orientations.
  double wave(double m, double n, double groups = 1) const {
    return std::max(wave_of_tiles(groups * tiles(m, n, false)), wave_of_tiles(groups * tiles(m, n, true)));
  }
  // A linear layer y[m×n] = x[m×k]·W[k×n]: forward, and backward's input gradient
  // (m×k out) and weight gradient (k×n out, reducing over m), each with its own waves.
  // Each is also held to the roofline by what it moves (Williams et al. 2009): skinny
  // GEMMs — fine-grained experts, small widths under FP8 — are HBM-bound.
  double linear_fwd(double m, double n, double kk) const {
    return gemm(2 * m * n * kk, in_bytes * (m * kk + kk * n) + out_bytes * m * n) / wave(m, n);
  }
  double linear_dgrad(double m, double n, double kk) const {
    return gemm(2 * m * n * kk, in_bytes * (m * n + kk * n) + out_bytes * m * kk) / wave(m, kk);
  }
  double linear_wgrad(double m, double n, double kk) const {
    return gemm(2 * m * n * kk, in_bytes * (m * kk + m * n) + wgrad_bytes * kk * n) / wave(kk, n);
  }
  double linear_bwd(double m, double n, double kk, bool frozen) const {
    return linear_dgrad(m, n, kk) + (frozen ? 0.0 : linear_wgrad(m, n, kk));
  }
  // A 16-bit linear layer forward and backward (the output layer under FP8).
  double linear16(double m, double n, double kk, bool frozen) const {
    const double f = gemm16(2 * m * n * kk);
    return f / wave(m, n) + f / wave(m, kk) + (frozen ? 0.0 : f / wave(kk, n));
  }
  // Grouped GEMM over `g` experts of m tokens each (Megatron-Core GroupedMLP /
  // TE GroupedLinear): each expert's GEMM runs at the roll-off of its own size — small
  // experts stay small — while their tiles share waves.
  double grouped_fwd(double g, double m, double n, double kk) const {
    return g * gemm(2 * m * n * kk, in_bytes * (m * kk + kk * n) + out_bytes * m * n) / wave(m, n, g);
  }
  double grouped_bwd(double g, double m, double n, double kk, bool frozen) const {
    const double dgrad = gemm(2 * m * n * kk, in_bytes * (m * n + kk * n) + out_bytes * m * kk);
    const double wgrad = gemm(2 * m * n * kk, in_bytes * (m * kk + m * n) + wgrad_bytes * kk * n);
    return g * dgrad / wave(m, kk, g) + (frozen ? 0.0 : g * wgrad / wave(kk, n, g));
  }
  // HBM-bound work of `bytes` in operations of `op_bytes` each (size roll-off).
  double mem(double bytes, double op_bytes) const {
    return bytes > 0 ? bytes / (hbm * data->memory_rolloff.at(op_bytes / 1e6)) : 0.0;
  }
};

// The kernels of one accelerator at the training's precision; assume.hfu flattens
// them to that fraction of the quoted peak (no roll-off, no clock, no waves).
Kernels kernels_for(const Gpu& g, const PerfProfile& perf, const Training& t, const Efficiency& e);

}  // namespace gpucalc
