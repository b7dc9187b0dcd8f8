#include "gpucalc/search.hpp"

#include "compiled_problem.hpp"
#include "search_pass.hpp"
#include "search_space.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

#include "gpucalc/message.hpp"

namespace gpucalc {

Candidate evaluate_layout(const Problem& p, const Layout& l) {
  Candidate c = evaluate_memory(p, l);
  time_layout(p, c);
  return c;
}

Candidate evaluate_memory(const Problem& p, const Layout& l) {
  Candidate c;
  c.layout = l;
  c.memory = worst_stage_memory(p.model, p.training, l, p.overheads);
  c.fits = c.memory.total() <= p.memory_limit_fraction * capacity_bytes(p.gpu);
  return c;
}

void time_layout(const Problem& p, Candidate& c) {
  c.time = step_time(p.model, p.training, c.layout, p.gpu, p.perf, p.efficiency);
  c.run = run_time(p.training, c.layout, c.time);
}

namespace {
// The enumeration's bound (search.hpp); an atomic so a harness may set it while nothing
// else reads it concurrently anyway.
std::atomic<int64_t> g_max_layouts_visited{kDefaultMaxLayoutsVisited};
}  // namespace

int64_t max_layouts_visited() { return g_max_layouts_visited.load(std::memory_order_relaxed); }
int64_t max_layouts_considered() { return 10 * max_layouts_visited(); }
void set_max_layouts_visited(int64_t n) {
  g_max_layouts_visited.store(std::max<int64_t>(1, n), std::memory_order_relaxed);
}

bool enumerate_layouts(const Problem& p, const Constraints& c, const std::function<bool(const Layout&)>& visit) {
  // Work bounds (docs/robustness.md): a scenario whose open fields multiply into more
  // layouts than max_layouts_considered() stops here instead of searching for minutes.
  return walk(search_space(p, c), p.model, p.training, visit);
}

Error too_many_layouts() {
  return coded_error(
      "/parallel", "too_many_layouts",
      "leaves more than {layouts} valid layouts (or {candidates} candidates) open to search; fix some of "
      "parallel.tp, parallel.pp, parallel.dp, parallel.gpus or training.micro_batch",
      {{"layouts", std::to_string(max_layouts_visited())}, {"candidates", std::to_string(max_layouts_considered())}});
}

std::optional<Error> framework_refuses(const Training& t, const Constraints& c) {
  Layout fixed;
  fixed.pp = c.pp.value_or(1);
  fixed.vpp = c.vpp.value_or(1);
  fixed.zero_stage = c.zero_stage.value_or(0);
  fixed.recompute = c.recompute.value_or(Recompute::none);
  return check_framework(t, fixed);
}

Error explain_no_layout(const Problem& p, const Constraints& c) {
  if (c.tp && c.pp && c.dp) {
    Layout l;
    l.tp = *c.tp;
    l.pp = *c.pp;
    l.dp = *c.dp;
    l.cp = c.cp.value_or(1);
    l.ep = c.ep.value_or(1);
    l.etp = c.etp.value_or(1);
    l.shard = c.shard.value_or(0);
    l.first_stage_layers = c.first_stage_layers;
    l.last_stage_layers = c.last_stage_layers;
    l.vpp = c.vpp.value_or(1);
    l.micro_batch = c.micro_batch.value_or(1);
    l.zero_stage = c.zero_stage.value_or(0);
    l.recompute = c.recompute.value_or(Recompute::none);
    if (c.recompute_modules) l.recompute_modules = *c.recompute_modules;
    if (auto e = check_layout(p.model, p.training, l)) return *e;
  }
  if (auto e = framework_refuses(p.training, c)) return *e;
  const auto admits_in = [](const Problem& pr, const Constraints& cc) {
    bool any = false;
    const bool complete = enumerate_layouts(pr, cc, [&](const Layout&) {
      any = true;
      return false;
    });
    return any || !complete;  // too many to search counts as admitting one
  };
  const auto admits = [&](const Constraints& cc) { return admits_in(p, cc); };
  // Ulysses context parallelism splits the heads of each TP rank across cp (plan.cpp
  // cp_ulysses_heads); its seq_len rule (cp | s) is looser than ring's (2·cp | s), and
  // cp = 1 always passes, so when ring attention admits a layout the fixed cp does not
  // divide the heads per TP rank for any tp left.
  if (p.training.cp_comm == CpComm::ulysses && c.cp) {
    Problem ring = p;
    ring.training.cp_comm = CpComm::ring;
    if (admits_in(ring, c))
      return coded_error("/parallel/cp", "cp_ulysses_no_layout",
                         "with cp_comm \"ulysses\" must divide the heads per TP rank ({heads} / tp) for some allowed "
                         "tp, got {got} (\"ring\" admits it)",
                         {{"heads", std::to_string(p.model.heads)}, {"got", std::to_string(*c.cp)}});
  }
  // Megatron-Core's EP all-to-all overlap keeps an open vpp above 1 when pp > 1 and an open
  // recompute off full (search_space.cpp): when that alone leaves nothing, it is the field to
  // change.
  if (megatron_moe_overlap(p.model, p.training)) {
    Problem plain = p;
    plain.training.overlap_moe_comm = false;
    if (admits_in(plain, c))
      return coded_error("/training/overlap_moe_comm", "moe_overlap_no_layout",
                         "no layout fits Megatron-Core's EP overlap (vpp > 1 when pp > 1, no full recompute): set "
                         "parallel.vpp or turn it off");
  }
  // Free one fixed field at a time, most specific first; the first whose release
  // admits a layout is the one to change.
  struct Knob {
    std::optional<int64_t> Constraints::*field;
    const char* path;
    const char* code;
    const char* what;
  };
  const Knob knobs[] = {
      {&Constraints::micro_batch, "/training/micro_batch", "micro_batch_no_layout",
       "must divide the per-DP-rank batch for some layout, got {got}"},
      {&Constraints::vpp, "/parallel/vpp", "vpp_no_layout",
       "admits no layout: pp × vpp cannot exceed the layers and the micro-batch count must be a multiple of pp, got {got}"},
      {&Constraints::ep, "/parallel/ep", "ep_no_layout",
       "admits no layout: ep must divide the experts and dp × cp, got {got}"},
      {&Constraints::cp, "/parallel/cp", "fixed_no_layout", "admits no layout with the other fixed fields, got {got}"},
      {&Constraints::pp, "/parallel/pp", "fixed_no_layout", "admits no layout with the other fixed fields, got {got}"},
      {&Constraints::tp, "/parallel/tp", "fixed_no_layout", "admits no layout with the other fixed fields, got {got}"},
      {&Constraints::dp, "/parallel/dp", "fixed_no_layout", "admits no layout with the other fixed fields, got {got}"},
  };
  for (const auto& k : knobs) {
    if (!(c.*k.field)) continue;
    Constraints cc = c;
    cc.*k.field = std::nullopt;
    if (admits(cc)) return coded_error(k.path, k.code, k.what, {{"got", std::to_string(*(c.*k.field))}});
  }
  const std::string B = std::to_string(p.training.global_batch);
  if (c.gpus)
    return coded_error(
        "/parallel/gpus", "gpus_no_layout",
        "{gpus} GPUs cannot be split as tp × pp × dp × cp with tp dividing the heads ({heads}) and KV heads "
        "({kv_heads}) within the scale-up domain and dp dividing the global batch ({batch} sequences)",
        {{"gpus", std::to_string(*c.gpus)},
         {"heads", std::to_string(p.model.heads)},
         {"kv_heads", std::to_string(p.model.kv_heads)},
         {"batch", B}});
  return coded_error("/parallel", "no_layout", "the fixed fields admit no valid layout");
}

namespace {
// Step times within 0.01% count as equal (better()).
constexpr double kTie = 1 - 1e-4;
}  // namespace

bool better(const Candidate& a, const Candidate& b) {
  // Step times within 0.01% count as equal so the tie-breaks decide.
  const double ta = a.time.step_time_s, tb = b.time.step_time_s;
  if (ta < tb * kTie) return true;
  if (tb < ta * kTie) return false;
  const auto key = [](const Candidate& c) {
    return std::make_tuple(c.layout.zero_stage, c.layout.tp * c.layout.cp, c.layout.pp, -c.layout.micro_batch,
                           static_cast<int>(c.layout.recompute));
  };
  return key(a) < key(b);
}

namespace {

// Adds a fitting layout to the top-k candidates, in bounded memory: past 8192 kept, only
// the best 1024 stay (top_k ≤ 1024; the CLI allows 1000), so a search near its work bounds
// holds a few MB instead of a million candidates (docs/robustness.md).
constexpr size_t kTopKept = 1024;
void keep_top(std::vector<Candidate>& kept, const Candidate& c) {
  kept.push_back(c);
  if (kept.size() < 2 * kTopKept) return;
  std::nth_element(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(kTopKept), kept.end(), better);
  kept.resize(kTopKept);
}

}  // namespace

void choose_count(const Problem& p, const Target& t, SearchResult& r, const std::optional<Candidate>& best_any) {
  r.chosen.reset();
  r.fastest.reset();
  r.miss.reset();
  r.target_met = false;
  r.budget_met = false;
  // The targets and the objective compare GPU counts by their best layout's wall-clock
  // run (goodput) and cost (docs/cost.md "Search by cost").
  struct Point {
    const Candidate* cand;
    Outcome out;
    double days() const {
      return out.goodput.progress ? out.goodput.wall_days : std::numeric_limits<double>::infinity();
    }
    // Cost ∝ GPU-hours on one accelerator, so GPU-hours rank the counts when no price is known.
    double money() const {
      if (out.cost) return out.cost->total;
      return out.goodput.progress ? out.goodput.gpu_hours : std::numeric_limits<double>::infinity();
    }
  };
  std::vector<Point> pts;
  pts.reserve(r.best_per_count.size());
  for (const auto& [n, cand] : r.best_per_count) {
    if (!r.min_gpus_fit) r.min_gpus_fit = n;
    pts.push_back({&cand, outcome(p, cand)});
  }
  const auto meets_days = [&](const Point& q) { return !t.days || q.days() <= *t.days; };
  const auto meets_cost = [&](const Point& q) {
    return !t.max_cost || (q.out.cost && q.out.cost->total <= *t.max_cost);
  };
  // Ascending GPU counts with a strict <: on a tie the point with fewer GPUs stays.
  const auto argmin = [&](auto key, auto keep) {
    const Point* best = nullptr;
    for (const Point& q : pts)
      if (keep(q) && (!best || key(q) < key(*best))) best = &q;
    return best;
  };
  const auto all = [](const Point&) { return true; };
  const auto both = [&](const Point& q) { return meets_days(q) && meets_cost(q); };
  const auto by_days = [](const Point& q) { return q.days(); };
  const auto by_money = [](const Point& q) { return q.money(); };
  const auto by_gpus = [](const Point& q) { return static_cast<double>(q.cand->layout.gpus()); };
  if (const Point* f = argmin(by_days, all)) r.fastest = *f->cand;
  const Point* pick = t.objective == Objective::cost   ? argmin(by_money, both)
                      : t.objective == Objective::days ? argmin(by_days, both)
                                                       : argmin(by_gpus, both);
  // The knee of the Pareto front (ascending GPUs, each finishing sooner than all smaller
  // counts) in log GPUs and log days.
  const auto knee = [&]() -> const Point* {
    std::vector<const Point*> front;
    for (const Point& q : pts)
      if (std::isfinite(q.days()) && (front.empty() || q.days() < front.back()->days())) front.push_back(&q);
    if (front.empty()) return nullptr;
    std::vector<double> x, y;
    for (const Point* q : front) {
      x.push_back(std::log2(static_cast<double>(q->cand->layout.gpus())));
      y.push_back(std::log2(q->days()));
    }
    return front[knee_index(x, y)];
  };
  if (!pick && !pts.empty()) {
    // Nothing meets both targets: the cheapest that meets the deadline; else the fastest
    // within budget; else the knee of the curve (the cheapest when only a budget was set).
    if (t.days && argmin(by_days, meets_days)) pick = argmin(by_money, meets_days);
    else if (t.days && t.max_cost) pick = argmin(by_days, meets_cost);
    if (!pick && t.days && t.objective != Objective::days) pick = knee();  // objective days: the fastest
    if (!pick) pick = t.days ? argmin(by_days, all) : argmin(by_money, all);
  }
  if (pick) {
    r.chosen = *pick->cand;
    r.target_met = t.days.has_value() && meets_days(*pick);
    r.budget_met = t.max_cost.has_value() && meets_cost(*pick);
  }
  if (!r.chosen) r.chosen = best_any;
}

namespace {

// Whether a layout whose step time is at least `bound` can never be better() than one of
// step time `best`: when best < bound·kTie, then best < step·kTie too (the step is ≥ the
// bound and rounding is monotone), so better(layout, best) returns false at its second
// test (the first, step < best·kTie, cannot hold as well: it would make step < step·kTie²).
// A layout for which this holds would leave its GPU count's best as it is; skipping it
// changes nothing the search returns. Its memory is still evaluated and counted (the
// work counts and whether it fits do not depend on its time).
bool cannot_beat(double bound, double best) { return best < bound * kTie; }

bool pruning = true;  // set_search_pruning()

}  // namespace

void set_search_pruning(bool on) { pruning = on; }

SearchResult search_pass(const CompiledProblem& cp, const Constraints& c, const Target& t,
                         std::vector<Candidate>* fitting, int64_t least_gpus) {
  const Problem& p = *cp.problem;
  const bool prune = pruning && !fitting;
  SearchResult r;
  // The step time of the best layout so far at the GPU count being timed (the pruning's
  // threshold; none when this count has no layout yet or `prune` is off).
  double best_step = 0;
  bool have_best = false;
  const std::function<bool(double)> hopeless = [&](double bound) { return have_best && cannot_beat(bound, best_step); };
  // One pass: the best fitting layout at every GPU count (and the least over-capacity
  // layout, for when nothing fits). Everything else derives from that map.
  std::optional<Candidate> best_any;
  r.truncated = !enumerate_layouts(p, c, [&](const Layout& l) {
    // Memory first: a layout that does not fit is pruned (with every larger
    // micro-batch) before its step time is computed.
    if (l.gpus() < least_gpus) return false;  // cannot meet the deadline at any micro-batch
    Candidate cand = evaluate_memory(cp, l);
    ++r.layouts_evaluated;
    if (!cand.fits) {
      if (!best_any || cand.memory.total() < best_any->memory.total()) {
        time_layout(cp, cand);
        best_any = cand;
      }
      return false;
    }
    ++r.layouts_fitting;
    // With every fitting layout kept (`fitting`, the top layouts at a fixed GPU count),
    // every one is timed; otherwise only those that may beat their count's best.
    auto it = r.best_per_count.find(l.gpus());
    have_best = prune && it != r.best_per_count.end();
    if (have_best) best_step = it->second.time.step_time_s;
    if (!time_layout_unless(cp, cand, hopeless)) return true;
    if (fitting) keep_top(*fitting, cand);
    if (it == r.best_per_count.end()) r.best_per_count.emplace(l.gpus(), cand);
    else if (better(cand, it->second)) it->second = cand;
    return true;
  });
  choose_count(p, t, r, best_any);
  return r;
}

const char* to_string(Objective o) {
  switch (o) {
    case Objective::cost: return "cost";
    case Objective::days: return "days";
    default: return "gpus";
  }
}

Outcome outcome(const Problem& p, const Candidate& c) {
  Outcome o;
  const int64_t n = c.layout.gpus();
  o.goodput = goodput(p.goodput, n, c.run.days * 24);
  if (o.goodput.progress) {
    o.cost = run_cost(p.cost, p.gpu, n, o.goodput.wall_hours);
    o.energy = energy_use(p.cost.energy, p.gpu, n, o.goodput.wall_hours);
  }
  return o;
}

SearchResult search(const Problem& p, const Constraints& c, std::optional<double> target_days) {
  Target t;
  t.days = target_days;
  return search(p, c, t);
}

SearchResult search(const Problem& p, const Constraints& c, const Target& t) {
  const CompiledProblem cp = compile_problem(p);
  SearchResult r = search_pass(cp, c, t, nullptr);
  explain_miss(cp, c, t, r);
  explain_no_fit(cp, c, r);
  return r;
}

void explain_hints(const Problem& p, const Constraints& c, const Target& t, SearchResult& r) {
  const CompiledProblem cp = compile_problem(p);
  explain_batch_cap(cp, c, r);
  explain_moe_comm(cp, c, t, r);
}

std::vector<CurvePoint> curve_of(const Problem& p, const SearchResult& r) {
  std::vector<CurvePoint> curve;
  double best_days = std::numeric_limits<double>::infinity();
  for (const auto& [n, cand] : r.best_per_count) {
    CurvePoint pt;
    pt.best = cand;
    pt.outcome = outcome(p, cand);
    // Ascending GPU count: a point is on the front when it beats every smaller count in
    // wall-clock days (failures, checkpoints and restarts included).
    const double days =
        pt.outcome.goodput.progress ? pt.outcome.goodput.wall_days : std::numeric_limits<double>::infinity();
    pt.pareto = days < best_days;
    if (pt.pareto) best_days = days;
    curve.push_back(pt);
  }
  return curve;
}

FullSearch search_full(const Problem& p, const Constraints& c, std::optional<double> target_days, int top_k) {
  Target t;
  t.days = target_days;
  return search_full(p, c, t, top_k);
}

FullSearch search_full(const Problem& p, const Constraints& c, const Target& t, int top_k) {
  FullSearch fs;
  // With the GPU count fixed every fitting layout is a top-k candidate: keep them in the
  // one pass. Otherwise the chosen count is known only at the end: enumerate it again.
  std::vector<Candidate> all;
  if (c.gpus) all.reserve(2 * kTopKept);  // keep_top trims it back to kTopKept when full
  const CompiledProblem cp = compile_problem(p);
  fs.result = search_pass(cp, c, t, c.gpus ? &all : nullptr);
  if (!fs.result.chosen) return fs;
  explain_miss(cp, c, t, fs.result);
  explain_no_fit(cp, c, fs.result);
  fs.curve = curve_of(p, fs.result);
  if (!c.gpus) {
    // Top layouts at the chosen count: a second, much smaller enumeration.
    Constraints at = c;
    at.gpus = fs.result.chosen->layout.gpus();
    enumerate_layouts(p, at, [&](const Layout& l) {
      Candidate cand = evaluate_memory(cp, l);
      if (!cand.fits) return false;
      time_layout(cp, cand);
      keep_top(all, cand);
      return true;
    });
  }
  const size_t k = std::min<size_t>(all.size(), static_cast<size_t>(std::max(top_k, 0)));
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(), better);
  all.resize(k);
  fs.top = std::move(all);
  return fs;
}

}  // namespace gpucalc
