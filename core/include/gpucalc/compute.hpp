// Compute and time: training FLOPs per token, recomputation overhead, step time,
// throughput, MFU, and whole-run days and GPU-hours.
#pragma once
#include <cstdint>
#include <optional>

#include "gpucalc/hardware.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/plan.hpp"

namespace gpucalc {

struct FlopsPerToken {
  double model = 0;     // 6·Ψ_matmul + 12·L·s·a·d  (PaLM appendix B; Narayanan eq. 3)
  double hardware = 0;  // model + recomputation (Korthikanti et al. 2022 §5)
};

FlopsPerToken flops_per_token(const ModelShape& m, int64_t seq_len, Recompute r);

// How fast the GPU turns hardware FLOPs into progress.
struct Efficiency {
  std::optional<double> mfu;  // assume.mfu: end-to-end model FLOPs utilisation
  std::optional<double> hfu;  // assume.hfu, else the GPU's default efficiency
};

struct StepTime {
  double peak_flops = 0;          // per GPU, for the chosen precision
  double efficiency = 0;          // achieved fraction of peak for hardware FLOPs
  double compute_s = 0;           // m micro-batches through the fullest stage
  double bubble_s = 0;            // pipeline fill/drain, (p-1)/v micro-batch slots
  double bubble_fraction = 0;     // bubble_s / step_time_s
  double step_time_s = 0;
  double tokens_per_s_per_gpu = 0;
  double mfu = 0;                 // model FLOPs / (time · peak)
  double hfu = 0;                 // hardware FLOPs / (time · peak)
  double tflops_per_gpu = 0;      // achieved model TFLOP/s per GPU
};

double peak_flops(const Gpu& g, Precision p);

StepTime step_time(const ModelShape& m, const Training& t, const Layout& l, const Gpu& g,
                   const Efficiency& e);

struct RunTime {
  double steps = 0;      // T / (B·s)
  double days = 0;
  double gpu_hours = 0;
};

RunTime run_time(const Training& t, const Layout& l, const StepTime& st);

// Narayanan et al. 2021 §5.1 end-to-end estimate: time ≈ k·T·Ψ / (n·X), k = 8 with
// full recomputation, 6 without; X = achieved FLOP/s per GPU. Returns seconds.
double narayanan_training_seconds(double tokens, double params, double gpus,
                                  double achieved_flops_per_gpu, bool full_recompute);

}  // namespace gpucalc
