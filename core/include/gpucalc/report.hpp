// Report: runs a parsed scenario and renders the output JSON of `gpucalc evaluate`.
#pragma once
#include <nlohmann/json.hpp>
#include <string_view>

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

// The output of `gpucalc compare`: the scenario evaluated on each accelerator of the
// comma-separated catalog ids, one row each in the order given (docs/scenario-format.md
// "Output of gpucalc compare"). Errors: the scenario's own, or /gpu for an unknown,
// repeated or missing id; an accelerator the scenario cannot run on gets a row error.
Expected<nlohmann::ordered_json> compare_report(std::string_view scenario_json, std::string_view gpu_ids);

// The catalogs as JSON (`gpucalc catalog gpus|models`): data/gpus.json with each entry's
// default rental price, or data/models.json with each preset's counted parameters.
Expected<nlohmann::ordered_json> catalog_report(std::string_view kind);

}  // namespace gpucalc
