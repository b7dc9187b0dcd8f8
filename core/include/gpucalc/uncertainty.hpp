// Uncertainty, out-of-memory risk and calibration of an answer (docs/validation.md
// "Uncertainty ranges", docs/scenario-format.md `calibration`).
//
// The ranges come from the errors of the published runs in validation/, which
// scripts/validate.mjs writes to data/validation.json (the report) and
// data/uncertainty.json (its summary and spread); the core embeds the latter, so the
// CLI, the wasm module and the page give the same ranges. Nothing here is tuned by hand.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpucalc/calibration_fit.hpp"
#include "gpucalc/error.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/search.hpp"

namespace gpucalc {

// A measurement this far from the prediction, either way, is refused: the runs that count
// in docs/validation.md are within about ±25%, so 5× is not a model error but a
// measurement of something else (another layout or batch, milliseconds, a micro-batch
// instead of a step). A sanity bound, not a measured constant.
inline constexpr double kMaxCalibrationRatio = 5.0;

// The spread of the validation errors, as data/uncertainty.json records it.
struct ValidationSpread {
  bool ok = false;  // the embedded file parsed and holds both samples
  int rows = 0;     // rows counted toward the accuracy target
  double median_abs_error = 0, mean_abs_error = 0, max_abs_error = 0;
  // actual / predicted step time over the counted rows: its P10, P50, P90
  // (Hyndman & Fan 1996 definition 6) and the sorted sample (empty in the wasm build, whose
  // embedded data leaves the samples out: core/slim_data.mjs).
  int time_n = 0;
  double time_p10 = 1, time_p50 = 1, time_p90 = 1;
  std::vector<double> time_ratios;
  // measured / predicted peak memory: too few rows for quantiles, so the range
  // [min(1, smallest), max(1, largest)] of the sample.
  int memory_n = 0;
  double memory_low = 1, memory_high = 1;
  std::vector<double> memory_ratios;
  // The same ratio per regime of the answer (time_regime), as a prediction interval
  // (data/uncertainty.json time.regimes; docs/validation.md "Uncertainty ranges").
  struct Band {
    int n = 0;
    double p10 = 1, p50 = 1, p90 = 1;
    double max_gpus = 0;  // the largest GPU count among the regime's runs
    // The frameworks (plan.framework) of the regime's runs, each between spaces
    // (" megatron torchtitan "); empty when the data does not say. An answer on another
    // framework widens its band (uncertainty.cpp).
    std::string frameworks;
    // The accelerators of the regime's runs, as the time model sees them: performance
    // profile, dense BF16 peak and memory bandwidth. An answer on an accelerator none of
    // them matches widens its band (uncertainty.cpp); empty when the data does not say.
    struct Rates {
      std::string profile;
      double bf16_tflops = 0, memory_bw_tbs = 0;
    };
    std::vector<Rates> accelerators;
  };
  // The fine-tuning stages (full_finetune, lora, qlora) none of the regime's runs has, each
  // between spaces (" qlora "): their answers' band widens (uncertainty.cpp).
  std::string stages_without_runs;
  std::vector<std::pair<std::string, Band>> regimes;
  const Band* regime(const std::string& name) const;
  // The same interval over one model preset's Megatron pre-training runs (three at least;
  // data/uncertainty.json time.models), joined to the regime's band for that preset.
  std::vector<std::pair<std::string, Band>> models;
  const Band* model(const std::string& id) const;
  // The same band over one framework's rows (data/uncertainty.json memory_by_framework).
  struct MemoryBand {
    std::string framework;  // "pooled" when the framework has no measured rows
    int n = 0;
    double low = 1, high = 1;
  };
  std::vector<MemoryBand> memory_by_framework;
  // The band an answer of framework `f` takes: its framework's when it has rows, else
  // the pooled one.
  MemoryBand memory_band(Framework f) const;
  // The highest MFU and HFU any counted run measured (gpucalc's convention: the answer's
  // figure scaled by predicted / measured step time) and its row; 0 when not embedded.
  // An assume.mfu or assume.hfu above it is warned about (report.cpp).
  double mfu_max = 0, hfu_max = 0;
  std::string mfu_row, hfu_row;
};
const ValidationSpread& validation_spread();

// The regime an answer's time falls in, for its range: "unmeasured_accelerator" (the GPU
// runs on the default performance profile), else "finetune" (full, LoRA, QLoRA), "moe"
// or "dense" pre-training.
const char* time_regime(const Problem& p);

// Hyndman & Fan (1996) definition 6 on a sorted, non-empty sample x: the k-th smallest of n
// values is the k/(n+1) quantile, linear in between, clamped to the sample's ends.
double quantile_type6(const std::vector<double>& x, double p);

// Out-of-memory risk from the upper end of the memory range as a fraction of the device's
// memory: high above 1, medium above 0.8 (Fujii et al. 2024: no OOM in 454 runs whose
// estimate stayed under 80%), low otherwise.
enum class OomRisk { low, medium, high };
const char* to_string(OomRisk r);
OomRisk oom_risk(double used_fraction_high);

// The first layout choice the scenario leaves open, as "parallel.cp" or
// "training.micro_batch", or nothing when every choice that changes the step time and
// the peak memory is fixed: parallel.tp, pp, dp, cp, vpp (when pp > 1), ep (MoE) and
// training.global_batch (or global_batch_tokens), micro_batch, zero_stage, recompute.
// `batch_given`: the scenario gave training.global_batch or global_batch_tokens.
std::optional<std::string> calibration_layout_gap(const Scenario& s, bool batch_given);

// The chosen layout after the scenario's calibration: with a measured step time its
// step time and breakdown are scaled by time_factor = measured / predicted (throughputs
// by 1 / time_factor) and the run, goodput, cost and energy follow; with a measured peak
// every memory term is scaled by memory_factor = measured / predicted, so the total is
// the measurement. Without a calibration, the layout as the search chose it.
struct Calibrated {
  Candidate best;
  Outcome outcome;
  std::optional<double> time_factor, memory_factor;  // time: only when the answer's layout is the measured one
  std::optional<FittedKnobs> knobs;                  // what a measured step time fitted (calibration_fit.hpp)
  double predicted_step_time_s = 0;                  // before calibration
  double predicted_memory_bytes = 0;                 // before calibration
};

// Calibrates the search's chosen layout (see Calibrated) and re-judges sr.target_met and
// sr.budget_met on the calibrated run. Errors: a measurement more than
// kMaxCalibrationRatio from the prediction either way, at its field.
Expected<Calibrated> calibrate(const Scenario& s, const Candidate& chosen, SearchResult& sr,
                               const std::optional<FittedKnobs>& knobs);

}  // namespace gpucalc
