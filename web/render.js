// Renders the core's answer. Every value is set as text; formulas and sources sit
// in <details> one click away. Sections whose data the core does not give yet
// (step-time breakdown, cost, quick estimate) stay hidden until it does.
import { curveChart, curveLegend, stackedBar } from "./charts.js";
import { $, el, fill, patch, setText } from "./dom.js";
import * as F from "./format.js";
import { coreMessage, dataValue, lang, messagesKey, prose, raw, t } from "./i18n.js";
import { gpuById } from "./presets.js";
import { FIELD_BY_PATH } from "./schema.js";
import { hostMemoryNote, jobHeadlineFacts, jobSubline, modelJobFacts } from "./render-job.js";

const MEMORY_PARTS = ["weights", "gradients", "optimizer", "activations", "other"];

// "Will it fit?" for the answer's layout (memory.fit): the largest micro-batch and the
// longest sequence under the memory limit, and at the whole device.
function fitNote(mem) {
  const f = mem.fit;
  if (!f) return null;
  const n = (x) => F.int(L(), x);
  const text =
    f.max_micro_batch_at_capacity === 0
      ? t("fit_none")
      : t("fit_limits", {
          pct: F.pct(L(), f.limit_fraction, 0),
          mb: n(f.max_micro_batch),
          seq: n(f.max_seq_len),
          mb_cap: n(f.max_micro_batch_at_capacity),
          seq_cap: n(f.max_seq_len_at_capacity),
        });
  return el("p", { class: "hint", id: "mem-fit", text });
}
// The answer's own memory limit (memory.limit_fraction: target.max_memory_fraction, or
// its default in data/scenario-schema.json for a preview without one), the fraction of
// the device the search keeps every GPU under.
const memoryLimit = (mem) => mem.limit_fraction ?? mem.fit?.limit_fraction ?? FIELD_BY_PATH.get("/target/max_memory_fraction").def.value;

// Where the answer's efficiency comes from: the time model with the GPU's profile
// (data/perf.json), or the scenario's assume.mfu / assume.hfu.
function timeModelSource(perf) {
  if (perf.time_model && perf.time_model !== "predicted") return `scenario ${perf.time_model}`;
  return `docs/performance-model.md; data/perf.json${perf.perf_profile ? ` (${perf.perf_profile})` : ""}`;
}

const BREAKDOWN_PARTS = [
  "compute_s",
  "tp_comm_s",
  "cp_comm_s",
  "ep_comm_s",
  "moe_overhead_s",
  "pp_comm_s",
  "dp_comm_exposed_s",
  "zero3_comm_exposed_s",
  "offload_s",
  "bubble_s",
  "optimizer_s",
];

const L = () => lang();
const n0 = (v) => F.int(L(), v);
const n1 = (v, d = 1) => F.num(L(), v, d);
// Energy: MWh for runs, kWh below 1 MWh (a fine-tuning job is often a few hundred kWh).
export const energyText = (mwh) => (Math.abs(mwh) < 1 ? `${n1(mwh * 1000, 0)} kWh` : `${n1(mwh, 0)} MWh`);
const big = (v) => F.big(L(), v);
const gib = (v) => F.gib(L(), v);
const pct = (v) => F.pct(L(), v);
const days = (v) => t("n_days", { v: F.num(L(), v, v < 10 ? 2 : 1) });

// The answer's accelerator name in the reader's language (data/ translations), or `fallback`.
const gpuName = (gpu, fallback) => (gpu?.name ? dataValue("gpu", gpu.name) : fallback);

export function gpuShort(id, gpu) {
  const preset = gpuById(id);
  if (preset) return L() === "zh" ? preset.short_zh : preset.short;
  return gpuName(gpu, String(id ?? "GPU"));
}

// A number with its formula and source behind a click. `source` is text, or a list of
// texts and nodes (a citation quoted as published: citeEn) joined by "; ".
function fact({ key, label, value, sub, formula, source, cls }) {
  const summary = el(
    "summary",
    {},
    el("span", { class: "fact-label", text: label }),
    el("span", { class: "fact-value", text: value }),
    sub ? el("span", { class: "fact-sub", text: sub }) : null,
  );
  const body = el("div", { class: "fact-body" });
  if (formula) body.append(el("p", { class: "formula" }, el("code", { text: formula })));
  if (Array.isArray(source)) {
    const parts = source.filter(Boolean).flatMap((x, i) => (i ? ["; ", x] : [x]));
    if (parts.length) body.append(el("p", { class: "source" }, `${t("source")}: `, ...parts));
  } else if (source) body.append(el("p", { class: "source", text: `${t("source")}: ${source}` }));
  return el("details", { class: `fact ${cls ?? ""}`, dataset: { key } }, summary, body);
}

// A cited work's description as its data gives it (English), marked as such.
const citeEn = (text) => (text ? el("span", { class: "cite", lang: "en", text: String(text) }) : null);

function planText(p) {
  const parts = [`TP ${p.tp}`];
  if (p.pp > 1) parts.push(`PP ${p.pp}${p.vpp > 1 ? `×${p.vpp}` : ""}`);
  parts.push(`DP ${n0(p.dp)}`);
  if (p.cp > 1) parts.push(`CP ${p.cp}`);
  if (p.ep > 1) parts.push(`EP ${p.ep}`);
  return parts.join(" × ");
}

// ---------------------------------------------------------------- headline

export function renderHeadline(v, ctx) {
  const plan = v.plan ?? {};
  const mem = v.memory ?? {};
  const tr = v.training ?? {};
  const gpu = gpuShort(ctx.gpuId, v.gpu);
  const values = {
    n: el("span", { class: "num gpus", text: n0(plan.gpus) }),
    gpu: el("span", { class: "gpu-name", text: gpu }),
    days: el("span", { class: "num", text: n1(tr.days, tr.days < 10 ? 2 : 1) }),
    used: el("span", { class: "num", text: gib(mem.total_bytes) }),
    cap: el("span", { class: "num", text: gib(mem.capacity_bytes) }),
  };
  const fits = mem.fits !== false;
  // A count the scenario fixes, itself or through tp × pp × dp (the core leaves it out of
  // chosen_by_calculator).
  const chosen = Array.isArray(plan.chosen_by_calculator) ? plan.chosen_by_calculator : null;
  const fixed = ctx.scenario?.parallel?.gpus !== undefined || (chosen !== null && !chosen.includes("gpus"));
  const key = !fits ? "headline_nofit" : fixed ? "headline_fixed" : "headline";
  const h = $("headline");
  // Cost arrives with a later core (scenario `cost`); shown only when the core gives it,
  // and not beside a plan that does not fit (no run to price).
  const cost = fits && v.cost && (Number.isFinite(v.cost.total) || v.cost.pending);
  patch(h, fill(raw(key), values), cost ? fill(raw("headline_cost"), { cost: el("span", { class: "num", text: v.cost.pending ? "…" : money(v.cost) }) }) : null);
  h.classList.toggle("bad", !fits);
  h.dataset.gpus = String(plan.gpus);
  h.dataset.days = String(tr.days);

  const model = v.model?.name ? dataValue("model", v.model.name) : (v.model?.id ?? "");
  setText($("subline"), [
    model,
    jobSubline(v, ctx.scenario),
    t("n_tokens", { v: big(tr.tokens ?? ctx.scenario?.training?.tokens) }),
    gpuName(v.gpu, gpu),
    `${planText(plan)} · ZeRO-${plan.zero_stage} · ${t("recompute")} ${t(`recompute_${plan.recompute}`)}`,
  ]
    .filter(Boolean)
    .join(" · "));

  renderFitNote(v);
  const note = $("target-note");
  const s = v.search ?? {};
  if (s.target_days != null && s.target_met === false) {
    // Met or not is judged on the wall clock with failures and restarts (goodput.days).
    // A plan that does not fit misses it for want of memory, not speed (the core's target_days_no_fit).
    setText(
      note,
      v.memory?.fits === false
        ? t("target_missed_nofit", { target: n1(s.target_days) })
        : t("target_missed", { target: n1(s.target_days), days: n1(v.goodput?.days ?? tr.days), clean: n1(tr.days) }),
    );
    note.hidden = false;
  } else note.hidden = true;

  const facts = [];
  const steps = tr.steps;
  const perf = v.performance ?? {};
  // A plan that does not fit: its time, cost and energy describe a run that cannot start,
  // so they say "if it fit" and are drawn muted (the headline and the memory fact say why).
  const ifFit = (sub) => (fits ? sub : sub ? `${t("if_it_fit")} · ${sub}` : t("if_it_fit"));
  const hypo = fits ? "" : "hypo";
  facts.push(
    fact({
      key: "gpus",
      label: t("f_gpus"),
      value: n0(plan.gpus),
      formula: fixed
        ? t("fx_gpus_fixed", { n: n0(plan.gpus) })
        : s.target_days != null
          ? t("fx_gpus_target", { target: n1(s.target_days), min: n0(s.min_gpus_fit), batch: n0(plan.global_batch) })
          : t("fx_gpus_fit", { min: n0(s.min_gpus_fit) }),
      source: "docs/model.md §The search",
    }),
    fact({
      key: "days",
      label: t("f_days"),
      value: days(tr.days),
      sub: ifFit(undefined),
      cls: hypo,
      formula: t("fx_days", {
        steps: n0(steps),
        tokens: big(tr.tokens),
        batch: n0(plan.global_batch_tokens),
        step: n1(perf.step_time_s, 3),
        days: n1(tr.days, 2),
      }),
      source: "docs/model.md §Whole run",
    }),
    fact({
      key: "gpu_hours",
      label: t("f_gpu_hours"),
      value: big(tr.gpu_hours),
      sub: ifFit(undefined),
      cls: hypo,
      formula: t("fx_gpu_hours", { days: n1(tr.days, 2), n: n0(plan.gpus), h: n0(tr.gpu_hours) }),
      source: "docs/model.md §Whole run",
    }),
    fact({
      key: "memory",
      label: t("f_memory"),
      value: gib(mem.total_bytes),
      sub: t("of_capacity", { pct: F.pct(L(), mem.used_fraction ?? mem.total_bytes / mem.capacity_bytes, 0), cap: gib(mem.capacity_bytes) }),
      formula: t("fx_memory", {
        used: gib(mem.total_bytes),
        cap: gib(mem.capacity_bytes),
        role: t(`role_${mem.stage_role}`) === `role_${mem.stage_role}` ? String(mem.stage_role ?? "") : t(`role_${mem.stage_role}`),
      }),
      source: "docs/memory-model.md",
      cls: fits ? (mem.used_fraction > memoryLimit(mem) ? "warn" : "") : "bad",
    }),
    fact({
      key: "mfu",
      label: "MFU",
      value: pct(perf.mfu),
      formula: t("fx_mfu", {
        tps: n0(perf.tokens_per_s_per_gpu),
        flops: big(v.model?.flops_per_token?.model),
        peak: n0(v.gpu?.peak_tflops),
        mfu: pct(perf.mfu),
      }),
      source: timeModelSource(perf),
    }),
  );
  // Later cores add cost, energy and goodput (failures): each shown when present.
  // (`pending`: an instant preview that cannot know these yet keeps their place.)
  if (v.cost && (Number.isFinite(v.cost.total) || v.cost.pending)) {
    const src = v.cost.price_source;
    facts.push(
      fact({
        key: "cost",
        label: t("cost"),
        value: v.cost.pending ? "…" : money(v.cost),
        sub: ifFit(Number.isFinite(v.cost.per_gpu_hour) ? t("per_gpu_hour", { v: money({ ...v.cost, total: v.cost.per_gpu_hour }) }) : undefined),
        cls: hypo,
        formula: t(v.cost.mode === "owned" ? "fx_cost_owned" : "fx_cost_rented"),
        source: [prose(src?.rule_coded, src?.rule), citeEn(src?.citation ?? src?.source), src?.date && dataValue("date", src.date)],
      }),
    );
  }
  if (v.energy && (Number.isFinite(v.energy.mwh) || v.energy.pending)) {
    facts.push(
      fact({
        key: "energy",
        label: t("energy"),
        value: v.energy.pending ? "…" : energyText(v.energy.mwh),
        sub: ifFit(
          !v.energy.pending && Number.isFinite(v.energy.co2_tonnes)
            ? t("co2", { v: n1(v.energy.co2_tonnes, v.energy.co2_tonnes < 10 ? 2 : 0) })
            : undefined,
        ),
        cls: hypo,
        formula: t("fx_energy"),
        source: v.energy.sources
          ? Object.entries(v.energy.sources).map(([k, en]) => prose(v.energy.sources_coded?.[k], en)).join("; ")
          : undefined,
      }),
    );
  }
  if (v.goodput && ((Number.isFinite(v.goodput.days) && v.goodput.days !== tr.days) || v.goodput.pending)) {
    facts.push(
      fact({
        key: "goodput",
        label: t("f_goodput"),
        value: v.goodput.pending ? "…" : days(v.goodput.days),
        sub: ifFit(!v.goodput.pending && Number.isFinite(v.goodput.fraction) ? t("goodput_sub", { v: pct(v.goodput.fraction) }) : undefined),
        cls: hypo,
        formula: t(v.goodput.enabled === false ? "fx_goodput_off" : "fx_goodput"),
        source: v.goodput.source == null ? undefined : prose(v.goodput.source_coded, v.goodput.source),
      }),
    );
  }
  facts.push(...jobHeadlineFacts(v, fact));
  patch($("facts"), ...facts);

  // The article's rule of thumb (core output `quick_estimate`), beside the full answer;
  // its arithmetic and why the full answer differs, one click away.
  const est = $("estimate");
  const q = v.quick_estimate;
  if (q && Number.isFinite(q.gpus)) {
    patch(est,
      el(
        "details",
        { class: "estimate-details" },
        el("summary", {}, el("strong", { text: t("estimate_label") }), ` ${t("estimate_value", { n: n0(q.gpus), raw: F.fixed(L(), q.gpus_raw, 1) })}`),
        el(
          "div",
          { class: "fact-body" },
          el("p", { class: "formula" }, el("code", { text: t("fx_estimate") })),
          q.why ? el("p", { text: estimateText(q) }) : null,
          q.source ? el("p", { class: "source", text: `${t("source")}: ${prose(q.source_coded, q.source)}` }) : null,
        ),
      ),
    );
    est.hidden = false;
  } else est.hidden = true;
}

// en: $13.3M, ¥95M; zh: 1,326万美元, 9,500万元.
export function money(cost) {
  const code = String(cost.currency ?? "");
  const amount = big(cost.total);
  if (L() === "zh") return code === "USD" ? `${amount}美元` : code === "CNY" ? `${amount}元` : `${amount} ${code}`;
  return code === "USD" ? `$${amount}` : code === "CNY" ? `¥${amount}` : `${amount} ${code}`;
}

// ---------------------------------------------------------------- plan

// The global batch in sequences and tokens, and how it was set when the search chose it.
function batchText(p) {
  if (p.global_batch === undefined) return undefined;
  const s = t("batch_chosen", { seq: n0(p.global_batch), tokens: big(p.global_batch_tokens) });
  return p.batch_rule && p.batch_rule !== "fixed" ? `${s} (${t(`batch_rule_${p.batch_rule}`)})` : s;
}

function renderPlan(v) {
  const p = v.plan ?? {};
  const chosen = new Set(p.chosen_by_calculator ?? []);
  const moe = (v.model?.params_breakdown?.moe_layers ?? 0) > 0;
  const chips = [
    ["gpus", t("f_gpus"), n0(p.gpus)],
    ["tp", "TP", p.tp],
    ["pp", "PP", p.pp],
    ["vpp", "VPP", p.vpp > 1 ? p.vpp : undefined],
    ["dp", "DP", p.dp],
    ["cp", "CP", p.cp],
    // Expert parallelism only where there are experts (a dense answer still reports ep 1
    // and Megatron's default expert-TP, which mean nothing for it).
    ["ep", "EP", moe ? p.ep : undefined],
    ["etp", "ETP", moe && p.etp > 1 ? p.etp : undefined],
    ["micro_batch", t("micro_batch"), p.micro_batch],
    ["micro_batches", t("micro_batches"), p.micro_batches],
    ["global_batch", t("global_batch"), batchText(p)],
    ["zero_stage", "ZeRO", p.zero_stage],
    [
      "recompute",
      t("recompute"),
      p.recompute !== undefined
        ? `${t(`recompute_${p.recompute}`)}${p.recompute === "selective" && Array.isArray(p.recompute_modules) && p.recompute_modules.length ? ` (${p.recompute_modules.join(", ")})` : ""}`
        : undefined,
    ],
    ["sequence_parallel", "SP", p.sequence_parallel !== undefined ? t(p.sequence_parallel ? "on" : "off") : undefined],
    ["flash_attention", "FlashAttention", p.flash_attention !== undefined ? t(p.flash_attention ? "on" : "off") : undefined],
    ["framework", t("framework"), p.framework],
  ];
  patch($("plan"),
    ...chips
      .filter(([, , value]) => value !== undefined && value !== null)
      .map(([key, label, value]) => {
        const auto = chosen.has(key);
        const chip = el(
          "div",
          { class: `chip${auto ? " auto" : ""}`, dataset: { key }, title: auto ? t("chosen_title") : t("given_title") },
          el("dt", { text: label }),
          el("dd", { text: typeof value === "number" ? n0(value) : String(value) }),
        );
        return chip;
      }),
  );
  const s = v.search ?? {};
  setText($("plan-note"), t("plan_note", {
    evaluated: n0(s.layouts_evaluated),
    fitting: n0(s.layouts_fitting),
    // On a fixed count where nothing fits, the fewest from the search with it left open.
    min: s.min_gpus_fit != null ? n0(s.min_gpus_fit) : s.fits_from ? n0(s.fits_from.gpus) : "—",
  }));
}

// ---------------------------------------------------------------- memory

function itemLabel(name) {
  const key = `mem_${name}`;
  const text = t(key);
  return text === key ? String(name).replace(/_/g, " ") : text;
}

function renderMemory(v) {
  const mem = v.memory ?? {};
  const cap = mem.capacity_bytes ?? 0;
  const total = mem.total_bytes ?? MEMORY_PARTS.reduce((s, k) => s + (mem[`${k}_bytes`] ?? 0), 0);
  const fits = mem.fits ?? total <= cap;
  const summary = $("mem-summary");
  setText(summary, fits
    ? t("mem_fits", { used: gib(total), cap: gib(cap), pct: pct(cap ? total / cap : 0), free: gib(mem.headroom_bytes ?? cap - total) })
    : t("mem_nofit", { used: gib(total), cap: gib(cap) }));
  summary.classList.toggle("bad", !fits);
  const limit = memoryLimit(mem);
  summary.classList.toggle("warn", fits && total > limit * cap);

  const segments = MEMORY_PARTS.map((k) => ({
    key: k,
    value: mem[`${k}_bytes`] ?? 0,
    label: `${t(`part_${k}`)}: ${gib(mem[`${k}_bytes`])}`,
  }));
  const bar = stackedBar({
    segments,
    scale: Math.max(cap, total) * 1.0,
    over: !fits,
    label: summary.textContent,
    marks: [
      { at: limit * cap, label: t("headroom_mark", { pct: F.pct(L(), limit, 0) }), cls: "mark-limit", title: t("headroom_title", { pct: F.pct(L(), limit, 0) }) },
      { at: cap, label: t("capacity_mark", { cap: gib(cap) }), cls: "mark-cap" },
    ],
  });
  const legend = el(
    "ul",
    { class: "legend" },
    MEMORY_PARTS.filter((k) => mem[`${k}_bytes`] != null).map((k) =>
      el(
        "li",
        {},
        el("span", { class: `swatch c-${k}`, "aria-hidden": "true" }),
        el("span", { class: "legend-label", text: t(`part_${k}`) }),
        el("span", { class: "legend-value", text: gib(mem[`${k}_bytes`]) }),
      ),
    ),
  );
  const role = mem.stage_role && mem.stage_role !== "only" ? el("p", { class: "hint", text: t("mem_role", { role: t(`role_${mem.stage_role}`), stage: mem.stage, layers: mem.layers_on_gpu }) }) : null;
  patch($("mem-chart"), bar, legend, el("p", { class: "hint", text: t("headroom_note") }), role ?? "", hostMemoryNote(mem) ?? "", fitNote(mem) ?? "");

  const items = Array.isArray(mem.items) ? mem.items : [];
  patch($("mem-items"),
    ...items.map((item) =>
      el(
        "li",
        {},
        el(
          "details",
          { class: "item", dataset: { name: item.name } },
          el(
            "summary",
            {},
            el("span", { class: `swatch c-${item.category}`, "aria-hidden": "true" }),
            el("span", { class: "item-name", text: itemLabel(item.name) }),
            el("span", { class: "item-value", text: gib(item.bytes) }),
          ),
          el(
            "div",
            { class: "fact-body" },
            el("p", { class: "formula" }, el("code", { text: prose(item.formula_coded, item.formula) })),
            el("p", { class: "source", text: `${t("source")}: ${prose(item.source_coded, item.source)}` }),
          ),
        ),
      ),
    ),
  );
}

// ---------------------------------------------------------------- time

function renderTime(v) {
  const perf = v.performance ?? {};
  const plan = v.plan ?? {};
  const tr = v.training ?? {};
  const chart = $("time-chart");
  const b = perf.breakdown;
  if (b && typeof b === "object") {
    const segments = BREAKDOWN_PARTS.filter((k) => b[k] > 0).map((k) => ({
      key: `t-${k.replace(/_s$/, "")}`,
      value: b[k],
      label: `${t(`bd_${k}`)}: ${F.seconds(L(), b[k])}`,
    }));
    const sum = segments.reduce((s, x) => s + x.value, 0);
    patch(chart,
      el("p", { class: "mem-summary", text: t("bd_summary", { step: F.seconds(L(), perf.step_time_s) }) }),
      stackedBar({ segments, scale: Math.max(sum, perf.step_time_s ?? 0), label: t("bd_label") }),
      el(
        "ul",
        { class: "legend" },
        segments.map((s) =>
          el(
            "li",
            {},
            el("span", { class: `swatch c-${s.key}`, "aria-hidden": "true" }),
            el("span", { class: "legend-label", text: t(`bd_${s.key.slice(2)}_s`) }),
            el("span", { class: "legend-value", text: `${F.seconds(L(), s.value)} · ${pct(s.value / (perf.step_time_s || sum))}` }),
          ),
        ),
      ),
    );
    chart.hidden = false;
  } else {
    chart.hidden = true;
    patch(chart);
  }

  const m = plan.micro_batches;
  const bubble = perf.bubble_fraction;
  patch($("time-facts"),
    fact({
      key: "step_time",
      label: t("f_step"),
      value: F.seconds(L(), perf.step_time_s),
      formula: t("fx_step", { m: n0(m), p: n0(plan.pp), v: n0(plan.vpp ?? 1), eff: pct(perf.efficiency), step: F.seconds(L(), perf.step_time_s) }),
      source: `docs/model.md §Step time; ${timeModelSource(perf)}`,
    }),
    fact({
      key: "tokens_per_s",
      label: t("f_tps"),
      value: n0(perf.tokens_per_s_per_gpu),
      formula: t("fx_tps", { batch: n0(plan.global_batch_tokens), step: n1(perf.step_time_s, 3), n: n0(plan.gpus), v: n0(perf.tokens_per_s_per_gpu) }),
      source: "docs/model.md",
    }),
    fact({
      key: "tflops",
      label: t("f_tflops"),
      value: n1(perf.tflops_per_gpu),
      formula: t("fx_tflops", { mfu: pct(perf.mfu), peak: n0(v.gpu?.peak_tflops), v: n1(perf.tflops_per_gpu) }),
      source: "docs/model.md",
    }),
    fact({
      key: "hfu",
      label: "HFU",
      value: pct(perf.hfu),
      formula: t("fx_hfu", { hw: big(v.model?.flops_per_token?.hardware), model: big(v.model?.flops_per_token?.model) }),
      source: "Korthikanti et al. 2022 §5; docs/model.md",
    }),
    fact({
      key: "bubble",
      label: t("f_bubble"),
      value: pct(bubble),
      formula: t("fx_bubble", { p: n0(plan.pp), v: n0(plan.vpp ?? 1), m: n0(m) }),
      source: "Narayanan et al. 2021 §2.2",
    }),
    fact({
      key: "steps",
      label: t("f_steps"),
      value: n0(tr.steps),
      formula: t("fx_steps", { tokens: big(tr.tokens), batch: n0(plan.global_batch_tokens), steps: n0(tr.steps) }),
      source: "docs/model.md §Whole run",
    }),
  );
}

// ---------------------------------------------------------------- model & GPU

function renderModel(v) {
  const model = v.model ?? {};
  const b = model.params_breakdown ?? {};
  const facts = [
    fact({
      key: "params",
      label: t("f_params"),
      value: big(model.params),
      formula: t("fx_params", {
        exact: n0(model.params),
        layers: big(b.layers),
        emb: big(b.embedding),
        head: big(b.output_head),
      }),
      source: "docs/model.md §Parameters",
    }),
  ];
  facts.push(...modelJobFacts(v, fact));
  facts.push(
    fact({
      key: "flops",
      label: t("f_flops"),
      value: big(model.flops_per_token?.model),
      formula: t("fx_flops", { model: n0(model.flops_per_token?.model), hw: n0(model.flops_per_token?.hardware) }),
      source: "PaLM (Chowdhery et al. 2022) appendix B; Narayanan et al. 2021 eq. 3",
    }),
  );
  patch($("model-facts"), ...facts);

  const gpu = v.gpu ?? {};
  setText($("gpu-title"), `${gpuName(gpu, "")} · ${t("peak", { v: n0(gpu.peak_tflops), p: String(gpu.precision ?? "").toUpperCase() })}`);
  const specs = gpu.specs && typeof gpu.specs === "object" ? Object.entries(gpu.specs) : [];
  const table = $("spec-table");
  // The table is the GPU's alone: rebuilt only when the GPU or the language changes.
  const specKey = `${L()}|${JSON.stringify(gpu.specs ?? null)}`;
  if (table.dataset.specKey === specKey && table.childElementCount) return;
  table.dataset.specKey = specKey;
  patch(table,
    el(
      "thead",
      {},
      el("tr", {}, el("th", { scope: "col", text: t("spec") }), el("th", { scope: "col", text: t("value") }), el("th", { scope: "col", text: t("confidence") })),
    ),
    el(
      "tbody",
      {},
      specs.filter(([, spec]) => spec && spec.value !== null && spec.value !== undefined).map(([key, spec]) => {
        const sourceId = String(spec?.source ?? "");
        const conf = String(spec?.confidence ?? "");
        return el(
          "tr",
          {},
          el("th", { scope: "row" }, el("details", { ontoggle: showSpecSource }, el("summary", { text: t(`spec_${key}`) === `spec_${key}` ? key : t(`spec_${key}`) }), el("p", { class: "source", dataset: { sourceId }, text: `${t("source")}: ${sourceId}` }))),
          el("td", { class: "num-cell", text: typeof spec?.value === "number" ? n1(spec.value, 3) : String(spec?.value ?? "—") }),
          el("td", {}, conf ? el("span", { class: `badge conf-${conf.replace(/[^a-z]/g, "")}`, text: t(`conf_${conf}`) === `conf_${conf}` ? conf : t(`conf_${conf}`) }) : null),
        );
      }),
    ),
  );
}

// A spec's source in full (spec-sources.js, from data/gpus.json), loaded when a reader
// first opens one: the first visit does not carry every accelerator's source texts.
let specSources = null;
async function showSpecSource(event) {
  const details = event.currentTarget;
  const p = details.querySelector(".source[data-source-id]");
  if (!details.open || !p) return;
  specSources ??= await import("./spec-sources.js").then((m) => m.SPEC_SOURCES, () => ({}));
  // The source's description is the catalog's citation, in English as data/gpus.json
  // keeps it (marked so, as a price's citation is).
  const id = p.dataset.sourceId;
  p.replaceChildren(`${t("source")}: `, citeEn(specSources[id] ?? id));
}

// Nothing fits (under the memory limit) on the GPUs asked for: from how many it would
// (search.fits_from, the core's oom_fix_gpus), with a button that asks for that many; or,
// when the scenario pins a layout that fits nowhere, the calculator's own layout
// (search.fits_with_layout_open, oom_fix_layout_*), with a button that leaves the layout
// open; or that no count would (oom_fix_none).
function renderFitNote(v) {
  const fix = (v.warnings ?? []).find((w) => /^oom_fix_/.test(w.code ?? ""));
  const note = $("fit-note");
  note.hidden = !fix;
  if (!fix) return;
  setText($("fit-text"), coreMessage(fix).text);
  const use = $("fit-use");
  const n = v.search?.fits_from?.gpus;
  const open = v.search?.fits_with_layout_open;
  use.hidden = !n && !open;
  use.dataset.gpus = n ? String(n) : open && fix.code === "oom_fix_layout_gpus" ? String(open.gpus) : "";
  use.dataset.action = n ? "gpus" : open ? "layout" : "";
  setText(use, n ? t("fit_use", { n: n0(n) }) : open ? t("fit_open_layout") : "");
}

// ---------------------------------------------------------------- warnings

function renderWarnings(v) {
  const warnings = Array.isArray(v.warnings) ? v.warnings : [];
  const defaults = Array.isArray(v.defaults_applied) ? v.defaults_applied : [];
  patch($("warnings"),
    ...warnings.map((w) => {
      const m = coreMessage(w);
      return el("li", { lang: m.translated ? undefined : "en", text: m.text });
    }),
  );
  patch($("defaults"),
    ...defaults.map((d) => {
      const m = coreMessage(d);
      return el("li", { lang: m.translated ? undefined : "en", text: `${t("default_applied")} ${m.text}` });
    }),
  );
  $("warnings-card").hidden = warnings.length + defaults.length === 0;
}

// The rule of thumb's arithmetic and why the full answer differs (q.why, a coded message).
function estimateText(q) {
  return t("estimate_explain", {
    params: F.fixed(L(), q.params_billion, 1),
    mem: n0(q.memory_gb),
    eff: F.fixed(L(), q.cluster_efficiency, 2),
    raw: F.fixed(L(), q.gpus_raw, 1),
    n: n0(q.gpus),
    why: coreMessage(q.why).text,
  });
}

// Each card below the headline is drawn again only when what it shows changed (its part
// of the answer, the language, or its coded messages' templates): an edit that moves the deadline but keeps the layout
// redraws the headline alone. (Nothing else writes into these cards.)
const drawn = new Map(); // card -> key of what is on screen
function draw(card, inputs, render, v) {
  const key = `${L()}|${messagesKey()}|${JSON.stringify(inputs)}`;
  if (drawn.get(card) === key) return;
  drawn.set(card, key);
  render(v);
}

export function renderAnswer(v, ctx) {
  renderHeadline(v, ctx);
  const s = v.search ?? {};
  draw("plan", [v.plan, s.layouts_evaluated, s.layouts_fitting, s.min_gpus_fit, s.fits_from?.gpus], renderPlan, v);
  draw("memory", [v.memory], renderMemory, v);
  draw("time", [v.performance, v.plan, v.training?.steps, v.training?.tokens, v.gpu?.peak_tflops, v.model?.flops_per_token], renderTime, v);
  draw("model", [v.model, v.gpu], renderModel, v);
  draw("warnings", [v.warnings, v.defaults_applied], renderWarnings, v);
}

// ---------------------------------------------------------------- curve & top layouts

// The curve's data table sits in a closed <details> until the reader opens it: its rows
// (a few hundred cells) are built then, not after every edit (curveTable holds the
// builder of the latest curve until it is drawn).
let curveTable = null;
function drawCurveTable() {
  const details = $("curve-table").closest("details");
  if (!details.dataset.wired) {
    details.dataset.wired = "1";
    details.addEventListener("toggle", drawCurveTable);
  }
  if (!curveTable || !details.open) return;
  curveTable();
  curveTable = null;
}

// The GPU-count curve chart and its legend into `box`, `width` px wide.
function drawCurve(box, curve, { width, chosen, target }) {
  const chosenPoint = curve.find((p) => p.gpus === chosen);
  const prev = box.firstElementChild?.matches("svg.curve-chart") ? box.firstElementChild : null;
  const chart = curveChart(curve, {
    key: `${L()}|${messagesKey()}`,
    width,
    chosen,
    targetDays: target,
    label: t("curve_aria", { n: curve.length, min: n0(curve[0].gpus), max: n0(curve[curve.length - 1].gpus) }),
    fmt: {
      gpus: (g) => (g >= 10000 ? big(g) : n0(g)),
      days: (d) => n1(d, d < 1 ? 2 : d < 10 ? 1 : 0),
      hours: (h) => big(h),
      point: (p) =>
        t("curve_point", { n: n0(p.gpus), days: n1(p.days), h: big(p.gpu_hours), plan: p.plan ? planText(p.plan) : "" }),
    },
    text: {
      x: t("curve_x"),
      days: t("curve_days"),
      hours: t("curve_hours"),
      target: t("curve_target", { v: n1(target) }),
      chosen: chosenPoint ? t("curve_chosen", { n: n0(chosen), days: n1(chosenPoint.days) }) : "",
    },
  }, prev);
  patch(box,
    chart,
    curveLegend({
      pareto: t("legend_pareto"),
      other: t("legend_other"),
      chosenLegend: t("legend_chosen"),
      targetLegend: t("legend_target"),
    }),
  );
}

export function renderExplore(x, answer, ctx) {
  const chosen = answer?.plan?.gpus;
  const all = Array.isArray(x?.curve) ? x.curve.filter((p) => p && p.gpus > 0) : [];
  // Past twice the largest Pareto count, more GPUs only cost more: not drawn (the table keeps them).
  const lastFront = Math.max(0, ...all.filter((p) => p.pareto).map((p) => p.gpus), chosen ?? 0);
  const curve = lastFront ? all.filter((p) => p.gpus <= 2 * lastFront) : all;
  const top = Array.isArray(x?.top) ? x.top : [];
  const target = answer?.search?.target_days ?? null;

  const card = $("curve-card");
  if (curve.length >= 2) {
    const box = $("curve");
    // ctx.width: the box's width as its ResizeObserver last reported it (app.js), 0 before
    // the first report. The chart then waits for that report (app.js draws it from the
    // observer's callback, which runs after the page's first layout and before its first
    // paint) rather than read clientWidth here: that would lay the whole page out in the
    // middle of its first update, once more than needed (~60 ms of the page's start-up
    // on the CI machine; docs/performance-model.md "Seventeenth session").
    const width = ctx.width;
    if (width > 0) drawCurve(box, curve, { width, chosen, target });
    box.dataset.points = String(all.length);
    setText($("curve-note"), x.source === "search" ? t("curve_note_search") : t("curve_note_sweep"));
    const table = $("curve-table");
    curveTable = () => patch(table,
      el(
        "thead",
        {},
        el("tr", {}, [t("f_gpus"), t("th_days"), t("f_gpu_hours"), t("layout"), t("pareto")].map((h) => el("th", { scope: "col", text: h }))),
      ),
      el(
        "tbody",
        {},
        all.map((p) =>
          el(
            "tr",
            { class: p.gpus === chosen ? "chosen" : undefined },
            el("td", { class: "num-cell", text: n0(p.gpus) }),
            el("td", { class: "num-cell", text: n1(p.days) }),
            el("td", { class: "num-cell", text: n0(p.gpu_hours) }),
            el("td", { text: p.plan ? planText(p.plan) : "" }),
            el("td", { text: p.pareto ? "✓" : "" }),
          ),
        ),
      ),
    );
    drawCurveTable();
    card.hidden = false;
  } else card.hidden = true;

  const topCard = $("top-card");
  if (top.length > 0) {
    // Drawn again only when what it shows changed: a deadline edit that keeps the GPU count
    // keeps its rows.
    draw("top", [top, chosen, answer?.plan, x.source], () => drawTop(top, chosen, answer, x.source));
    topCard.hidden = false;
  } else topCard.hidden = true;
}

// The top layouts at the answer's GPU count, as a table, and its note.
function drawTop(top, chosen, answer, source) {
  const same = (p) => answer && ["tp", "pp", "dp", "cp", "vpp", "micro_batch", "zero_stage", "recompute"].every((k) => p[k] === answer.plan?.[k]);
  const varies = (k) => new Set(top.map((e) => e.plan?.[k])).size > 1 || top.some((e) => (e.plan?.[k] ?? 1) !== 1);
  const cols = [
    ["#", (e, i) => i + 1, true],
    ["TP", (e) => e.plan.tp, true],
    ["PP", (e) => e.plan.pp, true],
    ["VPP", (e) => e.plan.vpp ?? 1, varies("vpp")],
    ["DP", (e) => n0(e.plan.dp), true],
    ["CP", (e) => e.plan.cp ?? 1, varies("cp")],
    ["EP", (e) => e.plan.ep ?? 1, varies("ep")],
    [t("micro_batch"), (e) => e.plan.micro_batch, true],
    ["ZeRO", (e) => e.plan.zero_stage, true],
    [t("th_recompute"), (e) => (e.plan.recompute !== undefined ? t(`recompute_${e.plan.recompute}`) : ""), true, "text"],
    [t("th_memory"), (e) => gib(e.memory?.total_bytes), true],
    [t("th_step"), (e) => F.seconds(L(), e.performance?.step_time_s), true],
    ["MFU", (e) => pct(e.performance?.mfu), true],
    [t("th_days"), (e) => n1(e.training?.days), true],
  ].filter((c) => c[2]);
  const table = $("top-table");
  patch(table,
    el("caption", { class: "sr-only", text: t("top_caption", { n: n0(chosen) }) }),
    el("thead", {}, el("tr", {}, cols.map(([h]) => el("th", { scope: "col", text: h })))),
    el(
      "tbody",
      {},
      top.map((e, i) =>
        el(
          "tr",
          { class: same(e.plan ?? {}) ? "chosen" : undefined },
          cols.map(([, get, , kind]) => el("td", { class: kind === "text" ? undefined : "num-cell", text: get({ ...e, plan: e.plan ?? {} }, i) })),
        ),
      ),
    ),
  );
  setText($("top-note"), source === "search" ? t("top_note_search", { n: n0(chosen) }) : t("top_note_sweep", { n: n0(chosen) }));
}

export function hideExplore() {
  $("curve-card").hidden = true;
  $("top-card").hidden = true;
}
