// The lessons (ui/lesson.rs and each lab's lesson.rs): every step of every lesson is walked as a
// student would (the Next button, or the keyboard), and the lab is checked to have reached the
// step's state (its controls, its link) and to show the stated effect (a number moving the way
// the step's "what to notice" says). The last step leaves the student in the sandbox.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkabilityFigures, mobilityFigures } from './figures.mjs';
import { params, useSite } from './fixture.mjs';
import { screenshotPath } from './harness.mjs';

const { open } = useSite({ attached: true });
const step = (page) => page.$eval('[data-testid="lesson"]', (l) => Number(l.dataset.step));

/** Next, and the step it leads to is showing. */
async function next(page, useKeys = false) {
  const from = await step(page);
  if (useKeys) await page.keyboard.press('ArrowRight');
  else await page.click('[data-testid="lesson-next"]');
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid="lesson"]').dataset.step) === n, from + 1);
  assert.equal((await params(page)).step, String(from + 1));
}

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

/**
 * The card the step's "what to notice" is about is on screen whole, without the student
 * scrolling (at 1280×900 the lesson and the map push the cards below the fold: the step brings
 * its card into view).
 */
async function cardInView(page) {
  const where = () => {
    const selector = document.querySelector('[data-testid="lesson"]').dataset.card;
    if (!selector) return null;
    const el = document.querySelector(selector);
    const card = el?.closest('.card') ?? el;
    const r = card?.getBoundingClientRect();
    return { selector, found: !!card, top: r?.top, bottom: r?.bottom, height: innerHeight };
  };
  // The step follows its card as the results fill it, checking a few times a second.
  await page
    .waitForFunction(() => {
      const selector = document.querySelector('[data-testid="lesson"]').dataset.card;
      const el = selector && document.querySelector(selector);
      const r = (el?.closest('.card') ?? el)?.getBoundingClientRect();
      return !selector || (r && r.top >= 0 && r.bottom <= innerHeight + 1);
    }, null, { timeout: 3000 })
    .catch(() => {});
  const seen = await page.evaluate(where);
  if (seen === null) return;
  assert.ok(seen.found && seen.top >= 0 && seen.bottom <= seen.height + 1, `the step's card is not in view: ${JSON.stringify(seen)}`);
}

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

/** Walks `lesson`'s steps, calling `check(step, page)` on each; returns what the checks gave. */
async function walk(lesson, steps, check) {
  const { context, guard, page, errors } = await open(`?lesson=${lesson}`);
  const seen = [];
  for (let s = 1; s <= steps; s++) {
    if (s > 1) await next(page, s % 2 === 1);
    seen.push(await check(s, page));
    await cardInView(page);
  }
  console.log(lesson, JSON.stringify(seen));
  await page.screenshot({ path: screenshotPath(`lesson-${lesson}`), fullPage: false });
  await page.click('[data-testid="lesson-sandbox"]');
  await page.waitForSelector('[data-testid="lesson"]', { state: 'detached' });
  assert.equal((await params(page)).lesson, undefined);
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors, []);
  await context.close();
  return seen;
}

test('the Density lesson walks the bump, the waves, B both ways, asking again and GeoInd', async () => {
  let run = 0;
  const seen = await walk('density', 6, async (s, page) => {
    await page.waitForFunction(
      (after) => {
        const r = document.querySelector('[data-testid="density-results"]');
        return Number(r.dataset.run) > after && r.dataset.idle === 'true' && document.querySelector('[data-testid="density-median"]');
      },
      run,
      { timeout: 90000 },
    );
    const f = await page.evaluate(() => ({
      run: Number(document.querySelector('[data-testid="density-results"]').dataset.run),
      rho: Number(document.querySelector('[data-testid="density-spearman"]').dataset.value),
      median: Number(document.querySelector('[data-testid="density-median"]').dataset.value),
      sub: document.querySelector('[data-testid="density-city-card"] .sub')?.textContent,
    }));
    f.found = Number(f.sub.match(/^(\d+)% of/)[1]);
    run = f.run;
    return f;
  });
  const [bump, three, one, fifty, again, geoind] = seen;
  // The bump gives everyone away and maps perfectly.
  assert.ok(bump.rho > 0.999 && bump.found >= 95, JSON.stringify(bump));
  // Three waves: most found, a worse map; one wave: nobody found, the map worse still.
  assert.ok(three.found > 40 && three.found < 90 && three.rho < 0.7, JSON.stringify(three));
  assert.ok(one.found < 5 && one.median > 2000 && one.rho < three.rho, JSON.stringify(one));
  // Fifty: everyone again, and a better map.
  assert.ok(fifty.found >= 95 && fifty.rho > three.rho + 0.2, JSON.stringify(fifty));
  // A redrawn basis asked ten times finds more than one answer.
  assert.ok(again.found > three.found + 20, JSON.stringify(again));
  // GeoInd: about its noise off, a near-perfect map.
  assert.ok(geoind.median > 50 && geoind.median < 400 && geoind.rho > 0.95, JSON.stringify(geoind));
});

test('the Linkability lesson walks identification, the split, places and the mitigations', async () => {
  let run = 0;
  const seen = await walk('linkability', 5, async (s, page) => {
    const { run: last, rank, ap, overChance, rmse } = await linkabilityFigures(page, run, 120000);
    run = last;
    return { run: last, rank, ap, overChance, rmse };
  });
  const [mlp, chrono, place, mmAug, noise] = seen;
  assert.ok(mlp.overChance > 5, JSON.stringify(mlp));
  assert.ok(chrono.ap < mlp.ap && chrono.overChance > 3, JSON.stringify(chrono));
  assert.ok(place.overChance > 5 && place.overChance < mlp.overChance, JSON.stringify({ mlp, place }));
  // The mitigations: the attack falls, the map does not get worse (within 2%).
  assert.ok(mmAug.overChance < mlp.overChance / 2 && mmAug.rmse < mlp.rmse * 1.02, JSON.stringify(mmAug));
  assert.ok(noise.overChance < mlp.overChance / 2 && noise.rmse < mlp.rmse * 1.02, JSON.stringify(noise));
});

test('the Mobility lesson walks ST-GIA, the street mapping, DLG and the defences', async () => {
  let run = 0;
  const seen = await walk('mobility', 6, async (s, page) => {
    const { run: last, mean, ait, used } = await mobilityFigures(page, 12, run, 180000);
    const f = { run: last, mean, ait, used, init: await page.inputValue('[data-testid="input-m.init"]') };
    f.aitSteps = Number((f.ait.match(/step (\d+)/) ?? [])[1] ?? Infinity);
    run = f.run;
    return f;
  });
  const [stgia, unmapped, dlg, geoi, adaptive, dpsgd] = seen;
  assert.ok(stgia.mean > 0.3, JSON.stringify(stgia));
  // On this route the street mapping does not help (the step says so); the start is the
  // authors' code's (the window slid by one), as the step says, not Eq. 6's.
  assert.ok(unmapped.mean > stgia.mean, JSON.stringify({ stgia, unmapped }));
  assert.equal(unmapped.init, 'code');
  // DLG: found less often, and later.
  assert.ok(dlg.mean < stgia.mean && dlg.aitSteps > stgia.aitSteps, JSON.stringify({ stgia, dlg }));
  // The defences: GeoI at ε = 1 and the adaptive budget (spent) cut ASR; DP-SGD to about zero.
  assert.ok(geoi.mean < stgia.mean / 2, JSON.stringify(geoi));
  assert.ok(adaptive.mean < stgia.mean / 2 && adaptive.used > 0.99, JSON.stringify(adaptive));
  assert.ok(dpsgd.mean < 0.05, JSON.stringify(dpsgd));
});
