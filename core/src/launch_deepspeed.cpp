// A DeepSpeed JSON config (deepspeed.initialize(config=...)). Key names from
// deepspeedai/DeepSpeed deepspeed/runtime/config.py, constants.py, precision_config.py
// and zero/config.py at the commit in data/frameworks/deepspeed.json. JSON has no
// comments: what the config cannot hold is only in the warnings.
#include <nlohmann/json.hpp>
#include <string>

#include "launch_export_detail.hpp"

namespace gpucalc::launch {
namespace {

// Model-parallel degrees live outside ds_config.json: in the model code (PipelineModule
// num_stages) or the launcher of Megatron-DeepSpeed.
void model_parallel_warnings(Out& o) {
  const Layout& l = o.l;
  if (l.tp > 1) no_equivalent(o, "parallel.tp", num(l.tp));
  if (l.pp > 1) no_equivalent(o, "parallel.pp", num(l.pp));
  if (l.vpp > 1) no_equivalent(o, "parallel.vpp", num(l.vpp));
  if (const int64_t n = o.s.problem.training.offload.activation_layers; n > 0)
    no_equivalent(o, "training.offload.activation_layers", num(n));
  if (l.cp > 1) no_equivalent(o, "parallel.cp", num(l.cp));
  if (l.ep > 1) no_equivalent(o, "parallel.ep", num(l.ep));
  if (l.recompute != Recompute::none) no_equivalent(o, "training.recompute", to_string(l.recompute));
}

nlohmann::ordered_json zero_section(Out& o) {
  const Layout& l = o.l;
  const Training& t = o.s.problem.training;
  nlohmann::ordered_json z;
  z["stage"] = l.zero_stage;
  if (l.zero_stage == 0) return z;
  z["overlap_comm"] = t.overlap_grad_reduce;
  z["contiguous_gradients"] = true;
  if (l.shard > 0 && l.shard < l.dp) {
    // ZeRO++ hpZ keeps a secondary copy of the parameters sharded within the group; the
    // optimizer states and gradients stay sharded over all of dp (not HSDP).
    if (l.zero_stage == 3) {
      z["zero_hpz_partition_size"] = l.shard;
      approximate(o, "parallel.shard", num(l.shard), "zero_hpz_partition_size", "export_approximate_hpz");
    } else {
      no_equivalent(o, "parallel.shard", num(l.shard));
    }
  }
  if (t.offload.optimizer) z["offload_optimizer"] = {{"device", "cpu"}, {"pin_memory", true}};
  if (t.offload.params) z["offload_param"] = {{"device", "cpu"}, {"pin_memory", true}};
  return z;
}

}  // namespace

std::string write_deepspeed(Out& o) {
  const Layout& l = o.l;
  const Training& t = o.s.problem.training;
  model_parallel_warnings(o);
  nlohmann::ordered_json c;
  // train_batch_size = micro-batch · gradient accumulation · data-parallel ranks.
  c["train_batch_size"] = t.global_batch;
  c["train_micro_batch_size_per_gpu"] = l.micro_batch;
  c["gradient_accumulation_steps"] = grad_accum(o.s, l);
  if (t.precision == Precision::fp16) {
    c["fp16"] = {{"enabled", true}};
  } else {
    c["bf16"] = {{"enabled", true}};
    if (t.precision == Precision::fp8) approximate(o, "training.precision", "fp8", "bf16", "export_approximate_fp8_te");
    if (t.precision == Precision::fp4) no_equivalent(o, "training.precision", "fp4");
  }
  c["zero_optimization"] = zero_section(o);
  if (t.optimizer == Optimizer::adamw) c["optimizer"] = {{"type", "AdamW"}};
  else if (t.optimizer == Optimizer::lion) c["optimizer"] = {{"type", "Lion"}};
  else if (t.optimizer == Optimizer::muon) c["optimizer"] = {{"type", "Muon"}};  // runtime/config.py MUON_OPTIMIZER
  else no_equivalent(o, "training.optimizer", to_string(t.optimizer));
  if (is_adapter_stage(t)) no_equivalent(o, "training.stage", to_string(t.stage));
  return c.dump(2) + "\n";
}

}  // namespace gpucalc::launch
