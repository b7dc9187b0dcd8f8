// Search: enumerate the layouts a scenario leaves open, evaluate each (memory,
// step time), drop what does not fit, and pick the best; also the smallest GPU
// count that fits and the smallest that meets a deadline. Enumeration, pruning
// and evaluation are separate pieces, as in Calculon (Isaev et al. 2023) and Timeloop
// (Parashar et al. 2019).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "gpucalc/compute.hpp"
#include "gpucalc/cost.hpp"
#include "gpucalc/critical_batch.hpp"
#include "gpucalc/error.hpp"
#include "gpucalc/goodput.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/plan.hpp"
#include "gpucalc/problem.hpp"

namespace gpucalc {

struct Candidate {
  Layout layout;
  StageMemory memory;  // the worst stage
  StepTime time;
  RunTime run;
  bool fits = false;  // total ≤ memory_limit_fraction × capacity (the search's criterion)
};

// Evaluates one layout (no validity check: callers pass layouts from enumerate()
// or check_layout() first): memory, then step time and run time.
Candidate evaluate_layout(const Problem& p, const Layout& l);
// The two halves, so the search can prune on memory before timing.
Candidate evaluate_memory(const Problem& p, const Layout& l);
void time_layout(const Problem& p, Candidate& c);

// Calls visit(layout) for every valid layout that honours the constraints, the
// micro-batch ascending innermost; visit returns false to skip the larger micro-batches
// of the same layout (memory is monotone in the micro-batch).
// Open tp stays within the GPU's scale-up domain; open vpp and ep stay 1 and
// open cp stays 1 unless the sequence is long (docs/performance-model.md "The search").
// Returns false when it stopped at the work bounds below (the caller reports
// too_many_layouts()), true when it visited every layout.
bool enumerate_layouts(const Problem& p, const Constraints& c, const std::function<bool(const Layout&)>& visit);

// Work bounds of one enumeration (docs/robustness.md): at most max_layouts_visited() valid
// layouts evaluated and ten times as many candidates checked (about a second natively at
// the default; the widest realistic searches stay under a third of both), and no layout of
// more than kMaxLayoutGpus GPUs (parallel.gpus' upper bound). The fuzzer lowers the bound
// with set_max_layouts_visited() so its inputs stay fast; the code path is the same.
inline constexpr int64_t kDefaultMaxLayoutsVisited = 1'000'000;
int64_t max_layouts_visited();
int64_t max_layouts_considered();
// For a harness only (the fuzzer): a process-wide bound, n >= 1.
void set_max_layouts_visited(int64_t n);
inline constexpr int64_t kMaxLayoutGpus = 10'000'000;
// The error for a search that hit those bounds, at /parallel.
Error too_many_layouts();

// The ranking of layouts: fastest step (communication included) first; on a tie, lower
// ZeRO stage, then fewer TP·CP ways, then fewer pipeline stages, then larger micro-batch
// (docs/performance-model.md "The search").
bool better(const Candidate& a, const Candidate& b);

// When the constraints admit no valid layout: the error that names the fixed field
// to change (the exact check_layout error when the layout is fully fixed).
// What training.framework cannot run among the fixed fields (plan.hpp check_framework),
// the fields left open counted as what every framework runs (pp 1, vpp 1, ZeRO 0, no
// recompute).
std::optional<Error> framework_refuses(const Training& t, const Constraints& c);
Error explain_no_layout(const Problem& p, const Constraints& c);

// A candidate's wall-clock run, its cost and its energy.
struct Outcome {
  Goodput goodput;
  std::optional<RunCost> cost;  // empty when no price is known
  Energy energy;
};
Outcome outcome(const Problem& p, const Candidate& c);

// Kneedle (Satopää et al. 2011) on a falling curve: normalise both axes to [0, 1], and
// take the point furthest below the chord from the first point to the last. The search
// gives it log GPUs and log days of the Pareto front, where perfect scaling is a straight
// line of slope -1 and the knee is where more GPUs stop buying proportionally fewer days.
// Returns the index of the knee, or the last index when no point lies at least 0.1 below
// the chord (the curve does not bend beyond the wiggle of discrete GPU counts) or there
// are fewer than three points.
size_t knee_index(const std::vector<double>& x, const std::vector<double>& y);

// When no GPU count meets target.days: the fastest plan, what limits it, and what would meet
// the deadline (report.cpp words it).
struct DeadlineMiss {
  Candidate fastest;
  double fastest_days = 0;     // its wall-clock days (goodput)
  int64_t batch_limit = 0;     // the largest batch allowed, sequences (training.global_batch or the range's top)
  bool batch_caps_dp = false;  // doubling its data-parallel ranks would need a larger batch than allowed
  // The largest overhead in its step: "bubble", "dp", "tp", "pp", "cp", "ep", "zero3",
  // "offload" (empty when compute is all of it), and its share of the step.
  const char* step_term = "";
  double step_term_share = 0;
  // The search again with the batch allowed to grow to batch_limit · factor: its answer,
  // and whether it meets the deadline.
  int64_t factor = 0;
  std::optional<Candidate> larger_batch;
  double larger_batch_days = 0;
  bool larger_batch_meets = false;
};

// parallel.gpus fixed and a global batch that leaves each data-parallel rank of the answer
// at most two sequences, so the GPUs the batch cannot feed split the model instead: the
// search again at that count with the batch free up to the critical batch (DeepSeek LLM,
// critical_batch.hpp), kept when it is at least 10% sooner (batch_cap.cpp).
struct BatchCap {
  Candidate plan;          // the fastest layout and batch at the same GPU count
  double days = 0;         // its wall-clock days (goodput)
  CriticalBatch critical;  // the batch's upper bound, and whether the law is extrapolated there
};

// An MoE answer on Megatron-Core's default all-to-all dispatcher without the EP overlap
// whose expert-parallel all-to-all is a tenth of its step or more: the search again with
// DeepEP's dispatcher and the overlap (DeepSeek-V3's stack), kept when it needs at least
// 10% fewer GPU-hours or meets a deadline the answer misses (moe_comm_hint.cpp).
struct MoeCommFix {
  Candidate plan;   // the search's answer with DeepEP and the overlap
  double days = 0;  // its wall-clock days (goodput)
};

// Nothing fits: with parallel.gpus fixed, the search again with the GPU count left open
// (every other constraint kept, no target), for what would fit; when that finds nothing
// either and the scenario pins its layout, the search with the layout left open too
// (no_fit.cpp explain_no_fit).
struct FitElsewhere {
  std::optional<Candidate> fewest;  // the fitting layout at the fewest GPUs; none when no count fits
  // The layout the calculator would choose: at the scenario's GPU count when one fits
  // there (layout_open_same_count), else at the fewest GPUs that fit.
  std::optional<Candidate> layout_open;
  bool layout_open_same_count = false;
};

struct SearchResult {
  std::optional<Candidate> chosen;              // the answer
  std::map<int64_t, Candidate> best_per_count;  // fastest fitting layout per GPU count
  std::optional<int64_t> min_gpus_fit;          // smallest GPU count with a fitting layout
  std::optional<Candidate> fastest;             // fitting layout with the fewest days
  int64_t layouts_evaluated = 0;
  int64_t layouts_fitting = 0;
  bool truncated = false;   // the enumeration hit its work bounds: no answer (too_many_layouts())
  bool target_met = false;  // the answer finishes within target.days (wall clock)
  bool budget_met = false;  // the answer costs at most target.max_cost
  // target.days not met: the answer is the knee of the days-vs-GPUs front (knee_index), and why.
  std::optional<DeadlineMiss> miss;
  // Nothing fits at the fixed GPU count: what would (explain_no_fit, no_fit.cpp).
  std::optional<FitElsewhere> elsewhere;
  // The batch holds back a fixed GPU count: what a larger one would give (batch_cap.cpp).
  std::optional<BatchCap> batch_cap;
  // An MoE all-to-all left exposed: what DeepEP and the overlap would give (moe_comm_hint.cpp).
  std::optional<MoeCommFix> moe_comm;
};

// With target_days: the smallest GPU count whose best fitting layout finishes in
// time, and that layout. Without: the best layout at the fixed GPU count, or at
// the smallest GPU count that fits.
// With a Target: among the counts whose best layout meets target.days (wall clock) and
// target.max_cost, the one the objective prefers: fewest GPUs (ties: none), lowest cost
// (ties: fewer GPUs), fewest days (ties: fewer GPUs). At one GPU count the fastest layout
// is also the cheapest (cost ∝ GPU-hours), so the search ranks layouts by step time as
// before. When no count meets both targets: the cheapest that meets the deadline, else
// the fastest within budget, else the knee of the days-vs-GPUs front (knee_index; not the
// last few percent of speed at any price) with `miss` saying why and what would meet the
// deadline (or, with only a budget, the cheapest).
SearchResult search(const Problem& p, const Constraints& c, std::optional<double> target_days);
SearchResult search(const Problem& p, const Constraints& c, const Target& t);

// What would do markedly better than r's answer, each a second search: a batch up to the
// critical one on a fixed GPU count its batch holds back (r.batch_cap), DeepEP and the
// all-to-all overlap for an MoE answer whose all-to-all is exposed (r.moe_comm). For an
// answer, not for every search (a calibration fit's or an export's): answer.cpp calls it,
// and the search cache replays its kept second searches instead (search_cache.cpp).
void explain_hints(const Problem& p, const Constraints& c, const Target& t, SearchResult& r);

// One point of the GPU-count curve: the fastest fitting layout at that count.
struct CurvePoint {
  Candidate best;
  bool pareto = false;  // no smaller count finishes sooner (wall-clock days)
  Outcome outcome;
};

struct FullSearch {
  SearchResult result;            // as search()
  std::vector<Candidate> top;     // fitting layouts at the chosen GPU count, best first (at most top_k, ≤ 1024)
  std::vector<CurvePoint> curve;  // every reachable GPU count, ascending
};

FullSearch search_full(const Problem& p, const Constraints& c, std::optional<double> target_days, int top_k);
FullSearch search_full(const Problem& p, const Constraints& c, const Target& t, int top_k);

}  // namespace gpucalc
