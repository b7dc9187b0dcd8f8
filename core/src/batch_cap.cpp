// A fixed GPU count held back by its global batch (search.hpp BatchCap; docs/model.md
// "The search"): a batch that leaves each data-parallel rank one or two sequences makes the
// search split the model (tensor, pipeline, expert parallelism) over GPUs the batch cannot
// feed, at a fraction of the speed: Llama 3.1 405B on 16,384 H100 at the default 4M-token
// batch (512 sequences of 8,192) runs one micro-batch per step on TP 8 × PP 4 × DP 512.
#include <cmath>
#include <optional>

#include "gpucalc/critical_batch.hpp"
#include "search_pass.hpp"

namespace gpucalc {

std::optional<Constraints> batch_cap_variant(const Problem& p, const Constraints& c, const SearchResult& r) {
  if (!c.gpus || c.dp || c.batch_max > 0 || !r.chosen || !r.chosen->fits || r.truncated) return std::nullopt;
  const int64_t batch = p.training.global_batch;
  if (batch / r.chosen->layout.dp > 2) return std::nullopt;
  // Up to the critical batch for this model and token count, and at least twice the batch:
  // below it a larger batch costs few extra tokens for the same loss (DeepSeek LLM §3.1).
  const CriticalBatch cb = critical_batch(p.model, p.training);
  const double seq = static_cast<double>(p.training.seq_len);
  const double top = std::floor(std::min(cb.tokens, p.training.tokens) / seq);
  if (!std::isfinite(top) || top < 2.0 * static_cast<double>(batch)) return std::nullopt;
  Constraints wider = c;
  wider.batch_min = batch;
  wider.batch_max = static_cast<int64_t>(top);
  return wider;
}

void judge_batch_cap(const Problem& p, const SearchResult& w, SearchResult& r) {
  r.batch_cap.reset();
  if (!r.chosen || !w.chosen || !w.chosen->fits || w.truncated) return;
  const double now = outcome(p, *r.chosen).goodput.wall_days;
  const double then = outcome(p, *w.chosen).goodput.wall_days;
  // A gain inside the model's own error band is not worth a note.
  if (!(then < 0.9 * now)) return;
  r.batch_cap = BatchCap{*w.chosen, then, critical_batch(p.model, p.training)};
}

void explain_batch_cap(const CompiledProblem& cp, const Constraints& c, SearchResult& r) {
  r.batch_cap.reset();
  if (const auto wider = batch_cap_variant(*cp.problem, c, r))
    judge_batch_cap(*cp.problem, search_pass(cp, *wider, Target{}, nullptr), r);
}

}  // namespace gpucalc
