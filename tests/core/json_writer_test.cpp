// core/src/json_writer: the answer's streaming writer must print exactly what
// nlohmann::ordered_json::dump(-1, ' ', false, replace) prints for the same document
// (json_writer.hpp), including for a whole document read from data.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "../../core/src/json_writer.hpp"

using gpucalc::JsonWriter;
using nlohmann::ordered_json;

namespace {
std::string dumped(const ordered_json& j) { return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace); }
}  // namespace

TEST_CASE("the writer prints strings and numbers exactly as nlohmann dumps them", "[json]") {
  const std::string strings[] = {"",
                                 "plain",
                                 "quote \" backslash \\",
                                 "\b\f\n\r\t",
                                 std::string("\x01\x1f", 2),
                                 "中文 ünïcode",
                                 "emoji 🚀",
                                 "bad \xff\xfe utf-8",
                                 "truncated \xe4\xb8",
                                 "/slash"};
  const double doubles[] = {0.0,
                            -0.0,
                            1.0,
                            0.1,
                            1e-300,
                            1e300,
                            123456789.125,
                            4.248910558352351,
                            2.95,
                            1.6,
                            -7.5e-9,
                            1e16,
                            9007199254740993.0};
  const int64_t ints[] = {
      0, 1, -1, 70553706496, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};

  JsonWriter w;
  ordered_json want = ordered_json::object();
  w.begin_object();
  int i = 0;
  for (const auto& s : strings) {
    const std::string k = "s" + std::to_string(i++);
    w.field(k, s);
    want[k] = s;
  }
  for (double d : doubles) {
    const std::string k = "d" + std::to_string(i++);
    w.field(k, d);
    want[k] = d;
  }
  for (int64_t n : ints) {
    const std::string k = "i" + std::to_string(i++);
    w.field(k, n);
    want[k] = n;
  }
  w.field("nan", std::nan(""));  // non-finite doubles print as null, as nlohmann does
  want["nan"] = nullptr;
  w.field("inf", std::numeric_limits<double>::infinity());
  want["inf"] = nullptr;
  w.field("t", true).field("f", false).field("none", nullptr);
  want["t"] = true;
  want["f"] = false;
  want["none"] = nullptr;
  w.key("list").begin_array().value(1).value("two").begin_object().field("x", 3.5).end_object().end_array();
  want["list"] = ordered_json::array({1, "two", ordered_json{{"x", 3.5}}});
  w.end_object();
  CHECK(w.str() == dumped(want));
}

TEST_CASE("random doubles and strings round-trip like nlohmann", "[json]") {
  std::mt19937_64 rng(20261201);
  std::uniform_int_distribution<int> byte(0, 255), len(0, 24);
  for (int n = 0; n < 2000; ++n) {
    double d;
    const uint64_t bits = rng();
    std::memcpy(&d, &bits, sizeof d);
    std::string s;
    for (int k = len(rng); k > 0; --k) s += static_cast<char>(byte(rng));
    JsonWriter w;
    w.begin_array().value(d).value(s).end_array();
    ordered_json want = ordered_json::array({std::isfinite(d) ? ordered_json(d) : ordered_json(nullptr), s});
    INFO(n);
    REQUIRE(w.str() == dumped(want));
  }
}

TEST_CASE("a document read from data is written as nlohmann dumps it", "[json]") {
  // What the catalog answers do with data/gpus.json and data/models.json: key order,
  // integers, unsigned integers, doubles and escapes kept.
  const ordered_json doc = ordered_json::parse(
      R"({"z": 1, "a": [2.5, "x\n", null, true, {"k": -3}], "u": 18446744073709551615, "e": {}, "l": []})");
  JsonWriter w;
  w.document(doc);
  CHECK(w.str() == dumped(doc));
  CHECK(w.str().rfind(R"({"z":1,"a":[2.5,)", 0) == 0);
}
