// Bring your own data, as a visitor does it: pick a file with the real file input, drop
// another on the drop zone, watch the map move to it and the rounds follow its timestamps, get
// a clear message for a broken file without losing anything, cancel a huge import, forget the
// data, and never send a byte anywhere. The 100 MB import is import-big.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSite } from './fixture.mjs';
import { captureErrors, guardOrigin, screenshotPath } from './harness.mjs';
import { FILES, iso, bigCsv, origin, originIs, imported } from './files.mjs';

const site = useSite();
const { open } = site;

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
const gpx = (rows) =>
  '<?xml version="1.0"?>\n<gpx version="1.1"><trk><trkseg>\n' +
  rows.map(([t, a, o]) => `<trkpt lat="${a.toFixed(6)}" lon="${o.toFixed(6)}"><time>${iso(t)}</time></trkpt>`).join('\n') +
  '\n</trkseg></trk></gpx>\n';

/** Rows of the per-round table once `count` rounds are attacked (rounds in which the visitor
 * sent no update are rows that say why: they are left out here). */
async function roundsDone(page, count, timeout = 90000) {
  await page.waitForFunction(
    (n) => {
      const rows = [...document.querySelectorAll('[data-testid="round-row"]')].filter((r) => !r.dataset.absent);
      return rows.length >= n && rows.slice(0, n).every((r) => r.dataset.dlgError !== '');
    },
    count,
    { timeout },
  );
  return page.$$eval('[data-testid="round-row"]', (rs) =>
    rs.filter((r) => !r.dataset.absent).map((r) => ({ round: Number(r.dataset.round), truth: [Number(r.dataset.truthE), Number(r.dataset.truthN)], dlgError: Number(r.dataset.dlgError) })),
  );
}

/** Drops `text` as a file called `name` on the drop zone, as a drag from the desktop would. */
async function drop(page, name, text, type) {
  const transfer = await page.evaluateHandle(
    ([n, t, ty]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], n, { type: ty }));
      return dt;
    },
    [name, text, type],
  );
  const zone = page.locator('[data-testid="drop-zone"]');
  await zone.dispatchEvent('dragover', { dataTransfer: transfer });
  await zone.dispatchEvent('drop', { dataTransfer: transfer });
}

test('a file through the file input and one by drag-and-drop run the federation where they are', async () => {
  // The paper's cold start, in which the attack's reach on a walk is known (the warm start's
  // DLG lands farther: Insight I2).
  const { context, guard, page, errors } = await open('?start=cold');
  await originIs(page, '33.64'); // the lab starts on the synthetic campus

  // 1. The real file input: a walk in Zürich, three days with a gap.
  const zurich = walk(47.37, 8.54);
  const path = join(FILES, 'zurich-walk.csv');
  writeFileSync(path, csv(zurich));
  await page.setInputFiles('[data-testid="file-input"]', path);
  await imported(page, 'zurich-walk.csv');
  assert.match(await page.textContent('[data-testid="import-count"]'), /^360 fixes/);
  assert.match(await page.textContent('[data-testid="import-signal"]'), /no signal column.*synthetic signal field/);
  assert.equal(await page.locator('[data-testid="csv-preview"] tbody tr').count(), 5, 'the CSV preview shows rows');
  assert.equal(await page.inputValue('[data-testid="map-lat"]'), '1');
  // On the map: the world moved to Zürich and the trace is drawn.
  await originIs(page, '47.37');
  assert.equal(await page.getAttribute('[data-testid="map-canvas"]', 'data-trace'), '360');
  // Rounds follow the file's days: 4 daily rounds, the visitor silent on day 1.
  await page.waitForFunction(() => /of 4\b/.test(document.querySelector('[data-testid="round-label"]').textContent));
  const rows = await roundsDone(page, 3);
  assert.deepEqual(rows.map((r) => r.round), [0, 2, 3]);
  // The day without fixes is a row that says so.
  assert.match(await page.textContent('[data-testid="round-row"][data-round="1"]'), /No update from you: you have no fixes in this round/);
  // Each round's true centroid is that day's mean position (metres east/north of the origin).
  const [olat, olon] = (await origin(page)).split(' ').map(Number);
  const mPerDeg = (6371008.8 * Math.PI) / 180;
  for (const [d, la, lo] of centroids(zurich)) {
    const row = rows.find((r) => r.round === d);
    const e = (lo - olon) * mPerDeg * Math.cos((olat * Math.PI) / 180);
    const n = (la - olat) * mPerDeg;
    assert.ok(Math.hypot(row.truth[0] - e, row.truth[1] - n) < 15, `day ${d}: ${row.truth} vs ${e},${n}`);
    assert.ok(row.dlgError < 400, `day ${d}: DLG ${row.dlgError} m`);
  }
  await page.screenshot({ path: screenshotPath('data-zurich'), fullPage: true });

  // 2. Drag-and-drop: a GPX walk in Lisbon replaces it.
  await drop(page, 'lisbon.gpx', gpx(walk(38.72, -9.14)), 'application/gpx+xml');
  await imported(page, 'lisbon.gpx');
  await originIs(page, '38.72');
  const lisbon = await roundsDone(page, 3);
  assert.deepEqual(lisbon.map((r) => r.round), [0, 2, 3]);

  // 3. A broken file: a clear message naming the file and the line; nothing is lost.
  const geojson = JSON.stringify({ type: 'FeatureCollection', features: walk(10, 10).map(([t, a, o]) => ({ type: 'Feature', properties: { time: iso(t) }, geometry: { type: 'Point', coordinates: [o, a] } })) }, null, 1);
  await drop(page, 'broken.geojson', geojson.slice(0, 2000), 'application/geo+json');
  await page.waitForSelector('[data-testid="import-error"]');
  const message = await page.textContent('[data-testid="import-error"]');
  assert.match(message, /^broken\.geojson, line \d+: the file ends early \(truncated JSON\)/);
  assert.match(message, /previous data is still loaded/);
  assert.match(await page.textContent('[data-testid="import-report"]'), /lisbon\.gpx/);
  assert.match(await origin(page), /^38\.72/);
  assert.equal((await roundsDone(page, 3)).length, lisbon.length);
  // Sub-sampling re-reads the loaded file (Lisbon), not the one that failed.
  await page.selectOption('[data-testid="thin"]', '300');
  await page.waitForFunction(() => /of 360 read, sub-sampled/.test(document.querySelector('[data-testid="import-report"]')?.textContent ?? ''));
  assert.match(await page.textContent('[data-testid="import-report"]'), /^lisbon\.gpx/);
  assert.match(await page.textContent('[data-testid="import-count"]'), /^120 fixes/);

  // 4. Forget: the data is gone and the drawn path is back on the campus.
  await page.click('[data-testid="forget"]');
  await page.waitForFunction(() => !document.querySelector('[data-testid="import-report"]'));
  await originIs(page, '33.64');
  assert.equal(await page.getAttribute('[data-testid="map-canvas"]', 'data-trace'), '0');
  assert.ok(await page.isVisible('[data-testid="path-stats"]'));

  assert.deepEqual(guard.violations, [], 'no request left the origin');
  assert.ok(guard.requests.some((r) => r.url.endsWith('.wasm')), 'the guard saw the page load');
  assert.deepEqual(errors, []);
  await context.close();
});

test('files as real apps write them: local day-first times with a zone, decimal commas, UTF-16, no GPS fix, a huge field', async () => {
  const { context, guard, page, errors } = await open();
  const file = (name, buffer) => page.setInputFiles('[data-testid="file-input"]', { name, mimeType: 'text/csv', buffer });
  // A European spreadsheet: semicolons, decimal commas, day-first local times, a zone column.
  const rows = [];
  for (let i = 0; i < 60; i++) {
    const [h, m] = [8 + Math.floor((30 + i) / 60), (30 + i) % 60].map((x) => String(x).padStart(2, '0'));
    const comma = (x) => x.toFixed(4).replace('.', ',');
    rows.push(`04.03.2024 ${h}:${m}:00;${comma(47.37 + i * 1e-4)};${comma(8.54 + i * 1e-4)};+01:00;-95,5`);
  }
  const european = 'Datum;Breite;Länge;Zone;RSRP\n' + rows.join('\n') + '\n';
  await file('logger.csv', Buffer.from(european));
  await imported(page, 'logger.csv');
  const report = () => page.textContent('[data-testid="import-report"]');
  // 08:30 at +01:00 is 07:30 UTC.
  assert.match(await report(), /2024-03-04 07:30 to/);
  assert.equal(await page.inputValue('[data-testid="map-zone"]'), '3');
  assert.equal(await page.inputValue('[data-testid="map-signal"]'), '4');
  // Without the zone column the same times are read as UTC.
  await page.selectOption('[data-testid="map-zone"]', 'none');
  await page.waitForFunction(() => /2024-03-04 08:30 to/.test(document.querySelector('[data-testid="import-report"]')?.textContent ?? ''));
  // Slashed dates that cannot tell: day first, said, and the visitor can switch.
  await file('slashes.csv', Buffer.from('time,lat,lon\n04/03/2024 07:30,47.37,8.54\n05/03/2024 07:30,47.38,8.55\n'));
  await imported(page, 'slashes.csv');
  assert.match(await report(), /2024-03-04 07:30 to 2024-03-05/);
  assert.match(await report(), /read as day first/);
  await page.selectOption('[data-testid="map-dates"]', 'month_first');
  await page.waitForFunction(() => /2024-04-03 07:30 to 2024-05-03/.test(document.querySelector('[data-testid="import-report"]')?.textContent ?? ''));
  // UTF-16 with a byte-order mark, as spreadsheets save "Unicode text".
  const text = 'time,lat,lon\n2024-03-04T07:30:00Z,47.37,8.54\n2024-03-04T07:31:00Z,47.371,8.541\n';
  await file('unicode.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
  await imported(page, 'unicode.csv');
  assert.match(await page.textContent('[data-testid="import-count"]'), /^2 fixes/);
  // A logger without a GPS fix: refused, saying why; the data before stays.
  await file('nofix.csv', Buffer.from('time,lat,lon\n2024-03-04T07:30:00Z,0,0\n2024-03-04T07:31:00Z,0,0\n'));
  await page.waitForSelector('[data-testid="import-error"]');
  assert.match(await page.textContent('[data-testid="import-error"]'), /^nofix\.csv: every one of the 2 points is at 0°, 0°.*no GPS fix/);
  assert.match(await report(), /unicode\.csv/);
  // A 5 MB field is cut, with its length: the page stays a page.
  const huge = 'x'.repeat(5_000_000);
  await file('huge.csv', Buffer.from(`time,lat,lon\n${huge},47.37,8.54\n2024-03-04T07:31:00Z,47.371,8.541\n`));
  await page.waitForFunction(() => /huge\.csv/.test(document.querySelector('[data-testid="import-error"]')?.textContent ?? ''));
  const message = await page.textContent('[data-testid="import-error"]');
  assert.ok(message.length < 600 && message.includes('(5000000 characters)'), message.slice(0, 300));
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(height < 6000, `page height ${height}`);
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('importing works offline, after a cancel too; a sample offline says why in plain words', async () => {
  const { context, guard, page, errors } = await open();
  await page.waitForSelector('[data-testid="drop-zone"][data-reader="ready"]');
  // The worker's simd128 kernel has come (src/worker/simd.rs): going offline before it does
  // leaves the scalar kernel, and the chunk loader logs the failed fetch.
  await page.waitForSelector('[data-testid="engine-status"][data-kernel="simd128"]', { state: 'attached' });
  await context.setOffline(true);
  const path = join(FILES, 'offline-walk.csv');
  writeFileSync(path, csv(walk(47.37, 8.54)));
  await page.setInputFiles('[data-testid="file-input"]', path);
  await imported(page, 'offline-walk.csv');
  assert.match(await page.textContent('[data-testid="import-count"]'), /^360 fixes/);
  // Cancel terminates the import worker; the next file still imports (in a new import worker
  // if the browser could start one offline, else in the engine worker).
  await page.setInputFiles('[data-testid="file-input"]', bigCsv(30));
  await page.waitForSelector('[data-testid="import-progress"]');
  await page.click('[data-testid="import-cancel"]');
  await page.waitForSelector('[data-testid="import-cancelled"]');
  await page.setInputFiles('[data-testid="file-input"]', { name: 'after-cancel.gpx', mimeType: 'application/gpx+xml', buffer: Buffer.from(gpx(walk(38.72, -9.14))) });
  await imported(page, 'after-cancel.gpx');
  await page.waitForFunction(() => document.querySelector('[data-testid="drop-zone"]').dataset.reader !== 'starting');
  console.log(`after the cancel, files are read by: ${await page.getAttribute('[data-testid="drop-zone"]', 'data-reader')}`);
  // A sample is a file of the site: offline it cannot come, and the page says so plainly.
  await page.click('text=A week on campus (GPX)');
  await page.waitForSelector('[data-testid="import-error"]');
  const message = await page.textContent('[data-testid="import-error"]');
  assert.match(message, /^campus-week\.gpx: could not load the sample: this page cannot reach its site \(are you offline\?\)/);
  assert.ok(message.length < 400 && !/TypeError|at |wasm/.test(message), message);
  assert.match(await page.textContent('[data-testid="import-report"]'), /after-cancel\.gpx/);
  await context.setOffline(false);
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to load resource|could not load/.test(e)), []);
  await context.close();
});

test("the importer's code comes after the lab's first run; if it cannot come, the import says why, and going back online or the next file asks again", async () => {
  // The site's build fetches the importer (CSV, GPX, GeoJSON, times) as a chunk of the worker
  // (src/worker/import.rs): asked for once the lab's first run is done, by the import worker
  // and the engine worker, so that a file dropped later imports at once, offline too.
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const guard = await guardOrigin(context, new URL(site.url).origin);
  let page;
  let failing = true;
  // Whether the lab's summary had read "After N rounds" (its first run done) each time the
  // chunk was asked for (the run goes on after that, so the summary may read otherwise by then).
  await context.addInitScript(() => {
    const check = () => {
      const t = document.querySelector('[data-testid="summary"]')?.textContent ?? '';
      if (/^After \d+ rounds?:/.test(t)) window.__firstRunDone = true;
    };
    new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true });
  });
  const asked = [];
  await context.route(/\/split_import\.wasm$/, async (route) => {
    asked.push(await page.evaluate(() => window.__firstRunDone === true).catch((e) => `(${e.message})`));
    if (failing) await route.abort('failed');
    else await route.continue();
  });
  page = await context.newPage();
  const errors = captureErrors(page);
  await page.goto(site.url);
  await page.waitForFunction(() => /^After \d+ rounds?:/.test(document.querySelector('[data-testid="summary"]')?.textContent ?? ''), null, { timeout: 90000 });
  for (let i = 0; i < 300 && asked.length < 2; i++) await page.waitForTimeout(100);
  assert.ok(asked.length >= 2, `the import worker and the engine worker each ask for the importer: asked ${asked.length} times`);
  assert.ok(asked.every((done) => done === true), `the importer was asked for before the first run was done: ${JSON.stringify(asked)}`);
  assert.equal(await page.getAttribute('[data-testid="drop-zone"]', 'data-reader'), 'starting', 'no importer, yet the drop zone says ready');
  // A file now: the import worker asks again, fails, and says why; nothing the lab had changes.
  await page.setInputFiles('[data-testid="file-input"]', { name: 'no-importer.csv', mimeType: 'text/csv', buffer: Buffer.from(csv(walk(47.37, 8.54))) });
  await page.waitForSelector('[data-testid="import-error"]');
  assert.match(await page.textContent('[data-testid="import-error"]'), /^no-importer\.csv: the importer's code could not be loaded \(.+\); check the connection and try again/);
  assert.equal(await page.$('[data-testid="import-report"]'), null);
  // The network is back: the browser says so, the workers ask again, and the importer comes
  // without a file.
  failing = false;
  const before = asked.length;
  await page.evaluate(() => window.dispatchEvent(new Event('online')));
  await page.waitForSelector('[data-testid="drop-zone"][data-reader="ready"]', { timeout: 30000 });
  assert.ok(asked.length > before, 'going back online asked for nothing');
  await page.setInputFiles('[data-testid="file-input"]', { name: 'back.csv', mimeType: 'text/csv', buffer: Buffer.from(csv(walk(47.37, 8.54))) });
  await imported(page, 'back.csv');
  assert.match(await page.textContent('[data-testid="import-count"]'), /^360 fixes/);
  assert.deepEqual(guard.violations, []);
  // (The chunk loader logs each failed fetch.)
  assert.deepEqual(errors.filter((e) => !/Failed to load resource|Failed to fetch|split_import/.test(e)), []);
  await context.close();
});

test('a sample loads from the site itself; the phone layout has no sideways scroll', async () => {
  const { context, guard, page, errors } = await open('', { viewport: { width: 390, height: 844 } });
  await page.click('[data-testid="sample-signal-log.csv"]');
  await imported(page, 'signal-log.csv');
  assert.match(await page.textContent('[data-testid="import-signal"]'), /comes from your file/);
  assert.equal(await page.inputValue('[data-testid="map-signal"]'), '3');
  await roundsDone(page, 1);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `sideways scroll of ${overflow}px`);
  await page.screenshot({ path: screenshotPath('data-phone'), fullPage: true });
  assert.ok(guard.requests.some((r) => r.url.endsWith('/samples/signal-log.csv')));
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors, []);
  await context.close();
});

