#include "gpucalc/api.hpp"

#include <nlohmann/json.hpp>

#include "gpucalc/report.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

std::string version() { return GPUCALC_VERSION; }

namespace {

std::string wrap(Expected<nlohmann::ordered_json> result) {
  nlohmann::ordered_json env;
  if (!result) {
    env["ok"] = false;
    env["error"] = {{"path", result.error().path}, {"message", result.error().message}};
  } else {
    env["ok"] = true;
    env["value"] = std::move(*result);
  }
  return env.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

template <class Run>
std::string envelope(std::string_view scenario_json, Run run) {
  nlohmann::ordered_json env;
  auto fail = [&](const Error& e) {
    env["ok"] = false;
    env["error"] = {{"path", e.path}, {"message", e.message}};
    return env.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  auto scenario = parse_scenario(scenario_json);
  if (!scenario) return fail(scenario.error());
  auto result = run(*scenario);
  if (!result) return fail(result.error());
  env["ok"] = true;
  env["value"] = std::move(*result);
  return env.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string search_json(std::string_view scenario_json, int top_k) {
  return envelope(scenario_json, [&](const Scenario& s) { return search_report(s, top_k); });
}

std::string evaluate_json(std::string_view scenario_json) {
  return envelope(scenario_json, [](const Scenario& s) { return evaluate(s); });
}

std::string compare_json(std::string_view scenario, std::string_view ids) {
  return wrap(compare_report(scenario, ids));
}

std::string catalog_json(std::string_view kind) { return wrap(catalog_report(kind)); }

}  // namespace gpucalc
