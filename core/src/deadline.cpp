// An unreachable deadline: why the fastest plan is not fast enough, what would meet the
// deadline, and the knee of the days-vs-GPUs curve (docs/performance-model.md "An
// unreachable deadline").
#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "search_pass.hpp"

namespace gpucalc {
namespace {

// The largest overhead of a step (beside compute and the optimizer), and its share.
std::pair<const char*, double> largest_overhead(const StepTime& st) {
  const std::pair<const char*, double> terms[] = {{"bubble", st.bubble_s},
                                                  {"dp", st.dp_comm_exposed_s},
                                                  {"tp", st.tp_comm_s},
                                                  {"pp", st.pp_comm_s},
                                                  {"cp", st.cp_comm_s},
                                                  {"ep", st.ep_comm_s},
                                                  {"zero3", st.zero3_comm_exposed_s},
                                                  {"offload", st.offload_s}};
  std::pair<const char*, double> best{"", 0.0};
  for (const auto& term : terms)
    if (term.second > best.second) best = term;
  return {best.first, st.step_time_s > 0 ? best.second / st.step_time_s : 0.0};
}

}  // namespace

// target.days not met: why the fastest plan is not fast enough, and the search again with
// the batch allowed to grow by the factor the deadline asks for (the next power of two of
// fastest days / target days, 2 to 64): more data-parallel ranks at the same step time.
void explain_miss(const CompiledProblem& cp, const Constraints& c, const Target& t, SearchResult& r) {
  if (!t.days || r.target_met || !r.fastest || r.truncated) return;
  const Problem& p = *cp.problem;
  DeadlineMiss m;
  m.fastest = *r.fastest;
  m.fastest_days = outcome(p, m.fastest).goodput.wall_days;
  m.batch_limit = c.batch_max > 0 ? c.batch_max : p.training.global_batch;
  m.batch_caps_dp = 2 * m.fastest.layout.dp > m.batch_limit;
  std::tie(m.step_term, m.step_term_share) = largest_overhead(m.fastest.time);
  if (std::isfinite(m.fastest_days) && !c.dp && !c.gpus && m.batch_caps_dp) {
    m.factor = 2;
    while (m.factor < 64 && m.fastest_days / static_cast<double>(m.factor) > *t.days) m.factor *= 2;
    if (m.batch_limit <= kMaxLayoutGpus / m.factor) {
      Constraints wider = c;
      wider.batch_min = c.batch_max > 0 ? c.batch_min : p.training.global_batch;
      wider.batch_max = m.batch_limit * m.factor;
      Target only_days = t;
      only_days.max_cost.reset();
      // No count below the FLOP bound can meet the deadline, even at 100% MFU: skip them.
      const double flops = flops_per_token(p.model, p.training.seq_len, Recompute::none, &p.training).model;
      const double least = p.training.tokens * flops / (peak_flops(p.gpu, p.training.precision) * *t.days * 86400);
      const SearchResult w = search_pass(cp, wider, only_days, nullptr, static_cast<int64_t>(std::min(least, 1e18)));
      // Met: the fewest GPUs that meet it; not met: the fastest it reaches.
      const std::optional<Candidate>& best = w.target_met ? w.chosen : w.fastest;
      if (best && best->fits && !w.truncated) {
        m.larger_batch = best;
        m.larger_batch_days = outcome(p, *best).goodput.wall_days;
        m.larger_batch_meets = w.target_met;
      }
    }
  }
  r.miss = m;
}

size_t knee_index(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = std::min(x.size(), y.size());
  if (n < 3) return n ? n - 1 : 0;
  const double dx = x[n - 1] - x[0], dy = y[0] - y[n - 1];
  if (!(dx > 0) || !(dy > 0)) return n - 1;
  // A bend shallower than this (in the normalised square) is not a knee: the front's GPU
  // counts are discrete (dp divides the batch), so a curve that scales throughout still
  // wiggles a few hundredths around its chord (H20's default-scenario front: at most
  // 0.033); a real knee such as perfect scaling that then flattens lies ~0.4 below it.
  constexpr double kMinGap = 0.1;
  size_t best = n - 1;
  double best_gap = kMinGap;
  for (size_t i = 0; i < n; ++i) {
    // Below the chord from (0, 1) to (1, 0): 1 - x_n - y_n > 0.
    const double gap = 1.0 - (x[i] - x[0]) / dx - (y[i] - y[n - 1]) / dy;
    if (gap > best_gap) {
      best_gap = gap;
      best = i;
    }
  }
  return best;
}

}  // namespace gpucalc
