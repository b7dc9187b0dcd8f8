// Uncertainty ranges, out-of-memory risk and calibration (docs/validation.md
// "Uncertainty ranges"; docs/scenario-format.md `calibration`). Pure: the validation
// spread is the embedded data/uncertainty.json, written by scripts/validate.mjs.
#include "gpucalc/uncertainty.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include <nlohmann/json.hpp>

#include "decimal.hpp"
#include "embedded.hpp"
#include "gpucalc/hardware.hpp"
#include "gpucalc/message.hpp"
#include "gpucalc/perf.hpp"
#include "gpucalc/scenario.hpp"
#include "json_input.hpp"
#include "uncertainty_json.hpp"

namespace gpucalc {
namespace {

using json = nlohmann::ordered_json;

constexpr double kGiB = 1073741824.0;
// Fujii et al. 2024, "Accelerating Large Language Model Training with 4D Parallelism and
// Memory Consumption Estimator": no out-of-memory failure in 454 runs on A100/H100
// whose estimate stayed under 80% of device memory.
constexpr double kFujiiFraction = 0.8;

constexpr const char* kSource =
    "data/uncertainty.json (with data/validation.json): the published runs of validation/ fed through the model with "
    "their published layouts (scripts/validate.mjs; docs/validation.md, Uncertainty ranges)";
constexpr const char* kFujii =
    "Fujii et al. 2024, Accelerating Large Language Model Training with 4D Parallelism and Memory Consumption "
    "Estimator: no out-of-memory failure in 454 runs on A100/H100 whose estimate stayed under 80% of device memory";

std::string fmt(const char* f, double v) { return format_printf(f, v); }

double number_at(const json& j, const char* key, double fallback = std::nan("")) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::vector<double> numbers_at(const json& j, const char* key) {
  std::vector<double> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& x : *it)
    if (x.is_number()) out.push_back(x.get<double>());
  return out;
}

std::string text_at(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json& object_at(const json& j, const char* key) {
  static const json empty = json::object();
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : empty;
}

// "2.5× the predicted" or "1/3.2 of the predicted": a factor read either way.
// A code and its English template.
struct EntryText {
  const char* code;
  const char* en;
};

bool absurd(double r) { return !(r <= kMaxCalibrationRatio && r >= 1 / kMaxCalibrationRatio); }

}  // namespace

const ValidationSpread& validation_spread() {
  static const ValidationSpread spread = [] {
    ValidationSpread v;
    const json d = input::embedded_document(data::uncertainty_json());
    if (!d.is_object()) return v;
    const json& sum = object_at(d, "summary");
    v.rows = static_cast<int>(number_at(sum, "rows", 0));
    v.median_abs_error = number_at(sum, "median_abs_error", 0);
    v.mean_abs_error = number_at(sum, "mean_abs_error", 0);
    v.max_abs_error = number_at(sum, "max_abs_error", 0);
    const json& t = object_at(d, "time");
    const json& m = object_at(d, "memory");
    v.time_n = static_cast<int>(number_at(t, "n", 0));
    v.time_p10 = number_at(t, "p10");
    v.time_p50 = number_at(t, "p50");
    v.time_p90 = number_at(t, "p90");
    v.time_ratios = numbers_at(t, "ratios_sorted");
    v.memory_n = static_cast<int>(number_at(m, "n", 0));
    v.memory_low = number_at(m, "low");
    v.memory_high = number_at(m, "high");
    v.memory_ratios = numbers_at(m, "ratios_sorted");
    const auto bands = [](const json& o, std::vector<std::pair<std::string, ValidationSpread::Band>>& out) {
      for (auto it = o.begin(); it != o.end(); ++it) {
        ValidationSpread::Band b;
        b.n = static_cast<int>(number_at(*it, "n", 0));
        b.p10 = number_at(*it, "p10");
        b.p50 = number_at(*it, "p50");
        b.p90 = number_at(*it, "p90");
        b.max_gpus = number_at(*it, "max_gpus", 0);
        const json& fw = object_at(*it, "frameworks");
        for (auto f = fw.begin(); f != fw.end(); ++f)
          if (f->is_number() && f->get<double>() > 0) b.frameworks += (b.frameworks.empty() ? " " : "") + f.key() + " ";
        for (const auto& a : object_at(*it, "accelerators"))
          if (number_at(a, "runs", 0) > 0)
            b.accelerators.push_back(
                {text_at(a, "profile"), number_at(a, "bf16_tflops", 0), number_at(a, "memory_bw_tbs", 0)});
        if (b.n > 0 && b.p10 > 0 && b.p10 <= b.p50 && b.p50 <= b.p90 && std::isfinite(b.p90))
          out.emplace_back(it.key(), b);
      }
    };
    bands(object_at(t, "regimes"), v.regimes);
    bands(object_at(t, "models"), v.models);
    const json& stages = object_at(object_at(object_at(t, "regimes"), "finetune"), "stages");
    for (const char* stage : {"full_finetune", "lora", "qlora"})
      if (number_at(stages, stage, -1) == 0) v.stages_without_runs += std::string(" ") + stage + " ";
    const json& u = object_at(t, "utilisation");
    v.mfu_max = number_at(u, "mfu_max", 0);
    v.hfu_max = number_at(u, "hfu_max", 0);
    v.mfu_row = text_at(u, "mfu_row");
    v.hfu_row = text_at(u, "hfu_row");
    const bool finite = std::isfinite(v.time_p10) && std::isfinite(v.time_p50) && std::isfinite(v.time_p90) &&
                        std::isfinite(v.memory_low) && std::isfinite(v.memory_high);
    // The ratios, when embedded (the wasm build leaves them out: core/slim_data.mjs), are the
    // n the quantiles were taken from.
    const auto counted = [](const std::vector<double>& r, int n) {
      return r.empty() || r.size() == static_cast<size_t>(n);
    };
    v.ok = finite && v.time_n > 0 && v.memory_n > 0 && counted(v.time_ratios, v.time_n) &&
           counted(v.memory_ratios, v.memory_n) && v.time_p10 > 0 && v.time_p10 <= v.time_p90 && v.memory_low > 0 &&
           v.memory_low <= v.memory_high;
    if (!v.ok) {
      v.time_p10 = v.time_p50 = v.time_p90 = 1;
      v.memory_low = v.memory_high = 1;
      return v;
    }
    // Per-framework memory bands, each the P10-P90 of that framework's rows.
    const json& by = object_at(d, "memory_by_framework");
    for (const auto& [name, b] : by.items()) {
      ValidationSpread::MemoryBand band{name, static_cast<int>(number_at(b, "n", 0)), number_at(b, "low"),
                                        number_at(b, "high")};
      if (band.n > 0 && std::isfinite(band.low) && std::isfinite(band.high) && band.low > 0 && band.low <= band.high)
        v.memory_by_framework.push_back(band);
    }
    return v;
  }();
  return spread;
}

namespace {
const ValidationSpread::Band* band_named(const std::vector<std::pair<std::string, ValidationSpread::Band>>& bands,
                                         const std::string& name) {
  for (const auto& [k, b] : bands)
    if (k == name) return &b;
  return nullptr;
}
}  // namespace

const ValidationSpread::Band* ValidationSpread::model(const std::string& id) const { return band_named(models, id); }

const ValidationSpread::Band* ValidationSpread::regime(const std::string& name) const {
  return band_named(regimes, name);
}

const char* time_regime(const Problem& p) {
  if (!p.perf.measured) return "unmeasured_accelerator";
  if (p.training.stage != Stage::pretrain) return "finetune";
  return is_moe(p.model) ? "moe" : "dense";
}

ValidationSpread::MemoryBand ValidationSpread::memory_band(Framework f) const {
  for (const MemoryBand& b : memory_by_framework)
    if (b.framework == to_string(f)) return b;
  return {"pooled", memory_n, memory_low, memory_high};
}

double quantile_type6(const std::vector<double>& x, double p) {
  const double n = static_cast<double>(x.size());
  const double h = (n + 1) * p;
  if (h <= 1) return x.front();
  if (h >= n) return x.back();
  const size_t k = static_cast<size_t>(std::floor(h));
  return x[k - 1] + (h - static_cast<double>(k)) * (x[k] - x[k - 1]);
}

const char* to_string(OomRisk r) {
  switch (r) {
    case OomRisk::high: return "high";
    case OomRisk::medium: return "medium";
    case OomRisk::low: break;
  }
  return "low";
}

OomRisk oom_risk(double high) {
  if (!(high <= 1.0)) return OomRisk::high;  // NaN (no capacity) counts as high
  if (high > kFujiiFraction) return OomRisk::medium;
  return OomRisk::low;
}

std::optional<std::string> calibration_layout_gap(const Scenario& s, bool batch_given) {
  const Constraints& c = s.constraints;
  if (!c.tp) return "parallel.tp";
  if (!c.pp) return "parallel.pp";
  if (!c.dp) return "parallel.dp";
  if (!c.cp) return "parallel.cp";
  if (*c.pp > 1 && !c.vpp) return "parallel.vpp";
  if (is_moe(s.problem.model) && !c.ep) return "parallel.ep";
  if (!batch_given) return "training.global_batch";
  if (!c.micro_batch) return "training.micro_batch";
  if (!c.zero_stage) return "training.zero_stage";
  if (!c.recompute) return "training.recompute";
  return std::nullopt;
}

Expected<Calibrated> calibrate(const Scenario& s, const Candidate& chosen, SearchResult& sr,
                               const std::optional<FittedKnobs>& knobs) {
  const Problem& p = s.problem;
  Calibrated c;
  c.best = chosen;
  c.predicted_step_time_s = chosen.time.step_time_s;
  c.predicted_memory_bytes = chosen.memory.total();
  const bool time_cal = s.calibration && s.calibration->step_time_s;
  const bool mem_cal = s.calibration && s.calibration->peak_memory_gib;
  // One coded message for a measurement above the prediction, one for below.
  const auto refuse = [](const char* field, EntryText above, EntryText below, double measured, double predicted) {
    const double r = measured / predicted;
    const EntryText& t = r >= 1 ? above : below;
    return coded_error(std::string("/calibration/") + field, t.code, t.en,
                       {{"measured", fmt("%.4g", measured)},
                        {"ratio", fmt("%.3g", r >= 1 ? r : 1 / r)},
                        {"predicted", fmt("%.4g", predicted)},
                        {"max", fmt("%.0f", kMaxCalibrationRatio)}});
  };
  if (time_cal && knobs) {
    // The knobs fitted on the measured layout (calibration_fit.cpp) priced every layout the
    // search explored. On the measured layout itself the step is the measurement (to the
    // bisection's precision); the last rounding is taken out so it is exactly that.
    c.knobs = *knobs;
    c.predicted_step_time_s = knobs->predicted_s;
    if (is_measured_layout(*knobs, chosen.layout, p.training.global_batch)) {
      c.time_factor = knobs->measured_s / knobs->predicted_s;
      const double f = knobs->measured_s / chosen.time.step_time_s;
      StepTime& t = c.best.time;
      // Every term of the breakdown (they add up to the step), the step, and the rates.
      for (double* x :
           {&t.compute_s, &t.tp_comm_s, &t.cp_comm_s, &t.ep_comm_s, &t.moe_overhead_s, &t.offload_s, &t.pp_comm_s,
            &t.dp_comm_exposed_s, &t.zero3_comm_exposed_s, &t.bubble_s, &t.optimizer_s, &t.dp_comm_total_s})
        *x *= f;
      t.step_time_s = knobs->measured_s;
      for (double* x : {&t.tokens_per_s_per_gpu, &t.mfu, &t.hfu, &t.tflops_per_gpu, &t.efficiency}) *x /= f;
      c.best.run = run_time(p.training, c.best.layout, t);
    }
  }
  if (mem_cal) {
    const double measured = *s.calibration->peak_memory_gib * kGiB;
    const double predicted = c.predicted_memory_bytes;
    if (!(predicted > 0))
      return coded_error("/calibration/measured_peak_memory_gib", "calibration_no_memory",
                         "cannot be compared: the answer has no peak memory");
    const double f = measured / predicted;
    if (absurd(f))
      return refuse(
          "measured_peak_memory_gib",
          {"calibration_memory_above",
           "{measured} GiB is {ratio}× the predicted {predicted} GiB for this layout; more than {max}× either way "
           "is not a model error but a measurement of something else: check that it is the peak of the most loaded "
           "GPU (pipeline stage 0) in GiB (2^30 bytes), on this layout and micro-batch"},
          {"calibration_memory_below",
           "{measured} GiB is 1/{ratio} of the predicted {predicted} GiB for this layout; more than {max}× either way "
           "is not a model error but a measurement of something else: check that it is the peak of the most loaded "
           "GPU (pipeline stage 0) in GiB (2^30 bytes), on this layout and micro-batch"},
          measured / kGiB, predicted / kGiB);
    c.memory_factor = f;
    StageMemory& m = c.best.memory;
    for (double* x :
         {&m.weights, &m.weights_gathered, &m.fp8_weight_cache, &m.gradients, &m.optimizer, &m.layer_activations,
          &m.recompute_working, &m.logits, &m.cuda_context, &m.comm_buffers, &m.fragmentation})
      *x *= f;
    m.fragmentation += measured - m.total();  // rounding, and any term not listed above: the total is the measurement
    c.best.fits = m.total() <= p.memory_limit_fraction * capacity_bytes(p.gpu);
  }
  c.outcome = outcome(p, c.best);
  if (s.calibration) {
    // The targets, judged again on the calibrated run. Whether the layout was eligible
    // stays the search's call on the prediction: the memory limit is a margin for an
    // estimate's error, and a measured peak (reported in memory.within_limit) is none.
    const Outcome& o = c.outcome;
    if (s.target_days) sr.target_met = chosen.fits && o.goodput.progress && o.goodput.wall_days <= *s.target_days;
    if (s.max_cost) sr.budget_met = chosen.fits && o.cost && o.cost->total <= *s.max_cost;
  }
  return c;
}

namespace {

// The calibration the answer took (null without one): what was measured, what was fitted.
void calibration_fields(JsonWriter& w, const Scenario& s, const Calibrated& c) {
  const Problem& p = s.problem;
  const Candidate& b = c.best;
  w.key("calibration");
  if (!s.calibration) {
    w.value(nullptr);
  } else {
    // A layout with its batch, as the page's calibration note says it (calibrate.js planLine).
    const auto text = [](const Layout& l, int64_t global_batch) {
      const auto n = [](int64_t x) { return std::to_string(x); };
      return "TP " + n(l.tp) + " × PP " + n(l.pp) + " × DP " + n(l.dp) + " × CP " + n(l.cp) + " (" + n(l.gpus()) +
             " GPUs), VPP " + n(l.vpp) + ", micro-batch " + n(l.micro_batch) + ", global batch " + n(global_batch) +
             ", ZeRO-" + n(l.zero_stage) + ", recompute " + to_string(l.recompute);
    };
    w.begin_object();
    w.field("layout", text(b.layout, p.training.global_batch));
    w.key("step_time");
    if (c.time_factor) {
      w.begin_object();
      w.field("measured_s", b.time.step_time_s);
      w.field("predicted_s", c.predicted_step_time_s);
      w.field("factor", *c.time_factor);
      w.end_object();
    } else {
      w.value(nullptr);
    }
    w.key("peak_memory");
    if (c.memory_factor) {
      w.begin_object();
      w.field("measured_bytes", std::round(b.memory.total()));
      w.field("predicted_bytes", std::round(c.predicted_memory_bytes));
      w.field("factor", *c.memory_factor);
      w.end_object();
    } else {
      w.value(nullptr);
    }
    w.key("fitted");
    if (c.knobs) {
      const FittedKnobs& k = *c.knobs;
      w.begin_object();
      w.field("compute_scale", k.compute_scale);
      w.field("network_scale", k.network_scale);
      w.field("measured_on", text(k.layout, k.global_batch));
      w.field("measured_s", k.measured_s);
      w.field("predicted_s", k.predicted_s);
      w.field("at_bound", k.at_bound);
      w.end_object();
    } else {
      w.value(nullptr);
    }
    w.field(
        "scaled",
        "with a measured step time: the compute knob fitted on the measured layout (fitted.compute_scale: every "
        "kernel rate × it) prices every layout and GPU count searched, so on the measured layout the step time is the "
        "measurement (step_time.factor = measured / predicted there) and elsewhere the model's with the fitted knob; "
        "the run, goodput, cost and energy follow; with a measured peak: every "
        "memory term × peak_memory.factor, so memory.total_bytes is the measurement (the item formulas stay the "
        "model's); the targets are judged again on the calibrated run");
    w.field("source", "scenario calibration (docs/scenario-format.md)");
    w.end_object();
  }
}

// The band an answer's time range takes: its regime's, joined with the bands its job, its
// model preset, an untried stage or framework and a scale beyond the runs' add.
struct TimeBand {
  const char* regime = "";
  const char* kind = "";  // the job's own regime (dense, moe, finetune)
  const ValidationSpread::Band* own = nullptr;
  const ValidationSpread::Band* mine = nullptr;  // the model preset's runs, when joined
  ValidationSpread::Band band;
  bool beyond = false;         // more GPUs than the regime's largest run
  bool untried_stage = false;  // a fine-tuning stage none of the regime's runs has
  bool untried_fw = false;     // a framework none of the regime's runs used
  bool untried_acc = false;    // an accelerator none of the regime's runs ran on
};

void widen(ValidationSpread::Band& band, const ValidationSpread::Band& by) {
  band.p10 = std::min(band.p10, by.p10);
  band.p90 = std::max(band.p90, by.p90);
}

// Whether one of the regime's runs ran on the answer's accelerator as far as the time model
// goes: the same performance profile at the same dense BF16 peak and memory bandwidth, the
// rates the profile's efficiencies multiply (H800 as H100 SXM; not H20, H200 or H100 PCIe,
// which take H100's profile at other rates).
bool accelerator_tried(const Problem& p, const std::vector<ValidationSpread::Band::Rates>& tried) {
  const auto same = [](double a, const Spec& b) { return b.value && std::abs(a - *b.value) <= 1e-6 * std::abs(a); };
  return std::any_of(tried.begin(), tried.end(), [&](const ValidationSpread::Band::Rates& r) {
    return r.profile == p.perf.profile_id && same(r.bf16_tflops, p.gpu.bf16_tflops) &&
           same(r.memory_bw_tbs, p.gpu.memory_bw_tbs);
  });
}

TimeBand time_band(const Problem& p, const ValidationSpread& v, const Candidate& b) {
  TimeBand r;
  // The band of the answer's regime; beyond the largest GPU count its runs reach, the
  // wider of it and the band of every run (docs/validation.md, Uncertainty ranges).
  r.regime = time_regime(p);
  const ValidationSpread::Band pooled{v.time_n, v.time_p10, v.time_p50, v.time_p90, 0, {}, {}};
  r.own = v.regime(r.regime);
  r.band = r.own ? *r.own : pooled;
  r.beyond = r.own && static_cast<double>(b.layout.gpus()) > r.own->max_gpus;
  if (r.beyond) widen(r.band, pooled);
  // An unmeasured accelerator also carries its job's own regime's error (an MoE job there
  // is at least as uncertain as on a measured GPU).
  const bool unmeasured_regime = std::string(r.regime) == "unmeasured_accelerator";
  r.kind = p.training.stage != Stage::pretrain ? "finetune" : is_moe(p.model) ? "moe" : "dense";
  if (const auto* job = v.regime(r.kind); r.own && job && unmeasured_regime) widen(r.band, *job);
  // A preset with published Megatron pre-training runs of its own: their band joins the
  // regime's, so a model whose runs sit to one side of the predictions widens its range
  // that way (docs/validation.md "Uncertainty ranges").
  if (r.own && p.training.stage == Stage::pretrain && p.training.framework == Framework::megatron)
    r.mine = v.model(p.model.id);
  if (r.mine) widen(r.band, *r.mine);
  // A fine-tuning stage none of the regime's runs has (QLoRA: its NF4 dequantisation is
  // priced, never measured in a published run) rests on rates no run checked, as an
  // unmeasured accelerator's do: its band joins the unmeasured-accelerator band. So does a
  // framework none of the regime's runs used (DeepSpeed, torchtune; an MoE job outside
  // Megatron): its kernels and overlaps are priced, never checked against its stack.
  const ValidationSpread::Band* unmeasured = v.regime("unmeasured_accelerator");
  if (!r.own || !unmeasured) return r;
  const std::string stage = to_string(p.training.stage), fw = to_string(p.training.framework);
  r.untried_stage =
      std::string(r.regime) == "finetune" && v.stages_without_runs.find(" " + stage + " ") != std::string::npos;
  r.untried_fw =
      !unmeasured_regime && !r.own->frameworks.empty() && r.own->frameworks.find(" " + fw + " ") == std::string::npos;
  // So does an accelerator none of them ran on (an MoE job on Ascend or A100, any job on
  // H20 or MI300X so far): its profile's rates were never checked in a job of this kind.
  r.untried_acc = !unmeasured_regime && !r.own->accelerators.empty() && !accelerator_tried(p, r.own->accelerators);
  if (r.untried_stage || r.untried_fw || r.untried_acc) widen(r.band, *unmeasured);
  return r;
}

// How the validation band was made, in words (uncertainty.time.method).
std::string validation_method(const Problem& p, const TimeBand& t) {
  std::string m = t.own ? "an 80% prediction interval of actual / predicted time from the " +
                              fmt("%.0f published runs of the regime ", t.band.n) + t.regime +
                              " (log-normal, Student t with n-1 degrees of freedom, so few runs widen it)"
                        : "P10-P90 of actual / predicted time over every published run (no band for the regime)";
  if (t.beyond)
    m += "; the plan's GPU count is beyond the regime's largest validated run, so the band is widened to "
         "cover every run's";
  if (std::string(t.regime) == "unmeasured_accelerator")
    m +=
        std::string(p.perf.profile_id == "default"
                        ? "; the unmeasured-accelerator band is the default profile's error on measured GPUs, "
                        : "; this accelerator's profile is derived from its siblings' measurements, not measured, so "
                          "it takes the unmeasured-accelerator band (the default profile's error on measured GPUs), ") +
        "joined with the band of the job's own regime (" + t.kind + ")";
  if (t.mine)
    m += fmt("; joined with the band of the %.0f published runs of this model preset", t.mine->n) + " (" + p.model.id +
         ")";
  if (t.untried_stage)
    m += "; joined with the unmeasured-accelerator band, as no run of the regime is " +
         std::string(to_string(p.training.stage));
  if (t.untried_fw)
    m += "; joined with the unmeasured-accelerator band, as no run of the regime ran on " +
         std::string(to_string(p.training.framework));
  if (t.untried_acc)
    m += "; joined with the unmeasured-accelerator band, as no run of the regime ran on " + p.gpu.name +
         " or an accelerator with its profile, BF16 peak and memory bandwidth";
  return m + ", times each predicted time figure; goodput and prices are taken as given";
}

// The time range: the validation band of the answer (time_band), times each predicted
// time figure.
void time_range_fields(JsonWriter& w, const Scenario& s, const Calibrated& c) {
  const Problem& p = s.problem;
  const ValidationSpread& v = validation_spread();
  const Candidate& b = c.best;
  const Outcome& o = c.outcome;
  w.key("time").begin_object();
  const std::string basis = !v.ok              ? "unavailable"
                            : c.time_factor    ? "calibration"
                            : p.efficiency.mfu ? "assume.mfu"
                            : p.efficiency.hfu ? "assume.hfu"
                                               : "validation";
  w.field("basis", basis);
  const TimeBand t = time_band(p, v, b);
  w.field("regime", t.regime);
  w.field("n", t.band.n);
  w.field("model_runs", t.mine ? t.mine->n : 0);
  w.key("untried_stage");
  if (t.untried_stage) w.value(to_string(p.training.stage));
  else w.value(nullptr);
  w.key("untried_framework");
  if (t.untried_fw) w.value(to_string(p.training.framework));
  else w.value(nullptr);
  w.key("untried_accelerator");
  if (t.untried_acc) w.value(p.gpu.id);
  else w.value(nullptr);
  w.field("beyond_validated_scale", t.beyond);
  const bool ranged = basis == "validation";
  const auto range = [&](const char* key, double point) {
    w.key(key);
    if (!ranged || !std::isfinite(point)) {
      w.value(nullptr);
      return;
    }
    w.begin_object();
    w.field("p10", point * t.band.p10);
    w.field("p50", point * t.band.p50);
    w.field("p90", point * t.band.p90);
    w.end_object();
  };
  range("ratio", 1.0);
  range("step_time_s", b.time.step_time_s);
  range("days", b.run.days);
  range("gpu_hours", b.run.gpu_hours);
  range("goodput_days", o.goodput.progress ? o.goodput.wall_days : std::nan(""));
  range("goodput_gpu_hours", o.goodput.progress ? o.goodput.gpu_hours : std::nan(""));
  range("cost", o.cost ? o.cost->total : std::nan(""));
  range("energy_mwh", o.energy.known ? o.energy.mwh : std::nan(""));
  w.field("method", basis == "calibration"  ? std::string("the step time is the scenario's measurement on this layout, "
                                                           "so the validation spread no longer applies")
                    : basis == "validation" ? validation_method(p, t)
                    : basis == "unavailable" ? std::string("the embedded validation data is missing")
                                             : basis +
                                                   " sets the step time; the validation measures the predicted "
                                                   "time model, so no range is given");
  w.end_object();
}

// The memory range from the framework's measured peaks; returns the range's upper end.
double memory_range_fields(JsonWriter& w, const Scenario& s, const Calibrated& c) {
  const Problem& p = s.problem;
  const ValidationSpread& v = validation_spread();
  const Candidate& b = c.best;
  const double cap = capacity_bytes(p.gpu);
  const double mem = b.memory.total();
  const bool mem_ranged = v.ok && !c.memory_factor;
  // The band of the answer's framework (its own measured rows), or the pooled one.
  const ValidationSpread::MemoryBand mband = v.memory_band(p.training.framework);
  const double mem_high = mem_ranged ? mem * mband.high : mem;
  w.key("memory").begin_object();
  w.field("basis", !v.ok ? "unavailable" : c.memory_factor ? "calibration" : "validation");
  w.field("n", mband.n);
  w.field("framework", mband.framework);
  w.key("ratio");
  if (mem_ranged) w.begin_object().field("low", mband.low).field("high", mband.high).end_object();
  else w.value(nullptr);
  w.key("total_bytes");
  if (mem_ranged)
    w.begin_object().field("low", std::round(mem * mband.low)).field("high", std::round(mem_high)).end_object();
  else w.value(nullptr);
  w.key("used_fraction");
  if (mem_ranged && cap > 0)
    w.begin_object().field("low", mem * mband.low / cap).field("high", mem_high / cap).end_object();
  else w.value(nullptr);
  w.field("method",
          c.memory_factor
              ? std::string(
                    "the peak is the scenario's measurement on this layout, so the validation spread no longer applies")
              : fmt("P10-P90 (Hyndman & Fan definition 6, widened to hold the point estimate) of measured / "
                    "predicted peak over %.0f published runs ",
                    mband.n) +
                    (mband.framework == "pooled" ? std::string("of every framework (none of this framework's)")
                                                 : "of the " + mband.framework + " framework"));
  w.end_object();
  return mem_high;
}

// Out-of-memory risk: the upper end of the memory range against the capacity.
void oom_risk_fields(JsonWriter& w, const Scenario& s, const Calibrated& c, double mem_high) {
  const double mem = c.best.memory.total();
  const double cap = capacity_bytes(s.problem.gpu);
  const double used = cap > 0 ? mem / cap : std::nan("");
  const double used_high = cap > 0 ? mem_high / cap : std::nan("");
  w.key("oom_risk").begin_object();
  w.field("level", to_string(oom_risk(used_high)));
  w.field("used_fraction", used);
  w.field("used_fraction_high", used_high);
  w.field("threshold", kFujiiFraction);
  w.field("rule",
          c.memory_factor
              ? "the measured peak against the device's memory: high above it, medium above 80% of it, low otherwise"
              : "the upper end of the memory range (memory.total_bytes × uncertainty.memory.ratio.high) against the "
                "device's memory: high above it, medium above 80% of it, low otherwise");
  w.field("source", kFujii);
  w.end_object();
}

}  // namespace

void uncertainty_fields(JsonWriter& w, const Scenario& s, const Calibrated& c) {
  calibration_fields(w, s, c);
  // The validation spread around the (calibrated) point estimates.
  w.key("uncertainty").begin_object();
  w.field("source", kSource);
  time_range_fields(w, s, c);
  const double mem_high = memory_range_fields(w, s, c);
  w.end_object();
  oom_risk_fields(w, s, c, mem_high);
}

}  // namespace gpucalc
