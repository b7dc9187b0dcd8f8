// Fills the answers of answer.hpp: `evaluate` (the search's chosen layout, calibrated) and
// `search` (the best layout, the top layouts at its GPU count and the curve).
#include "gpucalc/answer.hpp"

#include "gpucalc/report.hpp"
#include "report_text.hpp"

namespace gpucalc {

namespace {

// With a batch range the search chose the batch with the layout: the answer's training
// carries it, so everything downstream (steps, launch configs) reads the chosen batch.
Scenario with_chosen_batch(const Scenario& s, const Candidate& chosen) {
  Scenario out = s;
  out.problem.training.global_batch = global_batch(s.problem.training, chosen.layout);
  return out;
}

}  // namespace

Expected<Answer> evaluate(const Scenario& given) {
  // A measured step time fits the compute knob on its layout (calibration_fit.cpp); the
  // search prices every layout with it.
  Expected<std::optional<FittedKnobs>> knobs = fit_knobs(given);
  if (!knobs) return knobs.error();
  return evaluate(given, *knobs);
}

Expected<Answer> evaluate(const Scenario& given, const std::optional<FittedKnobs>& knobs) {
  const Scenario knobbed = with_knobs(given, knobs);
  SearchResult sr = search(knobbed.problem, knobbed.constraints, knobbed.target());
  if (sr.truncated) return too_many_layouts();
  if (!sr.chosen) return explain_no_layout(knobbed.problem, knobbed.constraints);
  const Scenario s = with_chosen_batch(knobbed, *sr.chosen);
  // The scenario's calibration, if any, scales the chosen layout (uncertainty.cpp) and
  // re-judges the targets on the calibrated run.
  Expected<Calibrated> cal = calibrate(s, *sr.chosen, sr, s.calibration ? knobs : std::nullopt);
  if (!cal) return cal.error();
  Notes notes = answer_notes(s, sr, cal->best, cal->outcome);
  if (knobs && s.calibration) notes.warnings.push_back(knobs_note(s, *knobs));
  return Answer{s, std::move(sr), *cal, std::move(notes)};
}

Expected<SearchAnswer> search_answer(const Scenario& given, int top_k) {
  // The knobs a measured step time fits carry into the curve and the top layouts.
  Expected<std::optional<FittedKnobs>> knobs = fit_knobs(given);
  if (!knobs) return knobs.error();
  const Scenario knobbed = with_knobs(given, *knobs);
  FullSearch fs = search_full(knobbed.problem, knobbed.constraints, knobbed.target(), top_k);
  if (fs.result.truncated) return too_many_layouts();
  if (!fs.result.chosen) return explain_no_layout(knobbed.problem, knobbed.constraints);
  const Scenario s = with_chosen_batch(knobbed, *fs.result.chosen);
  const Problem& p = s.problem;
  Outcome o = outcome(p, *fs.result.chosen);
  Notes notes = answer_notes(s, fs.result, *fs.result.chosen, o);
  if (*knobs) notes.warnings.push_back(knobs_note(s, **knobs));
  return SearchAnswer{s, std::move(fs), o, std::move(notes)};
}

}  // namespace gpucalc
