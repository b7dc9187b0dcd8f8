// `gpucalc catalog gpus|models`: the embedded data files as JSON, each entry with what
// the core derives from it (the default rental price, the counted parameters).
#include <string>

#include <nlohmann/json.hpp>

#include "embedded.hpp"
#include "gpucalc/cost.hpp"
#include "gpucalc/message.hpp"
#include "gpucalc/report.hpp"
#include "json_input.hpp"
#include "json_writer.hpp"

namespace gpucalc {
namespace {

using nlohmann::ordered_json;

ordered_json default_price_json(const Gpu& g) {
  const auto rp = default_rental_price(g, std::nullopt);
  if (!rp) return ordered_json(nullptr);
  ordered_json j;
  j["value"] = rp->value;
  j["currency"] = to_string(rp->currency);
  j["rule"] =
      rp->on_demand ? "most recent on-demand price per GPU-hour" : "no on-demand price: most recent other rental price";
  if (rp->range_midpoint) j["range"] = {*rp->catalog.value, *rp->catalog.value_max};
  j["type"] = rp->catalog.type;
  j["date"] = rp->catalog.date;
  j["source"] = rp->catalog.source;
  j["confidence"] = rp->catalog.confidence;
  return j;
}

// The data file with each entry completed, or why not.
Expected<ordered_json> catalog_document(std::string_view kind) {
  if (kind == "gpus") {
    ordered_json doc = input::embedded_document(data::gpus_json());
    auto list = doc.find("gpus");
    if (list == doc.end() || !list->is_array())
      return coded_error("", "catalog_malformed", "the embedded {catalog} catalog is malformed", {{"catalog", "GPU"}});
    for (auto& e : *list) {
      auto id = e.find("id");
      const Gpu* g = (id != e.end() && id->is_string()) ? find_gpu(id->get<std::string>()) : nullptr;
      e["default_price"] = g ? default_price_json(*g) : ordered_json(nullptr);
      e["missing_specs"] = g ? ordered_json(missing_specs(*g)) : ordered_json(nullptr);
    }
    return doc;
  }
  if (kind == "models") {
    ordered_json doc = input::embedded_document(data::models_json());
    auto list = doc.find("models");
    if (list == doc.end() || !list->is_array())
      return coded_error("", "catalog_malformed", "the embedded {catalog} catalog is malformed",
                         {{"catalog", "model"}});
    for (auto& e : *list) {
      auto id = e.find("id");
      const ModelShape* m = (id != e.end() && id->is_string()) ? find_model(id->get<std::string>()) : nullptr;
      e["params"] = m ? ordered_json(count_params(*m).total) : ordered_json(nullptr);
      e["active_params"] = m ? ordered_json(count_params(*m).active) : ordered_json(nullptr);
    }
    return doc;
  }
  return coded_error("", "unknown_catalog", "unknown catalog \"{got}\" (known: gpus, models)",
                     {{"got", std::string(kind)}});
}

}  // namespace

Expected<std::string> catalog_report(std::string_view kind) {
  Expected<ordered_json> doc = catalog_document(kind);
  if (!doc) return doc.error();
  JsonWriter w;
  w.document(*doc);
  return w.take();
}

}  // namespace gpucalc
