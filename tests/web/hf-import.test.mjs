// Hugging Face config.json import (issue 16), in Debian's headless Chromium: Expert →
// "Import config.json" (a module loaded on first use) puts the config into the scenario as
// model.hf_config; the panel shows the core's count and the keys it did not understand; en
// and zh, desktop and a 360-px phone, pasted and chosen as a file. Also: Custom no longer
// keeps the previous preset's head_dim, and the exported scenario's name follows edits.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { DIST, cliEvaluate } from "../wasm/helpers.mjs";
import { SHOTS, launch, scenarioInUrl as inUrl, shot, waitForAnswer } from "./harness.mjs";
import { startServer } from "./static-server.mjs";

let server;
let browser;
let page;
const dir = mkdtempSync(path.join(tmpdir(), "gpucalc-hf-"));

before(async () => {
  server = await startServer(DIST);
  browser = await launch();
  page = browser.page;
});

after(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

// meta-llama/Llama-3.2-1B config.json (as published), plus one key no mapping knows.
const LLAMA_1B = {
  _name_or_path: "meta-llama/Llama-3.2-1B", architectures: ["LlamaForCausalLM"], attention_bias: false,
  bos_token_id: 128000, eos_token_id: 128001, head_dim: 64, hidden_act: "silu", hidden_size: 2048,
  intermediate_size: 8192, max_position_embeddings: 131072, mlp_bias: false, model_type: "llama",
  num_attention_heads: 32, num_hidden_layers: 16, num_key_value_heads: 8, rms_norm_eps: 1e-5,
  rope_scaling: { factor: 32.0, high_freq_factor: 4.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: "llama3" },
  rope_theta: 500000.0, tie_word_embeddings: true, torch_dtype: "bfloat16", vocab_size: 128256, logit_scale: 0.5,
};
// Qwen/Qwen3-30B-A3B config.json (as published).
const QWEN3_MOE = {
  architectures: ["Qwen3MoeForCausalLM"], attention_bias: false, decoder_sparse_step: 1, head_dim: 128, hidden_act: "silu",
  hidden_size: 2048, intermediate_size: 6144, max_position_embeddings: 40960, mlp_only_layers: [], model_type: "qwen3_moe",
  moe_intermediate_size: 768, norm_topk_prob: true, num_attention_heads: 32, num_experts: 128, num_experts_per_tok: 8,
  num_hidden_layers: 48, num_key_value_heads: 4, rms_norm_eps: 1e-6, rope_theta: 1000000.0, tie_word_embeddings: false,
  torch_dtype: "bfloat16", vocab_size: 151936,
};

const scenarioInUrl = () => inUrl(page);
const status = () => page.locator("#hf-status").innerText();
const noOverflow = async () => {
  const w = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(w <= (await page.viewportSize()).width, `page is ${w} px wide`);
};

async function openImport(lang) {
  await page.goto(`${server.url}?lang=${lang}`);
  await waitForAnswer(page);
  await page.click("#mode-expert");
  await page.locator("#hf-open").waitFor({ state: "visible" });
  await page.click("#hf-open");
  await page.locator("#hf-text").waitFor({ state: "visible" });
}

test("desktop, en: a pasted Llama 3.2 1B config counts 1.24B and names the key it skipped", async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await openImport("en");
  assert.equal(await page.locator("#hf-open").innerText(), "Import config.json");
  await page.fill("#hf-text", JSON.stringify(LLAMA_1B, null, 2));
  await page.click("#hf-apply");
  await page.waitForFunction(() => /parameters counted/.test(document.querySelector("#hf-status").textContent));
  const text = await status();
  assert.match(text, /1,235,814,400/); // the Hugging Face safetensors total
  assert.match(text, /Not understood, not counted: logit_scale/);
  await waitForAnswer(page).catch(() => {});
  const s = await scenarioInUrl();
  assert.deepEqual(s.model, { hf_config: LLAMA_1B });
  assert.equal(cliEvaluate(s).value.model.params, 1235814400, "the CLI reads the same scenario");
  await noOverflow();
  await page.locator("#hf-import").scrollIntoViewIfNeeded();
  await shot(page, "hf-import-en-desktop.png");
  await page.locator("#hf-import").screenshot({ path: path.join(SHOTS, "hf-import-en-desktop-panel.png") });

  // The exported scenario is named for what it now is, not the default's "Llama 3.1 70B …".
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-json")]);
  const file = path.join(dir, download.suggestedFilename());
  await download.saveAs(file);
  const exported = JSON.parse(readFileSync(file, "utf8"));
  assert.match(exported.name, /^meta-llama\/Llama-3\.2-1B pre-training on .*H100.*, 15T tokens in 60 days$/);
  assert.equal(cliEvaluate(exported).ok, true);
});

test("desktop, en: not JSON, and a config without num_hidden_layers, are refused by name", async () => {
  await openImport("en");
  await page.fill("#hf-text", "{ not json");
  await page.click("#hf-apply");
  assert.match(await status(), /^Not JSON:/);
  const { num_hidden_layers, ...bad } = LLAMA_1B;
  await page.fill("#hf-text", JSON.stringify(bad));
  await page.click("#hf-apply");
  await page.waitForFunction(() => /Not imported/.test(document.querySelector("#hf-status").textContent));
  assert.match(await status(), /\/model\/hf_config\/num_hidden_layers/);
});

test("desktop, zh: not JSON is said in Chinese, with where it broke", async () => {
  await openImport("zh");
  await page.fill("#hf-text", '{\n  "hidden_size": 2048,\n  oops\n}');
  await page.click("#hf-apply");
  // Chromium says "... at position 27 (line 3 column 3)"; the page says the place itself.
  assert.equal(await status(), "不是有效的 JSON（第 3 行第 3 列）");
});

test("360-px phone, zh: a chosen Qwen3-30B-A3B config.json file counts 30.5B", async () => {
  await page.setViewportSize({ width: 360, height: 740 });
  await openImport("zh");
  assert.equal(await page.locator("#hf-open").innerText(), "导入 config.json");
  const file = path.join(dir, "config.json");
  writeFileSync(file, JSON.stringify(QWEN3_MOE));
  await page.setInputFiles("#hf-file", file);
  await page.waitForFunction(() => /计得/.test(document.querySelector("#hf-status").textContent));
  assert.match(await status(), /30,532,122,624/); // the safetensors total, "30.5B in total"
  assert.doesNotMatch(await status(), /未理解/);
  assert.equal((await scenarioInUrl()).model.hf_config.num_experts, 128);
  await noOverflow();
  await page.locator("#hf-import").scrollIntoViewIfNeeded();
  await shot(page, "hf-import-zh-phone.png");
  await page.locator("#hf-import").screenshot({ path: path.join(SHOTS, "hf-import-zh-phone-panel.png") });
});

test("360-px phone, en, and desktop, zh: the panel in the other combinations", async () => {
  await page.setViewportSize({ width: 360, height: 740 });
  await openImport("en");
  await page.fill("#hf-text", JSON.stringify(LLAMA_1B));
  await page.click("#hf-apply");
  await page.waitForFunction(() => /parameters counted/.test(document.querySelector("#hf-status").textContent));
  await noOverflow();
  await page.locator("#hf-import").scrollIntoViewIfNeeded();
  await shot(page, "hf-import-en-phone.png");
  await page.locator("#hf-import").screenshot({ path: path.join(SHOTS, "hf-import-en-phone-panel.png") });
  await page.setViewportSize({ width: 1280, height: 900 });
  await openImport("zh");
  await page.fill("#hf-text", JSON.stringify(LLAMA_1B));
  await page.click("#hf-apply");
  await page.waitForFunction(() => /计得/.test(document.querySelector("#hf-status").textContent));
  assert.match(await status(), /未理解、未计入的字段：logit_scale/);
  await page.locator("#hf-import").scrollIntoViewIfNeeded();
  await shot(page, "hf-import-zh-desktop.png");
  await page.locator("#hf-import").screenshot({ path: path.join(SHOTS, "hf-import-zh-desktop-panel.png") });
});

// google/gemma-2-9b's config.json (keys as published): sliding windows on the even layers.
const GEMMA2_9B = {
  architectures: ["Gemma2ForCausalLM"], attention_bias: false, attention_dropout: 0.0, attn_logit_softcapping: 50.0,
  bos_token_id: 2, cache_implementation: "hybrid", eos_token_id: 1, final_logit_softcapping: 30.0, head_dim: 256,
  hidden_act: "gelu_pytorch_tanh", hidden_activation: "gelu_pytorch_tanh", hidden_size: 3584, initializer_range: 0.02,
  intermediate_size: 14336, max_position_embeddings: 8192, model_type: "gemma2", num_attention_heads: 16,
  num_hidden_layers: 42, num_key_value_heads: 8, pad_token_id: 0, query_pre_attn_scalar: 256, rms_norm_eps: 1e-6,
  rope_theta: 10000.0, sliding_window: 4096, sliding_window_size: 4096, torch_dtype: "float32",
  transformers_version: "4.42.0.dev0", use_cache: true, vocab_size: 256000,
};

test("desktop, en and zh: a Gemma 2 config says its sliding window (21 of 42 layers over 4,096 tokens)", async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  for (const [lang, done, line] of [
    ["en", /parameters counted/, /Sliding window: 4,096 tokens on 21 of 42 layers\./],
    ["zh", /计得/, /滑动窗口：42 层中 21 层，窗口 4,096 token。/],
  ]) {
    await openImport(lang);
    await page.fill("#hf-text", JSON.stringify(GEMMA2_9B));
    await page.click("#hf-apply");
    await page.waitForFunction((re) => new RegExp(re).test(document.querySelector("#hf-status").textContent), done.source);
    assert.match(await status(), line);
  }
  await waitForAnswer(page).catch(() => {});
  const m = cliEvaluate(await scenarioInUrl()).value.model;
  assert.deepEqual(m.sliding_window, { tokens: 4096, layers: 21, of_layers: 42 }, "the CLI reads the same window");
});

test("Expert → Custom: a 1B shape counts 1.24B, not 1.40B with the 70B's head_dim", async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${server.url}?lang=en`);
  await waitForAnswer(page);
  await page.click("#mode-expert");
  await page.locator('#expert .field[data-path="/model"] select').selectOption("");
  for (let i = 0; i < 50 && typeof (await scenarioInUrl()).model !== "object"; i++) await page.waitForTimeout(100);
  assert.equal((await scenarioInUrl()).model.head_dim, undefined, "8192 / 64 stays derived");
  const set = async (p, v) => page.locator(`#expert .field[data-path="/model/${p}"] input`).fill(v);
  await set("layers", "16");
  await set("hidden", "2048");
  await set("heads", "32");
  await set("ffn_hidden", "8192");
  await page.locator('#expert .field[data-path="/model/tied_embeddings"] select').selectOption("true");
  await waitForAnswer(page).catch(() => {});
  for (let i = 0; i < 50 && (await scenarioInUrl()).model.tied_embeddings !== true; i++) await page.waitForTimeout(100);
  const s = await scenarioInUrl();
  assert.equal(s.model.hidden, 2048);
  assert.equal(cliEvaluate(s).value.model.params, 1235814400);
  assert.notEqual(s.name, "Llama 3.1 70B pre-training on H100, 15T tokens in 60 days");
});

test("no request left localhost and nothing was logged as an error", () => {
  assert.deepEqual(browser.foreign, []);
  assert.deepEqual(browser.problems, []);
});
