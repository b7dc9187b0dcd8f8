// A torchtitan TOML job file (--job.config_file). Section and key names from
// pytorch/torchtitan torchtitan/config/job_config.py at the commit in
// data/frameworks/torchtitan.json, the last one configured by TOML; newer torchtitan
// takes the same names as --section.option flags.
#include <string>

#include "launch_export_detail.hpp"

namespace gpucalc::launch {
namespace {

struct Toml {
  std::string text;
  void section(const std::string& name) { text += (text.empty() ? "" : "\n") + std::string("[") + name + "]\n"; }
  void add(const std::string& key, const std::string& value) { text += key + " = " + value + "\n"; }
  void str(const std::string& key, const std::string& value) { add(key, "\"" + value + "\""); }
  void flag(const std::string& key, bool v) { add(key, v ? "true" : "false"); }
};

// FSDP2 shards over data_parallel_shard_degree ranks and replicates across
// data_parallel_replicate_degree groups (HSDP); without ZeRO it is plain DDP.
void parallelism(Out& o, Toml& t) {
  const Layout& l = o.l;
  t.section("parallelism");
  const int64_t shard = l.zero_stage == 0 ? 1 : zero_shard(l);
  t.add("data_parallel_replicate_degree", num(l.dp / shard));
  t.add("data_parallel_shard_degree", num(shard));
  if (l.zero_stage == 1 || l.zero_stage == 2) {
    t.str("fsdp_reshard_after_forward", "never");
    approximate(
        o, "zero_stage", std::to_string(l.zero_stage),
        "FSDP2 with fsdp_reshard_after_forward = \"never\" (parameters stay gathered between forward and backward)");
  }
  t.add("tensor_parallel_degree", num(l.tp));
  if (l.tp > 1 && o.s.problem.training.overlap_tp_comm) t.flag("enable_async_tensor_parallel", true);
  t.add("pipeline_parallel_degree", num(l.pp));
  if (l.pp > 1) {
    t.add("pipeline_parallel_microbatch_size", num(l.micro_batch));
    t.str("pipeline_parallel_schedule", l.vpp > 1 ? "Interleaved1F1B" : "1F1B");
    if (l.vpp > 1 && o.s.problem.model.layers % (l.pp * l.vpp) == 0)
      t.add("pipeline_parallel_layers_per_stage", num(o.s.problem.model.layers / (l.pp * l.vpp)));
    else if (l.vpp > 1) no_equivalent(o, "parallel.vpp", num(l.vpp));
  }
  if (uneven_split(l))
    no_equivalent(o, "parallel.first_stage_layers/last_stage_layers",
                  num(l.first_stage_layers) + "/" + num(l.last_stage_layers));
  t.add("context_parallel_degree", num(l.cp));
  // torchtitan's context parallelism is a ring (PyTorch context_parallel); no Ulysses.
  if (l.cp > 1 && o.s.problem.training.cp_comm == CpComm::ulysses) no_equivalent(o, "training.cp_comm", "ulysses");
  if (o.s.problem.model.moe.experts > 0) {
    t.add("expert_parallel_degree", num(l.ep));
    t.add("expert_tensor_parallel_degree", num(l.etp));
    if (o.s.problem.training.moe_dispatcher == MoeDispatcher::deepep) t.str("expert_parallel_comm_backend", "deepep");
    // HybridEP's fused permutation is Megatron-Core's; torchtitan permutes on its own.
    if (o.s.problem.training.moe_permute_fusion) no_equivalent(o, "training.moe_permute_fusion", "true");
  }
}

void training(Out& o, Toml& t) {
  const Training& tr = o.s.problem.training;
  t.section("training");
  // Per-DP-rank batch; torchtitan accumulates gradients over global / (local · dp) of them.
  // With pipeline stages the micro-batches are the pipeline's instead: local_batch_size
  // holds all m of them, split by pipeline_parallel_microbatch_size.
  const int64_t local = o.l.pp > 1 ? o.l.micro_batch * grad_accum(o.s, o.l) : o.l.micro_batch;
  t.add("local_batch_size", num(local));
  t.add("global_batch_size", num(tr.global_batch));
  t.add("seq_len", num(tr.seq_len));
  t.add("steps", num(train_steps(o.s)));
  t.str("mixed_precision_param", "bfloat16");
  if (tr.precision == Precision::fp16)
    approximate(o, "training.precision", "fp16", "mixed_precision_param = \"bfloat16\"");
  if (tr.offload.optimizer || tr.offload.params) t.flag("enable_cpu_offload", true);
  if (tr.offload.activation_layers > 0)
    no_equivalent(o, "training.offload.activation_layers", num(tr.offload.activation_layers));
}

void activation_checkpoint(Out& o, Toml& t) {
  const Layout& l = o.l;
  t.section("activation_checkpoint");
  t.str("mode", to_string(l.recompute));
  if (l.recompute != Recompute::selective) return;
  // torchtitan's selective AC saves by op (matmuls, SDPA) rather than by Megatron module.
  t.str("selective_ac_option", "op");
  approximate(o, "training.recompute_modules", recompute_module_list(l.recompute_modules, ","),
              "selective_ac_option = \"op\"", "export_approximate_per_op");
}

void quantize_and_compile(Out& o, Toml& t) {
  const Training& tr = o.s.problem.training;
  std::string converter;
  if (tr.precision == Precision::fp4) no_equivalent(o, "training.precision", "fp4");
  if (tr.precision == Precision::fp8) {
    if (tr.fp8_recipe == Fp8Recipe::mxfp8) {
      converter = "quantize.linear.mx";
    } else {
      converter = "quantize.linear.float8";
      if (tr.fp8_recipe == Fp8Recipe::delayed)
        approximate(o, "training.fp8_recipe", "delayed", "recipe_name = \"tensorwise\"",
                    "export_approximate_no_delayed");
    }
  }
  t.section("model");
  t.add("converters", converter.empty() ? "[]" : "[\"" + converter + "\"]");
  if (converter == "quantize.linear.float8") {
    t.section("quantize.linear.float8");
    t.str("recipe_name", "tensorwise");
  } else if (!converter.empty()) {
    t.section("quantize.linear.mx");
    t.str("recipe_name", "mxfp8_cublas");
  }
  t.section("compile");
  t.flag("enable", tr.torch_compile);
}

void optimizer(Out& o, Toml& t) {
  const Optimizer opt = o.s.problem.training.optimizer;
  t.section("optimizer");
  if (opt == Optimizer::adamw) t.str("name", "AdamW");
  else no_equivalent(o, "training.optimizer", to_string(opt));
}

}  // namespace

std::string write_torchtitan(Out& o) {
  Toml t;
  parallelism(o, t);
  training(o, t);
  activation_checkpoint(o, t);
  quantize_and_compile(o, t);
  optimizer(o, t);
  if (is_adapter_stage(o.s.problem.training)) no_equivalent(o, "training.stage", to_string(o.s.problem.training.stage));
  const ModelShape& m = o.s.problem.model;
  return "# torchtitan job config for the plan gpucalc chose (names: pytorch/torchtitan\n"
         "# torchtitan/config/job_config.py, data/frameworks/torchtitan.json). Set model.name and\n"
         "# model.flavor for " +
         m.name + " (" + num(m.layers) + " layers, hidden " + num(m.hidden) + ") and your dataset, then\n# run (" +
         num(o.l.gpus()) + " GPUs in all): NGPU=G ./run_train.sh --job.config_file this.toml (on each node)\n\n" +
         t.text;
}

}  // namespace gpucalc::launch
