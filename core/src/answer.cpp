// Fills the answers of answer.hpp: `evaluate` (the search's chosen layout, calibrated) and
// `search` (the best layout, the top layouts at its GPU count and the curve).
#include "gpucalc/answer.hpp"

#include "gpucalc/report.hpp"
#include "report_text.hpp"

namespace gpucalc {

Expected<Answer> evaluate(const Scenario& given) {
  // A measured step time fits the compute knob on its layout (calibration_fit.cpp); the
  // search prices every layout with it.
  Expected<std::optional<FittedKnobs>> knobs = fit_knobs(given);
  if (!knobs) return knobs.error();
  return evaluate(given, *knobs);
}

Expected<Answer> evaluate(const Scenario& given, const std::optional<FittedKnobs>& knobs) {
  const Scenario s = with_knobs(given, knobs);
  const Problem& p = s.problem;
  const Constraints& c = s.constraints;
  SearchResult sr = search(p, c, s.target());
  if (sr.truncated) return too_many_layouts();
  if (!sr.chosen) return explain_no_layout(p, c);
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
  const Scenario s = with_knobs(given, *knobs);
  const Problem& p = s.problem;
  const Constraints& c = s.constraints;
  FullSearch fs = search_full(p, c, s.target(), top_k);
  if (fs.result.truncated) return too_many_layouts();
  if (!fs.result.chosen) return explain_no_layout(p, c);
  Outcome o = outcome(p, *fs.result.chosen);
  Notes notes = answer_notes(s, fs.result, *fs.result.chosen, o);
  if (*knobs) notes.warnings.push_back(knobs_note(s, **knobs));
  return SearchAnswer{s, std::move(fs), o, std::move(notes)};
}

}  // namespace gpucalc
