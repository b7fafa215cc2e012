// Each lab's figures as the page shows them, once a run is idle: shared by the lab's own test
// and the lessons. A lab whose figures only one file reads keeps its reader in that file.

/** The Linkability lab's figures once a run after `after` (its number) is idle. */
export async function linkabilityFigures(page, after = 0, timeout = 90000) {
  await page.waitForFunction(
    (after) => {
      const r = document.querySelector('[data-testid="link-results"]');
      // A later lab's views come when its tab first shows (src/shell/lab_views.rs).
      if (!r) return false;
      return Number(r.dataset.run) > after && r.dataset.idle === 'true' && document.querySelector('[data-testid="link-ap"]');
    },
    after,
    { timeout },
  );
  return page.evaluate(() => {
    const q = (id) => document.querySelector(`[data-testid="${id}"]`);
    return {
      run: Number(q('link-results').dataset.run),
      rank: Number(q('link-your-rank').dataset.rank),
      of: Number(q('link-your-rank').dataset.of),
      ap: Number(q('link-ap').dataset.ap),
      overChance: Number(q('link-ap').dataset.overChance),
      rmse: Number(q('link-rmse').dataset.rmse),
      yours: [...document.querySelectorAll('[data-testid="link-ranked"]')].filter((li) => li.dataset.yours === 'true').length,
      points: Number(q('link-updates-map').dataset.points),
      summary: q('link-summary').textContent,
    };
  });
}

/** The Mobility lab's figures once a run after `after` (its number) has `rounds` rounds in and
 * is stopped. */
export async function mobilityFigures(page, rounds, after = 0, timeout = 90000) {
  await page.waitForFunction(
    ([rounds, after]) => {
      const r = document.querySelector('[data-testid="mob-results"]');
      // A later lab's views come when its tab first shows (src/shell/lab_views.rs).
      if (!r) return false;
      return Number(r.dataset.run) > after && Number(r.dataset.done) === rounds && r.dataset.idle === 'true';
    },
    [rounds, after],
    { timeout },
  );
  return page.evaluate(() => ({
    run: Number(document.querySelector('[data-testid="mob-results"]').dataset.run),
    msPerRound: Number(document.querySelector('[data-testid="mob-results"]').dataset.msPerRound),
    asr: Number(document.querySelector('[data-testid="mob-asr"]').dataset.asr),
    mean: Number(document.querySelector('[data-testid="mob-mean-asr"]').dataset.asr),
    errors: [...document.querySelectorAll('[data-testid="mob-error-row"]')].map((r) => Number(r.dataset.error)),
    used: Number(document.querySelector('[data-testid="mob-budget"]')?.dataset.used ?? NaN),
    ait: document.querySelector('[data-testid="mob-ait"]')?.textContent,
  }));
}
