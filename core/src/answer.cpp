// Fills the answers of answer.hpp: `evaluate` (the search's chosen layout, calibrated) and
// `search` (the best layout, the top layouts at its GPU count and the curve).
#include "gpucalc/answer.hpp"

#include <utility>

#include "gpucalc/report.hpp"
#include "report_text.hpp"
#include "search_cache.hpp"

namespace gpucalc {

namespace {

// With a batch range the search chose the batch with the layout: the answer's training
// carries it, so everything downstream (steps, launch configs) reads the chosen batch.
Scenario with_chosen_batch(const Scenario& s, const Candidate& chosen) {
  Scenario out = s;
  out.problem.training.global_batch = global_batch(s.problem.training, chosen.layout);
  return out;
}

// The answer on a search made for `knobbed` (the scenario with its fitted knobs, if any).
Expected<Answer> answer_on(const Scenario& knobbed, const std::optional<FittedKnobs>& knobs, SearchResult sr) {
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

Expected<SearchAnswer> search_answer_on(const Scenario& knobbed, const std::optional<FittedKnobs>& knobs,
                                        FullSearch fs) {
  if (fs.result.truncated) return too_many_layouts();
  if (!fs.result.chosen) return explain_no_layout(knobbed.problem, knobbed.constraints);
  const Scenario s = with_chosen_batch(knobbed, *fs.result.chosen);
  Outcome o = outcome(s.problem, *fs.result.chosen);
  Notes notes = answer_notes(s, fs.result, *fs.result.chosen, o);
  if (knobs) notes.warnings.push_back(knobs_note(s, *knobs));
  return SearchAnswer{s, std::move(fs), o, std::move(notes)};
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
  const Scenario s = with_knobs(given, knobs);
  SearchResult sr = search(s.problem, s.constraints, s.target());
  explain_hints(s.problem, s.constraints, s.target(), sr);
  return answer_on(s, knobs, std::move(sr));
}

Expected<Answer> evaluate(const Scenario& given, std::string_view scenario_json) {
  Expected<std::optional<FittedKnobs>> knobs = fit_knobs(given);
  if (!knobs) return knobs.error();
  // Fitted knobs price every layout: the search is made afresh, not taken from the cache
  // (whose key leaves the calibration out).
  if (*knobs) return evaluate(given, *knobs);
  return answer_on(given, std::nullopt, cached_search(given, scenario_json));
}

Expected<SearchAnswer> search_answer(const Scenario& given, int top_k) {
  // The knobs a measured step time fits carry into the curve and the top layouts.
  Expected<std::optional<FittedKnobs>> knobs = fit_knobs(given);
  if (!knobs) return knobs.error();
  const Scenario s = with_knobs(given, *knobs);
  FullSearch fs = search_full(s.problem, s.constraints, s.target(), top_k);
  explain_hints(s.problem, s.constraints, s.target(), fs.result);
  return search_answer_on(s, *knobs, std::move(fs));
}

Expected<SearchAnswer> search_answer(const Scenario& given, std::string_view scenario_json, int top_k) {
  Expected<std::optional<FittedKnobs>> knobs = fit_knobs(given);
  if (!knobs) return knobs.error();
  if (*knobs) return search_answer(given, top_k);
  return search_answer_on(given, std::nullopt, cached_search_full(given, scenario_json, top_k));
}

}  // namespace gpucalc
