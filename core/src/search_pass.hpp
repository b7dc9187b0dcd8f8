// The search's one pass and what follows an unreachable deadline, shared by search.cpp
// (the hot enumeration) and deadline.cpp (cold: run once per answer, built for size in wasm).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "compiled_problem.hpp"

namespace gpucalc {

// The one-pass search on the compiled problem; with `fitting`, also keeps every layout
// under the memory limit; layouts of fewer than least_gpus GPUs are skipped.
SearchResult search_pass(const CompiledProblem& cp, const Constraints& c, const Target& t,
                         std::vector<Candidate>* fitting, int64_t least_gpus = 0);

// The pass skips the step time of a layout that cannot beat its GPU count's best
// (search.cpp cannot_beat), unless `fitting` asks for every fitting layout. This turns
// that pruning off and on (on by default) for tests/core/search_prune_test.cpp, which
// checks that it changes no answer; the process-wide setting, like the search cache.
void set_search_pruning(bool on);

// After the enumeration: the chosen GPU count among r.best_per_count (targets, objective,
// knee of the curve), r.fastest and the targets met; best_any when nothing fits. Shared
// with search_cache.cpp, which replays a kept enumeration for a new deadline or price.
void choose_count(const Problem& p, const Target& t, SearchResult& r, const std::optional<Candidate>& best_any);

// The curve of search_full(): every GPU count's best layout, ascending, with its outcome
// and whether it is on the Pareto front of wall-clock days (search_cache.cpp replays it).
std::vector<CurvePoint> curve_of(const Problem& p, const SearchResult& r);

// parallel.gpus fixed and no layout of it fits: fills r.elsewhere (search.hpp FitElsewhere).
void explain_no_fit(const CompiledProblem& cp, const Constraints& c, SearchResult& r);

// target.days not met: fills r.miss (search.hpp DeadlineMiss).
void explain_miss(const CompiledProblem& cp, const Constraints& c, const Target& t, SearchResult& r);

// A fixed GPU count held back by its batch: fills r.batch_cap (search.hpp BatchCap). In
// two halves for search_cache.cpp, which keeps the second search: the constraints it runs
// with (none when the answer is not held back), and the judgement of what it found.
void explain_batch_cap(const CompiledProblem& cp, const Constraints& c, SearchResult& r);
std::optional<Constraints> batch_cap_variant(const Problem& p, const Constraints& c, const SearchResult& r);
void judge_batch_cap(const Problem& p, const SearchResult& wider, SearchResult& r);

// An MoE all-to-all left exposed: fills r.moe_comm (search.hpp MoeCommFix); likewise in two
// halves: the problem with DeepEP and the overlap, and the judgement of its search.
void explain_moe_comm(const CompiledProblem& cp, const Constraints& c, const Target& t, SearchResult& r);
std::optional<Problem> moe_comm_variant(const Problem& p, const SearchResult& r);
void judge_moe_comm(const Problem& p, const Problem& both, const Target& t, const SearchResult& w, SearchResult& r);

}  // namespace gpucalc
