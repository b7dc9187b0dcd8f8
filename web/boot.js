// Runs first (a classic script in <head>, before the page's modules load):
//  - theme and embed mode, so the page never flashes the wrong colours or layout;
//  - the reader's strings (locales/en.js or locales/zh.js, not both);
//  - fetches and compiles the wasm core once (WebAssembly.compileStreaming, while the
//    page's own modules are still arriving) and starts the Web Worker that answers;
//    the compiled module is posted to it and, by engine.js, to the search and
//    comparison workers: one download, one compile per page;
//  - keeps the downloaded wasm for the service worker (sw.js), which then does not
//    fetch it a second time.
//  - when the page opens on the default scenario (no "#s=" link), has the answering
//    worker search it as soon as the core is instantiated, while the page's modules are
//    still loading: the page's own first request then finds that search kept
//    (core/src/search_cache.hpp) and is answered in milliseconds.
(function () {
  var CACHE = "gpucalc-dev"; // sw.js's cache: scripts/assemble-dist.mjs stamps the build
  // The default scenario's JSON text (examples/llama-3.1-70b-h100.json), stamped likewise.
  var DEFAULT = "gpucalc-default-scenario";
  var root = document.documentElement;
  var params = new URLSearchParams(location.search);
  var theme = params.get("theme");
  if (theme !== "light" && theme !== "dark") {
    try {
      theme = localStorage.getItem("gpucalc.theme");
    } catch (e) {
      theme = null;
    }
  }
  if (theme === "light" || theme === "dark") root.setAttribute("data-theme", theme);
  if (params.get("embed") === "1") root.setAttribute("data-embed", "");

  // The Chinese strings, fetched beside the modules for a reader who gets Chinese (the
  // choice i18n.js pickLanguage makes: ?lang=, the saved choice, the browser's language).
  var lang = params.get("lang");
  if (lang !== "en" && lang !== "zh") {
    try {
      lang = localStorage.getItem("gpucalc.lang");
    } catch (e) {
      lang = null;
    }
  }
  if (lang !== "en" && lang !== "zh") lang = /^zh/i.test((navigator.languages && navigator.languages[0]) || navigator.language || "") ? "zh" : "en";
  // The reader's strings, and only theirs (web/i18n.js loads one language).
  var preload = document.createElement("link");
  preload.rel = "modulepreload";
  preload.href = "locales/" + lang + ".js";
  document.head.appendChild(preload);
  // The build-time answer (app.js draws it for a reader who sees USD prices, nearly always
  // an English one, on the default scenario): fetched now, beside the modules.
  if (lang === "en" && !/^#s=/.test(location.hash)) {
    var prebuilt = document.createElement("script");
    prebuilt.src = "prebuilt.js";
    prebuilt.async = true;
    document.head.appendChild(prebuilt);
  }

  // The answering worker first, so its scripts load while the wasm downloads and compiles.
  var worker = null;
  var early = [];
  try {
    worker = new Worker(new URL("worker.js", document.baseURI), { type: "module", name: "gpucalc-evaluate" });
    // Messages that arrive before engine.js takes over are kept and replayed.
    worker.onmessage = function (event) {
      early.push(event);
    };
    worker.onerror = function (event) {
      if (event.preventDefault) event.preventDefault();
      early.push(event);
    };
  } catch (e) {
    worker = null; // no module workers: engine.js falls back
  }

  // The compiled core, or null where this browser cannot share it (each worker then
  // compiles its own). root.dataset.wasmCompiles counts compiles on this page.
  var module = null;
  var wasm = new URL("gpucalc.wasm", document.baseURI).href;
  var compiled = function () {
    root.dataset.wasmCompiles = String(Number(root.dataset.wasmCompiles || 0) + 1);
  };
  if (typeof WebAssembly === "object" && typeof WebAssembly.compileStreaming === "function" && typeof fetch === "function") {
    module = fetch(wasm, { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("gpucalc.wasm: HTTP " + response.status);
        keepForOffline(response.clone());
        return WebAssembly.compileStreaming(response);
      })
      .then(
        function (m) {
          compiled();
          return m;
        },
        function () {
          return null; // e.g. served without application/wasm: the workers load it themselves
        },
      );
  }

  // Into the cache the service worker of this build will use (sw.js skips what is there).
  // `kept` settles when the copy is stored: app.js registers the service worker only
  // then, so its install finds the wasm and does not fetch it a second time.
  var kept = Promise.resolve();
  function keepForOffline(response) {
    if (/-dev$/.test(CACHE) || !("serviceWorker" in navigator) || typeof caches !== "object") return;
    kept = caches
      .open(CACHE)
      .then(function (cache) {
        return cache.put(wasm, response);
      })
      .catch(function () {
        /* offline support is a bonus */
      });
  }

  var boot = {
    module: module || Promise.resolve(null),
    kept: function () {
      return boot.module.then(function () {
        return kept;
      });
    },
  };
  if (worker) {
    var linked = new URLSearchParams(location.hash.replace(/^#/, "")).has("s");
    var warm = !linked && DEFAULT.charAt(0) === "{" ? requestText(JSON.parse(DEFAULT)) : null;
    boot.module.then(function (m) {
      worker.postMessage({ type: "init", module: m, warm: warm });
    });
    boot.worker = worker;
    boot.early = early;
  }
  window.__gpucalcBoot = boot;

  // The text the page will ask the core for (web/money.js requestText): the scenario
  // priced in the reader's currency when it names none. The worker keeps its answer to
  // this text, for the page's first request.
  function requestText(scenario) {
    if (scenario.cost && scenario.cost.currency) return JSON.stringify(scenario);
    var currency = null;
    try {
      currency = localStorage.getItem("gpucalc.currency");
    } catch (e) {
      currency = null;
    }
    if (currency !== "USD" && currency !== "CNY") currency = lang === "zh" ? "CNY" : "USD";
    return JSON.stringify(Object.assign({}, scenario, { cost: Object.assign({}, scenario.cost || {}, { currency: currency }) }));
  }
})();
