// The page: a few inputs -> scenario JSON -> wasm core -> answer.
// All text goes in through textContent; nothing user-typed is parsed as HTML.
import { evaluate, loadCore, version } from "./gpucalc-api.js";
import { DEFAULT_SCENARIO_URL, GPUS, MODELS } from "./presets.js";
import { STRINGS, pickLanguage, saveLanguage } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const GIB = 2 ** 30;
const MEMORY_PARTS = ["weights", "gradients", "optimizer", "activations", "other"];

const state = {
  lang: pickLanguage(),
  base: null, // the default scenario, which the form's values override
  last: null, // last envelope from the core
  seq: 0,
  version: "",
};

const raw = (key) => STRINGS[state.lang][key] ?? STRINGS.en[key] ?? key;
const t = (key, vars = {}) => raw(key).replace(/\{(\w+)\}/g, (_, k) => String(vars[k] ?? ""));

const numberFormat = (opts) => new Intl.NumberFormat(state.lang === "zh" ? "zh-CN" : "en-US", opts);
const fmt = (v, digits = 1) => numberFormat({ maximumFractionDigits: digits }).format(v);
const fmtInt = (v) => numberFormat({ maximumFractionDigits: 0 }).format(v);
const fmtCompact = (v) => numberFormat({ notation: "compact", maximumFractionDigits: 2 }).format(v);
const fmtPct = (v) => numberFormat({ style: "percent", maximumFractionDigits: 1 }).format(v);
const gib = (bytes) => numberFormat({ minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(bytes / GIB);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// ---------------------------------------------------------------- form

const fields = {
  model: $("model"),
  gpu: $("gpu"),
  tokens: $("tokens"),
  days: $("days"),
  seq_len: $("seq_len"),
  batch: $("batch"),
};

function fillSelect(select, items, current) {
  select.replaceChildren();
  for (const item of items) {
    const option = el("option", null, item.label);
    option.value = item.id;
    select.append(option);
  }
  if (current && !items.some((i) => i.id === current)) {
    // The default scenario names something the list does not know: keep it selectable.
    const option = el("option", null, String(current));
    option.value = String(current);
    select.append(option);
  }
  if (current) select.value = String(current);
}

function populateForm(scenario) {
  const training = scenario.training ?? {};
  fillSelect(fields.model, MODELS, typeof scenario.model === "string" ? scenario.model : null);
  fillSelect(fields.gpu, GPUS, typeof scenario.gpu === "string" ? scenario.gpu : null);
  fields.tokens.value = training.tokens != null ? String(training.tokens / 1e12) : "15";
  fields.days.value = String(scenario.target?.days ?? 60);
  fields.seq_len.value = String(training.seq_len ?? 8192);
  fields.batch.value = String(training.global_batch_tokens ?? 16777216);
}

// Reads the form into a scenario, or returns {path} of the first non-number field.
function readForm() {
  const num = (input, path) => {
    const text = input.value.trim();
    const value = Number(text);
    if (text === "" || !Number.isFinite(value)) throw { path, message: t("need_number") };
    return value;
  };
  const scenario = structuredClone(state.base ?? {});
  scenario.model = fields.model.value;
  scenario.gpu = fields.gpu.value;
  scenario.training = { ...(scenario.training ?? {}) };
  scenario.training.tokens = num(fields.tokens, "/training/tokens") * 1e12;
  scenario.training.seq_len = num(fields.seq_len, "/training/seq_len");
  scenario.training.global_batch_tokens = num(fields.batch, "/training/global_batch_tokens");
  scenario.target = { ...(scenario.target ?? {}), days: num(fields.days, "/target/days") };
  return scenario;
}

function clearErrors() {
  for (const field of document.querySelectorAll(".field")) {
    field.classList.remove("invalid");
    const p = field.querySelector(".field-error");
    p.hidden = true;
    p.textContent = "";
  }
  $("form-error").hidden = true;
  $("form-error").textContent = "";
}

// Shows an error beside the field whose path is the error's path (or a prefix of it).
function showError({ path = "", message = "" }) {
  const field = [...document.querySelectorAll(".field")].find(
    (f) => path === f.dataset.path || path.startsWith(f.dataset.path + "/"),
  );
  field?.classList.add("invalid");
  const p = field ? field.querySelector(".field-error") : $("form-error");
  p.replaceChildren(el("code", "err-path", path || "/"), document.createTextNode(` ${message}`));
  p.hidden = false;
}

async function recompute() {
  const seq = ++state.seq;
  clearErrors();
  let envelope;
  try {
    envelope = await evaluate(readForm());
  } catch (error) {
    if (error && typeof error.path === "string") envelope = { ok: false, error };
    else throw error;
  }
  if (seq !== state.seq) return; // a newer input already superseded this one
  state.last = envelope;
  if (envelope.ok) {
    renderAnswer(envelope.value);
  } else {
    showError(envelope.error ?? {});
    $("answer").classList.add("stale");
    $("status").hidden = true;
  }
}

let timer = 0;
function schedule() {
  clearTimeout(timer);
  timer = setTimeout(() => recompute().catch(fail), 120);
}

// ---------------------------------------------------------------- answer

function gpuShortName(id) {
  return GPUS.find((g) => g.id === id)?.short ?? id;
}

function modelLabel(id) {
  return MODELS.find((m) => m.id === id)?.label ?? id;
}

// Fills a template like "{n} × {gpu} · {days} days" with spans for the values.
function renderTemplate(target, template, values) {
  target.replaceChildren();
  for (const part of template.split(/(\{\w+\})/)) {
    const m = /^\{(\w+)\}$/.exec(part);
    if (m && values[m[1]]) {
      const [text, cls] = values[m[1]];
      target.append(el("span", cls, text));
    } else if (part) {
      target.append(document.createTextNode(part));
    }
  }
}

function renderAnswer(v) {
  $("answer").classList.remove("stale");
  const plan = v.plan ?? {};
  const training = v.training ?? {};
  const scenario = readFormSafe();

  renderTemplate($("headline"), raw("headline"), {
    n: [fmtInt(plan.gpus), "num gpus"],
    gpu: [gpuShortName(fields.gpu.value), "gpu-name"],
    days: [fmt(training.days, 1), "num"],
  });
  $("headline").dataset.gpus = String(plan.gpus);
  $("subline").textContent = t("subline", {
    model: v.model?.name ?? modelLabel(fields.model.value),
    tokens: scenario ? fmtCompact(scenario.training.tokens) : "",
    target: scenario ? fmt(scenario.target.days, 1) : "",
  });

  // Plan chips.
  const chips = [
    ["gpus", t("gpus"), fmtInt(plan.gpus)],
    ["tp", "TP", plan.tp],
    ["pp", "PP", plan.pp],
    ["vpp", "VPP", plan.vpp > 1 ? plan.vpp : undefined],
    ["dp", "DP", plan.dp],
    ["cp", "CP", plan.cp],
    ["ep", "EP", plan.ep],
    ["micro_batch", t("micro_batch"), plan.micro_batch],
    ["zero_stage", t("zero_stage"), plan.zero_stage],
    ["recompute", t("recompute"), plan.recompute],
  ];
  $("plan").replaceChildren(
    ...chips
      .filter(([, , value]) => value !== undefined && value !== null)
      .map(([key, label, value]) => {
        const chip = el("div", "chip");
        chip.dataset.key = key;
        chip.append(el("dt", null, label), el("dd", null, typeof value === "number" ? fmtInt(value) : String(value)));
        return chip;
      }),
  );

  renderMemory(v.memory ?? {});

  // Metrics.
  const perf = v.performance ?? {};
  const model = v.model ?? {};
  const metrics = [
    [t("step_time"), perf.step_time_s != null ? t("seconds", { v: fmt(perf.step_time_s, 2) }) : null],
    [t("mfu"), perf.mfu != null ? fmtPct(perf.mfu) : null],
    [t("tflops"), perf.tflops_per_gpu != null ? fmt(perf.tflops_per_gpu, 0) : null],
    [t("tokens_per_s"), perf.tokens_per_s_per_gpu != null ? fmtInt(perf.tokens_per_s_per_gpu) : null],
    [t("train_days"), training.days != null ? fmt(training.days, 1) : null],
    [t("gpu_hours"), training.gpu_hours != null ? fmtCompact(training.gpu_hours) : null],
    [t("params"), model.params != null ? fmtCompact(model.params) : null],
  ];
  if (model.active_params != null && model.active_params !== model.params) {
    metrics.push([t("active_params"), fmtCompact(model.active_params)]);
  }
  $("metrics").replaceChildren(
    ...metrics
      .filter(([, value]) => value !== null)
      .map(([label, value]) => {
        const item = el("div", "metric");
        item.append(el("dt", null, label), el("dd", null, value));
        return item;
      }),
  );

  // Warnings.
  const warnings = Array.isArray(v.warnings) ? v.warnings : [];
  $("warnings").replaceChildren(
    ...warnings.map((w) => el("li", null, typeof w === "string" ? w : (w.message ?? JSON.stringify(w)))),
  );
  $("warnings-card").hidden = warnings.length === 0;

  $("status").hidden = true;
  $("answer").hidden = false;
}

function renderMemory(mem) {
  const capacity = mem.capacity_bytes ?? 0;
  const total = mem.total_bytes ?? MEMORY_PARTS.reduce((s, k) => s + (mem[`${k}_bytes`] ?? 0), 0);
  const scale = Math.max(capacity, total) || 1;
  const fits = mem.fits ?? total <= capacity;

  $("mem-summary").textContent = fits
    ? t("fits", { used: gib(total), cap: gib(capacity), pct: fmtPct(capacity ? total / capacity : 0) })
    : t("no_fit", { used: gib(total), cap: gib(capacity) });
  $("mem-summary").classList.toggle("bad", !fits);

  const bar = $("mem-bar");
  bar.replaceChildren();
  bar.classList.toggle("over", !fits);
  bar.setAttribute("aria-label", $("mem-summary").textContent);
  for (const part of MEMORY_PARTS) {
    const bytes = mem[`${part}_bytes`] ?? 0;
    if (bytes <= 0) continue;
    const seg = el("div", `seg seg-${part}`);
    seg.style.width = `${(bytes / scale) * 100}%`;
    seg.title = `${t(part)}: ${gib(bytes)} GiB`;
    bar.append(seg);
  }
  if (capacity > 0 && capacity < scale) {
    const mark = el("div", "cap-mark");
    mark.style.left = `${(capacity / scale) * 100}%`;
    mark.title = `${t("capacity")}: ${gib(capacity)} GiB`;
    bar.append(mark);
  }

  $("mem-legend").replaceChildren(
    ...MEMORY_PARTS.filter((p) => mem[`${p}_bytes`] != null).map((part) => {
      const li = el("li");
      li.append(el("span", `swatch seg-${part}`), el("span", "legend-label", t(part)), el("span", "legend-value", `${gib(mem[`${part}_bytes`])} GiB`));
      return li;
    }),
  );
}

function readFormSafe() {
  try {
    return readForm();
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- language

function applyLanguage() {
  document.documentElement.lang = state.lang === "zh" ? "zh-CN" : "en";
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  $("lang").textContent = t("switch_to");
  $("version").textContent = state.version ? t("core", { v: state.version }) : "";
  if (state.last?.ok) renderAnswer(state.last.value);
  else if (state.last) recompute().catch(fail);
}

// ---------------------------------------------------------------- start

function fail(error) {
  console.error(error);
  const status = $("status");
  status.textContent = t("load_failed", { msg: error?.message ?? String(error) });
  status.classList.add("bad");
  status.hidden = false;
}

async function start() {
  applyLanguage();
  $("lang").addEventListener("click", () => {
    state.lang = state.lang === "zh" ? "en" : "zh";
    saveLanguage(state.lang);
    applyLanguage();
  });

  const [response] = await Promise.all([fetch(DEFAULT_SCENARIO_URL), loadCore()]);
  if (!response.ok) throw new Error(`${DEFAULT_SCENARIO_URL}: HTTP ${response.status}`);
  state.base = await response.json();
  populateForm(state.base);
  state.version = await version();
  $("version").textContent = t("core", { v: state.version });

  const form = $("scenario");
  form.addEventListener("input", schedule);
  form.addEventListener("change", schedule);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    recompute().catch(fail);
  });
  await recompute();
}

start().catch(fail);
