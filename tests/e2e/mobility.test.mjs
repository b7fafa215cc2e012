// The Mobility lab as a visitor uses it: draw a route on the map with the mouse, play the rounds,
// read the server's success and each position's error off the page, turn on the adaptive
// defence and watch the success fall as the budget bar fills, step through rounds — and nothing
// leaves the origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mobilityFigures as figures } from './figures.mjs';
import { params, useSite } from './fixture.mjs';
import { screenshotPath } from './harness.mjs';

// The status line belongs to the Signal map, behind its tab.
const { open } = useSite({ attached: true });

test('draw a route, play the rounds, read the attack, then the adaptive defence stops it', async () => {
  const { context, guard, page, errors } = await open('?lab=mobility&m.T=12');
  // A new route: nothing to run until it has two waypoints, and the page says so.
  await page.click('[data-testid="mob-new-route"]');
  await page.waitForFunction(() => /Draw your route/.test(document.querySelector('[data-testid="mob-notice"]').textContent));
  const box = await page.locator('[data-testid="mob-map"]').boundingBox();
  for (const [fx, fy] of [[0.3, 0.7], [0.42, 0.5], [0.55, 0.55], [0.68, 0.3]]) {
    await page.mouse.click(box.x + fx * box.width, box.y + fy * box.height);
  }
  assert.match(await page.textContent('[data-testid="mob-route"]'), /^4 waypoints/);
  assert.ok((await params(page))['m.path'], 'the route is in the link');

  const undefended = await figures(page, 12);
  assert.equal(undefended.errors.length, 8, 'every position of the window has its error');
  assert.ok(undefended.errors.every(Number.isFinite), JSON.stringify(undefended.errors));
  // ST-GIA on a route along the streets: most positions found within 500 m.
  assert.ok(undefended.mean > 0.3, `undefended mean ASR ${undefended.mean}`);
  assert.ok(undefended.msPerRound > 0 && undefended.msPerRound < 2000, `${undefended.msPerRound} ms a round`);
  await page.screenshot({ path: screenshotPath('mobility-laptop') });

  // The paper's defence: each round's ε from the risk, out of a total of 10 per km.
  await page.selectOption('[data-testid="input-m.def"]', 'adaptive');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('m.def') === 'adaptive');
  const defended = await figures(page, 12, undefended.run);
  assert.ok(defended.mean < undefended.mean / 2, `ASR ${defended.mean} defended vs ${undefended.mean}`);
  // Most of the budget goes in the first rounds (each takes at least 37% of what is left),
  // and never more than all of it.
  assert.ok(defended.used > 0.9 && defended.used <= 1 + 1e-9, `budget used ${defended.used}`);
  assert.match(await page.textContent('[data-testid="mob-epsilon"]'), /ε_t = /);
  await page.screenshot({ path: screenshotPath('mobility-defended') });

  // Stopped at the end: Restart runs one round, Step one more.
  await page.click('[data-testid="mob-restart"]');
  const one = await figures(page, 1, defended.run);
  await page.click('[data-testid="mob-step"]');
  await figures(page, 2, one.run - 1);
  assert.match(await page.textContent('[data-testid="mob-round-label"]'), /Paused after round 2 of 12/);

  // An absurd value is refused, named, and the run keeps its settings.
  await page.fill('[data-testid="input-m.T"]', '0');
  await page.press('[data-testid="input-m.T"]', 'Enter');
  assert.match(await page.textContent('[data-testid="error-m.T"]'), /Rounds T: must be a whole number from 1 to 500 \(not 0\)/);
  assert.equal((await params(page))['m.T'], '12');

  // The study runs behind in the worker, a run at a time, and stops when asked.
  await page.click('[data-testid="mob-study-run"]');
  await page.waitForSelector('[data-testid="mob-study-row"]', { timeout: 60000 });
  await page.click('[data-testid="mob-study-cancel"]');
  await page.waitForFunction(() => /^Cancelled after \d+ of 21 runs/.test(document.querySelector('[data-testid="mob-study-status"]').textContent));
  assert.equal(await page.getAttribute('[data-testid="mob-study-row"]', 'data-family'), 'none');

  assert.deepEqual(guard.violations, [], 'requests left the origin');
  assert.deepEqual(errors, [], 'the page logged errors');
  await context.close();
});

test('an attack that leaves the city is marked diverged and left out; averaging off says so', async () => {
  // Without the road mapping L-BFGS throws a round's guess far out of the city: before, this
  // link listed errors of 674,342,235 km and averaged them in.
  const { context, guard, page, errors } = await open('?lab=mobility&m.T=12&m.map=off&m.init=paper');
  const causal = await figures(page, 12);
  const left = Number(await page.getAttribute('[data-testid="mob-diverged"]', 'data-diverged'));
  assert.ok(left >= 1, `${left} rounds diverged`);
  assert.match(await page.textContent('[data-testid="mob-diverged"]'), /diverged, left out/);
  let seen = 0;
  for (let r = 0; r < 12; r++) {
    await page.locator('[data-testid="mob-timeline"]').evaluate((el, v) => {
      el.value = String(v);
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, r);
    // The window's first position is the round's number.
    await page.waitForFunction((v) => document.querySelector('[data-testid="mob-error-row"] th').textContent === String(v + 1), r);
    const cells = await page.locator('[data-testid="mob-points-card"] td').allTextContents();
    // No distance shown is more than a few tens of km: a diverged one says so instead.
    for (const c of cells) {
      const km = c.match(/^([\d,.]+) km$/);
      assert.ok(!km || Number(km[1].replace(/,/g, '')) < 100, `round ${r + 1}: ${c}`);
    }
    if (/diverged/.test(await page.textContent('[data-testid="mob-ait"]'))) {
      seen++;
      assert.ok(cells.includes('diverged'), `round ${r + 1}: ${cells}`);
    }
  }
  assert.equal(seen, left, 'every diverged round says so');
  // With the averaging off, its column says so and the round's own reconstruction is scored.
  await page.selectOption('[data-testid="input-m.cal"]', 'off');
  const off = await figures(page, 12, causal.run);
  const averaged = await page.locator('[data-testid="mob-error-row"] td:nth-child(3)').allTextContents();
  assert.deepEqual([...new Set(averaged)], ['off'], `${averaged}`);
  const own = await page.locator('[data-testid="mob-error-row"] td:nth-child(2)').allTextContents();
  assert.equal(off.errors.length, own.length);
  assert.match(await page.textContent('[data-testid="mob-round-card"]'), /no averaging/);
  assert.deepEqual(guard.violations, [], 'requests left the origin');
  assert.deepEqual(errors, [], 'the page logged errors');
  await context.close();
});

test('your file is the target: its points every 10 minutes, your points in the crowd, were you in the count, and too few for the rounds is said', async () => {
  const { context, guard, page, errors } = await open('?lab=mobility&m.T=6');
  await page.click('[data-testid="sample-campus-week.gpx"]');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('m.who') === 'file', null, { timeout: 60000 });
  const run = await figures(page, 6);
  assert.equal(run.errors.length, 8);
  assert.equal(await page.isVisible('[data-testid="mob-route"]'), false, 'no route to draw while the file is the target');
  // The run done, the unicity card says how often 1-4 of your points single you out among the
  // city's people (de Montjoye et al.): four shares, each of 200 draws, and the city's own.
  await page.waitForSelector('[data-testid="mob-unicity-row"]', { timeout: 30000 });
  const unicity = await page.$$eval('[data-testid="mob-unicity-row"]', (rows) => rows.map((r) => Number(r.dataset.timed)));
  assert.equal(unicity.length, 4, JSON.stringify(unicity));
  assert.ok(unicity.every((x) => x >= 0 && x <= 1), JSON.stringify(unicity));
  assert.match(await page.textContent('[data-testid="mob-unicity-people"]'), /among the city's 100 people \(250 m squares and the hour of the week/);
  // Beside it, "Were you in the count?" (Pyrgelis et al.): the adversary's AUC on the city's
  // released counts of groups of m, with its interval, what 0.5 and 1 mean, and the release.
  const membership = async (group, epsilon) => {
    await page.waitForFunction(([g, e]) => {
      const el = document.querySelector('[data-testid="mob-membership-auc"]');
      return el && el.dataset.group === g && el.dataset.epsilon === e;
    }, [group, epsilon], { timeout: 60000 });
    return Number(await page.getAttribute('[data-testid="mob-membership-auc"]', 'data-auc'));
  };
  const exact5 = await membership('5', '');
  assert.ok(exact5 >= 0 && exact5 <= 1, `AUC ${exact5}`);
  assert.match(await page.textContent('[data-testid="mob-membership-auc"]'), /^AUC \d\.\d\d$/);
  assert.match(await page.textContent('[data-testid="mob-membership-interval"]'), /95% interval over 5 games/);
  assert.match(await page.textContent('[data-testid="mob-membership-release"]'), /Groups of 5, exact counts: no differential privacy/);
  assert.match(await page.textContent('[data-testid="mob-membership-marks"]'), /of the 840 \(place, time\) pairs.*100 people, you included.*100 counts.*100 released/);
  const marks = await page.getAttribute('[data-testid="mob-membership-marks"]', 'data-marks');
  // Exact counts give this file's week away (AUC 1 at m = 5, and at 24, as measured); with
  // noise at ε = 10 per release the group's size shows, and at ε = 0.1 it is about a coin.
  assert.ok(exact5 > 0.9, `AUC ${exact5} on exact counts of 5`);
  await page.check('[data-testid="input-m.aggdp"]');
  await page.fill('[data-testid="input-m.aggeps"]', '10');
  await page.press('[data-testid="input-m.aggeps"]', 'Enter');
  const noised5 = await membership('5', '10');
  await page.fill('[data-testid="input-m.group"]', '24');
  await page.press('[data-testid="input-m.group"]', 'Enter');
  const noised24 = await membership('24', '10');
  assert.notEqual(noised24, noised5, 'the group size changes the AUC');
  await page.fill('[data-testid="input-m.aggeps"]', '0.1');
  await page.press('[data-testid="input-m.aggeps"]', 'Enter');
  const noised = await membership('24', '0.1');
  assert.ok(Math.abs(noised - 0.5) < 0.15, `AUC ${noised} at ε = 0.1`);
  assert.ok(noised < exact5 - 0.3, `ε = 0.1: AUC ${noised} against ${exact5} exact`);
  console.log(`membership on campus-week.gpx: ${marks} marks; AUC exact m = 5 ${exact5}, ε = 10: m = 5 ${noised5}, m = 24 ${noised24}; ε = 0.1, m = 24 ${noised}`);
  assert.match(await page.textContent('[data-testid="mob-membership-release"]'), /ε = 0\.1 per release for a person \(user-level.*δ = 0\)\. Each count is off by 200 people/);
  assert.equal((await params(page))['m.aggeps'], '0.1');
  // An absurd group is refused by name, and the card keeps its release.
  await page.fill('[data-testid="input-m.group"]', '1');
  await page.press('[data-testid="input-m.group"]', 'Enter');
  assert.match(await page.textContent('[data-testid="error-m.group"]'), /People in a group m: must be a whole number from 2 to 24 \(not 1\)/);
  assert.equal((await params(page))['m.group'], '24');
  // A week of points about 10 minutes apart is not enough for 500 rounds: the page says how many.
  await page.fill('[data-testid="input-m.T"]', '500');
  await page.press('[data-testid="input-m.T"]', 'Enter');
  await page.waitForFunction(() => /your file has \d+ points about 10 minutes apart; 500 rounds need 509/.test(
    document.querySelector('[data-testid="mob-notice"]').textContent));
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('on a phone the page scrolls over the map, and the lab plays', async () => {
  const { context, guard, page, errors } = await open('?lab=mobility&m.T=6', {
    viewport: { width: 390, height: 844 },
    scale: 2,
    touch: true,
  });
  assert.equal(await page.getAttribute('[data-testid="mob-tool-pan"]', 'aria-pressed'), 'true');
  await figures(page, 6);
  await page.screenshot({ path: screenshotPath('mobility-phone') });
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors, []);
  await context.close();
});
