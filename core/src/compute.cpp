#include "gpucalc/compute.hpp"

#include "gpucalc/memory.hpp"

#include <algorithm>
#include <cmath>

namespace gpucalc {

FlopsPerToken flops_per_token(const ModelShape& m, int64_t seq_len, Recompute r, const Training* t, unsigned mods) {
  // Model FLOPs per token (PaLM, Chowdhery et al. 2022 appendix B; Narayanan et al.
  // 2021 eq. 3): 2 FLOPs per matmul parameter forward and 4 backward, 6·Ψ_matmul, where
  // Ψ_matmul counts every layer's linear weights and the V·h output projection; plus
  // attention scores and values, 12·L·s·a·d (non-causal, as PaLM counts it); with MLA
  // 6·L·s·a·(d_qk + d_v). MoE: only the weights a token passes through count, its top_k
  // routed experts, the shared ones and the router (the "activated" parameters of
  // DeepSeek-V3's report; Fedus et al. 2021 count FLOPs the same way).
  const ParamCounts pc = count_params(m);
  const double L = static_cast<double>(m.layers);
  const double s = static_cast<double>(seq_len);
  const double a = static_cast<double>(m.heads);
  const double att = 6.0 * L * s * a * static_cast<double>(qk_head_dim(m) + v_head_dim(m));  // fwd 2, bwd 4 per (QK, AV) pair
  const double head_mm = static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
  const double layers_mm = static_cast<double>(pc.active_matmul) - head_mm;
  FlopsPerToken f;
  double lora_fwd = 0;  // adapters' forward FLOPs per token
  if (t && is_adapter_stage(*t)) {
    // LoRA (Hu et al. 2021 §4.2): the frozen weights need no weight gradients, only the
    // input gradients that carry the backward through them: 2·Ψ forward + 2·Ψ backward;
    // the adapters train in full, 6 per parameter.
    const double dense = static_cast<double>(pc.dense_layers), moe = static_cast<double>(pc.moe_layers);
    const double lora = dense * lora_params_per_layer(m, t->lora, false, true) +
                        moe * lora_params_per_layer(m, t->lora, true, true);
    f.model = 4.0 * (layers_mm + head_mm) + 6.0 * lora + att;
    lora_fwd = 2.0 * lora;
  } else {
    f.model = 6.0 * (layers_mm + head_mm) + att;
  }
  // Recomputation repeats forward work (Korthikanti et al. 2022 §5): full recompute one
  // more forward of every layer (2·Ψ_layers + 4·L·s·a·d), selective only the attention
  // scores and values (4·L·s·a·d). The output layer is never recomputed.
  switch (r) {
    case Recompute::none: f.hardware = f.model; break;
    case Recompute::selective: {
      // Megatron-Core modules: core_attn the scores and values; the GEMM-bearing ones
      // their forward matmuls (2 per parameter); moe_act and layernorm are element-wise.
      const auto has = [&](RecomputeModule x) { return (mods & static_cast<unsigned>(x)) != 0; };
      f.hardware = f.model + (has(RecomputeModule::core_attn) ? att / 3.0 : 0.0);
      const double dl = static_cast<double>(pc.dense_layers), ml = static_cast<double>(pc.moe_layers);
      if (has(RecomputeModule::mlp)) f.hardware += 2.0 * dl * static_cast<double>(dense_mlp_matmul_params(m));
      if (is_moe(m) && has(RecomputeModule::moe)) f.hardware += 2.0 * ml * static_cast<double>(moe_mlp_active_matmul_params(m));
      else if (is_moe(m) && has(RecomputeModule::shared_experts))
        f.hardware += 2.0 * ml * static_cast<double>(pc.shared_mlp);
      if (is_mla(m) && has(RecomputeModule::mla_up_proj)) {
        const MlaShape& x = m.mla;
        const double up = static_cast<double>((x.q_lora_rank > 0 ? x.q_lora_rank * m.heads * qk_head_dim(m) : 0) +
                                              x.kv_lora_rank * m.heads * (x.qk_nope_head_dim + x.v_head_dim));
        f.hardware += 2.0 * L * up;
      }
      break;
    }
    case Recompute::full: f.hardware = f.model + 2.0 * layers_mm + lora_fwd + att / 3.0; break;
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

double host_link_bytes_per_s(const Gpu& g, const Training& t) {
  // PCIe x16 per direction: 4.0 = 31.5 GB/s, 5.0 = 63 GB/s (PCI-SIG); Hopper, Blackwell
  // and CDNA 3/4 parts attach at 5.0. Pinned-memory copies reach about 80% of it
  // (NVIDIA bandwidthTest on H100/A100 hosts: ~25 of 31.5 and ~50 of 63 GB/s).
  if (t.offload.pcie_gbs > 0) return t.offload.pcie_gbs * 1e9;
  const std::string& a = g.arch;
  const bool gen5 = a.rfind("Hopper", 0) == 0 || a.rfind("Blackwell", 0) == 0 || a.rfind("CDNA 3", 0) == 0 ||
                    a.rfind("CDNA 4", 0) == 0;
  return (gen5 ? 63.0 : 31.5) * 1e9 * 0.8;
}

double host_memory_bytes_per_s(const Training& t) {
  // The CPU optimizer's share of host DRAM bandwidth per GPU: a two-socket server with
  // 8 DDR5-4800 channels per socket (2 × 307 GB/s) feeding 8 GPUs is 77 GB/s per GPU at
  // the pins; a vectorised CPU Adam streams at roughly half of it (Ren et al. 2021 §4.1
  // report their CPU-Adam 5-7× faster than PyTorch's, still memory-bound).
  return (t.offload.host_memory_bw_gbs > 0 ? t.offload.host_memory_bw_gbs : 38.0) * 1e9;
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
  const FlopsPerToken f = flops_per_token(m, t.seq_len, l.recompute, &t, l.recompute_modules);
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

  const bool frozen = is_adapter_stage(t);   // LoRA/QLoRA: no weight gradients for the base
  const bool qlora = t.stage == Stage::qlora;
  const double dqk = static_cast<double>(qk_head_dim(m)), dv = static_cast<double>(v_head_dim(m));
  const bool mla = is_mla(m);
  const Link tl = link_for(g, perf, 1, l.tp);

  // ---- one layer, one micro-batch ----------------------------------------------
  struct LayerTime {
    double fwd = 0, bwd = 0, recompute = 0;  // compute
    double tp = 0, cp = 0, ep = 0;           // exposed communication
    double compute() const { return fwd + bwd + recompute; }
  };
  // A linear layer's backward: frozen weights (LoRA) need only the input gradient.
  const auto lin_bwd = [&](double mm, double nn, double kk) {
    return frozen ? k.gemm(2 * mm * nn * kk) / k.wave(mm, kk) : k.linear_bwd(mm, nn, kk);
  };
  // Attention block GEMMs (forward, backward) and their weight count on this GPU.
  double att_gemm_fwd = 0, att_gemm_bwd = 0, att_weights = 0;
  double att_up_fwd = 0;  // MLA up-projections (q_b, kv_b) forward: what mla_up_proj recomputes
  const auto add_lin = [&](double mm, double nn, double kk, double& fw, double& bw, double& wts) {
    fw += k.linear_fwd(mm, nn, kk);
    bw += lin_bwd(mm, nn, kk);
    wts += nn * kk;
  };
  if (!mla) {
    // QKV and the attention output projection.
    add_lin(M, (a + 2 * g_kv) * d / tp, h, att_gemm_fwd, att_gemm_bwd, att_weights);
    add_lin(M, h, a * d / tp, att_gemm_fwd, att_gemm_bwd, att_weights);
  } else {
    // MLA (DeepSeek-V2 §2.1): down-projections to the q and kv latents on every TP rank,
    // up-projections to per-head q, k, v split by TP, then the output projection.
    const MlaShape& x = m.mla;
    const double qr = static_cast<double>(x.q_lora_rank), kr = static_cast<double>(x.kv_lora_rank),
                 dr = static_cast<double>(x.qk_rope_head_dim), dn = static_cast<double>(x.qk_nope_head_dim);
    if (qr > 0) {
      add_lin(M, qr, h, att_gemm_fwd, att_gemm_bwd, att_weights);
      add_lin(M, a * dqk / tp, qr, att_gemm_fwd, att_gemm_bwd, att_weights);
      att_up_fwd += k.linear_fwd(M, a * dqk / tp, qr);
    } else {
      add_lin(M, a * dqk / tp, h, att_gemm_fwd, att_gemm_bwd, att_weights);
    }
    add_lin(M, kr + dr, h, att_gemm_fwd, att_gemm_bwd, att_weights);
    add_lin(M, a * (dn + dv) / tp, kr, att_gemm_fwd, att_gemm_bwd, att_weights);
    att_up_fwd += k.linear_fwd(M, a * (dn + dv) / tp, kr);
    add_lin(M, h, a * dv / tp, att_gemm_fwd, att_gemm_bwd, att_weights);
  }
  // Attention scores and values. FlashAttention skips the masked half of a causal
  // sequence: M·s·a·(d_qk+d_v)/t FLOPs forward (2·M·s·a·d for d_qk = d_v = d); its
  // backward recomputes the scores, 2.5× the forward FLOPs (Dao 2023, §3.1). Without it
  // (Megatron 2021/22) QKᵀ and ·V are batched GEMMs over the full s×s square,
  // 2·M·s·a·(d_qk+d_v)/t forward, 2× backward.
  double att_fwd, att_bwd;
  if (t.flash_attention) {
    const double fl = M * s * a * (dqk + dv) / tp;
    att_fwd = fl / (k.peak * k.att_fwd);
    att_bwd = 2.5 * fl / (k.peak * k.att_bwd);
  } else {
    // QKᵀ writes and ·V reads the a/t × s × s score matrix (2 B each) per sequence.
    const double fl = 2 * M * s * a * (dqk + dv) / tp;
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
  double att_bytes_tok = 0;  // attention-side element-wise bytes per token
  att_bytes_tok += static_cast<double>(m.norms_per_layer) * (eager ? 32.0 : 4.0) * h / ts;  // norms
  if (m.qk_norm) att_bytes_tok += (eager ? 32.0 : 4.0) * (a + g_kv) * d / tp;  // per-head q/k norms
  att_bytes_tok += 2 * 6.0 * h / ts;                                        // two residual adds
  if (mla) {
    // RoPE on the d_rope part of every query head and the one shared key; the two latent norms.
    att_bytes_tok += (eager ? 28.0 : 4.0) * (a / tp + 1) * static_cast<double>(m.mla.qk_rope_head_dim);
    att_bytes_tok += (eager ? 32.0 : 4.0) * static_cast<double>(m.mla.q_lora_rank + m.mla.kv_lora_rank);
  } else if (rope) {
    att_bytes_tok += (eager ? 28.0 : 4.0) * (a + g_kv) * d / tp;    // RoPE on Q, K
  }
  if (m.dropout) att_bytes_tok += 2 * 5.0 * h / ts;                     // two dropouts
  if (!t.flash_attention) {
    att_bytes_tok += (4.0 + (m.dropout ? 5.0 : 0.0)) * a * s / tp;      // softmax (+ dropout)
    att_bytes_tok += 2 * 4.0 * (2 * a + 2 * g_kv) * d / tp;             // head permutes in and out
  }
  const double act_bytes_per_f = swiglu ? (eager ? 10.0 : 6.0) : 4.0;  // activation function, per f element

  // QLoRA: every frozen linear weight is dequantised from NF4 to bf16 before each use
  // (bitsandbytes): read ≈0.52 B and write 2 B per weight, forward and again backward.
  const double dequant_per_weight = qlora ? nf4_bytes_per_param(t.lora.double_quant) + 2.0 : 0.0;

  const auto layer_time = [&](bool moe_layer) {
    LayerTime r;
    double gemm_fwd = att_gemm_fwd, gemm_bwd = att_gemm_bwd, weights = att_weights;
    double bytes_tok = att_bytes_tok;
    double mlp_units = 1.0;  // activation copies the MLP's TP collectives carry (dense: 1)
    double lora_params = 0;
    // Pieces selective recomputation may rebuild (forward times, and bytes per token).
    double mlp_fwd = 0, shared_fwd = 0, routed_fwd = 0, act_tok = 0, shared_act_tok = 0, permute_tok = 0, a2a_one = 0;
    if (!moe_layer) {
      // MLP in (gate+up, or fc1) and MLP out.
      add_lin(M, (swiglu ? 2 : 1) * ff / tp, h, gemm_fwd, gemm_bwd, weights);
      add_lin(M, h, ff / tp, gemm_fwd, gemm_bwd, weights);
      mlp_fwd = k.linear_fwd(M, (swiglu ? 2 : 1) * ff / tp, h) + k.linear_fwd(M, h, ff / tp);
      act_tok = act_bytes_per_f * ff / tp;
      bytes_tok += act_tok;
    } else {
      // MoE block (Megatron-Core MoE): the router on the local tokens, the shared experts
      // as a dense MLP, and on this GPU E/ep local experts, each a grouped-GEMM MLP over
      // the tokens routed to it from the ep ranks: ep·M·k/E on average, load× that on the
      // busiest rank (expert-TP = TP splits each expert's width).
      const double E = static_cast<double>(m.moe.experts), kk = static_cast<double>(m.moe.top_k),
                   fe = static_cast<double>(m.moe.expert_ffn_hidden), ep = static_cast<double>(l.ep);
      const double load = expert_load(m);
      const double fs = static_cast<double>(shared_expert_width(m));
      gemm_fwd += k.linear_fwd(M / ts, E, h);
      gemm_bwd += lin_bwd(M / ts, E, h);
      if (fs > 0) {
        add_lin(M, (swiglu ? 2 : 1) * fs / tp, h, gemm_fwd, gemm_bwd, weights);
        add_lin(M, h, fs / tp, gemm_fwd, gemm_bwd, weights);
        shared_fwd = k.linear_fwd(M, (swiglu ? 2 : 1) * fs / tp, h) + k.linear_fwd(M, h, fs / tp);
      }
      // Expert-TP etp of tp: each GPU routes its sequence shard M/ts, and an expert's
      // etp ranks gather their shards: M·etp/ts tokens per GPU at width f_e/etp.
      const double etp = static_cast<double>(l.etp);
      const double me = M * etp / ts;
      const double te = ep * me * kk * load / E;  // tokens per local expert
      const double local = E / ep;
      double ef = 0, eb = 0, ew = 0;
      add_lin(te, (swiglu ? 2 : 1) * fe / etp, h, ef, eb, ew);
      add_lin(te, h, fe / etp, ef, eb, ew);
      gemm_fwd += local * ef;
      gemm_bwd += local * eb;
      weights += local * ew;
      routed_fwd = local * (k.linear_fwd(te, (swiglu ? 2 : 1) * fe / etp, h) + k.linear_fwd(te, h, fe / etp)) +
                   k.linear_fwd(M / ts, E, h);
      // Element-wise: the activation over load·k routed copies and the shared width;
      // permute and unpermute read and write each routed copy (2 B · h, twice); the
      // router's softmax/top-k over E fp32 scores.
      act_tok = act_bytes_per_f * load * kk * fe * (me / M) / etp;
      shared_act_tok = act_bytes_per_f * fs / tp;
      permute_tok = 2 * 4.0 * load * kk * h * (me / M) + 8.0 * E / ts;
      bytes_tok += act_tok + shared_act_tok + permute_tok;
      // The MLP's TP collectives: the shared experts' (as a dense MLP), and the routed
      // copies' all-gather / reduce-scatter inside each expert's etp group.
      mlp_units = (fs > 0 ? 1.0 : 0.0) + (l.etp > 1 ? kk * load * etp / tp : 0.0);
      // EP all-to-all (Megatron-Core alltoall dispatcher): each GPU sends its local
      // tokens' k routed copies (2 B · h each) out and receives them back, dispatch and
      // combine forward and again backward (and forward once more under full recompute).
      // Inside one scale-up domain the traffic rides NVLink; the share bound for other
      // domains leaves through the GPU's own NIC (rail-optimised fabric) — the split
      // DeepSeek-V3 §3.2.2 limits with node-limited routing.
      if (l.ep > 1) {
        // DeepEP: FP8 dispatch (1 B) and BF16 combine (2 B) under FP8 GEMMs.
        const bool deepep = t.moe_dispatcher == MoeDispatcher::deepep;
        const double elem = deepep && t.precision == Precision::fp8 ? 1.5 : 2.0;
        const double bytes = elem * (M / ts) * kk * h;
        const double domain = g.scaleup_domain.value.value_or(8.0);
        const double in_domain = std::clamp(std::floor(domain / etp), 1.0, ep);  // EP ranks sit at stride etp
        const Link up = link_for(g, perf, 1, 1), out = link_for(g, perf, static_cast<int64_t>(domain) + 1, 1);
        double t_on = bytes * (in_domain - 1) / ep / up.bytes_per_s;
        double t_off = bytes * (ep - in_domain) / ep / out.bytes_per_s;
        if (deepep && ep > in_domain) {
          // One copy per remote domain a token's k experts fall in: of D domains, a
          // token reaches D·(1 - (1 - 1/D)^k) on average (uniform routing), D-1 of D
          // remote; every copy then fans out over NVLink.
          const double D = ep / in_domain;
          const double reached = D * (1.0 - std::pow(1.0 - 1.0 / D, kk));
          t_off = elem * (M / ts) * h * reached * (D - 1) / D / out.bytes_per_s;
          t_on = bytes * (ep - 1) / ep / up.bytes_per_s;
        }
        a2a_one = std::max(t_on, t_off) + (ep > in_domain ? out.latency_s : up.latency_s);
        const double count = 4.0 + (l.recompute == Recompute::full || recomputes(l, RecomputeModule::moe) ? 2.0 : 0.0);
        r.ep = count * a2a_one;
      }
    }
    if (frozen) {
      lora_params = moe_layer ? lora_params_per_layer(m, t.lora, true, true) : lora_params_per_layer(m, t.lora, false);
      lora_params /= tp;
      // Adapters: x·A then ·B per target, forward 2 FLOPs per parameter per token and
      // backward 4; thin GEMMs (rank r), priced at the roll-off of their size.
      gemm_fwd += k.gemm(2 * M * lora_params);
      gemm_bwd += k.gemm(4 * M * lora_params);
    }
    const double mem_bytes_fwd = bytes_tok * M;
    const double mem_fwd = k.mem(mem_bytes_fwd, mem_bytes_fwd / 8);
    const double mem_bwd = 2 * mem_fwd;
    const double dq = qlora ? k.mem(dequant_per_weight * weights, dequant_per_weight * weights / 8) : 0.0;
    r.fwd = gemm_fwd + att_fwd + mem_fwd + dq;
    r.bwd = gemm_bwd + att_bwd + mem_bwd + dq;
    if (l.recompute == Recompute::full) {
      r.recompute = r.fwd;
    } else if (l.recompute == Recompute::selective && titan) {
      // torchtitan's op-level SAC: every second matmul (wk, wo, w3) and the element-wise work.
      r.recompute = k.linear_fwd(M, g_kv * d / tp, h) + k.linear_fwd(M, h, a * d / tp) +
                    (swiglu ? k.linear_fwd(M, ff / tp, h) : 0) + mem_fwd;
    } else if (l.recompute == Recompute::selective) {
      // Megatron-Core modules (plan.hpp): each rebuilds its forward in backward.
      using RM = RecomputeModule;
      const auto mem_tok = [&](double b) { return b > 0 ? k.mem(b * M, b * M / 8) : 0.0; };
      if (recomputes(l, RM::core_attn)) r.recompute += att_fwd + (t.flash_attention ? 0 : mem_fwd * 0.5);
      if (recomputes(l, RM::layernorm)) r.recompute += mem_tok(2 * (eager ? 32.0 : 4.0) * h / ts);
      if (mla && recomputes(l, RM::mla_up_proj)) r.recompute += att_up_fwd;
      if (!moe_layer && recomputes(l, RM::mlp)) r.recompute += mlp_fwd + mem_tok(act_tok);
      if (moe_layer && recomputes(l, RM::moe)) {
        r.recompute += routed_fwd + shared_fwd + mem_tok(act_tok + shared_act_tok + permute_tok);
      } else if (moe_layer) {
        if (recomputes(l, RM::moe_act)) r.recompute += mem_tok(act_tok);
        if (recomputes(l, RM::shared_experts)) r.recompute += shared_fwd + mem_tok(shared_act_tok);
      }
    }
    // TP: per layer two all-reduces of the s·b·h activation forward and two backward
    // (Shoeybi et al. 2019 §3); with SP each all-reduce becomes an all-gather plus a
    // reduce-scatter of the same volume, and backward all-gathers the two stored
    // sequence-sharded linear inputs once more for the weight gradients (Korthikanti
    // §4.2.2): 4 collectives forward, 6 backward. Full recomputation repeats the forward
    // ones. Not overlapped (Megatron without --tp-comm-overlap). A MoE layer's MLP
    // collectives carry the routed copies (expert-TP gathers them) and the shared experts'.
    if (l.tp > 1) {
      const double act = 2.0 * M * h;  // bytes of the full activation
      const double half = ring_time(tl, act, l.tp, 1);  // one all-gather or reduce-scatter
      const double fwd = sp ? 2 * half * (1 + mlp_units) : ring_time(tl, act, l.tp, 2) * (1 + mlp_units);
      const double bwd = sp ? 3 * half * (1 + mlp_units) : fwd;
      r.tp = fwd + bwd + (l.recompute == Recompute::full ? fwd : 0.0);
    }
    // CP: ring attention passes K and V blocks around the cp ranks, overlapped with the
    // blockwise attention; only what exceeds the attention time is exposed. Backward
    // also returns dK and dV. MLA exchanges its materialised per-head K and V.
    if (l.cp > 1) {
      const Link cl = link_for(g, perf, l.tp, l.cp);
      const double kv = 2.0 * M * (mla ? a * (dqk + dv) : 2 * g_kv * d) / tp;  // K and V of the local chunk, bytes
      const double fwd = (cp - 1) * (kv / cl.bytes_per_s + cl.latency_s);
      const double bwd = 2 * fwd;
      r.cp = std::max(0.0, fwd - att_fwd) + std::max(0.0, bwd - att_bwd);
    }
    // EP all-to-all overlapped with another micro-batch's compute (DeepSeek-V3 DualPipe,
    // Megatron-Core's 1F1B A2A overlap): only what exceeds the layer's compute shows.
    if (t.overlap_moe_comm) r.ep = std::max(0.0, r.ep - r.compute());
    return r;
  };
  const LayerTime dense_layer = layer_time(false);
  const LayerTime moe_layer = is_moe(m) ? layer_time(true) : LayerTime{};

  // ---- the fullest stage ---------------------------------------------------------
  // The last stage also runs the output layer: the V·h/t head GEMM (forward and two
  // backward) and the loss over s·b·V/t logits (HBM-bound, ~16 B per logit in all).
  const double head_gemm = k.linear_fwd(M, V / tp, h) + lin_bwd(M, V / tp, h);
  const double loss_bytes = 16.0 * M * V / tp;
  const double head_time = head_gemm + k.mem(loss_bytes, loss_bytes / 4);
  struct StageSum {
    double compute = 0, tp = 0, cp = 0, ep = 0, fwd = 0, bwd = 0;
    StageLayers layers;
  };
  const auto stage_sum = [&](int stage) {
    StageSum r;
    r.layers = stage_layers(m, l, stage);
    const double nd = static_cast<double>(r.layers.dense), nm = static_cast<double>(r.layers.moe());
    r.compute = nd * dense_layer.compute() + nm * moe_layer.compute() + (stage == l.pp - 1 ? head_time : 0.0);
    r.tp = nd * dense_layer.tp + nm * moe_layer.tp;
    r.cp = nd * dense_layer.cp + nm * moe_layer.cp;
    r.ep = nm * moe_layer.ep;
    r.fwd = nd * dense_layer.fwd + nm * moe_layer.fwd;
    r.bwd = nd * (dense_layer.bwd + dense_layer.recompute) + nm * (moe_layer.bwd + moe_layer.recompute);
    return r;
  };
  // The slowest stage sets the pipeline's pace: the last (it adds the output layer)
  // unless the first holds more (MoE dense layers apart) or an uneven split lightened
  // the ends, when a middle stage can be the slowest.
  StageSum crit = stage_sum(static_cast<int>(l.pp - 1));
  const auto slower = [&](const StageSum& x) {
    if (x.compute + x.tp + x.cp + x.ep > crit.compute + crit.tp + crit.cp + crit.ep) crit = x;
  };
  if (l.pp > 1 && (is_moe(m) || uneven_split(l))) slower(stage_sum(0));
  if (l.pp > 2 && uneven_split(l)) slower(stage_sum(1));
  const double t_mb_compute = crit.compute;
  const double t_mb_tp = crit.tp;
  const double t_mb_cp = crit.cp + crit.ep;
  // PP: each micro-batch crosses each of its v chunk boundaries once forward
  // (activation) and once backward (gradient), on the critical path of 1F1B.
  double t_mb_pp = 0;
  if (l.pp > 1) {
    const Link pl = link_for(g, perf, l.tp * l.cp * l.dp, l.pp);
    const double bytes = 2.0 * M * h / ts;
    t_mb_pp = static_cast<double>(l.vpp) * 2 * (bytes / pl.bytes_per_s + pl.latency_s);
  }
  const double m_count = static_cast<double>(micro_batches(t, l));
  // Offloaded parameters (ZeRO-Infinity) are fetched over PCIe for every micro-batch's
  // forward and backward, prefetched under the compute.
  const double pcie = host_link_bytes_per_s(g, t);
  double t_mb_offload = 0;

  // ---- data parallelism and the optimizer ---------------------------------------
  // Parameters on one GPU of the fullest stage (embedding or head included); routed
  // experts apart, they are reduced over the expert-data-parallel group.
  const ParamCounts pc = count_params(m);
  const double nd = static_cast<double>(crit.layers.dense), nm = static_cast<double>(crit.layers.moe());
  const double P_dense = nd * (static_cast<double>(pc.attention + pc.mlp) / tp + static_cast<double>(pc.layer_norms)) +
                         nm * (static_cast<double>(pc.attention + pc.shared_mlp) / tp + static_cast<double>(pc.router) +
                               static_cast<double>(pc.layer_norms)) +
                         static_cast<double>(pc.embedding) / tp;
  const double P_expert = nm * static_cast<double>(pc.routed_experts) / static_cast<double>(l.etp * l.ep);
  // Trainable parameters: all of them, or LoRA's adapters.
  const double P_train = frozen ? (nd * lora_params_per_layer(m, t.lora, false) + nm * lora_params_per_layer(m, t.lora, true)) / tp
                                : P_dense;
  const double P_train_expert = frozen ? 0.0 : P_expert;
  const int64_t shard = l.dp * l.cp;  // gradients are reduced over DP × CP
  const int64_t eshard = expert_dp(l);
  const Link dl = link_for(g, perf, l.tp, shard);
  const Link el = link_for(g, perf, l.etp * l.ep, eshard);
  const StateBytes sb = state_bytes(t, &m);
  const double bwd_last = crit.bwd;
  const double fwd_first = crit.fwd;
  // Frozen weights under ZeRO-3 are gathered but never reduced: 2 B (QLoRA: NF4) each.
  const double wbytes = qlora ? nf4_bytes_per_param(t.lora.double_quant) : 2.0;
  if (l.zero_stage <= 2) {
    // ZeRO-0: all-reduce; ZeRO-1/2: reduce-scatter of gradients + all-gather of the
    // updated parameters, the same volume (Rajbhandari et al. 2020 §7). Overlapped with
    // the last micro-batch's backward and the next step's first forward.
    const double passes = l.zero_stage == 0 ? 2 : 1;
    const double rs = ring_time(dl, sb.gradients * P_train, shard, passes) + ring_time(el, sb.gradients * P_train_expert, eshard, passes);
    const double ag = l.zero_stage == 0 ? 0.0
                                        : ring_time(dl, 2.0 * P_train, shard, 1) + ring_time(el, 2.0 * P_train_expert, eshard, 1);
    st.dp_comm_total_s = rs + ag;
    st.dp_comm_exposed_s = (t.overlap_grad_reduce ? std::max(0.0, rs - bwd_last) : rs) +
                           (t.overlap_param_gather ? std::max(0.0, ag - fwd_first) : ag);
  } else {
    // ZeRO-3 / FSDP: per micro-batch an all-gather of the parameters forward and again
    // backward, and a reduce-scatter of gradients, each prefetched under the compute of
    // the layers before it: 1.5× the all-reduce volume (sizing-model.md §4).
    const double ag = ring_time(dl, wbytes * P_dense, shard, 1) + ring_time(el, wbytes * P_expert, eshard, 1);
    const double rs = ring_time(dl, sb.gradients * P_train, shard, 1) + ring_time(el, sb.gradients * P_train_expert, eshard, 1);
    st.dp_comm_total_s = m_count * (2 * ag + rs);
    st.zero3_comm_exposed_s = m_count * (std::max(0.0, ag - fwd_first) + std::max(0.0, ag + rs - bwd_last));
    if (t.offload.params) {
      const double fetch = 2.0 * wbytes * (P_dense / static_cast<double>(shard) + P_expert / static_cast<double>(eshard)) / pcie;
      t_mb_offload = std::max(0.0, fetch - (fwd_first + bwd_last));
    }
  }
  const double t_mb = t_mb_compute + t_mb_tp + t_mb_cp + t_mb_pp + t_mb_offload;
  st.compute_s = m_count * t_mb_compute;
  st.tp_comm_s = m_count * t_mb_tp;
  st.cp_comm_s = m_count * crit.cp;
  st.ep_comm_s = m_count * crit.ep;
  st.pp_comm_s = m_count * t_mb_pp;
  st.offload_s = m_count * t_mb_offload;
  // 1F1B bubble: (p-1) slots, (p-1)/v interleaved (Narayanan et al. 2021 §2.2). A slot
  // lasts one model chunk; when a stage's layers do not split evenly over its v chunks
  // (an uneven split), the largest chunk, ceil(n/v) of its n layers, sets the slot.
  const double n_crit = static_cast<double>(crit.layers.total);
  const double chunk_share = n_crit > 0 ? std::ceil(n_crit / static_cast<double>(l.vpp)) / n_crit
                                        : 1.0 / static_cast<double>(l.vpp);
  st.bubble_s = static_cast<double>(l.pp - 1) * chunk_share * t_mb;

  // The optimizer step, HBM-bound: read and write its state (fp32 master, moments), read
  // the gradient, write the 16-bit weight (AdamW mixed precision: 4·6 + grad + 2 bytes per
  // parameter it updates; torchtitan's fp32 parameter is read and written).
  const double opt_params = l.zero_stage >= 1 ? P_train / static_cast<double>(shard) + P_train_expert / static_cast<double>(eshard)
                                             : P_train + P_train_expert;
  const double per_param = 2.0 * sb.optimizer + sb.gradients + (titan ? 2.0 * sb.weights : sb.weights);
  if (t.offload.optimizer) {
    // ZeRO-Offload (Ren et al. 2021 §4): gradients go to the host over PCIe, the CPU
    // optimizer updates the fp32 states in host DRAM, the 16-bit weights come back.
    // Not overlapped with the next step (no delayed parameter update).
    const double host_bw = host_memory_bytes_per_s(t);
    const double host_bytes = (2.0 * sb.optimizer + 4.0 + 2.0) * opt_params;
    const double transfer = (sb.gradients + 2.0) * opt_params / pcie;
    st.optimizer_s = host_bytes / host_bw + transfer;
  } else {
    const double opt_bytes = per_param * opt_params;
    st.optimizer_s = k.mem(opt_bytes, opt_bytes);
  }

  st.step_time_s = st.compute_s + st.tp_comm_s + st.cp_comm_s + st.ep_comm_s + st.pp_comm_s + st.offload_s +
                   st.bubble_s + st.dp_comm_exposed_s + st.zero3_comm_exposed_s + st.optimizer_s;
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
