// Pieces the four launch-config writers share (launch_*.cpp): the coded warnings for a
// plan element a framework cannot express, and number formatting.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gpucalc/launch_export.hpp"

namespace gpucalc::launch {

// The writer's running state: what it writes and the warnings it has raised.
struct Out {
  const Scenario& s;
  const Layout& l;
  const char* framework;  // display name, e.g. "DeepSpeed"
  std::vector<Message> warnings;
};

// "{framework} has no option for {element} = {value}": the element is left out.
void no_equivalent(Out& o, const std::string& element, const std::string& value);
// "{framework} has no exact equivalent of {element} = {value}; the config uses {used}".
// `used` is the option as written in the config, never prose; `code` says why it only
// approximates the plan: export_approximate, or one of its variants that explains (their
// sentences are launch_export.cpp's kApproximations and data/messages.json's, in every
// language the page speaks).
void approximate(Out& o, const std::string& element, const std::string& value, const std::string& used,
                 const char* code = "export_approximate");

// A warning of its own about the framework (launch_export.cpp kFrameworkWarnings): a plan
// element it rejects at start-up (the config says what was asked, the warning what the
// framework will refuse), or one the reader must finish in code.
void framework_warning(Out& o, const char* code);

std::string num(int64_t v);
// A double as the shortest decimal that reads back the same (JSON/TOML/YAML-safe).
std::string num(double v);
// Gradient-accumulation steps (micro-batches per step per DP rank): B / (dp · b).
int64_t grad_accum(const Scenario& s, const Layout& l);
// Optimizer steps for the scenario's tokens: ceil(T / (B · s)).
int64_t train_steps(const Scenario& s);
// The selective-recompute module names, space-separated ("core_attn moe_act").
std::string recompute_module_list(unsigned bits, const char* sep);

// One writer per format.
std::string write_megatron(Out& o);
std::string write_torchtitan(Out& o);
std::string write_deepspeed(Out& o);
std::string write_llamafactory(Out& o);

}  // namespace gpucalc::launch
