#include "gpucalc/compute.hpp"

#include <algorithm>
#include <cmath>

namespace gpucalc {

FlopsPerToken flops_per_token(const ModelShape& m, int64_t seq_len, Recompute r) {
  // Model FLOPs per token (PaLM, Chowdhery et al. 2022 appendix B; Narayanan et al.
  // 2021 eq. 3): 2 FLOPs per matmul parameter forward and 4 backward, 6·Ψ_matmul, where
  // Ψ_matmul counts every layer's linear weights and the V·h output projection; plus
  // attention scores and values, 12·L·s·a·d (non-causal, as PaLM counts it).
  const double L = static_cast<double>(m.layers);
  const double s = static_cast<double>(seq_len);
  const double ad = static_cast<double>(m.heads) * static_cast<double>(head_dim(m));
  const double layer_mm = static_cast<double>(layer_matmul_params(m));
  const double head_mm = static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
  FlopsPerToken f;
  f.model = 6.0 * (L * layer_mm + head_mm) + 12.0 * L * s * ad;
  // Recomputation repeats forward work (Korthikanti et al. 2022 §5): full recompute one
  // more forward of every layer (2·Ψ_layers + 4·L·s·a·d), selective only the attention
  // scores and values (4·L·s·a·d). The output layer is never recomputed.
  switch (r) {
    case Recompute::none: f.hardware = f.model; break;
    case Recompute::selective: f.hardware = f.model + 4.0 * L * s * ad; break;
    case Recompute::full: f.hardware = f.model + 2.0 * L * layer_mm + 4.0 * L * s * ad; break;
  }
  return f;
}

double peak_flops(const Gpu& g, Precision p) {
  const double bf16 = g.bf16_tflops.value.value_or(0.0);
  switch (p) {
    case Precision::bf16: return bf16 * 1e12;
    case Precision::fp16: return g.fp16_tflops.value.value_or(bf16) * 1e12;
    case Precision::fp8: return g.fp8_tflops.value.value_or(bf16) * 1e12;
  }
  return bf16 * 1e12;
}

Link link_for(const Gpu& g, const PerfProfile& perf, int64_t stride, int64_t size) {
  // Megatron orders ranks TP, CP, DP, PP from the innermost (consecutive ranks), so a
  // group of `size` ranks at `stride` spans stride·size consecutive ranks; it stays on
  // the scale-up network (NVLink) when that span fits one domain. Beyond it, every GPU
  // talks through its own NIC (rail-optimised fabrics), so the per-GPU scale-out rate
  // bounds the collective (sizing-model.md §4).
  Link k;
  const double domain = g.scaleup_domain.value.value_or(8.0);
  const double span = static_cast<double>(stride) * static_cast<double>(size);
  k.scaleout = span > domain;
  if (!k.scaleout) {
    k.bytes_per_s = g.scaleup_gbs.value.value_or(0.0) * 1e9 * perf.scaleup.value.value_or(0.75);
    k.latency_s = perf.scaleup_latency_us.value.value_or(10.0) * 1e-6;
  }
  if (k.scaleout || k.bytes_per_s <= 0) {
    // scaleout_gbps is a line rate in Gb/s.
    k.bytes_per_s = g.scaleout_gbps.value.value_or(100.0) / 8.0 * 1e9 * perf.scaleout.value.value_or(0.85);
    k.latency_s = perf.scaleout_latency_us.value.value_or(25.0) * 1e-6;
    k.scaleout = true;
  }
  return k;
}

namespace {

// Ring collectives (Thakur et al. 2005; sizing-model.md §4): reduce-scatter or
// all-gather moves (n-1)/n of the buffer per GPU, all-reduce twice that.
double ring_time(const Link& k, double bytes, int64_t n, double passes) {
  if (n <= 1 || bytes <= 0) return 0.0;
  const double nn = static_cast<double>(n);
  return passes * (nn - 1) / nn * bytes / k.bytes_per_s + passes * k.latency_s;
}

struct Kernels {
  double peak = 0;        // matmul peak for the precision, FLOP/s
  double mm_eff = 0;      // asymptotic matmul efficiency
  double att_fwd = 0, att_bwd = 0;
  double hbm = 0;         // achieved HBM bytes/s for large streams
  const PerfData* data = nullptr;

  double sms = 0;  // 0: no wave quantization (assume.hfu)

  // A GEMM of `flops` moving `bytes` through HBM: the slower of its tensor-core time
  // (size roll-off on the asymptotic efficiency) and its HBM time (the roofline,
  // Williams et al. 2009); the batched attention GEMMs with K = d are HBM-bound.
  double gemm(double flops, double bytes = 0) const {
    const double compute = flops / (peak * mm_eff * data->matmul_rolloff.at(flops / 1e9));
    return bytes > 0 ? std::max(compute, bytes / hbm) : compute;
  }
  // Wave quantization (NVIDIA's GEMM guide): an m×n output is cut into tiles, one per
  // SM per wave; a last, partial wave idles SMs. Fraction of SM-time doing work, for
  // the better of the two tile orientations.
  double wave(double m, double n) const {
    if (sms <= 0) return 1.0;
    const auto frac = [&](double tm, double tn) {
      const double tiles = std::ceil(m / tm) * std::ceil(n / tn);
      return tiles / (std::ceil(tiles / sms) * sms);
    };
    return std::max(frac(data->tile_m, data->tile_n), frac(data->tile_n, data->tile_m));
  }
  // A linear layer y[m×n] = x[m×k]·W[k×n]: forward, and backward's input gradient
  // (m×k out) and weight gradient (k×n out, reducing over m), each with its own waves.
  double linear_fwd(double m, double n, double kk) const { return gemm(2 * m * n * kk) / wave(m, n); }
  double linear_bwd(double m, double n, double kk) const {
    return gemm(2 * m * n * kk) / wave(m, kk) + gemm(2 * m * n * kk) / wave(kk, n);
  }
  double mem(double bytes, double op_bytes) const {
    return bytes / (hbm * data->memory_rolloff.at(op_bytes / 1e6));
  }
};

}  // namespace

StepTime step_time(const ModelShape& m, const Training& t, const Layout& l, const Gpu& g, const PerfProfile& perf,
                   const Efficiency& e) {
  StepTime st;
  st.peak_flops = peak_flops(g, t.precision);
  const double tokens_step = static_cast<double>(t.global_batch) * static_cast<double>(t.seq_len);
  const double n = static_cast<double>(l.gpus());
  const FlopsPerToken f = flops_per_token(m, t.seq_len, l.recompute);
  const double model_flops_step = tokens_step * f.model;
  const double hw_flops_step = tokens_step * f.hardware;
  const auto finish = [&]() {
    st.bubble_fraction = st.step_time_s > 0 ? st.bubble_s / st.step_time_s : 0.0;
    st.tokens_per_s_per_gpu = tokens_step / (st.step_time_s * n);
    st.mfu = model_flops_step / (st.step_time_s * n * st.peak_flops);
    st.hfu = hw_flops_step / (st.step_time_s * n * st.peak_flops);
    st.tflops_per_gpu = model_flops_step / (st.step_time_s * n) / 1e12;
    return st;
  };
  if (e.mfu) {
    // assume.mfu is an end-to-end figure: it already includes bubbles and stalls.
    st.step_time_s = model_flops_step / (n * st.peak_flops * *e.mfu);
    st.efficiency = *e.mfu * f.hardware / f.model;
    st.compute_s = st.step_time_s;
    return finish();
  }

  // ---- shapes (per GPU) --------------------------------------------------------
  const double h = static_cast<double>(m.hidden), a = static_cast<double>(m.heads),
               g_kv = static_cast<double>(m.kv_heads), d = static_cast<double>(head_dim(m)),
               ff = static_cast<double>(m.ffn_hidden), V = static_cast<double>(m.vocab);
  const double tp = static_cast<double>(l.tp), cp = static_cast<double>(l.cp);
  const double s = static_cast<double>(t.seq_len);
  const double M = static_cast<double>(l.micro_batch) * s / cp;  // tokens per micro-batch per GPU
  const bool swiglu = gated_ffn(m.ffn_act);  // SwiGLU or GeGLU: gate, up, down
  const bool sp = t.sequence_parallel && l.tp > 1;
  const double ts = sp ? tp : 1.0;  // sequence-sharded region divisor
  const bool titan = t.framework == Framework::torchtitan;

  Kernels k;
  k.data = &perf_data();
  // Tensor cores run at the clock the GPU sustains at its power limit, below the clock
  // the peak is quoted at (data/perf.json sustained_clock); HBM is not slowed.
  k.peak = st.peak_flops * perf.sustained_clock.value.value_or(0.9);
  // A board power cap below TDP lowers the sustained clock further. Dynamic power goes
  // as C·V²·f with V rising about linearly with f in the DVFS range, so P ∝ f³ and the
  // clock scales as (cap / TDP)^(1/3).
  if (g.power_limit_w.value && g.tdp_w.value && *g.power_limit_w.value < *g.tdp_w.value)
    k.peak *= std::cbrt(*g.power_limit_w.value / *g.tdp_w.value);
  k.mm_eff = (t.precision == Precision::fp8 ? perf.fp8_matmul.value : perf.matmul.value).value_or(0.75);
  k.att_fwd = perf.attention_fwd.value.value_or(0.55);
  k.att_bwd = perf.attention_bwd.value.value_or(0.4);
  k.hbm = g.memory_bw_tbs.value.value_or(2.0) * 1e12 * perf.memory.value.value_or(0.9);
  k.sms = perf.sm_count.value.value_or(0.0);
  // assume.hfu: the achieved fraction of the quoted peak, flat (no roll-off, no clock).
  const PerfData flat{};
  if (e.hfu) {
    k.mm_eff = *e.hfu;
    k.peak = st.peak_flops;
    k.data = &flat;
    k.sms = 0;
  }

  // ---- one layer, one micro-batch ----------------------------------------------
  // Matmuls (forward): QKV, attention output, MLP in (gate+up, or fc1), MLP out.
  const double n_qkv = (a + 2 * g_kv) * d / tp, n_o = h, n_up = (swiglu ? 2 : 1) * ff / tp, n_down = h;
  const double k_qkv = h, k_o = a * d / tp, k_up = h, k_down = ff / tp;
  const double gemm_fwd = k.linear_fwd(M, n_qkv, k_qkv) + k.linear_fwd(M, n_o, k_o) + k.linear_fwd(M, n_up, k_up) +
                          k.linear_fwd(M, n_down, k_down);
  // Backward: input and weight gradients, each a GEMM of the forward's size.
  const double gemm_bwd = k.linear_bwd(M, n_qkv, k_qkv) + k.linear_bwd(M, n_o, k_o) + k.linear_bwd(M, n_up, k_up) +
                          k.linear_bwd(M, n_down, k_down);
  // Attention scores and values. FlashAttention skips the masked half of a causal
  // sequence: 2·M·s·a·d/t FLOPs forward; its backward recomputes the scores, 2.5×
  // the forward FLOPs (Dao 2023, §3.1). Without it (Megatron 2021/22) QKᵀ and ·V are
  // batched GEMMs over the full s×s square, 4·M·s·a·d/t forward, 2× backward.
  double att_fwd, att_bwd;
  if (t.flash_attention) {
    const double fl = 2 * M * s * a * d / tp;
    att_fwd = fl / (k.peak * k.att_fwd);
    att_bwd = 2.5 * fl / (k.peak * k.att_bwd);
  } else {
    // QKᵀ writes and ·V reads the a/t × s × s score matrix (2 B each) per sequence.
    const double fl = 4 * M * s * a * d / tp;
    const double score_bytes = 2.0 * 2 * M * s * a / tp;
    att_fwd = k.gemm(fl, score_bytes);
    att_bwd = 2 * att_fwd;
  }
  // HBM-bound element-wise work per token, forward, in bytes read plus written.
  // Fused kernels (Megatron/Transformer Engine, or torch.compile): each norm reads and
  // writes h (2 B each), each residual add reads 2h and writes h, RoPE reads and writes
  // Q and K, SwiGLU reads 2f and writes f (GELU f and f), dropout reads, writes and
  // stores a 1-byte mask; without FlashAttention the fused softmax reads and writes the
  // s×s scores (plus their dropout) and the heads are permuted in and out of the batched
  // GEMM layout. torchtitan without torch.compile runs these ops eagerly
  // (torchtitan/models/llama/model.py): RMSNorm upcasts to fp32 and makes five passes
  // (≈32 B per element), RoPE works on fp32 complex views (≈28 B per Q/K element) and
  // SwiGLU is two kernels (≈10 B per f element).
  const bool rope = m.position == PositionEmbedding::rope;  // ALiBi and learned tables need no pass
  const bool eager = titan;
  double bytes_tok = 0;
  bytes_tok += static_cast<double>(m.norms_per_layer) * (eager ? 32.0 : 4.0) * h / ts;  // norms
  if (m.qk_norm) bytes_tok += (eager ? 32.0 : 4.0) * (a + g_kv) * d / tp;  // per-head q/k norms
  bytes_tok += 2 * 6.0 * h / ts;                                        // two residual adds
  if (rope) bytes_tok += (eager ? 28.0 : 4.0) * (a + g_kv) * d / tp;    // RoPE on Q, K
  bytes_tok += (swiglu ? (eager ? 10.0 : 6.0) : 4.0) * ff / tp;         // activation
  if (m.dropout) bytes_tok += 2 * 5.0 * h / ts;                         // two dropouts
  if (!t.flash_attention) {
    bytes_tok += (4.0 + (m.dropout ? 5.0 : 0.0)) * a * s / tp;          // softmax (+ dropout)
    bytes_tok += 2 * 4.0 * (2 * a + 2 * g_kv) * d / tp;                 // head permutes in and out
  }
  const double mem_bytes_fwd = bytes_tok * M;
  const double mem_fwd = k.mem(mem_bytes_fwd, mem_bytes_fwd / 8);
  const double mem_bwd = 2 * mem_fwd;
  const double layer_fwd = gemm_fwd + att_fwd + mem_fwd;
  double layer_recompute = 0;
  if (l.recompute == Recompute::full) {
    layer_recompute = layer_fwd;
  } else if (l.recompute == Recompute::selective) {
    // Megatron: the attention core again. torchtitan's op-level SAC: every second
    // matmul (wk, wo, w3) and the element-wise work.
    layer_recompute = titan ? k.linear_fwd(M, g_kv * d / tp, h) + k.linear_fwd(M, n_o, k_o) +
                                  (swiglu ? k.linear_fwd(M, ff / tp, h) : 0) + mem_fwd
                            : att_fwd + (t.flash_attention ? 0 : mem_fwd * 0.5);
  }
  const double layer_compute = layer_fwd + gemm_bwd + att_bwd + mem_bwd + layer_recompute;

  // TP: per layer two all-reduces of the s·b·h activation forward and two backward
  // (Shoeybi et al. 2019 §3); with SP each all-reduce becomes an all-gather plus a
  // reduce-scatter of the same volume, and backward all-gathers the two stored
  // sequence-sharded linear inputs once more for the weight gradients (Korthikanti
  // §4.2.2): 4 collectives forward, 6 backward. Full recomputation repeats the forward
  // ones. Not overlapped (Megatron without --tp-comm-overlap).
  double layer_tp = 0;
  if (l.tp > 1) {
    const Link tl = link_for(g, perf, 1, l.tp);
    const double act = 2.0 * M * h;  // bytes of the full activation
    const double half = ring_time(tl, act, l.tp, 1);  // one all-gather or reduce-scatter
    const double fwd = sp ? 4 * half : 2 * ring_time(tl, act, l.tp, 2);
    const double bwd = sp ? 6 * half : fwd;
    layer_tp = fwd + bwd + (l.recompute == Recompute::full ? fwd : 0.0);
  }
  // CP: ring attention passes K and V blocks around the cp ranks, overlapped with the
  // blockwise attention; only what exceeds the attention time is exposed. Backward
  // also returns dK and dV.
  double layer_cp = 0;
  if (l.cp > 1) {
    const Link cl = link_for(g, perf, l.tp, l.cp);
    const double kv = 2.0 * 2 * M * g_kv * d / tp;  // K and V of the local chunk, bytes
    const double fwd = (cp - 1) * (kv / cl.bytes_per_s + cl.latency_s);
    const double bwd = 2 * fwd;
    layer_cp = std::max(0.0, fwd - att_fwd) + std::max(0.0, bwd - att_bwd);
  }

  // ---- the fullest stage ---------------------------------------------------------
  const double layers_stage = static_cast<double>(layers_per_stage_max(m, l));
  // The last stage also runs the output layer: the V·h/t head GEMM (forward and two
  // backward) and the loss over s·b·V/t logits (HBM-bound, ~16 B per logit in all).
  const double head_gemm = k.linear_fwd(M, V / tp, h) + k.linear_bwd(M, V / tp, h);
  const double loss_bytes = 16.0 * M * V / tp;
  const double head_time = head_gemm + k.mem(loss_bytes, loss_bytes / 4);
  const double t_mb_compute = layers_stage * layer_compute + head_time;
  const double t_mb_tp = layers_stage * layer_tp;
  const double t_mb_cp = layers_stage * layer_cp;
  // PP: each micro-batch crosses each of its v chunk boundaries once forward
  // (activation) and once backward (gradient), on the critical path of 1F1B.
  double t_mb_pp = 0;
  if (l.pp > 1) {
    const Link pl = link_for(g, perf, l.tp * l.cp * l.dp, l.pp);
    const double bytes = 2.0 * M * h / ts;
    t_mb_pp = static_cast<double>(l.vpp) * 2 * (bytes / pl.bytes_per_s + pl.latency_s);
  }
  const double t_mb = t_mb_compute + t_mb_tp + t_mb_cp + t_mb_pp;
  const double m_count = static_cast<double>(micro_batches(t, l));
  st.compute_s = m_count * t_mb_compute;
  st.tp_comm_s = m_count * t_mb_tp;
  st.cp_comm_s = m_count * t_mb_cp;
  st.pp_comm_s = m_count * t_mb_pp;
  // 1F1B bubble: (p-1) slots, (p-1)/v interleaved (Narayanan et al. 2021 §2.2).
  st.bubble_s = static_cast<double>(l.pp - 1) / static_cast<double>(l.vpp) * t_mb;

  // ---- data parallelism and the optimizer ---------------------------------------
  // Parameters on one GPU of the fullest stage (embedding or head included).
  const ParamCounts pc = count_params(m);
  const double P = layers_stage * (static_cast<double>(pc.attention + pc.mlp) / tp + static_cast<double>(pc.layer_norms)) +
                   static_cast<double>(pc.embedding) / tp;
  const int64_t shard = l.dp * l.cp;  // gradients are reduced over DP × CP
  const Link dl = link_for(g, perf, l.tp, shard);
  const StateBytes sb = state_bytes(t);
  const double grad_bytes = sb.gradients * P, param_bytes = 2.0 * P;
  const double bwd_last = layers_stage * (gemm_bwd + att_bwd + mem_bwd + layer_recompute);
  const double fwd_first = layers_stage * layer_fwd;
  if (l.zero_stage <= 2) {
    // ZeRO-0: all-reduce; ZeRO-1/2: reduce-scatter of gradients + all-gather of the
    // updated parameters, the same volume (Rajbhandari et al. 2020 §7). Overlapped with
    // the last micro-batch's backward and the next step's first forward.
    const double rs = ring_time(dl, grad_bytes, shard, l.zero_stage == 0 ? 2 : 1);
    const double ag = l.zero_stage == 0 ? 0.0 : ring_time(dl, param_bytes, shard, 1);
    st.dp_comm_total_s = rs + ag;
    st.dp_comm_exposed_s = (t.overlap_grad_reduce ? std::max(0.0, rs - bwd_last) : rs) +
                           (t.overlap_param_gather ? std::max(0.0, ag - fwd_first) : ag);
  } else {
    // ZeRO-3 / FSDP: per micro-batch an all-gather of the parameters forward and again
    // backward, and a reduce-scatter of gradients, each prefetched under the compute of
    // the layers before it: 1.5× the all-reduce volume (sizing-model.md §4).
    const double ag = ring_time(dl, param_bytes, shard, 1);
    const double rs = ring_time(dl, grad_bytes, shard, 1);
    const double fwd_mb = layers_stage * layer_fwd, bwd_mb = bwd_last;
    st.dp_comm_total_s = m_count * (2 * ag + rs);
    st.zero3_comm_exposed_s = m_count * (std::max(0.0, ag - fwd_mb) + std::max(0.0, ag + rs - bwd_mb));
  }
  // Adam step, HBM-bound: read and write fp32 master, m and v, read the gradient,
  // write the 16-bit weight: 4·6 + grad + 2 bytes per parameter it updates.
  const double opt_params = P / (l.zero_stage >= 1 ? static_cast<double>(shard) : 1.0);
  const double opt_bytes = (24.0 + sb.gradients + 2.0) * opt_params;
  st.optimizer_s = k.mem(opt_bytes, opt_bytes);

  st.step_time_s = st.compute_s + st.tp_comm_s + st.cp_comm_s + st.pp_comm_s + st.bubble_s + st.dp_comm_exposed_s +
                   st.zero3_comm_exposed_s + st.optimizer_s;
  st.efficiency = hw_flops_step / (n * st.step_time_s * st.peak_flops);
  return finish();
}

RunTime run_time(const Training& t, const Layout& l, const StepTime& st) {
  RunTime r;
  r.steps = t.tokens / (static_cast<double>(t.global_batch) * static_cast<double>(t.seq_len));
  const double seconds = r.steps * st.step_time_s;
  r.days = seconds / 86400.0;
  r.gpu_hours = seconds / 3600.0 * static_cast<double>(l.gpus());
  return r;
}

double narayanan_training_seconds(double tokens, double params, double gpus, double achieved, bool full_recompute) {
  return (full_recompute ? 8.0 : 6.0) * tokens * params / (gpus * achieved);
}

}  // namespace gpucalc
