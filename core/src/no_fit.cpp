// A fixed GPU count on which nothing fits: the search again with the count left open,
// so the answer can say from how many GPUs the job fits instead of only that it does not
// (docs/model.md "The search"). Cold: once per such answer.
#include "search_pass.hpp"

namespace gpucalc {

void explain_no_fit(const CompiledProblem& cp, const Constraints& c, SearchResult& r) {
  if (!c.gpus || r.truncated || !r.chosen || !r.best_per_count.empty()) return;
  Constraints open = c;
  open.gpus.reset();
  // No target: the fewest GPUs is what fitting asks for; each count's fastest layout.
  const SearchResult wide = search_pass(cp, open, Target{}, nullptr);
  FitElsewhere f;
  if (!wide.truncated && wide.min_gpus_fit) f.fewest = wide.best_per_count.at(*wide.min_gpus_fit);
  r.elsewhere = f;
}

}  // namespace gpucalc
