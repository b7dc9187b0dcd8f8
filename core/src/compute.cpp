#include "gpucalc/compute.hpp"

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

StepTime step_time(const ModelShape& m, const Training& t, const Layout& l, const Gpu& g, const Efficiency& e) {
  StepTime st;
  st.peak_flops = peak_flops(g, t.precision);
  const double tokens_step = static_cast<double>(t.global_batch) * static_cast<double>(t.seq_len);
  const double n = static_cast<double>(l.gpus());
  const FlopsPerToken f = flops_per_token(m, t.seq_len, l.recompute);
  const double model_flops_step = tokens_step * f.model;
  const double hw_flops_step = tokens_step * f.hardware;

  if (e.mfu) {
    // assume.mfu is an end-to-end figure: it already includes bubbles and stalls.
    st.step_time_s = model_flops_step / (n * st.peak_flops * *e.mfu);
    st.efficiency = *e.mfu * f.hardware / f.model;
    st.compute_s = st.step_time_s;
  } else {
    st.efficiency = e.hfu.value_or(g.efficiency.value.value_or(0.4));
    // One micro-batch through the fullest pipeline stage. Stages hold ceil(L/p) layers
    // (uneven splits bound by the fuller stage); the last stage also runs the output
    // layer, 6·V·h FLOPs per token. TP and CP divide a stage's work evenly.
    const double L = static_cast<double>(m.layers);
    const double layers_stage = static_cast<double>(layers_per_stage_max(m, l));
    const double head_flops = 6.0 * static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
    const double per_layer_hw = (f.hardware - head_flops) / L;
    const double stage_flops_per_token = layers_stage * per_layer_hw + head_flops;
    const double mb_tokens = static_cast<double>(l.micro_batch) * static_cast<double>(t.seq_len);
    const double t_mb = mb_tokens * stage_flops_per_token /
                        (static_cast<double>(l.tp * l.cp) * st.peak_flops * st.efficiency);
    const double m_count = static_cast<double>(micro_batches(t, l));
    // 1F1B: m micro-batches plus (p-1) fill/drain slots; interleaving with v chunks
    // shrinks the bubble to (p-1)/v slots (Narayanan et al. 2021 §2.2, eq. for t_pb).
    st.compute_s = m_count * t_mb;
    st.bubble_s = static_cast<double>(l.pp - 1) / static_cast<double>(l.vpp) * t_mb;
    st.step_time_s = st.compute_s + st.bubble_s;
  }
  st.bubble_fraction = st.step_time_s > 0 ? st.bubble_s / st.step_time_s : 0.0;
  st.tokens_per_s_per_gpu = tokens_step / (st.step_time_s * n);
  st.mfu = model_flops_step / (st.step_time_s * n * st.peak_flops);
  st.hfu = hw_flops_step / (st.step_time_s * n * st.peak_flops);
  st.tflops_per_gpu = model_flops_step / (st.step_time_s * n) / 1e12;
  return st;
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
