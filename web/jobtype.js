// The job on the Quick form: what is trained (training.stage: pre-training, full
// fine-tuning, LoRA, QLoRA, with training.lora), how (training.optimizer,
// master_weights, offload), on how much data (training.tokens, or training.dataset:
// samples × average length × epochs) and, for MoE models, the expert-parallel degree
// (parallel.ep). Also what the Expert form asks to know which fields apply, and the
// model list's labels ("DeepSeek-V3 · 671B (37B active)").
// Every field writes the scenario format (docs/scenario-format.md); the core checks it.
import { $, el, setText } from "./dom.js";
import * as F from "./format.js";
import { dataValue, lang, t } from "./i18n.js";
import { modelById } from "./presets.js";
import { baseOf, exactAmount, setPath } from "./schema.js";

export const STAGES = ["pretrain", "full_finetune", "lora", "qlora"];
// training.framework: whose memory profile (docs/memory-model.md §7); torchtitan has no LoRA recipe.
const FRAMEWORKS = ["megatron", "torchtitan", "deepspeed", "hf", "torchtune"];
export const OPTIMIZERS = ["adamw", "adam8bit", "sgd", "lion", "adafactor", "muon"];
export const LORA_TARGETS = ["q", "k", "v", "o", "gate", "up", "down"];
const ADAPTER = new Set(["lora", "qlora"]);
const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// ---------------------------------------------------------------- what applies

// The model as far as the page knows it before the core answers: the preset (catalog.js)
// with the scenario's own fields over it.
export function modelInfo(scenario) {
  const m = scenario?.model;
  const shape = modelById(baseOf(m))?.shape ?? {};
  const own = isObj(m) ? m : {};
  const moe = own.moe === null ? null : isObj(own.moe) ? { ...(shape.moe ?? {}), ...own.moe } : (shape.moe ?? null);
  const attention = isObj(own.attention) ? { ...(shape.attention ?? {}), ...own.attention } : (shape.attention ?? null);
  const act = own.ffn_act ?? shape.ffn_act ?? "swiglu";
  return { moe: isObj(moe) ? moe : null, mla: attention?.type === "mla", gated: act !== "gelu" };
}

export function stageOf(scenario) {
  const s = scenario?.training?.stage;
  return STAGES.includes(s) ? s : "pretrain";
}

// The framework the core runs when the scenario names none (core/src/scenario.cpp
// read_stack): Transformers + PEFT + bitsandbytes for QLoRA, Megatron otherwise.
export const defaultFramework = (stage) => (stage === "qlora" ? "hf" : "megatron");
const frameworkOf = (scenario) => scenario?.training?.framework ?? defaultFramework(stageOf(scenario));

// The layout left to the calculator (the core's oom_fix_layout_*: the one the scenario
// pins fits nowhere): its parallel factors, micro-batch, ZeRO stage and recomputation
// dropped; `gpus`, when given, the count the core found it fits from.
export function openLayout(s, gpus) {
  const par = isObj(s.parallel) ? s.parallel : (s.parallel = {});
  for (const k of ["tp", "pp", "dp", "cp", "ep", "etp", "vpp", "shard", "first_stage_layers", "last_stage_layers"]) delete par[k];
  if (gpus > 0) par.gpus = gpus;
  if (isObj(s.training)) for (const k of ["micro_batch", "zero_stage", "recompute", "recompute_modules"]) delete s.training[k];
}

// What a framework cannot run (core/src/plan.cpp check_framework), cleared so the search
// picks it instead of the core refusing: Hugging Face and torchtune have no pipeline and
// checkpoint whole layers; DeepSpeed's pipeline takes ZeRO 0-1 and no interleaving.
// True when something was cleared.
function fitFramework(tr, par, fw) {
  const before = JSON.stringify([tr, par]);
  if (fw === "hf" || fw === "torchtune") {
    if (par.pp > 1) delete par.pp;
    delete par.vpp;
    delete par.first_stage_layers;
    delete par.last_stage_layers;
    if (tr.recompute === "selective") delete tr.recompute;
    delete tr.recompute_modules;
  } else if (fw === "deepspeed") {
    if (par.vpp > 1) delete par.vpp;
    if (par.pp > 1 && tr.zero_stage >= 2) delete tr.zero_stage;
  }
  return JSON.stringify([tr, par]) !== before;
}

// Flags for the Expert form's `show` keys (schema.js): a field shows when its flag
// holds, or when the scenario sets it anyway (so it can be seen and cleared).
export function relevance(scenario) {
  const info = modelInfo(scenario);
  const stage = stageOf(scenario);
  return {
    moe: info.moe !== null,
    mla: info.mla,
    lora: ADAPTER.has(stage),
    qlora: stage === "qlora",
    // PEFT's fp32 upcast of a 4-bit base (training.lora.fp32_upcast) is the hf profile's.
    qlora_hf: stage === "qlora" && frameworkOf(scenario) === "hf",
    finetune: stage !== "pretrain" || scenario?.training?.dataset !== undefined,
  };
}

// LoRA's default targets: every linear of the block (no gate in a GELU MLP).
export const defaultTargets = (info) => LORA_TARGETS.filter((x) => info.gated || x !== "gate");

// After the model changed: drop what the new model cannot take (EP on a dense model,
// a LoRA gate target on a GELU MLP), so the change alone never makes an error.
export function adaptToModel(s) {
  const info = modelInfo(s);
  if (!info.moe) setPath(s, "/parallel/ep", undefined);
  const targets = s.training?.lora?.targets;
  if (!info.gated && Array.isArray(targets) && targets.includes("gate")) {
    const left = targets.filter((x) => x !== "gate");
    setPath(s, "/training/lora/targets", left.length && left.length < defaultTargets(info).length ? left : undefined);
  }
}

// ---------------------------------------------------------------- model list labels

// "DeepSeek-V3 · 671B (37B active)" for a MoE preset (total and active parameters as
// published, data/models.json); the preset's own name otherwise.
export function modelLabel(m) {
  const total = m?.shape?.published_params ?? m?.params;
  const active = m?.shape?.published_active_params;
  if (!(total > 0 && active > 0 && active < total)) return m?.label ? dataValue("model", m.label) : "";
  const name = String(m.label).replace(/\s*\([^)]*\)/g, "").trim();
  return t("moe_label", { name, total: F.big(lang(), total), active: F.big(lang(), active) });
}

// ---------------------------------------------------------------- quick form

let api = null;
let stash = null; // the last LoRA settings, restored when coming back to LoRA/QLoRA
let optionsLang = "";
let jobNote = ""; // what a job change adjusted (precision, framework), said once

const setInput = (input, value, force, kind = "num") => {
  if (!force && document.activeElement === input) return;
  input.value = value === undefined || value === null ? "" : kind === "amount" && typeof value === "number" ? exactAmount(value, lang()) : String(value);
};

function datasetTokens(ds) {
  if (!isObj(ds)) return NaN;
  const n = ds.samples;
  const len = ds.avg_tokens;
  const ep = ds.epochs ?? 1;
  return [n, len, ep].every((x) => typeof x === "number" && x > 0) ? n * len * ep : NaN;
}

// The packed documents' length for a dataset's samples: their average length, at most
// the sequence (a sample as long as the sequence is not packed with others).
function packedLength(sc) {
  const tr = isObj(sc.training) ? sc.training : {};
  const len = isObj(tr.dataset) ? tr.dataset.avg_tokens : undefined;
  const seq = tr.seq_len > 0 ? tr.seq_len : undefined;
  if (!(typeof len === "number" && len > 0)) return undefined;
  return Math.max(1, Math.round(seq ? Math.min(len, seq) : len));
}

function fillOptimizers() {
  if (optionsLang === lang()) return;
  optionsLang = lang();
  $("q-optimizer").replaceChildren(...OPTIMIZERS.map((o) => el("option", { value: o, text: t(`opt_${o}`) })));
  $("q-framework").replaceChildren(...FRAMEWORKS.map((f) => el("option", { value: f, text: t(`opt_${f}`) })));
}

export function populateJob(scenario, answer, force = false) {
  if (!$("q-job-field")) return;
  fillOptimizers();
  const tr = isObj(scenario.training) ? scenario.training : {};
  const stage = stageOf(scenario);
  const info = modelInfo(scenario);
  for (const s of STAGES) $(`q-job-${s}`).checked = s === stage;
  $("q-job-field").dataset.stage = stage;
  setText($("q-job-hint"), [jobNote, t(`q_job_${stage}_hint`)].filter(Boolean).join(" "));
  const plan = answer?.plan ?? {};

  // Expert parallelism: MoE models only.
  const ep = scenario.parallel?.ep;
  $("q-ep-field").hidden = !info.moe && ep === undefined;
  setInput($("q-ep"), ep, force);
  $("q-ep").placeholder = plan.ep ? t("q_ep_chosen", { v: plan.ep }) : t("q_ep_ph");
  setText(
    $("q-ep-hint"),
    info.moe ? t("q_ep_hint", { experts: info.moe.experts ?? "?", k: info.moe.top_k ?? "?", per: plan.ep && info.moe.experts ? F.int(lang(), info.moe.experts / plan.ep) : "…" }) : "",
  );

  // LoRA / QLoRA.
  const lora = isObj(tr.lora) ? tr.lora : {};
  $("q-lora").hidden = !ADAPTER.has(stage) && tr.lora === undefined;
  setInput($("q-lora-rank"), lora.rank, force);
  setInput($("q-lora-alpha"), lora.alpha, force);
  const targets = Array.isArray(lora.targets) ? lora.targets : defaultTargets(info);
  for (const box of document.querySelectorAll("#q-lora-targets input[type=checkbox]")) {
    box.checked = targets.includes(box.value);
    box.closest("label").hidden = box.value === "gate" && !info.gated && !targets.includes("gate");
  }
  $("q-qlora").hidden = stage !== "qlora" && lora.double_quant === undefined && lora.paged_optimizer === undefined;
  $("q-qlora-dq").checked = lora.double_quant !== false;
  $("q-qlora-paged").checked = lora.paged_optimizer === true;

  // Optimizer, master weights, offload.
  const opt = tr.optimizer ?? "adamw";
  const select = $("q-optimizer");
  if (![...select.options].some((o) => o.value === String(opt))) select.append(el("option", { value: String(opt), text: String(opt) }));
  select.value = String(opt);
  $("q-framework").value = frameworkOf(scenario);
  $("q-master").checked = tr.master_weights !== false;
  const off = isObj(tr.offload) ? tr.offload : {};
  $("q-off-opt").checked = off.optimizer === true;
  $("q-off-params").checked = off.params === true;
  const offText = [off.optimizer ? t("q_off_opt_short") : null, off.params ? t("q_off_params_short") : null].filter(Boolean).join(" + ");
  setText(
    $("q-opt-summary"),
    t("q_opt_summary", {
      opt: t(`opt_${opt}`) === `opt_${opt}` ? String(opt) : t(`opt_${opt}`),
      master: t(tr.master_weights === false ? "q_master_off" : "q_master_on"),
      offload: offText ? t("q_offload_to", { what: offText }) : t("q_offload_none"),
    }),
  );

  // Tokens, or samples × average length × epochs.
  const dataset = isObj(tr.dataset) ? tr.dataset : null;
  $("q-tokens-mode").hidden = stage === "pretrain" && !dataset;
  $("q-tm-tokens").checked = !dataset;
  $("q-tm-dataset").checked = Boolean(dataset);
  $("q-tokens").hidden = Boolean(dataset);
  $("q-dataset").hidden = !dataset;
  // Packed samples (training.packed_document_tokens, kept at the average sample length).
  $("q-pack-field").hidden = !dataset;
  $("q-ds-pack").checked = tr.packed_document_tokens !== undefined;
  if (dataset) {
    setInput($("q-ds-samples"), dataset.samples, force, "amount");
    setInput($("q-ds-len"), dataset.avg_tokens, force);
    setInput($("q-ds-epochs"), dataset.epochs, force);
    const tokens = datasetTokens(dataset);
    setText($("q-ds-hint"), Number.isFinite(tokens) ? t("q_ds_result", { tokens: F.big(lang(), tokens), exact: F.int(lang(), tokens) }) : t("q_ds_hint"));
    setText($("q-tokens-hint"), "");
  }
}

// api: {edit(mutate), setClientError(path, message|null), evaluateNow(), scenario(), answer()}
export function wireJob(a) {
  api = a;
  if (!$("q-job-field")) return;

  for (const stage of STAGES) {
    $(`q-job-${stage}`).addEventListener("change", () => {
      if (!$(`q-job-${stage}`).checked) return;
      clearClient("/training/lora");
      api.edit((s) => {
        let note = "";
        const tr = isObj(s.training) ? s.training : (s.training = {});
        if (ADAPTER.has(stageOf(s)) && isObj(tr.lora)) stash = structuredClone(tr.lora);
        tr.stage = stage;
        if (!ADAPTER.has(stage)) delete tr.lora;
        else {
          if (tr.lora === undefined && stash) tr.lora = structuredClone(stash);
          if (stage !== "qlora" && isObj(tr.lora)) {
            delete tr.lora.double_quant;
            delete tr.lora.paged_optimizer;
          }
          if (isObj(tr.lora) && Object.keys(tr.lora).length === 0) delete tr.lora;
          // What the core refuses with adapters, set to what it takes instead (and said).
          if (stage === "qlora" && tr.precision === "fp8") {
            tr.precision = "bf16";
            note = t("q_job_fp8");
          }
          // NVFP4 is a pre-training / full fine-tuning recipe: adapters run in bf16.
          if (tr.precision === "fp4") {
            tr.precision = "bf16";
            note = t("q_job_fp4");
          }
          if (tr.framework === "torchtitan") {
            delete tr.framework;
            note = [note, t(stage === "qlora" ? "q_job_titan_hf" : "q_job_titan")].filter(Boolean).join(" ");
          }
        }
        // QLoRA's default framework is hf: clear what it cannot run, as choosing it would.
        const par = isObj(s.parallel) ? s.parallel : {};
        if (tr.framework === undefined && fitFramework(tr, par, defaultFramework(stage)))
          note = [note, t("q_job_framework")].filter(Boolean).join(" ");
        jobNote = note;
      });
    });
  }

  const number = (input, path) =>
    input.addEventListener("input", () => {
      const text = input.value.trim();
      if (text === "") {
        api.setClientError(path, null);
        api.edit((s) => setPath(s, path, undefined));
        return;
      }
      const v = F.parseAmount(text);
      if (!Number.isFinite(v)) {
        api.setClientError(path, t("need_number"));
        api.evaluateNow();
        return;
      }
      api.setClientError(path, null);
      api.edit((s) => setPath(s, path, v));
    });
  number($("q-lora-rank"), "/training/lora/rank");
  number($("q-lora-alpha"), "/training/lora/alpha");
  number($("q-ep"), "/parallel/ep");

  $("q-lora-targets").addEventListener("change", () => {
    const picked = [...document.querySelectorAll("#q-lora-targets input[type=checkbox]")].filter((b) => b.checked).map((b) => b.value);
    api.edit((s) => {
      const all = defaultTargets(modelInfo(s));
      const same = picked.length === all.length && all.every((x) => picked.includes(x));
      // None ticked is sent as []: the core says at the field why that cannot be.
      setPath(s, "/training/lora/targets", same ? undefined : picked);
    });
  });
  $("q-qlora-dq").addEventListener("change", () => api.edit((s) => setPath(s, "/training/lora/double_quant", $("q-qlora-dq").checked ? undefined : false)));
  $("q-qlora-paged").addEventListener("change", () => api.edit((s) => setPath(s, "/training/lora/paged_optimizer", $("q-qlora-paged").checked ? true : undefined)));
  $("q-optimizer").addEventListener("change", () => api.edit((s) => setPath(s, "/training/optimizer", $("q-optimizer").value)));
  // What the new framework cannot run is left to the search instead of refused (and said).
  $("q-framework").addEventListener("change", () =>
    api.edit((s) => {
      const fw = $("q-framework").value;
      setPath(s, "/training/framework", fw === defaultFramework(stageOf(s)) ? undefined : fw);
      const tr = isObj(s.training) ? s.training : {};
      const par = isObj(s.parallel) ? s.parallel : {};
      jobNote = fitFramework(tr, par, fw) ? t("q_job_framework") : "";
    }),
  );
  $("q-master").addEventListener("change", () => api.edit((s) => setPath(s, "/training/master_weights", $("q-master").checked ? undefined : false)));
  $("q-off-opt").addEventListener("change", () => api.edit((s) => setPath(s, "/training/offload/optimizer", $("q-off-opt").checked ? true : undefined)));
  $("q-off-params").addEventListener("change", () => api.edit((s) => setPath(s, "/training/offload/params", $("q-off-params").checked ? true : undefined)));

  // Tokens ↔ dataset: switching keeps the token count (a dataset of seq_len-long samples,
  // one epoch), so the answer does not jump until the numbers are edited.
  $("q-tm-dataset").addEventListener("change", () => {
    if (!$("q-tm-dataset").checked) return;
    const s = api.scenario();
    const seq = s.training?.seq_len > 0 ? s.training.seq_len : 2048;
    const tokens = s.training?.tokens > 0 ? s.training.tokens : (api.answer()?.training?.tokens ?? 1e9);
    const round3 = (x) => Number(x.toPrecision(3)); // 488K samples, not 488,281
    const ds = { samples: Math.max(1, round3(Math.round(tokens / seq))), avg_tokens: seq, epochs: 1 };
    api.setClientError("/training/tokens", null);
    api.edit((sc) => {
      const tr = isObj(sc.training) ? sc.training : (sc.training = {});
      delete tr.tokens;
      tr.dataset = ds;
    });
    populateJob(api.scenario(), api.answer(), true);
  });
  $("q-tm-tokens").addEventListener("change", () => {
    if (!$("q-tm-tokens").checked) return;
    const s = api.scenario();
    const got = datasetTokens(s.training?.dataset);
    const tokens = Math.round(Number.isFinite(got) ? got : (api.answer()?.training?.tokens ?? 1e9));
    clearClient("/training/dataset");
    api.edit((sc) => {
      const tr = isObj(sc.training) ? sc.training : (sc.training = {});
      delete tr.dataset;
      delete tr.packed_document_tokens; // packing is said of the dataset's samples
      tr.tokens = tokens;
    });
    $("q-tokens").value = exactAmount(tokens, lang());
  });
  for (const [id, key] of [
    ["q-ds-samples", "samples"],
    ["q-ds-len", "avg_tokens"],
    ["q-ds-epochs", "epochs"],
  ]) {
    const input = $(id);
    const path = `/training/dataset/${key}`;
    input.addEventListener("input", () => {
      const text = input.value.trim();
      const v = text === "" ? undefined : F.parseAmount(text);
      if (v !== undefined && !Number.isFinite(v)) {
        api.setClientError(path, t("need_number"));
        api.evaluateNow();
        return;
      }
      api.setClientError(path, null);
      // The dataset object stays while in this mode (even emptied: the core then names
      // the missing field).
      api.edit((s) => {
        const tr = isObj(s.training) ? s.training : (s.training = {});
        const ds = isObj(tr.dataset) ? { ...tr.dataset } : {};
        if (v === undefined) delete ds[key];
        else ds[key] = v;
        delete tr.tokens;
        tr.dataset = ds;
        if (tr.packed_document_tokens !== undefined) {
          const d = packedLength(s);
          if (d !== undefined) tr.packed_document_tokens = d;
        }
      });
    });
  }
  $("q-ds-pack").addEventListener("change", () =>
    api.edit((s) => {
      const tr = isObj(s.training) ? s.training : (s.training = {});
      const d = $("q-ds-pack").checked ? packedLength(s) : undefined;
      if (d === undefined) delete tr.packed_document_tokens;
      else tr.packed_document_tokens = d;
    }),
  );
}

function clearClient(prefix) {
  for (const p of [
    "/training/lora/rank",
    "/training/lora/alpha",
    "/training/dataset/samples",
    "/training/dataset/avg_tokens",
    "/training/dataset/epochs",
  ]) {
    if (p.startsWith(prefix)) api.setClientError(p, null);
  }
}
