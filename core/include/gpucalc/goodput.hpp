// Goodput: the fraction of wall-clock time a synchronous training job spends making
// progress when its GPUs fail, checkpoints stall it and restarts take time. First-order
// checkpoint/restart model of Young 1974 and Daly 2006; defaults derived from Llama 3's
// reliability figures (docs/cost.md "Goodput").
#pragma once
#include <cstdint>
#include <optional>

namespace gpucalc {

// Llama 3 (Dubey et al. 2024, "The Llama 3 Herd of Models" §3.3.4): 466 job
// interruptions in a 54-day snapshot of pre-training on 16,384 H100 GPUs. One
// interruption per 16,384 × 54 × 24 / 466 = 45,566 GPU-hours; the whole job saw one
// every 54 × 24 / 466 = 2.78 hours.
inline constexpr double kLlama3Gpus = 16384;
inline constexpr double kLlama3Days = 54;
inline constexpr double kLlama3Interruptions = 466;
inline constexpr double kDefaultMtbfHoursPerGpu = kLlama3Gpus * kLlama3Days * 24 / kLlama3Interruptions;
// Training stalls only for the device-to-host copy with asynchronous checkpointing:
// NVIDIA NeMo Automodel PR #635 measured 0.54 s blocked (27.3 s synchronous) for Llama
// 8B with optimizer states on 8 H100. We take 10 s to cover larger shards per GPU.
inline constexpr double kDefaultCheckpointWriteSeconds = 10;
// Detection, rescheduling, process start, checkpoint reload and warm-up: 300 s, the
// default average recovery time of the ML Systems book's reliability model (Harvard
// cs249r, mlsysim ReliabilityModel.solve avg_recovery_time_s).
inline constexpr double kDefaultRestartMinutes = 5;

// The scenario's `goodput` object (docs/scenario-format.md).
struct GoodputInputs {
  bool enabled = true;
  // Mean time between job interruptions per GPU, hours: a job of n GPUs is interrupted
  // every mtbf_hours / n hours.
  double mtbf_hours = kDefaultMtbfHoursPerGpu;
  // The whole job's interruption rate, per day; replaces mtbf_hours / n when given.
  std::optional<double> interruptions_per_day;
  // Empty: Young's optimum sqrt(2 · write time · job MTBF).
  std::optional<double> checkpoint_interval_minutes;
  double checkpoint_write_seconds = kDefaultCheckpointWriteSeconds;
  double restart_minutes = kDefaultRestartMinutes;
  // Which of the above the scenario left to the defaults (for defaults_applied).
  bool mtbf_default = true, write_default = true, restart_default = true;
};

struct Goodput {
  bool enabled = true;
  bool progress = true;         // false when failures cost more than the job gains between them
  double fraction = 1;          // useful compute time / wall-clock time
  double job_mtbf_hours = 0;    // M: mean time between interruptions of the whole job (0 = none)
  double interval_minutes = 0;  // τ: checkpoint interval
  bool interval_is_young_optimum = false;
  double write_minutes = 0;             // δ: training stalled per checkpoint
  double restart_minutes = 0;           // R
  double lost_per_failure_minutes = 0;  // τ/2 + R
  double checkpoint_overhead = 0;       // δ/τ, of compute time
  double failure_loss = 0;              // (τ/2 + R)/M, of wall-clock time
  double ideal_hours = 0;               // the failure-free run
  double wall_hours = 0;                // ideal_hours / fraction
  double wall_days = 0;
  double gpu_hours = 0;          // wall_hours × GPUs
  double failures_expected = 0;  // wall_hours / M
};

// Young 1974 ("A first order approximation to the optimum checkpoint interval", CACM
// 17(9)) and Daly 2006 ("A higher order estimate of the optimum checkpoint interval for
// restart dumps", FGCS 22(3)) §2, first order: over wall-clock time W a job computes U,
// writes a checkpoint of δ every τ of compute, and each failure (one per M of wall time)
// loses on average half an interval of work plus the restart R:
//   W = U·(1 + δ/τ) + (W/M)·(τ/2 + R)   →   U/W = (1 − (τ/2 + R)/M) / (1 + δ/τ)
// τ defaults to Young's optimum sqrt(2·δ·M).
Goodput goodput(const GoodputInputs& in, int64_t gpus, double ideal_hours);

}  // namespace gpucalc
