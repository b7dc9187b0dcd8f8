#include "gpucalc/message.hpp"

namespace gpucalc {

namespace {

// A count in prose (a token count {batch_tokens}, {critical_tokens}: a parameter named
// *_tokens; a GPU count {gpus}, {fastest_gpus}; data-parallel ranks {dp}) of five digits
// or more is shown with its thousands grouped, 4,194,304; the parameter keeps the plain
// digits for a program (web/i18n.js renders the same).
bool grouped_count(std::string_view name, const std::string& value) {
  constexpr std::string_view suffix = "_tokens";
  const bool count = name == "gpus" || name == "fastest_gpus" || name == "dp" ||
                     (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix);
  return count && value.size() > 4 && value.find_first_not_of("0123456789") == std::string::npos;
}

std::string shown(std::string_view name, const std::string& value) {
  if (!grouped_count(name, value)) return value;
  std::string out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (i > 0 && (value.size() - i) % 3 == 0) out += ',';
    out += value[i];
  }
  return out;
}

}  // namespace

std::string format_message(std::string_view tmpl, const Params& params) {
  std::string out;
  out.reserve(tmpl.size() + 32);
  size_t i = 0;
  while (i < tmpl.size()) {
    const size_t open = tmpl.find('{', i);
    const size_t close = open == std::string_view::npos ? open : tmpl.find('}', open);
    if (close == std::string_view::npos) break;
    out.append(tmpl.substr(i, open - i));
    const std::string_view name = tmpl.substr(open + 1, close - open - 1);
    const std::string* value = nullptr;
    for (const auto& [k, v] : params)
      if (k == name) value = &v;
    if (value) out += shown(name, *value);
    else out.append(tmpl.substr(open, close - open + 1));
    i = close + 1;
  }
  out.append(tmpl.substr(i));
  return out;
}

std::string english_singular(std::string text) {
  static constexpr std::string_view nouns[] = {"GPUs", "sequences", "layouts", "days", "steps", "micro-batches"};
  for (size_t i = 0; (i = text.find("1 ", i)) != std::string::npos; ++i) {
    const char before = i > 0 ? text[i - 1] : ' ';
    if ((before >= '0' && before <= '9') || before == '.' || before == ',') continue;
    const std::string_view rest = std::string_view(text).substr(i + 2);
    for (std::string_view n : nouns)
      if (rest.substr(0, n.size()) == n && (rest.size() == n.size() || rest[n.size()] < 'a' || rest[n.size()] > 'z')) {
        const size_t cut = n.substr(n.size() - 3) == "hes" ? 2 : 1;  // the plural's s, or es (batches)
        text.erase(i + 2 + n.size() - cut, cut);
        break;
      }
  }
  return text;
}

Message coded(std::string code, std::string_view en, Params params) {
  std::string text = english_singular(format_message(en, params));
  return Message{std::move(code), std::move(params), std::move(text)};
}

Error coded_error(std::string path, std::string code, std::string_view en, Params params) {
  std::string text = english_singular(format_message(en, params));
  return Error{std::move(path), std::move(text), std::move(code), std::move(params)};
}

Message wrapping(std::string code, std::string_view en, const Message& inner, Params params) {
  params.insert(params.end(), inner.params.begin(), inner.params.end());
  Params outer = params;
  outer.emplace_back("reason", inner.message);
  std::string text = english_singular(format_message(en, outer));
  params.emplace_back("reason", inner.code);
  return Message{std::move(code), std::move(params), std::move(text)};
}

Message literal(std::string text) { return Message{"", {}, std::move(text)}; }

std::string joined(const Parts& parts) {
  std::string out;
  for (const Message& m : parts) out += m.message;
  return out;
}

Error wrapping_error(std::string path, std::string code, std::string_view en, const Message& inner, Params params) {
  Message m = wrapping(std::move(code), en, inner, std::move(params));
  return Error{std::move(path), std::move(m.message), std::move(m.code), std::move(m.params)};
}

}  // namespace gpucalc
