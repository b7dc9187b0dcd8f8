// An MoE answer whose expert-parallel all-to-all is left exposed (search.hpp MoeCommFix;
// docs/performance-model.md "An exposed MoE all-to-all"). The scenario's defaults are
// Megatron-Core's: the all-to-all dispatcher, no overlap of it with compute. DeepSeek-V3
// trained with fused dispatch and combine kernels (DeepEP) and its all-to-all hidden under
// another micro-batch's compute (DualPipe; Megatron-Core's EP overlap does the same), and
// at expert-parallel sizes of 64 and more that decides the GPU count: DeepSeek-V3 on H800,
// 15T tokens in 60 days, 8,192 GPUs by default and 4,096 with both.
#include <optional>
#include <string>

#include "search_pass.hpp"

namespace gpucalc {
namespace {

// Where DeepEP runs: NVLink-connected Hopper and Blackwell data-centre GPUs (its kernels
// are written for SM90 and later, and intranode traffic rides NVLink).
bool deepep_runs_on(const Gpu& g) {
  const bool arch = g.arch.rfind("Hopper", 0) == 0 || g.arch.rfind("Blackwell", 0) == 0;
  return arch && g.scaleup_domain.value && *g.scaleup_domain.value > 1;
}

double gpu_hours(const Problem& p, const Candidate& c) {
  return outcome(p, c).goodput.wall_days * static_cast<double>(c.layout.gpus());
}

}  // namespace

std::optional<Problem> moe_comm_variant(const Problem& p, const SearchResult& r) {
  const Training& tr = p.training;
  if (!r.chosen || !r.chosen->fits || r.truncated || !is_moe(p.model) || tr.framework != Framework::megatron ||
      (tr.moe_dispatcher == MoeDispatcher::deepep && tr.overlap_moe_comm) || !deepep_runs_on(p.gpu))
    return std::nullopt;
  const StepTime& st = r.chosen->time;
  if (!(st.ep_comm_s >= 0.1 * st.step_time_s)) return std::nullopt;
  Problem both = p;
  both.training.moe_dispatcher = MoeDispatcher::deepep;
  both.training.overlap_moe_comm = true;
  return both;
}

void judge_moe_comm(const Problem& p, const Problem& both, const Target& t, const SearchResult& w, SearchResult& r) {
  r.moe_comm.reset();
  if (!r.chosen || !w.chosen || !w.chosen->fits || w.truncated) return;
  const bool meets = t.days && w.target_met && !r.target_met;
  if (!meets && !(gpu_hours(both, *w.chosen) < 0.9 * gpu_hours(p, *r.chosen))) return;
  r.moe_comm = MoeCommFix{*w.chosen, outcome(both, *w.chosen).goodput.wall_days};
}

void explain_moe_comm(const CompiledProblem& cp, const Constraints& c, const Target& t, SearchResult& r) {
  r.moe_comm.reset();
  const auto both = moe_comm_variant(*cp.problem, r);
  if (!both) return;
  judge_moe_comm(*cp.problem, *both, t, search_pass(compile_problem(*both), c, t, nullptr), r);
}

}  // namespace gpucalc
