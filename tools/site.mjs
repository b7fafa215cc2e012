// What both builds of the site share: the list of binaries and files (index.html's
// `<link data-trunk …>` lines, which trunk reads natively and tools/build.mjs reads here), the
// page's service-worker registration, and the service worker's precache list. `./x build`
// (tools/build.mjs) and `trunk build` / `trunk serve` (Trunk.toml, whose post-build hook is
// tools/trunk-post-build.mjs) thus make the same site from one description.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const attr = (tag, name) => {
  const m = tag.match(new RegExp(`\\s${name}(?:="([^"]*)")?(?=[\\s/>])`));
  return m ? (m[1] ?? '') : undefined;
};

/**
 * The `<link data-trunk …>` assets of `html`, in order: `{ rel, href, bin, type, target,
 * loaderShim, tag }` (`bin`, `type`, `target` and `loaderShim` for `rel="rust"` only).
 */
export function trunkLinks(html) {
  return [...html.matchAll(/<link\s+data-trunk\b[^>]*>/g)].map(([tag]) => ({
    tag,
    rel: attr(tag, 'rel'),
    href: attr(tag, 'href'),
    bin: attr(tag, 'data-bin'),
    type: attr(tag, 'data-type') ?? 'main',
    target: attr(tag, 'data-bindgen-target'),
    loaderShim: attr(tag, 'data-loader-shim') !== undefined,
  }));
}

/** `html` without its `<link data-trunk …>` lines (trunk replaces them; build.mjs removes them). */
export function withoutTrunkLinks(html) {
  return html.replace(/[ \t]*<link\s+data-trunk\b[^>]*>\n?/g, '');
}

/** The site's parts as index.html lists them, checked: one page binary, one worker, one style
 *  sheet, and the files and folders copied as they are. Throws naming what is wrong. */
export function siteParts(html) {
  const links = trunkLinks(html);
  const rust = links.filter((l) => l.rel === 'rust');
  const page = rust.filter((l) => l.type === 'main');
  const workers = rust.filter((l) => l.type === 'worker');
  const css = links.filter((l) => l.rel === 'css');
  const known = new Set(['rust', 'css', 'copy-file', 'copy-dir']);
  const odd = links.find((l) => !known.has(l.rel));
  if (odd) throw new Error(`index.html: a data-trunk link of rel="${odd.rel}", which tools/build.mjs does not build: ${odd.tag}`);
  if (page.length !== 1 || !page[0].bin) throw new Error('index.html: there must be one data-trunk rust link of data-type="main" naming its data-bin');
  if (workers.length !== 1 || !workers[0].bin || !workers[0].loaderShim || workers[0].target !== 'web') {
    throw new Error('index.html: there must be one data-trunk rust worker link with data-bin, data-loader-shim and data-bindgen-target="web"');
  }
  if (css.length !== 1) throw new Error('index.html: there must be one data-trunk css link');
  return {
    page: page[0].bin,
    worker: workers[0].bin,
    css: css[0].href,
    files: links.filter((l) => l.rel === 'copy-file').map((l) => l.href),
    dirs: links.filter((l) => l.rel === 'copy-dir').map((l) => l.href),
  };
}

/**
 * The page's service-worker registration (the offline copy, www/sw.js): registered once the page
 * runs; a new version waits until the page says so (the app's "reload for the new version"
 * notice sends "skip-waiting"), then the page reloads on the new worker.
 */
export const SW_REGISTRATION = `if ('serviceWorker' in navigator) {
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
}`;

/** A 16-hex-digit content hash, the form of the site's file names. */
export const hash = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

/**
 * Writes `dir`/sw.js from `template` (www/sw.js): the service worker last, since it lists every
 * file of the site and its version is their hash, so any change to the site is a new worker
 * (and a new cache).
 */
export function writeServiceWorker(dir, template) {
  const files = [];
  const walk = (at, prefix) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(at, entry.name), `${prefix}${entry.name}/`);
      else if (`${prefix}${entry.name}` !== 'sw.js') files.push(`${prefix}${entry.name}`);
    }
  };
  walk(dir, '');
  files.sort();
  const version = hash(Buffer.concat(files.map((f) => Buffer.concat([Buffer.from(f), readFileSync(join(dir, f))]))));
  const precache = ['./', ...files.filter((f) => f !== 'index.html').map((f) => `./${f}`)];
  writeFileSync(join(dir, 'sw.js'), template.replace('__VERSION__', version).replace('__FILES__', JSON.stringify(precache)));
}

/**
 * The worker's loader (`<bin>_loader.js`, trunk's "loader shim"), a module: the page starts the
 * worker as a module worker, since wasm-split's chunks import the worker's glue as a module
 * (src/worker/split.rs). One addition to trunk's shim: a failed load must reach the page. A glue
 * that cannot be fetched fails the module (an error event), and a rejected wasm load is rethrown
 * outside the promise so it is one too (an unhandled rejection in a worker tells the page
 * nothing, and an import waiting on it would wait forever).
 */
export const WORKER_LOADER = (bin) =>
  `import init from "./${bin}.js";init({module_or_path:"./${bin}_bg.wasm"}).catch((e)=>setTimeout(()=>{throw new Error("the engine could not load: "+e);}));`;
