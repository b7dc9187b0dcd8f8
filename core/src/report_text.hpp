// The answers of report.hpp rendered straight to JSON text by JsonWriter (json_writer.hpp),
// with no document tree in between: what evaluate_json and search_json wrap. The text is
// byte for byte the dump of the documents report.hpp returns, which are parsed from it.
#pragma once
#include <string>

#include "gpucalc/error.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

// The output of `gpucalc evaluate` (report.hpp evaluate) as JSON text.
Expected<std::string> evaluate_text(const Scenario& s);

// The output of `gpucalc search` (report.hpp search_report) as JSON text.
Expected<std::string> search_report_text(const Scenario& s, int top_k);

}  // namespace gpucalc
