// Trust in the answer: the out-of-memory risk flag and the P10–P90 ranges the core puts
// in its answer (`oom_risk`, `uncertainty`, `calibration`), and the "How accurate is
// this?" dialog with the validation report (catalog.js VALIDATION, which
// scripts/assemble-dist.mjs copies from data/validation.json, written by
// scripts/validate.mjs). Every value goes in as text.
import * as catalog from "./catalog.js";
import { $, el, fill } from "./dom.js";
import * as F from "./format.js";
import { lang, raw, t } from "./i18n.js";

const L = () => lang();
const VALIDATION = catalog.VALIDATION ?? null;
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
    { id: "oom", class: `oom oom-${oom.level}`, dataset: { level: oom.level }, title: String(oom.rule ?? "") },
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
  } else if (u && hasRange(u.days)) {
    const bits = [t("range_days", { lo: days(u.days.p10), hi: days(u.days.p90) })];
    if (hasRange(u.gpu_hours)) bits.push(t("range_hours", { lo: F.big(L(), u.gpu_hours.p10), hi: F.big(L(), u.gpu_hours.p90) }));
    if (hasRange(u.cost) && v.cost?.currency) bits.push(`${money(v.cost.currency, u.cost.p10)}–${money(v.cost.currency, u.cost.p90)}`);
    parts.push(`${t("range_label", { n: u.n })}: ${bits.join(" · ")}`);
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
  box.hidden = !oom && !range && !VALIDATION;
  // Days on the headline facts: the range one line under the number.
  const u = v?.uncertainty?.time;
  const daysFact = document.querySelector('#facts [data-key="days"] summary');
  if (daysFact && hasRange(u?.days) && !daysFact.querySelector(".fact-range")) {
    daysFact.append(el("span", { class: "fact-sub fact-range", text: t("range_short", { lo: days(u.days.p10), hi: days(u.days.p90) }) }));
  }
  if ($("accuracy")?.open) fillAccuracy();
}

// ---------------------------------------------------------------- the dialog

function metricValue(key, x) {
  if (!finite(x)) return "—";
  if (key === "mfu" || key === "hfu") return pct(x, 1);
  if (key === "step_time_s" || key === "peak_memory_gib") return F.fixed(L(), x, key === "step_time_s" ? 2 : 1);
  if (key === "days") return F.fixed(L(), x, 1);
  if (key === "gpu_hours") return F.big(L(), x);
  return F.int(L(), x);
}

function metricLabel(key, fallback) {
  const k = `acc_m_${key}`;
  const s = t(k);
  return s === k ? String(fallback ?? key) : s;
}

function table(data) {
  const head = ["acc_th_run", "acc_th_gpus", "acc_th_metric", "acc_th_reported", "acc_th_predicted", "acc_th_error"];
  const body = [];
  for (const row of data.rows ?? []) {
    const metrics = Array.isArray(row.metrics) ? row.metrics : [];
    metrics.forEach((m, i) => {
      const first = i === 0;
      const url = String(row.source?.url ?? "");
      const link = /^https:\/\//.test(url)
        ? el("a", { href: url, target: "_blank", rel: "noopener noreferrer", text: String(row.id), title: `${row.source?.title ?? ""}, ${row.source?.section ?? ""}` })
        : el("span", { text: String(row.id) });
      body.push(
        el(
          "tr",
          { class: first ? "run-first" : "run-more", dataset: { run: String(row.id), metric: String(m.key) } },
          el("td", { class: "acc-run" }, first ? [link, el("span", { class: "acc-sub", lang: "en", text: `${row.source?.title ?? ""} · ${row.layout ?? ""}` })] : null),
          el("td", { class: "num-cell", text: first ? F.int(L(), row.gpus) : "" }),
          el("td", { text: metricLabel(m.key, m.label) }),
          el("td", { class: "num-cell", text: metricValue(m.key, m.reported) }),
          el("td", { class: "num-cell", text: metricValue(m.key, m.predicted) }),
          el("td", { class: `num-cell err ${Math.abs(m.error) > 0.15 ? "err-big" : ""}`, text: signed(m.error) }),
        ),
      );
    });
  }
  return el(
    "table",
    { id: "acc-table", class: "acc-table" },
    el("caption", { text: t("acc_caption") }),
    el("thead", {}, el("tr", {}, head.map((k) => el("th", { scope: "col", text: t(k) })))),
    el("tbody", {}, body),
  );
}

function fillAccuracy() {
  const d = VALIDATION;
  const body = $("acc-body");
  if (!d) {
    body.replaceChildren(el("p", { text: t("acc_missing") }));
    return;
  }
  const s = d.summary ?? {};
  const ut = d.uncertainty?.time ?? {};
  const um = d.uncertainty?.memory ?? {};
  const ratio = (x) => F.fixed(L(), x, 2);
  const over = (ut.ratios_sorted ?? []).filter((r) => r > 1).length;
  body.replaceChildren(
    el(
      "p",
      { id: "acc-summary", class: "acc-summary" },
      fill(raw("acc_summary"), {
        n: el("strong", { text: F.int(L(), s.rows) }),
        median: el("strong", { id: "acc-median", text: pct(s.median_abs_error, 1) }),
        mean: pct(s.mean_abs_error, 1),
        max: el("strong", { text: pct(s.max_abs_error, 1) }),
      }),
    ),
    el("div", { class: "table-wrap" }, table(d)),
    el("h3", { class: "sub-title", text: t("acc_ranges_title") }),
    el(
      "ul",
      { class: "acc-list" },
      el("li", { id: "acc-time", text: t("acc_ranges_time", { n: ut.n, p10: ratio(ut.p10), p50: ratio(ut.p50), p90: ratio(ut.p90), over }) }),
      el("li", { text: t("acc_ranges_mem", { n: um.n, ratios: (um.ratios_sorted ?? []).map(ratio).join(", "), high: ratio(um.high) }) }),
      el("li", { text: t("acc_ranges_oom") }),
      el("li", { text: t("acc_ranges_cal") }),
      el("li", { text: t("acc_ranges_limits", { n: ut.n, n1: (ut.n ?? 0) + 1 }) }),
    ),
    el("h3", { class: "sub-title", text: t("acc_limits_title") }),
    el(
      "ul",
      { class: "acc-list" },
      [1, 2, 3, 4, 5, 6].map((i) => {
        const m = um.ratios_sorted ?? [];
        const vars = m.length ? { lo: F.fixed(L(), (m[0] - 1) * 100, 0), hi: F.fixed(L(), (m[m.length - 1] - 1) * 100, 0) } : {};
        return el("li", { text: t(`acc_limit_${i}`, vars) });
      }),
    ),
    el("p", { class: "hint", text: t("acc_source") }),
  );
}

export function openAccuracy() {
  const dialog = $("accuracy");
  if (!dialog) return;
  fillAccuracy();
  if (!dialog.open) dialog.showModal();
  $("acc-close")?.focus();
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
