// The one-call boundary shared by the CLI, the wasm module and the page:
// scenario JSON text in, result envelope JSON text out.
#pragma once
#include <string>
#include <string_view>

namespace gpucalc {

// Evaluates a scenario (docs/scenario-format.md). Never throws, never aborts on
// bad input. Returns a JSON document, either
//   {"ok":true,  "value": <evaluate output>}
//   {"ok":false, "error": {"path": "<JSON pointer>", "message": "..."}}
std::string evaluate_json(std::string_view scenario_json);

// Searches the layouts a scenario leaves open (docs/scenario-format.md "Output of
// gpucalc search"): the best layout, the top_k fastest at its GPU count, and the GPU
// count → days curve with its Pareto front. Same envelope and errors as evaluate_json.
std::string search_json(std::string_view scenario_json, int top_k = 10);

// The version string, e.g. "0.1.0".
std::string version();

}  // namespace gpucalc
