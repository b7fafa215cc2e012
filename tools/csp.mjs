// After `trunk build`: allow Trunk's inline loader script by its hash, so the page's
// Content-Security-Policy can forbid every other inline script and every other origin.
//
//   node tools/csp.mjs dist/index.html
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';

const file = process.argv[2] ?? 'dist/index.html';
let html = readFileSync(file, 'utf8');

const metaRe = /(<meta http-equiv="Content-Security-Policy"\s+content=")([^"]*)(")/;
const meta = html.match(metaRe);
if (!meta) {
  console.error(`${file}: no Content-Security-Policy <meta> found; refusing to publish without one`);
  process.exit(1);
}

const hashes = [];
for (const m of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
  hashes.push(`'sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
}

const policy = meta[2]
  .split(';')
  .map((d) => d.trim())
  .filter(Boolean)
  .map((d) => {
    if (!d.startsWith('script-src')) return d;
    const kept = d.split(/\s+/).filter((t) => !t.startsWith("'sha256-"));
    return [...kept, ...hashes].join(' ');
  })
  .join('; ');

html = html.replace(metaRe, `$1${policy}$3`);
writeFileSync(file, html);
console.log(`${file}: CSP allows ${hashes.length} inline script(s) by hash`);
