// `gpucalc compare`: one scenario, several accelerators, one row each. Each row is the
// scenario with its `gpu` replaced by a catalog id, evaluated exactly as `evaluate` would;
// this file only decides which price applies to which row and picks the summary.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gpucalc/message.hpp"
#include "gpucalc/report.hpp"
#include "json_input.hpp"
#include "json_writer.hpp"

namespace gpucalc {
namespace {

using nlohmann::ordered_json;

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
    const std::string id = trim(csv.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (id.empty())
      return coded_error("/gpu", "compare_empty_entry",
                         "the comparison list (--gpus) has an empty entry; give catalog ids separated by commas");
    if (!find_gpu(id))
      return coded_error("/gpu", "compare_unknown_gpu", "unknown GPU \"{got}\" in the comparison list (--gpus; known: {known})",
                         {{"got", id}, {"known", known_ids()}});
    for (const auto& seen : ids)
      if (seen == id)
        return coded_error("/gpu", "compare_duplicate", "\"{got}\" appears twice in the comparison list (--gpus)", {{"got", id}});
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

ordered_json row_error(const std::string& id, const Error& e) {
  ordered_json row;
  row["gpu"] = {{"id", id}, {"name", find_gpu(id) ? find_gpu(id)->name : id}};
  row["ok"] = false;
  JsonWriter(row["error"]).value(e);
  return row;
}

}  // namespace

Expected<ordered_json> compare_report(std::string_view scenario_json, std::string_view gpu_ids) {
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
  const char* row_currency = bc.currency ? to_string(*bc.currency)
                         : bc.mode == CostMode::rented && bc.rental ? to_string(bc.rental->currency)
                                                                    : nullptr;

  ordered_json rows = ordered_json::array();
  for (const std::string& id : *ids) {
    input::json d = *doc;
    d["gpu"] = id;
    if (row_currency && !bc.currency && d.is_object()) {
      if (!d.contains("cost")) d["cost"] = input::json::object();
      if (d["cost"].is_object()) d["cost"]["currency"] = row_currency;
    }
    // A calibration was measured on the scenario's own accelerator: the other rows are the
    // model's predictions.
    std::vector<Message> notes;
    if (id != owner && d.is_object() && d.contains("calibration")) {
      d.erase("calibration");
      notes.push_back(coded("compare_uncalibrated", "calibration was measured on {gpu_id}; this row is the model's uncalibrated prediction",
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
    auto s = parse_scenario(d.dump());
    if (!s) {
      rows.push_back(row_error(id, s.error()));
      continue;
    }
    if (dropped_price) {
      const auto& rp = s->problem.cost.rental;
      const Params who = {{"gpu_id", owner}};
      notes.push_back(rp && rp->per_accelerator
                          ? coded("compare_price_entry", "cost.price_per_gpu_hour is the price of {gpu_id}; this row uses its "
                                                         "cost.prices_per_gpu_hour entry", who)
                      : rp ? coded("compare_price_default",
                                   "cost.price_per_gpu_hour is the price of {gpu_id}; this row uses its catalog default", who)
                           : coded("compare_price_none", "cost.price_per_gpu_hour is the price of {gpu_id}; this row uses none "
                                                         "(no public price; add it to cost.prices_per_gpu_hour)", who));
    }
    // The scenario's explicit prices are its own accelerator's: the other rows take their
    // catalog default (rented) or go unpriced (owned: purchase prices differ per accelerator).
    CostModel& cm = s->problem.cost;
    if (id != owner) {
      if (cm.mode == CostMode::owned) {
        cm.owned.reset();
        cm.unpriced = coded("compare_owned_price",
                            "cost.owned.purchase_price_per_gpu is the price of {gpu_id}; evaluate this accelerator with its own purchase price",
                            {{"gpu_id", owner}});
      }
      if (auto e = check_cost_target(*s)) {
        rows.push_back(row_error(id, *e));
        continue;
      }
    }
    auto res = evaluate(*s);
    if (!res) {
      rows.push_back(row_error(id, res.error()));
      continue;
    }
    ordered_json& v = *res;
    ordered_json row;
    row["gpu"] = {{"id", id}, {"name", v["gpu"]["name"]}};
    row["ok"] = true;
    ordered_json& plan = v["plan"];
    row["gpus"] = plan["gpus"];
    row["layout"] = {{"tp", plan["tp"]},         {"pp", plan["pp"]},
                     {"dp", plan["dp"]},         {"cp", plan["cp"]},
                     {"vpp", plan["vpp"]},       {"micro_batch", plan["micro_batch"]},
                     {"zero_stage", plan["zero_stage"]}, {"recompute", plan["recompute"]}};
    row["days"] = v["training"]["days"];
    row["goodput_days"] = v["goodput"]["days"];
    row["goodput_fraction"] = v["goodput"]["fraction"];
    row["gpu_hours"] = v["goodput"]["gpu_hours"];
    row["mfu"] = v["performance"]["mfu"];
    // Whose efficiencies the time model used: this GPU's measured profile, a measured
    // sibling's (data/perf.json aliases), or the unmeasured default.
    row["perf_profile"] = v["performance"]["perf_profile"];
    row["step_time_s"] = v["performance"]["step_time_s"];
    row["cost"] = v["cost"];
    ordered_json& en = v["energy"];
    row["energy"] = en.is_null() ? ordered_json(nullptr)
                                 : ordered_json{{"mwh", en["mwh"]},
                                                {"co2_tonnes", en["co2_tonnes"]},
                                                {"power_w_per_gpu", en["power_w_per_gpu"]},
                                                {"power_confidence", en["power_confidence"]}};
    ordered_json& mem = v["memory"];
    row["memory"] = {{"used_bytes", mem["total_bytes"]},
                     {"capacity_bytes", mem["capacity_bytes"]},
                     {"used_fraction", mem["used_fraction"]},
                     {"fits", mem["fits"]},
                     {"within_limit", mem["within_limit"]}};
    row["target_met"] = v["search"]["target_met"];
    row["max_cost_met"] = v["search"]["max_cost_met"];
    ordered_json warnings = v["warnings"];
    for (const auto& n : notes) JsonWriter(warnings.emplace_back()).value(n);
    row["warnings"] = std::move(warnings);
    rows.push_back(std::move(row));
  }

  // Which row is best at what: fewest GPUs, fewest wall-clock days, lowest cost (only
  // among rows priced in one currency; null when currencies differ), least energy.
  const auto best_by = [&](auto value) -> ordered_json {
    const ordered_json* best = nullptr;
    double best_v = std::numeric_limits<double>::infinity();
    for (const auto& r : rows) {
      const double x = value(r);
      if (std::isfinite(x) && x < best_v) {
        best_v = x;
        best = &r;
      }
    }
    return best ? (*best)["gpu"]["id"] : ordered_json(nullptr);
  };
  const auto num = [](const ordered_json& j) { return j.is_number() ? j.get<double>() : std::numeric_limits<double>::infinity(); };
  std::string currency;
  bool one_currency = true;
  for (const auto& r : rows) {
    auto c = r.find("cost");
    if (c == r.end() || !c->is_object()) continue;
    const std::string cur = (*c)["currency"].get<std::string>();
    if (currency.empty()) currency = cur;
    else if (cur != currency) one_currency = false;
  }
  ordered_json summary;
  summary["fewest_gpus"] = best_by([&](const ordered_json& r) { return r.contains("gpus") ? num(r["gpus"]) : num(nullptr); });
  summary["fastest"] = best_by([&](const ordered_json& r) { return r.contains("goodput_days") ? num(r["goodput_days"]) : num(nullptr); });
  summary["cheapest"] = one_currency ? best_by([&](const ordered_json& r) {
                          auto c = r.find("cost");
                          return c != r.end() && c->is_object() ? num((*c)["total"]) : num(nullptr);
                        })
                                     : ordered_json(nullptr);
  summary["least_energy"] = best_by([&](const ordered_json& r) {
    auto e = r.find("energy");
    return e != r.end() && e->is_object() ? num((*e)["mwh"]) : num(nullptr);
  });

  const Scenario& b = *base;
  ordered_json out;
  out["gpucalc_version"] = GPUCALC_VERSION;
  out["model"] = {{"id", b.problem.model.id}, {"name", b.problem.model.name}, {"params", count_params(b.problem.model).total}};
  out["training"] = {{"tokens", b.problem.training.tokens},
                     {"seq_len", b.problem.training.seq_len},
                     {"global_batch_tokens", b.problem.training.global_batch * b.problem.training.seq_len}};
  out["target"] = {{"days", b.target_days ? ordered_json(*b.target_days) : ordered_json(nullptr)},
                   {"max_cost", b.max_cost ? ordered_json(*b.max_cost) : ordered_json(nullptr)},
                   {"objective", to_string(b.objective)}};
  out["rows"] = std::move(rows);
  out["summary"] = std::move(summary);
  return out;
}

}  // namespace gpucalc
