// Calibration that carries (core/include/gpucalc/calibration_fit.hpp): the measured step
// time fixes the one knob it can, every kernel rate of the accelerator × compute_scale
// (matmul, attention and HBM alike), solved on the measured layout by bisection; the
// search then prices every layout with it. One step time cannot separate the network's
// share from the compute's, so the network bandwidths stay the model's (NCCL-tests data,
// data/perf.json) and the compute knob absorbs the whole gap.
#include "gpucalc/calibration_fit.hpp"

#include <cmath>

#include "decimal.hpp"
#include "gpucalc/compute.hpp"
#include "gpucalc/search.hpp"
#include "gpucalc/uncertainty.hpp"

namespace gpucalc {
namespace {

constexpr double kKnobRange = 8.0;  // the knob is sought in [1/8, 8]: beyond the refused 5× gap

std::string num(const char* f, double v) { return format_printf(f, v); }

double step_at(const Problem& p, const Layout& l, double compute_scale) {
  Efficiency e = p.efficiency;
  e.compute_scale = compute_scale;
  return step_time(p.model, p.training, l, p.gpu, p.perf, e).step_time_s;
}

Error refuse(double measured, double predicted) {
  const double r = measured / predicted;
  const Params params{{"measured", num("%.4g", measured)},
                      {"ratio", num("%.3g", r >= 1 ? r : 1 / r)},
                      {"predicted", num("%.4g", predicted)},
                      {"max", num("%.0f", kMaxCalibrationRatio)}};
  if (r >= 1)
    return coded_error("/calibration/measured_step_time_s", "calibration_time_above",
                       "{measured} s is {ratio}× the predicted {predicted} s for this layout; more than {max}× either "
                       "way is not a model error but a measurement of something else: check that it is seconds per "
                       "optimizer step of training.global_batch sequences, on this layout",
                       params);
  return coded_error(
      "/calibration/measured_step_time_s", "calibration_time_below",
      "{measured} s is 1/{ratio} of the predicted {predicted} s for this layout; more than {max}× either "
      "way is not a model error but a measurement of something else: check that it is seconds per "
      "optimizer step of training.global_batch sequences, on this layout",
      params);
}

}  // namespace

Expected<std::optional<FittedKnobs>> fit_knobs(const Scenario& s) {
  if (!s.calibration || !s.calibration->step_time_s) return std::optional<FittedKnobs>{};
  const Calibration& cal = *s.calibration;
  Problem p = s.problem;
  if (cal.global_batch) p.training.global_batch = *cal.global_batch;
  const Constraints c = cal.layout ? *cal.layout : s.constraints;
  if (cal.layout) {
    // A layout the framework cannot run (plan.cpp check_framework), named under the
    // measured layout's own field.
    if (auto e = framework_refuses(p.training, c)) {
      e->path = "/calibration/layout" + e->path.substr(e->path.rfind('/'));
      return *e;
    }
  }
  const SearchResult sr = search(p, c, Target{});
  if (!sr.chosen || !(sr.chosen->time.step_time_s > 0))
    return coded_error(cal.layout ? "/calibration/layout" : "/calibration", "calibration_layout_not_run",
                       "the model cannot run the measured layout (it does not divide the model or the batch, or "
                       "exceeds the memory limit), so the measurement cannot be fitted");
  FittedKnobs k;
  k.layout = sr.chosen->layout;
  k.global_batch = p.training.global_batch;
  k.measured_s = *cal.step_time_s;
  k.predicted_s = step_at(p, k.layout, 1.0);
  if (!(k.measured_s / k.predicted_s <= kMaxCalibrationRatio && k.predicted_s / k.measured_s <= kMaxCalibrationRatio))
    return refuse(k.measured_s, k.predicted_s);
  // The step time falls as the knob rises; bisect on its logarithm.
  double lo = std::log(1 / kKnobRange), hi = std::log(kKnobRange);
  if (step_at(p, k.layout, std::exp(hi)) > k.measured_s) {
    lo = hi;
    k.at_bound = true;
  }
  for (int i = 0; i < 60 && !k.at_bound; ++i) {
    const double mid = 0.5 * (lo + hi);
    (step_at(p, k.layout, std::exp(mid)) > k.measured_s ? lo : hi) = mid;
  }
  k.compute_scale = std::exp(0.5 * (lo + hi));
  if (k.at_bound) k.compute_scale = kKnobRange;
  return std::optional<FittedKnobs>{k};
}

Scenario with_knobs(const Scenario& s, const std::optional<FittedKnobs>& k) {
  Scenario r = s;
  if (k) {
    r.problem.efficiency.compute_scale = k->compute_scale;
    r.problem.efficiency.network_scale = k->network_scale;
  }
  return r;
}

bool is_measured_layout(const FittedKnobs& k, const Layout& l, int64_t global_batch) {
  const Layout& m = k.layout;
  return global_batch == k.global_batch && l.tp == m.tp && l.pp == m.pp && l.dp == m.dp && l.cp == m.cp &&
         l.ep == m.ep && l.vpp == m.vpp && l.micro_batch == m.micro_batch && l.zero_stage == m.zero_stage &&
         l.recompute == m.recompute;
}

Message knobs_note(const Scenario& s, const FittedKnobs& k) {
  const Layout& l = k.layout;
  const auto n = [](int64_t x) { return std::to_string(x); };
  return coded("calibration_fitted",
               "the step time measured on {gpus} GPUs (TP {tp} × PP {pp} × DP {dp} × CP {cp}, global batch {batch}), "
               "{measured} s against the model's {predicted} s, fits the compute knob: every kernel rate of {gpu} × "
               "{compute}, in every layout and GPU count searched; the network bandwidths stay the model's (one step "
               "time cannot tell the two apart)",
               {{"gpus", n(l.gpus())},
                {"tp", n(l.tp)},
                {"pp", n(l.pp)},
                {"dp", n(l.dp)},
                {"cp", n(l.cp)},
                {"batch", n(k.global_batch)},
                {"measured", num("%.4g", k.measured_s)},
                {"predicted", num("%.4g", k.predicted_s)},
                {"gpu", s.problem.gpu.name},
                {"compute", num("%.3f", k.compute_scale)}});
}

}  // namespace gpucalc
