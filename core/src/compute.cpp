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
  // Multi-token prediction (model.hpp) adds its blocks to the layers, and its projection
  // and a second pass through the shared head to the matmuls, as Megatron-Bridge's
  // flop_utils counts them (num_layers + mtp_num_layers, logits × (1 + mtp_num_layers)):
  // the reported MFU includes MTP work, the convention of its Model TFLOP/s column.
  const double L = static_cast<double>(m.layers + m.mtp_layers);
  const double mtp_mm = static_cast<double>(pc.mtp_active_matmul);
  const double mtp_moe = mtp_block_is_moe(m) ? static_cast<double>(m.mtp_layers) : 0.0;
  const double mtp_dense = static_cast<double>(m.mtp_layers) - mtp_moe;
  // Packed documents (training.packed_document_tokens) and sliding windows: each token
  // attends within its own document and window only, so the attention term counts that
  // span, not the sequence's (plan.hpp attention_span; the same in step time and MFU).
  const double s = attention_span(m, t, seq_len);
  const double a = static_cast<double>(m.heads);
  const double att =
      6.0 * L * s * a * static_cast<double>(qk_head_dim(m) + v_head_dim(m));  // fwd 2, bwd 4 per (QK, AV) pair
  const double head_mm = static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
  const double layers_mm = static_cast<double>(pc.active_matmul) - head_mm + mtp_mm;
  FlopsPerToken f;
  double lora_fwd = 0;  // adapters' forward FLOPs per token
  if (t && is_adapter_stage(*t)) {
    // LoRA (Hu et al. 2021 §4.2): the frozen weights need no weight gradients, only the
    // input gradients that carry the backward through them: 2·Ψ forward + 2·Ψ backward;
    // the adapters train in full, 6 per parameter.
    const double dense = static_cast<double>(pc.dense_layers), moe = static_cast<double>(pc.moe_layers);
    const double lora =
        dense * lora_params_per_layer(m, t->lora, false, true) + moe * lora_params_per_layer(m, t->lora, true, true);
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
      const double dl = static_cast<double>(pc.dense_layers) + mtp_dense,
                   ml = static_cast<double>(pc.moe_layers) + mtp_moe;
      if (has(RecomputeModule::mlp)) f.hardware += 2.0 * dl * static_cast<double>(dense_mlp_matmul_params(m));
      if (is_moe(m) && has(RecomputeModule::moe))
        f.hardware += 2.0 * ml * static_cast<double>(moe_mlp_active_matmul_params(m));
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
    case Recompute::full:
      f.hardware = f.model + 2.0 * (layers_mm - static_cast<double>(m.mtp_layers) * head_mm) + lora_fwd + att / 3.0;
      break;
  }
  return f;
}

double peak_flops(const Gpu& g, Precision p) {
  const double bf16 = g.bf16_tflops.value.value_or(0.0);
  switch (p) {
    case Precision::bf16: return bf16 * 1e12;
    case Precision::fp16: return g.fp16_tflops.value.value_or(bf16) * 1e12;
    case Precision::fp8: return g.fp8_tflops.value.value_or(bf16) * 1e12;
    case Precision::fp4: return g.fp4_tflops.value.value_or(bf16) * 1e12;
  }
  return bf16 * 1e12;
}

double host_link_bytes_per_s(const Gpu& g, const Training& t) {
  // PCIe x16 per direction: 4.0 = 31.5 GB/s, 5.0 = 63 GB/s (PCI-SIG); Hopper, Blackwell
  // and CDNA 3/4 parts attach at 5.0. Pinned-memory copies reach about 80% of it
  // (NVIDIA bandwidthTest on H100/A100 hosts: ~25 of 31.5 and ~50 of 63 GB/s).
  // Grace superchips (GB200, GB300) copy over NVLink-C2C instead (gpus.json
  // host_link_gbs); no pinned-copy measurement of it was found, so PCIe's 80% is taken.
  if (t.offload.pcie_gbs > 0) return t.offload.pcie_gbs * 1e9;
  if (g.host_link_gbs.value) return *g.host_link_gbs.value * 1e9 * 0.8;
  const std::string& a = g.arch;
  const bool gen5 = a.rfind("Hopper", 0) == 0 || a.rfind("Blackwell", 0) == 0 || a.rfind("CDNA 3", 0) == 0 ||
                    a.rfind("CDNA 4", 0) == 0;
  return (gen5 ? 63.0 : 31.5) * 1e9 * 0.8;
}

// Megatron-Core CPU offloading: each offloaded layer's saved activations cross the host
// link in forward while the next layer computes (Transformer Engine's offload handler makes
// the compute stream wait for a layer's copy one layer later) and come back in backward one
// layer ahead of their use. What a copy takes beyond the layer it hides under is exposed.
double activation_offload_time(const ModelShape& m, const Training& t, const Layout& l, const Gpu& g, int64_t dense,
                               int64_t moe, double fwd_s, double bwd_s) {
  const double nd = static_cast<double>(dense), nm = static_cast<double>(moe), n = nd + nm;
  if (t.offload.activation_layers <= 0 || n <= 0) return 0.0;
  const double bytes = (nd * activation_bytes_per_layer(m, t, l, false) +
                        (nm > 0 ? nm * activation_bytes_per_layer(m, t, l, true) : 0.0)) /
                       n;
  const double copy = bytes / host_link_bytes_per_s(g, t);
  const double layers = std::min(static_cast<double>(t.offload.activation_layers), n);
  return layers * (std::max(0.0, copy - fwd_s / n) + std::max(0.0, copy - bwd_s / n));
}

double host_memory_bytes_per_s(const Training& t) {
  // The CPU optimizer's share of host DRAM bandwidth per GPU: a two-socket server with
  // 8 DDR5-4800 channels per socket (2 × 307 GB/s) feeding 8 GPUs is 77 GB/s per GPU at
  // the pins; a vectorised CPU Adam streams at roughly half of it (Ren et al. 2021 §4.1
  // report their CPU-Adam 5-7× faster than PyTorch's, still memory-bound).
  return (t.offload.host_memory_bw_gbs > 0 ? t.offload.host_memory_bw_gbs : 38.0) * 1e9;
}

RunTime run_time(const Training& t, const Layout& l, const StepTime& st) {
  RunTime r;
  r.steps = t.tokens / (static_cast<double>(global_batch(t, l)) * static_cast<double>(t.seq_len));
  const double seconds = r.steps * st.step_time_s;
  r.days = seconds / 86400.0;
  r.gpu_hours = seconds / 3600.0 * static_cast<double>(l.gpus());
  return r;
}

double narayanan_training_seconds(double tokens, double params, double gpus, double achieved, bool full_recompute) {
  return (full_recompute ? 8.0 : 6.0) * tokens * params / (gpus * achieved);
}

}  // namespace gpucalc
