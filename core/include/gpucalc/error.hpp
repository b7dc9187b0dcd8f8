// Errors that cross every boundary as {path, code, params, message}: `path` is a JSON
// pointer (RFC 6901) into the scenario, so the CLI, the wasm API and the page can point
// at the field that caused them; `code` and `params` let a reader's language render the
// same message (templates in data/messages.json) without matching English text. The
// core never throws; fallible calls return Expected.
#pragma once
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gpucalc {

// Named values a coded message substitutes into its template ("{gpu}"), in order.
using Params = std::vector<std::pair<std::string, std::string>>;

// A warning or a default-applied note: stable code, its parameters, the English text.
struct Message {
  std::string code;     // snake_case key of data/messages.json, e.g. "price_unknown"
  Params params;        // e.g. {{"gpu", "h20-96gb"}}
  std::string message;  // the English sentence
};

struct Error {
  std::string path;     // JSON pointer, "" for the document root
  std::string message;  // what was expected, and what was found (English)
  std::string code;     // as in Message
  Params params;
};

template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Expected(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace gpucalc
