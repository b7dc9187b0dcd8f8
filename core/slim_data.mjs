// Writes a copy of a data/ JSON file for the wasm build's embedded catalogs, without the
// members no answer prints: prose written for people (a file's `about`, perf.json's table
// of `sources`, the fitted MoE overhead's derivation, the GPU entries' notes, the model
// presets' sources). The page's
// wasm is part of every first visit (issue 16: under 250 KB gzip); the CLI embeds the
// files whole.
// Every other token is copied as written (numbers keep their spelling, so 2.0 stays a
// float for nlohmann/json), white space outside strings dropped. The wasm and native
// answers are compared byte for byte by tests/wasm/.
// Usage: node core/slim_data.mjs IN OUT   (core/CMakeLists.txt runs it under Emscripten)
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

// Per file: JSON paths of members to leave out; "*" matches any key, "**" any depth.
const DROP = {
  "perf.json": [
    ["**", "about"],
    ["sources"],
    ["moe_layer_overhead", "source"],
    // Read by no code (attention_tiles) or read and never printed (attention_span, the
    // size roll-offs, the SM counts, the GEMM tile, NCCL's latencies, the overlap
    // slowdown, the head-dimension rates).
    ["attention_tiles", "source"],
    ["profiles", "*", "attention_span", "source"],
    ["profiles", "*", "sm_count", "source"],
    ["matmul_size_rolloff", "source"],
    ["memory_size_rolloff", "source"],
    ["gemm_tile", "source"],
    ["nccl_latency", "source"],
    ["overlap_slowdown", "source"],
    ["async_tp_hidden", "source"],
    ["attention_head_dim", "source"],
  ],
  // The GPU catalog's descriptive prose (what the core stores but never prints in an
  // answer; `gpucalc catalog gpus` keeps it): ~4 KB gzip of every first visit.
  "gpus.json": [
    ["about"],
    ["gpus", "*", "notes"],
    ["gpus", "*", "least_sure"],
    ["gpus", "*", "form_factor"],
    ["gpus", "*", "memory_type"],
    ["gpus", "*", "reference_id"],
    ["gpus", "*", "export_control"],
    ["gpus", "*", "*", "note"],
    ["gpus", "*", "*", "derived"],
    ["gpus", "*", "*", "unsourced"],
    // A price's type and worded date in Chinese: the page's Chinese strings carry them
    // (locales/zh.js DATA_TEXT); the core prints the English `type` and `date`.
    ["gpus", "*", "prices", "*", "type_zh"],
    ["gpus", "*", "prices", "*", "date_zh"],
    // The host link's citation: no answer prints it (the offload time uses the value).
    ["gpus", "*", "host_link_gbs", "source"],
    ["gpus", "*", "host_link_gbs", "confidence"],
    // The sub-models of a family (Ascend 910B1-B4 and the like) with their own specs: the
    // core reads the family's entry only; the page's catalog (presets.js) keeps them.
    ["gpus", "*", "variants"],
    // The maker's name: no answer prints it (the page groups its catalog, presets.js, by it).
    ["gpus", "*", "vendor"],
    // The name in Chinese: the Chinese page's strings carry it (locales/zh.js DATA_TEXT).
    ["gpus", "*", "name_zh"],
  ],
  // The validation spread: the core reads the counts, quantiles and bands; the ratios behind
  // them, the methods' prose and the coverage figures are for people (`gpucalc` native keeps
  // them; data/uncertainty.json is the record): ~1 KB gzip of every first visit.
  "uncertainty.json": [
    ["**", "about"],
    ["coverage"],
    ["time", "ratios_sorted"],
    ["time", "quantity"],
    ["time", "estimator"],
    ["time", "regime_method"],
    ["time", "model_method"],
    ["memory", "ratios_sorted"],
    ["memory", "quantity"],
    ["memory", "rule"],
    // Which catalog ids each regime's accelerators stand for: the core matches by rates.
    ["time", "regimes", "*", "accelerators", "*", "gpus"],
    ["memory_by_framework", "*", "ratios_sorted"],
    ["memory_by_framework", "*", "median_abs_error"],
    ["memory_by_framework", "*", "max_abs_error"],
    // The per-regime error table (docs/validation.md has it) and the per-model shift
    // statistics: read by no code.
    ["regimes"],
    ["summary", "metric"],
    ["time", "models", "*", "shift"],
    ["time", "models", "*", "t"],
  ],
  // The presets' sources (where each shape and published count comes from; `gpucalc
  // catalog models` keeps them): ~4.5 KB gzip of every first visit. No answer prints them.
  // A preset's name in Chinese, where it has words (locales/zh.js DATA_TEXT).
  "models.json": [["about"], ["models", "*", "source"], ["models", "*", "name_zh"]],
};

const [input, output] = process.argv.slice(2);
if (!input || !output) throw new Error("usage: node core/slim_data.mjs IN OUT");
const text = readFileSync(input, "utf8");
const rules = [...(DROP[path.basename(input)] ?? [])];
// The GPU catalog's citation table: the core looks up only a price's source
// (catalog.cpp gpu_source_citation, printed with the price an answer uses); the specs'
// citations reach the page from spec-sources.js when asked for. The wasm keeps the
// entries a price names: ~2 KB gzip of every first visit.
if (path.basename(input) === "gpus.json") {
  const doc = JSON.parse(text);
  const named = new Set((doc.gpus ?? []).flatMap((g) => (g.prices ?? []).map((p) => p.source)));
  for (const key of Object.keys(doc.sources ?? {})) if (!named.has(key)) rules.push(["sources", key]);
  // A spec the entry does not have is written `null`; catalog.cpp reads a missing member
  // the same way: ~100 B gzip.
  (doc.gpus ?? []).forEach((g, k) => {
    for (const [key, v] of Object.entries(g)) if (v === null) rules.push(["gpus", String(k), key]);
  });
}

const matches = (rule, at) => {
  const go = (r, p) => {
    if (r === rule.length) return p === at.length;
    if (rule[r] === "**") return go(r + 1, p) || (p < at.length && go(r, p + 1));
    return p < at.length && (rule[r] === "*" || rule[r] === at[p]) && go(r + 1, p + 1);
  };
  return go(0, 0);
};

// A minimal JSON reader that returns the compact text of each value, scalars as written.
let i = 0;
const ws = () => {
  while (/\s/.test(text[i] ?? "")) i++;
};
const fail = (what) => {
  throw new Error(`${input}: ${what} at offset ${i}`);
};
const string = () => {
  const start = i++;
  while (text[i] !== '"') {
    if (i >= text.length) fail("unterminated string");
    i += text[i] === "\\" ? 2 : 1;
  }
  i++;
  return text.slice(start, i);
};
const value = (at) => {
  ws();
  const c = text[i];
  if (c === "{") {
    i++;
    const out = [];
    ws();
    if (text[i] === "}") return i++, "{}";
    for (;;) {
      ws();
      if (text[i] !== '"') fail("expected a key");
      const keyText = string();
      const key = JSON.parse(keyText);
      ws();
      if (text[i++] !== ":") fail("expected ':'");
      const v = value([...at, key]);
      if (!rules.some((r) => matches(r, [...at, key]))) out.push(`${keyText}:${v}`);
      ws();
      if (text[i] === ",") i++;
      else if (text[i] === "}") return i++, `{${out.join(",")}}`;
      else fail("expected ',' or '}'");
    }
  }
  if (c === "[") {
    i++;
    const out = [];
    ws();
    if (text[i] === "]") return i++, "[]";
    for (;;) {
      out.push(value([...at, String(out.length)]));
      ws();
      if (text[i] === ",") i++;
      else if (text[i] === "]") return i++, `[${out.join(",")}]`;
      else fail("expected ',' or ']'");
    }
  }
  if (c === '"') return string();
  const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
  if (!m) fail("unexpected token");
  i += m[0].length;
  return m[0];
};
const slim = value([]);
ws();
if (i !== text.length) fail("trailing text");
// Same document, apart from the members dropped.
const strip = (v, at) =>
  Array.isArray(v) ? v.map((x, k) => strip(x, [...at, String(k)]))
  : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).filter(([k]) => !rules.some((r) => matches(r, [...at, k]))).map(([k, x]) => [k, strip(x, [...at, k])]))
  : v;
if (JSON.stringify(JSON.parse(slim)) !== JSON.stringify(strip(JSON.parse(text), []))) fail("slim copy differs from the original beyond the dropped members");
mkdirSync(path.dirname(output), { recursive: true });
writeFileSync(output, slim);
