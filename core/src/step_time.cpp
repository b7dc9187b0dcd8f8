// Step time composed from named pieces (docs/performance-model.md): the slowest pipeline
// stage's layers (layer_time.cpp), pipeline sends and bubble, data-parallel gradient and
// parameter collectives (ZeRO / FSDP, hybrid sharding), offload and the optimizer step.
#include <algorithm>
#include <cmath>

#include "compiled_problem.hpp"
#include "gpucalc/compute.hpp"
#include "gpucalc/memory.hpp"
#include "layer_time.hpp"
#include "muon_time.hpp"

namespace gpucalc {
namespace {

struct StageSum {
  double compute = 0, tp = 0, cp = 0, ep = 0, overhead = 0, fwd = 0, bwd = 0;
  StageLayers layers;
  double total() const { return compute + tp + cp + ep + overhead; }
};

using Layers = LayerTimes;

StageSum stage_sum(const ModelShape& m, const Layout& l, const Layers& x, int stage) {
  StageSum r;
  r.layers = stage_layers(m, l, stage);
  const double nd = static_cast<double>(r.layers.dense), nm = static_cast<double>(r.layers.moe());
  r.compute = nd * x.dense.compute() + nm * x.moe.compute() + (stage == l.pp - 1 ? x.head : 0.0);
  r.tp = nd * x.dense.tp + nm * x.moe.tp;
  r.cp = nd * x.dense.cp + nm * x.moe.cp;
  r.ep = nm * x.moe.ep;
  r.overhead = nm * x.moe.overhead;
  r.fwd = nd * x.dense.fwd + nm * x.moe.fwd;
  r.bwd = nd * (x.dense.bwd + x.dense.recompute) + nm * (x.moe.bwd + x.moe.recompute);
  if (r.layers.mtp > 0) {
    // MTP modules on the last stage (model.hpp): a block of the last layer's kind, the
    // projection and the shared head with its loss once more, each.
    const double n = static_cast<double>(r.layers.mtp);
    const LayerTime& b = mtp_block_is_moe(m) ? x.moe : x.dense;
    r.compute += n * (b.compute() + x.mtp_proj + x.head);
    r.tp += n * b.tp;
    r.cp += n * b.cp;
    r.ep += n * b.ep;
    r.overhead += n * b.overhead;
    r.fwd += n * b.fwd;
    r.bwd += n * (b.bwd + b.recompute);
  }
  return r;
}

// The slowest stage sets the pipeline's pace: the last (it adds the output layer) unless
// the first holds more (MoE dense layers apart) or an uneven split lightened the ends,
// when a middle stage can be the slowest.
StageSum critical_stage(const ModelShape& m, const Layout& l, const Layers& x) {
  StageSum crit = stage_sum(m, l, x, static_cast<int>(l.pp - 1));
  const auto slower = [&](int stage) {
    const StageSum s = stage_sum(m, l, x, stage);
    if (s.total() > crit.total()) crit = s;
  };
  if (l.pp > 1 && (is_moe(m) || uneven_split(l))) slower(0);
  if (l.pp > 2 && uneven_split(l)) slower(1);
  return crit;
}

// PP: each micro-batch crosses each of its v chunk boundaries once forward (activation)
// and once backward (gradient), on the critical path of 1F1B.
double pp_comm(const LayerCtx& c) {
  const Layout& l = *c.l;
  if (l.pp <= 1) return 0.0;
  const GroupShape gs = shape_of(c.fabric, Group{l.pp, l.tp * l.cp * l.dp});
  return static_cast<double>(l.vpp) * 2 * p2p_s(c.fabric, gs.domains > 1, 2.0 * c.M * c.h / c.ts);
}

// Parameters on one GPU of the critical stage, split into those reduced over the whole
// data-parallel group and the routed experts (reduced over the expert-data-parallel group).
struct StageParams {
  double dense = 0, expert = 0;              // held (frozen ones included)
  double train_dense = 0, train_expert = 0;  // trained
  double dense_layers = 0, moe_layers = 0;   // the stage's layers, MTP modules among them
};

StageParams stage_params(const ModelShape& m, const Training& t, const Layout& l, const StageLayers& s,
                         const ParamCounts& pc) {
  const double tp = static_cast<double>(l.tp);
  const double nd = static_cast<double>(s.dense), nm = static_cast<double>(s.moe());
  StageParams p;
  p.dense = nd * (static_cast<double>(pc.attention + pc.mlp) / tp + static_cast<double>(pc.layer_norms)) +
            nm * (static_cast<double>(pc.attention + pc.shared_mlp) / tp + static_cast<double>(pc.router) +
                  static_cast<double>(pc.layer_norms)) +
            static_cast<double>(pc.embedding) / tp;
  p.expert = nm * static_cast<double>(pc.routed_experts) / static_cast<double>(l.etp * l.ep);
  if (s.mtp > 0) {  // MTP modules: block, projection, norms; their experts
    const double n = static_cast<double>(s.mtp);
    const bool moe = mtp_block_is_moe(m);
    p.dense += n * (static_cast<double>(pc.mtp_module - (moe ? pc.routed_experts : 0)) / tp);
    if (moe) p.expert += n * static_cast<double>(pc.routed_experts) / static_cast<double>(l.etp * l.ep);
  }
  p.dense_layers = nd;
  p.moe_layers = nm;
  if (s.mtp > 0) (mtp_block_is_moe(m) ? p.moe_layers : p.dense_layers) += static_cast<double>(s.mtp);
  const bool frozen = is_adapter_stage(t);
  p.train_dense =
      frozen ? (nd * lora_params_per_layer(m, t.lora, false) + nm * lora_params_per_layer(m, t.lora, true)) / tp
             : p.dense;
  p.train_expert = frozen ? 0.0 : p.expert;
  return p;
}

// The communicators of data parallelism. ZeRO/FSDP shards over `shard` ranks (DP × CP,
// or a hybrid-sharding group of them) and replicates across the rest; experts over the
// expert-data-parallel group.
struct DpGroups {
  Group shard, replicas, expert;
};
DpGroups dp_groups(const Layout& l) {
  const int64_t shard = zero_shard(l) * l.cp;
  return {Group{shard, l.tp}, Group{l.dp / zero_shard(l), l.tp * shard}, Group{expert_shard(l), l.etp * l.ep}};
}

// What a collective of `comm` seconds, overlapped with `compute` seconds of work, adds to
// the step. Compute slows by s (data/perf.json overlap_slowdown, Lee et al. 2025) while the
// collective runs: if the slowed compute still ends first, the collective's excess shows
// (comm - compute); otherwise compute finishes comm/(1+s) of its work under it and the
// rest after, comm·s/(1+s) later than alone.
double overlapped_exposed(double comm, double compute, double slowdown) {
  return std::max(comm - compute, comm * slowdown / (1 + slowdown));
}

// ZeRO-0: all-reduce; ZeRO-1/2: reduce-scatter of gradients + all-gather of the updated
// parameters, the same volume (Rajbhandari et al. 2020 §7). Overlapped with the last
// micro-batch's backward and the next step's first forward.
void dp_sync(const Fabric& f, const Layout& l, const Training& t, const StageParams& p, const StageSum& crit,
             double slowdown, StepTime& st) {
  const DpGroups g = dp_groups(l);
  const StateBytes sb = state_bytes(t);
  double rs = 0, ag = 0;
  if (l.zero_stage == 0) {
    rs = all_reduce_s(f, g.shard, sb.gradients * p.train_dense) +
         all_reduce_s(f, g.expert, sb.gradients * p.train_expert);
  } else {
    rs = reduce_scatter_s(f, g.shard, sb.gradients * p.train_dense) +
         reduce_scatter_s(f, g.expert, sb.gradients * p.train_expert);
    // NVFP4 under Megatron gathers the updated weights in FP4 (--fp4-param-gather, set by
    // Megatron-Bridge's bf16_with_nvfp4_mixed recipe): 0.5 B and a scale per 16.
    const double wb = t.precision == Precision::fp4 && t.framework == Framework::megatron ? kNvfp4Bytes : 2.0;
    ag = all_gather_s(f, g.shard, wb * p.train_dense) + all_gather_s(f, g.expert, wb * p.train_expert);
  }
  // Hybrid sharding: the shards' gradients are then all-reduced across the replicas.
  rs += all_reduce_s(f, g.replicas, sb.gradients * p.train_dense / static_cast<double>(g.shard.size));
  st.dp_comm_total_s = rs + ag;
  st.dp_comm_exposed_s = (t.overlap_grad_reduce ? overlapped_exposed(rs, crit.bwd, slowdown) : rs) +
                         (t.overlap_param_gather ? overlapped_exposed(ag, crit.fwd, slowdown) : ag);
}

// ZeRO-3 / FSDP: per micro-batch the parameters are all-gathered forward and again
// backward, and the gradients reduce-scattered, layer by layer, each prefetched under the
// compute of the layer before it (FSDP's forward/backward prefetch, Zhao et al. 2023
// §3.3): per layer only what exceeds that layer's compute shows, and the first layer's
// gather waits with nothing to hide under. Frozen weights are gathered but never reduced.
// Each layer is its own collective (an FSDP unit, a ZeRO-3 module), so each pays the
// ring's latency: n - 1 steps over the group (NCCL's cost model, network.cpp), which
// grows with the data-parallel size while the bytes per GPU do not.
void zero3_sync(const Fabric& f, const Layout& l, const Training& t, const StageParams& p, const StageSum& crit,
                double m_count, double slowdown, StepTime& st) {
  const DpGroups g = dp_groups(l);
  const StateBytes sb = state_bytes(t);
  const double wbytes = t.stage == Stage::qlora ? nf4_bytes_per_param(t.lora.double_quant) : 2.0;
  const double n = std::max<double>(1.0, static_cast<double>(crit.layers.total));
  const double n_moe = std::max<double>(1.0, p.moe_layers);
  // `count` collectives of bytes/count each on group `grp`.
  const auto layered = [&f](double (*collective)(const Fabric&, Group, double), Group grp, double bytes, double count) {
    return count * collective(f, grp, bytes / count);
  };
  const double ag =
      layered(all_gather_s, g.shard, wbytes * p.dense, n) + layered(all_gather_s, g.expert, wbytes * p.expert, n_moe);
  const double rs = layered(reduce_scatter_s, g.shard, sb.gradients * p.train_dense, n) +
                    layered(reduce_scatter_s, g.expert, sb.gradients * p.train_expert, n_moe);
  const double replicas =
      layered(all_reduce_s, g.replicas, sb.gradients * p.train_dense / static_cast<double>(g.shard.size), n);
  st.dp_comm_total_s = m_count * (2 * ag + rs) + replicas;
  st.zero3_comm_exposed_s = m_count * (overlapped_exposed(ag, crit.fwd, slowdown) +
                                       overlapped_exposed(ag + rs, crit.bwd, slowdown) + 2 * ag / n) +
                            overlapped_exposed(replicas, crit.bwd, slowdown);
}

// Muon's Newton-Schulz work on the stage's matrices (muon_time.hpp), whole on every TP
// rank; a sharded optimizer (ZeRO >= 1: Megatron-LM's layer-wise distributed optimizer,
// --optimizer muon --use-distributed-optimizer) gives each data-parallel rank its share of
// the matrices, the experts' over the expert-data-parallel group. Under LoRA the adapters'
// r × n matrices, priced as r × h.
double muon_time(const LayerCtx& c, const StageParams& p, const DpGroups& g) {
  const Training& t = *c.t;
  if (t.optimizer != Optimizer::muon) return 0.0;
  const bool sharded = c.l->zero_stage >= 1;
  if (is_adapter_stage(t)) {
    const double r = static_cast<double>(t.lora.rank), h = static_cast<double>(c.m->hidden);
    const double matrices = p.train_dense * c.tp / (r * h);  // whole adapters, before TP
    return matrices * ns_matrix_time(c.k, r, h) / (sharded ? static_cast<double>(g.shard.size) : 1.0);
  }
  const MuonLayerTime dense = muon_layer_time(*c.m, c.k, false), moe = muon_layer_time(*c.m, c.k, true);
  const double local_experts =
      static_cast<double>(c.m->moe.experts) / static_cast<double>(std::max<int64_t>(c.l->ep, 1));
  const double shared = p.dense_layers * dense.dense + p.moe_layers * moe.dense;
  const double experts = p.moe_layers * local_experts * moe.expert;
  return shared / (sharded ? static_cast<double>(g.shard.size) : 1.0) +
         experts / (sharded ? static_cast<double>(g.expert.size) : 1.0);
}

// The optimizer step, HBM-bound: read and write its state (fp32 master, moments), read
// the gradient, write the 16-bit weight (AdamW mixed precision: 4·6 + grad + 2 bytes per
// parameter it updates; torchtitan's fp32 parameter is read and written). Under
// ZeRO-Offload (Ren et al. 2021 §4) the gradients go to the host over PCIe, the CPU
// optimizer updates the fp32 states in host DRAM and the 16-bit weights come back, not
// overlapped with the next step (no delayed parameter update).
double optimizer_time(const LayerCtx& c, const StageParams& p) {
  const Layout& l = *c.l;
  const Training& t = *c.t;
  const DpGroups g = dp_groups(l);
  const StateBytes sb = state_bytes(t, c.m);
  const double opt_params = l.zero_stage >= 1 ? p.train_dense / static_cast<double>(g.shard.size) +
                                                    p.train_expert / static_cast<double>(g.expert.size)
                                              : p.train_dense + p.train_expert;
  if (t.offload.optimizer) {
    const double host_bytes = (2.0 * sb.optimizer + 4.0 + 2.0) * opt_params;
    const double transfer = (sb.gradients + 2.0) * opt_params / host_link_bytes_per_s(*c.g, t);
    return host_bytes / host_memory_bytes_per_s(t) + transfer;
  }
  const bool titan = t.framework == Framework::torchtitan;
  const double bytes = (2.0 * sb.optimizer + sb.gradients + (titan ? 2.0 * sb.weights : sb.weights)) * opt_params;
  return c.k.mem(bytes, bytes) + muon_time(c, p, g);
}

// What a step time is composed from that does not depend on the layout, derived once
// per problem (compiled_problem.hpp) or per call (step_time() below).
struct StepFacts {
  const ParamCounts& params;
  const Kernels& kernels;
  const Fabric& fabric;
};

// The layer times of `c`'s layout, priced afresh.
LayerTimes price_layers(const LayerCtx& c) {
  LayerTimes x;
  x.dense = layer_time(c, false);
  if (is_moe(*c.m)) x.moe = layer_time(c, true);
  x.head = head_time(c);
  if (c.m->mtp_layers > 0) x.mtp_proj = c.k.linear16(c.M, c.h / c.tp, 2.0 * c.h, c.frozen);
  return x;
}

// The step time, or false (st unfinished) as soon as its pipeline part, a lower bound of
// it (below), makes `hopeless` true: the search then skips the data-parallel collectives,
// the optimizer and the run of a layout that cannot beat its GPU count's best.
template <class LayersOf, class Hopeless>
bool compose_step(const ModelShape& m, const Training& t, const Layout& l, const Gpu& g, const Efficiency& e,
                  const StepFacts& facts, const FlopsPerToken& f, LayersOf layers_of, Hopeless hopeless, StepTime& st) {
  st.peak_flops = peak_flops(g, t.precision);
  const double tokens_step = static_cast<double>(global_batch(t, l)) * static_cast<double>(t.seq_len);
  const double n = static_cast<double>(l.gpus());
  const auto finish = [&]() {
    st.bubble_fraction = st.step_time_s > 0 ? st.bubble_s / st.step_time_s : 0.0;
    st.tokens_per_s_per_gpu = tokens_step / (st.step_time_s * n);
    st.mfu = tokens_step * f.model / (st.step_time_s * n * st.peak_flops);
    st.hfu = tokens_step * f.hardware / (st.step_time_s * n * st.peak_flops);
    st.tflops_per_gpu = tokens_step * f.model / (st.step_time_s * n) / 1e12;
    st.efficiency = st.hfu;
    return true;
  };
  if (e.mfu) {
    // assume.mfu is an end-to-end figure: it already includes bubbles and stalls.
    st.step_time_s = tokens_step * f.model / (n * st.peak_flops * *e.mfu);
    st.compute_s = st.step_time_s;
    return finish();
  }
  const LayerCtx c = layer_ctx(m, t, l, g, facts.kernels, facts.fabric, e);
  const Layers& x = layers_of(c);
  const StageSum crit = critical_stage(m, l, x);
  const double t_pp = pp_comm(c);
  const double m_count = static_cast<double>(micro_batches(t, l));
  // 1F1B bubble: (p-1) slots, (p-1)/v interleaved (Narayanan et al. 2021 §2.2). A slot
  // lasts one model chunk; when a stage's layers do not split evenly over its v chunks
  // (an uneven split), the largest chunk, ceil(n/v) of its n layers, sets the slot.
  const double n_crit = static_cast<double>(crit.layers.total);
  const double chunk_share =
      n_crit > 0 ? std::ceil(n_crit / static_cast<double>(l.vpp)) / n_crit : 1.0 / static_cast<double>(l.vpp);
  const double bubble_slots = static_cast<double>(l.pp - 1) * chunk_share;
  // The lower bound: the step's sum below with the offload, the exposed data-parallel
  // collectives and the optimizer taken as 0 (the bubble then over t_mb without the
  // offload). Every term is ≥ 0 and each one here is ≤ its counterpart in the step (the
  // same operations on operands no larger), and IEEE addition and multiplication round
  // monotonically, so the bound never exceeds step_time_s as computed below.
  if (hopeless(m_count * crit.compute + m_count * crit.tp + m_count * crit.cp + m_count * crit.ep +
               m_count * crit.overhead + m_count * t_pp + 0.0 + bubble_slots * (crit.total() + t_pp + 0.0)))
    return false;
  const StageParams p = stage_params(m, t, l, crit.layers, facts.params);
  double t_offload = 0;
  const double slowdown = facts.kernels.data->overlap_slowdown;
  if (l.zero_stage <= 2) {
    dp_sync(c.fabric, l, t, p, crit, slowdown, st);
  } else {
    zero3_sync(c.fabric, l, t, p, crit, m_count, slowdown, st);
    if (t.offload.params) {
      // ZeRO-Infinity: offloaded parameters are fetched over PCIe for every micro-batch's
      // forward and backward, prefetched under the compute.
      const DpGroups dg = dp_groups(l);
      const double wbytes = t.stage == Stage::qlora ? nf4_bytes_per_param(t.lora.double_quant) : 2.0;
      const double fetch =
          2.0 * wbytes *
          (p.dense / static_cast<double>(dg.shard.size) + p.expert / static_cast<double>(dg.expert.size)) /
          host_link_bytes_per_s(g, t);
      t_offload = std::max(0.0, fetch - (crit.fwd + crit.bwd));
    }
  }
  if (t.offload.activation_layers > 0)
    t_offload += activation_offload_time(m, t, l, g, crit.layers.dense, crit.layers.moe(), crit.fwd, crit.bwd);
  const double t_mb = crit.total() + t_pp + t_offload;
  st.compute_s = m_count * crit.compute;
  st.tp_comm_s = m_count * crit.tp;
  st.cp_comm_s = m_count * crit.cp;
  st.ep_comm_s = m_count * crit.ep;
  st.moe_overhead_s = m_count * crit.overhead;
  st.pp_comm_s = m_count * t_pp;
  st.offload_s = m_count * t_offload;
  st.bubble_s = bubble_slots * t_mb;
  st.optimizer_s = optimizer_time(c, p);
  st.step_time_s = st.compute_s + st.tp_comm_s + st.cp_comm_s + st.ep_comm_s + st.moe_overhead_s + st.pp_comm_s +
                   st.offload_s + st.bubble_s + st.dp_comm_exposed_s + st.zero3_comm_exposed_s + st.optimizer_s;
  return finish();
}

}  // namespace

StepTime step_time(const ModelShape& m, const Training& t, const Layout& l, const Gpu& g, const PerfProfile& perf,
                   const Efficiency& e) {
  const ParamCounts pc = count_params(m);
  const Kernels k = kernels_for(g, perf, t, e);
  const Fabric fabric = fabric_for(g, perf, e.network_scale);
  const FlopsPerToken f = flops_per_token(m, t.seq_len, l.recompute, &t, l.recompute_modules);
  LayerTimes x;
  StepTime st;
  compose_step(
      m, t, l, g, e, StepFacts{pc, k, fabric}, f,
      [&](const LayerCtx& c) -> const LayerTimes& {
        x = price_layers(c);
        return x;
      },
      [](double) { return false; }, st);
  return st;
}

StepTime step_time(const CompiledProblem& cp, const Layout& l) {
  StepTime st;
  step_time_unless(
      cp, l, [](double) { return false; }, st);
  return st;
}

bool step_time_unless(const CompiledProblem& cp, const Layout& l, const std::function<bool(double)>& hopeless,
                      StepTime& st) {
  const Problem& p = *cp.problem;
  const Training& t = p.training;
  const auto key = std::make_pair(static_cast<int>(l.recompute), l.recompute_modules);
  auto fit = std::find_if(cp.flops.begin(), cp.flops.end(), [&](const auto& e) { return e.first == key; });
  if (fit == cp.flops.end()) {
    cp.flops.emplace_back(key, flops_per_token(p.model, t.seq_len, l.recompute, &t, l.recompute_modules));
    fit = cp.flops.end() - 1;
  }
  return compose_step(
      p.model, t, l, p.gpu, p.efficiency, StepFacts{cp.params, cp.kernels, cp.fabric}, fit->second,
      [&](const LayerCtx& c) -> const LayerTimes& {
        const LayerKey k{l.tp,
                         l.cp,
                         l.ep,
                         l.etp,
                         l.micro_batch,
                         c.fp8_cast_bytes > 0 ? micro_batches(t, l) : 0,
                         static_cast<int>(l.recompute),
                         l.recompute_modules};
        auto it = cp.layer_times.find(k);
        if (it != cp.layer_times.end()) return it->second;
        if (cp.layer_times.size() >= CompiledProblem::kMaxKept) cp.layer_times.clear();
        return cp.layer_times.emplace(k, price_layers(c)).first->second;
      },
      hopeless, st);
}

}  // namespace gpucalc
