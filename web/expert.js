// The Expert form: every field of the scenario format the form offers, generated from
// data/scenario-schema.json through schema.js; each hint is the schema's docs text.
// Blank = absent; the hint under each field says what the calculator uses instead
// (a documented default, the preset's value, or what it chose in the last answer).
import { el } from "./dom.js";
import { parseAmount } from "./format.js";
import { addStrings, dataValue, has, lang, t } from "./i18n.js";
import { GPUS, MODELS, gpuById, modelById } from "./presets.js";
import { GROUPS, baseOf, docOf, docsLoaded, getPath, loadDocs, overridesOf, textOf } from "./schema.js";
import { modelInfo, modelLabel, relevance } from "./jobtype.js";

// The form's own strings (each group's help, what a blank field means), in both
// languages: they travel with the form, which a first visit does not load.
const TEXT = {
  en: {
    gh_moe: "Mixture of experts (model.moe) and multi-head latent attention (model.attention); blank = the preset's.",
    gh_job: "Pre-training or fine-tuning, LoRA/QLoRA adapters, and a fine-tuning dataset instead of a token count.",
    gh_memory: "Optimizer states, FP32 master weights, and ZeRO-Offload / ZeRO-Infinity to CPU memory.",
    gh_model: "A preset, or a preset with fields overridden, or a full custom shape.",
    gh_gpu: "A catalog GPU, or one with specs overridden; a custom GPU needs memory and BF16 peak.",
    gh_training: "What is trained and how.",
    gh_parallel: "Fix any of these; the rest are searched. gpus = tp × pp × dp × cp.",
    gh_target: "With a deadline, the answer is the fewest GPUs that finish in time.",
    gh_assume: "Override the model's efficiency and runtime overheads.",
    gh_about: "Informational; shown in the answer and kept in links and files.",
    def_required: "Required",
    def_preset: "Preset: {v}",
    def_catalog: "Catalog: {v}",
    def_none: "Not set",
    def_none_days: "No deadline",
    def_none_mfu: "Predicted by the time model",
    def_none_hfu: "The GPU's efficiency",
    def_none_max_position_embeddings: "Needed only with learned positions",
    def_none_tokens: "Required, unless a dataset is given",
    def_none_experts: "Dense (no experts)",
    def_none_top_k: "Needed with experts",
    def_none_expert_ffn_hidden: "Needed with experts",
    def_none_capacity_factor: "Dropless (no capacity limit)",
    def_none_first_stage_layers: "Even split",
    def_none_last_stage_layers: "Even split",
    def_none_kv_lora_rank: "Needed with MLA",
    def_none_qk_nope_head_dim: "Needed with MLA",
    def_none_qk_rope_head_dim: "Needed with MLA",
    def_none_v_head_dim: "Needed with MLA",
    def_none_pcie_gbs: "PCIe 4.0/5.0 x16 by GPU, NVLink-C2C on Grace",
    def_none_host_memory_bw_gbs: "The core's default share of host DRAM bandwidth",
    def_none_packed_document_tokens: "One document per sequence",
    def_none_cuda_graphs: "Not stated: the measured runs' mix",
    def_chosen: "Chosen: {v}",
    def_chosen_pending: "Chosen by the calculator",
    def_fallback: "Default: {v}",
    def_value: "Default: {v}",
  },
  zh: {
    gh_moe: "混合专家（model.moe）与多头潜在注意力（model.attention）；留空即用预设的值。",
    gh_job: "预训练或微调、LoRA/QLoRA 适配器，以及用微调数据集代替 token 数。",
    gh_memory: "优化器状态、FP32 主权重，以及 ZeRO-Offload / ZeRO-Infinity 卸载到 CPU 内存。",
    gh_model: "预设、在预设上改动部分字段，或完整的自定义结构。",
    gh_gpu: "目录中的 GPU，或改动部分规格；自定义 GPU 至少需要显存与 BF16 峰值。",
    gh_training: "训练什么、怎么训练。",
    gh_parallel: "可固定任意几项，其余由计算器搜索。gpus = tp × pp × dp × cp。",
    gh_target: "设了截止天数，结果就是按期完成的最少 GPU。",
    gh_assume: "覆盖效率与运行时开销的默认值。",
    gh_about: "说明性字段，会显示在结果中并保留在链接与文件里。",
    def_required: "必填",
    def_preset: "预设：{v}",
    def_catalog: "目录：{v}",
    def_none: "未设置",
    def_none_days: "不设截止",
    def_none_mfu: "由时间模型预测",
    def_none_hfu: "取该 GPU 的效率",
    def_none_max_position_embeddings: "仅可学习位置编码需要",
    def_none_tokens: "必填，除非给出数据集",
    def_none_experts: "稠密模型（无专家）",
    def_none_top_k: "有专家时必填",
    def_none_expert_ffn_hidden: "有专家时必填",
    def_none_capacity_factor: "不丢 token（无容量上限）",
    def_none_first_stage_layers: "均匀切分",
    def_none_last_stage_layers: "均匀切分",
    def_none_kv_lora_rank: "MLA 时必填",
    def_none_qk_nope_head_dim: "MLA 时必填",
    def_none_qk_rope_head_dim: "MLA 时必填",
    def_none_v_head_dim: "MLA 时必填",
    def_none_pcie_gbs: "按 GPU：PCIe 4.0/5.0 x16，Grace 上为 NVLink-C2C",
    def_none_host_memory_bw_gbs: "内核默认的主机内存带宽份额",
    def_none_packed_document_tokens: "每个序列一条文档",
    def_none_cuda_graphs: "未说明：按实测运行的混合计",
    def_chosen: "计算器选择：{v}",
    def_chosen_pending: "由计算器选择",
    def_fallback: "默认：{v}",
    def_value: "默认：{v}",
  },
};
for (const [code, strings] of Object.entries(TEXT)) addStrings(code, strings);

const OPEN_GROUPS = new Set(["model", "gpu", "training", "target"]);
// The field's hint: the schema's docs text in the page's language (loaded with the form).
const docFor = (field) => docOf(field.path, lang());
const idFor = (path) => `f${path.replace(/[^a-z0-9]+/gi, "-")}`;
const keyOf = (path) => path.slice(1);

function presetOptions(select, items, groupKey, labelOf = (x) => x.label) {
  select.replaceChildren();
  select.append(el("option", { value: "", text: t("custom_option") }));
  const groups = [...new Set(items.map((x) => x[groupKey] || "—"))];
  for (const name of groups) {
    const group = el("optgroup", { label: name });
    for (const x of items.filter((y) => (y[groupKey] || "—") === name)) group.append(el("option", { value: x.id, text: labelOf(x) }));
    select.append(group);
  }
}

export class ExpertForm {
  constructor(container, { onEdit }) {
    this.container = container;
    this.onEdit = onEdit;
    this.controls = new Map(); // path -> {field, input, hint, error, wrap}
    this.build();
  }

  build() {
    const nodes = [];
    for (const group of GROUPS) {
      const body = el("div", { class: "group-body" });
      for (const field of group.fields) body.append(this.row(field));
      const details = el(
        "details",
        { class: "group", dataset: { group: group.id }, open: OPEN_GROUPS.has(group.id) },
        el("summary", {}, el("span", { class: "group-title", dataset: { i18n: `g_${group.id}` }, text: t(`g_${group.id}`) }), el("code", { class: "group-key", text: group.key ?? (group.id === "about" ? "name, description" : group.id) })),
        el("p", { class: "hint group-help", dataset: { i18n: `gh_${group.id}` }, text: t(`gh_${group.id}`) }),
        body,
      );
      nodes.push(details);
    }
    this.container.replaceChildren(...nodes);
  }

  row(field) {
    const id = idFor(field.path);
    const hintId = `${id}-hint`;
    const errId = `${id}-err`;
    let input;
    const common = { id, "aria-describedby": `${hintId} ${errId}`, dataset: { path: field.path } };
    if (field.kind === "multi") return this.multiRow(field, id, hintId, errId);
    if (field.kind === "model-preset" || field.kind === "gpu-preset") {
      input = el("select", common);
    } else if (field.kind === "enum" || field.kind === "bool") {
      input = el("select", common);
    } else {
      input = el("input", {
        ...common,
        type: "text",
        inputmode: field.kind === "text" ? undefined : field.kind === "int" ? "numeric" : "decimal",
        spellcheck: "false",
        maxlength: field.kind === "text" ? 200 : 40,
      });
    }
    const label = el("label", { for: id }, el("span", { class: "label-text" }), " ", el("code", { class: "key", text: keyOf(field.path).split("/").pop() }));
    const hint = el("p", { class: "hint", id: hintId });
    const error = el("p", { class: "field-error", id: errId, hidden: true });
    const wide = ["model-preset", "gpu-preset", "text"].includes(field.kind);
    const wrap = el("div", { class: `field${field.required ? " required" : ""}${wide ? " wide" : ""}`, dataset: { path: field.path } }, label, input, hint, error);
    input.addEventListener("input", () => this.onEdit(field, this.read(field, input)));
    this.controls.set(field.path, { field, input, hint, error, wrap, label });
    return wrap;
  }

  // An array of some of field.options, as checkboxes (training.lora.targets).
  multiRow(field, id, hintId, errId) {
    const boxes = field.options.map((o) =>
      el("label", { class: "check" }, el("input", { type: "checkbox", value: o, dataset: { path: field.path } }), ` ${o}`),
    );
    const label = el("legend", {}, el("span", { class: "label-text" }), " ", el("code", { class: "key", text: keyOf(field.path).split("/").pop() }));
    const input = el("div", { class: "checks", id, role: "group", "aria-describedby": `${hintId} ${errId}` }, boxes);
    const hint = el("p", { class: "hint", id: hintId });
    const error = el("p", { class: "field-error", id: errId, hidden: true });
    const wrap = el("fieldset", { class: "field wide", dataset: { path: field.path } }, label, input, hint, error);
    input.addEventListener("change", () => this.onEdit(field, this.read(field, input)));
    this.controls.set(field.path, { field, input, hint, error, wrap, label });
    return wrap;
  }

  // {value} or {error}; undefined value = absent.
  read(field, input) {
    if (field.kind === "multi") {
      const picked = [...input.querySelectorAll("input[type=checkbox]")].filter((b) => b.checked && !b.closest("label").hidden).map((b) => b.value);
      const all = [...input.querySelectorAll("input[type=checkbox]")].filter((b) => !b.closest("label").hidden).map((b) => b.value);
      // defaultAll: every one ticked is the default (absent), none ticked goes to the core,
      // which says why not. Otherwise none ticked is absent (the calculator chooses).
      if (field.defaultAll) return { value: picked.length === all.length ? undefined : picked };
      return { value: picked.length ? picked : undefined };
    }
    const text = input.value;
    switch (field.kind) {
      case "model-preset":
      case "gpu-preset":
        return { preset: text };
      case "enum":
        if (text === "") return { value: undefined };
        return { value: field.options.some((o) => typeof o === "number") ? Number(text) : text };
      case "bool":
        return { value: text === "" ? undefined : text === "true" };
      case "text":
        return { value: text === "" ? undefined : text };
      default: {
        if (text.trim() === "") return { value: undefined };
        const v = parseAmount(text);
        return Number.isFinite(v) ? { value: v } : { error: t("need_number") };
      }
    }
  }

  // Labels, options, hints: language-dependent, so redone on a language switch.
  relabel(scenario, answer) {
    for (const { field, input, label } of this.controls.values()) {
      label.querySelector(".label-text").textContent = t(`f_${keyOf(field.path)}`);
      if (field.kind === "model-preset") presetOptions(input, MODELS, "family", modelLabel);
      if (field.kind === "gpu-preset") presetOptions(input, GPUS, "vendor", (x) => dataValue("gpu", x.label));
    }
    for (const node of this.container.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
    this.populate(scenario, answer, true);
  }

  populate(scenario, answer, force = false) {
    this.last = { scenario, answer };
    const language = lang();
    if (!docsLoaded(language)) {
      // The hints arrive a moment later; fill them in then (without touching a focused field).
      loadDocs(language).then(() => this.last && this.populate(this.last.scenario, this.last.answer), () => {});
    }
    const modelBase = baseOf(scenario.model);
    const gpuBase = baseOf(scenario.gpu);
    const preset = modelById(modelBase);
    const gpu = gpuById(gpuBase);
    const applies = relevance(scenario);
    // Frameworks that checkpoint whole layers have no selective recompute (core/src/plan.cpp
    // check_framework): not offered (a scenario that sets it still shows it, and the error).
    const layerwise = ["hf", "torchtune"].includes(scenario.training?.framework);
    for (const { field, input, hint, wrap } of this.controls.values()) {
      // Fields that do not apply (EP on a dense model, LoRA's without LoRA) stay out of
      // the way unless the scenario sets them.
      if (field.show) wrap.hidden = !applies[field.show] && getPath(scenario, field.path) === undefined;
      if (field.kind === "multi") {
        const set = getPath(scenario, field.path);
        const flags = { ...applies, gated: modelInfo(scenario).gated };
        const applicable = (o) => !field.optionShow?.[o] || flags[field.optionShow[o]];
        const on = Array.isArray(set) ? set : field.defaultAll ? field.options.filter(applicable) : [];
        for (const box of input.querySelectorAll("input[type=checkbox]")) {
          box.checked = on.includes(box.value);
          box.closest("label").hidden = !applicable(box.value) && !on.includes(box.value);
        }
        hint.textContent = [this.defaultText(field, preset, gpu, answer), docFor(field)].filter(Boolean).join(" · ");
        continue;
      }
      const focused = document.activeElement === input;
      if (field.kind === "enum" || field.kind === "bool") {
        if (focused && !force) continue; // never rebuild an open list under the user
        const defText = this.defaultText(field, preset, gpu, answer);
        const opts = [el("option", { value: "", text: defText })];
        for (const o of field.kind === "bool" ? [true, false] : field.options) {
          if (layerwise && field.path === "/training/recompute" && o === "selective") continue;
          // A field's own wording of a value (opt_<field>_<value>) before the shared one.
          const own = `opt_${keyOf(field.path).split("/").pop()}_${String(o)}`;
          const key = has(own) ? own : `opt_${String(o)}`;
          opts.push(el("option", { value: String(o), text: t(key) === key ? String(o) : t(key) }));
        }
        const current = getPath(scenario, field.path);
        input.replaceChildren(...opts);
        input.value = current === undefined ? "" : String(current);
        if (input.value !== (current === undefined ? "" : String(current))) {
          input.append(el("option", { value: String(current), text: String(current) }));
          input.value = String(current);
        }
        hint.textContent = docFor(field);
        continue;
      }
      if (field.kind === "model-preset" || field.kind === "gpu-preset") {
        const base = field.kind === "model-preset" ? modelBase : gpuBase;
        const value = base ?? "";
        if (value && ![...input.options].some((o) => o.value === value)) input.append(el("option", { value, text: value }));
        input.value = value;
        const over = Object.keys(overridesOf(scenario[keyOf(field.path)]));
        hint.textContent = `${docFor(field)}${over.length ? ` ${t("overrides", { list: over.join(", ") })}` : ""}`;
        continue;
      }
      const stored = getPath(scenario, field.path);
      if (!focused || force) {
        const text = textOf(stored, field.kind, lang());
        if (!(focused && input.value.trim() !== "" && text === "")) input.value = text;
      }
      const defText = this.defaultText(field, preset, gpu, answer);
      input.placeholder = defText.replace(/^[^:：]*[:：]\s*/, "");
      hint.textContent = [defText, docFor(field)].filter(Boolean).join(" · ");
    }
  }

  defaultText(field, preset, gpu, answer) {
    const def = field.def ?? {};
    const key = field.path.split("/").pop();
    if (field.required) return t("def_required");
    const show = (v) => (Array.isArray(v) ? v.join(", ") : t(`opt_${String(v)}`) === `opt_${String(v)}` ? String(v) : t(`opt_${String(v)}`));
    const fromPreset = def.preset === undefined || !preset ? undefined : def.preset.split(".").reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), preset.shape);
    if (fromPreset !== undefined && fromPreset !== null && typeof fromPreset !== "object") {
      return t("def_preset", { v: field.kind === "enum" || field.kind === "bool" ? show(fromPreset) : String(fromPreset) });
    }
    if (def.spec !== undefined) {
      const v = gpu?.specs?.[def.spec];
      return v === undefined || v === null ? t("def_none") : t("def_catalog", { v: String(v) });
    }
    if (def.chosen !== undefined) {
      const v = answer?.plan?.[def.chosen];
      return v === undefined ? t("def_chosen_pending") : t("def_chosen", { v: show(v) });
    }
    if (def.fallback !== undefined) return t("def_fallback", { v: def.fallback });
    if (def.value !== undefined) return t("def_value", { v: show(def.value) });
    if (def.none) return t(`def_none_${key}`) === `def_none_${key}` ? t("def_none") : t(`def_none_${key}`);
    return "";
  }

  // The control for an error path: the field itself, or the closest field above it.
  controlFor(path) {
    let p = path;
    while (p) {
      const c = this.controls.get(p);
      if (c) return c;
      p = p.slice(0, p.lastIndexOf("/"));
    }
    return null;
  }
}
