// Prints a short human summary of a scenario's answer, computed by the native CLI.
// Usage: node scripts/summary.mjs examples/FILE.json
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const file = process.argv[2] ?? "examples/llama-3.1-70b-h100.json";
const cli = process.env.GPUCALC_CLI ?? "build/native/cli/gpucalc";
const scenario = JSON.parse(readFileSync(file, "utf8"));
const v = JSON.parse(execFileSync(cli, ["evaluate", file], { encoding: "utf8" }));

const GiB = 2 ** 30;
const n = (x, d = 1) => Number(x).toLocaleString("en-US", { maximumFractionDigits: d });
const p = v.plan ?? {};
const m = v.memory ?? {};
const perf = v.performance ?? {};
const tr = v.training ?? {};
const name = (x) => (typeof x === "string" ? x : (x?.id ?? x?.name ?? "custom"));

console.log(`Default scenario (${file}): ${name(scenario.model)} on ${name(scenario.gpu)}, ` +
  `${n((scenario.training?.tokens ?? 0) / 1e12)}T tokens, target ${n(scenario.target?.days)} days`);
console.log(`  => ${n(p.gpus, 0)} GPUs, ${n(tr.days)} days, ${n(tr.gpu_hours, 0)} GPU-hours`);
console.log(`  plan: TP ${p.tp} · PP ${p.pp} · DP ${p.dp} · CP ${p.cp} · EP ${p.ep} · micro-batch ${p.micro_batch}` +
  ` · ZeRO ${p.zero_stage} · recompute ${p.recompute}`);
console.log(`  memory/GPU: ${n(m.total_bytes / GiB)} of ${n(m.capacity_bytes / GiB)} GiB (${m.fits ? "fits" : "DOES NOT FIT"})` +
  ` · step ${n(perf.step_time_s, 2)} s · MFU ${n(perf.mfu * 100)}% · ${n(perf.tflops_per_gpu, 0)} TFLOPS/GPU`);
for (const w of v.warnings ?? []) console.log(`  warning: ${typeof w === "string" ? w : JSON.stringify(w)}`);
console.log(`  json: ${JSON.stringify(v)}`);
