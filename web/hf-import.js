// Import a Hugging Face config.json (loaded on first use from the Expert form's model
// group): paste it, drop it or choose the file; it goes into the scenario as
// model.hf_config and the core maps it (core/src/hf_config.cpp). The panel then shows the
// parameters the core counted and the keys it did not understand.
import { el } from "./dom.js";
import * as F from "./format.js";
import { addStrings, coreMessage, lang, t } from "./i18n.js";

const TEXT = {
  en: {
    hf_title: "Import a Hugging Face config.json",
    hf_help: "Paste the model's config.json, drop the file here or choose it. Llama, Qwen2/2.5/3, Qwen MoE, Mistral, Mixtral, DeepSeek-V2/V3, Kimi K2, Gemma 2/3, Phi-3/4, GLM-4, GLM-4.5 (and 4.6/4.7, 4.5-Air), ERNIE 4.5 (dense and MoE), InternLM2/2.5 and gpt-oss are read; the shape replaces the model.",
    hf_choose: "Choose file…",
    hf_apply: "Use this config",
    hf_close: "Close",
    hf_not_json: "Not JSON: {msg}",
    hf_waiting: "Counting…",
    hf_counted: "{name}: {params} parameters counted ({exact}).",
    hf_ignored: "Not understood, not counted: {keys}",
    hf_window: "Sliding window: {tokens} tokens on {layers} of {of} layers.",
    hf_failed: "Not imported: {msg}",
  },
  zh: {
    hf_title: "导入 Hugging Face config.json",
    hf_help: "粘贴模型的 config.json，或把文件拖到这里、或选择文件。支持 Llama、Qwen2/2.5/3、Qwen MoE、Mistral、Mixtral、DeepSeek-V2/V3、Kimi K2、Gemma 2/3、Phi-3/4、GLM-4、GLM-4.5（及 4.6/4.7、4.5-Air）、文心 ERNIE 4.5（稠密与 MoE）、书生 InternLM2/2.5 与 gpt-oss；导入的结构替换当前模型。",
    hf_choose: "选择文件…",
    hf_apply: "使用此配置",
    hf_close: "关闭",
    hf_not_json: "不是有效的 JSON{where}",
    hf_waiting: "计数中…",
    hf_counted: "{name}：计得 {params} 参数（{exact}）。",
    hf_ignored: "未理解、未计入的字段：{keys}",
    hf_window: "滑动窗口：{of} 层中 {layers} 层，窗口 {tokens} token。",
    hf_failed: "未导入：{msg}",
  },
};
for (const [code, strings] of Object.entries(TEXT)) addStrings(code, strings);


let panel = null;

// host: {apply(config), onAnswer(callback)}; the panel goes after `anchor`.
export function openHfImport(anchor, host) {
  if (panel?.isConnected) {
    panel.querySelector("textarea").focus();
    return panel;
  }
  const area = el("textarea", { id: "hf-text", rows: 8, spellcheck: "false", "aria-describedby": "hf-help hf-status" });
  const file = el("input", { type: "file", accept: ".json,application/json", id: "hf-file", class: "sr-only" });
  const status = el("p", { id: "hf-status", class: "hint", role: "status" });
  const apply = el("button", { type: "button", id: "hf-apply", class: "pill", dataset: { i18n: "hf_apply" }, text: t("hf_apply") });
  const choose = el("label", { for: "hf-file", class: "pill file-pill", dataset: { i18n: "hf_choose" }, text: t("hf_choose") });
  const close = el("button", { type: "button", class: "pill", dataset: { i18n: "hf_close" }, text: t("hf_close") });
  panel = el(
    "section",
    { class: "hf-import", id: "hf-import", "aria-labelledby": "hf-title" },
    el("h3", { id: "hf-title", dataset: { i18n: "hf_title" }, text: t("hf_title") }),
    el("p", { id: "hf-help", class: "hint", dataset: { i18n: "hf_help" }, text: t("hf_help") }),
    area,
    el("div", { class: "hf-actions" }, apply, choose, file, close),
    status,
  );
  const say = (text, bad = false) => {
    status.textContent = text;
    status.classList.toggle("hf-bad", bad);
  };
  const use = (text) => {
    let config;
    try {
      config = JSON.parse(text);
    } catch (e) {
      // The browser's message is English: an English reader gets it, another the place.
      const { detail, at } = F.jsonProblem(text, e);
      say(t("hf_not_json", { msg: detail, where: at ? `（${t("json_where", at)}）` : "" }), true);
      return;
    }
    say(t("hf_waiting"));
    host.onAnswer((envelope) => report(envelope, say));
    host.apply(config);
  };
  apply.addEventListener("click", () => use(area.value));
  file.addEventListener("change", async () => {
    const f = file.files?.[0];
    file.value = "";
    if (!f) return;
    area.value = await f.text();
    use(area.value);
  });
  panel.addEventListener("dragover", (e) => {
    e.preventDefault();
    panel.classList.add("drop");
  });
  panel.addEventListener("dragleave", () => panel.classList.remove("drop"));
  panel.addEventListener("drop", async (e) => {
    e.preventDefault();
    panel.classList.remove("drop");
    const f = e.dataTransfer?.files?.[0];
    area.value = f ? await f.text() : e.dataTransfer?.getData("text") ?? "";
    use(area.value);
  });
  close.addEventListener("click", () => {
    panel.remove();
    anchor.focus();
  });
  if (!document.getElementById("hf-css")) document.head.append(el("link", { rel: "stylesheet", id: "hf-css", href: new URL("./hf-import.css", import.meta.url).href }));
  anchor.after(panel);
  area.focus();
  return panel;
}

// The core's answer for the imported config: its count and the keys it skipped.
function report(envelope, say) {
  if (!envelope?.ok) {
    const e = envelope?.error ?? {};
    say(t("hf_failed", { msg: `${e.path ?? ""} ${coreMessage(e).text}`.trim() }), true);
    return;
  }
  const model = envelope.value.model ?? {};
  const lines = [t("hf_counted", { name: model.name ?? "", params: F.big(lang(), model.params), exact: F.int(lang(), model.params) })];
  const w = model.sliding_window;
  if (w) lines.push(t("hf_window", { tokens: F.int(lang(), w.tokens), layers: w.layers, of: w.of_layers }));
  // The keys the mapping did not understand, by the warning's code (data/messages.json).
  for (const w of envelope.value.warnings ?? []) {
    if (w?.code === "hf_config_keys_ignored") lines.push(t("hf_ignored", { keys: w.params?.keys ?? "" }));
  }
  say(lines.join(" "));
}
