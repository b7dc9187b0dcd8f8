// Money and energy of a training run: rented GPU-hours at a dated catalog or scenario
// price, or an owned cluster's cost of ownership (amortised purchase + electricity), and
// the energy and CO2 of the run (docs/cost.md).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "gpucalc/error.hpp"
#include "gpucalc/hardware.hpp"

namespace gpucalc {

enum class Currency { usd, cny };
const char* to_string(Currency c);

// The exchange rate every cost converts with: CNY per USD, dated, with its source
// (data/currency.json, or the scenario's cost.usd_cny).
struct FxRate {
  double usd_cny = 0;
  std::string date;
  std::string source;
  std::string confidence;
  bool from_scenario = false;
};
const FxRate& catalog_fx();
// An amount in `from` expressed in `to` at the rate.
double convert(double amount, Currency from, Currency to, const FxRate& fx);

// Host overhead: the power of everything in a node besides its GPUs (CPUs, DRAM, NICs,
// NVSwitches, fans, PSU losses) as a fraction of the GPUs' board power. Measured: an
// 8 × H100 node under AI training draws 76% of its 10.2 kW rating, 7.75 kW (Brookhaven,
// arXiv:2506.14551, 2025), against 8 × 700 W = 5.6 kW of GPU TDP: 7.75 / 5.6 − 1 = 0.38.
inline constexpr double kDefaultHostOverhead = 0.76 * 10.2 / (8 * 0.7) - 1;
// Power usage effectiveness, facility power / IT power: the industry average of the
// Uptime Institute Global Data Center Survey 2024 (1.56; 1.58 in 2023).
inline constexpr double kDefaultPue = 1.56;
// Grid carbon intensity: the world average of electricity generation in 2023, 480 gCO2
// per kWh (Ember, Global Electricity Review 2024).
inline constexpr double kDefaultGridKgCo2PerKwh = 0.480;
// Amortisation converts years to hours at 365.25 days per year.
inline constexpr double kHoursPerYear = 365.25 * 24;

// Facility and grid assumptions (scenario `energy`, or `cost.owned` / `cost`).
struct EnergyInputs {
  double host_overhead = kDefaultHostOverhead;
  double pue = kDefaultPue;
  double grid_kg_co2_per_kwh = kDefaultGridKgCo2PerKwh;
  bool host_overhead_default = true, pue_default = true, grid_default = true;
};

// A rental price per GPU-hour and where it came from.
struct RentalPrice {
  double value = 0;
  Currency currency = Currency::usd;
  bool from_scenario = false;
  bool per_accelerator = false;  // from cost.prices_per_gpu_hour, keyed by this GPU's catalog id
  bool range_midpoint = false;   // the catalog gives a [low, high] range: its midpoint
  bool on_demand = false;        // the catalog entry is an on-demand price
  Price catalog;                 // the data/gpus.json entry, when not from the scenario
  // The catalog lists no price in the currency asked for: `value` is the catalog's price
  // (native_value, in native_currency) converted at the FxRate.
  bool converted = false;
  double native_value = 0;
  Currency native_currency = Currency::usd;
};

// The default rental price of g from its catalog `prices` (docs/cost.md "Default
// prices"): among per-GPU-hour (or per-chip-hour) prices in the currency asked for — or,
// when none is asked for, USD and failing that CNY — an on-demand price before any other
// rental (capacity blocks, serverless, rental markets); then the most recent date; then
// the first listed. A [low, high] range counts as its midpoint. When a currency is asked
// for and the GPU has prices only in the other one, that price converted at `fx`. Empty
// when there is none: never a made-up number.
std::optional<RentalPrice> default_rental_price(const Gpu& g, std::optional<Currency> currency,
                                                const FxRate& fx = catalog_fx());

enum class CostMode { rented, owned };

struct OwnedCluster {
  double purchase_price_per_gpu = 0;  // in CostModel::currency
  double amortization_years = 0;
  double electricity_price_per_kwh = 0;  // in CostModel::currency
};

// What a run is priced from, resolved from the scenario and the catalog when the scenario
// is read.
struct CostModel {
  CostMode mode = CostMode::rented;
  std::optional<Currency> currency;   // the scenario's cost.currency
  std::optional<RentalPrice> rental;  // rented: empty when no price is known
  std::optional<OwnedCluster> owned;  // owned: empty when its purchase price does not apply
  Message unpriced;                   // why the run has no cost, when it has none (empty code: priced)
  EnergyInputs energy;
  FxRate fx = catalog_fx();  // for prices listed in the other currency
};

struct Energy {
  bool known = false;        // false when the GPU's power is unknown
  double watts_per_gpu = 0;  // gpu.power_limit_w when set, else gpu.tdp_w
  bool from_power_limit = false;
  double facility_kw = 0;  // GPUs × W × (1 + host_overhead) × PUE / 1000
  double hours = 0;
  double mwh = 0;
  double co2_tonnes = 0;  // mwh × grid kg/kWh (MWh × kg/kWh = t)
};

// Facility energy of n GPUs running for `hours` (wall clock, failures included):
//   E = GPUs × W × (1 + host_overhead) × PUE × hours
// with W the board power cap or TDP, at full power the whole time (the GPU's rated
// power, as the Llama 3.1 model card's 39.3M GPU-hour accounting at 700 W; the host
// overhead is calibrated to the measured node power, so it also absorbs GPUs running
// below TDP).
Energy energy_use(const EnergyInputs& e, const Gpu& g, int64_t gpus, double hours);

struct RunCost {
  CostMode mode = CostMode::rented;
  Currency currency = Currency::usd;
  double total = 0;
  double per_gpu_hour = 0;        // total / gpu_hours
  double gpu_hours = 0;           // GPUs × wall-clock hours
  double rental = 0;              // rented: price × GPU-hours
  double purchase_amortized = 0;  // owned: GPUs × purchase × hours / (years × 8766 h)
  double electricity = 0;         // owned: MWh × 1000 × price per kWh
};

// The run's cost, or empty when no price is known (or, owned, when the GPU's power is).
//  rented: total = price per GPU-hour × GPUs × hours (power and facility are in the price)
//  owned:  total = GPUs × purchase × hours / (amortization_years × 8766)
//                + GPUs × W × (1 + host_overhead) × PUE × hours / 1000 × price per kWh
std::optional<RunCost> run_cost(const CostModel& c, const Gpu& g, int64_t gpus, double hours);

}  // namespace gpucalc
