// Scenario: the JSON input format v1 (docs/scenario-format.md) parsed into typed
// structs, with every error naming the JSON pointer of the field.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/error.hpp"
#include "gpucalc/search.hpp"

namespace gpucalc {

struct Scenario {
  Problem problem;
  Constraints constraints;
  std::optional<double> target_days;
  std::vector<std::string> defaults_applied;  // e.g. "training.global_batch_tokens = 4194304 (default)"
};

Expected<Scenario> parse_scenario(std::string_view json_text);

}  // namespace gpucalc
