// Presets the page offers, from the core's own catalogs: scripts/build generates
// catalog.js from data/models.json and data/gpus.json (and the default example),
// so the lists never drift from what the core knows.
import * as catalog from "./catalog.js";

const { CATALOG_GPUS, CATALOG_MODELS } = catalog;

// Names short enough for the headline ("512 × H100"); the rest are derived from
// the catalog's names ("NVIDIA GeForce RTX 4090 24GB" -> "RTX 4090 24GB").
const SHORT = {
  "v100-sxm2-32gb": "V100",
  "a100-sxm-40gb": "A100 40GB",
  "a100-sxm-80gb": "A100 80GB",
  "h100-sxm-80gb": "H100",
  "h100-pcie-80gb": "H100 PCIe",
  "h800-sxm-80gb": "H800",
  "h20-96gb": "H20",
  "h200-sxm-141gb": "H200",
  "b200-180gb": "B200",
  "b300-288gb": "B300",
  "gb200-186gb": "GB200",
  "gb300-279gb": "GB300",
  "a800-sxm-80gb": "A800",
  "mi300x-192gb": "MI300X",
  "mi325x-256gb": "MI325X",
};
const SHORT_ZH = {
  "ascend-910b": "昇腾 910B",
  "ascend-910c": "昇腾 910C",
  "hygon-k100-ai": "海光 K100-AI",
  "cambricon-mlu370-x8": "寒武纪 MLU370-X8",
  "cambricon-mlu590": "寒武纪 MLU590",
  "kunlunxin-p800": "昆仑芯 P800",
};

function shortName(gpu) {
  if (SHORT[gpu.id]) return SHORT[gpu.id];
  return String(gpu.name ?? gpu.id)
    .replace(/\s*\(.*?\)/g, "")
    .replace(/\s+\/.*$/, "")
    .replace(/^(NVIDIA|AMD|Intel|Google|AWS)\s+/i, "")
    .replace(/^(Tesla|Instinct|GeForce|Cloud|Huawei)\s+/i, "")
    .replace(/\s+(family)$/i, "")
    .replace(/\s+/g, " ")
    .trim();
}

// "Qwen2.5 72B" -> "Qwen": presets are grouped by family in the lists.
const family = (name) => (/^[A-Za-z]+/.exec(String(name)) ?? [String(name)])[0];

export const MODELS = CATALOG_MODELS.map((m) => ({
  id: m.id,
  label: m.name ?? m.id,
  family: family(m.name ?? m.id),
  params: m.published_params ?? null,
  shape: m,
}));

// Only accelerators with every key spec the models need (the core's missing_specs, from
// the build): an incomplete one stays usable by id in a scenario, with its gaps named.
export const GPUS = CATALOG_GPUS.filter((g) => !(g.missing_specs?.length)).map((g) => ({
  id: g.id,
  label: g.name ?? g.id,
  vendor: g.vendor ?? "",
  short: shortName(g),
  short_zh: SHORT_ZH[g.id] ?? shortName(g),
  specs: g,
}));

export const DEFAULT_SCENARIO = catalog.DEFAULT_SCENARIO;
// The native CLI's answer and search for exactly DEFAULT_SCENARIO, made at build time, are
// in prebuilt.js (app.js imports it when it draws them).
// The catalog USD↔CNY rate (data/currency.json): {value, date, source, confidence}.
export const USD_CNY = catalog.USD_CNY ?? null;
export const DEFAULT_SCENARIO_URL = "examples/llama-3.1-70b-h100.json";

export const modelById = (id) => MODELS.find((m) => m.id === id) ?? null;
export const gpuById = (id) => GPUS.find((g) => g.id === id) ?? null;
