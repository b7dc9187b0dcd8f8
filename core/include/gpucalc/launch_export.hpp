// Launch-config export: the plan gpucalc chose (the layout `gpucalc evaluate` reports)
// written as a training framework's own configuration, so it need not be re-typed:
// Megatron-LM arguments, a torchtitan TOML job file, a DeepSpeed JSON config, or a
// LLaMA-Factory YAML for fine-tunes. Option names come from each framework's source at
// the commit recorded in data/frameworks/<format>.json (the tests check every name
// against those lists). A plan element the framework cannot express is not dropped
// silently: it becomes a coded warning (and, where the format allows comments, a
// comment in the text).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/error.hpp"
#include "gpucalc/plan.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

enum class ExportFormat { megatron, torchtitan, deepspeed, llamafactory };
const char* to_string(ExportFormat f);
std::optional<ExportFormat> parse_export_format(std::string_view name);

struct LaunchConfig {
  ExportFormat format = ExportFormat::megatron;
  std::string file_name;  // a conventional name for the file, e.g. "ds_config.json"
  std::string text;       // the configuration itself
  std::vector<Message> warnings;
};

// Writes layout `l` of scenario `s` in format `f`. Error (code export_needs_finetune,
// path /training/stage) when LLaMA-Factory is asked for a pre-training run.
Expected<LaunchConfig> write_launch_config(const Scenario& s, const Layout& l, ExportFormat f);

// The answer of `gpucalc export` (export_json's value) as JSON text: the layout the
// scenario `given`'s search chooses (as `gpucalc evaluate` reports it) written in format `f`:
// {"format", "file_name", "plan": {gpus, tp, pp, ...}, "text", "warnings": [{code, params, message}]}.
Expected<std::string> export_text(const Scenario& given, ExportFormat f);

}  // namespace gpucalc
