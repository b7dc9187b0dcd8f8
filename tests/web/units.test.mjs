// The page's pure modules under node (from dist/, as shipped): number formats and
// parsing per locale, permalink encoding and its guards, scenario paths, the
// parameter-count shape, and the evaluate()-only curve used when a core has no search().
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { DEFAULT_EXAMPLE, DIST, cliEvaluate, readJson } from "../wasm/helpers.mjs";

const load = (f) => import(pathToFileURL(path.join(DIST, f)).href);
const F = await load("format.js");
const share = await load("share.js");
const schema = await load("schema.js");
const { shapeForParams } = await load("shape.js");
const { sweep, markPareto } = await load("explore.js");

describe("format", () => {
  test("big counts: 万/亿/万亿 in Chinese, K/M/B/T in English", () => {
    assert.equal(F.big("zh", 1.5e13), "15万亿");
    assert.equal(F.big("zh", 1.5e12), "1.5万亿");
    assert.equal(F.big("zh", 7.06e10), "706亿");
    assert.equal(F.big("zh", 5_070_000), "507万");
    assert.equal(F.big("zh", 1234), "1,234");
    assert.equal(F.big("en", 1.5e13), "15T");
    assert.equal(F.big("en", 70.54e9), "70.5B");
    assert.equal(F.big("en", 4_130_000), "4.13M");
    assert.equal(F.big("en", NaN), "—");
  });

  test("amounts as people type them", () => {
    const cases = {
      "15T": 15e12,
      "15 t": 15e12,
      "1.5万亿": 1.5e12,
      "15万亿": 15e12,
      "2000亿": 2e11,
      "15e12": 15e12,
      "15,000,000,000,000": 15e12,
      "70B": 70e9,
      "8k": 8000,
      "1.5 trillion tokens": 1.5e12,
      "3": 3,
      "-1": -1,
    };
    for (const [text, want] of Object.entries(cases)) assert.equal(F.parseAmount(text), want, text);
    for (const bad of ["", "abc", "15X", "1..5", "T15", "１５"]) assert.ok(Number.isNaN(F.parseAmount(bad)), bad);
  });

  test("durations and bytes", () => {
    assert.equal(F.seconds("en", 4.06), "4.06 s");
    assert.equal(F.seconds("en", 0.000169), "169 µs");
    assert.equal(F.gib("en", 2 ** 30 * 57.75), "57.8 GiB");
  });
});

describe("permalinks", () => {
  const scenario = { ...readJson(DEFAULT_EXAMPLE), name: "训练 <b>&'\"</b> 🚀" };

  test("round trip, unicode included", () => {
    const got = share.scenarioFromHash(share.hashFor(scenario));
    assert.deepEqual(got, { ok: true, value: scenario });
    assert.match(share.hashFor(scenario), /^#s=[A-Za-z0-9_-]+$/);
  });

  test("plain percent-encoded JSON works too", () => {
    assert.deepEqual(share.scenarioFromHash(`#s=${encodeURIComponent(JSON.stringify(scenario))}`), { ok: true, value: scenario });
  });

  test("no scenario, and every kind of damage, are told apart", () => {
    assert.equal(share.scenarioFromHash(""), null);
    assert.equal(share.scenarioFromHash("#x=1"), null);
    const b64 = (t) => Buffer.from(t).toString("base64url");
    assert.equal(share.scenarioFromHash("#s=%%%").reason, "bad_encoding");
    assert.equal(share.scenarioFromHash(`#s=${Buffer.from([0xc3, 0x28]).toString("base64url")}`).reason, "bad_encoding", "invalid UTF-8");
    assert.equal(share.scenarioFromHash(`#s=${b64("<script>alert(1)</script>")}`).reason, "bad_json");
    assert.equal(share.scenarioFromHash(`#s=${b64("[1]")}`).reason, "not_object");
    assert.equal(share.scenarioFromHash(`#s=${b64("null")}`).reason, "not_object");
    let deep = {};
    for (let i = 0; i < 20; i++) deep = { a: deep };
    assert.equal(share.scenarioFromHash(`#s=${b64(JSON.stringify(deep))}`).reason, "too_deep");
    assert.equal(share.scenarioFromHash(`#s=${"A".repeat(200_000)}`).reason, "too_long");
  });

  test("the CLI command quotes for a POSIX shell", () => {
    assert.equal(share.shellQuote("it's"), `'it'\\''s'`);
    const cmd = share.cliCommand({ name: "a'b" });
    assert.equal(cmd, `echo '{"name":"a'\\''b"}' | gpucalc evaluate -`);
  });
});

describe("scenario paths", () => {
  test("a field under a preset id makes {base, …}, and clearing it collapses back", () => {
    const s = { model: "llama-3.1-70b", training: { tokens: 1 } };
    schema.setPath(s, "/model/layers", 40);
    assert.deepEqual(s.model, { base: "llama-3.1-70b", layers: 40 });
    schema.setPath(s, "/model/layers", undefined);
    assert.equal(s.model, "llama-3.1-70b");
  });

  test("optional sections vanish when emptied; required ones stay", () => {
    const s = { training: { tokens: 1 } };
    schema.setPath(s, "/parallel/tp", 8);
    assert.deepEqual(s.parallel, { tp: 8 });
    schema.setPath(s, "/parallel/tp", undefined);
    assert.equal("parallel" in s, false);
    schema.setPath(s, "/training/tokens", undefined);
    assert.deepEqual(s.training, {});
  });

  test("amounts shown exactly or not abbreviated at all", () => {
    assert.equal(schema.exactAmount(15e12), "15T");
    assert.equal(schema.exactAmount(15e12, "zh"), "15万亿");
    assert.equal(schema.exactAmount(16777216), "16777216");
    for (const v of [15e12, 1.5e12, 16777216, 2e11, 123456789]) {
      for (const lang of ["en", "zh"]) assert.equal(F.parseAmount(schema.exactAmount(v, lang)), v, `${v} ${lang}`);
    }
  });

  test("every field of the scenario format is in the Expert form", () => {
    const paths = new Set(schema.FIELDS.map((f) => f.path));
    for (const p of ["/model", "/gpu", "/training/tokens", "/training/seq_len", "/training/global_batch", "/training/global_batch_tokens",
      "/training/micro_batch", "/training/precision", "/training/optimizer", "/training/recompute", "/training/zero_stage",
      "/training/stage", "/training/flash_attention", "/training/sequence_parallel", "/training/framework",
      "/parallel/gpus", "/parallel/tp", "/parallel/pp", "/parallel/dp", "/parallel/cp", "/parallel/ep", "/parallel/vpp",
      "/target/days", "/assume/mfu", "/assume/hfu", "/assume/cuda_context_gib", "/assume/nccl_buffer_mib", "/assume/fragmentation",
      "/name", "/description", "/gpu/memory_gib", "/gpu/bf16_tflops", "/model/layers", "/model/kv_heads", "/model/ffn_act"]) {
      assert.ok(paths.has(p), p);
    }
  });
});

describe("a model from its parameter count", () => {
  test("Llama-3 proportions, within 2% of the count", () => {
    const s = shapeForParams(8e9);
    assert.deepEqual(s, { layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn_hidden: 14336, vocab: 128256 });
    for (const n of [1e9, 13e9, 70e9, 405e9, 1e12]) {
      const shape = shapeForParams(n);
      const got = cliEvaluate({ model: shape, gpu: "h100-sxm-80gb", training: { tokens: 1e12, seq_len: 4096 } });
      assert.equal(got.ok, true, got.stderr);
      assert.ok(Math.abs(got.value.model.params - n) / n < 0.02, `${n}: ${got.value.model.params}`);
      assert.equal(shape.heads % shape.kv_heads, 0);
    }
    assert.equal(shapeForParams(-1), null);
    assert.equal(shapeForParams(1e6), null);
  });
});

describe("the curve from evaluate() alone (cores without search())", () => {
  test("Pareto marks", () => {
    const pts = markPareto([
      { gpus: 8, days: 10, gpu_hours: 100 },
      { gpus: 16, days: 5, gpu_hours: 100 },
      { gpus: 32, days: 5, gpu_hours: 200 },
      { gpus: 64, days: 2, gpu_hours: 300 },
    ]);
    assert.deepEqual(pts.map((p) => p.pareto), [false, true, false, true]);
  });

  test("each point is the core's answer for that GPU count", async () => {
    const { default: createGpucalc } = await load("gpucalc.js");
    const { readFileSync } = await import("node:fs");
    const core = await createGpucalc({ wasmBinary: readFileSync(path.join(DIST, "gpucalc.wasm")) });
    const evaluate = (s) => JSON.parse(core.evaluate(JSON.stringify(s)));
    const scenario = { ...readJson(DEFAULT_EXAMPLE), model: "llama-3.1-8b" };
    const answer = evaluate(scenario).value;
    const got = sweep(evaluate, scenario, { gpus: answer.plan.gpus, min_gpus_fit: answer.search.min_gpus_fit });
    assert.equal(got.ok, true);
    const { curve, top } = got.value;
    assert.ok(curve.length >= 4, `${curve.length} points`);
    assert.ok(curve.some((p) => p.gpus === answer.plan.gpus), "the answer's count is on the curve");
    for (const p of curve.slice(0, 3)) {
      const want = evaluate({ ...scenario, target: undefined, parallel: { gpus: p.gpus } }).value;
      assert.equal(p.days, want.training.days);
    }
    assert.ok(curve.some((p) => p.pareto));
    assert.ok(top.length >= 1);
    for (let i = 1; i < top.length; i++) assert.ok(top[i - 1].performance.step_time_s <= top[i].performance.step_time_s);
    assert.ok(top.every((e) => e.plan.gpus === answer.plan.gpus && e.memory.fits));
  });
});

describe("the page's Content-Security-Policy", () => {
  test("strict: self only, wasm but no eval, no inline script or style", async () => {
    const { readFileSync } = await import("node:fs");
    const html = readFileSync(path.join(DIST, "index.html"), "utf8");
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
    assert.ok(meta, "CSP meta tag");
    const csp = Object.fromEntries(meta[1].split(";").map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
    assert.deepEqual(csp["default-src"], ["'self'"]);
    assert.deepEqual(csp["script-src"], ["'self'", "'wasm-unsafe-eval'"]);
    assert.deepEqual(csp["style-src"], ["'self'"]);
    assert.deepEqual(csp["object-src"], ["'none'"]);
    assert.deepEqual(csp["base-uri"], ["'none'"]);
    assert.ok(!/unsafe-inline|unsafe-eval'|\*/.test(meta[1].replace("'wasm-unsafe-eval'", "")), meta[1]);
    // No inline script or style, no style attribute, nothing from another origin.
    assert.ok(!/<script(?![^>]*\ssrc=)[^>]*>/.test(html), "inline <script>");
    assert.ok(!/<style[\s>]/.test(html) && !/\sstyle="/.test(html), "inline style");
    assert.ok(!/(src|href)="(https?:)?\/\//.test(html), "absolute URL in the page");
  });
});
