// The Density lab as a visitor uses it: drag your place on the map with real pointer events,
// read the server's guess and the density's figures off the page, change B and watch the
// trade-off move, share the link — and nothing leaves the origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { params, useSite } from './fixture.mjs';
import { screenshotPath } from './harness.mjs';

// The status line belongs to the Signal map, behind its tab.
const { open } = useSite({ attached: true });

/** The figures once a run after `after` (its number) is idle: the visitor's error, ρ, the
 * city's median error, the peaks as high as the visitor's, and the run's number. */
async function figures(page, after = 0, timeout = 60000) {
  await page.waitForFunction(
    (after) => {
      const r = document.querySelector('[data-testid="density-results"]');
      return Number(r.dataset.run) > after && r.dataset.idle === 'true' && document.querySelector('[data-testid="density-error"]');
    },
    after,
    { timeout },
  );
  return page.evaluate(() => ({
    run: Number(document.querySelector('[data-testid="density-results"]').dataset.run),
    error: Number(document.querySelector('[data-testid="density-error"]').dataset.error),
    rho: Number(document.querySelector('[data-testid="density-spearman"]').dataset.value),
    median: Number(document.querySelector('[data-testid="density-median"]').dataset.value),
    rivals: Number(document.querySelector('[data-testid="density-rivals"]')?.dataset.rivals ?? NaN),
  }));
}
const places = (page) =>
  page.$eval('[data-testid="density-map"]', (c) => c.dataset.places.split(';').map((p) => p.split(' ').map(Number)));

test('drag your place, read the guess and the density, change B, run the study, share the link', async () => {
  const { context, guard, page, errors } = await open('?lab=density');
  const first = await figures(page);
  // B = 3 by default: the city's density is a fair map, and peak picking finds most people.
  assert.ok(first.rho > 0.3 && first.rho < 0.95, JSON.stringify(first));
  assert.ok(Number.isFinite(first.error));
  assert.ok((await params(page))['d.places'], 'the places are in the link');
  // The colour scales carry numbers: the upload's range, the density's peak in people per km².
  assert.match(await page.textContent('[data-testid="density-scale-upload"]'), /high \(\+\d+\.\d\d\) · low \(−\d+\.\d\d\)/);
  await page.click('[data-testid="density-show-estimate"]');
  const peak = (await page.textContent('[data-testid="density-scale-people"]')).match(/people per km²: 0 · (\d+)/);
  assert.ok(peak && Number(peak[1]) > 0, `the density's scale: ${peak}`);
  await page.click('[data-testid="density-show-upload"]');

  // Drag place 1 across the map with the mouse: the guess follows within the drag.
  const [[x, y]] = await places(page);
  const box = await page.locator('[data-testid="density-map"]').boundingBox();
  await page.mouse.move(box.x + x, box.y + y);
  await page.mouse.down();
  for (let k = 1; k <= 30; k++) await page.mouse.move(box.x + x + 5 * k, box.y + y - 3 * k);
  await page.mouse.up();
  const [[x2, y2]] = await places(page);
  assert.ok(Math.abs(x2 - (x + 150)) < 2 && Math.abs(y2 - (y - 90)) < 2, `${x2},${y2}`);
  const moved = (await params(page))['d.places'];
  assert.notEqual(moved, '-1200_-900,900_700', 'the dragged place is in the link');
  const afterDrag = await figures(page, first.run - 1);
  // The server attacked the upload from the new place: its guess names a point near it or not,
  // but the error is measured from where the place now is.
  const truthE = Number(moved.split(',')[0].split('_')[0]);
  assert.ok(Math.abs(truthE - -1200) > 300, `${moved}`);
  assert.ok(Number.isFinite(afterDrag.error));
  await page.screenshot({ path: screenshotPath('density-laptop') });

  // B = 1: one ridge per phone. The density gets worse, the guesses land farther from people.
  await page.selectOption('[data-testid="input-d.B"]', '1');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('d.B') === '1');
  const one = await figures(page, afterDrag.run);
  assert.ok(one.rho < first.rho, `ρ ${one.rho} vs ${first.rho}`);
  assert.ok(one.median > 10 * first.median, `median ${one.median} vs ${first.median}`);
  // B = 50: a near-exact map, and everyone is found.
  await page.selectOption('[data-testid="input-d.B"]', '50');
  const fifty = await figures(page, one.run);
  assert.ok(fifty.rho > first.rho, `ρ ${fifty.rho} vs ${first.rho}`);
  assert.ok(fifty.median < 100, `median ${fifty.median}`);

  // The study runs every scheme behind the lab: one row a run, the random-features line
  // gaining ρ with B, the own bump a row of its own.
  await page.click('[data-testid="density-study-run"]');
  await page.waitForFunction(() => /^Done: \d+ runs\.$/.test(document.querySelector('[data-testid="density-study-status"]').textContent), null, { timeout: 120000 });
  const rows = await page.$$eval('[data-testid="density-study-row"]', (rs) =>
    rs.map((r) => ({ family: r.dataset.family, rho: Number(r.dataset.spearman) })));
  const total = Number((await page.textContent('[data-testid="density-study-status"]')).match(/\d+/)[0]);
  assert.equal(rows.length, total);
  assert.equal(rows.filter((r) => r.family === 'kde').length, 1);
  const rff = rows.filter((r) => r.family === 'rff');
  assert.ok(rff.at(-1).rho > rff[0].rho, JSON.stringify(rff));

  // The link reproduces the run.
  const link = await page.evaluate(() => location.search);
  const again = await open(link);
  const same = await figures(again.page);
  assert.equal(same.rho, fifty.rho);
  assert.equal(same.error, fifty.error);
  await again.context.close();

  assert.deepEqual(guard.violations, [], 'requests left the origin');
  assert.deepEqual(errors, [], 'the page logged errors');
  await context.close();
});

test('asking again: the kept waves say nothing new, redrawn ones give the place away', async () => {
  const { context, page, errors } = await open('?lab=density&d.B=1&d.N=1500');
  const fixed = await figures(page);
  await page.click('[data-testid="density-ask-again"]');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('d.asks') === '2');
  const fixedTwice = await figures(page, fixed.run);
  assert.equal(fixedTwice.error, fixed.error, 'the same answer, the same guess');

  await page.selectOption('[data-testid="input-d.basis"]', 'redrawn');
  await page.fill('[data-testid="input-d.asks"]', '40');
  await page.press('[data-testid="input-d.asks"]', 'Enter');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('d.asks') === '40');
  const redrawn = await figures(page, fixedTwice.run + 1, 90000);
  assert.ok(redrawn.median < fixed.median / 5, `median ${redrawn.median} vs ${fixed.median}`);

  // An absurd value is refused, named, and the run keeps its settings.
  await page.fill('[data-testid="input-d.N"]', '0');
  await page.press('[data-testid="input-d.N"]', 'Enter');
  const message = await page.textContent('[data-testid="error-d.N"]');
  assert.match(message, /People in the city N: must be a whole number from 1 to 50,000 \(not 0\)/);
  assert.equal((await params(page))['d.N'], '1500');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a stronger server: fitting your waves finds you to the metre, and two answers give your move away', async () => {
  const { context, guard, page, errors } = await open('?lab=density&d.N=2000&d.attack=fit');
  const fit = await figures(page, 0, 90000);
  // B = 3 (the default): the fitted surface's top is the person, far below the grid's 62.5 m.
  assert.ok(fit.median < 1, `fitting: median ${fit.median} m`);
  // Your two places, one basis: the move between them, read off the two answers' phases.
  await page.waitForSelector('[data-testid="density-move"]');
  const move = Number(await page.getAttribute('[data-testid="density-move"]', 'data-error'));
  assert.ok(move < 1, `the move is off by ${move} m`);
  await page.screenshot({ path: screenshotPath('density-fitting') });

  // The paper's peak picking on the same uploads stops at the grid or at a rival peak.
  await page.selectOption('[data-testid="input-d.attack"]', 'peak');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('d.attack') === 'peak');
  const peak = await figures(page, fit.run);
  assert.ok(peak.median > 10 * Math.max(fit.median, 1), `peak ${peak.median} vs fit ${fit.median}`);
  assert.equal(peak.rho, fit.rho, 'the attack does not change the density');
  assert.deepEqual(guard.violations, [], 'requests left the origin');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a phone: the map, your guess and the figures fit the screen', async () => {
  const { context, page, errors } = await open('?lab=density', {
    viewport: { width: 390, height: 844 },
    touch: true,
  });
  await figures(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
  await page.screenshot({ path: screenshotPath('density-phone'), fullPage: false });
  assert.deepEqual(errors, []);
  await context.close();
});
