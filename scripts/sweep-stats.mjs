// Shared by the sweeps of published tables (scripts/archive-sweep.mjs,
// scripts/foundry-sweep.mjs): error statistics over rows that carry `error`
// (predicted / measured - 1) and `inside` (the measurement within the printed P10-P90).
export const median = (x) => { const a = x.slice().sort((p, q) => p - q); return a.length ? (a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2) : NaN; };
export const pct = (x) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;
export const abspct = (x) => `${(x * 100).toFixed(1)}%`;

export function stats(set) {
  const a = set.map((x) => Math.abs(x.error));
  return { n: set.length, median: median(a), mean: a.reduce((p, q) => p + q, 0) / (a.length || 1), max: a.length ? Math.max(...a) : NaN,
    signed: median(set.map((x) => x.error)), inside: set.filter((x) => x.inside).length };
}

// One row of the sweeps' summary tables, and their header.
export const statsLine = (label, s) => `| ${label} | ${s.n} | ${abspct(s.median)} | ${abspct(s.mean)} | ${abspct(s.max)} | ${pct(s.signed)} | ${s.inside} / ${s.n} |`;
export const STATS_HEAD = "| rows | n | median abs. error | mean | max | signed median | inside P10-P90 |\n|---|---:|---:|---:|---:|---:|---:|";
