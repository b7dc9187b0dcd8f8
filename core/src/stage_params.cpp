// The parameters one GPU of a pipeline stage holds (stage_params.hpp).
#include "stage_params.hpp"

#include <algorithm>

#include "gpucalc/memory.hpp"

namespace gpucalc {
namespace {

// Parameters of one layer held by one TP rank: weight matrices and column-parallel
// biases are split t ways (Megatron-LM, Shoeybi et al. 2019 §3); norms are replicated.
// A MoE layer's routed experts are split over ep ranks (whole experts) and, inside an
// expert, over etp ranks (Megatron-Core expert tensor parallel); the router is
// replicated (Megatron-Core TopKRouter).
struct LayerLocal {
  double dense = 0;                                // a dense layer's local parameters
  double moe_shared = 0;                           // a MoE layer's parameters every EP rank keeps
  double moe_expert = 0;                           // a MoE layer's routed-expert parameters on one GPU
  double dense_linear = 0, moe_shared_linear = 0;  // the linear (quantisable) part of the above
};
LayerLocal layer_local(const ParamCounts& pc, const Layout& l) {
  const double tp = static_cast<double>(l.tp), ep = static_cast<double>(l.ep);
  LayerLocal r;
  r.dense_linear = static_cast<double>(pc.attention + pc.mlp) / tp;
  r.dense = r.dense_linear + static_cast<double>(pc.layer_norms);
  r.moe_shared_linear = static_cast<double>(pc.attention + pc.shared_mlp) / tp + static_cast<double>(pc.router);
  r.moe_shared = r.moe_shared_linear + static_cast<double>(pc.layer_norms);
  r.moe_expert = static_cast<double>(pc.routed_experts) / (static_cast<double>(l.etp) * ep);
  return r;
}

}  // namespace

StageParams stage_params(const ModelShape& m, const Training& t, const Layout& l, int stage, const ParamCounts& pc) {
  StageParams sp;
  sp.layers = stage_layers(m, l, stage);
  const LayerLocal ll = layer_local(pc, l);
  const double dense = static_cast<double>(sp.layers.dense), moe = static_cast<double>(sp.layers.moe());
  sp.params = dense * ll.dense + moe * ll.moe_shared;
  sp.expert_params = moe * ll.moe_expert;
  sp.linear = dense * ll.dense_linear + moe * (ll.moe_shared_linear + ll.moe_expert);
  sp.layer_local =
      std::max(sp.layers.dense > 0 ? ll.dense : 0.0, sp.layers.moe() > 0 ? ll.moe_shared + ll.moe_expert : 0.0);
  if (is_adapter_stage(t)) {
    sp.adapters = (dense * lora_params_per_layer(m, t.lora, false) + moe * lora_params_per_layer(m, t.lora, true)) /
                  static_cast<double>(l.tp);
  }
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
    if (!m.tied_embeddings || !first) sp.params += vocab_local;
    sp.head_local = vocab_local;
    // MTP modules: their block like a layer of the last kind, the 2h·h projection split
    // by TP, three norms; embedding and head shared (already counted here).
    const double n = static_cast<double>(sp.layers.mtp);
    const bool moe_block = mtp_block_is_moe(m);
    const double h = static_cast<double>(m.hidden);
    sp.params += n * ((moe_block ? ll.moe_shared : ll.dense) + 2.0 * h * h / static_cast<double>(l.tp) +
                      3.0 * static_cast<double>(pc.final_norm));
    if (moe_block) sp.expert_params += n * ll.moe_expert;
    sp.linear += n * ((moe_block ? ll.moe_shared_linear + ll.moe_expert : ll.dense_linear) +
                      2.0 * h * h / static_cast<double>(l.tp));
  }
  return sp;
}

const StageParams& StageParamsMemo::get(const ModelShape& m, const Training& t, const Layout& l, int stage,
                                        const ParamCounts& pc) {
  const Shape shape{l.tp, l.pp, l.vpp, l.ep, l.etp, l.first_stage_layers, l.last_stage_layers};
  if (!(shape == shape_)) {
    shape_ = shape;
    count_ = 0;
  }
  for (int i = 0; i < count_; ++i)
    if (stage_[i] == stage) return kept_[i];
  const int i = count_ < 3 ? count_++ : 2;  // (three stages at most are asked per shape)
  stage_[i] = stage;
  kept_[i] = stage_params(m, t, l, stage, pc);
  return kept_[i];
}

}  // namespace gpucalc
