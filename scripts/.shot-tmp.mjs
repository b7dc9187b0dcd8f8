import { launch, waitForAnswer, b64url } from "../tests/web/harness.mjs";
import { startServer } from "../tests/web/static-server.mjs";
import { DIST, readJson } from "../tests/wasm/helpers.mjs";
import { readdirSync } from "node:fs";
const server = await startServer(DIST);
const b = await launch({ locale: "zh-CN", viewport: { width: 1280, height: 900 } });
const page = b.page;
const extra = [
  { ...readJson("examples/deepseek-v3-moe-h800.json"), gpu: "ascend-910b" },
  { ...readJson("examples/llama-3.1-70b-h100.json"), gpu: "hygon-k100-ai" },
  { ...readJson("examples/llama-3.1-70b-h100.json"), gpu: "a800-sxm-80gb" },
  { ...readJson("examples/llama-3.1-70b-h100.json"), gpu: "gb200-186gb" },
  { ...readJson("examples/llama-3.1-70b-h100.json"), gpu: "a100-sxm-40gb" },
  { model: "qwen3-30b-a3b", gpu: "h100-sxm-80gb", training: { tokens: 15e12 }, target: { days: 60 } },
];
const list = [...readdirSync("examples").map((f) => [f, readJson(`examples/${f}`)]), ...extra.map((s, i) => [`extra${i} ${s.gpu}`, s])];
for (const [name, s] of list) {
  await page.goto(`${server.url}?lang=zh#s=${b64url(JSON.stringify(s))}`);
  try { await waitForAnswer(page); } catch (e) { console.log(name, "no answer"); continue; }
  await page.waitForTimeout(1500);
  await page.evaluate(() => { for (const d of document.querySelectorAll("details")) d.open = true; });
  const found = await page.evaluate(() => {
    const run = /(?:^|[^A-Za-z_./-])((?:[a-z]{3,}[,;:]?\s+){1,}[a-z]{3,})(?![A-Za-z_./-])/g;
    const out = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const e = n.parentElement;
      if (!e || e.closest("script,style,template,#launch-text,.cite,#acc-table,.acc-sub") || e.closest("[hidden]")) continue;
      if (e.closest("dialog") && !e.closest("dialog").open) continue;
      for (const m of n.textContent.matchAll(run)) { const w = (x) => x.id ? "#" + x.id : x.tagName.toLowerCase() + "." + x.className; out.add(m[1] + " @ " + w(e) + " < " + w(e.parentElement) + " :: " + n.textContent.trim().slice(0, 140)); }
      if (0) for (const m of n.textContent.matchAll(/\b(inferred|early|valid|until|article|dated|pre|approx|about|estimated|listing|median|cheapest)\b/gi)) out.add("WORD:" + m[1] + " in " + n.textContent.trim().slice(0, 100));
    }
    return [...out];
  });
  console.log("==", name); for (const f of found) console.log("   ", f);
}
await b.close();
await server.close();
