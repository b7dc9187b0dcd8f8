// The page's export module (dist/gpucalc-export.js/.wasm, loaded by web/launch.js) writes
// the same launch configs as the native CLI's `gpucalc export`, for every example and
// format, and the first visit's core carries no export.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { DIST, exampleFiles, runCli } from "./helpers.mjs";

const load = async (name) => {
  const { default: create } = await import(pathToFileURL(path.join(DIST, `${name}.js`)).href);
  return create({ wasmBinary: readFileSync(path.join(DIST, `${name}.wasm`)) });
};

test("exportConfig agrees with gpucalc export on every example and format", async () => {
  const core = await load("gpucalc-export");
  for (const file of exampleFiles()) {
    const scenario = readFileSync(file, "utf8");
    for (const format of ["megatron", "torchtitan", "deepspeed", "llamafactory"]) {
      const env = JSON.parse(core.exportConfig(scenario, format));
      const cli = runCli(["export", file, "--format", format]);
      const where = `${path.basename(file)} ${format}`;
      if (cli.status === 0) {
        assert.equal(env.ok, true, where);
        assert.equal(env.value.text, cli.stdout, where);
        assert.equal(env.value.format, format, where);
      } else {
        assert.equal(env.ok, false, where);
        assert.equal(env.error.code, "export_needs_finetune", where);
        assert.match(cli.stderr, /\/training\/stage: /, where);
      }
    }
  }
});

test("the first visit's core has no export", async () => {
  const core = await load("gpucalc");
  assert.equal(typeof core.evaluate, "function");
  assert.equal(core.exportConfig, undefined);
});
