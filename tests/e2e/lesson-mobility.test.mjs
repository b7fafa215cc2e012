// The Mobility lesson (mobility/lesson.rs), walked as a student would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mobilityFigures } from './figures.mjs';
import { useSite } from './fixture.mjs';
import { walk } from './lesson-walk.mjs';

const { open } = useSite({ attached: true });

test('the Mobility lesson walks ST-GIA, the street mapping, DLG, the defences, the sum, the Sybil server, unicity and membership', async () => {
  let run = 0;
  const seen = await walk(open, 'mobility', 10, async (s, page) => {
    const { run: last, mean, ait, used } = await mobilityFigures(page, 12, run, 180000);
    const f = { run: last, mean, ait, used, init: await page.inputValue('[data-testid="input-m.init"]') };
    f.aitSteps = Number((f.ait.match(/step (\d+)/) ?? [])[1] ?? Infinity);
    if (s === 9) {
      // The card fills once the run is done; the student brings it into view with the
      // notice's "Show it" (the step's own follow may have let go while the run played).
      await page.waitForSelector('[data-testid="mob-unicity-row"]', { timeout: 60000 });
      await page.click('[data-testid="lesson-show-card"]');
    }
    if (s === 10) {
      await page.waitForSelector('[data-testid="mob-membership-auc"]', { timeout: 120000 });
      await page.click('[data-testid="lesson-show-card"]');
      f.auc = Number(await page.getAttribute('[data-testid="mob-membership-auc"]', 'data-auc'));
      f.group = Number(await page.getAttribute('[data-testid="mob-membership-auc"]', 'data-group'));
    }
    run = f.run;
    return f;
  });
  const [stgia, unmapped, dlg, geoi, adaptive, dpsgd, sum, sybil, unicity, membership] = seen;
  // The mean the prose reads is the card's (the walk checks the text equals the card's).
  for (const f of [stgia, unmapped, dlg, geoi, adaptive, dpsgd, sum, sybil]) {
    // (The card rounds half to even, as Rust's formatting does: 62.5% shows as 62%.)
    assert.ok(Math.abs(f.figures['mobility.mean'] - 100 * f.mean) <= 0.5, JSON.stringify(f));
  }
  assert.ok(stgia.mean > 0.3, JSON.stringify(stgia));
  assert.equal(stgia.figures['mobility.ait'], stgia.aitSteps);
  // On this route the street mapping does not help (the step says so); the start is the
  // authors' code's (the window slid by one), as the step says, not Eq. 6's.
  assert.ok(unmapped.mean > stgia.mean, JSON.stringify({ stgia, unmapped }));
  assert.equal(unmapped.init, 'code');
  // DLG: found less often, and later.
  assert.ok(dlg.mean < stgia.mean && dlg.aitSteps > stgia.aitSteps, JSON.stringify({ stgia, dlg }));
  // The defences: GeoI at ε = 1 and the adaptive budget (spent) cut ASR; DP-SGD to about zero,
  // its rounds composing to a total above one round's ε.
  assert.ok(geoi.mean < stgia.mean / 2, JSON.stringify(geoi));
  assert.ok(adaptive.mean < stgia.mean / 2 && adaptive.used > 0.99, JSON.stringify(adaptive));
  assert.equal(adaptive.figures['mobility.spent'], 100);
  assert.ok(dpsgd.mean < 0.05, JSON.stringify(dpsgd));
  assert.equal(dpsgd.figures['mobility.rounds'], 12);
  assert.ok(dpsgd.figures['mobility.epsilon'] > dpsgd.figures['mobility.epsilon_round'], JSON.stringify(dpsgd.figures));
  // Only the sum of ten phones: a blend, found far less; the Sybil server holds yours again.
  assert.equal(sum.figures['mobility.phones'], 10);
  assert.ok(sum.mean < stgia.mean / 2, JSON.stringify({ stgia, sum }));
  assert.equal(sybil.figures['mobility.sybils'], 9);
  assert.ok(sybil.mean > sum.mean + 0.3, JSON.stringify({ sum, sybil }));
  // Unicity: four points single you out at least as often as one; the city's hundred people.
  const u = unicity.figures;
  assert.equal(u['mobility.people'], 100);
  assert.ok(u['mobility.you4'] >= u['mobility.you1'], JSON.stringify(u));
  // Membership: exact counts of groups of four say something of you (AUC above a coin), and the
  // lesson reads the card's AUC.
  assert.equal(membership.group, 4);
  assert.ok(membership.auc > 0.5, JSON.stringify(membership));
  assert.ok(Math.abs(membership.figures['mobility.auc'] - membership.auc) < 0.006, JSON.stringify(membership));
});
