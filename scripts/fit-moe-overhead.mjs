#!/usr/bin/env node
// Fits data/perf.json moe_layer_overhead (docs/performance-model.md "MoE layer
// overhead"): the fixed time per Megatron-Core MoE layer per micro-batch that the
// per-op model does not price.
//
// The rows: the counted MoE pre-training rows of validation/ (Megatron-Bridge tables).
// Training subset: the rows at even positions (0, 2, 4, ...) of their file names in
// alphabetical order; held out: the odd positions. A row's step time is linear in the
// overhead o: T(o) = T0 + S·o, with S the MoE layer-micro-batches on the critical
// stage plus their share of the pipeline bubble, both read from the CLI's answer at
// the committed o (> 0). o minimises the squared log error of the first metric over the
// training subset (a golden-section search). Prints the fit, the errors of the training
// and held-out rows, and a leave-one-model-out check; --write stores the value.
// The search may pick another micro-batch or interleaving once o changes: run again
// (after rebuilding) until the value stays put.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.resolve(ROOT, process.env.GPUCALC_CLI ?? "build/native/cli/gpucalc");
const PERF = path.join(ROOT, "data/perf.json");
const perf = JSON.parse(readFileSync(PERF, "utf8"));
const o0 = perf.moe_layer_overhead.value_ms / 1e3;
if (!(o0 > 0)) throw new Error("data/perf.json moe_layer_overhead.value_ms must be > 0 to read the slopes");

const rows = [];
const files = readdirSync(path.join(ROOT, "validation")).filter((f) => f.endsWith(".json") && f !== "excluded.json" && f !== "regime-ceilings.json").sort();
for (const f of files) {
  const row = JSON.parse(readFileSync(path.join(ROOT, "validation", f), "utf8"));
  if (!row.counts_toward_target) continue;
  const r = spawnSync(CLI, ["evaluate", "-"], { input: JSON.stringify(row.scenario), encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${row.id}: ${r.stderr}`);
  const v = JSON.parse(r.stdout);
  if (v.uncertainty.time.regime !== "moe") continue;
  const [key, reported] = Object.entries(row.reported)[0];
  if (key !== "tokens_per_s_per_gpu") throw new Error(`${row.id}: first metric ${key}, expected tokens_per_s_per_gpu`);
  const b = v.performance.breakdown;
  const m = v.plan.micro_batches;
  // Per micro-batch on the critical path (step_time.cpp compose_step): the bubble is
  // (p-1)·chunk_share of it, so it grows with the overhead in that proportion.
  const tMb = (b.compute_s + b.tp_comm_s + b.cp_comm_s + b.ep_comm_s + b.moe_overhead_s + b.pp_comm_s + b.offload_s) / m;
  const S = (b.moe_overhead_s / o0) * (1 + (tMb > 0 ? b.bubble_s / (m * tMb) : 0));
  const T = v.performance.step_time_s;
  const measured = T * (v.performance.tokens_per_s_per_gpu / reported);
  const model = typeof row.scenario.model === "string" ? row.scenario.model : row.scenario.model.name;
  rows.push({ id: row.id, model, T0: T - S * o0, S, measured });
}

const err = (r, o) => r.measured / (r.T0 + r.S * o) - 1;
const loss = (set, o) => set.reduce((a, r) => a + Math.log(r.measured / (r.T0 + r.S * o)) ** 2, 0);
function fit(set) {
  let lo = 0, hi = 0.05;
  for (let i = 0; i < 100; i++) {
    const a = lo + (hi - lo) * 0.382, b = lo + (hi - lo) * 0.618;
    if (loss(set, a) < loss(set, b)) hi = b;
    else lo = a;
  }
  return (lo + hi) / 2;
}
function stats(set, o) {
  const e = set.map((r) => err(r, o));
  const a = e.map(Math.abs).sort((x, y) => x - y), s = e.slice().sort((x, y) => x - y);
  const mid = (x) => (x.length % 2 ? x[(x.length - 1) / 2] : (x[x.length / 2 - 1] + x[x.length / 2]) / 2);
  const p = (x) => `${(x * 100).toFixed(1)}%`;
  return `n ${set.length}, median |error| ${p(mid(a))}, mean ${p(a.reduce((x, y) => x + y, 0) / a.length)}, max ${p(a[a.length - 1])}, signed median ${p(mid(s))}`;
}

const train = rows.filter((_, i) => i % 2 === 0), held = rows.filter((_, i) => i % 2 === 1);
const o = fit(train);
console.log(`rows: ${rows.length} counted MoE rows; training ${train.length} (even positions), held out ${held.length} (odd positions)`);
console.log(`fitted overhead: ${(o * 1e3).toFixed(2)} ms per MoE layer per micro-batch`);
console.log(`  without it (o = 0), all rows: ${stats(rows, 0)}`);
console.log(`  training rows:  ${stats(train, o)}`);
console.log(`  held-out rows:  ${stats(held, o)}`);
console.log(`  all rows:       ${stats(rows, o)}`);
const lomo = [];
for (const m of [...new Set(rows.map((r) => r.model))]) {
  const om = fit(rows.filter((r) => r.model !== m));
  const set = rows.filter((r) => r.model === m);
  lomo.push(...set.map((r) => ({ ...r, o: om })));
  console.log(`  leave ${m} out: fit ${(om * 1e3).toFixed(2)} ms, its ${set.length} rows: ${stats(set, om)}`);
}
const lomoErr = lomo.map((r) => Math.abs(err(r, r.o))).sort((x, y) => x - y);
console.log(`  leave-one-model-out, all rows: median |error| ${(lomoErr[Math.floor(lomoErr.length / 2)] * 100).toFixed(1)}%, max ${(lomoErr[lomoErr.length - 1] * 100).toFixed(1)}%`);
for (const r of rows) console.log(`    ${train.includes(r) ? "train" : "held "} ${r.id.padEnd(48)} ${(err(r, 0) * 100).toFixed(1).padStart(7)}% -> ${(err(r, o) * 100).toFixed(1).padStart(7)}%`);

if (process.argv.includes("--write")) {
  perf.moe_layer_overhead.value_ms = Math.round(o * 1e5) / 100;
  writeFileSync(PERF, `${JSON.stringify(perf, null, 1)}\n`);
  console.log(`wrote ${perf.moe_layer_overhead.value_ms} ms to data/perf.json`);
}
