// Numbers and units per locale. Chinese uses 万 / 亿 / 万亿 for big counts
// ("1.5万亿 tokens"), English K / M / B / T ("15T tokens"). Pure functions: the
// language is passed in, so node can test them too.

export const GIB = 2 ** 30;

// en-US and zh-CN write numbers alike: "," between thousands, "." before decimals, "%"
// after a percentage. They are formatted here rather than by Intl.NumberFormat, whose
// first use on a page loads the locale data (~40 ms of the main thread before the first
// answer in headless Chromium, scripts/bench-page.mjs). The rounding is Intl's: the
// shortest decimal that reads back as the double (String(v): 1.005, not
// 1.00499999999999989…), rounded half away from zero ("halfExpand"), a percentage being
// that decimal shifted two places. tests/web/units.test.mjs checks it against Intl.

function formatNumber(v, maxDigits, minDigits = 0, percent = false) {
  const [mant, exp = "0"] = String(Math.abs(v)).split("e");
  const [w, f = ""] = mant.split(".");
  let digits = w + f;
  let point = w.length + Number(exp) + (percent ? 2 : 0); // the decimal point's index in digits
  if (point < 0) {
    digits = "0".repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits = digits.padEnd(point, "0");
  const keep = point + maxDigits;
  if (digits.length > keep) {
    const up = digits[keep] >= "5";
    const kept = digits.slice(0, keep).split("");
    let i = kept.length - 1;
    for (; up && i >= 0 && kept[i] === "9"; i--) kept[i] = "0";
    if (up && i >= 0) kept[i] = String(Number(kept[i]) + 1);
    if (up && i < 0) {
      kept.unshift("1");
      point++;
    }
    digits = kept.join("");
  }
  const whole = digits.slice(0, point).replace(/^0+/, "") || "0";
  let frac = digits.slice(point).padEnd(minDigits, "0");
  let end = frac.length;
  while (end > minDigits && frac[end - 1] === "0") end--;
  frac = frac.slice(0, end);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const negative = v < 0 || Object.is(v, -0);
  return `${negative ? "-" : ""}${grouped}${frac ? `.${frac}` : ""}${percent ? "%" : ""}`;
}

const finite = (v) => typeof v === "number" && Number.isFinite(v);

// 1234567.8 -> "1,234,568" (digits = 0) or "1,234,567.8" (digits = 1).
export function num(lang, v, digits = 1) {
  return finite(v) ? formatNumber(v, digits) : "—";
}

export function int(lang, v) {
  return finite(v) ? formatNumber(Math.round(v), 0) : "—";
}

// Fixed decimals: 57.8, never 57.80 or 58.
export function fixed(lang, v, digits = 1) {
  return finite(v) ? formatNumber(v, digits, digits) : "—";
}

export function pct(lang, v, digits = 1) {
  return finite(v) ? formatNumber(v, digits, 0, true) : "—";
}

// Significant-digit style decimals for a mantissa in [1, 10000).
function mantissa(m) {
  const digits = m < 10 ? 2 : m < 100 ? 1 : 0;
  return formatNumber(m, digits);
}

const EN_UNITS = [
  [1e12, "T"],
  [1e9, "B"],
  [1e6, "M"],
  [1e3, "K"],
];
const ZH_UNITS = [
  [1e12, "万亿"],
  [1e8, "亿"],
  [1e4, "万"],
];

// Compact count: en 15T, 70.6B, 5.07M; zh 15万亿, 705.5亿, 507.1万.
export function big(lang, v) {
  if (!finite(v)) return "—";
  const units = lang === "zh" ? ZH_UNITS : EN_UNITS;
  const a = Math.abs(v);
  for (const [scale, suffix] of units) {
    if (a >= scale * 0.9995) {
      const m = v / scale;
      // 1.2万亿万 never happens: beyond the largest unit the mantissa just grows.
      return `${mantissa(m)}${suffix}`;
    }
  }
  return num(lang, v, a < 10 ? 2 : a < 100 ? 1 : 0);
}

export function gib(lang, bytes, digits = 1) {
  return finite(bytes) ? `${fixed(lang, bytes / GIB, digits)} GiB` : "—";
}

// Seconds to a short human duration ("4.98 s", "3.2 ms"); units are the same in both languages.
export function seconds(lang, s) {
  if (!finite(s)) return "—";
  if (s < 1e-3) return `${num(lang, s * 1e6, 0)} µs`;
  if (s < 1) return `${num(lang, s * 1e3, s < 0.01 ? 2 : 1)} ms`;
  return `${num(lang, s, s < 10 ? 2 : 1)} s`;
}

// Parses amounts as people type them: "15T", "15e12", "1.5万亿", "500B",
// "2,000亿", "8k", "15 trillion tokens". Returns NaN when it is not a number.
const SUFFIX = {
  "": 1,
  k: 1e3,
  thousand: 1e3,
  m: 1e6,
  mn: 1e6,
  million: 1e6,
  b: 1e9,
  bn: 1e9,
  g: 1e9,
  billion: 1e9,
  t: 1e12,
  tn: 1e12,
  trillion: 1e12,
  p: 1e15,
  quadrillion: 1e15,
};
const ZH_SCALE = { 十: 10, 百: 100, 千: 1e3, 万: 1e4, 亿: 1e8, 兆: 1e12 };

export function parseAmount(text) {
  if (typeof text !== "string") return NaN;
  let s = text.trim().toLowerCase().replace(/[,_\s\u00a0\u3000，]/g, "");
  s = s.replace(/(tokens?|个|张|参数|params?|parameters?)$/u, "");
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)(.*)$/u.exec(s);
  if (!m) return NaN;
  const value = Number(m[1]);
  const suffix = m[2];
  if (suffix in SUFFIX) return value * SUFFIX[suffix];
  if (/^[十百千万亿兆]+$/u.test(suffix)) {
    let scale = 1;
    for (const ch of suffix) scale *= ZH_SCALE[ch];
    return value * scale;
  }
  return NaN;
}

// A strict plain number ("8192", "0.4", "-3", "1e3"), no suffixes.
export function parseNumber(text) {
  if (typeof text !== "string") return NaN;
  const s = text.trim().replace(/[,_\s]/g, "");
  if (!/^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i.test(s)) return NaN;
  return Number(s);
}

// Line and column (from 1) of offset `i` in `text`.
function lineColumn(text, i) {
  const before = text.slice(0, i);
  const line = before.split("\n").length;
  return { line, column: i - before.lastIndexOf("\n") };
}

// What JSON.parse said about `text`: {detail} (the browser's message, English and
// varying by version) and, when it gave "at position N", {at: {line, column}}, which a
// reader's language can say.
export function jsonProblem(text, error) {
  const detail = String(error?.message ?? error);
  const position = /\bposition (\d+)/.exec(detail);
  return { detail, ...(position ? { at: lineColumn(text, Number(position[1])) } : {}) };
}
