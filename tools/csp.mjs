// The page's Content-Security-Policy allows the inline loader script by its hash, so it can
// forbid every other inline script and every other origin. tools/build.mjs calls applyCsp on
// the finished index.html.
import { createHash } from 'node:crypto';

/** The html with the sha256 of each inline script added to the CSP's script-src. */
export function applyCsp(html) {
  const metaRe = /(<meta http-equiv="Content-Security-Policy"\s+content=")([^"]*)(")/;
  const meta = html.match(metaRe);
  if (!meta) throw new Error('no Content-Security-Policy <meta> found; refusing to publish without one');
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
  return html.replace(metaRe, `$1${policy}$3`);
}

