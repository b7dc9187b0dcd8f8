// Renders `gpucalc evaluate` output. Decides nothing: every number comes from the
// core's model functions; this file names them and their sources.
#include "gpucalc/report.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "gpucalc/quick_estimate.hpp"

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
  se["objective"] = to_string(s.objective);
  se["max_cost"] = s.max_cost ? ordered_json(*s.max_cost) : ordered_json(nullptr);
  se["max_cost_met"] = s.max_cost ? ordered_json(sr.budget_met) : ordered_json(nullptr);
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
                fmt(": the chosen layout takes %.1f days", outcome(p, best).goodput.wall_days) +
                fmt(" with failures and checkpoints (%.1f without)", best.run.days) +
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

// A finite number, or null (JSON has no infinity).
ordered_json num_or_null(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

std::string thousands(double v) {
  std::string s = fmt("%.0f", v);
  const size_t start = s[0] == '-' ? 1 : 0;
  for (size_t i = s.size(); i > start + 3; i -= 3) s.insert(i - 3, ",");
  return s;
}

ordered_json goodput_json(const Scenario& s, const Goodput& g) {
  const GoodputInputs& in = s.problem.goodput;
  ordered_json j;
  j["enabled"] = g.enabled;
  j["fraction"] = g.fraction;
  j["days"] = num_or_null(g.wall_days);
  j["gpu_hours"] = num_or_null(g.gpu_hours);
  j["failures_expected"] = num_or_null(g.failures_expected);
  if (!g.enabled) {
    j["formula"] = "goodput.enabled = false: failures, checkpoints and restarts are not counted";
    return j;
  }
  j["job_mtbf_hours"] = g.job_mtbf_hours;
  j["mtbf_hours_per_gpu"] = in.interruptions_per_day ? ordered_json(nullptr) : ordered_json(in.mtbf_hours);
  j["interruptions_per_day"] = 24.0 / g.job_mtbf_hours;
  j["checkpoint_interval_minutes"] = g.interval_minutes;
  j["checkpoint_interval_rule"] = g.interval_is_young_optimum ? "Young's optimum sqrt(2 · write time · job MTBF)" : "scenario";
  j["checkpoint_write_seconds"] = g.write_minutes * 60;
  j["restart_minutes"] = g.restart_minutes;
  j["lost_per_failure_minutes"] = g.lost_per_failure_minutes;
  j["checkpoint_overhead"] = g.checkpoint_overhead;
  j["failure_loss"] = g.failure_loss;
  j["formula"] = "fraction = (1 − (τ/2 + R)/M) / (1 + δ/τ): each failure loses half a checkpoint interval τ plus the restart R, "
                 "one failure per job MTBF M = mtbf_hours / GPUs; each checkpoint stalls training for δ";
  j["source"] = "Young 1974 (CACM 17(9)); Daly 2006 (FGCS 22(3)) §2, first order; default MTBF from Llama 3 §3.3.4 "
                "(466 interruptions in 54 days on 16,384 GPUs); docs/cost.md";
  return j;
}

ordered_json price_source_json(const Scenario& s) {
  const CostModel& cm = s.problem.cost;
  ordered_json j;
  if (cm.mode == CostMode::owned) {
    j["kind"] = "scenario";
    j["purchase_price_per_gpu"] = cm.owned ? ordered_json(cm.owned->purchase_price_per_gpu) : ordered_json(nullptr);
    j["amortization_years"] = cm.owned ? ordered_json(cm.owned->amortization_years) : ordered_json(nullptr);
    j["electricity_price_per_kwh"] = cm.owned ? ordered_json(cm.owned->electricity_price_per_kwh) : ordered_json(nullptr);
    return j;
  }
  if (!cm.rental) return ordered_json(nullptr);
  const RentalPrice& rp = *cm.rental;
  if (rp.from_scenario) {
    j["kind"] = "scenario";
    j["value"] = rp.value;
    j["currency"] = to_string(rp.currency);
    return j;
  }
  const Price& p = rp.catalog;
  j["kind"] = "catalog";
  j["rule"] = std::string(rp.on_demand ? "the most recent on-demand " : "no on-demand price: the most recent other rental ") +
              to_string(rp.currency) + " price per GPU-hour of " + s.problem.gpu.id + " in data/gpus.json" +
              (rp.range_midpoint ? ", a range taken at its midpoint" : "") + " (docs/cost.md)";
  j["value"] = rp.value;
  if (rp.range_midpoint) j["range"] = {*p.value, *p.value_max};
  j["currency"] = p.currency;
  j["unit"] = p.unit;
  j["type"] = p.type;
  if (!p.region.empty()) j["region"] = p.region;
  j["date"] = p.date;
  j["source"] = p.source;
  j["citation"] = gpu_source_citation(p.source);
  j["confidence"] = p.confidence;
  if (!p.note.empty()) j["note"] = p.note;
  return j;
}

ordered_json cost_json(const Scenario& s, const Outcome& o) {
  if (!o.cost) return ordered_json(nullptr);
  const RunCost& c = *o.cost;
  ordered_json j;
  j["currency"] = to_string(c.currency);
  j["total"] = c.total;
  j["per_gpu_hour"] = c.per_gpu_hour;
  j["gpu_hours"] = c.gpu_hours;
  j["mode"] = c.mode == CostMode::owned ? "owned" : "rented";
  if (c.mode == CostMode::owned) {
    j["parts"] = {{"purchase_amortized", c.purchase_amortized}, {"electricity", c.electricity}};
    j["formula"] = "GPUs × purchase price × hours / (amortization_years × 8766 h) + energy MWh × 1000 × electricity price per kWh";
  } else {
    j["parts"] = {{"gpu_rental", c.rental}};
    j["formula"] = "price per GPU-hour × GPUs × wall-clock hours (goodput.gpu_hours)";
  }
  j["price_source"] = price_source_json(s);
  return j;
}

ordered_json energy_json(const Scenario& s, const Energy& e) {
  if (!e.known) return ordered_json(nullptr);
  const EnergyInputs& in = s.problem.cost.energy;
  const Gpu& g = s.problem.gpu;
  ordered_json j;
  j["mwh"] = e.mwh;
  j["co2_tonnes"] = e.co2_tonnes;
  j["facility_kw"] = e.facility_kw;
  j["hours"] = e.hours;
  j["power_w_per_gpu"] = e.watts_per_gpu;
  j["power_from"] = e.from_power_limit ? "gpu.power_limit_w" : "gpu.tdp_w";
  j["power_confidence"] = e.from_power_limit ? g.power_limit_w.confidence : g.tdp_w.confidence;
  j["host_overhead"] = in.host_overhead;
  j["pue"] = in.pue;
  j["grid_kg_co2_per_kwh"] = in.grid_kg_co2_per_kwh;
  j["formula"] = "GPUs × W × (1 + host_overhead) × PUE × wall-clock hours; CO2 = MWh × grid kg CO2 per kWh";
  j["sources"] = {
      {"host_overhead", in.host_overhead_default ? "default: an 8×H100 node under training draws 76% of its 10.2 kW rating "
                                                   "(arXiv:2506.14551, 2025) against 5.6 kW of GPU TDP"
                                                 : "scenario"},
      {"pue", in.pue_default ? "default: industry average, Uptime Institute Global Data Center Survey 2024" : "scenario"},
      {"grid_kg_co2_per_kwh", in.grid_default ? "default: world average 2023, 480 g/kWh (Ember, Global Electricity Review 2024)"
                                              : "scenario"}};
  return j;
}

ordered_json quick_estimate_json(const Scenario& s, const Candidate& best, const Outcome& o) {
  const Problem& p = s.problem;
  const double params = static_cast<double>(count_params(p.model).total);
  const QuickEstimate q = quick_estimate(params, p.gpu.memory_gib.value.value_or(0), s.cluster_efficiency);
  const int64_t n = best.layout.gpus();
  std::string why;
  if (s.constraints.gpus) {
    why = "the full answer uses the " + thousands(static_cast<double>(n)) + " GPUs the scenario fixes.";
  } else if (n > q.gpus && s.target_days) {
    why = "the full answer, " + thousands(static_cast<double>(n)) + " GPUs, is set by compute: " +
          (p.training.tokens >= 1e12 ? fmt("%.4gT", p.training.tokens / 1e12) : fmt("%.4gB", p.training.tokens / 1e9)) +
          " tokens at " + fmt("%.0f%% MFU", best.time.mfu * 100) + " must finish within " +
          fmt("%.4g", *s.target_days) + " days (" + fmt("%.1f", o.goodput.wall_days) + " with failures).";
  } else if (n > q.gpus) {
    why = "the full answer, " + thousands(static_cast<double>(n)) +
          " GPUs, is the smallest layout that fits: activations, communication buffers, the " +
          fmt("%.0f%%", p.memory_limit_fraction * 100) +
          " memory limit and the layout's divisibility rules all add to the 16 B of states per parameter.";
  } else if (n < q.gpus) {
    why = "the full answer, " + thousands(static_cast<double>(n)) +
          " GPUs, needs fewer: it counts this framework's state bytes and this layout's sharding exactly instead of a flat 20 B per "
          "parameter at " + fmt("%.0f%%", q.efficiency * 100) + ".";
  } else {
    why = "the full answer happens to agree: " + thousands(static_cast<double>(n)) + " GPUs.";
  }
  ordered_json j;
  j["gpus_raw"] = q.gpus_raw;
  j["gpus"] = q.gpus;
  j["params_billion"] = q.params_billion;
  j["memory_gb"] = q.memory_gb;
  j["cluster_efficiency"] = q.efficiency;
  j["bytes_per_param"] = kRuleOfThumbBytesPerParam;
  j["formula"] = "params[B] × 20 / (GPU memory[GB] × cluster efficiency)";
  j["explanation"] = "Rule of thumb: " + fmt("%.1fB", q.params_billion) + " parameters × 20 bytes / (" +
                     fmt("%.0f GB", q.memory_gb) + " × " + fmt("%.2g", q.efficiency) + ") = " + fmt("%.1f", q.gpus_raw) +
                     " → " + thousands(static_cast<double>(q.gpus)) +
                     " GPUs (the article's own 70B / 80 GB / 80% example is 21.9, not the 175 it printed). Its 20 bytes are "
                     "mixed-precision Adam's 16 bytes of states per parameter plus about 4 of headroom: a memory floor for "
                     "holding the training states, blind to the token budget and the time; " + why;
  j["source"] = "../shared/reference/sizing-model.md §6; Rajbhandari et al. 2020 (ZeRO) §3.1 for the 16 B";
  return j;
}

// Warnings and defaults of the cost, energy and goodput lines.
void money_notes(const Scenario& s, const SearchResult& sr, const Outcome& o, ordered_json& warnings, ordered_json& defaults) {
  const Problem& p = s.problem;
  const CostModel& cm = p.cost;
  if (!o.cost) {
    const std::string why = !o.goodput.progress ? "the run makes no progress (see goodput)" : cm.unpriced;
    warnings.push_back("cost is null: " + why);
  }
  if (cm.mode == CostMode::rented && cm.rental && !cm.rental->from_scenario) {
    const Price& pr = cm.rental->catalog;
    defaults.push_back("cost.price_per_gpu_hour = " + fmt("%.4g ", cm.rental->value) + to_string(cm.rental->currency) +
                       " (default: " + (cm.rental->on_demand ? "most recent on-demand price" : "most recent rental price") +
                       " in data/gpus.json: " + pr.type + ", " + pr.date + ", " + pr.source + ")");
    if (pr.confidence == "low")
      warnings.push_back("the default price for " + p.gpu.name + " (" + pr.type + ", " + pr.date +
                         ") is a low-confidence figure; set cost.price_per_gpu_hour for a firmer cost");
  }
  if (s.objective == Objective::cost && !o.cost)
    warnings.push_back("target.objective = cost without a price: GPU counts are ranked by GPU-hours, which a single price "
                       "per GPU-hour would rank the same way");
  if (s.max_cost && !sr.budget_met)
    warnings.push_back(fmt("target.max_cost of %.6g not reachable", *s.max_cost) +
                       (o.cost ? fmt(": this plan costs %.6g", o.cost->total) + " " + to_string(o.cost->currency) : std::string()));
  const bool power_used = o.energy.known || cm.mode == CostMode::owned;
  if (!p.gpu.power_limit_w.value && !p.gpu.tdp_w.value)
    warnings.push_back("gpu.tdp_w is unknown for " + p.gpu.name + ": energy is null; set it in a gpu object");
  else if (power_used && !p.gpu.power_limit_w.value && p.gpu.tdp_w.confidence == "low")
    warnings.push_back("gpu.tdp_w for " + p.gpu.name + " is a low-confidence figure (energy" +
                       std::string(cm.mode == CostMode::owned ? " and electricity cost)" : ")"));
  const EnergyInputs& en = cm.energy;
  if (en.host_overhead_default)
    defaults.push_back(fmt("energy.host_overhead = %.3f", en.host_overhead) +
                       " (default: measured 8×H100 node power in training, 0.76 × 10.2 kW, over 8 × 700 W; arXiv:2506.14551)");
  if (en.pue_default) defaults.push_back(fmt("energy.pue = %.2f", en.pue) + " (default: Uptime Institute survey 2024 average)");
  if (en.grid_default)
    defaults.push_back(fmt("energy.grid_kg_co2_per_kwh = %.3f", en.grid_kg_co2_per_kwh) +
                       " (default: 2023 world average, Ember Global Electricity Review 2024)");
  const GoodputInputs& gp = p.goodput;
  if (gp.enabled) {
    if (gp.mtbf_default)
      defaults.push_back(fmt("goodput.mtbf_hours = %.0f", gp.mtbf_hours) +
                         " per GPU (default: Llama 3 §3.3.4, 466 interruptions in 54 days on 16,384 GPUs)");
    if (gp.write_default)
      defaults.push_back(fmt("goodput.checkpoint_write_seconds = %.0f", gp.checkpoint_write_seconds) +
                         " (default: asynchronous checkpointing stalls training for the device-to-host copy only)");
    if (gp.restart_default)
      defaults.push_back(fmt("goodput.restart_minutes = %.0f", gp.restart_minutes) +
                         " (default: detection, rescheduling, reload and warm-up)");
    if (!gp.checkpoint_interval_minutes)
      defaults.push_back(fmt("goodput.checkpoint_interval_minutes = %.1f", o.goodput.interval_minutes) +
                         " (default: Young's optimum sqrt(2 · write time · job MTBF))");
    if (!o.goodput.progress)
      warnings.push_back(fmt("goodput: a failure every %.3g hours", o.goodput.job_mtbf_hours) +
                         " costs more than the job gains between failures (half a checkpoint interval plus the restart): "
                         "no progress; shorten the restart or the checkpoint interval, or use fewer GPUs");
    else if (o.goodput.fraction < 0.5)
      warnings.push_back(fmt("goodput is only %.0f%%", o.goodput.fraction * 100) +
                         ": the first-order checkpoint model (Young 1974) is least accurate when failures are this frequent");
  }
  if (s.cluster_efficiency_default)
    defaults.push_back("assume.cluster_efficiency = 0.8 (default: the article's rule of thumb)");
}

}  // namespace

Expected<ordered_json> evaluate(const Scenario& s) {
  const Problem& p = s.problem;
  const Constraints& c = s.constraints;
  SearchResult sr = search(p, c, s.target());
  if (sr.truncated) return too_many_layouts();
  if (!sr.chosen) return explain_no_layout(p, c);
  const Candidate& best = *sr.chosen;
  ordered_json out;
  out["gpucalc_version"] = GPUCALC_VERSION;
  out["model"] = model_json(s, best.layout.recompute);
  out["gpu"] = gpu_json(s);
  ordered_json cand = candidate_json(s, best);
  for (auto& [k, v] : cand.items()) out[k] = std::move(v);
  const Outcome o = outcome(p, best);
  out["goodput"] = goodput_json(s, o.goodput);
  out["cost"] = cost_json(s, o);
  out["energy"] = energy_json(s, o.energy);
  out["quick_estimate"] = quick_estimate_json(s, best, o);
  out["search"] = search_json(s, sr);
  out["warnings"] = warnings_json(s, sr, best);
  out["defaults_applied"] = s.defaults_applied;
  money_notes(s, sr, o, out["warnings"], out["defaults_applied"]);
  return out;
}

Expected<ordered_json> search_report(const Scenario& s, int top_k) {
  const Problem& p = s.problem;
  const Constraints& c = s.constraints;
  FullSearch fs = search_full(p, c, s.target(), top_k);
  if (fs.result.truncated) return too_many_layouts();
  if (!fs.result.chosen) return explain_no_layout(p, c);
  const Candidate& best = *fs.result.chosen;
  ordered_json out;
  out["gpucalc_version"] = GPUCALC_VERSION;
  out["model"] = model_json(s, best.layout.recompute);
  out["gpu"] = gpu_json(s);
  const Outcome o = outcome(p, best);
  out["best"] = candidate_json(s, best);
  out["best"]["goodput"] = goodput_json(s, o.goodput);
  out["best"]["cost"] = cost_json(s, o);
  out["best"]["energy"] = energy_json(s, o.energy);
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
                     {"goodput_days", num_or_null(pt.outcome.goodput.wall_days)},
                     {"cost", pt.outcome.cost ? ordered_json(pt.outcome.cost->total) : ordered_json(nullptr)},
                     {"pareto", pt.pareto}});
  }
  out["curve"] = std::move(curve);
  out["search"] = search_json(s, fs.result);
  out["warnings"] = warnings_json(s, fs.result, best);
  out["defaults_applied"] = s.defaults_applied;
  money_notes(s, fs.result, o, out["warnings"], out["defaults_applied"]);
  return out;
}

}  // namespace gpucalc
