// libFuzzer target: any byte string through gpucalc::evaluate_json and
// gpucalc::search_json, the one-call boundary the CLI, the wasm module and the page
// share. Built with -fsanitize=fuzzer,address,undefined (scripts/fuzz,
// docs/robustness.md). Besides the sanitizers' crashes, leaks and UB, it checks the
// contract of api.hpp: the answer is always a JSON object {"ok": true, "value": ...}
// or {"ok": false, "error": {"path": "<JSON pointer>", "message": "<non-empty>"}}, and an
// answer's headline numbers are finite and positive (NaN and ±inf would dump as null).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpucalc/api.hpp"
#include "gpucalc/search.hpp"

namespace {

[[noreturn]] void contract_broken(const char* what, const std::string& out) {
  std::fprintf(stderr, "evaluate_fuzzer: %s\n%.2000s\n", what, out.c_str());
  std::abort();
}

// Every pointer in `ptrs`, under `base`, names a finite number > 0.
void check_numbers(const nlohmann::ordered_json& v, const std::string& base, std::initializer_list<const char*> ptrs,
                   const std::string& out) {
  for (const char* p : ptrs) {
    const nlohmann::ordered_json::json_pointer ptr(base + p);
    if (!v.contains(ptr)) contract_broken((base + p + " is missing").c_str(), out);
    const auto& x = v[ptr];
    if (!x.is_number() || !std::isfinite(x.get<double>()) || !(x.get<double>() > 0))
      contract_broken((base + p + " is not a finite positive number").c_str(), out);
  }
}

void check_answer(const nlohmann::ordered_json& v, const std::string& base, const std::string& out) {
  check_numbers(v, base,
                {"/memory/total_bytes", "/memory/capacity_bytes", "/performance/step_time_s",
                 "/performance/tokens_per_s_per_gpu", "/performance/mfu", "/training/days", "/training/gpu_hours"},
                out);
}

void check_envelope(const std::string& out, bool search) {
  const auto env = nlohmann::ordered_json::parse(out, nullptr, false);
  if (env.is_discarded() || !env.is_object()) contract_broken("the envelope is not a JSON object", out);
  const auto ok = env.find("ok");
  if (ok == env.end() || !ok->is_boolean()) contract_broken("the envelope has no boolean \"ok\"", out);
  if (ok->get<bool>()) {
    const auto value = env.find("value");
    if (value == env.end() || !value->is_object()) contract_broken("ok:true without a value object", out);
    check_numbers(*value, "", {"/model/params", "/model/flops_per_token/model"}, out);
    if (!search) return check_answer(*value, "", out);
    check_answer(*value, "/best", out);
    const auto top = value->find("top");
    if (top == value->end() || !top->is_array()) contract_broken("search without a top array", out);
    for (size_t i = 0; i < top->size(); ++i) check_answer(*value, "/top/" + std::to_string(i), out);
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

// The search's work bound lowered to 50,000 layouts (gpucalc/search.hpp), so that no input
// comes near the 10 s timeout under instrumentation; the code path is the same.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  gpucalc::set_max_layouts_visited(50'000);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string evaluated = gpucalc::evaluate_json(text);
  check_envelope(evaluated, false);
  check_envelope(gpucalc::search_json(text, 3), true);
  return 0;
}
