// The framework profiles (core/include/gpucalc/framework.hpp): each term is read off the
// framework's code or paper named beside it. docs/memory-model.md §7 explains them.
#include "gpucalc/framework.hpp"

namespace gpucalc {

const char* to_string(MemoryBasis b) {
  switch (b) {
    case MemoryBasis::allocated: return "allocated";
    case MemoryBasis::reserved: return "reserved";
    case MemoryBasis::device: return "device";
  }
  return "?";
}

namespace {

// DeepSpeed's zero_optimization.reduce_bucket_size default, 5e8 elements (DeepSpeed
// configuration JSON documentation): the most gradient the GPU holds while ZeRO-Offload
// streams the reduced gradients to the host (Ren et al. 2021 §4.1).
constexpr double kDeepSpeedReduceBucket = 5e8;
// zero_optimization.stage3_prefetch_bucket_size default, 5e8 elements: ZeRO-3 fetches at
// most that much of the next parameters ahead (DeepSpeed configuration documentation).
constexpr double kDeepSpeedPrefetchBucket = 5e8;

constexpr CodedText kHfLossFormula = {
    "mem_loss_formula_hf",
    "2·s·b·h (norm input) + 2·s·b·h (head input) + 12 B × s·b·V/t (fp32 log-softmax, its gradient and input gradient)"};
constexpr CodedText kHfLossSource = {
    "mem_loss_source_hf",
    "Hugging Face Transformers causal-LM loss: logits.float() into cross_entropy (loss_utils.py ForCausalLMLoss)"};

const FrameworkProfile kProfiles[] = {
    {Framework::megatron,
     6.0,
     {"mem_loss_formula_megatron", "2 × 2·s·b·h (norm, head inputs) + (2 + 4) B × s·b·V/t (bf16 logits, fp32 softmax)"},
     {"mem_loss_source_megatron", "Korthikanti et al. 2022 §4.3; Megatron vocab-parallel cross-entropy"},
     false,
     false,
     0.0,
     {"mem_offload_source_megatron",
      "Megatron-Core --optimizer-cpu-offload (optimizer/cpu_offloading/hybrid_optimizer.py) keeps the main gradients "
      "on the GPU"},
     {"mem_s_grad_megatron", "ZeRO §3.1/§5; Megatron-Core accumulates bf16 training's gradients in fp32 (main_grad)"},
     0.0,
     MemoryBasis::allocated,
     "megatron/training/utils.py report_memory: max allocated (also max reserved)"},
    {Framework::torchtitan,
     12.0,
     {"mem_loss_formula_torchtitan",
      "2·s·b·h (norm input) + 2·s·b·h (gathered head input) + 12 B × s·b·V/t (fp32 log-softmax and gradients)"},
     {"mem_loss_source_torchtitan",
      "torchtitan cross_entropy(logits.float()): fp32 log-softmax, its gradient and input gradient at the start of "
      "backward"},
     false,
     true,
     0.0,
     {"mem_offload_source_torchtitan",
      "PyTorch FSDP2 CPUOffloadPolicy: sharded parameters, gradients and optimizer states live on the host"},
     {"mem_s_grad_fsdp2", "ZeRO §3.1/§5; PyTorch FSDP2: gradients in the sharded parameter's dtype (fp32 master)"},
     0.0,
     MemoryBasis::reserved,
     "torchtitan metrics DeviceMemoryMonitor: the logged 'memory' is max reserved GiB"},
    {Framework::deepspeed,
     12.0,
     kHfLossFormula,
     kHfLossSource,
     true,
     true,
     kDeepSpeedReduceBucket,
     {"mem_offload_source_deepspeed",
      "Ren et al. 2021 (ZeRO-Offload) §4.1: gradients are reduced bucket by bucket and moved to host memory; "
      "DeepSpeed reduce_bucket_size 5e8 elements"},
     {"mem_s_grad_deepspeed", "ZeRO §3.1/§5: 16-bit gradients beside the fp32 master (Rajbhandari et al. 2020)"},
     kDeepSpeedPrefetchBucket,
     MemoryBasis::allocated,
     "DeepSpeed see_memory_usage: MA / Max_MA (allocated), CA / Max_CA (reserved)"},
    {Framework::hf,
     12.0,
     kHfLossFormula,
     kHfLossSource,
     true,
     true,
     kDeepSpeedReduceBucket,
     {"mem_offload_source_hf",
      "Transformers Trainer offloads through its DeepSpeed integration (ZeRO-Offload, Ren et al. 2021 §4.1)"},
     {"mem_s_grad_hf", "ZeRO §3.1/§5; Transformers Trainer, bf16=True: autocast on fp32 parameters, fp32 gradients"},
     0.0,
     MemoryBasis::allocated,
     "Transformers TrainerMemoryTracker and PEFT's TorchTracemalloc: torch.cuda.max_memory_allocated"},
    {Framework::torchtune,
     2.25,
     {"mem_loss_formula_torchtune",
      "2·s·b·h (norm input) + 2·s·b·h (head input) + (2 + 2/8) B × s·b·V/t (the bf16 logits of all 8 chunks kept; "
      "one chunk's bf16 logit gradient at a time)"},
     {"mem_loss_source_torchtune",
      "torchtune CEWithChunkedOutputLoss (8 chunks, upcast chunk by chunk) compiled (compile: True in its memory "
      "table): the min-cut partitioner saves the bf16 chunk and recomputes the fp32 softmax inside the fused "
      "backward, which writes the chunk's bf16 gradient"},
     true,
     true,
     0.0,
     {"mem_offload_source_torchtune",
      "torchtune fsdp_cpu_offload: FSDP2 CPUOffloadPolicy keeps sharded parameters, gradients and optimizer states on "
      "the host"},
     {"mem_s_grad_torchtune", "ZeRO §3.1/§5; torchtune trains in bf16 without a master copy"},
     0.0,
     MemoryBasis::allocated,
     "torchtune training.get_memory_stats (peak_memory_active / alloc / reserved; the README table does not say which)"},
};

}  // namespace

const FrameworkProfile& framework_profile(Framework f) {
  for (const FrameworkProfile& p : kProfiles)
    if (p.framework == f) return p;
  return kProfiles[0];
}

}  // namespace gpucalc
