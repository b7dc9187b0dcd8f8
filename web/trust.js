// Trust in the answer: the out-of-memory risk flag and the P10–P90 ranges the core puts
// in its answer (`oom_risk`, `uncertainty`, `calibration`), and the button that opens
// "How accurate is this?" (accuracy.js, loaded on first use). Every value goes in as text.
import { $, el, fill } from "./dom.js";
import * as F from "./format.js";
import { dataValue, lang, raw, t } from "./i18n.js";

const L = () => lang();
const num = (v, d = 1) => F.num(L(), v, d);
const pct = (v, d = 0) => F.pct(L(), v, d);
const gib = (v) => F.gib(L(), v);
const signed = (e) => `${e >= 0 ? "+" : "−"}${F.fixed(L(), Math.abs(e) * 100, 1)}%`;
const days = (v) => F.num(L(), v, v < 10 ? 2 : 1);

// en: $13.3M, ¥95M; zh: 1,326万美元, 9,500万元 (as render.js prints cost).
function money(currency, v) {
  const amount = F.big(L(), v);
  if (L() === "zh") return currency === "USD" ? `${amount}美元` : currency === "CNY" ? `${amount}元` : `${amount} ${currency}`;
  return currency === "USD" ? `$${amount}` : currency === "CNY" ? `¥${amount}` : `${amount} ${currency}`;
}

const finite = (x) => typeof x === "number" && Number.isFinite(x);
const hasRange = (r) => r && finite(r.p10) && finite(r.p90);

// ---------------------------------------------------------------- in the answer

function oomLine(v) {
  const oom = v.oom_risk;
  const mem = v.memory ?? {};
  if (!oom || !["low", "medium", "high"].includes(oom.level)) return null;
  const measured = v.calibration?.peak_memory != null;
  const cap = mem.capacity_bytes;
  const values = {
    used: gib(mem.total_bytes),
    pct: pct(oom.used_fraction),
    cap: gib(cap),
    high: gib(finite(oom.used_fraction_high) && finite(cap) ? oom.used_fraction_high * cap : NaN),
    hpct: pct(oom.used_fraction_high),
  };
  const key = measured ? `oom_text_measured_${oom.level}` : `oom_text_${oom.level}`;
  return el(
    "p",
    { id: "oom", class: `oom oom-${oom.level}`, dataset: { level: oom.level }, title: t(measured ? "oom_rule_measured" : "oom_rule") },
    el("strong", { class: "oom-badge", text: t("oom_badge", { level: t(`oom_${oom.level}`) }) }),
    " ",
    el("span", {}, fill(raw(key), values)),
  );
}

function rangeLine(v) {
  const u = v.uncertainty?.time;
  const cal = v.calibration;
  const parts = [];
  if (cal?.step_time) {
    parts.push(
      t("range_calibrated", {
        f: F.fixed(L(), cal.step_time.factor, 2),
        measured: F.seconds(L(), cal.step_time.measured_s),
        predicted: F.seconds(L(), cal.step_time.predicted_s),
      }),
    );
  } else if (u && hasRange(u.days) && v.memory?.fits !== false) {
    // (No range for a plan that does not fit: it describes a run that cannot happen.)
    const bits = [t("range_days", { lo: days(u.days.p10), hi: days(u.days.p90) })];
    if (hasRange(u.gpu_hours)) bits.push(t("range_hours", { lo: F.big(L(), u.gpu_hours.p10), hi: F.big(L(), u.gpu_hours.p90) }));
    if (hasRange(u.cost) && v.cost?.currency) bits.push(`${money(v.cost.currency, u.cost.p10)}–${money(v.cost.currency, u.cost.p90)}`);
    const regime = u.regime ? t(`regime_${u.regime}`) : "";
    const model = (u.model_runs > 0 ? t("range_model", { n: u.model_runs, model: v.model?.name ? dataValue("model", v.model.name) : "" }) : "") + (u.untried_stage ? t("range_untried", { stage: t(`opt_${u.untried_stage}`) }) : "") + (u.untried_framework ? t("range_untried_fw", { framework: t(`opt_${u.untried_framework}`) }) : "") + (u.untried_accelerator ? t("range_untried_acc", { gpu: v.gpu?.name ? dataValue("gpu", v.gpu.name) : u.untried_accelerator }) : "");
    parts.push(t("range_label", { n: u.n, regime, beyond: u.beyond_validated_scale ? t("range_beyond") : "", model, bits: bits.join(" · ") }));
  } else if (u?.basis && u.basis !== "validation") {
    parts.push(t("range_assumed", { what: u.basis }));
  }
  if (cal?.peak_memory) {
    parts.push(
      t("mem_calibrated", {
        f: F.fixed(L(), cal.peak_memory.factor, 2),
        measured: gib(cal.peak_memory.measured_bytes),
        predicted: gib(cal.peak_memory.predicted_bytes),
      }),
    );
  }
  if (!parts.length) return null;
  return el("p", { id: "range", class: "range", dataset: { basis: cal?.step_time ? "calibration" : (u?.basis ?? "") } }, parts.join(" · "));
}

// Fills #trust in the headline card; hidden when the core gives none of it.
export function renderTrust(v) {
  const box = $("trust");
  if (!box) return;
  const oom = oomLine(v ?? {});
  const range = rangeLine(v ?? {});
  box.replaceChildren(
    ...[oom, range].filter(Boolean),
    el(
      "p",
      { class: "trust-links" },
      el("button", { type: "button", id: "open-accuracy", class: "link-button", text: t("acc_open"), onclick: openAccuracy }),
    ),
  );
  box.hidden = false;
  // Days on the headline facts: the range one line under the number (not for a plan that
  // does not fit: no likely range for a run that cannot happen, as in rangeLine).
  const u = v?.uncertainty?.time;
  const daysFact = document.querySelector('#facts [data-key="days"] summary');
  if (daysFact && hasRange(u?.days) && v?.memory?.fits !== false && !daysFact.querySelector(".fact-range")) {
    daysFact.append(el("span", { class: "fact-sub fact-range", text: t("range_short", { lo: days(u.days.p10), hi: days(u.days.p90) }) }));
  }
  if ($("accuracy")?.open) openAccuracy(); // a language switch while it is open
}

// ---------------------------------------------------------------- the dialog

// The report itself (accuracy.js, with its data and strings) loads when first opened:
// it is not part of what a first visit downloads (scripts/assemble-dist.mjs LAZY).
let report = null;
async function loadReport() {
  report ??= import("./accuracy.js").catch((error) => {
    report = null;
    throw error;
  });
  return report;
}

export async function openAccuracy() {
  const dialog = $("accuracy");
  if (!dialog) return;
  if (!dialog.open) dialog.showModal();
  $("acc-close")?.focus();
  const body = $("acc-body");
  if (!body.childElementCount) body.replaceChildren(el("p", { class: "hint", text: t("acc_loading") }));
  try {
    (await loadReport()).fillAccuracy(body);
  } catch {
    body.replaceChildren(el("p", { class: "field-error", text: t("acc_load_failed") }));
  }
}

export function wireTrust() {
  const dialog = $("accuracy");
  if (!dialog) return;
  $("acc-close")?.addEventListener("click", () => dialog.close());
  // A click on the backdrop (the dialog element itself, outside its content) closes it.
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
}
