// Fills the answers of answer.hpp: `evaluate` (the search's chosen layout, calibrated) and
// `search` (the best layout, the top layouts at its GPU count and the curve).
#include "gpucalc/answer.hpp"

#include "gpucalc/report.hpp"
#include "report_text.hpp"

namespace gpucalc {

Expected<Answer> evaluate(const Scenario& s) { return evaluate(s, search(s.problem, s.constraints, s.target())); }

Expected<Answer> evaluate(const Scenario& s, SearchResult sr) {
  const Problem& p = s.problem;
  const Constraints& c = s.constraints;
  if (sr.truncated) return too_many_layouts();
  if (!sr.chosen) return explain_no_layout(p, c);
  // The scenario's calibration, if any, scales the chosen layout (uncertainty.cpp) and
  // re-judges the targets on the calibrated run.
  Expected<Calibrated> cal = calibrate(s, *sr.chosen, sr);
  if (!cal) return cal.error();
  Notes notes = answer_notes(s, sr, cal->best, cal->outcome);
  return Answer{s, std::move(sr), *cal, std::move(notes)};
}

Expected<SearchAnswer> search_answer(const Scenario& s, int top_k) {
  return search_answer(s, search_full(s.problem, s.constraints, s.target(), top_k));
}

Expected<SearchAnswer> search_answer(const Scenario& s, FullSearch fs) {
  const Problem& p = s.problem;
  const Constraints& c = s.constraints;
  if (fs.result.truncated) return too_many_layouts();
  if (!fs.result.chosen) return explain_no_layout(p, c);
  Outcome o = outcome(p, *fs.result.chosen);
  Notes notes = answer_notes(s, fs.result, *fs.result.chosen, o);
  return SearchAnswer{s, std::move(fs), o, std::move(notes)};
}

}  // namespace gpucalc
