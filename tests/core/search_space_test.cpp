// The invariants the search's pruning rests on (core/src/search_space.hpp), checked
// directly over seeded random problems and every layout their search space holds, and
// the compiled problem's evaluation against the direct one (core/src/compiled_problem.hpp).
// The seed is fixed, so a failure reproduces; INFO names the problem and the layout.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../../core/src/compiled_problem.hpp"
#include "../../core/src/search_space.hpp"
#include "gpucalc/hardware.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/perf.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/search.hpp"

using namespace gpucalc;

namespace {

struct Rng {
  std::mt19937_64 g;
  size_t below(size_t n) { return static_cast<size_t>(g() % n); }
  bool chance(double p) { return static_cast<double>(g() % 1'000'000) < p * 1e6; }
  template <class T>
  T pick(std::initializer_list<T> xs) {
    return *(xs.begin() + static_cast<std::ptrdiff_t>(below(xs.size())));
  }
  template <class T>
  const T& pick(const std::vector<T>& xs) {
    return xs[below(xs.size())];
  }
};

std::vector<std::string> preset_ids() {
  std::vector<std::string> ids;
  for (const auto& m : model_presets()) ids.push_back(m.id);
  return ids;
}

std::vector<std::string> gpu_ids() {
  std::vector<std::string> ids;
  for (const auto& g : gpu_catalog())
    if (g.memory_gib.value && g.bf16_tflops.value && g.fp8_tflops.value) ids.push_back(g.id);
  return ids;
}

// A random problem: any preset on any GPU, any framework, precision, training stage,
// optimizer and offload the scenario format allows together.
Problem random_problem(Rng& r) {
  const Scenario base = *parse_scenario(
      R"({"model":"llama-3.1-8b","gpu":"h100-sxm-80gb","training":{"tokens":1e12,"seq_len":4096,"global_batch":512}})");
  Problem p = base.problem;
  p.model = *find_model(r.pick(preset_ids()));
  p.gpu = *find_gpu(r.pick(gpu_ids()));
  p.perf = perf_profile_for(p.gpu.id);
  Training& t = p.training;
  t.seq_len = r.pick<int64_t>({1024, 4096, 8192, 32768});
  t.global_batch = r.pick<int64_t>({64, 256, 512, 1536});
  t.framework =
      r.pick({Framework::megatron, Framework::torchtitan, Framework::deepspeed, Framework::hf, Framework::torchtune});
  t.precision = r.pick({Precision::bf16, Precision::fp16, Precision::fp8});
  t.stage = r.pick({Stage::pretrain, Stage::pretrain, Stage::full_finetune, Stage::lora, Stage::qlora});
  t.optimizer = r.pick({Optimizer::adamw, Optimizer::adamw, Optimizer::adam8bit, Optimizer::sgd, Optimizer::adafactor});
  t.flash_attention = !r.chance(0.2);
  t.master_weights = !r.chance(0.1);
  if (r.chance(0.3)) t.grad_dtype_bytes = r.pick({2, 4});
  if (r.chance(0.2)) t.offload.optimizer = true;
  if (t.offload.optimizer && r.chance(0.3)) t.offload.params = true;
  if (t.stage == Stage::qlora) t.lora.paged_optimizer = r.chance(0.5);
  if (t.stage == Stage::lora) t.lora.base_bytes = r.pick({2.0, 4.0});
  if (t.framework == Framework::torchtune) t.optimizer_in_backward = r.chance(0.3);
  if (r.chance(0.2)) t.overlap_tp_comm = true;
  if (r.chance(0.2)) t.overlap_moe_comm = true;
  return p;
}

std::string describe(const Problem& p, const Layout& l) {
  return p.model.id + " on " + p.gpu.id + " " + to_string(p.training.framework) + " " + to_string(p.training.stage) +
         " " + to_string(p.training.precision) + " s " + std::to_string(p.training.seq_len) + " B " +
         std::to_string(p.training.global_batch) + " offload " + std::to_string(p.training.offload.optimizer) +
         std::to_string(p.training.offload.params) + ": tp " + std::to_string(l.tp) + " pp " + std::to_string(l.pp) +
         " dp " + std::to_string(l.dp) + " cp " + std::to_string(l.cp) + " ep " + std::to_string(l.ep) + " vpp " +
         std::to_string(l.vpp) + " zero " + std::to_string(l.zero_stage) + " shard " + std::to_string(l.shard) +
         " recompute " + to_string(l.recompute) + " modules " + std::to_string(l.recompute_modules) + " b " +
         std::to_string(l.micro_batch);
}

// Every layout but its micro-batch.
bool same_but_micro_batch(Layout a, const Layout& b) {
  a.micro_batch = b.micro_batch;
  return a.tp == b.tp && a.pp == b.pp && a.dp == b.dp && a.cp == b.cp && a.ep == b.ep && a.etp == b.etp &&
         a.vpp == b.vpp && a.zero_stage == b.zero_stage && a.recompute == b.recompute &&
         a.recompute_modules == b.recompute_modules && a.shard == b.shard;
}

// Walks up to `cap` layouts of the problem's space at a fixed GPU count, every
// micro-batch (the visitor never prunes).
template <class Visit>
int walk_all(const Problem& p, int64_t gpus, int cap, Visit visit) {
  Constraints c;
  c.gpus = gpus;
  int n = 0;
  enumerate_layouts(p, c, [&](const Layout& l) {
    if (n >= cap) return false;
    ++n;
    visit(l);
    return true;
  });
  return n;
}

}  // namespace

TEST_CASE("per-GPU memory never falls as the micro-batch grows, the other dimensions fixed", "[search][property]") {
  Rng r{std::mt19937_64(20261202)};
  int compared = 0;
  for (int i = 0; i < 60; ++i) {
    const Problem p = random_problem(r);
    Layout prev;
    double prev_total = -1;
    walk_all(p, r.pick<int64_t>({8, 16, 64, 256}), 4000, [&](const Layout& l) {
      const double total = worst_stage_memory(p.model, p.training, l, p.overheads).total();
      if (prev_total >= 0 && same_but_micro_batch(prev, l) && l.micro_batch > prev.micro_batch) {
        ++compared;
        INFO(describe(p, prev) << " → b " << l.micro_batch << ": " << prev_total << " → " << total << " bytes");
        CHECK(total >= prev_total * (1 - 1e-12));
      }
      prev = l;
      prev_total = total;
    });
  }
  CHECK(compared >= 5000);
}

TEST_CASE("no layout of fewer GPUs than min_gpus_to_hold_states fits", "[search][property]") {
  Rng r{std::mt19937_64(7)};
  int below = 0;
  for (int i = 0; i < 80; ++i) {
    const Problem p = random_problem(r);
    const double cap = p.memory_limit_fraction * capacity_bytes(p.gpu);
    const int64_t least = min_gpus_to_hold_states(p.model, p.training, cap);
    for (int64_t gpus : {1, 2, 4, 8, 16, 32, 64}) {
      if (gpus >= least) break;
      walk_all(p, gpus, 1500, [&](const Layout& l) {
        ++below;
        const double total = worst_stage_memory(p.model, p.training, l, p.overheads).total();
        INFO(describe(p, l) << ": " << total << " bytes, limit " << cap << ", at least " << least << " GPUs");
        CHECK(total > cap);
      });
    }
  }
  CHECK(below >= 2000);
}

TEST_CASE("a compiled problem evaluates every layout to the same numbers as the direct evaluation",
          "[search][property]") {
  Rng r{std::mt19937_64(99)};
  int compared = 0;
  for (int i = 0; i < 40; ++i) {
    const Problem p = random_problem(r);
    const CompiledProblem cp = compile_problem(p);
    std::vector<Layout> layouts;
    walk_all(p, r.pick<int64_t>({8, 64, 512}), 600, [&](const Layout& l) { layouts.push_back(l); });
    // Twice, the second time in another order, so the kept layer times are reused.
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) std::shuffle(layouts.begin(), layouts.end(), r.g);
      for (const Layout& l : layouts) {
        const Candidate a = evaluate_layout(p, l);
        Candidate b = evaluate_memory(cp, l);
        time_layout(cp, b);
        INFO(describe(p, l));
        REQUIRE(a.memory.total() == b.memory.total());
        REQUIRE(a.fits == b.fits);
        for (auto f : {&StepTime::step_time_s, &StepTime::compute_s, &StepTime::tp_comm_s, &StepTime::cp_comm_s,
                       &StepTime::ep_comm_s, &StepTime::moe_overhead_s, &StepTime::pp_comm_s, &StepTime::offload_s,
                       &StepTime::bubble_s, &StepTime::dp_comm_exposed_s, &StepTime::zero3_comm_exposed_s,
                       &StepTime::optimizer_s, &StepTime::mfu, &StepTime::hfu})
          REQUIRE(a.time.*f == b.time.*f);
        REQUIRE(a.run.days == b.run.days);
        ++compared;
      }
    }
  }
  CHECK(compared >= 10000);
}

TEST_CASE("the walk's open vpp and micro-batch candidates drop only what broken_rule rejects", "[search][property]") {
  // The walk offers an open vpp only where pp·vpp chunks carry a layer each, and under
  // interleaving only micro-batches that leave a count divisible by pp. Against a walk
  // with those two dimensions unfiltered (vpp 1-8, every divisor up to 64) and every
  // combination put to broken_rule, the same layouts must come out, in the same order.
  Rng r{std::mt19937_64(314)};
  int64_t layouts = 0;
  for (int i = 0; i < 30; ++i) {
    const Problem p = random_problem(r);
    Constraints c;
    c.gpus = r.pick<int64_t>({8, 16, 64, 256});
    SearchSpace s = search_space(p, c);
    std::vector<Layout> walked;
    walk(s, p.model, p.training, [&](const Layout& l) {
      walked.push_back(l);
      return true;
    });
    for (SearchDim& d : s.dims) {
      if (std::string(d.name) == "vpp")
        d.values = [](const Layout& l, std::vector<int64_t>& out) {
          out = {1};
          if (l.pp > 1) out.insert(out.end(), {2, 3, 4, 6, 8});
        };
      if (std::string(d.name) == "micro_batch")
        d.values = [&p](const Layout& l, std::vector<int64_t>& out) {
          out.clear();
          const int64_t n = global_batch(p.training, l) / l.dp;
          for (int64_t b = 1; b <= std::min<int64_t>(n, 64); ++b)
            if (n % b == 0) out.push_back(b);
        };
    }
    std::vector<Layout> all;
    walk(s, p.model, p.training, [&](const Layout& l) {
      if (!is_moe(p.model) || l.vpp == 1 || l.vpp == 2 || l.vpp == 4) all.push_back(l);
      return true;
    });
    INFO(p.model.id << " on " << c.gpus.value_or(0) << " GPUs");
    REQUIRE(walked.size() == all.size());
    const auto same = [](const Layout& a, const Layout& b) {
      return same_but_micro_batch(a, b) && a.micro_batch == b.micro_batch;
    };
    const auto differ = std::mismatch(walked.begin(), walked.end(), all.begin(), same);
    if (differ.first != walked.end())
      FAIL(describe(p, *differ.first) << " walked where " << describe(p, *differ.second));
    layouts += static_cast<int64_t>(all.size());
  }
  CHECK(layouts >= 10000);
}
