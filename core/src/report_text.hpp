// The answers of report.hpp rendered straight to JSON text by JsonWriter (json_writer.hpp),
// with no document tree in between: what evaluate_json and search_json wrap. The same
// functions build report.hpp's ordered_json documents (JsonWriter's tree target), and the
// text is byte for byte their dump(-1, ' ', false, error_handler_t::replace).
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
