// The Expert form's fields, built from data/scenario-schema.json (scripts/assemble-dist.mjs
// ships the fields the form shows as scenario-schema.js), and the helpers that read and
// write a scenario by JSON pointer. A blank field is an absent field: the core applies
// its default or chooses.
//
// A form field: {path, kind, group, options, def, show, optionShow, defaultAll, required}.
// kind: "amount" (number, accepts 15T / 1.5万亿), "int", "num", "enum", "bool", "text",
//       "multi" (an array of some of `options`, as checkboxes; optionShow: the relevance
//       flag an option needs; defaultAll: absent means every option that applies),
//       "model-preset" / "gpu-preset".
// def:  how the default is shown — {value} a documented constant, {chosen: key}
//       chosen by the calculator (the last answer's plan[key] is shown), {preset: key}
//       the preset's value ("moe.experts": a nested one), {spec: key} the GPU catalog's,
//       {fallback} a formula of other fields, {none: true} no default.
// show: a flag of jobtype.js relevance() ("moe", "mla", "lora", "qlora", "qlora_hf", "finetune"):
//       the field shows only when it applies (or is set).
// The schema's docs texts (doc.en, doc.zh), the fields' hints, load with the form in the
// page's language: loadDocs(lang), then docOf(path, lang).
import { SCHEMA_FIELDS } from "./scenario-schema.js";

const DOCS = new Map(); // lang -> {pointer: text}, once loaded
const LOADING = new Map(); // lang -> the one import (offline and never fetched: it fails once, hints stay blank)
export function loadDocs(lang) {
  if (!LOADING.has(lang)) {
    const file = `./locales/scenario-docs.${lang === "zh" ? "zh" : "en"}.js`;
    LOADING.set(lang, import(file).then((m) => (DOCS.set(lang, m.DOCS), m.DOCS)));
  }
  return LOADING.get(lang);
}
export const docsLoaded = (lang) => DOCS.has(lang) || LOADING.has(lang);
export const docOf = (path, lang) => DOCS.get(lang)?.[path] ?? "";

const GROUP_ORDER = ["model", "moe", "gpu", "training", "job", "memory", "parallel", "target", "assume", "about"];
const GROUP_KEYS = {
  moe: "model.moe · model.attention",
  job: "training.stage · lora · dataset",
  memory: "training.optimizer · master_weights · offload",
};

function kindOf(f) {
  if (f.form.kind) return f.form.kind;
  if (f.preset) return `${f.preset}-preset`;
  if (f.values) return "enum";
  return { integer: "int", number: "num", boolean: "bool", string: "text", array: "multi", enum: "enum" }[f.type];
}

function defOf(path, f) {
  const value = f.default !== undefined ? { value: f.default } : {};
  switch (f.default_from) {
    case "preset":
      return { preset: f.preset_key, ...value, ...(f.default_expr ? { fallback: f.default_expr } : {}), ...(f.default === undefined && !f.default_expr ? { none: true } : {}) };
    case "catalog":
      return { spec: path.split("/").pop() };
    case "search":
    case "answer":
      return { chosen: f.plan_key };
    case "constant":
      return value;
    default:
      return { none: true };
  }
}

// One schema entry as the form's field.
export function formField(path, f) {
  const kind = kindOf(f);
  const field = { path, kind, group: f.form.group, def: defOf(path, f) };
  if (f.values || f.items) field.options = f.values ?? f.items;
  // Required: a section's own field (training.seq_len), not a preset or a nested object's.
  if (f.required && !f.required_unless && !f.preset && path.split("/").length === 3) field.required = true;
  for (const k of ["show", "optionShow", "defaultAll"]) if (f.form[k] !== undefined) field[k] = f.form[k];
  return field;
}

export const FIELDS = SCHEMA_FIELDS.map(([path, f]) => formField(path, f));
export const GROUPS = GROUP_ORDER.map((id) => ({
  id,
  ...(GROUP_KEYS[id] ? { key: GROUP_KEYS[id] } : {}),
  fields: SCHEMA_FIELDS.map(([path, f], i) => [FIELDS[i], f.form.order ?? 0]).filter(([x]) => x.group === id).sort((a, b) => a[1] - b[1]).map(([x]) => x),
}));
export const FIELD_BY_PATH = new Map(FIELDS.map((f) => [f.path, f]));

// "/training/seq_len" -> ["training", "seq_len"] (RFC 6901 unescaping).
export function tokens(path) {
  if (path === "" || path === "/") return [];
  return path.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

export function getPath(obj, path) {
  let cur = obj;
  for (const key of tokens(path)) {
    if (!isObject(cur) || !Object.hasOwn(cur, key)) return undefined;
    cur = cur[key];
  }
  return cur;
}

// Sets (or, with undefined, deletes) a value; optional sections left empty are removed.
// A preset id under /model or /gpu becomes {base: id, ...} when a field below it is set,
// and collapses back to the id when only base is left.
export function setPath(scenario, path, value) {
  const keys = tokens(path);
  if (keys.length === 0) return;
  const [root, ...rest] = keys;
  if ((root === "model" || root === "gpu") && rest.length === 1) {
    let node = scenario[root];
    if (typeof node === "string") node = { base: node };
    if (!isObject(node)) node = {};
    if (value === undefined) delete node[rest[0]];
    else node[rest[0]] = value;
    const left = Object.keys(node);
    scenario[root] = left.length === 1 && left[0] === "base" && typeof node.base === "string" ? node.base : node;
    return;
  }
  if ((root === "model" || root === "gpu") && typeof scenario[root] === "string") {
    if (value === undefined) return;
    scenario[root] = { base: scenario[root] }; // "/model/moe/experts" on a preset: {base, moe: {experts}}
  }
  let cur = scenario;
  const parents = [];
  for (const key of keys.slice(0, -1)) {
    if (!isObject(cur[key])) {
      if (value === undefined) return;
      cur[key] = {};
    }
    parents.push([cur, key]);
    cur = cur[key];
  }
  const last = keys[keys.length - 1];
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  // Drop optional sections that became empty (and any emptied object below a section:
  // training.lora, training.offload, model.moe, …).
  for (const [i, [parent, key]] of [...parents.entries()].reverse()) {
    if ((i > 0 || ["parallel", "target", "assume"].includes(key)) && isObject(parent[key]) && Object.keys(parent[key]).length === 0) {
      delete parent[key];
    }
  }
  if (root === "model" || root === "gpu") {
    const node = scenario[root];
    const left = isObject(node) ? Object.keys(node) : [];
    if (left.length === 1 && left[0] === "base" && typeof node.base === "string") scenario[root] = node.base;
  }
}

// The preset id a model or gpu value starts from (string id, or object base), else null.
export function baseOf(value) {
  if (typeof value === "string") return value;
  if (isObject(value) && typeof value.base === "string") return value.base;
  return null;
}

// Fields of /model or /gpu set beside the preset (excluding base).
export function overridesOf(value) {
  if (!isObject(value)) return {};
  const { base, ...rest } = value;
  return rest;
}

// Input text for a stored value. Amounts show as "15T" (zh: "15万亿") only when
// that is exact, so reading the text back gives the same number.
export function textOf(value, kind, lang = "en") {
  if (value === undefined || value === null) return "";
  if (kind === "amount" && typeof value === "number") return exactAmount(value, lang);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

const UNITS = {
  en: [
    [1e12, "T"],
    [1e9, "B"],
    [1e6, "M"],
  ],
  zh: [
    [1e12, "万亿"],
    [1e8, "亿"],
    [1e4, "万"],
  ],
};

export function exactAmount(v, lang = "en") {
  if (!Number.isFinite(v)) return String(v);
  for (const [scale, suffix] of UNITS[lang] ?? UNITS.en) {
    if (Math.abs(v) >= scale) {
      const m = v / scale;
      const r = Math.round(m * 1000) / 1000;
      if (r * scale === v) return `${r}${suffix}`;
    }
  }
  return String(v);
}
