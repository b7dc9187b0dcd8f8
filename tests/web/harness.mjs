// Shared by the page tests: Debian's Chromium through playwright-core, a watch on
// every request (none may leave localhost) and every console problem.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { ROOT } from "../wasm/helpers.mjs";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const SHOTS = path.join(ROOT, "test-results");
export const TIMEOUT = 30_000;
export const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
  "--disable-quic",
  "--disable-dev-shm-usage",
];

const LOCAL = new Set(["127.0.0.1", "localhost", "[::1]"]);

// A persistent context (service workers need a profile), with watchers.
export async function launch({ locale = "en-US", viewport = { width: 1280, height: 900 }, colorScheme = "light" } = {}) {
  mkdirSync(SHOTS, { recursive: true });
  const profile = mkdtempSync(path.join(tmpdir(), "gpucalc-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport,
    locale,
    colorScheme,
    acceptDownloads: true,
  });
  const problems = [];
  const foreign = [];
  const watch = (page) => {
    page.setDefaultTimeout(TIMEOUT);
    page.on("console", (message) => {
      if (["error", "warning"].includes(message.type())) problems.push(`${message.type()}: ${message.text()} (${page.url()})`);
    });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message} (${page.url()})`));
    page.on("dialog", (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      dialog.dismiss().catch(() => {});
    });
  };
  context.on("page", watch);
  context.on("response", (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  context.on("request", (request) => {
    const url = new URL(request.url());
    if (!(LOCAL.has(url.hostname) || ["data:", "blob:"].includes(url.protocol))) foreign.push(request.url());
  });
  const page = context.pages()[0] ?? (await context.newPage());
  watch(page);
  return {
    context,
    page,
    problems,
    foreign,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Waits until the headline shows the core's answer for the current inputs (not a
// stale one, not a preview, no evaluation in flight, no message template on its way),
// optionally different from `previous`; returns its GPU count.
export async function waitForAnswer(page, previous = null) {
  await page.waitForFunction(
    (prev) => {
      const h = document.querySelector("#headline");
      return (
        h &&
        /^\d+$/.test(h.dataset.gpus ?? "") &&
        h.dataset.gpus !== prev &&
        !h.closest(".stale") &&
        !h.dataset.preview &&
        !document.documentElement.hasAttribute("data-messages-pending") && // web/i18n.js
        document.querySelector("#result").getAttribute("aria-busy") === "false"
      );
    },
    previous,
    { timeout: TIMEOUT },
  );
  return Number(await page.locator("#headline").getAttribute("data-gpus"));
}

// A full-page screenshot once the curve and layouts (if shown) are current too.
export async function shot(page, name, opts = {}) {
  await page
    .waitForFunction(() => {
      const card = document.querySelector("#curve-card");
      return !card || card.hidden || !card.classList.contains("stale");
    }, null, { timeout: 5000 })
    .catch(() => {}); // an error state leaves it dimmed on purpose
  await page.screenshot({ path: path.join(SHOTS, name), fullPage: true, ...opts });
}

// base64url of a string, as the page's permalinks carry scenarios.
export const b64url = (text) => Buffer.from(text, "utf8").toString("base64url");

// The scenario the page's URL carries, once the page has written it: the hash follows an
// edit when its answer lands or 100 ms after it (app.js flushOutputs; data-outputs marks
// the wait), so a read right after the answer can still find the previous edit's.
export async function scenarioInUrl(page) {
  await page.waitForFunction(() => !document.documentElement.dataset.outputs);
  const hash = await page.evaluate(() => location.hash);
  const s = new URLSearchParams(hash.slice(1)).get("s");
  if (!s) throw new Error(`no scenario in ${hash}`);
  return JSON.parse(Buffer.from(s, "base64url").toString("utf8"));
}
