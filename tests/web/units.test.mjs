// The page's pure modules under node (minified as shipped, one file each: dist-modules/,
// which scripts/assemble-dist.mjs writes before it bundles dist/'s modules): number formats and
// parsing per locale, permalink encoding and its guards, scenario paths, the
// parameter-count shape, and the evaluate()-only curve used when a core has no search().
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { DEFAULT_EXAMPLE, DIST, ROOT, cliEvaluate, readJson } from "../wasm/helpers.mjs";

const load = (f) => import(pathToFileURL(path.join(`${DIST}-modules`, f)).href);
// The page loads its reader's strings before it renders (i18n.js); so do these tests.
await (await load("i18n.js")).loadLanguage("en");
const F = await load("format.js");
const share = await load("share.js");
const schema = await load("schema.js");
const { shapeForParams } = await load("shape.js");
const { sweep, markPareto } = await load("explore.js");

describe("strings", () => {
  test("English count nouns take the singular after exactly one, in the page's strings and the core's messages", async () => {
    const i18n = await load("i18n.js");
    assert.equal(i18n.t("estimate_value", { n: "1", raw: "0.4" }), "≈ 1 GPU (0.4 before rounding).");
    assert.equal(i18n.t("estimate_value", { n: "21", raw: "21.3" }), "≈ 21 GPUs (21.3 before rounding).");
    assert.equal(i18n.t("estimate_value", { n: "1,024", raw: "1,023.9" }), "≈ 1,024 GPUs (1,023.9 before rounding).");
    assert.equal(i18n.t("curve_point", { n: "1", days: "0.3", h: "7", plan: "TP 1" }), "1 GPU: 0.3 days, 7 GPU-hours (TP 1)");
    assert.equal(i18n.coreMessage({ code: "x", message: "the full answer uses the 1 GPUs the scenario fixes; 11 GPUs, 2.1 GPUs" }).text, "the full answer uses the 1 GPU the scenario fixes; 11 GPUs, 2.1 GPUs");
  });
});

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

  test("plain, fixed and percent numbers read exactly as Intl.NumberFormat writes them", () => {
    // format.js formats without Intl (its first use costs the page ~40 ms): the same
    // halfExpand rounding of the shortest decimal, in both locales, on edge values and a
    // seeded spread of magnitudes.
    const values = [0, -0, 0.5, 1.5, 2.5, -2.5, 0.005, 0.0145, 0.125, 1.005, 4.35, 0.285, 999.95, 999999.5, 0.99951, -0.0004, 1e-7, 2.5e-7, 123456789.125, 1e15, 1e21, 1.5e25];
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let i = 0; i < 3000; i++) {
      values.push((random() - 0.2) * 10 ** (Math.floor(random() * 16) - 5), Math.round(random() * 100000) / 1000, Math.round(random() * 10000) / 20000);
    }
    for (const [lang, locale] of [["en", "en-US"], ["zh", "zh-CN"]]) {
      for (const v of values) {
        for (const d of [0, 1, 2, 3]) {
          assert.equal(F.num(lang, v, d), new Intl.NumberFormat(locale, { maximumFractionDigits: d }).format(v), `num ${v} ${d}`);
          assert.equal(F.fixed(lang, v, d), new Intl.NumberFormat(locale, { maximumFractionDigits: d, minimumFractionDigits: d }).format(v), `fixed ${v} ${d}`);
          assert.equal(F.pct(lang, v, d), new Intl.NumberFormat(locale, { maximumFractionDigits: d, style: "percent" }).format(v), `pct ${v} ${d}`);
        }
      }
    }
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
    // Where it broke, from the engine's "at position N" (the page says it in the reader's language).
    assert.deepEqual(share.parseScenarioText('{\n  "a": 1,\n}').at, { line: 3, column: 1 });
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

describe("the Expert form is data/scenario-schema.json's (schema.js)", () => {
  const SCHEMA = readJson(path.join(ROOT, "data/scenario-schema.json")).fields;
  test("its fields are exactly the schema's form fields, with the schema's values", () => {
    const formPaths = Object.entries(SCHEMA).filter(([, f]) => f.form).map(([p]) => p);
    assert.deepEqual(schema.FIELDS.map((f) => f.path).sort(), formPaths.sort());
    assert.deepEqual(schema.GROUPS.flatMap((g) => g.fields).map((f) => f.path).sort(), formPaths.sort(), "every field in one group");
    for (const f of schema.FIELDS) {
      const s = SCHEMA[f.path];
      if (s.values || s.items) assert.deepEqual(f.options, s.values ?? s.items, f.path);
    }
  });
  test("the hints are the schema's docs, per language", async () => {
    for (const lang of ["en", "zh"]) {
      const docs = await schema.loadDocs(lang);
      for (const f of schema.FIELDS) assert.equal(schema.docOf(f.path, lang), SCHEMA[f.path].doc[lang], `${lang} ${f.path}`);
      assert.equal(Object.keys(docs).length, schema.FIELDS.length);
    }
  });
  test("the drift of issue 14 is gone: no /gpu/efficiency; geglu, alibi, qk_norm and power_limit_w are settable", () => {
    const by = schema.FIELD_BY_PATH;
    assert.equal(by.has("/gpu/efficiency"), false);
    assert.ok(by.get("/model/ffn_act").options.includes("geglu"));
    assert.ok(by.get("/model/position_embedding").options.includes("alibi"));
    for (const p of ["/model/qk_norm", "/gpu/power_limit_w", "/gpu/rail_optimized", "/gpu/in_network_reduction", "/training/grad_dtype", "/target/max_memory_fraction"]) assert.ok(by.has(p), p);
    const scenario = { model: { base: "gemma-2-9b", ffn_act: "geglu", qk_norm: true, position_embedding: "alibi" }, gpu: { base: "h100-sxm-80gb", power_limit_w: 500 }, training: { tokens: 1e11, seq_len: 4096 } };
    const got = cliEvaluate(scenario);
    assert.equal(got.ok, true, got.stderr);
  });
});

describe("the job: fine-tuning, LoRA, optimizer, offload, MoE (jobtype.js)", () => {
  test("a field below a preset's nested object keeps the preset as base; emptied objects go", () => {
    const s = { model: "deepseek-v3", training: { tokens: 1, lora: { rank: 8 }, offload: { optimizer: true } } };
    schema.setPath(s, "/model/moe/top_k", 4);
    assert.deepEqual(s.model, { base: "deepseek-v3", moe: { top_k: 4 } });
    schema.setPath(s, "/model/moe/top_k", undefined);
    assert.equal(s.model, "deepseek-v3");
    schema.setPath(s, "/training/lora/rank", undefined);
    schema.setPath(s, "/training/offload/optimizer", undefined);
    assert.deepEqual(s.training, { tokens: 1 });
    schema.setPath(s, "/model/moe/top_k", undefined);
    assert.equal(s.model, "deepseek-v3", "clearing what is not there changes nothing");
  });

  test("every field the Expert form writes for the new stages is one the core reads", () => {
    const scenario = {
      model: {
        base: "deepseek-v2-lite",
        moe: { experts: 64, top_k: 6, expert_ffn_hidden: 1408, shared_experts: 2, shared_expert_ffn_hidden: 2816, shared_expert_gate: false,
          first_dense_layers: 1, router_bias: false, groups: 8, group_topk: 2, load_imbalance: 1.2, capacity_factor: 1.25 },
        attention: { type: "mla", q_lora_rank: 0, kv_lora_rank: 512, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128 },
      },
      gpu: "h100-sxm-80gb",
      training: {
        dataset: { samples: 100000, avg_tokens: 2048, epochs: 2 },
        seq_len: 4096,
        stage: "qlora",
        lora: { rank: 32, alpha: 64, targets: ["q", "v"], double_quant: false, paged_optimizer: true, base_dtype: "bf16" },
        optimizer: "adam8bit",
        framework: "torchtune",
        optimizer_in_backward: true,
        master_weights: false,
        offload: { optimizer: true, params: false, pcie_gbs: 32, host_memory_bw_gbs: 50 },
        overlap_moe_comm: true,
        moe_dispatcher: "deepep",
      },
      parallel: { gpus: 8, ep: 8, etp: 1 },
    };
    const got = cliEvaluate(scenario);
    assert.equal(got.ok, true, got.stderr);
    assert.equal(got.value.training.tokens, 100000 * 2048 * 2);
    const newPaths = schema.FIELDS.map((f) => f.path).filter((p) => /^\/(model\/(moe|attention)|training\/(lora|offload|dataset|optimizer|master_weights|overlap_moe_comm|moe_dispatcher|recompute_modules|stage)|parallel\/e(p|tp))/.test(p));
    assert.ok(newPaths.length >= 33, newPaths.join());
    // PEFT's fp32 upcast is the hf profile's (torchtune refuses it): the same job under hf.
    const hf = structuredClone(scenario);
    hf.training.framework = "hf";
    delete hf.training.optimizer_in_backward;
    hf.training.lora.fp32_upcast = false;
    const hfGot = cliEvaluate(hf);
    assert.equal(hfGot.ok, true, hfGot.stderr);
    // Megatron-Core's selective recompute modules: torchtune and Hugging Face checkpoint
    // whole layers (framework_no_selective), so under Megatron-LM.
    const mg = structuredClone(hf);
    mg.training.framework = "megatron";
    delete mg.training.lora.fp32_upcast;
    mg.training.recompute_modules = ["core_attn", "moe_act", "mla_up_proj"];
    const mgGot = cliEvaluate(mg);
    assert.equal(mgGot.ok, true, mgGot.stderr);
    assert.equal(cliEvaluate({ ...scenario, training: { ...scenario.training, recompute_modules: ["core_attn"] } }).ok, false);
    // Megatron-Core's activation CPU offloading: a single stage without recomputation.
    const off = { model: "llama-3.1-8b", gpu: "gb200-186gb", training: { tokens: 1e9, seq_len: 4096, offload: { activation_layers: 4 } }, parallel: { gpus: 8 } };
    const offGot = cliEvaluate(off);
    assert.equal(offGot.ok, true, offGot.stderr);
    assert.equal(offGot.value.plan.pp, 1);
    for (const p of newPaths) assert.ok([scenario, hf, mg, off].some((x) => schema.getPath(x, p) !== undefined), `${p} is exercised here`);
    const enums = Object.fromEntries(schema.FIELDS.filter((f) => f.options).map((f) => [f.path, f.options]));
    for (const stage of enums["/training/stage"]) assert.equal(cliEvaluate({ ...scenario, training: { tokens: 1e9, seq_len: 4096, stage } }).ok, true, stage);
    for (const optimizer of enums["/training/optimizer"]) assert.equal(cliEvaluate({ ...scenario, training: { tokens: 1e9, seq_len: 4096, optimizer } }).ok, true, optimizer);
    for (const framework of enums["/training/framework"]) assert.equal(cliEvaluate({ ...scenario, training: { tokens: 1e9, seq_len: 4096, framework } }).ok, true, framework);
  });

  test("MoE presets are labelled with total and active parameters; the EP field and LoRA fields apply where they should", async () => {
    const { MODELS } = await load("presets.js");
    const job = await load("jobtype.js");
    const label = (id) => job.modelLabel(MODELS.find((m) => m.id === id));
    assert.equal(label("deepseek-v3"), "DeepSeek-V3 · 671B (37B active)");
    assert.equal(label("qwen3-235b-a22b"), "Qwen3 235B-A22B · 235B (22B active)");
    assert.equal(label("llama-3.1-8b"), "Llama 3.1 8B");
    const moeIds = MODELS.filter((m) => m.shape.moe).map((m) => m.id).sort();
    assert.deepEqual(moeIds, ["deepseek-r1", "deepseek-v2-lite", "deepseek-v3", "ernie-4.5-21b-a3b", "glm-4.5", "glm-4.5-air", "gpt-oss-120b", "gpt-oss-20b", "kimi-k2", "mixtral-8x22b", "mixtral-8x7b", "qwen2-57b-a14b", "qwen3-235b-a22b", "qwen3-30b-a3b"]);
    assert.equal(label("kimi-k2"), "Kimi K2 · 1.03T (32B active)");
    assert.equal(label("gpt-oss-120b"), "gpt-oss-120b · 117B (5.13B active)");
    assert.equal(label("gpt-oss-20b"), "gpt-oss-20b · 20.9B (3.61B active)");
    for (const id of moeIds) assert.match(label(id), / · [\d.]+[BT] \([\d.]+[BM] active\)$/, id);

    // QLoRA without a framework runs on hf (the core's default_framework_qlora).
    assert.deepEqual(job.relevance({ model: "mixtral-8x7b", training: { stage: "qlora" } }), { moe: true, mla: false, lora: true, qlora: true, qlora_hf: true, finetune: true });
    assert.equal(job.relevance({ model: "mixtral-8x7b", training: { stage: "qlora", framework: "megatron" } }).qlora_hf, false);
    assert.deepEqual(job.relevance({ model: "deepseek-v3", training: {} }), { moe: true, mla: true, lora: false, qlora: false, qlora_hf: false, finetune: false });
    assert.equal(job.relevance({ model: "llama-3.1-8b", training: { stage: "qlora", framework: "hf" } }).qlora_hf, true);
    assert.equal(job.relevance({ model: { base: "mixtral-8x7b", moe: null }, training: {} }).moe, false, "moe: null makes a dense variant");
    assert.equal(job.relevance({ model: { layers: 2, moe: { experts: 4 } }, training: {} }).moe, true);
    const s = { model: "llama-3.1-8b", training: { tokens: 1 }, parallel: { ep: 8 } };
    job.adaptToModel(s);
    assert.equal(s.parallel, undefined, "a dense model drops EP");
    const g = { model: "gpt3-175b", training: { tokens: 1, stage: "lora", lora: { targets: ["q", "gate", "up"] } } };
    job.adaptToModel(g);
    assert.deepEqual(g.training.lora, { targets: ["q", "up"] }, "a GELU MLP has no gate to adapt");
    assert.deepEqual(job.defaultTargets(job.modelInfo(g)), ["q", "k", "v", "o", "up", "down"]);
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

describe("locales", () => {
  // A reader downloads one language's strings (i18n.js): Chinese has no English fallback,
  // so it must carry every key English has.
  test("zh.js has every key en.js has", async () => {
    const en = (await load("locales/en.js")).default;
    const zh = (await load("locales/zh.js")).default;
    assert.deepEqual(Object.keys(en).filter((k) => !(k in zh)), []);
  });

  // render.js labels each memory item by mem_<name>; a missing key shows the core's
  // identifier (the QLoRA "dequantised_weight" did on both pages until 2026-12-04). Every
  // validation run and example, dense to MoE, FSDP to offload and QLoRA, names its items.
  test("every memory item the core names has a label", async () => {
    const en = (await load("locales/en.js")).default;
    const names = new Set();
    for (const dir of ["examples", "validation"]) {
      for (const f of readdirSync(path.join(ROOT, dir)).filter((x) => x.endsWith(".json"))) {
        const doc = readJson(path.join(ROOT, dir, f));
        const scenario = doc.scenario ?? doc;
        if (!scenario.model) continue;
        const got = cliEvaluate(scenario);
        if (got.ok) for (const item of got.value.memory.items) names.add(item.name);
      }
    }
    assert.ok(names.size >= 12, [...names].join());
    assert.deepEqual([...names].filter((n) => !(`mem_${n}` in en)), []);
  });
});
