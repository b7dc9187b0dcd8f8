// What the calculator answers, as typed values: `evaluate`, `search` and `compare` fill
// these, and report.hpp renders each to JSON text (docs/scenario-format.md "Output",
// "Output of gpucalc search", "Output of gpucalc compare"). Nothing downstream reads an
// answer back out of its JSON.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpucalc/error.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/search.hpp"
#include "gpucalc/uncertainty.hpp"

namespace gpucalc {

// The answer's `warnings` and `defaults_applied`, in the order they are shown, each a
// coded message (error.hpp, message.hpp; templates in data/messages.json).
struct Notes {
  std::vector<Message> warnings;
  std::vector<Message> defaults_applied;
};

// `gpucalc evaluate`: the layout the search chose for the scenario, calibrated when the
// scenario carries measurements.
struct Answer {
  Scenario scenario;    // what was asked, with its defaults and catalog price filled in
  SearchResult search;  // how the layout was chosen; target_met and budget_met judged on the calibrated run
  Calibrated chosen;    // the layout, its run (goodput, cost, energy) and the calibration factors
  Notes notes;
};

// `gpucalc search`: the best layout, the fastest fitting layouts at its GPU count, and the
// GPU count → days curve (search.hpp FullSearch; result.chosen is the best layout).
struct SearchAnswer {
  Scenario scenario;
  FullSearch search;
  Outcome outcome;  // the best layout's run
  Notes notes;
};

// One accelerator of `gpucalc compare`: the scenario with its gpu replaced, evaluated as
// `evaluate` would (its notes also say which of the scenario's own measurements and prices
// this row could not use), or why it could not be.
struct CompareRow {
  std::string gpu_id, gpu_name;
  Expected<Answer> answer;
};

// `gpucalc compare`: one row per accelerator in the order asked, and which row is best at
// what (its gpu id, or empty when no row has the value).
struct CompareAnswer {
  Scenario scenario;  // the scenario as given (model, training, targets)
  std::vector<CompareRow> rows;
  std::optional<std::string> fewest_gpus, fastest, cheapest, least_energy;
};

}  // namespace gpucalc
