// Memory terms with their formulas and sources (core/include/gpucalc/memory_terms.hpp).
#include "gpucalc/memory_terms.hpp"

#include <cstdio>

#include "gpucalc/framework.hpp"

namespace gpucalc {
namespace {

std::string fmt(const char* f, double v) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string bytes_of(double b) { return fmt("%.0f B", b); }
std::string shard(const Layout& l) { return std::to_string(zero_shard(l) * l.cp); }

}  // namespace

MemoryTerm weights_term(const TermInputs& x) {
  const Training& tr = x.training;
  const Layout& l = x.layout;
  const StateBytes sb = state_bytes(tr, &x.model);
  const std::string base = bytes_of(tr.lora.base_bytes);
  std::string f;
  if (tr.stage == Stage::qlora)
    f = fmt("frozen base: NF4 linear weights %.4f B", nf4_bytes_per_param(tr.lora.double_quant)) + " + " +
        (tr.framework == Framework::hf ? std::string("4 B norms/embeddings (PEFT casts them to fp32)")
                                       : base + " norms/embeddings") +
        "; adapters " + bytes_of(sb.weights);
  else if (is_adapter_stage(tr)) f = "frozen base " + base + " × stage params; adapters " + bytes_of(sb.weights);
  else f = bytes_of(sb.weights) + " × stage params";
  if (l.zero_stage >= 3) f += " / (dp·cp = " + shard(l) + ")";
  if (is_moe(x.model))
    f += "; routed experts / (etp·ep = " + std::to_string(l.etp * l.ep) + ")" +
         (l.zero_stage >= 3 ? " / (expert-DP = " + std::to_string(expert_shard(l)) + ")" : "");
  if (tr.offload.params) f += "; offloaded to host (ZeRO-Infinity)";
  return {"weights", "weights", x.stage.weights, f,
          tr.stage == Stage::qlora ? "Dettmers et al. 2023 (QLoRA) §3: NF4 + double quantisation"
                                   : "Rajbhandari et al. 2020 (ZeRO) §3.1, §5"};
}

MemoryTerm gathered_weights_term(const TermInputs& x) {
  const Training& tr = x.training;
  const Layout& l = x.layout;
  const double bytes = x.stage.weights_gathered;
  if (l.zero_stage < 3)
    return {"dequantised_weight", "weights", bytes, "2 B × the widest local linear weight, dequantised from NF4",
            "bitsandbytes dequantize_4bit before each matmul (Dettmers et al. 2023 §3)"};
  if (is_adapter_stage(tr))
    return {"zero3_gathered_weights", "weights", bytes,
            tr.stage == Stage::qlora
                ? "2 × NF4 bytes × one layer's params (in use, prefetched; a frozen base has no "
                  "gradient) + 2 B × the widest dequantised NF4 weight"
                : "2 × base bytes × one layer's params (in use, prefetched; a frozen base has no gradient)",
            tr.stage == Stage::qlora
                ? "PyTorch FSDP2 prefetch; torchao NF4Tensor FSDP2 all-gather (NF4 gathered, dequantised per weight)"
                : "PyTorch FSDP2 prefetch (the layer in use and the next); frozen parameters get no gradient"};
  if (tr.framework == Framework::torchtitan && l.pp > 1)
    return {
        "zero3_gathered_weights", "weights", bytes,
        "(2 B bf16 params + 4 B fp32 accumulated grads) × stage params, unsharded across the micro-batches",
        "torchtitan parallelize: reshard_after_forward = not pp_enabled; gradient sync on the last micro-batch only"};
  if (tr.framework == Framework::torchtitan || tr.framework == Framework::torchtune)
    return {
        "zero3_gathered_weights", "weights", bytes,
        "max(3 × 2 B × one layer's params, root unit: 2 B × (embedding + head) + 2 B × the head's gradient)",
        "PyTorch FSDP2: the root module (embedding, final norm, head) stays gathered from forward through backward"};
  return {"zero3_gathered_weights", "weights", bytes,
          "max(3 × 2 B × one layer's params, 4 B × output layer params" +
              std::string(tr.stage == Stage::qlora ? ", 2 B × the widest dequantised NF4 weight)" : ")"),
          "PyTorch FSDP prefetch; DeepSpeed estimate_zero3 (4 × largest layer)"};
}

MemoryTerm fp8_weight_cache_term(const TermInputs& x) {
  if (x.training.precision == Precision::fp4)
    return {"fp8_weight_cache", "weights", x.stage.fp8_weight_cache, "2 × 0.5625 B × local params",
            "NVIDIA Transformer Engine NVFP4 weight caching (row- and column-wise)"};
  return {"fp8_weight_cache", "weights", x.stage.fp8_weight_cache, "1 B × local params",
          "NVIDIA Transformer Engine FP8 weight caching"};
}

MemoryTerm gradients_term(const TermInputs& x) {
  const Training& tr = x.training;
  const Layout& l = x.layout;
  const StateBytes sb = state_bytes(tr, &x.model);
  std::string f = bytes_of(sb.gradients) + (is_adapter_stage(tr) ? " × adapter params" : " × stage params") +
                  std::string(l.zero_stage >= 2 ? " / (dp·cp = " + shard(l) + ")" : "");
  const FrameworkProfile& fw = framework_profile(tr.framework);
  if (tr.optimizer_in_backward)
    f = bytes_of(sb.gradients) + " × the largest local parameter (optimizer in backward: one gradient alive at a time)";
  else if (tr.offload.optimizer && fw.offload_streams_gradients)
    f += fw.grad_bucket_elems > 0
             ? fmt("; streamed to the host, at most one %.3g-element bucket on the GPU", fw.grad_bucket_elems)
             : std::string("; on the host with the offloaded shards");
  return {"gradients", "gradients", x.stage.gradients, f,
          tr.offload.optimizer && fw.offload_streams_gradients && !tr.optimizer_in_backward
              ? fw.offload_source
              : "ZeRO §3.1/§5; Megatron keeps fp32 gradients with bf16 (docs/memory-model.md §1)"};
}

MemoryTerm optimizer_term(const TermInputs& x) {
  const Training& tr = x.training;
  const Layout& l = x.layout;
  const StateBytes sb = state_bytes(tr, &x.model);
  const bool master = sb.optimizer > optimizer_state_bytes(tr.optimizer, static_cast<double>(x.model.hidden),
                                                           static_cast<double>(x.model.ffn_hidden)) +
                                         1e-9;
  return {
      "optimizer_states", "optimizer", x.stage.optimizer,
      fmt("%.4g B", sb.optimizer) + (is_adapter_stage(tr) ? " × adapter params (" : " × stage params (") +
          (master ? "fp32 master + " : "") + to_string(tr.optimizer) + " state)" +
          std::string(l.zero_stage >= 1 ? " / (dp·cp = " + shard(l) + ")" : ""),
      "ZeRO §3.1 (K = 12 for AdamW); 8-bit Adam: Dettmers et al. 2022; Lion: Chen et al. 2023; Adafactor: Shazeer & "
      "Stern 2018; torchtitan keeps fp32 parameters as the master copy"};
}

MemoryTerm layer_activations_term(const TermInputs& x) {
  const Layout& l = x.layout;
  const StageMemory& m = x.stage;
  return {"layer_activations", "activations", m.layer_activations,
          std::to_string(m.in_flight) + " micro-batch-chunks in flight × " +
              fmt("%.4g", static_cast<double>(m.layers) / static_cast<double>(l.vpp)) + " layers × " +
              (l.recompute == Recompute::full ? std::string("2·s·b·h (layer input)")
                                              : std::string("per-layer saved tensors")) +
              " (recompute " + to_string(l.recompute) + ")" +
              (m.host_activations > 0 ? std::string("; all but 6 checkpoints offloaded to the host") : std::string()),
          "docs/memory-model.md; Korthikanti et al. 2022 Table 2, §4.2.3"};
}

MemoryTerm recompute_working_term(const TermInputs& x) {
  return {"recompute_working_layer", "activations", x.stage.recompute_working,
          "one layer's saved tensors, rebuilt during backward", "Korthikanti et al. 2022 §5"};
}

MemoryTerm output_and_loss_term(const TermInputs& x) {
  const StageMemory& m = x.stage;
  const FrameworkProfile& fw = framework_profile(x.training.framework);
  return {
      "output_layer_and_loss", "activations", m.logits,
      std::string(fw.loss_formula) +
          (m.loss_before_rebuild && m.recompute_working > 0
               ? "; freed before the first layer is rebuilt, so the peak holds the larger of this and the rebuilt layer"
               : ""),
      fw.loss_source};
}

MemoryTerm host_term(const TermInputs& x) {
  const StageMemory& m = x.stage;
  const bool states = m.host_bytes > m.host_activations;
  std::string f = x.training.offload.optimizer
                      ? "fp32 master + optimizer state + fp32 gradient copy, in host memory (not on the GPU)"
                  : states ? "paged optimizer states in CUDA unified memory, counted on the host"
                           : "";
  if (m.host_activations > 0)
    f += std::string(states ? "; " : "") +
         "checkpointed activations beyond the 6 kept on the GPU (activation offloading)";
  return {
      "host_offloaded_states", "host", m.host_bytes, f,
      m.host_activations > 0
          ? "Ren et al. 2021 (ZeRO-Offload) §4; Dettmers et al. 2023 (QLoRA) paged optimizers; torchtune OffloadActivations"
          : "Ren et al. 2021 (ZeRO-Offload) §4; Dettmers et al. 2023 (QLoRA) paged optimizers"};
}

MemoryTerm cuda_context_term(const TermInputs& x) {
  return {"cuda_context", "other", x.stage.cuda_context, "per process (assume.cuda_context_gib)",
          "docs/memory-model.md §6: 0.3-2 GB measured"};
}

MemoryTerm nccl_term(const TermInputs& x) {
  return {"nccl_buffers", "other", x.stage.comm_buffers, "communicators × NCCL_BUFFSIZE 4 MiB × 2 × 16 channels",
          "NCCL environment docs"};
}

MemoryTerm fragmentation_term(const TermInputs& x) {
  return {"allocator_fragmentation", "other", x.stage.fragmentation,
          fmt("%.0f%%", x.overheads.fragmentation * 100) + " of activations and gathered weights",
          "docs/memory-model.md §Runtime"};
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
