// The search's pruning by step time (core/src/search.cpp cannot_beat, with the bound of
// core/src/step_time.cpp): a fitting layout whose pipeline part alone already makes it
// slower than its GPU count's best is not timed further. Over dense, MoE, fine-tune,
// missed-deadline, batch-range, fixed-count, FP8 and long-sequence scenarios, the answers
// of search_json and evaluate_json are the same text, byte for byte, with the pruning on
// and off; and the bound is never above the step time it stands for.
#include <catch2/catch.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../../core/src/compiled_problem.hpp"
#include "../../core/src/search_cache.hpp"
#include "../../core/src/search_pass.hpp"
#include "gpucalc/api.hpp"
#include "gpucalc/scenario.hpp"
#include "source_file.hpp"

using namespace gpucalc;
using json = nlohmann::ordered_json;

namespace {

json example(const char* name) { return json::parse(read_source_file(std::string("examples/") + name)); }

struct Case {
  const char* what;
  std::function<json()> scenario;
};

std::vector<Case> cases() {
  return {
      {"dense pre-training, the page's default (deadline met)", [] { return example("llama-3.1-70b-h100.json"); }},
      {"dense, deadline missed (the batch caps dp: a larger-batch search follows)",
       [] {
         json s = example("llama-3.1-70b-h100.json");
         s["target"]["days"] = 2;
         return s;
       }},
      {"dense, objective cost with a price, a budget",
       [] {
         json s = example("llama-3.1-70b-h100.json");
         s["target"] = {{"days", 45}, {"objective", "cost"}, {"max_cost", 4e7}};
         s["cost"] = {{"currency", "USD"}, {"price_per_gpu_hour", 2.5}};
         return s;
       }},
      {"dense, no deadline, batch range",
       [] {
         json s = example("llama-3.1-70b-h100.json");
         s["target"].erase("days");
         s["training"].erase("global_batch_tokens");
         s["training"]["global_batch_range"] = {{"min", 4194304}, {"max", 16777216}};
         return s;
       }},
      {"MoE (Mixtral 8x7B), deadline",
       [] {
         json s = example("llama-3.1-70b-h100.json");
         s["model"] = "mixtral-8x7b";
         s["training"]["seq_len"] = 4096;
         s["training"]["tokens"] = 2e12;
         s["target"]["days"] = 30;
         return s;
       }},
      {"MoE (Qwen3-30B-A3B), FP8, deadline missed",
       [] {
         json s = example("llama-3.1-70b-h100.json");
         s["model"] = "qwen3-30b-a3b";
         s["training"]["precision"] = "fp8";
         s["training"]["seq_len"] = 4096;
         s["target"]["days"] = 1;
         return s;
       }},
      {"full fine-tune (the article's 70B on H800)", [] { return example("article-70b-full-finetune.json"); }},
      {"LoRA on a fixed 8 GPUs", [] { return example("lora-qwen2.5-72b-8xh100.json"); }},
      {"QLoRA on an RTX 4090", [] { return example("qlora-llama-3.1-8b-rtx4090.json"); }},
      {"torchtitan FSDP, open layout",
       [] {
         json s = example("torchtitan-llama-3.1-8b-fsdp.json");
         s.erase("parallel");
         return s;
       }},
      {"long sequence (context parallelism open), 8B",
       [] {
         json s = example("llama-3.1-70b-h100.json");
         s["model"] = "llama-3.1-8b";
         s["training"]["seq_len"] = 65536;
         s["training"]["tokens"] = 1e12;
         return s;
       }},
      {"GPT-3 175B on A100 (scripts/bench)",
       [] { return json::parse(read_source_file("bench/gpt3-175b-1024-a100.json")); }},
  };
}

// Both answers with the pruning as given, each from a fresh search.
std::pair<std::string, std::string> answers(const std::string& text, bool prune) {
  set_search_pruning(prune);
  clear_search_cache();
  std::string searched = search_json(text, 10);
  clear_search_cache();
  std::string evaluated = evaluate_json(text);
  set_search_pruning(true);
  clear_search_cache();
  return {searched, evaluated};
}

}  // namespace

TEST_CASE("the pruning by step time changes no answer", "[search][prune]") {
  for (const Case& c : cases()) {
    INFO(c.what);
    const std::string text = c.scenario().dump();
    const auto [pruned_search, pruned_eval] = answers(text, true);
    const auto [full_search, full_eval] = answers(text, false);
    REQUIRE(json::parse(pruned_search)["ok"] == true);
    CHECK(pruned_search == full_search);
    CHECK(pruned_eval == full_eval);
  }
}

TEST_CASE("the step-time bound is never above the step time", "[search][prune]") {
  for (const Case& c : cases()) {
    INFO(c.what);
    auto s = parse_scenario(c.scenario().dump());
    REQUIRE(s);
    const CompiledProblem cp = compile_problem(s->problem);
    int64_t checked = 0;
    Constraints open = s->constraints;
    enumerate_layouts(s->problem, open, [&](const Layout& l) {
      if (checked >= 4000) return false;
      double bound = -1;
      StepTime st;
      REQUIRE(step_time_unless(
          cp, l,
          [&](double b) {
            bound = b;
            return false;
          },
          st));
      const StepTime plain = step_time(cp, l);
      CHECK(st.step_time_s == plain.step_time_s);  // not giving up: the same step
      if (bound >= 0) CHECK(bound <= plain.step_time_s);
      ++checked;
      return true;
    });
    CHECK(checked > 0);
  }
}
