#include "gpucalc/api.hpp"

#include <type_traits>

#include "gpucalc/report.hpp"
#include "gpucalc/scenario.hpp"
#include "json_writer.hpp"

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

// The envelope around an answer's text, or around the error that stopped it.
template <class A>
std::string wrap(const Expected<A>& answer) {
  if (!answer) return error_envelope(answer.error());
  if constexpr (std::is_same_v<A, std::string>) return ok_envelope(*answer);
  else return ok_envelope(to_json(*answer));
}

template <class Run>
std::string envelope(std::string_view scenario_json, Run run) {
  auto scenario = parse_scenario(scenario_json);
  if (!scenario) return error_envelope(scenario.error());
  return wrap(run(*scenario));
}

}  // namespace

// Both reuse the search of an earlier call whose time-relevant inputs were the same
// (search_cache.hpp): after an edit of the deadline, tokens, a price or goodput the answer
// costs a choice among the kept GPU counts, not a new search.
std::string search_json(std::string_view scenario_json, int top_k) {
  return envelope(scenario_json, [&](const Scenario& s) { return search_answer(s, scenario_json, top_k); });
}

std::string evaluate_json(std::string_view scenario_json) {
  return envelope(scenario_json, [&](const Scenario& s) { return evaluate(s, scenario_json); });
}

std::string compare_json(std::string_view scenario, std::string_view ids) { return wrap(compare(scenario, ids)); }

std::string catalog_json(std::string_view kind) { return wrap(catalog_report(kind)); }

}  // namespace gpucalc
