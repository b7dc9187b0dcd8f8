// Report: runs a parsed scenario into a typed answer (answer.hpp) and renders answers as
// the JSON text of the CLI, the wasm module and the page.
#pragma once
#include <string>
#include <string_view>

#include "gpucalc/answer.hpp"
#include "gpucalc/error.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

// `gpucalc evaluate`: the chosen layout, or an error when the constraints admit no valid
// layout at all (or the search hit its work bounds, or a calibration is absurd).
Expected<Answer> evaluate(const Scenario& given);
// The same with knobs already fitted (a compare row on an accelerator that shares the
// calibrated one's performance profile), applied to every layout searched.
Expected<Answer> evaluate(const Scenario& given, const std::optional<FittedKnobs>& knobs);
// The same for the scenario read from `scenario_json`, its search reused from an earlier
// call whose time-relevant inputs were the same (search_cache.hpp); a calibration that
// fits knobs searches afresh.
Expected<Answer> evaluate(const Scenario& given, std::string_view scenario_json);

// `gpucalc search`: the best layout, the top_k fastest fitting layouts at its GPU count,
// and the GPU count → days / GPU-hours curve with its Pareto front. Errors as evaluate.
Expected<SearchAnswer> search_answer(const Scenario& given, int top_k);
// The same with the search reused as evaluate(s, scenario_json) reuses it.
Expected<SearchAnswer> search_answer(const Scenario& given, std::string_view scenario_json, int top_k);

// `gpucalc compare`: the scenario evaluated on each accelerator of the comma-separated
// catalog ids, one row each in the order given. Errors: the scenario's own, or /gpu for
// an unknown, repeated or missing id; an accelerator the scenario cannot run on gets a
// row error.
Expected<CompareAnswer> compare(std::string_view scenario_json, std::string_view gpu_ids);

// The answers as JSON text (docs/scenario-format.md "Output", "Output of gpucalc search",
// "Output of gpucalc compare").
std::string to_json(const Answer& a);
std::string to_json(const SearchAnswer& a);
std::string to_json(const CompareAnswer& a);

// The catalogs as JSON text (`gpucalc catalog gpus|models`): data/gpus.json with each
// entry's default rental price, or data/models.json with each preset's counted parameters.
Expected<std::string> catalog_report(std::string_view kind);

}  // namespace gpucalc
