// "Launch config" (loaded when first opened, with launch.css, launch-worker.js and the
// export core gpucalc-export.js/.wasm): the plan as a Megatron-LM, torchtitan, DeepSpeed
// or LLaMA-Factory configuration, with a copy button. What the format cannot express is
// listed from the core's coded warnings, in the page's language.
import { el, fill } from "./dom.js";

const FORMATS = [
  ["megatron", "Megatron-LM"],
  ["torchtitan", "torchtitan (TOML)"],
  ["deepspeed", "DeepSpeed (JSON)"],
  ["llamafactory", "LLaMA-Factory (YAML)"],
];

const STRINGS = {
  en: {
    format: "Format",
    copy: "Copy",
    copied: "Copied",
    copy_failed: "Copy failed: select the text and copy it",
    loading: "Writing the config…",
    save_as: "Save as {file}",
    warnings: "Not expressed in this config:",
  },
  zh: {
    format: "格式",
    copy: "复制",
    copied: "已复制",
    copy_failed: "复制失败：请选中文本后手动复制",
    loading: "正在生成配置…",
    save_as: "保存为 {file}",
    warnings: "此配置未能表达：",
  },
};

// The export codes' templates, as in data/messages.json (tests/web/launch.test.mjs checks
// they agree).
export const MESSAGES = {
  export_no_equivalent: {
    en: "{framework} has no option for {element} = {value}; the exported config leaves it out: set it by hand, or the run will not use this layout",
    zh: "{framework} 没有对应 {element} = {value} 的选项；导出的配置未包含此项：请手动设置，否则实际运行的布局会与此不同",
  },
  export_approximate: {
    en: "{framework} has no exact equivalent of {element} = {value}; the config uses {used}",
    zh: "{framework} 没有与 {element} = {value} 完全对应的选项；配置中改用 {used}",
  },
  export_approximate_distopt: {
    en: "{framework} has no exact equivalent of {element} = {value}; the config uses {used}, which shards the gradients too (as ZeRO-2)",
    zh: "{framework} 没有与 {element} = {value} 完全对应的选项；配置中改用 {used}，它同时切分梯度（相当于 ZeRO-2）",
  },
  export_approximate_hpz: {
    en: "{framework} has no exact equivalent of {element} = {value}; the config uses {used}, ZeRO++'s hierarchical partitioning, which shards the parameters only",
    zh: "{framework} 没有与 {element} = {value} 完全对应的选项；配置中改用 {used}，即 ZeRO++ 的分层切分，只切分参数",
  },
  export_approximate_fp8_te: {
    en: "{framework} has no exact equivalent of {element} = {value}; the config uses {used}: FP8 GEMMs need Transformer Engine in the model code",
    zh: "{framework} 没有与 {element} = {value} 完全对应的选项；配置中改用 {used}：FP8 矩阵乘需要模型代码使用 Transformer Engine",
  },
  export_approximate_integer: {
    en: "{framework} has no exact equivalent of {element} = {value}; the config uses {used}: LLaMA-Factory takes an integer",
    zh: "{framework} 没有与 {element} = {value} 完全对应的选项；配置中改用 {used}：LLaMA-Factory 只接受整数",
  },
  export_approximate_whole_layers: {
    en: "{framework} has no exact equivalent of {element} = {value}; the config uses {used}, which recomputes whole layers (full recomputation)",
    zh: "{framework} 没有与 {element} = {value} 完全对应的选项；配置中改用 {used}，即按整层重计算（完全重计算）",
  },
  export_approximate_per_op: {
    en: "{framework} has no exact equivalent of {element} = {value}; the config uses {used}, which chooses what to recompute per operator, not per module",
    zh: "{framework} 没有与 {element} = {value} 完全对应的选项；配置中改用 {used}，即按算子而非按模块选择重计算的内容",
  },
  export_approximate_no_delayed: {
    en: "{framework} has no exact equivalent of {element} = {value}; the config uses {used}: torchtitan has no delayed scaling",
    zh: "{framework} 没有与 {element} = {value} 完全对应的选项；配置中改用 {used}：torchtitan 没有 delayed scaling（延迟缩放）",
  },
  export_framework_differs: {
    en: "the memory estimate models training.framework = {modelled}; under {framework} the same layout can need more or less memory: set training.framework to match and evaluate again",
    zh: "显存估算按 training.framework = {modelled} 建模；在 {framework} 下同一布局所需显存可能更多或更少：请把 training.framework 设为相应框架后重新评估",
  },
  export_needs_finetune: {
    en: "LLaMA-Factory export is for fine-tunes: set training.stage to lora, qlora or full_finetune, got \"{stage}\"",
    zh: "LLaMA-Factory 导出仅用于微调：请将 training.stage 设为 lora、qlora 或 full_finetune，当前为 \"{stage}\"",
  },
  export_format_unknown: {
    en: "unknown export format \"{format}\": use megatron, torchtitan, deepspeed or llamafactory",
    zh: "未知的导出格式 \"{format}\"：请使用 megatron、torchtitan、deepspeed 或 llamafactory",
  },
};

// A coded message in the reader's language; the core's English text when the code is not ours.
export function messageText(m, lang) {
  const tpl = MESSAGES[m?.code]?.[lang];
  return tpl ? fill(tpl, m.params ?? {}).textContent : String(m?.message ?? "");
}

// The export core in a worker (the search behind the plan can take a moment), or on the
// main thread where module workers are missing.
function startCore() {
  try {
    const worker = new Worker(new URL("./launch-worker.js", import.meta.url), { type: "module", name: "gpucalc-export" });
    const waiting = new Map();
    let seq = 0;
    worker.onmessage = (event) => {
      const { id, envelope } = event.data ?? {};
      waiting.get(id)?.(envelope);
      waiting.delete(id);
    };
    return (scenario, format) =>
      new Promise((resolve) => {
        waiting.set(++seq, resolve);
        worker.postMessage({ id: seq, scenario, format });
      });
  } catch {
    const core = import("./gpucalc-export.js").then(({ default: create }) => create());
    return async (scenario, format) => JSON.parse((await core).exportConfig(scenario, format));
  }
}

// The format a scenario most likely wants: its own framework, LLaMA-Factory for adapters.
function defaultFormat(scenario) {
  const t = scenario?.training ?? {};
  if (t.stage === "lora" || t.stage === "qlora" || t.framework === "hf") return "llamafactory";
  return ["torchtitan", "deepspeed"].includes(t.framework) ? t.framework : "megatron";
}

// Builds the control inside `root` (the <details>); ctx: {scenarioText(), lang()}.
// Returns refresh(), to call when the answer or the language changes.
export function mount(root, ctx) {
  document.head.append(el("link", { rel: "stylesheet", href: new URL("./launch.css", import.meta.url).href }));
  const run = startCore();
  const select = el("select", { id: "launch-format" }, FORMATS.map(([v, label]) => el("option", { value: v, text: label })));
  const label = el("label", { for: "launch-format" });
  const copy = el("button", { type: "button", id: "launch-copy", class: "launch-copy" });
  const status = el("p", { id: "launch-status", class: "hint", role: "status" });
  const warnings = el("ul", { id: "launch-warnings", class: "launch-warnings" });
  const pre = el("pre", { id: "launch-text", class: "launch-text", tabindex: "0" });
  root.append(el("div", { class: "launch-bar" }, label, select, copy), status, warnings, pre);
  let chosen = false;
  let asked = 0;
  let shown = null; // {envelope} last rendered

  const s = () => STRINGS[ctx.lang()] ?? STRINGS.en;
  const render = () => {
    const str = s();
    label.textContent = str.format;
    copy.textContent = str.copy;
    warnings.replaceChildren();
    if (!shown) return;
    const env = shown;
    copy.disabled = !env.ok;
    if (!env.ok) {
      pre.textContent = "";
      pre.hidden = true;
      status.textContent = (env.error?.path ? env.error.path + ": " : "") + messageText(env.error, ctx.lang());
      status.classList.add("launch-error");
      return;
    }
    status.classList.remove("launch-error");
    status.textContent = fill(str.save_as, { file: env.value.file_name }).textContent;
    pre.hidden = false;
    pre.textContent = env.value.text;
    if (env.value.warnings.length) {
      warnings.append(el("li", { class: "launch-warnings-head", text: str.warnings }));
      for (const w of env.value.warnings) warnings.append(el("li", { dataset: { code: w.code }, text: messageText(w, ctx.lang()) }));
    }
  };

  const refresh = async () => {
    const text = ctx.scenarioText();
    if (!text) return;
    if (!chosen) {
      try {
        select.value = defaultFormat(JSON.parse(text));
      } catch {
        /* keep the current choice */
      }
    }
    const mine = ++asked;
    status.textContent = s().loading;
    root.classList.add("pending");
    const envelope = await run(text, select.value);
    if (mine !== asked) return;
    root.classList.remove("pending");
    shown = envelope;
    root.dataset.format = select.value;
    render();
  };

  select.addEventListener("change", () => {
    chosen = true;
    refresh();
  });
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(pre.textContent);
      status.textContent = s().copied;
    } catch {
      getSelection()?.selectAllChildren(pre);
      status.textContent = s().copy_failed;
    }
  });
  refresh();
  return { refresh, relabel: render };
}
