// The parameters one GPU of a pipeline stage holds (before ZeRO sharding), as the memory
// model reads them (memory.cpp). They depend on the layout's shape only (tp, pp, vpp,
// ep, etp and the stage split), not on dp, cp, ZeRO, sharding, recomputation or the
// micro-batch, so a compiled problem keeps those of the last shape asked
// (StageParamsMemo): the search's walk asks the same shape for every ZeRO stage,
// recomputation choice and micro-batch in turn.
#pragma once
#include <array>
#include <cstdint>

#include "gpucalc/memory.hpp"
#include "gpucalc/model.hpp"
#include "gpucalc/plan.hpp"

namespace gpucalc {

struct StageParams {
  double params = 0;           // parameters held by one GPU of this stage (before ZeRO), experts excluded
  double expert_params = 0;    // routed-expert parameters on one GPU (sharded over dp·cp/ep by ZeRO)
  double linear = 0;           // the layers' linear weights among params + expert_params (QLoRA quantises these)
  double layer_local = 0;      // the largest layer's local parameters (ZeRO-3 gathers one at a time)
  double head_local = 0;       // the output projection's local parameters (last stage)
  double embedding_local = 0;  // the token embedding's local parameters (first stage)
  double adapters = 0;         // LoRA: trainable adapter parameters on one GPU
  StageLayers layers;
};

StageParams stage_params(const ModelShape& m, const Training& t, const Layout& l, int stage, const ParamCounts& pc);

// The stage parameters of the last layout shape asked, for up to three stages (the memory
// model reads stage 0, stage 1 and the last). One problem's model and training only.
class StageParamsMemo {
 public:
  const StageParams& get(const ModelShape& m, const Training& t, const Layout& l, int stage, const ParamCounts& pc);

 private:
  struct Shape {
    int64_t tp = 0, pp = 0, vpp = 0, ep = 0, etp = 0, first = 0, last = 0;
    bool operator==(const Shape&) const = default;
  };
  Shape shape_;
  std::array<int, 3> stage_{};
  std::array<StageParams, 3> kept_{};
  int count_ = 0;
};

}  // namespace gpucalc
