// The page controller: one scenario object (the scenario format of
// docs/scenario-format.md) that the Quick and Expert forms both edit; the core
// answers it in a Web Worker; the URL hash carries it for sharing.
// All text goes in through textContent; nothing user-provided is parsed as HTML.
import { $, el, setText } from "./dom.js";
import { Engine } from "./engine.js";
import * as F from "./format.js";
import * as i18n from "./i18n.js";
import { coreMessage, t } from "./i18n.js";
import { DEFAULT_SCENARIO, GPUS, MODELS } from "./presets.js";
import { renderAnswer, renderExplore, renderHeadline } from "./render.js";
import { FIELD_BY_PATH, baseOf, exactAmount, setPath } from "./schema.js";
import { cliCommand, exportName, hashFor, parseScenarioText, prettyJson, scenarioFromHash, MAX_SCENARIO_CHARS } from "./share.js";
import { shapeForParams } from "./shape.js";
import { adaptToModel, modelLabel, openLayout, populateJob, wireJob } from "./jobtype.js";
import { calibrationFieldFor, populateCalibration, wireCalibration } from "./calibrate.js";
import { renderTrust, wireTrust } from "./trust.js";
import { displayCurrency, populateMoney, requestText, setAcceleratorPrice, unitOf, wireMoney } from "./money.js";
import { buildPicker, compareIds, markCompareStale, renderCompare } from "./compare.js";
import { PROGRESS_MS, translateProgress, wireProgress } from "./progress.js";

const root = document.documentElement;
const EMBED = root.hasAttribute("data-embed");

const state = {
  scenario: structuredClone(DEFAULT_SCENARIO),
  answer: null, // last good answer (value)
  answerText: "", // the scenario text that answer is for
  error: null, // last core error {path, message}
  clientErrors: new Map(), // path -> message, for text the page could not read
  mode: "quick",
  quickParams: "",
  expert: null,
  explore: null,
  curve: null, // {key, tokens, points}: the last GPU-count curve, for instant previews
  engine: new Engine(),
  ready: false,
  seq: 0,
  inputAt: 0,
  fullFrom: 0, // the input whose curve and top layouts are still to be drawn (renderExploreNow)
  exploreComing: null, // the text whose curve follows its answer from the answering worker
  firstAnswer: false,
  urlOwned: false, // whether the hash should follow the scenario
  autoName: DEFAULT_SCENARIO.name, // a name the page wrote, so it follows edits
  answerHook: null, // the config.json import's wait for its answer
};

// ---------------------------------------------------------------- helpers

let toastTimer = 0;
function toast(text) {
  const node = $("toast");
  node.textContent = text;
  node.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    node.hidden = true;
  }, 2600);
}

function showBanner(text) {
  $("banner-text").textContent = text;
  $("banner").hidden = false;
}

async function copyText(text, done) {
  try {
    await navigator.clipboard.writeText(text);
    toast(done);
    return;
  } catch {
    /* fall back below */
  }
  const area = el("textarea", { class: "sr-only", readonly: true });
  area.value = text;
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  toast(ok ? done : t("copy_failed"));
}

const lang = () => i18n.lang();
const label = (path) => {
  const key = `f_${path.slice(1).replace(/\/\d+$/, "")}`; // an array element: its array's label
  return i18n.has(key) ? t(key) : path;
};

function permalink() {
  const url = new URL(location.href);
  url.search = "";
  url.hash = hashFor(state.scenario).slice(1);
  return url.href;
}

// The scenario JSON and its command line, in their folded panel: filled when it is open
// (on every change) or opened, not on every edit behind a closed panel.
function fillJson() {
  const json = $("json-text");
  if (document.activeElement !== json) json.value = prettyJson(state.scenario);
  // The command gives the page's answer: with the currency the page prices in.
  $("cli-text").textContent = cliCommand(JSON.parse(requestText(state.scenario)));
}

function embedUrl() {
  const url = new URL(location.href);
  url.search = `?embed=1&lang=${lang()}`; // the reader's language, not the visitor's browser's
  url.hash = hashFor(state.scenario).slice(1);
  return url.href;
}

// ---------------------------------------------------------------- scenario changes

function syncOutputs() {
  if (state.urlOwned) {
    const hash = hashFor(state.scenario);
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }
  if ($("json-details").open) fillJson();
  if (EMBED) $("open-full").href = permalink();
  if (!$("embed-codes").hidden) fillEmbedCodes();
}

// An edit asks the core first, so its worker computes while the page does the rest; the
// URL, the JSON and command line (syncOutputs) and the form's hints follow in the task
// after the answer is drawn (or OUTPUTS_MS after the edit without one): replacing the URL
// alone takes 1-15 ms in Chromium, as long as drawing the answer. Until then
// root[data-outputs] says they are behind (the tests wait on it).
function edit(mutate) {
  mutate(state.scenario);
  renameScenario(state.scenario);
  state.urlOwned = true;
  delete root.dataset.lastHeadlineMs;
  evaluateNow();
  schedulePreview();
  scheduleOutputs();
}

const OUTPUTS_MS = 100;
let outputsTimer = 0;
let outputsDue = false;
function scheduleOutputs() {
  outputsDue = true;
  root.dataset.outputs = "behind";
  clearTimeout(outputsTimer);
  outputsTimer = setTimeout(flushOutputs, OUTPUTS_MS);
}
function flushOutputs() {
  clearTimeout(outputsTimer);
  if (!outputsDue) return;
  outputsDue = false;
  syncOutputs();
  populateQuickHints();
  delete root.dataset.outputs;
}
// After an answer has been rendered: the outputs in the next task, once it is on screen.
function flushOutputsSoon() {
  if (!outputsDue) return;
  clearTimeout(outputsTimer);
  outputsTimer = setTimeout(flushOutputs, 0);
}

// The default's name ("… 15T tokens in 60 days") would mislabel an edited scenario: while
// the name is one the page wrote, it is rewritten from the scenario (a typed name stays),
// in the reader's language.
function renameScenario(s) {
  if (s.name === undefined || s.name !== state.autoName) return;
  const m = s.model;
  const model = typeof m === "string" ? modelLabel(MODELS.find((x) => x.id === m) ?? { id: m }) : m?.name ?? m?.hf_config?._name_or_path ?? baseOf(m) ?? t("auto_name_model");
  const label = GPUS.find((g) => g.id === baseOf(s.gpu))?.label;
  const gpu = label ? i18n.dataValue("gpu", label) : s.gpu?.name ?? t("auto_name_gpu");
  const tr = s.training ?? {};
  const stage = t(`opt_${tr.stage ?? "pretrain"}`);
  const tokens = typeof tr.tokens === "number" ? t("auto_name_tokens", { v: F.big(lang(), tr.tokens) }) : "";
  const days = typeof s.target?.days === "number" ? t("auto_name_days", { v: s.target.days }) : "";
  const unnamed = (x) => JSON.stringify({ ...x, name: undefined });
  // Edited back to the default scenario: its own name again.
  s.name = state.autoName = unnamed(s) === unnamed(DEFAULT_SCENARIO) ? DEFAULT_SCENARIO.name : t("auto_name", { model, stage, gpu }) + tokens + days;
}

// ---------------------------------------------------------------- instant preview
//
// The core's evaluate() searches every layout (tens of ms). When only the deadline,
// the GPU count or the token count changed since the last curve (the core's best
// layout for each GPU count), the headline is known at once: the answer for a
// deadline is the smallest count on the curve that meets it, and days scale exactly
// with tokens for a fixed layout. That headline shows within the frame of the
// keystroke; the core's full answer replaces it (with the same numbers) when it lands.

function curveKey(scenario) {
  // As the core saw it: with the currency the page prices in (money.js).
  const s = JSON.parse(requestText(scenario));
  delete s.target;
  if (s.training && typeof s.training === "object") delete s.training.tokens;
  if (s.parallel && typeof s.parallel === "object") {
    delete s.parallel.gpus;
    if (Object.keys(s.parallel).length === 0) delete s.parallel;
  }
  delete s.name;
  delete s.description;
  return JSON.stringify(s);
}

// The preview is for a core that takes a while (a new search): it shows only when the
// answer has not landed PREVIEW_MS after the edit. A cached answer takes a few ms, and the
// page then draws once, the core's own answer, instead of a preview and then the answer.
const PREVIEW_MS = 12;
let previewTimer = 0;
function schedulePreview() {
  clearTimeout(previewTimer);
  const seq = state.seq;
  previewTimer = setTimeout(() => {
    if (seq === state.seq && $("result").getAttribute("aria-busy") === "true") preview();
  }, PREVIEW_MS);
}

function preview() {
  const c = state.curve;
  const s = state.scenario;
  const a = state.answer;
  if (!c || !a || state.clientErrors.size || curveKey(s) !== c.key || curveKey(JSON.parse(state.answerText)) !== c.key) return;
  if (s.calibration !== undefined) return; // the curve is the model's, uncalibrated: wait for the core
  const tokens = s.training?.tokens;
  if (!(typeof tokens === "number" && tokens > 0 && Number.isFinite(tokens))) return;
  const ratio = tokens / c.tokens;
  const points = c.points.map((p) => ({ ...p, days: p.days * ratio, gpu_hours: p.gpu_hours * ratio }));
  let point;
  const fixed = s.parallel?.gpus;
  const days = s.target?.days;
  if (fixed !== undefined) point = points.find((p) => p.gpus === fixed);
  else if (days !== undefined) {
    if (!(typeof days === "number" && days > 0)) return;
    point = points.find((p) => p.days <= days);
  } else point = points[0];
  if (!point || !point.plan) return;
  const cap = a.memory?.capacity_bytes;
  const used = point.memory_used_fraction;
  const batchTokens = point.plan.global_batch_tokens ?? a.plan.global_batch_tokens;
  const value = {
    model: a.model,
    gpu: a.gpu,
    // A batch range: each point has the batch the search chose for it (plan.global_batch_tokens).
    plan: { ...a.plan, ...point.plan, gpus: point.gpus, global_batch: (a.plan.global_batch * batchTokens) / a.plan.global_batch_tokens, global_batch_tokens: batchTokens },
    memory: used !== undefined && cap ? { capacity_bytes: cap, total_bytes: used * cap, used_fraction: used, fits: true, stage_role: point.plan.pp > 1 ? "first" : "only" } : { ...a.memory },
    performance: { ...a.performance, step_time_s: point.step_time_s, mfu: point.mfu, tokens_per_s_per_gpu: point.tokens_per_s_per_gpu },
    training: { tokens, days: point.days, gpu_hours: point.gpu_hours, steps: a.training?.steps != null && a.training.tokens ? (a.training.steps * tokens * a.plan.global_batch_tokens) / (a.training.tokens * batchTokens) : undefined },
    search: { ...a.search, target_days: days ?? null, target_met: true },
    // Cost, energy and goodput depend on more than the curve: placeholders until the core answers.
    cost: a.cost ? { ...a.cost, pending: true } : undefined,
    energy: a.energy ? { ...a.energy, pending: true } : undefined,
    goodput: a.goodput ? { ...a.goodput, pending: true } : undefined,
    quick_estimate: a.quick_estimate,
  };
  renderHeadline(value, { scenario: s, gpuId: baseOf(s.gpu) });
  $("headline").dataset.preview = "1";
  $("answer").classList.remove("stale");
  $("answer").classList.add("pending");
  if (state.inputAt) root.dataset.lastHeadlineMs = (performance.now() - state.inputAt).toFixed(1);
}

function loadScenario(scenario, { owned = true } = {}) {
  state.scenario = scenario;
  if (scenario.name === DEFAULT_SCENARIO.name) state.autoName = scenario.name;
  state.clientErrors.clear();
  state.quickParams = "";
  state.urlOwned = owned;
  populateQuick(true);
  state.expert?.populate(state.scenario, state.answer, true);
  syncOutputs();
  evaluateNow();
}

// ---------------------------------------------------------------- evaluation

function evaluateNow() {
  clearErrors();
  if (state.clientErrors.size > 0) {
    state.seq++; // an answer still on its way is for older inputs
    $("result").setAttribute("aria-busy", "false");
    for (const [path, message] of state.clientErrors) showError({ path, message }, true);
    markStale();
    return;
  }
  if (!state.ready) return;
  const text = requestText(state.scenario);
  const seq = ++state.seq;
  // aria-busy: the answer on screen is not yet the one for the inputs (also what the
  // tests wait on).
  const answered = (result) => {
    if (result.superseded || seq !== state.seq) return;
    // An error whose template is not loaded yet (i18n.js: a Chinese reader's input errors):
    // shown once the templates are here, never in English. (An answer is drawn at once, a
    // rarer warning as "…" until they arrive, so its curve and comparison do not wait.)
    if (!result.envelope?.ok && i18n.missingMessages(result.envelope)) return void i18n.loadMoreMessages().then(() => answered(result));
    $("result").setAttribute("aria-busy", "false");
    root.dataset.lastCoreMs = result.ms?.toFixed(1) ?? ""; // the core's own time (scripts/bench-page.mjs)
    onAnswer(result.envelope, text, { explore: result.explore });
  };
  // The first request for the default scenario: the worker answered it while the page loaded.
  const warm = state.engine.takeWarm(text);
  if (warm) {
    // Marked for the tests: boot.js's copy of requestText must give money.js's text.
    root.dataset.warmAnswer = "taken";
    return answered(warm);
  }
  $("result").setAttribute("aria-busy", "true");
  // The full page asks for the curve and top layouts right after the answer (the embed
  // shows its curve later; engine.js evaluate). Those on screen are for the previous
  // inputs: said so once the wait is long enough to notice (progress.js PROGRESS_MS; quick
  // ones are replaced unmarked, without a flash).
  clearTimeout(exploreStaleTimer);
  if (!EMBED && state.explore?.text !== text) exploreStaleTimer = setTimeout(markExploreStale, PROGRESS_MS);
  state.engine.evaluate(text, { withExplore: !EMBED }).then(answered, fail);
}

let exploreStaleTimer = 0;

function markStale() {
  delete $("headline").dataset.preview;
  $("answer").classList.remove("pending");
  $("answer").classList.add("stale");
  $("curve-card").classList.add("stale");
  $("top-card").classList.add("stale");
}

// explore: the promise of the curve and top layouts that follow this answer from its
// worker (engine.js evaluate withExplore), or null.
function onAnswer(envelope, text, { prebuilt = false, explore = null } = {}) {
  clearErrors();
  if (!prebuilt && state.answerHook) {
    state.answerHook(envelope);
    state.answerHook = null;
  }
  if (!envelope?.ok) {
    state.error = envelope?.error ?? { path: "", message: "unknown error" };
    showError(state.error, false);
    markStale();
    if (!state.answer) {
      $("status").textContent = t("status_error");
      $("status").hidden = false;
    }
    flushOutputsSoon();
    return;
  }
  state.error = null;
  state.answer = envelope.value;
  state.answerText = text;
  state.exploreComing = explore ? text : null;
  // From the reader's input to the curve and top layouts on screen too (renderExploreNow).
  state.fullFrom = state.inputAt;
  renderAll();
  delete $("headline").dataset.preview;
  $("answer").classList.remove("pending");
  if (state.inputAt) {
    const ms = performance.now() - state.inputAt;
    performance.measure("gpucalc:input-to-answer", { start: state.inputAt, end: performance.now() });
    root.dataset.lastLatencyMs = ms.toFixed(1);
    root.dataset.lastHeadlineMs ??= ms.toFixed(1);
    state.inputAt = 0;
  }
  if (!state.firstAnswer) {
    state.firstAnswer = true;
    performance.mark("gpucalc:first-answer");
    root.dataset.firstAnswerMs = performance.now().toFixed(1);
    root.dataset.firstAnswerFrom = prebuilt ? "build" : "core";
  }
  if (!prebuilt && !state.firstCoreAnswer) {
    state.firstCoreAnswer = true;
    performance.mark("gpucalc:first-core-answer");
    root.dataset.firstCoreAnswerMs = performance.now().toFixed(1);
    registerServiceWorker();
  }
  if (!prebuilt) {
    // The curve and top layouts first; the comparison (below them, and heavier) after.
    if (!EMBED && state.compare?.text !== text) markCompareStale();
    scheduleExplore(text, () => scheduleCompare(text), explore);
  }
  flushOutputsSoon();
}

let exploreTimer = 0;
// then(): once the curve for `text` is on screen (or could not be had). coming: the
// promise of the curve that follows the answer (onAnswer), else the search worker is asked.
function scheduleExplore(text, then = () => {}, coming = null) {
  clearTimeout(exploreTimer);
  if (state.explore?.text === text) {
    then();
    return;
  }
  // The answer for `text` has just landed, so no keystroke needs debouncing: the full page
  // starts the search at once (the core reuses its last search when only the deadline,
  // tokens, prices or goodput changed, so it takes a few ms); the embed waits a little.
  const take = (result) => {
    if (result.superseded || text !== state.answerText) return;
    root.dataset.lastExploreMs = result.ms?.toFixed(1) ?? ""; // the search's own time (scripts/bench-page.mjs)
    if (result.envelope?.ok) onExplore(result.envelope.value, text);
    then();
  };
  const ask = () => {
    const answer = state.answer;
    state.engine.explore(text, { gpus: answer?.plan?.gpus, min_gpus_fit: answer?.search?.min_gpus_fit }).then(take, then);
  };
  if (coming) {
    coming.then((result) => {
      if (result.envelope || text !== state.answerText) return take(result);
      state.exploreComing = null; // none after all: the search worker draws it
      markExploreStale();
      ask();
    }, then);
    return;
  }
  // (The full page asks in the answer's own task: the search worker starts while the
  // answer is being drawn.)
  if (EMBED) exploreTimer = setTimeout(ask, 400);
  else ask();
}

// "国产 vs 英伟达" (compare.js): the same job on the chosen accelerators, after the answer,
// in its own worker; a newer answer supersedes a comparison still running.
let compareTimer = 0;
// Prices the reader gives for accelerators without a public one, per row.
function compareCtx() {
  return {
    prices: state.scenario.cost?.prices_per_gpu_hour ?? {},
    unit: unitOf(displayCurrency(state.scenario)),
    onPrice: (id, value) => edit((s) => setAcceleratorPrice(s, id, value)),
  };
}
function scheduleCompare(text) {
  if (EMBED) return;
  clearTimeout(compareTimer);
  const ids = compareIds(baseOf(state.scenario.gpu)).join(",");
  if (state.compare?.text === text && state.compare?.ids === ids) return;
  markCompareStale();
  // The curve has just landed: a short pause lets its rendering reach the screen first.
  compareTimer = setTimeout(() => {
    state.engine.compare(text, ids).then((result) => {
      if (result.superseded || text !== state.answerText) return;
      if (result.envelope?.ok) {
        state.compare = { text, ids, value: result.envelope.value };
        renderCompare(result.envelope.value, baseOf(state.scenario.gpu), compareCtx());
      }
    }, () => {});
  }, 50);
}

function onExplore(value, text) {
  state.explore = { text, value };
  const scenario = JSON.parse(text);
  const points = Array.isArray(value.curve) ? value.curve.filter((p) => p && p.gpus > 0 && p.days > 0).sort((x, y) => x.gpus - y.gpus) : [];
  state.curve = points.length && scenario.training?.tokens > 0 ? { key: curveKey(scenario), tokens: scenario.training.tokens, points } : null;
  renderExploreNow();
}

function renderExploreNow() {
  if (!state.explore || state.explore.text !== state.answerText) return;
  clearTimeout(exploreStaleTimer);
  $("curve-card").classList.remove("stale");
  $("top-card").classList.remove("stale");
  renderExplore(state.explore.value, state.answer, { width: state.curveWidth });
  if (state.fullFrom) {
    // scripts/bench-page.mjs: input → answer, curve and top layouts drawn.
    root.dataset.lastFullMs = (performance.now() - state.fullFrom).toFixed(1);
    state.fullFrom = 0;
  }
}

function renderAll() {
  if (!state.answer) return;
  $("status").hidden = true;
  $("answer").hidden = false;
  $("answer").classList.remove("stale");
  renderAnswer(state.answer, { scenario: state.scenario, gpuId: baseOf(state.scenario.gpu) });
  renderTrust(state.answer); // OOM risk, ranges, "How accurate is this?"
  populateCalibration(state.scenario, state.answer);
  if (state.explore && state.explore.text === state.answerText) renderExploreNow();
  // (Not when its curve follows: exploreStaleTimer marks it if that takes noticeably long.)
  else if (state.exploreComing !== state.answerText) markExploreStale();
  populateQuickHints();
  populateMoney(state.scenario, state.answer);
  if (state.compare && state.compare.text === state.answerText) renderCompare(state.compare.value, baseOf(state.scenario.gpu), compareCtx());
  state.expert?.populate(state.scenario, state.answer);
  if ($("launch").open) state.launch?.then((l) => l.refresh());
}

// "Launch config" (launch.js, loaded when first opened): the plan as a framework's config.
function initLaunch() {
  $("launch").addEventListener("toggle", () => {
    if (!$("launch").open) return;
    if (state.launch) return void state.launch.then((l) => l.refresh());
    state.launch = import("./launch.js").then((m) => m.mount($("launch"), { scenarioText: () => state.answerText, lang }));
  });
}

function markExploreStale() {
  $("curve-card").classList.add("stale");
  $("top-card").classList.add("stale");
}

// ---------------------------------------------------------------- errors

// (Runs twice per edit: it touches only what shows an error, so an edit without one
// changes nothing in the DOM here.)
function clearErrors() {
  for (const field of document.querySelectorAll(".field.invalid")) field.classList.remove("invalid");
  for (const p of document.querySelectorAll(".field-error:not([hidden]), .field-error:not(:empty)")) {
    if (p.id === "json-error") continue;
    p.hidden = true;
    p.textContent = "";
  }
  for (const id of ["quick-error", "expert-error"]) {
    const box = $(id);
    if (box.hidden && !box.firstChild) continue;
    box.hidden = true;
    box.replaceChildren();
  }
}

// The field for a path in the Quick form: exact, else the closest one above it.
function quickFieldFor(path) {
  const fields = [...$("quick").querySelectorAll(".field[data-path]")].filter((f) => !f.closest("[hidden]"));
  let best = null;
  for (const f of fields) {
    const p = f.dataset.path;
    if ((path === p || path.startsWith(`${p}/`)) && (!best || p.length > best.dataset.path.length)) best = f;
  }
  return best;
}

function showError(error, client) {
  const { path = "", message = "" } = error;
  const core = client ? null : coreMessage(error);
  const msg = client ? message : core.text;
  const untranslated = !client && !core.translated;
  const content = (withLabel) => [
    el("code", { class: "err-path", text: path || "/" }),
    " ",
    withLabel && path && label(path) !== path ? el("span", { class: "err-label", text: `${label(path)}: ` }) : null,
    el("span", { lang: untranslated ? "en" : undefined, text: msg }),
  ];
  const put = (p, wrap, withLabel) => {
    p.replaceChildren(...content(withLabel).filter(Boolean));
    p.hidden = false;
    wrap?.classList.add("invalid");
  };

  // Calibration errors go to the calibration form, in either mode.
  const cal = calibrationFieldFor(path);
  if (cal) {
    put(cal.querySelector(".field-error"), cal, cal.dataset.path !== path);
    return;
  }
  if (state.mode === "expert" && state.expert) {
    const c = state.expert.controlFor(path);
    if (c) {
      put(c.error, c.wrap, c.field.path !== path);
      const group = c.wrap.closest("details");
      if (group) group.open = true;
      return;
    }
    put($("expert-error"), null, true);
    return;
  }
  const field = quickFieldFor(path);
  // A quick field shows the error only when the path is that field's own value.
  if (field && (field.dataset.path === path || field.hasAttribute("data-below") || ["/model", "/gpu"].includes(field.dataset.path))) {
    put(field.querySelector(":scope > .field-error") ?? field.querySelector(".field-error"), field, field.dataset.path !== path);
    const folded = field.closest("details");
    if (folded) folded.open = true;
    return;
  }
  const box = $("quick-error");
  box.replaceChildren(
    ...content(true).filter(Boolean),
    " ",
    el("button", { type: "button", class: "link-button", text: t("fix_in_expert"), onclick: () => setMode("expert") }),
  );
  box.hidden = false;
}

// ---------------------------------------------------------------- quick form

const Q = {
  model: $("q-model"),
  params: $("q-params"),
  paramsWrap: $("q-params-wrap"),
  gpu: $("q-gpu"),
  tokens: $("q-tokens"),
  goal: $("q-goal"),
  goalDays: $("q-goal-days"),
  goalGpus: $("q-goal-gpus"),
  goalField: $("q-goal-field"),
  dsSamples: $("q-ds-samples"),
  dsLen: $("q-ds-len"),
  dsEpochs: $("q-ds-epochs"),
};

function fillQuickSelects() {
  const m = Q.model;
  const families = [...new Set(MODELS.map((x) => x.family))];
  m.replaceChildren(
    ...families.map((f) => el("optgroup", { label: f }, MODELS.filter((x) => x.family === f).map((x) => el("option", { value: x.id, text: modelLabel(x) })))),
    el(
      "optgroup",
      { label: t("other") },
      el("option", { value: "@params", text: t("by_params") }),
      el("option", { value: "@custom", text: t("custom_expert") }),
    ),
  );
  const g = Q.gpu;
  const vendors = [...new Set(GPUS.map((x) => x.vendor || "—"))];
  g.replaceChildren(
    ...vendors.map((v) =>
      el("optgroup", { label: v }, GPUS.filter((x) => (x.vendor || "—") === v).map((x) => el("option", { value: x.id, text: i18n.dataValue("gpu", x.label) }))),
    ),
    el("optgroup", { label: t("other") }, el("option", { value: "@custom", text: t("custom_expert") })),
  );
}

function quickModelValue() {
  const model = state.scenario.model;
  if (typeof model === "string") return MODELS.some((m) => m.id === model) ? model : "@custom";
  if (model && typeof model === "object" && !model.base && state.quickParams) return "@params";
  if (model && typeof model === "object" && !model.base && model.name?.startsWith?.("~")) return "@params";
  return "@custom";
}

// The GPU count the scenario fixes: parallel.gpus, or tp × pp × dp (× cp) when tp, pp and
// dp are all given (core/src/scenario.cpp read_parallel: the count follows them).
function fixedGpus(s) {
  const p = s.parallel ?? {};
  if (p.gpus !== undefined) return p.gpus;
  const n = (k) => (Number.isInteger(p[k]) && p[k] > 0 ? p[k] : undefined);
  return n("tp") && n("pp") && n("dp") ? n("tp") * n("pp") * n("dp") * (n("cp") ?? 1) : undefined;
}
// The count follows the layout: a new count (or a deadline instead) leaves DP to the search.
const countFromLayout = (s) => s.parallel?.gpus === undefined && fixedGpus(s) !== undefined;

function goalMode() {
  return fixedGpus(state.scenario) !== undefined ? "gpus" : "days";
}

function populateQuick(force = false) {
  const s = state.scenario;
  const modelValue = quickModelValue();
  if (![...Q.model.options].some((o) => o.value === modelValue)) fillQuickSelects();
  Q.model.value = modelValue;
  Q.paramsWrap.hidden = modelValue !== "@params";
  if (modelValue === "@params" && (force || document.activeElement !== Q.params)) {
    Q.params.value = state.quickParams || (state.answer?.model?.params ? F.big("en", state.answer.model.params) : "");
  }
  const gpu = typeof s.gpu === "string" && GPUS.some((g) => g.id === s.gpu) ? s.gpu : "@custom";
  Q.gpu.value = gpu;
  if (force || document.activeElement !== Q.tokens) {
    const tokens = s.training?.tokens;
    Q.tokens.value = typeof tokens === "number" ? exactAmount(tokens, lang()) : tokens === undefined ? "" : String(tokens);
  }
  const mode = goalMode();
  Q.goalDays.checked = mode === "days";
  Q.goalGpus.checked = mode === "gpus";
  Q.goalField.dataset.path = mode === "days" ? "/target/days" : "/parallel/gpus";
  if (force || document.activeElement !== Q.goal) {
    const v = mode === "days" ? s.target?.days : fixedGpus(s);
    Q.goal.value = v === undefined ? "" : String(v);
  }
  populateJob(s, state.answer, force);
  populateQuickHints();
}

function populateQuickHints() {
  const s = state.scenario;
  const a = state.answer;
  const mode = goalMode();
  setText($("q-goal-label"), t(mode === "days" ? "q_days" : "q_gpus"));
  setText($("q-goal-unit"), t(mode === "days" ? "unit_days" : "unit_gpus"));
  Q.goal.setAttribute("inputmode", mode === "days" ? "decimal" : "numeric");
  const p = s.parallel ?? {};
  setText(
    $("q-goal-hint"),
    mode === "days"
      ? t(s.target?.days === undefined ? "q_days_empty" : "q_days_hint")
      : countFromLayout(s)
        ? t("q_gpus_layout_hint", { layout: `TP ${p.tp} × PP ${p.pp} × DP ${p.dp}${p.cp > 1 ? ` × CP ${p.cp}` : ""}` })
        : t("q_gpus_hint"),
  );

  const tokens = s.training?.tokens;
  setText(
    $("q-tokens-hint"),
    typeof tokens === "number" && Number.isFinite(tokens) ? t("q_tokens_hint", { big: F.big(lang(), tokens), exact: F.int(lang(), tokens) }) : t("q_tokens_ph"),
  );

  const modelValue = Q.model.value;
  const model = s.model;
  let hint = "";
  if (modelValue === "@params" && model && typeof model === "object") {
    hint = t("shape_hint", {
      layers: model.layers,
      hidden: model.hidden,
      heads: model.heads,
      kv: model.kv_heads,
      ffn: model.ffn_hidden,
      vocab: model.vocab,
      params: a?.model?.params ? F.big(lang(), a.model.params) : "…",
    });
  } else if (modelValue === "@custom") {
    hint = t("custom_hint");
  } else if (a?.model?.params) {
    hint = t("model_hint", { params: F.big(lang(), a.model.params), exact: F.int(lang(), a.model.params) });
  }
  setText($("q-model-hint"), hint);

  const gpu = a?.gpu;
  setText(
    $("q-gpu-hint"),
    gpu
      ? t("gpu_hint", {
          mem: F.num(lang(), gpu.specs?.memory_gib?.value ?? a.memory?.capacity_bytes / F.GIB, 0),
          peak: F.int(lang(), gpu.peak_tflops),
          p: String(gpu.precision ?? "").toUpperCase(),
        })
      : "",
  );

  const tr = s.training ?? {};
  const plan = a?.plan ?? {};
  setText(
    $("q-rest"),
    t("q_rest", {
      seq: F.int(lang(), tr.seq_len),
      batch: F.big(lang(), tr.global_batch_tokens ?? plan.global_batch_tokens),
      precision: String(tr.precision ?? "bf16"),
      stage: t(`opt_${tr.stage ?? "pretrain"}`),
      framework: t(`opt_${tr.framework ?? plan.framework ?? "megatron"}`),
    }),
  );
  populateJob(s, a);
}

function setClientError(path, message) {
  if (message) state.clientErrors.set(path, message);
  else state.clientErrors.delete(path);
}

function onQuickParams() {
  const n = F.parseAmount(Q.params.value);
  state.quickParams = Q.params.value;
  const shape = Number.isFinite(n) ? shapeForParams(n) : null;
  if (!shape) {
    setClientError("/model", Number.isFinite(n) ? t("params_range") : t("need_number"));
    evaluateNow();
    return;
  }
  setClientError("/model", null);
  edit((s) => {
    s.model = { name: `~${F.big("en", n)} (${t("shape_name")})`, ...shape };
    adaptToModel(s);
  });
}

function wireQuick() {
  const form = $("quick");
  form.addEventListener("input", () => {
    state.inputAt = performance.now();
  }, true);
  form.addEventListener("change", () => {
    state.inputAt = performance.now();
  }, true);
  form.addEventListener("submit", (e) => e.preventDefault());

  Q.model.addEventListener("change", () => {
    const v = Q.model.value;
    Q.paramsWrap.hidden = v !== "@params";
    setClientError("/model", null);
    if (v === "@params") {
      if (!Q.params.value) Q.params.value = state.answer?.model?.params ? F.big("en", state.answer.model.params) : "70B";
      onQuickParams();
      Q.params.focus();
    } else if (v === "@custom") {
      setMode("expert");
    } else {
      edit((s) => {
        s.model = v;
        adaptToModel(s);
      });
    }
  });
  Q.params.addEventListener("input", onQuickParams);
  Q.gpu.addEventListener("change", () => {
    if (Q.gpu.value === "@custom") {
      setMode("expert");
      return;
    }
    edit((s) => {
      s.gpu = Q.gpu.value;
    });
  });
  Q.tokens.addEventListener("input", () => {
    const v = F.parseAmount(Q.tokens.value);
    if (Q.tokens.value.trim() === "") {
      setClientError("/training/tokens", null);
      edit((s) => setPath(s, "/training/tokens", undefined));
      return;
    }
    if (!Number.isFinite(v)) {
      setClientError("/training/tokens", t("need_amount"));
      $("q-tokens-hint").textContent = t("q_tokens_ph");
      evaluateNow();
      return;
    }
    setClientError("/training/tokens", null);
    edit((s) => setPath(s, "/training/tokens", v));
  });
  // The job (stage, LoRA, optimizer, offload), tokens or a dataset, and EP: jobtype.js.
  wireJob({ edit, setClientError, evaluateNow, scenario: () => state.scenario, answer: () => state.answer });

  const goalPath = () => (Q.goalDays.checked ? "/target/days" : "/parallel/gpus");
  Q.goal.addEventListener("input", () => {
    const path = goalPath();
    const text = Q.goal.value.trim();
    setClientError("/target/days", null);
    setClientError("/parallel/gpus", null);
    // A count that followed the layout: the new one leaves DP to the search.
    const set = (s, v) => {
      if (path === "/parallel/gpus" && countFromLayout(s)) delete s.parallel.dp;
      setPath(s, path, v);
    };
    if (text === "") {
      edit((s) => set(s, undefined));
      return;
    }
    const v = F.parseAmount(text);
    if (!Number.isFinite(v)) {
      setClientError(path, t("need_number"));
      evaluateNow();
      return;
    }
    edit((s) => set(s, v));
  });
  // "Use N GPUs" or "Let the calculator choose the layout" under a plan that does not fit
  // (render.js renderFitNote).
  $("fit-use").addEventListener("click", (e) => {
    const { action } = e.currentTarget.dataset;
    const n = Number(e.currentTarget.dataset.gpus);
    if (action === "layout") edit((s) => openLayout(s, n > 0 ? n : undefined));
    else if (n > 0) edit((s) => setPath(s, "/parallel/gpus", n));
    else return;
    if (state.mode === "expert") state.expert?.populate(state.scenario, state.answer, true);
    else populateQuick(true);
  });
  for (const radio of [Q.goalDays, Q.goalGpus]) {
    radio.addEventListener("change", () => {
      setClientError("/target/days", null);
      setClientError("/parallel/gpus", null);
      const a = state.answer;
      edit((s) => {
        if (Q.goalGpus.checked) {
          const days = s.target?.days;
          setPath(s, "/target/days", undefined);
          setPath(s, "/parallel/gpus", a?.plan?.gpus ?? 64);
          state.lastDays = days;
        } else {
          if (countFromLayout(s)) delete s.parallel.dp;
          setPath(s, "/parallel/gpus", undefined);
          setPath(s, "/target/days", state.lastDays ?? Math.max(1, Math.round(a?.training?.days ?? 60)));
        }
      });
      populateQuick(true);
    });
  }
}

// ---------------------------------------------------------------- expert form

// The form's module (expert.js) loads when Expert mode is first shown: most readers stay
// in Quick mode, and a first visit does not transfer it (the service worker fetches it on
// the next visit for offline use; scripts/assemble-dist.mjs LATER).
let expertModule = null;
async function ensureExpert() {
  if (state.expert) return state.expert;
  expertModule ??= import("./expert.js");
  const { ExpertForm } = await expertModule;
  if (state.expert) return state.expert;
  state.expert = new ExpertForm($("expert-fields"), {
    onEdit: (field, result) => {
      state.inputAt = performance.now();
      if (result.error) {
        setClientError(field.path, result.error);
        evaluateNow();
        return;
      }
      setClientError(field.path, null);
      if ("preset" in result) {
        edit((s) => {
          const key = field.path.slice(1);
          const current = s[key];
          const overrides = current && typeof current === "object" ? { ...current } : {};
          delete overrides.base;
          if (result.preset) {
            s[key] = Object.keys(overrides).length ? { base: result.preset, ...overrides } : result.preset;
          } else {
            // Custom: start from the preset's full shape/specs so nothing required is missing.
            const from = (key === "model" ? MODELS : GPUS).find((x) => x.id === baseOf(current));
            const seed = {};
            if (from) {
              const src = key === "model" ? from.shape : from.specs;
              const allowed = [...FIELD_BY_PATH.keys()].filter((p) => p.startsWith(`/${key}/`)).map((p) => p.split("/")[2]);
              for (const k of allowed) if (src[k] !== undefined && src[k] !== null) seed[k] = src[k];
              // A head_dim that is just hidden / heads stays derived, so a new hidden or heads
              // is not counted with the old preset's heads (a 1B shape at 1.40B).
              if (key === "model" && seed.head_dim * seed.heads === seed.hidden) delete seed.head_dim;
            }
            s[key] = { ...seed, ...overrides };
          }
        });
        state.expert.populate(state.scenario, state.answer, true);
        return;
      }
      edit((s) => setPath(s, field.path, result.value));
    },
  });
  const importer = el("button", { type: "button", class: "pill", id: "hf-open", dataset: { i18n: "hf_open" }, text: t("hf_open") });
  importer.addEventListener("click", async () => {
    const { openHfImport } = await import("./hf-import.js");
    openHfImport(importer, {
      onAnswer: (hook) => (state.answerHook = hook),
      apply: (config) => edit((s) => (s.model = { hf_config: config })),
    });
  });
  $("expert-fields").querySelector('[data-group="model"] .group-body').prepend(importer);
  state.expert.relabel(state.scenario, state.answer);
  $("reset").addEventListener("click", () => {
    loadScenario(structuredClone(DEFAULT_SCENARIO));
  });
  return state.expert;
}

function setMode(mode, { save = true } = {}) {
  if (EMBED) mode = "quick";
  state.mode = mode;
  $("mode-quick").setAttribute("aria-pressed", String(mode === "quick"));
  $("mode-expert").setAttribute("aria-pressed", String(mode === "expert"));
  $("quick").hidden = mode !== "quick";
  $("expert").hidden = mode !== "expert";
  if (save) {
    try {
      localStorage.setItem("gpucalc.mode", mode);
    } catch {
      /* ignore */
    }
  }
  if (mode === "expert") {
    // Asked again once the form exists, so an error lands beside its field.
    ensureExpert().then((form) => {
      if (state.mode !== "expert") return;
      form.populate(state.scenario, state.answer, true);
      evaluateNow();
    });
  } else populateQuick(true);
  evaluateNow();
}

// ---------------------------------------------------------------- language & theme

function applyLanguage() {
  i18n.translateDom();
  const other = lang() === "zh" ? "en" : "zh";
  const button = $("lang");
  button.textContent = t("switch_to");
  button.setAttribute("lang", other === "zh" ? "zh-CN" : "en");
  button.setAttribute("aria-label", t("switch_to_aria"));
  fillQuickSelects();
  populateQuick(true);
  populateMoney(state.scenario, state.answer);
  if (!EMBED) buildPicker(() => state.answerText && scheduleCompare(state.answerText));
  state.expert?.relabel(state.scenario, state.answer);
  $("version").textContent = state.version ? t("core", { v: state.version }) : "";
  translateProgress();
  updateThemeButton();
  if (state.answer) renderAll();
  if (state.error || state.clientErrors.size) evaluateNow();
  if (!state.ready) $("status").textContent = t("loading");
}

function effectiveTheme() {
  const set = root.getAttribute("data-theme");
  if (set) return set;
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function updateThemeButton() {
  const dark = effectiveTheme() === "dark";
  const button = $("theme");
  button.setAttribute("aria-label", t(dark ? "theme_light" : "theme_dark"));
  button.setAttribute("title", t(dark ? "theme_light" : "theme_dark"));
  button.dataset.theme = dark ? "dark" : "light";
}

function toggleTheme() {
  const next = effectiveTheme() === "dark" ? "light" : "dark";
  root.setAttribute("data-theme", next);
  try {
    localStorage.setItem("gpucalc.theme", next);
  } catch {
    /* ignore */
  }
  updateThemeButton();
  if (state.explore) renderExploreNow();
}

// ---------------------------------------------------------------- sharing

let embedCode = null;
function fillEmbedCodes() {
  if (!embedCode) return;
  $("embed-iframe").value = embedCode.iframeSnippet(embedUrl());
  $("embed-element").value = embedCode.elementSnippet(new URL("./", location.href).href, state.scenario, lang());
}

function wireShare() {
  $("json-details").addEventListener("toggle", () => {
    if ($("json-details").open) fillJson();
  });
  $("copy-link").addEventListener("click", () => copyText(permalink(), t("copied_link")));
  $("copy-cli").addEventListener("click", () => copyText(cliCommand(JSON.parse(requestText(state.scenario))), t("copied_cli")));
  // Copies the iframe and shows both snippets (embed-code.js, loaded on first use).
  $("copy-embed").addEventListener("click", async () => {
    embedCode ??= await import("./embed-code.js");
    fillEmbedCodes();
    $("embed-codes").hidden = false;
    $("copy-embed").setAttribute("aria-expanded", "true");
    copyText($("embed-iframe").value, t("copied_embed"));
  });
  $("copy-embed-iframe").addEventListener("click", () => copyText($("embed-iframe").value, t("copied_embed")));
  $("copy-embed-element").addEventListener("click", () => copyText($("embed-element").value, t("copied_element")));
  $("export-json").addEventListener("click", () => {
    const blob = new Blob([prettyJson(state.scenario)], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const a = el("a", { href: url, download: exportName(state.scenario) });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });
  $("import-file").addEventListener("change", async (event) => {
    const file = event.target.files?.[0];
    event.target.value = "";
    if (!file) return;
    if (file.size > MAX_SCENARIO_CHARS) {
      showBanner(t("import_bad", { reason: t("reason_too_long") }));
      return;
    }
    const parsed = parseScenarioText(await file.text());
    if (!parsed.ok) {
      showBanner(t("import_bad", { reason: reasonText(parsed) }));
      return;
    }
    $("banner").hidden = true;
    loadScenario(parsed.value);
    toast(t("imported", { name: file.name }));
  });
  $("json-apply").addEventListener("click", () => {
    const parsed = parseScenarioText($("json-text").value);
    const err = $("json-error");
    if (!parsed.ok) {
      err.textContent = t("import_bad", { reason: reasonText(parsed) });
      err.hidden = false;
      return;
    }
    err.hidden = true;
    loadScenario(parsed.value);
  });
  $("banner-close").addEventListener("click", () => {
    $("banner").hidden = true;
  });
}

function reasonText(parsed) {
  const base = t(`reason_${parsed.reason}`);
  if (!parsed.detail) return base;
  // The browser's message is English: an English reader gets it, another language where.
  if (lang() === "en") return `${base} (${parsed.detail})`;
  return parsed.at ? `${base}（${t("json_where", parsed.at)}）` : base;
}

// Reads the scenario from the URL hash: null when there is none; on a damaged
// link, an error banner and the default scenario.
function scenarioFromLocation(hash = location.hash) {
  const got = scenarioFromHash(hash);
  if (got === null) return null;
  if (!got.ok) {
    showBanner(t("link_bad", { reason: reasonText(got) }));
    return { value: structuredClone(DEFAULT_SCENARIO), owned: false };
  }
  return { value: got.value, owned: true };
}

// ---------------------------------------------------------------- start

function fail(error) {
  console.error(error);
  const status = $("status");
  status.textContent = t("load_failed", { msg: error?.message ?? String(error) });
  status.classList.add("bad");
  status.hidden = false;
}

function registerServiceWorker() {
  if (!("serviceWorker" in navigator) || !/^https?:$/.test(location.protocol)) return;
  // After boot.js has stored its download of the wasm in the service worker's cache.
  const kept = globalThis.__gpucalcBoot?.kept?.() ?? Promise.resolve();
  kept
    .catch(() => {})
    .then(() => navigator.serviceWorker.register("sw.js"))
    .then(() => navigator.serviceWorker.ready)
    // The strings this page loaded before the worker served it (sw.js keeps the other
    // language from the next visit on).
    .then((registration) =>
      registration.active?.postMessage({ type: "keep", files: [...i18n.loadedFiles(), ...(globalThis.__gpucalcPrebuilt ? ["prebuilt.js"] : [])] }),
    )
    .catch(() => {
      /* offline support is a bonus; the page works without it */
    });
}

function watchEmbedHeight() {
  if (!EMBED || window.parent === window) return;
  let last = 0;
  const post = () => {
    const h = Math.ceil(document.documentElement.scrollHeight);
    if (h !== last) {
      last = h;
      window.parent.postMessage({ type: "gpucalc:height", height: h }, "*");
    }
  };
  new ResizeObserver(post).observe(document.body);
}

async function start() {
  const picked = i18n.pickLanguage();
  await i18n.loadLanguage(picked);
  i18n.setLanguage(picked);
  await i18n.loadMessages();
  try {
    const saved = localStorage.getItem("gpucalc.mode");
    if (saved === "expert" || saved === "quick") state.mode = saved;
  } catch {
    /* ignore */
  }
  const fromLink = scenarioFromLocation();
  if (fromLink) {
    state.scenario = fromLink.value;
    state.urlOwned = fromLink.owned;
  }
  wireProgress(state.engine);
  // What was drawn with "…" for a message whose template had not arrived: drawn again.
  i18n.onMoreMessages(() => {
    if (state.answer) renderAll();
    if (state.error) showError(state.error, false);
  });
  applyLanguage(); // fills the Quick form's lists
  wireQuick();
  wireShare();
  wireTrust();
  wireCalibration({ edit, setClientError, evaluateNow, answer: () => state.answer });
  wireMoney({ edit, setClientError, evaluateNow, syncOutputs, scenario: () => state.scenario });
  initLaunch();
  $("lang").addEventListener("click", async () => {
    const next = lang() === "zh" ? "en" : "zh";
    await i18n.loadLanguage(next);
    i18n.setLanguage(next);
    await i18n.loadMessages();
    i18n.saveLanguage(lang());
    applyLanguage();
    // 元 in Chinese, USD in English, unless the reader or the scenario chose.
    syncOutputs();
    if (state.ready && requestText(state.scenario) !== state.answerText) evaluateNow();
  });
  $("theme").addEventListener("click", toggleTheme);
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", updateThemeButton);
  $("mode-quick").addEventListener("click", () => setMode("quick"));
  $("mode-expert").addEventListener("click", () => setMode("expert"));
  window.addEventListener("hashchange", (event) => {
    // The hash navigated to, not location.hash: syncOutputs may have put the current
    // scenario's hash back (history.replaceState) before this event ran, and the link
    // followed would be lost (seen twice in full CI runs of tests/web/page.test.mjs).
    const got = scenarioFromLocation(new URL(event.newURL).hash);
    if (got) loadScenario(got.value, { owned: got.owned });
  });
  if (EMBED) {
    $("open-full").hidden = false;
    watchEmbedHeight();
  }
  let resizeTimer = 0;
  new ResizeObserver((entries) => {
    // The chart's width, known here without making the browser lay out (render.js). The
    // first width draws the chart at once (render.js waits for it; this callback runs
    // before the frame is painted); a resize redraws it once the width settles.
    const first = !state.curveWidth;
    state.curveWidth = Math.round(entries[entries.length - 1].contentRect.width);
    clearTimeout(resizeTimer);
    if (first && state.curveWidth > 0) renderExploreNow();
    else resizeTimer = setTimeout(renderExploreNow, 100);
  }).observe($("curve"));

  setMode(state.mode, { save: false });
  syncOutputs();

  // The default scenario's answer was computed at build time by the same core (native
  // CLI): show it now; the wasm core recomputes it as soon as it has loaded.
  // Its prices are the catalog's USD ones: shown only to a reader who sees USD, from
  // prebuilt.js (boot.js adds it for an English reader; a Chinese one, priced in 元, never
  // downloads it).
  const text = requestText(state.scenario);
  if (JSON.stringify(state.scenario) === JSON.stringify(DEFAULT_SCENARIO) && displayCurrency(state.scenario) === "USD") {
    // prebuilt.js (a classic script boot.js added) may run after this: drawn then, unless
    // the core has answered or the scenario changed meanwhile.
    const drawPrebuilt = () => {
      const p = globalThis.__gpucalcPrebuilt;
      if (!p?.answer || state.answer || requestText(state.scenario) !== text) return;
      onAnswer({ ok: true, value: p.answer }, text, { prebuilt: true });
      if (p.search) onExplore(p.search, text);
    };
    if (globalThis.__gpucalcPrebuilt) drawPrebuilt();
    else globalThis.__gpucalcPrebuiltHook = drawPrebuilt;
  }

  const info = await state.engine.start();
  state.version = info.version;
  state.ready = true;
  $("version").textContent = t("core", { v: info.version });
  root.dataset.coreSearch = String(Boolean(info.search));
  if (info.readyAt) root.dataset.coreReadyMs = (info.readyAt - performance.timeOrigin).toFixed(1);
  root.dataset.appReadyMs = performance.now().toFixed(1);
  evaluateNow();
}

start().catch(fail);

// The page's own instances of these (one bundle: the modules have no files of their own in
// dist/), for tests that feed them answers a current core does not give.
export { renderAnswer, renderCompare };
