// Shared by the wasm and page tests: where things are, and the native CLI as the oracle.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const DIST = path.resolve(ROOT, process.env.GPUCALC_DIST ?? "dist");
export const CLI = path.resolve(ROOT, process.env.GPUCALC_CLI ?? "build/native/cli/gpucalc");
export const EXAMPLES = path.join(ROOT, "examples");
export const DEFAULT_EXAMPLE = path.join(EXAMPLES, "llama-3.1-70b-h100.json");

export const exampleFiles = () =>
  readdirSync(EXAMPLES).filter((f) => f.endsWith(".json")).sort().map((f) => path.join(EXAMPLES, f));

export const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));

// Runs `gpucalc evaluate FILE` (or `-` with `input` on stdin).
export function runCli(args, input) {
  const r = spawnSync(CLI, args, { input, encoding: "utf8" });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// The CLI's answer for a scenario object: {ok, value} or {ok:false, status, stderr}.
export function cliEvaluate(scenario) {
  const r = runCli(["evaluate", "-"], JSON.stringify(scenario));
  return r.status === 0 ? { ok: true, value: JSON.parse(r.stdout) } : { ok: false, ...r };
}

// Asserts `actual` matches `expected` leaf by leaf: same keys and types, numbers
// within relative tolerance `rel`, everything else equal. Returns a list of problems.
export function diffJson(actual, expected, rel = 1e-9, at = "") {
  const problems = [];
  const kind = (x) => (x === null ? "null" : Array.isArray(x) ? "array" : typeof x);
  if (kind(actual) !== kind(expected)) return [`${at || "/"}: ${kind(actual)} vs ${kind(expected)}`];
  if (kind(expected) === "number") {
    const scale = Math.max(Math.abs(actual), Math.abs(expected));
    if (!(actual === expected || Math.abs(actual - expected) <= rel * scale)) {
      problems.push(`${at}: ${actual} vs ${expected}`);
    }
  } else if (kind(expected) === "array") {
    if (actual.length !== expected.length) return [`${at}: length ${actual.length} vs ${expected.length}`];
    expected.forEach((e, i) => problems.push(...diffJson(actual[i], e, rel, `${at}/${i}`)));
  } else if (kind(expected) === "object") {
    const keys = new Set([...Object.keys(actual), ...Object.keys(expected)]);
    for (const k of keys) {
      if (!(k in actual)) problems.push(`${at}/${k}: missing in wasm`);
      else if (!(k in expected)) problems.push(`${at}/${k}: missing in CLI`);
      else problems.push(...diffJson(actual[k], expected[k], rel, `${at}/${k}`));
    }
  } else if (actual !== expected) {
    problems.push(`${at}: ${JSON.stringify(actual)} vs ${JSON.stringify(expected)}`);
  }
  return problems;
}
