// The lesson across the labs (course.rs, `?lesson=one-hour`), walked as a student would: each
// step opens its own lab's tab in the step's state and shows the stated effect; the questions
// close it, and the instructor's panel holds their answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkabilityFigures, mobilityFigures } from './figures.mjs';
import { useSite } from './fixture.mjs';
import { walk } from './lesson-walk.mjs';

const { open } = useSite({ attached: true });

/** Which lab each step sets, in order. */
const LABS = ['signal', 'density', 'linkability', 'mobility', 'density', 'mobility', 'mobility', 'mobility', 'density', 'mobility'];

test('the one-hour lesson walks leakage, heuristic defences, aggregation and its cheat, local and central DP, and unicity across the labs', async () => {
  const last = { density: 0, linkability: 0, mobility: 0 };
  const seen = await walk(open, 'one-hour', LABS.length, async (s, page) => {
    const lab = LABS[s - 1];
    // The step's own lab shows.
    await page.waitForSelector(`#panel-${lab}:not([hidden])`, { state: 'visible', timeout: 10000 });
    let f;
    if (lab === 'signal') {
      await page.waitForFunction(() => {
        const rows = [...document.querySelectorAll('[data-testid="round-row"]')];
        return (
          rows.length >= 1 &&
          rows.every((r) => r.dataset.dlgError !== '' && !r.classList.contains('stale')) &&
          /\d+ m/.test(document.querySelector('[data-testid="median-error"]')?.textContent.trim() ?? '')
        );
      }, null, { timeout: 120000 });
      f = { median: Number((await page.textContent('[data-testid="median-error"]')).match(/(\d+) m/)?.[1] ?? NaN) };
    } else if (lab === 'density') {
      await page.waitForFunction(
        (after) => {
          const r = document.querySelector('[data-testid="density-results"]');
          return Number(r.dataset.run) > after && r.dataset.idle === 'true' && document.querySelector('[data-testid="density-median"]');
        },
        last.density,
        { timeout: 90000 },
      );
      f = await page.evaluate(() => ({
        run: Number(document.querySelector('[data-testid="density-results"]').dataset.run),
        rho: Number(document.querySelector('[data-testid="density-spearman"]').dataset.value),
        found: Number(document.querySelector('[data-testid="density-city-card"] .sub').textContent.match(/^(\d+)% of/)[1]),
      }));
      last.density = f.run;
    } else if (lab === 'linkability') {
      f = await linkabilityFigures(page, last.linkability, 120000);
      last.linkability = f.run;
    } else {
      f = await mobilityFigures(page, 12, last.mobility, 180000);
      last.mobility = f.run;
    }
    if (s === LABS.length) {
      // The questions close the lesson; their answers are the instructor's.
      assert.equal(await page.locator('[data-testid="lesson-questions"] li').count(), 3);
      f.unicityRows = await page.locator('[data-testid="mob-unicity-row"]').count();
      await page.click('[data-testid="instructor-toggle"]');
      const answers = page.locator('[data-testid="instructor-answers"][data-lesson="one-hour"] [data-testid="instructor-answer"]');
      // The panel comes in a chunk of its own the first time it opens (src/shell/lab_views.rs).
      await answers.first().waitFor({ state: 'attached' });
      assert.equal(await answers.count(), 3);
      await page.selectOption('[data-testid="instructor-start"]', 'one-hour:7');
      const link = new URL(await page.inputValue('[data-testid="instructor-url"]'));
      assert.equal(link.searchParams.get('lesson'), 'one-hour');
      assert.equal(link.searchParams.get('step'), '7');
      await page.click('[data-testid="instructor-toggle"]');
      // The panel moved the page: the step's "Show it" brings its card back.
      await page.click('[data-testid="lesson-show-card"]');
    }
    return f;
  });
  const [update, bump, link, stgia, fit, sum, sybil, dp, central, unicity] = seen;
  // What leaks: one update lands near your round; the bump finds everyone; links far above chance.
  assert.ok(update.median < 200, JSON.stringify(update));
  assert.ok(bump.found >= 95 && bump.figures['density.found'] === bump.found, JSON.stringify(bump));
  assert.ok(link.overChance > 5, JSON.stringify(link));
  assert.ok(stgia.mean > 0.3, JSON.stringify(stgia));
  // The adaptive attacker defeats the heuristic.
  assert.ok(fit.found >= 90, JSON.stringify(fit));
  // Only the sum of six hides you; the server that fills the round with its own reads you again.
  assert.ok(sum.mean < stgia.mean / 2, JSON.stringify({ stgia, sum }));
  assert.ok(sybil.mean > sum.mean + 0.1, JSON.stringify({ sum, sybil }));
  // Local DP: the attack fails. Central DP: an ε on the card, the map pays.
  assert.ok(dp.mean < 0.05, JSON.stringify(dp));
  assert.ok(central.figures['density.epsilon'] > 0 && central.rho < bump.rho - 0.2, JSON.stringify(central));
  assert.ok(unicity.unicityRows >= 1, JSON.stringify(unicity));
});
