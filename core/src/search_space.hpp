// The search space as data: the dimensions a scenario leaves open, in walk order, each
// with its candidate values (some depend on the outer dimensions already chosen: dp on
// tp·pp·cp, ep on the expert ranks, shard on ZeRO, the micro-batch on dp), and a small
// enumerator that walks them. The search's pruning rests on two invariants of the
// memory model, tested directly in tests/core/search_space_test.cpp:
//  - per-GPU memory never falls as the micro-batch grows (the other dimensions fixed),
//    so once a micro-batch does not fit every larger one is skipped;
//  - no layout of fewer GPUs than min_gpus_to_hold_states() fits (memory.hpp).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "gpucalc/search.hpp"

namespace gpucalc {

// One open (or fixed) dimension of the layout.
struct SearchDim {
  const char* name;
  // The candidate values given the outer dimensions already set in `l`, ascending where
  // the walk relies on it (the micro-batch).
  std::function<void(const Layout& l, std::vector<int64_t>& out)> values;
  void (*set)(Layout& l, int64_t v);
};

struct SearchSpace {
  std::vector<SearchDim> dims;  // outermost first; the last is the micro-batch
  Layout base;                  // the fields no dimension sets (etp, the uneven split)
};

// The dimensions tp, pp, cp, dp, ep, vpp, zero stage, recompute, recompute modules,
// shard and micro-batch, with the candidates docs/performance-model.md "The search"
// describes. The space refers to `p` and `c`: walk it while they live.
SearchSpace search_space(const Problem& p, const Constraints& c);

// Whether Megatron-Core's EP all-to-all overlap rules bind the search: a MoE model under
// framework megatron with training.overlap_moe_comm (transformer_config.py asserts virtual
// stages when pp > 1 and no full recomputation for it). An open vpp and an open recompute
// then keep to them.
bool megatron_moe_overlap(const ModelShape& m, const Training& t);

// Walks the space: every combination of the dimensions' values, outermost first, the
// micro-batch innermost and ascending; each combination that breaks no layout rule is
// visited, and visit returning false skips the larger micro-batches. Returns false when
// it stopped at the work bounds (max_layouts_considered() combinations, max_layouts_visited()
// valid layouts).
bool walk(const SearchSpace& s, const ModelShape& m, const Training& t,
          const std::function<bool(const Layout&)>& visit);

}  // namespace gpucalc
