// A lean streaming JSON writer for the core's answers: values are appended to one string
// as they are produced, with no document tree in between. Its output is byte for byte
// what nlohmann::ordered_json::dump(-1, ' ', false, error_handler_t::replace) prints for
// the same document:
//   - numbers keep their C++ type: integers print as integers, doubles through
//     nlohmann's own shortest round-trip formatting (Grisu2, "1.0" for whole numbers),
//     non-finite doubles as null;
//   - strings are escaped like nlohmann (\" \\ \b \f \n \r \t, other control characters
//     as \u00xx, everything else as is) and invalid UTF-8 is replaced by U+FFFD;
//   - keys are written in the order given, so the caller decides the key order.
// The writer checks no structure: the caller opens and closes what it writes.
#pragma once
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "gpucalc/error.hpp"
#include "gpucalc/message.hpp"

namespace gpucalc {

class JsonWriter {
 public:
  JsonWriter() { out_.reserve(4096); }

  // The text written so far.
  const std::string& str() const { return out_; }
  std::string take() { return std::move(out_); }

  JsonWriter& begin_object() {
    separate();
    out_ += '{';
    need_comma_ = false;
    return *this;
  }
  JsonWriter& end_object() {
    out_ += '}';
    need_comma_ = true;
    return *this;
  }
  JsonWriter& begin_array() {
    separate();
    out_ += '[';
    need_comma_ = false;
    return *this;
  }
  JsonWriter& end_array() {
    out_ += ']';
    need_comma_ = true;
    return *this;
  }

  // An object member's key; the next value written is its value.
  JsonWriter& key(std::string_view k) {
    separate();
    append_string(k);
    out_ += ':';
    need_comma_ = false;
    return *this;
  }

  JsonWriter& value(std::nullptr_t);
  JsonWriter& value(bool b);
  JsonWriter& value(double d);
  template <class T>
  requires(std::integral<T> && !std::same_as<T, bool>) JsonWriter& value(T i) {
    if constexpr (std::is_signed_v<T>) return integer(static_cast<std::int64_t>(i));
    else return unsigned_integer(static_cast<std::uint64_t>(i));
  }
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  // An absent optional is null.
  template <class T>
  JsonWriter& value(const std::optional<T>& v) {
    return v ? value(*v) : value(nullptr);
  }
  // An array of strings.
  JsonWriter& value(const std::vector<std::string>& list) {
    begin_array();
    for (const auto& s : list) value(s);
    return end_array();
  }

  // A whole document read from data (the catalogs), written as it is.
  JsonWriter& document(const nlohmann::ordered_json& j);
  // A coded message: {"code", "params": {name: value, ...}, "message"}.
  JsonWriter& value(const Message& m) {
    begin_object().field("code", m.code);
    params(m.params);
    return field("message", m.message).end_object();
  }
  // Prose in parts (message.hpp Parts): a literal part as a string, a coded one as above.
  JsonWriter& prose(const Message& m) { return m.code.empty() ? value(m.message) : value(m); }
  JsonWriter& prose(const Parts& parts) {
    begin_array();
    for (const auto& m : parts) prose(m);
    return end_array();
  }
  // A field of explanatory prose: `k` in English and `k`_coded in parts beside it.
  template <class P>
  JsonWriter& prose_field(std::string_view k, const P& p) {
    if constexpr (std::is_same_v<P, Parts>) field(k, joined(p));
    else field(k, p.message);
    key(std::string(k) + "_coded");
    return prose(p);
  }
  JsonWriter& value(const std::vector<Message>& list) {
    begin_array();
    for (const auto& m : list) value(m);
    return end_array();
  }
  // An error: {"path", "code", "params", "message"}.
  JsonWriter& value(const Error& e) {
    begin_object().field("path", e.path).field("code", e.code);
    params(e.params);
    return field("message", e.message).end_object();
  }

  // key(k) then value(v).
  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

 private:
  void params(const Params& ps) {
    key("params").begin_object();
    for (const auto& [k, v] : ps) field(k, v);
    end_object();
  }
  void separate() {
    if (need_comma_) out_ += ',';
  }
  JsonWriter& literal(std::string_view text) {
    separate();
    out_ += text;
    need_comma_ = true;
    return *this;
  }
  JsonWriter& integer(std::int64_t i);
  JsonWriter& unsigned_integer(std::uint64_t u);
  void append_string(std::string_view s);  // quoted and escaped

  std::string out_;
  bool need_comma_ = false;  // a value or a closed container precedes: the next item needs ','
};

}  // namespace gpucalc
