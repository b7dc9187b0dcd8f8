// Strict JSON reading for scenarios: a DOM read by json_reader.cpp (a malformed document
// reports where it broke and why without exceptions, duplicate keys are refused and depth
// is bounded) and typed field readers that record the first error with its JSON pointer.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpucalc/error.hpp"
#include "gpucalc/message.hpp"

namespace gpucalc::input {

using json = nlohmann::ordered_json;

// Parses text into a DOM, or an error saying where it broke (json_reader.cpp): at most
// 1 MiB, strict RFC 8259, duplicate keys and nesting past 32 levels refused.
Expected<json> parse_document(std::string_view text);

// An embedded data file (core/embed_data.cmake) read the same way, null if it does not parse.
json embedded_document(std::string_view text);

// The reader behind both (json_reader.cpp), without the size limit.
Expected<json> read_json(std::string_view text);

// RFC 6901 escaping of one reference token.
std::string pointer_token(std::string_view key);

// A short, safe rendering of a JSON value for messages.
std::string show(const json& v);
// Catalog ids a shortened or differently spelled `got` likely meant: those that begin with
// it, case, spaces, underscores and dashes ignored; empty when none do or more than four.
std::string likely_ids(const std::string& got, const std::vector<std::string>& ids);

class Reader {
 public:
  bool failed() const { return error_.has_value(); }
  const Error& error() const { return *error_; }
  // Records the first error: its code, English template and parameters (message.hpp).
  void fail(std::string path, std::string code, std::string_view en, Params params = {}) {
    if (!error_) error_ = coded_error(std::move(path), std::move(code), en, std::move(params));
  }
  void fail(Error e) {
    if (!error_) error_ = std::move(e);
  }

  // Reports the first key of `obj` not in `allowed`.
  void only_keys(const json& obj, const std::string& path, std::initializer_list<std::string_view> allowed);
  // obj must be an object (reported at path otherwise).
  bool expect_object(const json* v, const std::string& path);

  std::optional<int64_t> integer(const json& obj, const std::string& path, const char* key, bool required, int64_t lo,
                                 int64_t hi);
  std::optional<double> number(const json& obj, const std::string& path, const char* key, bool required, double lo,
                               double hi, bool lo_exclusive);
  std::optional<bool> boolean(const json& obj, const std::string& path, const char* key);
  // The value's position among `allowed` (-1 when absent or refused), for enums listed in
  // their declared order.
  int choice_index(const json& obj, const std::string& path, const char* key,
                   std::initializer_list<std::string_view> allowed, bool required = false);
  std::optional<std::string> text(const json& obj, const std::string& path, const char* key, size_t max_len);

 private:
  std::optional<Error> error_;
};

}  // namespace gpucalc::input
