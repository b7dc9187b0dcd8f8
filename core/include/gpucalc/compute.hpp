// Compute and time: training FLOPs per token, recomputation overhead, step time,
// throughput, MFU, and whole-run days and GPU-hours.
#pragma once
#include <cstdint>
#include <optional>

#include "gpucalc/hardware.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/perf.hpp"
#include "gpucalc/plan.hpp"

namespace gpucalc {

struct FlopsPerToken {
  double model = 0;     // 6·Ψ_matmul + 12·L·s·a·d  (PaLM appendix B; Narayanan eq. 3)
  double hardware = 0;  // model + recomputation (Korthikanti et al. 2022 §5)
};

// t: the training job, for LoRA/QLoRA (frozen weights skip their weight gradients).
// mods: with Recompute::selective, the Megatron-Core modules rebuilt (RecomputeModule bits).
FlopsPerToken flops_per_token(const ModelShape& m, int64_t seq_len, Recompute r, const Training* t = nullptr,
                              unsigned mods = static_cast<unsigned>(RecomputeModule::core_attn));

// How fast the GPU turns hardware FLOPs into progress.
struct Efficiency {
  std::optional<double> mfu;  // assume.mfu: end-to-end model FLOPs utilisation
  std::optional<double> hfu;  // assume.hfu, else the GPU's default efficiency
  // Knobs fitted by a scenario calibration (calibration_fit.cpp): every kernel rate of the
  // accelerator (matmul, attention, HBM) × compute_scale, every link's bandwidth ×
  // network_scale. 1 = the model's data/perf.json figures.
  double compute_scale = 1.0, network_scale = 1.0;
};

struct StepTime {
  double peak_flops = 0;  // per GPU, for the chosen precision
  double efficiency = 0;  // achieved fraction of peak for hardware FLOPs
  // Breakdown of one step on the critical path (the fullest stage), seconds; they
  // add up to step_time_s (docs/performance-model.md).
  double compute_s = 0;             // m micro-batches: matmuls, attention, memory-bound ops, recompute
  double tp_comm_s = 0;             // TP all-reduces / SP all-gathers and reduce-scatters (exposed)
  double cp_comm_s = 0;             // CP K/V ring exchange left exposed after overlap with attention
  double ep_comm_s = 0;             // MoE expert-parallel all-to-all (dispatch, combine) left exposed
  double moe_overhead_s = 0;        // MoE layers: fixed time per layer per micro-batch (fitted, moe_time.cpp)
  double offload_s = 0;             // ZeRO-Infinity parameter fetches over PCIe not hidden by compute
  double pp_comm_s = 0;             // pipeline point-to-point sends on the critical path
  double dp_comm_exposed_s = 0;     // DP gradient reduction and parameter gather not hidden by compute
  double zero3_comm_exposed_s = 0;  // ZeRO-3 parameter all-gathers not hidden by compute
  double bubble_s = 0;              // pipeline fill/drain, (p-1)/v micro-batch slots
  double optimizer_s = 0;           // the optimizer step (HBM-bound)
  double dp_comm_total_s = 0;       // DP traffic time before overlap (for reference)
  double bubble_fraction = 0;       // bubble_s / step_time_s
  double step_time_s = 0;
  double tokens_per_s_per_gpu = 0;
  double mfu = 0;             // model FLOPs / (time · peak)
  double hfu = 0;             // hardware FLOPs / (time · peak)
  double tflops_per_gpu = 0;  // achieved model TFLOP/s per GPU
};

double peak_flops(const Gpu& g, Precision p);

// Step time from first principles (docs/performance-model.md): compute per micro-batch
// per stage from matmul, attention and HBM-bound work at the profile's efficiencies,
// communication on the two-level network, the pipeline bubble and the optimizer step.
// assume.mfu replaces all of it with an end-to-end figure; assume.hfu replaces the
// compute model with hardware FLOPs at that efficiency (communication still priced).
StepTime step_time(const ModelShape& m, const Training& t, const Layout& l, const Gpu& g, const PerfProfile& perf,
                   const Efficiency& e);

// GPU-host link (PCIe, per direction) and the host DRAM bandwidth a CPU optimizer step
// gets per GPU, bytes/s (training.offload overrides both).
double host_link_bytes_per_s(const Gpu& g, const Training& t);
double host_memory_bytes_per_s(const Training& t);

// Megatron-Core CPU offloading (training.offload.activation_layers): the seconds per
// micro-batch its copies show on a stage of `dense` dense and `moe` MoE layers whose
// forward and backward take fwd_s and bwd_s in all (compute.cpp).
double activation_offload_time(const ModelShape& m, const Training& t, const Layout& l, const Gpu& g, int64_t dense,
                               int64_t moe, double fwd_s, double bwd_s);

struct RunTime {
  double steps = 0;  // T / (B·s)
  double days = 0;
  double gpu_hours = 0;
};

RunTime run_time(const Training& t, const Layout& l, const StepTime& st);

// Narayanan et al. 2021 §5.1 end-to-end estimate: time ≈ k·T·Ψ / (n·X), k = 8 with
// full recomputation, 6 without; X = achieved FLOP/s per GPU. Returns seconds.
double narayanan_training_seconds(double tokens, double params, double gpus, double achieved_flops_per_gpu,
                                  bool full_recompute);

}  // namespace gpucalc
