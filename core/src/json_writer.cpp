#include "json_writer.hpp"

#include <array>
#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>

namespace gpucalc {
namespace {

// How each byte is written inside a string: as is (0), as a two-character escape (the
// escape letter), as \u00xx ('u'), or, at 0x80 and above, as part of a UTF-8 sequence
// that must be checked ('8'). nlohmann's dump escapes exactly these.
constexpr std::array<char, 256> kEscape = [] {
  std::array<char, 256> t{};
  for (int b = 0; b < 0x20; ++b) t[b] = 'u';
  t['\b'] = 'b';
  t['\t'] = 't';
  t['\n'] = 'n';
  t['\f'] = 'f';
  t['\r'] = 'r';
  t['"'] = '"';
  t['\\'] = '\\';
  for (int b = 0x80; b < 0x100; ++b) t[b] = '8';
  return t;
}();

// Well-formed UTF-8 (Unicode 15, Table 3-7), by lead byte: how many continuation bytes
// follow and the range the first of them must lie in (the others lie in 80..BF). A lead
// byte with no entry (80..C1, F5..FF) is invalid on its own.
struct Utf8Lead {
  unsigned char follow, lo, hi;
};
constexpr std::array<Utf8Lead, 256> kUtf8 = [] {
  std::array<Utf8Lead, 256> t{};
  for (int b = 0xC2; b <= 0xDF; ++b) t[b] = {1, 0x80, 0xBF};
  for (int b = 0xE0; b <= 0xEF; ++b) t[b] = {2, 0x80, 0xBF};
  t[0xE0] = {2, 0xA0, 0xBF};  // no overlong forms
  t[0xED] = {2, 0x80, 0x9F};  // no surrogates
  for (int b = 0xF0; b <= 0xF4; ++b) t[b] = {3, 0x80, 0xBF};
  t[0xF0] = {3, 0x90, 0xBF};  // no overlong forms
  t[0xF4] = {3, 0x80, 0x8F};  // nothing above U+10FFFF
  return t;
}();

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Appends the UTF-8 sequence that starts at s[i] (a byte >= 0x80) and returns the index
// after it. An invalid sequence becomes one U+FFFD, like nlohmann's error_handler_t::replace:
// the byte that broke a sequence is read again as the start of the next one, unless it
// was the lead byte itself.
size_t append_utf8(std::string& out, std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const Utf8Lead lead = kUtf8[byte(i)];
  if (lead.follow == 0) {
    out += kReplacement;
    return i + 1;
  }
  for (size_t k = 1; k <= lead.follow; ++k) {
    if (i + k == s.size()) {  // the string ends inside the sequence
      out += kReplacement;
      return s.size();
    }
    const unsigned char lo = k == 1 ? lead.lo : 0x80, hi = k == 1 ? lead.hi : 0xBF;
    if (byte(i + k) < lo || byte(i + k) > hi) {
      out += kReplacement;
      return i + k;
    }
  }
  out.append(s.data() + i, lead.follow + 1);
  return i + lead.follow + 1;
}

}  // namespace

void JsonWriter::append_string(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out_ += '"';
  size_t i = 0;
  while (i < s.size()) {
    size_t run = i;  // the longest stretch written as is, appended at once
    while (run < s.size() && kEscape[static_cast<unsigned char>(s[run])] == 0) ++run;
    out_.append(s.data() + i, run - i);
    i = run;
    if (i == s.size()) break;
    const auto b = static_cast<unsigned char>(s[i]);
    const char e = kEscape[b];
    if (e == '8') {
      i = append_utf8(out_, s, i);
    } else if (e == 'u') {
      const char u[] = {'\\', 'u', '0', '0', kHex[b >> 4], kHex[b & 0xF]};
      out_.append(u, sizeof u);
      ++i;
    } else {
      out_ += '\\';
      out_ += e;
      ++i;
    }
  }
  out_ += '"';
}

JsonWriter& JsonWriter::value(std::nullptr_t) { return literal("null"); }

JsonWriter& JsonWriter::value(bool b) { return literal(b ? "true" : "false"); }

JsonWriter& JsonWriter::value(double d) {
  separate();
  if (!std::isfinite(d)) {
    out_ += "null";  // JSON has no infinity or NaN; nlohmann prints null
  } else {
    // nlohmann's own formatter (what dump uses), so numbers read back exactly as before.
    char buf[64];
    char* end = ::nlohmann::detail::to_chars(buf, buf + sizeof buf, d);
    out_.append(buf, static_cast<size_t>(end - buf));
  }
  need_comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::integer(std::int64_t i) {
  separate();
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, i);
  out_.append(buf, static_cast<size_t>(r.ptr - buf));
  need_comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::unsigned_integer(std::uint64_t u) {
  separate();
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, u);
  out_.append(buf, static_cast<size_t>(r.ptr - buf));
  need_comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  separate();
  append_string(s);
  need_comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::document(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::object:
      begin_object();
      for (const auto& [k, v] : j.items()) {
        key(k);
        document(v);
      }
      return end_object();
    case nlohmann::ordered_json::value_t::array:
      begin_array();
      for (const auto& v : j) document(v);
      return end_array();
    case nlohmann::ordered_json::value_t::string: return value(j.get_ref<const std::string&>());
    case nlohmann::ordered_json::value_t::boolean: return value(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer: return value(j.get<std::int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned: return value(j.get<std::uint64_t>());
    case nlohmann::ordered_json::value_t::number_float: return value(j.get<double>());
    default: return value(nullptr);  // null (the catalogs hold no binary values)
  }
}

}  // namespace gpucalc
