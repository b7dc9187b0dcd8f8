// Launch-config export: picks the writer for the format, adds the warnings every format
// shares, and lists the warnings as comments in the formats that have comments.
#include "gpucalc/launch_export.hpp"
#include "gpucalc/message.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <string_view>
#include <utility>

#include "decimal.hpp"
#include "gpucalc/search.hpp"
#include "json_writer.hpp"
#include "launch_export_detail.hpp"

namespace gpucalc {

const char* to_string(ExportFormat f) {
  switch (f) {
    case ExportFormat::megatron: return "megatron";
    case ExportFormat::torchtitan: return "torchtitan";
    case ExportFormat::deepspeed: return "deepspeed";
    case ExportFormat::llamafactory: return "llamafactory";
  }
  return "?";
}

std::optional<ExportFormat> parse_export_format(std::string_view name) {
  for (ExportFormat f :
       {ExportFormat::megatron, ExportFormat::torchtitan, ExportFormat::deepspeed, ExportFormat::llamafactory})
    if (name == to_string(f)) return f;
  return std::nullopt;
}

namespace launch {

void no_equivalent(Out& o, const std::string& element, const std::string& value) {
  o.warnings.push_back(
      coded("export_no_equivalent",
            "{framework} has no option for {element} = {value}; the exported config leaves it out: set it "
            "by hand, or the run will not use this layout",
            {{"framework", o.framework}, {"element", element}, {"value", value}}));
}

// The sentences of approximate(), by code.
const std::pair<const char*, const char*> kApproximations[] = {
    {"export_approximate", "{framework} has no exact equivalent of {element} = {value}; the config uses {used}"},
    {"export_approximate_distopt",
     "{framework} has no exact equivalent of {element} = {value}; the config uses {used}, which shards the gradients too (as ZeRO-2)"},
    {"export_approximate_hpz",
     "{framework} has no exact equivalent of {element} = {value}; the config uses {used}, ZeRO++'s hierarchical partitioning, which shards the parameters only"},
    {"export_approximate_fp8_te",
     "{framework} has no exact equivalent of {element} = {value}; the config uses {used}: FP8 GEMMs need Transformer Engine in the model code"},
    {"export_approximate_integer",
     "{framework} has no exact equivalent of {element} = {value}; the config uses {used}: LLaMA-Factory takes an integer"},
    {"export_approximate_whole_layers",
     "{framework} has no exact equivalent of {element} = {value}; the config uses {used}, which recomputes whole layers (full recomputation)"},
    {"export_approximate_per_op",
     "{framework} has no exact equivalent of {element} = {value}; the config uses {used}, which chooses what to recompute per operator, not per module"},
    {"export_approximate_no_delayed",
     "{framework} has no exact equivalent of {element} = {value}; the config uses {used}: torchtitan has no delayed scaling"},
};

void approximate(Out& o, const std::string& element, const std::string& value, const std::string& used,
                 const char* code) {
  const auto* it = std::find_if(std::begin(kApproximations), std::end(kApproximations),
                                [&](const auto& a) { return std::string_view(a.first) == code; });
  if (it == std::end(kApproximations)) it = std::begin(kApproximations);
  o.warnings.push_back(coded(it->first, it->second,
                             {{"framework", o.framework}, {"element", element}, {"value", value}, {"used", used}}));
}

// The sentences of framework_warning(), by code, with the framework as their one parameter:
// a plan element the framework checks at start-up and rejects (export_moe_overlap_*), or
// one the config starts but only code can finish (export_clamp_in_code).
const std::pair<const char*, const char*> kFrameworkWarnings[] = {
    {"export_clamp_in_code",
     "{framework} runs model.ffn_act = swiglu_clamped as --quick-geglu, but has no option for the clamp of its inputs or the +1 on its linear half (activation_func_clamp_value and glu_linear_offset; gpt-oss: 7 and 1): set them on the model config in code, or the activation differs from the planned one"},
    {"export_moe_overlap_needs_ep",
     "{framework} overlaps the EP all-to-all only with expert parallelism: set parallel.ep above 1, or training.overlap_moe_comm to false, or the run stops at start-up"},
    {"export_moe_overlap_needs_vpp",
     "{framework} overlaps the EP all-to-all with pp > 1 only on interleaved stages: set parallel.vpp above 1, or training.overlap_moe_comm to false, or the run stops at start-up"},
    {"export_moe_overlap_full_recompute",
     "{framework} does not overlap the EP all-to-all under full recomputation: use selective recomputation, or set training.overlap_moe_comm to false, or the run stops at start-up"},
};

void framework_warning(Out& o, const char* code) {
  const auto* it = std::find_if(std::begin(kFrameworkWarnings), std::end(kFrameworkWarnings),
                                [&](const auto& a) { return std::string_view(a.first) == code; });
  if (it == std::end(kFrameworkWarnings)) return;
  o.warnings.push_back(coded(it->first, it->second, {{"framework", o.framework}}));
}

std::string num(int64_t v) { return std::to_string(v); }

std::string num(double v) {
  std::string s;
  for (int prec = 1; prec <= 17; ++prec) {
    s = format_general(v, prec);
    if (parse_decimal(s) == v) break;
  }
  // TOML and YAML read "1e+10" fine; a bare integer-valued double stays "32", not "32.0".
  return s;
}

int64_t grad_accum(const Scenario& s, const Layout& l) { return micro_batches(s.problem.training, l); }

int64_t train_steps(const Scenario& s) {
  const Training& t = s.problem.training;
  return static_cast<int64_t>(
      std::ceil(t.tokens / (static_cast<double>(t.global_batch) * static_cast<double>(t.seq_len))));
}

std::string recompute_module_list(unsigned bits, const char* sep) {
  std::string out;
  for (const NamedBit& m : kRecomputeModuleNames)
    if (bits & m.bit) out += (out.empty() ? "" : sep) + std::string(m.name);
  return out;
}

}  // namespace launch

namespace {

constexpr const char* kDisplay[] = {"Megatron-LM", "torchtitan", "DeepSpeed", "LLaMA-Factory"};
constexpr const char* kFileName[] = {"megatron-args.sh", "torchtitan.toml", "ds_config.json", "llamafactory.yaml"};
// The framework whose memory behaviour the estimate modelled, by export format.
constexpr Framework kModelled[] = {Framework::megatron, Framework::torchtitan, Framework::deepspeed, Framework::hf};

// The estimate modelled one framework's memory; exporting to another keeps the layout
// but not necessarily the fit.
void framework_note(launch::Out& o, ExportFormat f) {
  const Framework modelled = o.s.problem.training.framework;
  if (modelled == kModelled[static_cast<int>(f)]) return;
  o.warnings.push_back(
      coded("export_framework_differs",
            "the memory estimate models training.framework = {modelled}; under {framework} the same layout "
            "can need more or less memory: set training.framework to match and evaluate again",
            {{"framework", o.framework}, {"modelled", to_string(modelled)}}));
}

// Packed documents (training.packed_document_tokens) are the data pipeline's business in
// Megatron-LM, torchtitan and DeepSpeed (Megatron-Bridge's PackedSequenceSpecs, a varlen
// collator), not a launch option; LLaMA-Factory's YAML says it (launch_llamafactory.cpp).
void packing_note(launch::Out& o, ExportFormat f) {
  const int64_t d = o.s.problem.training.packed_document_tokens;
  if (d <= 0 || f == ExportFormat::llamafactory) return;
  o.warnings.push_back(coded("export_packing_in_data",
                             "{framework} packs documents in its data pipeline, not by a launch option: "
                             "training.packed_document_tokens = {value} needs a packed dataset with per-document "
                             "attention (variable-length FlashAttention)",
                             {{"framework", o.framework}, {"value", std::to_string(d)}}));
}

// The warnings, repeated as '#' comments at the end of the text.
void append_comments(std::string& text, const std::vector<Message>& warnings) {
  if (warnings.empty()) return;
  text += "\n# gpucalc warnings (not expressed above):\n";
  for (const Message& m : warnings) text += "#  - " + m.message + "\n";
}

}  // namespace

Expected<LaunchConfig> write_launch_config(const Scenario& s, const Layout& l, ExportFormat f) {
  const Training& t = s.problem.training;
  if (f == ExportFormat::llamafactory && t.stage == Stage::pretrain)
    return coded_error(
        "/training/stage", "export_needs_finetune",
        "LLaMA-Factory export is for fine-tunes: set training.stage to lora, qlora or full_finetune, got \"{stage}\"",
        {{"stage", "pretrain"}});
  const int i = static_cast<int>(f);
  launch::Out o{s, l, kDisplay[i], {}};
  framework_note(o, f);
  packing_note(o, f);
  LaunchConfig c;
  c.format = f;
  c.file_name = kFileName[i];
  switch (f) {
    case ExportFormat::megatron: c.text = launch::write_megatron(o); break;
    case ExportFormat::torchtitan: c.text = launch::write_torchtitan(o); break;
    case ExportFormat::deepspeed: c.text = launch::write_deepspeed(o); break;
    case ExportFormat::llamafactory: c.text = launch::write_llamafactory(o); break;
  }
  if (f != ExportFormat::deepspeed) append_comments(c.text, o.warnings);
  c.warnings = std::move(o.warnings);
  return c;
}

}  // namespace gpucalc

namespace gpucalc {

namespace {

void plan_json(JsonWriter& w, const Scenario& s, const Layout& l) {
  w.key("plan").begin_object();
  w.field("gpus", l.gpus());
  w.field("tp", l.tp);
  w.field("pp", l.pp);
  w.field("vpp", l.vpp);
  w.field("dp", l.dp);
  w.field("cp", l.cp);
  w.field("ep", l.ep);
  w.field("etp", l.etp);
  w.field("shard", zero_shard(l));
  w.field("zero_stage", l.zero_stage);
  w.field("micro_batch", l.micro_batch);
  w.field("global_batch", s.problem.training.global_batch);
  w.field("seq_len", s.problem.training.seq_len);
  w.field("recompute", to_string(l.recompute));
  w.end_object();
}

}  // namespace

Expected<std::string> export_text(const Scenario& given, ExportFormat f) {
  SearchResult sr = search(given.problem, given.constraints, given.target());
  if (sr.truncated) return too_many_layouts();
  if (!sr.chosen) return explain_no_layout(given.problem, given.constraints);
  const Layout& l = sr.chosen->layout;
  // A batch the search chose from training.global_batch_range is the layout's.
  Scenario s = given;
  s.problem.training.global_batch = global_batch(given.problem.training, l);
  Expected<LaunchConfig> c = write_launch_config(s, l, f);
  if (!c) return c.error();
  JsonWriter w;
  w.begin_object();
  w.field("format", to_string(f));
  w.field("file_name", c->file_name);
  plan_json(w, s, l);
  w.field("text", c->text);
  w.key("warnings").begin_array();
  for (const Message& m : c->warnings) {
    w.begin_object().field("code", m.code);
    w.key("params").begin_object();
    for (const auto& [k, v] : m.params) w.field(k, v);
    w.end_object();
    w.field("message", m.message).end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

}  // namespace gpucalc
