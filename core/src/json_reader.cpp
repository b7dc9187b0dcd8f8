// JSON text → DOM (RFC 8259, strict): the scenarios people type or paste, and the catalogs
// embedded in the build (core/embed_data.cmake), through one short reader.
//
// Why not nlohmann's parser: it was the wasm's hottest cold code. Reading the ~60 KB of
// catalogs through its lexer and musl's strtod made V8 recompile the parser, lexer and
// __floatscan with its optimising compiler mid-page-load (Chromium
// --trace-wasm-compilation-times: ~220 ms of compile time on the two cores the page, its
// worker and V8 share) for text read once; its error texts were English only; and its
// code was ~12 KB of the page's module. docs/performance-model.md ("The page",
// thirty-eighth session) has the measurements.
//
// What it refuses, each as a coded error naming where (messages.json): malformed JSON
// with its line and column and the reason (malformed_json_at wrapping a json_* code),
// nesting past 32 levels, a duplicate key (checked by a table of key hashes past 16
// members, so a 1 MiB object of 90,000 keys does not take quadratic time), a number
// beyond the double range at the field it was meant for. Strings must be UTF-8 (RFC 3629:
// no overlong forms, surrogates or code points past U+10FFFF), with \u escapes paired
// where they are surrogates.
//
// Numbers keep nlohmann's types, which the field readers and the answers rely on: an
// integer without a fraction or exponent is unsigned, or signed when negative, a float
// past 64 bits; a float whose digits fit a double exactly and whose power of ten is at
// most 22 is one correctly rounded multiplication or division (Clinger 1990, "How to read
// floating point numbers accurately"), any other to decimal.cpp parse_decimal (strtod's result).
// tests/core/json_reader_test.cpp checks the edges against nlohmann's reading.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "decimal.hpp"
#include "json_input.hpp"

namespace gpucalc::input {
namespace {

constexpr size_t kMaxDepth = 32;
// 10^0 ... 10^22, each a double exactly.
constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& s, uint32_t cp) {
  if (cp < 0x80) {
    s += static_cast<char>(cp);
    return;
  }
  const int tail = cp < 0x800 ? 1 : cp < 0x10000 ? 2 : 3;
  s += static_cast<char>((0xFF00 >> (tail + 1)) | (cp >> (6 * tail)));  // 110xxxxx, 1110xxxx, 11110xxx
  for (int k = tail - 1; k >= 0; --k) s += static_cast<char>(0x80 | ((cp >> (6 * k)) & 0x3F));
}

// Where a value goes: under a key of the object at `up`, or at an index of the array at
// `up` (nullptr: the document itself). Walked only to name the place of an error.
struct Place {
  const Place* up;
  const std::string* key;
  size_t index;
};

std::string path_of(const Place* p) {
  if (!p) return "";
  return path_of(p->up) + "/" + (p->key ? pointer_token(*p->key) : std::to_string(p->index));
}

// Whether an object's keys repeat: a scan of the members while there are few, then a
// table of their hashes (FNV-1a) with the member's index, open addressing.
class KeyIndex {
 public:
  // Whether `key` is already among `members` (keys added in order); adds it otherwise.
  bool seen(const json::object_t& members, const std::string& key) {
    if (members.size() < 16) {
      for (const auto& m : members)
        if (m.first == key) return true;
      return false;
    }
    if (slots_.size() < 2 * (members.size() + 1)) rebuild(members);
    for (size_t i = hash(key) & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i] < 0) {
        slots_[i] = static_cast<int32_t>(members.size());
        return false;
      }
      if (members.begin()[slots_[i]].first == key) return true;
    }
  }

 private:
  std::vector<int32_t> slots_;  // a member index, -1 empty (a 1 MiB document has fewer than 2^31 members)

  static uint64_t hash(const std::string& s) {
    uint64_t h = 1469598103934665603ULL;
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    return h;
  }
  void rebuild(const json::object_t& members) {
    size_t n = 64;
    while (n < 4 * (members.size() + 1)) n *= 2;
    slots_.assign(n, -1);
    for (size_t k = 0; k < members.size(); ++k) {
      size_t i = hash(members.begin()[static_cast<ptrdiff_t>(k)].first) & (n - 1);
      while (slots_[i] >= 0) i = (i + 1) & (n - 1);
      slots_[i] = static_cast<int32_t>(k);
    }
  }
};

class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : t_(text) {}

  Expected<json> document() {
    if (t_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // a UTF-8 byte order mark, as Notepad saves (nlohmann skips it too)
    json doc;
    if (value(doc, nullptr, 0)) {
      skip();
      if (i_ == t_.size()) return doc;
      syntax("json_trailing", "unexpected text after the end of the document");
    }
    return *error_;
  }

 private:
  std::string_view t_;
  size_t i_ = 0;
  std::optional<Error> error_;

  bool fail(Error e) {
    if (!error_) error_ = std::move(e);
    return false;
  }
  // A syntax error at the current position: its line and column (from 1) and why.
  bool syntax(std::string code, std::string_view why) {
    if (i_ >= t_.size()) {
      code = "json_end";
      why = "unexpected end of input";
    }
    const size_t at = i_ < t_.size() ? i_ : t_.size();
    size_t line = 1, line_start = 0;
    for (size_t k = 0; k < at; ++k)
      if (t_[k] == '\n') ++line, line_start = k + 1;
    const size_t column = at - line_start + 1;
    return fail(wrapping_error(
        "", "malformed_json_at", "malformed JSON: parse error at line {line}, column {column}: {reason}",
        coded(std::move(code), why), {{"line", std::to_string(line)}, {"column", std::to_string(column)}}));
  }

  void skip() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t')) ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < t_.size() && t_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool word(std::string_view w, json v, json& out) {
    if (t_.substr(i_, w.size()) != w) return expected_value();
    i_ += w.size();
    out = std::move(v);
    return true;
  }
  bool expected_value() {
    return syntax("json_value", "expected a value: an object, array, string, number, true, false or null");
  }

  bool value(json& out, const Place* at, size_t depth) {
    skip();
    if (i_ >= t_.size()) return syntax("json_end", "unexpected end of input");
    switch (t_[i_]) {
      case '{':
      case '[':
        if (depth >= kMaxDepth)
          return fail(coded_error(path_of(at ? at->up : nullptr), "nesting_too_deep",
                                  "nesting deeper than {max} levels", {{"max", std::to_string(kMaxDepth)}}));
        return t_[i_] == '{' ? object(out, at, depth) : array(out, at, depth);
      case '"': {
        std::string s;
        if (!string(s)) return false;
        out = std::move(s);
        return true;
      }
      case 't': return word("true", true, out);
      case 'f': return word("false", false, out);
      case 'n': return word("null", nullptr, out);
      default: return number(out, at);
    }
  }

  bool object(json& out, const Place* at, size_t depth) {
    ++i_;
    out = json::object();
    if (eat('}')) return true;
    auto& members = out.get_ref<json::object_t&>();
    KeyIndex keys;
    do {
      std::string key;
      skip();
      if (i_ >= t_.size() || t_[i_] != '"') return syntax("json_key", "expected a key in double quotes");
      if (!string(key)) return false;
      if (!eat(':')) return syntax("json_colon", "expected ':' after the key");
      if (keys.seen(members, key))
        return fail(
            coded_error(path_of(at) + "/" + pointer_token(key), "duplicate_key", "duplicate key", {{"key", key}}));
      const Place here{at, &key, 0};
      json v;
      if (!value(v, &here, depth + 1)) return false;
      members.emplace_back(std::move(key), std::move(v));
    } while (eat(','));
    return eat('}') || syntax("json_object_next", "expected ',' or '}'");
  }

  bool array(json& out, const Place* at, size_t depth) {
    ++i_;
    out = json::array();
    if (eat(']')) return true;
    auto& items = out.get_ref<json::array_t&>();
    do {
      const Place here{at, nullptr, items.size()};
      items.emplace_back();
      if (!value(items.back(), &here, depth + 1)) return false;
    } while (eat(','));
    return eat(']') || syntax("json_array_next", "expected ',' or ']'");
  }

  bool string(std::string& s) {
    ++i_;  // the opening quote
    for (;;) {
      const size_t run = i_;
      while (i_ < t_.size() && t_[i_] != '"' && t_[i_] != '\\' && static_cast<unsigned char>(t_[i_]) >= 0x20 &&
             static_cast<unsigned char>(t_[i_]) < 0x80)
        ++i_;
      s.append(t_.data() + run, i_ - run);
      if (i_ >= t_.size()) return syntax("json_end", "unexpected end of input");
      const auto c = static_cast<unsigned char>(t_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20)
        return syntax("json_control", "control character in a string (write it as an escape such as \\n or \\u0007)");
      if (!(c == '\\' ? escape(s) : utf8(s))) return false;
    }
  }

  // One UTF-8 sequence of two to four bytes (RFC 3629, Table 3-7 of Unicode).
  bool utf8(std::string& s) {
    const auto b = [&](size_t k) { return i_ + k < t_.size() ? static_cast<unsigned char>(t_[i_ + k]) : 0u; };
    const unsigned c = b(0);
    const int n = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : 0;
    const unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    const unsigned hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    bool ok = n > 0 && b(1) >= lo && b(1) <= hi;
    for (int k = 2; k <= n; ++k) ok = ok && b(k) >= 0x80 && b(k) <= 0xBF;
    if (!ok) return syntax("json_utf8", "invalid UTF-8 in a string");
    s.append(t_.data() + i_, static_cast<size_t>(n) + 1);
    i_ += static_cast<size_t>(n) + 1;
    return true;
  }

  bool escape(std::string& s) {
    ++i_;  // the backslash
    if (i_ >= t_.size()) return syntax("json_end", "unexpected end of input");
    const char c = t_[i_++];
    switch (c) {
      case '"':
      case '\\':
      case '/': s += c; return true;
      case 'b': s += '\b'; return true;
      case 'f': s += '\f'; return true;
      case 'n': s += '\n'; return true;
      case 'r': s += '\r'; return true;
      case 't': s += '\t'; return true;
      case 'u': break;
      default: --i_; return syntax("json_escape", "invalid escape in a string");
    }
    uint32_t cp = 0;
    if (!hex4(cp)) return false;
    if (cp >= 0xD800 && cp <= 0xDBFF) {  // a surrogate pair: \ud83d\ude00
      uint32_t low = 0;
      if (t_.substr(i_, 2) != "\\u") return syntax("json_surrogate", "a \\u escape of an unpaired UTF-16 surrogate");
      i_ += 2;
      if (!hex4(low)) return false;
      if (low < 0xDC00 || low > 0xDFFF) return syntax("json_surrogate", "a \\u escape of an unpaired UTF-16 surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      return syntax("json_surrogate", "a \\u escape of an unpaired UTF-16 surrogate");
    }
    append_utf8(s, cp);
    return true;
  }

  bool hex4(uint32_t& cp) {
    for (int k = 0; k < 4; ++k, ++i_) {
      const int h = i_ < t_.size() ? hex_value(t_[i_]) : -1;
      if (h < 0) return syntax("json_escape", "invalid escape in a string");
      cp = cp * 16 + static_cast<uint32_t>(h);
    }
    return true;
  }

  // Reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?: the significant digits in `m`
  // (`inexact` past 64 bits), the power of ten in `e`.
  bool number(json& out, const Place* at) {
    const size_t start = i_;
    const bool negative = t_[i_] == '-';
    if (negative) ++i_;
    if (i_ >= t_.size() || !is_digit(t_[i_]))
      return negative ? syntax("json_number", "invalid number") : expected_value();
    uint64_t m = 0;
    int e = 0;
    bool inexact = false, is_float = false;
    const auto digits = [&](bool fraction) {
      if (i_ >= t_.size() || !is_digit(t_[i_])) return false;
      for (; i_ < t_.size() && is_digit(t_[i_]); ++i_) {
        const auto d = static_cast<uint64_t>(t_[i_] - '0');
        if (fraction) --e;
        if (m > (UINT64_MAX - d) / 10) inexact = true;
        else m = m * 10 + d;
      }
      return true;
    };
    if (t_[i_] == '0' && i_ + 1 < t_.size() && is_digit(t_[i_ + 1])) return syntax("json_number", "invalid number");
    digits(false);
    if (i_ < t_.size() && t_[i_] == '.') {
      is_float = true;
      ++i_;
      if (!digits(true)) return syntax("json_number", "invalid number");
    }
    if (i_ < t_.size() && (t_[i_] == 'e' || t_[i_] == 'E')) {
      is_float = true;
      ++i_;
      const bool down = i_ < t_.size() && t_[i_] == '-';
      if (i_ < t_.size() && (t_[i_] == '-' || t_[i_] == '+')) ++i_;
      if (i_ >= t_.size() || !is_digit(t_[i_])) return syntax("json_number", "invalid number");
      int x = 0;
      for (; i_ < t_.size() && is_digit(t_[i_]); ++i_)
        if (x < 100000) x = x * 10 + (t_[i_] - '0');
      e += down ? -x : x;
    }
    if (!is_float && !inexact && !negative) {
      out = m;
      return true;
    }
    if (!is_float && !inexact && m <= (uint64_t{1} << 63)) {
      out = static_cast<int64_t>(0 - m);  // two's complement: -2^63 too
      return true;
    }
    if (is_float && !inexact && m < (uint64_t{1} << 53) && e >= -22 && e <= 22) {
      const double x = e >= 0 ? static_cast<double>(m) * kPow10[e] : static_cast<double>(m) / kPow10[-e];
      out = negative ? -x : x;
      return true;
    }
    // Every other number as nlohmann reads it, the nearest double as strtod gives it (an
    // integer past 64 bits too): decimal.cpp, which the page's wasm needs no strtod for.
    const std::string literal(t_.substr(start, i_ - start));
    const double x = parse_decimal(literal);
    if (!std::isfinite(x)) {
      // Well-formed JSON no double holds (1e400): named at the field it was meant for.
      const std::string shown = literal.size() > 40 ? literal.substr(0, 37) + "..." : literal;
      return fail(coded_error(path_of(at), "number_beyond_double",
                              "must be a finite number, got {got} (beyond the double range, ±1.8e308)",
                              {{"got", shown}}));
    }
    out = x;
    return true;
  }
};

}  // namespace

Expected<json> read_json(std::string_view text) { return JsonReader(text).document(); }

}  // namespace gpucalc::input
