// The USD↔CNY rate costs convert with (data/currency.json, docs/cost.md "Currencies").
#include <nlohmann/json.hpp>

#include "embedded.hpp"
#include "gpucalc/cost.hpp"
#include "json_input.hpp"

namespace gpucalc {

const FxRate& catalog_fx() {
  static const FxRate fx = [] {
    FxRate r;
    const auto doc = input::embedded_document(data::currency_json());
    if (!doc.is_object() || !doc.contains("usd_cny") || !doc["usd_cny"].is_object()) return r;
    const auto& u = doc["usd_cny"];
    if (u.contains("value") && u["value"].is_number()) r.usd_cny = u["value"].get<double>();
    r.date = u.value("date", "");
    r.source = u.value("source", "");
    r.confidence = u.value("confidence", "low");
    return r;
  }();
  return fx;
}

double convert(double amount, Currency from, Currency to, const FxRate& fx) {
  if (from == to) return amount;
  return from == Currency::usd ? amount * fx.usd_cny : amount / fx.usd_cny;
}

}  // namespace gpucalc
