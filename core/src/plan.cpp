#include "gpucalc/plan.hpp"

#include <algorithm>
#include <string>

#include "gpucalc/message.hpp"

namespace gpucalc {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp8: return "fp8";
    case Precision::fp4: return "fp4";
  }
  return "?";
}
const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "?";
}
const char* to_string(Stage s) {
  switch (s) {
    case Stage::pretrain: return "pretrain";
    case Stage::full_finetune: return "full_finetune";
    case Stage::lora: return "lora";
    case Stage::qlora: return "qlora";
  }
  return "?";
}
const char* to_string(Optimizer o) {
  switch (o) {
    case Optimizer::adamw: return "adamw";
    case Optimizer::adam8bit: return "adam8bit";
    case Optimizer::sgd: return "sgd";
    case Optimizer::lion: return "lion";
    case Optimizer::adafactor: return "adafactor";
    case Optimizer::muon: return "muon";
  }
  return "?";
}

const char* to_string(Framework f) {
  switch (f) {
    case Framework::megatron: return "megatron";
    case Framework::torchtitan: return "torchtitan";
    case Framework::deepspeed: return "deepspeed";
    case Framework::hf: return "hf";
    case Framework::torchtune: return "torchtune";
  }
  return "?";
}

double optimizer_state_bytes(Optimizer o, double rows, double cols) {
  switch (o) {
    case Optimizer::adamw: return 8.0;                          // fp32 m and v
    case Optimizer::adam8bit: return 2.0 + 2.0 * 4.0 / 2048.0;  // 8-bit m, v + fp32 absmax per 2048 block each
    case Optimizer::sgd: return 4.0;                            // fp32 momentum buffer
    case Optimizer::lion: return 4.0;                           // fp32 momentum (Lion keeps one moment)
    case Optimizer::muon: return 4.0;                           // fp32 momentum; embedding, head: StateBytes adam_extra
    case Optimizer::adafactor:
      // Row and column second-moment vectors per matrix: 4·(r + c) bytes for r·c
      // parameters; a vector parameter (r or c = 0) keeps its full second moment.
      return (rows > 0 && cols > 0) ? 4.0 * (rows + cols) / (rows * cols) : 4.0;
  }
  return 8.0;
}

StateBytes state_bytes(const Training& t, const ModelShape* m) {
  // Adafactor's rate for the model's typical matrix (h × ffn); exact per matrix would
  // differ by well under a byte per thousand parameters.
  const double rows = m ? static_cast<double>(m->hidden) : 0.0;
  const double cols = m ? static_cast<double>(is_moe(*m) ? m->moe.expert_ffn_hidden : m->ffn_hidden) : 0.0;
  const double state = optimizer_state_bytes(t.optimizer, rows, cols);
  StateBytes b;
  if (t.framework == Framework::torchtitan || t.framework == Framework::hf) {
    // FSDP2 mixed precision: the sharded fp32 parameter is the master copy. Hugging Face
    // Trainer with bf16=True runs autocast on an fp32 model (fp32 parameters, gradients and
    // optimizer state); PEFT keeps the adapters in fp32 likewise (autocast_adapter_dtype).
    b = {t.master_weights ? 4.0 : 2.0, t.master_weights ? 4.0 : 2.0, state};
  } else if (t.framework == Framework::torchtune) {
    // torchtune recipes train in dtype bf16 with no master copy: bf16 parameters and
    // gradients, and torch.optim keeps its state in the parameter's dtype (fp32 moments
    // become bf16: half the bytes); bitsandbytes' 8-bit states stay 8-bit.
    const bool fp32_state = t.optimizer != Optimizer::adam8bit;
    b = {2, 2, fp32_state ? state / 2.0 : state};
  } else if (t.framework == Framework::deepspeed) {
    // DeepSpeed mixed precision as in the ZeRO paper (Rajbhandari et al. 2020 §3.1):
    // 16-bit weights and gradients, fp32 master weights + optimizer state.
    b = {2, 2, (t.master_weights ? 4.0 : 0.0) + state};
  } else {
    b = {2, t.precision == Precision::fp16 ? 2.0 : 4.0, (t.master_weights ? 4.0 : 0.0) + state};
    if (!t.master_weights) b.gradients = 2;  // pure bf16 training reduces bf16 gradients
  }
  if (t.grad_dtype_bytes) b.gradients = *t.grad_dtype_bytes;
  if (t.optimizer == Optimizer::muon) b.adam_extra = t.framework == Framework::torchtune ? state / 2.0 : state;
  return b;
}

const NamedBit kRecomputeModuleNames[7] = {{"core_attn", static_cast<unsigned>(RecomputeModule::core_attn)},
                                           {"moe_act", static_cast<unsigned>(RecomputeModule::moe_act)},
                                           {"layernorm", static_cast<unsigned>(RecomputeModule::layernorm)},
                                           {"mla_up_proj", static_cast<unsigned>(RecomputeModule::mla_up_proj)},
                                           {"mlp", static_cast<unsigned>(RecomputeModule::mlp)},
                                           {"moe", static_cast<unsigned>(RecomputeModule::moe)},
                                           {"shared_experts", static_cast<unsigned>(RecomputeModule::shared_experts)}};
const NamedBit kLoraTargetNames[7] = {
    {"q", static_cast<unsigned>(LoraTarget::q)},       {"k", static_cast<unsigned>(LoraTarget::k)},
    {"v", static_cast<unsigned>(LoraTarget::v)},       {"o", static_cast<unsigned>(LoraTarget::o)},
    {"gate", static_cast<unsigned>(LoraTarget::gate)}, {"up", static_cast<unsigned>(LoraTarget::up)},
    {"down", static_cast<unsigned>(LoraTarget::down)}};

bool recomputes(const Layout& l, RecomputeModule mod) {
  return l.recompute == Recompute::selective && (l.recompute_modules & static_cast<unsigned>(mod)) != 0;
}

int64_t micro_batches(const Training& t, const Layout& l) {
  const int64_t per_step = l.dp * l.micro_batch;
  return per_step > 0 ? global_batch(t, l) / per_step : 0;
}

namespace {
// Stages without a layer count of their own, and the layers they share evenly.
struct SplitRest {
  int64_t stages = 0, layers = 0;
};
SplitRest split_rest(const ModelShape& m, const Layout& l) {
  SplitRest r;
  r.stages = l.pp - (l.first_stage_layers > 0 ? 1 : 0) - (l.last_stage_layers > 0 ? 1 : 0);
  r.layers = m.layers - l.first_stage_layers - l.last_stage_layers;
  return r;
}
}  // namespace

int64_t stage_layer_count(const ModelShape& m, const Layout& l, int64_t stage) {
  if (!uneven_split(l)) {
    const int64_t chunks = l.pp * l.vpp;
    return l.vpp * ((m.layers + chunks - 1) / chunks);
  }
  if (stage == 0 && l.first_stage_layers > 0) return l.first_stage_layers;
  if (stage == l.pp - 1 && l.last_stage_layers > 0) return l.last_stage_layers;
  const SplitRest r = split_rest(m, l);
  return r.stages > 0 ? r.layers / r.stages : 0;
}

int64_t layers_per_stage_max(const ModelShape& m, const Layout& l) {
  if (!uneven_split(l)) return stage_layer_count(m, l, 0);
  return std::max({stage_layer_count(m, l, 0), stage_layer_count(m, l, l.pp - 1),
                   l.pp > 2 ? stage_layer_count(m, l, 1) : int64_t{0}});
}

namespace {
std::string s(int64_t v) { return std::to_string(v); }
}  // namespace

// What each framework can run (docs/performance-model.md "The search"):
//  - Hugging Face Trainer / Accelerate and torchtune have no pipeline schedule: Accelerate's
//    ParallelismConfig composes dp_replicate, dp_shard, tp and cp only (accelerate
//    parallelism_config.py), torchtune's distributed recipes data-parallel shard and
//    replicate and tensor-parallel dims; both checkpoint whole decoder layers
//    (Transformers gradient_checkpointing_enable, torchtune enable_activation_checkpointing),
//    so Megatron's selective recompute of chosen modules is not theirs either.
//  - DeepSpeed's PipelineEngine refuses ZeRO-2 and ZeRO-3 ("ZeRO-2 and ZeRO-3 are
//    incompatible with pipeline parallelism", deepspeed/runtime/pipe/engine.py) and runs
//    one stage per rank (no interleaved schedule).
namespace {

LayoutRule framework_rule(const Training& t, const Layout& l) {
  using R = LayoutRule;
  const bool layerwise = t.framework == Framework::hf || t.framework == Framework::torchtune;
  if (layerwise && l.pp > 1) return R::framework_pp;
  if (layerwise && l.recompute == Recompute::selective) return R::framework_selective;
  if (t.framework == Framework::deepspeed && l.vpp > 1) return R::framework_vpp;
  if (t.framework == Framework::deepspeed && l.pp > 1 && l.zero_stage >= 2) return R::framework_pp_zero;
  return R::none;
}

}  // namespace

LayoutRule broken_rule(const ModelShape& m, const Training& t, const Layout& l) {
  using R = LayoutRule;
  if (l.tp < 1) return R::tp_positive;
  if (l.pp < 1) return R::pp_positive;
  if (l.dp < 1) return R::dp_positive;
  if (l.cp < 1) return R::cp_positive;
  if (l.vpp < 1) return R::vpp_positive;
  // Megatron splits heads, KV heads and the FFN columns across TP ranks.
  if (m.heads % l.tp != 0) return R::tp_heads;
  if (m.kv_heads % l.tp != 0) return R::tp_kv_heads;
  if (m.ffn_hidden % l.tp != 0 && (!is_moe(m) || m.moe.first_dense_layers > 0)) return R::tp_ffn;
  if (l.pp > m.layers) return R::pp_layers;
  // Every chunk needs at least one layer; chunks hold ceil(L / (pp·vpp)) layers, the
  // uneven split Llama 3 used (126 layers, fewer on the first and last stages).
  if (l.vpp > 1 && l.pp == 1) return R::vpp_needs_pp;
  if (l.vpp > 1 && l.pp * l.vpp > m.layers) return R::vpp_layers;
  // Context parallelism with load-balanced causal masking splits each sequence into
  // 2·cp chunks (Megatron-Core context parallel).
  // Ulysses splits the sequence cp ways and, for attention, each rank's heads cp ways.
  const bool ulysses = t.cp_comm == CpComm::ulysses;
  if (l.cp > 1 && t.seq_len % ((ulysses ? 1 : 2) * l.cp) != 0) return R::cp_seq_len;
  if (l.cp > 1 && ulysses && (m.heads / l.tp) % l.cp != 0) return R::cp_ulysses_heads;
  if (l.ep < 1) return R::ep_positive;
  if (!is_moe(m) && l.ep != 1) return R::ep_dense;
  if (is_moe(m)) {
    // Each EP rank holds E/ep whole experts; the EP group is carved out of DP × CP
    // (Megatron-Core expert parallel with expert-TP = TP).
    if (m.moe.experts % l.ep != 0) return R::ep_experts;
    if (l.etp < 1 || l.tp % l.etp != 0) return R::etp_tp;
    if ((l.tp * l.dp * l.cp) % (l.ep * l.etp) != 0) return R::ep_dp_cp;
    if (m.moe.expert_ffn_hidden % l.etp != 0) return R::tp_expert_ffn;
  }
  if (l.micro_batch < 1) return R::mb_positive;
  if (global_batch(t, l) % l.dp != 0) return R::dp_batch;
  if ((global_batch(t, l) / l.dp) % l.micro_batch != 0) return R::mb_batch;
  // Megatron's interleaved schedule needs the micro-batch count to be a multiple of pp.
  if (l.vpp > 1 && micro_batches(t, l) % l.pp != 0) return R::vpp_micro_batches;
  if (l.zero_stage < 0 || l.zero_stage > 3) return R::zero_stage;
  // Hybrid sharding: the sharding groups tile the dp ranks; sharding needs ZeRO.
  if (l.shard < 0 || (l.shard > 0 && l.dp % l.shard != 0)) return R::shard_dp;
  if (l.shard > 0 && l.shard < l.dp && l.zero_stage == 0) return R::shard_zero;
  if (const LayoutRule r = framework_rule(t, l); r != R::none) return r;
  if (uneven_split(l)) {
    // Megatron-Core: the stages without a count of their own split the rest evenly; every
    // chunk of every stage needs at least one layer.
    if (l.pp < 2) return R::split_needs_pp;
    if (l.first_stage_layers > 0 && (l.first_stage_layers < l.vpp || l.first_stage_layers >= m.layers))
      return R::split_first;
    if (l.last_stage_layers > 0 && (l.last_stage_layers < l.vpp || l.last_stage_layers >= m.layers))
      return R::split_last;
    const SplitRest r = split_rest(m, l);
    if (r.stages == 0 ? r.layers != 0 : (r.layers < r.stages * l.vpp || r.layers % r.stages != 0)) return R::split_rest;
  }
  return R::none;
}

namespace {

Error positive(const char* path, int64_t got) {
  return coded_error(path, "expected_positive_integer", "must be a positive integer, got {got}", {{"got", s(got)}});
}
// "must divide the model's attention heads (32), got 5" and its kin: {of} and {got}.
Error divide(const char* path, const char* code, std::string_view en, int64_t of, int64_t got) {
  return coded_error(path, code, en, {{"of", s(of)}, {"got", s(got)}});
}

}  // namespace

std::optional<Error> check_framework(const Training& t, const Layout& l) {
  struct Text {
    const char *path, *code, *en;
  };
  // In LayoutRule's order, from framework_pp.
  static constexpr Text kTexts[] = {
      {"/parallel/pp", "framework_no_pp",
       "training.framework \"{framework}\" has no pipeline parallelism (pp must be 1), got {got}"},
      {"/parallel/vpp", "framework_no_vpp",
       "DeepSpeed's pipeline engine has no interleaved schedule (vpp must be 1), got {got}"},
      {"/training/zero_stage", "deepspeed_pp_zero",
       "DeepSpeed's pipeline engine (pp {pp}) takes ZeRO stage 0 or 1 only, got {got}"},
      {"/training/recompute", "framework_no_selective",
       "training.framework \"{framework}\" checkpoints whole layers: recompute is \"none\" or \"full\", got "
       "\"selective\""},
  };
  static_assert(static_cast<int>(LayoutRule::framework_selective) - static_cast<int>(LayoutRule::framework_pp) == 3,
                "kTexts follows LayoutRule's order");
  const LayoutRule r = framework_rule(t, l);
  if (r == LayoutRule::none) return std::nullopt;
  const Text& x = kTexts[static_cast<int>(r) - static_cast<int>(LayoutRule::framework_pp)];
  const int64_t got = r == LayoutRule::framework_vpp ? l.vpp : r == LayoutRule::framework_pp_zero ? l.zero_stage : l.pp;
  return coded_error(x.path, x.code, x.en, {{"framework", to_string(t.framework)}, {"pp", s(l.pp)}, {"got", s(got)}});
}

std::optional<Error> check_layout(const ModelShape& m, const Training& t, const Layout& l) {
  using R = LayoutRule;
  switch (broken_rule(m, t, l)) {
    case R::none: return std::nullopt;
    case R::tp_positive: return positive("/parallel/tp", l.tp);
    case R::pp_positive: return positive("/parallel/pp", l.pp);
    case R::dp_positive: return positive("/parallel/dp", l.dp);
    case R::shard_dp:
      return divide("/parallel/shard", "shard_divide_dp",
                    "must divide dp ({of}): the sharding groups tile the data-parallel ranks, got {got}", l.dp,
                    l.shard);
    case R::shard_zero:
      return coded_error(
          "/parallel/shard", "shard_needs_zero",
          "needs training.zero_stage 1-3: hybrid sharding shards ZeRO/FSDP states within groups of shard ranks");
    case R::framework_pp:
    case R::framework_selective:
    case R::framework_vpp:
    case R::framework_pp_zero: return check_framework(t, l);
    case R::cp_positive: return positive("/parallel/cp", l.cp);
    case R::vpp_positive: return positive("/parallel/vpp", l.vpp);
    case R::tp_heads:
      return divide("/parallel/tp", "tp_divide_heads", "must divide the model's attention heads ({of}), got {got}",
                    m.heads, l.tp);
    case R::tp_kv_heads:
      return divide("/parallel/tp", "tp_divide_kv_heads", "must divide the model's KV heads ({of}), got {got}",
                    m.kv_heads, l.tp);
    case R::tp_ffn:
      return divide("/parallel/tp", "tp_divide_ffn", "must divide the model's ffn_hidden ({of}), got {got}",
                    m.ffn_hidden, l.tp);
    case R::pp_layers:
      return divide("/parallel/pp", "pp_above_layers", "cannot exceed the model's layers ({of}), got {got}", m.layers,
                    l.pp);
    case R::vpp_needs_pp: return coded_error("/parallel/vpp", "vpp_needs_pp", "interleaving (vpp > 1) needs pp > 1");
    case R::vpp_layers:
      return coded_error("/parallel/vpp", "vpp_above_layers",
                         "pp × vpp ({product}) cannot exceed the model's layers ({layers})",
                         {{"product", s(l.pp * l.vpp)}, {"layers", s(m.layers)}});
    case R::cp_seq_len:
      if (t.cp_comm == CpComm::ulysses)
        return divide("/parallel/cp", "cp_divide_seq_len_ulysses", "must divide seq_len ({of}), got {got}", t.seq_len,
                      l.cp);
      return coded_error("/parallel/cp", "cp_divide_seq_len", "2 × cp ({twice_cp}) must divide seq_len ({seq_len})",
                         {{"twice_cp", s(2 * l.cp)}, {"seq_len", s(t.seq_len)}});
    case R::cp_ulysses_heads:
      return divide("/parallel/cp", "cp_ulysses_heads",
                    "with cp_comm \"ulysses\" must divide the attention heads per TP rank ({of}), got {got}",
                    m.heads / l.tp, l.cp);
    case R::ep_dense:
      return coded_error("/parallel/ep", "ep_dense", "the model has no experts (dense); ep must be 1, got {got}",
                         {{"got", s(l.ep)}});
    case R::ep_positive: return positive("/parallel/ep", l.ep);
    case R::ep_experts:
      return divide("/parallel/ep", "ep_divide_experts", "must divide the model's routed experts ({of}), got {got}",
                    m.moe.experts, l.ep);
    case R::ep_dp_cp:
      return coded_error(
          "/parallel/ep", "ep_etp_divide_ranks",
          "ep × etp ({product}) must divide tp × cp × dp ({ranks}): expert groups fold into a stage's ranks, got ep {got}",
          {{"product", s(l.ep * l.etp)}, {"ranks", s(l.tp * l.cp * l.dp)}, {"got", s(l.ep)}});
    case R::tp_expert_ffn:
      return divide("/parallel/etp", "etp_divide_expert_ffn",
                    "must divide the experts' expert_ffn_hidden ({of}), got {got}", m.moe.expert_ffn_hidden, l.etp);
    case R::etp_tp:
      return divide("/parallel/etp", "etp_divisor_of_tp", "must be a positive divisor of tp ({of}), got {got}", l.tp,
                    l.etp);
    case R::mb_positive: return positive("/training/micro_batch", l.micro_batch);
    case R::dp_batch:
      return divide("/parallel/dp", "dp_divide_batch", "must divide the global batch ({of} sequences), got {got}",
                    global_batch(t, l), l.dp);
    case R::mb_batch:
      return coded_error("/training/micro_batch", "micro_batch_divide_rank_batch",
                         "must divide the per-DP-rank batch (global batch {batch} / dp {dp} = {per_rank}), got {got}",
                         {{"batch", s(global_batch(t, l))},
                          {"dp", s(l.dp)},
                          {"per_rank", s(global_batch(t, l) / l.dp)},
                          {"got", s(l.micro_batch)}});
    case R::vpp_micro_batches:
      return coded_error("/training/micro_batch", "vpp_micro_batches",
                         "the interleaved schedule needs the micro-batch count ({count}) to be a multiple of pp ({pp})",
                         {{"count", s(micro_batches(t, l))}, {"pp", s(l.pp)}});
    case R::zero_stage:
      return coded_error("/training/zero_stage", "zero_stage_range", "must be 0, 1, 2 or 3, got {got}",
                         {{"got", s(l.zero_stage)}});
    case R::split_needs_pp:
      return coded_error(l.first_stage_layers > 0 ? "/parallel/first_stage_layers" : "/parallel/last_stage_layers",
                         "uneven_split_pp", "an uneven pipeline split needs pp > 1, got pp {got}", {{"got", s(l.pp)}});
    case R::split_first:
    case R::split_last: {
      const bool first = broken_rule(m, t, l) == R::split_first;
      return coded_error(
          first ? "/parallel/first_stage_layers" : "/parallel/last_stage_layers", "stage_layers_range",
          "must be at least vpp ({vpp}) and below the model's layers ({layers}), got {got}",
          {{"vpp", s(l.vpp)}, {"layers", s(m.layers)}, {"got", s(first ? l.first_stage_layers : l.last_stage_layers)}});
    }
    case R::split_rest: {
      const SplitRest r = split_rest(m, l);
      const std::string at = l.last_stage_layers > 0 ? "/parallel/last_stage_layers" : "/parallel/first_stage_layers";
      if (r.stages == 0)
        return coded_error(
            at, "pp2_split_sum",
            "with pp = 2 the first and last stage must hold all {layers} layers, got {first} + {last}",
            {{"layers", s(m.layers)}, {"first", s(l.first_stage_layers)}, {"last", s(l.last_stage_layers)}});
      return coded_error(
          at, "split_rest_uneven",
          "leaves {layers} layers for the other {stages} stages, which must split them evenly with at least vpp ({vpp}) each",
          {{"layers", s(r.layers)}, {"stages", s(r.stages)}, {"vpp", s(l.vpp)}});
    }
  }
  return std::nullopt;
}

}  // namespace gpucalc
