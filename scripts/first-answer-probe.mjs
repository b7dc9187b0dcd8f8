// Waiting for the page's first core answer without touching the page, for the benchmarks
// (scripts/bench-page.mjs, scripts/bench-first-answer.mjs). Playwright's waitForFunction
// injects its own script into the page the first time it polls (~50 ms of the page's main
// thread in a trace, there just before the core's answer was drawn) and then polls every
// frame, inside the very window measured. Instead a small observer, added to every page
// of the browser context, marks the frame after the core's first answer (app.js sets
// data-first-core-answer-ms on the root then) as painted, in window.__gpucalcPainted, and
// says so on the console, which the harness listens to.

const PAINTED = "gpucalc-painted";

const probe = (message) =>
  new MutationObserver((_, o) => {
    if (!document.documentElement.dataset.firstCoreAnswerMs) return;
    o.disconnect();
    requestAnimationFrame(() =>
      setTimeout(() => {
        window.__gpucalcPainted = performance.now();
        console.debug(message);
      }, 0),
    );
  }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-first-core-answer-ms"] });

// Adds the observer to every page `context` opens from now on.
export function addFirstAnswerProbe(context) {
  return context.addInitScript(probe, PAINTED);
}

// Opens `url` in `page` and resolves once the frame after the core's first answer painted.
export async function openUntilPainted(page, url) {
  const painted = page.waitForEvent("console", { predicate: (m) => m.text() === PAINTED, timeout: 60_000 });
  await page.goto(url, { waitUntil: "commit" });
  await painted;
}
