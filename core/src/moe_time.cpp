// Host-side time of a Megatron-Core MoE layer (docs/performance-model.md "MoE layer host
// overhead"): what the per-op model of layer_time.cpp does not price.
#include "layer_time.hpp"

namespace gpucalc {

// A dropless Megatron-Core MoE layer cannot run ahead of the host: its token dispatcher
// needs each expert's token count on the host to size the all-to-all and the grouped
// GEMM (a device-to-host synchronisation per layer), and its router, permutation and
// per-expert kernels are many small launches; Megatron-Core's MoE guide names this the
// "CPU overhead bottleneck" (megatron/core/transformer/moe/README.md, "Performance Best
// Practices"). The GPU waits for it once per MoE layer per micro-batch, whatever the
// layer's size, so it is a fixed time, fitted on measured Megatron-Bridge runs
// (data/perf.json moe_layer_host_overhead says on which). Other frameworks: no
// measurement, not priced. Under assume.hfu the given efficiency already includes it.
double moe_host_overhead(const LayerCtx& c) {
  if (c.t->framework != Framework::megatron) return 0.0;
  return c.k.data->moe_layer_host_s;
}

}  // namespace gpucalc
