// The two builds of the site name the same parts (issue 41 §3): index.html's data-trunk links
// are the one list, which trunk reads itself (Trunk.toml) and tools/build.mjs reads through
// tools/site.mjs. These tests check the site `./x build` made against that list, Trunk.toml
// against the project's pins, and trunk's post-build hook on a trunk-shaped output; CI never
// compiles trunk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { DIST, ROOT } from './harness.mjs';
import { siteParts, trunkLinks, WORKER_LOADER } from '../../tools/site.mjs';

const TEMPLATE = readFileSync(join(ROOT, 'index.html'), 'utf8');
const parts = siteParts(TEMPLATE);
const listing = (dir, prefix = '') =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listing(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );

test('index.html lists the two binaries Cargo.toml builds, a style sheet, and files that exist', () => {
  const cargo = readFileSync(join(ROOT, 'Cargo.toml'), 'utf8');
  const bins = [...cargo.matchAll(/\[\[bin\]\]\s*\nname = "([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual([parts.page, parts.worker].sort(), bins.sort());
  for (const f of [parts.css, ...parts.files, ...parts.dirs]) assert.ok(existsSync(join(ROOT, f)), `index.html lists ${f}, which is not there`);
  // The page starts the worker by its loader's name, the one trunk's loader shim gets.
  const start = readFileSync(join(ROOT, 'src', 'bridge.rs'), 'utf8');
  assert.ok(start.includes(`${parts.worker}_loader.js`), `the page does not start ./${parts.worker}_loader.js`);
});

test("./x build's site holds exactly the parts index.html lists, under trunk's names", () => {
  assert.ok(existsSync(join(DIST, 'index.html')), `no built site at ${DIST}: run ./x build first`);
  const built = listing(DIST).sort();
  const hex = '[0-9a-f]{16}';
  const want = [
    new RegExp(`^${parts.page}-${hex}\\.js$`),
    new RegExp(`^${parts.page}-${hex}_bg\\.wasm$`),
    new RegExp(`^${parts.worker}\\.js$`),
    new RegExp(`^${parts.worker}_bg\\.wasm$`),
    new RegExp(`^${parts.worker}_loader\\.js$`),
    new RegExp(`^${basename(parts.css, '.css')}-${hex}\\.css$`),
    ...parts.files.map((f) => new RegExp(`^${basename(f).replace('.', '\\.')}$`)),
    /^index\.html$/,
    /^sw\.js$/,
  ];
  for (const re of want) assert.equal(built.filter((f) => re.test(f)).length, 1, `${re} in ${JSON.stringify(built)}`);
  // The folders, copied whole.
  for (const dir of parts.dirs) {
    assert.deepEqual(
      built.filter((f) => f.startsWith(`${basename(dir)}/`)),
      listing(join(ROOT, dir)).map((f) => `${basename(dir)}/${f}`).sort(),
    );
  }
  // What ./x build adds and trunk's build does not (trunk's worker and page hold every lab):
  // the worker's chunks, one per lab fetched later (src/worker/split.rs), one for the simd128
  // DLG kernel (src/worker/simd.rs) and one for secure aggregation's protocol
  // (src/worker/secure.rs), code two of them share, and the module through
  // which they are fetched; the page's, one per later lab's views and one per panel that comes
  // when it first opens (src/shell/lab_views.rs), in a folder named by the page's hash.
  const views = `views-${hex}/`;
  const split = [
    /^__wasm_split\.js$/, /^split_density\.wasm$/, /^split_linkability\.wasm$/, /^split_mobility\.wasm$/, /^split_simd128\.wasm$/, /^split_secagg\.wasm$/, /^split_import\.wasm$/,
    ...['__wasm_split\\.js', ...['density', 'linkability', 'mobility'].map((l) => `split_${l}_views\\.wasm`), ...['glossary', 'instructor', 'lesson', 'exports'].map((p) => `split_${p}\\.wasm`)]
      .map((f) => new RegExp(`^${views}${f}$`)),
  ];
  for (const re of split) assert.equal(built.filter((f) => re.test(f)).length, 1, `${re} in ${JSON.stringify(built)}`);
  split.push(/^chunk_\d+\.wasm$/, new RegExp(`^${views}chunk_\\d+\\.wasm$`));
  // The views' folder is the page's own: named by its hash.
  const page = built.find((f) => want[0].test(f));
  assert.ok(built.some((f) => f.startsWith(`views-${page.slice(parts.page.length + 1, -3)}/`)), `no views folder for ${page}`);
  const accounted = built.filter(
    (f) => want.some((re) => re.test(f)) || split.some((re) => re.test(f)) || parts.dirs.some((d) => f.startsWith(`${basename(d)}/`)),
  );
  assert.deepEqual(built.filter((f) => !accounted.includes(f)), [], 'files neither build names');
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  assert.equal(trunkLinks(html).length, 0, 'the data-trunk lines are taken out');
  assert.equal(readFileSync(join(DIST, `${parts.worker}_loader.js`), 'utf8'), WORKER_LOADER(parts.worker));
});

test("Trunk.toml builds index.html into dist/ with relative paths, in release, with the project's wasm-bindgen and the post-build hook", () => {
  const toml = readFileSync(join(ROOT, 'Trunk.toml'), 'utf8');
  const value = (key) => (toml.match(new RegExp(`^${key}\\s*=\\s*(.+)$`, 'm')) ?? [])[1]?.trim();
  assert.equal(value('target'), '"index.html"');
  assert.equal(value('dist'), '"dist"');
  assert.equal(value('public_url'), '"./"');
  assert.equal(value('release'), 'true');
  const lock = readFileSync(join(ROOT, 'Cargo.lock'), 'utf8');
  const pinned = lock.match(/name = "wasm-bindgen"\nversion = "([^"]+)"/)[1];
  assert.equal(value('wasm_bindgen'), `"${pinned}"`, "Trunk.toml's wasm-bindgen must be Cargo.lock's, or trunk would download another");
  assert.equal(value('stage'), '"post_build"');
  assert.equal(value('command'), '"node"');
  assert.equal(value('command_arguments'), '["tools/trunk-post-build.mjs"]');
});

test("trunk's post-build hook gives trunk's output the service worker, the worker's loader and the CSP", () => {
  const staging = mkdtempSync(join(tmpdir(), 'wb-trunk-'));
  try {
    // Trunk's output, as trunk 0.21 writes it: its own loader shim and inline module loader.
    cpSync(DIST, staging, { recursive: true });
    rmSync(join(staging, 'sw.js'));
    writeFileSync(join(staging, `${parts.worker}_loader.js`), `import init from "./${parts.worker}.js";await init();`);
    const page = readdirSync(staging).find((f) => f.startsWith(`${parts.page}-`) && f.endsWith('.js'));
    let html = readFileSync(join(staging, 'index.html'), 'utf8').replace(/<script type="module">[\s\S]*?<\/script>\n?/, '');
    const trunkLoader = `import init, * as bindings from './${page}';\nconst wasm = await init({ module_or_path: './${page.replace('.js', '_bg.wasm')}' });\nwindow.wasmBindings = bindings;`;
    html = html.replace('</body>', `<script type="module">\n${trunkLoader}\n</script>\n</body>`);
    writeFileSync(join(staging, 'index.html'), html);
    execFileSync('node', [join(ROOT, 'tools', 'trunk-post-build.mjs')], { env: { ...process.env, TRUNK_STAGING_DIR: staging } });
    const out = readFileSync(join(staging, 'index.html'), 'utf8');
    const scripts = [...out.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    assert.equal(scripts.length, 2, 'trunk\'s loader and the service-worker registration');
    assert.ok(scripts[1].includes("register('./sw.js')"));
    const csp = out.match(/Content-Security-Policy"\s+content="([^"]*)"/)[1];
    for (const s of scripts) assert.ok(csp.includes(`'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`), 'each inline script is allowed by its hash');
    assert.equal(readFileSync(join(staging, `${parts.worker}_loader.js`), 'utf8'), WORKER_LOADER(parts.worker));
    const sw = readFileSync(join(staging, 'sw.js'), 'utf8');
    for (const f of listing(staging).filter((f) => f !== 'index.html' && f !== 'sw.js')) assert.ok(sw.includes(`"./${f}"`), `sw.js caches ${f}`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
});
