// "国产 vs 英伟达" and money in the page (issue 15), in Debian's headless Chromium: the
// comparison appears for the default scenario without holding up the answer, its rows
// equal the native CLI's compare, any offered accelerator can be added; Chinese readers
// see 元 and English readers USD, switchable; an owned cluster priced from the form; en
// and zh, desktop and a 360-px phone (screenshots in test-results/).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { after, before, test } from "node:test";
import path from "node:path";
import { CLI, DEFAULT_EXAMPLE, DIST, readJson } from "../wasm/helpers.mjs";
import { SHOTS, launch, scenarioInUrl, shot, waitForAnswer } from "./harness.mjs";
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

const DEFAULT_SET = "h100-sxm-80gb,h20-96gb,h800-sxm-80gb,h200-sxm-141gb,b200-180gb,ascend-910b,ascend-910c";
const cliCompare = (scenario, ids) =>
  JSON.parse(execFileSync(CLI, ["compare", "-", "--gpus", ids], { input: JSON.stringify(scenario), encoding: "utf8" }));
const compareRows = () =>
  page.evaluate(() =>
    [...document.querySelectorAll("#compare-table tbody tr")].map((r) => ({
      gpu: r.dataset.gpu ?? null,
      cells: [...r.querySelectorAll("th, td")].map((c) => c.textContent.trim()),
    })),
  );
const compareReady = (n) =>
  page.waitForFunction(
    (want) => !document.querySelector("#compare-card.stale") && document.querySelectorAll("#compare-table tbody tr").length === want,
    n,
  );

test("the comparison shows for the default scenario, the CLI's rows, each with its confidence", async () => {
  await page.goto(server.url);
  await waitForAnswer(page);
  await compareReady(7);
  const rows = await compareRows();
  assert.deepEqual(rows.map((r) => r.gpu), DEFAULT_SET.split(","));
  // The page prices in USD for an English reader: the CLI's compare with cost.currency USD.
  const cli = cliCompare({ ...readJson(DEFAULT_EXAMPLE), cost: { currency: "USD" } }, DEFAULT_SET).rows;
  for (const [i, r] of rows.entries()) {
    assert.equal(r.cells[1], cli[i].gpus.toLocaleString("en-US"), `${r.gpu} GPUs`);
    const l = cli[i].layout;
    assert.ok(r.cells[2].startsWith(`${l.tp}×${l.pp}×${l.dp.toLocaleString("en-US")}`), `${r.gpu} layout ${r.cells[2]}`);
  }
  const by = Object.fromEntries(rows.map((r) => [r.gpu, r.cells]));
  assert.match(by["h100-sxm-80gb"][6], /^\$/);
  assert.match(by["h20-96gb"][6], /^\$/); // its CNY listing, converted
  // H800: DeepSeek's stated 2 USD per GPU-hour; 910B and 910C: their dated CNY prices, converted.
  for (const id of ["h800-sxm-80gb", "ascend-910b", "ascend-910c"]) {
    const i = rows.findIndex((r) => r.gpu === id);
    assert.match(by[id][6], /^\$/, `${id} cost ${by[id][6]}`);
    assert.ok(Number.isFinite(cli[i].cost.total), `${id} priced by the CLI`);
  }
  assert.equal(await page.locator("#compare-table input.row-price").count(), 0); // every default row is priced
  assert.match(by["h100-sxm-80gb"][8], /^measured$/);
  assert.match(by["ascend-910b"][8], /^measured$/);
  assert.match(by["h800-sxm-80gb"][8], /H100's, measured/);
  assert.match(by["ascend-910c"][8], /assumed/);
  await shot(page, "compare-desktop-en.png");
  await page.locator("#compare-card").screenshot({ path: path.join(SHOTS, "compare-card-en.png") });
});

test("any offered accelerator can be added, and the set is remembered", async () => {
  await page.click("#compare-picker summary");
  await page.check('#compare-picker-list input[value="a800-sxm-80gb"]');
  await compareReady(8);
  // GB300's profile is derived from B300's and B200's measurements, not measured itself.
  await page.check('#compare-picker-list input[value="gb300-279gb"]');
  await compareReady(9);
  const rows = await compareRows();
  assert.match(rows.find((r) => r.gpu === "a800-sxm-80gb").cells[8], /A100 80GB's, measured/);
  assert.match(rows.find((r) => r.gpu === "gb300-279gb").cells[8], /^derived, not measured$/);
  await page.reload();
  await waitForAnswer(page);
  await compareReady(9);
  await page.click("#compare-picker summary");
  await page.click("#compare-reset");
  await compareReady(7);
});

test("Chinese readers see 元, switchable to USD; the rate is the dated central parity", async () => {
  await page.click("#lang");
  await page.waitForFunction(() => /元/.test(document.querySelector("#headline")?.textContent ?? ""));
  const usd = cliCompare({ ...readJson(DEFAULT_EXAMPLE), cost: { currency: "CNY" } }, "h100-sxm-80gb").rows[0].cost;
  assert.ok(Math.abs(usd.per_gpu_hour - 2.95 * 7.1057) < 1e-9, String(usd.per_gpu_hour));
  assert.match(await page.locator("#headline").innerText(), /约 [\d,.]+(万|亿)元$/);
  await compareReady(7);
  const rows = await compareRows();
  assert.match(rows[0].cells[6], /元$/);
  // The China parts in yuan at their own CNY prices: the CLI's compare in CNY, row by row.
  const cny = cliCompare({ ...readJson(DEFAULT_EXAMPLE), cost: { currency: "CNY" } }, DEFAULT_SET).rows;
  for (const id of ["h800-sxm-80gb", "ascend-910b", "ascend-910c"]) {
    const r = cny[DEFAULT_SET.split(",").indexOf(id)];
    assert.equal(r.cost.price_source.converted, undefined, `${id}: a CNY price of its own`);
    assert.match(rows.find((x) => x.gpu === id).cells[6], /元$/, id);
  }
  assert.match(rows.find((r) => r.gpu === "ascend-910c").cells[8], /默认/);
  await page.click("#q-money summary");
  assert.match(await page.locator("#q-fx-hint").innerText(), /7\.1057.*2025-09-23/);
  await shot(page, "compare-desktop-zh.png");
  await page.locator("#compare-card").screenshot({ path: path.join(SHOTS, "compare-card-zh.png") });
  await page.locator("#quick").screenshot({ path: path.join(SHOTS, "money-form-zh.png") });
  await page.check("#q-cur-usd");
  await page.waitForFunction(() => /美元/.test(document.querySelector("#headline")?.textContent ?? ""));
  await page.check("#q-cur-cny");
  await page.waitForFunction(() => /万元|亿元/.test(document.querySelector("#headline")?.textContent ?? ""));
});

test("an owned cluster priced from the form: purchase, amortisation, electricity, PUE", async () => {
  await page.check("#q-owned");
  assert.match(await page.locator("#q-owned-hint").innerText(), /采购价/);
  await page.fill("#q-own-purchase", "250000");
  await page.fill("#q-own-years", "5");
  await page.fill("#q-own-kwh", "0.6");
  await page.fill("#q-own-pue", "1.15");
  await page.waitForFunction(() => /万元|亿元/.test(document.querySelector("#headline")?.textContent ?? "") && !document.querySelector("#answer.stale"));
  const s = await scenarioInUrl(page);
  assert.deepEqual(s.cost.owned, { purchase_price_per_gpu: 250000, amortization_years: 5, electricity_price_per_kwh: 0.6, pue: 1.15 });
  // A bad number is an error at its field, in Chinese.
  await page.fill("#q-own-pue", "0.5");
  const err = page.locator('.field[data-path="/cost/owned/pue"] .field-error');
  await err.waitFor({ state: "visible" });
  assert.match(await err.innerText(), /必须/);
  await page.fill("#q-own-pue", "");
  await page.uncheck("#q-owned");
  await err.waitFor({ state: "hidden" });
});

test("a price for an accelerator without a public one prices its row, in the reader's currency", async () => {
  await compareReady(7);
  // B300 has no public rental price: added to the set, its row takes the reader's.
  if (!(await page.evaluate(() => document.querySelector("#compare-picker").open))) await page.click("#compare-picker summary");
  await page.check('#compare-picker-list input[value="b300-288gb"]');
  await compareReady(8);
  const field = page.locator('#compare-table input.row-price[data-gpu="b300-288gb"]');
  await field.fill("12");
  await field.press("Enter");
  await page.waitForFunction(() => {
    const row = document.querySelector('#compare-table tr[data-gpu="b300-288gb"]');
    return row && !document.querySelector("#compare-card.stale") && /元/.test(row.children[6].textContent);
  });
  const s = await scenarioInUrl(page);
  assert.deepEqual(s.cost, { currency: "CNY", prices_per_gpu_hour: { "b300-288gb": 12 } });
  // The CLI's compare of that scenario: 12 元 × the row's wall-clock GPU-hours.
  const cli = cliCompare(s, "h100-sxm-80gb,b300-288gb").rows[1];
  assert.ok(Math.abs(cli.cost.total - 12 * cli.gpu_hours) < 1e-6 * cli.cost.total);
  await page.locator('#compare-table input.row-price[data-gpu="b300-288gb"]').fill("");
  await page.locator('#compare-table input.row-price[data-gpu="b300-288gb"]').dispatchEvent("change");
  await page.waitForFunction(() => {
    const cell = document.querySelector('#compare-table tr[data-gpu="b300-288gb"]')?.children[6];
    return cell && !/元/.test(cell.textContent) && cell.querySelector("input.row-price")?.value === "";
  });
  await page.click("#compare-reset");
  await compareReady(7);
});

test("phone (360 px): the comparison scrolls inside its card, in both languages", async () => {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.reload();
  await waitForAnswer(page);
  await compareReady(7);
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok((await overflow()) <= 0, `page is ${await overflow()}px wider than a phone screen`);
  await page.locator("#compare-card").screenshot({ path: path.join(SHOTS, "compare-phone-zh.png") });
  await page.click("#lang");
  await page.waitForFunction(() => document.documentElement.lang === "en");
  await compareReady(7);
  assert.ok((await overflow()) <= 0, `en page is ${await overflow()}px wider than a phone screen`);
  await page.locator("#compare-card").screenshot({ path: path.join(SHOTS, "compare-phone-en.png") });
  await page.setViewportSize({ width: 1280, height: 900 });
});

test("a row whose plan does not fit is marked and not priced, as the headline", async () => {
  // Llama 3.1 405B full fine-tuning on 8 of each: only B200 (180 GB) comes near; the CLI says which fit.
  const scenario = { model: "llama-3.1-405b", gpu: "h100-sxm-80gb", training: { tokens: 1e9, seq_len: 8192, global_batch: 64, stage: "full_finetune" }, parallel: { gpus: 8 } };
  const cli = cliCompare({ ...scenario, cost: { currency: "USD" } }, DEFAULT_SET).rows;
  await page.goto(`${server.url}#s=${Buffer.from(JSON.stringify(scenario)).toString("base64url")}`);
  await waitForAnswer(page);
  await compareReady(7);
  const rows = await compareRows();
  for (const [i, r] of rows.entries()) {
    const fits = cli[i].memory.fits;
    const cell = page.locator(`#compare-table tr[data-gpu="${r.gpu}"] td`).nth(4);
    assert.equal(await cell.evaluate((c) => c.classList.contains("bad")), !fits, `${r.gpu} memory marked`);
    if (!fits) assert.equal(r.cells[6], "—", `${r.gpu} not priced`);
    const from = cli[i].memory.fits_from_gpus;
    if (from) assert.match(r.cells[5], new RegExp(`fits from ${from.toLocaleString("en-US")}$`), `${r.gpu} fits from ${from}`);
    else assert.match(r.cells[6], /^\$/, `${r.gpu} priced`);
  }
  assert.ok(cli.some((r) => !r.memory.fits), "some rows do not fit");
  assert.ok(cli.some((r) => r.memory.fits_from_gpus > 8), "the CLI says from how many GPUs a row would fit");
  await page.goto(server.url);
  await waitForAnswer(page);
});

test("no console errors or warnings, no request to another origin", () => {
  assert.deepEqual(browser.problems, []);
  assert.deepEqual(browser.foreign, []);
});
