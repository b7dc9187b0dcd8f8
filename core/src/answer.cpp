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
  SearchResult sr = search(given.problem, given.constraints, given.target());
  if (sr.truncated) return too_many_layouts();
  if (!sr.chosen) return explain_no_layout(given.problem, given.constraints);
  const Scenario s = with_chosen_batch(given, *sr.chosen);
  // The scenario's calibration, if any, scales the chosen layout (uncertainty.cpp) and
  // re-judges the targets on the calibrated run.
  Expected<Calibrated> cal = calibrate(s, *sr.chosen, sr);
  if (!cal) return cal.error();
  Notes notes = answer_notes(s, sr, cal->best, cal->outcome);
  return Answer{s, std::move(sr), *cal, std::move(notes)};
}

Expected<SearchAnswer> search_answer(const Scenario& given, int top_k) {
  FullSearch fs = search_full(given.problem, given.constraints, given.target(), top_k);
  if (fs.result.truncated) return too_many_layouts();
  if (!fs.result.chosen) return explain_no_layout(given.problem, given.constraints);
  const Scenario s = with_chosen_batch(given, *fs.result.chosen);
  const Problem& p = s.problem;
  Outcome o = outcome(p, *fs.result.chosen);
  Notes notes = answer_notes(s, fs.result, *fs.result.chosen, o);
  return SearchAnswer{s, std::move(fs), o, std::move(notes)};
}

}  // namespace gpucalc
