// A LLaMA-Factory training YAML (llamafactory-cli train FILE) for a fine-tune: LoRA,
// QLoRA or full. Names from hiyouga/LLaMA-Factory src/llamafactory/hparams/*.py and the
// Transformers TrainingArguments it extends, at the commits in
// data/frameworks/llamafactory.json. LLaMA-Factory runs data parallel (DDP, or DeepSpeed
// ZeRO through its example configs): model-parallel degrees have no place here.
#include <cmath>
#include <string>

#include "launch_export_detail.hpp"

namespace gpucalc::launch {
namespace {

struct Yaml {
  std::string text;
  void add(const std::string& key, const std::string& value) { text += key + ": " + value + "\n"; }
  void flag(const std::string& key, bool v) { add(key, v ? "true" : "false"); }
  void heading(const std::string& h) { text += (text.empty() ? "" : "\n") + std::string("### ") + h + "\n"; }
  void comment(const std::string& c) { text += "# " + c + "\n"; }
};

// LoRA targets as module names of Llama/Qwen-style blocks; every linear → "all".
std::string lora_targets(unsigned bits) {
  if ((bits & 0x7f) == 0x7f) return "all";
  std::string out;
  for (const NamedBit& t : kLoraTargetNames)
    if (bits & t.bit) out += (out.empty() ? "" : ",") + std::string(t.name) + "_proj";
  return out;
}

void method(Out& o, Yaml& y) {
  const Training& t = o.s.problem.training;
  y.heading("method");
  y.add("stage", "sft");
  y.flag("do_train", true);
  y.add("finetuning_type", is_adapter_stage(t) ? "lora" : "full");
  if (!is_adapter_stage(t)) return;
  y.add("lora_rank", num(t.lora.rank));
  const int64_t alpha = std::llround(t.lora.alpha);
  y.add("lora_alpha", num(alpha));
  if (static_cast<double>(alpha) != t.lora.alpha)
    approximate(o, "training.lora.alpha", num(t.lora.alpha), "lora_alpha: " + num(alpha), "export_approximate_integer");
  y.add("lora_target", lora_targets(t.lora.targets));
  if (t.stage != Stage::qlora) return;
  y.add("quantization_bit", "4");
  y.add("quantization_type", "nf4");
  y.flag("double_quantization", t.lora.double_quant);
  if (t.framework != Framework::hf) return;
  // lora.fp32_upcast false is LLaMA-Factory's own default; true, PEFT's
  // prepare_model_for_kbit_training, also upcasts the embedding and head, which
  // upcast_layernorm leaves in 16 bits (the residual stream turns fp32 either way).
  y.flag("upcast_layernorm", t.lora.fp32_upcast);
  if (t.lora.fp32_upcast) approximate(o, "training.lora.fp32_upcast", "true", "upcast_layernorm: true");
}

// ZeRO through the DeepSpeed configs LLaMA-Factory ships in examples/deepspeed/.
void deepspeed(Out& o, Yaml& y) {
  const Layout& l = o.l;
  if (l.zero_stage == 0) return;
  const bool offload = o.s.problem.training.offload.optimizer || o.s.problem.training.offload.params;
  const int stage = l.zero_stage == 1 ? 2 : l.zero_stage;
  if (l.zero_stage == 1) approximate(o, "zero_stage", "1", "examples/deepspeed/ds_z2_config.json (ZeRO-2)");
  y.add("deepspeed", "examples/deepspeed/ds_z" + std::to_string(stage) + (offload ? "_offload" : "") + "_config.json");
  if (l.shard > 0 && l.shard < l.dp) no_equivalent(o, "parallel.shard", num(l.shard));
}

void train(Out& o, Yaml& y) {
  const Training& t = o.s.problem.training;
  const Layout& l = o.l;
  y.heading("train");
  y.add("cutoff_len", num(t.seq_len));
  // The plan's step time and max_steps count every row full (cutoff_len tokens), which
  // LLaMA-Factory does only with packing (DataArguments.packing; off by default for SFT):
  // without it each step takes global-batch samples, each padded to its batch's longest,
  // and max_steps would stop after tokens / (samples × cutoff_len) of the data. Packed
  // documents that do not attend to each other: neat_packing too.
  y.comment("packing: the plan's steps are rows of cutoff_len tokens; without packing a step holds");
  y.comment("global-batch samples and max_steps covers only part of the data");
  y.flag("packing", true);
  if (t.packed_document_tokens > 0) y.flag("neat_packing", true);
  y.add("per_device_train_batch_size", num(l.micro_batch));
  y.add("gradient_accumulation_steps", num(grad_accum(o.s, l)));
  y.add("max_steps", num(train_steps(o.s)));
  if (t.precision == Precision::fp16) y.flag("fp16", true);
  else y.flag("bf16", true);
  if (t.precision == Precision::fp8) y.flag("fp8", true);
  if (t.precision == Precision::fp4) no_equivalent(o, "training.precision", "fp4");
  // Gradient checkpointing is on unless disabled (ModelArguments.disable_gradient_checkpointing).
  y.flag("disable_gradient_checkpointing", l.recompute == Recompute::none);
  if (l.recompute == Recompute::selective)
    approximate(o, "training.recompute", "selective", "disable_gradient_checkpointing: false",
                "export_approximate_whole_layers");
  const char* optim = t.optimizer == Optimizer::adamw ? (t.lora.paged_optimizer ? "paged_adamw_32bit" : "adamw_torch")
                      : t.optimizer == Optimizer::adam8bit
                          ? (t.lora.paged_optimizer ? "paged_adamw_8bit" : "adamw_bnb_8bit")
                      : t.optimizer == Optimizer::sgd  ? "sgd"
                      : t.optimizer == Optimizer::lion ? "lion_32bit"
                                                       : "adafactor";
  // use_muon: Muon on the 2-D weights, AdamW on the rest, in place of `optim`.
  if (t.optimizer == Optimizer::muon) y.flag("use_muon", true);
  else y.add("optim", optim);
  deepspeed(o, y);
}

void model_parallel_warnings(Out& o) {
  const Layout& l = o.l;
  if (l.tp > 1) no_equivalent(o, "parallel.tp", num(l.tp));
  if (l.pp > 1) no_equivalent(o, "parallel.pp", num(l.pp));
  if (l.cp > 1) no_equivalent(o, "parallel.cp", num(l.cp));
  if (l.ep > 1) no_equivalent(o, "parallel.ep", num(l.ep));
  if (const int64_t n = o.s.problem.training.offload.activation_layers; n > 0)
    no_equivalent(o, "training.offload.activation_layers", num(n));
}

}  // namespace

std::string write_llamafactory(Out& o) {
  Yaml y;
  model_parallel_warnings(o);
  method(o, y);
  train(o, y);
  const ModelShape& m = o.s.problem.model;
  return "# LLaMA-Factory config for the plan gpucalc chose (names: hiyouga/LLaMA-Factory\n"
         "# src/llamafactory/hparams, data/frameworks/llamafactory.json). Add model_name_or_path for\n"
         "# " +
         m.name + ", dataset, template and output_dir, then train\n# (" + num(o.l.gpus()) +
         " GPUs in all):\n#   FORCE_TORCHRUN=1 llamafactory-cli train this.yaml\n\n" + y.text;
}

}  // namespace gpucalc::launch
