// Renders `gpucalc evaluate` output. Decides nothing: every number comes from the
// core's model functions; this file names them and their sources.
#include "gpucalc/report.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace gpucalc {
namespace {

using nlohmann::ordered_json;

std::string fmt(const char* f, double v) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

double round_bytes(double b) { return std::round(b); }

ordered_json spec_json(const Spec& s) {
  ordered_json j;
  j["value"] = s.value ? ordered_json(*s.value) : ordered_json(nullptr);
  j["source"] = s.source;
  j["confidence"] = s.confidence;
  return j;
}

ordered_json item(const char* name, const char* category, double bytes, std::string formula, const char* source) {
  ordered_json j;
  j["name"] = name;
  j["category"] = category;
  j["bytes"] = round_bytes(bytes);
  j["formula"] = std::move(formula);
  j["source"] = source;
  return j;
}

ordered_json memory_json(const Scenario& s, const Candidate& c, bool with_items) {
  const Problem& p = s.problem;
  const Layout& l = c.layout;
  const StageMemory& m = c.memory;
  const double cap = capacity_bytes(p.gpu);
  ordered_json j;
  j["weights_bytes"] = round_bytes(m.weights + m.weights_gathered + m.fp8_weight_cache);
  j["gradients_bytes"] = round_bytes(m.gradients);
  j["optimizer_bytes"] = round_bytes(m.optimizer);
  j["activations_bytes"] = round_bytes(m.activations());
  j["other_bytes"] = round_bytes(m.other());
  j["total_bytes"] = round_bytes(m.total());
  j["capacity_bytes"] = round_bytes(cap);
  j["fits"] = m.total() <= cap;
  j["within_limit"] = c.fits;
  j["limit_fraction"] = p.memory_limit_fraction;
  j["used_fraction"] = cap > 0 ? m.total() / cap : 0.0;
  j["headroom_bytes"] = round_bytes(cap - m.total());
  j["stage"] = m.stage;
  j["stage_role"] = l.pp == 1 ? "only" : (m.stage == 0 ? "first" : "last");
  j["layers_on_gpu"] = m.layers;
  j["micro_batches_in_flight"] = m.in_flight;
  if (!with_items) return j;
  const std::string shard = std::to_string(l.dp * l.cp);
  ordered_json items = ordered_json::array();
  const StateBytes sb = state_bytes(p.training);
  const auto bytes_of = [](double b) { return fmt("%.0f B", b); };
  items.push_back(item("weights", "weights", m.weights,
                       bytes_of(sb.weights) + " × stage params" +
                           std::string(l.zero_stage >= 3 ? " / (dp·cp = " + shard + ")" : ""),
                       "Rajbhandari et al. 2020 (ZeRO) §3.1, §5"));
  if (m.weights_gathered > 0)
    items.push_back(item("zero3_gathered_weights", "weights", m.weights_gathered,
                         "max(3 × 2 B × one layer's params, 4 B × output layer params)",
                         "PyTorch FSDP prefetch; DeepSpeed estimate_zero3 (4 × largest layer)"));
  if (m.fp8_weight_cache > 0)
    items.push_back(item("fp8_weight_cache", "weights", m.fp8_weight_cache, "1 B × local params",
                         "NVIDIA Transformer Engine FP8 weight caching"));
  items.push_back(item("gradients", "gradients", m.gradients,
                       bytes_of(sb.gradients) + " × stage params" +
                           std::string(l.zero_stage >= 2 ? " / (dp·cp = " + shard + ")" : ""),
                       "ZeRO §3.1/§5; Megatron keeps fp32 gradients with bf16 (docs/memory-model.md §1)"));
  items.push_back(item("optimizer_states", "optimizer", m.optimizer,
                       bytes_of(sb.optimizer) + (sb.optimizer == 12 ? " × stage params (fp32 master, m, v)" : " × stage params (m, v)") +
                           std::string(l.zero_stage >= 1 ? " / (dp·cp = " + shard + ")" : ""),
                       "ZeRO §3.1 (K = 12); torchtitan keeps fp32 parameters as the master copy"));
  const char* rc = to_string(l.recompute);
  items.push_back(item("layer_activations", "activations", m.layer_activations,
                       std::to_string(m.in_flight) + " micro-batch-chunks in flight × " +
                           fmt("%.4g", static_cast<double>(m.layers) / static_cast<double>(l.vpp)) + " layers × " +
                           (l.recompute == Recompute::full ? std::string("2·s·b·h (layer input)")
                                                           : std::string("per-layer saved tensors")) +
                           " (recompute " + rc + ")",
                       "docs/memory-model.md; Korthikanti et al. 2022 Table 2, §4.2.3"));
  if (m.recompute_working > 0)
    items.push_back(item("recompute_working_layer", "activations", m.recompute_working,
                         "one layer's saved tensors, rebuilt during backward", "Korthikanti et al. 2022 §5"));
  if (m.logits > 0)
    items.push_back(item("output_layer_and_loss", "activations", m.logits,
                         p.training.framework == Framework::torchtitan
                             ? "2·s·b·h (norm input) + 2·s·b·h (gathered head input) + 12 B × s·b·V/t (fp32 log-softmax and gradients)"
                             : "2 × 2·s·b·h (norm, head inputs) + (2 + 4) B × s·b·V/t (bf16 logits, fp32 softmax)",
                         "Korthikanti et al. 2022 §4.3; Megatron vocab-parallel cross-entropy"));
  items.push_back(item("cuda_context", "other", m.cuda_context, "per process (assume.cuda_context_gib)",
                       "sizing-model.md §3: 0.3-2 GB measured"));
  if (m.comm_buffers > 0)
    items.push_back(item("nccl_buffers", "other", m.comm_buffers,
                         "communicators × NCCL_BUFFSIZE 4 MiB × 2 × 16 channels", "NCCL environment docs"));
  items.push_back(item("allocator_fragmentation", "other", m.fragmentation,
                       fmt("%.0f%%", p.overheads.fragmentation * 100) + " of activations and gathered weights",
                       "docs/memory-model.md §Runtime"));
  j["items"] = std::move(items);
  return j;
}


ordered_json plan_json(const Scenario& s, const Layout& l) {
  const Problem& p = s.problem;
  const Constraints& c = s.constraints;
  ordered_json plan;
  plan["gpus"] = l.gpus();
  plan["tp"] = l.tp;
  plan["pp"] = l.pp;
  plan["dp"] = l.dp;
  plan["cp"] = l.cp;
  plan["ep"] = l.ep;
  plan["vpp"] = l.vpp;
  plan["micro_batch"] = l.micro_batch;
  plan["micro_batches"] = micro_batches(p.training, l);
  plan["global_batch"] = p.training.global_batch;
  plan["global_batch_tokens"] = p.training.global_batch * p.training.seq_len;
  plan["zero_stage"] = l.zero_stage;
  plan["recompute"] = to_string(l.recompute);
  plan["sequence_parallel"] = p.training.sequence_parallel && l.tp > 1;
  plan["framework"] = to_string(p.training.framework);
  plan["flash_attention"] = p.training.flash_attention;
  ordered_json chosen = ordered_json::array();
  if (!c.gpus) chosen.push_back("gpus");
  if (!c.tp) chosen.push_back("tp");
  if (!c.pp) chosen.push_back("pp");
  if (!c.dp) chosen.push_back("dp");
  if (!c.cp) chosen.push_back("cp");
  if (!c.vpp) chosen.push_back("vpp");
  if (!c.micro_batch) chosen.push_back("micro_batch");
  if (!c.zero_stage) chosen.push_back("zero_stage");
  if (!c.recompute) chosen.push_back("recompute");
  plan["chosen_by_calculator"] = std::move(chosen);
  return plan;
}

ordered_json performance_json(const Scenario& s, const StepTime& st) {
  const Problem& p = s.problem;
  ordered_json perf;
  perf["step_time_s"] = st.step_time_s;
  perf["tokens_per_s_per_gpu"] = st.tokens_per_s_per_gpu;
  perf["mfu"] = st.mfu;
  perf["hfu"] = st.hfu;
  perf["tflops_per_gpu"] = st.tflops_per_gpu;
  perf["bubble_fraction"] = st.bubble_fraction;
  perf["breakdown"] = {{"compute_s", st.compute_s},
                       {"tp_comm_s", st.tp_comm_s},
                       {"cp_comm_s", st.cp_comm_s},
                       {"pp_comm_s", st.pp_comm_s},
                       {"dp_comm_exposed_s", st.dp_comm_exposed_s},
                       {"zero3_comm_exposed_s", st.zero3_comm_exposed_s},
                       {"bubble_s", st.bubble_s},
                       {"optimizer_s", st.optimizer_s},
                       {"dp_comm_total_s", st.dp_comm_total_s}};
  perf["efficiency"] = st.efficiency;
  perf["time_model"] = p.efficiency.mfu ? "assume.mfu" : p.efficiency.hfu ? "assume.hfu" : "predicted";
  perf["perf_profile"] = p.perf.profile_id;
  return perf;
}

ordered_json training_json(const Scenario& s, const RunTime& run) {
  ordered_json tr;
  tr["tokens"] = s.problem.training.tokens;
  tr["steps"] = run.steps;
  tr["days"] = run.days;
  tr["gpu_hours"] = run.gpu_hours;
  return tr;
}

// plan, memory, performance and training of one evaluated layout; `items` adds the
// memory line items with their formulas (the answer's own layout shows them, the
// top-k list keeps to the totals).
ordered_json candidate_json(const Scenario& s, const Candidate& c, bool items = true) {
  ordered_json j;
  j["plan"] = plan_json(s, c.layout);
  j["memory"] = memory_json(s, c, items);
  j["performance"] = performance_json(s, c.time);
  j["training"] = training_json(s, c.run);
  return j;
}

ordered_json model_json(const Scenario& s, Recompute rc) {
  const Problem& p = s.problem;
  const ParamCounts pc = count_params(p.model);
  const FlopsPerToken fl = flops_per_token(p.model, p.training.seq_len, rc);
  ordered_json model;
  model["id"] = p.model.id;
  model["name"] = p.model.name;
  model["params"] = pc.total;
  model["active_params"] = pc.total;  // dense: every parameter is active
  model["params_breakdown"] = {{"per_layer", pc.per_layer},       {"layers", pc.layers_total},
                               {"embedding", pc.embedding},       {"position_embedding", pc.position},
                               {"final_norm", pc.final_norm},     {"output_head", pc.head},
                               {"matmul", pc.matmul}};
  model["flops_per_token"] = {{"model", fl.model}, {"hardware", fl.hardware}};
  return model;
}

ordered_json gpu_json(const Scenario& s) {
  const Problem& p = s.problem;
  ordered_json gpu;
  gpu["id"] = p.gpu.id;
  gpu["name"] = p.gpu.name;
  gpu["peak_tflops"] = peak_flops(p.gpu, p.training.precision) / 1e12;
  gpu["precision"] = to_string(p.training.precision);
  gpu["specs"] = {{"memory_gib", spec_json(p.gpu.memory_gib)},       {"bf16_tflops", spec_json(p.gpu.bf16_tflops)},
                  {"fp8_tflops", spec_json(p.gpu.fp8_tflops)},       {"memory_bw_tbs", spec_json(p.gpu.memory_bw_tbs)},
                  {"scaleup_gbs", spec_json(p.gpu.scaleup_gbs)},     {"scaleup_domain", spec_json(p.gpu.scaleup_domain)},
                  {"scaleout_gbps", spec_json(p.gpu.scaleout_gbps)}, {"tdp_w", spec_json(p.gpu.tdp_w)},
                  {"power_limit_w", spec_json(p.gpu.power_limit_w)}};
  gpu["perf_profile"] = {{"id", p.perf.profile_id},
                         {"matmul", spec_json(p.perf.matmul)},
                         {"fp8_matmul", spec_json(p.perf.fp8_matmul)},
                         {"sustained_clock", spec_json(p.perf.sustained_clock)},
                         {"attention_fwd", spec_json(p.perf.attention_fwd)},
                         {"attention_bwd", spec_json(p.perf.attention_bwd)},
                         {"memory", spec_json(p.perf.memory)},
                         {"scaleup", spec_json(p.perf.scaleup)},
                         {"scaleout", spec_json(p.perf.scaleout)}};
  return gpu;
}

ordered_json search_json(const Scenario& s, const SearchResult& sr) {
  ordered_json se;
  se["layouts_evaluated"] = sr.layouts_evaluated;
  se["layouts_fitting"] = sr.layouts_fitting;
  se["min_gpus_fit"] = sr.min_gpus_fit ? ordered_json(*sr.min_gpus_fit) : ordered_json(nullptr);
  se["target_days"] = s.target_days ? ordered_json(*s.target_days) : ordered_json(nullptr);
  se["target_met"] = s.target_days ? ordered_json(sr.target_met) : ordered_json(nullptr);
  return se;
}

ordered_json warnings_json(const Scenario& s, const SearchResult& sr, const Candidate& best) {
  const Problem& p = s.problem;
  const Constraints& c = s.constraints;
  const Layout& l = best.layout;
  ordered_json w = ordered_json::array();
  const double cap = capacity_bytes(p.gpu);
  const double used = best.memory.total() / cap;
  if (used > 1.0) {
    w.push_back(fmt("does not fit: the worst GPU needs %.1f GiB", best.memory.total() / 1073741824.0) +
                fmt(" of %.0f GiB", cap / 1073741824.0) +
                (c.gpus ? "; no layout of this GPU count fits" : "; no layout the scenario allows fits"));
  } else if (!best.fits) {
    w.push_back(fmt("memory use is %.0f%% of capacity, above the limit of ", used * 100) +
                fmt("%.0f%% (target.max_memory_fraction); no layout the scenario allows stays under it", p.memory_limit_fraction * 100));
  }
  if (used <= 1.0 && used > 0.8) {
    w.push_back(fmt("memory use is %.0f%% of capacity, above the 80%% under which Fujii et al. 2024 saw no OOM in 454 runs: "
                    "expect out-of-memory risk",
                    used * 100));
  }
  if (s.target_days && !sr.target_met)
    w.push_back(fmt("target of %.4g days not reachable", *s.target_days) +
                fmt(": the fastest fitting layout takes %.1f days", best.run.days) +
                " (the global batch caps data parallelism at " + std::to_string(p.training.global_batch) + " sequences)");
  if (!p.efficiency.mfu && !p.efficiency.hfu && p.perf.profile_id == "default")
    w.push_back("no measured performance profile for " + p.gpu.name +
                ": matmul, attention and network efficiencies are assumed (data/perf.json default); "
                "set assume.mfu or assume.hfu from a measurement for a firmer answer");
  for (const auto& [name, spec] : {std::pair<const char*, const Spec*>{"memory_gib", &p.gpu.memory_gib},
                                   {"bf16_tflops", &p.gpu.bf16_tflops},
                                   {"fp8_tflops", &p.gpu.fp8_tflops},
                                   {"memory_bw_tbs", &p.gpu.memory_bw_tbs},
                                   {"scaleup_gbs", &p.gpu.scaleup_gbs},
                                   {"scaleout_gbps", &p.gpu.scaleout_gbps}}) {
    if (std::string(name) == "fp8_tflops" && p.training.precision != Precision::fp8) continue;
    if (spec->confidence == "low") w.push_back(std::string("gpu.") + name + " for " + p.gpu.name + " is a low-confidence figure");
  }
  if (p.training.precision == Precision::fp8)
    w.push_back("fp8: matmuls run at the FP8 peak; activations are still counted at 16 bits (conservative)");
  if (p.model.layers % l.pp != 0)
    w.push_back("pp = " + std::to_string(l.pp) + " does not divide " + std::to_string(p.model.layers) +
                " layers: the fullest stage holds " + std::to_string(layers_per_stage_max(p.model, l)) + " and bounds memory and time");
  const double domain = p.gpu.scaleup_domain.value.value_or(8.0);
  if (static_cast<double>(l.tp) > domain)
    w.push_back("tp = " + std::to_string(l.tp) + " spans beyond the scale-up domain (" + fmt("%.0f", domain) +
                " GPUs): TP all-reduces would cross the slower scale-out network");
  if (p.efficiency.mfu)
    w.push_back("step time comes from assume.mfu, which already includes pipeline bubbles and communication");
  if (!p.gpu.scaleout_gbps.value)
    w.push_back("gpu.scaleout_gbps is unknown for " + p.gpu.name + ": groups beyond one scale-up domain are priced at 100 Gb/s");
  return w;
}

}  // namespace

Expected<ordered_json> evaluate(const Scenario& s) {
  const Problem& p = s.problem;
  const Constraints& c = s.constraints;
  SearchResult sr = search(p, c, s.target_days);
  if (!sr.chosen) return explain_no_layout(p, c);
  const Candidate& best = *sr.chosen;
  ordered_json out;
  out["gpucalc_version"] = GPUCALC_VERSION;
  out["model"] = model_json(s, best.layout.recompute);
  out["gpu"] = gpu_json(s);
  ordered_json cand = candidate_json(s, best);
  for (auto& [k, v] : cand.items()) out[k] = std::move(v);
  out["search"] = search_json(s, sr);
  out["warnings"] = warnings_json(s, sr, best);
  out["defaults_applied"] = s.defaults_applied;
  return out;
}

Expected<ordered_json> search_report(const Scenario& s, int top_k) {
  const Problem& p = s.problem;
  const Constraints& c = s.constraints;
  FullSearch fs = search_full(p, c, s.target_days, top_k);
  if (!fs.result.chosen) return explain_no_layout(p, c);
  const Candidate& best = *fs.result.chosen;
  ordered_json out;
  out["gpucalc_version"] = GPUCALC_VERSION;
  out["model"] = model_json(s, best.layout.recompute);
  out["gpu"] = gpu_json(s);
  out["best"] = candidate_json(s, best);
  ordered_json top = ordered_json::array();
  for (const auto& cand : fs.top) top.push_back(candidate_json(s, cand, false));
  out["top"] = std::move(top);
  ordered_json curve = ordered_json::array();
  for (const auto& pt : fs.curve) {
    const Layout& l = pt.best.layout;
    curve.push_back({{"gpus", l.gpus()},
                     {"days", pt.best.run.days},
                     {"gpu_hours", pt.best.run.gpu_hours},
                     {"step_time_s", pt.best.time.step_time_s},
                     {"mfu", pt.best.time.mfu},
                     {"tokens_per_s_per_gpu", pt.best.time.tokens_per_s_per_gpu},
                     {"memory_used_fraction", pt.best.memory.total() / capacity_bytes(p.gpu)},
                     {"plan", {{"tp", l.tp}, {"pp", l.pp}, {"dp", l.dp}, {"cp", l.cp}, {"vpp", l.vpp},
                               {"micro_batch", l.micro_batch}, {"zero_stage", l.zero_stage},
                               {"recompute", to_string(l.recompute)}}},
                     {"pareto", pt.pareto}});
  }
  out["curve"] = std::move(curve);
  out["search"] = search_json(s, fs.result);
  out["warnings"] = warnings_json(s, fs.result, best);
  out["defaults_applied"] = s.defaults_applied;
  return out;
}

}  // namespace gpucalc
