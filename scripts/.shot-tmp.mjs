import { launch, shot, waitForAnswer, b64url } from "../tests/web/harness.mjs";
import { startServer } from "../tests/web/static-server.mjs";
import { DIST, readJson, DEFAULT_EXAMPLE } from "../tests/wasm/helpers.mjs";
const server = await startServer(DIST);
for (const lang of ["zh", "en"]) {
  const b = await launch({ locale: lang === "zh" ? "zh-CN" : "en-US", viewport: { width: 360, height: 800 } });
  const s = { ...readJson(DEFAULT_EXAMPLE), gpu: "h20-96gb", parallel: { gpus: 16384 } };
  await b.page.goto(`${server.url}?lang=${lang}#s=${b64url(JSON.stringify(s))}`);
  await waitForAnswer(b.page);
  await b.page.waitForTimeout(800);
  const w = b.page.locator("#warnings");
  await w.scrollIntoViewIfNeeded();
  await w.screenshot({ path: `/tmp/warn-${lang}.png` });
  console.log(lang, (await w.innerText()).slice(0, 600));
  const wide = await b.page.evaluate(() => document.documentElement.scrollWidth);
  console.log("scrollWidth", wide);
  await b.close();
}
await server.close();
