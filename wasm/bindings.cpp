// Embind adapter: the page and the node tests call the same one-call boundary
// as the CLI (gpucalc::evaluate_json, search_json, compare_json, catalog_json), JSON
// text in, envelope JSON text out.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "gpucalc/api.hpp"

namespace {

// The answer as a JS string, decoded by TextDecoder straight from wasm memory. Embind's
// std::string return walks the ~20 KB answer byte by byte in JS, twice, before decoding
// it; this costs about a third of that.
emscripten::val js_string(const std::string& s) {
  static const emscripten::val decoder = emscripten::val::global("TextDecoder").new_();
  return decoder.call<emscripten::val>("decode", emscripten::val(emscripten::typed_memory_view(
                                                     s.size(), reinterpret_cast<const unsigned char*>(s.data()))));
}

emscripten::val evaluate(const std::string& scenario_json) { return js_string(gpucalc::evaluate_json(scenario_json)); }

emscripten::val search(const std::string& scenario_json) { return js_string(gpucalc::search_json(scenario_json, 10)); }

emscripten::val compare(const std::string& scenario_json, const std::string& ids_csv) {
  return js_string(gpucalc::compare_json(scenario_json, ids_csv));
}

emscripten::val catalog(const std::string& kind) { return js_string(gpucalc::catalog_json(kind)); }

std::string version() { return gpucalc::version(); }

}  // namespace

EMSCRIPTEN_BINDINGS(gpucalc) {
  emscripten::function("evaluate", &evaluate);
  emscripten::function("search", &search);
  emscripten::function("compare", &compare);
  emscripten::function("catalog", &catalog);
  emscripten::function("version", &version);
}
