// Service worker: after one visit the page works offline in the reader's language, after
// two in both. scripts/assemble-dist.mjs stamps BUILD (a hash of every file), PRECACHE
// (the files of dist/ a first visit needs) and LATER (each language's strings, and the
// modules of the Expert form and the model import, which a first visit does not load),
// so a new build installs a new cache and drops the old one; the install revalidates what
// the first visit already downloaded rather than downloading it again. Of LATER, the
// page names the files it has loaded (the reader's language: a "keep" message, which
// revalidates them) and the rest is fetched on the next visit (topUp), so a first visit
// does not pay for what it does not show. Same-origin GETs only; cache first, then the
// network (a file the build did not list is fetched and kept).
const BUILD = "dev";
const PRECACHE = [];
const LATER = [];
const CACHE = `gpucalc-${BUILD}`;

// Whether the page's copy of `url` is (or within 5 s lands) in the cache.
async function pageCopy(cache, url) {
  if (!PRECACHE.includes("gpucalc.wasm")) return false;
  for (let i = 0; i < 50; i++) {
    if (await cache.match(url)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // The page puts its own download of the wasm here (boot.js): not fetched again. It
      // registers this worker once that copy is stored, but on a loaded machine the copy
      // can still be landing when the install looks: give it a few seconds first.
      await pageCopy(cache, new URL("gpucalc.wasm", self.registration.scope).href);
      const have = new Set((await cache.keys()).map((r) => r.url));
      const missing = PRECACHE.filter((f) => f !== "index.html" && !have.has(new URL(f, self.registration.scope).href));
      // "no-cache": a conditional request, which the server answers 304 (no body) for
      // what the page has just downloaded, and in full for anything that changed.
      await cache.addAll(missing.map((f) => new Request(f, { cache: "no-cache" })));
      // index.html is the folder's page ("./"): the same bytes, not fetched twice.
      if (PRECACHE.includes("index.html")) {
        const page = await cache.match("./");
        if (page) await cache.put("index.html", new Response(await page.blob(), { headers: page.headers }));
      }
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key.startsWith("gpucalc-") && key !== CACHE) await caches.delete(key);
      }
      await self.clients.claim();
    })(),
  );
});

// The files of LATER in `files` (all of them on a visit this worker serves, the second
// on) that the cache does not hold yet.
async function topUp(files = LATER) {
  const cache = await caches.open(CACHE);
  for (const f of files) {
    if (!LATER.includes(f)) continue;
    const url = new URL(f, self.registration.scope).href;
    if (await cache.match(url)) continue;
    try {
      const response = await fetch(new Request(url, { cache: "no-cache" }));
      if (response.ok) await cache.put(url, response);
    } catch {
      /* offline: the next visit tries again */
    }
  }
}

// The page, once this worker is active: the language files it loaded before that.
self.addEventListener("message", (event) => {
  if (event.data?.type === "keep" && Array.isArray(event.data.files)) event.waitUntil(topUp(event.data.files));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") event.waitUntil(topUp());
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      // ?embed=1, ?lang=zh … are the same document.
      const hit = await cache.match(request, { ignoreSearch: true });
      if (hit) return hit;
      try {
        const response = await fetch(request);
        if (response.ok && response.type === "basic") cache.put(request, response.clone());
        return response;
      } catch (error) {
        if (request.mode === "navigate") {
          const page = await cache.match(new URL("./", self.registration.scope).href, { ignoreSearch: true });
          if (page) return page;
        }
        throw error;
      }
    })(),
  );
});
