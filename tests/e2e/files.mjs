// Files a visitor imports, made on the fly under target/e2e/files/, and the waits that tell
// when the page has read one.
import { mkdirSync, openSync, writeSync, closeSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS } from './harness.mjs';

export const FILES = join(SHOTS, 'files');
mkdirSync(FILES, { recursive: true });

/** An ISO 8601 UTC time, to the second. */
export const iso = (t) => new Date(t * 1000).toISOString().replace('.000Z', 'Z');

/** A CSV of about `mb` megabytes: a random walk, one fix per 10 s (written once, reused). */
export function bigCsv(mb) {
  const path = join(FILES, `big-${mb}mb.csv`);
  if (existsSync(path) && statSync(path).size >= mb * 1e6) return path;
  const fd = openSync(path, 'w');
  writeSync(fd, 'time,lat,lon,rsrp\n');
  let [lat, lon, t, size, seed] = [40.4168, -3.7038, 1_704_067_200, 0, 1];
  const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) - 0.5;
  while (size < mb * 1e6) {
    let chunk = '';
    for (let i = 0; i < 20000; i++) {
      lat += rnd() * 2e-4;
      lon += rnd() * 2e-4;
      t += 10;
      chunk += `${iso(t)},${lat.toFixed(6)},${lon.toFixed(6)},${-96 + Math.round(rnd() * 20)}\n`;
    }
    writeSync(fd, chunk);
    size += chunk.length;
  }
  closeSync(fd);
  return path;
}

export const origin = (page) => page.getAttribute('[data-testid="map-canvas"]', 'data-origin');
/** Waits until the map shows a world whose origin starts with `prefix`. */
export const originIs = (page, prefix, timeout = 60000) =>
  page.waitForFunction((p) => document.querySelector('[data-testid="map-canvas"]').dataset.origin?.startsWith(p), prefix, { timeout });

export async function imported(page, name, timeout = 60000) {
  await page.waitForFunction(
    (n) => document.querySelector('[data-testid="import-report"]')?.textContent.includes(n) &&
      !document.querySelector('[data-testid="import-progress"]'),
    name,
    { timeout },
  );
}
