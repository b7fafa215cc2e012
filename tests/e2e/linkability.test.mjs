// The Linkability lab as a visitor uses it: open it, let the federation and the server run, read
// where your new device comes in the server's ranking and how far above chance the attack is,
// switch on a mitigation and watch the attack fall — and nothing leaves the origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkabilityFigures as figures } from './figures.mjs';
import { params, useSite } from './fixture.mjs';
import { screenshotPath } from './harness.mjs';

// The status line belongs to the Signal map, behind its tab.
const { open } = useSite({ attached: true });

test('"You are: your file" without a file shows one message in place of the results', async () => {
  const { context, guard, page, errors } = await open('?lab=linkability&l.you=file');
  await page.waitForFunction(() => /choose or drop one/.test(document.querySelector('[data-testid="linkability-notice"]').textContent));
  assert.equal(await page.locator('[data-testid="link-rank-card"]').isVisible(), false, 'no card waits for ever');
  assert.equal(await page.locator('[data-testid="link-updates-map"]').isVisible(), false, 'no empty scatter');
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('run the lab, read your rank and the AP, switch on a mitigation and see the AP fall', async () => {
  const { context, guard, page, errors } = await open('?lab=linkability');
  const first = await figures(page);
  // 60 people: the MLP on the last layer's updates links people far above chance.
  assert.equal(first.of, 60, JSON.stringify(first));
  assert.ok(first.rank >= 1 && first.rank <= 60, JSON.stringify(first));
  assert.ok(first.overChance > 4, JSON.stringify(first));
  assert.equal(first.yours, 1, 'your new device is marked in the ranking');
  assert.ok(first.points > 2000, 'every update is on the map');
  assert.match(first.summary, new RegExp(`ranks your new device ${first.rank} of 60`));
  // The confusion's rows and columns and its shades are named on screen.
  assert.match(await page.textContent('[data-testid="link-confusion-scale"]'), /^Rows: whose new device .* columns: whom the attack named first .* Shade:/);
  await page.screenshot({ path: screenshotPath('linkability-laptop'), fullPage: true });

  // Every device swaps all of its measurements for background ones: nothing of anyone is left.
  await page.selectOption('[data-testid="input-l.mitigation"]', 'bkg-repl');
  await page.fill('[data-testid="input-l.beta"]', '1');
  await page.press('[data-testid="input-l.beta"]', 'Enter');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('l.beta') === '1');
  let mitigated = await figures(page, first.run);
  // The run that the select started may finish first: wait for the one with β = 1.
  if (mitigated.run < first.run + 2) mitigated = await figures(page, mitigated.run);
  assert.ok(mitigated.overChance < first.overChance / 2, `${JSON.stringify(first)} → ${JSON.stringify(mitigated)}`);
  assert.ok(mitigated.overChance < 3, JSON.stringify(mitigated));
  const p = await params(page);
  assert.equal(p['l.mitigation'], 'bkg-repl');
  assert.equal(p.lab, 'linkability');

  // A bad value is refused with its name, and the run stays.
  await page.fill('[data-testid="input-l.people"]', '5000');
  await page.press('[data-testid="input-l.people"]', 'Enter');
  assert.match(await page.textContent('[data-testid="error-l.people"]'), /^People: must be a whole number from 4 to 400 \(not 5000\)/);
  assert.equal((await params(page))['l.people'], '60');

  assert.deepEqual(guard.violations, [], 'requests left the origin');
  assert.deepEqual(errors, [], 'the page logged errors');
  await context.close();
});

test('?l.sees=sum: one message says what the server holds, and no attack figure shows', async () => {
  const { context, guard, page, errors } = await open('?lab=linkability&l.sees=sum');
  await page.waitForFunction(() => document.querySelector('[data-testid="link-results"]')?.dataset.idle === 'true', null, { timeout: 180000 });
  // 28 rounds: one sum each, every update of every device summed and none kept.
  assert.equal(await page.getAttribute('[data-testid="link-round-sums"]', 'data-sums'), '28');
  const message = await page.textContent('[data-testid="link-sum-card"]');
  assert.match(message, /holds no update of any device: nothing to train its attack on, nothing to attribute/);
  assert.match(message, /whereabouts reproduce --lab linkability --study secure-sum/);
  for (const id of ['link-rank-card', 'link-ident-card', 'link-match-card', 'link-ranking', 'link-updates-map', 'link-confusion']) {
    assert.equal(await page.locator(`[data-testid="${id}"]`).isVisible(), false, `${id} is not shown`);
  }
  // The attack's own settings give way; the federation's model is still there.
  assert.equal(await page.locator('[data-testid="input-l.attack"]').isVisible(), false);
  assert.equal(await page.locator('[data-testid="link-rmse"]').isVisible(), true);
  assert.match(await page.textContent('[data-testid="link-summary"]'), /holds 28 round sums and no update of any device/);
  assert.equal((await params(page))['l.sees'], 'sum');
  await page.locator('[data-testid="link-results"]').screenshot({ path: screenshotPath('linkability-sum') });
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('"Run again" repeats the run to the number; "New draw" takes the next seed', async () => {
  const { context, guard, page, errors } = await open('?lab=linkability&l.people=20&l.seed=5');
  const first = await figures(page);
  await page.click('[data-testid="link-run-again"]');
  const again = await figures(page, first.run);
  assert.deepEqual({ ...again, run: 0 }, { ...first, run: 0 }, 'the same seed gives the same run');
  await page.click('[data-testid="link-new-draw"]');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('l.seed') === '6');
  const drawn = await figures(page, again.run);
  assert.notDeepEqual({ ...drawn, run: 0 }, { ...first, run: 0 }, 'another seed, another run');
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the trade-off study runs in the worker with progress, and cancels', async () => {
  const { context, guard, page, errors } = await open('?lab=linkability&l.people=12&l.rounds=8&l.epochs=5');
  await figures(page);
  await page.click('[data-testid="link-study-run"]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="link-study-row"]').length >= 3, null, { timeout: 60000 });
  await page.click('[data-testid="link-study-cancel"]');
  await page.waitForFunction(() => /^Cancelled after \d+ of 16 runs/.test(document.querySelector('[data-testid="link-study-status"]').textContent));
  const rows = await page.$$eval('[data-testid="link-study-row"]', (rs) => rs.map((r) => [r.dataset.mitigation, Number(r.dataset.overChance)]));
  assert.equal(rows[0][0], 'none');
  assert.equal(rows[1][0], 'noise');
  assert.ok(rows.every(([, x]) => x > 0), JSON.stringify(rows));
  assert.ok(await page.isVisible('[data-testid="link-study-chart"]'));
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('you as your own file or your drawn path; on a phone', async () => {
  const { context, guard, page, errors } = await open('?lab=linkability&l.people=20&l.rounds=10&l.you=drawn', {
    viewport: { width: 390, height: 844 },
    scale: 2,
    touch: true,
  });
  // The path the Signal map holds (its default week until you draw): your routine, every week.
  const drawn = await figures(page);
  assert.equal(drawn.of, 20);
  const walked = await page.$$eval('[data-testid="link-note"]', (ns) => ns.map((n) => n.textContent));
  assert.ok(walked.some((n) => /Your path is your routine: walked 2 times over the 10 rounds/.test(n)), JSON.stringify(walked));
  // A sample file: you are your file, placed, and split over your two devices.
  await page.click('[data-testid="sample-campus-week.gpx"]');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('l.you') === 'file');
  const f = await figures(page, drawn.run);
  assert.equal(f.of, 20);
  assert.ok(f.points > 300, JSON.stringify(f));
  const notes = await page.$$eval('[data-testid="link-note"]', (ns) => ns.map((n) => n.textContent));
  assert.ok(notes.some((n) => /Your devices use \d+ of your \d+ measurements/.test(n)), JSON.stringify(notes));
  // Both canvases are drawn on the phone too (a canvas laid out after its data came has no size
  // when the data comes): the confusion's blue cells, the map's dots.
  const inked = (id) =>
    page.$eval(`[data-testid="${id}"]`, (c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 40) n++;
      return n;
    });
  await page.waitForFunction(() => document.querySelector('[data-testid="link-confusion"]').width > 0);
  assert.ok((await inked('link-confusion')) > 50, 'the confusion is drawn');
  assert.ok((await inked('link-updates-map')) > 500, 'the map of updates is drawn');
  await page.screenshot({ path: screenshotPath('linkability-phone'), fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `sideways scroll of ${overflow}px`);
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors, []);
  await context.close();
});
