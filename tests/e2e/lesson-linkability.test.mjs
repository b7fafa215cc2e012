// The Linkability lesson (linkability/lesson.rs), walked as a student would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkabilityFigures } from './figures.mjs';
import { useSite } from './fixture.mjs';
import { walk } from './lesson-walk.mjs';

const { open } = useSite({ attached: true });

test('the Linkability lesson walks identification, the split, places and the mitigations', async () => {
  let run = 0;
  const seen = await walk(open, 'linkability', 5, async (s, page) => {
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

