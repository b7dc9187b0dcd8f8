// Scenario: the JSON input format v1 (docs/scenario-format.md) parsed into typed
// structs, with every error naming the JSON pointer of the field.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/critical_batch.hpp"
#include "gpucalc/error.hpp"
#include "gpucalc/problem.hpp"

namespace gpucalc {

// How the global batch was given: one number (training.global_batch or
// global_batch_tokens), or training.global_batch_range with its max, or with the critical rule.
enum class BatchRule { fixed, range, critical };
const char* to_string(BatchRule r);

struct Scenario {
  Problem problem;
  Constraints constraints;  // constraints.batch_min/max: the range in sequences
  BatchRule batch_rule = BatchRule::fixed;
  int64_t batch_min_tokens = 0, batch_max_tokens = 0;  // the range as given (max: the law's, rounded down)
  std::optional<CriticalBatch> critical;               // rule "critical": the law's value
  std::optional<double> target_days;
  std::optional<double> max_cost;         // target.max_cost, in the cost's currency
  Objective objective = Objective::gpus;  // target.objective
  double cluster_efficiency = 0.8;        // assume.cluster_efficiency, for quick_estimate
  bool cluster_efficiency_default = true;
  std::vector<Message>
      defaults_applied;  // e.g. {"default_global_batch", {{"sequences", "1024"}}, "training.global_batch = 1024 …"}
  std::vector<Message> warnings;           // from reading the scenario (model.hf_config keys not understood)
  std::optional<Calibration> calibration;  // measurements on the fixed layout (problem.hpp)

  Target target() const {
    Target t;
    t.days = target_days;
    t.max_cost = max_cost;
    t.objective = objective;
    return t;
  }
};

Expected<Scenario> parse_scenario(std::string_view json_text);

// target.max_cost needs a run that can be priced: a rental price (the scenario's or the
// catalog's) or an owned cluster whose GPU power is known. The error names
// /target/max_cost and says what is missing.
std::optional<Error> check_cost_target(const Scenario& s);

// Whether the scenario's cost can be computed at all (see check_cost_target).
bool cost_priced(const Scenario& s);

// Rented GPUs: takes the catalog's default price for the scenario's GPU and currency
// (default_rental_price), or records in problem.cost.unpriced why there is none.
void price_from_catalog(Scenario& s);

}  // namespace gpucalc
