// The page in Debian's headless Chromium: shows the default answer, reacts to
// inputs, shows field errors, talks to no other origin, logs no errors.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { DEFAULT_EXAMPLE, DIST, ROOT, cliEvaluate, readJson } from "../wasm/helpers.mjs";
import { startServer } from "./static-server.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const SHOTS = path.join(ROOT, "test-results");
const TIMEOUT = 30_000;

let server;
let profile;
let context;
let page;
const consoleProblems = [];
const foreignRequests = [];

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startServer(DIST);
  profile = mkdtempSync(path.join(tmpdir(), "gpucalc-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--disable-sync",
      "--disable-quic",
    ],
    viewport: { width: 1280, height: 900 },
    locale: "en-US",
  });
  context.on("request", (request) => {
    const url = new URL(request.url());
    const local = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
    if (!(local || url.protocol === "data:" || url.protocol === "blob:")) foreignRequests.push(request.url());
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(TIMEOUT);
  page.on("console", (message) => {
    if (["error", "warning"].includes(message.type())) consoleProblems.push(`${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => consoleProblems.push(`pageerror: ${error.message}`));
});

after(async () => {
  await context?.close();
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const headlineGpus = () => page.locator("#headline").getAttribute("data-gpus");

async function waitForGpusOtherThan(previous) {
  await page.waitForFunction(
    (prev) => {
      const h = document.querySelector("#headline");
      return h && /^\d+$/.test(h.dataset.gpus ?? "") && h.dataset.gpus !== prev && !h.closest(".stale");
    },
    previous,
    { timeout: TIMEOUT },
  );
  return Number(await headlineGpus());
}

test("the default scenario's answer shows, equal to the native CLI", async () => {
  await page.goto(server.url);
  const gpus = await waitForGpusOtherThan(null);
  const want = cliEvaluate(readJson(DEFAULT_EXAMPLE));
  assert.equal(want.ok, true, want.stderr);
  assert.equal(gpus, want.value.plan.gpus);
  assert.match(await page.locator("#headline").innerText(), new RegExp(`${want.value.plan.gpus.toLocaleString("en-US")}\\s*×`));
  assert.ok((await page.locator("#plan .chip").count()) >= 5, "plan chips");
  assert.ok((await page.locator("#mem-bar .seg").count()) >= 1, "memory bar segments");
  assert.ok((await page.locator("#metrics .metric").count()) >= 5, "metrics");
  await page.screenshot({ path: path.join(SHOTS, "page-desktop.png"), fullPage: true });
});

test("halving target days changes the GPU count (to the CLI's answer)", async () => {
  const before30 = await headlineGpus();
  await page.fill("#days", "30");
  const gpus = await waitForGpusOtherThan(before30);
  const scenario = readJson(DEFAULT_EXAMPLE);
  scenario.target = { ...scenario.target, days: 30 };
  const want = cliEvaluate(scenario);
  assert.equal(want.ok, true, want.stderr);
  assert.equal(gpus, want.value.plan.gpus);
  assert.notEqual(String(gpus), before30);
});

test("a bad value shows an error beside its field", async () => {
  await page.fill("#tokens", "-1");
  const error = page.locator('.field[data-path="/training/tokens"] .field-error');
  await error.waitFor({ state: "visible" });
  const text = await error.innerText();
  assert.match(text, /^\/training\/tokens \S/, "path, then the core's message");
  assert.equal(await page.locator("#answer.stale").count(), 1, "old answer is dimmed");
  await page.screenshot({ path: path.join(SHOTS, "page-error.png"), fullPage: true });

  await page.fill("#tokens", "15");
  await error.waitFor({ state: "hidden" });
  await waitForGpusOtherThan(null);
});

test("the language toggle switches to Chinese and back", async () => {
  await page.click("#lang");
  await page.waitForFunction(() => document.querySelector("#headline")?.textContent.includes("需要"));
  assert.equal(await page.evaluate(() => document.documentElement.lang), "zh-CN");
  await page.screenshot({ path: path.join(SHOTS, "page-desktop-zh.png"), fullPage: true });
  await page.click("#lang");
  await page.waitForFunction(() => document.querySelector("#headline")?.textContent.includes("×"));
});

test("phone layout", async () => {
  await page.setViewportSize({ width: 360, height: 740 });
  const at30 = await headlineGpus();
  await page.fill("#days", "60");
  await waitForGpusOtherThan(at30);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than a phone screen`);
  await page.screenshot({ path: path.join(SHOTS, "page-phone.png"), fullPage: true });
});

test("works below a sub-path too (relative URLs only)", async () => {
  const sub = await startServer(DIST, "/some/project/");
  try {
    await page.goto(sub.url);
    await waitForGpusOtherThan(null);
  } finally {
    await sub.close();
  }
});

test("no console errors or warnings, no request to another origin", () => {
  assert.deepStrictEqual(consoleProblems, []);
  assert.deepStrictEqual(foreignRequests, []);
});
