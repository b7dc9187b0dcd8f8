// Assembles the static site in dist/ from web/, the wasm build and the catalogs:
//   - copies the page (web/*.html|js|css|svg, web/locales/) and gpucalc.js/.wasm;
//   - writes scenario-schema.js (the Expert form's fields, from data/scenario-schema.json);
//   - writes catalog.js (model presets and GPUs from data/, the default example and
//     the native CLI's answer to it) so the page's lists are the core's own and the
//     default answer shows before the wasm has even compiled, and accuracy-data.js (the
//     validation report of data/validation.json, loaded when asked for), and
//     the Chinese templates of the core's coded messages (those a default answer shows appended
//     to locales/zh.js, the rest in locales/messages.zh.js);
//   - bundles the page's modules (esbuild, code splitting; the module-by-module copy
//     goes to DIST-modules/ for the unit tests);
//   - stamps sw.js with the list of files to precache and a hash of their bytes,
//     so every build that changes anything installs a fresh offline copy;
//   - prints the page weight (what a first visit downloads), raw and gzip.
// Usage: node scripts/assemble-dist.mjs [WASM_DIR] (default build/wasm/wasm);
// GPUCALC_CLI names the native CLI (default build/native/cli/gpucalc).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DIST = path.resolve(ROOT, process.env.GPUCALC_DIST ?? "dist"); // GPUCALC_DIST: another output directory (the tests read the same variable)
const WEB = path.join(ROOT, "web");
const WASM_DIR = path.resolve(ROOT, process.argv[2] ?? "build/wasm/wasm");
const DEFAULT_EXAMPLE = "examples/llama-3.1-70b-h100.json";

const readJson = (file) => JSON.parse(readFileSync(path.join(ROOT, file), "utf8"));
const valueOf = (v) => (v !== null && typeof v === "object" && !Array.isArray(v) && "value" in v ? v.value : v);

rmSync(DIST, { recursive: true, force: true });
mkdirSync(path.join(DIST, "locales"), { recursive: true });
mkdirSync(path.join(DIST, "examples"), { recursive: true });

// ---- the page
const pageFile = /\.(html|js|css|svg)$/;
for (const f of readdirSync(WEB)) {
  if (pageFile.test(f) && statSync(path.join(WEB, f)).isFile()) copyFileSync(path.join(WEB, f), path.join(DIST, f));
}
for (const f of readdirSync(path.join(WEB, "locales"))) {
  if (f.endsWith(".js")) copyFileSync(path.join(WEB, "locales", f), path.join(DIST, "locales", f));
}
for (const f of ["gpucalc.js", "gpucalc.wasm", "gpucalc-export.js", "gpucalc-export.wasm"]) copyFileSync(path.join(WASM_DIR, f), path.join(DIST, f));
for (const f of readdirSync(path.join(ROOT, "examples"))) {
  if (f.endsWith(".json")) copyFileSync(path.join(ROOT, "examples", f), path.join(DIST, "examples", f));
}
// ---- one style sheet: the sheets index.html links (style.css, jobtype.css, trust.css) are
// concatenated into style.css, in the order linked, and the links to the others dropped:
// one response and one gzip stream instead of three.
{
  const htmlPath = path.join(DIST, "index.html");
  let html = readFileSync(htmlPath, "utf8");
  const sheets = [...html.matchAll(/<link rel="stylesheet" href="([^"]+\.css)">\n?/g)];
  if (sheets[0]?.[1] !== "style.css") throw new Error("index.html: style.css is not the first style sheet");
  const css = sheets.map(([, f]) => readFileSync(path.join(DIST, f), "utf8")).join("\n");
  writeFileSync(path.join(DIST, "style.css"), css);
  for (const [link, f] of sheets.slice(1)) {
    html = html.replace(link, "");
    rmSync(path.join(DIST, f));
  }
  // Its comments and the indentation of its lines go too (no <pre> or <textarea> in it has
  // text of its own, and elsewhere HTML collapses white space): 0.5 KB gzip.
  if (/<(pre|textarea)[^>]*>[^<]/.test(html)) throw new Error("index.html: a <pre> or <textarea> has text; keep its white space");
  html = html.replace(/<!--[\s\S]*?-->/g, "").replace(/\n\s+/g, "\n");
  writeFileSync(htmlPath, html);
}

// ---- minified page scripts (esbuild, one file at a time: the module graph and the file
// names stay as they are; sw.js keeps its BUILD / PRECACHE markers for the stamp below),
// and the style sheets. Without node_modules the page ships unminified.
const minifyPageScripts = async () => {
  let esbuild;
  try {
    esbuild = await import("esbuild");
  } catch {
    console.warn("assemble: esbuild not installed (npm ci): page scripts not minified");
    return;
  }
  const targets = [...readdirSync(DIST).filter((f) => (f.endsWith(".js") || f.endsWith(".css")) && f !== "sw.js"),
    ...readdirSync(path.join(DIST, "locales")).filter((f) => f.endsWith(".js")).map((f) => `locales/${f}`)];
  for (const f of targets) {
    const file = path.join(DIST, f);
    const css = f.endsWith(".css");
    const { code } = esbuild.transformSync(readFileSync(file, "utf8"), css ? { loader: "css", minify: true, charset: "utf8" } : { minify: true, format: "esm", target: "es2022", charset: "utf8" });
    writeFileSync(file, code);
  }
};

// ---- one bundle for the page's modules (esbuild, code splitting): app.js with everything
// it imports statically, the workers' worker.js, and each module the page imports when
// asked for (launch, the HF import, the embed snippet, accuracy) or from its workers
// (gpucalc-api.js, explore.js) keep their file names; code two of them share goes into a
// chunk-HASH.js both import, so every module still has one instance per page. The core's
// glue (gpucalc.js, gpucalc-export.js), the strings (locales/) and the generated data
// loaded on demand (spec-sources.js, accuracy-data.js) stay separate files. Measured with
// scripts/bench-page.mjs: ~25 modules in one gzip stream instead of one each, ~8 KB gzip
// less for a first visit. The module-by-module copy goes to DIST-modules/ (not deployed)
// for the unit tests (tests/web/units.test.mjs), which import single modules.
// Returns the chunks only lazily loaded entries import (not precached, like them).
const ENTRIES = ["app.js", "worker.js", "gpucalc-api.js", "explore.js", "launch.js", "launch-worker.js", "hf-import.js", "embed-code.js", "accuracy.js", "expert.js"];
const SEPARATE = /^(node:|\.\/(gpucalc|gpucalc-export|spec-sources|accuracy-data)\.js$|\.\/locales\/)/;
const bundlePageScripts = async (lazyEntries) => {
  let esbuild;
  try {
    esbuild = await import("esbuild");
  } catch {
    return new Set(); // (minifyPageScripts warned)
  }
  const modulesDir = `${DIST}-modules`;
  rmSync(modulesDir, { recursive: true, force: true });
  cpSync(DIST, modulesDir, { recursive: true });
  const { metafile } = await esbuild.build({
    entryPoints: ENTRIES.map((f) => path.join(modulesDir, f)),
    outdir: DIST,
    allowOverwrite: true,
    bundle: true,
    splitting: true,
    format: "esm",
    target: "es2022",
    charset: "utf8",
    minify: true,
    entryNames: "[name]",
    chunkNames: "chunk-[hash]",
    metafile: true,
    logLevel: "error",
    plugins: [{ name: "separate", setup: (b) => b.onResolve({ filter: /.*/ }, (a) => (a.kind !== "entry-point" && SEPARATE.test(a.path) ? { path: a.path, external: true } : undefined)) }],
  });
  const rel = (f) => path.relative(DIST, path.resolve(ROOT, f)).split(path.sep).join("/");
  const outputs = new Map(Object.entries(metafile.outputs).map(([f, o]) => [rel(f), o]));
  // The modules now inside a bundle leave dist/.
  for (const input of Object.keys(metafile.inputs)) {
    const f = path.relative(modulesDir, path.resolve(ROOT, input)).split(path.sep).join("/");
    if (!outputs.has(f) && !SEPARATE.test(`./${f}`)) rmSync(path.join(DIST, f), { force: true });
  }
  // Which chunks a first visit loads: those the eager entries reach by static import.
  const reached = new Set();
  const reach = (f) => {
    if (reached.has(f)) return;
    reached.add(f);
    for (const i of outputs.get(f)?.imports ?? []) if (i.kind === "import-statement" && !i.external) reach(rel(i.path));
  };
  for (const f of ENTRIES) if (!lazyEntries.has(f)) reach(f);
  // index.html preloads what app.js imports (its chunks), not the modules it no longer has
  // nor those loaded when asked for.
  const htmlPath = path.join(DIST, "index.html");
  const appChunks = (outputs.get("app.js")?.imports ?? []).filter((i) => i.kind === "import-statement" && !i.external).map((i) => rel(i.path));
  let html = readFileSync(htmlPath, "utf8").replace(/<link rel="modulepreload" href="([^"]+)">\n?/g, (link, f) => (existsSync(path.join(DIST, f)) && !lazyEntries.has(f) ? link : ""));
  html = html.replace('<script type="module" src="app.js">', appChunks.map((f) => `<link rel="modulepreload" href="${f}">\n`).join("") + '<script type="module" src="app.js">');
  if (!html.includes('<script type="module" src="app.js">')) throw new Error("index.html: no app.js module script");
  writeFileSync(htmlPath, html);
  // A module outside the bundle (a worker started by URL, say) that imports one now inside
  // it would fail at run time: refuse to build (add it to ENTRIES).
  for (const f of readdirSync(DIST).filter((x) => x.endsWith(".js"))) {
    for (const [, ref] of readFileSync(path.join(DIST, f), "utf8").matchAll(/["'`]\.?\/?([\w-]+\.js)["'`]/g)) {
      if (existsSync(path.join(modulesDir, ref)) && !existsSync(path.join(DIST, ref))) throw new Error(`assemble: ${f} refers to ${ref}, which is now inside the page bundle; add ${f} to ENTRIES`);
    }
  }
  const lazyChunks = [...outputs.keys()].filter((f) => f.startsWith("chunk-") && !reached.has(f));
  // Of those, the ones the modules kept for offline use import (LATER below).
  const later = new Set(reached);
  reached.clear();
  for (const f of OFFLINE_MODULES) if (f.endsWith(".js")) reach(f);
  for (const f of lazyChunks) if (reached.has(f)) OFFLINE_MODULES.add(f);
  reached.clear();
  for (const f of later) reached.add(f);
  return new Set(lazyChunks);
};

// ---- catalog.js: scalar fields only (a spec {value, source, confidence} becomes its
// value, with confidence and source id kept beside it for the page's spec table).
const models = readJson("data/models.json").models.map((m) => {
  const out = {};
  for (const [k, v] of Object.entries(m)) {
    const x = valueOf(v);
    if (["string", "number", "boolean"].includes(typeof x) && !/^(source|sources|notes?|about|name_zh)$/.test(k)) out[k] = x;
    // MoE and MLA presets: their experts and attention shape (objects of scalars), for
    // the page's EP field, its model list ("671B (37B active)") and Expert-mode defaults.
    else if ((k === "moe" || k === "attention") && x && typeof x === "object" && !Array.isArray(x)) {
      out[k] = Object.fromEntries(Object.entries(x).filter(([, y]) => ["string", "number", "boolean"].includes(typeof y)));
    }
  }
  return out;
});
const CLI = path.resolve(ROOT, process.env.GPUCALC_CLI ?? "build/native/cli/gpucalc");
const gpuData = readJson("data/gpus.json");
const gpus = gpuData.gpus.map((g) => {
  const out = {};
  for (const [k, v] of Object.entries(g)) {
    const x = valueOf(v);
    // What the page reads (ids, names, vendor, the specs the core and the Expert form use);
    // the catalog's descriptive fields (arch, form factor, memory type, reference id, export
    // control, least-sure spec) stay in data/gpus.json and `gpucalc catalog gpus`.
    // The Chinese name goes to the Chinese strings (DATA_TEXT below), not to every reader.
    const unread = /^(source|sources|notes?|about|arch|form_factor|memory_type|reference_id|export_control|least_sure|name_zh)$/;
    if (["string", "number", "boolean"].includes(typeof x) && !unread.test(k)) out[k] = x;
  }
  return out;
});
// The key specs each accelerator lacks, as the core counts them (`gpucalc catalog gpus`,
// missing_specs): the page offers only complete ones (docs/catalog.md "Completeness").
const catalogMissing = (() => {
  try {
    const doc = JSON.parse(execFileSync(CLI, ["catalog", "gpus"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
    return new Map(doc.gpus.map((g) => [g.id, g.missing_specs ?? []]));
  } catch (error) {
    console.warn(`assemble: no missing_specs from the CLI; every accelerator offered (${String(error.message).split("\n")[0]})`);
    return new Map();
  }
})();
for (const g of gpus) if (catalogMissing.has(g.id)) g.missing_specs = catalogMissing.get(g.id);
const sources = Object.fromEntries(
  Object.entries(gpuData.sources ?? {}).filter(([, v]) => typeof v === "string"),
);
const defaultScenario = readJson(DEFAULT_EXAMPLE);
// data/validation.json with what the page shows only (no notes, labels or method texts).
const validationForPage = () => {
  const v = readJson("data/validation.json");
  const { n, p10, p50, p90, ratios_sorted, regimes } = v.uncertainty.time;
  const m = v.uncertainty.memory;
  return {
    summary: v.summary,
    regimes: v.regimes,
    targets: v.targets,
    coverage: v.coverage,
    uncertainty: { time: { n, p10, p50, p90, ratios_sorted, regimes }, memory: { n: m.n, low: m.low, high: m.high, ratios_sorted: m.ratios_sorted } },
    rows: v.rows.map((r) => ({
      id: r.id,
      source: r.source,
      gpus: r.gpus,
      layout: r.layout,
      counts_toward_target: r.counts_toward_target,
      metrics: r.metrics.map(({ key, reported, predicted, error }) => ({ key, reported, predicted, error })),
    })),
  };
};

// The default scenario's answer (evaluate) and curve/top layouts (search), from the
// native CLI on exactly the text the page sends. The page shows them at once and the
// wasm core recomputes the answer as soon as it is ready (tests/wasm pins wasm == CLI).
const runCli = (command, scenario = defaultScenario) => {
  try {
    return JSON.parse(execFileSync(CLI, [command, "-"], { input: JSON.stringify(scenario), encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] }));
  } catch (error) {
    console.warn(`assemble: no prebuilt default ${command} (${String(error.message).split("\n")[0]})`);
    return null;
  }
};
// Their fractional numbers to 6 significant digits (the page shows at most 4, and the
// wasm core's own answer replaces them a moment later): about 1 KB gzip less to download.
const sig6 = (v) =>
  typeof v === "number" && !Number.isInteger(v) ? Number(v.toPrecision(6))
  : Array.isArray(v) ? v.map(sig6)
  : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sig6(x)]))
  : v;
const cliAnswer = runCli("evaluate");
// Without the texts no part of the page shows (web/*.js never reads them): the GPU's
// efficiency profile with its sources (compare.js reads a comparison row's own), the
// uncertainty's method texts, the OOM flag's rule and source (trust.js words its own),
// the formulas of the rule of thumb, goodput, cost and energy and the rule of thumb's
// explanation (render.js words them from their numbers), and the `*_coded` parts of the
// explanatory prose: this answer is drawn only for a reader who sees USD, nearly always an
// English one, who reads the English beside them (render.js prose()); a Chinese reader
// who chose USD reads the English sources behind a click until the core's answer comes.
// The wasm core's full answer replaces this one a moment later.
const without = (o, keys) => o && Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
const uncoded = (v) =>
  Array.isArray(v) ? v.map(uncoded)
  : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).filter(([k]) => !k.endsWith("_coded")).map(([k, x]) => [k, uncoded(x)]))
  : v;
const forPage = (a) => ({
  ...uncoded(a),
  gpu: without(a.gpu, ["perf_profile"]),
  quick_estimate: without(uncoded(a.quick_estimate), ["explanation", "formula"]),
  uncertainty: a.uncertainty && { ...without(a.uncertainty, ["source"]), time: without(a.uncertainty.time, ["method"]), memory: without(a.uncertainty.memory, ["method"]) },
  oom_risk: without(a.oom_risk, ["rule", "source"]),
  goodput: without(uncoded(a.goodput), ["formula", "checkpoint_interval_rule"]),
  cost: without(uncoded(a.cost), ["formula"]),
  energy: without(uncoded(a.energy), ["formula"]),
});
const defaultAnswer = cliAnswer && sig6(forPage(cliAnswer));
const searched = runCli("search");
// The core's coded messages in Chinese (data/messages.json, code → zh template), in two
// parts (web/i18n.js): the templates of the codes the default scenario's answer and search
// show (priced in 元, as a Chinese reader's page asks for them) are appended to locales/zh.js as MESSAGES (one gzip stream with the page's Chinese
// strings, so a default Chinese visit renders them at once and an English one never
// downloads them); the rest (~9 KB gzip, mostly input errors) go to
// locales/messages.zh.js, which the page loads the first time a message without its
// template is to be shown and the service worker fetches on the next visit (LATER).
const messages = readJson("data/messages.json");
const shownByDefault = new Set();
const inYuan = { ...defaultScenario, cost: { ...defaultScenario.cost, currency: "CNY" } };
JSON.stringify([cliAnswer, searched, runCli("evaluate", inYuan), runCli("search", inYuan)], (k, v) => {
  if ((k === "code" || k === "reason") && typeof v === "string" && v in messages) shownByDefault.add(v);
  return v;
});
const zhTemplates = (keep) => Object.fromEntries(Object.entries(messages).filter(([code]) => shownByDefault.has(code) === keep).map(([code, t]) => [code, t.zh]));
// The catalog's descriptive data the core passes as a message parameter (a price's `type`,
// data/gpus.json `type_zh` beside it; a date in words, "early 2026", and its `date_zh`):
// the Chinese page shows it in Chinese (i18n.js).
const priceTextZh = (field) =>
  Object.fromEntries(gpuData.gpus.flatMap((g) => (g.prices ?? []).filter((p) => p[field] && p[`${field}_zh`]).map((p) => [p[field], p[`${field}_zh`]])));
// An accelerator's name (data/gpus.json `name_zh` beside `name`: the message parameter
// {gpu}, the GPU list, the answer's subline), likewise.
const gpuNamesZh = Object.fromEntries(gpuData.gpus.filter((g) => g.name_zh).map((g) => [g.name, g.name_zh]));
// A model preset's, where its name has words (data/models.json `name_zh`: "(text decoder)").
const modelNamesZh = Object.fromEntries(readJson("data/models.json").models.filter((m) => m.name_zh).map((m) => [m.name, m.name_zh]));
writeFileSync(
  path.join(DIST, "locales", "zh.js"),
  readFileSync(path.join(DIST, "locales", "zh.js"), "utf8") +
    `\nexport const MESSAGES = ${JSON.stringify(zhTemplates(true))};\n` +
    `export const DATA_TEXT = ${JSON.stringify({ type: priceTextZh("type"), date: priceTextZh("date"), gpu: gpuNamesZh, model: modelNamesZh })};\n`,
);
writeFileSync(
  path.join(DIST, "locales", "messages.zh.js"),
  "// Generated by scripts/assemble-dist.mjs from data/messages.json. Do not edit.\n" + `export default ${JSON.stringify(zhTemplates(false))};\n`,
);
// A top layout with what its row in the table shows (render.js renderExplore).
const pick = (o, keys) => Object.fromEntries(Object.entries(o ?? {}).filter(([k]) => keys.includes(k)));
const slim = (e) => ({
  plan: pick(e.plan, ["tp", "pp", "vpp", "dp", "cp", "ep", "micro_batch", "zero_stage", "recompute"]),
  memory: pick(e.memory, ["total_bytes"]),
  performance: pick(e.performance, ["step_time_s", "mfu"]),
  training: pick(e.training, ["days"]),
});
const defaultSearch =
  searched && Array.isArray(searched.curve)
    ? {
        source: "search",
        // What the curve chart and its tooltips read (render.js, charts.js): the rest comes
        // with the wasm core's own search a moment later; this keeps the first visit light.
        curve: searched.curve.map(({ gpus, days, gpu_hours, pareto, plan }) => ({ gpus, days, gpu_hours, pareto, plan })),
        top: (searched.top ?? []).map(slim),
        search: searched.search,
      }
    : null;
const defaultSearchShipped = defaultSearch && sig6(defaultSearch);
writeFileSync(
  path.join(DIST, "catalog.js"),
  "// Generated by scripts/assemble-dist.mjs from data/models.json, data/gpus.json,\n// data/currency.json and " +
    `// ${DEFAULT_EXAMPLE}. Do not edit.\n` +
    `export const CATALOG_MODELS = ${JSON.stringify(models)};\n` +
    `export const CATALOG_GPUS = ${JSON.stringify(gpus)};\n` +
    `export const USD_CNY = ${JSON.stringify(readJson("data/currency.json").usd_cny)};\n` +
    `export const DEFAULT_SCENARIO = ${JSON.stringify(defaultScenario)};\n`,
);
// prebuilt.js: the native CLI's answer and search of the default scenario, which the page
// draws before the wasm core has answered — for a reader who sees its USD prices, nearly
// always an English one. A classic script: boot.js adds it (async) for an English reader,
// and app.js draws it when it has run (at once, or from its hook when it runs later; a
// module imported at that point would split the page's start-up task: the build-time
// answer 110 ms later, scripts/bench-first-answer.mjs). A Chinese first visit (priced in
// 元) never downloads it: ~4 KB gzip.
writeFileSync(
  path.join(DIST, "prebuilt.js"),
  `// Generated by scripts/assemble-dist.mjs from the native CLI's answer to ${DEFAULT_EXAMPLE}. Do not edit.\n` +
    `self.__gpucalcPrebuilt = { answer: ${JSON.stringify(defaultAnswer)}, search: ${JSON.stringify(defaultSearchShipped)} };\n` +
    `if (typeof self.__gpucalcPrebuiltHook === "function") self.__gpucalcPrebuiltHook();\n`,
);
// scenario-schema.js: the fields of data/scenario-schema.json the Expert form shows
// (web/schema.js), with what the form reads only (type, values, default and its kind,
// form placement): ranges, units and sources stay in the JSON. Their docs texts, the
// form's hints, go to locales/scenario-docs.{en,zh}.js, loaded with the Expert form in
// the page's language (LAZY below).
const PAGE_KEYS = ["type", "values", "items", "preset", "required", "required_unless", "default", "default_from", "preset_key", "plan_key", "default_expr", "form"];
const formFields = Object.entries(readJson("data/scenario-schema.json").fields).filter(([, f]) => f.form);
writeFileSync(
  path.join(DIST, "scenario-schema.js"),
  "// Generated by scripts/assemble-dist.mjs from data/scenario-schema.json. Do not edit.\n" +
    `export const SCHEMA_FIELDS = ${JSON.stringify(formFields.map(([pointer, f]) => [pointer, Object.fromEntries(PAGE_KEYS.filter((k) => f[k] !== undefined).map((k) => [k, f[k]]))]))};\n`,
);
for (const lang of ["en", "zh"]) {
  writeFileSync(
    path.join(DIST, "locales", `scenario-docs.${lang}.js`),
    "// Generated by scripts/assemble-dist.mjs from data/scenario-schema.json (doc." + lang + "). Do not edit.\n" +
      `export const DOCS = ${JSON.stringify(Object.fromEntries(formFields.map(([pointer, f]) => [pointer, f.doc[lang]])))};\n`,
  );
}
// spec-sources.js: the source text of each accelerator spec, for the spec table's
// details (render.js loads it when one is opened).
writeFileSync(
  path.join(DIST, "spec-sources.js"),
  "// Generated by scripts/assemble-dist.mjs from data/gpus.json. Do not edit.\n" + `export const SPEC_SOURCES = ${JSON.stringify(sources)};\n`,
);
// accuracy-data.js: the validation report (scripts/validate.mjs; ctest checks it is fresh)
// for "How accurate is this?", which web/accuracy.js loads when the dialog first opens.
writeFileSync(
  path.join(DIST, "accuracy-data.js"),
  "// Generated by scripts/assemble-dist.mjs from data/validation.json. Do not edit.\n" +
    `export const VALIDATION = ${JSON.stringify(validationForPage())};\n`,
);

// ---- sw.js: precache list + build hash
await minifyPageScripts();

// Loaded only when asked for ("How accurate is this?", the Expert form's hints): not precached, not part of the
// first visit's weight; the service worker keeps them once fetched. They are in the build
// hash, so a new report installs a new cache.
const LAZY = new Set(["accuracy.js", "accuracy.css", "accuracy-data.js", "locales/accuracy.en.js", "locales/accuracy.zh.js",
  "locales/scenario-docs.en.js", "locales/scenario-docs.zh.js", "embed-code.js", "spec-sources.js",
  // "Launch config" (launch.js): loaded when first opened, with its own core.
  "launch.js", "launch.css", "launch-worker.js", "gpucalc-export.js", "gpucalc-export.wasm",
  // The GPU-count sweep, for a core without search() only (web/worker.js imports it then).
  "explore.js",
  // The Expert form and the Hugging Face config.json import, loaded when first shown: 4 KB
  // gzip a first visit no longer transfers (the service worker fetches them on the next
  // visit for offline use: OFFLINE_MODULES).
  "expert.js", "hf-import.js", "hf-import.css",
  // The Chinese templates of the coded messages a default answer does not show (i18n.js).
  "locales/messages.zh.js"]);
// Lazily loaded modules the page still needs offline: sw.js fetches them (and the chunks
// only they import, added by bundlePageScripts) on the second visit, like the other
// language's strings.
const OFFLINE_MODULES = new Set(["expert.js", "hf-import.js", "hf-import.css", "locales/messages.zh.js"]);
// The bundles' chunks that only those import.
for (const f of await bundlePageScripts(LAZY)) LAZY.add(f);
const files = [];
const walk = (dir) => {
  for (const f of readdirSync(dir).sort()) {
    const full = path.join(dir, f);
    if (statSync(full).isDirectory()) walk(full);
    else files.push(path.relative(DIST, full).split(path.sep).join("/"));
  }
};
walk(DIST);
// The examples are fetched (and then kept by the service worker) only when asked for.
const precache = files.filter((f) => f !== "sw.js" && f !== "embed.js" && !LAZY.has(f) && !f.startsWith("examples/"));
// Each language's strings: the service worker keeps at install the ones the first visit
// downloaded (the reader's), and the other language from the next visit on (web/sw.js), so
// an English reader's first visit does not transfer the Chinese strings.
// The build-time answer (prebuilt.js) likewise: an English reader's first visit downloads
// it, a Chinese one's does not (app.js names it in its "keep" message when it loaded it).
const LANGUAGE = ["locales/en.js", "locales/zh.js", "prebuilt.js"];
for (const f of LANGUAGE) if (!precache.includes(f)) throw new Error(`sw.js: language file ${f} is not in dist/`);
const hash = createHash("sha256");
for (const f of [...precache, ...files.filter((f) => LAZY.has(f) || f.startsWith("examples/"))]) hash.update(f).update(readFileSync(path.join(DIST, f)));
const build = hash.digest("hex").slice(0, 12);
const swPath = path.join(DIST, "sw.js");
let sw = readFileSync(swPath, "utf8");
const stamped = sw
  .replace(/const BUILD = "[^"]*";/, `const BUILD = ${JSON.stringify(build)};`)
  .replace(/const PRECACHE = \[[^\]]*\];/, `const PRECACHE = ${JSON.stringify(["./", ...precache.filter((f) => !LANGUAGE.includes(f))])};`)
  .replace(/const LATER = \[[^\]]*\];/, `const LATER = ${JSON.stringify([...LANGUAGE, ...OFFLINE_MODULES])};`);
if (stamped === sw || !stamped.includes(build) || !stamped.includes(JSON.stringify(LANGUAGE).slice(0, -1))) throw new Error("sw.js: BUILD / PRECACHE / LATER markers not found");
// Minified once stamped (comments, white space and local names; its declarations stay as
// written, `const PRECACHE=[...];`, which tests/web/offline.test.mjs reads): ~0.9 KB gzip.
const swMinified = await import("esbuild").then(
  (esbuild) => esbuild.transformSync(stamped, { minifyWhitespace: true, minifyIdentifiers: true, target: "es2022", charset: "utf8" }).code,
  () => stamped,
);
if (!/const PRECACHE=\[[^\]]*\];/.test(swMinified) && swMinified !== stamped) throw new Error("sw.js: PRECACHE not found after minifying");
writeFileSync(swPath, swMinified);
// boot.js keeps its download of the wasm in the same cache (gpucalc-BUILD). Its own bytes
// are hashed above unstamped: the stamp follows from the hash, not the other way round.
const bootPath = path.join(DIST, "boot.js");
const boot = readFileSync(bootPath, "utf8");
// It also gets the default scenario's text, which its worker searches before the page asks.
const bootStamped = boot
  .replace('"gpucalc-dev"', JSON.stringify(`gpucalc-${build}`))
  .replace('"gpucalc-default-scenario"', JSON.stringify(JSON.stringify(defaultScenario)));
if (!bootStamped.includes(`gpucalc-${build}`) || bootStamped.includes("gpucalc-default-scenario")) throw new Error("boot.js: BUILD or DEFAULT marker not found");
writeFileSync(bootPath, bootStamped);

// ---- page weight: everything a first visit downloads (not the examples, the blog-embed
// script, which the page itself never loads, or the LAZY files above); a reader downloads
// one language's strings (i18n.js), the Chinese ones with the coded messages' templates. scripts/bench-page.mjs measures the
// same in a browser, service worker included.
const pageWeight = files.filter(
  (f) => /\.(html|js|css|wasm|svg)$/.test(f) && f !== "embed.js" && !LAZY.has(f) && !f.startsWith("examples/"),
);
const gzipOf = (f) => gzipSync(readFileSync(path.join(DIST, f)), { level: 9 }).length;
let raw = 0;
let gz = 0;
for (const f of pageWeight) {
  raw += statSync(path.join(DIST, f)).size;
  gz += gzipOf(f);
}
const zhOnly = gzipOf("locales/zh.js");
const enOnly = gzipOf("locales/en.js") + gzipOf("prebuilt.js");
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(`assemble: dist/ ready, build ${build}, ${files.length} files`);
console.log(`assemble: page weight, gzip: ${kb(gz - zhOnly)} for an English reader, ${kb(gz - enOnly)} for a Chinese one (${pageWeight.length} files, ${kb(raw)} raw; budget 250 KB gzip)`);
