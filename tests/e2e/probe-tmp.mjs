import { chromium } from 'playwright-core';
import { startServer } from '../../tools/serve.mjs';
import { writeFileSync } from 'node:fs';
import { iso, bigCsv } from './files.mjs';



const DAY = 86400;
const T0 = 1_700_006_400; // 2023-11-15 00:00 UTC

/** A loop walked on days 0, 2 and 3 (none on day 1) around (lat, lon): rows of [t, lat, lon]. */
function walk(lat, lon) {
  const rows = [];
  for (const d of [0, 2, 3]) {
    for (let i = 0; i < 120; i++) {
      const a = (i / 120) * 2 * Math.PI;
      rows.push([T0 + d * DAY + 8 * 3600 + i * 120, lat + 0.004 * Math.sin(a) + d * 1e-3, lon + 0.006 * Math.cos(a)]);
    }
  }
  return rows;
}

/** Each day's true centroid, as the engine computes it (plain mean of lat/lon). */
function centroids(rows) {
  const by = new Map();
  for (const [t, la, lo] of rows) {
    const d = Math.floor((t - T0) / DAY);
    const c = by.get(d) ?? [0, 0, 0];
    by.set(d, [c[0] + la, c[1] + lo, c[2] + 1]);
  }
  return [...by].map(([d, c]) => [d, c[0] / c[2], c[1] / c[2]]);
}


const csv = (rows) => 'time,latitude,longitude\n' + rows.map(([t, a, o]) => `${iso(t)},${a.toFixed(6)},${o.toFixed(6)}`).join('\n') + '\n';

const srv = await startServer(process.cwd() + '/../../dist');
const b = await chromium.launch({ executablePath: '/usr/bin/chromium' });
const ctx = await b.newContext();
const p = await ctx.newPage();
p.on('console', (m) => console.log('console', m.type(), m.text().slice(0, 200)));
p.on('requestfailed', (r) => console.log('failed', r.url()));
await p.goto(srv.url);
const t0 = Date.now();
await p.waitForSelector('[data-testid="drop-zone"][data-reader="ready"]');
console.log('ready after', Date.now() - t0);
await ctx.setOffline(true);
writeFileSync('/tmp/ow.csv', csv(walk(47.37, 8.54)));
await p.setInputFiles('[data-testid="file-input"]', '/tmp/ow.csv');
await p.waitForTimeout(5000);
console.log(await p.textContent('[data-testid="drop-zone"]').catch(() => ''), await p.textContent('[data-testid="import-error"]').catch(() => 'no error'));
console.log(await p.textContent('[data-testid="import-report"]').catch(() => 'no report'));

await p.setInputFiles('[data-testid="file-input"]', bigCsv(30));
await p.waitForSelector('[data-testid="import-progress"]');
await p.click('[data-testid="import-cancel"]');
await p.waitForSelector('[data-testid="import-cancelled"]');
console.log('sw controller', await p.evaluate(() => !!navigator.serviceWorker.controller));
await p.setInputFiles('[data-testid="file-input"]', { name: 'after-cancel.csv', mimeType: 'text/csv', buffer: Buffer.from(csv(walk(38.72, -9.14))) });
await p.waitForTimeout(8000);
console.log('reader', await p.getAttribute('[data-testid="drop-zone"]', 'data-reader'));
console.log(await p.textContent('[data-testid="import-error"]').catch(() => 'no error'));
console.log((await p.textContent('[data-testid="import-report"]').catch(() => 'no report')).slice(0, 100));
await b.close(); process.exit(0);
