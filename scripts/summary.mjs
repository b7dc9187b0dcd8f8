// Prints a short human summary of a scenario's answer, computed by the native CLI.
// Usage: node scripts/summary.mjs examples/FILE.json
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const file = process.argv[2] ?? "examples/llama-3.1-70b-h100.json";
const cli = process.env.GPUCALC_CLI ?? "build/native/cli/gpucalc";
const scenario = JSON.parse(readFileSync(file, "utf8"));
let v;
try {
  v = JSON.parse(execFileSync(cli, ["evaluate", file], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
} catch (error) {
  console.error(`${cli} evaluate ${file} failed: ${error.stderr?.trim() || error.message}`);
  process.exit(1);
}

const GiB = 2 ** 30;
const n = (x, d = 1) => Number(x).toLocaleString("en-US", { maximumFractionDigits: d });
const p = v.plan ?? {};
const m = v.memory ?? {};
const perf = v.performance ?? {};
const tr = v.training ?? {};
const name = (answer, asked) => answer?.name ?? (typeof asked === "string" ? asked : "custom");

console.log(`${file}: ${name(v.model, scenario.model)} on ${name(v.gpu, scenario.gpu)}, ` +
  `${n((scenario.training?.tokens ?? 0) / 1e12)}T tokens, target ${n(scenario.target?.days)} days`);
console.log(`  => ${n(p.gpus, 0)} GPUs, ${n(tr.days)} days, ${n(tr.gpu_hours, 0)} GPU-hours`);
console.log(`  plan: TP ${p.tp} · PP ${p.pp} · DP ${p.dp} · CP ${p.cp} · EP ${p.ep} · micro-batch ${p.micro_batch}` +
  ` · ZeRO ${p.zero_stage} · recompute ${p.recompute}`);
console.log(`  memory/GPU: ${n(m.total_bytes / GiB)} of ${n(m.capacity_bytes / GiB)} GiB (${m.fits ? "fits" : "DOES NOT FIT"})` +
  ` · step ${n(perf.step_time_s, 2)} s · MFU ${n(perf.mfu * 100)}% · ${n(perf.tflops_per_gpu, 0)} TFLOPS/GPU`);
// The answer's own uncertainty and OOM-risk blocks (docs/validation.md "Uncertainty ranges").
const days = v.uncertainty?.time?.days;
if (days && Number.isFinite(days.p10) && Number.isFinite(days.p90)) {
  console.log(`  range: ${n(days.p10)}-${n(days.p90)} days (P10-P90 from the validation errors)` +
    (v.oom_risk?.level ? ` · OOM risk ${v.oom_risk.level}` : ""));
}
for (const w of v.warnings ?? []) console.log(`  warning: ${typeof w === "string" ? w : (w?.message ?? JSON.stringify(w))}`);
const compact = {
  gpus: p.gpus, tp: p.tp, pp: p.pp, dp: p.dp, cp: p.cp, ep: p.ep, micro_batch: p.micro_batch,
  zero_stage: p.zero_stage, recompute: p.recompute, total_bytes: m.total_bytes, capacity_bytes: m.capacity_bytes,
  fits: m.fits, step_time_s: perf.step_time_s, mfu: perf.mfu, days: tr.days, gpu_hours: tr.gpu_hours,
};
console.log(`  json: ${JSON.stringify(compact)}`);
