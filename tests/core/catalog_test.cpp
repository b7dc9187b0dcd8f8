// The catalogs (data/gpus.json, data/models.json): every accelerator of the reference
// catalog is present with its provenance, spot values are pinned to the reference, and
// the model presets parse with the shape fields the parameter count needs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gpucalc/api.hpp"
#include "gpucalc/hardware.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/perf.hpp"
#include "gpucalc/scenario.hpp"
#include "source_file.hpp"

using namespace gpucalc;
using json = nlohmann::ordered_json;

namespace {

json read_data(const std::string& name) { return json::parse(read_source_file("data/" + name), nullptr, false); }

const Gpu& gpu(const std::string& id) {
  const Gpu* g = find_gpu(id);
  INFO(id);
  REQUIRE(g != nullptr);
  return *g;
}

bool known_confidence(const std::string& c) { return c == "high" || c == "medium" || c == "low"; }

const char* const kSpecKeys[] = {"memory_gib",    "bf16_tflops", "fp16_tflops",    "fp8_tflops",    "fp4_tflops",
                                 "memory_bw_tbs", "scaleup_gbs", "scaleup_domain", "scaleout_gbps", "tdp_w"};

}  // namespace

// The wasm build embeds data/gpus.json and data/models.json without the entries' prose
// (notes, least_sure, export_control, a preset's source, the maker's name ...;
// core/slim_data.mjs), which no answer prints; the native core keeps it.
#ifdef __EMSCRIPTEN__
constexpr bool kCatalogProse = false;
#else
constexpr bool kCatalogProse = true;
#endif

TEST_CASE("the GPU catalog holds all 33 reference accelerators and GB300 under unique ids", "[catalog]") {
  CHECK(gpu_catalog().size() >= 34);
  std::set<std::string> ids;
  for (const auto& g : gpu_catalog()) {
    INFO(g.id);
    CHECK(ids.insert(g.id).second);
    CHECK(g.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") == std::string::npos);
    CHECK_FALSE(g.name.empty());
    CHECK(g.vendor.empty() == !kCatalogProse);
    CHECK_FALSE(g.arch.empty());
  }
  // The ids the issues name, and one per reference entry added by the catalogs issue.
  for (const char* id : {"a100-sxm-40gb",    "a100-sxm-80gb",  "h100-sxm-80gb", "h800-sxm-80gb",  "h20-96gb",
                         "h200-sxm-141gb",   "ascend-910b",    "mi300x-192gb",  "v100-sxm2-32gb", "a800-sxm-80gb",
                         "h100-pcie-80gb",   "b200-180gb",     "b300-288gb",    "gb200-186gb",    "l40s-48gb",
                         "rtx-4090-24gb",    "rtx-5090-32gb",  "mi250x-128gb",  "mi325x-256gb",   "mi355x-288gb",
                         "gaudi2-96gb",      "gaudi3-128gb",   "ascend-910c",   "hygon-k100-ai",  "cambricon-mlu370-x8",
                         "cambricon-mlu590", "kunlunxin-p800", "tpu-v4",        "tpu-v5e",        "tpu-v5p",
                         "tpu-v6e",          "trainium1",      "trainium2",     "gb300-279gb"}) {
    INFO(id);
    CHECK(find_gpu(id) != nullptr);
  }
}

TEST_CASE("every catalog number carries a source and a confidence", "[catalog]") {
  const json doc = read_data("gpus.json");
  REQUIRE(doc.is_object());
  const json& sources = doc["sources"];
  REQUIRE(sources.is_object());
  REQUIRE(doc["gpus"].size() == gpu_catalog().size());
  int numbers = 0;
  for (const auto& e : doc["gpus"]) {
    const std::string id = e.value("id", "");
    for (const char* key : kSpecKeys) {
      INFO(id << " " << key);
      REQUIRE(e.contains(key));  // present, null when unknown
      const json& s = e[key];
      if (s.is_null()) continue;
      REQUIRE(s.is_object());
      CHECK(s["value"].is_number());
      CHECK(known_confidence(s.value("confidence", "")));
      // A source key resolving to a citation, or an explicit general-knowledge mark.
      const bool unsourced = s.value("unsourced", false);
      if (!unsourced) {
        REQUIRE(s["source"].is_string());
        CHECK(sources.contains(s["source"].get<std::string>()));
      }
      ++numbers;
    }
    // Achieved efficiencies live in data/perf.json (the performance model), not here.
    CHECK_FALSE(e.contains("efficiency"));
  }
  CHECK(numbers > 200);
  // The parsed catalog keeps the same provenance.
  for (const auto& g : gpu_catalog()) {
    for (const Spec* s : {&g.memory_gib, &g.bf16_tflops, &g.fp16_tflops, &g.fp8_tflops, &g.fp4_tflops, &g.memory_bw_tbs,
                          &g.scaleup_gbs, &g.scaleup_domain, &g.scaleout_gbps, &g.tdp_w}) {
      INFO(g.id);
      if (s->value) CHECK(known_confidence(s->confidence));
    }
  }
}

TEST_CASE("catalog prices are dated, sourced and in USD or CNY", "[catalog][prices]") {
  const json doc = read_data("gpus.json");
  int prices = 0;
  for (const auto& e : doc["gpus"]) {
    INFO(e.value("id", ""));
    REQUIRE(e["prices"].is_array());
    for (const auto& p : e["prices"]) {
      const json& v = p["value"];
      CHECK((v.is_null() || v.is_number() || (v.is_array() && v.size() == 2)));
      const std::string cur = p.value("currency", "");
      CHECK((cur == "USD" || cur == "CNY"));
      CHECK_FALSE(p.value("unit", "").empty());
      CHECK(doc["sources"].contains(p.value("source", "")));
      CHECK(known_confidence(p.value("confidence", "")));
      // Its type in Chinese beside the English (the Chinese page shows it: locales/zh.js).
      const std::string zh = p.value("type_zh", "");
      CHECK_FALSE(p.value("type", "").empty());
      CHECK(std::any_of(zh.begin(), zh.end(), [](char c) { return static_cast<unsigned char>(c) >= 0xE4; }));
      // A date in words ("early 2026", "~2026-10-20 (inferred)") has its Chinese beside it.
      const std::string date = p.value("date", "");
      if (std::any_of(date.begin(), date.end(),
                      [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; })) {
        const std::string date_zh = p.value("date_zh", "");
        INFO(date);
        CHECK(
            std::any_of(date_zh.begin(), date_zh.end(), [](char c) { return static_cast<unsigned char>(c) >= 0xE4; }));
      }
      ++prices;
    }
  }
  CHECK(prices >= 15);
  const Gpu& h100 = gpu("h100-sxm-80gb");
  REQUIRE_FALSE(h100.prices.empty());
  CHECK(h100.prices[0].value == 3.78);
  CHECK(h100.prices[0].currency == "USD");
  CHECK(h100.prices[0].unit == "per GPU-hour");
  CHECK(h100.prices[0].date == "2026-05-07");
  CHECK(h100.prices[0].source == "TECHBYTES");
  const Gpu& a100 = gpu("a100-sxm-80gb");  // a range
  REQUIRE(a100.prices.size() == 1);
  CHECK(a100.prices[0].value == 1.49);
  CHECK(a100.prices[0].value_max == 2.49);
  const Gpu& a800 = gpu("a800-sxm-80gb");  // China rental market, CNY
  REQUIRE_FALSE(a800.prices.empty());
  CHECK(a800.prices[0].currency == "CNY");
  const Gpu& gaudi2 = gpu("gaudi2-96gb");  // known to exist, value not retrieved
  REQUIRE(gaudi2.prices.size() == 1);
  CHECK_FALSE(gaudi2.prices[0].value.has_value());
}

TEST_CASE("spot values match the reference catalog", "[catalog]") {
  const Gpu& h100 = gpu("h100-sxm-80gb");
  CHECK(h100.bf16_tflops.value == 989);
  CHECK(h100.fp8_tflops.value == 1979);
  CHECK(h100.memory_bw_tbs.value == 3.35);
  CHECK(h100.memory_gib.value == 80);
  const Gpu& h20 = gpu("h20-96gb");
  CHECK(h20.bf16_tflops.value == 148);
  CHECK(h20.fp8_tflops.value == 296);
  CHECK(h20.memory_gib.value == 96);
  CHECK(h20.memory_bw_tbs.value == 4.0);
  const Gpu& a910b = gpu("ascend-910b");
  CHECK(a910b.bf16_tflops.value == 353.89);
  CHECK(a910b.memory_gib.value == 64);
  // Huawei publishes none: 910C's 3.2 TB/s over its two 910B-class dies, low confidence.
  CHECK(a910b.memory_bw_tbs.value == 1.6);
  CHECK(a910b.memory_bw_tbs.confidence == "low");
  const Gpu& mi300x = gpu("mi300x-192gb");
  CHECK(mi300x.bf16_tflops.value == 1307.4);
  CHECK(mi300x.memory_gib.value == 192);
  // New entries.
  CHECK(gpu("b300-288gb").bf16_tflops.value == 2250);
  CHECK(gpu("gb200-186gb").scaleup_domain.value == 72);
  // GB300 (Verda's per-GPU table without sparsity; NVIDIA's NVL72 reference architecture):
  // BF16, FP8, usable memory, TDP, NVLink domain, scale-out per GPU.
  const Gpu& gb300 = gpu("gb300-279gb");
  CHECK(std::vector<std::optional<double>>{gb300.bf16_tflops.value, gb300.fp8_tflops.value, gb300.memory_gib.value,
                                           gb300.tdp_w.value, gb300.scaleup_domain.value, gb300.scaleout_gbps.value} ==
        std::vector<std::optional<double>>{2500, 5000, 279, 1400, 72, 800});
  CHECK(gpu("mi355x-288gb").bf16_tflops.value == 2516.6);
  CHECK(gpu("gaudi2-96gb").bf16_tflops.value == 432);
  CHECK(gpu("ascend-910c").bf16_tflops.value == 752);
  CHECK(gpu("ascend-910c").bf16_tflops.confidence == "medium");
  CHECK(gpu("ascend-910c").scaleup_domain.value == 384);
  CHECK(gpu("hygon-k100-ai").bf16_tflops.value == 196);
  CHECK(gpu("cambricon-mlu370-x8").bf16_tflops.value == 96);
  CHECK(gpu("tpu-v5e").bf16_tflops.value == 197);
  CHECK(gpu("tpu-v6e").bf16_tflops.value == 918);
  CHECK(gpu("trainium1").bf16_tflops.value == 190);
  CHECK(gpu("trainium2").fp8_tflops.value == 1299);
  CHECK(gpu("rtx-4090-24gb").bf16_tflops.value == 165.2);  // FP32-accumulate rate
}

TEST_CASE("TPU and Trainium memory is stored as the GiB the vendor states", "[catalog]") {
  // The reference converts these to decimal GB (34.4, 102, 34.4, 103).
  CHECK(gpu("tpu-v4").memory_gib.value == 32);
  CHECK(gpu("tpu-v5p").memory_gib.value == 95);
  CHECK(gpu("trainium1").memory_gib.value == 32);
  CHECK(gpu("trainium2").memory_gib.value == 96);
}

TEST_CASE("accelerators without published figures stay unknown and are refused by name", "[catalog]") {
  for (const char* id : {"kunlunxin-p800", "cambricon-mlu590"}) {
    INFO(id);
    const Gpu& g = gpu(id);
    CHECK_FALSE(g.memory_gib.value.has_value());
    CHECK_FALSE(g.bf16_tflops.value.has_value());
    if (kCatalogProse) CHECK_FALSE(g.least_sure.empty());
    const json env =
        json::parse(evaluate_json(std::string(R"({"model":"llama-3.1-8b","gpu":")") + id +
                                  R"(","training":{"tokens":1e12,"seq_len":4096},"parallel":{"gpus":64}})"));
    CHECK(env["ok"] == false);
    CHECK(env["error"]["path"] == "/gpu/memory_gib");
  }
  // Unknown TDPs stay null rather than guessed (910C's 800 W is derived: two 910B dies).
  for (const char* id : {"tpu-v4", "tpu-v5p", "trainium2"}) {
    INFO(id);
    CHECK_FALSE(gpu(id).tdp_w.value.has_value());
  }
  CHECK(gpu("ascend-910c").tdp_w.value == 800);
  CHECK(gpu("ascend-910c").tdp_w.confidence == "low");
}

TEST_CASE("catalog completeness: the seven key specs, and what an incomplete entry does", "[catalog]") {
  // missing_specs lists what the time, memory and energy models need and the entry lacks;
  // the page offers only entries where it is empty (scripts/assemble-dist.mjs, web/presets.js).
  std::set<std::string> complete;
  for (const Gpu& g : gpu_catalog())
    if (missing_specs(g).empty()) complete.insert(g.id);
  // Every accelerator of the "国产 vs 英伟达" comparison but Hygon, whose interconnect and
  // power are unpublished.
  for (const char* id : {"h20-96gb", "h800-sxm-80gb", "a800-sxm-80gb", "h100-sxm-80gb", "h200-sxm-141gb", "b200-180gb",
                         "ascend-910b", "ascend-910c"}) {
    INFO(id);
    CHECK(complete.count(id) == 1);
  }
  CHECK(complete.size() == 16);  // GB300 is the sixteenth
  CHECK(missing_specs(gpu("hygon-k100-ai")) ==
        std::vector<std::string>{"scaleup_gbs", "scaleup_domain", "scaleout_gbps", "tdp_w"});
  CHECK(missing_specs(gpu("rtx-4090-24gb")) == std::vector<std::string>{"scaleout_gbps"});
  // An entry without HBM bandwidth is refused by name (no silent 2 TB/s) ...
  const json env = json::parse(evaluate_json(
      R"({"model":"llama-3.1-8b","gpu":{"base":"h100-sxm-80gb"},"training":{"tokens":1e12,"seq_len":4096}})"));
  CHECK(env["ok"] == true);
  const json bare = json::parse(evaluate_json(
      R"({"model":"llama-3.1-8b","gpu":{"memory_gib":80,"bf16_tflops":900},"training":{"tokens":1e12,"seq_len":4096}})"));
  CHECK(bare["ok"] == false);
  CHECK(bare["error"]["path"] == "/gpu/memory_bw_tbs");
  // ... and a missing interconnect is an assumption the answer states.
  const json hy = json::parse(evaluate_json(
      R"({"model":"llama-3.1-8b","gpu":"hygon-k100-ai","training":{"tokens":1e11,"seq_len":4096},"parallel":{"tp":8,"pp":1,"dp":1}})"));
  REQUIRE(hy["ok"] == true);
  std::string all;
  for (const auto& w : hy["value"]["warnings"]) all += w["message"].get<std::string>() + "\n";
  CHECK(all.find("gpu.scaleup_gbs is unknown") != std::string::npos);
  CHECK(all.find("gpu.scaleup_domain is unknown") != std::string::npos);
  CHECK(all.find("gpu.scaleout_gbps is unknown") != std::string::npos);
}

TEST_CASE("China-market and domestic accelerators keep their caveats and variants", "[catalog]") {
  // The caveats are prose, which the wasm core embeds without (kCatalogProse).
  for (const char* id : {"a800-sxm-80gb", "h800-sxm-80gb", "h20-96gb"}) {
    INFO(id);
    if (kCatalogProse) CHECK_FALSE(gpu(id).export_control.empty());
  }
  for (const char* id : {"h800-sxm-80gb", "h20-96gb", "ascend-910b", "ascend-910c", "hygon-k100-ai", "kunlunxin-p800",
                         "cambricon-mlu590"}) {
    INFO(id);
    if (kCatalogProse) CHECK_FALSE(gpu(id).least_sure.empty());
  }
  for (const char* id : {"ascend-910b", "ascend-910c", "hygon-k100-ai", "cambricon-mlu370-x8", "kunlunxin-p800"}) {
    INFO(id);
    if (kCatalogProse) CHECK_FALSE(gpu(id).notes.empty());
  }
  const json doc = read_data("gpus.json");
  for (const auto& e : doc["gpus"]) {
    const std::string id = e.value("id", "");
    if (id == "ascend-910b") {
      REQUIRE(e["variants"].size() == 4);  // 910B1..910B4
      CHECK(e["variants"][0]["bf16_tflops"]["value"] == 373.88);
      CHECK(e["variants"][3]["bf16_tflops"]["value"] == 245.76);
    }
    if (id == "hygon-k100-ai") {
      REQUIRE(e["variants"].size() == 4);  // K100, K100 AI, BW200, Z100
      CHECK(e["variants"][2]["bf16_tflops"]["value"] == 480);
    }
  }
}

TEST_CASE("accelerators without a measured performance profile fall back to the default one", "[catalog][perf]") {
  for (const char* id :
       {"l40s-48gb", "rtx-4090-24gb", "rtx-5090-32gb", "mi250x-128gb", "mi355x-288gb", "gaudi2-96gb", "ascend-910c",
        "hygon-k100-ai", "cambricon-mlu370-x8", "tpu-v5e", "tpu-v5p", "tpu-v6e", "trainium1", "trainium2"}) {
    INFO(id);
    const PerfProfile p = perf_profile_for(id);
    CHECK(p.profile_id == "default");
    CHECK(p.matmul.confidence == "low");
  }
  // MAMF-measured profiles.
  CHECK(perf_profile_for("a100-sxm-80gb").matmul.value == 0.869);
  // Blackwell (stas00/ml-engineering MAMF table): B200 1745.0 of 2250, GB200 1822.0 of 2500.
  CHECK(perf_profile_for("b200-180gb").matmul.value == Approx(1745.0 / 2250).margin(5e-4));
  CHECK(perf_profile_for("gb200-186gb").matmul.value == Approx(1822.0 / 2500).margin(5e-4));
  CHECK(perf_profile_for("b300-288gb").fp8_matmul.value == Approx(3353.3 / 4500).margin(5e-4));
  // GB300 is not measured: the B300 die's MAMF rate, raised as GB200's is over B200's.
  CHECK(perf_profile_for("gb300-279gb").matmul.value == Approx(1769.0 * (1822.0 / 1745.0) / 2500).margin(5e-4));
  CHECK(perf_profile_for("gb300-279gb").fp8_matmul.value == Approx(3353.3 * (3615.6 / 3432.5) / 5000).margin(5e-4));
  CHECK(perf_profile_for("gb300-279gb").matmul.confidence == "low");
  CHECK(perf_profile_for("b200-180gb").sm_count.value == 148);
  // Blackwell attention (Megatron's cuDNN fused attention): NVIDIA/cudnn-frontend's training
  // SDPA benchmark at 8K, causal, 128 query / 8 KV heads of 128, backward FLOPs 2.5x forward.
  CHECK(perf_profile_for("b200-180gb").attention_fwd.value == Approx(1171.3 / 2250).margin(5e-4));
  CHECK(perf_profile_for("b200-180gb").attention_bwd.value == Approx(942.5 / 2250).margin(5e-4));
  // GB200 and GB300 from one later run (cuDNN 9.22, 64 query / 8 KV heads of 128).
  CHECK(perf_profile_for("gb200-186gb").attention_fwd.value == Approx(1574.0 / 2500).margin(5e-4));
  CHECK(perf_profile_for("gb200-186gb").attention_bwd.value == Approx(1332.0 / 2500).margin(5e-4));
  CHECK(perf_profile_for("gb300-279gb").attention_fwd.value == Approx(1856.0 / 2500).margin(5e-4));
  CHECK(perf_profile_for("gb300-279gb").attention_bwd.value == Approx(1435.0 / 2500).margin(5e-4));
  CHECK(perf_profile_for("b300-288gb").attention_fwd.confidence == "low");  // GB300's fraction, derived
  CHECK(perf_profile_for("h100-sxm-80gb").matmul.value == 0.803);
  CHECK(perf_profile_for("mi300x-192gb").matmul.value == 0.514);
  // Ascend 910B (gameofdimension/limulidae): GEMM 328 / 353.89 TFLOP/s; HCCS bus bandwidth
  // (72 × 2·7/8 + 149 × 7/8) / 2 = 128.2 of 196 GB/s. Attention (hw-native-sys/pto-isa):
  // torch_npu's forward 150.8 / 353.89 TFLOP/s at 32K; backward by the default's ratio
  // 0.40 / 0.55. The rest stays the default's.
  const PerfProfile a = perf_profile_for("ascend-910b");
  CHECK(a.profile_id == "ascend-910b");
  CHECK(a.matmul.value == Approx(328 / 353.89).margin(5e-4));
  CHECK(a.scaleup.value == Approx((72 * 1.75 + 149 * 0.875) / 2 / 196).margin(5e-4));
  CHECK(a.attention_fwd.value == Approx(150.8 / 353.89).margin(5e-4));
  CHECK(a.attention_bwd.value == Approx(150.8 / 353.89 * 0.40 / 0.55).margin(5e-3));
  CHECK(a.attention_bwd.confidence == "low");
  CHECK(a.memory.confidence == "low");  // from the default profile
}

TEST_CASE("the model presets: at least 25 dense models, each with its source", "[catalog][models]") {
  CHECK(model_presets().size() >= 25);
  std::set<std::string> ids;
  for (const auto& m : model_presets()) {
    INFO(m.id);
    CHECK(ids.insert(m.id).second);
    CHECK_FALSE(m.name.empty());
    CHECK(m.source.empty() == !kCatalogProse);  // the wasm leaves the sources out
    CHECK(m.published_params > 0);
    CHECK(m.layers > 0);
    CHECK(m.heads % m.kv_heads == 0);
    CHECK(m.norms_per_layer >= 2);
  }
  for (const char* id :
       {"llama-3.2-1b",     "llama-3.2-3b",    "llama-3.3-70b",    "llama-2-7b",   "llama-2-13b",   "llama-2-70b",
        "qwen2.5-7b",       "qwen2.5-14b",     "qwen2.5-32b",      "qwen3-8b",     "qwen3-14b",     "qwen3-32b",
        "deepseek-llm-67b", "glm-4-9b",        "yi-1.5-34b",       "baichuan2-7b", "baichuan2-13b", "internlm2.5-7b",
        "internlm2.5-20b",  "mistral-7b-v0.3", "mistral-nemo-12b", "gemma-2-9b",   "gemma-2-27b",   "gemma-3-12b",
        "gemma-3-27b",      "phi-3-mini",      "phi-3-medium",     "phi-4"}) {
    INFO(id);
    CHECK(find_model(id) != nullptr);
  }
  // Shape fields parsed from the catalog.
  CHECK(find_model("gemma-3-27b")->ffn_act == FfnAct::geglu);
  CHECK(find_model("gemma-3-27b")->norms_per_layer == 4);
  CHECK(find_model("gemma-3-27b")->qk_norm);
  CHECK(find_model("gemma-2-9b")->tied_embeddings);
  CHECK_FALSE(find_model("gemma-2-9b")->qk_norm);
  CHECK(find_model("qwen3-14b")->qk_norm);
  CHECK(find_model("baichuan2-13b")->position == PositionEmbedding::alibi);
  CHECK(find_model("deepseek-llm-67b")->published_params_tolerance == 500'000'000);
}

TEST_CASE("scenario model objects take the new shape fields", "[catalog][models][scenario]") {
  const auto s = parse_scenario(R"({"model":{"base":"qwen3-8b","qk_norm":false,"norms_per_layer":4,"ffn_act":"geglu",
                                     "position_embedding":"alibi"},
                                     "gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096}})");
  REQUIRE(s.ok());
  const ModelShape& m = s->problem.model;
  CHECK_FALSE(m.qk_norm);
  CHECK(m.norms_per_layer == 4);
  CHECK(m.ffn_act == FfnAct::geglu);
  CHECK(m.position == PositionEmbedding::alibi);
  CHECK(m.published_params_tolerance == 0);
  // Qwen3 8B without q/k norms and with two more norms per layer.
  CHECK(count_params(m).total == 8'190'735'360 - 36 * 2 * 128 + 36 * 2 * 4096);
  const json bad = json::parse(evaluate_json(
      R"({"model":{"base":"qwen3-8b","norms_per_layer":0},"gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096}})"));
  CHECK(bad["ok"] == false);
  CHECK(bad["error"]["path"] == "/model/norms_per_layer");
  const json bad2 = json::parse(evaluate_json(
      R"({"model":{"base":"qwen3-8b","qk_norm":"yes"},"gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096}})"));
  CHECK(bad2["error"]["path"] == "/model/qk_norm");
}

TEST_CASE("an unknown GPU or model id names the catalog ids it likely meant", "[catalog][errors]") {
  // Ids carry the memory size or the variant ("h100-sxm-80gb", "qwen3-30b-a3b"): a short or
  // differently spelled id gets the ids that begin with it, case, spaces, underscores and
  // dashes ignored.
  const auto error = [](const std::string& model, const std::string& gpu) {
    const json env = json::parse(evaluate_json(R"({"model":")" + model + R"(","gpu":")" + gpu +
                                               R"(","training":{"tokens":1e9,"seq_len":2048}})"));
    REQUIRE(env["ok"] == false);
    return env["error"];
  };
  json e = error("llama-3.1-8b", "H100");
  CHECK(e["path"] == "/gpu");
  CHECK(e["code"] == "unknown_gpu_likely");
  CHECK(e["params"]["likely"] == "h100-sxm-80gb, h100-pcie-80gb");
  CHECK(e["params"]["got"] == "\"H100\"");
  CHECK(error("llama-3.1-8b", "rtx 4090")["params"]["likely"] == "rtx-4090-24gb");
  e = error("Llama3.1-70B", "h100-sxm-80gb");
  CHECK(e["path"] == "/model");
  CHECK(e["code"] == "unknown_model_likely");
  CHECK(e["params"]["likely"] == "llama-3.1-70b");
  CHECK(error("qwen3-30b", "h100-sxm-80gb")["params"]["likely"] == "qwen3-30b-a3b");
  // Nothing alike, or too many alike to help: the plain error with the whole list.
  CHECK(error("llama-3.1-8b", "xyz")["code"] == "unknown_gpu");
  CHECK(error("llama-3.1-8b", "4090")["code"] == "unknown_gpu");  // not a beginning
  CHECK(error("llama", "h100-sxm-80gb")["code"] == "unknown_model");
  // A custom GPU's base and a price's key take the same hint.
  const json env = json::parse(
      evaluate_json(R"({"model":"llama-3.1-8b","gpu":{"base":"b200"},"training":{"tokens":1e9,"seq_len":2048}})"));
  CHECK(env["error"]["path"] == "/gpu/base");
  CHECK(env["error"]["params"]["likely"] == "b200-180gb");
  // So does an id in the comparison list (gpucalc compare --gpus, the wasm's compare()).
  const json cmp = json::parse(
      compare_json(R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb","training":{"tokens":1e9,"seq_len":2048}})",
                   "h100-sxm-80gb,B200"));
  REQUIRE(cmp["ok"] == false);
  CHECK(cmp["error"]["code"] == "compare_unknown_gpu_likely");
  CHECK(cmp["error"]["params"]["likely"] == "b200-180gb");
}
