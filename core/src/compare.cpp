// `gpucalc compare`: one scenario, several accelerators, one row each. Each row is the
// scenario with its `gpu` replaced by a catalog id, evaluated exactly as `evaluate` would;
// this file only decides which price applies to which row and picks the summary. The rows
// are typed answers (answer.hpp); report.cpp renders them.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "decimal.hpp"
#include "gpucalc/calibration_fit.hpp"
#include "gpucalc/message.hpp"
#include "gpucalc/perf.hpp"
#include "gpucalc/report.hpp"
#include "json_input.hpp"
#include "json_writer.hpp"

namespace gpucalc {
namespace {

std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t')) --b;
  return std::string(s.substr(a, b - a));
}

std::string known_ids() {
  std::string s;
  for (const auto& g : gpu_catalog()) s += (s.empty() ? "" : ", ") + g.id;
  return s;
}

Expected<std::vector<std::string>> split_ids(std::string_view csv) {
  std::vector<std::string> ids;
  size_t start = 0;
  while (start <= csv.size()) {
    const size_t comma = csv.find(',', start);
    const std::string id =
        trim(csv.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (id.empty())
      return coded_error("/gpu", "compare_empty_entry",
                         "the comparison list (--gpus) has an empty entry; give catalog ids separated by commas");
    if (!find_gpu(id)) {
      std::vector<std::string> catalog;
      for (const auto& g : gpu_catalog()) catalog.push_back(g.id);
      const std::string likely = input::likely_ids(id, catalog);
      if (!likely.empty())
        return coded_error(
            "/gpu", "compare_unknown_gpu_likely",
            "unknown GPU \"{got}\" in the comparison list (--gpus); did you mean {likely}? (known: {known})",
            {{"got", id}, {"likely", likely}, {"known", known_ids()}});
      return coded_error("/gpu", "compare_unknown_gpu",
                         "unknown GPU \"{got}\" in the comparison list (--gpus; known: {known})",
                         {{"got", id}, {"known", known_ids()}});
    }
    for (const auto& seen : ids)
      if (seen == id)
        return coded_error("/gpu", "compare_duplicate", "\"{got}\" appears twice in the comparison list (--gpus)",
                           {{"got", id}});
    ids.push_back(id);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (ids.size() > gpu_catalog().size())
    return coded_error("/gpu", "compare_too_long", "the comparison list is longer than the catalog");
  return ids;
}

// The catalog id a scenario's own prices belong to: its gpu id, or its custom gpu's base.
std::string price_owner(const Scenario& s) {
  const std::string& id = s.problem.gpu.id;
  const auto plus = id.find('+');
  return plus == std::string::npos ? id : id.substr(0, plus);
}

std::string fmt_knob(double x) { return format_fixed(x, 3); }

std::string catalog_name(const std::string& id) {
  const Gpu* g = find_gpu(id);
  return g ? g->name : id;
}

// The row of accelerator `id`: the scenario document `doc` with its gpu replaced, and with
// the scenario's own accelerator's measurements and prices kept to that accelerator.
CompareRow compare_row(const std::string& id, const input::json& doc, const std::string& owner,
                       const char* row_currency, bool own_currency) {
  input::json d = doc;
  d["gpu"] = id;
  if (row_currency && !own_currency && d.is_object()) {
    if (!d.contains("cost")) d["cost"] = input::json::object();
    if (d["cost"].is_object()) d["cost"]["currency"] = row_currency;
  }
  // A calibration was measured on the scenario's own accelerator: an accelerator that
  // shares its measured performance profile (data/perf.json aliases) carries the compute
  // knob its step time fits (calibration_fit.cpp); the other rows are the model's predictions.
  std::vector<Message> notes;
  std::optional<FittedKnobs> knobs;
  if (id != owner && d.is_object() && d.contains("calibration")) {
    const std::string profile = perf_profile_for(id).profile_id;
    if (profile != "default" && profile == perf_profile_for(owner).profile_id) {
      if (auto own = parse_scenario(doc.dump())) {
        if (auto k = fit_knobs(*own); k && k->has_value()) knobs = **k;
      }
    }
    d.erase("calibration");
    if (knobs)
      notes.push_back(coded("compare_calibrated_alike",
                            "calibration was measured on {gpu_id}, which shares this accelerator's performance profile "
                            "({profile}); this row carries the compute knob it fits (× {compute})",
                            {{"gpu_id", owner}, {"profile", profile}, {"compute", fmt_knob(knobs->compute_scale)}}));
    else
      notes.push_back(coded("compare_uncalibrated",
                            "calibration was measured on {gpu_id}; this row is the model's uncalibrated prediction",
                            {{"gpu_id", owner}}));
  }
  // cost.price_per_gpu_hour is the scenario's own accelerator's price: the other rows
  // take their cost.prices_per_gpu_hour entry, else their catalog default.
  bool dropped_price = false;
  if (id != owner && d.is_object() && d.contains("cost") && d["cost"].is_object() &&
      d["cost"].contains("price_per_gpu_hour")) {
    d["cost"].erase("price_per_gpu_hour");
    dropped_price = true;
  }
  const std::string text = d.dump();
  auto s = parse_scenario(text);
  if (!s) return {id, catalog_name(id), s.error()};
  if (dropped_price) {
    const auto& rp = s->problem.cost.rental;
    const Params who = {{"gpu_id", owner}};
    notes.push_back(
        rp && rp->per_accelerator ? coded("compare_price_entry",
                                          "cost.price_per_gpu_hour is the price of {gpu_id}; this row uses its "
                                          "cost.prices_per_gpu_hour entry",
                                          who)
        : rp                      ? coded("compare_price_default",
                                          "cost.price_per_gpu_hour is the price of {gpu_id}; this row uses its catalog default", who)
                                  : coded("compare_price_none",
                                          "cost.price_per_gpu_hour is the price of {gpu_id}; this row uses none "
                                                               "(no public price; add it to cost.prices_per_gpu_hour)",
                                          who));
  }
  // The scenario's explicit prices are its own accelerator's: the other rows take their
  // catalog default (rented) or go unpriced (owned: purchase prices differ per accelerator).
  CostModel& cm = s->problem.cost;
  if (id != owner) {
    if (cm.mode == CostMode::owned) {
      cm.owned.reset();
      cm.unpriced = coded(
          "compare_owned_price",
          "cost.owned.purchase_price_per_gpu is the price of {gpu_id}; evaluate this accelerator with its own purchase price",
          {{"gpu_id", owner}});
    }
    if (auto e = check_cost_target(*s)) return {id, catalog_name(id), *e};
  }
  // Each row's search is kept (search_cache.hpp): after a deadline or price edit the
  // comparison reuses them. A row carrying the calibrated accelerator's knobs searches afresh.
  Expected<Answer> a = knobs ? evaluate(*s, knobs) : evaluate(*s, text);
  if (!a) return {id, catalog_name(id), a.error()};
  for (auto& n : notes) a->notes.warnings.push_back(std::move(n));
  const std::string name = a->scenario.problem.gpu.name;
  return {id, name, std::move(a)};
}

// The id of the row with the smallest finite value(answer) among the rows whose answer
// passes `eligible` (the first on a tie), or nothing.
template <class Eligible, class Value>
std::optional<std::string> best_by(const std::vector<CompareRow>& rows, Eligible eligible, Value value) {
  const CompareRow* best = nullptr;
  double best_v = std::numeric_limits<double>::infinity();
  for (const auto& r : rows) {
    if (!r.answer || !eligible(*r.answer)) continue;
    const std::optional<double> x = value(*r.answer);
    if (x && std::isfinite(*x) && *x < best_v) {
      best_v = *x;
      best = &r;
    }
  }
  return best ? std::optional(best->gpu_id) : std::nullopt;
}

// A row that can run: its layout fits in memory and, with target.max_cost, it stays within
// the budget.
bool runs(const Answer& a) { return a.chosen.best.fits && (!a.scenario.max_cost || a.search.budget_met); }
// A row that answers the question asked: it runs and, with target.days, meets the deadline.
bool answers(const Answer& a) { return runs(a) && (!a.scenario.target_days || a.search.target_met); }

// Which row is best at what, among the rows that answer the question (fit in memory, meet
// target.days and target.max_cost when set): fewest GPUs, lowest cost (only among rows
// priced in one currency; none when currencies differ), least energy; and the fastest
// (wall clock) among the rows that run, deadline met or not: with no row meeting the
// deadline the first three are none, and the fastest is the nearest to it.
void summarize(CompareAnswer& out) {
  const auto cost = [](const Answer& a) -> const std::optional<RunCost>& { return a.chosen.outcome.cost; };
  std::optional<Currency> currency;
  bool one_currency = true;
  for (const auto& r : out.rows) {
    if (!r.answer || !cost(*r.answer)) continue;
    const Currency c = cost(*r.answer)->currency;
    if (!currency) currency = c;
    else if (c != *currency) one_currency = false;
  }
  out.fewest_gpus = best_by(out.rows, answers, [](const Answer& a) {
    return std::optional(static_cast<double>(a.chosen.best.layout.gpus()));
  });
  out.fastest =
      best_by(out.rows, runs, [](const Answer& a) { return std::optional(a.chosen.outcome.goodput.wall_days); });
  if (one_currency)
    out.cheapest = best_by(out.rows, answers,
                           [&](const Answer& a) { return cost(a) ? std::optional(cost(a)->total) : std::nullopt; });
  out.least_energy = best_by(out.rows, answers, [](const Answer& a) {
    const Energy& e = a.chosen.outcome.energy;
    return e.known ? std::optional(e.mwh) : std::nullopt;
  });
}

}  // namespace

Expected<CompareAnswer> compare(std::string_view scenario_json, std::string_view gpu_ids) {
  auto base = parse_scenario(scenario_json);
  if (!base) return base.error();
  auto ids = split_ids(gpu_ids);
  if (!ids) return ids.error();
  auto doc = input::parse_document(scenario_json);
  if (!doc) return doc.error();
  const std::string owner = price_owner(*base);
  // Rows priced in one currency: the scenario's, else the one its own accelerator's price
  // is in (other rows' prices convert at the USD↔CNY rate; docs/cost.md "Currencies").
  const CostModel& bc = base->problem.cost;
  const char* row_currency = bc.currency                                ? to_string(*bc.currency)
                             : bc.mode == CostMode::rented && bc.rental ? to_string(bc.rental->currency)
                                                                        : nullptr;
  CompareAnswer out{*base, {}, {}, {}, {}, {}};
  out.rows.reserve(ids->size());
  for (const std::string& id : *ids)
    out.rows.push_back(compare_row(id, *doc, owner, row_currency, bc.currency.has_value()));
  summarize(out);
  return out;
}

}  // namespace gpucalc
