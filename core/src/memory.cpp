// Per-GPU memory. The formulas are derived and justified term by term in
// docs/memory-model.md; the comments here name each term's source.
#include "gpucalc/memory.hpp"

#include <algorithm>

namespace gpucalc {
namespace {

constexpr double kAct = 2.0;  // bytes per saved activation element (bf16/fp16)

// Parameters of one layer held by one TP rank: weight matrices and column-parallel
// biases are split t ways (Megatron-LM, Shoeybi et al. 2019 §3); norms are replicated.
double layer_params_local(const ParamCounts& pc, int64_t tp) {
  return static_cast<double>(pc.attention + pc.mlp) / static_cast<double>(tp) +
         static_cast<double>(pc.layer_norms);
}

struct StageParams {
  double params = 0;          // parameters held by one GPU of this stage (before ZeRO)
  double layer_local = 0;     // one layer's local parameters
  double head_local = 0;      // the output projection's local parameters (last stage)
  double embedding_local = 0; // the token embedding's local parameters (first stage)
  int64_t layers = 0;
};

StageParams stage_params(const ModelShape& m, const Layout& l, int stage) {
  const ParamCounts pc = count_params(m);
  StageParams sp;
  sp.layers = layers_per_stage_max(m, l);
  sp.layer_local = layer_params_local(pc, l.tp);
  sp.params = static_cast<double>(sp.layers) * sp.layer_local;
  const bool first = stage == 0;
  const bool last = stage == l.pp - 1;
  const double vocab_local = static_cast<double>(pc.embedding) / static_cast<double>(l.tp);  // vocab-parallel
  if (first) {
    sp.params += vocab_local + static_cast<double>(pc.position);
    sp.embedding_local = vocab_local + static_cast<double>(pc.position);
  }
  if (last) {
    sp.params += static_cast<double>(pc.final_norm);
    // Untied: the head is its own V·h matrix. Tied with pp > 1: Megatron keeps a copy of
    // the word embedding on the last stage for the output layer and all-reduces its
    // gradient with the first stage's (Narayanan et al. 2021 §2.2 implementation note).
    if (!m.tied_embeddings) sp.params += vocab_local;
    else if (!first) sp.params += vocab_local;
    sp.head_local = vocab_local;
  }
  return sp;
}

}  // namespace

double activation_bytes_per_layer(const ModelShape& m, const Training& t, const Layout& l) {
  // Tensors a layer saves for its backward pass, per micro-batch, per GPU
  // (docs/memory-model.md §2). s is the local sequence s/cp (context parallelism
  // splits the sequence, Megatron-Core CP); TP splits heads and FFN columns; sequence
  // parallelism (Korthikanti et al. 2022 §4.2.2) also splits the norm/residual-region
  // tensors across the TP group.
  const double s = static_cast<double>(t.seq_len) / static_cast<double>(l.cp);
  const double b = static_cast<double>(l.micro_batch);
  const double h = static_cast<double>(m.hidden);
  const double a = static_cast<double>(m.heads);
  const double g = static_cast<double>(m.kv_heads);
  const double d = static_cast<double>(head_dim(m));
  const double f = static_cast<double>(m.ffn_hidden);
  const double tp = static_cast<double>(l.tp);
  const double seq_shard = (t.sequence_parallel && l.tp > 1) ? tp : 1.0;
  const double sb = s * b;
  const bool titan = t.framework == Framework::torchtitan;
  const bool swiglu = gated_ffn(m.ffn_act);  // SwiGLU or GeGLU: gate, up, down
  // FlashAttention keeps only the fp32 log-sum-exp per query row (Dao et al. 2022).
  const double lse = t.flash_attention ? 4.0 * b * s * a / tp : 0.0;

  if (titan && l.recompute == Recompute::selective) {
    // torchtitan's op-level selective AC (torchtitan parallelize_llama.py, _save_list):
    // the block input is checkpointed; the outputs of the matmuls are saved except every
    // second one, plus the attention kernel's outputs and, under TP, the reduce-scatter
    // outputs; everything else is recomputed. Matmul order in a block: wq, wk, wv, wo,
    // then w1, w3, w2 (SwiGLU) or fc1, fc2 (GELU); the 1st, 3rd, 5th, 7th are saved.
    // Row-parallel matmuls (wo, w2) produce full-width partial sums before their
    // reduce-scatter.
    const double full_h = h;  // wo / w2 output per token on one rank
    const double mm_out[] = {a * d / tp, g * d / tp, g * d / tp, full_h, f / tp, f / tp, full_h};
    const int n_mm = swiglu ? 7 : 6;
    double saved = h / seq_shard;  // block input
    for (int i = 0; i < n_mm; ++i) {
      const int idx = swiglu ? i : (i < 5 ? i : 6);  // GELU: fc1 (f/t) then fc2 (h)
      if (i % 2 == 0) saved += mm_out[idx];
    }
    saved += a * d / tp;                 // attention output (lse added below)
    if (l.tp > 1) saved += 2.0 * h / tp;  // reduce-scatter outputs after wo and w2
    return kAct * sb * saved + lse;
  }

  // Norm/residual region: inputs of the two norms (split by SP) and of the two
  // column-parallel projections, QKV and MLP-in. Megatron keeps those sequence-sharded
  // and re-gathers them in backward (Korthikanti §4.2.2); torchtitan's PrepareModuleInput
  // all-gathers them to Replicate before the linears, which save the full tensor.
  const double linear_in_shard = titan ? 1.0 : seq_shard;
  // Each norm keeps its input (2 per layer; Gemma 2/3 have 4); the QKV and MLP-in
  // projections keep theirs. Per-head q/k norms (Qwen3, Gemma 3) keep Q and K before
  // normalisation.
  const double norms = static_cast<double>(m.norms_per_layer);
  double bytes = kAct * sb * h * (norms / seq_shard + 2.0 / linear_in_shard);
  if (m.qk_norm) bytes += kAct * sb * (a + g) * d / tp;
  // Attention: Q, K, V (after RoPE) and the attention output O feeding the output
  // projection: s·b·(2·a·d + 2·g·d); split by TP over heads.
  bytes += kAct * sb * (2.0 * a * d + 2.0 * g * d) / tp;
  // SwiGLU: gate and up projections (2f) feed silu(gate)·up, whose output (f) feeds
  // down. GELU: fc1 output (f, the GELU input) and GELU output (f, the fc2 input).
  bytes += kAct * sb * (swiglu ? 3.0 : 2.0) * f / tp;
  // Dropout: 1-byte masks after attention and after the MLP (Korthikanti Table 2's 2sbh).
  if (m.dropout) bytes += 2.0 * sb * h / seq_shard;
  bytes += lse;
  if (!t.flash_attention && l.recompute == Recompute::none) {
    // Materialised attention: softmax output 2·a·s²·b (+ dropout mask a·s²·b and
    // dropout output 2·a·s²·b): Korthikanti's 5·a·s²·b, or 2·a·s²·b without dropout.
    // Selective recomputation recomputes exactly this part (Korthikanti §5). With CP
    // each rank holds its s/cp queries against all s keys.
    const double s_full = static_cast<double>(t.seq_len);
    bytes += (m.dropout ? 5.0 : 2.0) * a * s * s_full * b / tp;
  }
  return bytes;
}

ModelStates model_state_bytes(double params, int zero_stage, double shard, StateBytes b) {
  ModelStates m;
  m.weights = b.weights * params / (zero_stage >= 3 ? shard : 1.0);
  m.gradients = b.gradients * params / (zero_stage >= 2 ? shard : 1.0);
  m.optimizer = b.optimizer * params / (zero_stage >= 1 ? shard : 1.0);
  return m;
}

double capacity_bytes(const Gpu& g) { return g.memory_gib.value.value_or(0.0) * 1073741824.0; }

StageMemory stage_memory(const ModelShape& m, const Training& t, const Layout& l, const Overheads& o,
                         int stage) {
  StageMemory r;
  r.stage = stage;
  const bool last = stage == l.pp - 1;
  const StageParams sp = stage_params(m, l, stage);
  r.layers = sp.layers;

  // Model states, mixed-precision Adam (Rajbhandari et al. 2020 §3.1): 2 bytes of
  // 16-bit weights, 2 of 16-bit gradients and K = 12 of optimizer state (fp32 master
  // weights, momentum, variance) per parameter. ZeRO shards them over the data-parallel
  // group, which spans dp × cp (Megatron-Core's distributed optimizer and FSDP with CP
  // shard over the combined DP-CP group): stage 1 the optimizer, 2 also gradients,
  // 3 also weights.
  const double shard = static_cast<double>(l.dp * l.cp);
  const double P = sp.params;
  const ModelStates ms = model_state_bytes(P, l.zero_stage, shard, state_bytes(t));
  r.weights = ms.weights;
  r.gradients = ms.gradients;
  r.optimizer = ms.optimizer;
  const bool titan = t.framework == Framework::torchtitan;
  if (l.zero_stage >= 3 && shard > 1.0) {
    // Gathered working set: the layer in use and the one being prefetched (2 B/param
    // each) plus the in-use layer's unsharded gradient before its reduce-scatter
    // (2 B/param): PyTorch FSDP forward/backward prefetch; DeepSpeed's ZeRO-3 estimator
    // adds the same 4·largest-layer term. On the last stage the output projection is
    // the largest unit (params + grads). torchtitan wraps the embedding, final norm and
    // head together as the root FSDP unit, gathered for the whole backward, with the
    // head's unsharded gradient alive until that unit's reduce-scatter at the end.
    double unit = 0.0;
    if (titan) {
      const bool shared = m.tied_embeddings && stage == 0 && last;  // one matrix serves both
      const double root = (stage == 0 ? sp.embedding_local : 0.0) + (last && !shared ? sp.head_local : 0.0);
      unit = 2.0 * root + (last ? 2.0 * sp.head_local : 0.0);
    } else if (last) {
      unit = 4.0 * sp.head_local;
    }
    r.weights_gathered = std::max(3.0 * 2.0 * sp.layer_local, unit);
  }
  if (t.precision == Precision::fp8 && !titan) {
    // Transformer Engine keeps an FP8 (1 byte) copy of each local weight between
    // micro-batches of a step (fp8 weight caching); torchao's dynamic float8 casts on
    // the fly and keeps none.
    r.fp8_weight_cache = 1.0 * P / (l.zero_stage >= 3 ? shard : 1.0);
  }

  // Activations. Micro-batch-chunks in flight under 1F1B (Narayanan et al. 2021 §2.2):
  // stage i holds min(m, p - i) micro-batches; interleaved with v chunks, Megatron's
  // schedule warms up (p - i - 1)·2 + (v - 1)·p chunks, so stage 0 holds
  // (1 + (p-1)/(p·v))·L layers' worth (Korthikanti et al. 2022 §4.2.3).
  const int64_t m_count = micro_batches(t, l);
  const int64_t v = l.vpp;
  const int64_t p = l.pp;
  int64_t in_flight;
  if (v == 1) {
    in_flight = std::min<int64_t>(m_count, p - stage);
  } else {
    in_flight = std::min<int64_t>(m_count * v, (p - stage - 1) * 2 + (v - 1) * p + 1);
  }
  in_flight = std::max<int64_t>(in_flight, 1);
  r.in_flight = in_flight;
  const double chunk_layers = static_cast<double>(sp.layers) / static_cast<double>(v);
  const double per_layer = activation_bytes_per_layer(m, t, l);
  const double seq_shard = (t.sequence_parallel && l.tp > 1) ? static_cast<double>(l.tp) : 1.0;
  const double s_local = static_cast<double>(t.seq_len) / static_cast<double>(l.cp);
  const double sbh = s_local * static_cast<double>(l.micro_batch) * static_cast<double>(m.hidden);
  if (l.recompute == Recompute::full) {
    // Full recomputation checkpoints only each layer's input (2·s·b·h, split by SP)
    // and rebuilds one layer at a time in backward (Korthikanti et al. 2022 §5, Table 2).
    r.layer_activations = static_cast<double>(in_flight) * chunk_layers * kAct * sbh / seq_shard;
    Layout rebuilt = l;
    rebuilt.recompute = Recompute::none;  // the rebuilt layer holds every tensor, scores included
    r.recompute_working = activation_bytes_per_layer(m, t, rebuilt);
  } else {
    r.layer_activations = static_cast<double>(in_flight) * chunk_layers * per_layer;
  }
  if (last) {
    // Output layer on the last stage, one micro-batch at a time (docs/memory-model.md §5).
    // Megatron: the final norm's input and the head's input (2·s·b·h each, split by SP),
    // the 16-bit logits (s·b·V/t) and the fp32 softmax its fused vocab-parallel
    // cross-entropy computes in place and keeps for backward (4·s·b·V/t): 6 B per logit.
    // torchtitan: the head's input is all-gathered (ColwiseParallel, Replicate input) and
    // the loss runs on logits.float() through log-softmax, which at the start of backward
    // holds its fp32 output, the incoming fp32 gradient and the fp32 input gradient:
    // 12 B per logit.
    const double sbv = s_local * static_cast<double>(l.micro_batch) * static_cast<double>(m.vocab) /
                       static_cast<double>(l.tp);
    r.logits = titan ? kAct * sbh / seq_shard + kAct * sbh + 12.0 * sbv
                     : 2.0 * kAct * sbh / seq_shard + 6.0 * sbv;
  }

  // Runtime overheads (docs/memory-model.md §Runtime).
  r.cuda_context = o.cuda_context_bytes;
  int communicators = 0;
  if (l.tp > 1) ++communicators;
  if (l.pp > 1) ++communicators;
  if (l.dp > 1) ++communicators;
  if (l.cp > 1) ++communicators;
  r.comm_buffers = o.nccl_bytes_per_communicator * communicators;
  r.fragmentation = o.fragmentation * (r.activations() + r.weights_gathered);
  return r;
}

StageMemory worst_stage_memory(const ModelShape& m, const Training& t, const Layout& l, const Overheads& o) {
  StageMemory a = stage_memory(m, t, l, o, 0);
  if (l.pp == 1) return a;
  StageMemory z = stage_memory(m, t, l, o, static_cast<int>(l.pp - 1));
  return z.total() > a.total() ? z : a;
}

}  // namespace gpucalc
