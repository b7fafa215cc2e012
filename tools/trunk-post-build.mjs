// Trunk's post-build hook (Trunk.toml): makes trunk's build the site `./x build` makes. Trunk
// has built the binaries and copied the files index.html lists; this adds what trunk does not
// do: the worker's loader that reports a failed load (tools/site.mjs), the service worker and
// its registration (the offline copy), and the Content-Security-Policy hashes of the page's
// inline scripts (trunk's loader, and in `trunk serve` its live-reload script).
//
//   TRUNK_STAGING_DIR=… node tools/trunk-post-build.mjs   (trunk runs it)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyCsp } from './csp.mjs';
import { siteParts, SW_REGISTRATION, WORKER_LOADER, writeServiceWorker } from './site.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) {
  console.error('tools/trunk-post-build.mjs is trunk\'s post-build hook: TRUNK_STAGING_DIR is not set (run `trunk build`, or `./x build` without trunk)');
  process.exit(1);
}
const parts = siteParts(readFileSync(join(ROOT, 'index.html'), 'utf8'));
writeFileSync(join(staging, `${parts.worker}_loader.js`), WORKER_LOADER(parts.worker));
const file = join(staging, 'index.html');
let html = readFileSync(file, 'utf8');
html = html.replace('</body>', `<script type="module">\n${SW_REGISTRATION}\n</script>\n</body>`);
writeFileSync(file, applyCsp(html));
writeServiceWorker(staging, readFileSync(join(ROOT, 'www', 'sw.js'), 'utf8'));
