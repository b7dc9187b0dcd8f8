// Embind adapter of the page's lazily loaded export module (gpucalc-export.js/.wasm):
// the launch-config export (gpucalc::export_json), JSON text in, envelope JSON text out.
// A module of its own so the first visit's core (bindings.cpp) carries none of it.
#include <emscripten/bind.h>

#include <string>

#include "gpucalc/api.hpp"

namespace {

std::string export_config(const std::string& scenario_json, const std::string& format) {
  return gpucalc::export_json(scenario_json, format);
}

std::string version() { return gpucalc::version(); }

}  // namespace

EMSCRIPTEN_BINDINGS(gpucalc_export) {
  emscripten::function("exportConfig", &export_config);
  emscripten::function("version", &version);
}
