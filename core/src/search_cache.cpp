#include "search_cache.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "json_input.hpp"
#include "search_pass.hpp"

namespace gpucalc {

namespace {

// What one search found that no target, price or token count changes: the fastest
// fitting layout at every GPU count (best_per_count), the least over-capacity layout when
// nothing fits, the work counts, and the top layouts at the GPU counts asked so far.
struct Kept {
  std::string key;
  SearchResult found;                 // chosen, fastest, target_met, budget_met are worked out per call
  std::optional<Candidate> best_any;  // the answer when no layout fits
  std::vector<std::pair<std::pair<int64_t, int>, std::vector<Candidate>>> tops;  // by (GPU count, top_k)
};

// A few searches, most recent first: the page's answer and search workers ask for one
// scenario at a time, its comparison worker for one per accelerator compared (eight by
// default, web/compare.js); a reader who goes back to an earlier model or accelerator finds
// it still here. An entry is the best layout of each GPU count (tens of candidates).
constexpr size_t kKept = 16;
// The core runs on one thread (the CLI, each of the page's workers).
std::vector<std::unique_ptr<Kept>> kept;
int64_t hits = 0;

Kept* find(const std::string& key) {
  auto it = std::find_if(kept.begin(), kept.end(), [&](const auto& k) { return k->key == key; });
  if (it == kept.end()) return nullptr;
  ++hits;
  std::rotate(kept.begin(), it, it + 1);
  return kept.front().get();
}

Kept& keep(const std::string& key, SearchResult&& r) {
  auto k = std::make_unique<Kept>();
  k->key = key;
  if (r.best_per_count.empty()) k->best_any = r.chosen;
  k->found = std::move(r);
  k->found.chosen.reset();
  k->found.fastest.reset();
  k->found.miss.reset();
  kept.insert(kept.begin(), std::move(k));
  if (kept.size() > kKept) kept.pop_back();
  return *kept.front();
}

// The searches themselves, each called from one place, so the optimiser has no reason to
// copy the search's code into several callers.
[[gnu::noinline]] SearchResult fresh(const Scenario& s) { return search(s.problem, s.constraints, s.target()); }
[[gnu::noinline]] FullSearch fresh_full(const Scenario& s, const Constraints& c, int top_k) {
  return search_full(s.problem, c, s.target(), top_k);
}

// The run of a kept layout for this scenario's tokens (compute.hpp run_time, as
// time_layout() works it out).
void rerun(const Problem& p, Candidate& c) { c.run = run_time(p.training, c.layout, c.time); }

// A kept search's runs worked out for this problem's tokens, and its GPU count chosen for
// the target.
SearchResult replay_counts(const Problem& p, const Target& t, const Kept& k) {
  SearchResult r = k.found;
  for (auto& [n, cand] : r.best_per_count) rerun(p, cand);
  std::optional<Candidate> best_any = k.best_any;
  if (best_any) rerun(p, *best_any);
  if (r.elsewhere && r.elsewhere->fewest) rerun(p, *r.elsewhere->fewest);
  if (r.elsewhere && r.elsewhere->layout_open) rerun(p, *r.elsewhere->layout_open);
  choose_count(p, t, r, best_any);
  return r;
}

// A hint's second search (batch_cap.cpp, moe_comm_hint.cpp), kept like the scenario's own
// under its key and a tag, and replayed for this problem's tokens and target.
SearchResult variant(const Problem& p, const Constraints& c, const Target& t, const std::string& key) {
  const Kept* k = find(key);
  if (!k) k = &keep(key, search_pass(compile_problem(p), c, t, nullptr));
  return replay_counts(p, t, *k);
}

// The kept search, its runs worked out for this scenario and its GPU count chosen; then,
// as search() does after its enumeration, for a missed deadline why and what would meet
// it, and the hints of a larger batch and of DeepEP (their searches kept too).
SearchResult replay(const Scenario& s, const Kept& k) {
  const Problem& p = s.problem;
  const Target t = s.target();
  const std::string key = k.key;
  SearchResult r = replay_counts(p, t, k);
  if (r.chosen && t.days && !r.target_met) explain_miss(compile_problem(p), s.constraints, t, r);
  r.batch_cap.reset();
  if (const auto wider = batch_cap_variant(p, s.constraints, r))
    judge_batch_cap(p, variant(p, *wider, Target{}, key + "|batch " + std::to_string(wider->batch_max)), r);
  r.moe_comm.reset();
  if (const auto both = moe_comm_variant(p, r))
    judge_moe_comm(p, *both, t, variant(*both, s.constraints, t, key + "|deepep"), r);
  return r;
}

// The top layouts at `gpus`: kept, or a search at that count alone (the same enumeration
// search_full() runs for its top layouts).
std::vector<Candidate> top_at(const Scenario& s, Kept& k, int64_t gpus, int top_k) {
  const auto at = std::make_pair(gpus, top_k);
  auto it = std::find_if(k.tops.begin(), k.tops.end(), [&](const auto& e) { return e.first == at; });
  if (it == k.tops.end()) {
    Constraints c = s.constraints;
    c.gpus = gpus;
    k.tops.emplace_back(at, fresh_full(s, c, top_k).top);
    it = k.tops.end() - 1;
  }
  std::vector<Candidate> top = it->second;
  for (Candidate& c : top) rerun(s.problem, c);
  return top;
}

}  // namespace

std::optional<std::string> time_key(std::string_view scenario_json, const Scenario& s) {
  auto doc = input::parse_document(scenario_json);
  if (!doc || !doc->is_object()) return std::nullopt;
  input::json& root = *doc;
  for (const char* k : {"name", "description", "cost", "energy", "goodput", "calibration"}) root.erase(k);
  if (auto t = root.find("target"); t != root.end() && t->is_object())
    for (const char* k : {"days", "max_cost", "objective"}) t->erase(k);
  // The tokens set the batch ceiling of a critical-batch rule (critical_batch.hpp): kept then.
  if (auto t = root.find("training"); t != root.end() && t->is_object() && !t->contains("global_batch_range"))
    t->erase("tokens");
  return root.dump() + "|" + std::to_string(s.problem.training.global_batch);
}

SearchResult cached_search(const Scenario& s, std::string_view scenario_json) {
  const auto key = time_key(scenario_json, s);
  if (!key) return fresh(s);
  const Kept* k = find(*key);
  // A fresh search is kept, then answered as a kept one would be (the same choice).
  return replay(s, k ? *k : keep(*key, fresh(s)));
}

FullSearch cached_search_full(const Scenario& s, std::string_view scenario_json, int top_k) {
  const auto key = time_key(scenario_json, s);
  Kept* k = key ? find(*key) : nullptr;
  if (!k) {
    FullSearch fs = fresh_full(s, s.constraints, top_k);
    if (!key) return fs;
    const std::optional<int64_t> gpus =
        fs.result.chosen ? std::optional(fs.result.chosen->layout.gpus()) : std::nullopt;
    Kept& now = keep(*key, std::move(fs.result));
    if (gpus) now.tops.emplace_back(std::make_pair(*gpus, top_k), std::move(fs.top));
    k = &now;
  }
  FullSearch fs;
  fs.result = replay(s, *k);
  if (!fs.result.chosen) return fs;
  fs.curve = curve_of(s.problem, fs.result);
  fs.top = top_at(s, *k, fs.result.chosen->layout.gpus(), top_k);
  return fs;
}

void clear_search_cache() { kept.clear(); }

int64_t search_cache_hits() { return hits; }

}  // namespace gpucalc
