// Static and offline: after one visit, the service worker serves the page in the
// reader's language, after two in both, with the network gone (the browser set offline and the server shut down), in full and
// embed mode, and the core still answers new inputs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { DIST } from "../wasm/helpers.mjs";
import { SHOTS, launch, waitForAnswer } from "./harness.mjs";
import { startServer } from "./static-server.mjs";

let server;
let browser;
let page;

before(async () => {
  server = await startServer(DIST);
  browser = await launch();
  page = browser.page;
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("first visit: the service worker installs and caches the whole site", async () => {
  await page.goto(server.url);
  await waitForAnswer(page);
  await page.waitForFunction(() => document.documentElement.dataset.firstCoreAnswerMs);
  const cached = await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    // Wait until this page is controlled (clients.claim()).
    for (let i = 0; i < 100 && !navigator.serviceWorker.controller; i++) await new Promise((r) => setTimeout(r, 50));
    const keys = await caches.keys();
    const cache = await caches.open(keys.find((k) => k.startsWith("gpucalc-")));
    // The page's own strings arrive by its "keep" message once the worker is active.
    let urls = [];
    for (let i = 0; i < 200; i++) {
      urls = (await cache.keys()).map((r) => new URL(r.url).pathname);
      if (urls.includes("/locales/en.js")) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    return { scope: registration.scope, controlled: Boolean(navigator.serviceWorker.controller), keys, urls };
  });
  assert.equal(cached.controlled, true, "the page is controlled by the service worker");
  assert.equal(cached.keys.length, 1, `one cache, got ${cached.keys}`);
  // Every file sw.js lists (scripts/assemble-dist.mjs stamps it: the page's bundle and its
  // chunks among them), and these by name.
  const precache = JSON.parse(readFileSync(path.join(DIST, "sw.js"), "utf8").match(/const PRECACHE ?= ?(\[[^\]]*\]);/)[1]);
  for (const f of ["/", "/index.html", "/app.js", "/worker.js", "/gpucalc.js", "/gpucalc.wasm", "/style.css", "/locales/en.js", ...precache.map((f) => new URL(f, "http://x/").pathname)]) {
    assert.ok(cached.urls.includes(f), `${f} is cached (have ${cached.urls.length} files)`);
  }
  // An English reader's first visit does not transfer the Chinese strings (issue 16's
  // first-visit weight): the service worker fetches them on the next visit.
  for (const f of ["/locales/zh.js"]) {
    assert.ok(!cached.urls.includes(f), `${f} is not fetched by an English reader's first visit`);
    assert.ok(!server.requests.includes(f), `${f} was not requested`);
  }
});

test("second visit: the service worker keeps the other language too", async () => {
  await page.reload();
  await waitForAnswer(page);
  const urls = await page.evaluate(async () => {
    for (let i = 0; i < 200; i++) {
      const keys = await caches.keys();
      const cache = await caches.open(keys.find((k) => k.startsWith("gpucalc-")));
      const have = (await cache.keys()).map((r) => new URL(r.url).pathname);
      if (have.includes("/locales/zh.js")) return have;
      await new Promise((r) => setTimeout(r, 50));
    }
    return [];
  });
  assert.ok(urls.includes("/locales/zh.js"), "zh.js (with the coded messages' templates) is cached after a second visit");
});

test("offline: reload, embed mode and new inputs all work with the network gone", async () => {
  await browser.context.setOffline(true);
  await server.close();
  server = null;

  await page.reload();
  const gpus = await waitForAnswer(page);
  assert.ok(gpus > 0);

  // A new scenario needs the core (no built-in answer): it must load from the cache.
  await page.fill("#q-goal", "30");
  const at30 = await waitForAnswer(page, String(gpus));
  assert.notEqual(at30, gpus);
  await page.waitForFunction(() => document.documentElement.dataset.firstCoreAnswerMs);

  const url = new URL(page.url());
  url.search = "?embed=1&lang=zh";
  await page.goto(url.href);
  await waitForAnswer(page);
  assert.match(await page.locator("#headline").innerText(), /^需要/);
  await page.screenshot({ path: path.join(SHOTS, "page-offline-embed.png"), fullPage: true });
});

test("offline: no console errors, no request to another origin", () => {
  // Requests that fail because the browser is offline are the service worker's to
  // absorb; none may reach the page as an error.
  assert.deepStrictEqual(browser.problems, []);
  assert.deepStrictEqual(browser.foreign, []);
});
