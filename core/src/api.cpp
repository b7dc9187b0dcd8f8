#include "gpucalc/api.hpp"

#include <nlohmann/json.hpp>

#include "gpucalc/report.hpp"
#include "gpucalc/scenario.hpp"
#include "json_writer.hpp"
#include "report_text.hpp"

namespace gpucalc {

std::string version() { return GPUCALC_VERSION; }

namespace {

// The envelope, {"ok":true,"value":...} around the answer's JSON text or
// {"ok":false,"error":{"path":...,"code":...,"params":{...},"message":...}}.
std::string ok_envelope(std::string_view value) {
  constexpr std::string_view head = R"({"ok":true,"value":)";
  std::string out;
  out.reserve(head.size() + value.size() + 1);
  out += head;
  out += value;
  out += '}';
  return out;
}

std::string error_envelope(const Error& e) {
  JsonWriter w;
  w.begin_object();
  w.field("ok", false);
  w.field("error", e);
  w.end_object();
  return w.take();
}

std::string wrap(const Expected<nlohmann::ordered_json>& result) {
  if (!result) return error_envelope(result.error());
  return ok_envelope(result->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

template <class Run>
std::string envelope(std::string_view scenario_json, Run run) {
  auto scenario = parse_scenario(scenario_json);
  if (!scenario) return error_envelope(scenario.error());
  Expected<std::string> text = run(*scenario);
  if (!text) return error_envelope(text.error());
  return ok_envelope(*text);
}

}  // namespace

std::string search_json(std::string_view scenario_json, int top_k) {
  return envelope(scenario_json, [&](const Scenario& s) { return search_report_text(s, top_k); });
}

std::string evaluate_json(std::string_view scenario_json) {
  return envelope(scenario_json, [](const Scenario& s) { return evaluate_text(s); });
}

std::string compare_json(std::string_view scenario, std::string_view ids) {
  return wrap(compare_report(scenario, ids));
}

std::string catalog_json(std::string_view kind) { return wrap(catalog_report(kind)); }

}  // namespace gpucalc
