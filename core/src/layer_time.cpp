#include "layer_time.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/memory.hpp"

namespace gpucalc {

Kernels kernels_for(const Gpu& g, const PerfProfile& perf, const Training& t, const Efficiency& e) {
  Kernels k;
  k.data = &perf_data();
  // Tensor cores run at the clock the GPU sustains at its power limit, below the clock
  // the peak is quoted at (data/perf.json sustained_clock); HBM is not slowed.
  k.peak = peak_flops(g, t.precision) * perf.sustained_clock.value.value_or(0.9);
  // A board power cap below TDP lowers the sustained clock further. Dynamic power goes
  // as C·V²·f with V rising about linearly with f in the DVFS range, so P ∝ f³ and the
  // clock scales as (cap / TDP)^(1/3).
  if (g.power_limit_w.value && g.tdp_w.value && *g.power_limit_w.value < *g.tdp_w.value)
    k.peak *= std::cbrt(*g.power_limit_w.value / *g.tdp_w.value);
  // NVFP4 GEMMs run at their own measured fraction of the FP4 peak; a profile without one
  // takes its FP8 fraction (data/perf.json fp4_matmul says which are measured).
  k.mm_eff = (t.precision == Precision::fp4   ? (perf.fp4_matmul.value ? perf.fp4_matmul.value : perf.fp8_matmul.value)
              : t.precision == Precision::fp8 ? perf.fp8_matmul.value
                                              : perf.matmul.value)
                 .value_or(0.75);
  const Precision p16 = quantised_gemms(t.precision) ? Precision::bf16 : t.precision;
  k.peak16 = k.peak / peak_flops(g, t.precision) * peak_flops(g, p16);
  k.mm_eff16 = perf.matmul.value.value_or(0.75);
  k.att_fwd = perf.attention_fwd.value.value_or(0.55);
  k.att_bwd = perf.attention_bwd.value.value_or(0.4);
  k.att_span_ref = perf.attention_span.value.value_or(k.data->att_span_ref);
  // The PyTorch-native stacks call F.scaled_dot_product_attention (or flash-attn 2),
  // whose default priority puts the FlashAttention-2 backend first; cuDNN is opt-in
  // before PyTorch 2.11 (pytorch/pytorch#138522). Where the profile's attention measures
  // a faster kernel (FA3 / cuDNN on Hopper), they run at its FA2 fraction of it.
  if (t.framework != Framework::megatron) {
    k.att_fwd *= perf.attention_fa2.value.value_or(1.0);
    k.att_bwd *= perf.attention_fa2.value.value_or(1.0);
  }
  k.hbm = g.memory_bw_tbs.value.value_or(2.0) * 1e12 * perf.memory.value.value_or(0.9);
  k.sms = perf.sm_count.value.value_or(0.0);
  // GEMM operands: FP8 1 byte; NVFP4 half a byte and an E4M3 scale per 16 elements.
  k.in_bytes = t.precision == Precision::fp8 ? 1.0 : t.precision == Precision::fp4 ? kNvfp4Bytes : 2.0;
  k.wgrad_bytes = 2.0 * state_bytes(t).gradients;
  if (e.hfu) {
    static const PerfData flat{};
    k.mm_eff = *e.hfu;
    k.peak = peak_flops(g, t.precision);
    k.mm_eff16 = *e.hfu;
    k.peak16 = k.peak;
    k.data = &flat;
    k.sms = 0;
    k.in_bytes = k.out_bytes = k.wgrad_bytes = 0;  // flat: no roofline either
  }
  // A calibration's fitted compute knob (calibration_fit.cpp) scales every kernel rate.
  k.peak *= e.compute_scale;
  k.peak16 *= e.compute_scale;
  k.hbm *= e.compute_scale;
  return k;
}

// Uniform routing: k experts drawn from n equal places reach n·(1 − (1 − 1/n)^k) of them.
// Node-limited routing (DeepSeek-V3 §2.1.2: at most g = group_topk of G = groups expert
// groups per token, chosen here uniformly): with n ≤ G places each holds G/n groups and
// the g groups fall in n·(1 − C(G − G/n, g)/C(G, g)) places (exactly g when n = G, DeepSeek-V3's
// 8 groups on 8 nodes: "at most 4 nodes"); with n > G each group spans n/G places and its
// k/g experts reach (n/G)·(1 − (1 − G/n)^(k/g)) of them. Never more than uniform routing.
double places_reached(double n, const MoeShape& moe) {
  const double k = static_cast<double>(moe.top_k);
  const double uniform = n * (1.0 - std::pow(1.0 - 1.0 / n, k));
  const double G = static_cast<double>(moe.groups), g = static_cast<double>(moe.group_topk);
  if (moe.groups < 2 || g <= 0 || g >= G) return uniform;
  double limited = 0;
  if (n <= G) {
    double none = 1;  // no chosen group in a given place
    for (double i = 0; i < g; ++i) none *= std::max(0.0, G - G / n - i) / (G - i);
    limited = n * (1.0 - none);
  } else {
    limited = g * (n / G) * (1.0 - std::pow(1.0 - G / n, k / g));
  }
  return std::min(uniform, limited);
}

namespace {

// HBM-bound element-wise work per token, forward, in bytes read plus written, attention
// side. Fused kernels (Megatron/Transformer Engine, or torch.compile): each norm reads
// and writes h (2 B each), each residual add reads 2h and writes h, RoPE reads and writes
// Q and K, dropout reads, writes and stores a 1-byte mask; without FlashAttention the
// fused softmax reads and writes the s×s scores (plus their dropout) and the heads are
// permuted in and out of the batched GEMM layout. Eager PyTorch (torchtitan, HF,
// torchtune without torch.compile; torchtitan/models/llama/model.py) upcasts RMSNorm to
// fp32 in five passes (≈32 B per element) and runs RoPE on fp32 complex views (≈28 B
// per Q/K element).
double attention_side_bytes(const LayerCtx& c) {
  const ModelShape& m = *c.m;
  // Megatron-Core's fused RoPE (Transformer Engine) takes no attention factor: with YaRN's
  // factor ≠ 1 it warns and runs the unfused PyTorch ops (rope_utils.py
  // apply_rotary_pos_emb, "mscale=... is not supported by TE's fused RoPE").
  const bool unfused_rope = c.eager || (m.rope_attention_factor != 1.0 && c.t->framework == Framework::megatron);
  const double norm = c.eager ? 32.0 : 4.0, rope = unfused_rope ? 28.0 : 4.0;
  double b = static_cast<double>(m.norms_per_layer) * norm * c.h / c.ts;  // norms
  if (m.qk_norm) b += norm * (c.a + c.g_kv) * c.d / c.tp;                 // per-head q/k norms
  b += 2 * 6.0 * c.h / c.ts;                                              // two residual adds
  if (c.mla) {
    // RoPE on the d_rope part of every query head and the one shared key; the two latent norms.
    b += rope * (c.a / c.tp + 1) * static_cast<double>(m.mla.qk_rope_head_dim);
    b += norm * static_cast<double>(m.mla.q_lora_rank + m.mla.kv_lora_rank);
  } else if (m.position == PositionEmbedding::rope) {
    b += rope * (c.a + c.g_kv) * c.d / c.tp;  // RoPE on Q, K (ALiBi and learned tables need no pass)
  }
  if (m.dropout) b += 2 * 5.0 * c.h / c.ts;  // two dropouts
  if (!c.t->flash_attention) {
    b += (4.0 + (m.dropout ? 5.0 : 0.0)) * c.a * c.s / c.tp;  // softmax (+ dropout)
    b += 2 * 4.0 * (2 * c.a + 2 * c.g_kv) * c.d / c.tp;       // head permutes in and out
  }
  return b;
}

// Forward, backward and weight count of a block of linears on this GPU.
struct Gemms {
  double fwd = 0, bwd = 0, weights = 0;
  double up_fwd = 0;  // MLA up-projections (q_b, kv_b) forward: what mla_up_proj recomputes
  void add(const LayerCtx& c, double mm, double nn, double kk) {
    fwd += c.k.linear_fwd(mm, nn, kk);
    bwd += c.k.linear_bwd(mm, nn, kk, c.frozen);
    weights += nn * kk;
  }
};

Gemms attention_gemms(const LayerCtx& c) {
  Gemms r;
  const double M = c.M, tp = c.tp, h = c.h, a = c.a;
  if (!c.mla) {
    r.add(c, M, (a + 2 * c.g_kv) * c.d / tp, h);  // QKV
    r.add(c, M, h, a * c.d / tp);                 // output projection
    return r;
  }
  // MLA (DeepSeek-V2 §2.1): down-projections to the q and kv latents on every TP rank,
  // up-projections to per-head q, k, v split by TP, then the output projection.
  const MlaShape& x = c.m->mla;
  const double qr = static_cast<double>(x.q_lora_rank), kr = static_cast<double>(x.kv_lora_rank),
               dr = static_cast<double>(x.qk_rope_head_dim), dn = static_cast<double>(x.qk_nope_head_dim);
  if (qr > 0) {
    r.add(c, M, qr, h);
    r.add(c, M, a * c.dqk / tp, qr);
    r.up_fwd += c.k.linear_fwd(M, a * c.dqk / tp, qr);
  } else {
    r.add(c, M, a * c.dqk / tp, h);
  }
  r.add(c, M, kr + dr, h);
  r.add(c, M, a * (dn + c.dv) / tp, kr);
  r.up_fwd += c.k.linear_fwd(M, a * (dn + c.dv) / tp, kr);
  r.add(c, M, h, a * c.dv / tp);
  return r;
}

// Attention scores and values. FlashAttention skips the masked half of a causal
// sequence: M·s·a·(d_qk+d_v)/t FLOPs forward; its backward recomputes the scores, 2.5×
// the forward FLOPs (Dao 2023, §3.1). Without it (Megatron 2021/22) QKᵀ and ·V are
// batched GEMMs over the full s×s square, 2·M·s·a·(d_qk+d_v)/t forward, 2× backward,
// writing and reading the a/t × s × s score matrix (2 B each).
struct Pair {
  double fwd = 0, bwd = 0;
};
Pair core_attention(const LayerCtx& c) {
  if (c.t->flash_attention) {
    // Narrow heads run slower per FLOP (data/perf.json attention_head_dim; the profile's
    // fractions are for head dim 128). MLA's d_qk ≠ d_v: their mean.
    const PerfData& pd = *c.k.data;
    const bool fused = c.t->framework == Framework::megatron;
    const double hd = (c.dqk + c.dv) / 2;
    const double f_fwd = (fused ? pd.att_hd_fused_fwd : pd.att_hd_fa2_fwd).at(hd);
    const double f_bwd = (fused ? pd.att_hd_fused_bwd : pd.att_hd_fa2_bwd).at(hd);
    // Short spans run slower per FLOP than the profile's reference sequence, sliding
    // windows slowest (data/perf.json attention_tiles): full and windowed layers apart.
    const AttentionSpans& sp = c.spans;
    const double per_span = c.M * c.a * (c.dqk + c.dv) / c.tp;
    const auto span_time = [&](bool bwd) {
      const double ref = c.k.att_span_ref;
      double t = (1 - sp.windowed_share) * sp.full / attention_span_speed(pd, sp.full, ref, false, bwd);
      if (sp.windowed_share > 0)
        t += sp.windowed_share * sp.windowed / attention_span_speed(pd, sp.windowed, ref, true, bwd);
      return per_span * t;
    };
    return {span_time(false) / (c.k.peak16 * c.k.att_fwd * f_fwd),
            2.5 * span_time(true) / (c.k.peak16 * c.k.att_bwd * f_bwd)};
  }
  const double fl = 2 * c.M * c.s * c.a * (c.dqk + c.dv) / c.tp;
  const double fwd = c.k.gemm16(fl, 2.0 * 2 * c.M * c.s * c.a / c.tp);
  return {fwd, 2 * fwd};
}

// The MLP half of a layer, with what selective recomputation may rebuild of it.
struct MlpBlock {
  Gemms gemms;
  double bytes_tok = 0;                                // element-wise bytes per token, forward
  double units = 1;                                    // activation copies the MLP's TP collectives carry
  double mlp_fwd = 0, shared_fwd = 0, routed_fwd = 0;  // recomputable forward times
  double act_tok = 0, shared_act_tok = 0, permute_tok = 0;
  double ep = 0;                      // EP all-to-all, all passes
  double cast_fwd = 0, cast_bwd = 0;  // FP8: GEMM-input elements per token quantised, forward / backward
  EagerTime eager;                    // gpt-oss's routed experts: fc2 bias, activation clamp (moe_time.cpp)
};

MlpBlock dense_mlp(const LayerCtx& c) {
  MlpBlock b;
  const double up = (c.swiglu ? 2 : 1) * c.ff / c.tp;
  b.gemms.add(c, c.M, up, c.h);           // gate+up, or fc1
  b.gemms.add(c, c.M, c.h, c.ff / c.tp);  // down
  b.mlp_fwd = b.gemms.fwd;
  b.act_tok = c.act_bytes_per_f * c.ff / c.tp;
  b.bytes_tok = b.act_tok;
  b.cast_fwd = c.h / c.ts + c.ff / c.tp;  // inputs of the up and down projections
  b.cast_bwd = up + c.h / c.ts;           // their output gradients
  return b;
}

// EP all-to-all (Megatron-Core alltoall dispatcher): each GPU sends its local tokens' k
// routed copies (2 B · h each) out and receives them back, dispatch and combine forward
// and again backward (and forward once more when the MoE layer is recomputed). The share
// for ranks in the same scale-up domain rides NVLink, the rest the GPU's own NIC — the
// split DeepSeek-V3 §3.2.2 limits with node-limited routing. DeepEP sends a token once
// per remote domain its k experts fall in (FP8 dispatch under FP8) and fans out over NVLink,
// once per rank reached.
double ep_all_to_all(const LayerCtx& c) {
  const Layout& l = *c.l;
  const double ep = static_cast<double>(l.ep);
  const double kk = static_cast<double>(c.m->moe.top_k);
  const bool deepep = c.t->moe_dispatcher == MoeDispatcher::deepep;
  const double elem = deepep && c.t->precision == Precision::fp8 ? 1.5 : 2.0;
  const double bytes = elem * (c.M / c.ts) * kk * c.h;
  const Group group{l.ep, l.etp};  // EP ranks sit at stride etp
  const GroupShape gs = shape_of(c.fabric, group);
  // Places (ranks, domains) a token's k experts reach: places_reached (above).
  const auto reached = [&c](double n) { return places_reached(n, c.m->moe); };
  // DeepEP sends a token to each rank holding any of its experts once (its dispatch layout,
  // is_token_in_rank), and combines one row per token and rank: k copies become the ranks
  // reached (DeepEP README, "intranode" and "internode" kernels).
  const double copies = deepep ? reached(ep) : kk;
  double one = all_to_all_s(c.fabric, group, bytes * copies / kk);
  if (deepep && gs.domains > 1) {
    // A token crosses to each remote domain it reaches once (D-1 of D of them remote),
    // then fans out over NVLink to the ranks it reaches there.
    const double D = gs.domains;
    const double off = elem * (c.M / c.ts) * c.h * reached(D) * (D - 1) / D / c.fabric.out_bytes_per_s;
    const double on = bytes * copies / kk * (ep - 1) / ep / c.fabric.up_bytes_per_s;
    one = std::max(on, off) + c.fabric.base_latency_s + c.fabric.out_hop_s;
  }
  const bool again = l.recompute == Recompute::full || recomputes(l, RecomputeModule::moe);
  return (4.0 + (again ? 2.0 : 0.0)) * one;
}

// MoE block (Megatron-Core MoE): the router on the local tokens, the shared experts as a
// dense MLP, and on this GPU E/ep local experts in one grouped GEMM over the tokens
// routed to them from the ep ranks: ep·M·k/E each on average, load× that on the busiest
// rank. Expert-TP etp of tp: each GPU routes its sequence shard M/ts, an expert's etp
// ranks gather their shards, M·etp/ts tokens at width f_e/etp.
MlpBlock moe_block(const LayerCtx& c) {
  MlpBlock b;
  const ModelShape& m = *c.m;
  const Layout& l = *c.l;
  const double E = static_cast<double>(m.moe.experts), kk = static_cast<double>(m.moe.top_k),
               fe = static_cast<double>(m.moe.expert_ffn_hidden), ep = static_cast<double>(l.ep),
               etp = static_cast<double>(l.etp), load = expert_load(m),
               fs = static_cast<double>(shared_expert_width(m));
  const double up = c.swiglu ? 2 : 1;
  const double router = c.k.linear_fwd(c.M / c.ts, E, c.h);
  b.gemms.fwd += router;
  b.gemms.bwd += c.k.linear_bwd(c.M / c.ts, E, c.h, c.frozen);
  if (fs > 0) {
    b.gemms.add(c, c.M, up * fs / c.tp, c.h);
    b.gemms.add(c, c.M, c.h, fs / c.tp);
    b.shared_fwd = c.k.linear_fwd(c.M, up * fs / c.tp, c.h) + c.k.linear_fwd(c.M, c.h, fs / c.tp);
  }
  const double me = c.M * etp / c.ts;
  const double te = ep * me * kk * load / E;  // tokens per local expert
  const double local = E / ep;
  const double ef = c.k.grouped_fwd(local, te, up * fe / etp, c.h) + c.k.grouped_fwd(local, te, c.h, fe / etp);
  b.gemms.fwd += ef;
  b.gemms.bwd +=
      c.k.grouped_bwd(local, te, up * fe / etp, c.h, c.frozen) + c.k.grouped_bwd(local, te, c.h, fe / etp, c.frozen);
  b.gemms.weights += local * (up * fe + fe) * c.h / etp;
  b.routed_fwd = ef + router;
  // Element-wise: the activation over load·k routed copies and the shared width;
  // permute and unpermute read and write each routed copy (2 B · h, twice), unless HybridEP
  // writes and combines them in expert order itself (training.moe_permute_fusion: Megatron-
  // Core's get_permuted_hidden_states_by_experts then returns its input); the router's
  // softmax/top-k over E fp32 scores.
  b.act_tok = c.act_bytes_per_f * load * kk * fe * (me / c.M) / etp;
  b.shared_act_tok = c.act_bytes_per_f * fs / c.tp;
  b.permute_tok = (c.t->moe_permute_fusion ? 0.0 : 2 * 4.0 * load * kk * c.h * (me / c.M)) + 8.0 * E / c.ts;
  b.bytes_tok = b.act_tok + b.shared_act_tok + b.permute_tok;
  // The MLP's TP collectives: the shared experts' (as a dense MLP), and the routed
  // copies' all-gather / reduce-scatter inside each expert's etp group.
  b.units = (fs > 0 ? 1.0 : 0.0) + (l.etp > 1 ? kk * load * etp / c.tp : 0.0);
  if (l.ep > 1) b.ep = ep_all_to_all(c);
  // FP8 inputs of the expert and shared-expert projections (routed copies per token).
  const double copies = load * kk * (me / c.M);
  b.cast_fwd = copies * (c.h + fe / etp) + (fs > 0 ? c.h / c.ts + fs / c.tp : 0.0);
  b.cast_bwd = copies * (up * fe / etp + c.h) + (fs > 0 ? up * fs / c.tp + c.h / c.ts : 0.0);
  b.eager = expert_eager_time(c, copies);
  return b;
}

// Selective or full recomputation: the forward work rebuilt during backward.
double recompute_time(const LayerCtx& c, bool moe_layer, const LayerTime& r, const MlpBlock& mlp, const Gemms& att,
                      const Pair& core, double mem_fwd) {
  const Layout& l = *c.l;
  if (l.recompute == Recompute::full) return r.fwd;
  if (l.recompute != Recompute::selective) return 0.0;
  if (c.t->framework == Framework::torchtitan) {
    // torchtitan's op-level SAC: every second matmul (wk, wo, w3) and the element-wise work.
    return c.k.linear_fwd(c.M, c.g_kv * c.d / c.tp, c.h) + c.k.linear_fwd(c.M, c.h, c.a * c.d / c.tp) +
           (c.swiglu ? c.k.linear_fwd(c.M, c.ff / c.tp, c.h) : 0) + mem_fwd;
  }
  // Megatron-Core modules (plan.hpp): each rebuilds its forward in backward.
  using RM = RecomputeModule;
  const auto mem_tok = [&](double b) { return b > 0 ? c.k.mem(b * c.M, b * c.M / 8) : 0.0; };
  double t = 0;
  if (recomputes(l, RM::core_attn)) t += core.fwd + (c.t->flash_attention ? 0 : mem_fwd * 0.5);
  if (recomputes(l, RM::layernorm)) t += mem_tok(2 * (c.eager ? 32.0 : 4.0) * c.h / c.ts);
  if (c.mla && recomputes(l, RM::mla_up_proj)) t += att.up_fwd;
  if (!moe_layer && recomputes(l, RM::mlp)) t += mlp.mlp_fwd + mem_tok(mlp.act_tok);
  if (moe_layer && recomputes(l, RM::moe)) {
    t += mlp.routed_fwd + mlp.shared_fwd + mem_tok(mlp.act_tok + mlp.shared_act_tok + mlp.permute_tok) + mlp.eager.fwd;
  } else if (moe_layer) {
    if (recomputes(l, RM::moe_act)) t += mem_tok(mlp.act_tok) + mlp.eager.act;
    if (recomputes(l, RM::shared_experts)) t += mlp.shared_fwd + mem_tok(mlp.shared_act_tok);
  }
  return t;
}

// TP: per layer two all-reduces of the s·b·h activation forward and two backward
// (Shoeybi et al. 2019 §3); with SP each all-reduce becomes an all-gather plus a
// reduce-scatter of the same volume, and backward all-gathers the two stored
// sequence-sharded linear inputs once more for the weight gradients (Korthikanti §4.2.2):
// 4 collectives forward, 6 backward. Full recomputation repeats the forward ones. Not
// overlapped (Megatron without --tp-comm-overlap).
double tp_comm(const LayerCtx& c, double mlp_units) {
  const Layout& l = *c.l;
  if (l.tp <= 1) return 0.0;
  const double act = 2.0 * c.M * c.h;  // bytes of the full activation
  const Group group{l.tp, 1};
  const double half = all_gather_s(c.fabric, group, act);
  const double fwd = (1 + mlp_units) * (c.sp ? 2 * half : all_reduce_s(c.fabric, group, act));
  const double bwd = c.sp ? 3 * half * (1 + mlp_units) : fwd;
  return fwd + bwd + (l.recompute == Recompute::full ? fwd : 0.0);
}

// CP: ring attention passes K and V blocks around the cp ranks, overlapped with the
// blockwise attention; only what exceeds the attention time is exposed. Backward also
// returns dK and dV. MLA exchanges its materialised per-head K and V.
// A sliding-window layer under Transformer Engine (Megatron) needs only the w keys and
// values before each of a rank's two sequence chunks: TE's p2p context parallelism then
// exchanges just that halo, once forward and its gradients once backward, running the
// chunk that needs none first (TransformerEngine, pytorch/attention/dot_product_attention,
// AttnFuncWithCPAndKVP2PSWA, use_p2p_swa); for a window wider than cp − 1 chunks it
// gathers the keys instead, the ring's volume. Each kind of layer hides its transfers
// under its own attention, which scales with its span.
//
// Ulysses (training.cp_comm "ulysses"; Jacobs et al. 2023, DeepSpeed-Ulysses §3): before
// attention an all-to-all turns each rank's s/cp tokens of every local head into the full
// sequence of 1/cp of the heads, for Q, K and V, and one after turns O back; backward
// does the same for their gradients. Attention then runs unchunked on its heads. The
// all-to-alls sit on the critical path. With fewer KV heads per rank than cp ranks, K and
// V are repeated to cp heads first (DeepSpeed-Ulysses' GQA support).
double ulysses_comm(const LayerCtx& c) {
  const double kv_heads = c.mla ? c.a / c.tp : std::max(c.g_kv / c.tp, c.cp);
  const double qkv = c.mla ? c.a * (2 * c.dqk + c.dv) / c.tp : c.a * c.dqk / c.tp + 2 * kv_heads * c.d;
  const Group g{c.l->cp, c.l->tp};
  const double fwd =
      all_to_all_s(c.fabric, g, 2.0 * c.M * qkv) + all_to_all_s(c.fabric, g, 2.0 * c.M * c.a * c.dv / c.tp);
  return 2 * fwd;
}

double cp_comm(const LayerCtx& c, const Pair& core) {
  const Layout& l = *c.l;
  if (l.cp <= 1) return 0.0;
  if (c.t->cp_comm == CpComm::ulysses) return ulysses_comm(c);
  const double kv = 2.0 * c.M * (c.mla ? c.a * (c.dqk + c.dv) : 2 * c.g_kv * c.d) / c.tp;
  const GroupShape gs = shape_of(c.fabric, Group{l.cp, l.tp});
  const double ring = (c.cp - 1) * p2p_s(c.fabric, gs.domains > 1, kv);
  const auto exposed = [](double fwd, const Pair& att) {
    return std::max(0.0, fwd - att.fwd) + std::max(0.0, 2 * fwd - att.bwd);
  };
  const AttentionSpans& sp = c.spans;
  if (sp.windowed_share <= 0 || c.t->framework != Framework::megatron) return exposed(ring, core);
  const auto scaled = [&](double span) { return Pair{core.fwd * span / sp.mean, core.bwd * span / sp.mean}; };
  const Pair full = scaled(sp.full), win = scaled(sp.windowed);
  const double w = static_cast<double>(c.m->sliding_window), chunk = c.s / (2 * c.cp);
  double windowed = exposed(ring, win);
  if (w <= (c.cp - 1) * chunk) {
    const double halo = p2p_s(c.fabric, gs.domains > 1, kv * std::min(1.0, 2 * w / (c.s / c.cp)));
    windowed = std::max(0.0, halo - win.fwd / 2) + std::max(0.0, halo - win.bwd / 2);
  }
  return (1 - sp.windowed_share) * exposed(ring, full) + sp.windowed_share * windowed;
}

// FP8 GEMMs take quantised inputs (NVIDIA Transformer Engine): forward each linear's
// input, backward its output gradient, and each weight once a step (cached across the
// step's micro-batches). A cast reads the 16-bit tensor and writes the FP8 copy and its
// transpose (the backward GEMMs need the other layout on Hopper; MXFP8 writes both with
// their 1-in-32 block scales); per-tensor current scaling first reads the tensor once
// more for its amax. HBM-bound.
Pair fp8_casts(const LayerCtx& c, const MlpBlock& mlp, double weights) {
  if (c.fp8_cast_bytes <= 0) return {};
  const double att_fwd = c.h / c.ts + c.a * c.dv / c.tp;  // QKV and projection inputs
  const double att_bwd =
      (c.a * c.dqk + (c.mla ? c.a * c.dv : 2 * c.g_kv * c.d)) / c.tp + c.h / c.ts;  // their output gradients
  const double fwd = c.fp8_cast_bytes * (c.M * (att_fwd + mlp.cast_fwd) + weights / c.micro_batches);
  const double bwd = c.fp8_cast_bytes * c.M * (att_bwd + mlp.cast_bwd);
  return {c.k.mem(fwd, fwd / 8), c.k.mem(bwd, bwd / 8)};
}

}  // namespace

LayerCtx layer_ctx(const ModelShape& m, const Training& t, const Layout& l, const Gpu& g, const PerfProfile& perf,
                   const Efficiency& e) {
  return layer_ctx(m, t, l, g, kernels_for(g, perf, t, e), fabric_for(g, perf, e.network_scale), e);
}

LayerCtx layer_ctx(const ModelShape& m, const Training& t, const Layout& l, const Gpu& g, const Kernels& k,
                   const Fabric& fabric, const Efficiency& e) {
  LayerCtx c;
  c.m = &m;
  c.t = &t;
  c.l = &l;
  c.g = &g;
  c.k = k;
  c.fabric = fabric;
  c.h = static_cast<double>(m.hidden);
  c.a = static_cast<double>(m.heads);
  c.g_kv = static_cast<double>(m.kv_heads);
  c.d = static_cast<double>(head_dim(m));
  c.dqk = static_cast<double>(qk_head_dim(m));
  c.dv = static_cast<double>(v_head_dim(m));
  c.ff = static_cast<double>(m.ffn_hidden);
  c.tp = static_cast<double>(l.tp);
  c.cp = static_cast<double>(l.cp);
  c.s = static_cast<double>(t.seq_len);
  c.spans = attention_spans(m, &t, t.seq_len);
  c.span = c.spans.mean;
  c.M = static_cast<double>(l.micro_batch) * c.s / c.cp;
  c.sp = t.sequence_parallel && l.tp > 1;
  c.ts = c.sp ? c.tp : 1.0;
  c.swiglu = gated_ffn(m.ffn_act);
  c.mla = is_mla(m);
  c.frozen = is_adapter_stage(t);
  c.qlora = t.stage == Stage::qlora;
  c.eager = eager_kernels(t);
  c.att_bytes_tok = attention_side_bytes(c);
  // SwiGLU reads 2f and writes f fused (two kernels, ≈10 B, eager); GELU f and f.
  c.act_bytes_per_f = c.swiglu ? (c.eager ? 10.0 : 6.0) : 4.0;
  // QLoRA: every frozen linear weight is dequantised from NF4 to bf16 before each use
  // (bitsandbytes): read ≈0.52 B and write 2 B per weight, forward and again backward.
  c.dequant_per_weight = c.qlora ? nf4_bytes_per_param(t.lora.double_quant) + 2.0 : 0.0;
  // Bytes per element of an FP8 cast: read 2 + write 1 + its transpose 1, and 2 more
  // for the amax read of current scaling; MXFP8 adds 1/32 B of scale per copy.
  if (t.precision == Precision::fp8 && !e.hfu)
    c.fp8_cast_bytes = t.fp8_recipe == Fp8Recipe::tensorwise ? 6.0
                       : t.fp8_recipe == Fp8Recipe::delayed  ? 4.0
                                                             : 4.0 + 2.0 / 32;
  // NVFP4 (Transformer Engine NVFP4BlockScaling): read once for the per-tensor amax, once
  // to quantise, and write the row-wise and the column-wise copy (the latter through the
  // 16-point random Hadamard transform the recipe applies to Wgrad inputs, fused into the
  // cast), each 0.5 B with a 1-byte scale per 16 elements.
  if (t.precision == Precision::fp4 && !e.hfu) c.fp8_cast_bytes = 2.0 + 2.0 + 2 * kNvfp4Bytes;
  c.micro_batches = static_cast<double>(std::max<int64_t>(1, micro_batches(t, l)));
  return c;
}

// The share of a step's forward and backward passes that Megatron-Core's EP A2A overlap
// (overlap_moe_expert_parallel_comm, the combined 1F1B schedule) runs with no pass of another
// micro-batch beside them. Without pipelining the first micro-batch's forward runs alone and
// so does the last one's backward (pipeline_parallel/combined_1f1b.py,
// combined_1f1b_schedule_for_no_pipelining): 1 of m each way. With interleaved pipelining
// (which the overlap requires when PP > 1) a stage runs (p - rank - 1)·2 + (v - 1)·p warmup
// chunks, one more with the overlap, before its first pair, and as many backward chunks
// alone at the end (schedules.py get_pp_rank_microbatches); over the p stages that is
// p - 1 + (v - 1)·p + 1 of its m·v chunks each way. Applied to DualPipe as well, whose
// warmup and cooldown also run unpaired.
namespace {
double unpaired_share(const LayerCtx& c) {
  const double m = c.micro_batches;
  if (c.l->pp <= 1) return std::min(1.0, 1.0 / m);
  const double p = static_cast<double>(c.l->pp), v = static_cast<double>(c.l->vpp);
  return std::min(1.0, (p - 1.0 + (v - 1.0) * p + 1.0) / (m * v));
}
}  // namespace

LayerTime layer_time(const LayerCtx& c, bool moe_layer) {
  LayerTime r;
  Gemms att = attention_gemms(c);
  const Pair core = core_attention(c);
  const MlpBlock mlp = moe_layer ? moe_block(c) : dense_mlp(c);
  double fwd = att.fwd + mlp.gemms.fwd, bwd = att.bwd + mlp.gemms.bwd;
  const double weights = att.weights + mlp.gemms.weights;
  if (c.frozen) {
    // LoRA adapters: thin, HBM-bound GEMMs and their element-wise kernels (lora_time.cpp).
    const AdapterTime lora = lora_adapter_time(c, moe_layer);
    fwd += lora.fwd;
    bwd += lora.bwd;
  }
  const double mem_fwd = c.k.mem((c.att_bytes_tok + mlp.bytes_tok) * c.M, (c.att_bytes_tok + mlp.bytes_tok) * c.M / 8);
  const double dq = c.qlora ? c.k.mem(c.dequant_per_weight * weights, c.dequant_per_weight * weights / 8) : 0.0;
  const Pair cast = fp8_casts(c, mlp, weights);
  r.fwd = fwd + core.fwd + mem_fwd + dq + cast.fwd + mlp.eager.fwd;
  r.bwd = bwd + core.bwd + 2 * mem_fwd + dq + cast.bwd + mlp.eager.bwd;
  r.recompute = recompute_time(c, moe_layer, r, mlp, att, core, mem_fwd);
  r.tp = tp_comm(c, mlp.units);
  // With TP communication overlap the collectives are split into tp chunks pipelined
  // with the GEMM chunks (ring exchange): the first chunk of each has nothing to hide
  // under, the rest shows only where it outlasts the layer's GEMMs (Transformer Engine
  // userbuffers under Megatron). PyTorch's async TP (torchtitan) micro-pipelines the
  // all-gather/reduce-scatter and matmul pairs its compiler finds: it hides the measured
  // share of them (data/perf.json async_tp_hidden).
  if (c.t->overlap_tp_comm && c.l->tp > 1) {
    r.tp = c.t->framework == Framework::megatron ? r.tp / c.tp + std::max(0.0, r.tp * (c.tp - 1) / c.tp - (fwd + bwd))
                                                 : r.tp * (1.0 - c.k.data->async_tp_hidden);
  }
  r.cp = cp_comm(c, core);
  // EP all-to-all overlapped with another micro-batch's compute (DeepSeek-V3 DualPipe,
  // Megatron-Core's 1F1B A2A overlap): in a forward paired with a backward only what exceeds
  // the layer's compute shows; the passes with no partner show all of theirs.
  if (c.t->overlap_moe_comm) {
    const double alone = unpaired_share(c);
    r.ep = alone * mlp.ep + (1.0 - alone) * std::max(0.0, mlp.ep - r.compute());
  } else {
    r.ep = mlp.ep;
  }
  if (moe_layer) r.overhead = moe_layer_overhead(c);
  return r;
}

double head_time(const LayerCtx& c) {
  const double V = static_cast<double>(c.m->vocab);
  const double gemm = c.k.linear16(c.M, V / c.tp, c.h, c.frozen);
  const double loss_bytes = 16.0 * c.M * V / c.tp;  // ~16 B per logit in all
  return gemm + c.k.mem(loss_bytes, loss_bytes / 4);
}

}  // namespace gpucalc
