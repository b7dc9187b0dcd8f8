#include "compiled_problem.hpp"

namespace gpucalc {

CompiledProblem compile_problem(const Problem& p) {
  CompiledProblem cp;
  cp.problem = &p;
  cp.params = count_params(p.model);
  cp.memory_limit = p.memory_limit_fraction * capacity_bytes(p.gpu);
  cp.kernels = kernels_for(p.gpu, p.perf, p.training, p.efficiency);
  cp.fabric = fabric_for(p.gpu, p.perf, p.efficiency.network_scale);
  cp.state_bytes = state_bytes(p.training, &p.model);
  return cp;
}

Candidate evaluate_memory(const CompiledProblem& cp, const Layout& l) {
  Candidate c;
  c.layout = l;
  c.memory = worst_stage_memory(cp, l);
  c.fits = c.memory.total() <= cp.memory_limit;
  return c;
}

void time_layout(const CompiledProblem& cp, Candidate& c) {
  c.time = step_time(cp, c.layout);
  c.run = run_time(cp.problem->training, c.layout, c.time);
}

bool time_layout_unless(const CompiledProblem& cp, Candidate& c, const std::function<bool(double)>& hopeless) {
  if (!step_time_unless(cp, c.layout, hopeless, c.time)) return false;
  c.run = run_time(cp.problem->training, c.layout, c.time);
  return true;
}

}  // namespace gpucalc
