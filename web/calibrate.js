// The calibration form: a step time or peak memory measured on the user's own cluster
// (scenario `calibration`, docs/scenario-format.md). A measurement belongs to one layout,
// so entering one fixes the answer's layout in the scenario (parallel.tp, pp, dp, cp,
// vpp, ep and training.global_batch, micro_batch, zero_stage, recompute) when the
// scenario left it open; clearing the form takes those fields out again. The core
// scales its prediction by measured / predicted and reports the factors.
import { $ } from "./dom.js";
import * as F from "./format.js";
import { lang, t } from "./i18n.js";
import { getPath, setPath } from "./schema.js";

const STEP = "/calibration/measured_step_time_s";
const MEM = "/calibration/measured_peak_memory_gib";
const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

let api = null;
let added = []; // [path, value] the form fixed, to take out again on clear

// The fields a calibration needs fixed, from the answer's plan.
function layoutFields(plan, scenario, moe) {
  const tr = isObj(scenario.training) ? scenario.training : {};
  const fields = [
    ["/parallel/tp", plan.tp],
    ["/parallel/pp", plan.pp],
    ["/parallel/dp", plan.dp],
    ["/parallel/cp", plan.cp],
    ["/training/micro_batch", plan.micro_batch],
    ["/training/zero_stage", plan.zero_stage],
    ["/training/recompute", plan.recompute],
  ];
  if (plan.pp > 1) fields.push(["/parallel/vpp", plan.vpp]);
  if (moe || plan.ep > 1) fields.push(["/parallel/ep", plan.ep]); // MoE only: a dense model's ep is always 1
  // A batch range stays: with dp fixed the search picks the same batch again.
  if (tr.global_batch === undefined && tr.global_batch_tokens === undefined && tr.global_batch_range === undefined) fields.push(["/training/global_batch", plan.global_batch]);
  return fields.filter(([, v]) => v !== undefined && v !== null);
}

function fixLayout(s, answer) {
  const plan = answer.plan;
  const moe = Number.isFinite(answer.model?.active_params) && answer.model.active_params < answer.model.params;
  for (const [path, value] of layoutFields(plan, s, moe)) {
    if (getPath(s, path) !== undefined) continue;
    setPath(s, path, value);
    added.push([path, value]);
  }
}

function unfixLayout(s) {
  for (const [path, value] of added) if (getPath(s, path) === value) setPath(s, path, undefined);
  added = [];
}

function onInput(path, input) {
  const text = input.value.trim();
  api.setClientError(path, null);
  if (text === "") {
    api.edit((s) => {
      setPath(s, path, undefined);
      if (getPath(s, "/calibration") === undefined) unfixLayout(s);
    });
    return;
  }
  const v = F.parseAmount(text);
  if (!Number.isFinite(v)) {
    api.setClientError(path, t("need_number"));
    api.evaluateNow();
    return;
  }
  const answer = api.answer();
  api.edit((s) => {
    if (answer?.plan) fixLayout(s, answer);
    setPath(s, path, v);
  });
}

export function wireCalibration(a) {
  api = a;
  const step = $("cal-step");
  const mem = $("cal-mem");
  if (!step || !mem) return;
  step.addEventListener("input", () => onInput(STEP, step));
  mem.addEventListener("input", () => onInput(MEM, mem));
  $("cal-clear").addEventListener("click", () => {
    step.value = "";
    mem.value = "";
    api.setClientError(STEP, null);
    api.setClientError(MEM, null);
    api.edit((s) => {
      setPath(s, STEP, undefined);
      setPath(s, MEM, undefined);
      delete s.calibration;
      unfixLayout(s);
    });
  });
}

// The form's field for an error path under /calibration (the closest one), or null.
export function calibrationFieldFor(path) {
  if (!String(path).startsWith("/calibration")) return null;
  const fields = [...document.querySelectorAll("#calibrate .field[data-path]")];
  const exact = fields.find((f) => f.dataset.path === path);
  if (exact) return exact;
  $("cal-details")?.setAttribute("open", "");
  return fields.find((f) => f.dataset.path === "/calibration") ?? null;
}

const planLine = (p) => {
  const int = (x) => F.int(lang(), x);
  const recompute = lang() === "en" ? p.recompute : t(`recompute_${p.recompute}`);
  const { tp, pp, cp, vpp, zero_stage: zero, micro_batch: mb } = p;
  return t("cal_plan", { tp, pp, cp, vpp, zero, mb, dp: int(p.dp), gpus: int(p.gpus), gb: int(p.global_batch), recompute });
};

// Inputs from the scenario (but not the one being typed in), hints from the answer.
export function populateCalibration(scenario, answer) {
  const step = $("cal-step");
  const mem = $("cal-mem");
  if (!step || !mem) return;
  const cal = isObj(scenario.calibration) ? scenario.calibration : {};
  const show = (input, v) => {
    if (document.activeElement === input) return;
    input.value = typeof v === "number" ? String(v) : v === undefined ? "" : String(v);
  };
  // A scenario that arrives with a calibration (a link, an import) opens the form.
  if (Object.keys(cal).length && !step.value && !mem.value) $("cal-details").open = true;
  show(step, cal.measured_step_time_s);
  show(mem, cal.measured_peak_memory_gib);
  if (!isObj(scenario.calibration)) added = [];

  const c = answer?.calibration;
  const predictedStep = c?.step_time?.predicted_s ?? answer?.performance?.step_time_s;
  const predictedMem = c?.peak_memory?.predicted_bytes ?? answer?.memory?.total_bytes;
  $("cal-step-hint").textContent = Number.isFinite(predictedStep) ? t("cal_step_hint", { v: F.seconds(lang(), predictedStep) }) : "";
  $("cal-mem-hint").textContent = Number.isFinite(predictedMem) ? t("cal_mem_hint", { v: F.gib(lang(), predictedMem) }) : "";
  const notes = [];
  // The layout the factors hold for (the answer's plan, the core's calibration.layout),
  // in the reader's language.
  const p = answer?.plan;
  if (c?.layout) notes.push(t("cal_layout", { layout: p ? planLine(p) : c.layout }));
  const fx = (x) => F.fixed(lang(), x, 3);
  if (c?.step_time || c?.peak_memory) {
    notes.push(
      [c.step_time ? t("cal_factor_step", { f: fx(c.step_time.factor) }) : null, c.peak_memory ? t("cal_factor_mem", { f: fx(c.peak_memory.factor) }) : null]
        .filter(Boolean)
        .join(" · "),
    );
  } else if (answer?.plan) {
    notes.push(t("cal_will_fix"));
  }
  $("cal-note").textContent = notes.join(" ");
  $("cal-clear").hidden = !isObj(scenario.calibration);
}
