#include "gpucalc/cost.hpp"

#include <array>
#include <cctype>
#include <string_view>

namespace gpucalc {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool contains_ci(std::string_view s, std::string_view needle) {
  if (needle.size() > s.size()) return false;
  for (size_t i = 0; i + needle.size() <= s.size(); ++i) {
    bool eq = true;
    for (size_t j = 0; j < needle.size() && eq; ++j)
      eq = std::tolower(static_cast<unsigned char>(s[i + j])) == std::tolower(static_cast<unsigned char>(needle[j]));
    if (eq) return true;
  }
  return false;
}

// The first date in a catalog date string ("2026-05-07", "~2026 (...)", "early 2026",
// "valid until 2025-01-01 update", "pre-2025-06") as {year, month, day}, missing parts 0;
// {0, 0, 0} when there is none. A bare year sorts before any dated price of that year.
std::array<int, 3> date_key(std::string_view s) {
  const auto digits = [&](size_t at, size_t n) {
    if (at + n > s.size()) return -1;
    int v = 0;
    for (size_t k = 0; k < n; ++k) {
      const char c = s[at + k];
      if (c < '0' || c > '9') return -1;
      v = v * 10 + (c - '0');
    }
    return v;
  };
  for (size_t i = 0; i + 4 <= s.size(); ++i) {
    if (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') continue;
    const int y = digits(i, 4);
    if (y < 1990 || y > 2200) continue;
    if (i + 4 < s.size() && s[i + 4] >= '0' && s[i + 4] <= '9') continue;  // part of a longer number
    std::array<int, 3> k{y, 0, 0};
    if (i + 7 <= s.size() && s[i + 4] == '-' && digits(i + 5, 2) > 0) {
      k[1] = digits(i + 5, 2);
      if (i + 10 <= s.size() && s[i + 7] == '-' && digits(i + 8, 2) > 0) k[2] = digits(i + 8, 2);
    }
    return k;
  }
  return {0, 0, 0};
}

bool per_gpu_hour(const Price& p) {
  return starts_with(p.unit, "per GPU-hour") || starts_with(p.unit, "per chip-hour");
}

}  // namespace

const char* to_string(Currency c) { return c == Currency::cny ? "CNY" : "USD"; }

std::optional<RentalPrice> default_rental_price(const Gpu& g, std::optional<Currency> currency, const FxRate& fx) {
  const auto pick = [&](Currency want) -> std::optional<RentalPrice> {
    const Price* best = nullptr;
    int best_tier = 0;
    std::array<int, 3> best_date{};
    for (const Price& p : g.prices) {
      if (!p.value || p.currency != to_string(want) || !per_gpu_hour(p)) continue;
      const int tier = contains_ci(p.type, "on-demand") ? 0 : 1;
      const auto date = date_key(p.date);
      // Lower tier first; then the later date; on a tie the first listed stays.
      if (!best || tier < best_tier || (tier == best_tier && date > best_date)) {
        best = &p;
        best_tier = tier;
        best_date = date;
      }
    }
    if (!best) return std::nullopt;
    RentalPrice r;
    r.currency = want;
    r.catalog = *best;
    r.on_demand = best_tier == 0;
    r.range_midpoint = best->value_max.has_value();
    r.value = r.range_midpoint ? (*best->value + *best->value_max) / 2 : *best->value;
    return r;
  };
  if (currency) {
    if (auto own = pick(*currency)) return own;
    // Only the other currency is listed: its price, converted.
    const Currency other = *currency == Currency::usd ? Currency::cny : Currency::usd;
    auto r = pick(other);
    if (!r || !(fx.usd_cny > 0)) return std::nullopt;
    r->converted = true;
    r->native_value = r->value;
    r->native_currency = other;
    r->value = convert(r->value, other, *currency, fx);
    r->currency = *currency;
    return r;
  }
  if (auto usd = pick(Currency::usd)) return usd;
  return pick(Currency::cny);
}

Energy energy_use(const EnergyInputs& e, const Gpu& g, int64_t gpus, double hours) {
  Energy out;
  out.hours = hours;
  const Spec& w = g.power_limit_w.value ? g.power_limit_w : g.tdp_w;
  if (!w.value) return out;
  out.known = true;
  out.from_power_limit = g.power_limit_w.value.has_value();
  out.watts_per_gpu = *w.value;
  out.facility_kw = static_cast<double>(gpus) * out.watts_per_gpu * (1 + e.host_overhead) * e.pue / 1000;
  out.mwh = out.facility_kw * hours / 1000;
  out.co2_tonnes = out.mwh * e.grid_kg_co2_per_kwh;  // 1 MWh × 1 kg/kWh = 1000 kg = 1 t
  return out;
}

std::optional<RunCost> run_cost(const CostModel& c, const Gpu& g, int64_t gpus, double hours) {
  RunCost r;
  r.mode = c.mode;
  r.gpu_hours = static_cast<double>(gpus) * hours;
  if (c.mode == CostMode::rented) {
    if (!c.rental) return std::nullopt;
    r.currency = c.rental->currency;
    r.rental = c.rental->value * r.gpu_hours;
    r.total = r.rental;
  } else {
    if (!c.owned) return std::nullopt;
    const Energy e = energy_use(c.energy, g, gpus, hours);
    if (!e.known) return std::nullopt;
    r.currency = c.currency.value_or(Currency::usd);
    // Straight-line amortisation: the run uses hours / (years × 8766) of each GPU's life.
    r.purchase_amortized =
        r.gpu_hours * c.owned->purchase_price_per_gpu / (c.owned->amortization_years * kHoursPerYear);
    r.electricity = e.mwh * 1000 * c.owned->electricity_price_per_kwh;
    r.total = r.purchase_amortized + r.electricity;
  }
  r.per_gpu_hour = r.gpu_hours > 0 ? r.total / r.gpu_hours : 0;
  return r;
}

}  // namespace gpucalc
