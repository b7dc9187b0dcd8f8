// The parser agrees with data/scenario-schema.json on every field: a valid value is
// accepted, the wrong type and a value outside the range are refused at exactly that
// field's JSON pointer, and every object takes exactly the keys the schema lists (read
// from the parser's own "unknown field (expected one of: ...)" answer).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "gpucalc/scenario.hpp"
#include "source_file.hpp"

using namespace gpucalc;
using json = nlohmann::ordered_json;

namespace {

const json& schema() {
  static const json s = json::parse(read_source_file("data/scenario-schema.json"));
  return s;
}

std::vector<std::string> tokens(const std::string& pointer) {
  std::vector<std::string> out;
  size_t at = 1;
  while (at <= pointer.size() && !pointer.empty()) {
    const size_t next = pointer.find('/', at);
    out.push_back(pointer.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) break;
    at = next + 1;
  }
  return out;
}

// Sets doc at pointer, creating objects on the way; a preset id on the way (/model,
// /gpu) becomes {"base": id}, as the page's Expert form does.
void set_at(json& doc, const std::string& pointer, const json& value) {
  json* cur = &doc;
  const auto keys = tokens(pointer);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (cur->is_string()) *cur = json{{"base", cur->get<std::string>()}};
    if (!cur->is_object()) *cur = json::object();
    if (i + 1 == keys.size()) (*cur)[keys[i]] = value;
    else cur = &(*cur)[keys[i]];
  }
}

// The scenario a field is tried in: example_base with the field's context applied.
json scenario_for(const json& field) {
  json doc = schema()["example_base"];
  if (field.contains("context")) doc.merge_patch(field["context"]);
  return doc;
}

json valid_value(const json& f) {
  if (f.contains("example")) return f["example"];
  const std::string type = f["type"];
  if (type == "enum") return f["values"][0];
  if (type == "boolean") return !f.value("default", false);
  if (type == "string") return "a name";
  FAIL("no example for a field of type " << type);
  return nullptr;
}

json wrong_type(const json& f) {
  const std::string type = f["type"];
  if (type == "integer" || type == "number" || type == "array") return "12";
  if (type == "boolean") return 1;
  if (type == "string" || type == "enum") return 5;
  return json::array({1});  // object (a preset id string is allowed for /model and /gpu)
}

// Values outside the field's range (numbers, string length, enum values).
std::vector<json> out_of_range(const json& f) {
  const std::string type = f["type"];
  std::vector<json> out;
  if (type == "integer" || type == "number") {
    const bool integer = type == "integer";
    if (f.contains("min")) {
      const double lo = f["min"];
      out.push_back(integer ? json(lo - 1) : json(lo - (lo > 0 ? lo / 2 : 1)));
    }
    if (f.contains("exclusive_min")) out.push_back(f["exclusive_min"]);
    const double hi = f["max"];
    out.push_back(integer ? json(hi + 1) : json(hi > 0 ? hi * 2 : 1));
    if (integer) out.push_back(json(f.contains("min") ? f["min"].get<double>() + 0.5 : 1.5));
  }
  if (type == "string" && f.contains("max_length")) out.push_back(std::string(f["max_length"].get<size_t>() + 1, 'x'));
  if (type == "enum") out.push_back("no-such-value");
  return out;
}

std::string error_path(const json& doc) {
  const auto s = parse_scenario(doc.dump());
  return s ? "(accepted)" : s.error().path;
}

std::string error_message(const json& doc) {
  const auto s = parse_scenario(doc.dump());
  return s ? "" : s.error().message;
}

bool has_at(const json& doc, const std::string& pointer) {
  const json* cur = &doc;
  for (const auto& k : tokens(pointer)) {
    if (!cur->is_object() || !cur->contains(k)) return false;
    cur = &(*cur)[k];
  }
  return true;
}

std::string parent_of(const std::string& pointer) { return pointer.substr(0, pointer.rfind('/')); }

}  // namespace

TEST_CASE("the schema lists every field (153 today), each inside an object it also lists", "[schema]") {
  const json& fields = schema()["fields"];
  CHECK(fields.size() >= 153);
  for (const auto& [pointer, f] : fields.items()) {
    INFO(pointer);
    const std::string parent = parent_of(pointer);
    if (!parent.empty()) CHECK((fields.contains(parent) && fields[parent]["type"] == "object"));
    CHECK(f["doc"]["en"].get<std::string>().size() > 3);
    CHECK(f["doc"]["zh"].get<std::string>().size() > 3);
    CHECK(f.contains("searchable"));
  }
}

TEST_CASE("every schema field takes a valid value and every enum value", "[schema]") {
  for (const auto& [pointer, f] : schema()["fields"].items()) {
    INFO(pointer);
    json doc = scenario_for(f);
    set_at(doc, pointer, valid_value(f));
    INFO(doc.dump());
    CHECK(error_path(doc) == "(accepted)");
    if (f.contains("values") && f["values"].is_array())
      for (const auto& v : f["values"]) {
        json d = scenario_for(f);
        if (v.is_string() && f.contains("value_context") && f["value_context"].contains(v.get<std::string>()))
          d.merge_patch(f["value_context"][v.get<std::string>()]);
        set_at(d, pointer, v);
        INFO(v.dump());
        CHECK(error_path(d) == "(accepted)");
      }
    if (f.value("nullable", false)) {
      set_at(doc, pointer, nullptr);
      CHECK(error_path(doc) == "(accepted)");
    }
  }
}

TEST_CASE("every schema field refuses the wrong type and out-of-range values at its own pointer", "[schema]") {
  int refused = 0;
  for (const auto& [pointer, f] : schema()["fields"].items()) {
    std::vector<json> bad = out_of_range(f);
    bad.push_back(wrong_type(f));
    for (const auto& v : bad) {
      json doc = scenario_for(f);
      set_at(doc, pointer, v);
      INFO(pointer << " = " << v.dump().substr(0, 80));
      CHECK(error_path(doc) == pointer);
      ++refused;
    }
    // Above the maximum, the message names the schema's maximum (not a cross-field rule
    // at the same path, such as tp dividing the heads, that would hide a range drift).
    if (f.contains("max") && (f["type"] == "integer" || f["type"] == "number") && !f.contains("values")) {
      json doc = scenario_for(f);
      set_at(doc, pointer, bad[f.contains("min") + f.contains("exclusive_min")]);
      const double hi = f["max"];
      const std::string as_int = hi < 1e15 ? std::to_string(static_cast<int64_t>(hi)) : json(hi).dump();
      INFO(pointer << ": " << error_message(doc));
      CHECK(error_message(doc).find(as_int) != std::string::npos);
    }
  }
  CHECK(refused > 350);
}

TEST_CASE("array fields refuse an unknown entry, and object values are checked per key", "[schema]") {
  for (const auto& [pointer, f] : schema()["fields"].items()) {
    INFO(pointer);
    json doc = scenario_for(f);
    if (f["type"] == "array") {
      set_at(doc, pointer, json::array({"no-such-entry"}));
      CHECK(error_path(doc) == pointer + "/0");
      set_at(doc, pointer, json::array());
      CHECK(error_path(doc) == pointer);
    }
    if (f.contains("values") && f["values"].is_object()) {
      const std::string key = f["example"].items().begin().key();
      set_at(doc, pointer, json{{key, f["values"]["max"].get<double>() * 2}});
      CHECK(error_path(doc) == pointer + "/" + key);
      set_at(doc, pointer, json{{"no-such-gpu", 1}});
      CHECK(error_path(doc) == pointer + "/no-such-gpu");
    }
  }
}

// The keys an object accepts, as the parser lists them when it meets an unknown one.
std::set<std::string> parser_keys(const json& doc, const std::string& pointer) {
  json d = doc;
  set_at(d, pointer + "/zz_unknown", 1);
  REQUIRE(error_path(d) == pointer + "/zz_unknown");
  const std::string m = error_message(d);
  const std::string lead = "expected one of: ";
  const auto at = m.find(lead);
  REQUIRE(at != std::string::npos);
  std::set<std::string> out;
  std::string list = m.substr(at + lead.size(), m.rfind(')') - at - lead.size());
  for (size_t p = 0; p <= list.size();) {
    const size_t comma = list.find(", ", p);
    out.insert(list.substr(p, comma == std::string::npos ? std::string::npos : comma - p));
    if (comma == std::string::npos) break;
    p = comma + 2;
  }
  return out;
}

TEST_CASE("every object of the scenario accepts exactly the keys the schema lists", "[schema]") {
  const json& fields = schema()["fields"];
  std::vector<std::string> objects = {""};
  for (const auto& [pointer, f] : fields.items())
    if (f["type"] == "object" && !f.contains("keys") && !f.value("open", false)) objects.push_back(pointer);
  CHECK(objects.size() >= 17);
  for (const std::string& pointer : objects) {
    INFO("object " << (pointer.empty() ? "(root)" : pointer));
    std::set<std::string> listed;
    for (const auto& [p, f] : fields.items())
      if (parent_of(p) == pointer) listed.insert(p.substr(pointer.size() + 1));
    json doc = pointer.empty() ? schema()["example_base"] : scenario_for(fields[pointer]);
    if (!pointer.empty() && !has_at(doc, pointer)) set_at(doc, pointer, fields[pointer]["example"]);
    CHECK(parser_keys(doc, pointer) == listed);
  }
}
