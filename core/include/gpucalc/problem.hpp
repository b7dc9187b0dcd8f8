// What a scenario asks (docs/scenario-format.md): the problem every layout is evaluated
// on, the layout choices it fixes, its targets, and what the user measured. Plain types
// the parser fills (scenario.hpp) and the search, the uncertainty and the report read.
#pragma once
#include <cstdint>
#include <optional>

#include "gpucalc/compute.hpp"
#include "gpucalc/cost.hpp"
#include "gpucalc/goodput.hpp"
#include "gpucalc/hardware.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/perf.hpp"
#include "gpucalc/plan.hpp"

namespace gpucalc {

// What the scenario fixed; empty = the calculator chooses.
struct Constraints {
  std::optional<int64_t> gpus, tp, pp, dp, cp, ep, etp, vpp, micro_batch, shard;
  std::optional<int> zero_stage;
  std::optional<Recompute> recompute;
  std::optional<unsigned> recompute_modules;              // training.recompute_modules (RecomputeModule bits)
  int64_t first_stage_layers = 0, last_stage_layers = 0;  // parallel.*_stage_layers (0: even split); need pp fixed
  // training.global_batch_range, in sequences: the search picks each layout's batch in
  // [batch_min, batch_max] (0, 0: the batch is training.global_batch).
  int64_t batch_min = 0, batch_max = 0;
};

// Everything one evaluation needs that does not vary across layouts.
struct Problem {
  ModelShape model;
  Training training;
  Gpu gpu;
  PerfProfile perf;
  Efficiency efficiency;
  Overheads overheads;
  // The search only accepts layouts whose worst GPU stays under this fraction of
  // device memory: Fujii et al. 2024 saw no out-of-memory failure in 454 runs whose
  // estimate stayed under 80% (target.max_memory_fraction).
  double memory_limit_fraction = 0.8;
  // Failures, checkpoints and restarts (wall-clock days), and what the run costs.
  GoodputInputs goodput;
  CostModel cost;
};

// What the answer optimises among the GPU counts that meet the targets
// (target.objective): the fewest GPUs, the lowest cost, or the fewest days.
enum class Objective { gpus, cost, days };
const char* to_string(Objective o);

// The scenario's targets. Days are wall-clock days with failures, checkpoints and
// restarts (goodput); cost is the run's total in the cost's currency.
struct Target {
  std::optional<double> days;
  std::optional<double> max_cost;
  Objective objective = Objective::gpus;
};

// Scenario `calibration`: what the user measured on the scenario's own layout, which
// the scenario must fix (calibration_layout_gap, uncertainty.hpp). Either may be absent, not both.
struct Calibration {
  std::optional<double> step_time_s;      // calibration.measured_step_time_s, seconds per optimizer step
  std::optional<double> peak_memory_gib;  // calibration.measured_peak_memory_gib, GiB on the most loaded GPU
  // calibration.layout: the layout and batch the step time was measured on, when it is not
  // the scenario's own (a measurement on 64 GPUs sizing a 4,096-GPU run).
  std::optional<Constraints> layout;
  std::optional<int64_t> global_batch;  // calibration.layout.global_batch (default training.global_batch)
};

}  // namespace gpucalc
