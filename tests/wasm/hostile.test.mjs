// Hostile inputs through the wasm API: the table the Catch2 suite and the CLI test read
// (tests/cli/hostile_inputs.txt; its header describes the columns). Every row must come
// back as {ok:false, error:{path, message}} naming its JSON pointer, from evaluate() and
// search(), in bounded time and memory; the module must keep working afterwards.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { DEFAULT_EXAMPLE, DIST, ROOT } from "./helpers.mjs";

// The table's DOCUMENT column: pieces concatenated into bytes.
function build(pieces) {
  const parts = [];
  const utf8 = new TextEncoder();
  for (const p of pieces) {
    if (typeof p === "string") parts.push(utf8.encode(p));
    else if (Array.isArray(p)) parts.push(utf8.encode(p[0].repeat(p[1])));
    else if ("hex" in p) parts.push(Uint8Array.from(p.hex.match(/../g) ?? [], (h) => parseInt(h, 16)));
    else {
      let [x, n] = p.random;
      const buf = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        x = (x ^ (x << 13)) >>> 0;
        x = (x ^ (x >>> 17)) >>> 0;
        x = (x ^ (x << 5)) >>> 0;
        buf[i] = x & 255;
      }
      parts.push(buf);
    }
  }
  const out = new Uint8Array(parts.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of parts) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

const rows = readFileSync(path.join(ROOT, "tests/cli/hostile_inputs.txt"), "utf8")
  .split("\n")
  .filter((line) => line && !line.startsWith("#"))
  .map((line) => {
    const [name, want, message, ...rest] = line.split("\t");
    const prefix = want.endsWith("*");
    const p = want === "-" ? "" : want.replace(/\*$/, "");
    return { name, path: p, prefix, message, bytes: build(JSON.parse(rest.join("\t"))) };
  });

let core;
before(async () => {
  const { default: createGpucalc } = await import(pathToFileURL(path.join(DIST, "gpucalc.js")).href);
  core = await createGpucalc({ wasmBinary: readFileSync(path.join(DIST, "gpucalc.wasm")) });
});

function expectRefusal(env, row) {
  assert.equal(env.ok, false, JSON.stringify(env).slice(0, 300));
  assert.equal(typeof env.error.path, "string");
  assert.equal(typeof env.error.message, "string");
  if (row.prefix) assert.ok(env.error.path.startsWith(row.path), `path ${env.error.path.slice(0, 200)}`);
  else assert.equal(env.error.path, row.path);
  assert.ok(env.error.message.includes(row.message), `message ${env.error.message.slice(0, 300)}`);
  assert.ok(env.error.message.length < 1000);
}

describe("hostile inputs: wasm evaluate() and search() refuse each with its path", () => {
  test("the table has at least 40 rows", () => assert.ok(rows.length >= 40));
  const fatal = new TextDecoder("utf-8", { fatal: true });
  for (const row of rows) {
    test(`${row.name} (${row.bytes.length} bytes)`, () => {
      // Embind's std::string takes a Uint8Array as raw bytes: exactly what the CLI reads.
      for (const call of ["evaluate", "search"]) {
        const t0 = performance.now();
        const env = JSON.parse(core[call](row.bytes));
        const seconds = (performance.now() - t0) / 1000;
        expectRefusal(env, row);
        assert.ok(seconds < 20, `${call} took ${seconds.toFixed(1)} s`);
      }
      // The page passes JS strings. Where the bytes are valid UTF-8 the string is the same
      // document and must get the same answer; otherwise (lone bytes decoded to U+FFFD)
      // it must still be a clean refusal.
      let text = null;
      try {
        text = fatal.decode(row.bytes);
      } catch {
        const env = JSON.parse(core.evaluate(new TextDecoder().decode(row.bytes)));
        assert.equal(env.ok, false);
        assert.ok(env.error.message.length > 0);
      }
      if (text !== null) expectRefusal(JSON.parse(core.evaluate(text)), row);
    });
  }

  test("memory stays bounded and the module still answers afterwards", () => {
    const heap = core.HEAP8?.buffer.byteLength ?? core.wasmMemory?.buffer.byteLength;
    if (heap !== undefined) assert.ok(heap < 512 * 1024 * 1024, `wasm heap grew to ${heap} bytes`);
    assert.ok(process.memoryUsage().rss < 2048 * 1024 * 1024, `rss ${process.memoryUsage().rss}`);
    const env = JSON.parse(core.evaluate(readFileSync(DEFAULT_EXAMPLE, "utf8")));
    assert.equal(env.ok, true, JSON.stringify(env.error));
  });
});
