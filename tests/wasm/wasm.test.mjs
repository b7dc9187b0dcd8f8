// The wasm module must give the native CLI's answers, and report bad input the same way.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { CLI, DEFAULT_EXAMPLE, DIST, ROOT as ROOT_DIR, cliEvaluate, diffJson, exampleFiles, readJson, runCli } from "./helpers.mjs";

let core;

before(async () => {
  const { default: createGpucalc } = await import(pathToFileURL(path.join(DIST, "gpucalc.js")).href);
  // Node's fetch() cannot load file: URLs; the loader takes the bytes instead.
  core = await createGpucalc({ wasmBinary: readFileSync(path.join(DIST, "gpucalc.wasm")) });
});

const evaluate = (scenario) => JSON.parse(core.evaluate(typeof scenario === "string" ? scenario : JSON.stringify(scenario)));

describe("examples: wasm == native CLI", () => {
  const files = exampleFiles();
  test("there are examples", () => assert.ok(files.length > 0));

  for (const file of files) {
    test(path.basename(file), () => {
      const got = evaluate(readFileSync(file, "utf8"));
      const cli = runCli(["evaluate", file]);
      if (cli.status !== 0) {
        // An example that the CLI rejects must be rejected by wasm with the same path.
        assert.equal(cli.status, 2, cli.stderr);
        assert.equal(got.ok, false);
        assert.ok(cli.stderr.includes(`${got.error.path}: `), `CLI said ${cli.stderr}`);
        return;
      }
      assert.equal(got.ok, true, JSON.stringify(got.error));
      const want = JSON.parse(cli.stdout);
      assert.deepStrictEqual(got.value.plan, want.plan, "plan differs");
      assert.deepStrictEqual(diffJson(got.value, want), []);
    });
  }
});

describe("model × GPU presets the page offers: known ids, wasm == native CLI", async () => {
  const { MODELS, GPUS } = await import(pathToFileURL(path.join(`${DIST}-modules`, "presets.js")).href); // (dist/ has it inside the page bundle)
  // Every model on the default GPU, every GPU with the default model, and a fixed
  // one-in-seven sample of the other pairs (each is a full deadline search; all 1,320
  // pairs would take minutes, MoE giants most of it).
  const base = readJson(DEFAULT_EXAMPLE);
  // Every model preset; every accelerator with all seven key specs (the core's
  // missing_specs, docs/catalog.md "Completeness"), and no other.
  test("the page offers every preset and every complete accelerator", () => {
    const complete = JSON.parse(runCli(["catalog", "gpus"]).stdout).gpus.filter((g) => g.missing_specs.length === 0).map((g) => g.id);
    assert.ok(MODELS.length >= 40);
    assert.deepEqual(GPUS.map((g) => g.id), complete);
    assert.ok(complete.length >= 15);
  });
  for (const [i, model] of MODELS.entries()) {
    for (const [j, gpu] of GPUS.entries()) {
      if (model.id !== base.model && gpu.id !== base.gpu && (i * GPUS.length + j) % 7 !== 0) continue;
      test(`${model.id} on ${gpu.id}`, () => {
        const scenario = { ...readJson(DEFAULT_EXAMPLE), model: model.id, gpu: gpu.id };
        const got = evaluate(scenario);
        const cli = cliEvaluate(scenario);
        if (!got.ok) {
          assert.ok(!["/model", "/gpu"].includes(got.error.path), `preset id rejected: ${JSON.stringify(got.error)}`);
          assert.equal(cli.ok, false, "CLI accepted what wasm rejected");
          assert.ok(cli.stderr.includes(`${got.error.path}: `), `CLI said ${cli.stderr}`);
          return;
        }
        assert.equal(cli.ok, true, cli.stderr);
        assert.deepStrictEqual(got.value.plan, cli.value.plan, "plan differs");
        assert.deepStrictEqual(diffJson(got.value, cli.value), []);
      });
    }
  }
});

describe("bad input", () => {
  test("negative seq_len points at /training/seq_len, like the CLI", () => {
    const scenario = readJson(DEFAULT_EXAMPLE);
    scenario.training.seq_len = -4;
    const got = evaluate(scenario);
    assert.equal(got.ok, false);
    assert.equal(got.error.path, "/training/seq_len");
    assert.equal(typeof got.error.message, "string");
    assert.ok(got.error.message.length > 0);

    const cli = cliEvaluate(scenario);
    assert.equal(cli.ok, false);
    assert.equal(cli.status, 2);
    assert.ok(cli.stderr.includes(`/training/seq_len: ${got.error.message}`), `CLI said ${cli.stderr}`);
  });

  for (const text of ["{", "", "not json", "[1,2", '{"model": }']) {
    test(`malformed JSON ${JSON.stringify(text)} is ok:false, not a crash`, () => {
      const got = evaluate(text);
      assert.equal(got.ok, false);
      assert.equal(typeof got.error.path, "string");
      assert.equal(typeof got.error.message, "string");
    });
  }

  // The same table the Catch2 suite and the CLI test read.
  const table = readFileSync(path.join(ROOT_DIR, "tests/cli/bad_inputs.txt"), "utf8")
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const tab = line.indexOf("\t");
      const want = line.slice(0, tab);
      return { path: want === "-" ? "" : want, scenario: line.slice(tab + 1) };
    });
  const MESSAGES = JSON.parse(readFileSync(path.join(ROOT_DIR, "data/messages.json"), "utf8"));
  test("the shared bad-input table has at least 15 rows", () => assert.ok(table.length >= 15));
  for (const [i, row] of table.entries()) {
    test(`bad input ${i + 1}: ok:false at ${row.path || "(root)"}`, () => {
      const got = evaluate(row.scenario);
      assert.equal(got.ok, false, row.scenario);
      assert.equal(got.error.path, row.path, `${row.scenario} → ${JSON.stringify(got.error)}`);
      assert.ok(got.error.message.length > 0);
      // Coded (data/messages.json): the page renders the code and params in its language.
      assert.match(got.error.code, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, JSON.stringify(got.error));
      assert.ok(got.error.code in MESSAGES, `${got.error.code} is not in data/messages.json`);
      assert.equal(typeof got.error.params, "object");
    });
  }

  test("the module still works after errors", () => {
    assert.equal(evaluate(readFileSync(DEFAULT_EXAMPLE, "utf8")).ok, true);
  });
});

describe("compare and catalog: wasm == native CLI", () => {
  const ids = "h100-sxm-80gb,h20-96gb,h800-sxm-80gb,ascend-910b,mi300x-192gb";
  test("compare(json, idsCsv) gives the CLI's rows", () => {
    const got = JSON.parse(core.compare(readFileSync(DEFAULT_EXAMPLE, "utf8"), ids));
    assert.equal(got.ok, true, JSON.stringify(got.error));
    const cli = runCli(["compare", DEFAULT_EXAMPLE, "--gpus", ids]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.deepStrictEqual(diffJson(got.value, JSON.parse(cli.stdout)), []);
    assert.deepStrictEqual(got.value.rows.map((r) => r.gpu.id), ids.split(","));
  });
  for (const bad of ["h100-sxm-80gb,h999", "h20-96gb,h20-96gb", ""]) {
    test(`compare with ids ${JSON.stringify(bad)} is ok:false at /gpu`, () => {
      const got = JSON.parse(core.compare(readFileSync(DEFAULT_EXAMPLE, "utf8"), bad));
      assert.equal(got.ok, false);
      assert.equal(got.error.path, "/gpu");
      assert.ok(got.error.message.length > 0);
    });
  }
  for (const kind of ["gpus", "models"]) {
    test(`catalog("${kind}") gives the CLI's catalog`, () => {
      const got = JSON.parse(core.catalog(kind));
      assert.equal(got.ok, true);
      assert.equal(got.value[kind].length, kind === "gpus" ? 34 : 47);  // 33 reference accelerators + GB300; 33 dense + 14 MoE presets
      const cli = runCli(["catalog", kind]);
      assert.equal(cli.status, 0, cli.stderr);
      const want = JSON.parse(cli.stdout);
      // The wasm embeds gpus.json without the entries' prose (core/slim_data.mjs): the same
      // catalog less those members, every number and source id the same...
      if (kind === "gpus") {
        assert.ok(want.gpus.some((g) => g.notes) && !got.value.gpus.some((g) => g.notes));
        delete want.about;  // the file's description, for people
        for (const g of want.gpus) {
          // ...and without a family's sub-models, the maker's name and the Chinese name, which no
          // answer prints.
          for (const k of ["notes", "least_sure", "form_factor", "memory_type", "reference_id", "export_control", "variants", "vendor", "name_zh"]) delete g[k];
          for (const v of Object.values(g)) if (v && typeof v === "object" && !Array.isArray(v)) for (const k of ["note", "derived", "unsourced"]) delete v[k];
          // The host link's citation, which no answer prints.
          if (g.host_link_gbs) g.host_link_gbs = { value: g.host_link_gbs.value };
          // A price's type and worded date in Chinese: the page's Chinese strings carry them (locales/zh.js).
          for (const p of g.prices ?? []) {
            delete p.type_zh;
            delete p.date_zh;
          }
          // A spec the entry does not have: null in gpus.json, left out of the wasm's copy.
          // (default_price, which the report adds, stays null in both.)
          for (const [k, v] of Object.entries(g)) if (v === null && k !== "default_price") delete g[k];
        }
        // The citation table keeps the entries a price names (the core prints a price's
        // citation; the specs' reach the page from spec-sources.js).
        const named = new Set(want.gpus.flatMap((g) => (g.prices ?? []).map((p) => p.source)));
        assert.ok(Object.keys(want.sources).some((k) => !named.has(k)));
        for (const k of Object.keys(want.sources)) if (!named.has(k)) delete want.sources[k];
      } else {
        // ...and models.json without the file's `about` and each preset's source.
        assert.ok(want.models.every((m) => m.source) && !got.value.models.some((m) => m.source));
        delete want.about;
        for (const m of want.models) {
          delete m.source;
          delete m.name_zh; // the Chinese page's strings carry it (locales/zh.js DATA_TEXT)
        }
      }
      assert.deepStrictEqual(got.value, want);
    });
  }
  test("catalog of an unknown kind is ok:false", () => assert.equal(JSON.parse(core.catalog("tpus")).ok, false));
});

describe("shim and version", () => {
  test("gpucalc-api.js: loadCore() is memoized, evaluate() takes objects and text", async () => {
    const api = await import(pathToFileURL(path.join(DIST, "gpucalc-api.js")).href);
    const [a, b] = await Promise.all([api.loadCore(), api.loadCore()]);
    assert.equal(a, b);
    const scenario = readJson(DEFAULT_EXAMPLE);
    const fromObject = await api.evaluate(scenario);
    const fromText = await api.evaluate(JSON.stringify(scenario));
    assert.equal(fromObject.ok, true);
    assert.deepStrictEqual(fromObject, fromText);
    assert.deepStrictEqual(fromObject, evaluate(scenario));
    assert.equal((await api.evaluate("{")).ok, false);
  });

  test("version() matches the CLI's --version", () => {
    const v = core.version();
    assert.match(v, /^\d+\.\d+\.\d+/);
    const cli = runCli(["--version"]);
    assert.equal(cli.status, 0, `${CLI} --version: ${cli.stderr}`);
    assert.ok(cli.stdout.includes(v), `CLI printed ${cli.stdout}`);
  });
});

// The batch as a planner's knob: a range lets the search pick a GPU count between powers
// of two and reports the batch it chose; a critical rule takes DeepSeek LLM's law.
describe("training.global_batch_range", () => {
  test("the chosen batch is inside the range and equals dp · micro-batch · micro-batches", () => {
    const got = evaluate({
      model: "llama-3.1-70b",
      gpu: "h100-sxm-80gb",
      training: { tokens: 15e12, seq_len: 8192, global_batch_range: { min: 4194304, max: 16777216 } },
      target: { days: 60 },
    });
    assert.equal(got.ok, true);
    const p = got.value.plan;
    assert.equal(p.batch_rule, "range");
    assert.ok(p.global_batch_tokens >= 4194304 && p.global_batch_tokens <= 16777216);
    assert.equal(p.global_batch, p.dp * p.micro_batch * p.micro_batches);
    assert.notEqual(p.gpus & (p.gpus - 1), 0, `${p.gpus} GPUs is a power of two`);
  });
  test("rule critical: 0.2920 · C^0.3271 tokens (DeepSeek LLM) for Llama 3.1 405B on 15T tokens", () => {
    const got = evaluate({
      model: "llama-3.1-405b",
      gpu: "h100-sxm-80gb",
      training: { tokens: 15e12, seq_len: 8192, global_batch_range: { rule: "critical" } },
      target: { days: 60 },
    });
    assert.equal(got.ok, true);
    const r = got.value.plan.global_batch_range;
    // C = (6 · 401,646,551,040 + 6 · 126 · 16384 · 8192) FLOPs/token × 15e12 tokens.
    const c = (6 * 401646551040 + 6 * 126 * 16384 * 8192) * 15e12;
    assert.ok(Math.abs(r.compute_flops / c - 1) < 1e-9);
    assert.ok(Math.abs(r.critical_batch_tokens / (0.292 * c ** 0.3271) - 1) < 1e-9);
    assert.ok(got.value.warnings.some((w) => w.code === "critical_batch_extrapolated"));
  });
  test("min above max is refused at its field", () => {
    const got = evaluate({
      model: "llama-3.1-8b",
      gpu: "h100-sxm-80gb",
      training: { tokens: 1e12, seq_len: 4096, global_batch_range: { min: 8388608, max: 4194304 } },
    });
    assert.equal(got.ok, false);
    assert.equal(got.error.code, "batch_range_inverted");
    assert.equal(got.error.path, "/training/global_batch_range/min");
  });
});
