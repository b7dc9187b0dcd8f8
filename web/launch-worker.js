// The export core (gpucalc-export.js/.wasm) in a Web Worker, for launch.js.
// in: {id, scenario: JSON text, format}; out: {id, envelope}.
const core = import("./gpucalc-export.js").then(({ default: create }) => create());

self.onmessage = async (event) => {
  const { id, scenario, format } = event.data ?? {};
  let envelope;
  try {
    envelope = JSON.parse((await core).exportConfig(String(scenario), String(format)));
  } catch (error) {
    envelope = { ok: false, error: { path: "", message: String(error?.message ?? error) } };
  }
  self.postMessage({ id, envelope });
};
