import { launch, waitForAnswer, b64url } from "../tests/web/harness.mjs";
import { startServer } from "../tests/web/static-server.mjs";
import { DIST, readJson } from "../tests/wasm/helpers.mjs";
const server = await startServer(DIST);
const b = await launch({ locale: "zh-CN", viewport: { width: 1280, height: 900 } });
const page = b.page;
const list = [
  ["default", null],
  ["dsv3", readJson("examples/deepseek-v3-moe-h800.json")],
  ["lora", readJson("examples/lora-qwen2.5-72b-8xh100.json")],
  ["qlora", readJson("examples/qlora-llama-3.1-8b-rtx4090.json")],
  ["ascend", { ...readJson("examples/llama-3.1-70b-h100.json"), gpu: "ascend-910b" }],
  ["fixed16384", { ...readJson("examples/llama-3.1-70b-h100.json"), parallel: { gpus: 16384 } }],
  ["oom", { model: "llama-3.1-70b", gpu: "rtx-4090-24gb", training: { tokens: 1e9, seq_len: 4096 }, parallel: { gpus: 2 } }],
];
const scan = () => page.evaluate(() => {
  const run = /(?:^|[^A-Za-z_./-])((?:[a-z]{3,}[,;:]?\s+){1,}[a-z]{3,})(?![A-Za-z_./-])/g;
  const out = new Set();
  const w = (x) => x.id ? "#" + x.id : x.tagName.toLowerCase() + "." + x.className;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const e = n.parentElement;
    if (!e || e.closest("script,style,template,#launch-text,#cli-text,.cite,#acc-table,.acc-sub,[lang=en]") || e.closest("[hidden]")) continue;
    if (e.closest("dialog") && !e.closest("dialog").open) continue;
    for (const m of n.textContent.matchAll(run)) out.add(m[1] + " @ " + w(e) + " :: " + n.textContent.trim().slice(0, 120));
  }
  for (const e of document.body.querySelectorAll("[title], [aria-label], [placeholder]"))
    for (const a of ["title", "aria-label", "placeholder"]) for (const m of (e.getAttribute(a) ?? "").matchAll(run)) out.add(m[1] + " @ " + w(e) + "[" + a + "] :: " + e.getAttribute(a).slice(0, 100));
  return [...out];
});
const all = new Map();
for (const [name, s] of list) {
  await page.goto(`${server.url}?lang=zh${s ? "#s=" + b64url(JSON.stringify(s)) : ""}`);
  try { await waitForAnswer(page); } catch (e) { console.log(name, "no answer"); }
  await page.waitForTimeout(2500);
  await page.evaluate(() => { for (const d of document.querySelectorAll("details")) d.open = true; });
  await page.waitForTimeout(500);
  for (const f of await scan()) if (!all.has(f.split(" :: ")[0])) all.set(f.split(" :: ")[0], name + " quick: " + f);
  await page.click("#mode-expert");
  await page.waitForTimeout(800);
  await page.evaluate(() => { for (const d of document.querySelectorAll("details")) d.open = true; });
  for (const f of await scan()) if (!all.has(f.split(" :: ")[0])) all.set(f.split(" :: ")[0], name + " expert: " + f);
  await page.click("#mode-quick");
  await page.click("#open-accuracy").catch(() => {});
  await page.waitForTimeout(800);
  for (const f of await scan()) if (!all.has(f.split(" :: ")[0])) all.set(f.split(" :: ")[0], name + " acc: " + f);
  await page.keyboard.press("Escape");
}
for (const v of all.values()) console.log(v.slice(0, 260));
await b.close();
await server.close();
