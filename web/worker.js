// The core in a Web Worker, so typing never waits for it.
// in:  first {type: "init", module: WebAssembly.Module | null, warm?: JSON text} (the page's
//      compiled core, shared by every worker; null: load and compile it here; warm: a
//      scenario to search before saying ready, whose search the core then keeps), then
//      {id, op: "evaluate" | "explore" | "compare", scenario: JSON text, hint?: {gpus, min_gpus_fit} | {ids},
//      explore?: true (evaluate only: the curve and top layouts next, see exploreFollows)}
// out: {type: "ready", version, search, compiled, readyAt, warm: {text, envelope, ms, explore} | null} once,
//      then, when warm.explore, {type: "warm-explore", text, envelope: object | null, ms};
//      then {id, envelope, ms, explore?: "follows" | {envelope: object | null, ms}} per
//      request (explore an object: the curve and top layouts in the same message), and
//      after an answer that says "follows", {id, type: "explore", envelope: object | null, ms}.
import { loadCore } from "./gpucalc-api.js";

// The core's glue, fetched now while the page's compiled module is on its way (loadCore
// imports the same module: one fetch).
import("./gpucalc.js").catch(() => {});

let core = null;

function evaluateObject(scenario) {
  return JSON.parse(core.evaluate(JSON.stringify(scenario)));
}

// The sweep over GPU counts (explore.js), only for a core without search(): loaded then.
let sweep = null;

// An answer quicker than this came from a kept search, and so do its curve and top layouts
// (1-3 ms more): they travel in one message and the page draws all three in one task.
// Sent apart, a frame could come between them: in 5 of 19 edits of the deadline the curve
// followed the answer by 8-23 ms, in the others by 1-2 ms (docs/performance-model.md,
// "The page", twenty-ninth session).
const TOGETHER_MS = 8;

// The curve and top layouts of the scenario just evaluated, with or right after its
// answer: the core keeps the evaluation's search (core/src/search_cache.hpp), so they cost
// the top layouts at the chosen GPU count and a few milliseconds, and the page draws them
// without waiting for a second worker's search. An answer that took a fresh search goes
// first ({explore: "follows"}), so it never waits for them; a quick one brings them along
// (TOGETHER_MS). Not for a calibration that fits knobs: its answers are searched afresh
// (the search worker then draws the curve, as before).
function exploreFollows(request, envelope) {
  return Boolean(request.explore && envelope?.ok && typeof core.search === "function" && !/"calibration"\s*:/.test(request.scenario));
}
// The core's search() of a scenario (curve and top layouts), marked as the search's (the
// page words its notes by source): the envelope.
function searched(scenario) {
  const envelope = JSON.parse(core.search(scenario));
  if (envelope.ok) envelope.value.source = "search";
  return envelope;
}
// The same after an answer or the warm search: {envelope: null} if it throws (the page
// then asks the search worker), with its time.
function exploreAfter(scenario) {
  const t0 = performance.now();
  let envelope = null;
  try {
    envelope = searched(scenario);
  } catch {
    /* envelope null */
  }
  return { envelope, ms: performance.now() - t0 };
}

async function handle({ op, scenario, hint }) {
  if (op === "evaluate") return JSON.parse(core.evaluate(scenario));
  // The same job on other accelerators: compare(json, "id,id,…").
  if (op === "compare") return JSON.parse(core.compare(scenario, String(hint?.ids ?? "")));
  if (op === "explore") {
    if (typeof core.search === "function") return searched(scenario);
    sweep ??= (await import("./explore.js")).sweep;
    return sweep(evaluateObject, JSON.parse(scenario), hint);
  }
  return { ok: false, error: { path: "", message: `unknown operation ${op}` } };
}

let init;
let shared = false; // whether the page's compiled module came with "init"
let warm = null;
const module = new Promise((resolve) => {
  init = resolve;
});

const ready = module.then(loadCore).then(
  (c) => {
    core = c;
    // The default scenario, searched now so the page's first request finds it kept.
    // Its answer goes with "ready": the page's first request, when it is for this very
    // text, takes it from there instead of asking again (engine.js takeWarm).
    let kept = null;
    if (warm) {
      try {
        const t0 = performance.now();
        kept = { text: warm, envelope: c.evaluate(warm) };
        kept.ms = performance.now() - t0;
      } catch {
        /* the page's own request reports any problem */
      }
    }
    // readyAt: epoch ms, for the page's start-up timing; compiled: whether this worker
    // compiled the wasm itself.
    // The default scenario's curve and top layouts follow in a message of their own
    // ("warm-explore", from the search just kept: a few ms), so the page draws them without
    // starting the search worker, and its first answer does not wait for them.
    const explore = kept && kept.envelope.startsWith('{"ok":true') && typeof c.search === "function";
    if (kept) kept.explore = explore;
    self.postMessage({ type: "ready", version: c.version(), search: typeof c.search === "function", compiled: !shared, readyAt: performance.timeOrigin + performance.now(), warm: kept });
    if (explore) self.postMessage({ type: "warm-explore", text: warm, ...exploreAfter(warm) });
  },
  (error) => {
    self.postMessage({ type: "fatal", message: String(error?.message ?? error) });
  },
);

self.onmessage = async (event) => {
  const request = event.data ?? {};
  if (request.type === "init") {
    shared = request.module instanceof WebAssembly.Module;
    warm = typeof request.warm === "string" ? request.warm : null;
    init(shared ? request.module : null);
    return;
  }
  await ready;
  if (!core) return;
  const t0 = performance.now();
  let envelope;
  try {
    envelope = await handle(request);
  } catch (error) {
    envelope = { ok: false, error: { path: "", message: String(error?.message ?? error) }, crashed: true };
  }
  const ms = performance.now() - t0;
  const follows = request.op === "evaluate" && exploreFollows(request, envelope);
  if (follows && ms < TOGETHER_MS) {
    self.postMessage({ id: request.id, envelope, ms, explore: exploreAfter(request.scenario) });
    return;
  }
  self.postMessage({ id: request.id, envelope, ms, explore: follows ? "follows" : undefined });
  if (follows) self.postMessage({ id: request.id, type: "explore", ...exploreAfter(request.scenario) });
};
