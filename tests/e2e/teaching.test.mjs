// Teaching (shell/instructor.rs, www/sw.js): the instructor's link and its QR code, hide flags
// that never hide a readout (every flag of every lab, through the instructor's own link),
// present mode, and a lecture hall with no network: after one visit the site reloads and runs
// with the server stopped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../tools/serve.mjs';
import { mobilityFigures } from './figures.mjs';
import { params, useSite } from './fixture.mjs';
import { DIST, captureErrors, guardOrigin, screenshotPath, showLab } from './harness.mjs';

const site = useSite({ attached: true });
const { open } = site;

/** Each lab's readouts: what a student must still see with every control hidden. */
const READOUTS = {
  signal: ['summary', 'round-label', 'closest-attack', 'median-error', 'analytic-error', 'emd', 'diverged', 'rmse', 'rounds-table', 'map-canvas'],
  density: ['density-guess-card', 'density-utility-card', 'density-city-card', 'density-summary'],
  linkability: ['link-rank-card', 'link-ident-card', 'link-model-card', 'link-summary'],
  mobility: ['mob-round-label', 'mob-round-card', 'mob-mean-card', 'mob-points-card', 'mob-utility-card', 'mob-unicity-card', 'mob-summary'],
};

for (const lab of Object.keys(READOUTS)) {
  test(`the instructor's link for ${lab} hides every control and flag, never a readout`, async () => {
    const { context, guard, page, errors } = await open(`?lab=${lab}`);
    await page.click('[data-testid="instructor-toggle"]');
    await page.check('[data-testid="instructor-hide-all"]');
    for (const box of await page.$$('[data-testid="instructor"] input[data-hide]')) await box.check();
    await page.selectOption('[data-testid="instructor-start"]', `${lab}:2`);
    const link = await page.inputValue('[data-testid="instructor-url"]');
    const url = new URL(link);
    assert.equal(url.origin, new URL(site.url).origin);
    const param = lab === 'signal' ? 'hide' : `${lab[0]}.hide`;
    const hidden = url.searchParams.get(param).split(',');
    assert.ok(hidden.length > 8, hidden.join());
    assert.equal(url.searchParams.get('lesson'), lab);
    assert.equal(url.searchParams.get('step'), '2');
    // The QR code is drawn in the page (an SVG, nothing fetched).
    assert.ok((await page.$eval('[data-testid="qr"] path', (p) => p.getAttribute('d').length)) > 1000);

    // The students' page: every setting and group of controls hidden, every readout there.
    await page.goto(link);
    await page.waitForSelector('[data-testid="lesson"][data-step="2"]');
    const panel = page.locator(`#panel-${lab}`);
    for (const id of READOUTS[lab]) {
      const el = panel.locator(`[data-testid="${id}"]`).first();
      await el.waitFor({ state: 'visible', timeout: 60000 }).catch(() => {});
      assert.equal(await el.isVisible(), true, `${lab}: ${id} must stay visible with ${param}=${hidden.join(',')}`);
    }
    const inputs = await panel.locator('[data-testid^="input-"]').evaluateAll((els) => els.filter((e) => e.offsetParent !== null).map((e) => e.dataset.testid));
    assert.deepEqual(inputs, [], 'every setting is hidden');
    assert.deepEqual(guard.violations, []);
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test('present mode: large type, fewer panels, the keyboard steps the lesson, Escape leaves', async () => {
  const { context, page, errors } = await open('?lesson=density&present=1', { viewport: { width: 1920, height: 1080 } });
  assert.equal(await page.evaluate(() => document.documentElement.hasAttribute('data-present')), true);
  const size = await page.evaluate(() => parseFloat(getComputedStyle(document.documentElement).fontSize));
  assert.ok(size >= 19, `${size}px`);
  assert.equal(await page.isVisible('.site-footer'), false);
  assert.equal(await page.isVisible('#panel-density .studies'), false);
  await page.waitForFunction(() => document.querySelector('[data-testid="density-results"]')?.dataset.idle === 'true', null, { timeout: 60000 });
  await page.screenshot({ path: screenshotPath('present-density-1920') });
  await page.keyboard.press('PageDown');
  await page.waitForSelector('[data-testid="lesson"][data-step="2"]');
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('[data-testid="lesson"][data-step="1"]');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.documentElement.hasAttribute('data-present'));
  assert.equal((await params(page)).present, undefined);
  assert.equal((await params(page)).lesson, 'density', 'the lesson stays');
  assert.equal(await page.isVisible('.site-footer'), true);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a step brings its card into view, and lets the page be once the card stands still (a Tab to Next stays on Next)', async () => {
  const { context, page, errors } = await open('?lesson=mobility', { viewport: { width: 1280, height: 900 } });
  await mobilityFigures(page, 12, 0, 180000);
  // The step scrolled the page down to its card …
  const card = await page.$eval('[data-testid="lesson"]', (l) => l.dataset.card);
  const cardInView = (c) => {
    const r = (document.querySelector(c)?.closest('.card') ?? document.querySelector(c)).getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight + 1;
  };
  await page.waitForFunction(cardInView, card, { timeout: 5000 });
  // … and once its card stands still, moving focus up to the lesson's Next (which scrolls the
  // page, as a Tab does) is not undone by the step's follower, which looks every 0.4 s.
  await page.waitForTimeout(1000);
  await page.focus('[data-testid="lesson-next"]');
  const nextInView = () => page.$eval('[data-testid="lesson-next"]', (b) => { const r = b.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; });
  assert.equal(await nextInView(), true, 'focus brings Next into view');
  assert.equal(await page.evaluate(cardInView, card), false, 'at 1280×900 Next and the card do not fit on one screen');
  await page.waitForTimeout(1500);
  assert.equal(await nextInView(), true, 'the step pulled the page back to its card');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="lesson"][data-step="2"]');
  assert.deepEqual(errors, []);
  await context.close();
});

test('after one visit the site reloads and runs with the server stopped', async () => {
  const own = await startServer(DIST);
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const guard = await guardOrigin(context, new URL(own.url).origin);
  const page = await context.newPage();
  const errors = captureErrors(page);
  await page.goto(`${own.url}?lab=density&d.B=5`);
  await page.waitForSelector('[data-testid="engine-status"].ready', { state: 'attached', timeout: 30000 });
  // The service worker has cached the whole site and controls the page.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
  const cached = await page.evaluate(async () => {
    const names = await caches.keys();
    const cache = await caches.open(names.find((n) => n.startsWith('whereabouts-')));
    return (await cache.keys()).map((r) => new URL(r.url).pathname);
  });
  assert.ok(cached.some((p) => p.endsWith('.wasm')) && cached.some((p) => p.endsWith('worker.js')), cached.join());
  // The importer's chunk, which the workers fetch once the lab's first run is done, has come
  // (src/worker/import.rs): stopping the server before would leave that fetch failing.
  await page.waitForSelector('[data-testid="drop-zone"][data-reader="ready"]', { state: 'attached', timeout: 60000 });
  await own.close();
  const gone = await fetch(own.url).then(() => 'up', () => 'down');
  assert.equal(gone, 'down', 'the server is stopped');
  await page.reload();
  await page.waitForSelector('[data-testid="engine-status"].ready', { state: 'attached', timeout: 30000 });
  // The lab runs: the settings from the address, the server's guesses and the density.
  await page.waitForFunction(() => {
    const r = document.querySelector('[data-testid="density-results"]');
    return r.dataset.idle === 'true' && document.querySelector('[data-testid="density-spearman"]');
  }, null, { timeout: 60000 });
  assert.equal((await params(page))['d.B'], '5');
  // A lesson too, offline.
  await page.click('[data-testid="lessons-menu"] summary');
  await page.click('[data-testid="lesson-link-mobility"]');
  await page.waitForSelector('[data-testid="lesson"][data-lesson="mobility"]');
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors.filter((e) => !/Failed to load resource|ERR_CONNECTION_REFUSED/.test(e)), []);
  await context.close();
});

test('every setting, layer and card of every lab has its explanation, and the glossary has the terms', async () => {
  const { context, page, errors } = await open('?glossary');
  await page.waitForSelector('[data-testid="glossary"]');
  const terms = await page.$$eval('[data-testid="glossary"] dt', (dts) => dts.map((d) => d.textContent));
  for (const term of ['DLG (Deep Leakage from Gradients)', 'Centroid', 'Local batch', 'Reconstruction', 'Update', 'ST-GIA', 'ASR (attack success rate)', 'KDE (kernel density estimation)']) {
    assert.ok(terms.includes(term), `${term} in ${terms.join(' | ')}`);
  }
  // `glossary` is the shell's key, no lab's setting: nothing was ignored.
  assert.equal(await page.isVisible('[data-testid="link-notice"]'), false);
  for (const lab of ['signal', 'density', 'linkability', 'mobility']) {
    await showLab(page, lab);
    const missing = await page.$$eval(`#panel-${lab} :is(.field, .layer, .card)`, (els) =>
      els
        .filter((el) => el.offsetParent !== null && !el.querySelector('.help-toggle'))
        .map((el) => `${el.className}: ${el.textContent.trim().slice(0, 40)}`),
    );
    assert.deepEqual(missing, [], `${lab}: every visible setting, layer and card has a "?"`);
  }
  // Each map says in words what it shows: its canvas is described by the lab's summary.
  for (const [lab, canvas] of [['signal', 'map-canvas'], ['density', 'density-map'], ['mobility', 'mob-map']]) {
    await showLab(page, lab);
    const described = await page.$eval(`[data-testid="${canvas}"]`, (c) => c.getAttribute('aria-describedby'));
    await page
      .waitForFunction((id) => document.getElementById(id)?.textContent.trim().length > 30, described, { timeout: 60000 })
      .catch(async () => assert.fail(`${lab}: ${described} says “${await page.evaluate((id) => document.getElementById(id)?.textContent, described)}”`));
  }
  // A layer's "?" opens its text in the flow.
  await page.click('[data-testid="tab-signal"]');
  await page.click('#help-layer-heat-button');
  assert.match(await page.textContent('#help-layer-heat'), /RSRP, dBm/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a new deploy is offered as a reload, and the reload runs the new version', async () => {
  // A copy of the site to deploy over.
  const { cpSync, mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'whereabouts-deploy-'));
  cpSync(DIST, dir, { recursive: true });
  const own = await startServer(dir);
  const context = await site.browser.newContext();
  const page = await context.newPage();
  const errors = captureErrors(page);
  await page.goto(`${own.url}?lab=density`);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
  const before = await page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith('whereabouts-')));
  assert.equal(before.length, 1);
  assert.equal(await page.isVisible('[data-testid="update-notice"]'), false);
  // The deploy: a new service worker (a new version of the site's files).
  const sw = readFileSync(join(dir, 'sw.js'), 'utf8');
  const version = sw.match(/const VERSION = '([0-9a-f]+)'/)[1];
  writeFileSync(join(dir, 'sw.js'), sw.replace(version, `${version}-next`));
  await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());
  await page.waitForSelector('[data-testid="update-notice"]', { state: 'visible', timeout: 30000 });
  // The page still runs on the old version until the visitor says so.
  assert.deepEqual(await page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith('whereabouts-')).length), 2);
  await Promise.all([page.waitForEvent('load'), page.click('[data-testid="update-notice"] button')]);
  await page.waitForFunction((v) => caches.keys().then((ks) => ks.includes(`whereabouts-${v}-next`) && ks.filter((k) => k.startsWith('whereabouts-')).length === 1), version, { timeout: 30000, polling: 500 });
  assert.equal((await params(page)).lab, 'density', 'the settings stay');
  assert.equal(await page.isVisible('[data-testid="update-notice"]'), false);
  assert.deepEqual(errors, []);
  await context.close();
  await own.close();
});
