#!/usr/bin/env node
// MosaicML llm-foundry's MPT training benchmarks, every row, run through the native CLI:
// PyTorch FSDP (Composer) on 8 to 512 GPUs, 125M to 70B parameters, sequences of 512 to
// 65,536 tokens, H100 and A100 — a check on runs the model was never tuned on, like
// docs/archive-sweep.md for Megatron-Bridge. It does not count toward the targets or the
// ranges.
//
//   node scripts/foundry-sweep.mjs                read validation/archive/llm-foundry-mpt.json,
//                                                 print the summary, write docs/foundry-sweep.md
//   node scripts/foundry-sweep.mjs --extract README.md
//                                                 rebuild that JSON from the benchmark README
//                                                 (mosaicml/llm-foundry
//                                                 scripts/train/benchmarking/README.md), then sweep
//   --no-write                                    print only
//   --check                                       exit 1 when docs/foundry-sweep.md is not this run's
//
// How a table row becomes a scenario (docs/foundry-sweep.md repeats this):
// - Model: the MPT yaml of its size (scripts/train/yamls/pretrain/mpt-*.yaml: d_model,
//   n_heads, n_layers; expansion ratio 4, vocabulary 50,368, GELU MLP, LayerNorm, no
//   biases, tied embeddings), with a learned position embedding of the run's sequence
//   length: the table's NumParams grows with it by d_model per position, which the
//   script checks against gpucalc's count.
// - GPU: h100_80gb -> h100-sxm-80gb (the README states no network; the catalog's 400 Gb/s
//   per GPU); a100_80gb / a100_40gb -> a100-sxm-80gb / -40gb with the tables' stated
//   "1600 Gbps node-node interconnect (RoCE)", 200 Gb/s per GPU.
// - Precision: amp_bf16 and bf16 -> bf16; amp_fp8 -> fp8 (Transformer Engine, delayed
//   scaling, its default then). MP Mode (Composer's FSDP mixed precision): DEFAULT reduces
//   gradients in fp32, PURE in bf16 (training.grad_dtype).
// - Sharding: FULL_SHARD -> ZeRO-3, SHARD_GRAD_OP -> ZeRO-2, over all the GPUs (dp = GPUs,
//   no TP or PP). Activation checkpointing True -> recompute "full", False -> "none".
// - Batch: MicroBatchSize and GlobalBatchSize (sequences) as printed.
// - Framework "torchtitan": gpucalc's PyTorch-native profile (eager element-wise ops,
//   FlashAttention; MPT's triton FlashAttention is taken at the profile's rates).
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { abspct, median, pct, stats, statsLine, STATS_HEAD } from "./sweep-stats.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.resolve(ROOT, process.env.GPUCALC_CLI ?? "build/native/cli/gpucalc");
const DATA = path.join(ROOT, "validation/archive/llm-foundry-mpt.json");
const DOC = path.join(ROOT, "docs/foundry-sweep.md");
const SOURCE = {
  repo: "mosaicml/llm-foundry",
  path: "scripts/train/benchmarking/README.md",
  commit: "8c8dd48f7",
  note: "The README's five result tables (H100 80GB BF16 at >= 128 GPUs and below, H100 80GB FP8, A100 80GB and A100 40GB 'with 1600 Gbps node-node interconnect (RoCE)'), as printed; last edited in 495218376 (2024-04-22).",
};

// MPT sizes: d_model, n_heads, n_layers (the yamls named above).
const SHAPES = {
  "125m": [768, 12, 12], "350m": [1024, 16, 24], "760m": [1536, 12, 24], "1b": [2048, 16, 24], "3b": [2560, 20, 32],
  "7b": [4096, 32, 32], "13b": [5120, 40, 40], "30b": [7168, 56, 48], "70b": [8192, 64, 80],
};
const GPUS = {
  h100_80gb: "h100-sxm-80gb",
  a100_80gb: { base: "a100-sxm-80gb", scaleout_gbps: 200 },
  a100_40gb: { base: "a100-sxm-40gb", scaleout_gbps: 200 },
};

// ---- The README's tables -> rows (every column as printed, plus the table's title).
function extract(markdown) {
  const rows = [];
  let table = null, header = null;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("## ")) { table = line.slice(3).trim(); header = null; continue; }
    if (!line.startsWith("|") || !table) continue;
    const cells = line.split("|").slice(1, -1).map((c) => c.trim());
    if (!header) { header = cells; continue; }
    if (cells[0].startsWith("---")) continue;
    rows.push({ table, ...Object.fromEntries(header.map((h, i) => [h, cells[i]])), row: line.trim() });
  }
  return { about: "llm-foundry MPT training benchmark rows, as printed (scripts/foundry-sweep.mjs --extract).", source: SOURCE, rows };
}

function toScenario(r) {
  const shape = SHAPES[r.Model];
  const gpu = GPUS[r.GPU];
  if (!shape || !gpu) return { skip: `no mapping for ${r.Model} on ${r.GPU}` };
  const [d, heads, layers] = shape;
  const seq = Number(r["SeqLen (T)"]), gpus = Number(r["# GPUs"]);
  const fp8 = /fp8/.test(r.Precision);
  return {
    name: `MPT-${r.Model}, ${gpus} ${r.GPU}, seq ${seq}`,
    model: { name: `MPT-${r.Model}`, layers, hidden: d, heads, ffn_hidden: 4 * d, vocab: 50368, ffn_act: "gelu", norm: "layernorm",
      tied_embeddings: true, position_embedding: "learned", max_position_embeddings: seq },
    gpu,
    training: {
      tokens: 1e12, seq_len: seq, global_batch: Number(r.GlobalBatchSize), micro_batch: Number(r.MicroBatchSize),
      precision: fp8 ? "fp8" : "bf16", ...(fp8 ? { fp8_recipe: "delayed" } : {}),
      grad_dtype: r["MP Mode"] === "PURE" ? "bf16" : "fp32",
      zero_stage: r["Sharding Strategy"] === "SHARD_GRAD_OP" ? 2 : 3,
      recompute: r["Activation Checkpointing"] === "True" ? "full" : "none",
      framework: "torchtitan",
    },
    parallel: { gpus, tp: 1, pp: 1, dp: gpus },
  };
}

// ---- The sweep.

function sweep(data) {
  return data.rows.map((r) => {
    const base = { table: r.table, model: r.Model, seq: Number(r["SeqLen (T)"]), gpus: Number(r["# GPUs"]), gpu: r.GPU, mb: r.MicroBatchSize,
      ac: r["Activation Checkpointing"] === "True", sharding: r["Sharding Strategy"], precision: r.Precision, row: r.row };
    const s = toScenario(r);
    if (s.skip) return { ...base, skip: s.skip };
    const out = spawnSync(CLI, ["evaluate", "-"], { input: JSON.stringify(s), encoding: "utf8" });
    if (out.status !== 0) return { ...base, skip: `refused: ${out.stderr.trim().replace(/^gpucalc: /, "").split("\n")[0]}` };
    const v = JSON.parse(out.stdout);
    const measured = Number(r["Throughput (T/s/GPU)"]);
    const predicted = v.performance.tokens_per_s_per_gpu;
    const ratio = predicted / measured;  // measured time / predicted time
    const q = v.uncertainty.time.ratio;
    return { ...base, measured, predicted, error: ratio - 1, inside: q && ratio >= q.p10 && ratio <= q.p90,
      params_error: v.model.params / Number(r.NumParams) - 1, memory: v.memory.used_fraction };
  });
}


function report(results) {
  const done = results.filter((x) => !x.skip);
  const line = statsLine, head = STATS_HEAD;
  const group = (key) => [...new Set(done.map(key))].map((k) => line(k, stats(done.filter((x) => key(x) === k))));
  const bySeq = (x) => (x.seq <= 2048 ? "sequence <= 2,048" : x.seq <= 8192 ? "sequence 4,096-8,192" : "sequence >= 16,384");
  const byGpus = (x) => (x.gpus <= 8 ? "8 GPUs (one node)" : x.gpus <= 64 ? "16-64 GPUs" : "128-512 GPUs");
  const params = Math.max(...done.map((x) => Math.abs(x.params_error)));
  const short = stats(done.filter((x) => x.seq <= 2048)), long = stats(done.filter((x) => x.seq >= 16384));
  const overMem = done.filter((x) => x.memory > 1).length, maxMem = Math.max(...done.map((x) => x.memory));
  const skipped = results.filter((x) => x.skip).map((x) => `- ${x.row}: ${x.skip}`);
  const rows = done.map((x) => `| ${x.table} | ${x.model} | ${x.seq} | ${x.gpus} | ${x.mb} | ${x.sharding}${x.ac ? ", AC" : ""} | ${x.precision} | ${x.measured} | ${x.predicted.toFixed(0)} | ${pct(x.error)} | ${x.inside ? "yes" : "no"} | ${(x.memory * 100).toFixed(0)}% |`);
  return `# llm-foundry sweep: MosaicML's MPT training benchmarks

Generated by \`node scripts/foundry-sweep.mjs\` from \`validation/archive/llm-foundry-mpt.json\`
(${SOURCE.repo} \`${SOURCE.path}\` at ${SOURCE.commit}, every row of its five result tables,
as printed). Do not edit by hand.

MosaicML trained MPT models of 125M to 70B parameters with PyTorch FSDP (Composer) on 8 to
512 GPUs and published the throughput of each run. None of these rows was used to build or
tune gpucalc; like [archive-sweep.md](archive-sweep.md) for Megatron-Bridge, this shows how
the model does on runs it has never seen, here on the PyTorch-native profile. It does not
count toward the targets or the ranges. Error = predicted / measured tokens/s per GPU − 1
(negative: the model is too slow); "inside P10-P90" uses the range the answer prints.

How a row becomes a scenario: the MPT yaml of its size (d_model, heads, layers; expansion
ratio 4, vocabulary 50,368, GELU, LayerNorm, no biases, tied embeddings) with a learned
position embedding of the run's length (the table's NumParams grows by d_model per position;
gpucalc's count is within ${abspct(params)} of it on every row); H100 on the catalog's
network (the README gives none), A100 with the tables' 1,600 Gb/s per node (200 Gb/s per
GPU); amp_bf16 and bf16 as bf16, amp_fp8 as FP8 with delayed scaling; Composer's DEFAULT
mixed precision reduces gradients in fp32, PURE in bf16; FULL_SHARD as ZeRO-3,
SHARD_GRAD_OP as ZeRO-2 over all the GPUs; activation checkpointing as full recomputation;
the micro-batch and global batch as printed; gpucalc's PyTorch-native profile
(\`framework: "torchtitan"\`).

What it shows. Runs of sequences up to 2,048 tokens — most of the rows, and the large-scale
ones on up to 512 GPUs — come out close: ${abspct(short.median)} median, ${pct(short.signed)} signed,
${short.inside} of ${short.n} inside the printed range. Longer sequences come out too fast, the
more so the more of the step is attention (${abspct(long.median)} median from 16,384 tokens up,
small models worst). These runs used MPT's Triton FlashAttention kernel:
\`submit_benchmarks.py\` defaults \`--attn_impl\` to \`triton\` and \`sweep.sh\` does not
override it; FlashAttention-2, whose rates gpucalc's profiles carry for PyTorch stacks, is
"1.3-2.5× faster than FlashAttention in Triton" (Dao 2023, §4.1). gpucalc has no switch for an
older attention kernel, so these rows stay as they are and say so.

Memory: Composer chose these micro-batches to fit (\`device_train_microbatch_size\`), so
every run's peak was within its card. gpucalc's predicted device total (last column, with
its CUDA context, NCCL buffers and fragmentation allowance) is above the card on
${overMem} of ${done.length} rows, by up to ${abspct(maxMem - 1)}: mostly small models with very
large micro-batches, where the output layer's logits and the loss (priced at 12 B per logit:
fp32 log-softmax and its gradient, as PyTorch's loss keeps them) and the saved activations
dominate. llm-foundry's default loss, flash-attn's fused cross-entropy (\`loss_fn:
fused_crossentropy\`, \`llmfoundry/models/mpt/modeling_mpt.py\`), keeps no fp32 copy: about 4 B
per logit (the bf16 logits and their gradient). gpucalc has no switch for a fused loss, so
its estimate is conservative here.

## By table

${head}
${line("all", stats(done))}
${group((x) => x.table).join("\n")}

## By sequence length, GPU count and checkpointing

${head}
${group(bySeq).join("\n")}
${group(byGpus).join("\n")}
${group((x) => (x.ac ? "activation checkpointing" : "no checkpointing")).join("\n")}

## Skipped (${skipped.length})

${skipped.length ? skipped.join("\n") : "None."}

## Every row

| table | model | sequence | GPUs | micro-batch | sharding | precision | measured tokens/s/GPU | predicted | error | inside P10-P90 | memory used |
|---|---|---:|---:|---:|---|---|---:|---:|---:|---|---:|
${rows.join("\n")}
`;
}

// ---- Main.
const args = process.argv.slice(2);
const ex = args.indexOf("--extract");
let data;
if (ex >= 0) {
  data = extract(readFileSync(args[ex + 1], "utf8"));
  writeFileSync(DATA, `${JSON.stringify(data, null, 1)}\n`);
} else {
  data = JSON.parse(readFileSync(DATA, "utf8"));
}
const results = sweep(data);
const done = results.filter((x) => !x.skip);
const s = stats(done);
console.log(`${done.length} rows (${results.length - done.length} skipped): median ${abspct(s.median)}, mean ${abspct(s.mean)}, max ${abspct(s.max)}, signed ${pct(s.signed)}, inside P10-P90 ${s.inside}/${s.n}`);
for (const t of [...new Set(done.map((x) => x.table))]) {
  const st = stats(done.filter((x) => x.table === t));
  console.log(`  ${t}: n ${st.n}, median ${abspct(st.median)}, max ${abspct(st.max)}, signed ${pct(st.signed)}`);
}
const doc = report(results);
if (args.includes("--check")) {
  if (readFileSync(DOC, "utf8") !== doc) {
    console.error("docs/foundry-sweep.md is stale: run node scripts/foundry-sweep.mjs and commit the result");
    process.exit(1);
  }
} else if (!args.includes("--no-write")) {
  writeFileSync(DOC, doc);
}
