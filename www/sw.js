// The offline copy of the site (a service worker; tools/build.mjs fills in the version and the
// files). After one visit the page loads and runs with the server gone: every file of the site
// is cached when the worker installs, and then served from that cache. Only this origin's own
// files are ever fetched or cached: the worker handles GET requests for the site's files and
// nothing else, so the page's privacy (no request leaves its origin) is unchanged.
//
// Updates: a deploy changes this file (its version and its list), so the browser installs the
// new worker beside the old one; it waits, and the page offers a reload (page → "skip-waiting"
// message) rather than mixing an old page with a new engine worker.
const VERSION = '__VERSION__';
const FILES = __FILES__;
const CACHE = `whereabouts-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('whereabouts-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('message', (event) => {
  if (event.data === 'skip-waiting') self.skipWaiting();
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  // The page itself, whatever its query string (every lab's settings live there).
  const key = request.mode === 'navigate' ? new URL('./', self.location.href).href : request;
  event.respondWith(
    caches.open(CACHE).then((cache) =>
      cache.match(key, { ignoreSearch: request.mode === 'navigate' }).then((hit) => hit ?? fetch(request)),
    ),
  );
});
