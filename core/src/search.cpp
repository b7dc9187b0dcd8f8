#include "gpucalc/search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

#include "gpucalc/message.hpp"

namespace gpucalc {
namespace {

std::vector<int64_t> divisors(int64_t n, int64_t cap) {
  std::vector<int64_t> out;
  for (int64_t i = 1; i * i <= n; ++i) {
    if (n % i != 0) continue;
    if (i <= cap) out.push_back(i);
    const int64_t j = n / i;
    if (j != i && j <= cap) out.push_back(j);
  }
  std::sort(out.begin(), out.end());
  return out;
}

template <class T>
std::vector<T> one_or(const std::optional<T>& fixed, std::vector<T> open) {
  if (fixed) return {*fixed};
  return open;
}

}  // namespace

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

bool enumerate_layouts(const Problem& p, const Constraints& c, const std::function<bool(const Layout&)>& visit) {
  // Work bounds (docs/robustness.md): a scenario whose open fields multiply into more
  // layouts than this stops here instead of searching for minutes.
  int64_t considered = 0, visited = 0;
  const ModelShape& m = p.model;
  const Training& t = p.training;
  const int64_t domain = static_cast<int64_t>(p.gpu.scaleup_domain.value.value_or(8.0));

  // TP: divisors of gcd(heads, kv_heads, ffn_hidden) inside the scale-up domain
  // (TP's per-layer all-reduces collapse across nodes; sizing-model.md §4).
  // MoE: expert-TP = TP also splits each expert's width (and the dense layers', if any).
  int64_t tp_gcd = std::gcd(m.heads, m.kv_heads);
  if (!is_moe(m) || m.moe.first_dense_layers > 0) tp_gcd = std::gcd(tp_gcd, m.ffn_hidden);
  if (is_moe(m)) tp_gcd = std::gcd(tp_gcd, m.moe.expert_ffn_hidden);
  const auto tps = one_or(c.tp, divisors(tp_gcd, std::max<int64_t>(domain, 1)));
  // A GPU count below this cannot hold the model's states even fully sharded: at least
  // the frozen or trained weights' bytes (2 B, NF4 for QLoRA; plus 16 B per trained
  // parameter under AdamW mixed precision, whatever the ZeRO stage, minus what offload
  // moves to the host) must fit in memory_limit_fraction of the GPUs' memory. Layouts
  // of fewer GPUs are skipped uncounted — only when the GPU count is open (a fixed count
  // that cannot fit still gets its least-over-capacity layout as the answer).
  int64_t min_gpus = 1;
  if (!c.gpus && !c.dp) {
    const ParamCounts pc = count_params(m);
    const StateBytes sb = state_bytes(t, &m);
    const double total = static_cast<double>(pc.total);
    const double trained = is_adapter_stage(t) ? 0.0 : total;
    double bytes = (t.stage == Stage::qlora ? 0.5 : 2.0) * total +
                   trained * (sb.gradients + (t.offload.optimizer ? 0.0 : sb.optimizer));
    if (t.offload.params) bytes = 0;
    const double cap = p.memory_limit_fraction * capacity_bytes(p.gpu);
    if (cap > 0 && bytes > cap) min_gpus = static_cast<int64_t>(std::floor(bytes / cap));
  }
  // PP: every stage count up to L whose split is even or off by one layer at most per
  // stage (ceil(L/p)·p - L < p holds for all p ≤ L; we keep divisors of L and powers
  // of two, the splits frameworks support without hand-placed layers).
  std::vector<int64_t> pp_open = divisors(m.layers, m.layers);
  for (int64_t q = 2; q <= m.layers && q <= 256; q *= 2) pp_open.push_back(q);
  std::sort(pp_open.begin(), pp_open.end());
  pp_open.erase(std::unique(pp_open.begin(), pp_open.end()), pp_open.end());
  const auto pps = one_or(c.pp, pp_open);
  // CP: only for long sequences when open (≥ 32K tokens), powers of two up to 32.
  std::vector<int64_t> cp_open = {1};
  if (t.seq_len >= 32768)
    for (int64_t q = 2; q <= 32; q *= 2)
      if (t.seq_len % (2 * q) == 0) cp_open.push_back(q);
  const auto cps = one_or(c.cp, cp_open);
  // Interleaving: 1-8 virtual stages when pipelining (Narayanan et al. 2021 §2.2.2);
  // check_layout drops what the layers or micro-batches cannot carry.
  // MoE models multiply the space by EP and expert-TP: their open vpp keeps to 1, 2, 4.
  const auto vpps = one_or(c.vpp, is_moe(m) ? std::vector<int64_t>{1, 2, 4} : std::vector<int64_t>{1, 2, 3, 4, 6, 8});
  // Offloading the optimizer needs a sharded optimizer (ZeRO-Offload, stage ≥ 1); the
  // parameters, ZeRO-3 (ZeRO-Infinity).
  const std::vector<int> zero_open = t.offload.params      ? std::vector<int>{3}
                                     : t.offload.optimizer ? std::vector<int>{1, 2, 3}
                                                           : std::vector<int>{0, 1, 2, 3};
  const auto zeros = one_or(c.zero_stage, zero_open);
  const auto rcs = one_or(c.recompute, std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full});
  // Selective recomputation: the scenario's modules, or three Megatron-Core module sets
  // from light to heavy (plan.hpp RecomputeModule): the attention core (Korthikanti et
  // al. 2022); + the norms (and MoE activations, MLA up-projections), as the Megatron MoE
  // recipes use; + the dense MLPs (and shared experts), as DeepSeek-V3's H100 recipe.
  std::vector<unsigned> module_sets;
  if (c.recompute_modules) {
    module_sets = {*c.recompute_modules};
  } else {
    using RM = RecomputeModule;
    const auto bit = [](RM x) { return static_cast<unsigned>(x); };
    const unsigned light = bit(RM::core_attn);
    const unsigned mid = light | bit(RM::layernorm) | (is_moe(m) ? bit(RM::moe_act) : 0u) |
                         (is_mla(m) ? bit(RM::mla_up_proj) : 0u);
    const unsigned heavy = mid | (!is_moe(m) || m.moe.first_dense_layers > 0 ? bit(RM::mlp) : 0u) |
                           (is_moe(m) && m.moe.shared_experts > 0 ? bit(RM::shared_experts) : 0u);
    module_sets = {light, mid};
    if (heavy != mid && !is_moe(m)) module_sets.push_back(heavy);  // MoE: light and mid (its MLPs are experts)
  }
  const std::vector<unsigned> no_modules = {static_cast<unsigned>(RecomputeModule::core_attn)};
  // EP, open for MoE models: divisors of the expert count that divide dp × cp (the EP
  // group is carved out of the data-parallel ranks), up to 256 ranks (DeepSeek-V3 ran 64).
  // Expert-TP, open: 1, as the Megatron MoE recipes set it (Megatron MoE model zoo:
  // DeepSeek-V3 and Qwen3 on H100); parallel.etp = tp selects Megatron-Core's default.
  const auto eps_for = [&](int64_t ranks) {
    if (c.ep) return std::vector<int64_t>{*c.ep};
    if (!is_moe(m)) return std::vector<int64_t>{1};
    std::vector<int64_t> out;
    for (int64_t e : divisors(m.moe.experts, 256))
      if (ranks % e == 0) out.push_back(e);
    return out;
  };
  const int64_t etp = c.etp.value_or(1);
  // Hybrid sharding, open under ZeRO-3: all of dp (0), or one scale-up domain's worth of
  // ranks, so the per-layer gathers stay on NVLink and only the once-per-step gradient
  // all-reduce crosses the NICs (PyTorch HSDP; Zhao et al. 2023 §3.2.2).
  const auto shards_for = [&](int64_t tp, int64_t cp, int64_t dp, int zero) {
    if (c.shard) return std::vector<int64_t>{*c.shard};
    const int64_t in_domain = domain / (tp * cp);
    if (zero < 3 || in_domain < 2 || in_domain >= dp || dp % in_domain != 0) return std::vector<int64_t>{0};
    return std::vector<int64_t>{0, in_domain};
  };

  for (int64_t tp : tps) {
    for (int64_t pp : pps) {
      for (int64_t cp : cps) {
        std::vector<int64_t> dps;
        if (c.dp) {
          dps = {*c.dp};
        } else if (c.gpus) {
          const int64_t model_par = tp * pp * cp;
          if (*c.gpus % model_par != 0) continue;
          dps = {*c.gpus / model_par};
        } else {
          dps = divisors(t.global_batch, t.global_batch);
        }
        for (int64_t dp : dps) {
          // tp·pp·cp ≤ 1e15: no layout beyond kMaxLayoutGpus, which also keeps gpus() in int64.
          if (dp > kMaxLayoutGpus / (tp * pp * cp)) continue;
          if (tp * pp * cp * dp < min_gpus) continue;
          if (c.gpus && tp * pp * cp * dp != *c.gpus) continue;
          if (dp < 1 || t.global_batch % dp != 0) continue;
          const auto mbs = one_or(c.micro_batch, divisors(t.global_batch / dp, 64));
          if ((tp * dp * cp) % etp != 0) continue;
          for (int64_t ep : eps_for(tp * dp * cp / etp))
          for (int64_t vpp : vpps) {
            if (vpp > 1 && pp == 1) continue;
            for (int zero : zeros) {
              for (Recompute rc : rcs)
              for (unsigned mods : rc == Recompute::selective ? module_sets : no_modules) {
                // Micro-batch innermost and ascending: per-GPU memory never falls as the
                // micro-batch grows (activations ∝ b·min(m, p), m·b fixed), so once the
                // visitor prunes a size, every larger one is skipped.
                for (int64_t shard : shards_for(tp, cp, dp, zero))
                for (int64_t mb : mbs) {
                  if (++considered > kMaxLayoutsConsidered) return false;
                  Layout l;
                  l.tp = tp; l.pp = pp; l.cp = cp; l.dp = dp; l.ep = ep; l.etp = etp; l.vpp = vpp;
                  l.micro_batch = mb; l.zero_stage = zero; l.recompute = rc; l.recompute_modules = mods;
                  l.first_stage_layers = c.first_stage_layers; l.last_stage_layers = c.last_stage_layers;
                  l.shard = shard;
                  if (broken_rule(m, t, l) != LayoutRule::none) continue;
                  if (++visited > kMaxLayoutsVisited) return false;
                  if (!visit(l)) break;
                }
              }
            }
          }
        }
      }
    }
  }
  return true;
}

Error too_many_layouts() {
  return coded_error("/parallel", "too_many_layouts",
                     "leaves more than {layouts} valid layouts (or {candidates} candidates) open to search; fix some of "
                     "parallel.tp, parallel.pp, parallel.dp, parallel.gpus or training.micro_batch",
                     {{"layouts", std::to_string(kMaxLayoutsVisited)}, {"candidates", std::to_string(kMaxLayoutsConsidered)}});
}

Error explain_no_layout(const Problem& p, const Constraints& c) {
  if (c.tp && c.pp && c.dp) {
    Layout l;
    l.tp = *c.tp; l.pp = *c.pp; l.dp = *c.dp; l.cp = c.cp.value_or(1); l.ep = c.ep.value_or(1);
    l.etp = c.etp.value_or(1);
    l.shard = c.shard.value_or(0);
    l.first_stage_layers = c.first_stage_layers; l.last_stage_layers = c.last_stage_layers;
    l.vpp = c.vpp.value_or(1); l.micro_batch = c.micro_batch.value_or(1);
    l.zero_stage = c.zero_stage.value_or(0); l.recompute = c.recompute.value_or(Recompute::none);
    if (c.recompute_modules) l.recompute_modules = *c.recompute_modules;
    if (auto e = check_layout(p.model, p.training, l)) return *e;
  }
  const auto admits = [&](const Constraints& cc) {
    bool any = false;
    const bool complete = enumerate_layouts(p, cc, [&](const Layout&) {
      any = true;
      return false;
    });
    return any || !complete;  // too many to search counts as admitting one
  };
  // Free one fixed field at a time, most specific first; the first whose release
  // admits a layout is the one to change.
  struct Knob { std::optional<int64_t> Constraints::*field; const char* path; const char* code; const char* what; };
  const Knob knobs[] = {
      {&Constraints::micro_batch, "/training/micro_batch", "micro_batch_no_layout", "must divide the per-DP-rank batch for some layout, got {got}"},
      {&Constraints::vpp, "/parallel/vpp", "vpp_no_layout",
       "admits no layout: pp × vpp cannot exceed the layers and the micro-batch count must be a multiple of pp, got {got}"},
      {&Constraints::ep, "/parallel/ep", "ep_no_layout", "admits no layout: ep must divide the experts and dp × cp, got {got}"},
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
    return coded_error("/parallel/gpus", "gpus_no_layout",
                       "{gpus} GPUs cannot be split as tp × pp × dp × cp with tp dividing the heads ({heads}) and KV heads "
                       "({kv_heads}) within the scale-up domain and dp dividing the global batch ({batch} sequences)",
                       {{"gpus", std::to_string(*c.gpus)}, {"heads", std::to_string(p.model.heads)},
                        {"kv_heads", std::to_string(p.model.kv_heads)}, {"batch", B}});
  return coded_error("/parallel", "no_layout", "the fixed fields admit no valid layout");
}

bool better(const Candidate& a, const Candidate& b) {
  // Step times within 0.01% count as equal so the tie-breaks decide.
  const double ta = a.time.step_time_s, tb = b.time.step_time_s;
  if (ta < tb * (1 - 1e-4)) return true;
  if (tb < ta * (1 - 1e-4)) return false;
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

// The one-pass search; with `fitting`, also keeps every layout under the memory limit.
SearchResult search_pass(const Problem& p, const Constraints& c, const Target& t, std::vector<Candidate>* fitting) {
  SearchResult r;
  // One pass: the best fitting layout at every GPU count (and the least over-capacity
  // layout, for when nothing fits). Everything else derives from that map.
  std::optional<Candidate> best_any;
  r.truncated = !enumerate_layouts(p, c, [&](const Layout& l) {
    // Memory first: a layout that does not fit is pruned (with every larger
    // micro-batch) before its step time is computed.
    Candidate cand = evaluate_memory(p, l);
    ++r.layouts_evaluated;
    if (!cand.fits) {
      if (!best_any || cand.memory.total() < best_any->memory.total()) {
        time_layout(p, cand);
        best_any = cand;
      }
      return false;
    }
    time_layout(p, cand);
    ++r.layouts_fitting;
    if (fitting) keep_top(*fitting, cand);
    auto it = r.best_per_count.find(l.gpus());
    if (it == r.best_per_count.end()) r.best_per_count.emplace(l.gpus(), cand);
    else if (better(cand, it->second)) it->second = cand;
    return true;
  });
  // The targets and the objective compare GPU counts by their best layout's wall-clock
  // run (goodput) and cost (docs/cost.md "Search by cost").
  struct Point {
    const Candidate* cand;
    Outcome out;
    double days() const { return out.goodput.progress ? out.goodput.wall_days : std::numeric_limits<double>::infinity(); }
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
  const auto meets_cost = [&](const Point& q) { return !t.max_cost || (q.out.cost && q.out.cost->total <= *t.max_cost); };
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
  if (!pick && !pts.empty()) {
    // Nothing meets both targets: the cheapest that meets the deadline; else the fastest
    // within budget; else the fastest (the cheapest when only a budget was set).
    if (t.days && argmin(by_days, meets_days)) pick = argmin(by_money, meets_days);
    else if (t.days) pick = argmin(by_days, meets_cost);
    if (!pick) pick = t.days ? argmin(by_days, all) : argmin(by_money, all);
  }
  if (pick) {
    r.chosen = *pick->cand;
    r.target_met = t.days.has_value() && meets_days(*pick);
    r.budget_met = t.max_cost.has_value() && meets_cost(*pick);
  }
  if (!r.chosen) r.chosen = best_any;
  return r;
}

}  // namespace

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
  return search_pass(p, c, t, nullptr);
}

SearchResult search(const Problem& p, const Constraints& c, const Target& t) { return search_pass(p, c, t, nullptr); }

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
  fs.result = search_pass(p, c, t, c.gpus ? &all : nullptr);
  if (!fs.result.chosen) return fs;
  double best_days = std::numeric_limits<double>::infinity();
  for (const auto& [n, cand] : fs.result.best_per_count) {
    CurvePoint pt;
    pt.best = cand;
    pt.outcome = outcome(p, cand);
    // Ascending GPU count: a point is on the front when it beats every smaller count in
    // wall-clock days (failures, checkpoints and restarts included).
    const double days = pt.outcome.goodput.progress ? pt.outcome.goodput.wall_days : std::numeric_limits<double>::infinity();
    pt.pareto = days < best_days;
    if (pt.pareto) best_days = days;
    fs.curve.push_back(pt);
  }
  if (!c.gpus) {
    // Top layouts at the chosen count: a second, much smaller enumeration.
    Constraints at = c;
    at.gpus = fs.result.chosen->layout.gpus();
    enumerate_layouts(p, at, [&](const Layout& l) {
      Candidate cand = evaluate_memory(p, l);
      if (!cand.fits) return false;
      time_layout(p, cand);
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
