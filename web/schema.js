// Every field of the scenario format (docs/scenario-format.md), as the Expert
// form shows it, and the helpers that read and write a scenario by JSON pointer.
// A blank field is an absent field: the core applies its default or chooses.
//
// kind: "amount" (number, accepts 15T / 1.5万亿), "int", "num", "enum", "bool", "text",
//       "multi" (an array of some of `options`, as checkboxes; optionShow: the relevance
//       flag an option needs; defaultAll: absent means every option that applies).
// def:  how the default is shown — {value} a documented constant, {chosen: key}
//       chosen by the calculator (the last answer's plan[key] is shown), {preset: key}
//       the preset's value ("moe.experts": a nested one), {none: true} no default
//       (absent means "not set").
// show: a flag of jobtype.js relevance() ("moe", "mla", "lora", "qlora", "finetune"):
//       the field shows only when it applies (or is set).

export const GROUPS = [
  {
    id: "model",
    fields: [
      { path: "/model", kind: "model-preset" },
      { path: "/model/layers", kind: "int", def: { preset: "layers" } },
      { path: "/model/hidden", kind: "int", def: { preset: "hidden" } },
      { path: "/model/heads", kind: "int", def: { preset: "heads" } },
      { path: "/model/kv_heads", kind: "int", def: { preset: "kv_heads", fallback: "heads" } },
      { path: "/model/head_dim", kind: "int", def: { preset: "head_dim", fallback: "hidden/heads" } },
      { path: "/model/ffn_hidden", kind: "int", def: { preset: "ffn_hidden" } },
      { path: "/model/vocab", kind: "int", def: { preset: "vocab" } },
      { path: "/model/ffn_act", kind: "enum", options: ["swiglu", "gelu"], def: { preset: "ffn_act", value: "swiglu" } },
      { path: "/model/norm", kind: "enum", options: ["rmsnorm", "layernorm"], def: { preset: "norm", value: "rmsnorm" } },
      { path: "/model/position_embedding", kind: "enum", options: ["rope", "learned"], def: { preset: "position_embedding", value: "rope" } },
      { path: "/model/max_position_embeddings", kind: "int", def: { preset: "max_position_embeddings", none: true } },
      { path: "/model/tied_embeddings", kind: "bool", def: { preset: "tied_embeddings", value: false } },
      { path: "/model/qkv_bias", kind: "bool", def: { preset: "qkv_bias", value: false } },
      { path: "/model/linear_bias", kind: "bool", def: { preset: "linear_bias", value: false } },
      { path: "/model/dropout", kind: "bool", def: { preset: "dropout", value: false } },
      { path: "/model/name", kind: "text", def: { preset: "name", none: true } },
    ],
  },
  {
    id: "moe",
    key: "model.moe · model.attention",
    fields: [
      { path: "/model/moe/experts", kind: "int", def: { preset: "moe.experts", none: true } },
      { path: "/model/moe/top_k", kind: "int", def: { preset: "moe.top_k", none: true }, show: "moe" },
      { path: "/model/moe/expert_ffn_hidden", kind: "int", def: { preset: "moe.expert_ffn_hidden", none: true }, show: "moe" },
      { path: "/model/moe/shared_experts", kind: "int", def: { preset: "moe.shared_experts", value: 0 }, show: "moe" },
      { path: "/model/moe/shared_expert_ffn_hidden", kind: "int", def: { preset: "moe.shared_expert_ffn_hidden", value: 0 }, show: "moe" },
      { path: "/model/moe/shared_expert_gate", kind: "bool", def: { preset: "moe.shared_expert_gate", value: false }, show: "moe" },
      { path: "/model/moe/first_dense_layers", kind: "int", def: { preset: "moe.first_dense_layers", value: 0 }, show: "moe" },
      { path: "/model/moe/router_bias", kind: "bool", def: { preset: "moe.router_bias", value: false }, show: "moe" },
      { path: "/model/moe/load_imbalance", kind: "num", def: { preset: "moe.load_imbalance", value: 1 }, show: "moe" },
      { path: "/model/moe/capacity_factor", kind: "num", def: { preset: "moe.capacity_factor", none: true }, show: "moe" },
      { path: "/model/attention/type", kind: "enum", options: ["mha", "mla"], def: { preset: "attention.type", value: "mha" } },
      { path: "/model/attention/q_lora_rank", kind: "int", def: { preset: "attention.q_lora_rank", value: 0 }, show: "mla" },
      { path: "/model/attention/kv_lora_rank", kind: "int", def: { preset: "attention.kv_lora_rank", none: true }, show: "mla" },
      { path: "/model/attention/qk_nope_head_dim", kind: "int", def: { preset: "attention.qk_nope_head_dim", none: true }, show: "mla" },
      { path: "/model/attention/qk_rope_head_dim", kind: "int", def: { preset: "attention.qk_rope_head_dim", none: true }, show: "mla" },
      { path: "/model/attention/v_head_dim", kind: "int", def: { preset: "attention.v_head_dim", none: true }, show: "mla" },
    ],
  },
  {
    id: "gpu",
    fields: [
      { path: "/gpu", kind: "gpu-preset" },
      { path: "/gpu/memory_gib", kind: "num", def: { spec: "memory_gib" } },
      { path: "/gpu/bf16_tflops", kind: "num", def: { spec: "bf16_tflops" } },
      { path: "/gpu/fp16_tflops", kind: "num", def: { spec: "fp16_tflops" } },
      { path: "/gpu/fp8_tflops", kind: "num", def: { spec: "fp8_tflops" } },
      { path: "/gpu/memory_bw_tbs", kind: "num", def: { spec: "memory_bw_tbs" } },
      { path: "/gpu/scaleup_gbs", kind: "num", def: { spec: "scaleup_gbs" } },
      { path: "/gpu/scaleup_domain", kind: "int", def: { spec: "scaleup_domain" } },
      { path: "/gpu/scaleout_gbps", kind: "num", def: { spec: "scaleout_gbps" } },
      { path: "/gpu/tdp_w", kind: "num", def: { spec: "tdp_w" } },
      { path: "/gpu/efficiency", kind: "num", def: { spec: "efficiency" } },
    ],
  },
  {
    id: "training",
    fields: [
      { path: "/training/tokens", kind: "amount", def: { none: true } },
      { path: "/training/seq_len", kind: "int", required: true },
      { path: "/training/global_batch", kind: "int", def: { chosen: "global_batch" } },
      { path: "/training/global_batch_tokens", kind: "amount", def: { chosen: "global_batch_tokens" } },
      { path: "/training/micro_batch", kind: "int", def: { chosen: "micro_batch" } },
      { path: "/training/precision", kind: "enum", options: ["bf16", "fp16", "fp8"], def: { value: "bf16" } },
      { path: "/training/recompute", kind: "enum", options: ["none", "selective", "full"], def: { chosen: "recompute" } },
      {
        path: "/training/recompute_modules",
        kind: "multi",
        options: ["core_attn", "layernorm", "mlp", "moe_act", "moe", "shared_experts", "mla_up_proj"],
        optionShow: { moe_act: "moe", moe: "moe", shared_experts: "moe", mla_up_proj: "mla" },
        def: { chosen: "recompute_modules" },
      },
      { path: "/training/zero_stage", kind: "enum", options: [0, 1, 2, 3], def: { chosen: "zero_stage" } },
      { path: "/training/flash_attention", kind: "bool", def: { value: true } },
      { path: "/training/sequence_parallel", kind: "bool", def: { value: true } },
      { path: "/training/fp8_recipe", kind: "enum", options: ["tensorwise", "delayed", "mxfp8"], def: { value: "tensorwise" } },
      { path: "/training/torch_compile", kind: "bool", def: { value: false } },
      { path: "/training/framework", kind: "enum", options: ["megatron", "torchtitan", "deepspeed", "hf", "torchtune"], def: { value: "megatron" } },
    ],
  },
  {
    id: "job",
    key: "training.stage · lora · dataset",
    fields: [
      { path: "/training/stage", kind: "enum", options: ["pretrain", "full_finetune", "lora", "qlora"], def: { value: "pretrain" } },
      { path: "/training/dataset/samples", kind: "amount", def: { none: true }, show: "finetune" },
      { path: "/training/dataset/avg_tokens", kind: "num", def: { none: true }, show: "finetune" },
      { path: "/training/dataset/epochs", kind: "num", def: { value: 1 }, show: "finetune" },
      { path: "/training/lora/rank", kind: "int", def: { value: 16 }, show: "lora" },
      { path: "/training/lora/alpha", kind: "num", def: { value: 32 }, show: "lora" },
      {
        path: "/training/lora/targets",
        kind: "multi",
        options: ["q", "k", "v", "o", "gate", "up", "down"],
        optionShow: { gate: "gated" }, // a GELU MLP has no gate
        defaultAll: true, // absent = every one that applies
        def: { value: "all" },
        show: "lora",
      },
      { path: "/training/lora/double_quant", kind: "bool", def: { value: true }, show: "qlora" },
      { path: "/training/lora/paged_optimizer", kind: "bool", def: { value: false }, show: "qlora" },
      { path: "/training/lora/base_dtype", kind: "enum", options: ["bf16", "fp16", "fp32"], def: { value: "bf16" }, show: "lora" },
    ],
  },
  {
    id: "memory",
    key: "training.optimizer · master_weights · offload",
    fields: [
      { path: "/training/optimizer", kind: "enum", options: ["adamw", "adam8bit", "sgd", "lion", "adafactor"], def: { value: "adamw" } },
      { path: "/training/master_weights", kind: "bool", def: { value: true } },
      { path: "/training/offload/optimizer", kind: "bool", def: { value: false } },
      { path: "/training/offload/params", kind: "bool", def: { value: false } },
      { path: "/training/offload/pcie_gbs", kind: "num", def: { none: true } },
      { path: "/training/offload/host_memory_bw_gbs", kind: "num", def: { none: true } },
      { path: "/training/optimizer_in_backward", kind: "bool", def: { value: false } },
      { path: "/training/activation_offload", kind: "bool", def: { value: false } },
    ],
  },
  {
    id: "parallel",
    fields: [
      ...["gpus", "tp", "pp", "dp", "cp", "ep", "etp", "vpp"].map((k) => ({
        path: `/parallel/${k}`,
        kind: "int",
        def: { chosen: k },
        show: k === "ep" || k === "etp" ? "moe" : undefined,
      })),
      { path: "/parallel/shard", kind: "int", def: { chosen: "shard" } },
      { path: "/training/overlap_tp_comm", kind: "bool", def: { value: false } },
      { path: "/parallel/first_stage_layers", kind: "int", def: { none: true } },
      { path: "/parallel/last_stage_layers", kind: "int", def: { none: true } },
      { path: "/training/moe_dispatcher", kind: "enum", options: ["alltoall", "deepep"], def: { value: "alltoall" }, show: "moe" },
      { path: "/training/overlap_moe_comm", kind: "bool", def: { value: false }, show: "moe" },
    ],
  },
  {
    id: "target",
    fields: [{ path: "/target/days", kind: "num", def: { none: true } }],
  },
  {
    id: "assume",
    fields: [
      { path: "/assume/mfu", kind: "num", def: { none: true } },
      { path: "/assume/hfu", kind: "num", def: { none: true } },
      { path: "/assume/cuda_context_gib", kind: "num", def: { value: 1 } },
      { path: "/assume/nccl_buffer_mib", kind: "num", def: { value: 128 } },
      { path: "/assume/fragmentation", kind: "num", def: { value: 0.08 } },
    ],
  },
  {
    id: "about",
    fields: [
      { path: "/name", kind: "text", def: { none: true } },
      { path: "/description", kind: "text", def: { none: true } },
    ],
  },
];

export const FIELDS = GROUPS.flatMap((g) => g.fields);
export const FIELD_BY_PATH = new Map(FIELDS.map((f) => [f.path, f]));

// "/training/seq_len" -> ["training", "seq_len"] (RFC 6901 unescaping).
export function tokens(path) {
  if (path === "" || path === "/") return [];
  return path.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

export function getPath(obj, path) {
  let cur = obj;
  for (const key of tokens(path)) {
    if (!isObject(cur) || !Object.hasOwn(cur, key)) return undefined;
    cur = cur[key];
  }
  return cur;
}

// Sets (or, with undefined, deletes) a value; optional sections left empty are removed.
// A preset id under /model or /gpu becomes {base: id, ...} when a field below it is set,
// and collapses back to the id when only base is left.
export function setPath(scenario, path, value) {
  const keys = tokens(path);
  if (keys.length === 0) return;
  const [root, ...rest] = keys;
  if ((root === "model" || root === "gpu") && rest.length === 1) {
    let node = scenario[root];
    if (typeof node === "string") node = { base: node };
    if (!isObject(node)) node = {};
    if (value === undefined) delete node[rest[0]];
    else node[rest[0]] = value;
    const left = Object.keys(node);
    scenario[root] = left.length === 1 && left[0] === "base" && typeof node.base === "string" ? node.base : node;
    return;
  }
  if ((root === "model" || root === "gpu") && typeof scenario[root] === "string") {
    if (value === undefined) return;
    scenario[root] = { base: scenario[root] }; // "/model/moe/experts" on a preset: {base, moe: {experts}}
  }
  let cur = scenario;
  const parents = [];
  for (const key of keys.slice(0, -1)) {
    if (!isObject(cur[key])) {
      if (value === undefined) return;
      cur[key] = {};
    }
    parents.push([cur, key]);
    cur = cur[key];
  }
  const last = keys[keys.length - 1];
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  // Drop optional sections that became empty (and any emptied object below a section:
  // training.lora, training.offload, model.moe, …).
  for (const [i, [parent, key]] of [...parents.entries()].reverse()) {
    if ((i > 0 || ["parallel", "target", "assume"].includes(key)) && isObject(parent[key]) && Object.keys(parent[key]).length === 0) {
      delete parent[key];
    }
  }
  if (root === "model" || root === "gpu") {
    const node = scenario[root];
    const left = isObject(node) ? Object.keys(node) : [];
    if (left.length === 1 && left[0] === "base" && typeof node.base === "string") scenario[root] = node.base;
  }
}

// The preset id a model or gpu value starts from (string id, or object base), else null.
export function baseOf(value) {
  if (typeof value === "string") return value;
  if (isObject(value) && typeof value.base === "string") return value.base;
  return null;
}

// Fields of /model or /gpu set beside the preset (excluding base).
export function overridesOf(value) {
  if (!isObject(value)) return {};
  const { base, ...rest } = value;
  return rest;
}

// Input text for a stored value. Amounts show as "15T" (zh: "15万亿") only when
// that is exact, so reading the text back gives the same number.
export function textOf(value, kind, lang = "en") {
  if (value === undefined || value === null) return "";
  if (kind === "amount" && typeof value === "number") return exactAmount(value, lang);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

const UNITS = {
  en: [
    [1e12, "T"],
    [1e9, "B"],
    [1e6, "M"],
  ],
  zh: [
    [1e12, "万亿"],
    [1e8, "亿"],
    [1e4, "万"],
  ],
};

export function exactAmount(v, lang = "en") {
  if (!Number.isFinite(v)) return String(v);
  for (const [scale, suffix] of UNITS[lang] ?? UNITS.en) {
    if (Math.abs(v) >= scale) {
      const m = v / scale;
      const r = Math.round(m * 1000) / 1000;
      if (r * scale === v) return `${r}${suffix}`;
    }
  }
  return String(v);
}
