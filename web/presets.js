// Presets the page offers, from the core's own catalogs: scripts/build generates
// catalog.js from data/models.json and data/gpus.json (and the default example),
// so the lists never drift from what the core knows.
import { CATALOG_GPUS, CATALOG_MODELS, DEFAULT_SCENARIO as DEFAULT, SPEC_SOURCES } from "./catalog.js";

// Names short enough for the headline ("512 × H100").
const SHORT = {
  "v100-sxm2-32gb": "V100",
  "a100-sxm-40gb": "A100 40GB",
  "a100-sxm-80gb": "A100 80GB",
  "a800-sxm-80gb": "A800",
  "h100-sxm-80gb": "H100",
  "h100-pcie-80gb": "H100 PCIe",
  "h800-sxm-80gb": "H800",
  "h20-96gb": "H20",
  "h200-sxm-141gb": "H200",
  "b200-180gb": "B200",
  "mi300x-192gb": "MI300X",
  "mi325x-256gb": "MI325X",
  "gaudi3-128gb": "Gaudi 3",
  "ascend-910b": "Ascend 910B",
};
const SHORT_ZH = { "ascend-910b": "昇腾 910B" };

function shortName(gpu) {
  if (SHORT[gpu.id]) return SHORT[gpu.id];
  return String(gpu.name ?? gpu.id)
    .replace(/\(.*?\)/g, "")
    .replace(/^(NVIDIA|AMD Instinct|AMD|Intel|Huawei|Tesla)\s+/i, "")
    .trim();
}

export const MODELS = CATALOG_MODELS.map((m) => ({
  id: m.id,
  label: m.name ?? m.id,
  params: m.published_params ?? null,
  shape: m,
}));

export const GPUS = CATALOG_GPUS.map((g) => ({
  id: g.id,
  label: g.name ?? g.id,
  vendor: g.vendor ?? "",
  short: shortName(g),
  short_zh: SHORT_ZH[g.id] ?? shortName(g),
  specs: g,
}));

export const DEFAULT_SCENARIO = DEFAULT;
export { SPEC_SOURCES };
export const DEFAULT_SCENARIO_URL = "examples/llama-3.1-70b-h100.json";

export const modelById = (id) => MODELS.find((m) => m.id === id) ?? null;
export const gpuById = (id) => GPUS.find((g) => g.id === id) ?? null;
