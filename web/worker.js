// The core in a Web Worker, so typing never waits for it.
// in:  first {type: "init", module: WebAssembly.Module | null, warm?: JSON text} (the page's
//      compiled core, shared by every worker; null: load and compile it here; warm: a
//      scenario to search before saying ready, whose search the core then keeps), then
//      {id, op: "evaluate" | "explore" | "compare", scenario: JSON text, hint?: {gpus, min_gpus_fit} | {ids}}
// out: {type: "ready", version, search, compiled} once, then {id, envelope, ms} per request.
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

async function handle({ op, scenario, hint }) {
  if (op === "evaluate") return JSON.parse(core.evaluate(scenario));
  // The same job on other accelerators: compare(json, "id,id,…").
  if (op === "compare") return JSON.parse(core.compare(scenario, String(hint?.ids ?? "")));
  if (op === "explore") {
    let envelope;
    if (typeof core.search === "function") {
      envelope = JSON.parse(core.search(scenario));
      if (envelope.ok) envelope.value.source = "search";
    } else {
      sweep ??= (await import("./explore.js")).sweep;
      envelope = sweep(evaluateObject, JSON.parse(scenario), hint);
    }
    return envelope;
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
    self.postMessage({ type: "ready", version: c.version(), search: typeof c.search === "function", compiled: !shared, readyAt: performance.timeOrigin + performance.now(), warm: kept });
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
  self.postMessage({ id: request.id, envelope, ms: performance.now() - t0 });
};
