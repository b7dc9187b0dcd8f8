// Embind adapter: the page and the node tests call the same one-call boundary
// as the CLI (gpucalc::evaluate_json, search_json, compare_json, catalog_json), JSON
// text in, envelope JSON text out.
#include <emscripten/bind.h>

#include <string>

#include "gpucalc/api.hpp"

namespace {

std::string evaluate(const std::string& scenario_json) { return gpucalc::evaluate_json(scenario_json); }

std::string search(const std::string& scenario_json) { return gpucalc::search_json(scenario_json, 10); }

std::string compare(const std::string& scenario_json, const std::string& ids_csv) {
  return gpucalc::compare_json(scenario_json, ids_csv);
}

std::string catalog(const std::string& kind) { return gpucalc::catalog_json(kind); }

std::string version() { return gpucalc::version(); }

}  // namespace

EMSCRIPTEN_BINDINGS(gpucalc) {
  emscripten::function("evaluate", &evaluate);
  emscripten::function("search", &search);
  emscripten::function("compare", &compare);
  emscripten::function("catalog", &catalog);
  emscripten::function("version", &version);
}
