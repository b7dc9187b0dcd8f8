#pragma once
#include <string_view>
// Defined in the generated embedded_data.cpp (core/embed_data.cmake).
namespace gpucalc::data {
std::string_view gpus_json();
std::string_view currency_json();
std::string_view models_json();
std::string_view perf_json();
std::string_view uncertainty_json();  // written by scripts/validate.mjs
}  // namespace gpucalc::data
