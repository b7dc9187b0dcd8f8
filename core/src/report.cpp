// Renders the answers of answer.hpp (evaluate, search, compare) to JSON text. Decides
// nothing: every number comes from the core's model functions; this file names them and
// their sources.
//
// Each block of an answer is one function writing one JSON value, in the answer's key
// order, straight to text through JsonWriter (json_writer.hpp): the page renders on every
// change, and building a document tree first cost more than the search itself in wasm.
#include "gpucalc/report.hpp"

#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "decimal.hpp"
#include "gpucalc/critical_batch.hpp"
#include "gpucalc/fit.hpp"
#include "gpucalc/framework.hpp"
#include "gpucalc/memory_terms.hpp"
#include "gpucalc/message.hpp"
#include "gpucalc/quick_estimate.hpp"
#include "json_writer.hpp"
#include "report_text.hpp"
#include "uncertainty_json.hpp"

namespace gpucalc {
namespace {

std::string fmt(const char* f, double v) { return format_printf(f, v); }

double round_bytes(double b) { return std::round(b); }

void spec_json(JsonWriter& w, const Spec& s) {
  w.begin_object();
  w.field("value", s.value);
  w.field("source", s.source);
  w.field("confidence", s.confidence);
  w.end_object();
}

// A memory term: its formula and source in English, and beside them the same in parts
// the page renders in its language (formula_coded, source_coded: message.hpp Parts).
void item(JsonWriter& w, const MemoryTerm& t) {
  w.begin_object();
  w.field("name", t.name);
  w.field("category", t.category);
  w.field("bytes", round_bytes(t.bytes));
  w.prose_field("formula", t.formula);
  w.prose_field("source", t.source);
  w.end_object();
}

// Where a stage sits in the pipeline (memory.stage_role): the worst stage can be a middle
// one when the first holds fewer layers (uneven split, MoE's leading dense layers).
const char* stage_role(const Layout& l, int64_t stage) {
  if (l.pp == 1) return "only";
  if (stage == 0) return "first";
  return stage == l.pp - 1 ? "last" : "middle";
}

void memory_json(JsonWriter& w, const Scenario& s, const Candidate& c, bool with_items) {
  const Problem& p = s.problem;
  const Layout& l = c.layout;
  const StageMemory& m = c.memory;
  const double cap = capacity_bytes(p.gpu);
  w.begin_object();
  w.field("weights_bytes", round_bytes(m.weights + m.weights_gathered + m.fp8_weight_cache));
  w.field("gradients_bytes", round_bytes(m.gradients));
  w.field("optimizer_bytes", round_bytes(m.optimizer));
  w.field("activations_bytes", round_bytes(m.activations()));
  w.field("other_bytes", round_bytes(m.other()));
  w.field("total_bytes", round_bytes(m.total()));
  // The same peak as the caching allocator counts it (framework.hpp MemoryBasis), to set
  // beside what a framework logs: framework_logs names the one its own log reports.
  w.field("allocated_bytes", round_bytes(m.allocated()));
  w.field("reserved_bytes", round_bytes(m.reserved()));
  w.field("framework_logs", to_string(framework_profile(p.training.framework).logs));
  w.field("capacity_bytes", round_bytes(cap));
  w.field("fits", m.total() <= cap);
  w.field("within_limit", c.fits);
  w.field("limit_fraction", p.memory_limit_fraction);
  w.field("used_fraction", cap > 0 ? m.total() / cap : 0.0);
  w.field("headroom_bytes", round_bytes(cap - m.total()));
  w.field("stage", m.stage);
  w.field("stage_role", stage_role(l, m.stage));
  w.field("layers_on_gpu", m.layers);
  w.field("micro_batches_in_flight", m.in_flight);
  w.field("host_bytes", round_bytes(m.host_bytes));
  if (with_items) {
    // "Will it fit?" for this layout: the largest micro-batch and the longest sequence
    // under the search's memory limit, and under the whole device (fit.hpp).
    const FitLimits lim = fit_limits(p.model, p.training, l, p.overheads, p.memory_limit_fraction * cap);
    const FitLimits all = fit_limits(p.model, p.training, l, p.overheads, cap);
    w.key("fit").begin_object();
    w.field("limit_fraction", p.memory_limit_fraction);
    w.field("max_micro_batch", lim.max_micro_batch);
    w.field("max_seq_len", lim.max_seq_len);
    w.field("max_micro_batch_at_capacity", all.max_micro_batch);
    w.field("max_seq_len_at_capacity", all.max_seq_len);
    w.end_object();
  }
  if (!with_items) {
    w.end_object();
    return;
  }
  // Each term with its formula and source (memory_terms.hpp).
  w.key("items").begin_array();
  for (const MemoryTerm& t : memory_terms({p.model, p.training, l, p.overheads, m})) item(w, t);
  w.end_array();
  w.end_object();
}

// chosen_by_calculator lists what `c` (the scenario's constraints, unless said) left open.
void plan_json(JsonWriter& w, const Scenario& s, const Layout& l, const Constraints& c) {
  const Problem& p = s.problem;
  w.begin_object();
  w.field("gpus", l.gpus());
  w.field("tp", l.tp);
  w.field("pp", l.pp);
  w.field("dp", l.dp);
  w.field("cp", l.cp);
  w.field("ep", l.ep);
  w.field("etp", is_moe(p.model) ? l.etp : l.tp);
  w.field("vpp", l.vpp);
  if (uneven_split(l)) {
    // Layers per pipeline stage, first to last (parallel.first/last_stage_layers).
    w.key("stage_layers").begin_array();
    for (int64_t i = 0; i < l.pp; ++i) w.value(stage_layer_count(p.model, l, i));
    w.end_array();
  }
  w.field("micro_batch", l.micro_batch);
  w.field("micro_batches", micro_batches(p.training, l));
  w.field("global_batch", global_batch(p.training, l));
  w.field("global_batch_tokens", global_batch(p.training, l) * p.training.seq_len);
  // How the batch was set: "fixed" (the scenario's), or chosen by the search in a range
  // (training.global_batch_range; "critical": its top from the critical-batch law).
  w.field("batch_rule", to_string(s.batch_rule));
  if (s.batch_rule != BatchRule::fixed) {
    w.key("global_batch_range").begin_object();
    w.field("min_tokens", s.batch_min_tokens);
    w.field("max_tokens", s.batch_max_tokens);
    w.field("critical_batch_tokens", s.critical ? std::optional(s.critical->tokens) : std::nullopt);
    w.field("compute_flops", s.critical ? std::optional(s.critical->compute_flops) : std::nullopt);
    w.end_object();
  }
  w.field("zero_stage", l.zero_stage);
  // The ranks ZeRO/FSDP shards the states over: all of dp, or a hybrid-sharding group.
  w.field("shard", l.zero_stage > 0 ? zero_shard(l) : 1);
  w.field("recompute", to_string(l.recompute));
  w.key("recompute_modules").begin_array();
  if (l.recompute == Recompute::selective) {
    for (const auto& [name, bit] : kRecomputeModuleNames)
      if (l.recompute_modules & bit) w.value(name);
  }
  w.end_array();
  w.field("sequence_parallel", p.training.sequence_parallel && l.tp > 1);
  w.field("framework", to_string(p.training.framework));
  w.field("flash_attention", p.training.flash_attention);
  w.key("chosen_by_calculator").begin_array();
  if (!c.gpus) w.value("gpus");
  if (!c.tp) w.value("tp");
  if (!c.pp) w.value("pp");
  if (!c.dp) w.value("dp");
  if (!c.cp) w.value("cp");
  if (is_moe(p.model) && !c.ep) w.value("ep");
  if (l.zero_stage > 0 && !c.shard) w.value("shard");
  if (is_moe(p.model) && !c.etp) w.value("etp");
  if (!c.vpp) w.value("vpp");
  if (!c.micro_batch) w.value("micro_batch");
  if (!c.zero_stage) w.value("zero_stage");
  if (!c.recompute) w.value("recompute");
  w.end_array();
  w.end_object();
}

void plan_json(JsonWriter& w, const Scenario& s, const Layout& l) { plan_json(w, s, l, s.constraints); }

void performance_json(JsonWriter& w, const Scenario& s, const StepTime& st) {
  const Problem& p = s.problem;
  w.begin_object();
  w.field("step_time_s", st.step_time_s);
  w.field("tokens_per_s_per_gpu", st.tokens_per_s_per_gpu);
  w.field("mfu", st.mfu);
  w.field("hfu", st.hfu);
  w.field("tflops_per_gpu", st.tflops_per_gpu);
  w.field("bubble_fraction", st.bubble_fraction);
  w.key("breakdown").begin_object();
  w.field("compute_s", st.compute_s);
  w.field("tp_comm_s", st.tp_comm_s);
  w.field("cp_comm_s", st.cp_comm_s);
  w.field("ep_comm_s", st.ep_comm_s);
  w.field("moe_overhead_s", st.moe_overhead_s);
  w.field("offload_s", st.offload_s);
  w.field("pp_comm_s", st.pp_comm_s);
  w.field("dp_comm_exposed_s", st.dp_comm_exposed_s);
  w.field("zero3_comm_exposed_s", st.zero3_comm_exposed_s);
  w.field("bubble_s", st.bubble_s);
  w.field("optimizer_s", st.optimizer_s);
  w.field("dp_comm_total_s", st.dp_comm_total_s);
  w.end_object();
  w.field("efficiency", st.efficiency);
  w.field("time_model", p.efficiency.mfu ? "assume.mfu" : p.efficiency.hfu ? "assume.hfu" : "predicted");
  w.field("perf_profile", p.perf.profile_id);
  w.end_object();
}

void training_json(JsonWriter& w, const Scenario& s, const RunTime& run) {
  w.begin_object();
  w.field("tokens", s.problem.training.tokens);
  w.field("steps", run.steps);
  w.field("days", run.days);
  w.field("gpu_hours", run.gpu_hours);
  w.end_object();
}

// plan, memory, performance and training of one evaluated layout, as members of the
// object being written; `items` adds the memory line items with their formulas (the
// answer's own layout shows them, the top-k list keeps to the totals).
void candidate_fields(JsonWriter& w, const Scenario& s, const Candidate& c, bool items = true) {
  w.key("plan");
  plan_json(w, s, c.layout);
  w.key("memory");
  memory_json(w, s, c, items);
  w.key("performance");
  performance_json(w, s, c.time);
  w.key("training");
  training_json(w, s, c.run);
}

void model_json(JsonWriter& w, const Scenario& s, Recompute rc, unsigned rc_modules) {
  const Problem& p = s.problem;
  const ParamCounts pc = count_params(p.model);
  const FlopsPerToken fl = flops_per_token(p.model, p.training.seq_len, rc, &p.training, rc_modules);
  w.begin_object();
  w.field("id", p.model.id);
  w.field("name", p.model.name);
  w.field("params", pc.total);
  w.field("active_params", pc.active);  // MoE: top_k of the routed experts; dense: every parameter
  // What trains: every parameter, or LoRA's adapters (the frozen base has no gradients).
  const double lora =
      is_adapter_stage(p.training)
          ? static_cast<double>(pc.dense_layers) * lora_params_per_layer(p.model, p.training.lora, false) +
                static_cast<double>(pc.moe_layers) * lora_params_per_layer(p.model, p.training.lora, true)
          : static_cast<double>(pc.total);
  w.field("trainable_params", static_cast<int64_t>(lora));
  w.key("params_breakdown").begin_object();
  w.field("per_layer", pc.per_layer);
  w.field("layers", pc.layers_total);
  w.field("embedding", pc.embedding);
  w.field("position_embedding", pc.position);
  w.field("final_norm", pc.final_norm);
  w.field("output_head", pc.head);
  w.field("matmul", pc.matmul);
  w.field("active_matmul", pc.active_matmul);
  if (is_moe(p.model)) {
    w.field("moe_layers", pc.moe_layers);
    w.field("dense_layers", pc.dense_layers);
    w.field("expert", pc.expert);
    w.field("routed_experts_per_layer", pc.routed_experts);
    w.field("shared_experts_per_layer", pc.shared_mlp);
    w.field("router_per_layer", pc.router);
  }
  w.end_object();
  w.key("flops_per_token").begin_object();
  w.field("model", fl.model);
  w.field("hardware", fl.hardware);
  w.end_object();
  if (p.model.sliding_window > 0 && p.model.sliding_window_layers > 0) {  // model.sliding_window
    w.key("sliding_window").begin_object();
    w.field("tokens", p.model.sliding_window);
    w.field("layers", p.model.sliding_window_layers);
    w.field("of_layers", p.model.layers);
    w.end_object();
  }
  w.end_object();
}

void gpu_json(JsonWriter& w, const Scenario& s) {
  const Problem& p = s.problem;
  const auto spec = [&](const char* name, const Spec& v) {
    w.key(name);
    spec_json(w, v);
  };
  w.begin_object();
  w.field("id", p.gpu.id);
  w.field("name", p.gpu.name);
  w.field("peak_tflops", peak_flops(p.gpu, p.training.precision) / 1e12);
  w.field("precision", to_string(p.training.precision));
  w.key("specs").begin_object();
  spec("memory_gib", p.gpu.memory_gib);
  spec("bf16_tflops", p.gpu.bf16_tflops);
  spec("fp8_tflops", p.gpu.fp8_tflops);
  if (p.gpu.fp4_tflops.value) spec("fp4_tflops", p.gpu.fp4_tflops);
  spec("memory_bw_tbs", p.gpu.memory_bw_tbs);
  spec("scaleup_gbs", p.gpu.scaleup_gbs);
  spec("scaleup_domain", p.gpu.scaleup_domain);
  spec("scaleout_gbps", p.gpu.scaleout_gbps);
  spec("tdp_w", p.gpu.tdp_w);
  spec("power_limit_w", p.gpu.power_limit_w);
  w.end_object();
  w.key("perf_profile").begin_object();
  w.field("id", p.perf.profile_id);
  w.field("measured", p.perf.measured);
  spec("matmul", p.perf.matmul);
  spec("fp8_matmul", p.perf.fp8_matmul);
  if (p.training.precision == Precision::fp4) spec("fp4_matmul", p.perf.fp4_matmul);
  spec("sustained_clock", p.perf.sustained_clock);
  spec("attention_fwd", p.perf.attention_fwd);
  spec("attention_bwd", p.perf.attention_bwd);
  if (p.perf.attention_fa2.value) spec("attention_fa2", p.perf.attention_fa2);
  spec("memory", p.perf.memory);
  spec("scaleup", p.perf.scaleup);
  spec("scaleout", p.perf.scaleout);
  w.end_object();
  w.end_object();
}

// Nothing fits: a layout that would (search.hpp FitElsewhere), or null.
void fit_json(JsonWriter& w, const Scenario& s, const char* key, const std::optional<Candidate>& fit,
              const Constraints& open) {
  w.key(key);
  if (!fit) {
    w.value(nullptr);
    return;
  }
  const Candidate& c = *fit;
  w.begin_object();
  w.field("gpus", c.layout.gpus());
  w.field("days", c.run.days);
  w.field("memory_bytes", round_bytes(c.memory.total()));
  w.field("memory_used_fraction", c.memory.total() / capacity_bytes(s.problem.gpu));
  w.key("plan");
  plan_json(w, s, c.layout, open);
  w.end_object();
}

void search_json(JsonWriter& w, const Scenario& s, const SearchResult& sr) {
  w.begin_object();
  w.field("layouts_evaluated", sr.layouts_evaluated);
  w.field("layouts_fitting", sr.layouts_fitting);
  w.field("min_gpus_fit", sr.min_gpus_fit);
  const FitElsewhere none;
  const FitElsewhere& e = sr.elsewhere ? *sr.elsewhere : none;
  Constraints gpus_open = s.constraints, layout_open;
  gpus_open.gpus.reset();
  if (e.layout_open_same_count) layout_open.gpus = s.constraints.gpus;
  fit_json(w, s, "fits_from", e.fewest, gpus_open);
  fit_json(w, s, "fits_with_layout_open", e.layout_open, layout_open);
  w.field("target_days", s.target_days);
  w.field("target_met", s.target_days ? std::optional<bool>(sr.target_met) : std::nullopt);
  w.field("objective", to_string(s.objective));
  w.field("max_cost", s.max_cost);
  w.field("max_cost_met", s.max_cost ? std::optional<bool>(sr.budget_met) : std::nullopt);
  w.end_object();
}

std::string upper(std::string x) {
  for (char& ch : x) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return x;
}

// An assume.mfu or assume.hfu above the highest any published run in validation/ measured
// (data/uncertainty.json time.utilisation, written by scripts/validate.mjs): the answer
// then rests on a utilisation no run gpucalc was checked against reached.
void utilisation_warnings(const Problem& p, std::vector<Message>& w) {
  struct Check {
    const char* code;
    const char* en;
    std::optional<double> assumed;
    double max;
    const std::string& row;
  };
  const ValidationSpread& v = validation_spread();
  const Check checks[] = {
      {"assume_mfu_above_measured",
       "assume.mfu = {value}% is above the highest MFU measured in the {n} published runs gpucalc is checked "
       "against ({max}%, validation/{row}): this answer is likely too fast",
       p.efficiency.mfu, v.mfu_max, v.mfu_row},
      {"assume_hfu_above_measured",
       "assume.hfu = {value}% is above the highest HFU measured in the {n} published runs gpucalc is checked "
       "against ({max}%, validation/{row}): this answer is likely too fast",
       p.efficiency.hfu, v.hfu_max, v.hfu_row},
  };
  for (const Check& c : checks)
    if (c.assumed && c.max > 0 && *c.assumed > c.max)
      w.push_back(coded(c.code, c.en,
                        {{"value", fmt("%.0f", *c.assumed * 100)},
                         {"n", std::to_string(v.time_n)},
                         {"max", fmt("%.0f", c.max * 100)},
                         {"row", c.row}}));
}

// Why no GPU count meets target.days, which plan is shown, and what would meet it
// (search.hpp DeadlineMiss).
void deadline_notes(const Scenario& s, const DeadlineMiss& m, const Candidate& best, std::vector<Message>& w) {
  const Problem& p = s.problem;
  const Layout& f = m.fastest.layout;
  const auto n0 = [](int64_t v) { return std::to_string(v); };
  const auto tokens = [&](int64_t sequences) { return n0(sequences * p.training.seq_len); };
  const auto pct = [](double x) { return fmt("%.0f", x * 100); };
  if (m.batch_caps_dp)
    w.push_back(coded("deadline_limit_batch",
                      "the global batch caps data parallelism: {batch_tokens} tokens ({sequences} sequences) per step "
                      "leave the fastest plan, {gpus} GPUs, {dp} data-parallel ranks of {per_rank} sequences each",
                      {{"batch_tokens", tokens(m.batch_limit)},
                       {"sequences", n0(m.batch_limit)},
                       {"gpus", n0(f.gpus())},
                       {"dp", n0(f.dp)},
                       {"per_rank", n0(global_batch(p.training, f) / f.dp)}}));
  const std::string term = m.step_term;
  if (term == "bubble")
    w.push_back(coded("deadline_limit_bubble",
                      "the pipeline bubble takes {share_pct}% of each step of the fastest plan ({pp} stages, "
                      "{micro_batches} micro-batches per step)",
                      {{"share_pct", pct(m.step_term_share)},
                       {"pp", n0(f.pp)},
                       {"micro_batches", n0(micro_batches(p.training, f))}}));
  else if (!term.empty())
    w.push_back(coded("deadline_limit_comm",
                      "exposed {kind} communication takes {share_pct}% of each step of the fastest plan ({gpus} GPUs)",
                      {{"kind", term == "zero3"     ? "ZeRO-3"
                                : term == "offload" ? "PCIe"
                                                    : upper(term)},
                       {"share_pct", pct(m.step_term_share)},
                       {"gpus", n0(f.gpus())}}));
  if (f.gpus() != best.layout.gpus())
    w.push_back(coded("deadline_knee",
                      "shown: the knee of the days-vs-GPUs curve (Kneedle, Satopää et al. 2011, in log-log), {gpus} "
                      "GPUs; the fastest plan, {fastest_gpus} GPUs, takes {fastest_days} days",
                      {{"gpus", n0(best.layout.gpus())},
                       {"fastest_gpus", n0(f.gpus())},
                       {"fastest_days", fmt("%.1f", m.fastest_days)}}));
  if (m.larger_batch) {
    const Layout& b = m.larger_batch->layout;
    const Params params = {{"batch_tokens", tokens(global_batch(p.training, b))},
                           {"gpus", n0(b.gpus())},
                           {"days", fmt("%.1f", m.larger_batch_days)}};
    w.push_back(m.larger_batch_meets
                    ? coded("deadline_fix_batch",
                            "a global batch of {batch_tokens} tokens would meet it: {gpus} GPUs, {days} days", params)
                    : coded("deadline_fix_batch_short",
                            "even a global batch of {batch_tokens} tokens takes {days} days (on {gpus} GPUs)", params));
    const CriticalBatch cb = s.critical ? *s.critical : critical_batch(p.model, p.training);
    const double need = static_cast<double>(global_batch(p.training, b) * p.training.seq_len);
    if (m.larger_batch_meets && need > cb.tokens)
      w.push_back(
          coded("deadline_fix_batch_above_critical",
                "{batch_tokens} tokens is above the critical batch of {critical_tokens} tokens for this "
                "compute (DeepSeek LLM, Bi et al. 2024): past it more tokens per step buy fewer steps' worth",
                {{"batch_tokens", tokens(global_batch(p.training, b))}, {"critical_tokens", fmt("%.0f", cb.tokens)}}));
  }
  w.push_back(coded("deadline_fix_days",
                    "the fastest plan needs a deadline of {fastest_days} days; a faster accelerator may meet "
                    "{target_days} (gpucalc compare)",
                    {{"fastest_days", fmt("%.1f", m.fastest_days)}, {"target_days", fmt("%.4g", *s.target_days)}}));
}

// "TP 8 × PP 4 × DP 2", with CP, EP and ZeRO where they are more than 1 / 0: symbols
// both languages read alike.
std::string layout_text(const Layout& l) {
  std::string s = "TP " + std::to_string(l.tp) + " × PP " + std::to_string(l.pp) + " × DP " + std::to_string(l.dp);
  if (l.cp > 1) s += " × CP " + std::to_string(l.cp);
  if (l.ep > 1) s += " × EP " + std::to_string(l.ep);
  if (l.zero_stage > 0) s += ", ZeRO-" + std::to_string(l.zero_stage);
  return s;
}

// What would fit when nothing does at the fixed GPU count (search.hpp FitElsewhere).
Message fit_elsewhere_note(const FitElsewhere& f) {
  if (!f.fewest && f.layout_open) {
    const Layout& l = f.layout_open->layout;
    const Params at = {{"gpus", std::to_string(l.gpus())},
                       {"layout", layout_text(l)},
                       {"micro_batch", std::to_string(l.micro_batch)},
                       {"recompute", to_string(l.recompute)}};
    return f.layout_open_same_count
               ? coded("oom_fix_layout_here",
                       "the layout the scenario fixes cannot fit; left to the calculator, it fits on these {gpus} GPUs "
                       "({layout}, micro-batch {micro_batch}, recompute {recompute})",
                       at)
               : coded(
                     "oom_fix_layout_gpus",
                     "the layout the scenario fixes cannot fit on any GPU count; left to the calculator, it fits from "
                     "{gpus} GPUs ({layout}, micro-batch {micro_batch}, recompute {recompute})",
                     at);
  }
  if (!f.fewest)
    return coded("oom_fix_none",
                 "no GPU count the scenario allows fits: each GPU must hold less (LoRA or QLoRA, ZeRO-3, offload, "
                 "activation recomputation, a shorter sequence) or have more memory");
  return coded("oom_fix_gpus",
               "it fits from {gpus} GPUs ({layout}), the fewest on which a layout the scenario allows fits",
               {{"gpus", std::to_string(f.fewest->layout.gpus())}, {"layout", layout_text(f.fewest->layout)}});
}

// A fixed GPU count held back by its batch (search.hpp BatchCap): what the batch leaves
// each data-parallel rank, and the days a batch up to the critical one gives.
Message batch_cap_note(const Problem& p, const BatchCap& b, const Candidate& best) {
  const auto n0 = [](int64_t v) { return std::to_string(v); };
  const int64_t batch = global_batch(p.training, best.layout), larger = global_batch(p.training, b.plan.layout);
  return coded("batch_caps_gpus",
               "the global batch, {batch_tokens} tokens ({sequences} sequences) per step, leaves each of the {dp} "
               "data-parallel ranks {per_rank} sequences, so these {gpus} GPUs also split the model; a batch up to "
               "the critical {critical_tokens} tokens for this compute (DeepSeek LLM, Bi et al. 2024) would take "
               "{days} days on them ({larger_tokens} tokens per step, {layout})",
               {{"batch_tokens", n0(batch * p.training.seq_len)},
                {"sequences", n0(batch)},
                {"dp", n0(best.layout.dp)},
                {"per_rank", n0(batch / best.layout.dp)},
                {"gpus", n0(best.layout.gpus())},
                {"critical_tokens", fmt("%.0f", b.critical.tokens)},
                {"days", fmt("%.1f", b.days)},
                {"larger_tokens", n0(larger * p.training.seq_len)},
                {"layout", layout_text(b.plan.layout)}});
}

// An MoE all-to-all left exposed (search.hpp MoeCommFix): its share of the step, and the
// answer DeepEP and the overlap would give.
Message moe_comm_note(const Problem& p, const MoeCommFix& m, const Candidate& best) {
  const StepTime& st = best.time;
  return coded("moe_comm_exposed",
               "the expert-parallel all-to-all takes {share_pct}% of each step (training.moe_dispatcher "
               "\"{dispatcher}\", overlap_moe_comm {overlap}); with DeepEP's dispatcher and the all-to-all overlapped "
               "with compute (\"deepep\", true: DeepSeek-V3's stack) the answer would be {gpus} GPUs, {days} days "
               "({layout})",
               {{"share_pct", fmt("%.0f", 100 * st.ep_comm_s / st.step_time_s)},
                {"dispatcher", p.training.moe_dispatcher == MoeDispatcher::deepep ? "deepep" : "alltoall"},
                {"overlap", p.training.overlap_moe_comm ? "true" : "false"},
                {"gpus", std::to_string(m.plan.layout.gpus())},
                {"days", fmt("%.1f", m.days)},
                {"layout", layout_text(m.plan.layout)}});
}

std::vector<Message> warnings_json(const Scenario& s, const SearchResult& sr, const Candidate& best) {
  const Problem& p = s.problem;
  const Constraints& c = s.constraints;
  const Layout& l = best.layout;
  std::vector<Message> w;
  const double cap = capacity_bytes(p.gpu);
  const double used = best.memory.total() / cap;
  if (used > 1.0) {
    const Params gib = {{"need_gib", fmt("%.1f", best.memory.total() / 1073741824.0)},
                        {"capacity_gib", fmt("%.0f", cap / 1073741824.0)}};
    w.push_back(
        c.gpus
            ? coded(
                  "oom_at_count",
                  "does not fit: the worst GPU needs {need_gib} GiB of {capacity_gib} GiB; no layout of this GPU count fits",
                  gib)
            : coded(
                  "oom_any",
                  "does not fit: the worst GPU needs {need_gib} GiB of {capacity_gib} GiB; no layout the scenario allows fits",
                  gib));
  } else if (!best.fits) {
    w.push_back(
        coded("memory_above_limit",
              "memory use is {used_pct}% of capacity, above the limit of {limit_pct}% (target.max_memory_fraction); "
              "no layout the scenario allows stays under it",
              {{"used_pct", fmt("%.0f", used * 100)}, {"limit_pct", fmt("%.0f", p.memory_limit_fraction * 100)}}));
  }
  // Nothing fits: from how many GPUs it would (a fixed count searched again) or, when no
  // count does (the count left open and still nothing fits), what must change.
  if (!best.fits && (sr.elsewhere || !c.gpus)) w.push_back(fit_elsewhere_note(sr.elsewhere.value_or(FitElsewhere{})));
  if (used <= 1.0 && used > 0.8) {
    w.push_back(coded(
        "memory_oom_risk",
        "memory use is {used_pct}% of capacity, above the 80% under which Fujii et al. 2024 saw no OOM in 454 runs: "
        "expect out-of-memory risk",
        {{"used_pct", fmt("%.0f", used * 100)}}));
  }
  if (s.target_days && !sr.target_met && !best.fits) {
    // The deadline is missed because nothing fits, not for want of speed: the plan's days
    // are those of a run that cannot happen.
    w.push_back(coded(
        "target_days_no_fit",
        "target of {target_days} days not reachable: no layout the scenario allows fits in memory (the "
        "plan shown would take {days} days if it fit)",
        {{"target_days", fmt("%.4g", *s.target_days)}, {"days", fmt("%.1f", outcome(p, best).goodput.wall_days)}}));
  } else if (s.target_days && !sr.target_met) {
    w.push_back(coded("target_days_unreachable",
                      "target of {target_days} days not reachable: the chosen layout takes {days} days with failures "
                      "and checkpoints ({days_without} without)",
                      {{"target_days", fmt("%.4g", *s.target_days)},
                       {"days", fmt("%.1f", outcome(p, best).goodput.wall_days)},
                       {"days_without", fmt("%.1f", best.run.days)}}));
    if (sr.miss) deadline_notes(s, *sr.miss, best, w);
  }
  if (sr.batch_cap) {
    w.push_back(batch_cap_note(s.problem, *sr.batch_cap, best));
    if (sr.batch_cap->critical.extrapolated) w.push_back(critical_batch_extrapolated(sr.batch_cap->critical));
  }
  if (sr.moe_comm) w.push_back(moe_comm_note(s.problem, *sr.moe_comm, best));
  if (!p.efficiency.mfu && !p.efficiency.hfu && p.perf.profile_id == "default")
    w.push_back(
        coded("no_perf_profile",
              "no measured performance profile for {gpu}: matmul, attention and network efficiencies are assumed "
              "(data/perf.json default); set assume.mfu or assume.hfu from a measurement for a firmer answer",
              {{"gpu", p.gpu.name}}));
  for (const auto& [name, spec] : {std::pair<const char*, const Spec*>{"memory_gib", &p.gpu.memory_gib},
                                   {"bf16_tflops", &p.gpu.bf16_tflops},
                                   {"fp8_tflops", &p.gpu.fp8_tflops},
                                   {"fp4_tflops", &p.gpu.fp4_tflops},
                                   {"memory_bw_tbs", &p.gpu.memory_bw_tbs},
                                   {"scaleup_gbs", &p.gpu.scaleup_gbs},
                                   {"scaleout_gbps", &p.gpu.scaleout_gbps}}) {
    if (std::string(name) == "fp8_tflops" && p.training.precision != Precision::fp8) continue;
    if (std::string(name) == "fp4_tflops" && p.training.precision != Precision::fp4) continue;
    if (spec->confidence == "low")
      w.push_back(coded("spec_low_confidence", "gpu.{field} for {gpu} is a low-confidence figure",
                        {{"field", name}, {"gpu", p.gpu.name}}));
  }
  // Megatron (Transformer Engine) FP8 GEMM inputs are counted at 1 byte and torchao's
  // Float8Linear keeps them in bf16 (memory.cpp saved_elem); the other stacks' FP8 paths
  // are not modelled and keep 16 bits.
  const Framework fw = p.training.framework;
  if (p.training.precision == Precision::fp8 && fw != Framework::megatron && fw != Framework::torchtitan)
    w.push_back(coded("fp8_activations_16bit",
                      "fp8: matmuls run at the FP8 peak; activations are still counted at 16 bits (conservative)"));
  if (p.model.layers % l.pp != 0 && !uneven_split(l))
    w.push_back(coded(
        "pp_uneven_layers",
        "pp = {pp} does not divide {layers} layers: the fullest stage holds {max_layers} and bounds memory and time",
        {{"pp", std::to_string(l.pp)},
         {"layers", std::to_string(p.model.layers)},
         {"max_layers", std::to_string(layers_per_stage_max(p.model, l))}}));
  const double domain = p.gpu.scaleup_domain.value.value_or(8.0);
  if (static_cast<double>(l.tp) > domain)
    w.push_back(coded(
        "tp_beyond_scaleup",
        "tp = {tp} spans beyond the scale-up domain ({domain} GPUs): TP all-reduces would cross the slower scale-out network",
        {{"tp", std::to_string(l.tp)}, {"domain", fmt("%.0f", domain)}}));
  if (p.efficiency.mfu)
    w.push_back(coded("step_time_from_mfu",
                      "step time comes from assume.mfu, which already includes pipeline bubbles and communication"));
  utilisation_warnings(p, w);
  if (!p.gpu.scaleout_gbps.value)
    w.push_back(
        coded("scaleout_unknown",
              "gpu.scaleout_gbps is unknown for {gpu}: groups beyond one scale-up domain are priced at 100 Gb/s",
              {{"gpu", p.gpu.name}}));
  if (!p.gpu.scaleup_domain.value)
    w.push_back(coded("scaleup_domain_unknown",
                      "gpu.scaleup_domain is unknown for {gpu}: a scale-up domain of 8 is assumed",
                      {{"gpu", p.gpu.name}}));
  if (!p.gpu.scaleup_gbs.value && (l.tp > 1 || l.ep > 1 || l.cp > 1))
    w.push_back(coded(
        "scaleup_bw_unknown",
        "gpu.scaleup_gbs is unknown for {gpu}: tensor-, context- and expert-parallel traffic is priced at the scale-out rate",
        {{"gpu", p.gpu.name}}));
  return w;
}

// A finite number, or null (JSON has no infinity).
std::optional<double> num_or_null(double v) { return std::isfinite(v) ? std::optional<double>(v) : std::nullopt; }

std::string thousands(double v) {
  std::string s = fmt("%.0f", v);
  const size_t start = s[0] == '-' ? 1 : 0;
  for (size_t i = s.size(); i > start + 3; i -= 3) s.insert(i - 3, ",");
  return s;
}

void goodput_json(JsonWriter& w, const Scenario& s, const Goodput& g) {
  const GoodputInputs& in = s.problem.goodput;
  w.begin_object();
  w.field("enabled", g.enabled);
  w.field("fraction", g.fraction);
  w.field("days", num_or_null(g.wall_days));
  w.field("gpu_hours", num_or_null(g.gpu_hours));
  w.field("failures_expected", num_or_null(g.failures_expected));
  if (!g.enabled) {
    w.field("formula", "goodput.enabled = false: failures, checkpoints and restarts are not counted");
    w.end_object();
    return;
  }
  w.field("job_mtbf_hours", g.job_mtbf_hours);
  w.field("mtbf_hours_per_gpu", in.interruptions_per_day ? std::nullopt : std::optional<double>(in.mtbf_hours));
  w.field("interruptions_per_day", 24.0 / g.job_mtbf_hours);
  w.field("checkpoint_interval_minutes", g.interval_minutes);
  w.field("checkpoint_interval_rule",
          g.interval_is_young_optimum ? "Young's optimum sqrt(2 · write time · job MTBF)" : "scenario");
  w.field("checkpoint_write_seconds", g.write_minutes * 60);
  w.field("restart_minutes", g.restart_minutes);
  w.field("lost_per_failure_minutes", g.lost_per_failure_minutes);
  w.field("checkpoint_overhead", g.checkpoint_overhead);
  w.field("failure_loss", g.failure_loss);
  w.field(
      "formula",
      "fraction = (1 − (τ/2 + R)/M) / (1 + δ/τ): each failure loses half a checkpoint interval τ plus the restart R, "
      "one failure per job MTBF M = mtbf_hours / GPUs; each checkpoint stalls training for δ");
  const Message src =
      coded("goodput_source",
            "Young 1974 (CACM 17(9)); Daly 2006 (FGCS 22(3)) §2, first order; default MTBF from Llama 3 "
            "§3.3.4 (466 interruptions in 54 days on 16,384 GPUs); docs/cost.md");
  w.prose_field("source", src);
  w.end_object();
}

// A catalog price listed in the other currency: what it was and the rate it converts at.
void fx_json(JsonWriter& w, const RentalPrice& rp, const FxRate& fx) {
  w.key("converted").begin_object();
  w.field("from_value", rp.native_value);
  w.field("from_currency", to_string(rp.native_currency));
  w.field("usd_cny", fx.usd_cny);
  w.field("rate_source",
          fx.from_scenario ? std::string("scenario (cost.usd_cny)") : "data/currency.json: " + fx.source);
  if (!fx.date.empty()) w.field("rate_date", fx.date);
  w.end_object();
}

void price_source_json(JsonWriter& w, const Scenario& s) {
  const CostModel& cm = s.problem.cost;
  if (cm.mode == CostMode::owned) {
    const OwnedCluster* own = cm.owned ? &*cm.owned : nullptr;
    w.begin_object();
    w.field("kind", "scenario");
    w.field("purchase_price_per_gpu", own ? std::optional(own->purchase_price_per_gpu) : std::nullopt);
    w.field("amortization_years", own ? std::optional(own->amortization_years) : std::nullopt);
    w.field("electricity_price_per_kwh", own ? std::optional(own->electricity_price_per_kwh) : std::nullopt);
    w.end_object();
    return;
  }
  if (!cm.rental) {
    w.value(nullptr);
    return;
  }
  const RentalPrice& rp = *cm.rental;
  w.begin_object();
  if (rp.from_scenario) {
    w.field("kind", "scenario");
    w.field("value", rp.value);
    w.field("currency", to_string(rp.currency));
    w.end_object();
    return;
  }
  const Price& p = rp.catalog;
  w.field("kind", "catalog");
  const Params which = {{"currency", p.currency}, {"gpu", s.problem.gpu.id}};
  Parts rule;
  rule.push_back(
      rp.on_demand ? coded("price_rule_on_demand",
                           "the most recent on-demand {currency} price per GPU-hour of {gpu} in data/gpus.json", which)
                   : coded("price_rule_rental",
                           "no on-demand price: the most recent other rental {currency} price per GPU-hour of "
                           "{gpu} in data/gpus.json",
                           which));
  if (rp.range_midpoint) rule.push_back(coded("price_rule_midpoint", ", a range taken at its midpoint"));
  if (rp.converted)
    rule.push_back(
        coded("price_rule_converted", ", converted to {to} (none listed in it)", {{"to", to_string(rp.currency)}}));
  rule.push_back(literal(" (docs/cost.md)"));
  w.prose_field("rule", rule);
  w.field("value", rp.value);
  if (rp.converted) fx_json(w, rp, cm.fx);
  if (rp.range_midpoint) w.key("range").begin_array().value(*p.value).value(*p.value_max).end_array();
  w.field("currency", to_string(rp.currency));
  w.field("unit", p.unit);
  w.field("type", p.type);
  if (!p.region.empty()) w.field("region", p.region);
  w.field("date", p.date);
  w.field("source", p.source);
  w.field("citation", gpu_source_citation(p.source));
  w.field("confidence", p.confidence);
  if (!p.note.empty()) w.field("note", p.note);
  w.end_object();
}

void cost_json(JsonWriter& w, const Scenario& s, const Outcome& o) {
  if (!o.cost) {
    w.value(nullptr);
    return;
  }
  const RunCost& c = *o.cost;
  w.begin_object();
  w.field("currency", to_string(c.currency));
  w.field("total", c.total);
  w.field("per_gpu_hour", c.per_gpu_hour);
  w.field("gpu_hours", c.gpu_hours);
  w.field("mode", c.mode == CostMode::owned ? "owned" : "rented");
  if (c.mode == CostMode::owned) {
    w.key("parts")
        .begin_object()
        .field("purchase_amortized", c.purchase_amortized)
        .field("electricity", c.electricity)
        .end_object();
    w.field(
        "formula",
        "GPUs × purchase price × hours / (amortization_years × 8766 h) + energy MWh × 1000 × electricity price per kWh");
  } else {
    w.key("parts").begin_object().field("gpu_rental", c.rental).end_object();
    w.field("formula", "price per GPU-hour × GPUs × wall-clock hours (goodput.gpu_hours)");
  }
  w.key("price_source");
  price_source_json(w, s);
  w.end_object();
}

void energy_json(JsonWriter& w, const Scenario& s, const Energy& e) {
  if (!e.known) {
    w.value(nullptr);
    return;
  }
  const EnergyInputs& in = s.problem.cost.energy;
  const Gpu& g = s.problem.gpu;
  w.begin_object();
  w.field("mwh", e.mwh);
  w.field("co2_tonnes", e.co2_tonnes);
  w.field("facility_kw", e.facility_kw);
  w.field("hours", e.hours);
  w.field("power_w_per_gpu", e.watts_per_gpu);
  w.field("power_from", e.from_power_limit ? "gpu.power_limit_w" : "gpu.tdp_w");
  w.field("power_confidence", e.from_power_limit ? g.power_limit_w.confidence : g.tdp_w.confidence);
  w.field("host_overhead", in.host_overhead);
  w.field("pue", in.pue);
  w.field("grid_kg_co2_per_kwh", in.grid_kg_co2_per_kwh);
  w.field("formula", "GPUs × W × (1 + host_overhead) × PUE × wall-clock hours; CO2 = MWh × grid kg CO2 per kWh");
  // Where each input came from: the scenario, or a default with its source (coded: the page
  // says it in its language).
  const std::pair<const char*, Message> sources[] = {
      {"host_overhead", in.host_overhead_default
                            ? coded("energy_source_host_overhead",
                                    "default: an 8×H100 node under training draws 76% of its 10.2 kW rating "
                                    "(arXiv:2506.14551, 2025) against 5.6 kW of GPU TDP")
                            : coded("energy_source_scenario", "set in the scenario")},
      {"pue", in.pue_default ? coded("energy_source_pue",
                                     "default: industry average, Uptime Institute Global Data Center Survey 2024")
                             : coded("energy_source_scenario", "set in the scenario")},
      {"grid_kg_co2_per_kwh",
       in.grid_default ? coded("energy_source_grid",
                               "default: world average 2023, 480 g/kWh (Ember, Global Electricity Review 2024)")
                       : coded("energy_source_scenario", "set in the scenario")}};
  w.key("sources").begin_object();
  for (const auto& [key, m] : sources) w.field(key, m.message);
  w.end_object();
  w.key("sources_coded").begin_object();
  for (const auto& [key, m] : sources) w.key(key).prose(m);
  w.end_object();
  w.end_object();
}

void quick_estimate_json(JsonWriter& w, const Scenario& s, const Candidate& best, const Outcome& o) {
  const Problem& p = s.problem;
  const double params = static_cast<double>(count_params(p.model).total);
  const QuickEstimate q = quick_estimate(params, p.gpu.memory_gib.value.value_or(0), s.cluster_efficiency);
  const int64_t n = best.layout.gpus();
  // Why the full answer differs from the rule of thumb, coded for the page's languages.
  const std::string ns = thousands(static_cast<double>(n));
  Message why;
  if (s.constraints.gpus) {
    why = coded("estimate_fixed", "the full answer uses the {n} GPUs the scenario fixes.", {{"n", ns}});
  } else if (is_adapter_stage(p.training) && n < q.gpus) {
    why = coded("estimate_adapter",
                "a LoRA/QLoRA fine-tune trains adapters only, far below 20 B per parameter: {n} GPUs.", {{"n", ns}});
  } else if (n > q.gpus && s.target_days && o.goodput.wall_days > *s.target_days) {
    why = coded("estimate_missed",
                "the full answer, {n} GPUs, misses the {target_days}-day target: {days} days with failures.",
                {{"n", ns}, {"target_days", fmt("%.4g", *s.target_days)}, {"days", fmt("%.1f", o.goodput.wall_days)}});
  } else if (n > q.gpus && s.target_days) {
    why = coded("estimate_compute",
                "the full answer, {n} GPUs, is set by compute: {tokens} tokens at {mfu_pct}% MFU must finish within "
                "{target_days} days ({days} with failures).",
                {{"n", ns},
                 {"tokens", p.training.tokens >= 1e12 ? fmt("%.4gT", p.training.tokens / 1e12)
                                                      : fmt("%.4gB", p.training.tokens / 1e9)},
                 {"mfu_pct", fmt("%.0f", best.time.mfu * 100)},
                 {"target_days", fmt("%.4g", *s.target_days)},
                 {"days", fmt("%.1f", o.goodput.wall_days)}});
  } else if (n > q.gpus) {
    why = coded(
        "estimate_fits",
        "the full answer, {n} GPUs, is the smallest layout that fits: activations, communication buffers, the "
        "{limit_pct}% memory limit and the layout's divisibility rules all add to the 16 B of states per parameter.",
        {{"n", ns}, {"limit_pct", fmt("%.0f", p.memory_limit_fraction * 100)}});
  } else if (n < q.gpus) {
    why = coded(
        "estimate_fewer",
        "the full answer, {n} GPUs, needs fewer: it counts this framework's state bytes and this layout's sharding "
        "exactly instead of a flat 20 B per parameter at {efficiency_pct}%.",
        {{"n", ns}, {"efficiency_pct", fmt("%.0f", q.efficiency * 100)}});
  } else {
    why = coded("estimate_agrees", "the full answer happens to agree: {n} GPUs.", {{"n", ns}});
  }
  w.begin_object();
  w.field("gpus_raw", q.gpus_raw);
  w.field("gpus", q.gpus);
  w.field("params_billion", q.params_billion);
  w.field("memory_gb", q.memory_gb);
  w.field("cluster_efficiency", q.efficiency);
  w.field("bytes_per_param", kRuleOfThumbBytesPerParam);
  w.field("formula", "params[B] × 20 / (GPU memory[GB] × cluster efficiency)");
  w.field("explanation",
          "Rule of thumb: " + fmt("%.1fB", q.params_billion) + " parameters × 20 bytes / (" +
              fmt("%.0f GB", q.memory_gb) + " × " + fmt("%.2g", q.efficiency) + ") = " + fmt("%.1f", q.gpus_raw) +
              " → " + thousands(static_cast<double>(q.gpus)) +
              " GPUs (the article's own 70B / 80 GB / 80% example is 21.9, not the 175 it printed). Its 20 bytes are "
              "mixed-precision Adam's 16 bytes of states per parameter plus about 4 of headroom: a memory floor for "
              "holding the training states, blind to the token budget and the time; " +
              why.message);
  w.field("why", why);
  const Message src =
      coded("estimate_source",
            "docs/cost.md, The rule of thumb (the article checked in docs/article-check.md); Rajbhandari "
            "et al. 2020 (ZeRO) §3.1 for the 16 B");
  w.prose_field("source", src);
  w.end_object();
}

// The default-applied note of a catalog price: which price, from where, and the
// conversion when the catalog's currency is not the answer's.
Message default_price_note(const CostModel& cm, const Price& pr) {
  const RentalPrice& r = *cm.rental;
  Params ps = {{"price", fmt("%.4g", r.value)},
               {"currency", to_string(r.currency)},
               {"type", pr.type},
               {"date", pr.date},
               {"source", pr.source}};
  if (r.converted)
    ps.insert(ps.end(), {{"native_price", fmt("%.4g", r.native_value)},
                         {"native_currency", to_string(r.native_currency)},
                         {"usd_cny", fmt("%.4f", cm.fx.usd_cny)},
                         {"fx_date", cm.fx.date}});
  // [on-demand, rental] × [catalog currency, converted at the central parity, converted at cost.usd_cny].
  static constexpr std::pair<const char*, const char*> kNotes[2][3] = {
      {{"default_price_on_demand",
        "cost.price_per_gpu_hour = {price} {currency} (default: most recent on-demand price in data/gpus.json: {type}, "
        "{date}, {source})"},
       {"default_price_on_demand_converted",
        "cost.price_per_gpu_hour = {price} {currency} (default: most recent on-demand price in data/gpus.json: {type}, "
        "{date}, {source}, {native_price} {native_currency} converted at {usd_cny} CNY per USD ({fx_date} central parity))"},
       {"default_price_on_demand_converted_scenario_fx",
        "cost.price_per_gpu_hour = {price} {currency} (default: most recent on-demand price in data/gpus.json: {type}, "
        "{date}, {source}, {native_price} {native_currency} converted at {usd_cny} CNY per USD (cost.usd_cny))"}},
      {{"default_price_rental",
        "cost.price_per_gpu_hour = {price} {currency} (default: most recent rental price in data/gpus.json: {type}, "
        "{date}, {source})"},
       {"default_price_rental_converted",
        "cost.price_per_gpu_hour = {price} {currency} (default: most recent rental price in data/gpus.json: {type}, "
        "{date}, {source}, {native_price} {native_currency} converted at {usd_cny} CNY per USD ({fx_date} central parity))"},
       {"default_price_rental_converted_scenario_fx",
        "cost.price_per_gpu_hour = {price} {currency} (default: most recent rental price in data/gpus.json: {type}, "
        "{date}, {source}, {native_price} {native_currency} converted at {usd_cny} CNY per USD (cost.usd_cny))"}}};
  const auto& [code, en] = kNotes[r.on_demand ? 0 : 1][!r.converted ? 0 : cm.fx.from_scenario ? 2 : 1];
  return coded(code, en, std::move(ps));
}

// Warnings and defaults of the cost, energy and goodput lines.
void money_notes(const Scenario& s, const SearchResult& sr, const Outcome& o, std::vector<Message>& warnings,
                 std::vector<Message>& defaults) {
  const Problem& p = s.problem;
  const CostModel& cm = p.cost;
  if (!o.cost) {
    const Message why =
        !o.goodput.progress ? coded("no_progress", "the run makes no progress (see goodput)") : cm.unpriced;
    warnings.push_back(wrapping("cost_null", "cost is null: {reason}", why));
  }
  if (cm.mode == CostMode::rented && cm.rental && !cm.rental->from_scenario) {
    const Price& pr = cm.rental->catalog;
    defaults.push_back(default_price_note(cm, pr));
    if (pr.confidence == "low")
      warnings.push_back(coded("price_low_confidence",
                               "the default price for {gpu} ({type}, {date}) is a low-confidence figure; set "
                               "cost.price_per_gpu_hour for a firmer cost",
                               {{"gpu", p.gpu.name}, {"type", pr.type}, {"date", pr.date}}));
  }
  if (s.objective == Objective::cost && !o.cost)
    warnings.push_back(
        coded("cost_objective_unpriced",
              "target.objective = cost without a price: GPU counts are ranked by GPU-hours, which a single price "
              "per GPU-hour would rank the same way"));
  if (s.max_cost && !sr.budget_met)
    warnings.push_back(o.cost ? coded("max_cost_unreachable_costs",
                                      "target.max_cost of {max_cost} not reachable: this plan costs {cost} {currency}",
                                      {{"max_cost", fmt("%.6g", *s.max_cost)},
                                       {"cost", fmt("%.6g", o.cost->total)},
                                       {"currency", to_string(o.cost->currency)}})
                              : coded("max_cost_unreachable", "target.max_cost of {max_cost} not reachable",
                                      {{"max_cost", fmt("%.6g", *s.max_cost)}}));
  const bool power_used = o.energy.known || cm.mode == CostMode::owned;
  if (!p.gpu.power_limit_w.value && !p.gpu.tdp_w.value)
    warnings.push_back(coded("power_unknown", "gpu.tdp_w is unknown for {gpu}: energy is null; set it in a gpu object",
                             {{"gpu", p.gpu.name}}));
  else if (power_used && !p.gpu.power_limit_w.value && p.gpu.tdp_w.confidence == "low")
    warnings.push_back(cm.mode == CostMode::owned
                           ? coded("power_low_confidence_owned",
                                   "gpu.tdp_w for {gpu} is a low-confidence figure (energy and electricity cost)",
                                   {{"gpu", p.gpu.name}})
                           : coded("power_low_confidence", "gpu.tdp_w for {gpu} is a low-confidence figure (energy)",
                                   {{"gpu", p.gpu.name}}));
  const EnergyInputs& en = cm.energy;
  if (en.host_overhead_default)
    defaults.push_back(
        coded("default_host_overhead",
              "energy.host_overhead = {value} (default: measured 8×H100 node power in training, 0.76 × 10.2 kW, "
              "over 8 × 700 W; arXiv:2506.14551)",
              {{"value", fmt("%.3f", en.host_overhead)}}));
  if (en.pue_default)
    defaults.push_back(coded("default_pue", "energy.pue = {value} (default: Uptime Institute survey 2024 average)",
                             {{"value", fmt("%.2f", en.pue)}}));
  if (en.grid_default)
    defaults.push_back(coded(
        "default_grid",
        "energy.grid_kg_co2_per_kwh = {value} (default: 2023 world average, Ember Global Electricity Review 2024)",
        {{"value", fmt("%.3f", en.grid_kg_co2_per_kwh)}}));
  const GoodputInputs& gp = p.goodput;
  if (gp.enabled) {
    if (gp.mtbf_default)
      defaults.push_back(coded(
          "default_mtbf",
          "goodput.mtbf_hours = {value} per GPU (default: Llama 3 §3.3.4, 466 interruptions in 54 days on 16,384 GPUs)",
          {{"value", fmt("%.0f", gp.mtbf_hours)}}));
    if (gp.write_default)
      defaults.push_back(
          coded("default_checkpoint_write",
                "goodput.checkpoint_write_seconds = {value} (default: asynchronous checkpointing stalls training for "
                "the device-to-host copy only)",
                {{"value", fmt("%.0f", gp.checkpoint_write_seconds)}}));
    if (gp.restart_default)
      defaults.push_back(coded(
          "default_restart", "goodput.restart_minutes = {value} (default: detection, rescheduling, reload and warm-up)",
          {{"value", fmt("%.0f", gp.restart_minutes)}}));
    if (!gp.checkpoint_interval_minutes)
      defaults.push_back(coded(
          "default_checkpoint_interval",
          "goodput.checkpoint_interval_minutes = {value} (default: Young's optimum sqrt(2 · write time · job MTBF))",
          {{"value", fmt("%.1f", o.goodput.interval_minutes)}}));
    if (!o.goodput.progress)
      warnings.push_back(
          coded("goodput_no_progress",
                "goodput: a failure every {hours} hours costs more than the job gains between failures (half a "
                "checkpoint interval plus the restart): no progress; shorten the restart or the checkpoint "
                "interval, or use fewer GPUs",
                {{"hours", fmt("%.3g", o.goodput.job_mtbf_hours)}}));
    else if (o.goodput.fraction < 0.5)
      warnings.push_back(
          coded("goodput_low",
                "goodput is only {pct}%: the first-order checkpoint model (Young 1974) is least accurate when "
                "failures are this frequent",
                {{"pct", fmt("%.0f", o.goodput.fraction * 100)}}));
  }
  if (s.cluster_efficiency_default)
    defaults.push_back(
        coded("default_cluster_efficiency", "assume.cluster_efficiency = 0.8 (default: the article's rule of thumb)"));
}

// One point of the GPU-count curve: the fastest fitting layout at that count.
void curve_point_json(JsonWriter& w, const Scenario& s, const CurvePoint& pt) {
  const Layout& l = pt.best.layout;
  w.begin_object();
  w.field("gpus", l.gpus());
  w.field("days", pt.best.run.days);
  w.field("gpu_hours", pt.best.run.gpu_hours);
  w.field("step_time_s", pt.best.time.step_time_s);
  w.field("mfu", pt.best.time.mfu);
  w.field("tokens_per_s_per_gpu", pt.best.time.tokens_per_s_per_gpu);
  w.field("memory_used_fraction", pt.best.memory.total() / capacity_bytes(s.problem.gpu));
  w.key("plan").begin_object();
  w.field("tp", l.tp);
  w.field("pp", l.pp);
  w.field("dp", l.dp);
  w.field("cp", l.cp);
  w.field("vpp", l.vpp);
  w.field("micro_batch", l.micro_batch);
  w.field("zero_stage", l.zero_stage);
  w.field("recompute", to_string(l.recompute));
  w.field("global_batch_tokens", global_batch(s.problem.training, l) * s.problem.training.seq_len);
  w.end_object();
  w.field("goodput_days", num_or_null(pt.outcome.goodput.wall_days));
  w.field("cost", pt.outcome.cost ? std::optional(pt.outcome.cost->total) : std::nullopt);
  w.field("pareto", pt.pareto);
  w.end_object();
}

// The warnings and defaults_applied arrays, last in both answers.
void notes_json(JsonWriter& w, const Notes& n) {
  w.field("warnings", n.warnings);
  w.field("defaults_applied", n.defaults_applied);
}

void write_evaluate(JsonWriter& w, const Answer& a) {
  const Scenario& s = a.scenario;
  const Candidate& best = a.chosen.best;
  const Outcome& o = a.chosen.outcome;
  w.begin_object();
  w.field("gpucalc_version", GPUCALC_VERSION);
  w.key("model");
  model_json(w, s, best.layout.recompute, best.layout.recompute_modules);
  w.key("gpu");
  gpu_json(w, s);
  candidate_fields(w, s, best);
  w.key("goodput");
  goodput_json(w, s, o.goodput);
  w.key("cost");
  cost_json(w, s, o);
  w.key("energy");
  energy_json(w, s, o.energy);
  w.key("quick_estimate");
  quick_estimate_json(w, s, best, o);
  w.key("search");
  search_json(w, s, a.search);
  uncertainty_fields(w, s, a.chosen);  // calibration, uncertainty, oom_risk
  notes_json(w, a.notes);
  w.end_object();
}

void write_search(JsonWriter& w, const SearchAnswer& a) {
  const Scenario& s = a.scenario;
  const Candidate& best = *a.search.result.chosen;
  const Outcome& o = a.outcome;
  w.begin_object();
  w.field("gpucalc_version", GPUCALC_VERSION);
  w.key("model");
  model_json(w, s, best.layout.recompute, best.layout.recompute_modules);
  w.key("gpu");
  gpu_json(w, s);
  w.key("best").begin_object();
  candidate_fields(w, s, best);
  w.key("goodput");
  goodput_json(w, s, o.goodput);
  w.key("cost");
  cost_json(w, s, o);
  w.key("energy");
  energy_json(w, s, o.energy);
  w.end_object();
  w.key("top").begin_array();
  for (const auto& cand : a.search.top) {
    w.begin_object();
    candidate_fields(w, s, cand, false);
    w.end_object();
  }
  w.end_array();
  w.key("curve").begin_array();
  for (const auto& pt : a.search.curve) curve_point_json(w, s, pt);
  w.end_array();
  w.key("search");
  search_json(w, s, a.search.result);
  notes_json(w, a.notes);
  w.end_object();
}

void error_json(JsonWriter& w, const Error& e) { w.value(e); }

// One row of `gpucalc compare`: the headline numbers of the row's evaluate answer.
void compare_row_json(JsonWriter& w, const CompareRow& r) {
  w.begin_object();
  w.key("gpu").begin_object().field("id", r.gpu_id).field("name", r.gpu_name).end_object();
  w.field("ok", r.answer.ok());
  if (!r.answer) {
    w.key("error");
    error_json(w, r.answer.error());
    w.end_object();
    return;
  }
  const Answer& a = *r.answer;
  const Scenario& s = a.scenario;
  const Candidate& c = a.chosen.best;
  const Layout& l = c.layout;
  const Outcome& o = a.chosen.outcome;
  w.field("gpus", l.gpus());
  w.key("layout").begin_object();
  w.field("tp", l.tp);
  w.field("pp", l.pp);
  w.field("dp", l.dp);
  w.field("cp", l.cp);
  w.field("vpp", l.vpp);
  w.field("micro_batch", l.micro_batch);
  w.field("zero_stage", l.zero_stage);
  w.field("recompute", to_string(l.recompute));
  w.field("global_batch_tokens", global_batch(s.problem.training, l) * s.problem.training.seq_len);
  w.end_object();
  w.field("days", c.run.days);
  w.field("goodput_days", num_or_null(o.goodput.wall_days));
  w.field("goodput_fraction", o.goodput.fraction);
  w.field("gpu_hours", num_or_null(o.goodput.gpu_hours));
  w.field("mfu", c.time.mfu);
  // Whose efficiencies the time model used: this GPU's measured profile, a measured
  // sibling's (data/perf.json aliases), or the unmeasured default; a GPU's own profile
  // may be derived from its siblings' measurements rather than measured (GB300).
  w.field("perf_profile", s.problem.perf.profile_id);
  w.field("perf_profile_measured", s.problem.perf.measured);
  w.field("step_time_s", c.time.step_time_s);
  w.key("cost");
  cost_json(w, s, o);
  if (o.energy.known) {
    const Gpu& g = s.problem.gpu;
    w.key("energy").begin_object();
    w.field("mwh", o.energy.mwh);
    w.field("co2_tonnes", o.energy.co2_tonnes);
    w.field("power_w_per_gpu", o.energy.watts_per_gpu);
    w.field("power_confidence", o.energy.from_power_limit ? g.power_limit_w.confidence : g.tdp_w.confidence);
    w.end_object();
  } else {
    w.field("energy", nullptr);
  }
  const double cap = capacity_bytes(s.problem.gpu);
  w.key("memory").begin_object();
  w.field("used_bytes", round_bytes(c.memory.total()));
  w.field("capacity_bytes", round_bytes(cap));
  w.field("used_fraction", cap > 0 ? c.memory.total() / cap : 0.0);
  w.field("fits", c.memory.total() <= cap);
  w.field("within_limit", c.fits);
  // parallel.gpus fixed and nothing fits on this accelerator: from how many it would.
  const std::optional<FitElsewhere>& e = a.search.elsewhere;
  w.field("fits_from_gpus", e && e->fewest ? std::optional(e->fewest->layout.gpus()) : std::nullopt);
  w.end_object();
  w.field("target_met", s.target_days ? std::optional<bool>(a.search.target_met) : std::nullopt);
  w.field("max_cost_met", s.max_cost ? std::optional<bool>(a.search.budget_met) : std::nullopt);
  w.field("warnings", a.notes.warnings);
  w.end_object();
}

void write_compare(JsonWriter& w, const CompareAnswer& a) {
  const Problem& p = a.scenario.problem;
  w.begin_object();
  w.field("gpucalc_version", GPUCALC_VERSION);
  w.key("model").begin_object();
  w.field("id", p.model.id);
  w.field("name", p.model.name);
  w.field("params", count_params(p.model).total);
  w.end_object();
  w.key("training").begin_object();
  w.field("tokens", p.training.tokens);
  w.field("seq_len", p.training.seq_len);
  w.field("global_batch_tokens", p.training.global_batch * p.training.seq_len);
  w.end_object();
  w.key("target").begin_object();
  w.field("days", a.scenario.target_days);
  w.field("max_cost", a.scenario.max_cost);
  w.field("objective", to_string(a.scenario.objective));
  w.end_object();
  w.key("rows").begin_array();
  for (const CompareRow& r : a.rows) compare_row_json(w, r);
  w.end_array();
  w.key("summary").begin_object();
  w.field("fewest_gpus", a.fewest_gpus);
  w.field("fastest", a.fastest);
  w.field("cheapest", a.cheapest);
  w.field("least_energy", a.least_energy);
  w.end_object();
  w.end_object();
}

template <class A, class Write>
std::string render(const A& a, Write write) {
  JsonWriter w;
  write(w, a);
  return w.take();
}

}  // namespace

Notes answer_notes(const Scenario& s, const SearchResult& sr, const Candidate& best, const Outcome& o) {
  Notes n;
  n.warnings = s.warnings;
  for (auto& w : warnings_json(s, sr, best)) n.warnings.push_back(std::move(w));
  n.defaults_applied = s.defaults_applied;
  money_notes(s, sr, o, n.warnings, n.defaults_applied);
  return n;
}

std::string to_json(const Answer& a) { return render(a, write_evaluate); }
std::string to_json(const SearchAnswer& a) { return render(a, write_search); }
std::string to_json(const CompareAnswer& a) { return render(a, write_compare); }

}  // namespace gpucalc
