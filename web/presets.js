// Preset ids known to the core's embedded catalogs (data/models.json, data/gpus.json).
// Hard-coded until the core exposes a catalog call.
export const MODELS = [
  { id: "llama-3.1-8b", label: "Llama 3.1 8B" },
  { id: "llama-3.1-70b", label: "Llama 3.1 70B" },
  { id: "llama-3.1-405b", label: "Llama 3.1 405B" },
  { id: "qwen2.5-72b", label: "Qwen2.5 72B" },
  { id: "gpt3-175b", label: "GPT-3 175B" },
];

// `short` is the name used in the headline ("512 × H100").
export const GPUS = [
  { id: "a100-sxm-40gb", label: "A100 SXM 40GB", short: "A100 40GB" },
  { id: "a100-sxm-80gb", label: "A100 SXM 80GB", short: "A100 80GB" },
  { id: "h100-sxm-80gb", label: "H100 SXM 80GB", short: "H100" },
  { id: "h800-sxm-80gb", label: "H800 SXM 80GB", short: "H800" },
  { id: "h20-96gb", label: "H20 96GB", short: "H20" },
  { id: "h200-sxm-141gb", label: "H200 SXM 141GB", short: "H200" },
];

export const DEFAULT_SCENARIO_URL = "examples/llama-3.1-70b-h100.json";
