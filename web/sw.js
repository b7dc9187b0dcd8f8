// Service worker: after one visit the page works offline. scripts/assemble-dist.mjs
// stamps BUILD (a hash of every file) and PRECACHE (every file of dist/), so a new
// build installs a new cache and drops the old one. Same-origin GETs only; cache
// first, then the network (a file the build did not list is fetched and kept).
const BUILD = "dev";
const PRECACHE = [];
const CACHE = `gpucalc-${BUILD}`;

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.addAll(PRECACHE.map((f) => new Request(f, { cache: "reload" })));
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

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
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
