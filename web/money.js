// Money in the Quick form: the currency the answer is priced in (元 for Chinese readers,
// USD for English ones, switchable), the rental price per GPU-hour, the USD↔CNY rate, or an
// owned cluster's cost of ownership (purchase, amortisation, electricity, PUE, host
// overhead). The core prices everything (docs/cost.md); this only writes the scenario's
// `cost` fields and shows what the core used.
import { $ } from "./dom.js";
import { dataValue, has, lang, t } from "./i18n.js";
import * as F from "./format.js";
import { USD_CNY } from "./presets.js";
import { getPath, setPath } from "./schema.js";

const KEY = "gpucalc.currency";
const OWNED = [
  ["q-own-purchase", "/cost/owned/purchase_price_per_gpu", true],
  ["q-own-years", "/cost/owned/amortization_years", true],
  ["q-own-kwh", "/cost/owned/electricity_price_per_kwh", true],
  ["q-own-pue", "/cost/owned/pue", false],
  ["q-own-host", "/cost/owned/host_overhead", false],
];

function saved() {
  try {
    const c = localStorage.getItem(KEY);
    return c === "USD" || c === "CNY" ? c : null;
  } catch {
    return null;
  }
}

// The currency of the answer: the scenario's cost.currency, else the reader's choice,
// else the language's (元 in Chinese, USD in English).
export function displayCurrency(scenario) {
  const own = scenario?.cost?.currency;
  if (own === "USD" || own === "CNY") return own;
  return saved() ?? (lang() === "zh" ? "CNY" : "USD");
}

// The text the core evaluates: the scenario, priced in the display currency when it
// names none (a shared link keeps its reader's currency).
export function requestText(scenario) {
  if (scenario?.cost?.currency) return JSON.stringify(scenario);
  return JSON.stringify({ ...scenario, cost: { ...(scenario.cost ?? {}), currency: displayCurrency(scenario) } });
}

// A cost section the form emptied is dropped (permalinks stay short).
export function tidyCost(s) {
  if (s.cost && typeof s.cost === "object" && Object.keys(s.cost).length === 0) delete s.cost;
}

// A price for one accelerator of the comparison (cost.prices_per_gpu_hour), in the
// currency the page shows, which the scenario then keeps so the price means what was typed.
export function setAcceleratorPrice(s, id, value) {
  if (value !== undefined && !s.cost?.currency) setPath(s, "/cost/currency", displayCurrency(s));
  setPath(s, `/cost/prices_per_gpu_hour/${id}`, value);
  if (s.cost?.prices_per_gpu_hour && Object.keys(s.cost.prices_per_gpu_hour).length === 0) delete s.cost.prices_per_gpu_hour;
  tidyCost(s);
}

export const unitOf = (c) => unit(c);

const unit = (c) => (c === "CNY" ? "元" : lang() === "zh" ? "美元" : "USD");

function readNumber(id, path, { setClientError }) {
  const text = $(id).value.trim();
  setClientError(path, null);
  if (text === "") return undefined;
  const v = F.parseNumber(text);
  if (!Number.isFinite(v)) {
    setClientError(path, t("need_number"));
    return null;
  }
  return v;
}

export function wireMoney(ctx) {
  const { edit, evaluateNow, scenario } = ctx;
  for (const c of ["CNY", "USD"]) {
    $(`q-cur-${c.toLowerCase()}`).addEventListener("change", () => {
      if (scenario().cost?.currency) edit((s) => setPath(s, "/cost/currency", c));
      else {
        try {
          localStorage.setItem(KEY, c);
        } catch {
          /* ignore */
        }
        ctx.syncOutputs?.();
        evaluateNow();
      }
    });
  }
  $("q-price").addEventListener("input", () => {
    const v = readNumber("q-price", "/cost/price_per_gpu_hour", ctx);
    if (v === null) return evaluateNow();
    edit((s) => {
      setPath(s, "/cost/price_per_gpu_hour", v);
      tidyCost(s);
    });
  });
  $("q-fx").addEventListener("input", () => {
    const v = readNumber("q-fx", "/cost/usd_cny", ctx);
    if (v === null) return evaluateNow();
    edit((s) => {
      setPath(s, "/cost/usd_cny", v);
      tidyCost(s);
    });
  });
  $("q-owned").addEventListener("change", () => {
    $("q-owned-fields").hidden = !$("q-owned").checked;
    $("q-rented-fields").hidden = $("q-owned").checked;
    writeOwned(ctx);
  });
  for (const [id] of OWNED) $(id).addEventListener("input", () => writeOwned(ctx));
}

function writeOwned(ctx) {
  const { edit, evaluateNow } = ctx;
  if (!$("q-owned").checked) {
    // The hidden fields no longer count: a bad value left in one must not hold the answer.
    for (const [, path] of OWNED) ctx.setClientError(path, null);
    return edit((s) => {
      setPath(s, "/cost/owned", undefined);
      tidyCost(s);
    });
  }
  const owned = {};
  let bad = false;
  let complete = true;
  for (const [id, path, required] of OWNED) {
    const v = readNumber(id, path, ctx);
    if (v === null) bad = true;
    else if (v === undefined) complete = complete && !required;
    else owned[path.split("/").pop()] = v;
  }
  $("q-owned-hint").textContent = complete ? "" : t("q_owned_need");
  if (bad) return evaluateNow();
  edit((s) => {
    setPath(s, "/cost/price_per_gpu_hour", undefined);
    setPath(s, "/cost/owned", complete ? owned : undefined);
    tidyCost(s);
  });
}

// The form from the scenario, and what the core priced the answer with.
export function populateMoney(scenario, answer) {
  const cur = displayCurrency(scenario);
  $("q-cur-cny").checked = cur === "CNY";
  $("q-cur-usd").checked = cur === "USD";
  const cost = scenario?.cost ?? {};
  const owned = cost.owned && typeof cost.owned === "object";
  if (owned) $("q-owned").checked = true;
  $("q-owned-fields").hidden = !$("q-owned").checked;
  $("q-rented-fields").hidden = $("q-owned").checked;
  const put = (id, v) => {
    if (document.activeElement !== $(id)) $(id).value = v === undefined || v === null ? "" : String(v);
  };
  put("q-price", cost.price_per_gpu_hour);
  put("q-fx", cost.usd_cny);
  if (owned) for (const [id, path] of OWNED) put(id, getPath(scenario, path));
  for (const id of ["q-price-unit", "q-own-purchase-unit", "q-own-kwh-unit"]) $(id).textContent = unit(cur);

  const src = answer?.cost?.price_source;
  const conv = src?.converted;
  $("q-price").placeholder = src?.kind === "catalog" && Number.isFinite(src.value) ? F.num(lang(), src.value, 2) : "";
  $("q-fx").placeholder = USD_CNY ? F.num(lang(), USD_CNY.value, 4) : "";
  $("q-fx-hint").textContent = USD_CNY ? t("q_fx_hint", { v: F.num(lang(), USD_CNY.value, 4), date: USD_CNY.date }) : "";
  $("q-price-hint").textContent =
    src?.kind === "catalog"
      ? t(conv ? "q_price_default_conv" : "q_price_default", {
          v: F.num(lang(), src.value, 2),
          unit: unit(src.currency),
          type: dataValue("type", src.type),
          date: dataValue("date", src.date),
          conf: has(`conf_${src.confidence}`) ? t(`conf_${src.confidence}`) : src.confidence,
          from: conv ? `${F.num(lang(), conv.from_value, 2)} ${unit(conv.from_currency)}` : "",
          rate: conv ? F.num(lang(), conv.usd_cny, 4) : "",
        })
      : cost.price_per_gpu_hour !== undefined || owned
        ? ""
        : answer
          ? t("q_price_none")
          : "";
  $("q-money-summary").textContent = owned ? t("q_money_owned") : unit(cur);
}
