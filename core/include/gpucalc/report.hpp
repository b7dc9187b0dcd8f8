// Report: runs a parsed scenario and renders the output JSON of `gpucalc evaluate`.
#pragma once
#include <nlohmann/json.hpp>

#include "gpucalc/error.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

// The output document (docs/scenario-format.md "Output"), or an error when the
// constraints admit no valid layout at all.
Expected<nlohmann::ordered_json> evaluate(const Scenario& s);

// The output of `gpucalc search`: the best layout, the top_k fastest fitting layouts at
// its GPU count, and the GPU count → days / GPU-hours curve with its Pareto front
// (docs/scenario-format.md "Output of gpucalc search").
Expected<nlohmann::ordered_json> search_report(const Scenario& s, int top_k);

}  // namespace gpucalc
