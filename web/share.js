// Sharing: the scenario in the URL hash (#s=<base64url of its JSON>), the CLI
// command that reproduces an answer, and import checks. Nothing here touches the DOM.
import { jsonProblem } from "./format.js";

export const MAX_SCENARIO_CHARS = 64 * 1024;
const MAX_DEPTH = 8;

function toBase64Url(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("not base64url");
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  const bin = atob(b64);
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

export function encodeScenario(scenario) {
  return toBase64Url(JSON.stringify(scenario));
}

function depth(v, d = 0) {
  if (d > MAX_DEPTH) return d;
  if (v && typeof v === "object") {
    let max = d;
    for (const x of Object.values(v)) max = Math.max(max, depth(x, d + 1));
    return max;
  }
  return d;
}

// Checks a parsed document is a plain scenario-shaped object the page can hold.
// Field-level checks (unknown fields, ranges) are the core's; this only guards the page.
export function checkScenarioObject(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, reason: "not_object" };
  }
  if (depth(value) > MAX_DEPTH) return { ok: false, reason: "too_deep" };
  return { ok: true, value };
}

// Parses scenario JSON text (from a file, a paste or a link). Returns
// {ok:true, value} or {ok:false, reason, detail, at?} (format.js jsonProblem).
export function parseScenarioText(text) {
  if (typeof text !== "string" || text.length > MAX_SCENARIO_CHARS) return { ok: false, reason: "too_long" };
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: "bad_json", ...jsonProblem(text, error) };
  }
  return checkScenarioObject(value);
}

// Reads the scenario from a location hash ("#s=..."). Returns null when the hash
// carries no scenario, else {ok, value} / {ok:false, reason, detail}.
export function scenarioFromHash(hash) {
  const params = new URLSearchParams(String(hash ?? "").replace(/^#/, ""));
  const s = params.get("s");
  if (s === null) return null;
  if (s.length > MAX_SCENARIO_CHARS * 2) return { ok: false, reason: "too_long" };
  let text;
  try {
    // Plain JSON is accepted too ("#s={...}", percent-encoded), for hand-written links.
    text = s.trimStart().startsWith("{") ? s : fromBase64Url(s.trim());
  } catch (error) {
    return { ok: false, reason: "bad_encoding", detail: String(error.message ?? error) };
  }
  return parseScenarioText(text);
}

export function hashFor(scenario) {
  return `#s=${encodeScenario(scenario)}`;
}

// POSIX-shell single quoting: ' -> '\''
export function shellQuote(text) {
  return `'${String(text).replace(/'/g, "'\\''")}'`;
}

export function cliCommand(scenario) {
  return `echo ${shellQuote(JSON.stringify(scenario))} | gpucalc evaluate -`;
}

export function prettyJson(scenario) {
  return `${JSON.stringify(scenario, null, 2)}\n`;
}

// The file name an exported scenario gets.
export function exportName(scenario) {
  const model = typeof scenario.model === "string" ? scenario.model : scenario.model?.base ?? "custom";
  const gpu = typeof scenario.gpu === "string" ? scenario.gpu : scenario.gpu?.base ?? "gpu";
  // A fine-tuning job says so: gpucalc-llama-3.1-8b-h100-sxm-80gb-qlora.json.
  const stage = scenario.training?.stage;
  const job = typeof stage === "string" && stage !== "pretrain" ? `-${stage.replace(/_/g, "-")}` : "";
  return `gpucalc-${model}-${gpu}${job}.json`.replace(/[^A-Za-z0-9._-]+/g, "_");
}
