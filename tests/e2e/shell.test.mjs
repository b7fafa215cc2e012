// The lab shell: a tab per lab chosen by ?lab=, each lab working behind its tab, and every
// lab's settings kept in the address bar across tabs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { params, useSite } from './fixture.mjs';
import { screenshotPath, showLab } from './harness.mjs';

// The status line belongs to the Signal map, which may be behind another tab.
const { open } = useSite({ attached: true });

const selected = (page) =>
  page.$$eval('[role="tab"]', (ts) => ts.filter((t) => t.getAttribute('aria-selected') === 'true').map((t) => t.dataset.testid));
const visible = (page, selector) => page.$eval(selector, (e) => !e.closest('[hidden]') && e.offsetParent !== null);

test('tabs switch labs, keep each lab as it was and keep its settings in the URL', async () => {
  const { context, guard, page, errors } = await open('?seed=3&T=24');
  const tabs = await page.$$eval('[role="tab"]', (ts) => ts.map((t) => [t.dataset.testid, t.textContent.trim()]));
  assert.deepEqual(tabs.map((t) => t[0]), ['tab-signal', 'tab-density', 'tab-linkability', 'tab-mobility']);
  // Every lab is built: no tab says it is coming.
  assert.deepEqual(tabs.filter((t) => t[1].includes('coming')), []);
  assert.deepEqual(await selected(page), ['tab-signal']);
  assert.ok(await visible(page, 'canvas.map'));

  // Let the Signal map compute a round, then look at another tab.
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="round-row"]').length > 0, null, { timeout: 90000 });
  await showLab(page, 'density');
  assert.deepEqual(await selected(page), ['tab-density']);
  assert.ok(await visible(page, '[data-testid="density-map"]'));
  assert.equal(await visible(page, '[data-testid="map-canvas"]'), false, 'the Signal map is hidden');
  const onDensity = await params(page);
  assert.equal(onDensity.lab, 'density');
  assert.equal(onDensity.seed, '3', 'the Signal map settings stay in the URL');
  assert.equal(onDensity.T, '24');
  assert.ok(onDensity.path, 'the drawn path stays in the URL');
  // The Density lab runs when its tab first shows, and writes its own keys beside the others.
  await page.waitForSelector('[data-testid="density-error"]', { timeout: 60000 });
  assert.equal((await params(page))['d.B'], '3');
  // The Mobility lab too: its first round, and its keys beside the others.
  await page.click('[data-testid="tab-mobility"]');
  await page.waitForSelector('[data-testid="mob-asr"]', { timeout: 60000 });
  assert.equal((await params(page))['m.method'], 'stgia');
  assert.equal((await params(page))['d.B'], '3', 'the Density settings stay in the URL');
  await page.click('[data-testid="tab-density"]');
  // Leaving the Signal map pauses it (the page opens playing).
  assert.equal(await page.getAttribute('[data-testid="play"]', 'aria-label'), 'Play');
  await page.screenshot({ path: screenshotPath('shell-density') });

  // Arrow keys move along the tabs.
  await page.focus('[data-testid="tab-density"]');
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await selected(page), ['tab-linkability']);
  assert.equal((await params(page)).lab, 'linkability');
  // The Linkability lab runs when its tab first shows, with its own keys beside the others.
  await page.waitForSelector('[data-testid="link-ap"]', { timeout: 60000 });
  assert.equal((await params(page))['l.people'], '60');

  // Back on the Signal map: the same rounds, the same link as before there were tabs.
  const rowsBefore = await page.$$eval('[data-testid="round-row"]', (rs) => rs.map((r) => r.dataset.dlgError));
  await page.click('[data-testid="tab-signal"]');
  assert.deepEqual(await selected(page), ['tab-signal']);
  assert.ok(await visible(page, '[data-testid="map-canvas"]'));
  const back = await params(page);
  assert.equal(back.lab, undefined);
  assert.equal(back.seed, '3');
  assert.equal(back['d.B'], '3', 'the Density settings stay in the URL');
  assert.equal(back['l.split'], 'random', 'the Linkability settings stay in the URL');
  const rowsAfter = await page.$$eval('[data-testid="round-row"]', (rs) => rs.map((r) => r.dataset.dlgError));
  assert.deepEqual(rowsAfter.slice(0, rowsBefore.length), rowsBefore);

  assert.deepEqual(guard.violations, [], 'requests left the origin');
  assert.deepEqual(errors, [], 'the page logged errors');
  await context.close();
});

test('a link opens on the lab it names, and an unknown lab falls back to the Signal map', async () => {
  const a = await open('?lab=mobility&seed=4');
  assert.deepEqual(await selected(a.page), ['tab-mobility']);
  await a.page.locator('#panel-mobility > .side').waitFor({ state: 'attached' });
  assert.ok(await visible(a.page, '[data-testid="mob-map"]'));
  assert.equal((await params(a.page)).seed, '4');
  assert.deepEqual(a.guard.violations, []);
  assert.deepEqual(a.errors, []);
  await a.context.close();

  const b = await open('?lab=nonsense');
  assert.deepEqual(await selected(b.page), ['tab-signal']);
  assert.ok(await visible(b.page, '[data-testid="map-canvas"]'));
  await b.context.close();
});

test('a key nothing reads is named on whichever lab the link opens', async () => {
  for (const [lab, notice] of [
    ['density', 'density-link-notice'],
    ['linkability', 'linkability-link-notice'],
    ['mobility', 'mob-link-notice'],
  ]) {
    const { context, guard, page, errors } = await open(`?lab=${lab}&bogus=1`);
    await page.waitForSelector(`[data-testid="${notice}"]:not(.hidden)`);
    assert.match(await page.textContent(`[data-testid="${notice}"]`), /unknown setting “bogus”/, lab);
    assert.deepEqual(guard.violations, []);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('a lab whose views come late still shows the messages its engine sent before them', async () => {
  // The page's chunk of the Density lab's views comes 4 s late; the worker's chunk and its first
  // results come before it, and are kept for the lab (src/shell/engine.rs).
  const { context, guard, page, errors } = await open('?lab=density', { delayed: { pattern: /\/views-[0-9a-f]+\/split_density_views\.wasm$/, ms: 4000 } });
  assert.equal(await page.locator('[data-testid="density-loading"]').textContent(), 'Loading the Density lab…');
  await page.locator('#panel-density > .side').waitFor({ state: 'attached', timeout: 30000 });
  // The run is not started again: its first results are the ones that came while the views did.
  await page.waitForSelector('[data-testid="density-error"]', { timeout: 30000 });
  assert.match(await page.textContent('[data-testid="density-error"]'), /\d+ m/);
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a lab whose views cannot be fetched says so in its panel, and the other labs still work", async () => {
  // The page's chunk of the Linkability lab's views (src/shell/lab_views.rs), as on a network
  // that drops it.
  const dropped = /\/views-[0-9a-f]+\/split_linkability_views\.wasm$/;
  const { context, guard, page, errors } = await open('?lab=linkability', { unreachable: dropped });
  const notice = page.locator('[data-testid="linkability-not-loaded"]');
  await notice.waitFor({ timeout: 30000 });
  assert.match(await notice.textContent(), /^The Linkability lab could not be loaded \(.+\)\. Try again, or reload the page: your settings are in the address bar\./);
  assert.equal(await notice.getAttribute('role'), 'alert');
  assert.equal(await page.locator('#panel-linkability .side').count(), 0);
  // The Signal map, whose views are in the page's own binary, and the Density lab, whose chunk
  // comes, still work.
  await page.click('[data-testid="tab-signal"]');
  await page.waitForSelector('[data-testid="engine-status"].ready');
  assert.ok(await visible(page, '[data-testid="map-canvas"]'));
  await page.click('[data-testid="tab-density"]');
  await page.waitForSelector('[data-testid="density-error"]', { timeout: 60000 });
  // The network is back: "Try again" fetches the views, and the lab works.
  await context.unroute(dropped);
  await page.click('[data-testid="tab-linkability"]');
  await page.click('[data-testid="linkability-retry"]');
  await page.locator('#panel-linkability > .side').waitFor({ state: 'attached', timeout: 30000 });
  assert.equal(await page.locator('[data-testid="linkability-not-loaded"]').count(), 0);
  assert.deepEqual(guard.violations, []);
  // wasm-split's loader logs the failed fetch; nothing else may be logged.
  assert.deepEqual(errors.filter((e) => !/Failed to fetch|net::ERR_FAILED/.test(e)), []);
  await context.close();
});

test("the glossary, the instructor's panel and the exports come when first asked for; a dropped one says so and comes on Try again", async () => {
  // Their chunks (src/shell/lab_views.rs, later_dialog): the glossary's dropped as on a network
  // that loses it, the instructor's panel's let through.
  const dropped = /\/views-[0-9a-f]+\/split_glossary\.wasm$/;
  const { context, guard, page, errors } = await open('', { unreachable: dropped });
  await page.waitForSelector('[data-testid="engine-status"].ready');
  const asked = (name) => guard.requests.some((r) => new URL(r.url).pathname.endsWith(`/${name}`));
  assert.ok(!asked('split_glossary.wasm') && !asked('split_instructor.wasm'), 'fetched before they were opened');
  await page.click('[data-testid="instructor-toggle"]');
  await page.locator('[data-testid="instructor-url"]').waitFor({ timeout: 30000 });
  assert.ok(asked('split_instructor.wasm'));
  assert.match(await page.inputValue('[data-testid="instructor-url"]'), /^http:\/\/[^?]+\?/);
  await page.click('[data-testid="instructor-toggle"]');
  // The Signal map's CSV and JSON exports come the same way, when first asked for: dropped, the
  // lab's notice says why and nothing is downloaded; let through, the next click downloads.
  const exports = /\/views-[0-9a-f]+\/split_exports\.wasm$/;
  await context.route(exports, (route) => route.abort('failed'));
  await page.click('[data-testid="export-csv"]');
  await page.waitForSelector('[data-testid="notice"]:not(.hidden)');
  assert.match(await page.textContent('[data-testid="notice"]'), /^The export could not be loaded \(.+\)\. Try again, or reload the page\./);
  await context.unroute(exports);
  const [csv] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-csv"]')]);
  assert.equal(csv.suggestedFilename(), 'whereabouts-rounds.csv');
  assert.equal(await page.isVisible('[data-testid="notice"]'), false, 'the notice that the exports did not come stays');
  await page.click('[data-testid="glossary-toggle"]');
  const notice = page.locator('[data-testid="glossary-not-loaded"]');
  await notice.waitFor({ timeout: 30000 });
  assert.match(await notice.textContent(), /^The glossary could not be loaded \(.+\)\. Try again, or reload the page\./);
  assert.equal(await notice.getAttribute('role'), 'alert');
  await context.unroute(dropped);
  await page.click('[data-testid="glossary-retry"]');
  await page.locator('[data-testid="glossary"] dt').first().waitFor({ timeout: 30000 });
  assert.ok((await page.locator('[data-testid="glossary"] dt').count()) > 20);
  assert.equal(await notice.count(), 0);
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors.filter((e) => !/Failed to fetch|net::ERR_FAILED/.test(e)), []);
  await context.close();
});
