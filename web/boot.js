// Runs first (a classic script in <head>, before the page's modules load):
//  - theme and embed mode, so the page never flashes the wrong colours or layout;
//  - starts the Web Worker that loads the core, so the wasm compiles while the
//    page's own modules are still arriving (engine.js adopts it).
(function () {
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

  try {
    var worker = new Worker(new URL("worker.js", document.baseURI), { type: "module", name: "gpucalc-evaluate" });
    var early = [];
    // Messages that arrive before engine.js takes over are kept and replayed.
    worker.onmessage = function (event) {
      early.push(event);
    };
    worker.onerror = function (event) {
      if (event.preventDefault) event.preventDefault();
      early.push(event);
    };
    window.__gpucalcBoot = { worker: worker, early: early };
  } catch (e) {
    /* no module workers: engine.js falls back */
  }
})();
