// Where a first visit's time goes, for two (or more) builds of the page side by side:
// cold visits in headless Chromium, the builds alternated (and which goes first rotated)
// so that the machine's drift hits them alike. Per visit, milliseconds after navigation:
//   dcl       DOMContentLoaded
//   built     the build-time answer on screen (app.js "gpucalc:first-answer")
//   ready     the answering worker's ready message sent (its warm search done; worker.js)
//   app       the page took that message (app.js appReadyMs)
//   warm      the warm search's own time in the worker
//   core      the core's first answer drawn (app.js "gpucalc:first-core-answer")
//   painted   the frame after it painted (requestAnimationFrame, then a task)
// The page's own benchmark (scripts/bench-page.mjs) reports weight and per-edit times of
// one build; this one is for telling two builds apart, which 5-visit runs of that one
// cannot on a shared 2-core machine (docs/performance-model.md, "The page").
// A cold visit is a new browser profile (empty cache, no service worker) in a browser
// launched for it; with --settle MS the browser first shows about:blank for MS ms, so the
// visit is the cold one of a reader whose browser is already running (a just-launched
// Chromium spends its first second starting up on the same two cores).
// With --return MS the visit measured is a returning reader's: the cold visit runs first,
// then, MS ms later (its service worker installed, its cache filled), the same profile
// opens the page again in a new tab. (V8 keeps no compiled wasm between these visits: it
// caches a module's optimised code once ~1 MB of it exists, more than this core makes.)
// Usage: node scripts/bench-first-answer.mjs DIST_A DIST_B [...] [--visits N] (default 10) [--settle MS] [--return MS]
//        PAGE_LANG=zh: a reader whose browser asks for Chinese (default en)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { startServer } from "../tests/web/static-server.mjs";
import { addFirstAnswerProbe, openUntilPainted } from "./first-answer-probe.mjs";

const args = process.argv.slice(2);
const at = args.indexOf("--visits");
const VISITS = at >= 0 ? Number(args.splice(at, 2)[1]) : 10;
const st = args.indexOf("--settle");
const SETTLE = st >= 0 ? Number(args.splice(st, 2)[1]) : 0;
const rt = args.indexOf("--return");
const RETURN = rt >= 0 ? Number(args.splice(rt, 2)[1]) : 0;
const dirs = args.map((d) => path.resolve(d));
if (dirs.length < 1 || !(VISITS > 0) || !(SETTLE >= 0) || !(RETURN >= 0)) throw new Error("usage: node scripts/bench-first-answer.mjs DIST_A DIST_B [...] [--visits N] [--settle MS] [--return MS]");
const PAGE_LANG = process.env.PAGE_LANG ?? "en";
if (!["en", "zh"].includes(PAGE_LANG)) throw new Error(`PAGE_LANG must be en or zh, got ${PAGE_LANG}`);
const LOCALE = PAGE_LANG === "zh" ? "zh-CN" : "en-US";
const COLUMNS = ["dcl", "built", "ready", "app", "warm", "core", "painted"];

async function visit(url) {
  const profile = mkdtempSync(path.join(tmpdir(), "gpucalc-first-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu", `--lang=${LOCALE}`], locale: LOCALE, viewport: { width: 1280, height: 900 } });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    if (SETTLE > 0) {
      await page.goto("about:blank");
      await new Promise((done) => setTimeout(done, SETTLE));
    }
    await addFirstAnswerProbe(context);
    await openUntilPainted(page, url);
    let seen = page;
    if (RETURN > 0) {
      await new Promise((done) => setTimeout(done, RETURN));
      seen = await context.newPage();
      await page.close();
      await openUntilPainted(seen, url);
    }
    return await seen.evaluate(() => {
      const d = document.documentElement.dataset;
      const nav = performance.getEntriesByType("navigation")[0];
      return [nav.domContentLoadedEventEnd, +d.firstAnswerMs, +d.coreReadyMs, +d.appReadyMs, +d.lastCoreMs, +d.firstCoreAnswerMs, window.__gpucalcPainted];
    });
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

const servers = await Promise.all(dirs.map((d) => startServer(d)));
const runs = dirs.map(() => []);
try {
  // Each round starts with the next build: the first visit of a round runs measurably
  // slower (a browser launched after another's exit), which a fixed order would pin on
  // one build.
  for (let v = 0; v < VISITS; v++)
    for (let j = 0; j < dirs.length; j++) {
      const i = (v + j) % dirs.length;
      runs[i].push(await visit(servers[i].url));
    }
} finally {
  await Promise.all(servers.map((s) => s.close()));
}
console.log(`${"build".padEnd(30)} ${COLUMNS.map((c) => c.padStart(7)).join(" ")}   (medians of ${VISITS} ${RETURN > 0 ? `return visits (${RETURN} ms after a cold one)` : "cold visits"}${SETTLE > 0 ? `, browser settled ${SETTLE} ms` : ", browser just launched"}, reader's language ${PAGE_LANG}, ms after navigation; warm: the search's own ms)`);
for (let i = 0; i < dirs.length; i++) {
  const med = COLUMNS.map((_, k) => median(runs[i].map((r) => r[k])));
  console.log(`${path.relative(process.cwd(), dirs[i]).padEnd(30)} ${med.map((x) => (Number.isFinite(x) ? x.toFixed(0) : "-").padStart(7)).join(" ")}`);
}
