// Builds the static site into dist/ from the two wasm binaries, with no bundler: the page
// (`whereabouts-web`, wasm-bindgen target `web`, content-hashed names, its three later labs'
// views split off by wasm-split into `views-<hash>/`, fetched when their tab first shows) and
// the engine worker (`worker`, target `web`, fixed names, started as a module worker through
// `worker_loader.js`, its three later labs' engines split off into chunks fetched when their lab
// first opens).
//
//   node tools/build.mjs [--out dist]
//
// What it builds is what index.html's `<link data-trunk …>` lines list (tools/site.mjs reads
// them), the same lines trunk reads (Trunk.toml: `trunk serve` builds this same site for anyone
// who has trunk). In order: one `cargo build --release` of both binaries for wasm32 (shared
// dependencies compiled once); `wasm-bindgen` on each (the installed CLI, whose version must
// equal Cargo.lock's pin; no name or producers sections: they are debugging aids, 40% of the
// download); the style sheet under a content hash, the files and folders copied as they are;
// index.html from the root template without its data-trunk lines, with the page's loader
// script and the Content-Security-Policy that allows exactly that one inline script by its hash
// (tools/csp.mjs); the service worker last (its version is the hash of every other file).
//
// The project builds with this script rather than trunk because compiling trunk was measured
// at 11 of the 42 minutes of a cold CI run; this script is the part of trunk the site uses.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyCsp } from './csp.mjs';
import { sections, simdFunctions } from './features.mjs';
import { hash, siteParts, SW_REGISTRATION, withoutTrunkLinks, WORKER_LOADER, writeServiceWorker } from './site.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outArg = args.indexOf('--out');
const OUT = outArg >= 0 ? args[outArg + 1] : join(ROOT, 'dist');
const TARGET = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target'), 'wasm32-unknown-unknown', 'release');

const run = (cmd, argv) => execFileSync(cmd, argv, { cwd: ROOT, stdio: 'inherit' });
// Subresource integrity, as trunk wrote it: the browser refuses a file that is not this one.
const sri = (file) => `sha384-${createHash('sha384').update(readFileSync(file)).digest('base64')}`;

// A wasm module without its custom sections (names, producers): what wasm-bindgen's
// --remove-name-section and --remove-producers-section do for the main modules, for the chunks
// wasm-split writes (their function names were 14% of a chunk). Sections are an id byte, a
// LEB128 size and the payload (tools/features.mjs' `sections`); custom sections have id 0.
function withoutCustomSections(wasm) {
  const kept = [wasm.subarray(0, 8)];
  for (const { id, start, end } of sections(wasm)) {
    if (end > wasm.length) throw new Error('a chunk of the worker is not a whole wasm module');
    if (id !== 0) kept.push(wasm.subarray(start, end));
  }
  return Buffer.concat(kept);
}

const template = readFileSync(join(ROOT, 'index.html'), 'utf8');
let parts;
try {
  parts = siteParts(template);
} catch (e) {
  console.error(e.message);
  process.exit(1);
}

// `split`: the worker's Density, Linkability and Mobility engines are split points
// (src/worker/split.rs), and the worker is linked with the relocations wasm-split reads (build.rs).
run('cargo', ['build', '--release', '--target', 'wasm32-unknown-unknown', '--features', 'split', '--bin', parts.page, '--bin', parts.worker]);

const staging = `${OUT}.staging`;
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });

const bindgen = (input, target, outName, extra = []) =>
  run('wasm-bindgen', [
    ...extra,
    `--target=${target}`,
    `--out-dir=${staging}`,
    `--out-name=${outName}`,
    '--no-typescript',
    '--remove-name-section',
    '--remove-producers-section',
    input,
  ]);

// wasm-split (the pinned `wasm-split-cli`, ./x installs it) on one of the two binaries, into
// `dir`: the main module, which wasm-bindgen then reads as any binary, one chunk per split point
// and one per group of split points sharing code, and `__wasm_split.js`, through which a chunk
// is fetched and linked to the main module's memory and table (it imports `initSync` from
// `./<outName>.js`). --keep-lld-exports: the chunks link to the main module's function table (and
// the globals the split shares), which wasm-bindgen would otherwise drop from its exports.
function splitAndBind(bin, outName, dir) {
  run('wasm-split-cli', ['--target', 'web', '--out-name', outName, join(TARGET, `${bin}.wasm`), dir]);
  bindgen(join(dir, `${outName}.wasm`), 'web', outName, ['--keep-lld-exports']);
  rmSync(join(dir, `${outName}.wasm`));
}

// The chunks and loader wasm-split wrote in `from`, moved to `to`, each chunk without its
// custom sections.
function moveChunks(from, to) {
  mkdirSync(to, { recursive: true });
  for (const chunk of readdirSync(from)) {
    if (chunk.endsWith('.wasm')) writeFileSync(join(to, chunk), withoutCustomSections(readFileSync(join(from, chunk))));
    else renameSync(join(from, chunk), join(to, chunk));
  }
  rmSync(from, { recursive: true });
}

// The page: hashed names, so a deploy never mixes an old script with a new module. The Density,
// Linkability and Mobility labs' views are split off (src/shell/lab_views.rs) into a folder
// named by the same hash, `views-<hash>/`, fetched when their tab first shows; the page's glue
// imports that folder's loader, and the loader the page's hashed glue.
const pageSplit = join(staging, 'page-split');
splitAndBind(parts.page, 'page', pageSplit);
const pageHash = hash(Buffer.concat([readFileSync(join(staging, 'page.js')), readFileSync(join(staging, 'page_bg.wasm'))]));
const pageJs = `${parts.page}-${pageHash}.js`;
const pageWasm = `${parts.page}-${pageHash}_bg.wasm`;
const views = `views-${pageHash}`;
const relink = (file, from, to) => {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} does not import ${from}: wasm-split's or wasm-bindgen's output changed`);
  writeFileSync(file, text.replaceAll(from, to));
};
// Only the glue's import statements: the wasm's import object keeps the module name it imports.
relink(join(staging, 'page.js'), 'from "./__wasm_split.js"', `from "./${views}/__wasm_split.js"`);
relink(join(pageSplit, '__wasm_split.js'), 'from "./page.js"', `from "../${pageJs}"`);
moveChunks(pageSplit, join(staging, views));
renameSync(join(staging, 'page.js'), join(staging, pageJs));
renameSync(join(staging, 'page_bg.wasm'), join(staging, pageWasm));

// The worker: fixed names, as trunk gives a worker (the page starts `./worker_loader.js`), its
// labs fetched later (src/worker/split.rs) and the simd128 kernel split off beside it.
const split = join(staging, 'split');
splitAndBind(parts.worker, parts.worker, split);
moveChunks(split, staging);
writeFileSync(join(staging, `${parts.worker}_loader.js`), WORKER_LOADER(parts.worker));

// Every module must load in every browser with wasm, so none may use SIMD but the simd128 DLG
// kernel's chunk, which the worker fetches only where SIMD validates (src/worker/simd.rs), and
// which must hold it (tools/features.mjs says why this reads the instructions).
const modules = [...readdirSync(staging), ...readdirSync(join(staging, views)).map((f) => `${views}/${f}`)];
for (const file of modules.filter((f) => f.endsWith('.wasm'))) {
  const simd = simdFunctions(readFileSync(join(staging, file))).length;
  const kernel = file === 'split_simd128.wasm';
  if (kernel ? simd === 0 : simd > 0) {
    console.error(kernel
      ? `${file} holds no SIMD instruction: the simd128 DLG kernel is not in its chunk`
      : `${file} uses wasm SIMD in ${simd} function(s): it would not load in a browser without simd128`);
    process.exit(1);
  }
}
if (!existsSync(join(staging, 'split_simd128.wasm'))) {
  console.error('wasm-split wrote no split_simd128.wasm: the simd128 DLG kernel has no chunk');
  process.exit(1);
}

// The style sheet under a content hash (trunk's name for it), the rest as they are.
const css = readFileSync(join(ROOT, parts.css));
const cssName = `${basename(parts.css, '.css')}-${hash(css)}.css`;
writeFileSync(join(staging, cssName), css);
for (const file of parts.files) cpSync(join(ROOT, file), join(staging, basename(file)));
for (const dir of parts.dirs) cpSync(join(ROOT, dir), join(staging, basename(dir)), { recursive: true });

// index.html: the template's head without its data-trunk lines, with the assets and the one
// inline loader.
let html = withoutTrunkLinks(template);
const integrity = (name) => `integrity="${sri(join(staging, name))}"`;
const assets = [
  `<link rel="stylesheet" href="./${cssName}" ${integrity(cssName)} />`,
  `<link rel="modulepreload" href="./${pageJs}" crossorigin="anonymous" ${integrity(pageJs)} />`,
  `<link rel="preload" href="./${pageWasm}" as="fetch" type="application/wasm" crossorigin="anonymous" ${integrity(pageWasm)} />`,
].join('\n  ');
const marker = '<!-- assets: tools/build.mjs -->';
if (!html.includes(marker)) {
  console.error(`index.html: no "${marker}" line to put the assets at`);
  process.exit(1);
}
html = html.replace(marker, assets);
const loader = `<script type="module">
import init from './${pageJs}';
await init({ module_or_path: './${pageWasm}' });
${SW_REGISTRATION}
</script>`;
html = html.replace('</body>', `${loader}\n</body>`);
writeFileSync(join(staging, 'index.html'), applyCsp(html));

writeServiceWorker(staging, readFileSync(join(ROOT, 'www', 'sw.js'), 'utf8'));

rmSync(OUT, { recursive: true, force: true });
renameSync(staging, OUT);
if (!existsSync(join(OUT, 'index.html'))) process.exit(1);
console.log(`${OUT}: built (${pageJs}, worker.js)`);
