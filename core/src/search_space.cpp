#include "search_space.hpp"

#include <algorithm>
#include <numeric>

namespace gpucalc {
namespace {

std::vector<int64_t> divisors(int64_t n, int64_t cap) {
  std::vector<int64_t> out;
  // Stopping at cap loses nothing: past it a divisor i is above the cap, and its cofactor
  // n / i is too when cap < √n (the micro-batches of a per-rank batch of millions of
  // sequences cost 64 steps, not √n, per layout; a fuzzed input took seconds).
  for (int64_t i = 1; i <= cap && i * i <= n; ++i) {
    if (n % i != 0) continue;
    if (i <= cap) out.push_back(i);
    const int64_t j = n / i;
    if (j != i && j <= cap) out.push_back(j);
  }
  std::sort(out.begin(), out.end());
  return out;
}

template <class T>
std::vector<int64_t> one_or(const std::optional<T>& fixed, const std::vector<T>& open) {
  if (fixed) return {static_cast<int64_t>(*fixed)};
  std::vector<int64_t> out;
  out.reserve(open.size());
  for (const T& v : open) out.push_back(static_cast<int64_t>(v));
  return out;
}

// A dimension whose candidates do not depend on the outer ones.
SearchDim fixed_dim(const char* name, std::vector<int64_t> vals, void (*set)(Layout&, int64_t)) {
  return {name, [vals = std::move(vals)](const Layout&, std::vector<int64_t>& out) { out = vals; }, set};
}

// The largest 2^i·3^j ≤ n (n ≥ 1).
int64_t largest_3_smooth(int64_t n) {
  int64_t best = 1;
  for (int64_t p3 = 1; p3 <= n; p3 *= 3) {
    int64_t v = p3;
    while (v * 2 <= n) v *= 2;
    best = std::max(best, v);
  }
  return best;
}

// Open dp under a batch range: the powers of two and three times them up to the largest
// batch (GPU counts between the powers of two: 3 · 1,024 = 3,072). Not the largest
// batch's other divisors: a critical batch of 8,277 sequences would offer dp 2,759.
std::vector<int64_t> dp_open_range(int64_t batch_max) {
  std::vector<int64_t> out;
  for (int64_t q = 1; q <= batch_max; q *= 2) {
    out.push_back(q);
    if (3 * q <= batch_max) out.push_back(3 * q);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// GPU counts of a node or more fill whole scale-up domains (nodes); smaller ones divide one.
bool whole_domains(int64_t gpus, int64_t domain) {
  return domain <= 1 || (gpus >= domain ? gpus % domain == 0 : domain % gpus == 0);
}

// TP: divisors of gcd(heads, kv_heads, ffn_hidden) inside the scale-up domain
// (TP's per-layer all-reduces collapse across nodes; sizing-model.md §4).
// MoE: expert-TP = TP also splits each expert's width (and the dense layers', if any).
std::vector<int64_t> tp_open(const ModelShape& m, int64_t domain) {
  int64_t tp_gcd = std::gcd(m.heads, m.kv_heads);
  if (!is_moe(m) || m.moe.first_dense_layers > 0) tp_gcd = std::gcd(tp_gcd, m.ffn_hidden);
  if (is_moe(m)) tp_gcd = std::gcd(tp_gcd, m.moe.expert_ffn_hidden);
  return divisors(tp_gcd, std::max<int64_t>(domain, 1));
}

// PP: every stage count up to L whose split is even or off by one layer at most per
// stage (ceil(L/p)·p - L < p holds for all p ≤ L; we keep divisors of L and powers
// of two, the splits frameworks support without hand-placed layers).
std::vector<int64_t> pp_open(const ModelShape& m) {
  std::vector<int64_t> out = divisors(m.layers, m.layers);
  for (int64_t q = 2; q <= m.layers && q <= 256; q *= 2) out.push_back(q);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// CP: only for long sequences when open (≥ 32K tokens), powers of two up to 32.
std::vector<int64_t> cp_open(const Training& t) {
  std::vector<int64_t> out = {1};
  if (t.seq_len >= 32768)
    for (int64_t q = 2; q <= 32; q *= 2)
      if (t.seq_len % (2 * q) == 0) out.push_back(q);
  return out;
}

// Selective recomputation: the scenario's modules, or three Megatron-Core module sets
// from light to heavy (plan.hpp RecomputeModule): the attention core (Korthikanti et
// al. 2022); + the norms (and MoE activations, MLA up-projections), as the Megatron MoE
// recipes use; + the dense MLPs (and shared experts), as DeepSeek-V3's H100 recipe.
std::vector<int64_t> module_sets(const ModelShape& m, const Constraints& c) {
  if (c.recompute_modules) return {static_cast<int64_t>(*c.recompute_modules)};
  using RM = RecomputeModule;
  const auto bit = [](RM x) { return static_cast<unsigned>(x); };
  const unsigned light = bit(RM::core_attn);
  const unsigned mid =
      light | bit(RM::layernorm) | (is_moe(m) ? bit(RM::moe_act) : 0u) | (is_mla(m) ? bit(RM::mla_up_proj) : 0u);
  const unsigned heavy = mid | (!is_moe(m) || m.moe.first_dense_layers > 0 ? bit(RM::mlp) : 0u) |
                         (is_moe(m) && m.moe.shared_experts > 0 ? bit(RM::shared_experts) : 0u);
  std::vector<int64_t> out = {light, mid};
  if (heavy != mid && !is_moe(m)) out.push_back(heavy);  // MoE: light and mid (its MLPs are experts)
  return out;
}

// DP: the fixed dp, or what the fixed GPU count leaves of tp·pp·cp, or every divisor of
// the global batch (with a batch range: dp_open_range); kept when the layout stays within
// kMaxLayoutGpus (which also keeps gpus() in int64), reaches min_gpus, matches the GPU
// count, divides the batch (a fixed one) and lets the expert-TP groups tile tp·cp·dp.
SearchDim dp_dim(const Problem& p, const Constraints& c, int64_t min_gpus, int64_t domain) {
  const bool range = c.batch_max > 0;
  const int64_t B = range ? c.batch_max : p.training.global_batch;
  return {"dp",
          [&c, B, range, domain, min_gpus,
           open = c.dp || c.gpus ? std::vector<int64_t>{}
                  : range        ? dp_open_range(B)
                                 : divisors(B, B)](const Layout& l, std::vector<int64_t>& out) {
            const int64_t model_par = l.tp * l.pp * l.cp;
            out.clear();
            if (c.dp) out = {*c.dp};
            else if (c.gpus && *c.gpus % model_par == 0) out = {*c.gpus / model_par};
            else if (!c.gpus) out = open;
            std::erase_if(out, [&](int64_t dp) {
              return dp > kMaxLayoutGpus / model_par || model_par * dp < min_gpus ||
                     (c.gpus && model_par * dp != *c.gpus) || dp < 1 || (!range && B % dp != 0) ||
                     (range && (dp > B || (!whole_domains(model_par * dp, domain) && !c.dp && !c.gpus))) ||
                     (l.tp * dp * l.cp) % l.etp != 0;
            });
          },
          [](Layout& l, int64_t v) { l.dp = v; }};
}

// The global batch of a layout when the scenario gives a range: the largest batch in
// [batch_min, batch_max] that dp ranks share evenly with a 3-smooth count per rank
// (2^i·3^j sequences, so the micro-batches divide it: rounding loses at most a quarter),
// else the largest that dp divides. The largest, because at a fixed layout more
// micro-batches per step only shrink the pipeline bubble's and the gradient
// reduction's share of the step; the range is the batch the user accepts for learning.
// Also the largest power of two per rank when that is smaller: an interleaved pipeline
// needs a micro-batch count that pp divides (Megatron-LM), which 9 or 3 per rank are
// not, so the larger batch can be the slower one (Llama 3.1 70B on 4,096 H100, 4M to
// 38M tokens: 9 per rank at DP 512 cannot interleave PP 2, 8 per rank can, 8% sooner).
SearchDim batch_dim(const Constraints& c) {
  return {"global_batch",
          [&c](const Layout& l, std::vector<int64_t>& out) {
            out.clear();
            const int64_t lo = (c.batch_min + l.dp - 1) / l.dp, hi = c.batch_max / l.dp;
            if (hi < std::max<int64_t>(lo, 1)) return;
            const int64_t k = largest_3_smooth(hi);
            out.push_back(l.dp * (k >= lo ? k : hi));
            int64_t two = 1;
            while (2 * two <= hi) two *= 2;
            if (two >= lo && two < k) out.push_back(l.dp * two);
          },
          [](Layout& l, int64_t v) { l.global_batch = v; }};
}

// EP, open for MoE models: divisors of the expert count that divide dp × cp (the EP
// group is carved out of the data-parallel ranks), up to 256 ranks (DeepSeek-V3 ran 64).
SearchDim ep_dim(const ModelShape& m, const Constraints& c) {
  return {"ep",
          [&m, &c, experts = is_moe(m) ? divisors(m.moe.experts, 256) : std::vector<int64_t>{}](
              const Layout& l, std::vector<int64_t>& out) {
            out.clear();
            if (c.ep) out = {*c.ep};
            else if (!is_moe(m)) out = {1};
            else {
              const int64_t ranks = l.tp * l.dp * l.cp / l.etp;
              for (int64_t e : experts)
                if (ranks % e == 0) out.push_back(e);
            }
          },
          [](Layout& l, int64_t v) { l.ep = v; }};
}

// Hybrid sharding, open under ZeRO-3: all of dp (0), or one scale-up domain's worth of
// ranks, so the per-layer gathers stay on NVLink and only the once-per-step gradient
// all-reduce crosses the NICs (PyTorch HSDP; Zhao et al. 2023 §3.2.2).
SearchDim shard_dim(const Constraints& c, int64_t domain) {
  return {"shard",
          [&c, domain](const Layout& l, std::vector<int64_t>& out) {
            if (c.shard) {
              out = {*c.shard};
              return;
            }
            const int64_t in_domain = domain / (l.tp * l.cp);
            out = {0};
            if (l.zero_stage >= 3 && in_domain >= 2 && in_domain < l.dp && l.dp % in_domain == 0)
              out.push_back(in_domain);
          },
          [](Layout& l, int64_t v) { l.shard = v; }};
}

}  // namespace

bool megatron_moe_overlap(const ModelShape& m, const Training& t) {
  return t.overlap_moe_comm && t.framework == Framework::megatron && is_moe(m);
}

SearchSpace search_space(const Problem& p, const Constraints& c) {
  const ModelShape& m = p.model;
  const Training& t = p.training;
  const int64_t domain = static_cast<int64_t>(p.gpu.scaleup_domain.value.value_or(8.0));
  // Fewer GPUs than this cannot hold the model's states even fully sharded (memory.hpp
  // min_gpus_to_hold_states); only when the GPU count is open (a fixed count that cannot
  // fit still gets its least-over-capacity layout as the answer).
  const int64_t min_gpus =
      !c.gpus && !c.dp ? min_gpus_to_hold_states(m, t, p.memory_limit_fraction * capacity_bytes(p.gpu)) : 1;
  SearchSpace s;
  s.base.etp = c.etp.value_or(1);
  s.base.first_stage_layers = c.first_stage_layers;
  s.base.last_stage_layers = c.last_stage_layers;
  s.dims.push_back(fixed_dim("tp", one_or(c.tp, tp_open(m, domain)), [](Layout& l, int64_t v) { l.tp = v; }));
  // Frameworks without a pipeline schedule (plan.cpp framework_rule) are offered pp 1 only.
  const bool layerwise = t.framework == Framework::hf || t.framework == Framework::torchtune;
  s.dims.push_back(fixed_dim("pp", one_or(c.pp, layerwise ? std::vector<int64_t>{1} : pp_open(m)),
                             [](Layout& l, int64_t v) { l.pp = v; }));
  s.dims.push_back(fixed_dim("cp", one_or(c.cp, cp_open(t)), [](Layout& l, int64_t v) { l.cp = v; }));
  s.dims.push_back(dp_dim(p, c, min_gpus, domain));
  if (c.batch_max > 0) s.dims.push_back(batch_dim(c));
  s.dims.push_back(ep_dim(m, c));
  // Interleaving: 1-8 virtual stages when pipelining (Narayanan et al. 2021 §2.2.2);
  // broken_rule drops what the micro-batches cannot carry. MoE models multiply the space
  // by EP and expert-TP: their open vpp keeps to 1, 2, 4. An open vpp offers only what
  // the layers can carry (pp·vpp chunks of at least one layer, broken_rule's vpp_layers),
  // so the walk never enters the subtrees that rule would reject leaf by leaf (a third of
  // the default scenario's combinations); a vpp the scenario fixes is offered as it is,
  // for broken_rule to name.
  // Megatron-Core's EP all-to-all overlap needs interleaving when pp > 1: an open vpp then
  // offers no 1 beside pp > 1.
  const bool overlap_needs_vpp = megatron_moe_overlap(m, t);
  s.dims.push_back({"vpp",
                    [open = !c.vpp, layers = m.layers, overlap_needs_vpp,
                     vals = one_or(c.vpp, t.framework == Framework::deepspeed ? std::vector<int64_t>{1}
                                          : is_moe(m)                         ? std::vector<int64_t>{1, 2, 4}
                                                      : std::vector<int64_t>{1, 2, 3, 4, 6, 8})](
                        const Layout& l, std::vector<int64_t>& out) {
                      out.clear();
                      for (int64_t v : vals) {
                        if (v == 1 && open && overlap_needs_vpp && l.pp > 1) continue;
                        if (v == 1 || (l.pp > 1 && (!open || l.pp * v <= layers))) out.push_back(v);
                      }
                    },
                    [](Layout& l, int64_t v) { l.vpp = v; }});
  // Offloading the optimizer needs a sharded optimizer (ZeRO-Offload, stage ≥ 1); the
  // parameters, ZeRO-3 (ZeRO-Infinity).
  const std::vector<int> zero_open = t.offload.params      ? std::vector<int>{3}
                                     : t.offload.optimizer ? std::vector<int>{1, 2, 3}
                                                           : std::vector<int>{0, 1, 2, 3};
  s.dims.push_back(fixed_dim("zero_stage", one_or(c.zero_stage, zero_open),
                             [](Layout& l, int64_t v) { l.zero_stage = static_cast<int>(v); }));
  // Megatron-Core's EP all-to-all overlap refuses full recomputation: an open recompute
  // then offers none and selective.
  // Frameworks that checkpoint whole layers have no selective recompute.
  std::vector<Recompute> recompute_open = {Recompute::none, Recompute::selective};
  if (layerwise) recompute_open = {Recompute::none};
  if (!megatron_moe_overlap(m, t)) recompute_open.push_back(Recompute::full);
  s.dims.push_back(fixed_dim("recompute", one_or(c.recompute, recompute_open),
                             [](Layout& l, int64_t v) { l.recompute = static_cast<Recompute>(v); }));
  s.dims.push_back({"recompute_modules",
                    [sets = module_sets(m, c)](const Layout& l, std::vector<int64_t>& out) {
                      if (l.recompute == Recompute::selective) out = sets;
                      else out = {static_cast<int64_t>(RecomputeModule::core_attn)};
                    },
                    [](Layout& l, int64_t v) { l.recompute_modules = static_cast<unsigned>(v); }});
  s.dims.push_back(shard_dim(c, domain));
  // Micro-batch innermost and ascending: the divisors of the per-DP-rank batch up to 64.
  // The walk asks once per outer combination, mostly for the batch it asked for last:
  // those divisors are kept (a fresh vector each time was a fifth of the search in
  // malloc, free and divisions). Interleaved (vpp > 1), only those that leave a
  // micro-batch count divisible by pp (broken_rule's vpp_micro_batches), ascending still.
  s.dims.push_back(
      {"micro_batch",
       [&c, &t, last = int64_t{-1}, kept = std::vector<int64_t>{}](const Layout& l, std::vector<int64_t>& out) mutable {
         if (c.micro_batch) {
           out.assign(1, *c.micro_batch);
           return;
         }
         const int64_t n = global_batch(t, l) / l.dp;
         if (n != last) {
           kept.clear();
           for (int64_t i = 1; i <= std::min<int64_t>(n, 64); ++i)
             if (n % i == 0) kept.push_back(i);
           last = n;
         }
         if (l.vpp == 1) {
           out.assign(kept.begin(), kept.end());
           return;
         }
         out.clear();
         for (int64_t i : kept)
           if ((n / i) % l.pp == 0) out.push_back(i);
       },
       [](Layout& l, int64_t v) { l.micro_batch = v; }});
  return s;
}

namespace {

struct Walker {
  const SearchSpace& s;
  const ModelShape& m;
  const Training& t;
  const std::function<bool(const Layout&)>& visit;
  std::vector<std::vector<int64_t>> vals;  // the candidates at each depth
  Layout l;
  int64_t considered = 0, visited = 0;
  const int64_t max_visited = max_layouts_visited(), max_considered = max_layouts_considered();

  // False when the work bounds stop the walk.
  bool at(size_t depth) {
    const SearchDim& d = s.dims[depth];
    std::vector<int64_t>& vs = vals[depth];
    d.values(l, vs);
    const bool innermost = depth + 1 == s.dims.size();
    for (int64_t v : vs) {
      d.set(l, v);
      if (!innermost) {
        if (!at(depth + 1)) return false;
        continue;
      }
      if (++considered > max_considered) return false;
      if (broken_rule(m, t, l) != LayoutRule::none) continue;
      if (++visited > max_visited) return false;
      if (!visit(l)) break;
    }
    return true;
  }
};

}  // namespace

bool walk(const SearchSpace& s, const ModelShape& m, const Training& t,
          const std::function<bool(const Layout&)>& visit) {
  if (s.dims.empty()) return true;
  Walker w{s, m, t, visit, std::vector<std::vector<int64_t>>(s.dims.size()), s.base};
  return w.at(0);
}

}  // namespace gpucalc
