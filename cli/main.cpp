// gpucalc command line: a thin shell over the core. It reads a scenario, prints the
// answer as JSON, and exits 2 with "PATH: message" for bad input.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "gpucalc/api.hpp"
#include "messages.hpp"

namespace {

std::string g_lang = "en";  // the reader's language for the core's messages (--lang)

constexpr const char* kUsage = R"(gpucalc — LLM training GPU calculator (大模型训练 GPU 计算器)

Usage:
  gpucalc evaluate FILE|-    evaluate a scenario (JSON, docs/scenario-format.md);
                             '-' reads standard input. Prints the answer as JSON.
  gpucalc search FILE|- [--top K]
                             search every layout the scenario leaves open: the best,
                             the K fastest at its GPU count (default 10) and the
                             GPU count -> days curve with its Pareto front.
  gpucalc compare FILE|- --gpus ID,ID,...
                             the same scenario on each accelerator listed (catalog
                             ids): GPUs, layout, days, cost, energy, memory per row.
  gpucalc export FILE|- --format megatron|torchtitan|deepspeed|llamafactory
                             the chosen plan as the framework's launch config
                             (Megatron-LM arguments, torchtitan TOML, DeepSpeed
                             JSON, LLaMA-Factory YAML for fine-tunes) on stdout;
                             what it cannot express is warned on stderr.
  gpucalc catalog gpus|models
                             the accelerator catalog (with default prices) or the
                             model presets (with counted parameters) as JSON.
  gpucalc --help             this text
  gpucalc --version          the version

Options:
  --lang en|zh               the language of the errors and warnings printed on
                             stderr (default: GPUCALC_LANG, else en); the JSON
                             answers carry each message's code and English text.

Exit status: 0 answered; 2 bad input or usage (the message names the JSON
pointer of the field, e.g. "/training/seq_len: must be a positive integer, got -4").
)";

// The same text for a Chinese reader (--lang zh); commands, options and ids stay as typed.
constexpr const char* kUsageZh = R"(gpucalc — 大模型训练 GPU 计算器 (LLM training GPU calculator)

用法：
  gpucalc evaluate FILE|-    计算一个场景（JSON，格式见 docs/scenario-format.md）；
                             '-' 表示从标准输入读取。以 JSON 输出结果。
  gpucalc search FILE|- [--top K]
                             搜索场景未固定的所有并行方式：最优方案、该 GPU 数下
                             最快的 K 种（默认 10）以及 GPU 数 -> 天数曲线及其
                             帕累托前沿。
  gpucalc compare FILE|- --gpus ID,ID,...
                             同一场景换成所列的每种加速卡（目录 id）：每行给出
                             GPU 数、并行方式、天数、费用、能耗和显存。
  gpucalc export FILE|- --format megatron|torchtitan|deepspeed|llamafactory
                             把选定方案输出为框架的启动配置（Megatron-LM 参数、
                             torchtitan TOML、DeepSpeed JSON，微调用 LLaMA-Factory
                             YAML）到标准输出；无法表达的部分以警告写到标准错误。
  gpucalc catalog gpus|models
                             以 JSON 列出加速卡目录（含默认价格）或模型预设
                             （含计算出的参数量）。
  gpucalc --help             本说明
  gpucalc --version          版本

选项：
  --lang en|zh               标准错误上的错误和警告所用的语言（默认取
                             GPUCALC_LANG，否则为 en）；JSON 结果中的每条消息
                             都带有代码和英文文本。

退出状态：0 表示已得出结果；2 表示输入或用法有误（消息会指出字段的 JSON
指针，例如 "/training/seq_len: 必须是正整数，当前为 -4"）。
)";

const char* usage() { return g_lang == "zh" ? kUsageZh : kUsage; }

// A usage mistake, in the reader's language (--lang), then the usage text.
int usage_error(const std::string& en, const std::string& zh) {
  std::cerr << "gpucalc: " << (g_lang == "zh" ? zh : en) << "\n\n" << usage();
  return 2;
}

// A scenario file that cannot be read, named, in the reader's language (--lang).
int cannot_read(const std::string& file) {
  if (g_lang == "zh") std::cerr << "gpucalc: 无法读取 '" << file << "'（需要一个可读的文件，或用 - 表示标准输入）\n";
  else std::cerr << "gpucalc: cannot read '" << file << "' (a readable file, or - for standard input)\n";
  return 2;
}

bool read_all(const std::string& file, std::string& out) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) return false;  // opens, then reads as nothing
  if (file == "-") {
    out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return !std::cin.bad();
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return !in.bad();
}

// Prints the core's envelope: the value as JSON on stdout (exit 0), or "PATH: message" on
// stderr (exit 2).
int print_envelope(const std::string& out) {
  const auto env = nlohmann::ordered_json::parse(out, nullptr, false);
  if (env.is_discarded() || !env.is_object()) {
    std::cerr << "gpucalc: internal error: the core returned malformed JSON\n";
    return 3;
  }
  if (!env.value("ok", false)) {
    const auto& e = env["error"];
    const std::string path = e.value("path", "");
    std::cerr << "gpucalc: " << (path.empty() ? "(scenario)" : path) << ": " << gpucalc::cli::localized(e, g_lang)
              << "\n";
    return 2;
  }
  std::cout << env["value"].dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  return 0;
}

// `gpucalc export`: the config text on stdout, each warning on stderr.
int print_export(const std::string& out) {
  const auto env = nlohmann::ordered_json::parse(out, nullptr, false);
  if (env.is_discarded() || !env.is_object() || !env.value("ok", false)) return print_envelope(out);
  const auto& v = env["value"];
  std::cout << v.value("text", "");
  for (const auto& w : v["warnings"])
    std::cerr << "gpucalc: warning [" << w.value("code", "") << "]: " << gpucalc::cli::localized(w, g_lang) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (std::string bad; !gpucalc::cli::take_language(argc, argv, g_lang, bad))
    return usage_error(bad, bad);  // the language itself is what is wrong
  if (argc < 2) return usage_error("missing command", "缺少命令");
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << usage();
    return 0;
  }
  if (cmd == "--version") {
    std::cout << "gpucalc " << gpucalc::version() << "\n";
    return 0;
  }
  if (cmd == "catalog") {
    if (argc != 3 || (std::string(argv[2]) != "gpus" && std::string(argv[2]) != "models"))
      return usage_error("catalog takes one kind: gpus or models", "catalog 需要一个种类：gpus 或 models");
    return print_envelope(gpucalc::catalog_json(argv[2]));
  }
  if (cmd == "export") {
    if (argc != 5 || std::string(argv[3]) != "--format")
      return usage_error("export takes FILE --format megatron|torchtitan|deepspeed|llamafactory",
                         "export 需要 FILE --format megatron|torchtitan|deepspeed|llamafactory");
    std::string text;
    if (!read_all(argv[2], text)) return cannot_read(argv[2]);
    return print_export(gpucalc::export_json(text, argv[4]));
  }
  if (cmd != "evaluate" && cmd != "search" && cmd != "compare")
    return usage_error("unknown command '" + cmd + "'", "未知命令 '" + cmd + "'");
  int top_k = 10;
  std::string gpu_ids;
  if (cmd == "search" && argc == 5 && std::string(argv[3]) == "--top") {
    char* end = nullptr;
    const long k = std::strtol(argv[4], &end, 10);
    if (!end || *end != '\0' || k < 0 || k > 1000)
      return usage_error("--top takes a whole number from 0 to 1000", "--top 需要 0 到 1000 之间的整数");
    top_k = static_cast<int>(k);
  } else if (cmd == "compare") {
    if (argc != 5 || std::string(argv[3]) != "--gpus")
      return usage_error("compare takes FILE --gpus ID,ID,...", "compare 需要 FILE --gpus ID,ID,...");
    gpu_ids = argv[4];
  } else if (argc != 3) {
    return usage_error(cmd + " takes exactly one FILE (or - for standard input)",
                       cmd + " 只接受一个 FILE（或用 - 表示标准输入）");
  }
  std::string text;
  if (!read_all(argv[2], text)) return cannot_read(argv[2]);
  return print_envelope(cmd == "search"    ? gpucalc::search_json(text, top_k)
                        : cmd == "compare" ? gpucalc::compare_json(text, gpu_ids)
                                           : gpucalc::evaluate_json(text));
}
