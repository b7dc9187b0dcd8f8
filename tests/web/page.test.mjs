// The page in Debian's headless Chromium: the default answer (equal to the native
// CLI's), inputs that update it, field errors, both languages, permalinks (and
// tampered ones), JSON import/export, the CLI command, Expert mode, the curve and
// layouts, dark theme, phone and embed layouts; no request leaves localhost and
// nothing is logged as an error. Prints the page weight and time to first answer.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { gzipSync } from "node:zlib";
import { CLI, DEFAULT_EXAMPLE, DIST, cliEvaluate, readJson } from "../wasm/helpers.mjs";
import { SHOTS, b64url, launch, scenarioInUrl as inUrl, shot, waitForAnswer } from "./harness.mjs";
import { startServer } from "./static-server.mjs";

let server;
let browser;
let page;
const responses = new Map(); // url -> bytes, first load only
let recordResponses = true;

before(async () => {
  server = await startServer(DIST);
  browser = await launch();
  page = browser.page;
  page.on("response", async (response) => {
    if (!recordResponses) return;
    const url = response.url();
    try {
      if (response.status() === 200 && !responses.has(url)) responses.set(url, await response.body());
    } catch {
      /* redirects and aborted bodies carry none */
    }
  });
  // Workers' requests (the wasm) surface on the context.
  browser.context.on("response", async (response) => {
    if (!recordResponses) return;
    const url = response.url();
    try {
      if (response.status() === 200 && !responses.has(url)) responses.set(url, await response.body());
    } catch {
      /* ignore */
    }
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const defaultScenario = () => readJson(DEFAULT_EXAMPLE);
// The page writes the URL in the task after an edit's answer is drawn (app.js edit).
const currentUrl = async () => {
  await page.waitForFunction(() => !document.documentElement.dataset.outputs);
  return page.evaluate(() => location.href);
};
const scenarioInUrl = () => inUrl(page);

test("the default answer appears, equal to the native CLI; page weight and time to first answer", async () => {
  await page.goto(server.url);
  const gpus = await waitForAnswer(page);
  const want = cliEvaluate(defaultScenario());
  assert.equal(want.ok, true, want.stderr);
  assert.equal(gpus, want.value.plan.gpus);
  const headline = await page.locator("#headline").innerText();
  assert.match(headline, new RegExp(`${want.value.plan.gpus.toLocaleString("en-US")}\\s*×\\s*H100`));
  assert.equal(Number(await page.locator("#headline").getAttribute("data-days")).toFixed(6), want.value.training.days.toFixed(6));
  assert.ok((await page.locator("#plan .chip").count()) >= 5, "plan chips");
  assert.ok((await page.locator("#mem-chart .bar-seg").count()) >= 3, "memory bar segments");
  assert.equal(await page.locator("#mem-chart .bar-mark.mark-limit").count(), 1, "the memory-limit line");
  assert.equal((await page.locator("#mem-chart .bar-mark.mark-limit").textContent()).trim(), "80%", "the default limit, memory.limit_fraction 0.8");
  assert.equal(await page.locator("#mem-items details.item").count(), want.value.memory.items.length, "one line per memory item");
  assert.ok((await page.locator("#facts details.fact").count()) >= 5, "headline facts");

  // The formula and source of a number are one click away.
  const item = page.locator("#mem-items details.item").first();
  await item.locator("summary").click();
  assert.match(await item.locator(".formula").innerText(), /\S/);
  assert.match(await item.locator(".source").innerText(), /Source: \S/);
  await item.locator("summary").click();

  // The core runs in a Web Worker, not on the page's thread.
  assert.ok(page.workers().length >= 1, "a worker runs the core");

  // Time to first answer, as the page marks it: the default scenario's answer (built
  // in by scripts/build from the native CLI) and the wasm core's own recomputation.
  await page.waitForFunction(() => document.documentElement.dataset.firstCoreAnswerMs);
  // The answering worker's search of the default scenario, made while the page loaded, is
  // the one the page's first request takes (boot.js and money.js give the same text).
  assert.equal(await page.evaluate(() => document.documentElement.dataset.warmAnswer), "taken");
  const marks = await page.evaluate(() => ({
    first: performance.getEntriesByName("gpucalc:first-answer")[0]?.startTime,
    core: performance.getEntriesByName("gpucalc:first-core-answer")[0]?.startTime,
    from: document.documentElement.dataset.firstAnswerFrom,
    dcl: performance.getEntriesByType("navigation")[0]?.domContentLoadedEventEnd,
  }));
  assert.ok(marks.first > 0 && marks.core > 0, "first-answer marks");
  assert.equal(await page.locator("#headline").getAttribute("data-gpus"), String(want.value.plan.gpus), "the wasm core agrees");
  console.log(
    `# time to first answer: ${marks.first.toFixed(0)} ms after navigation start (${marks.from === "build" ? "built-in answer for the default scenario" : "wasm core"}); ` +
      `first answer computed by the wasm core: ${marks.core.toFixed(0)} ms; DOMContentLoaded ${marks.dcl.toFixed(0)} ms (headless Chromium, cold profile, local server)`,
  );

  // Page weight: every byte the first visit fetched (HTML + JS + WASM + CSS + icon), gzip -9 each.
  await page.waitForTimeout(1500); // the second worker (search) loads after the first answer
  recordResponses = false;
  let raw = 0;
  let gz = 0;
  const kinds = {};
  for (const [url, body] of responses) {
    const ext = path.extname(new URL(url).pathname) || ".html";
    if (![".html", ".js", ".css", ".wasm", ".svg"].includes(ext)) continue;
    const z = gzipSync(body, { level: 9 }).length;
    raw += body.length;
    gz += z;
    kinds[ext] = (kinds[ext] ?? 0) + z;
  }
  const kb = (n) => (n / 1024).toFixed(1);
  console.log(
    `# page weight: ${gz} B = ${kb(gz)} KiB gzip (${kb(raw)} KiB raw) over ${responses.size} responses; gzip by type: ` +
      Object.entries(kinds).map(([k, v]) => `${k} ${kb(v)} KB`).join(", "),
  );
  // Issue 16's target is 250 KB; measured 2026-12-02 after the coded messages, the model
  // import and the schema landed: ~251 KB (English); 252.4 KB after the search cache (4 KB
  // of wasm) and the lighter HTML, CSS and prebuilt answer; 266.3 KB (third session) once
  // the batch range and deadline analysis, the calibration that carries, the LoRA and MoE
  // pieces and the China prices landed (the wasm grew from 170 to 188 KB gzip). The target
  // is NOT met; this budget only catches further growth (the closing note gives the figure).
  // 253.2 KB once the page's modules are one esbuild bundle (scripts/assemble-dist.mjs) and
  // the wasm's once-per-answer sources are built for size (wasm/CMakeLists.txt).
  // 248.6 KB (fifth session): the Expert form and the model import load when first shown,
  // sw.js is minified, the wasm core has no exception support and embeds perf.json and
  // uncertainty.json without their prose. English meets the 250 KB target; a Chinese
  // reader's first visit (257.7 KB, scripts/bench-page.mjs with PAGE_LANG=zh) does not.
  // 246.9 KB (sixth session): the prebuilt default answer and top layouts without what the
  // page never reads, the Expert form's own strings in expert.js; a Chinese reader's first
  // visit 248.9 KB, the coded messages' templates a default answer does not show loading
  // on demand (tests/web/zh.test.mjs checks it under 250 KB).
  // 248.4 KB (eighteenth session): the explanatory prose (memory terms' formulas and
  // sources, the price's rule, the energy and goodput sources) comes coded for the Chinese
  // page, +2.6 KB of wasm and script; a Chinese first visit 246.5 KB, down from 247.9, as
  // it no longer downloads the build-time answer (prebuilt.js) it never draws.
  // 249.2 KB (nineteenth session): per-stack gradient sources, PEFT's fp32 stream and the
  // lora.fp32_upcast option (its parsing, form field and label) take the English first
  // visit past the 249 KB tripwire kept since the eighteenth; the tripwire is now the
  // issue's own budget, 250 KB, with 0.8 KB left.
  // 243.2 KB = 249,037 B (forty-second session): the core formats and reads numbers itself
  // (core/src/decimal.cpp) and the wasm links no printf floats or strtod, 4.7 KB gzip less.
  // The budget is now 250 KB read as DevTools reads it, 250,000 bytes, not 256,000.
  const budget = 250_000;
  assert.ok(gz < budget, `page weight ${gz} B gzip (${kb(gz)} KiB) exceeds ${budget} B`);
  assert.ok(responses.has(new URL("gpucalc.wasm", server.url).href), "the wasm was fetched");
  await shot(page, "page-desktop.png");
});

test("editing an input updates the answer (to the CLI's), within a frame or so", async () => {
  const before30 = String(await waitForAnswer(page));
  await page.fill("#q-goal", "30");
  const gpus = await waitForAnswer(page, before30);
  const scenario = defaultScenario();
  scenario.target = { days: 30 };
  const want = cliEvaluate(scenario);
  assert.equal(want.ok, true, want.stderr);
  assert.equal(gpus, want.value.plan.gpus);
  assert.notEqual(String(gpus), before30);

  // Typing latency, as the page measures it from the input event: to the headline
  // (an instant preview from the last GPU-count curve when only the deadline changed)
  // and to the core's full answer.
  await page.locator("#curve-card").waitFor({ state: "visible" });
  await page.waitForFunction(() => !document.querySelector("#curve-card.stale"));
  const headline = [];
  const full = [];
  const withCurve = [];
  for (const days of ["60", "30", "60", "30", "60", "30", "60"]) {
    const prev = await page.locator("#headline").getAttribute("data-days");
    await page.evaluate(() => delete document.documentElement.dataset.lastFullMs);
    await page.fill("#q-goal", days);
    await page.waitForFunction((p) => document.querySelector("#headline").dataset.days !== p && !document.querySelector("#answer.pending"), prev);
    headline.push(Number(await page.evaluate(() => document.documentElement.dataset.lastHeadlineMs)));
    full.push(Number(await page.evaluate(() => document.documentElement.dataset.lastLatencyMs)));
    // The curve and top layouts follow from the answering worker (worker.js exploreFollows).
    await page.waitForFunction(() => document.documentElement.dataset.lastFullMs && !document.querySelector("#curve-card.stale, #top-card.stale"));
    withCurve.push(Number(await page.evaluate(() => document.documentElement.dataset.lastFullMs)));
    // The preview and the core agree.
    const want = cliEvaluate({ ...defaultScenario(), target: { days: Number(days) } }).value;
    assert.equal(Number(await page.locator("#headline").getAttribute("data-gpus")), want.plan.gpus);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `# input → headline: median ${median(headline).toFixed(1)} ms, max ${Math.max(...headline).toFixed(1)} ms; ` +
      `input → full answer from the core: median ${median(full).toFixed(1)} ms, with its curve and top layouts ${median(withCurve).toFixed(1)} ms (one frame = 16.7 ms)`,
  );
  assert.ok(withCurve.every(Number.isFinite), `curve drawn after every edit: ${withCurve}`);
  assert.ok(median(headline) < 50, `input to headline took ${median(headline)} ms`);
  assert.ok(median(full) < 1000, `input to answer took ${median(full)} ms`);
  assert.deepEqual((await scenarioInUrl()).target, { days: 60 }, "the URL follows the scenario");
});

test("a bad value shows an error at its field, and recovers", async () => {
  await page.fill("#q-tokens", "-1");
  const error = page.locator('.field[data-path="/training/tokens"] .field-error');
  await error.waitFor({ state: "visible" });
  assert.match(await error.innerText(), /^\/training\/tokens \S/, "path, then the core's message");
  assert.equal(await page.locator("#answer.stale").count(), 1, "the old answer is dimmed");
  assert.equal(await page.locator('.field.invalid[data-path="/training/tokens"]').count(), 1);
  await shot(page, "page-error.png");

  await page.fill("#q-tokens", "lots");
  await page.waitForFunction(() => /15T|500B/.test(document.querySelector('.field[data-path="/training/tokens"] .field-error')?.textContent ?? ""));

  await page.fill("#q-tokens", "15T");
  await error.waitFor({ state: "hidden" });
  await waitForAnswer(page);

  // Another field: a GPU count that cannot be split into a layout.
  await page.check("#q-goal-gpus");
  await page.fill("#q-goal", "100");
  const gpuError = page.locator('.field[data-path="/parallel/gpus"] .field-error');
  await gpuError.waitFor({ state: "visible" });
  assert.match(await gpuError.innerText(), /^\/parallel\/gpus .*100 GPUs cannot be split/);
  await page.fill("#q-goal", "2048");
  await gpuError.waitFor({ state: "hidden" });
  assert.equal(await waitForAnswer(page), 2048);
  assert.match(await page.locator("#headline").innerText(), /^2,048 × H100: /);
  await page.check("#q-goal-days");
  await page.fill("#q-goal", "60");
  await waitForAnswer(page, "2048");
});

test("a bad value in an owned-cluster field stops holding the answer once the box is unticked", async () => {
  await page.evaluate(() => {
    const d = document.getElementById("q-owned").closest("details");
    if (d) d.open = true;
  });
  await page.check("#q-owned");
  await page.fill("#q-own-years", "abc");
  await page.locator("#answer.stale").waitFor();
  await page.uncheck("#q-owned");
  await page.waitForFunction(() => !document.querySelector("#answer.stale") && document.querySelector("#quick-error").hidden);
  // The answer follows edits again.
  const before = String(await waitForAnswer(page));
  await page.fill("#q-goal", "30");
  assert.notEqual(String(await waitForAnswer(page, before)), before);
  await page.evaluate(() => (document.getElementById("q-own-years").value = ""));
  await page.fill("#q-goal", "60");
  await waitForAnswer(page);
});

test("a missed deadline's note gives the days it is judged on (failures included), not the shorter failure-free days", async () => {
  // The default job on H20: 56.1 days without failures, 60.5 with them, against 60.
  const before = String(await waitForAnswer(page));
  await page.selectOption("#q-gpu", "h20-96gb");
  await waitForAnswer(page, before);
  const want = cliEvaluate({ ...defaultScenario(), gpu: "h20-96gb" }).value;
  assert.equal(want.search.target_met, false);
  assert.ok(want.training.days < 60 && want.goodput.days > 60, `${want.training.days} / ${want.goodput.days}`);
  const note = await page.locator("#target-note").innerText();
  assert.ok(note.includes(want.goodput.days.toFixed(1)) && note.includes(want.training.days.toFixed(1)), note);
  // No published run was on H20 (H100's profile at 148 of 989 TFLOP/s): the range says so.
  assert.equal(want.uncertainty.time.untried_accelerator, "h20-96gb");
  assert.ok((await page.locator("#trust #range").innerText()).includes(`widened: none of them ran on ${want.gpu.name} or a part with its peak and memory bandwidth`));
  const h100 = String(await waitForAnswer(page));
  await page.selectOption("#q-gpu", "h100-sxm-80gb");
  await waitForAnswer(page, h100);
  assert.equal(await page.locator("#target-note").isHidden(), true);
});

test("a GPU count its batch holds back, and an exposed MoE all-to-all, say what would do better, in en and zh", async () => {
  // The default job on 16,384 H100: its 16M-token batch (2,048 sequences) leaves each of
  // its 1,024 data-parallel ranks two sequences.
  const before = String(await waitForAnswer(page));
  await page.check("#q-goal-gpus");
  await page.fill("#q-goal", "16384");
  assert.equal(await waitForAnswer(page, before), 16384);
  const want = cliEvaluate(await scenarioInUrl()).value;
  const note = want.warnings.find((w) => w.code === "batch_caps_gpus");
  assert.ok(note, JSON.stringify(want.warnings.map((w) => w.code)));
  const shown = page.locator("#warnings");
  assert.ok((await shown.innerText()).includes(`would take ${note.params.days} days on them`), await shown.innerText());
  // Its token counts with their thousands grouped (the parameter keeps the digits).
  const grouped = Number(note.params.batch_tokens).toLocaleString("en-US");
  assert.match(note.params.batch_tokens, /^\d{8}$/);
  assert.ok((await shown.innerText()).includes(`the global batch, ${grouped} tokens`), await shown.innerText());
  await page.click("#lang");
  await page.waitForFunction(() => document.documentElement.lang === "zh-CN");
  await page.waitForFunction((days) => (document.querySelector("#warnings")?.textContent ?? "").includes(`同样的卡需 ${days} 天`), note.params.days);
  assert.ok((await shown.innerText()).includes(`每步 ${grouped} token`), await shown.innerText());
  await page.click("#lang");
  await page.waitForFunction(() => document.documentElement.lang === "en");
  await page.check("#q-goal-days");
  await page.fill("#q-goal", "60");
  await waitForAnswer(page, "16384");

  // An MoE job on Megatron-Core's default dispatcher, its all-to-all exposed: what DeepEP
  // and the overlap would give (Qwen3-30B-A3B, 15T tokens in 60 days: 512 GPUs, 256 with both).
  const dense = String(await waitForAnswer(page));
  await page.selectOption("#q-model", "qwen3-30b-a3b");
  await waitForAnswer(page, dense);
  const moe = cliEvaluate(await scenarioInUrl()).value;
  const fix = moe.warnings.find((w) => w.code === "moe_comm_exposed");
  assert.ok(fix, JSON.stringify(moe.warnings.map((w) => w.code)));
  assert.ok((await shown.innerText()).includes(`the answer would be ${fix.params.gpus} GPUs, ${fix.params.days} days`), await shown.innerText());
  await page.click("#lang");
  await page.waitForFunction(() => document.documentElement.lang === "zh-CN");
  await page.waitForFunction((p) => (document.querySelector("#warnings")?.textContent ?? "").includes(`答案将是 ${p.gpus} 卡、${p.days} 天`), fix.params);
  await page.click("#lang");
  await page.waitForFunction(() => document.documentElement.lang === "en");
  const back = String(await waitForAnswer(page));
  await page.selectOption("#q-model", "llama-3.1-70b");
  await waitForAnswer(page, back);
});

test("Quick mode: a model by parameter count, and tokens from a fine-tuning dataset", async () => {
  await page.selectOption("#q-model", "@params");
  await page.fill("#q-params", "13B");
  await page.waitForFunction(() => /^Shape used: \d+ layers/.test(document.querySelector("#q-model-hint").textContent) && !document.querySelector("#answer.stale"));
  const scenario = await scenarioInUrl();
  assert.equal(typeof scenario.model, "object");
  assert.ok(scenario.model.layers > 0 && scenario.model.hidden % 128 === 0, JSON.stringify(scenario.model));
  const want = cliEvaluate(scenario);
  assert.equal(want.ok, true, want.stderr);
  assert.ok(Math.abs(want.value.model.params - 13e9) / 13e9 < 0.05, `shape gives ${want.value.model.params} parameters`);
  assert.equal(await waitForAnswer(page), want.value.plan.gpus);
  await page.fill("#q-params", "huge");
  await page.locator('#quick .field[data-path="/model"] .field-error').waitFor({ state: "visible" });
  await page.fill("#q-params", "13B");
  await page.locator('#quick .field[data-path="/model"] .field-error').waitFor({ state: "hidden" });

  // A permalink keeps it.
  const other = await browser.context.newPage();
  await other.goto(await currentUrl());
  await waitForAnswer(other);
  assert.equal(await other.inputValue("#q-model"), "@params");
  await other.close();

  // Fine-tuning: 100K samples × 2,048 tokens × 3 epochs, as training.dataset.
  await page.selectOption("#q-model", "llama-3.1-8b");
  assert.equal(await page.locator("#q-tokens-mode").isVisible(), false, "pre-training is sized in tokens");
  await page.check("#q-job-full_finetune");
  await page.check("#q-tm-dataset");
  assert.equal(await page.locator("#q-tokens").isVisible(), false);
  await page.fill("#q-ds-samples", "100K");
  await page.fill("#q-ds-len", "2048");
  await page.fill("#q-ds-epochs", "3");
  await page.waitForFunction(() => /^= 614M training tokens \(614,400,000\)\.$/.test(document.querySelector("#q-ds-hint").textContent));
  const ft = await scenarioInUrl();
  assert.deepEqual(ft.training.dataset, { samples: 100000, avg_tokens: 2048, epochs: 3 });
  assert.equal(ft.training.tokens, undefined);
  assert.equal(ft.training.stage, "full_finetune");
  await page.waitForFunction(() => !document.querySelector("#answer.stale"));
  const wantFt = cliEvaluate(ft);
  assert.equal(wantFt.ok, true, wantFt.stderr);
  assert.equal(wantFt.value.training.tokens, 614400000);
  assert.equal(await waitForAnswer(page), wantFt.value.plan.gpus);
  assert.match(await page.locator("#q-rest").innerText(), /full fine-tuning/);
  // A missing part of the dataset: the core names it, at the dataset.
  await page.fill("#q-ds-len", "");
  const dsError = page.locator('.field[data-path="/training/dataset"] .field-error');
  await dsError.waitFor({ state: "visible" });
  assert.match(await dsError.innerText(), /^\/training\/dataset\/avg_tokens .*is required/);
  await page.fill("#q-ds-len", "2048");
  await dsError.waitFor({ state: "hidden" });
  // Packed samples: each attends only within itself, at the dataset's average length
  // (training.packed_document_tokens), which follows the length; the answer is the CLI's.
  assert.equal(await page.locator("#q-pack-field").isVisible(), true);
  const settled = () => page.waitForFunction(() => !document.querySelector("#answer.stale"));
  const packedAfter = async (act) => {
    await act();
    await settled();
    return scenarioInUrl();
  };
  await packedAfter(() => page.fill("#q-ds-len", "512"));
  assert.equal((await packedAfter(() => page.check("#q-ds-pack"))).training.packed_document_tokens, 512);
  const packed = await packedAfter(() => page.fill("#q-ds-len", "300"));
  assert.equal(packed.training.packed_document_tokens, 300);
  const wantPacked = cliEvaluate(packed);
  assert.equal(wantPacked.ok, true, wantPacked.stderr);
  assert.equal(await waitForAnswer(page), wantPacked.value.plan.gpus);
  const unpacked = cliEvaluate({ ...packed, training: { ...packed.training, packed_document_tokens: undefined } });
  assert.ok(wantPacked.value.performance.step_time_s < unpacked.value.performance.step_time_s, "packed samples train faster");
  assert.equal((await packedAfter(() => page.uncheck("#q-ds-pack"))).training.packed_document_tokens, undefined);
  await page.check("#q-ds-pack");
  await packedAfter(() => page.fill("#q-ds-len", "2048"));
  // Back to tokens: the dataset's token count (packing, said of its samples, goes with it).
  const back = await packedAfter(() => page.check("#q-tm-tokens"));
  assert.equal(back.training.tokens, 614400000);
  assert.equal(back.training.dataset, undefined);
  assert.equal(back.training.packed_document_tokens, undefined);
  assert.equal(await page.locator("#q-pack-field").isVisible(), false);
  assert.equal(await page.inputValue("#q-tokens"), "614.4M");

  // Back to the example, through the JSON editor.
  await page.locator("#json-details summary").click();
  await page.fill("#json-text", JSON.stringify(defaultScenario()));
  await page.click("#json-apply");
  await page.waitForFunction(() => document.querySelector("#q-model").value === "llama-3.1-70b" && !document.querySelector("#answer.stale"));
  await page.fill("#json-text", "{ broken");
  await page.click("#json-apply");
  await page.locator("#json-error").waitFor({ state: "visible" });
  await page.locator("#json-details summary").click();
  assert.equal(await waitForAnswer(page), cliEvaluate(defaultScenario()).value.plan.gpus);
});

test("the language switch: Chinese numbers and units, translated errors, remembered", async () => {
  try {
    await languageSwitch();
  } finally {
    // Whatever happened, the tests after this one read English.
    if ((await page.evaluate(() => document.documentElement.lang)) !== "en") {
      await page.evaluate(() => localStorage.setItem("gpucalc.lang", "en"));
      await page.reload();
    }
  }
});

async function languageSwitch() {
  await page.click("#lang");
  await page.waitForFunction(() => document.querySelector("#headline")?.textContent.includes("需要"));
  assert.equal(await page.evaluate(() => document.documentElement.lang), "zh-CN");
  // (A core that prices the run appends "，约 …美元".)
  assert.match(await page.locator("#headline").innerText(), /^需要 [\d,]+ 张 H100，训练 [\d.]+ 天(，约 \S+)?$/);
  assert.match(await page.locator("#q-tokens-hint").innerText(), /15万亿 token/);
  assert.match(await page.locator('#facts [data-key="gpu_hours"] .fact-value').innerText(), /万$/);
  assert.equal(await page.inputValue("#q-tokens"), "15万亿");
  assert.match(await page.locator("#mode-quick").innerText(), /快速/);
  await shot(page, "page-desktop-zh.png");

  // The core's English message, translated, at the field.
  await page.fill("#q-tokens", "-1");
  const error = page.locator('.field[data-path="/training/tokens"] .field-error');
  await error.waitFor({ state: "visible" });
  assert.match(await error.innerText(), /必须/);
  await page.fill("#q-tokens", "1.5万亿");
  await error.waitFor({ state: "hidden" });
  assert.equal((await scenarioInUrl()).training.tokens, 1.5e12);
  await page.fill("#q-tokens", "15万亿");
  await waitForAnswer(page);

  // The choice survives a reload.
  await page.reload();
  await waitForAnswer(page);
  assert.match(await page.locator("#headline").innerText(), /^需要/);
  // The Expert form's hints in Chinese: the schema's doc.zh.
  await page.click("#mode-expert");
  await page.waitForFunction(() => document.querySelector('#expert .field[data-path="/model/layers"] .hint')?.textContent.includes("Transformer 层数。"));
  await page.click("#mode-quick");
  await page.click("#lang");
  await page.waitForFunction(() => document.querySelector("#headline")?.textContent.includes("×"));
  assert.equal(await page.evaluate(() => document.documentElement.lang), "en");
}

test("permalink round trip: a link reproduces the scenario and the answer", async () => {
  await page.selectOption("#q-gpu", "h200-sxm-141gb");
  await waitForAnswer(page);
  await page.fill("#q-goal", "45");
  await page.waitForFunction(() => document.querySelector("#headline").textContent.includes("H200") && !document.querySelector("#answer.stale"));
  const gpus = await waitForAnswer(page);
  const link = await currentUrl();
  const scenario = await scenarioInUrl();
  assert.equal(scenario.gpu, "h200-sxm-141gb");
  assert.equal(scenario.target.days, 45);
  const want = cliEvaluate(scenario);
  assert.equal(want.ok, true, want.stderr);
  assert.equal(gpus, want.value.plan.gpus);

  const other = await browser.context.newPage();
  await other.goto(link);
  assert.equal(await waitForAnswer(other), gpus);
  assert.equal(await other.inputValue("#q-gpu"), "h200-sxm-141gb");
  assert.equal(await other.inputValue("#q-goal"), "45");
  assert.equal(await other.locator("#headline").innerText(), await page.locator("#headline").innerText());
  await other.close();
});

test("copy as CLI command: the command runs and gives the page's answer", async () => {
  await page.locator("#json-details summary").click();
  // The panel is filled by its "toggle" event, a task queued after the click.
  await page.waitForFunction(() => document.getElementById("cli-text").textContent.length > 0);
  const command = await page.locator("#cli-text").innerText();
  assert.match(command, /^echo '\{.*\}' \| gpucalc evaluate -$/s);
  const out = execFileSync("sh", ["-c", command.replace(/gpucalc evaluate -$/, `"${CLI}" evaluate -`)], { encoding: "utf8" });
  assert.equal(JSON.parse(out).plan.gpus, Number(await page.locator("#headline").getAttribute("data-gpus")));
  await page.click("#copy-cli");
  await page.locator("#toast").waitFor({ state: "visible" });
  await page.locator("#json-details summary").click();
});

test("JSON export and import, in the scenario format", async () => {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-json")]);
  const dir = mkdtempSync(path.join(tmpdir(), "gpucalc-json-"));
  try {
    const file = path.join(dir, download.suggestedFilename());
    await download.saveAs(file);
    assert.match(download.suggestedFilename(), /^gpucalc-llama-3\.1-70b-h200-sxm-141gb\.json$/);
    const exported = JSON.parse(readFileSync(file, "utf8"));
    assert.deepEqual(exported, await scenarioInUrl());
    assert.equal(cliEvaluate(exported).ok, true, "the CLI reads the exported file");

    const mine = { ...defaultScenario(), model: "llama-3.1-8b", gpu: "a100-sxm-80gb", target: { days: 20 } };
    const upload = path.join(dir, "mine.json");
    writeFileSync(upload, JSON.stringify(mine));
    await page.setInputFiles("#import-file", upload);
    await page.waitForFunction(() => document.querySelector("#headline").textContent.includes("A100") && !document.querySelector("#answer.stale"));
    const gpus = await waitForAnswer(page);
    assert.equal(gpus, cliEvaluate(mine).value.plan.gpus);
    assert.equal(await page.inputValue("#q-model"), "llama-3.1-8b");
    assert.deepEqual(await scenarioInUrl(), mine);

    // Not JSON: an error, nothing loaded.
    const bad = path.join(dir, "bad.json");
    writeFileSync(bad, "{ not json");
    await page.setInputFiles("#import-file", bad);
    await page.locator("#banner").waitFor({ state: "visible" });
    assert.match(await page.locator("#banner-text").innerText(), /not valid JSON/);
    await page.click("#banner-close");
    assert.equal(await page.locator("#headline").getAttribute("data-gpus"), String(gpus));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a tampered permalink shows an error and never runs script", async () => {
  const base = server.url;
  const open = async (hash) => {
    await page.goto("about:blank");
    await page.goto(`${base}#${hash}`);
  };
  const noScriptRan = async () => {
    assert.equal(await page.evaluate(() => window.__pwned ?? null), null, "injected script ran");
    assert.equal(await page.locator("img, script:not([src]), iframe, object, embed").count(), 0, "injected markup present");
  };

  // Damaged encoding: an error banner, and the default example's answer.
  await open("s=%%%not-base64");
  await page.locator("#banner").waitFor({ state: "visible" });
  assert.match(await page.locator("#banner-text").innerText(), /could not be read/);
  assert.equal(await waitForAnswer(page), cliEvaluate(defaultScenario()).value.plan.gpus);

  // Valid base64, not JSON.
  await open(`s=${b64url("<script>window.__pwned=1</script>")}`);
  await page.locator("#banner").waitFor({ state: "visible" });
  assert.match(await page.locator("#banner-text").innerText(), /not valid JSON/);
  await noScriptRan();

  // Markup in an id: the core rejects it, the page shows it as text at the field.
  const evil = '<img src=x onerror="window.__pwned=1">';
  await open(`s=${b64url(JSON.stringify({ ...defaultScenario(), model: evil }))}`);
  const modelError = page.locator('#quick .field[data-path="/model"] .field-error');
  await modelError.waitFor({ state: "visible" });
  assert.ok((await modelError.innerText()).includes("unknown model preset"), await modelError.innerText());
  await noScriptRan();

  // Markup in free text the core echoes (names): shown literally, inert.
  const named = {
    ...defaultScenario(),
    name: "<script>window.__pwned=1</script>",
    model: { base: "llama-3.1-70b", name: '<img src=x onerror="window.__pwned=1">' },
  };
  await open(`s=${b64url(JSON.stringify(named))}`);
  await waitForAnswer(page);
  assert.ok((await page.locator("#subline").innerText()).startsWith('<img src=x onerror="window.__pwned=1">'));
  await page.waitForTimeout(300);
  await noScriptRan();

  // An unknown field: the core's error with its path (no field on the Quick form has it).
  await open(`s=${b64url(JSON.stringify({ ...defaultScenario(), bogus: "<b>x</b>" }))}`);
  const formError = page.locator("#quick-error");
  await formError.waitFor({ state: "visible" });
  assert.match(await formError.innerText(), /^\/bogus .*unknown field/);
  await noScriptRan();

  // Not an object, too deep, and JSON given as plain text in the hash.
  await open(`s=${b64url("[1,2,3]")}`);
  await page.locator("#banner").waitFor({ state: "visible" });
  assert.match(await page.locator("#banner-text").innerText(), /not a JSON object/);
  await open(`s=${encodeURIComponent(JSON.stringify({ ...defaultScenario(), target: { days: 30 } }))}`);
  const want = cliEvaluate({ ...defaultScenario(), target: { days: 30 } });
  assert.equal(await waitForAnswer(page), want.value.plan.gpus);
  assert.equal(await page.locator("#banner").isHidden(), true);
  await noScriptRan();
});

test("the memory bar draws the answer's own limit (target.max_memory_fraction), not a fixed 80%", async () => {
  const scenario = { ...defaultScenario(), target: { ...(defaultScenario().target ?? {}), max_memory_fraction: 0.9 } };
  const want = cliEvaluate(scenario);
  assert.equal(want.ok, true, want.stderr);
  assert.equal(want.value.memory.limit_fraction, 0.9);
  await page.goto(`${server.url}#s=${b64url(JSON.stringify(scenario))}`);
  await waitForAnswer(page);
  await page.waitForFunction(() => document.querySelector("#mem-chart .bar-mark.mark-limit")?.textContent.trim() === "90%");
  const left = await page.locator("#mem-chart .bar-mark.mark-limit").evaluate((m) => m.style.left);
  const cap = want.value.memory.capacity_bytes;
  const scale = Math.max(cap, want.value.memory.total_bytes);
  assert.ok(Math.abs(parseFloat(left) - (100 * 0.9 * cap) / scale) < 0.5, `limit line at ${left}`);
});

test("Expert mode: every field, defaults shown, errors at the field", async () => {
  await page.goto(server.url);
  await waitForAnswer(page);
  await page.click("#mode-expert");
  await page.locator("#expert").waitFor({ state: "visible" });
  for (const p of ["/training/seq_len", "/training/precision", "/parallel/tp", "/assume/fragmentation", "/gpu/memory_gib", "/model/layers", "/description"]) {
    assert.equal(await page.locator(`#expert .field[data-path="${p}"]`).count(), 1, `field ${p}`);
  }
  // The hints are data/scenario-schema.json's doc.en, loaded with the form.
  await page.waitForFunction(() => /Transformer layers\./.test(document.querySelector('#expert .field[data-path="/model/layers"] .hint')?.textContent ?? ""));
  // The fields the hand-written form lacked (issue 14), and no /gpu/efficiency, which the core refuses.
  for (const p of ["/model/qk_norm", "/model/norms_per_layer", "/gpu/power_limit_w", "/gpu/rail_optimized", "/training/grad_dtype", "/target/max_memory_fraction"]) {
    assert.equal(await page.locator(`#expert .field[data-path="${p}"]`).count(), 1, `field ${p}`);
  }
  assert.equal(await page.locator('#expert .field[data-path="/gpu/efficiency"]').count(), 0);
  // Every field has its label (web/locales): none shows its lookup key.
  assert.deepEqual(await page.locator("#expert .label-text").evaluateAll((xs) => xs.map((x) => x.textContent).filter((t) => /^f_/.test(t))), []);
  assert.deepEqual(await page.locator('#expert .field[data-path="/model/ffn_act"] option').evaluateAll((os) => os.map((o) => o.value)), ["", "swiglu", "gelu", "geglu", "swiglu_clamped"]);
  assert.ok((await page.locator('#expert .field[data-path="/model/position_embedding"] option').evaluateAll((os) => os.map((o) => o.value))).includes("alibi"));
  assert.match(await page.locator('#expert .field[data-path="/model/qk_norm"] .hint').textContent(), /Qwen3/);
  // (Hints of closed groups are not rendered: read their text content.)
  const chosen = cliEvaluate(defaultScenario()).value.plan;
  assert.match(await page.locator('#expert .field[data-path="/parallel/tp"] .hint').textContent(), new RegExp(`Chosen: ${chosen.tp} `));
  assert.match(await page.locator('#expert .field[data-path="/model/layers"] .hint').textContent(), /Preset: 80/);
  assert.match(await page.locator('#expert .field[data-path="/assume/fragmentation"] .hint').textContent(), /Default: 0\.08/);

  await page.locator("#expert-fields details[data-group=parallel] > summary").click();
  const tp = page.locator('#expert .field[data-path="/parallel/tp"] input');
  await tp.fill("3");
  const error = page.locator('#expert .field[data-path="/parallel/tp"] .field-error');
  await error.waitFor({ state: "visible" });
  assert.match(await error.innerText(), /^\/parallel\/tp .*must divide/);
  await shot(page, "page-expert-error.png");
  const fixedTp = chosen.tp === 4 ? 8 : 4;
  await tp.fill(String(fixedTp));
  await error.waitFor({ state: "hidden" });
  await waitForAnswer(page);
  assert.equal(await page.locator('#plan .chip[data-key="tp"] dd').innerText(), String(fixedTp));
  assert.equal((await scenarioInUrl()).parallel.tp, fixedTp);
  // A dense model's plan shows no expert parallelism (its answer still carries ep 1, etp = tp).
  assert.equal(await page.locator('#plan .chip[data-key="ep"], #plan .chip[data-key="etp"]').count(), 0);

  // A model field overrides the preset: {base, layers}.
  await page.locator('#expert .field[data-path="/model/layers"] input').fill("40");
  await waitForAnswer(page);
  assert.deepEqual((await scenarioInUrl()).model, { base: "llama-3.1-70b", layers: 40 });
  await page.locator('#expert .field[data-path="/model/layers"] input').fill("");
  await tp.fill("");
  await page.waitForFunction(() => {
    const s = new URLSearchParams(location.hash.slice(1)).get("s");
    const j = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0))));
    return j.parallel === undefined && j.model === "llama-3.1-70b";
  });
  assert.equal((await scenarioInUrl()).model, "llama-3.1-70b");
  assert.equal((await scenarioInUrl()).parallel, undefined);
  await waitForAnswer(page);
  await shot(page, "page-expert.png");
  await page.click("#mode-quick");
});

test("the GPU-count curve with its Pareto front, and the top layouts", async () => {
  await page.locator("#curve-card").waitFor({ state: "visible" });
  await page.waitForFunction(() => !document.querySelector("#curve-card.stale"));
  const dots = await page.locator("#curve svg circle.dot").count();
  assert.ok(dots >= 6, `${dots} curve dots`);
  assert.ok((await page.locator("#curve svg circle.dot.pareto").count()) >= 2, "Pareto points");
  assert.equal(await page.locator("#curve svg .chosen-ring").count(), 2, "the answer is marked in both panels");
  assert.equal(await page.locator("#curve svg .target-line").count(), 1, "deadline line");
  assert.ok((await page.locator("#top-table tbody tr").count()) >= 1, "top layouts");
  assert.equal(await page.locator("#top-table tbody tr.chosen").count() >= 1, true, "the answer's layout is among them");
  // The data table is built when its <details> opens: one row per GPU count searched.
  assert.equal(await page.locator("#curve-table tbody tr").count(), 0, "not built while closed");
  await page.click("#curve-card details.data-table summary");
  const points = Number(await page.locator("#curve").getAttribute("data-points"));
  await page.waitForFunction((n) => document.querySelectorAll("#curve-table tbody tr").length === n, points);
  assert.equal(await page.locator("#curve-table tbody tr.chosen").count(), 1, "the answer's GPU count is marked");
  await page.locator("#curve-card").screenshot({ path: path.join(SHOTS, "page-curve.png") });
  await page.click("#curve-card details.data-table summary");
});

test("outputs of later cores render when present: cost, the quick estimate, other accelerators", async () => {
  // Cores before the cost issue do not give these: fed by hand here (test data, never
  // shown to users) to check that the page's slots for them work.
  const shown = await page.evaluate(async (cli) => {
    const { renderAnswer, renderCompare } = await import(new URL("app.js", location.href).href);
    const v = {
      ...cli,
      cost: { currency: "USD", total: 1.234e7, per_gpu_hour: 2.5, formula: "price per GPU-hour × GPUs × hours", price_source: { rule: "catalog", date: "2025-01" } },
      energy: { mwh: 2900, co2_tonnes: 1400, formula: "GPUs × W × PUE × hours" },
      quick_estimate: { gpus_raw: 21.9, gpus: 22, explanation: "rule of thumb" },
    };
    renderAnswer(v, { scenario: {}, gpuId: "h100-sxm-80gb" });
    renderCompare(
      {
        rows: [
          { gpu: { id: "h100-sxm-80gb", name: "NVIDIA H100" }, ok: true, gpus: 4096, days: 42, goodput_days: 44, gpu_hours: 4.1e6, cost: { currency: "USD", total: 1.2e7 } },
          { gpu: { id: "h20-96gb", name: "NVIDIA H20" }, ok: true, gpus: 16384, days: 50, gpu_hours: 2e7 },
          { gpu: { id: "ascend-910b", name: "Ascend" }, ok: false, error: { path: "/gpu", message: "is required" } },
        ],
      },
      "h100-sxm-80gb",
    );
    return {
      headline: document.querySelector("#headline").textContent,
      facts: [...document.querySelectorAll("#facts .fact")].map((f) => f.dataset.key),
      estimate: document.querySelector("#estimate").hidden ? null : document.querySelector("#estimate").textContent,
      rows: [...document.querySelectorAll("#compare-table tbody tr")].map((r) => r.textContent),
      compareHidden: document.querySelector("#compare-card").hidden,
    };
  }, cliEvaluate(defaultScenario()).value);
  assert.match(shown.headline, /≈ \$12\.3M$/);
  assert.ok(shown.facts.includes("cost") && shown.facts.includes("energy"), shown.facts.join());
  assert.match(shown.estimate, /≈ 22 GPUs/);
  assert.equal(shown.rows.length, 3);
  assert.match(shown.rows[0], /^H1004,0964[4.]/);
  assert.match(shown.rows[2], /Ascend 910B.*is required/);
  assert.equal(shown.compareHidden, false);
  await page.reload();
  await waitForAnswer(page);
});

// ---------------------------------------------------------------- the job: MoE, LoRA/QLoRA, optimizer, offload

// After an input that need not change the GPU count: the core's answer for the current inputs.
const settled = (p = page) =>
  p.waitForFunction(
    () =>
      document.querySelector("#result").getAttribute("aria-busy") === "false" &&
      !document.querySelector("#answer.stale") &&
      !document.querySelector("#answer.pending") &&
      !document.querySelector("#headline").dataset.preview,
  );
const distFormat = async () => {
  const { pathToFileURL } = await import("node:url");
  // format.js as a module of its own (dist/ has it inside the page's bundle).
  return import(pathToFileURL(path.join(`${DIST}-modules`, "format.js")).href);
};

test("MoE presets: total and active parameters in the list, an EP field only for them, EP errors at the field", async () => {
  const F = await distFormat();
  await page.goto(server.url);
  await waitForAnswer(page);
  const label = (id) => page.locator(`#q-model option[value="${id}"]`).textContent();
  assert.equal(await label("deepseek-v3"), "DeepSeek-V3 · 671B (37B active)");
  assert.equal(await label("mixtral-8x7b"), "Mixtral 8x7B · 46.7B (12.9B active)");
  assert.equal(await label("llama-3.1-70b"), "Llama 3.1 70B", "dense presets keep their names");
  assert.equal(await page.locator("#q-ep-field").isVisible(), false, "no EP field for a dense model");

  await page.selectOption("#q-model", "mixtral-8x7b");
  await settled();
  const scenario = await scenarioInUrl();
  assert.equal(scenario.model, "mixtral-8x7b");
  const want = cliEvaluate(scenario).value;
  assert.ok(want.model.active_params < want.model.params, "the core counts fewer active parameters");
  assert.ok(want.plan.ep >= 1 && 8 % want.plan.ep === 0, `the core chose ep ${want.plan.ep}`);
  assert.equal(Number(await page.locator("#headline").getAttribute("data-gpus")), want.plan.gpus);
  assert.equal(await page.locator('#plan .chip[data-key="ep"] dd').innerText(), String(want.plan.ep));
  assert.match(await page.locator("#subline").innerText(), new RegExp(`· ${F.big("en", want.model.params)} total, ${F.big("en", want.model.active_params)} active ·`));
  assert.equal(await page.locator('#model-facts [data-key="active"] .fact-value').innerText(), F.big("en", want.model.active_params));
  assert.equal(await page.locator("#q-ep-field").isVisible(), true);
  assert.equal(await page.locator("#q-ep").getAttribute("placeholder"), `chosen: ${want.plan.ep}`);
  assert.match(await page.locator("#q-ep-hint").innerText(), /^8 routed experts, 2 per token/);
  if (want.performance.breakdown.ep_comm_s > 0) {
    assert.equal(await page.locator("#time-chart .c-t-ep_comm").count() >= 1, true, "the EP all-to-all in the step-time breakdown");
    assert.match(await page.locator("#time-chart").innerText(), /EP all-to-all/);
  }

  // EP that does not divide the experts: the core's message at the EP field.
  await page.fill("#q-ep", "3");
  const error = page.locator('.field[data-path="/parallel/ep"] .field-error');
  await error.waitFor({ state: "visible" });
  assert.match(await error.innerText(), /^\/parallel\/ep must divide the model's routed experts \(8\), got 3$/);
  assert.equal(await page.locator("#answer.stale").count(), 1);
  await page.fill("#q-ep", "2");
  await error.waitFor({ state: "hidden" });
  await settled();
  assert.equal((await scenarioInUrl()).parallel.ep, 2);
  assert.equal(await page.locator('#plan .chip[data-key="ep"] dd').innerText(), "2");
  assert.equal(Number(await page.locator("#headline").getAttribute("data-gpus")), cliEvaluate(await scenarioInUrl()).value.plan.gpus);
  await page.waitForFunction(() => !document.querySelector("#curve-card[hidden]") && !document.querySelector("#curve-card.stale"));
  await shot(page, "page-moe.png");

  // In Chinese: the list and the hint.
  await page.click("#lang");
  await page.waitForFunction(() => document.documentElement.lang === "zh-CN");
  assert.equal(await label("deepseek-v3"), "DeepSeek-V3 · 6,710亿（激活 370亿）");
  assert.match(await page.locator("#q-ep-hint").innerText(), /^8 个路由专家/);
  await page.fill("#q-ep", "3");
  await error.waitFor({ state: "visible" });
  assert.match(await error.innerText(), /必须整除模型的路由专家数（8），当前为 3/);
  await page.fill("#q-ep", "2");
  await error.waitFor({ state: "hidden" });
  await settled();
  await page.setViewportSize({ width: 360, height: 740 });
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)) <= 0, "no horizontal overflow");
  await shot(page, "page-moe-phone-zh.png");
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.click("#lang");
  await page.waitForFunction(() => document.documentElement.lang === "en");

  // Back to a dense model: EP goes with the experts.
  await page.selectOption("#q-model", "llama-3.1-8b");
  await settled();
  assert.equal((await scenarioInUrl()).parallel, undefined);
  assert.equal(await page.locator("#q-ep-field").isVisible(), false);
});

test("QLoRA on one GPU: memory drops, the trainable parameters show; LoRA fields only when they apply", async () => {
  const F = await distFormat();
  await page.goto(server.url);
  await waitForAnswer(page);
  await page.selectOption("#q-model", "llama-3.1-8b");
  await page.fill("#q-tokens", "2B");
  await page.check("#q-goal-gpus");
  await page.fill("#q-goal", "1");
  await settled();
  assert.equal(await page.locator("#q-lora").isVisible(), false, "no LoRA fields for pre-training");

  // Full fine-tuning of 8B on one H100 does not fit (16 bytes per parameter of states alone).
  await page.check("#q-job-full_finetune");
  await settled();
  const full = await scenarioInUrl();
  assert.equal(full.training.stage, "full_finetune");
  const wantFull = cliEvaluate(full).value;
  assert.equal(wantFull.memory.fits, false);
  assert.match(await page.locator("#headline").innerText(), /^Does not fit: 1 × H100 needs/);
  assert.equal(await page.locator('#facts [data-key="trainable"]').count(), 0, "every parameter trains");

  // QLoRA: 4-bit frozen base, 16-bit adapters: it fits, and says what it trains.
  await page.check("#q-job-qlora");
  await settled();
  const q = await scenarioInUrl();
  assert.equal(q.training.stage, "qlora");
  assert.equal(q.training.lora, undefined, "the defaults are the core's");
  const wantQ = cliEvaluate(q).value;
  assert.ok(wantQ.memory.total_bytes < wantFull.memory.total_bytes / 2, `${wantQ.memory.total_bytes} vs ${wantFull.memory.total_bytes}`);
  assert.equal(wantQ.memory.fits, true);
  assert.match(await page.locator("#headline").innerText(), /^1 × H100: /);
  assert.equal(await page.locator('#facts [data-key="memory"] .fact-value').innerText(), F.gib("en", wantQ.memory.total_bytes));
  assert.ok(wantQ.model.trainable_params > 0 && wantQ.model.trainable_params < wantQ.model.params / 50, `trainable ${wantQ.model.trainable_params}`);
  const trainable = F.big("en", wantQ.model.trainable_params);
  assert.equal(await page.locator('#facts [data-key="trainable"] .fact-value').innerText(), trainable);
  assert.match(await page.locator("#subline").innerText(), new RegExp(`^Llama 3\\.1 8B · QLoRA r 16: ${trainable.replace(".", "\\.")} trainable \\(0\\.\\d+%\\) ·`));
  assert.equal(await page.locator('#model-facts [data-key="trainable"] .fact-value').innerText(), trainable);
  for (const id of ["#q-lora", "#q-qlora", "#q-lora-rank", "#q-lora-targets"]) assert.equal(await page.locator(id).isVisible(), true, `${id} shown for QLoRA`);
  assert.equal(await page.locator("#q-job-hint").innerText(), "Base weights frozen in 4-bit NF4, adapters trained in 16 bits (Dettmers et al. 2023).");

  // Rank, targets, paged optimizer: each reaches the scenario and the core's answer.
  await page.fill("#q-lora-rank", "64");
  await settled();
  await page.uncheck('#q-lora-targets input[value="gate"]');
  await settled();
  await page.check("#q-qlora-paged");
  await settled();
  const tuned = await scenarioInUrl();
  assert.deepEqual(tuned.training.lora, { rank: 64, targets: ["q", "k", "v", "o", "up", "down"], paged_optimizer: true });
  const wantT = cliEvaluate(tuned).value;
  assert.ok(wantT.model.trainable_params > wantQ.model.trainable_params, "rank 64 trains more");
  assert.equal(await page.locator('#facts [data-key="trainable"] .fact-value').innerText(), F.big("en", wantT.model.trainable_params));
  assert.ok(wantT.memory.host_bytes > 0, "paged optimizer states are counted on the host");
  assert.match(await page.locator("#mem-chart .host-mem").innerText(), new RegExp(`^Host \\(CPU\\) memory per GPU: ${F.gib("en", wantT.memory.host_bytes).replace(".", "\\.")} `));
  await page.waitForFunction(() => !document.querySelector("#curve-card.stale"));
  await shot(page, "page-qlora.png");

  // A permalink reproduces the job.
  const other = await browser.context.newPage();
  await other.goto(await currentUrl());
  await waitForAnswer(other);
  assert.equal(await other.isChecked("#q-job-qlora"), true);
  assert.equal(await other.inputValue("#q-lora-rank"), "64");
  assert.equal(await other.isChecked('#q-lora-targets input[value="gate"]'), false);
  assert.equal(await other.isChecked("#q-qlora-paged"), true);
  assert.equal(await other.locator("#headline").innerText(), await page.locator("#headline").innerText());
  await other.close();
  // So does the exported file, named for the job.
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-json")]);
  assert.equal(download.suggestedFilename(), "gpucalc-llama-3.1-8b-h100-sxm-80gb-qlora.json");
  const dir = mkdtempSync(path.join(tmpdir(), "gpucalc-qlora-"));
  try {
    const file = path.join(dir, download.suggestedFilename());
    await download.saveAs(file);
    assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), tuned);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // A bad rank: the core's error, at the rank field; then back.
  await page.fill("#q-lora-rank", "0");
  const error = page.locator('.field[data-path="/training/lora/rank"] .field-error');
  await error.waitFor({ state: "visible" });
  assert.match(await error.innerText(), /^\/training\/lora\/rank must be a positive integer, got 0$/);
  assert.equal(await page.locator("#answer.stale").count(), 1);
  await page.setViewportSize({ width: 360, height: 740 });
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)) <= 0, "no horizontal overflow");
  await shot(page, "page-qlora-phone-error.png");
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.fill("#q-lora-rank", "64");
  await error.waitFor({ state: "hidden" });
  await settled();

  // Optimizer, master weights and offload, on a full fine-tune that then fits.
  await page.check("#q-job-full_finetune");
  await settled();
  assert.equal(await page.locator("#q-lora").isVisible(), false, "LoRA fields go with LoRA");
  assert.equal((await scenarioInUrl()).training.lora, undefined);
  await page.locator("#q-opt summary").click();
  await page.selectOption("#q-optimizer", "adam8bit");
  await settled();
  await page.check("#q-off-opt");
  await settled();
  const off = await scenarioInUrl();
  assert.equal(off.training.optimizer, "adam8bit");
  assert.deepEqual(off.training.offload, { optimizer: true });
  const wantOff = cliEvaluate(off).value;
  assert.ok(wantOff.memory.host_bytes > 0 && wantOff.memory.total_bytes < wantFull.memory.total_bytes);
  assert.equal(await page.locator('#facts [data-key="memory"] .fact-value').innerText(), F.gib("en", wantOff.memory.total_bytes));
  assert.equal(await page.locator("#mem-chart .host-mem").count(), 1);
  assert.match(await page.locator("#q-opt-summary").innerText(), /^8-bit Adam · FP32 master weights · optimizer in CPU memory$/);
  await page.uncheck("#q-master");
  await settled();
  assert.equal((await scenarioInUrl()).training.master_weights, false);
  // Parameters offloaded too: the calculator picks ZeRO-3, which that needs.
  await page.check("#q-off-params");
  await settled();
  assert.equal(cliEvaluate(await scenarioInUrl()).ok, true, "ZeRO-3 chosen for offloaded parameters");
  await page.locator("#q-opt summary").click();
});

test("Expert mode: the job, LoRA, optimizer, offload and MoE fields, shown where they apply", async () => {
  const base = { model: "llama-3.1-8b", gpu: "h100-sxm-80gb", training: { tokens: 2e9, seq_len: 4096, stage: "lora" }, parallel: { gpus: 1 } };
  await page.goto(`${server.url}#s=${b64url(JSON.stringify(base))}`);
  await waitForAnswer(page);
  await page.click("#mode-expert");
  await page.locator("#expert").waitFor({ state: "visible" });
  const field = (p) => page.locator(`#expert .field[data-path="${p}"]`);
  for (const d of await page.locator("#expert-fields details").all()) await d.evaluate((x) => { x.open = true; });
  for (const p of ["/training/stage", "/training/lora/rank", "/training/lora/alpha", "/training/lora/targets", "/training/optimizer", "/training/master_weights", "/training/offload/optimizer", "/training/offload/params", "/training/dataset/samples", "/model/moe/experts", "/model/attention/type"]) {
    assert.equal(await field(p).isVisible(), true, `${p} shown`);
  }
  for (const p of ["/training/lora/double_quant", "/parallel/ep", "/parallel/etp", "/training/moe_dispatcher", "/model/moe/top_k", "/model/attention/kv_lora_rank", "/training/overlap_moe_comm"]) {
    assert.equal(await field(p).isVisible(), false, `${p} hidden (does not apply)`);
  }
  assert.match(await field("/training/lora/rank").locator(".hint").innerText(), /^Default: 16/);
  assert.match(await field("/training/optimizer").locator("select").innerText(), /8-bit Adam[\s\S]*Adafactor/);
  assert.equal(await field("/training/lora/targets").locator('input[type="checkbox"]:checked').count(), 7);

  // Targets as checkboxes; none ticked is the core's error at the field.
  await field("/training/lora/targets").locator('input[value="gate"]').uncheck();
  await settled();
  assert.deepEqual((await scenarioInUrl()).training.lora, { targets: ["q", "k", "v", "o", "up", "down"] });
  for (const v of ["q", "k", "v", "o", "up", "down"]) await field("/training/lora/targets").locator(`input[value="${v}"]`).uncheck();
  const targetsError = field("/training/lora/targets").locator(".field-error");
  await targetsError.waitFor({ state: "visible" });
  assert.match(await targetsError.innerText(), /^\/training\/lora\/targets must be a non-empty array/);
  await field("/training/lora/targets").locator('input[value="q"]').check();
  await targetsError.waitFor({ state: "hidden" });
  await settled();

  // QLoRA shows its own fields; a MoE preset shows EP and its experts.
  await field("/training/stage").locator("select").selectOption("qlora");
  await settled();
  assert.equal(await field("/training/lora/double_quant").isVisible(), true);
  await field("/model").locator("select").selectOption("qwen3-30b-a3b");
  await settled();
  for (const p of ["/parallel/ep", "/parallel/etp", "/training/moe_dispatcher", "/model/moe/top_k", "/training/overlap_moe_comm"]) assert.equal(await field(p).isVisible(), true, `${p} shown for MoE`);
  // Recompute modules that apply: MoE ones for a MoE model, MLA's only with MLA.
  const modules = field("/training/recompute_modules");
  assert.equal(await modules.locator('input[value="moe_act"]').isVisible(), true);
  assert.equal(await modules.locator('input[value="mla_up_proj"]').isVisible(), false);
  assert.match(await field("/model/moe/experts").locator(".hint").innerText(), /^Preset: 128/);
  await field("/parallel/ep").locator("input").fill("3");
  const epError = field("/parallel/ep").locator(".field-error");
  await epError.waitFor({ state: "visible" });
  assert.match(await epError.innerText(), /^\/parallel\/ep .*must divide the model's routed experts \(128\), got 3/);
  await field("/parallel/ep").locator("input").fill("");
  await epError.waitFor({ state: "hidden" });
  await settled();
  // A model field below the preset keeps the preset as base.
  await field("/model/moe/top_k").locator("input").fill("4");
  await settled();
  assert.deepEqual((await scenarioInUrl()).model, { base: "qwen3-30b-a3b", moe: { top_k: 4 } });
  await field("/model/moe/top_k").locator("input").fill("");
  await settled();
  assert.equal((await scenarioInUrl()).model, "qwen3-30b-a3b");
  await shot(page, "page-expert-job.png");
  await page.click("#mode-quick");
  await page.goto(server.url);
  await waitForAnswer(page);
});

// ---------------------------------------------------------------- trust: accuracy, ranges, OOM risk, calibration

test("the answer shows its OOM risk and P10–P90 range; How accurate is this? opens the validation report, in both languages", async () => {
  const F = await distFormat();
  await page.goto(server.url);
  await waitForAnswer(page);
  await settled();
  const want = cliEvaluate(defaultScenario()).value;
  // The OOM flag, prominent in the headline card, at the core's level.
  const oom = page.locator("#trust #oom");
  await oom.waitFor({ state: "visible" });
  assert.equal(await oom.getAttribute("data-level"), want.oom_risk.level);
  assert.match(await oom.innerText(), new RegExp(`^OOM RISK: ${want.oom_risk.level.toUpperCase()}`, "i"));
  assert.ok((await oom.innerText()).includes(F.gib("en", want.memory.total_bytes)), await oom.innerText());
  // The range: the core's P10 and P90 of days, as the page formats days.
  const d = want.uncertainty.time.days;
  const fmtDays = (v) => F.num("en", v, v < 10 ? 2 : 1);
  const range = await page.locator("#trust #range").innerText();
  // It names the answer's regime and how many of that regime's runs it rests on.
  assert.equal(want.uncertainty.time.regime, "dense");
  assert.ok(range.includes(`P10–P90 from ${want.uncertainty.time.n} published dense pre-training runs`), range);
  assert.ok(range.includes(`${fmtDays(d.p10)}–${fmtDays(d.p90)} days`), `${range} vs ${d.p10}-${d.p90}`);
  assert.match(await page.locator('#facts [data-key="days"] .fact-range').innerText(), /^P10–P90: /);

  // The report: the median from the validation run (data/validation.json), every row.
  const report = readJson(path.join(path.dirname(DEFAULT_EXAMPLE), "../data/validation.json"));
  await page.click("#open-accuracy");
  const dialog = page.locator("dialog#accuracy");
  await dialog.waitFor({ state: "visible" });
  await page.locator("#acc-median").waitFor();
  assert.equal(await page.locator("#acc-median").innerText(), `${F.fixed("en", report.summary.median_abs_error * 100, 1)}%`);
  const metrics = report.rows.reduce((n, r) => n + r.metrics.length, 0);
  assert.equal(await page.locator("#acc-table tbody tr").count(), metrics, "one line per run and metric");
  const first = report.rows.find((r) => r.counts_toward_target);
  const line = page.locator(`#acc-table tr[data-run="${first.id}"][data-metric="${first.metrics[0].key}"]`);
  const e = first.metrics[0].error;
  assert.ok((await line.innerText()).includes(`${e >= 0 ? "+" : "−"}${F.fixed("en", Math.abs(e) * 100, 1)}%`), await line.innerText());
  assert.equal(await line.locator("a").getAttribute("href"), first.source.url);
  assert.match(await page.locator("#acc-time").innerText(), /P10 = \d\.\d\d, P50 = \d\.\d\d, P90 = \d\.\d\d/);
  // One row per regime, each with its error and its band (issue 12: ranges by regime).
  const regimes = Object.keys(report.regimes);
  assert.equal(await page.locator("#acc-regimes tbody tr").count(), regimes.length);
  const dense = page.locator('#acc-regimes tr[data-regime="dense"]');
  assert.ok((await dense.innerText()).includes(`${F.fixed("en", report.regimes.dense.median_abs_error * 100, 1)}%`), await dense.innerText());
  assert.match(await dense.innerText(), /dense pre-training/);
  // The target is stated with where it is missed, read from the same report.
  const missed = ["dense", "moe", "finetune"].filter((n) => report.regimes[n].median_abs_error > report.targets.median || report.regimes[n].max_abs_error > report.targets.max);
  const note = await page.locator("#acc-regimes").locator("xpath=../following-sibling::p[1]").innerText();
  assert.ok(note.includes(`at most ${report.targets.median * 100}% and a largest of at most ${report.targets.max * 100}%`), note);
  if (missed.length) assert.ok(note.includes("is not yet met for:") && note.includes(missed.includes("moe") ? "MoE" : "pre-training"), note);
  else assert.ok(note.includes("is met"), note);
  assert.ok((await dialog.innerText()).includes("What the model does not capture"));
  await dialog.screenshot({ path: path.join(SHOTS, "page-accuracy.png") });
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "hidden" });

  // 中文.
  await page.click("#lang");
  await page.waitForFunction(() => document.documentElement.lang === "zh-CN");
  assert.match(await page.locator("#trust #oom").innerText(), /^显存溢出风险：[低中高]/);
  assert.match(await page.locator("#trust #range").innerText(), /可能区间（P10–P90，依据 \d+ 次公开的稠密预训练实测）/);
  await page.click("#open-accuracy");
  await dialog.waitFor({ state: "visible" });
  await page.waitForFunction(() => /误差中位数/.test(document.querySelector("#acc-summary")?.textContent ?? ""));
  assert.match(await page.locator("#accuracy h3").first().innerText(), /按类型/);
  assert.match(await page.locator('#acc-regimes tr[data-regime="moe"]').innerText(), /MoE 预训练/);
  assert.ok((await page.locator("#accuracy").innerText()).includes("区间怎么算"));
  await shot(page, "page-accuracy-zh.png");
  await page.locator("#acc-close").click();
  await dialog.waitFor({ state: "hidden" });
  // An accelerator no published run of the regime used (H20), in Chinese.
  await page.selectOption("#q-gpu", "h20-96gb");
  await page.waitForFunction(() => /H20.*（或峰值与显存带宽相同的加速卡）上的实测，区间已放宽/.test(document.querySelector("#trust #range")?.textContent ?? ""));
  await page.selectOption("#q-gpu", "h100-sxm-80gb");
  await page.waitForFunction(() => !/区间已放宽/.test(document.querySelector("#trust #range")?.textContent ?? ""));
  // gpt-oss-120b: its published runs all took longer than predicted, so the range says it
  // is widened by them (the core's uncertainty.time.model_runs), in Chinese and English.
  await page.selectOption("#q-model", "gpt-oss-120b");
  await page.waitForFunction(() => /gpt-oss-120b 的 \d+ 次公开实测/.test(document.querySelector("#trust #range")?.textContent ?? ""));
  const runs = cliEvaluate({ ...defaultScenario(), model: "gpt-oss-120b" }).value.uncertainty.time.model_runs;
  assert.ok(runs >= 3);
  assert.ok((await page.locator("#trust #range").innerText()).includes(`gpt-oss-120b 的 ${runs} 次公开实测一致偏向一侧`));
  await page.click("#lang");
  await page.waitForFunction(() => document.documentElement.lang === "en");
  await page.waitForFunction(() => /published runs of gpt-oss-120b/.test(document.querySelector("#trust #range")?.textContent ?? ""));
  assert.ok((await page.locator("#trust #range").innerText()).includes(`widened to cover the ${runs} published runs of gpt-oss-120b`));
  await page.selectOption("#q-model", "llama-3.1-70b");
  await page.waitForFunction(() => !/published runs of/.test(document.querySelector("#trust #range")?.textContent ?? ""));
});

test("an answer that does not fit is flagged high", async () => {
  const scenario = {
    model: "llama-3.1-70b",
    gpu: "h100-sxm-80gb",
    training: { tokens: 1e12, seq_len: 8192, global_batch: 64, micro_batch: 1, zero_stage: 0, recompute: "none" },
    parallel: { tp: 1, pp: 1, dp: 32, cp: 1 },
  };
  const want = cliEvaluate(scenario);
  assert.equal(want.ok, true, want.stderr);
  assert.equal(want.value.oom_risk.level, "high");
  await page.goto(`${server.url}#s=${b64url(JSON.stringify(scenario))}`);
  await waitForAnswer(page);
  try {
    await page.locator('#trust #oom[data-level="high"]').waitFor();
  } catch (error) {
    // Twice in full CI runs (2026-12-04) the badge never came after this same-document
    // navigation: the page had put its previous scenario's hash back before the
    // hashchange event ran (fixed: app.js reads the event's newURL; the next test makes
    // that race happen on purpose). Say what the page showed, should it come back.
    const seen = await page.evaluate(() => ({
      hash: location.hash.slice(0, 40),
      headline: { ...document.querySelector("#headline")?.dataset },
      busy: document.querySelector("#result")?.getAttribute("aria-busy"),
      stale: Boolean(document.querySelector("#answer.stale, #answer.pending")),
      trust: document.querySelector("#trust")?.outerHTML.slice(0, 400),
      errors: [...document.querySelectorAll(".error, [role=alert]")].map((e) => e.textContent.trim()).filter(Boolean).slice(0, 3),
    }));
    error.message += `\npage: ${JSON.stringify(seen)}`;
    throw error;
  }
  await page.goto(server.url);
  await waitForAnswer(page);
});

// A scenario on which nothing fits, opened: the CLI's answer has `key` under search and the
// warning `code`, and the page's fit note says the same, with its button. Returns `key`.
async function openNoFit(scenario, key, code) {
  const want = cliEvaluate(scenario);
  assert.equal(want.ok, true, want.stderr);
  const fit = want.value.search[key];
  const note = want.value.warnings.find((w) => w.code === code);
  assert.ok(fit && note, `the CLI's answer has search.${key} and ${code}`);
  await page.goto(`${server.url}#s=${b64url(JSON.stringify(scenario))}`);
  await waitForAnswer(page);
  await page.locator("#fit-use:not([hidden])").waitFor();
  assert.equal((await page.locator("#fit-text").innerText()).toLowerCase(), note.message.toLowerCase());
  return fit;
}

test("a pinned layout that fits nowhere: the calculator's layout, and a button that leaves the layout open", async () => {
  const scenario = { model: "llama-3.1-405b", gpu: "h100-sxm-80gb", training: { tokens: 1e9, seq_len: 8192, global_batch: 128, micro_batch: 1, recompute: "none", stage: "full_finetune" }, parallel: { tp: 1, pp: 1, dp: 128 } };
  const open = await openNoFit(scenario, "fits_with_layout_open", "oom_fix_layout_here");
  assert.equal(await page.locator("#fit-use").innerText(), "Let the calculator choose the layout");
  await page.locator("#fit-use").click();
  await page.waitForFunction(() => document.querySelector("#fit-note").hidden && !document.querySelector("#answer.stale"));
  const after = await scenarioInUrl();
  assert.deepEqual(after.parallel, {}, "the parallel factors are left open");
  assert.equal(after.training.micro_batch, undefined);
  assert.equal(after.training.recompute, undefined);
  const there = cliEvaluate(after).value;
  assert.equal(there.memory.fits, true);
  assert.equal(there.plan.tp, open.plan.tp);
  await page.goto(server.url);
  await waitForAnswer(page);
});

test("a deadline missed because nothing fits says so, not a day count", async () => {
  const scenario = { model: "kimi-k2", gpu: "rtx-4090-24gb", training: { tokens: 1e10, seq_len: 4096, stage: "qlora" }, target: { days: 30 } };
  const want = cliEvaluate(scenario).value;
  assert.equal(want.memory.fits, false);
  assert.ok(want.warnings.some((w) => w.code === "target_days_no_fit"));
  await page.goto(`${server.url}#s=${b64url(JSON.stringify(scenario))}`);
  await waitForAnswer(page);
  await page.locator("#target-note:not([hidden])").waitFor();
  assert.equal(await page.locator("#target-note").innerText(), "The 30-day target is out of reach: no layout fits in memory.");
  await page.goto(server.url);
  await waitForAnswer(page);
});

test("a count fixed by tp × pp × dp shows as the GPU-count goal, and a new count leaves DP to the calculator", async () => {
  const scenario = { model: "llama-3.1-8b", gpu: "h100-sxm-80gb", training: { tokens: 1e10, seq_len: 4096, global_batch: 64 }, parallel: { tp: 2, pp: 1, dp: 4 } };
  await page.goto(`${server.url}#s=${b64url(JSON.stringify(scenario))}`);
  await waitForAnswer(page);
  assert.equal(await page.isChecked("#q-goal-gpus"), true);
  assert.equal(await page.inputValue("#q-goal"), "8");
  assert.equal(await page.locator("#q-goal-hint").innerText(), "Fixed by the layout (TP 2 × PP 1 × DP 4); another count leaves DP to the calculator.");
  assert.match(await page.locator("#headline").innerText(), /^8 × H100: /, "the fixed count's headline");
  await page.fill("#q-goal", "16");
  await page.waitForFunction(() => document.querySelector("#headline").dataset.gpus === "16" && !document.querySelector("#answer.stale"));
  const after = await scenarioInUrl();
  assert.deepEqual(after.parallel, { tp: 2, pp: 1, gpus: 16 });
  assert.equal(cliEvaluate(after).value.plan.dp, 8);
  assert.equal(await page.locator("#q-goal-hint").innerText(), "How long this many GPUs take.");
  await page.goto(server.url);
  await waitForAnswer(page);
});

test("a fixed GPU count that does not fit says from how many GPUs it would, unpriced; the button asks for that many", async () => {
  const scenario = { model: "llama-3.1-405b", gpu: "h100-sxm-80gb", training: { tokens: 1e9, seq_len: 8192, global_batch: 64, stage: "full_finetune" }, parallel: { gpus: 8 } };
  const from = await openNoFit(scenario, "fits_from", "oom_fix_gpus");
  assert.doesNotMatch(await page.locator("#headline").innerText(), /\$/, "no price beside a plan that cannot run");
  assert.equal(await page.locator("#range").count(), 0, "no likely range for a run that cannot happen");
  assert.match(await page.locator("#plan-note").innerText(), new RegExp(`the fewest GPUs that fit: ${from.gpus}\\b`));
  // The facts grid keeps the run's days, cost and energy, said to be the run's if it fit.
  for (const key of ["days", "gpu_hours", "cost", "energy"]) {
    const fact = page.locator(`#facts .fact[data-key="${key}"]`);
    assert.match(await fact.getAttribute("class"), /\bhypo\b/, key);
    assert.match(await fact.locator(".fact-sub:not(.fact-range)").innerText(), /^if it fit\b/, key);
  }
  assert.doesNotMatch(await page.locator('#facts .fact[data-key="mfu"]').getAttribute("class"), /\bhypo\b/);
  assert.equal(await page.locator('#facts [data-key="days"] .fact-range').count(), 0, "no P10-P90 under days that cannot happen");
  await shot(page, "page-no-fit.png");
  await page.locator("#fit-use").click();
  await page.waitForFunction((n) => document.querySelector("#headline").dataset.gpus === String(n) && document.querySelector("#fit-note").hidden, from.gpus);
  assert.equal(await page.locator("#q-goal").inputValue(), String(from.gpus));
  const there = cliEvaluate({ ...scenario, parallel: { gpus: from.gpus } }).value;
  assert.equal(there.memory.fits, true);
  assert.equal(await page.locator("#headline").getAttribute("data-days"), String(there.training.days));
  assert.equal(await page.locator("#facts .fact.hypo").count(), 0, "a plan that fits is not 'if it fit'");
  await page.goto(server.url);
  await waitForAnswer(page);
});

test("a followed link wins over the page putting its own scenario's hash back", async () => {
  // The race behind the test above, made certain: a link changes the hash, and in the same
  // task the page's syncOutputs (history.replaceState) writes the current scenario's hash,
  // before the hashchange event runs. The page must load the link's scenario.
  const scenario = { model: "llama-3.1-8b", gpu: "h100-sxm-80gb", training: { tokens: 1e12, seq_len: 4096 }, target: { days: 30 } };
  const want = cliEvaluate(scenario);
  assert.equal(want.ok, true, want.stderr);
  const before = String(await waitForAnswer(page));
  await page.evaluate(([link, back]) => {
    location.hash = link;
    history.replaceState(null, "", back);
  }, [`#s=${b64url(JSON.stringify(scenario))}`, `#s=${b64url(JSON.stringify(defaultScenario()))}`]);
  const gpus = await waitForAnswer(page, before);
  assert.equal(String(gpus), String(want.value.plan.gpus));
  assert.equal(await page.locator("#q-model").inputValue(), "llama-3.1-8b");
  await page.goto(server.url);
  await waitForAnswer(page);
});

test("calibration: a measured step time and peak memory change the answer to the CLI's; bad values at their field", async () => {
  const F = await distFormat();
  await page.goto(server.url);
  await waitForAnswer(page);
  await settled();
  const plain = cliEvaluate(defaultScenario()).value;
  await page.locator("#cal-details summary").click();
  assert.match(await page.locator("#cal-step-hint").innerText(), /^Predicted for this layout: /);

  // 25% slower than predicted: the layout gets fixed, days and cost follow.
  const measured = Number((plain.performance.step_time_s * 1.25).toFixed(3));
  const before = await page.locator("#headline").getAttribute("data-days");
  await page.fill("#cal-step", String(measured));
  await page.waitForFunction((b) => document.querySelector("#headline").dataset.days !== b, before);
  await settled();
  const scenario = await scenarioInUrl();
  assert.equal(scenario.calibration.measured_step_time_s, measured);
  for (const k of ["tp", "pp", "dp", "cp"]) assert.equal(scenario.parallel[k], plain.plan[k], `parallel.${k} fixed to the answer's`);
  assert.equal(scenario.training.micro_batch, plain.plan.micro_batch);
  const want = cliEvaluate(scenario);
  assert.equal(want.ok, true, want.stderr);
  assert.equal(want.value.calibration.step_time.factor.toFixed(3), (measured / plain.performance.step_time_s).toFixed(3));
  assert.equal(Number(await page.locator("#headline").getAttribute("data-days")).toFixed(6), want.value.training.days.toFixed(6));
  assert.equal(Number(await page.locator("#headline").getAttribute("data-gpus")), plain.plan.gpus);
  assert.ok(Math.abs(want.value.training.days / plain.training.days - measured / plain.performance.step_time_s) < 1e-9);
  assert.match(await page.locator("#trust #range").innerText(), /^Calibrated: step time × 1\.25 /);
  assert.match(await page.locator("#cal-note").innerText(), /Step time × 1\.25\d/);
  // The layout the factor holds for: the core's calibration.layout, its counts grouped.
  const grouped = want.value.calibration.layout.replace(/\d{4,}/g, (d) => Number(d).toLocaleString("en-US"));
  assert.ok((await page.locator("#cal-note").innerText()).startsWith(`For ${grouped}.`), await page.locator("#cal-note").innerText());

  // A measured peak: the OOM flag uses it.
  await page.fill("#cal-mem", "70");
  await page.waitForFunction(() => /measured/.test(document.querySelector("#oom")?.textContent ?? ""));
  await settled();
  const both = cliEvaluate(await scenarioInUrl()).value;
  assert.equal(await page.locator("#oom").getAttribute("data-level"), both.oom_risk.level);
  assert.ok((await page.locator("#oom").innerText()).includes(F.gib("en", 70 * 2 ** 30)));
  await shot(page, "page-calibrated.png");

  // Ten times the prediction: refused at the field, by the core.
  await page.fill("#cal-step", String(plain.performance.step_time_s * 10));
  const stepError = page.locator('#calibrate .field[data-path="/calibration/measured_step_time_s"] .field-error');
  await stepError.waitFor({ state: "visible" });
  assert.match(await stepError.innerText(), /^\/calibration\/measured_step_time_s .*× the predicted/);
  await page.fill("#cal-step", "fast");
  await page.waitForFunction(() => /Enter a number/.test(document.querySelector('#calibrate .field[data-path="/calibration/measured_step_time_s"] .field-error')?.textContent ?? ""));
  await page.fill("#cal-step", String(measured));
  await stepError.waitFor({ state: "hidden" });
  await settled();

  // Clear: the calibration and the layout it fixed go; the default answer is back.
  await page.click("#cal-clear");
  await page.waitForFunction((g) => document.querySelector("#headline").dataset.gpus === String(g) && !document.querySelector("#oom")?.textContent.includes("measured"), plain.plan.gpus);
  await settled();
  assert.deepEqual(await scenarioInUrl(), defaultScenario());
  assert.equal(await page.inputValue("#cal-step"), "");
  await page.locator("#cal-details summary").click();
});

test("dark theme: toggled, remembered", async () => {
  await page.click("#theme");
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const [r, g, b] = bg.match(/\d+/g).map(Number);
  assert.ok(r + g + b < 120, `dark background, got ${bg}`);
  await page.reload();
  await waitForAnswer(page);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");
  await page.waitForFunction(() => !document.querySelector("#curve-card.stale") && !document.querySelector("#curve-card[hidden]"));
  await shot(page, "page-dark.png");
  await page.click("#theme");
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "light");
});

test("phone layout (360 px): no horizontal overflow, in both languages", async () => {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto(server.url);
  await waitForAnswer(page);
  await page.waitForFunction(() => !document.querySelector("#curve-card[hidden]") && !document.querySelector("#curve-card.stale"));
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok((await overflow()) <= 0, `page is ${await overflow()}px wider than a phone screen`);
  await shot(page, "page-phone.png");
  await page.click("#lang");
  await page.waitForFunction(() => document.querySelector("#headline")?.textContent.includes("需要"));
  assert.ok((await overflow()) <= 0, `zh page is ${await overflow()}px wider than a phone screen`);
  await shot(page, "page-phone-zh.png");
  await page.click("#lang");
  await page.setViewportSize({ width: 1280, height: 900 });
});

test("embed mode: compact, with a link to the full page", async () => {
  const scenario = { ...defaultScenario(), model: "llama-3.1-8b", target: { days: 10 } };
  await page.setViewportSize({ width: 720, height: 700 });
  await page.goto(`${server.url}?embed=1#s=${b64url(JSON.stringify(scenario))}`);
  assert.equal(await waitForAnswer(page), cliEvaluate(scenario).value.plan.gpus);
  for (const hidden of ["#share", "#expert", ".foot", "#curve-card", "#top-card", "#mode-expert"]) {
    assert.equal(await page.locator(hidden).first().isVisible(), false, `${hidden} hidden in embed mode`);
  }
  assert.equal(await page.locator("#mem-chart .bar").isVisible(), true);
  const full = await page.locator("#open-full").getAttribute("href");
  assert.ok(full.includes("#s=") && !full.includes("embed=1"), full);
  await shot(page, "page-embed.png");
  await page.setViewportSize({ width: 1280, height: 900 });
});

test("the <gpucalc-calculator> element on another origin's page", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "gpucalc-host-"));
  const host = await startServer(dir);
  try {
    writeFileSync(
      path.join(dir, "index.html"),
      `<!doctype html><meta charset="utf-8"><title>A blog post</title><link rel="icon" href="data:,">
<p>How many GPUs does an 8B model need?</p>
<gpucalc-calculator lang="zh" scenario='${JSON.stringify({ ...defaultScenario(), model: "llama-3.1-8b", target: { days: 10 } })}'></gpucalc-calculator>
<script src="${server.url}embed.js"></script>`,
    );
    await page.goto(host.url);
    const frame = page.frameLocator("gpucalc-calculator iframe");
    await frame.locator("#headline[data-gpus]").waitFor();
    assert.match(await frame.locator("#headline").innerText(), /^需要 [\d,]+ 张 H100/);
    // The element follows the height the calculator reports.
    await page.waitForFunction(() => {
      const f = document.querySelector("gpucalc-calculator").shadowRoot.querySelector("iframe");
      return f && f.style.height !== "560px";
    });
    const height = await page.evaluate(() => parseInt(document.querySelector("gpucalc-calculator").shadowRoot.querySelector("iframe").style.height, 10));
    assert.ok(height > 300 && height < 3000, `iframe height ${height}`);
    await frame.locator("#result[aria-busy=false]").waitFor();
    await page.waitForTimeout(700); // let the search worker and service worker finish before the servers go
    await page.goto("about:blank");
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("works below a sub-path too (relative URLs only)", async () => {
  const sub = await startServer(DIST, "/some/project/");
  try {
    await page.goto(sub.url);
    await waitForAnswer(page);
    await page.waitForFunction(() => !document.querySelector("#curve-card[hidden]") && !document.querySelector("#curve-card.stale"));
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.goto("about:blank");
  } finally {
    await sub.close();
  }
});

test("accessible: every control is labelled, the keyboard reaches everything, text has contrast", async () => {
  await page.goto(server.url);
  await waitForAnswer(page);
  const unlabelled = async () =>
    page.evaluate(() =>
      [...document.querySelectorAll("input, select, textarea, button")]
        .filter((e) => e.getClientRects().length > 0 || e.type === "file" || e.type === "radio")
        .filter((e) => {
          const name = e.getAttribute("aria-label") || [...(e.labels ?? [])].map((l) => l.textContent.trim()).join("") || (e.tagName === "BUTTON" && e.textContent.trim());
          return !name;
        })
        .map((e) => e.outerHTML.slice(0, 120)),
    );
  assert.deepEqual(await unlabelled(), [], "quick mode");
  await page.click("#mode-expert");
  for (const d of await page.locator("#expert-fields details").all()) await d.evaluate((x) => { x.open = true; });
  assert.deepEqual(await unlabelled(), [], "expert mode");
  await page.click("#mode-quick");
  await page.reload();
  await waitForAnswer(page);

  // Keyboard: Tab from the top reaches the mode switch, the language and theme
  // buttons and the first input; Enter/Space operate them.
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.className), "skip");
  const reached = new Set();
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press("Tab");
    reached.add(await page.evaluate(() => document.activeElement.id));
  }
  for (const id of ["mode-quick", "mode-expert", "lang", "theme", "q-model", "q-gpu", "q-tokens"]) assert.ok(reached.has(id), `Tab reaches #${id} (${[...reached]})`);
  await page.focus("#lang");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.documentElement.lang === "zh-CN");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.documentElement.lang === "en");

  // WCAG AA contrast for the main text colours, in both themes.
  const ratios = async () =>
    page.evaluate(() => {
      const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
      const lum = (c) => {
        const [r, g, b] = rgb(c).map((v) => {
          v /= 255;
          return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const ratio = (a, b) => {
        const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
        return (x + 0.05) / (y + 0.05);
      };
      const card = getComputedStyle(document.querySelector(".card")).backgroundColor;
      const of = (sel) => getComputedStyle(document.querySelector(sel)).color;
      return {
        body: ratio(of(".card"), card),
        muted: ratio(of(".hint"), card),
        accent: ratio(of("#headline .num"), card),
        error: ratio(of(".field-error"), card),
      };
    });
  for (const theme of ["light", "dark"]) {
    await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
    for (const [what, r] of Object.entries(await ratios())) assert.ok(r >= 4.5, `${theme} ${what} contrast ${r.toFixed(2)} < 4.5`);
  }
  await page.evaluate(() => document.documentElement.removeAttribute("data-theme"));
});

test("fine-tuning form: the framework select feeds the memory profile, and the fit answer shows in en and zh", async () => {
  await page.check("#q-job-qlora");
  await page.waitForFunction(() => !document.querySelector("#answer.stale"));
  await page.locator("#q-opt summary").click();
  for (const fw of ["megatron", "torchtitan", "deepspeed", "hf", "torchtune"])
    assert.equal(await page.locator(`#q-framework option[value="${fw}"]`).count(), 1, fw);
  // QLoRA runs on Hugging Face + PEFT unless told otherwise: the core's default, shown.
  assert.equal(await page.locator("#q-framework").inputValue(), "hf");
  assert.equal((await scenarioInUrl()).training.framework, undefined);
  await page.selectOption("#q-framework", "megatron");
  await page.waitForFunction(() => !document.querySelector("#answer.stale"));
  assert.equal((await scenarioInUrl()).training.framework, "megatron");
  await page.selectOption("#q-framework", "hf");
  await page.waitForFunction(() => !document.querySelector("#answer.stale"));
  const scenario = await scenarioInUrl();
  assert.equal(scenario.training.framework, undefined);
  assert.equal(scenario.training.stage, "qlora");
  const want = cliEvaluate(scenario);
  assert.equal(want.ok, true, want.stderr);
  assert.equal(want.value.plan.framework, "hf");
  assert.equal(await waitForAnswer(page), want.value.plan.gpus);
  const fit = want.value.memory.fit;
  const en = (x) => x.toLocaleString("en-US");
  const text = await page.locator("#mem-fit").innerText();
  assert.ok(text.includes(`up to ${en(fit.max_micro_batch)} sequences`) && text.includes(`up to ${en(fit.max_seq_len)} tokens`), text);
  await page.click("#lang");
  await page.waitForFunction(() => document.querySelector("#mem-fit")?.textContent.startsWith("能放下吗"));
  assert.match(await page.locator("#mem-fit").innerText(), new RegExp(`最多 ${en(fit.max_micro_batch)} 条序列`));
  await page.click("#lang");
  await page.waitForFunction(() => document.querySelector("#mem-fit")?.textContent.startsWith("Will it fit"));
  await backToExample();
});

// Back to the example, through the JSON editor.
async function backToExample() {
  await page.locator("#json-details summary").click();
  await page.fill("#json-text", JSON.stringify(defaultScenario()));
  await page.click("#json-apply");
  await page.waitForFunction(() => document.querySelector("#q-model").value === "llama-3.1-70b" && !document.querySelector("#answer.stale"));
  await page.locator("#json-details summary").click();
  await waitForAnswer(page);
}

test("switching to a framework without a pipeline clears pp and selective recompute, and says so", async () => {
  const pipelined = defaultScenario();
  pipelined.parallel = { pp: 4 };
  pipelined.training.recompute = "selective";
  await page.locator("#json-details summary").click();
  await page.fill("#json-text", JSON.stringify(pipelined));
  await page.click("#json-apply");
  await page.waitForFunction(() => !document.querySelector("#answer.stale"));
  await page.locator("#json-details summary").click();
  if ((await page.locator("#q-opt").getAttribute("open")) === null) await page.locator("#q-opt summary").click();
  await page.selectOption("#q-framework", "hf");
  await page.waitForFunction(() => !document.querySelector("#answer.stale"));
  const scenario = await scenarioInUrl();
  assert.equal(scenario.training.framework, "hf");
  assert.equal(scenario.parallel?.pp, undefined);
  assert.equal(scenario.training.recompute, undefined);
  assert.match(await page.locator("#q-job-hint").innerText(), /were cleared/);
  // The Expert form offers no selective recompute under Hugging Face.
  await page.click("#mode-expert");
  await page.locator("#expert").waitFor({ state: "visible" });
  const recompute = () => page.locator('#expert .field[data-path="/training/recompute"] option').evaluateAll((os) => os.map((o) => o.value));
  await page.waitForFunction(() => document.querySelectorAll('#expert .field[data-path="/training/recompute"] option').length > 0);
  assert.deepEqual(await recompute(), ["", "none", "full"]);
  await page.click("#mode-quick");
  const want = cliEvaluate(scenario);
  assert.equal(want.ok, true, want.stderr);
  assert.equal(want.value.plan.pp, 1);
  assert.equal(await waitForAnswer(page), want.value.plan.gpus);
  // No dense pre-training run was measured on Hugging Face's stack: the range says so.
  assert.equal(want.value.uncertainty.time.untried_framework, "hf");
  assert.match(await page.locator("#range").innerText(), /widened: none of them ran on Hugging Face Trainer \+ PEFT/);
  await backToExample();

  // QLoRA's default framework is Hugging Face's: switching the job clears the same.
  await page.locator("#json-details summary").click();
  await page.fill("#json-text", JSON.stringify(pipelined));
  await page.click("#json-apply");
  await page.waitForFunction(() => !document.querySelector("#answer.stale"));
  await page.locator("#json-details summary").click();
  await page.check("#q-job-qlora");
  await page.waitForFunction(() => !document.querySelector("#answer.stale"));
  const q = await scenarioInUrl();
  assert.equal(q.training.framework, undefined);
  assert.equal(q.parallel?.pp, undefined);
  assert.equal(q.training.recompute, undefined);
  assert.match(await page.locator("#q-job-hint").innerText(), /were cleared/);
  assert.equal(cliEvaluate(q).value.plan.framework, "hf");
  await backToExample();
});

test("no console errors or warnings, no request to another origin", () => {
  assert.deepStrictEqual(browser.problems, []);
  assert.deepStrictEqual(browser.foreign, []);
});
