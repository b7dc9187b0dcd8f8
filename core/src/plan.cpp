#include "gpucalc/plan.hpp"

#include <string>

namespace gpucalc {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp8: return "fp8";
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
  }
  return "?";
}
const char* to_string(Optimizer o) {
  switch (o) {
    case Optimizer::adamw: return "adamw";
  }
  return "?";
}

const char* to_string(Framework f) {
  switch (f) {
    case Framework::megatron: return "megatron";
    case Framework::torchtitan: return "torchtitan";
  }
  return "?";
}

StateBytes state_bytes(const Training& t) {
  StateBytes b;
  if (t.framework == Framework::torchtitan) {
    b = {4, 4, 8};
  } else {
    b = {2, t.precision == Precision::fp16 ? 2.0 : 4.0, 12};
  }
  if (t.grad_dtype_bytes) b.gradients = *t.grad_dtype_bytes;
  return b;
}

int64_t micro_batches(const Training& t, const Layout& l) {
  const int64_t per_step = l.dp * l.micro_batch;
  return per_step > 0 ? t.global_batch / per_step : 0;
}

int64_t layers_per_stage_max(const ModelShape& m, const Layout& l) {
  const int64_t chunks = l.pp * l.vpp;
  return l.vpp * ((m.layers + chunks - 1) / chunks);
}

namespace {
std::string s(int64_t v) { return std::to_string(v); }
}  // namespace

std::optional<Error> check_layout(const ModelShape& m, const Training& t, const Layout& l) {
  if (l.tp < 1) return Error{"/parallel/tp", "must be a positive integer, got " + s(l.tp)};
  if (l.pp < 1) return Error{"/parallel/pp", "must be a positive integer, got " + s(l.pp)};
  if (l.dp < 1) return Error{"/parallel/dp", "must be a positive integer, got " + s(l.dp)};
  if (l.cp < 1) return Error{"/parallel/cp", "must be a positive integer, got " + s(l.cp)};
  if (l.vpp < 1) return Error{"/parallel/vpp", "must be a positive integer, got " + s(l.vpp)};
  // Megatron splits heads, KV heads and the FFN columns across TP ranks.
  if (m.heads % l.tp != 0)
    return Error{"/parallel/tp", "must divide the model's attention heads (" + s(m.heads) + "), got " + s(l.tp)};
  if (m.kv_heads % l.tp != 0)
    return Error{"/parallel/tp", "must divide the model's KV heads (" + s(m.kv_heads) + "), got " + s(l.tp)};
  if (m.ffn_hidden % l.tp != 0)
    return Error{"/parallel/tp", "must divide the model's ffn_hidden (" + s(m.ffn_hidden) + "), got " + s(l.tp)};
  if (l.pp > m.layers)
    return Error{"/parallel/pp", "cannot exceed the model's layers (" + s(m.layers) + "), got " + s(l.pp)};
  if (l.vpp > 1) {
    if (l.pp == 1) return Error{"/parallel/vpp", "interleaving (vpp > 1) needs pp > 1"};
    // Every chunk needs at least one layer; chunks hold ceil(L / (pp·vpp)) layers, the
    // uneven split Llama 3 used (126 layers, fewer on the first and last stages).
    if (l.pp * l.vpp > m.layers)
      return Error{"/parallel/vpp", "pp × vpp (" + s(l.pp * l.vpp) + ") cannot exceed the model's layers (" +
                                        s(m.layers) + ")"};
  }
  // Context parallelism with load-balanced causal masking splits each sequence into
  // 2·cp chunks (Megatron-Core context parallel).
  if (l.cp > 1 && t.seq_len % (2 * l.cp) != 0)
    return Error{"/parallel/cp", "2 × cp (" + s(2 * l.cp) + ") must divide seq_len (" + s(t.seq_len) + ")"};
  if (l.ep != 1) return Error{"/parallel/ep", "the model has no experts (dense); ep must be 1, got " + s(l.ep)};
  if (l.micro_batch < 1)
    return Error{"/training/micro_batch", "must be a positive integer, got " + s(l.micro_batch)};
  if (t.global_batch % l.dp != 0)
    return Error{"/parallel/dp", "must divide the global batch (" + s(t.global_batch) + " sequences), got " + s(l.dp)};
  if ((t.global_batch / l.dp) % l.micro_batch != 0)
    return Error{"/training/micro_batch", "must divide the per-DP-rank batch (global batch " + s(t.global_batch) +
                                              " / dp " + s(l.dp) + " = " + s(t.global_batch / l.dp) + "), got " +
                                              s(l.micro_batch)};
  if (l.vpp > 1 && micro_batches(t, l) % l.pp != 0)
    return Error{"/training/micro_batch", "the interleaved schedule needs the micro-batch count (" +
                                              s(micro_batches(t, l)) + ") to be a multiple of pp (" + s(l.pp) + ")"};
  if (l.zero_stage < 0 || l.zero_stage > 3)
    return Error{"/training/zero_stage", "must be 0, 1, 2 or 3, got " + s(l.zero_stage)};
  return std::nullopt;
}

}  // namespace gpucalc
