// The GPU-count curve and the top layouts. When the core exports search(), its
// answer is used as is. Until then they are built from evaluate() alone: one call
// per GPU count (each is the core's best layout for that count), and one per
// (tp, pp) at the chosen count. Every number still comes from the core.

const PLAN_KEYS = ["gpus", "tp", "pp", "dp", "cp", "ep", "vpp", "micro_batch", "zero_stage", "recompute"];
const pick = (obj, keys) => Object.fromEntries(keys.filter((k) => obj?.[k] !== undefined).map((k) => [k, obj[k]]));

// Marks each point that no other point beats on both days and GPU-hours.
export function markPareto(points) {
  for (const p of points) {
    p.pareto = !points.some(
      (q) => q !== p && q.days <= p.days && q.gpu_hours <= p.gpu_hours && (q.days < p.days || q.gpu_hours < p.gpu_hours),
    );
  }
  return points;
}

function gpuCounts(minFit, chosen, fixed) {
  const counts = new Set();
  const lo = Math.max(1, minFit ?? 1);
  const hi = Math.max(65536, (chosen ?? 0) * 4);
  for (let n = 1; n <= hi; n *= 2) {
    if (n >= lo) counts.add(n);
    if (3 * (n / 2) >= lo && n >= 2) counts.add(3 * (n / 2));
  }
  counts.add(lo);
  if (chosen) counts.add(chosen);
  if (fixed) counts.add(fixed);
  return [...counts].filter((n) => Number.isInteger(n) && n >= lo && n <= hi).sort((a, b) => a - b);
}

function entryOf(v) {
  return {
    plan: pick(v.plan, PLAN_KEYS),
    memory: pick(v.memory, ["total_bytes", "capacity_bytes", "used_fraction", "fits"]),
    performance: pick(v.performance, ["step_time_s", "mfu", "hfu", "tflops_per_gpu", "breakdown"]),
    training: pick(v.training, ["days", "gpu_hours"]),
  };
}

// evaluate: (scenarioObject) => envelope. hint: {gpus, min_gpus_fit} from the answer.
export function sweep(evaluate, scenario, hint = {}) {
  let evaluated = 0;
  const run = (s) => {
    const env = evaluate(s);
    if (env.ok) evaluated += env.value.search?.layouts_evaluated ?? 1;
    return env;
  };
  const fixed = scenario.parallel ?? {};

  const curve = [];
  let lastDays = Infinity;
  for (const gpus of gpuCounts(hint.min_gpus_fit, hint.gpus, fixed.gpus)) {
    const s = structuredClone(scenario);
    s.parallel = { ...fixed, gpus };
    delete s.target;
    const env = run(s);
    if (!env.ok || !env.value.memory?.fits) continue;
    const v = env.value;
    curve.push({
      gpus,
      days: v.training.days,
      gpu_hours: v.training.gpu_hours,
      step_time_s: v.performance?.step_time_s,
      mfu: v.performance?.mfu,
      tokens_per_s_per_gpu: v.performance?.tokens_per_s_per_gpu,
      memory_used_fraction: v.memory?.used_fraction,
      plan: pick(v.plan, PLAN_KEYS),
    });
    // Past the point where more GPUs stop helping (the batch caps DP), stop.
    if (v.training.days >= lastDays * 0.999 && curve.length > 3) break;
    lastDays = Math.min(lastDays, v.training.days);
  }
  markPareto(curve);

  const top = [];
  const gpus = hint.gpus ?? fixed.gpus;
  if (gpus) {
    const seen = new Set();
    const tps = fixed.tp ? [fixed.tp] : [1, 2, 4, 8, 16];
    const pps = fixed.pp ? [fixed.pp] : [1, 2, 4, 8, 16, 32];
    for (const tp of tps) {
      for (const pp of pps) {
        if (tp * pp > gpus || gpus % (tp * pp) !== 0) continue;
        const s = structuredClone(scenario);
        s.parallel = { ...fixed, gpus, tp, pp };
        delete s.target;
        const env = run(s);
        if (!env.ok || !env.value.memory?.fits) continue;
        const e = entryOf(env.value);
        const key = PLAN_KEYS.map((k) => e.plan[k]).join("|");
        if (seen.has(key)) continue;
        seen.add(key);
        top.push(e);
      }
    }
    top.sort(
      (a, b) =>
        a.performance.step_time_s - b.performance.step_time_s || a.memory.total_bytes - b.memory.total_bytes,
    );
    top.splice(10);
  }
  return { ok: true, value: { source: "sweep", curve, top, search: { layouts_evaluated: evaluated } } };
}
