// "国产 vs 英伟达": the same job on a chosen set of accelerators, side by side (the core's
// compare(): each row is the scenario with its gpu replaced, searched as evaluate would).
// It runs in a worker of its own after each answer, so it never holds the answer up.
import { $, el } from "./dom.js";
import { coreMessage, lang, t } from "./i18n.js";
import * as F from "./format.js";
import { GPUS } from "./presets.js";
import { energyText, gpuShort, money } from "./render.js";

const KEY = "gpucalc.compare";
// The planners' shortlist of the article: NVIDIA's China parts, their full-rate siblings
// and Huawei's NPUs (Hygon's interconnect and power are unpublished, so it is not offered).
export const DEFAULT_COMPARE = ["h20-96gb", "h800-sxm-80gb", "h100-sxm-80gb", "h200-sxm-141gb", "b200-180gb", "ascend-910b", "ascend-910c", "hygon-k100-ai"];

const L = () => lang();
const offered = (id) => GPUS.some((g) => g.id === id);

export function chosenIds() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? "null");
    if (Array.isArray(saved)) return saved.filter(offered);
  } catch {
    /* storage may be unavailable */
  }
  return DEFAULT_COMPARE.filter(offered);
}

function saveIds(ids) {
  try {
    localStorage.setItem(KEY, JSON.stringify(ids));
  } catch {
    /* ignore */
  }
}

// The ids the core compares: the chosen ones, with the scenario's own accelerator first.
export function compareIds(current) {
  const ids = chosenIds();
  return [...new Set([...(current && offered(current) ? [current] : []), ...ids])];
}

// The checkbox list: every offered accelerator, grouped by maker.
export function buildPicker(onChange) {
  const box = $("compare-picker-list");
  const chosen = new Set(chosenIds());
  const groups = new Map();
  for (const g of GPUS) {
    const vendor = String(g.vendor || "").split(/[\s(]/)[0] || "—";
    if (!groups.has(vendor)) groups.set(vendor, []);
    groups.get(vendor).push(g);
  }
  box.replaceChildren(
    ...[...groups].map(([vendor, list]) =>
      el(
        "fieldset",
        { class: "compare-group" },
        el("legend", { text: vendor }),
        list.map((g) =>
          el(
            "label",
            { class: "check" },
            el("input", { type: "checkbox", value: g.id, checked: chosen.has(g.id) || undefined }),
            " ",
            el("span", { text: L() === "zh" ? g.short_zh : g.short }),
          ),
        ),
      ),
    ),
  );
  box.onchange = () => {
    saveIds([...box.querySelectorAll("input:checked")].map((i) => i.value));
    onChange();
  };
  $("compare-reset").onclick = () => {
    saveIds(DEFAULT_COMPARE.filter(offered));
    buildPicker(onChange);
    onChange();
  };
}

// Whose efficiencies a row's time comes from: the accelerator's own measured profile, a
// measured sibling's (H20 and H800 run on H100's), its own derived from its siblings'
// measurements (GB300), or the unmeasured default.
function confidence(row) {
  const p = row.perf_profile;
  if (!p || p === "default") return el("span", { class: "badge conf-low", text: t("cmp_conf_default") });
  if (p === row.gpu.id && row.perf_profile_measured === false)
    return el("span", { class: "badge conf-medium", text: t("cmp_conf_derived") });
  if (p === row.gpu.id) return el("span", { class: "badge conf-high", text: t("cmp_conf_measured") });
  return el("span", { class: "badge conf-medium", text: t("cmp_conf_sibling", { gpu: gpuShort(p) }) });
}

const layoutText = (l) => {
  const parts = [`${l.tp}×${l.pp}×${F.int(L(), l.dp)}`];
  if (l.cp > 1) parts.push(`CP ${l.cp}`);
  if (l.vpp > 1) parts.push(`v${l.vpp}`);
  parts.push(`Z${l.zero_stage}`);
  return parts.join(" ");
};

// Under a row whose plan does not fit: from how many of that accelerator it would.
const fitsFrom = (m) => (m?.fits_from_gpus ? el("div", { class: "fact-sub", text: t("cmp_fits_from", { n: F.int(L(), m.fits_from_gpus) }) }) : null);
const memText = (m) => `${F.num(L(), m.used_bytes / F.GIB, 0)} / ${F.num(L(), m.capacity_bytes / F.GIB, 0)}`;

// The cost cell: the core's cost, and for an accelerator without a public price (or with
// one the reader set) a price field that writes cost.prices_per_gpu_hour (ctx.onPrice).
function costCell(r, ctx) {
  // A row whose plan does not fit is not priced (no run to pay for), as in the headline.
  const priced = r.cost && Number.isFinite(r.cost.total) && r.memory?.fits !== false;
  const own = ctx?.prices?.[r.gpu.id];
  if (r.memory?.fits === false && own === undefined) return el("td", { class: "num-cell", text: "—" });
  if (!ctx?.onPrice || (priced && own === undefined)) return el("td", { class: "num-cell", text: priced ? money(r.cost) : t("cmp_no_price") });
  const input = el("input", {
    type: "text",
    inputmode: "decimal",
    class: "row-price",
    value: own ?? "",
    placeholder: t("cmp_price_ph", { unit: ctx.unit }),
    "aria-label": t("cmp_price_aria", { gpu: gpuShort(r.gpu.id, r.gpu), unit: ctx.unit }),
    dataset: { gpu: r.gpu.id },
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") input.blur(); // commits: "change" fires on blur
  });
  input.addEventListener("change", () => {
    const text = input.value.trim();
    const v = text === "" ? undefined : F.parseNumber(text);
    input.classList.toggle("invalid", v !== undefined && !(v > 0));
    if (v === undefined || v > 0) ctx.onPrice(r.gpu.id, v);
  });
  return el("td", { class: "num-cell" }, priced ? el("div", { text: money(r.cost) }) : null, input);
}

export function renderCompare(c, currentGpu, ctx) {
  const rows = Array.isArray(c?.rows) ? c.rows.filter((r) => r && r.gpu) : [];
  $("compare-status").hidden = rows.length > 0;
  const heads = [t("q_gpu"), t("f_gpus"), t("cmp_layout"), t("cmp_days"), "MFU", t("cmp_memory"), t("cost"), t("energy"), t("cmp_confidence")];
  $("compare-table").replaceChildren(
    el("caption", { class: "sr-only", text: t("compare") }),
    el("thead", {}, el("tr", {}, heads.map((h) => el("th", { scope: "col", text: h })))),
    el(
      "tbody",
      {},
      rows.map((r) => {
        const name = el("th", { scope: "row", text: gpuShort(r.gpu.id, r.gpu) });
        if (r.ok === false) {
          const m = coreMessage(r.error ?? "");
          return el("tr", { class: "row-error" }, name, el("td", { colspan: heads.length - 1, class: "hint", lang: m.translated ? undefined : "en", text: m.text }));
        }
        const d = r.goodput_days ?? r.days;
        return el(
          "tr",
          { class: r.gpu.id === currentGpu ? "chosen" : undefined, dataset: { gpu: r.gpu.id } },
          name,
          el("td", { class: "num-cell", text: F.int(L(), r.gpus) }),
          el("td", { class: "num-cell", text: r.layout ? layoutText(r.layout) : "" }),
          el("td", { class: "num-cell", text: F.num(L(), d, d < 10 ? 2 : 1) }),
          el("td", { class: "num-cell", text: F.pct(L(), r.mfu) }),
          el("td", { class: r.memory?.fits === false ? "num-cell bad" : "num-cell", text: r.memory ? memText(r.memory) : "" }, fitsFrom(r.memory)),
          costCell(r, ctx),
          el("td", { class: "num-cell", text: r.energy && Number.isFinite(r.energy.mwh) ? energyText(r.energy.mwh) : "—" }),
          el("td", {}, confidence(r)),
        );
      }),
    ),
  );
  $("compare-card").classList.remove("stale");
}

export function markCompareStale() {
  $("compare-card").classList.add("stale");
}
