// The Density lesson (density/lesson.rs), walked as a student would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSite } from './fixture.mjs';
import { walk } from './lesson-walk.mjs';

const { open } = useSite({ attached: true });

test('the Density lesson walks the bump, the waves, B both ways, asking again and GeoInd', async () => {
  let run = 0;
  const seen = await walk(open, 'density', 6, async (s, page) => {
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

