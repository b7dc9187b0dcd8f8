// Thin wrapper over the Embind module (gpucalc.js + gpucalc.wasm in this folder).
// Works in browsers, in Web Workers and in Node (>= 20) alike.

let corePromise = null;

const isNode = typeof process === "object" && typeof process.versions?.node === "string";

// Loads the wasm core once; every caller shares the same promise. `module`: the
// core already compiled (a WebAssembly.Module, e.g. posted by the page to a worker),
// instantiated as is instead of fetching and compiling gpucalc.wasm again.
export function loadCore(module = null) {
  corePromise ??= (async () => {
    const { default: createGpucalc } = await import("./gpucalc.js");
    const options = {};
    let failed = null;
    const failure = new Promise((_, reject) => {
      failed = reject;
    });
    if (module) {
      options.instantiateWasm = (imports, receive) => {
        WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module), failed);
        return {};
      };
    } else if (isNode) {
      // Node's fetch() cannot read file: URLs, so hand the bytes over directly.
      const { readFile } = await import("node:fs/promises");
      options.wasmBinary = await readFile(new URL("./gpucalc.wasm", import.meta.url));
    }
    return Promise.race([createGpucalc(options), failure]);
  })();
  return corePromise;
}

const text = (scenario) => (typeof scenario === "string" ? scenario : JSON.stringify(scenario));

// Evaluates a scenario (object or JSON text). Resolves to the parsed envelope:
// {ok: true, value: {...}} or {ok: false, error: {path, message}}.
export async function evaluate(scenario) {
  const core = await loadCore();
  return JSON.parse(core.evaluate(text(scenario)));
}

// What this build of the core can do: {evaluate: true, search: boolean}.
export async function capabilities() {
  const core = await loadCore();
  return { evaluate: true, search: typeof core.search === "function" };
}

// The layout search (top layouts, GPU-count curve) where the core exports it.
export async function search(scenario) {
  const core = await loadCore();
  if (typeof core.search !== "function") {
    return { ok: false, error: { path: "", message: "this build of the core has no search()" } };
  }
  return JSON.parse(core.search(text(scenario)));
}

export async function version() {
  return (await loadCore()).version();
}
