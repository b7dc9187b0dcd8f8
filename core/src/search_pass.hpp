// The search's one pass and what follows an unreachable deadline, shared by search.cpp
// (the hot enumeration) and deadline.cpp (cold: run once per answer, built for size in wasm).
#pragma once
#include <cstdint>
#include <vector>

#include "compiled_problem.hpp"

namespace gpucalc {

// The one-pass search on the compiled problem; with `fitting`, also keeps every layout
// under the memory limit; layouts of fewer than least_gpus GPUs are skipped.
SearchResult search_pass(const CompiledProblem& cp, const Constraints& c, const Target& t,
                         std::vector<Candidate>* fitting, int64_t least_gpus = 0);

// target.days not met: fills r.miss (search.hpp DeadlineMiss).
void explain_miss(const CompiledProblem& cp, const Constraints& c, const Target& t, SearchResult& r);

}  // namespace gpucalc
