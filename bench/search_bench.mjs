// Wasm half of scripts/bench: the same search through the Embind module under node.
// Usage: node bench/search_bench.mjs DIST_DIR SCENARIO.json [RUNS]
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dist, file, runsArg] = process.argv.slice(2);
const runs = Math.max(1, Number(runsArg ?? 20));
const { default: createGpucalc } = await import(pathToFileURL(path.resolve(dist, "gpucalc.js")).href);
const core = await createGpucalc({ wasmBinary: readFileSync(path.resolve(dist, "gpucalc.wasm")) });
const scenario = readFileSync(file, "utf8");
let out = core.search(scenario); // warm-up
let total = 0;
let best = Infinity;
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  out = core.search(scenario);
  const ms = performance.now() - t0;
  total += ms;
  best = Math.min(best, ms);
}
const env = JSON.parse(out);
if (!env.ok) {
  console.error(`search failed: ${JSON.stringify(env.error)}`);
  process.exit(1);
}
console.log(JSON.stringify({ runs, mean_ms: total / runs, min_ms: best, layouts_evaluated: env.value.search.layouts_evaluated }));
