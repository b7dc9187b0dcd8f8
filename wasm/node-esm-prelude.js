// Prepended to gpucalc.js (--extern-pre-js). Emscripten 3.1.6 emits `require`
// and `__dirname` on its Node path even with EXPORT_ES6, and ES modules have
// neither; provide them under Node only. Browsers never enter this block.
var require, __dirname;
if (typeof process == "object" && typeof process.versions == "object" && typeof process.versions.node == "string") {
  const { createRequire } = await import("node:module");
  require = createRequire(import.meta.url);
  __dirname = require("node:path").dirname(require("node:url").fileURLToPath(import.meta.url));
}
