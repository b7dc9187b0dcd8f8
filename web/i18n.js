// Language: chosen from ?lang=, then the saved choice, then navigator.language;
// strings live in locales/en.js and locales/zh.js, each loaded only when its language is
// chosen (loadLanguage; boot.js preloads the reader's one), so a reader downloads one
// language's strings, not both. zh.js has every key of en.js (tests/web/units.test.mjs).
export const STRINGS = {};
const LOADERS = { en: () => import("./locales/en.js"), zh: () => import("./locales/zh.js") };
export const LANGS = ["zh", "en"];
const KEY = "gpucalc.lang";

let current = "en";

export function pickLanguage(search = location.search) {
  const asked = new URLSearchParams(search).get("lang");
  if (asked === "en" || asked === "zh") return asked;
  try {
    const saved = localStorage.getItem(KEY);
    if (saved === "en" || saved === "zh") return saved;
  } catch {
    /* storage may be unavailable (sandboxed iframe) */
  }
  const langs = navigator.languages?.length ? navigator.languages : [navigator.language || ""];
  return String(langs[0]).toLowerCase().startsWith("zh") ? "zh" : "en";
}

export function saveLanguage(lang) {
  try {
    localStorage.setItem(KEY, lang);
  } catch {
    /* ignore */
  }
}

// Strings that lazily loaded parts of the page bring (accuracy.js): kept per language,
// so a language loaded later still gets them.
const EXTRA = {};
export function addStrings(lang, strings) {
  EXTRA[lang] = { ...strings, ...EXTRA[lang] };
  if (STRINGS[lang]) for (const [k, v] of Object.entries(strings)) if (!(k in STRINGS[lang])) STRINGS[lang][k] = v;
}

// Makes a language's strings available (setLanguage falls back to English without).
export async function loadLanguage(lang) {
  if (STRINGS[lang] || !LOADERS[lang]) return;
  let loaded;
  try {
    loaded = await LOADERS[lang]();
  } catch (e) {
    if (lang === "en") throw e;
    return loadLanguage("en"); // setLanguage then falls back to English
  }
  const strings = { ...loaded.default };
  for (const [k, v] of Object.entries(EXTRA[lang] ?? {})) if (!(k in strings)) strings[k] = v;
  STRINGS[lang] = strings;
}

// The files of the languages loaded so far (web/sw.js keeps them for offline use).
export function loadedFiles() {
  const files = Object.keys(STRINGS).map((l) => `locales/${l}.js`);
  for (const l of Object.keys(more)) files.push(`locales/messages.${l}.js`);
  return files;
}

export function setLanguage(lang) {
  current = STRINGS[lang] ? lang : "en";
}

export function lang() {
  return current;
}

export function has(key) {
  return key in (STRINGS[current] ?? {}) || key in (STRINGS.en ?? {});
}

export function raw(key) {
  return STRINGS[current]?.[key] ?? STRINGS.en?.[key] ?? key;
}

// English count nouns take the singular after exactly one: "1 GPU", not "1 GPUs", in the
// page's strings, whose templates write the plural. The core's English messages already
// come so (core/src/message.cpp english_singular, the same rule); coreMessage applies it
// again, which changes nothing in them.
const ONE = /(^|[^\d.,])1 (GPU|sequence|layout|day|step|micro-batch)(?:s|(?<=ch)es)(?![a-z])/gi;
const singular = (text) => (current === "en" ? text.replace(ONE, (m, before, noun) => `${before}1 ${noun}`) : text);
// Chinese: the space a template keeps between a Latin name and Chinese ("{gpu} 的") goes
// when the name ends in a full-width bracket, "NVIDIA H20（HGX，中国特供版）的".
const BRACKET_SPACE = /([）」』]) (?=[\u4e00-\u9fff])/g;
const tidy = (text) => (current === "en" ? singular(text) : text.replace(BRACKET_SPACE, "$1"));
export function t(key, vars = {}) {
  return tidy(raw(key).replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m)));
}

// Static text in the page: data-i18n (text), data-i18n-aria (aria-label),
// data-i18n-title (title), data-i18n-placeholder (placeholder).
// Only what differs is written: the English page's HTML already holds its strings, and
// rewriting ~200 of them unchanged made the browser lay the page out again on every
// visit (scripts/bench-first-answer.mjs).
export function translateDom(root = document) {
  const lang = current === "zh" ? "zh-CN" : "en";
  if (document.documentElement.lang !== lang) document.documentElement.lang = lang;
  for (const node of root.querySelectorAll("[data-i18n]")) {
    const text = t(node.dataset.i18n);
    if (node.textContent !== text) node.textContent = text;
  }
  const attribute = (selector, name, key) => {
    for (const node of root.querySelectorAll(selector)) {
      const value = t(node.dataset[key]);
      if (node.getAttribute(name) !== value) node.setAttribute(name, value);
    }
  };
  attribute("[data-i18n-aria]", "aria-label", "i18nAria");
  attribute("[data-i18n-title]", "title", "i18nTitle");
  attribute("[data-i18n-placeholder]", "placeholder", "i18nPlaceholder");
}

// The core's errors, warnings and notes are coded ({code, params, message}, the
// templates in data/messages.json): English shows the core's message; another language
// renders its own template for the code with the same parameters. The Chinese templates
// come in two parts (scripts/assemble-dist.mjs): those the default scenario's answer shows
// with the page's Chinese strings (MESSAGES in locales/zh.js), the rest (mostly input
// errors a default visit never shows) in locales/messages.zh.js, loaded the first time
// a message without a template is to be shown (loadMoreMessages; app.js waits for it
// before it shows such an error, and draws again what it showed as "…" meanwhile), so
// neither an English reader nor a first Chinese visit downloads them. A {reason} whose
// value is a code is that message, rendered in turn.
const templates = {};
const MORE = { zh: () => import("./locales/messages.zh.js") };
const more = {}; // language -> promise of the rest of its templates (settled: tried)
const moreTried = {}; // language -> true once that promise settled (loaded or not)
let onMore = () => {};
// Called (once per language) when the rest of the templates has arrived, or failed to:
// the page redraws what it showed meanwhile.
export function onMoreMessages(callback) {
  onMore = callback;
}

// Catalog data the core passes as a parameter, in the language (locales/zh.js DATA_TEXT,
// from data/gpus.json: a price's `type_zh` for its `type`), by parameter name; a parameter
// naming one of the plan's choices (a memory formula's {recompute}: none, selective, full)
// as the page's own label for that choice.
const dataText = {};
const CHOICE_LABELS = { recompute: "recompute_" };
export function dataValue(name, value) {
  const label = name in CHOICE_LABELS ? CHOICE_LABELS[name] + value : null;
  if (label && has(label)) return t(label);
  return dataText[current]?.[name]?.[value] ?? value;
}

export async function loadMessages(which = current) {
  if (which === "en" || templates[which] || !LOADERS[which]) return;
  try {
    const { MESSAGES, DATA_TEXT } = await LOADERS[which]();
    if (DATA_TEXT) dataText[which] = DATA_TEXT;
    if (MESSAGES) templates[which] = { ...MESSAGES, ...templates[which] };
  } catch {
    /* offline before the first visit cached it: messages stay in English */
  }
}

// While they load, the root element has data-messages-pending (what the tests wait on).
const pending = (on) => globalThis.document?.documentElement.toggleAttribute("data-messages-pending", on);
export function loadMoreMessages(which = current) {
  if (!MORE[which]) return Promise.resolve();
  if (!more[which]) pending(true);
  more[which] ??= MORE[which]()
    .then((m) => {
      templates[which] = { ...templates[which], ...m.default };
    })
    .catch(() => {
      /* offline before a visit cached it: these messages stay in English */
    })
    .then(() => {
      moreTried[which] = true;
      if (which === current) onMore();
      pending(false);
    });
  return more[which];
}

// Whether `value` (an answer's envelope, a message) holds a coded message (or a {reason}
// that is a code) whose template the current language has not loaded yet, and could.
export function missingMessages(value) {
  if (!MORE[current] || moreTried[current]) return false;
  const table = templates[current] ?? {};
  let missing = false;
  JSON.stringify(value, function (k, v) {
    if (((k === "code" && typeof this.message === "string") || (k === "reason" && /^[a-z\d]+_[a-z\d_]+$/.test(v))) && !(v in table)) missing = true;
    return v;
  });
  return missing;
}

// A changed set of templates draws the cards again (render.js keys its cards on this).
export const messagesKey = () => Object.keys(templates[current] ?? {}).length;

// A count in prose (a parameter named *_tokens, gpus, fastest_gpus or dp; five digits or
// more) with its thousands grouped, 4,194,304, as the core's English has it
// (core/src/message.cpp).
const groupedCount = (k, v) => (k.endsWith("_tokens") || ["gpus", "fastest_gpus", "dp"].includes(k)) && /^\d{5,}$/.test(v);

function renderCoded(table, code, params) {
  return table[code].replace(/\{(\w+)\}/g, (m, k) => {
    if (!(k in params)) return m;
    const value = String(params[k]);
    const v = groupedCount(k, value) ? value.replace(/\B(?=(\d{3})+$)/g, ",") : dataValue(k, value);
    return k === "reason" && v in table ? renderCoded(table, v, params) : v;
  });
}

// Explanatory prose the core sends in parts beside its English (a memory term's formula
// and source, a price's rule: the answer's `*_coded` fields; a string part is literal, an
// object part coded), in the reader's language; `english` when there are no parts.
export function prose(parts, english) {
  if (parts == null) return english == null ? "" : String(english);
  return (Array.isArray(parts) ? parts : [parts]).map((p) => coreMessage(p).text).join("");
}

// Returns {text, translated} for a coded message (a bare string is shown as is). A code
// whose template has not arrived yet shows "…" (never the English) and asks for the rest
// of the templates; onMoreMessages' callback then draws it again.
export function coreMessage(m) {
  const message = typeof m === "string" ? m : String(m?.message ?? "");
  const table = templates[current];
  if (current === "en") return { text: singular(message), translated: true };
  if (m && typeof m === "object" && missingMessages(m)) {
    loadMoreMessages();
    return { text: "…", translated: true };
  }
  if (table && m && typeof m === "object" && m.code in table) {
    return { text: tidy(renderCoded(table, m.code, m.params ?? {})), translated: true };
  }
  return { text: message, translated: false };
}
