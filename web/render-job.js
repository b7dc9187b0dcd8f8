// What the answer says about the job itself: a MoE model's active parameters beside its
// total, the parameters a LoRA/QLoRA run trains, and the host (CPU) memory that offloaded
// or paged states take per GPU. render.js places these; every value is set as text.
import { el } from "./dom.js";
import * as F from "./format.js";
import { lang, t } from "./i18n.js";

const L = () => lang();
const big = (v) => F.big(L(), v);
const n0 = (v) => F.int(L(), v);
const pct = (v) => F.pct(L(), v, v < 0.01 ? 2 : 1);
const finite = (v) => typeof v === "number" && Number.isFinite(v);

const stageOf = (scenario) => scenario?.training?.stage ?? "pretrain";
const activeOf = (model) => (finite(model?.active_params) && finite(model?.params) && model.active_params < model.params ? model.active_params : null);
const trainableOf = (model) =>
  finite(model?.trainable_params) && finite(model?.params) && model.trainable_params < model.params ? model.trainable_params : null;

// The subline's job part: "671B total, 37B active" · "QLoRA r 16: 42M trainable (0.52%)".
export function jobSubline(v, scenario) {
  const model = v?.model ?? {};
  const parts = [];
  const active = activeOf(model);
  if (active !== null) parts.push(t("sub_active", { total: big(model.params), active: big(active) }));
  const stage = stageOf(scenario);
  const trainable = trainableOf(model);
  if (stage === "lora" || stage === "qlora") {
    const rank = scenario?.training?.lora?.rank ?? 16;
    parts.push(
      trainable !== null
        ? t("sub_adapter_trainable", { job: t(`opt_${stage}`), r: rank, n: big(trainable), pct: pct(trainable / model.params) })
        : t("sub_adapter", { job: t(`opt_${stage}`), r: rank }),
    );
  } else if (stage === "full_finetune") parts.push(t("opt_full_finetune"));
  return parts.join(" · ");
}

// A fact for the headline row: what the run trains, when that is not every parameter.
export function jobHeadlineFacts(v, fact) {
  const model = v?.model ?? {};
  const trainable = trainableOf(model);
  if (trainable === null) return [];
  return [
    fact({
      key: "trainable",
      label: t("f_trainable"),
      value: big(trainable),
      sub: t("of_params", { pct: pct(trainable / model.params), total: big(model.params) }),
      formula: t("fx_trainable", { n: n0(trainable), total: n0(model.params) }),
      source: "Hu et al. 2021 (LoRA) §4.1; Dettmers et al. 2023 (QLoRA) §3",
    }),
  ];
}

// The model card's facts after the parameter count: active and trainable parameters.
export function modelJobFacts(v, fact) {
  const model = v?.model ?? {};
  const out = [];
  const active = activeOf(model);
  if (active !== null) {
    out.push(
      fact({
        key: "active",
        label: t("f_active"),
        value: big(active),
        sub: t("of_params", { pct: pct(active / model.params), total: big(model.params) }),
        formula: t("fx_active", { n: n0(active), total: n0(model.params) }),
        source: "Fedus et al. 2022 (Switch) §2; DeepSeek-V3 report §2.1; docs/model.md",
      }),
    );
  }
  out.push(...jobHeadlineFacts(v, fact));
  return out;
}

// Host (CPU) memory per GPU, when offloaded or paged states live there.
export function hostMemoryNote(mem) {
  const host = mem?.host_bytes;
  if (!(finite(host) && host > 0)) return null;
  return el("p", { class: "host-mem", dataset: { key: "host" } }, el("span", { class: "swatch c-host", "aria-hidden": "true" }), el("span", { text: t("mem_host", { v: F.gib(L(), host) }) }));
}
