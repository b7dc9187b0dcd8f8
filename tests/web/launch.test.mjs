// "Launch config" in the page (issue 16), in Debian's headless Chromium: opening it loads
// the export module lazily (not part of the first visit), shows the native CLI's config
// for the answer's plan, switches format, copies to the clipboard, lists the coded
// warnings in the page's language, and refuses LLaMA-Factory for pre-training with the
// field's path; en and zh, desktop and a 360-px phone (screenshots in test-results/).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { CLI, DEFAULT_EXAMPLE, DIST, EXAMPLES, ROOT, readJson } from "../wasm/helpers.mjs";
import { SHOTS, b64url, launch, waitForAnswer } from "./harness.mjs";
import { startServer } from "./static-server.mjs";

let server;
let browser;
let page;
const fetched = [];

before(async () => {
  server = await startServer(DIST);
  browser = await launch();
  page = browser.page;
  await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  browser.context.on("request", (r) => fetched.push(new URL(r.url()).pathname));
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const cliExport = (file, format) => execFileSync(CLI, ["export", file, "--format", format], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
const shown = () => page.locator("#launch-text").textContent();
const ready = (format) =>
  page.waitForFunction((f) => {
    const d = document.querySelector("#launch");
    return d.dataset.format === f && !d.classList.contains("pending");
  }, format);
const open = async (hash = "") => {
  await page.goto("about:blank");
  await page.goto(`${server.url}${hash ? "#" + hash : ""}`);
  await waitForAnswer(page);
};

test("the export module loads only when Launch config is opened", async () => {
  await open();
  await page.waitForTimeout(1000);
  assert.ok(!fetched.some((p) => /launch|gpucalc-export/.test(p)), `fetched before opening: ${fetched.filter((p) => /launch|export/.test(p))}`);
  await page.click("#launch summary");
  await ready("megatron");
  assert.ok(fetched.some((p) => p.endsWith("/launch.js")), "launch.js was fetched on opening");
  assert.ok(fetched.some((p) => p.endsWith("/launch-worker.js")), "the export worker was started on opening");
});

test("desktop, en: the default plan as Megatron-LM arguments, the CLI's own text; copy; switch to DeepSpeed", async () => {
  await page.evaluate(() => {
    localStorage.setItem("gpucalc.lang", "en");
  });
  await open();
  await page.click("#launch summary");
  await ready("megatron");
  assert.equal(await shown(), cliExport(DEFAULT_EXAMPLE, "megatron"));
  assert.match(await shown(), /--tensor-model-parallel-size \d+/);
  assert.equal(await page.locator("#launch summary").textContent(), "Launch config");
  await page.click("#launch-copy");
  await page.waitForFunction(() => document.querySelector("#launch-status").textContent === "Copied");
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await shown());
  await page.locator("#plan-card").screenshot({ path: path.join(SHOTS, "launch-desktop-en.png") });

  await page.selectOption("#launch-format", "deepspeed");
  await ready("deepspeed");
  const ds = JSON.parse(await shown());
  assert.deepEqual(ds, JSON.parse(cliExport(DEFAULT_EXAMPLE, "deepspeed")));
  // The default plan uses tensor and pipeline parallelism: DeepSpeed's config cannot hold them.
  const codes = await page.locator("#launch-warnings li[data-code]").evaluateAll((ls) => ls.map((l) => l.dataset.code));
  assert.ok(codes.includes("export_no_equivalent"), codes.join(","));
  assert.match(await page.locator("#launch-warnings").textContent(), /DeepSpeed has no option for parallel\.tp/);
});

test("desktop, zh: labels and warnings in Chinese; LLaMA-Factory refused for pre-training at /training/stage", async () => {
  await page.click("#lang");
  await page.waitForFunction(() => document.documentElement.lang.startsWith("zh"));
  await ready("deepspeed");
  assert.equal(await page.locator("#launch summary").textContent(), "启动配置");
  await page.waitForFunction(() => /没有对应 parallel\.tp/.test(document.querySelector("#launch-warnings").textContent));
  await page.selectOption("#launch-format", "llamafactory");
  await ready("llamafactory");
  const status = await page.locator("#launch-status").textContent();
  assert.match(status, /^\/training\/stage: LLaMA-Factory 导出仅用于微调/);
  assert.equal(await page.locator("#launch-copy").isDisabled(), true);
  await page.locator("#plan-card").screenshot({ path: path.join(SHOTS, "launch-desktop-zh.png") });
});

test("a LoRA scenario opens on LLaMA-Factory, with the CLI's YAML", async () => {
  const file = path.join(EXAMPLES, "lora-qwen2.5-72b-8xh100.json");
  await open(`s=${b64url(JSON.stringify(readJson(file)))}`);
  await page.click("#launch summary");
  await ready("llamafactory");
  assert.equal(await shown(), cliExport(file, "llamafactory"));
  assert.match(await shown(), /^lora_rank: 64$/m);
});

test("phone (360 px): the config scrolls inside its card, in both languages", async () => {
  await page.setViewportSize({ width: 360, height: 740 });
  for (const lang of ["zh", "en"]) {
    await page.evaluate((l) => localStorage.setItem("gpucalc.lang", l), lang);
    await open();
    await page.click("#launch summary");
    await ready("megatron");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${lang}: page is ${overflow}px wider than a phone screen`);
    const box = await page.locator("#launch-text").boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 360, `${lang}: config box ${JSON.stringify(box)}`);
    await page.locator("#plan-card").screenshot({ path: path.join(SHOTS, `launch-phone-${lang}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
});

test("the page's message templates are data/messages.json's", async () => {
  const messages = JSON.parse(readFileSync(path.join(ROOT, "data/messages.json"), "utf8"));
  const { MESSAGES } = await import(new URL("../../web/launch.js", import.meta.url));
  for (const [code, tpl] of Object.entries(MESSAGES)) assert.deepEqual(tpl, messages[code], code);
});

test("no console errors or warnings, no request to another origin", () => {
  assert.deepEqual(browser.problems, []);
  assert.deepEqual(browser.foreign, []);
});
