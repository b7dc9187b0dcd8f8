#include "json_input.hpp"

#include <cctype>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

namespace gpucalc::input {
namespace {

// A scenario is a few kilobytes (description ≤ 4000 bytes); anything past 1 MiB is
// refused before parsing, so a huge document costs one length check.
constexpr size_t kMaxDocumentBytes = 1 << 20;

bool integral(double v) { return std::isfinite(v) && std::floor(v) == v; }

std::string join(std::initializer_list<std::string_view> xs) {
  std::string out;
  for (auto x : xs) {
    if (!out.empty()) out += ", ";
    out += x;
  }
  return out;
}

std::string num_text(double v) {
  if (integral(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  return json(v).dump();
}

}  // namespace

Expected<json> parse_document(std::string_view text) {
  if (text.size() > kMaxDocumentBytes)
    return coded_error("", "document_too_large",
                       "the scenario is {bytes} bytes; gpucalc reads at most {max} bytes (1 MiB)",
                       {{"bytes", std::to_string(text.size())}, {"max", std::to_string(kMaxDocumentBytes)}});
  return read_json(text);
}

json embedded_document(std::string_view text) {
  Expected<json> doc = read_json(text);
  return doc ? std::move(*doc) : json();
}

std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

// An id as compared below: lower case, without dashes, spaces or underscores.
namespace {
std::string flat_id(std::string_view x) {
  std::string out;
  for (char ch : x)
    if (ch != '-' && ch != ' ' && ch != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

}  // namespace

// Catalog ids a shortened or differently spelled one likely meant: those that begin with
// it, case, spaces, underscores and dashes ignored ("H100" → h100-sxm-80gb, h100-pcie-80gb;
// "rtx 4090" → rtx-4090-24gb; "Llama3.1-70B" → llama-3.1-70b). Empty when none do or so
// many do that a list would not help.
std::string likely_ids(const std::string& got, const std::vector<std::string>& ids) {
  const std::string whole = flat_id(got);
  if (whole.empty()) return "";
  std::string out;
  int n = 0;
  for (const auto& id : ids)
    if (flat_id(id).rfind(whole, 0) == 0) out += (n++ ? ", " : "") + id;
  return n > 4 ? "" : out;
}

std::string show(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

void Reader::only_keys(const json& obj, const std::string& path, std::initializer_list<std::string_view> allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    for (auto a : allowed) known = known || it.key() == a;
    if (!known) {
      fail(path + "/" + pointer_token(it.key()), "unknown_key", "unknown field (expected one of: {allowed})",
           {{"key", it.key()}, {"allowed", join(allowed)}});
      return;
    }
  }
}

bool Reader::expect_object(const json* v, const std::string& path) {
  if (v && v->is_object()) return true;
  if (v) fail(path, "expected_object", "must be an object, got {got}", {{"got", show(*v)}});
  else fail(path, "required", "is required");
  return false;
}

std::optional<int64_t> Reader::integer(const json& obj, const std::string& path, const char* key, bool required,
                                       int64_t lo, int64_t hi) {
  const std::string p = path + "/" + key;
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) fail(p, "required", "is required");
    return std::nullopt;
  }
  const bool positive = lo >= 1;
  const auto not_integer = [&] {
    if (positive) fail(p, "expected_positive_integer", "must be a positive integer, got {got}", {{"got", show(*it)}});
    else fail(p, "expected_integer", "must be an integer, got {got}", {{"got", show(*it)}});
  };
  double v = 0;
  if (it->is_number_unsigned()) {
    v = static_cast<double>(it->get<uint64_t>());
  } else if (it->is_number_integer()) {
    v = static_cast<double>(it->get<int64_t>());
  } else if (it->is_number_float() && integral(it->get<double>())) {
    v = it->get<double>();
  } else {
    not_integer();
    return std::nullopt;
  }
  if (v < static_cast<double>(lo)) {
    if (lo > 1)
      fail(p, "integer_below_min", "must be a positive integer ≥ {min}, got {got}",
           {{"min", std::to_string(lo)}, {"got", num_text(v)}});
    else if (positive)
      fail(p, "expected_positive_integer", "must be a positive integer, got {got}", {{"got", num_text(v)}});
    else fail(p, "expected_integer", "must be an integer, got {got}", {{"got", num_text(v)}});
    return std::nullopt;
  }
  if (v > static_cast<double>(hi)) {
    fail(p, "too_large", "must be at most {max}, got {got}", {{"max", std::to_string(hi)}, {"got", num_text(v)}});
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

std::optional<double> Reader::number(const json& obj, const std::string& path, const char* key, bool required,
                                     double lo, double hi, bool lo_exclusive) {
  const std::string p = path + "/" + key;
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) fail(p, "required", "is required");
    return std::nullopt;
  }
  if (!it->is_number()) {
    fail(p, "expected_number", "must be a number, got {got}", {{"got", show(*it)}});
    return std::nullopt;
  }
  const double v = it->get<double>();
  const bool low = lo_exclusive ? !(v > lo) : !(v >= lo);
  if (!std::isfinite(v) || low || v > hi) {
    fail(p, "out_of_range", "must be a number {op} {min} and ≤ {max}, got {got}",
         {{"op", lo_exclusive ? ">" : "≥"}, {"min", num_text(lo)}, {"max", num_text(hi)}, {"got", show(*it)}});
    return std::nullopt;
  }
  return v;
}

std::optional<bool> Reader::boolean(const json& obj, const std::string& path, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (!it->is_boolean()) {
    fail(path + "/" + key, "expected_boolean", "must be true or false, got {got}", {{"got", show(*it)}});
    return std::nullopt;
  }
  return it->get<bool>();
}

int Reader::choice_index(const json& obj, const std::string& path, const char* key,
                         std::initializer_list<std::string_view> allowed, bool required) {
  const std::string p = path + "/" + key;
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) fail(p, "required", "is required");
    return -1;
  }
  if (it->is_string()) {
    const auto& s = it->get_ref<const std::string&>();
    int i = 0;
    for (auto a : allowed) {
      if (s == a) return i;
      ++i;
    }
  }
  fail(p, "unknown_choice", "must be one of {allowed}, got {got}", {{"allowed", join(allowed)}, {"got", show(*it)}});
  return -1;
}

std::optional<std::string> Reader::text(const json& obj, const std::string& path, const char* key, size_t max_len) {
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (!it->is_string() || it->get_ref<const std::string&>().size() > max_len) {
    fail(path + "/" + key, "expected_short_string", "must be a string of at most {max} bytes, got {got}",
         {{"max", std::to_string(max_len)}, {"got", show(*it)}});
    return std::nullopt;
  }
  return it->get<std::string>();
}

}  // namespace gpucalc::input
