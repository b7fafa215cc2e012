// The real site, built by `./x build`, in headless Chromium: it renders, its engine worker
// answers, nothing leaves the origin, and it fits a laptop and a phone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSite } from './fixture.mjs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, screenshotPath } from './harness.mjs';

const { open } = useSite();
const openApp = (viewport) => open('', { viewport, scale: 2, ready: false });

test('desktop: renders, the worker round-trips, no request leaves the origin', async () => {
  const { context, guard, page, errors } = await openApp({ width: 1280, height: 800 });
  await page.waitForSelector('[data-testid="engine-status"].ready', { timeout: 20000 });
  const status = await page.textContent('[data-testid="engine-status"]');
  assert.match(status, /Engine \d+\.\d+\.\d+ running in a Web Worker/);
  await page.waitForSelector('[data-testid="engine-status"][data-kernel="simd128"]');
  assert.match(await page.textContent('[data-testid="engine-status"]'), /with wasm SIMD for its attacks$/);

  assert.equal(await page.title(), 'Whereabouts — location leakage in federated learning');
  assert.match(await page.textContent('[data-testid="privacy-badge"]'), /Nothing leaves this tab/);

  // The canvas is drawn at device resolution and is not blank.
  const canvas = await page.evaluate(() => {
    const c = document.querySelector('[data-testid="map-canvas"]');
    const ctx = c.getContext('2d');
    const data = ctx.getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    for (let i = 0; i < data.length; i += 4 * 97) colours.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
    return { w: c.width, cssW: c.clientWidth, colours: colours.size };
  });
  assert.equal(canvas.w, canvas.cssW * 2, 'canvas must be drawn at devicePixelRatio');
  assert.ok(canvas.colours >= 3, `canvas looks blank (${canvas.colours} colours)`);

  // A worker really ran: its scripts were fetched from our origin.
  assert.ok(guard.requests.some((r) => r.url.endsWith('/worker_loader.js')));
  assert.ok(guard.requests.some((r) => /worker.*\.wasm$/.test(r.url)));
  // The first visit (the Signal map) fetches no other lab's engine and no other lab's views; a
  // lab's tab fetches its own of both when it first shows (src/worker/split.rs: the worker's
  // chunks at the top; src/shell/lab_views.rs: the page's in `views-<hash>/`), and only its own.
  // Chromium has wasm SIMD, so the worker fetches the simd128 DLG kernel's chunk at once
  // (src/worker/simd.rs). The importer's chunks (src/worker/import.rs: its own and those it
  // shares, as wasm-split's loader names them) come once the lab's first run is done
  // (data.test.mjs checks when).
  const loader = readFileSync(join(DIST, '__wasm_split.js'), 'utf8');
  const importer = new Set(['split_import.wasm', ...[...loader.matchAll(/\/\* ([a-z0-9_, ]+) \*\/\s*const __chunk_(\d+)/g)]
    .filter((m) => m[1].split(', ').includes('import'))
    .map((m) => `chunk_${m[2]}.wasm`)]);
  const fetched = () =>
    guard.requests
      .map((r) => new URL(r.url).pathname.split('/').slice(-2).join('/'))
      .filter((p) => /(^|\/)(split_[a-z0-9_]+|chunk_\d+)\.wasm$/.test(p))
      .map((p) => (p.startsWith('views-') ? `views/${p.split('/')[1]}` : p.split('/').pop()));
  const chunks = () => fetched().filter((c) => c !== 'split_simd128.wasm' && !importer.has(c));
  assert.deepEqual(chunks(), [], 'the Signal map fetched another lab\'s engine or views');
  assert.ok(fetched().includes('split_simd128.wasm'), `the worker did not fetch the simd128 kernel: ${JSON.stringify(fetched())}`);
  await page.click('[data-testid="tab-density"]');
  const both = ['split_density.wasm', 'views/split_density_views.wasm'];
  for (let i = 0; i < 100 && !both.every((c) => chunks().includes(c)); i++) await page.waitForTimeout(100);
  for (const c of both) assert.ok(chunks().includes(c), `opening the Density lab fetched ${JSON.stringify(chunks())}`);
  assert.ok(!chunks().some((c) => /split_(linkability|mobility)/.test(c)), `${JSON.stringify(chunks())}`);
  await page.locator('#panel-density .side').waitFor();
  await page.click('[data-testid="tab-signal"]');

  await page.screenshot({ path: screenshotPath('desktop'), fullPage: true });
  assert.deepEqual(guard.violations, [], 'requests left the origin');
  assert.deepEqual(errors, [], 'the page logged errors');
  assert.equal(await page.locator('[data-testid="fatal-banner"]').count(), 0);
  await context.close();
});

test('phone: the lab stacks and still works', async () => {
  const { context, guard, page, errors } = await openApp({ width: 390, height: 844 });
  await page.waitForSelector('[data-testid="engine-status"].ready', { timeout: 20000 });
  const box = await page.locator('[data-testid="map-canvas"]').boundingBox();
  assert.ok(box.width <= 390 && box.width > 300, `map width ${box.width} on a 390 px screen`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth > innerWidth);
  assert.equal(overflow, false, 'the page scrolls sideways on a phone');
  // A compact header: the tabs start within the first 150 px of an 844 px screen (330 px once).
  const tabs = await page.locator('[data-testid="tab-signal"]').boundingBox();
  assert.ok(tabs.y < 150, `the tabs start ${tabs.y} px down`);
  // Every map's legend (and the Density lab's layer picker) folds under its map, covering none of it.
  for (const [lab, canvas, extra] of [
    ['signal', 'map-canvas', null],
    ['density', 'density-map', '.show-picker'],
    ['mobility', 'mob-map', null],
  ]) {
    await page.click(`[data-testid="tab-${lab}"]`);
    const map = await page.locator(`#panel-${lab} [data-testid="${canvas}"]`).boundingBox();
    for (const selector of ['.legend', extra].filter(Boolean)) {
      const below = await page.locator(`#panel-${lab} .map-panel ${selector}`).boundingBox();
      assert.ok(below.y >= map.y + map.height - 1, `${lab}: ${selector} at ${below.y} px, the map ends at ${map.y + map.height} px`);
    }
  }
  await page.click('[data-testid="tab-signal"]');
  await page.screenshot({ path: screenshotPath('phone'), fullPage: true });
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('at 1280 px no choice box cuts its own text, in any lab', async () => {
  for (const lab of ['signal', 'density', 'linkability', 'mobility']) {
    const { context, page } = await open(`?lab=${lab}`, { viewport: { width: 1280, height: 800 }, ready: false });
    // The status line is the Signal map's, hidden behind the other tabs.
    await page.waitForSelector('[data-testid="engine-status"].ready', { state: 'attached', timeout: 20000 });
    // Every option's text as the box draws it, against the box's inner width less its arrow
    // (about 24 px).
    const cut = await page.evaluate(() => {
      const ctx = document.createElement('canvas').getContext('2d');
      return [...document.querySelectorAll('.field > select')]
        .filter((s) => s.offsetParent !== null)
        .map((s) => {
          const style = getComputedStyle(s);
          ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
          const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24;
          return [...s.options].map((o) => o.text).filter((t) => ctx.measureText(t).width > room);
        })
        .flat();
    });
    assert.deepEqual(cut, [], `${lab}: cut at 1280 px`);
    await context.close();
  }
});
