// A tiny static file server for the built site: 127.0.0.1 only, correct MIME types (wasm!),
// no caching. Used by `./x serve` and by the end-to-end tests. No dependencies.
//
//   node tools/serve.mjs DIR [--port N]
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.csv': 'text/csv; charset=utf-8',
  '.gpx': 'application/gpx+xml',
  '.geojson': 'application/geo+json',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** Starts serving `dir`; resolves to { url, port, close() }. Port 0 picks a free port. */
export function startServer(dir, { port = 0, host = '127.0.0.1', log = false } = {}) {
  const root = resolve(dir);
  // A link may carry a long drawn path in its query (old-form links spelt every waypoint out):
  // Node's default 16 KiB header limit would refuse it with a bare 431 before the page could
  // say what is wrong with it, so the limit is 1 MiB.
  const server = createServer({ maxHeaderSize: 1 << 20 }, (req, res) => {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    let file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      const size = statSync(file).size;
      res.writeHead(200, {
        'Content-Type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
        'Content-Length': size,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      });
      if (req.method === 'HEAD') return res.end();
      createReadStream(file).pipe(res);
      if (log) console.log(`200 ${req.method} ${path}`);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      if (log) console.log(`404 ${req.method} ${path}`);
    }
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      resolvePromise({
        url: `http://${host}:${actual}/`,
        port: actual,
        // Open keep-alive connections too: a stopped server is gone at once (the offline test).
        close: () =>
          new Promise((r) => {
            server.close(() => r());
            server.closeAllConnections();
          }),
      });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const dir = args.find((a) => !a.startsWith('--')) ?? 'dist';
  const portIdx = args.indexOf('--port');
  const port = portIdx >= 0 ? Number(args[portIdx + 1]) : 8080;
  try {
    const { url } = await startServer(dir, { port });
    console.log(`\nWhereabouts is being served at ${url}\n(press Ctrl+C to stop)\n`);
  } catch (e) {
    console.error(`could not serve ${dir} on port ${port}: ${e.message}`);
    process.exit(1);
  }
}
