// The Signal-map lesson (signal_map/lesson.rs), walked as a student would, each step's stated effect
// checked on the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { params, useSite } from './fixture.mjs';
import { screenshotPath } from './harness.mjs';
import { cardInView, next, step } from './lesson-walk.mjs';

const { open } = useSite({ attached: true });

/** The Signal map's figures once `rounds` rounds (all, by default) are trained and attacked. */
async function signal(page, rounds = null, timeout = 120000) {
  await page.waitForFunction(
    (rounds) => {
      const m = (document.querySelector('[data-testid="round-label"]')?.textContent ?? '').match(/Round (\d+) of (\d+)/);
      if (!m) return false;
      const want = rounds ?? Number(m[2]);
      if (Number(m[1]) !== want) return false;
      const rows = [...document.querySelectorAll('[data-testid="round-row"]')];
      return (
        rows.length === want &&
        rows.every((r) => (r.dataset.dlgError !== '' || r.dataset.absent) && !r.classList.contains('stale')) &&
        /^After \d+ rounds?:/.test(document.querySelector('[data-testid="summary"]').textContent) &&
        document.querySelector('[data-testid="summary"]').textContent.startsWith(`After ${want - rows.filter((r) => r.dataset.absent).length} round`)
      );
    },
    rounds,
    { timeout },
  );
  const summary = await page.textContent('[data-testid="summary"]');
  const num = (re) => Number((summary.match(re) ?? [])[1] ?? NaN);
  return {
    closest: num(/a median (\d+) m/),
    dlg: num(/\(DLG (\d+) m/),
    analytic: num(/analytic (\d+) m\)/),
    emd: num(/EMD (\d+) m/),
    random: num(/versus (\d+) m for random/),
    diverged: num(/(\d+)% of the DLG runs diverged/),
    rmse: num(/error is ([\d.]+) dB RMSE/),
    releases: num(/total ε over (\d+) releases?/),
  };
}

/** The round rows' Lemma 1 estimates, plane metres. */
const analyticPoints = (page) =>
  page.$$eval('[data-testid="round-row"]', (rows) =>
    rows.filter((r) => r.dataset.analyticE !== '').map((r) => [Number(r.dataset.analyticE), Number(r.dataset.analyticN)]),
  );

// The places of the lab's opening path (engine signal_map::settings::default_path: the simple
// week on the 1800 × 1700 m campus), plane metres: home, work, the gym, the park, the shops.
const PLACES = [[-495, -383], [450, 340], [-180, 85], [-405, 383], [135, -85]];
const toNearestPlace = ([e, n]) => Math.min(...PLACES.map(([pe, pn]) => Math.hypot(e - pe, n - pn)));

/** Types `value` into the number setting `key` and waits for the link to carry it. */
async function setNumber(page, key, value) {
  await page.fill(`[data-testid="input-${key}"]`, value);
  await page.press(`[data-testid="input-${key}"]`, 'Enter');
  await page.waitForFunction(([k, v]) => new URLSearchParams(location.search).get(k) === v, [key, value]);
}

/** Sets the number setting `key` and waits for a run whose summary differs from the last one's
 * (the rows of the last run may still stand when the link has changed). */
async function rerunWith(page, key, value, timeout = 300000) {
  const before = await page.textContent('[data-testid="summary"]');
  await setNumber(page, key, value);
  await page.waitForFunction(
    (before) => {
      const now = document.querySelector('[data-testid="summary"]').textContent;
      return now !== before && /^After \d+ rounds?:/.test(now);
    },
    before,
    { timeout },
  );
  return signal(page, null, timeout);
}

const ratio = (f) => f.emd / f.random;

test('the Signal-map lesson walks DLG, Lemma 1, round length, the warm start, FedAvg and the defences', async () => {
  const { context, guard, page, errors } = await open('?lesson=signal', { attached: false });
  assert.equal(await step(page), 1);
  // 1. One round of the paper's cold start: the attacks land near the round's centroid.
  assert.equal(await page.inputValue('[data-testid="input-start"]'), 'cold');
  const one = await signal(page, 1);
  await cardInView(page);
  assert.ok(one.closest < 100, JSON.stringify(one));
  // 2. Lemma 1 lands at least as close as DLG (the keyboard moves the lesson on).
  await next(page, true);
  const cold = await signal(page, 3);
  await cardInView(page);
  assert.ok(cold.analytic <= cold.dlg, JSON.stringify(cold));
  // 3. Shorter rounds leak more: 6-hour rounds against one weekly round.
  await next(page);
  assert.equal(await page.inputValue('[data-testid="input-T"]'), '6');
  const six = await signal(page);
  await cardInView(page);
  assert.ok(ratio(six) < 0.5 * ratio(cold) + 0.2 && ratio(six) < 0.45, JSON.stringify(six));
  await page.selectOption('[data-testid="input-T"]', '168');
  const week = await signal(page, 1);
  assert.ok(ratio(week) > ratio(six) + 0.1, JSON.stringify({ six, week }));
  // 4. The learnt map: here (seed 1) DLG lands far off, no better than random by EMD; a good map.
  await next(page, true);
  assert.equal(await page.inputValue('[data-testid="input-T"]'), '24', 'a step sets its own state');
  const warm = await signal(page);
  await cardInView(page);
  assert.ok(warm.dlg > 3 * cold.dlg && ratio(warm) > 0.8 && warm.rmse < cold.rmse / 5, JSON.stringify({ cold, warm }));
  // … and no guarantee: in another world the same learnt map still gives you away.
  const warm3 = await rerunWith(page, 'seed', '3');
  assert.ok(warm3.dlg < 100 && warm3.rmse < cold.rmse / 5, JSON.stringify(warm3));
  // 5. FedAvg: DLG diverges, the map is better; in this world (seed 1) the FedAvg-aware server
  // lands several times closer than DLG …
  await next(page);
  const fedavg = await signal(page);
  await cardInView(page);
  const aware = (await page.textContent('[data-testid="fedavg-error"]')).match(/^(\d+) m \(DLG (\d+) m\)$/);
  assert.ok(aware, await page.textContent('[data-testid="fedavg-error"]'));
  assert.ok(fedavg.diverged >= 50 && fedavg.rmse < cold.rmse, JSON.stringify(fedavg));
  assert.ok(2 * Number(aware[1]) < Number(aware[2]), aware[0]);
  // … but not in every world: with seed 5 the aware server lands further off than DLG.
  await rerunWith(page, 'seed', '5');
  const aware5 = (await page.textContent('[data-testid="fedavg-error"]')).match(/^(\d+) m \(DLG (\d+) m\)$/);
  assert.ok(aware5 && Number(aware5[1]) > Number(aware5[2]), aware5?.[0]);
  // 6. Farthest Batch under step 5's FedAvg: hundreds of metres from the centroid, but Lemma 1
  // lands on one of your own places; and the map, which learns here, pays. (The Next button:
  // the seed's box still has the focus, and the arrow keys are its own.)
  await next(page);
  assert.equal(await page.inputValue('[data-testid="input-def"]'), 'farthest');
  assert.equal(await page.inputValue('[data-testid="input-E"]'), '5');
  const farthest = await signal(page);
  await cardInView(page);
  const onPlaces = (await analyticPoints(page)).map(toNearestPlace);
  assert.ok(farthest.closest > 500 && farthest.rmse > fedavg.rmse + 5, JSON.stringify({ fedavg, farthest }));
  assert.ok(onPlaces.length >= 5 && onPlaces.every((d) => d < 30), JSON.stringify(onPlaces));
  // 7. GeoInd's noise averages out in the centroid; local DP stops DLG and costs the map.
  await next(page);
  const geoind = await signal(page);
  await cardInView(page);
  assert.ok(geoind.closest < 150, JSON.stringify(geoind));
  await page.selectOption('[data-testid="input-def"]', 'dp');
  await setNumber(page, 'dpe', '1');
  await page.waitForFunction(() => /Local DP: your total ε.*\(ε = 1 per local step\)/.test(document.querySelector('[data-testid="summary"]').textContent), null, { timeout: 60000 });
  const dp = await signal(page);
  assert.ok(dp.diverged >= 80 && dp.closest > 150, JSON.stringify(dp));
  // Its price where the map learns (FedAvg): no better than untrained, against step 5's map;
  // 40 releases a round instead of one (every local step is one: 5 epochs of 8 mini-batches).
  await setNumber(page, 'B', '20');
  await setNumber(page, 'E', '5');
  await page.waitForFunction(
    (k) => Number((document.querySelector('[data-testid="summary"]').textContent.match(/total ε over (\d+) releases/) ?? [])[1]) > 20 * k,
    dp.releases,
    { timeout: 120000 },
  );
  const dpAvg = await signal(page);
  assert.ok(dpAvg.releases > 20 * dp.releases && dpAvg.rmse > 85 && dpAvg.rmse > fedavg.rmse + 40, JSON.stringify({ dp, dpAvg, fedavg }));
  console.log(JSON.stringify({ one, cold, six, week, warm, warm3, fedavg, aware: aware[0], aware5: aware5[0], farthest, onPlaces, geoind, dp, dpAvg }));
  await page.screenshot({ path: screenshotPath('lesson-signal'), fullPage: false });
  // The sandbox: the lesson goes, the state the student reached stays.
  await page.click('[data-testid="lesson-sandbox"]');
  await page.waitForSelector('[data-testid="lesson"]', { state: 'detached' });
  const p = await params(page);
  assert.equal(p.lesson, undefined);
  assert.equal(p.def, 'dp');
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors, []);
  await context.close();
});

