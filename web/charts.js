// Charts as plain DOM/SVG: a stacked bar with reference lines (memory against
// capacity, step time by part) and the GPU-count curve with its Pareto front.
// Colours come from CSS classes, so both themes restyle them.
import { el, svg, whole } from "./dom.js";

// segments: [{key, value, label, title}]; marks: [{at, label, cls}] at positions in
// the same unit as values; scale: the full width in that unit.
export function stackedBar({ segments, marks = [], scale, label, over = false }) {
  const total = segments.reduce((s, x) => s + Math.max(0, x.value), 0);
  const full = Math.max(scale || 0, total) || 1;
  const bar = el("div", { class: `bar${over ? " over" : ""}`, role: "img", "aria-label": label });
  for (const s of segments) {
    if (!(s.value > 0)) continue;
    const seg = el("div", { class: `bar-seg c-${s.key}`, title: s.title ?? s.label });
    seg.style.width = `${(s.value / full) * 100}%`;
    bar.append(seg);
  }
  const wrap = el("div", { class: "bar-wrap" }, bar);
  for (const m of marks) {
    if (!(m.at > 0) || m.at > full * 1.0001) continue;
    const mark = el("div", { class: `bar-mark ${m.cls ?? ""}`, title: m.title ?? m.label });
    mark.style.left = `${(m.at / full) * 100}%`;
    if (m.label) mark.append(el("span", { class: "bar-mark-label", text: m.label }));
    wrap.append(mark);
  }
  return wrap;
}

// ---------------------------------------------------------------- scales

function logScale(d0, d1, r0, r1) {
  const l0 = Math.log(d0);
  const l1 = Math.log(d1);
  const f = (v) => r0 + ((Math.log(v) - l0) / (l1 - l0 || 1)) * (r1 - r0);
  f.domain = [d0, d1];
  return f;
}

// 1-2-5 ticks between lo and hi on a log axis.
function logTicks(lo, hi) {
  const ticks = [];
  for (let e = Math.floor(Math.log10(lo)) - 1; e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo * 0.999 && v <= hi * 1.001) ticks.push(v);
    }
  }
  if (ticks.length <= 7) return ticks;
  const lead = (v) => Math.round(v / 10 ** Math.floor(Math.log10(v) + 1e-9));
  const ones = ticks.filter((v) => lead(v) === 1);
  const onesFives = ticks.filter((v) => lead(v) !== 2);
  return onesFives.length <= 7 ? onesFives : ones;
}

function niceStep(range, count) {
  const raw = range / Math.max(1, count);
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

function linTicks(lo, hi, count = 4) {
  const step = niceStep(hi - lo || Math.abs(hi) || 1, count);
  const ticks = [];
  for (let v = Math.floor(lo / step) * step; v <= Math.ceil(hi / step) * step + step * 1e-9; v += step) ticks.push(v);
  return ticks;
}

// ---------------------------------------------------------------- curve

// A label's width at the chart's 12 px: about 6.8 px per Latin character or digit, 12 per
// Chinese one (the page lays nothing out to measure it). The deadline's label is 11 px, so
// its width is overestimated a little: that errs towards moving it out of the way.
function textWidth(s) {
  let w = 0;
  for (const ch of String(s ?? "")) w += ch.codePointAt(0) >= 0x2e80 ? 12 : 6.8;
  return w;
}

// Whether two boxes [x0, x1, y0, y1] intersect (false when either is missing).
function overlap(a, b) {
  return Boolean(a && b) && a[0] < b[1] && b[0] < a[1] && a[2] < b[3] && b[2] < a[3];
}

// A chart drawn by curveChart -> {key, marks, anchor}: what its axes, grid, front and dots
// were drawn for, the deadline and answer marks in it, and the node the deadline's go before.
const drawnCharts = new WeakMap();

// points: [{gpus, days, gpu_hours, pareto, plan}]; opts: {width, chosen, targetDays,
// fmt: {gpus, days, hours}, text: {x, days, hours, target, chosen, pareto, other}, key}.
// opts.key names what the formatters and texts depend on (language, message templates).
// prev: the chart drawn last and still on screen, or null. When it was drawn for the same
// points, width, axes and key — an edit that moves only the deadline, or which count is
// the answer — only its deadline and answer marks are replaced and prev itself is
// returned: the grid, axes and ~100 dots are not built again (the full answer's time after
// an edit, docs/performance-model.md "Twenty-second session").
export function curveChart(points, opts, prev = null) {
  const width = Math.max(280, Math.round(opts.width || 600));
  const compact = width < 480;
  const m = { l: compact ? 46 : 60, r: 14, t: 20, b: 8 };
  const panelH = compact ? 150 : 170;
  const gap = 34;
  const axisH = 40;
  const height = m.t + panelH + gap + panelH + axisH;
  const pts = points.filter((p) => p.gpus > 0 && p.days > 0 && p.gpu_hours > 0).sort((a, b) => a.gpus - b.gpus);
  const root = whole(svg("svg", {
    class: "curve-chart",
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": opts.label,
  }));
  if (pts.length === 0) return root;

  const gMin = pts[0].gpus;
  const gMax = pts[pts.length - 1].gpus;
  const x = logScale(gMin / 1.25, gMax * 1.25, m.l, width - m.r);

  let dLo = Math.min(...pts.map((p) => p.days));
  let dHi = Math.max(...pts.map((p) => p.days));
  if (opts.targetDays > 0) {
    dLo = Math.min(dLo, opts.targetDays);
    dHi = Math.max(dHi, opts.targetDays);
  }
  const yDays = logScale(dLo / 1.3, dHi * 1.3, m.t + panelH, m.t);

  // GPU-hours on a log axis too: flat where more GPUs cost nothing extra, steep
  // where they stop helping.
  const hLo = Math.min(...pts.map((p) => p.gpu_hours));
  const hHi = Math.max(...pts.map((p) => p.gpu_hours));
  const top2 = m.t + panelH + gap;
  const yHours = logScale(hLo / 1.15, hHi * 1.15, top2 + panelH, top2);
  const chartKey = JSON.stringify([opts.key, width, dLo, dHi, opts.text.x, opts.text.days, opts.text.hours, pts.map((p) => [p.gpus, p.days, p.gpu_hours, p.pareto, p.plan])]);
  const last = prev && drawnCharts.get(prev);
  if (last?.key === chartKey) {
    for (const n of last.marks) n.remove();
    const marks = curveMarks(pts, opts, { x, yDays, yHours, m, width });
    prev.insertBefore(marks.target, last.anchor);
    prev.append(marks.chosen);
    drawnCharts.set(prev, { ...last, marks: marks.nodes });
    return prev;
  }
  let hTicks = logTicks(yHours.domain[0], yHours.domain[1]);
  if (hTicks.length < 2) hTicks = linTicks(yHours.domain[0], yHours.domain[1], 3).filter((v) => v > yHours.domain[0] && v < yHours.domain[1]);

  // x grid and ticks: powers of two, thinned to fit.
  const xTicks = [];
  for (let n = 1; n <= gMax * 1.25; n *= 2) if (n >= gMin / 1.25) xTicks.push(n);
  const every = Math.ceil(xTicks.length / (compact ? 5 : 9));
  const shownX = xTicks.filter((_, i) => i % every === 0);

  const grid = svg("g", { class: "grid" });
  const axes = svg("g", { class: "axes" });
  for (const n of shownX) {
    grid.append(svg("line", { x1: x(n), x2: x(n), y1: m.t, y2: m.t + panelH }));
    grid.append(svg("line", { x1: x(n), x2: x(n), y1: top2, y2: top2 + panelH }));
    axes.append(svg("text", { x: x(n), y: top2 + panelH + 16, "text-anchor": "middle", class: "tick" }, opts.fmt.gpus(n)));
  }
  axes.append(svg("text", { x: (m.l + width - m.r) / 2, y: height - 4, "text-anchor": "middle", class: "axis-title" }, opts.text.x));

  for (const v of logTicks(yDays.domain[0], yDays.domain[1])) {
    grid.append(svg("line", { x1: m.l, x2: width - m.r, y1: yDays(v), y2: yDays(v) }));
    axes.append(svg("text", { x: m.l - 6, y: yDays(v) + 4, "text-anchor": "end", class: "tick" }, opts.fmt.days(v)));
  }
  for (const v of hTicks) {
    grid.append(svg("line", { x1: m.l, x2: width - m.r, y1: yHours(v), y2: yHours(v) }));
    axes.append(svg("text", { x: m.l - 6, y: yHours(v) + 4, "text-anchor": "end", class: "tick" }, opts.fmt.hours(v)));
  }
  axes.append(svg("text", { x: m.l, y: m.t - 6, class: "panel-title" }, opts.text.days));
  axes.append(svg("text", { x: m.l, y: top2 - 6, class: "panel-title" }, opts.text.hours));
  axes.append(svg("rect", { x: m.l, y: m.t, width: width - m.l - m.r, height: panelH, class: "frame" }));
  axes.append(svg("rect", { x: m.l, y: top2, width: width - m.l - m.r, height: panelH, class: "frame" }));
  root.append(grid, axes);

  const marks = curveMarks(pts, opts, { x, yDays, yHours, m, width });
  const lastTarget = marks.target.lastChild;
  root.append(marks.target);
  const front = pts.filter((p) => p.pareto);
  const line = (y, key) =>
    front.map((p, i) => `${i ? "L" : "M"}${x(p.gpus).toFixed(1)},${y(p[key]).toFixed(1)}`).join("");
  if (front.length > 1) {
    root.append(svg("path", { d: line(yDays, "days"), class: "front" }));
    root.append(svg("path", { d: line(yHours, "gpu_hours"), class: "front" }));
  }

  const dots = svg("g", { class: "dots" });
  for (const p of pts) {
    const cls = p.pareto ? "dot pareto" : "dot";
    const title = opts.fmt.point(p);
    dots.append(
      svg("circle", { cx: x(p.gpus), cy: yDays(p.days), r: 4, class: cls }, svg("title", {}, title)),
      svg("circle", { cx: x(p.gpus), cy: yHours(p.gpu_hours), r: 4, class: cls }, svg("title", {}, title)),
    );
  }
  root.append(dots);
  root.append(marks.chosen);
  // The deadline's marks go after the axes, before the front and dots (drawn over them).
  drawnCharts.set(root, { key: chartKey, marks: marks.nodes, anchor: (lastTarget ?? axes).nextSibling });
  return root;
}

// The deadline's line and label, and the answer's rings and label, as two fragments and
// the list of their nodes: {target, chosen, nodes}. The answer's label goes beside its point on the side with room; the
// deadline's at the right end of its line, or at the left end when the answer's would
// cover it there (the answer meets a deadline just above it on the right-hand side).
function curveMarks(pts, opts, { x, yDays, yHours, m, width }) {
  const target = document.createDocumentFragment();
  const chosenMarks = document.createDocumentFragment();
  const chosen = pts.find((p) => p.gpus === opts.chosen);
  let chosenAt = null;
  if (chosen) {
    const cx = x(chosen.gpus);
    const w = textWidth(opts.text.chosen);
    const right = cx + w + 16 > width - m.r && cx - w - 16 > m.l;
    const y = yDays(chosen.days) - 10; // the label's baseline, as drawn below
    chosenAt = { cx, right, box: right ? [cx - 12 - w, cx - 12, y - 12, y + 2] : [cx + 12, cx + 12 + w, y - 12, y + 2] };
  }
  if (opts.targetDays > 0) {
    const y = yDays(opts.targetDays);
    const w = textWidth(opts.text.target);
    const atRight = [width - m.r - 4 - w, width - m.r - 4, y - 17, y - 3];
    const atLeft = [m.l + 4, m.l + 4 + w, y - 17, y - 3];
    const left = overlap(chosenAt?.box, atRight) && !overlap(chosenAt?.box, atLeft);
    target.append(
      svg("line", { x1: m.l, x2: width - m.r, y1: y, y2: y, class: "target-line" }),
      svg("text", { x: left ? m.l + 4 : width - m.r - 4, y: y - 5, "text-anchor": left ? "start" : "end", class: "target-label" }, opts.text.target),
    );
  }
  if (chosen) {
    const { cx, right } = chosenAt;
    for (const [y, text] of [
      [yDays(chosen.days), opts.text.chosen],
      [yHours(chosen.gpu_hours), null],
    ]) {
      chosenMarks.append(svg("circle", { cx, cy: y, r: 8, class: "chosen-ring" }));
      if (text) {
        chosenMarks.append(
          svg("text", { x: right ? cx - 12 : cx + 12, y: y - 10, "text-anchor": right ? "end" : "start", class: "chosen-label" }, text),
        );
      }
    }
  }
  return { target, chosen: chosenMarks, nodes: [...target.childNodes, ...chosenMarks.childNodes] };
}

// Legend under the curve.
export function curveLegend(text) {
  return el(
    "ul",
    { class: "legend inline" },
    el("li", {}, el("span", { class: "swatch dot-pareto", "aria-hidden": "true" }), text.pareto),
    el("li", {}, el("span", { class: "swatch dot-other", "aria-hidden": "true" }), text.other),
    el("li", {}, el("span", { class: "swatch dot-chosen", "aria-hidden": "true" }), text.chosenLegend),
    el("li", {}, el("span", { class: "swatch line-target", "aria-hidden": "true" }), text.targetLegend),
  );
}
