// The answer's warnings and defaults_applied (answer.hpp Notes), worked out in report.cpp
// beside the rest of the answer's text.
#pragma once
#include "gpucalc/answer.hpp"

namespace gpucalc {

// The warnings about the chosen layout `best` and its run `o`, and the defaults the
// scenario and the money lines applied.
Notes answer_notes(const Scenario& s, const SearchResult& sr, const Candidate& best, const Outcome& o);

}  // namespace gpucalc
