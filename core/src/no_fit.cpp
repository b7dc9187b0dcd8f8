// Nothing fits: what would. A fixed GPU count is searched again with the count left open,
// so the answer can say from how many GPUs the job fits instead of only that it does not;
// when the scenario also pins the layout (tp, pp, dp, cp, ZeRO, recomputation, …) and no
// count fits with it, the layout is left open too (docs/model.md "The search"). Cold: once
// per such answer.
#include "search_pass.hpp"

namespace gpucalc {

namespace {

// The scenario's layout choices dropped, the GPU count and the batch kept: what the
// calculator would choose itself.
Constraints layout_open(const Constraints& c) {
  Constraints open;
  open.gpus = c.gpus;
  open.batch_min = c.batch_min;
  open.batch_max = c.batch_max;
  return open;
}

bool pins_layout(const Constraints& c) {
  return c.tp || c.pp || c.dp || c.cp || c.ep || c.etp || c.vpp || c.micro_batch || c.shard || c.zero_stage ||
         c.recompute || c.first_stage_layers || c.last_stage_layers;
}

// The fitting layout at the fewest GPUs of a pass, if any.
std::optional<Candidate> fewest(const SearchResult& r) {
  if (r.truncated || !r.min_gpus_fit) return std::nullopt;
  return r.best_per_count.at(*r.min_gpus_fit);
}

}  // namespace

void explain_no_fit(const CompiledProblem& cp, const Constraints& c, SearchResult& r) {
  if (r.truncated || !r.chosen || !r.best_per_count.empty()) return;
  FitElsewhere f;
  if (c.gpus) {
    // No target: the fewest GPUs is what fitting asks for; each count's fastest layout.
    Constraints open = c;
    open.gpus.reset();
    f.fewest = fewest(search_pass(cp, open, Target{}, nullptr));
  }
  if (!f.fewest && pins_layout(c)) {
    Constraints open = layout_open(c);
    if (c.gpus) f.layout_open = fewest(search_pass(cp, open, Target{}, nullptr));
    f.layout_open_same_count = f.layout_open.has_value();
    if (!f.layout_open) {
      open.gpus.reset();
      f.layout_open = fewest(search_pass(cp, open, Target{}, nullptr));
    }
  }
  if (c.gpus || f.layout_open) r.elsewhere = f;
}

}  // namespace gpucalc
