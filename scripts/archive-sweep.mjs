#!/usr/bin/env node
// The Megatron-Bridge performance archive, every pre-training row gpucalc can express,
// run through the native CLI: a wider check than validation/ (whose rows each carry a
// recipe read by hand), with a mapping that is mechanical and therefore rougher.
//
//   node scripts/archive-sweep.mjs                  read validation/archive/megatron-bridge-pretrain.json,
//                                                   print the summary, write docs/archive-sweep.md
//   node scripts/archive-sweep.mjs --extract A.md [B.md ...]
//                                                   rebuild that JSON from the archive's markdown
//                                                   (docs/performance-summary-archive.md and
//                                                   docs/performance-summary.md of
//                                                   NVIDIA-NeMo/Megatron-Bridge), then sweep
//   --no-write                                      print only
//   --check                                         exit 1 when docs/archive-sweep.md is not this run's
//
// How a table row becomes a scenario (docs/archive-sweep.md repeats this):
// - System -> accelerator preset (DGX-H100 h100-sxm-80gb, DGX-B200 b200-180gb, DGX-B300
//   b300-288gb, DGX-GB200 gb200-186gb, DGX-GB300 gb300-279gb).
// - Model -> the counted validation/ rows of the same model are the templates: the row of
//   the same system and release if there is one, else the same system, else the same
//   release, else any; among several, the nearest release (the earlier of two as near),
//   whose recipe has changed least (the first by name before 2026-12-04, which took
//   25.11's recipes for 26.08's runs). The template gives what the table does not print (recomputation,
//   dispatcher and A2A overlap, the MTP layer, gpt-oss's shape, gradient dtype), so a
//   sweep row inherits a neighbour's recipe reading rather than its own.
// - Where a commit of the snapshot's history printed a release's table, the MoE runs whose
//   recipes were read there take what those set (RECIPE_READ: 26.06's Qwen3 on GB300,
//   26.06.01's and 26.08's MXFP8 runs on GB200 and GB300): full-iteration graphs, HybridEP,
//   A2A overlap.
// - Activation offloading (the Megatron-FSDP recipes' cpu_offloading_num_layers, not printed)
//   comes from a template of the same system and precision only, on a row with FSDP and PP 1.
// - VP "n/a" with PP > 1 is vpp 1 (no interleaving), and such a run takes no EP all-to-all
//   overlap from its template (Megatron-Core requires interleaving for it when PP > 1).
// - The table gives GPUs, precision, GBS, MBS, sequence length, TP, PP, CP, VP, EP and
//   FSDP (> 0: ZeRO-3). BF16 -> bf16; FP8, FP8-CS -> fp8; FP8-MX, MXFP8 -> fp8 with
//   fp8_recipe mxfp8; NVFP4 -> fp4 (Megatron-Bridge's bf16_with_nvfp4_mixed). The 25.09 tables print no
//   precision column; their values are FP8 (their footnote gives the other quantisation
//   granularity in parentheses), taken as fp8. A cell "a (b)" takes a, the table's main
//   configuration.
// - DeepSeek-V3 "(w/o MTP)" / "(w/ MTP)" set the multi-token-prediction layer (0 / 1);
//   25.09's "(tokendrop)" rows are run dropless like the rest (gpucalc has no capacity
//   factor in its time model).
// - DeepSeek-V3's uneven pipeline split (Megatron-Bridge's
//   set_deepseek_v3_pipeline_model_parallel_layout): ceil(61 / PP) layers on the first
//   stage, the rest of the last stage's share on it.
// - Kimi K2 takes DeepSeek-V3's recipe options (TEMPLATE_OF) with its own preset, AdamW
//   for its Muon optimizer.
// - Set aside, listed but out of every summary: rows a footnote of their own table calls a
//   known regression (SET_ASIDE) and rows validation/ sets aside as misprints
//   (SET_ASIDE_AS_IN_VALIDATION), each with its reason.
// - Skipped and counted by reason: models without a preset (the Nemotron 3 hybrids,
//   DeepSeek-V4), layouts gpucalc refuses (Llama 3.1 405B at PP16 x VP8
//   = 128 virtual stages for 126 layers: Megatron-Bridge counts the embedding and the
//   loss as pipeline slots, gpucalc does not).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { abspct, median, pct, stats, statsLine, STATS_HEAD } from "./sweep-stats.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.resolve(ROOT, process.env.GPUCALC_CLI ?? "build/native/cli/gpucalc");
const DATA = path.join(ROOT, "validation/archive/megatron-bridge-pretrain.json");
const SOURCE = {
  repo: "NVIDIA-NeMo/Megatron-Bridge",
  paths: ["docs/performance-summary-archive.md", "docs/performance-summary.md"],
  commit: "067f987df03b8355b03192d88d70f1709fedf51a",
  note: "The 'Pre-Training Performance' tables of every release in the two files (25.09 to 26.08), as printed; the footnote under them: 'In MoE training benchmarks, we force-balance the token distribution among experts and all benchmarks are token-dropless.'",
};
const GPUS = { "DGX-H100": "h100-sxm-80gb", "DGX-B200": "b200-180gb", "DGX-B300": "b300-288gb", "DGX-GB200": "gb200-186gb", "DGX-GB300": "gb300-279gb" };
const MODELS = { LLAMA3_8B: "llama-3.1-8b", LLAMA3_70B: "llama-3.1-70b", "LLAMA3.1_405B": "llama-3.1-405b", DeepSeekV3: "deepseek-v3", "GPT OSS 120B": "gpt-oss-120b", Qwen3_30B_a3B: "qwen3-30b-a3b", Qwen3_235B_a22B: "qwen3-235b-a22b", Kimi_K2: "kimi-k2" };
// A model without a recipe-read row of its own borrows the recipe options of its
// architecture's: Kimi K2 is DeepSeek-V3's architecture, and its Megatron-Bridge recipes
// derive from DeepSeek-V3's (its Muon optimizer is not modelled: it is sized with AdamW).
const TEMPLATE_OF = { "kimi-k2": "deepseek-v3" };

// Rows a table's own footnote flags as not what the configuration runs at (a known
// regression): kept in the list of every row, marked, and left out of every summary, with
// the footnote as the reason (README "How to model honestly": a figure its source calls a
// regression is not evidence about the model). Keyed by the footnote's name, as the cells
// print it ("661[^gpt-oss-note]").
const SET_ASIDE = {
  "gpt-oss-note": "its table's footnote (26.06.01): 'Performance regression in GPT-OSS 120B pre-training is a known issue (https://github.com/NVIDIA/cudnn-frontend/issues/256). It will be resolved with the next container release.' (that issue: the MoE MLP's fused grouped-GEMM dGeGLU backward kernel, grouped_gemm_dglu_wrapper_sm100, ran about 10x slower from cudnn-frontend 1.24). The same layouts ran at 28,947 (GB200) and 33,166 (GB300) tokens/s/GPU in 26.06 and 28,672 and 33,024 in 26.08",
};
// And rows validation/ itself sets aside as misprints (not counted there), by the id of the
// validation row that quotes the same table line.
const SET_ASIDE_AS_IN_VALIDATION = {
  mbridge2511_qwen3_30b_a3b_16xh100_fp8cs: "set aside in validation/ as well (docs/validation.md): the 25.09 table ran this very layout at 10,494 tokens/s and 241 TFLOP/s per GPU, this row prints 5,275 and 121, half of both",
};
const verbatim = (v) => v.notes.match(/verbatim: '([^']*)'/)?.[1]?.replace(/\s+/g, " ");
const validationRow = (id) => JSON.parse(readFileSync(path.join(ROOT, "validation", `${id}.json`), "utf8"));
// And rows whose printed MBS validation/ replaces by the recipe's, because the printed one
// cannot have run (the validation row's notes give the arithmetic): evaluated with the
// validation row's micro-batch.
const MBS_AS_IN_VALIDATION = ["mbridge2511_gptoss120b_64xh100_bf16"];
const mbsFixes = new Map(MBS_AS_IN_VALIDATION.map(validationRow).map((v) => [verbatim(v), v.scenario.training.micro_batch]));
const misprints = new Map(Object.entries(SET_ASIDE_AS_IN_VALIDATION).map(([id, why]) => [verbatim(validationRow(id)), why]));
const setAsideReasons = (r) => [
  ...[...new Set(Object.values(r).join(" ").match(/\[\^[\w-]+\]/g) ?? [])].map((m) => SET_ASIDE[m.slice(2, -1)]),
  misprints.get(r.row.replace(/\s+/g, " ")),
].filter(Boolean);

// ---- Extraction: the markdown tables, one record per row, cells kept as printed.
function extract(files) {
  const rows = [];
  for (const file of files) {
    let release, section, context, header;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      let m;
      if ((m = line.match(/^## ([\d.]+) NeMo Container/))) { release = m[1]; continue; }
      if ((m = line.match(/^### (.*)/))) { section = m[1].trim(); continue; }
      if ((m = line.match(/^#### (Model|System): (.*)/))) { context = { [m[1].toLowerCase()]: m[2].trim() }; header = null; continue; }
      if (!line.startsWith("|") || !release || !/Pre-Training/.test(section ?? "")) continue;
      const cells = line.split("|").slice(1, -1).map((s) => s.trim());
      if (cells[0] === "System" || cells[0] === "Model") { header = cells; continue; }
      if (!header || /^-+$/.test(cells[0])) continue;
      const r = { release, file: path.basename(file), ...context };
      header.forEach((h, i) => (r[h] = cells[i]));
      r.row = line.trim();
      rows.push(r);
    }
  }
  return { about: "Megatron-Bridge pre-training performance rows, as printed (scripts/archive-sweep.mjs --extract).", source: SOURCE, rows };
}

// ---- Mapping a row to a scenario.
const main = (cell) => (cell === undefined ? undefined : String(cell).split("(")[0].trim());
const modelKey = (m) => (typeof m === "string" ? m : m.base ?? (/gpt-oss-120b/i.test(m.name ?? "") ? "gpt-oss-120b" : m.name));

function templates() {
  return readdirSync(path.join(ROOT, "validation"))
    .filter((f) => /^(mbridge|megatron_bridge)/.test(f))
    .map((f) => JSON.parse(readFileSync(path.join(ROOT, "validation", f), "utf8")))
    .filter((v) => v.counts_toward_target && v.reported.tokens_per_s_per_gpu && !v.scenario.training.stage);
}

// The recipes of releases whose tables a commit of the snapshot's history printed, read at
// that commit, for the runs whose settings a template of another release cannot give (its
// graphs are dropped above):
// - 26.06.01 (381d0b825, "26.06.01 perf summary"; recipes last changed at a935b3e6d two days
//   before) and 26.08 (4ab94dfad, "docs: update performance summary for 26.08"): every
//   DeepSeek-V3, gpt-oss-120b and Qwen3 MXFP8 run on GB200 and GB300 sets full-iteration CUDA
//   graphs, the flex dispatcher with the HybridEP backend and the EP all-to-all overlap
//   (src/megatron/bridge/perf_recipes: deepseek/common.py _enable_deepseek_full_iteration_mxfp8
//   with the DeepSeek-V3 recipe's hybridep backend, qwen/common.py
//   _enable_hybridep_full_iteration_mxfp8, gpt_oss/common.py
//   _apply_gpt_oss_120b_full_iter_fp8mx_configs, called by each {gb200,gb300} *_fp8mx_config);
// - 26.06 (63b08b397, "26.06 perf summary"): the Qwen3 MXFP8 runs on GB300 likewise
//   (scripts/performance/configs/qwen/qwen3_workload_base_configs.py
//   QWEN3_30B_A3B_PRETRAIN_CONFIG_GB300_FP8_MX_V1, QWEN3_235B_A22B_PRETRAIN_CONFIG_GB300_FP8_MX_V2:
//   moe_a2a_overlap=True, cuda_graph_impl="full_iteration", on hybridep presets). Kimi K2's
//   GB300 preset of that commit has no overlap: not read further, left to its template.
const HYBRIDEP_FULL_ITERATION = { cuda_graphs: "full_iteration", moe_dispatcher: "deepep", overlap_moe_comm: true };
const onGrace = (r) => /GB[23]00/.test(r.System ?? r.system);
const mx = (precision) => /MX/.test(precision);
const READ_MODELS = new Set(["deepseek-v3", "gpt-oss-120b", "qwen3-30b-a3b", "qwen3-235b-a22b"]);
const GRACE_MXFP8 = { when: (r, precision, model) => READ_MODELS.has(model) && onGrace(r) && mx(precision), training: HYBRIDEP_FULL_ITERATION };
const RECIPE_READ = {
  "26.06": { when: (r, precision, model) => /^qwen3-/.test(model) && /GB300/.test(r.System ?? r.system) && mx(precision), training: HYBRIDEP_FULL_ITERATION },
  "26.06.01": GRACE_MXFP8,
  "26.08": GRACE_MXFP8,
};

// A validation row's release, from its source section ("26.06 NeMo Container, ..."), and
// the order of the releases (25.09 < 25.11 < 26.02 < 26.02.01 < ...).
const releaseOf = (v) => (v.source.section ?? "").match(/^([\d.]+) /)?.[1] ?? "";
const releaseRank = (rel) => {
  const [y = 0, m = 0, p = 0] = String(rel).split(".").map(Number);
  return y * 10000 + m * 100 + p;
};

function toScenario(r, pool) {
  const modelName = (r.Model ?? r.model).replace(/\s*\(.*\)\s*$/, "").trim();
  const model = MODELS[modelName], gpu = GPUS[r.System ?? r.system];
  if (!model) return { skip: `no preset for ${modelName}` };
  if (!gpu) return { skip: `no preset for ${r.System ?? r.system}` };
  const precision = main(r.Precision) ?? (r.release === "25.09" ? "FP8" : undefined);
  if (!precision) return { skip: "no precision" };
  const same = pool.filter((v) => modelKey(v.scenario.model) === (TEMPLATE_OF[model] ?? model));
  if (!same.length) return { skip: `no validation row of ${model}` };
  const score = (v) => (v.scenario.gpu === gpu ? 2 : 0) + (releaseOf(v) === r.release ? 1 : 0);
  // Among equals, the nearest release (its recipe has changed least since), the earlier of
  // two as near; then the id.
  const distance = (v) => Math.abs(releaseRank(releaseOf(v)) - releaseRank(r.release)) * 2 + (releaseRank(releaseOf(v)) > releaseRank(r.release) ? 1 : 0);
  const template = same.slice().sort((a, b) => score(b) - score(a) || distance(a) - distance(b) || a.id.localeCompare(b.id))[0];
  const s = structuredClone(template.scenario);
  // CUDA graphs are a per-release, per-system recipe choice: kept only from a template of
  // the same system and release; otherwise left unset (priced as the measured runs' mix).
  if (score(template) < 3) delete s.training.cuda_graphs;
  const read = RECIPE_READ[r.release];
  const recipeRead = Boolean(read?.when(r, precision, model));
  if (recipeRead) Object.assign(s.training, read.training);
  const n = (k) => Number(main(r[k]));
  const gpus = n("#-GPUs"), tp = n("TP"), pp = n("PP"), cp = n("CP"), ep = n("EP") || 1;
  const vp = ["n/a", undefined].includes(main(r.VP)) ? 1 : n("VP");
  s.name = `${modelName}, ${gpus} ${r.System ?? r.system}, ${precision} (Megatron-Bridge ${r.release})`;
  if (TEMPLATE_OF[model]) s.model = model;
  s.gpu = gpu;
  Object.assign(s.training, { seq_len: n("Sequence Length"), global_batch: n("GBS"), micro_batch: n("MBS"), precision: /BF16/.test(precision) ? "bf16" : /FP4/.test(precision) ? "fp4" : "fp8" });
  s.training.micro_batch = mbsFixes.get(r.row.replace(/\s+/g, " ")) ?? s.training.micro_batch;
  if (/MX/.test(precision)) s.training.fp8_recipe = "mxfp8";
  else delete s.training.fp8_recipe;
  if (Number(main(r.FSDP) ?? 0) > 0) s.training.zero_stage = 3;
  else if (s.training.zero_stage === 3) s.training.zero_stage = 1;
  s.parallel = { gpus, tp, pp, dp: gpus / (tp * pp * cp), cp };
  // Activation offloading (cpu_offloading_num_layers) is a per-system, per-precision choice
  // of the Megatron-FSDP recipes: kept only from a template of the same system and
  // precision, on a row that runs FSDP without a pipeline (Megatron-Core offloads only then).
  if (s.training.offload?.activation_layers) {
    const t = template.scenario.training;
    const keep = template.scenario.gpu === gpu && t.precision === s.training.precision &&
      (t.fp8_recipe ?? "") === (s.training.fp8_recipe ?? "") && pp === 1 && s.training.zero_stage === 3;
    if (!keep) delete s.training.offload;
  }
  // VP "n/a" is no interleaving: vpp 1, not left for the search to choose. And without it a
  // pipelined run cannot have used Megatron-Core's EP all-to-all overlap (its config asserts
  // virtual stages when PP > 1), whatever the template's recipe did.
  if (pp > 1) s.parallel.vpp = vp;
  if (pp > 1 && vp === 1) delete s.training.overlap_moe_comm;
  if (ep > 1) Object.assign(s.parallel, { ep, etp: 1 });
  const label = r.Model ?? r.model;
  if (/w\/o MTP/.test(label) && typeof s.model === "object") s.model.mtp_layers = 0;
  if (/w\/ MTP/.test(label) && typeof s.model === "object") s.model.mtp_layers = 1;
  if (model === "deepseek-v3" && pp > 1) {
    const first = Math.ceil(61 / pp), last = 61 - first * (pp - 1);
    if (last >= 1) Object.assign(s.parallel, { first_stage_layers: first, last_stage_layers: last });
  }
  return { scenario: s, template: recipeRead ? `${template.id} + ${r.release} recipe` : template.id };
}

// ---- The sweep.

function sweep(data) {
  const pool = templates();
  const published = new Set(pool.map(verbatim).filter(Boolean));
  return data.rows.map((r) => {
    const m = toScenario(r, pool);
    const base = { release: r.release, system: r.System ?? r.system, model: r.Model ?? r.model, precision: main(r.Precision) ?? "", row: r.row };
    if (m.skip) return { ...base, skip: m.skip };
    const out = spawnSync(CLI, ["evaluate", "-"], { input: JSON.stringify(m.scenario), encoding: "utf8" });
    if (out.status !== 0) return { ...base, skip: `refused: ${out.stderr.trim().replace(/^gpucalc: /, "").split("\n")[0]}` };
    const v = JSON.parse(out.stdout);
    const measured = Number(main(r["Tokens / sec / GPU"]));
    const predicted = v.performance.tokens_per_s_per_gpu;
    const ratio = predicted / measured;  // actual time / predicted time
    const q = v.uncertainty.time.ratio;
    // dense or MoE by the job (an accelerator with a derived profile answers in the
    // unmeasured-accelerator regime, named in its own column).
    const kind = v.model.active_params < v.model.params ? "moe" : "dense";
    const aside = setAsideReasons(r);
    return { ...base, gpu: m.scenario.gpu, template: m.template, regime: kind, band: v.uncertainty.time.regime, measured, predicted, error: ratio - 1,
      inside: q && ratio >= q.p10 && ratio <= q.p90, in_validation: published.has(r.row.replace(/\s+/g, " ")), ...(aside.length ? { aside } : {}) };
  });
}


function report(results) {
  const all = results.filter((x) => !x.skip);
  const done = all.filter((x) => !x.aside);
  const aside = all.filter((x) => x.aside);
  const line = statsLine, head = STATS_HEAD;
  const byRegime = ["dense", "moe"].flatMap((g) => [
    line(`${g}, all`, stats(done.filter((x) => x.regime === g))),
    line(`${g}, not in validation/`, stats(done.filter((x) => x.regime === g && !x.in_validation))),
  ]);
  const gpus = [...new Set(done.map((x) => x.gpu))].sort();
  const byGpu = gpus.flatMap((g) => ["dense", "moe"].map((k) => [g, k, done.filter((x) => x.gpu === g && x.regime === k)]))
    .filter(([, , s]) => s.length).map(([g, k, s]) => line(`${g}, ${k}`, stats(s)));
  const releases = [...new Set(done.map((x) => x.release))];
  const byRelease = releases.flatMap((rel) => ["dense", "moe"].map((k) => [rel, k, done.filter((x) => x.release === rel && x.regime === k)]))
    .filter(([, , s]) => s.length).map(([rel, k, s]) => line(`${rel}, ${k}`, stats(s)));
  const skipped = {};
  for (const x of results.filter((y) => y.skip)) skipped[x.skip] = (skipped[x.skip] ?? 0) + 1;
  const rows = all.map((x) => `| ${x.release} | ${x.system} | ${x.model} | ${x.precision} | ${x.regime}${x.band !== x.regime ? ` (${x.band.replace("_", " ")} range)` : ""} | ${x.measured} | ${x.predicted.toFixed(0)} | ${pct(x.error)}${x.aside ? " (set aside)" : ""} | ${x.inside ? "yes" : "no"} | ${x.in_validation ? "yes" : ""} | ${x.template} |`);
  const asideList = aside.length
    ? aside.map((x) => `- ${x.release} ${x.system} ${x.model} ${x.precision}: measured ${x.measured}, predicted ${x.predicted.toFixed(0)} (${pct(x.error)}); ${x.aside.join("; ")}.`).join("\n")
    : "None.";
  return `# Archive sweep: every Megatron-Bridge pre-training row gpucalc can express

Generated by \`node scripts/archive-sweep.mjs\` from
\`validation/archive/megatron-bridge-pretrain.json\` (the pre-training tables of
${SOURCE.repo} \`${SOURCE.paths.join("` and `")}\` at ${SOURCE.commit.slice(0, 9)}, 25.09 to 26.08, as printed).
Do not edit by hand.

[validation.md](validation.md) holds the runs whose recipes were read one by one and
counts them toward the accuracy targets. This sweep takes every other row of the same
tables with a mechanical mapping (the script's header and below), so it is rougher, but it
is three times as many runs and most of them were never looked at while the model was
built: it shows how the model does on the runs it was not tuned on. It does not count
toward the targets or the ranges.

How a row becomes a scenario: the table gives the GPUs, precision, batch, sequence
length and TP/PP/CP/VP/EP/FSDP layout; what it does not print (recomputation, MoE
dispatcher and overlap, the MTP layer, gradient dtype) comes from the counted validation
row of the same model on the same system and release, else the same system, else the same
release, else any, the nearest release among several (the "template" column). Where a commit of the
history printed a release's table, the MoE MXFP8 runs whose recipes were read there (26.06's
Qwen3 on GB300; 26.06.01's and 26.08's DeepSeek-V3, gpt-oss-120b and Qwen3 on GB200 and
GB300) take the CUDA graphs, dispatcher and overlap those set ("+ 26.08 recipe"). NVFP4 rows run as precision fp4. One row's printed MBS, which validation/ shows cannot have run, takes the recipe's instead, as its validation row does (25.11 gpt-oss-120b on 64 H100: MBS 1, not 4). The
Megatron-FSDP recipes' activation offloading (\`training.offload.activation_layers\`) comes only
from a template of the same system and precision, on a row with FSDP and PP 1. Models without a preset and
layouts gpucalc refuses are skipped, counted by reason below. Error = predicted /
measured tokens/s − 1 (negative: the model is too slow); "inside P10-P90" uses the range
the answer itself prints.

## By regime

${head}
${byRegime.join("\n")}

## By accelerator

${head}
${byGpu.join("\n")}

## By release

${head}
${byRelease.join("\n")}

## Set aside (${aside.length}): flagged by their source, or set aside in validation/

Listed with the other rows below, left out of every table above.

${asideList}

## Skipped (${results.length - all.length} of ${results.length})

${Object.entries(skipped).sort((a, b) => b[1] - a[1]).map(([k, n]) => `- ${n} × ${k}`).join("\n")}

## Every row

| release | system | model | precision | regime | measured tokens/s/GPU | predicted | error | inside P10-P90 | in validation/ | template |
|---|---|---|---|---|---:|---:|---:|---|---|---|
${rows.join("\n")}
`;
}

const args = process.argv.slice(2);
let data;
if (args[0] === "--extract") {
  data = extract(args.slice(1).filter((a) => !a.startsWith("--")));
  writeFileSync(DATA, `${JSON.stringify(data, null, 1)}\n`);
  console.log(`${data.rows.length} rows -> ${path.relative(ROOT, DATA)}`);
} else {
  data = JSON.parse(readFileSync(DATA, "utf8"));
}
const results = sweep(data);
const done = results.filter((x) => !x.skip && !x.aside);
for (const g of ["dense", "moe"]) {
  for (const [label, set] of [["all", done.filter((x) => x.regime === g)], ["not in validation/", done.filter((x) => x.regime === g && !x.in_validation)]]) {
    const s = stats(set);
    console.log(`${g.padEnd(5)} ${label.padEnd(19)} n ${String(s.n).padStart(3)}  median ${abspct(s.median)}  mean ${abspct(s.mean)}  max ${abspct(s.max)}  signed ${pct(s.signed)}  inside P10-P90 ${s.inside}/${s.n}`);
  }
}
console.log(`set aside ${results.filter((x) => x.aside).length} (flagged by their source or by validation/), skipped ${results.filter((x) => x.skip).length} of ${results.length}`);
const md = report(results);
const DOC = path.join(ROOT, "docs/archive-sweep.md");
if (args.includes("--check")) {
  // ctest validation.archive_sweep: the committed report must be this run's, so a change
  // that moves any archive row shows in the diff that makes it.
  let committed = "";
  try { committed = readFileSync(DOC, "utf8"); } catch { /* missing: differs */ }
  if (committed !== md) {
    console.error("docs/archive-sweep.md is stale: run node scripts/archive-sweep.mjs and commit the result");
    process.exit(1);
  }
} else if (!args.includes("--no-write")) {
  writeFileSync(DOC, md);
}
