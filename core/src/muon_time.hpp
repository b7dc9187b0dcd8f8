// Muon's Newton-Schulz orthogonalisation, the optimizer step's matmul work
// (training.optimizer "muon"; docs/performance-model.md "The optimizer step").
#pragma once
#include "gpucalc/model.hpp"
#include "gpucalc/plan.hpp"
#include "kernels.hpp"

namespace gpucalc {

// Newton-Schulz iterations per step: Megatron-LM --muon-num-ns-steps (default 5), the
// reference implementation's quintic (Jordan et al. 2024).
inline constexpr int kMuonNsSteps = 5;

// Seconds of one GPU's Newton-Schulz work on one whole a×b weight matrix: per iteration
// A = X·Xᵀ (2m²n FLOPs), A·A (2m³) and B·X (2m²n), m = min(a, b), n = max(a, b), each
// a 16-bit tensor-core GEMM at its own size's roll-off (Megatron-LM
// --muon-fp32-matmul-prec medium: fp32 matmuls on bf16 tensor cores).
double ns_matrix_time(const Kernels& k, double a, double b);

// One layer's matrices, whole (Megatron-LM's default --muon-tp-mode duplicated
// all-gathers a tensor-parallel weight and orthogonalises it whole on every TP rank):
// attention (q, k, v split as --muon-split-qkv does; MLA's projections), the dense MLP
// or the MoE layer's shared experts and router, and separately one routed expert.
// Embeddings, the output head, norms and biases are AdamW's, not Muon's.
struct MuonLayerTime {
  double dense = 0;   // every matrix of the layer but the routed experts
  double expert = 0;  // one routed expert (fc1, fc2)
};
MuonLayerTime muon_layer_time(const ModelShape& m, const Kernels& k, bool moe_layer);

}  // namespace gpucalc
