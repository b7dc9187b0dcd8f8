// Compile once, evaluate many (Calculon's compile/run split, Isaev et al. 2023, SC'23): what
// every layout of one problem shares is derived once per search: the parameter counts,
// the priced kernels and the fabric, the memory limit, the FLOPs per token of each
// recomputation choice. Per-layer times depend on only a few layout fields (tp,
// cp, ep, etp, the micro-batch, recomputation), not on pp, dp, ZeRO or sharding, so they
// are kept by those fields and reused by every layout that shares them: the search's
// inner loop combines precomputed pieces.
#pragma once
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpucalc/search.hpp"
#include "kernels.hpp"
#include "layer_time.hpp"
#include "stage_params.hpp"

namespace gpucalc {

// The layout fields a layer's time reads (layer_time.cpp): the micro-batch count only
// under FP8 (weight casts once a step), else 0.
struct LayerKey {
  int64_t tp = 0, cp = 0, ep = 0, etp = 0, micro_batch = 0, micro_batches = 0;
  int recompute = 0;
  unsigned modules = 0;
  bool operator==(const LayerKey&) const = default;
};
struct LayerKeyHash {
  size_t operator()(const LayerKey& k) const {
    uint64_t h = 1469598103934665603ull;  // FNV-1a, 64-bit also where size_t is 32 (wasm)
    for (int64_t v : {k.tp, k.cp, k.ep, k.etp, k.micro_batch, k.micro_batches, static_cast<int64_t>(k.recompute),
                      static_cast<int64_t>(k.modules)})
      h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull;
    return static_cast<size_t>(h ^ (h >> 32));
  }
};

// One dense and one MoE layer's time for one micro-batch, and the output layer's.
struct LayerTimes {
  LayerTime dense, moe;
  double head = 0;
  double mtp_proj = 0;  // an MTP module's 2h → h projection, forward and backward
};

struct CompiledProblem {
  const Problem* problem = nullptr;
  ParamCounts params;
  double memory_limit = 0;  // memory_limit_fraction × capacity
  Kernels kernels;          // kernels_for(gpu, perf, training, efficiency)
  Fabric fabric;            // fabric_for(gpu, perf)
  StateBytes state_bytes;   // state_bytes(training, model): model-state bytes per parameter
  // Filled as layouts are evaluated (bounded: cleared past kMaxKept entries).
  mutable std::unordered_map<LayerKey, LayerTimes, LayerKeyHash> layer_times;
  mutable std::vector<std::pair<std::pair<int, unsigned>, FlopsPerToken>> flops;  // by (recompute, modules)
  mutable StageParamsMemo stage_params;  // the memory model's stage parameters of the last layout shape
  static constexpr size_t kMaxKept = 1 << 16;
};

CompiledProblem compile_problem(const Problem& p);

// The evaluations on a compiled problem; the same numbers as worst_stage_memory() and
// step_time() on its parts.
StageMemory worst_stage_memory(const CompiledProblem& cp, const Layout& l);
StepTime step_time(const CompiledProblem& cp, const Layout& l);
Candidate evaluate_memory(const CompiledProblem& cp, const Layout& l);
void time_layout(const CompiledProblem& cp, Candidate& c);

// step_time() and time_layout() that give up early: once the step's pipeline part (the
// compute, TP, CP and EP communication, MoE overhead, pipeline sends and bubble of the
// critical stage; never more than step_time_s, step_time.cpp) is known, hopeless(that
// bound) true returns false with `st` unfinished (c.time and c.run unset). The search
// uses it to skip what cannot beat its GPU count's best (search.cpp search_pass).
bool step_time_unless(const CompiledProblem& cp, const Layout& l, const std::function<bool(double)>& hopeless,
                      StepTime& st);
bool time_layout_unless(const CompiledProblem& cp, Candidate& c, const std::function<bool(double)>& hopeless);

}  // namespace gpucalc
