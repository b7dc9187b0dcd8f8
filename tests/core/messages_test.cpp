// Coded messages (data/messages.json): every error, warning and default-applied note the
// core emits carries a code whose English template, filled with the message's parameters,
// is the English message, and whose Chinese template leaves no placeholder unfilled. Driven
// by tests/cli/bad_inputs.txt, the example scenarios, and a scan of core/src for the codes.
#include <catch2/catch.hpp>
#include <cctype>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "gpucalc/api.hpp"
#include "gpucalc/message.hpp"
#include "source_file.hpp"

using nlohmann::json;

namespace {

const json& table() {
  static const json t = json::parse(read_source_file("data/messages.json"));
  return t;
}

// A message's text in `lang` from its code and parameters; a {reason} whose value is a
// code renders that message with the same parameters (docs/scenario-format.md).
std::string render(const std::string& code, const json& params, const std::string& lang) {
  const std::string tmpl = table().at(code).at(lang).get<std::string>();
  const bool nests = tmpl.find("{reason}") != std::string::npos;
  gpucalc::Params ps;
  for (const auto& [k, v] : params.items()) {
    const std::string s = v.get<std::string>();
    ps.emplace_back(k, nests && k == "reason" && table().contains(s) && s != code ? render(s, params, lang) : s);
  }
  const std::string text = gpucalc::format_message(tmpl, ps);
  return lang == "en" ? gpucalc::english_singular(text) : text;
}

// One coded message {code, params, message} (an error adds path).
void check_message(const json& m) {
  INFO(m.dump());
  REQUIRE(m.contains("code"));
  const std::string code = m["code"];
  REQUIRE(table().contains(code));
  REQUIRE(m["params"].is_object());
  CHECK(render(code, m["params"], "en") == m["message"].get<std::string>());
  const std::string zh = render(code, m["params"], "zh");
  CHECK(!std::regex_search(zh, std::regex(R"(\{[a-z_]+\})")));
}

void check_answer(const json& v) {
  for (const char* list : {"warnings", "defaults_applied"}) {
    REQUIRE(v[list].is_array());
    for (const auto& m : v[list]) check_message(m);
  }
}

std::vector<std::string> bad_scenarios() {
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/tests/cli/bad_inputs.txt");
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    out.push_back(line.substr(line.find('\t') + 1));
  }
  return out;
}

}  // namespace

TEST_CASE("English count nouns take the singular after exactly one", "[messages]") {
  const gpucalc::Message m =
      gpucalc::coded("x", "uses the {n} GPUs the scenario fixes; {k} days", {{"n", "1"}, {"k", "1"}});
  CHECK(m.message == "uses the 1 GPU the scenario fixes; 1 day");
  CHECK(gpucalc::english_singular("11 GPUs, 2.1 GPUs, 1,001 GPUs, 1 GPUsx, 1 sequences, 1 steps") ==
        "11 GPUs, 2.1 GPUs, 1,001 GPUs, 1 GPUsx, 1 sequence, 1 step");
  CHECK(gpucalc::english_singular("1 micro-batches per step, 4 micro-batches, 1 layouts") ==
        "1 micro-batch per step, 4 micro-batches, 1 layout");
}

TEST_CASE("a count in prose has its thousands grouped (its parameter keeps the digits)", "[messages]") {
  const gpucalc::Message m = gpucalc::coded(
      "x", "{batch_tokens} tokens ({sequences} sequences), {tokens}; {seq_tokens}",
      {{"batch_tokens", "4194304"}, {"sequences", "1024"}, {"tokens", "4194304"}, {"seq_tokens", "4096"}});
  CHECK(m.message == "4,194,304 tokens (1024 sequences), 4194304; 4096");
  CHECK(m.params[0].second == "4194304");
  CHECK(gpucalc::format_message("{critical_tokens} and {larger_tokens}",
                                {{"critical_tokens", "67108864"}, {"larger_tokens", "123456"}}) ==
        "67,108,864 and 123,456");
  CHECK(gpucalc::format_message(
            "{gpus} GPUs, {fastest_gpus}, dp {dp}, {n}, {gpus_x}",
            {{"gpus", "16384"}, {"fastest_gpus", "24576"}, {"dp", "2048"}, {"n", "16384"}, {"gpus_x", "16384"}}) ==
        "16,384 GPUs, 24,576, dp 2048, 16384, 16384");
}

TEST_CASE("every entry of data/messages.json has an English and a Chinese template", "[messages]") {
  REQUIRE(table().size() >= 100);
  for (const auto& [code, t] : table().items()) {
    INFO(code);
    CHECK(std::regex_match(code, std::regex("[a-z][a-z0-9]*(_[a-z0-9]+)*")));
    CHECK(!t.value("en", "").empty());
    CHECK(!t.value("zh", "").empty());
    // Chinese text, not a copy of the English.
    const std::string zh = t.value("zh", "");
    CHECK(std::any_of(zh.begin(), zh.end(), [](char c) { return static_cast<unsigned char>(c) >= 0xE4; }));
  }
}

TEST_CASE("every bad input's error carries a code whose template reproduces the message", "[messages][errors]") {
  const auto rows = bad_scenarios();
  REQUIRE(rows.size() >= 100);
  for (const auto& doc : rows) {
    for (const bool search : {false, true}) {
      const json env = json::parse(search ? gpucalc::search_json(doc, 3) : gpucalc::evaluate_json(doc));
      INFO(doc);
      // Every row fails evaluate; search leaves some (a calibration) to evaluate.
      if (search && env["ok"] == true) continue;
      REQUIRE(env["ok"] == false);
      check_message(env["error"]);
    }
  }
}

TEST_CASE("every warning and default of the examples and a comparison carries a code", "[messages]") {
  size_t seen = 0;
  for (const auto& f : std::filesystem::directory_iterator(std::string(GPUCALC_SOURCE_DIR) + "/examples")) {
    const std::string doc = read_source_file("examples/" + f.path().filename().string());
    for (const std::string& out : {gpucalc::evaluate_json(doc), gpucalc::search_json(doc, 3)}) {
      const json env = json::parse(out);
      INFO(f.path().filename());
      REQUIRE(env["ok"] == true);
      check_answer(env["value"]);
      seen += env["value"]["warnings"].size() + env["value"]["defaults_applied"].size();
    }
    // Every catalog accelerator (unpriced, unknown power, low-confidence figures), for the
    // default example.
    if (f.path().filename() != "llama-3.1-70b-h100.json") continue;
    const json catalog = json::parse(gpucalc::catalog_json("gpus"));
    std::string ids;
    for (const auto& g : catalog["value"]["gpus"]) ids += (ids.empty() ? "" : ",") + g["id"].get<std::string>();
    const json cmp = json::parse(gpucalc::compare_json(doc, ids));
    INFO(cmp.dump().substr(0, 400));
    REQUIRE(cmp["ok"] == true);
    for (const auto& row : cmp["value"]["rows"]) {
      if (row["ok"] == true) {
        for (const auto& m : row["warnings"]) check_message(m);
      } else {
        check_message(row["error"]);
      }
    }
  }
  CHECK(seen > 20);
}

TEST_CASE("every code in the core's source is in data/messages.json with the same English template", "[messages]") {
  // A code is a snake_case literal followed by its English template literal(s), the shape
  // of every call that builds a coded message: fail(path, "code", "template", ...),
  // coded("code", "template"), {"code", "template"} in a table.
  // (The template is matched in a lookahead, so a code right after another literal, as in
  // bad("etp", "etp_divide_tp", "..."), is found too.)
  const std::regex call(R"re("([a-z][a-z0-9]*(?:_[a-z0-9]+)*)",\s*(?=((?:"(?:[^"\\]|\\.)*"\s*)+)[,)}]))re");
  const std::regex piece(R"re("((?:[^"\\]|\\.)*)")re");
  std::set<std::string> codes;
  for (const auto& f : std::filesystem::directory_iterator(std::string(GPUCALC_SOURCE_DIR) + "/core/src")) {
    if (f.path().extension() != ".cpp") continue;
    // The launch-config writers call launch_export.cpp's no_equivalent/approximate helpers,
    // whose literals are parameters, not codes (the codes are in launch_export.cpp).
    const std::string name = f.path().filename().string();
    if (name.rfind("launch_", 0) == 0 && name != "launch_export.cpp" && name != "launch_export_api.cpp") continue;
    const std::string src = read_source_file("core/src/" + f.path().filename().string());
    for (auto it = std::sregex_iterator(src.begin(), src.end(), call); it != std::sregex_iterator(); ++it) {
      const auto at = static_cast<size_t>(it->position(0));
      size_t before = at;  // a JSON field and its value: field("key", "value"), however wrapped
      while (before > 0 && std::isspace(static_cast<unsigned char>(src[before - 1]))) --before;
      if (before >= 6 && src.compare(before - 6, 6, "field(") == 0) continue;
      std::string en;
      const std::string lits = (*it)[2];
      for (auto p = std::sregex_iterator(lits.begin(), lits.end(), piece); p != std::sregex_iterator(); ++p)
        en += json::parse("\"" + (*p)[1].str() + "\"").get<std::string>();
      if (en.find(' ') == std::string::npos && en.find('{') == std::string::npos) continue;  // not a sentence
      const std::string code = (*it)[1];
      INFO(f.path().filename() << ": " << code);
      REQUIRE(table().contains(code));
      CHECK(table()[code]["en"] == en);
      codes.insert(code);
    }
  }
  CHECK(codes.size() >= 150);
  // And nothing in the table that the core cannot emit.
  for (const auto& [code, t] : table().items()) {
    INFO(code);
    CHECK(codes.count(code) == 1);
  }
}

namespace {

// A piece of explanatory prose (message.hpp Parts): a string is literal, an object coded.
std::string render_part(const json& part, const std::string& lang) {
  if (part.is_string()) return part.get<std::string>();
  check_message(part);
  return render(part["code"], part["params"], lang);
}

std::string render_parts(const json& parts, const std::string& lang) {
  if (!parts.is_array()) return render_part(parts, lang);
  std::string out;
  for (const auto& p : parts) out += render_part(p, lang);
  return out;
}

// Each `<field>_coded` beside an English `<field>` renders that English in English and
// leaves no placeholder in Chinese; returns how many it checked.
size_t check_prose(const json& v, std::set<std::string>& codes) {
  size_t n = 0;
  if (v.is_array())
    for (const auto& x : v) n += check_prose(x, codes);
  if (!v.is_object()) return n;
  for (const auto& [k, x] : v.items()) {
    const std::string base = k.size() > 6 && k.ends_with("_coded") ? k.substr(0, k.size() - 6) : "";
    if (base.empty()) {
      n += check_prose(x, codes);
      continue;
    }
    INFO(k << ": " << x.dump());
    REQUIRE(v.contains(base));
    if (x.is_object() && !x.contains("code")) {  // an object of prose fields (energy.sources_coded)
      for (const auto& [kk, part] : x.items()) {
        CHECK(render_parts(part, "en") == v[base][kk].get<std::string>());
        CHECK(!std::regex_search(render_parts(part, "zh"), std::regex(R"(\{[a-z_]+\})")));
        if (part.is_object()) codes.insert(part["code"].get<std::string>());
        ++n;
      }
      continue;
    }
    CHECK(render_parts(x, "en") == v[base].get<std::string>());
    CHECK(!std::regex_search(render_parts(x, "zh"), std::regex(R"(\{[a-z_]+\})")));
    for (const auto& part : x.is_array() ? x : json::array({x}))
      if (part.is_object()) codes.insert(part["code"].get<std::string>());
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("the answer's explanatory prose comes in parts the page renders in either language", "[messages]") {
  // The examples and every validation run: dense and MoE pre-training, LoRA / QLoRA under
  // PEFT, torchtune and Megatron, FSDP / ZeRO-3, torchtitan with PP, offload, FP8 and FP4.
  std::set<std::string> codes;
  size_t checked = 0;
  for (const char* dir : {"examples", "validation"}) {
    for (const auto& f : std::filesystem::directory_iterator(std::string(GPUCALC_SOURCE_DIR) + "/" + dir)) {
      if (f.path().extension() != ".json") continue;
      json doc = json::parse(read_source_file(std::string(dir) + "/" + f.path().filename().string()));
      if (doc.contains("scenario")) doc = doc["scenario"];
      if (!doc.contains("model")) continue;  // not a scenario (validation/regime-ceilings.json)
      const json env = json::parse(gpucalc::evaluate_json(doc.dump()));
      INFO(f.path().filename());
      if (env["ok"] != true) continue;
      checked += check_prose(env["value"], codes);
    }
  }
  CHECK(checked > 500);
  // The common terms and notes appear; the rarer variants are checked where they occur.
  for (const char* code :
       {"mem_f_stage_params", "mem_f_activations", "mem_f_activations_full", "mem_f_optimizer_master", "mem_f_nccl",
        "mem_s_nccl", "mem_f_fragmentation", "mem_loss_formula_megatron", "mem_loss_formula_torchtitan",
        "mem_f_weights_lora", "mem_f_weights_qlora_peft", "mem_f_gathered_zero3", "mem_f_fp8_cache",
        "price_rule_on_demand", "energy_source_pue", "goodput_source", "estimate_source",
        // the gradients' source names the stack that sets their dtype
        "mem_s_grad_megatron", "mem_s_grad_fsdp2", "mem_s_grad_hf", "mem_s_grad_torchtune", "mem_s_grad_given"}) {
    INFO(code);
    CHECK(codes.count(code) == 1);
  }
}

TEST_CASE("the gradients item cites why its dtype is what it is", "[messages]") {
  // Per stack (framework.cpp grad_source), training.grad_dtype when given, and 16 bits
  // without an fp32 master (plan.cpp state_bytes).
  const auto source_code = [](const std::string& training) {
    const json env = json::parse(gpucalc::evaluate_json(
        R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb","training":{"tokens":1e9,"seq_len":4096,"global_batch":64)" +
        training + R"(},"parallel":{"gpus":8}})"));
    REQUIRE(env["ok"] == true);
    for (const auto& it : env["value"]["memory"]["items"])
      if (it["name"] == "gradients") return it["source_coded"]["code"].get<std::string>();
    return std::string();
  };
  CHECK(source_code("") == "mem_s_grad_megatron");
  CHECK(source_code(R"(,"framework":"torchtitan")") == "mem_s_grad_fsdp2");
  CHECK(source_code(R"(,"framework":"deepspeed")") == "mem_s_grad_deepspeed");
  CHECK(source_code(R"(,"grad_dtype":"bf16")") == "mem_s_grad_given");
  CHECK(source_code(R"(,"master_weights":false)") == "mem_s_grad_no_master");
  CHECK(source_code(R"(,"master_weights":false,"framework":"torchtune")") == "mem_s_grad_torchtune");
}
