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

// The same scenario on several accelerators (docs/scenario-format.md "Output of gpucalc
// compare"): `ids` is a comma-separated list of catalog ids, e.g.
// "h100-sxm-80gb,h20-96gb,ascend-910b". Same envelope; an unknown, repeated or empty id
// is an error at /gpu, an accelerator the scenario cannot run on is a row with ok:false.
std::string compare_json(std::string_view scenario, std::string_view ids);

// A catalog as JSON: kind "gpus" (data/gpus.json, with each entry's default rental price)
// or "models" (data/models.json, with each preset's counted parameters). Same envelope.
std::string catalog_json(std::string_view kind);

// The plan the scenario's search chooses, written as a framework's launch configuration:
// format "megatron" (Megatron-LM arguments), "torchtitan" (TOML job file), "deepspeed"
// (JSON config) or "llamafactory" (YAML, fine-tunes only). The value is
// {"format", "file_name", "plan", "text", "warnings"} (launch_export.hpp). Same envelope;
// an unknown format is an error with code export_format_unknown.
std::string export_json(std::string_view scenario_json, std::string_view format);

// The version string, e.g. "0.1.0".
std::string version();

}  // namespace gpucalc
