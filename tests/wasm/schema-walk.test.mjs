// Bad input, field by field, through the wasm API: for every field of
// data/scenario-schema.json, the wrong type, NaN-ish and absurd numbers (strings "NaN",
// ±1e308, a 1e400 literal no double holds), null, and for enums an unknown or
// mis-cased value. Each must come back as {ok: false, error} naming that field's JSON
// pointer (an array's entry: its index below it), never a crash, and the module keeps
// answering afterwards.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { DEFAULT_EXAMPLE, DIST, ROOT } from "./helpers.mjs";

const SCHEMA = JSON.parse(readFileSync(path.join(ROOT, "data/scenario-schema.json"), "utf8"));
const RAW = "__raw_literal__"; // replaced in the text by a literal JSON.stringify cannot write

// RFC 7386 JSON merge patch (the schema's `context`).
function mergePatch(target, patch) {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return structuredClone(patch);
  const out = target !== null && typeof target === "object" && !Array.isArray(target) ? structuredClone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

// Sets doc at pointer, creating objects; a preset id on the way becomes {base: id}.
function setAt(doc, pointer, value) {
  const keys = pointer.slice(1).split("/");
  let cur = doc;
  keys.forEach((k, i) => {
    if (i === keys.length - 1) cur[k] = value;
    else {
      if (typeof cur[k] === "string") cur[k] = { base: cur[k] };
      if (cur[k] === null || typeof cur[k] !== "object" || Array.isArray(cur[k])) cur[k] = {};
      cur = cur[k];
    }
  });
  return doc;
}

function scenarioText(pointer, field, value) {
  const doc = setAt(mergePatch(SCHEMA.example_base, field.context ?? {}), pointer, value);
  return JSON.stringify(doc).replace(JSON.stringify(RAW), "1e400");
}

function badValues(field) {
  const nan = ["NaN", "Infinity", RAW];
  const nullable = field.nullable ? [] : [null];
  switch (field.type) {
    case "integer":
    case "number":
      return [...nan, 1e308, -1e308, true, [1], { v: 1 }, ...nullable];
    case "boolean":
      return ["true", 0, RAW, ...nullable];
    case "string":
      return [5, RAW, [], ...nullable];
    case "enum":
      return ["no-such-value", "", String(field.values[0]).toUpperCase(), 5, RAW, ...nullable];
    case "array":
      return ["core_attn", 5, RAW, {}, ...nullable];
    default:
      return [5, true, [1], RAW, ...nullable];
  }
}

let core;
before(async () => {
  const { default: createGpucalc } = await import(pathToFileURL(path.join(DIST, "gpucalc.js")).href);
  core = await createGpucalc({ wasmBinary: readFileSync(path.join(DIST, "gpucalc.wasm")) });
});

describe("every schema field refuses bad values naming itself (wasm)", () => {
  for (const [pointer, field] of Object.entries(SCHEMA.fields)) {
    test(pointer, () => {
      for (const value of badValues(field)) {
        if (field.type === "enum" && field.values.includes(value)) continue; // "BF16" is not a value, "USD" is
        const text = scenarioText(pointer, field, value);
        const env = JSON.parse(core.evaluate(text));
        assert.equal(env.ok, false, `${pointer} = ${text.slice(0, 200)} was accepted`);
        const p = env.error.path;
        assert.ok(p === pointer || (field.type === "array" && p.startsWith(`${pointer}/`)), `${pointer} = ${JSON.stringify(value)}: error at ${JSON.stringify(p)}: ${env.error.message}`);
        assert.ok(typeof env.error.message === "string" && env.error.message.length > 5);
      }
    });
  }
  test("the module still answers the default example afterwards", () => {
    const env = JSON.parse(core.evaluate(readFileSync(DEFAULT_EXAMPLE, "utf8")));
    assert.equal(env.ok, true);
  });
});
