// A minimal static file server for the page test, bound to 127.0.0.1 on a free port.
// `prefix` mounts `root` below a sub-path (e.g. "/a/b/"), as on a project-pages host.
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".md": "text/markdown; charset=utf-8",
};

export async function startServer(root, prefix = "/") {
  const requests = []; // every path asked for, in order
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    requests.push(url.pathname);
    if (!url.pathname.startsWith(prefix)) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    let file = path.join(root, path.normalize(decodeURIComponent(url.pathname.slice(prefix.length - 1))));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if (statSync(file).isDirectory()) file = path.join(file, "index.html");
      statSync(file);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
      "cache-control": "no-store",
    });
    createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    port,
    requests,
    // Closes the listener and every open connection (keep-alive included), so the
    // origin is really gone: what the offline test needs.
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections?.();
      }),
  };
}
