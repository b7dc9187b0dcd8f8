// The last searches' layouts, kept for the next answer whose time-relevant inputs are the
// same (docs/performance-model.md "Speed"). Most edits on the page — the deadline, the
// tokens, a price, the currency, power, goodput — change which GPU count is chosen and
// what it costs, not the step time of any layout: the search's enumeration (the fastest
// fitting layout at every GPU count) is reused and only the choice among the counts and
// the runs are worked out again, so an answer after such an edit costs well under a
// millisecond instead of a full search. The second searches of an answer's hints (a larger
// batch, batch_cap.cpp; DeepEP and the all-to-all overlap, moe_comm_hint.cpp) are kept the
// same way, under the scenario's key and a tag. A cached answer is the same, bit for bit, as
// a fresh one (tests/core/search_cache_test.cpp, tests/core/moe_comm_test.cpp,
// tests/wasm/cache.test.mjs).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gpucalc/scenario.hpp"
#include "gpucalc/search.hpp"

namespace gpucalc {

// The scenario's time-relevant part, the key of the cache: its JSON document without the
// fields that only the choice among GPU counts and the runs read (name, description,
// target.days, target.max_cost, target.objective, training.tokens, cost, energy, goodput,
// calibration; the tokens stay when training.global_batch_range is set, since a
// critical-batch rule's ceiling grows with them), plus the global batch it resolves to. A
// calibration that fits knobs is answered by a fresh search (answer.cpp), never from here. Every other field —
// including any field added later — is part of the key, so a change to it searches afresh. Empty when the text is not a
// JSON object (the parser then reports the error).
std::optional<std::string> time_key(std::string_view scenario_json, const Scenario& s);

// search(s.problem, s.constraints, s.target()) for the scenario `s` read from
// `scenario_json`, from the cache when an earlier search had the same time_key.
SearchResult cached_search(const Scenario& s, std::string_view scenario_json);

// search_full(s.problem, s.constraints, s.target(), top_k), likewise.
FullSearch cached_search_full(const Scenario& s, std::string_view scenario_json, int top_k);

// Forgets every kept search (tests compare cached answers with fresh ones).
void clear_search_cache();

// How many searches were answered from the cache so far (tests check it is used).
int64_t search_cache_hits();

}  // namespace gpucalc
