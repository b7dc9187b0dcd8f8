// Report: runs a parsed scenario and renders the output JSON of `gpucalc evaluate`.
#pragma once
#include <nlohmann/json.hpp>

#include "gpucalc/error.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

// The output document (docs/scenario-format.md "Output"), or an error when the
// constraints admit no valid layout at all.
Expected<nlohmann::ordered_json> evaluate(const Scenario& s);

}  // namespace gpucalc
