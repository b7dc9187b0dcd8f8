#!/usr/bin/env node
// Prints the comparison tables of docs/article-check.md: the article's 70B full fine-tune
// and 100B pre-training (examples/article-*.json, priced in CNY) on the accelerators its
// readers choose between, from the native CLI's `gpucalc compare`. Paste the output into
// the doc after a model or catalog change; every number is the CLI's at that commit.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.resolve(ROOT, process.env.GPUCALC_CLI ?? "build/native/cli/gpucalc");
const IDS = ["h20-96gb", "h800-sxm-80gb", "a800-sxm-80gb", "h100-sxm-80gb", "h200-sxm-141gb", "b200-180gb", "ascend-910b", "ascend-910c"];
const NAMES = {
  "h20-96gb": "H20",
  "h800-sxm-80gb": "H800",
  "a800-sxm-80gb": "A800",
  "a100-sxm-80gb": "A100",
  "h100-sxm-80gb": "H100",
  "h200-sxm-141gb": "H200",
  "b200-180gb": "B200",
  "ascend-910b": "Ascend 910B",
  "ascend-910c": "Ascend 910C",
};
const CASES = [
  ["The 70B full fine-tune", "examples/article-70b-full-finetune.json"],
  ["The 100B pre-training", "examples/article-100b-pretrain.json"],
];

const name = (id) => NAMES[id] ?? id;
const int = (x) => Math.round(x).toLocaleString("en-US");
const fixed = (x, d) => x.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });

function compare(file) {
  const r = spawnSync(CLI, ["compare", path.join(ROOT, file), "--gpus", IDS.join(",")], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${file}: ${r.stderr}`);
  const out = JSON.parse(r.stdout);
  return (out.value ?? out).rows;
}

function layout(l) {
  let s = `${l.tp}×${l.pp}×${int(l.dp)}`;
  if (l.cp > 1) s += ` CP ${l.cp}`;
  if (l.vpp > 1) s += ` v${l.vpp}`;
  return `${s}, Z${l.zero_stage}`;
}

function money(c) {
  if (!c || !Number.isFinite(c.total)) return "no public price";
  const t = c.total >= 1e6 ? `${fixed(c.total / 1e6, 2)} M` : c.total >= 1e3 ? `${int(c.total / 1e3)} K` : int(c.total);
  const conv = c.price_source?.converted ? ` (${fixed(c.price_source.converted.from_value, 2)} ${c.price_source.converted.from_currency})` : "";
  return `${t} at ${fixed(c.per_gpu_hour, 2)}${conv}`;
}

function price(c) {
  const p = c?.price_source;
  if (!p) return "—";
  const date = String(p.date ?? "undated").split(" (")[0]; // the date text before its comment
  return `${p.source}, ${date}, ${p.confidence}`;
}

function efficiencies(r) {
  if (r.perf_profile === r.gpu.id) return "measured";
  if (!r.perf_profile || r.perf_profile === "default") return "assumed (default)";
  return `${name(r.perf_profile)}'s`;
}

for (const [title, file] of CASES) {
  console.log(`${title} (\`gpucalc compare ${file} --gpus ${IDS.join(",")}\`):\n`);
  console.log("| accelerator | GPUs | layout (TP×PP×DP, ZeRO) | days with failures | MFU | memory GiB | cost (CNY) at 元 per GPU-hour | price: source, date, confidence | efficiencies |");
  console.log("|---|---:|---|---:|---:|---:|---:|---|---|");
  for (const r of compare(file)) {
    if (r.ok === false) {
      console.log(`| ${name(r.gpu.id)} | — | ${r.error?.path}: ${r.error?.message} | | | | | | |`);
      continue;
    }
    const mem = `${int(r.memory.used_bytes / 2 ** 30)} / ${int(r.memory.capacity_bytes / 2 ** 30)}`;
    const cells = [name(r.gpu.id), int(r.gpus), layout(r.layout), fixed(r.goodput_days, 1), `${fixed(r.mfu * 100, 1)}%`, mem, money(r.cost), price(r.cost), efficiencies(r)];
    console.log(`| ${cells.join(" | ")} |`);
  }
  console.log("");
}
