// The download's size budget: gzips (level 9, as a static host serves it) every file the first
// visit fetches before its first results, prints each beside its budget, and fails when one
// has grown past it. `./x test` runs it on the built site; BENCHMARKS.md "Download size"
// records the figures and why each budget is where it is.
//
//   node tools/size.mjs [dist]
//
// The budgets (tools/size-budget.json) are ceilings on growth, set a little above the sizes
// measured when they were last raised: a change that makes a binary bigger than its budget must
// raise the budget in the same commit, and say why in BENCHMARKS.md. `target` is the first
// load the project aims for (issue #41: 750 KB in all); it is reported, not enforced, until it is
// met. What comes later (a lab's chunks when it first opens, the panels', secure aggregation's,
// the importer's once the first run is done: see "What comes after the first load" below) is
// reported after the first load, under a ceiling of its own (`later`).
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = process.argv[2] ?? join(ROOT, 'dist');
const budget = JSON.parse(readFileSync(join(ROOT, 'tools', 'size-budget.json'), 'utf8'));

let names;
try {
  // The site's files, with those of the page's views folder as `views-<hash>/<file>`.
  names = readdirSync(DIST, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() && /^views-[0-9a-f]+$/.test(e.name) ? readdirSync(join(DIST, e.name)).map((f) => `${e.name}/${f}`) : [e.name],
  );
} catch (e) {
  console.error(`size: cannot read the built site at ${DIST} (${e.code ?? e.message}); build it first (./x build)`);
  process.exit(1);
}
// The site's files by their role; the page's names carry a content hash.
const role = {
  'page wasm': (n) => /^whereabouts-web-[0-9a-f]+_bg\.wasm$/.test(n),
  // The page's glue, and the loader of its views' chunks, which the glue imports.
  'page js': (n) => /^whereabouts-web-[0-9a-f]+\.js$/.test(n) || /^views-[0-9a-f]+\/__wasm_split\.js$/.test(n),
  'worker wasm': (n) => n === 'worker_bg.wasm',
  // Fetched at the worker's start where the browser has SIMD (src/worker/simd.rs): part of the
  // first load there.
  'simd128 kernel': (n) => n === 'split_simd128.wasm',
  'worker js': (n) => n === 'worker.js' || n === 'worker_loader.js' || n === '__wasm_split.js',
  'html and css': (n) => n === 'index.html' || /^style-[0-9a-f]+\.css$/.test(n),
};
const kb = (bytes) => (bytes / 1000).toFixed(1);
// A file's size gzipped at level 9.
const gzOf = (f) => gzipSync(readFileSync(join(DIST, f)), { level: 9 }).length;
const rows = [];
let total = 0;
let over = false;
for (const [what, matches] of Object.entries(role)) {
  const files = names.filter(matches);
  if (files.length === 0) {
    console.error(`size: no ${what} in ${DIST} (files: ${names.join(', ')})`);
    process.exit(1);
  }
  const raw = files.reduce((s, f) => s + readFileSync(join(DIST, f)).length, 0);
  const gz = files.reduce((s, f) => s + gzOf(f), 0);
  const limit = budget.budgets[what];
  if (limit === undefined) {
    console.error(`size: tools/size-budget.json has no budget for "${what}"`);
    process.exit(1);
  }
  total += gz;
  const fits = gz <= limit * 1000;
  over ||= !fits;
  rows.push(`${what.padEnd(14)} ${kb(raw).padStart(8)} KB raw ${kb(gz).padStart(7)} KB gzipped  budget ${String(limit).padStart(4)} KB${fits ? '' : '  OVER'}`);
}
console.log(rows.join('\n'));
const totalFits = total <= budget.budgets.total * 1000;
over ||= !totalFits;
console.log(
  `first load     ${kb(total).padStart(24)} KB gzipped  budget ${String(budget.budgets.total).padStart(4)} KB${totalFits ? '' : '  OVER'}` +
    `  (target ${budget.target} KB: ${total <= budget.target * 1000 ? 'met' : `${kb(total - budget.target * 1000)} KB to go`})`,
);
// What comes after the first load: what a lab fetches when it first opens (the worker's chunks
// of its engine, src/worker/split.rs, and the page's chunks of its views, src/shell/lab_views.rs,
// one per lab and the code two labs share), the panels that come when first opened, secure
// aggregation's protocol, and the importer (src/worker/import.rs: asked for once the lab's
// first run is done). Not part of the first load, but under a ceiling of its own so that it
// does not grow unseen.
const later = names.filter((n) => /^(views-[0-9a-f]+\/)?(split_[a-z_]+|chunk_\d+)\.wasm$/.test(n) && !role['simd128 kernel'](n));
const views = later.filter((f) => f.startsWith('views-'));
const stray = names.filter(
  (n) => n.endsWith('.wasm') && !later.includes(n) && !['page wasm', 'worker wasm', 'simd128 kernel'].some((r) => role[r](n)),
);
if (stray.length > 0) {
  console.error(`size: ${stray.join(', ')} in ${DIST}: a binary this check does not know (tools/size.mjs)`);
  process.exit(1);
}
const laterSize = new Map(later.map((f) => [f, gzOf(f)]));
const laterGz = later.reduce((s, f) => s + laterSize.get(f), 0);
const laterFits = laterGz <= budget.budgets.later * 1000;
over ||= !laterFits;
// "density 116.8, linkability 46.7, …, shared 5.9" for one side's chunks.
const split = (files) => {
  const base = (f) => f.slice(f.lastIndexOf('/') + 1);
  const each = files.filter((f) => base(f).startsWith('split_')).map((f) => `${base(f).slice(6, -5).replace(/_views$/, '')} ${kb(laterSize.get(f))}`);
  const shared = files.filter((f) => base(f).startsWith('chunk_')).reduce((s, f) => s + laterSize.get(f), 0);
  return `${each.join(', ')}, shared ${kb(shared)}`;
};
console.log(
  `fetched later  ${kb(laterGz).padStart(24)} KB gzipped  budget ${String(budget.budgets.later).padStart(4)} KB${laterFits ? '' : '  OVER'}` +
    `  (engines: ${split(later.filter((f) => !views.includes(f)))}; views: ${split(views)})`,
);
if (over) {
  console.error('size: the download grew past its budget (tools/size-budget.json): make it smaller, or raise the budget and say why in BENCHMARKS.md');
  process.exit(1);
}
