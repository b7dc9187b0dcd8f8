// Launch-config export: every option name the four writers emit is one the framework
// itself defines (data/frameworks/*.json, read from the framework's source at a named
// commit by scripts/framework-options.py), and the values are the plan's, the same plan
// `gpucalc evaluate` reports for the scenario.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gpucalc/api.hpp"
#include "source_file.hpp"

using json = nlohmann::ordered_json;

namespace {

// name → values, in the order the text gives them.
using Options = std::multimap<std::string, std::string>;

json framework_options(const std::string& name) {
  return json::parse(read_source_file("data/frameworks/" + name + ".json"))["options"];
}

json exported(const std::string& scenario, const std::string& format) {
  const json env = json::parse(gpucalc::export_json(scenario, format));
  INFO(env.dump());
  REQUIRE(env["ok"] == true);
  return env["value"];
}

json evaluated_plan(const std::string& scenario) {
  const json env = json::parse(gpucalc::evaluate_json(scenario));
  REQUIRE(env["ok"] == true);
  return env["value"]["plan"];
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string unquote(std::string v) {
  v = trim(v);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
    return v.substr(1, v.size() - 2);
  return v;
}

// Megatron: the lines of the GPUCALC_ARGS=( ... ) bash array, "--flag [values...]".
Options parse_megatron(const std::string& text) {
  Options out;
  std::istringstream in(text);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == "GPUCALC_ARGS=(") inside = true;
    else if (line == ")") inside = false;
    else if (inside && trim(line).rfind("--", 0) == 0) {
      const std::string t = trim(line);
      const auto sp = t.find(' ');
      out.emplace(t.substr(0, sp), sp == std::string::npos ? "" : unquote(t.substr(sp + 1)));
    }
  }
  return out;
}

// TOML: "[section]" headers and "key = value" lines → "section.key".
Options parse_toml(const std::string& text) {
  Options out;
  std::istringstream in(text);
  std::string line, section;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    if (line.front() == '[') {
      section = line.substr(1, line.size() - 2);
      continue;
    }
    const auto eq = line.find(" = ");
    REQUIRE(eq != std::string::npos);
    out.emplace(section + "." + line.substr(0, eq), unquote(line.substr(eq + 3)));
  }
  return out;
}

// YAML (flat): "key: value" lines.
Options parse_yaml(const std::string& text) {
  Options out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    const auto colon = line.find(": ");
    REQUIRE(colon != std::string::npos);
    out.emplace(line.substr(0, colon), unquote(line.substr(colon + 2)));
  }
  return out;
}

// JSON: every key path, dotted ("zero_optimization.stage"), objects included.
void flatten(const json& j, const std::string& prefix, Options& out) {
  for (const auto& [k, v] : j.items()) {
    const std::string key = prefix.empty() ? k : prefix + "." + k;
    out.emplace(key, v.is_object() ? "" : v.dump());
    if (v.is_object()) flatten(v, key, out);
  }
}

// Every name is the framework's, and its value has the option's type: an int option a
// whole number, a bool option true/false, a Megatron flag no value.
void check_names(const Options& emitted, const json& known) {
  REQUIRE(!emitted.empty());
  for (const auto& [name, value] : emitted) {
    INFO(name << " = " << value);
    REQUIRE(known.contains(name));
    const std::string type = known[name];
    if (type == "int") CHECK(value.find_first_not_of("-0123456789") == std::string::npos);
    if (type == "int") CHECK(!value.empty());
    if (type == "bool") CHECK((value == "true" || value == "false"));
    if (type == "flag") CHECK(value.empty());
  }
}

std::string one(const Options& o, const std::string& key) {
  INFO(key);
  REQUIRE(o.count(key) == 1);
  return o.find(key)->second;
}

std::string s(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// A dense Llama 3.1 70B layout fixed by the scenario: tp 8, pp 4 with 5 virtual stages,
// dp 8, selective recompute of core attention, the distributed optimizer.
const char* kDense = R"({"model":"llama-3.1-70b","gpu":"h100-sxm-80gb",
  "training":{"tokens":1e12,"seq_len":8192,"global_batch":1024,"micro_batch":1,"recompute":"selective",
              "zero_stage":1,"precision":"fp8","fp8_recipe":"delayed"},
  "parallel":{"tp":8,"pp":4,"vpp":5,"dp":8,"cp":1}})";

}  // namespace

TEST_CASE("Megatron export: dense 70B, names from arguments.py, values from the plan", "[export]") {
  const json v = exported(kDense, "megatron");
  const Options o = parse_megatron(v["text"]);
  check_names(o, framework_options("megatron"));
  const json plan = evaluated_plan(kDense);
  CHECK(one(o, "--tensor-model-parallel-size") == s(plan["tp"]));
  CHECK(one(o, "--pipeline-model-parallel-size") == s(plan["pp"]));
  CHECK(one(o, "--num-virtual-stages-per-pipeline-rank") == s(plan["vpp"]));
  CHECK(one(o, "--context-parallel-size") == s(plan["cp"]));
  CHECK(one(o, "--micro-batch-size") == s(plan["micro_batch"]));
  CHECK(one(o, "--global-batch-size") == "1024");
  CHECK(one(o, "--seq-length") == "8192");
  // ceil(1e12 / (1024 · 8192)) = 119210 steps of 1024 samples.
  CHECK(one(o, "--train-samples") == std::to_string(119210LL * 1024));
  CHECK(one(o, "--recompute-granularity") == "selective");
  CHECK(one(o, "--recompute-modules") == "core_attn");
  CHECK(o.count("--use-distributed-optimizer") == 1);
  CHECK(one(o, "--fp8-recipe") == "delayed");
  CHECK(one(o, "--num-query-groups") == "8");
  CHECK(one(o, "--num-layers") == "80");
  CHECK(o.count("--sequence-parallel") == 1);
  // tp · pp · dp · cp = 256 GPUs, as the plan reports.
  CHECK(v["plan"]["gpus"] == 256);
  CHECK(v["plan"]["gpus"] == plan["gpus"]);
  // ZeRO-1 maps to the distributed optimizer, which also shards gradients: said, not hidden.
  bool approx = false;
  for (const auto& w : v["warnings"])
    approx |= w["code"] == "export_approximate_distopt" && w["params"]["element"] == "zero_stage";
  CHECK(approx);
}

TEST_CASE("Megatron and torchtitan export: a MoE with expert parallelism", "[export]") {
  const std::string scenario = read_source_file("examples/deepseek-v3-moe-h800.json");
  const json plan = evaluated_plan(scenario);
  REQUIRE(plan["ep"].get<int>() > 1);
  const Options m = parse_megatron(exported(scenario, "megatron")["text"]);
  check_names(m, framework_options("megatron"));
  CHECK(one(m, "--expert-model-parallel-size") == s(plan["ep"]));
  CHECK(one(m, "--expert-tensor-parallel-size") == s(plan["etp"]));
  CHECK(one(m, "--num-experts") == "256");
  CHECK(one(m, "--moe-router-topk") == "8");
  // DeepSeek-V3: the first 3 of 61 layers keep a dense MLP.
  CHECK(one(m, "--moe-layer-freq") == "([0]*3+[1]*58)");
  CHECK(one(m, "--moe-flex-dispatcher-backend") == "deepep");
  CHECK(m.count("--moe-permute-fusion-into-hybridep") == 0);
  // Its MTP module and auxiliary-loss-free balancing (sigmoid scores, per-expert bias).
  CHECK(one(m, "--mtp-num-layers") == "1");
  CHECK(one(m, "--moe-router-score-function") == "sigmoid");
  CHECK(m.count("--moe-router-enable-expert-bias") == 1);
  // Node-limited routing: 8 expert groups, a token's experts from at most 4.
  CHECK(one(m, "--moe-router-num-groups") == "8");
  CHECK(one(m, "--moe-router-group-topk") == "4");
  // gpt-oss: biases on every linear (no --disable-bias-linear), the router's its own, no MTP.
  const json gx = exported(R"({"model":"gpt-oss-120b","gpu":"h100-sxm-80gb",
    "training":{"tokens":1e11,"seq_len":4096,"global_batch":512},"parallel":{"tp":1,"pp":1,"dp":64,"ep":8}})",
                           "megatron");
  const Options g = parse_megatron(gx["text"]);
  check_names(g, framework_options("megatron"));
  // Its clamped activation: Megatron-Core's quick-GELU GLU, the clamp and offset noted as
  // set in code (not as an element the config leaves out: --quick-geglu is there).
  CHECK(g.count("--quick-geglu") == 1);
  CHECK(g.count("--swiglu") == 0);
  int clamp_notes = 0;
  for (const auto& w : gx["warnings"]) {
    clamp_notes += w["code"] == "export_clamp_in_code";
    CHECK_FALSE((w["code"] == "export_no_equivalent" && w["params"]["element"] == "model.ffn_act"));
  }
  CHECK(clamp_notes == 1);
  CHECK(g.count("--disable-bias-linear") == 0);
  CHECK(g.count("--moe-router-enable-expert-bias") == 0);
  CHECK(g.count("--mtp-num-layers") == 0);
  CHECK(one(g, "--window-size") == "128,0");
  // YaRN with its attention factor 1.3466 = 0.1·ln 32 + 1: Megatron-LM's scaling factor 32.
  CHECK(one(g, "--position-embedding-type") == "yarn");
  CHECK(one(g, "--rotary-scaling-factor") == "32");
  CHECK(one(g, "--window-attn-skip-freq") == "2");
  const Options t = parse_toml(exported(scenario, "torchtitan")["text"]);
  check_names(t, framework_options("torchtitan"));
  CHECK(one(t, "parallelism.expert_parallel_degree") == s(plan["ep"]));
  CHECK(one(t, "parallelism.tensor_parallel_degree") == s(plan["tp"]));
  // The permutation fused into the dispatch is HybridEP's: its backend and its flag.
  const Options f = parse_megatron(exported(R"({"model":"qwen3-30b-a3b","gpu":"h100-sxm-80gb",
    "training":{"tokens":1e11,"seq_len":4096,"global_batch":512,"moe_dispatcher":"deepep","moe_permute_fusion":true},
    "parallel":{"tp":1,"pp":1,"dp":16,"ep":16}})",
                                            "megatron")["text"]);
  check_names(f, framework_options("megatron"));
  CHECK(one(f, "--moe-token-dispatcher-type") == "flex");
  CHECK(one(f, "--moe-flex-dispatcher-backend") == "hybridep");
  CHECK(f.count("--moe-permute-fusion-into-hybridep") == 1);
  const json tt = exported(R"({"model":"qwen3-30b-a3b","gpu":"h100-sxm-80gb","training":{"tokens":1e11,
    "seq_len":4096,"global_batch":512,"moe_dispatcher":"deepep","moe_permute_fusion":true},
    "parallel":{"tp":1,"pp":1,"dp":16,"ep":16}})",
                           "torchtitan");
  bool said = false;
  for (const auto& w : tt["warnings"])
    said |= w["code"] == "export_no_equivalent" && w["params"]["element"] == "training.moe_permute_fusion";
  CHECK(said);
}

TEST_CASE("torchtitan and DeepSpeed export: FSDP / ZeRO-3 on 8 GPUs", "[export]") {
  const std::string scenario = read_source_file("examples/torchtitan-llama-3.1-8b-fsdp.json");
  // The scenario fixes dp 8, micro-batch 2, global batch 16, ZeRO-3: one micro-batch per step.
  const json tv = exported(scenario, "torchtitan");
  const Options t = parse_toml(tv["text"]);
  check_names(t, framework_options("torchtitan"));
  CHECK(one(t, "parallelism.data_parallel_shard_degree") == "8");
  CHECK(one(t, "parallelism.data_parallel_replicate_degree") == "1");
  CHECK(one(t, "parallelism.tensor_parallel_degree") == "1");
  CHECK(one(t, "training.local_batch_size") == "2");
  CHECK(one(t, "training.global_batch_size") == "16");
  CHECK(one(t, "training.seq_len") == "8192");
  CHECK(one(t, "activation_checkpoint.mode") == "selective");
  CHECK(tv["warnings"].size() == 1);  // selective by op is not Megatron's module list
  CHECK(tv["warnings"][0]["code"] == "export_approximate_per_op");

  const json dv = exported(scenario, "deepspeed");
  const json ds = json::parse(dv["text"].get<std::string>());
  Options d;
  flatten(ds, "", d);
  check_names(d, framework_options("deepspeed"));
  CHECK(ds["zero_optimization"]["stage"] == 3);
  CHECK(ds["train_micro_batch_size_per_gpu"] == 2);
  CHECK(ds["train_batch_size"] == 16);
  // DeepSpeed's identity: train_batch_size = micro-batch · accumulation · dp = 2 · 1 · 8.
  CHECK(ds["gradient_accumulation_steps"] == 1);
  CHECK(ds["bf16"]["enabled"] == true);
}

TEST_CASE("DeepSpeed export: hybrid sharding and model parallelism become coded warnings", "[export]") {
  const char* scenario = R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb",
    "training":{"tokens":1e11,"seq_len":4096,"global_batch":256,"micro_batch":2,"zero_stage":2,"framework":"deepspeed"},
    "parallel":{"tp":2,"pp":1,"dp":16,"cp":1,"shard":8}})";
  const json v = exported(scenario, "deepspeed");
  const json ds = json::parse(v["text"].get<std::string>());
  CHECK(ds["zero_optimization"]["stage"] == 2);
  CHECK(ds["gradient_accumulation_steps"] == 256 / (16 * 2));
  std::set<std::string> elements;
  for (const auto& w : v["warnings"]) {
    CHECK(w["code"] == "export_no_equivalent");
    CHECK(w["params"]["framework"] == "DeepSpeed");
    elements.insert(w["params"]["element"].get<std::string>());
  }
  CHECK(elements == std::set<std::string>{"parallel.tp", "parallel.shard"});
}

TEST_CASE("LLaMA-Factory export: LoRA and QLoRA fine-tunes", "[export]") {
  const std::string lora = read_source_file("examples/lora-qwen2.5-72b-8xh100.json");
  const json plan = evaluated_plan(lora);
  const json v = exported(lora, "llamafactory");
  const Options y = parse_yaml(v["text"]);
  check_names(y, framework_options("llamafactory"));
  CHECK(one(y, "finetuning_type") == "lora");
  CHECK(one(y, "lora_rank") == "64");
  CHECK(one(y, "lora_alpha") == "128");
  CHECK(one(y, "optim") == "adamw_bnb_8bit");
  CHECK(one(y, "per_device_train_batch_size") == s(plan["micro_batch"]));
  CHECK(one(y, "gradient_accumulation_steps") == s(plan["micro_batches"]));
  CHECK(one(y, "cutoff_len") == "4096");
  // max_steps counts rows of cutoff_len tokens, which LLaMA-Factory fills only with packing
  // (a 50,000 × 1,024-token dataset at cutoff 2,048 stopped halfway without it).
  CHECK(one(y, "packing") == "true");
  CHECK(y.count("neat_packing") == 0);
  const json job = json::parse(lora)["training"];
  const double rows = job["global_batch"].get<double>() * job["seq_len"].get<double>();
  CHECK(one(y, "max_steps") == std::to_string(static_cast<int64_t>(std::ceil(job["tokens"].get<double>() / rows))));
  if (plan["tp"].get<int>() > 1) {
    bool tp_warned = false;
    for (const auto& w : v["warnings"]) tp_warned |= w["params"].value("element", "") == "parallel.tp";
    CHECK(tp_warned);
  }

  const Options q =
      parse_yaml(exported(read_source_file("examples/qlora-llama-3.1-8b-rtx4090.json"), "llamafactory")["text"]);
  check_names(q, framework_options("llamafactory"));
  CHECK(one(q, "quantization_bit") == "4");
  CHECK(one(q, "quantization_type") == "nf4");
  CHECK(one(q, "lora_target") == "all");

  // Under framework hf: PEFT's fp32 upcast maps to upcast_layernorm (approximately: the
  // embedding and head stay 16-bit in LLaMA-Factory); false is LLaMA-Factory's default.
  json hf = json::parse(read_source_file("examples/qlora-llama-3.1-8b-rtx4090.json"));
  hf["training"]["framework"] = "hf";
  const json up = exported(hf.dump(), "llamafactory");
  CHECK(one(parse_yaml(up["text"]), "upcast_layernorm") == "true");
  bool noted = false;
  for (const auto& w : up["warnings"]) noted |= w["params"].value("element", "") == "training.lora.fp32_upcast";
  CHECK(noted);
  hf["training"]["lora"]["fp32_upcast"] = false;
  const json off = exported(hf.dump(), "llamafactory");
  CHECK(one(parse_yaml(off["text"]), "upcast_layernorm") == "false");
  for (const auto& w : off["warnings"]) CHECK(w["params"].value("element", "") != "training.lora.fp32_upcast");
}

TEST_CASE("packed documents: LLaMA-Factory's neat packing, a coded note elsewhere", "[export]") {
  json lora = json::parse(read_source_file("examples/lora-qwen2.5-72b-8xh100.json"));
  lora["training"]["packed_document_tokens"] = 512;
  const Options y = parse_yaml(exported(lora.dump(), "llamafactory")["text"]);
  check_names(y, framework_options("llamafactory"));
  CHECK(one(y, "packing") == "true");
  CHECK(one(y, "neat_packing") == "true");
  const json messages = json::parse(read_source_file("data/messages.json"));
  for (const char* format : {"megatron", "torchtitan", "deepspeed"}) {
    INFO(format);
    const json v = exported(lora.dump(), format);
    bool noted = false;
    for (const auto& w : v["warnings"])
      if (w["code"] == "export_packing_in_data") {
        noted = true;
        CHECK(w["params"]["value"] == "512");
        for (const char* lang : {"en", "zh"})
          for (const auto& [k, val] : w["params"].items())
            CHECK(messages["export_packing_in_data"][lang].get<std::string>().find("{" + k + "}") != std::string::npos);
      }
    CHECK(noted);
  }
}

TEST_CASE("LLaMA-Factory export refuses pre-training, naming /training/stage", "[export]") {
  const json env =
      json::parse(gpucalc::export_json(read_source_file("examples/llama-3.1-70b-h100.json"), "llamafactory"));
  CHECK(env["ok"] == false);
  CHECK(env["error"]["path"] == "/training/stage");
  CHECK(env["error"]["code"] == "export_needs_finetune");
  const json bad = json::parse(gpucalc::export_json(kDense, "nemo"));
  CHECK(bad["error"]["code"] == "export_format_unknown");
  CHECK(bad["error"]["params"]["format"] == "nemo");
}

TEST_CASE("every export warning code has en and zh templates naming its params", "[export]") {
  const json messages = json::parse(read_source_file("data/messages.json"));
  const std::vector<std::pair<std::string, std::string>> runs = {
      {kDense, "torchtitan"},
      {kDense, "deepspeed"},
      {read_source_file("examples/lora-qwen2.5-72b-8xh100.json"), "llamafactory"}};
  for (const auto& [scenario, format] : runs) {
    const json v = exported(scenario, format);  // kept alive: the loop walks into it
    for (const auto& w : v["warnings"]) {
      const std::string code = w["code"];
      INFO(code);
      REQUIRE(messages.contains(code));
      for (const char* lang : {"en", "zh"}) {
        const std::string tpl = messages[code][lang];
        for (const auto& [k, val] : w["params"].items()) CHECK(tpl.find("{" + k + "}") != std::string::npos);
      }
    }
  }
}

TEST_CASE("each framework list records its repository, commit and date", "[export]") {
  for (const char* f : {"megatron", "torchtitan", "deepspeed", "llamafactory"}) {
    const json d = json::parse(read_source_file(std::string("data/frameworks/") + f + ".json"));
    INFO(f);
    CHECK(d["source"]["commit"].get<std::string>().size() == 40);
    CHECK(!d["source"]["date"].get<std::string>().empty());
    CHECK(d["source"]["repository"].get<std::string>().rfind("https://github.com/", 0) == 0);
    CHECK(d["options"].size() > 50);
  }
}

TEST_CASE("Megatron export: sliding windows as --window-size and --window-attn-skip-freq", "[export][sliding_window]") {
  const auto megatron = [](const std::string& model) {
    const json v =
        exported(R"({"model":)" + model +
                     R"(,"gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":8192,"global_batch":256},)"
                     R"("parallel":{"gpus":64}})",
                 "megatron");
    return std::pair<Options, json>{parse_megatron(v["text"]), v["warnings"]};
  };
  // Gemma 3 27B: 52 of 62 layers over 1,024 tokens, one full layer in six: N = 6 (⌊62/6⌋ = 10 full).
  const auto [g3, w3] = megatron(R"("gemma-3-27b")");
  check_names(g3, framework_options("megatron"));
  CHECK(one(g3, "--window-size") == "1024,0");
  CHECK(one(g3, "--window-attn-skip-freq") == "6");
  // Every layer windowed: no skip frequency.
  const auto [all, wa] = megatron(R"({"base":"llama-3.1-8b","sliding_window":4096})");
  CHECK(one(all, "--window-size") == "4096,0");
  CHECK(all.count("--window-attn-skip-freq") == 0);
  // 5 of 32 windowed fits no N: a coded note, no guessed pattern.
  const auto [odd, wo] = megatron(R"({"base":"llama-3.1-8b","sliding_window":4096,"sliding_window_layers":5})");
  CHECK(odd.count("--window-attn-skip-freq") == 0);
  bool noted = false;
  for (const auto& w : wo)
    noted = noted || (w["code"] == "export_no_equivalent" && w["params"]["element"] == "model.sliding_window_layers");
  CHECK(noted);
}

TEST_CASE("Megatron export: CUDA graphs as --cuda-graph-impl and --cuda-graph-scope", "[export]") {
  json moe = json::parse(read_source_file("examples/deepseek-v3-moe-h800.json"));
  const auto args = [&](const char* mode) {
    moe["training"]["cuda_graphs"] = mode;
    return parse_megatron(exported(moe.dump(), "megatron")["text"]);
  };
  const Options per_layer = args("per_layer");
  check_names(per_layer, framework_options("megatron"));
  CHECK(one(per_layer, "--cuda-graph-impl") == "transformer_engine");
  CHECK(one(per_layer, "--cuda-graph-scope") == "attn moe_router moe_preprocess");
  const Options full = args("full_iteration");
  CHECK(one(full, "--cuda-graph-impl") == "local");
  CHECK(one(full, "--cuda-graph-scope") == "full_iteration");
  CHECK(args("none").count("--cuda-graph-impl") == 0);
  // A dense model's per-layer graphs take its attention and MLP (no router to capture).
  json dense = json::parse(kDense);
  dense["training"]["cuda_graphs"] = "per_layer";
  const Options d = parse_megatron(exported(dense.dump(), "megatron")["text"]);
  check_names(d, framework_options("megatron"));
  CHECK(one(d, "--cuda-graph-impl") == "transformer_engine");
  CHECK(one(d, "--cuda-graph-scope") == "attn mlp");
}

TEST_CASE("Megatron export: NVFP4 as --fp4-format e2m1 --fp4-recipe nvfp4", "[export][fp4]") {
  // Megatron-Bridge's bf16_with_nvfp4_mixed: fp4 "e2m1", fp4_recipe "nvfp4", the parameter
  // all-gather in FP4 (the gather gpucalc prices at 0.5625 B per weight).
  const char* scenario = R"({"model":"llama-3.1-70b","gpu":"gb200-186gb",
    "training":{"tokens":1e12,"seq_len":8192,"global_batch":256,"micro_batch":1,"precision":"fp4","zero_stage":1},
    "parallel":{"tp":2,"pp":4,"vpp":5,"dp":8,"cp":1}})";
  const json v = exported(scenario, "megatron");
  const Options o = parse_megatron(v["text"]);
  check_names(o, framework_options("megatron"));
  CHECK(one(o, "--fp4-format") == "e2m1");
  CHECK(one(o, "--fp4-recipe") == "nvfp4");
  CHECK(o.count("--fp4-param-gather") == 1);
  CHECK(o.count("--bf16") == 1);
  CHECK(o.count("--fp8-format") == 0);
  // DeepSpeed has no FP4 training: said, not silently dropped.
  const json ds = exported(scenario, "deepspeed");
  bool said = false;
  for (const auto& w : ds["warnings"])
    said = said || (w["code"] == "export_no_equivalent" && w["params"]["element"] == "training.precision");
  CHECK(said);
}

TEST_CASE("Ulysses context parallelism: Megatron's --cp-comm-type a2a, no torchtitan equivalent", "[export]") {
  const json row = json::parse(read_source_file("validation/mindspeed_llama2_7b_fullft_32k_8xascend_a2.json"));
  const std::string scenario = row["scenario"].dump();
  const Options m = parse_megatron(exported(scenario, "megatron")["text"]);
  check_names(m, framework_options("megatron"));
  CHECK(one(m, "--context-parallel-size") == "4");
  CHECK(one(m, "--cp-comm-type") == "a2a");
  const json t = exported(scenario, "torchtitan");
  bool warned = false;
  for (const auto& w : t["warnings"]) warned |= w["params"].value("element", "") == "training.cp_comm";
  CHECK(warned);
  json ring = row["scenario"];
  ring["training"].erase("cp_comm");
  CHECK(parse_megatron(exported(ring.dump(), "megatron")["text"]).count("--cp-comm-type") == 0);
}

TEST_CASE("Megatron export: the EP all-to-all overlap, and what Megatron-Core refuses with it", "[export][moe]") {
  // training.overlap_moe_comm -> --overlap-moe-expert-parallel-comm. Megatron-Core's
  // TransformerConfig asserts expert parallelism, virtual stages when pp > 1 and no full
  // recomputation for it (transformer_config.py): a plan that breaks one is exported as
  // asked, with a coded warning naming what the run would stop on.
  const auto run = [](const std::string& parallel, const char* recompute) {
    const std::string s = R"({"model":"qwen3-30b-a3b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096,
      "global_batch":256,"micro_batch":1,"precision":"bf16","overlap_moe_comm":true,"recompute":")" +
                          std::string(recompute) + R"("},"parallel":)" + parallel + "}";
    const json v = exported(s, "megatron");
    std::set<std::string> codes;
    for (const auto& w : v["warnings"]) codes.insert(w["code"].get<std::string>());
    return std::pair<Options, std::set<std::string>>{parse_megatron(v["text"]), codes};
  };
  const auto [ok, ok_codes] = run(R"({"gpus":8,"tp":1,"pp":2,"vpp":2,"dp":4,"ep":4})", "selective");
  check_names(ok, framework_options("megatron"));
  CHECK(ok.count("--overlap-moe-expert-parallel-comm") == 1);
  CHECK(ok_codes.count("export_moe_overlap_needs_vpp") == 0);
  CHECK(ok_codes.count("export_moe_overlap_needs_ep") == 0);
  CHECK(ok_codes.count("export_moe_overlap_full_recompute") == 0);
  const auto [flat, flat_codes] = run(R"({"gpus":8,"tp":1,"pp":2,"vpp":1,"dp":4,"ep":1})", "full");
  CHECK(flat.count("--overlap-moe-expert-parallel-comm") == 1);
  CHECK(flat_codes.count("export_moe_overlap_needs_vpp") == 1);
  CHECK(flat_codes.count("export_moe_overlap_needs_ep") == 1);
  CHECK(flat_codes.count("export_moe_overlap_full_recompute") == 1);
}
