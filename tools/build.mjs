// Builds the static site into dist/ from the two wasm binaries, with no bundler: the page
// (`whereabouts-web`, wasm-bindgen target `web`, content-hashed names) and the engine worker
// (`worker`, target `no-modules`, fixed names, started through `worker_loader.js`).
//
//   node tools/build.mjs [--out dist]
//
// What it does, in order: one `cargo build --release` of both binaries for wasm32 (shared
// dependencies compiled once); `wasm-bindgen` on each (the installed CLI, whose version must
// equal Cargo.lock's pin; no name or producers sections: they are debugging aids, 40% of the
// download); copies `www/` (the style sheet under a content hash, the favicon, the samples);
// writes index.html from the root template with the page's loader script and the Content-
// Security-Policy that allows exactly that one inline script by its hash (tools/csp.mjs).
//
// The project used trunk for this until it was measured to be 11 of the 42 minutes of a cold
// CI run (compiling trunk itself); this script is the part of trunk the site used.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyCsp } from './csp.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outArg = args.indexOf('--out');
const OUT = outArg >= 0 ? args[outArg + 1] : join(ROOT, 'dist');
const TARGET = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target'), 'wasm32-unknown-unknown', 'release');

const run = (cmd, argv) => execFileSync(cmd, argv, { cwd: ROOT, stdio: 'inherit' });
const hash = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);
// Subresource integrity, as trunk wrote it: the browser refuses a file that is not this one.
const sri = (file) => `sha384-${createHash('sha384').update(readFileSync(file)).digest('base64')}`;

run('cargo', ['build', '--release', '--target', 'wasm32-unknown-unknown', '--bin', 'whereabouts-web', '--bin', 'worker']);

const staging = `${OUT}.staging`;
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });

const bindgen = (bin, target, outName) =>
  run('wasm-bindgen', [
    `--target=${target}`,
    `--out-dir=${staging}`,
    `--out-name=${outName}`,
    '--no-typescript',
    '--remove-name-section',
    '--remove-producers-section',
    join(TARGET, `${bin}.wasm`),
  ]);

// The page: hashed names, so a deploy never mixes an old script with a new module.
bindgen('whereabouts-web', 'web', 'page');
const pageHash = hash(Buffer.concat([readFileSync(join(staging, 'page.js')), readFileSync(join(staging, 'page_bg.wasm'))]));
const pageJs = `whereabouts-web-${pageHash}.js`;
const pageWasm = `whereabouts-web-${pageHash}_bg.wasm`;
renameSync(join(staging, 'page.js'), join(staging, pageJs));
renameSync(join(staging, 'page_bg.wasm'), join(staging, pageWasm));

// The worker: fixed names (the page starts `./worker_loader.js`).
bindgen('worker', 'no-modules', 'worker');
// A failed load must reach the page: importScripts throws (an error event), and a rejected
// wasm load is rethrown outside the promise so it is one too (an unhandled rejection in a
// worker tells the page nothing, and an import waiting on it would wait forever).
writeFileSync(
  join(staging, 'worker_loader.js'),
  'importScripts("./worker.js");wasm_bindgen("./worker_bg.wasm").catch((e)=>setTimeout(()=>{throw new Error("the engine could not load: "+e);}));',
);

// Static assets.
const css = readFileSync(join(ROOT, 'www', 'style.css'));
const cssName = `style-${hash(css)}.css`;
writeFileSync(join(staging, cssName), css);
for (const file of ['favicon.svg', 'icon.svg', 'icon-192.png', 'icon-512.png', 'manifest.webmanifest']) {
  cpSync(join(ROOT, 'www', file), join(staging, file));
}
cpSync(join(ROOT, 'www', 'samples'), join(staging, 'samples'), { recursive: true });

// index.html: the template's head, with the assets and the one inline loader.
let html = readFileSync(join(ROOT, 'index.html'), 'utf8');
const integrity = (name) => `integrity="${sri(join(staging, name))}"`;
const assets = [
  `<link rel="stylesheet" href="./${cssName}" ${integrity(cssName)} />`,
  '<link rel="icon" href="./favicon.svg" type="image/svg+xml" />',
  '<link rel="manifest" href="./manifest.webmanifest" />',
  '<meta name="theme-color" content="#c2410c" />',
  `<link rel="modulepreload" href="./${pageJs}" crossorigin="anonymous" ${integrity(pageJs)} />`,
  `<link rel="preload" href="./${pageWasm}" as="fetch" type="application/wasm" crossorigin="anonymous" ${integrity(pageWasm)} />`,
].join('\n  ');
const marker = '<!-- assets: tools/build.mjs -->';
if (!html.includes(marker)) {
  console.error(`index.html: no "${marker}" line to put the assets at`);
  process.exit(1);
}
html = html.replace(marker, assets);
// The offline copy (www/sw.js): registered once the page runs; a new version waits until the
// page says so (the app's "reload for the new version" notice sends "skip-waiting"), then the
// page reloads on the new worker.
const loader = `<script type="module">
import init from './${pageJs}';
await init({ module_or_path: './${pageWasm}' });
if ('serviceWorker' in navigator) {
  const offer = (w) => window.dispatchEvent(new CustomEvent('whereabouts-update', { detail: w }));
  navigator.serviceWorker.register('./sw.js').then((r) => {
    if (r.waiting && navigator.serviceWorker.controller) offer(r.waiting);
    r.addEventListener('updatefound', () => {
      const w = r.installing;
      w?.addEventListener('statechange', () => { if (w.state === 'installed' && navigator.serviceWorker.controller) offer(w); });
    });
  }).catch(() => {});
  let updating = false;
  window.addEventListener('whereabouts-apply-update', () => {
    updating = true;
    navigator.serviceWorker.getRegistration().then((r) => r?.waiting?.postMessage('skip-waiting'));
  });
  navigator.serviceWorker.addEventListener('controllerchange', () => { if (updating) location.reload(); });
}
</script>`;
html = html.replace('</body>', `${loader}\n</body>`);
writeFileSync(join(staging, 'index.html'), applyCsp(html));

// The service worker last: it lists every file of the site, and its version is their hash, so
// any change to the site is a new worker (and a new cache).
const files = [];
const walk = (dir, prefix) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
    else files.push(`${prefix}${entry.name}`);
  }
};
walk(staging, '');
files.sort();
const version = hash(Buffer.concat(files.map((f) => Buffer.concat([Buffer.from(f), readFileSync(join(staging, f))]))));
const precache = ['./', ...files.filter((f) => f !== 'index.html').map((f) => `./${f}`)];
writeFileSync(
  join(staging, 'sw.js'),
  readFileSync(join(ROOT, 'www', 'sw.js'), 'utf8').replace('__VERSION__', version).replace('__FILES__', JSON.stringify(precache)),
);

rmSync(OUT, { recursive: true, force: true });
renameSync(staging, OUT);
if (!existsSync(join(OUT, 'index.html'))) process.exit(1);
console.log(`${OUT}: built (${pageJs}, worker.js)`);
