// libFuzzer target: any byte string through gpucalc::evaluate_json and
// gpucalc::search_json, the one-call boundary the CLI, the wasm module and the page
// share. Built with -fsanitize=fuzzer,address,undefined (scripts/fuzz,
// docs/robustness.md). Besides the sanitizers' crashes, leaks and UB, it checks the
// contract of api.hpp: the answer is always a JSON object {"ok": true, "value": ...}
// or {"ok": false, "error": {"path": "<JSON pointer>", "message": "<non-empty>"}}.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpucalc/api.hpp"

namespace {

[[noreturn]] void contract_broken(const char* what, const std::string& out) {
  std::fprintf(stderr, "evaluate_fuzzer: %s\n%.2000s\n", what, out.c_str());
  std::abort();
}

void check_envelope(const std::string& out) {
  const auto env = nlohmann::json::parse(out, nullptr, false);
  if (env.is_discarded() || !env.is_object()) contract_broken("the envelope is not a JSON object", out);
  const auto ok = env.find("ok");
  if (ok == env.end() || !ok->is_boolean()) contract_broken("the envelope has no boolean \"ok\"", out);
  if (ok->get<bool>()) {
    if (!env.contains("value")) contract_broken("ok:true without a value", out);
    return;
  }
  const auto err = env.find("error");
  if (err == env.end() || !err->is_object()) contract_broken("ok:false without an error object", out);
  const auto path = err->find("path");
  const auto msg = err->find("message");
  if (path == err->end() || !path->is_string()) contract_broken("error without a string path", out);
  if (msg == err->end() || !msg->is_string() || msg->get_ref<const std::string&>().empty())
    contract_broken("error without a message", out);
  const auto& p = path->get_ref<const std::string&>();
  if (!p.empty() && p[0] != '/') contract_broken("error path is not a JSON pointer", out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string evaluated = gpucalc::evaluate_json(text);
  check_envelope(evaluated);
  check_envelope(gpucalc::search_json(text, 3));
  return 0;
}
