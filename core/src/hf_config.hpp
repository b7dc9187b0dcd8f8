// A Hugging Face config.json (the model's published configuration) mapped onto the
// core's model shape: `model.hf_config` in a scenario (docs/scenario-format.md
// "Hugging Face config.json").
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpucalc/error.hpp"
#include "gpucalc/model.hpp"

namespace gpucalc {

struct HfImport {
  ModelShape shape;
  // Keys the mapping did not understand (named), and parts of the checkpoint it does
  // not count (a vision tower, DeepSeek-V3's MTP module).
  std::vector<Message> warnings;
};

// The config's architecture from model_type (or architectures[0]); errors name the JSON
// pointer under `path` (e.g. "/model/hf_config/num_hidden_layers") and carry a code.
Expected<HfImport> import_hf_config(const nlohmann::ordered_json& config, const std::string& path);

// The model_type values the mapping reads, comma-separated (for messages and docs).
std::string hf_config_model_types();

}  // namespace gpucalc
