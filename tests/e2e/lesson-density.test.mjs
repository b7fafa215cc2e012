// The Density lesson (density/lesson.rs), walked as a student would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSite } from './fixture.mjs';
import { walk } from './lesson-walk.mjs';

const { open } = useSite({ attached: true });

test('the Density lesson walks the bump, the threat model, the waves, B both ways, the fitting server, asking again, GeoInd and its composition, the sum and central DP', async () => {
  let run = 0;
  // Step 2 keeps step 1's settings: no new run.
  const sameAsBefore = new Set([2]);
  const seen = await walk(open, 'density', 11, async (s, page) => {
    await page.waitForFunction(
      ([after, same]) => {
        const r = document.querySelector('[data-testid="density-results"]');
        return (same || Number(r.dataset.run) > after) && r.dataset.idle === 'true' && document.querySelector('[data-testid="density-median"]');
      },
      [run, sameAsBefore.has(s)],
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
  const [bump, threat, three, one, fifty, fit, again, geoind, composed, sum, dp] = seen;
  // The lesson's figures are the cards' (the walk checked each equals its card): here, that
  // they are the numbers the checks read.
  assert.equal(bump.figures['density.found'], bump.found, JSON.stringify(bump));
  // The bump gives everyone away and maps perfectly.
  assert.ok(bump.rho > 0.999 && bump.found >= 95, JSON.stringify(bump));
  // The threat model's step: the honest-but-curious server's guess lands on you.
  assert.ok(threat.figures['density.error'] < 100 && threat.figures['density.random'] > 1000, JSON.stringify(threat));
  // Three waves: most found, a worse map; one wave: nobody found, the map worse still.
  assert.ok(three.found > 40 && three.found < 90 && three.rho < 0.7, JSON.stringify(three));
  assert.ok(one.found < 5 && one.median > 2000 && one.rho < three.rho, JSON.stringify(one));
  // Fifty: everyone again, and a better map.
  assert.ok(fifty.found >= 95 && fifty.rho > three.rho + 0.2, JSON.stringify(fifty));
  // The fitting server finds in the same B = 3 uploads far more than peak picking; the same map.
  assert.ok(fit.found > three.found + 20 && Math.abs(fit.rho - three.rho) < 1e-3, JSON.stringify({ three, fit }));
  // A redrawn basis asked ten times finds more than one answer.
  assert.ok(again.found > three.found + 20, JSON.stringify(again));
  // GeoInd: about its noise off, a near-perfect map.
  assert.ok(geoind.median > 50 && geoind.median < 400 && geoind.rho > 0.95, JSON.stringify(geoind));
  // Ten fresh noisy answers compose: found far more often, far closer.
  assert.ok(composed.found > geoind.found + 30 && composed.median < geoind.median / 2, JSON.stringify({ geoind, composed }));
  // Only the sum: the map is the bump's, exact; you are no longer found (the sum's peak is
  // the city's busiest place, not yours).
  assert.ok(sum.rho > 0.999 && sum.found < 10 && sum.figures['density.error'] > 200, JSON.stringify(sum));
  // Central DP: an ε on the card, and the map pays.
  assert.ok(dp.figures['density.epsilon'] > 0 && dp.rho < sum.rho - 0.2 && dp.found < 10, JSON.stringify(dp));
});
