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
  return Object.keys(STRINGS).map((l) => `locales/${l}.js`);
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

export function t(key, vars = {}) {
  return raw(key).replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

// Static text in the page: data-i18n (text), data-i18n-aria (aria-label),
// data-i18n-title (title), data-i18n-placeholder (placeholder).
export function translateDom(root = document) {
  document.documentElement.lang = current === "zh" ? "zh-CN" : "en";
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-aria]")) node.setAttribute("aria-label", t(node.dataset.i18nAria));
  for (const node of root.querySelectorAll("[data-i18n-title]")) node.setAttribute("title", t(node.dataset.i18nTitle));
  for (const node of root.querySelectorAll("[data-i18n-placeholder]")) {
    node.setAttribute("placeholder", t(node.dataset.i18nPlaceholder));
  }
}

// The core's errors, warnings and notes are coded ({code, params, message}, the
// templates in data/messages.json): English shows the core's message; another language
// renders its own template for the code with the same parameters. The Chinese templates
// (MESSAGES, which scripts/assemble-dist.mjs appends to locales/zh.js) come with the
// page's Chinese strings, so an English reader never downloads them. A {reason} whose
// value is a code is that message, rendered in turn.
const templates = {};

export async function loadMessages(which = current) {
  if (which === "en" || templates[which] || !LOADERS[which]) return;
  try {
    const { MESSAGES } = await LOADERS[which]();
    if (MESSAGES) templates[which] = MESSAGES;
  } catch {
    /* offline before the first visit cached it: messages stay in English */
  }
}

function renderCoded(table, code, params) {
  return table[code].replace(/\{(\w+)\}/g, (m, k) => {
    if (!(k in params)) return m;
    const v = String(params[k]);
    return k === "reason" && v in table ? renderCoded(table, v, params) : v;
  });
}

// Returns {text, translated} for a coded message (a bare string is shown as is).
export function coreMessage(m) {
  const message = typeof m === "string" ? m : String(m?.message ?? "");
  const table = templates[current];
  if (current === "en") return { text: message, translated: true };
  if (table && m && typeof m === "object" && m.code in table) {
    return { text: renderCoded(table, m.code, m.params ?? {}), translated: true };
  }
  return { text: message, translated: false };
}
