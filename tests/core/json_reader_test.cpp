// core/src/json_reader.cpp: the reader of scenarios and embedded catalogs must build
// exactly the document nlohmann's parser builds from the same text: the same values and
// the same number types (compared through dump(), which prints 1 and 1.0, 0.0 and -0.0
// apart and every double to the digit that round-trips it), and refuse what it refuses,
// saying where and why. The wasm Catch2 suite runs these too, against musl's strtod.
#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "../../core/src/embedded.hpp"
#include "../../core/src/json_input.hpp"

namespace {

std::string via_nlohmann(std::string_view text) { return nlohmann::ordered_json::parse(text).dump(); }

std::string via_reader(std::string_view text) {
  auto doc = gpucalc::input::read_json(text);
  if (!doc) return "error: " + doc.error().message;
  return doc->dump();
}

// The error the reader gives for `text`: "path | code | message".
std::string refusal(std::string_view text) {
  auto doc = gpucalc::input::read_json(text);
  if (doc) return "accepted: " + doc->dump();
  return doc.error().path + " | " + doc.error().code + " | " + doc.error().message;
}

}  // namespace

TEST_CASE("Every embedded catalog reads as nlohmann reads it", "[json_reader]") {
  using namespace gpucalc::data;
  for (auto text : {gpus_json(), currency_json(), models_json(), perf_json(), uncertainty_json()}) {
    CHECK(!gpucalc::input::embedded_document(text).is_null());
    CHECK(via_reader(text) == via_nlohmann(text));
  }
}

TEST_CASE("Numbers keep nlohmann's type and value to the last bit", "[json_reader]") {
  // Fast path (digits < 2^53, power of ten within 22): one correctly rounded operation.
  // Beyond it: strtod. Integers: unsigned, signed when negative, float past 64 bits.
  for (const char* n : {"0",
                        "-0",
                        "7",
                        "-7",
                        "0.0",
                        "-0.0",
                        "1.0",
                        "2.50",
                        "0.514",
                        "0.05",
                        "1745.0",
                        "3.5e-3",
                        "1e12",
                        "1E+5",
                        "6.02214076e23",
                        "1e22",
                        "1e23",
                        "1e-22",
                        "1e-23",
                        "0.1",
                        "0.3",
                        "123456789.123456789",
                        "9007199254740993.0",
                        "9007199254740993",
                        "4.9e-324",
                        "2.2250738585072014e-308",
                        "1.7976931348623157e308",
                        "18446744073709551615",
                        "18446744073709551616",
                        "-9223372036854775808",
                        "-9223372036854775809",
                        "193273528320",
                        "1000000000000000000000",
                        "0.000000000000000000000000000001",
                        "1234567890123456789012345678901234567890e-30",
                        "1e-400",
                        "-1e-400"}) {
    const std::string doc = std::string("[") + n + "]";
    INFO(n);
    CHECK(via_reader(doc) == via_nlohmann(doc));
  }
}

TEST_CASE("Strings, escapes, UTF-8 and nesting read as nlohmann reads them", "[json_reader]") {
  for (const char* doc : {
           R"({"a":"plain","b":"\"q\" \\ \/ \b\f\n\r\t","c":"\u00d7 \u4e2d \ud83d\ude00 \u0000"})",
           R"({"name_zh":"英伟达 H100","emoji":"🦙","x":[1,[2,[3,{}]],[]],"y":{},"z":[true,false,null]})",
           " { \"spaced\" : [ 1 , 2 ] ,\n\t\"k\" : \"v\" } \r\n",
           R"("top-level string")",
           "[]",
           "\xEF\xBB\xBF{\"bom\":1}",
           "{\"\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\":1}",
       }) {
    INFO(doc);
    CHECK(via_reader(doc) == via_nlohmann(doc));
  }
}

TEST_CASE("Malformed JSON is refused with its line, column and reason", "[json_reader]") {
  // Where and why, as the message says it.
  const std::pair<const char*, const char*> cases[] = {
      {"", "line 1, column 1: unexpected end of input"},
      {"{\"model\": \"llama-3.1-8b\", ", "line 1, column 27: unexpected end of input"},
      {"{\n  \"a\": 1,\n  \"b\" 2\n}", "line 3, column 7: expected ':' after the key"},
      {"{\"a\":1 \"b\":2}", "line 1, column 8: expected ',' or '}'"},
      {"[1 2]", "line 1, column 4: expected ',' or ']'"},
      {"{'a':1}", "line 1, column 2: expected a key in double quotes"},
  };
  for (const auto& [text, where] : cases) {
    INFO(text);
    CHECK(refusal(text) == std::string(" | malformed_json_at | malformed JSON: parse error at ") + where);
  }
  CHECK(refusal("{\"a\":NaN}").find("column 6: expected a value") != std::string::npos);
  CHECK(refusal("{} x").find("column 4: unexpected text after the end of the document") != std::string::npos);
  CHECK(refusal("[01]").find("column 2: invalid number") != std::string::npos);
  CHECK(refusal("[1.]").find("invalid number") != std::string::npos);
  CHECK(refusal("[-]").find("invalid number") != std::string::npos);
  CHECK(refusal("[\"a\tb\"]").find("column 4: control character in a string") != std::string::npos);
  CHECK(refusal("[\"\\x\"]").find("column 4: invalid escape in a string") != std::string::npos);
  CHECK(refusal("[\"\\u12\"]").find("invalid escape in a string") != std::string::npos);
  CHECK(refusal("[\"\\ud800\"]").find("unpaired UTF-16 surrogate") != std::string::npos);
  CHECK(refusal("[\"\\udc00\"]").find("unpaired UTF-16 surrogate") != std::string::npos);
  for (const char* bad :
       {"\xc0\xaf", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\x80", "\xe0\x80\x80"}) {
    INFO(bad);
    CHECK(refusal(std::string("[\"") + bad + "\"]").find("invalid UTF-8 in a string") != std::string::npos);
  }
  // The reason is a coded message of its own, so a reader's language renders it too.
  auto doc = gpucalc::input::read_json("[1,");
  REQUIRE(!doc);
  bool reason = false;
  for (const auto& [k, v] : doc.error().params) reason = reason || (k == "reason" && v == "json_end");
  CHECK(reason);
}

TEST_CASE("Nesting, duplicate keys and numbers beyond double are named where they are", "[json_reader]") {
  std::string deep(40, '[');
  deep += std::string(40, ']');
  CHECK(refusal(deep).rfind("/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0 | nesting_too_deep", 0) ==
        0);
  CHECK(refusal(R"({"m":{"a":1,"a":2}})") == "/m/a | duplicate_key | duplicate key");
  CHECK(refusal(R"({"a/b":{"k\u0065y":1,"key":2}})") == "/a~1b/key | duplicate_key | duplicate key");
  CHECK(refusal(R"({"t":[1,2,-1e999]})") ==
        "/t/2 | number_beyond_double | must be a finite number, got -1e999 (beyond the double range, ±1.8e308)");
  // Past 16 members the keys go through a hash table: a repeat is still found, and a large
  // object (90,000 keys, under 1 MiB) reads in linear time.
  std::string many = "{";
  for (int k = 0; k < 90000; ++k) many += (k ? ",\"k" : "\"k") + std::to_string(k) + "\":0";
  auto doc = gpucalc::input::read_json(many + "}");
  REQUIRE(doc);
  CHECK(doc->size() == 90000);
  CHECK(refusal(many + ",\"k4321\":1}") == "/k4321 | duplicate_key | duplicate key");
}
