// Money, energy and goodput: each number worked out by hand from the formulas in
// docs/cost.md, and the Llama 3 reliability reference point.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "gpucalc/api.hpp"
#include "gpucalc/cost.hpp"
#include "gpucalc/goodput.hpp"
#include "gpucalc/quick_estimate.hpp"
#include "gpucalc/scenario.hpp"
#include "source_file.hpp"

using namespace gpucalc;
using json = nlohmann::ordered_json;

namespace {

std::string read(const std::string& rel) { return read_source_file(rel); }

json value_of(const std::string& envelope) {
  const json env = json::parse(envelope);
  INFO(envelope.substr(0, 400));
  REQUIRE(env["ok"] == true);
  return env["value"];
}

// A number as the core's texts print days: one decimal.
std::string fmt1(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// The example scenario (70B, 15T tokens, H100, 60 days) with `patch` merged in.
std::string example_with(const json& patch) {
  json s = json::parse(read("examples/llama-3.1-70b-h100.json"));
  s.merge_patch(patch);
  return s.dump();
}

const Gpu& gpu(const char* id) {
  const Gpu* g = find_gpu(id);
  REQUIRE(g != nullptr);
  return *g;
}

}  // namespace

TEST_CASE("Llama 3: 466 interruptions in 54 days on 16,384 GPUs keep more than 90% effective time",
          "[goodput][llama3]") {
  // The default MTBF is Llama 3's: 16,384 × 54 × 24 h / 466 per GPU.
  CHECK(kDefaultMtbfHoursPerGpu == Approx(45565.80257510729).epsilon(1e-12));
  const GoodputInputs defaults;
  const Goodput g = goodput(defaults, 16384, 1000);
  // M = 45,565.8 / 16,384 h = 2.7811 h = 166.867 min; δ = 10 s; R = 5 min.
  CHECK(g.job_mtbf_hours * 60 == Approx(166.86695278969955).epsilon(1e-12));
  // Young: τ = sqrt(2 · (10/60) · 166.867) = 7.458 min.
  CHECK(g.interval_is_young_optimum);
  CHECK(g.interval_minutes == Approx(7.458037114185375).epsilon(1e-12));
  // (1 − (7.458/2 + 5)/166.867) / (1 + (10/60)/7.458) = 0.92697
  CHECK(g.fraction == Approx(0.9269734389632196).epsilon(1e-12));
  CHECK(g.fraction > 0.90);
  // Over 54 wall-clock days the job sees the 466 interruptions it was derived from.
  const Goodput w = goodput(defaults, 16384, 54 * 24 * g.fraction);
  CHECK(w.wall_days == Approx(54).epsilon(1e-12));
  CHECK(w.failures_expected == Approx(466).epsilon(1e-12));
}

TEST_CASE("Llama 3.1 405B on 16,384 H100 through the whole model keeps more than 90% goodput", "[goodput][llama3]") {
  const json v = value_of(evaluate_json(R"({"model":"llama-3.1-405b","gpu":"h100-sxm-80gb",
      "training":{"tokens":15.6e12,"seq_len":8192,"global_batch_tokens":16777216},"parallel":{"gpus":16384}})"));
  CHECK(v["plan"]["gpus"] == 16384);
  const json& g = v["goodput"];
  CHECK(g["fraction"].get<double>() == Approx(0.9269734389632196).epsilon(1e-12));
  CHECK(g["fraction"].get<double>() > 0.90);
  // Applied to days and GPU-hours: wall clock = failure-free / fraction.
  CHECK(g["days"].get<double>() == Approx(v["training"]["days"].get<double>() / 0.9269734389632196).epsilon(1e-12));
  CHECK(g["gpu_hours"].get<double>() ==
        Approx(v["training"]["gpu_hours"].get<double>() / 0.9269734389632196).epsilon(1e-12));
  CHECK(g["failures_expected"].get<double>() ==
        Approx(g["days"].get<double>() * 24 / (45565.80257510729 / 16384)).epsilon(1e-12));
}

TEST_CASE("goodput: a given checkpoint interval, write time and restart", "[goodput]") {
  GoodputInputs in;
  in.mtbf_hours = 1000;  // 100 GPUs → M = 10 h = 600 min
  in.checkpoint_interval_minutes = 60;
  in.checkpoint_write_seconds = 60;
  in.restart_minutes = 10;
  const Goodput g = goodput(in, 100, 100);
  CHECK_FALSE(g.interval_is_young_optimum);
  CHECK(g.lost_per_failure_minutes == Approx(40));   // 60/2 + 10
  CHECK(g.checkpoint_overhead == Approx(1.0 / 60));  // 1 min per 60
  CHECK(g.failure_loss == Approx(40.0 / 600));
  CHECK(g.fraction == Approx((1 - 40.0 / 600) / (1 + 1.0 / 60)).epsilon(1e-12));  // 0.918033
  CHECK(g.fraction == Approx(0.9180327868852459).epsilon(1e-12));
  CHECK(g.wall_hours == Approx(108.92857142857143).epsilon(1e-12));
  CHECK(g.failures_expected == Approx(10.892857142857142).epsilon(1e-12));
  CHECK(g.gpu_hours == Approx(10892.857142857143).epsilon(1e-12));

  // The whole job's rate instead of a per-GPU MTBF: 2.4 a day is M = 10 h at any count.
  GoodputInputs rate = in;
  rate.interruptions_per_day = 2.4;
  CHECK(goodput(rate, 7, 100).fraction == Approx(0.9180327868852459).epsilon(1e-12));

  // Failures faster than the job can redo its work: no progress, never a negative fraction.
  GoodputInputs bad = in;
  bad.mtbf_hours = 1;  // 100 GPUs → M = 0.6 min < 40 min lost per failure
  const Goodput b = goodput(bad, 100, 100);
  CHECK_FALSE(b.progress);
  CHECK(b.fraction == 0);
  CHECK(std::isinf(b.wall_hours));

  GoodputInputs off;
  off.enabled = false;
  const Goodput o = goodput(off, 100000, 100);
  CHECK(o.fraction == 1);
  CHECK(o.wall_hours == 100);
  CHECK(o.failures_expected == 0);
}

TEST_CASE("default prices: the most recent on-demand price, never a made-up one", "[cost][catalog]") {
  // H100: four on-demand USD prices; the most recent is the 2026-05-20 market median.
  auto h100 = default_rental_price(gpu("h100-sxm-80gb"), std::nullopt);
  REQUIRE(h100);
  CHECK(h100->value == 2.95);
  CHECK(h100->currency == Currency::usd);
  CHECK(h100->on_demand);
  CHECK(h100->catalog.date == "2026-05-20");
  CHECK(h100->catalog.source == "AIMULTIPLE");
  // MI300X: two on-demand prices of the same date; the first listed (TensorWave) stays.
  auto mi300x = default_rental_price(gpu("mi300x-192gb"), std::nullopt);
  REQUIRE(mi300x);
  CHECK(mi300x->value == 1.5);
  // A100 80GB: a [1.49, 2.49] range counts as its midpoint.
  auto a100 = default_rental_price(gpu("a100-sxm-80gb"), std::nullopt);
  REQUIRE(a100);
  CHECK(a100->range_midpoint);
  CHECK(a100->value == Approx(1.99));
  // H200: no on-demand price; the capacity-block price is the next rental.
  auto h200 = default_rental_price(gpu("h200-sxm-141gb"), std::nullopt);
  REQUIRE(h200);
  CHECK_FALSE(h200->on_demand);
  CHECK(h200->value == 5.408);
  // A800: no USD price; the 2026 index's 5.15 CNY is more recent than the 2023 [8, 12].
  auto a800 = default_rental_price(gpu("a800-sxm-80gb"), std::nullopt);
  REQUIRE(a800);
  CHECK(a800->currency == Currency::cny);
  CHECK(a800->value == 5.15);
  CHECK(a800->catalog.source == "HF-GPU-PRICE-INDEX");
  // H20: one CNY listing (7.5 per GPU-hour), low confidence.
  auto h20 = default_rental_price(gpu("h20-96gb"), std::nullopt);
  REQUIRE(h20);
  CHECK(h20->value == 7.5);
  CHECK(h20->catalog.confidence == "low");
  // H800: without a currency the USD price (DeepSeek's stated $2) comes first, in CNY the
  // 2026-07-15 bare-metal quote; neither is on-demand.
  auto h800 = default_rental_price(gpu("h800-sxm-80gb"), std::nullopt);
  REQUIRE(h800);
  CHECK(h800->value == 2.0);
  CHECK(h800->currency == Currency::usd);
  CHECK(h800->catalog.source == "DEEPSEEK-V3");
  CHECK_FALSE(h800->on_demand);
  // Ascend 910B: only CNY prices; the on-demand [3, 4] range beats the cheaper monthly rentals.
  auto a910b = default_rental_price(gpu("ascend-910b"), std::nullopt);
  REQUIRE(a910b);
  CHECK(a910b->currency == Currency::cny);
  CHECK(a910b->on_demand);
  CHECK(a910b->range_midpoint);
  CHECK(a910b->value == Approx(3.5));
  // No price where none is published.
  CHECK_FALSE(default_rental_price(gpu("b300-288gb"), std::nullopt));
  CHECK_FALSE(default_rental_price(gpu("hygon-k100-ai"), std::nullopt));
}

TEST_CASE("China parts' sourced prices: a server-month at 730 h, converted at the dated rate", "[cost][currency]") {
  const FxRate& fx = catalog_fx();
  REQUIRE(fx.date == "2025-09-23");
  // H800 in CNY: 云擎天下's 69,000 CNY per 8-GPU server-month / (8 × 730 h) = 11.8151 CNY (catalog, 4 places).
  auto h800 = default_rental_price(gpu("h800-sxm-80gb"), Currency::cny);
  REQUIRE(h800);
  CHECK_FALSE(h800->converted);
  CHECK(h800->value == Approx(69000.0 / (8 * 730)).epsilon(1e-5));
  CHECK(h800->catalog.date.rfind("2026-07-15", 0) == 0);
  CHECK(h800->catalog.source == "CMIS-DAILY");
  // Ascend 910B in USD: the 3.5 CNY midpoint / 7.1057 = 0.49256 USD per GPU-hour.
  auto usd = default_rental_price(gpu("ascend-910b"), Currency::usd);
  REQUIRE(usd);
  CHECK(usd->converted);
  CHECK(usd->native_value == Approx(3.5));
  CHECK(usd->value == Approx(3.5 / 7.1057).epsilon(1e-12));
  // Ascend 910C in USD: SMM's 62,000 CNY server-month / 5,840 card-hours = 10.6164 CNY → 1.49406 USD.
  auto c = default_rental_price(gpu("ascend-910c"), Currency::usd);
  REQUIRE(c);
  CHECK(c->value == Approx(62000.0 / (8 * 730) / 7.1057).epsilon(1e-5));
  // A CNY scenario prices every row of a comparison in yuan: H100's sourced 2.95 USD (AIMULTIPLE,
  // 2026-05-20) × 7.1057 = 20.9618 CNY; H800's and 910B's CNY prices are their own.
  const json v = value_of(
      compare_json(example_with({{"cost", {{"currency", "CNY"}}}}), "h100-sxm-80gb,h800-sxm-80gb,ascend-910b"));
  const json& rows = v["rows"];
  CHECK(rows[0]["cost"]["currency"] == "CNY");
  CHECK(rows[0]["cost"]["per_gpu_hour"].get<double>() == Approx(20.961815).epsilon(1e-9));
  CHECK(rows[0]["cost"]["price_source"]["converted"]["rate_date"] == "2025-09-23");
  CHECK(rows[1]["cost"]["per_gpu_hour"].get<double>() == Approx(11.8151));
  CHECK(rows[2]["cost"]["per_gpu_hour"].get<double>() == Approx(3.5));
  for (const auto& r : rows)
    CHECK(r["cost"]["total"].get<double>() ==
          Approx(r["cost"]["per_gpu_hour"].get<double>() * r["gpu_hours"].get<double>()).epsilon(1e-9));
}

TEST_CASE("currencies: a price in the other currency converts at the dated central parity", "[cost][currency]") {
  // data/currency.json: CFETS central parity 7.1057 CNY per USD on 2025-09-23.
  const FxRate& fx = catalog_fx();
  CHECK(fx.usd_cny == 7.1057);
  CHECK(fx.date == "2025-09-23");
  CHECK(convert(2.95, Currency::usd, Currency::cny, fx) == Approx(20.961815).epsilon(1e-12));
  CHECK(convert(7.1057, Currency::cny, Currency::usd, fx) == Approx(1.0).epsilon(1e-12));
  // H100 in CNY: its 2.95 USD default × 7.1057 = 20.96 CNY per GPU-hour.
  auto h100 = default_rental_price(gpu("h100-sxm-80gb"), Currency::cny);
  REQUIRE(h100);
  CHECK(h100->converted);
  CHECK(h100->currency == Currency::cny);
  CHECK(h100->native_value == 2.95);
  CHECK(h100->value == Approx(2.95 * 7.1057).epsilon(1e-12));
  // H20 in USD: 7.5 CNY / 7.1057 = 1.0555 USD.
  auto h20 = default_rental_price(gpu("h20-96gb"), Currency::usd);
  REQUIRE(h20);
  CHECK(h20->converted);
  CHECK(h20->value == Approx(7.5 / 7.1057).epsilon(1e-12));
  // A price listed in the currency asked for is never converted.
  auto a800 = default_rental_price(gpu("a800-sxm-80gb"), Currency::cny);
  REQUIRE(a800);
  CHECK_FALSE(a800->converted);
  // Through a scenario, with the scenario's own rate (cost.usd_cny).
  const json v = value_of(evaluate_json(example_with({{"cost", {{"currency", "CNY"}, {"usd_cny", 7.0}}}})));
  CHECK(v["cost"]["currency"] == "CNY");
  CHECK(v["cost"]["per_gpu_hour"].get<double>() == Approx(2.95 * 7.0).epsilon(1e-12));
  CHECK(v["cost"]["price_source"]["converted"]["from_value"] == 2.95);
  CHECK(v["cost"]["price_source"]["converted"]["from_currency"] == "USD");
  CHECK(v["cost"]["price_source"]["converted"]["usd_cny"] == 7.0);
  // A rate outside 0.1-100 is an error naming the field.
  const json bad = json::parse(evaluate_json(example_with({{"cost", {{"usd_cny", 0}}}})));
  CHECK(bad["ok"] == false);
  CHECK(bad["error"]["path"] == "/cost/usd_cny");
}

TEST_CASE("energy: GPUs × TDP × (1 + host overhead) × PUE × hours", "[cost][energy]") {
  // Host overhead: 0.76 × 10.2 kW / (8 × 0.7 kW) − 1 = 0.384286.
  CHECK(kDefaultHostOverhead == Approx(0.38428571428571434).epsilon(1e-12));
  const EnergyInputs e;
  const Energy en = energy_use(e, gpu("h100-sxm-80gb"), 4096, 1000);
  REQUIRE(en.known);
  CHECK(en.watts_per_gpu == 700);
  // 4096 × 0.7 kW × 1.384286 × 1.56 = 6,191.68 kW; × 1000 h = 6,191.68 MWh.
  CHECK(en.facility_kw == Approx(6191.67744).epsilon(1e-12));
  CHECK(en.mwh == Approx(6191.67744).epsilon(1e-12));
  CHECK(en.co2_tonnes == Approx(6191.67744 * 0.480).epsilon(1e-12));
  // A power cap replaces the TDP.
  Gpu capped = gpu("h100-sxm-80gb");
  capped.power_limit_w = Spec{500.0, "scenario", "user"};
  CHECK(energy_use(e, capped, 4096, 1000).mwh == Approx(6191.67744 * 500 / 700).epsilon(1e-12));
  // Unknown power: no energy rather than a guess.
  CHECK_FALSE(energy_use(e, gpu("hygon-k100-ai"), 8, 1).known);
}

TEST_CASE("owned cluster: amortised purchase plus electricity", "[cost][owned]") {
  CostModel cm;
  cm.mode = CostMode::owned;
  cm.currency = Currency::usd;
  cm.owned = OwnedCluster{30000, 4, 0.10};
  cm.energy.host_overhead = 0.5;
  cm.energy.pue = 1.2;
  const auto c = run_cost(cm, gpu("h100-sxm-80gb"), 1024, 1000);
  REQUIRE(c);
  // 1024 × 30,000 × 1000 h / (4 × 8766 h) = 876,112.25
  CHECK(c->purchase_amortized == Approx(876112.2518822724).epsilon(1e-12));
  // 1024 × 0.7 kW × 1.5 × 1.2 × 1000 h = 1,290,240 kWh × 0.10 = 129,024
  CHECK(c->electricity == Approx(129024).epsilon(1e-12));
  CHECK(c->total == Approx(1005136.2518822724).epsilon(1e-12));
  CHECK(c->per_gpu_hour == Approx(1005136.2518822724 / 1024000).epsilon(1e-12));
}

TEST_CASE("a rented run costs price × GPUs × wall-clock hours, with its price's source", "[cost]") {
  const json v = value_of(evaluate_json(example_with({{"cost", {{"price_per_gpu_hour", 2.0}}}})));
  const json& c = v["cost"];
  CHECK(c["currency"] == "USD");
  CHECK(c["per_gpu_hour"] == 2.0);
  CHECK(c["gpu_hours"].get<double>() == Approx(v["goodput"]["gpu_hours"].get<double>()).epsilon(1e-12));
  CHECK(c["total"].get<double>() == Approx(2.0 * v["goodput"]["gpu_hours"].get<double>()).epsilon(1e-12));
  CHECK(c["parts"]["gpu_rental"] == c["total"]);
  CHECK(c["price_source"]["kind"] == "scenario");
  // Without a price, the catalog's dated default, named in the output.
  const json d = value_of(evaluate_json(read("examples/llama-3.1-70b-h100.json")));
  CHECK(d["cost"]["per_gpu_hour"] == 2.95);
  CHECK(d["cost"]["price_source"]["kind"] == "catalog");
  CHECK(d["cost"]["price_source"]["date"] == "2026-05-20");
  CHECK(d["cost"]["price_source"]["source"] == "AIMULTIPLE");
  CHECK(d["cost"]["total"].get<double>() == Approx(2.95 * d["goodput"]["gpu_hours"].get<double>()).epsilon(1e-12));
  // Energy over the same wall-clock hours.
  const double hours = d["goodput"]["days"].get<double>() * 24;
  CHECK(d["energy"]["mwh"].get<double>() ==
        Approx(4096 * 0.7 * (1 + kDefaultHostOverhead) * 1.56 * hours / 1000).epsilon(1e-12));
}

TEST_CASE("no public price: cost is null with a warning, never a made-up number", "[cost]") {
  const json v = value_of(evaluate_json(example_with({{"gpu", "b300-288gb"}})));
  CHECK(v["cost"].is_null());
  CHECK(v["energy"]["mwh"].get<double>() > 0);
  bool warned = false;
  for (const auto& w : v["warnings"])
    warned = warned || w["message"].get<std::string>().rfind("cost is null: no public rental price", 0) == 0;
  CHECK(warned);
  // Not in either currency: no conversion makes one up.
  const json cny = value_of(evaluate_json(example_with({{"gpu", "b300-288gb"}, {"cost", {{"currency", "CNY"}}}})));
  CHECK(cny["cost"].is_null());
  // The scenario's own price fills the gap, in its currency.
  const json own = value_of(
      evaluate_json(example_with({{"gpu", "h20-96gb"}, {"cost", {{"price_per_gpu_hour", 9.5}, {"currency", "CNY"}}}})));
  CHECK(own["cost"]["currency"] == "CNY");
  CHECK(own["cost"]["total"].get<double>() == Approx(9.5 * own["goodput"]["gpu_hours"].get<double>()).epsilon(1e-12));
}

TEST_CASE("an owned cluster through a scenario: TCO parts add up", "[cost][owned]") {
  const json v = value_of(evaluate_json(example_with({{"cost",
                                                       {{"owned",
                                                         {{"purchase_price_per_gpu", 25000},
                                                          {"amortization_years", 5},
                                                          {"electricity_price_per_kwh", 0.08},
                                                          {"pue", 1.2},
                                                          {"host_overhead", 0.3}}}}}})));
  const json& c = v["cost"];
  const double gpu_hours = v["goodput"]["gpu_hours"];
  const double hours = v["goodput"]["days"].get<double>() * 24;
  CHECK(c["mode"] == "owned");
  CHECK(c["parts"]["purchase_amortized"].get<double>() == Approx(gpu_hours * 25000 / (5 * 8766.0)).epsilon(1e-12));
  const double kwh = 4096 * 0.7 * 1.3 * 1.2 * hours;
  CHECK(v["energy"]["mwh"].get<double>() == Approx(kwh / 1000).epsilon(1e-12));
  CHECK(c["parts"]["electricity"].get<double>() == Approx(kwh * 0.08).epsilon(1e-12));
  CHECK(c["total"].get<double>() == Approx(gpu_hours * 25000 / (5 * 8766.0) + kwh * 0.08).epsilon(1e-12));
  // CO2 from the scenario's grid intensity.
  const json g = value_of(evaluate_json(example_with({{"cost", {{"grid_kg_co2_per_kwh", 0.5703}}}})));
  CHECK(g["energy"]["co2_tonnes"].get<double>() == Approx(g["energy"]["mwh"].get<double>() * 0.5703).epsilon(1e-12));
}

TEST_CASE("the rule of thumb with its arithmetic corrected", "[quick_estimate]") {
  // The article's example: 70B × 20 / (80 GB × 0.8) = 21.875, not 175.
  const QuickEstimate q = quick_estimate(70e9, 80, 0.8);
  CHECK(q.gpus_raw == Approx(21.875));
  CHECK(q.gpus == 22);
  const json v = value_of(evaluate_json(read("examples/llama-3.1-70b-h100.json")));
  const json& e = v["quick_estimate"];
  // Llama 3.1 70B: 70.5537B × 20 / 64 = 22.048 → 23, beside the full answer's 4,096.
  CHECK(e["gpus_raw"].get<double>() == Approx(70.553706496 * 20 / 64).epsilon(1e-12));
  CHECK(e["gpus"] == 23);
  const std::string text = e["explanation"];
  CHECK(text.find("21.9") != std::string::npos);
  CHECK(text.find("4,096 GPUs") != std::string::npos);
  const json half = value_of(evaluate_json(example_with({{"assume", {{"cluster_efficiency", 0.5}}}})));
  CHECK(half["quick_estimate"]["gpus_raw"].get<double>() == Approx(70.553706496 * 20 / 40).epsilon(1e-12));
  // Why the full answer differs: met (compute), missed (it says so and gives the days
  // with failures, not "must finish within"), and an adapter fine-tune (far below 20 B).
  CHECK(e["why"]["code"] == "estimate_compute");
  const json missed = value_of(evaluate_json(example_with({{"gpu", "h20-96gb"}})));
  REQUIRE(missed["search"]["target_met"] == false);
  CHECK(missed["quick_estimate"]["why"]["code"] == "estimate_missed");
  CHECK(missed["quick_estimate"]["why"]["params"]["days"] == fmt1(missed["goodput"]["days"].get<double>()));
  json adapter = json::parse(read("examples/lora-qwen2.5-72b-8xh100.json"));
  adapter.erase("parallel");  // the GPU count open: the fewest that fit
  const json lora = value_of(evaluate_json(adapter.dump()));
  REQUIRE(lora["plan"]["gpus"].get<int>() < lora["quick_estimate"]["gpus"].get<int>());
  CHECK(lora["quick_estimate"]["why"]["code"] == "estimate_adapter");
  // Called directly with a vanishing memory (the fuzzer's 9.6e-318 GiB, which the scenario
  // reader now refuses): the ratio overflows to infinity, and the count stops at 10^15
  // instead of an undefined cast.
  const QuickEstimate tiny = quick_estimate(8e9, 961e-320 * 1.073741824, 0.8);
  CHECK(tiny.gpus_raw == 1e15);
  CHECK(tiny.gpus == 1000000000000000);
}

TEST_CASE("the cheapest plan that finishes in 60 days", "[cost][search]") {
  const std::string sc = example_with({{"target", {{"days", 60}, {"objective", "cost"}}}});
  const json v = value_of(search_json(sc, 0));
  REQUIRE(v["best"]["cost"].is_object());
  const double chosen = v["best"]["cost"]["total"];
  CHECK(v["search"]["objective"] == "cost");
  CHECK(v["search"]["target_met"] == true);
  CHECK(v["best"]["goodput"]["days"].get<double>() <= 60);
  // No point of the curve that meets the deadline is cheaper, and each point's cost is
  // the price × its wall-clock GPU-hours.
  int meeting = 0;
  for (const auto& pt : v["curve"]) {
    if (pt["goodput_days"].is_null()) {  // failures outpace progress at the largest counts
      CHECK(pt["cost"].is_null());
      continue;
    }
    const double wall = pt["goodput_days"];
    REQUIRE(pt["cost"].is_number());
    CHECK(pt["cost"].get<double>() == Approx(2.95 * wall * 24 * pt["gpus"].get<double>()).epsilon(1e-9));
    if (wall <= 60) {
      ++meeting;
      CHECK(pt["cost"].get<double>() >= chosen * (1 - 1e-12));
    }
  }
  CHECK(meeting > 1);
  // evaluate agrees with search.
  const json e = value_of(evaluate_json(sc));
  CHECK(e["plan"] == v["best"]["plan"]);
  // objective days: the fastest plan; with a budget, the fastest within it.
  const json fast = value_of(evaluate_json(example_with({{"target", {{"days", 60}, {"objective", "days"}}}})));
  CHECK(fast["goodput"]["days"].get<double>() <= e["goodput"]["days"].get<double>());
  const double budget = chosen * 1.5;
  const json capped =
      value_of(evaluate_json(example_with({{"target", {{"days", 60}, {"objective", "days"}, {"max_cost", budget}}}})));
  CHECK(capped["search"]["max_cost_met"] == true);
  CHECK(capped["cost"]["total"].get<double>() <= budget);
  // A budget nothing meets: the cheapest plan that meets the deadline, with a warning.
  const json broke = value_of(evaluate_json(example_with({{"target", {{"days", 60}, {"max_cost", 1000}}}})));
  CHECK(broke["search"]["max_cost_met"] == false);
  CHECK(broke["plan"] == e["plan"]);
  bool warned = false;
  for (const auto& w : broke["warnings"])
    warned = warned || w["message"].get<std::string>().rfind("target.max_cost", 0) == 0;
  CHECK(warned);
}

TEST_CASE("compare rows say whose efficiencies, and whether measured", "[compare]") {
  // H100 its own measurement; H800 H100's (an alias); GB300 its own, derived from B300's and
  // B200's measurements; Ascend 910C the default profile.
  const json v = value_of(
      compare_json(read("examples/llama-3.1-70b-h100.json"), "h100-sxm-80gb,h800-sxm-80gb,gb300-279gb,ascend-910c"));
  const json& rows = v["rows"];
  REQUIRE(rows.size() == 4);
  const std::vector<std::string> profiles{"h100-sxm-80gb", "h100-sxm-80gb", "gb300-279gb", "default"};
  const std::vector<bool> measured{true, true, false, false};
  for (size_t i = 0; i < rows.size(); ++i) {
    INFO(rows[i]["gpu"]["id"]);
    CHECK(rows[i]["perf_profile"] == profiles[i]);
    CHECK(rows[i]["perf_profile_measured"] == measured[i]);
  }
}

TEST_CASE("compare: one row per accelerator, prices per accelerator", "[compare]") {
  const json v = value_of(compare_json(read("examples/llama-3.1-70b-h100.json"),
                                       "h100-sxm-80gb, h20-96gb,h800-sxm-80gb,ascend-910b,mi300x-192gb"));
  const json& rows = v["rows"];
  REQUIRE(rows.size() == 5);
  CHECK(rows[0]["gpu"]["id"] == "h100-sxm-80gb");
  CHECK(rows[4]["gpu"]["id"] == "mi300x-192gb");
  // Each row is exactly what evaluate answers for that accelerator.
  const json h20 = value_of(evaluate_json(example_with({{"gpu", "h20-96gb"}})));
  CHECK(rows[1]["gpus"] == h20["plan"]["gpus"]);
  CHECK(rows[1]["days"] == h20["training"]["days"]);
  CHECK(rows[1]["goodput_days"] == h20["goodput"]["days"]);
  CHECK(rows[1]["memory"]["used_bytes"] == h20["memory"]["total_bytes"]);
  // H20's only public price is 7.5 CNY: converted at 7.1057 CNY per USD for this USD scenario.
  CHECK(rows[1]["cost"]["per_gpu_hour"].get<double>() == Approx(7.5 / 7.1057).epsilon(1e-12));
  // H800's own USD price: DeepSeek's stated $2 per GPU-hour (2024-12-27).
  CHECK(rows[2]["cost"]["per_gpu_hour"] == 2.0);
  // Ascend 910B's 3.5 CNY (the midpoint of an on-demand [3, 4]) converted: 3.5 / 7.1057.
  CHECK(rows[3]["cost"]["per_gpu_hour"].get<double>() == Approx(3.5 / 7.1057).epsilon(1e-12));
  CHECK(rows[0]["cost"]["per_gpu_hour"] == 2.95);
  CHECK(rows[4]["cost"]["per_gpu_hour"] == 1.5);
  for (const auto& r : rows) {
    CHECK(r["ok"] == true);
    CHECK(r["energy"]["mwh"].get<double>() > 0);
    // Met where the row's wall-clock days (failures and restarts included) are within 60.
    CHECK(r["target_met"] == (r["goodput_days"].get<double>() <= 60.0));
  }
  CHECK(v["summary"]["cheapest"].is_string());
  // The scenario's own price is its accelerator's, not every row's.
  const json p = value_of(
      compare_json(example_with({{"cost", {{"price_per_gpu_hour", 2.0}}}}), "h100-sxm-80gb,h20-96gb,mi300x-192gb"));
  CHECK(p["rows"][0]["cost"]["per_gpu_hour"] == 2.0);
  CHECK(p["rows"][1]["cost"]["per_gpu_hour"].get<double>() ==
        Approx(7.5 / 7.1057).epsilon(1e-12));  // its catalog default
  CHECK(p["rows"][2]["cost"]["per_gpu_hour"] == 1.5);
  // Bad lists name /gpu.
  for (const char* ids : {"h100-sxm-80gb,h999", "h100-sxm-80gb,,h20-96gb", "h20-96gb,h20-96gb", ""}) {
    const json env = json::parse(compare_json(read("examples/llama-3.1-70b-h100.json"), ids));
    INFO(ids);
    CHECK(env["ok"] == false);
    CHECK(env["error"]["path"] == "/gpu");
  }
  // A bad scenario is refused as evaluate refuses it.
  const json bad = json::parse(compare_json(R"({"model":"llama-3.1-8b"})", "h100-sxm-80gb"));
  CHECK(bad["error"]["path"] == "/gpu");
  // An accelerator without the figures the model needs is a row error, not a failure.
  const json unknown = value_of(compare_json(read("examples/llama-3.1-70b-h100.json"), "h100-sxm-80gb,kunlunxin-p800"));
  CHECK(unknown["rows"][0]["ok"] == true);
  CHECK(unknown["rows"][1]["ok"] == false);
  CHECK(unknown["rows"][1]["error"]["path"] == "/gpu/memory_gib");
}

// The summary answers the question asked: a card that misses the deadline is not the
// "cheapest" or the one with the "fewest GPUs" (a 4090 cluster taking 300 of 30 days was
// both before). Llama 3.1 70B, 2T tokens in 30 days, CNY.
TEST_CASE("compare: the summary ranks only rows that meet target.days", "[compare]") {
  const auto ranked = [](const json& v, const std::string& field) -> const json* {
    for (const auto& r : v["rows"])
      if (v["summary"][field].is_string() && r["gpu"]["id"] == v["summary"][field]) return &r;
    return nullptr;
  };
  const json patch = {{"training", {{"tokens", 2e12}}}, {"target", {{"days", 30}}}, {"cost", {{"currency", "CNY"}}}};
  const json v = value_of(compare_json(example_with(patch), "h100-sxm-80gb,rtx-4090-24gb,l40s-48gb,ascend-910b"));
  const json& rows = v["rows"];
  // The RTX 4090 and L40S miss 30 days; their costs are lower than the rows that meet it.
  for (const auto& r : rows) {
    INFO(r["gpu"]["id"]);
    if (r["gpu"]["id"] == "rtx-4090-24gb" || r["gpu"]["id"] == "l40s-48gb") CHECK(r["target_met"] == false);
  }
  for (const char* field : {"fewest_gpus", "cheapest", "least_energy"}) {
    INFO(field);
    const json* r = ranked(v, field);
    REQUIRE(r != nullptr);
    CHECK((*r)["target_met"] == true);
  }
  // The cheapest is the lowest total among the rows that meet the deadline.
  double lowest = std::numeric_limits<double>::infinity();
  for (const auto& r : rows)
    if (r["ok"] == true && r["target_met"] == true) lowest = std::min(lowest, r["cost"]["total"].get<double>());
  CHECK((*ranked(v, "cheapest"))["cost"]["total"].get<double>() == lowest);
  // No row meets a 1-day deadline: nothing is ranked but the fastest, the nearest to it.
  const json patch3 = {{"training", {{"tokens", 2e12}}}, {"target", {{"days", 1}}}, {"cost", {{"currency", "CNY"}}}};
  const json none = value_of(compare_json(example_with(patch3), "h100-sxm-80gb,rtx-4090-24gb,ascend-910b"));
  for (const auto& r : none["rows"]) CHECK(r["target_met"] == false);
  CHECK(none["summary"]["fewest_gpus"].is_null());
  CHECK(none["summary"]["cheapest"].is_null());
  CHECK(none["summary"]["least_energy"].is_null());
  double fastest = std::numeric_limits<double>::infinity();
  for (const auto& r : none["rows"]) fastest = std::min(fastest, r["goodput_days"].get<double>());
  CHECK((*ranked(none, "fastest"))["goodput_days"].get<double>() == fastest);
}

TEST_CASE("catalogs print as JSON with what the core derives", "[catalog]") {
  const json g = value_of(catalog_json("gpus"));
  REQUIRE(g["gpus"].size() == 34);
  CHECK(g["sources"].is_object());
  for (const auto& e : g["gpus"]) {
    if (e["id"] == "h100-sxm-80gb") CHECK(e["default_price"]["value"] == 2.95);
    if (e["id"] == "h20-96gb") CHECK(e["default_price"]["value"] == 7.5);
    if (e["id"] == "h800-sxm-80gb") CHECK(e["default_price"]["value"] == 2.0);
    if (e["id"] == "ascend-910b") CHECK(e["default_price"]["value"] == 3.5);
    if (e["id"] == "b300-288gb") CHECK(e["default_price"].is_null());
    if (e["id"] == "h100-sxm-80gb") CHECK(e["missing_specs"].empty());
    if (e["id"] == "cambricon-mlu590") CHECK(e["missing_specs"].size() == 7);
  }
  const json m = value_of(catalog_json("models"));
  REQUIRE(m["models"].size() == 47);  // 33 dense + 14 MoE
  for (const auto& e : m["models"]) {
    if (e["id"] == "llama-3.1-70b") CHECK(e["params"] == 70553706496);
    if (e["id"] == "llama-3.1-70b") CHECK(e["active_params"] == 70553706496);
    if (e["id"] == "mixtral-8x7b") CHECK(e["active_params"] == 12879925248);
  }
  CHECK(json::parse(catalog_json("tpus"))["ok"] == false);
}

TEST_CASE("per-accelerator prices price each row of a comparison", "[cost][compare]") {
  // cost.prices_per_gpu_hour: the scenario's own GPU takes price_per_gpu_hour, the others
  // their entry in the map; a GPU in neither falls back to its catalog default.
  const std::string s = R"({"model": "llama-3.1-8b", "gpu": "h100-sxm-80gb",
    "training": {"tokens": 1e11, "seq_len": 4096}, "parallel": {"gpus": 64},
    "cost": {"price_per_gpu_hour": 3.0, "prices_per_gpu_hour": {"h20-96gb": 1.6}}})";
  const json r = json::parse(compare_json(s, "h100-sxm-80gb,h20-96gb,a100-sxm-80gb"));
  REQUIRE(r["ok"] == true);
  const json& rows = r["value"]["rows"];
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]["cost"]["per_gpu_hour"].get<double>() == Approx(3.0));
  CHECK(rows[1]["cost"]["per_gpu_hour"].get<double>() == Approx(1.6));
  const Gpu* a100 = find_gpu("a100-sxm-80gb");
  REQUIRE(a100);
  const auto def = default_rental_price(*a100, std::nullopt);
  REQUIRE(def);
  CHECK(rows[2]["cost"]["per_gpu_hour"].get<double>() == Approx(def->value));
  // The cost is the price times the billed (wall-clock) GPU-hours.
  CHECK(rows[1]["cost"]["total"].get<double>() ==
        Approx(1.6 * rows[1]["cost"]["gpu_hours"].get<double>()).epsilon(1e-9));
  // The same map prices a plain evaluate on that GPU.
  const json e = json::parse(evaluate_json(R"({"model": "llama-3.1-8b", "gpu": "h20-96gb",
    "training": {"tokens": 1e11, "seq_len": 4096}, "parallel": {"gpus": 64},
    "cost": {"prices_per_gpu_hour": {"h20-96gb": 1.6}}})"));
  REQUIRE(e["ok"] == true);
  CHECK(e["value"]["cost"]["per_gpu_hour"].get<double>() == Approx(1.6));
}
