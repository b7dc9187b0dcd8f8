// Thin wrapper over the Embind module (gpucalc.js + gpucalc.wasm in this folder).
// Works in browsers and in Node (>= 20) alike.

let corePromise = null;

const isNode = typeof process === "object" && typeof process.versions?.node === "string";

// Loads the wasm core once; every caller shares the same promise.
export function loadCore() {
  corePromise ??= (async () => {
    const { default: createGpucalc } = await import("./gpucalc.js");
    const options = {};
    if (isNode) {
      // Node's fetch() cannot read file: URLs, so hand the bytes over directly.
      const { readFile } = await import("node:fs/promises");
      options.wasmBinary = await readFile(new URL("./gpucalc.wasm", import.meta.url));
    }
    return createGpucalc(options);
  })();
  return corePromise;
}

// Evaluates a scenario (object or JSON text). Resolves to the parsed envelope:
// {ok: true, value: {...}} or {ok: false, error: {path, message}}.
export async function evaluate(scenario) {
  const core = await loadCore();
  const text = typeof scenario === "string" ? scenario : JSON.stringify(scenario);
  return JSON.parse(core.evaluate(text));
}

export async function version() {
  return (await loadCore()).version();
}
