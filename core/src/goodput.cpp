#include "gpucalc/goodput.hpp"

#include <cmath>
#include <limits>

namespace gpucalc {

Goodput goodput(const GoodputInputs& in, int64_t gpus, double ideal_hours) {
  Goodput g;
  g.ideal_hours = ideal_hours;
  g.enabled = in.enabled;
  const double n = static_cast<double>(gpus > 0 ? gpus : 1);
  if (!in.enabled) {
    g.wall_hours = ideal_hours;
    g.wall_days = ideal_hours / 24;
    g.gpu_hours = ideal_hours * n;
    return g;
  }
  // M, the whole job's mean time between interruptions: a synchronous job stops when any
  // of its GPUs (or their hosts and links) fails, so per-GPU rates add up.
  const double m_hours = in.interruptions_per_day ? 24.0 / *in.interruptions_per_day : in.mtbf_hours / n;
  const double m = m_hours * 60;  // minutes
  g.job_mtbf_hours = m_hours;
  g.write_minutes = in.checkpoint_write_seconds / 60;
  g.restart_minutes = in.restart_minutes;
  if (in.checkpoint_interval_minutes) {
    g.interval_minutes = *in.checkpoint_interval_minutes;
  } else {
    // Young 1974: τ_opt = sqrt(2·δ·M) minimises the first-order waste δ/τ + τ/(2M).
    g.interval_minutes = std::sqrt(2 * g.write_minutes * m);
    g.interval_is_young_optimum = true;
  }
  const double tau = g.interval_minutes;
  g.lost_per_failure_minutes = tau / 2 + g.restart_minutes;
  // τ = 0 only when checkpoints are free (δ = 0 and τ at Young's optimum).
  g.checkpoint_overhead = tau > 0 ? g.write_minutes / tau : 0;
  g.failure_loss = g.lost_per_failure_minutes / m;
  const double useful = 1 - g.failure_loss;
  if (!(useful > 0)) {
    // Failures arrive faster than the job can redo its lost work: no progress.
    g.progress = false;
    g.fraction = 0;
    g.wall_hours = g.wall_days = g.gpu_hours = g.failures_expected = std::numeric_limits<double>::infinity();
    return g;
  }
  g.fraction = useful / (1 + g.checkpoint_overhead);
  g.wall_hours = ideal_hours / g.fraction;
  g.wall_days = g.wall_hours / 24;
  g.gpu_hours = g.wall_hours * n;
  g.failures_expected = g.wall_hours / m_hours;
  return g;
}

}  // namespace gpucalc
