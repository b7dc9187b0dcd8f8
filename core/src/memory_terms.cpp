// Memory terms with their formulas and sources (core/include/gpucalc/memory_terms.hpp).
// Formulas are built of parts: the numbers and symbols a reader of either language reads
// alike, and coded prose (data/messages.json, "mem_f_*", "mem_s_*") the page renders in
// its own language; sources are a citation as published or coded prose around one.
#include "gpucalc/memory_terms.hpp"

#include "decimal.hpp"
#include "gpucalc/framework.hpp"

namespace gpucalc {
namespace {

std::string fmt(const char* f, double v) { return format_printf(f, v); }
std::string bytes_of(double b) { return fmt("%.0f B", b); }
std::string shard(const Layout& l) { return std::to_string(zero_shard(l) * l.cp); }

// " / (dp·cp = n)": the ZeRO shard of a state.
Message zero_shard_part(const Layout& l) { return literal(" / (dp·cp = " + shard(l) + ")"); }
// A coded piece from literals (out of line: the page's wasm pays for each call site).
[[gnu::noinline]] Message text(const char* code, const char* en) { return coded(code, en); }
[[gnu::noinline]] Message text(const char* code, const char* en, const char* key, std::string value) {
  return coded(code, en, {{key, std::move(value)}});
}
Message coded_text(const CodedText& t) { return text(t.code, t.en); }

// A term whose formula is one part (moved, not copied from an initializer list: the copies
// cost the page's wasm more than the texts).
[[gnu::noinline]] MemoryTerm one(const char* name, const char* category, double bytes, Message formula,
                                 Message source) {
  MemoryTerm t{name, category, bytes, {}, std::move(source)};
  t.formula.push_back(std::move(formula));
  return t;
}

// PEFT's 4-bit base: why the activations are counted at 4 B.
Message fp32_stream_part() {
  return text("mem_f_fp32_stream", "; fp32: PEFT upcasts a 4-bit base's embedding and norms");
}

}  // namespace

MemoryTerm weights_term(const TermInputs& x) {
  const Training& tr = x.training;
  const Layout& l = x.layout;
  const StateBytes sb = state_bytes(tr, &x.model);
  const std::string base = bytes_of(tr.lora.base_bytes);
  Parts f;
  const Params q = is_adapter_stage(tr) ? Params{{"nf4", fmt("%.4f", nf4_bytes_per_param(tr.lora.double_quant))},
                                                 {"base", base},
                                                 {"adapter", bytes_of(sb.weights)}}
                                        : Params{};
  if (peft_fp32_upcast(tr))
    f.push_back(coded("mem_f_weights_qlora_peft",
                      "frozen base: NF4 linear weights {nf4} B + 4 B norms/embeddings (PEFT casts them to fp32); "
                      "adapters {adapter}",
                      q));
  else if (tr.stage == Stage::qlora)
    f.push_back(coded("mem_f_weights_qlora",
                      "frozen base: NF4 linear weights {nf4} B + {base} norms/embeddings; adapters {adapter}", q));
  else if (is_adapter_stage(tr))
    f.push_back(coded("mem_f_weights_lora", "frozen base {base} × stage params; adapters {adapter}", q));
  else f.push_back(text("mem_f_stage_params", "{bytes} × stage params", "bytes", bytes_of(sb.weights)));
  if (l.zero_stage >= 3) f.push_back(zero_shard_part(l));
  if (is_moe(x.model)) {
    f.push_back(text("mem_f_routed_experts", "; routed experts / (etp·ep = {n})", "n", std::to_string(l.etp * l.ep)));
    if (l.zero_stage >= 3) f.push_back(literal(" / (expert-DP = " + std::to_string(expert_shard(l)) + ")"));
  }
  if (tr.offload.params) f.push_back(text("mem_f_params_offloaded", "; offloaded to host (ZeRO-Infinity)"));
  return {"weights", "weights", x.stage.weights, f,
          tr.stage == Stage::qlora
              ? text("mem_s_weights_qlora", "Dettmers et al. 2023 (QLoRA) §3: NF4 + double quantisation")
              : literal("Rajbhandari et al. 2020 (ZeRO) §3.1, §5")};
}

MemoryTerm gathered_weights_term(const TermInputs& x) {
  const Training& tr = x.training;
  const Layout& l = x.layout;
  const double bytes = x.stage.weights_gathered;
  const bool q = tr.stage == Stage::qlora;
  if (l.zero_stage < 3)
    return one("dequantised_weight", "weights", bytes,
               text("mem_f_dequantised", "2 B × the widest local linear weight, dequantised from NF4"),
               text("mem_s_dequantised", "bitsandbytes dequantize_4bit before each matmul (Dettmers et al. 2023 §3)"));
  if (is_adapter_stage(tr))
    return one(
        "zero3_gathered_weights", "weights", bytes,
        q ? text("mem_f_gathered_qlora",
                 "2 × NF4 bytes × one layer's params (in use, prefetched; a frozen base has no gradient) + 2 B × "
                 "the widest dequantised NF4 weight")
          : text("mem_f_gathered_lora",
                 "2 × base bytes × one layer's params (in use, prefetched; a frozen base has no gradient)"),
        q ? text("mem_s_gathered_qlora",
                 "PyTorch FSDP2 prefetch; torchao NF4Tensor FSDP2 all-gather (NF4 gathered, dequantised per weight)")
          : text("mem_s_gathered_lora",
                 "PyTorch FSDP2 prefetch (the layer in use and the next); frozen parameters get no gradient"));
  if (tr.framework == Framework::torchtitan && l.pp > 1)
    return one(
        "zero3_gathered_weights", "weights", bytes,
        text("mem_f_gathered_titan_pp",
             "(2 B bf16 params + 4 B fp32 accumulated grads) × stage params, unsharded across the micro-batches"),
        text("mem_s_gathered_titan_pp",
             "torchtitan parallelize: reshard_after_forward = not pp_enabled; gradient sync on the last "
             "micro-batch only"));
  if (tr.framework == Framework::torchtitan || tr.framework == Framework::torchtune)
    return one(
        "zero3_gathered_weights", "weights", bytes,
        text("mem_f_gathered_root",
             "max(3 × 2 B × one layer's params, root unit: 2 B × (embedding + head) + 2 B × the head's gradient)"),
        text("mem_s_gathered_root",
             "PyTorch FSDP2: the root module (embedding, final norm, head) stays gathered from forward through "
             "backward"));
  return one("zero3_gathered_weights", "weights", bytes,
             q ? text("mem_f_gathered_zero3_qlora",
                      "max(3 × 2 B × one layer's params, 4 B × output layer params, 2 B × the widest dequantised NF4 "
                      "weight)")
               : text("mem_f_gathered_zero3", "max(3 × 2 B × one layer's params, 4 B × output layer params)"),
             text("mem_s_gathered_zero3", "PyTorch FSDP prefetch; DeepSpeed estimate_zero3 (4 × largest layer)"));
}

MemoryTerm fp8_weight_cache_term(const TermInputs& x) {
  if (x.training.precision == Precision::fp4)
    return one("fp8_weight_cache", "weights", x.stage.fp8_weight_cache,
               text("mem_f_nvfp4_cache", "2 × 0.5625 B × local params"),
               text("mem_s_nvfp4_cache", "NVIDIA Transformer Engine NVFP4 weight caching (row- and column-wise)"));
  return one("fp8_weight_cache", "weights", x.stage.fp8_weight_cache, text("mem_f_fp8_cache", "1 B × local params"),
             text("mem_s_fp8_cache", "NVIDIA Transformer Engine FP8 weight caching"));
}

MemoryTerm gradients_term(const TermInputs& x) {
  const Training& tr = x.training;
  const Layout& l = x.layout;
  const StateBytes sb = state_bytes(tr, &x.model);
  const Params b = {{"bytes", bytes_of(sb.gradients)}};
  Parts f;
  const FrameworkProfile& fw = framework_profile(tr.framework);
  if (tr.optimizer_in_backward) {
    f.push_back(coded("mem_f_grad_in_backward",
                      "{bytes} × the largest local parameter (optimizer in backward: one gradient alive at a time)",
                      b));
  } else {
    f.push_back(is_adapter_stage(tr) ? coded("mem_f_adapter_params", "{bytes} × adapter params", b)
                                     : coded("mem_f_stage_params", "{bytes} × stage params", b));
    if (l.zero_stage >= 2) f.push_back(zero_shard_part(l));
    if (tr.offload.optimizer && fw.offload_streams_gradients)
      f.push_back(fw.grad_bucket_elems > 0
                      ? text("mem_f_grad_streamed", "; streamed to the host, at most one {n}-element bucket on the GPU",
                             "n", fmt("%.3g", fw.grad_bucket_elems))
                      : text("mem_f_grad_on_host", "; on the host with the offloaded shards"));
  }
  return {"gradients", "gradients", x.stage.gradients, f,
          tr.offload.optimizer && fw.offload_streams_gradients && !tr.optimizer_in_backward
              ? coded_text(fw.offload_source)
          : tr.grad_dtype_bytes ? text("mem_s_grad_given", "ZeRO §3.1/§5; training.grad_dtype")
          // Without a master copy every stack keeps 16-bit gradients (plan.cpp state_bytes).
          : !tr.master_weights && tr.framework != Framework::torchtune
              ? text("mem_s_grad_no_master", "ZeRO §3.1/§5; no fp32 master: 16-bit gradients")
              : coded_text(fw.grad_source)};
}

MemoryTerm optimizer_term(const TermInputs& x) {
  const Training& tr = x.training;
  const Layout& l = x.layout;
  const StateBytes sb = state_bytes(tr, &x.model);
  const bool master = sb.optimizer > optimizer_state_bytes(tr.optimizer, static_cast<double>(x.model.hidden),
                                                           static_cast<double>(x.model.ffn_hidden)) +
                                         1e-9;
  const Params ps = {{"bytes", fmt("%.4g B", sb.optimizer)}, {"optimizer", to_string(tr.optimizer)}};
  const bool adapters = is_adapter_stage(tr);
  Parts f;
  f.push_back(master ? (adapters ? coded("mem_f_optimizer_adapter_master",
                                         "{bytes} × adapter params (fp32 master + {optimizer} state)", ps)
                                 : coded("mem_f_optimizer_master",
                                         "{bytes} × stage params (fp32 master + {optimizer} state)", ps))
                     : (adapters ? coded("mem_f_optimizer_adapter", "{bytes} × adapter params ({optimizer} state)", ps)
                                 : coded("mem_f_optimizer", "{bytes} × stage params ({optimizer} state)", ps)));
  if (l.zero_stage >= 1) f.push_back(zero_shard_part(l));
  // Muon's AdamW share, sharded alike: "… / (dp·cp = 8) + 4 B × … / (dp·cp = 8)".
  if (sb.adam_extra > 0 && !adapters) {
    f.push_back(coded("mem_f_optimizer_muon", " + {extra} × embedding and output-head params (AdamW's second moment)",
                      {{"extra", fmt("%.4g B", sb.adam_extra)}}));
    if (l.zero_stage >= 1) f.push_back(zero_shard_part(l));
  }
  return {"optimizer_states", "optimizer", x.stage.optimizer, f,
          text("mem_s_optimizer",
               "ZeRO §3.1 (K = 12 for AdamW); 8-bit Adam: Dettmers et al. 2022; Lion: Chen et al. 2023; Adafactor: "
               "Shazeer & Stern 2018; Muon: Jordan et al. 2024, Liu et al. 2025; torchtitan keeps fp32 parameters as "
               "the master copy")};
}

MemoryTerm layer_activations_term(const TermInputs& x) {
  const Layout& l = x.layout;
  const StageMemory& m = x.stage;
  const Params ps = {{"in_flight", std::to_string(m.in_flight)},
                     {"layers", fmt("%.4g", static_cast<double>(m.layers) / static_cast<double>(l.vpp))},
                     {"recompute", to_string(l.recompute)},
                     {"act", fmt("%.0f", stream_elem_bytes(x.training))}};
  Parts f;
  f.push_back(
      l.recompute == Recompute::full
          ? coded("mem_f_activations_full",
                  "{in_flight} micro-batch-chunks in flight × {layers} layers × {act}·s·b·h (layer input) (recompute "
                  "{recompute})",
                  ps)
          : coded("mem_f_activations",
                  "{in_flight} micro-batch-chunks in flight × {layers} layers × per-layer saved tensors (recompute "
                  "{recompute})",
                  ps));
  if (m.host_activations > 0 && x.training.offload.activation_layers > 0)
    f.push_back(text("mem_f_activations_layers_offloaded", "; the offloaded layers but one on the host"));
  else if (m.host_activations > 0)
    f.push_back(text("mem_f_activations_offloaded", "; all but 6 checkpoints offloaded to the host"));
  if (peft_fp32_upcast(x.training)) f.push_back(fp32_stream_part());
  return {"layer_activations", "activations", m.layer_activations, f,
          literal("docs/memory-model.md; Korthikanti et al. 2022 Table 2, §4.2.3")};
}

MemoryTerm recompute_working_term(const TermInputs& x) {
  MemoryTerm t = one("recompute_working_layer", "activations", x.stage.recompute_working,
                     text("mem_f_recompute_working", "one layer's saved tensors, rebuilt during backward"),
                     literal("Korthikanti et al. 2022 §5"));
  if (peft_fp32_upcast(x.training)) t.formula.push_back(fp32_stream_part());
  return t;
}

MemoryTerm output_and_loss_term(const TermInputs& x) {
  const StageMemory& m = x.stage;
  const FrameworkProfile& fw = framework_profile(x.training.framework);
  Parts f;
  f.push_back(
      peft_fp32_upcast(x.training)
          ? text("mem_loss_formula_hf_fp32",
                 "4·s·b·h (fp32 norm input) + 4·s·b·h (fp32 head input) + 12 B × s·b·V/t (fp32 log-softmax, its "
                 "gradient and input gradient)")
          : coded_text(fw.loss_formula));
  if (m.loss_before_rebuild && m.recompute_working > 0)
    f.push_back(text("mem_f_loss_freed",
                     "; freed before the first layer is rebuilt, so the peak holds the larger of this and the "
                     "rebuilt layer"));
  return {"output_layer_and_loss", "activations", m.logits, f, coded_text(fw.loss_source)};
}

MemoryTerm host_term(const TermInputs& x) {
  const StageMemory& m = x.stage;
  const bool states = m.host_bytes > m.host_activations;
  Parts f;
  if (x.training.offload.optimizer)
    f.push_back(text("mem_f_host_offload",
                     "fp32 master + optimizer state + fp32 gradient copy, in host memory (not on the GPU)"));
  else if (states)
    f.push_back(text("mem_f_host_paged", "paged optimizer states in CUDA unified memory, counted on the host"));
  const bool layers = x.training.offload.activation_layers > 0;
  if (m.host_activations > 0) {
    if (!f.empty()) f.push_back(literal("; "));
    if (layers)
      f.push_back(text("mem_f_host_activation_layers", "offloaded layers' activations but one (Megatron-Core)"));
    else
      f.push_back(text("mem_f_host_activations",
                       "checkpointed activations beyond the 6 kept on the GPU (activation offloading)"));
  }
  return {"host_offloaded_states", "host", m.host_bytes, f,
          literal(m.host_activations <= 0
                      ? "Ren et al. 2021 (ZeRO-Offload) §4; Dettmers et al. 2023 (QLoRA) paged optimizers"
                  : layers ? (states ? "Ren et al. 2021 (ZeRO-Offload) §4; Megatron-Core --cpu-offloading-num-layers"
                                     : "Megatron-Core --cpu-offloading-num-layers")
                           : "Ren et al. 2021 (ZeRO-Offload) §4; Dettmers et al. 2023 (QLoRA) paged optimizers; "
                             "torchtune OffloadActivations")};
}

MemoryTerm cuda_context_term(const TermInputs& x) {
  return one("cuda_context", "other", x.stage.cuda_context,
             text("mem_f_cuda_context", "per process (assume.cuda_context_gib)"),
             text("mem_s_cuda_context", "docs/memory-model.md §6: 0.3-2 GB measured"));
}

MemoryTerm nccl_term(const TermInputs& x) {
  return one("nccl_buffers", "other", x.stage.comm_buffers,
             text("mem_f_nccl", "communicators × NCCL_BUFFSIZE 4 MiB × 2 × 16 channels"),
             text("mem_s_nccl", "NCCL environment docs"));
}

MemoryTerm fragmentation_term(const TermInputs& x) {
  return one("allocator_fragmentation", "other", x.stage.fragmentation,
             text("mem_f_fragmentation", "{pct}% of activations and gathered weights", "pct",
                  fmt("%.0f", x.overheads.fragmentation * 100)),
             literal("docs/memory-model.md §Runtime"));
}

std::vector<MemoryTerm> memory_terms(const TermInputs& x) {
  const StageMemory& m = x.stage;
  std::vector<MemoryTerm> t;
  t.push_back(weights_term(x));
  if (m.weights_gathered > 0) t.push_back(gathered_weights_term(x));
  if (m.fp8_weight_cache > 0) t.push_back(fp8_weight_cache_term(x));
  t.push_back(gradients_term(x));
  t.push_back(optimizer_term(x));
  t.push_back(layer_activations_term(x));
  if (m.recompute_working > 0) t.push_back(recompute_working_term(x));
  if (m.logits > 0) t.push_back(output_and_loss_term(x));
  if (m.host_bytes > 0) t.push_back(host_term(x));
  t.push_back(cuda_context_term(x));
  if (m.comm_buffers > 0) t.push_back(nccl_term(x));
  t.push_back(fragmentation_term(x));
  return t;
}

}  // namespace gpucalc
