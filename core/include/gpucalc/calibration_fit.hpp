// Calibration that carries (docs/performance-model.md "Calibration"): a step time
// measured on one layout and GPU count fits the model's compute knob, which the search
// then applies to every layout, GPU count and curve point it explores.
#pragma once
#include <optional>

#include "gpucalc/error.hpp"
#include "gpucalc/message.hpp"
#include "gpucalc/plan.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

struct FittedKnobs {
  double compute_scale = 1.0;  // every kernel rate (matmul, attention, HBM) × this
  double network_scale = 1.0;  // every link bandwidth × this (not separable from one step time: stays 1)
  double measured_s = 0;       // the measured step time
  double predicted_s = 0;      // the model's step time on the measured layout before the fit
  bool at_bound = false;       // the knob hit its range [1/8, 8]: the measurement is not reached
  Layout layout;               // the measured layout, as the search completed it
  int64_t global_batch = 0;    // sequences per step of the measurement
};

// The knobs fitted to the scenario's measured step time, or nullopt without one. Errors: a
// measurement more than kMaxCalibrationRatio from the prediction either way, or a measured
// layout the model cannot run, at /calibration.
Expected<std::optional<FittedKnobs>> fit_knobs(const Scenario& s);

// The scenario with the fitted knobs in its problem's efficiency.
Scenario with_knobs(const Scenario& s, const std::optional<FittedKnobs>& k);

// True when the layout and batch are the measured ones.
bool is_measured_layout(const FittedKnobs& k, const Layout& l, int64_t global_batch);

// The coded note the answer carries: what was fitted, on what, and by how much.
Message knobs_note(const Scenario& s, const FittedKnobs& k);

}  // namespace gpucalc
