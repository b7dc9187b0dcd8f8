// The search cache in the wasm module (core/src/search_cache.hpp), as the page's workers
// use it: one module instance answers a sequence of edits of the default scenario and
// keeps its searches; each answer must be the same text, byte for byte, as the answer of
// a module instance that never saw an earlier scenario. The edits mix those that leave
// every step time alone (deadline, tokens, price, currency, objective, budget, goodput)
// with those that do not (accelerator, sequence length, memory limit, fixed tp, GPU count).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { before, test } from "node:test";
import { pathToFileURL } from "node:url";
import { DEFAULT_EXAMPLE, DIST, readJson } from "./helpers.mjs";

let createGpucalc;
let wasmModule;
const fresh = () =>
  createGpucalc({
    instantiateWasm: (imports, receive) => {
      WebAssembly.instantiate(wasmModule, imports).then((instance) => receive(instance, wasmModule));
      return {};
    },
  });

before(async () => {
  ({ default: createGpucalc } = await import(pathToFileURL(path.join(DIST, "gpucalc.js")).href));
  wasmModule = await WebAssembly.compile(readFileSync(path.join(DIST, "gpucalc.wasm")));
});

const EDITS = [
  ["deadline 59 days", (s) => (s.target.days = 59)],
  ["deadline 60 days", (s) => (s.target.days = 60)],
  ["deadline 25 days", (s) => (s.target.days = 25)],
  ["deadline 2 days (unreachable)", (s) => (s.target.days = 2)],
  ["unreachable, a budget", (s) => (s.target.max_cost = 1e7)],
  ["deadline 25 days, no budget", (s) => ((s.target.days = 25), delete s.target.max_cost)],
  ["12T tokens", (s) => (s.training.tokens = 12e12)],
  ["a price in USD", (s) => (s.cost = { currency: "USD", price_per_gpu_hour: 2.2 })],
  ["the price in CNY", (s) => (s.cost = { currency: "CNY", price_per_gpu_hour: 14 })],
  ["objective: cost", (s) => (s.target.objective = "cost")],
  ["goodput: MTBF 1500 h", (s) => (s.goodput = { mtbf_hours: 1500 })],
  ["sequence length 4096", (s) => (s.training.seq_len = 4096)],
  ["deadline 40 days", (s) => (s.target.days = 40)],
  ["memory limit 70%", (s) => (s.target.max_memory_fraction = 0.7)],
  ["H20", (s) => (s.gpu = "h20-96gb")],
  ["deadline 80 days", (s) => (s.target.days = 80)],
  ["tp fixed at 4", (s) => (s.parallel = { tp: 4 })],
  ["16 GPUs (nothing fits)", (s) => (s.parallel = { gpus: 16 })],
  ["16 GPUs, deadline 30 days", (s) => (s.target.days = 30)],
  ["back to H100, no fixed layout", (s) => ((s.gpu = "h100-sxm-80gb"), delete s.parallel)],
  ["deadline 60 days again", (s) => (s.target.days = 60)],
];

test("a kept search answers as a fresh one, byte for byte, over a sequence of edits", async () => {
  const warm = await fresh();
  const scenario = readJson(DEFAULT_EXAMPLE);
  warm.evaluate(JSON.stringify(scenario));
  warm.search(JSON.stringify(scenario));
  for (const [what, edit] of EDITS) {
    edit(scenario);
    const text = JSON.stringify(scenario);
    const cold = await fresh();
    const answer = warm.evaluate(text);
    assert.equal(answer, cold.evaluate(text), `evaluate after "${what}"`);
    assert.ok(JSON.parse(answer).ok || what.includes("nothing fits"), `${what}: ${answer.slice(0, 200)}`);
    const coldSearch = await fresh();
    assert.equal(warm.search(text), coldSearch.search(text), `search after "${what}"`);
  }
});
