// The Linkability lesson (linkability/lesson.rs), walked as a student would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkabilityFigures } from './figures.mjs';
import { useSite } from './fixture.mjs';
import { walk } from './lesson-walk.mjs';

const { open } = useSite({ attached: true });

/** The Linkability lab's figures once a run after `after` is idle with only the (noised) sums. */
async function sumFigures(page, after, timeout = 120000) {
  await page.waitForFunction(
    (after) => {
      const r = document.querySelector('[data-testid="link-results"]');
      return Number(r.dataset.run) > after && r.dataset.idle === 'true' && document.querySelector('[data-testid="link-round-sums"]');
    },
    after,
    { timeout },
  );
  return page.evaluate(() => {
    const q = (id) => document.querySelector(`[data-testid="${id}"]`);
    const dp = q('link-central-dp');
    return {
      run: Number(q('link-results').dataset.run),
      sums: Number(q('link-round-sums').dataset.sums),
      rmse: Number(q('link-rmse').dataset.rmse),
      epsilon: dp ? Number(dp.dataset.epsilon) : null,
      epsilonRound: dp ? Number(dp.dataset.epsilonRound) : null,
      attackShown: ['link-rank-card', 'link-ident-card'].some((id) => q(id).offsetParent !== null),
    };
  });
}

test('the Linkability lesson walks identification, the threat model, the split, places, the mitigations, the sum and central DP', async () => {
  let run = 0;
  const seen = await walk(open, 'linkability', 8, async (s, page) => {
    if (s >= 7) {
      const f = await sumFigures(page, run);
      run = f.run;
      return f;
    }
    const { run: last, rank, ap, overChance, rmse } = await linkabilityFigures(page, run, 120000);
    run = last;
    return { run: last, rank, ap, overChance, rmse };
  });
  const [mlp, guess, chrono, place, mmAug, noise, sum, dp] = seen;
  // Every step's figures are the cards' (the walk checks the text); the multiple of chance the
  // prose reads is the card's number.
  for (const f of [mlp, guess, chrono, place, mmAug, noise]) {
    assert.ok(Math.abs(f.figures['linkability.times'] - f.overChance) <= 0.5, JSON.stringify(f));
  }
  assert.ok(mlp.overChance > 5, JSON.stringify(mlp));
  assert.equal(mlp.figures['linkability.rank'], mlp.rank);
  // The threat model: without what it learnt of the known devices the server only guesses.
  assert.ok(guess.overChance < 2 && guess.ap < mlp.ap / 5, JSON.stringify({ mlp, guess }));
  assert.ok(chrono.ap < mlp.ap && chrono.overChance > 3, JSON.stringify(chrono));
  assert.ok(place.overChance > 5 && place.overChance < mlp.overChance, JSON.stringify({ mlp, place }));
  // The mitigations: the attack falls, the map does not get worse (within 2%).
  assert.ok(mmAug.overChance < mlp.overChance / 2 && mmAug.rmse < mlp.rmse * 1.02, JSON.stringify(mmAug));
  assert.ok(noise.overChance < mlp.overChance / 2 && noise.rmse < mlp.rmse * 1.02, JSON.stringify(noise));
  // Only the sum: one sum a round, no attack card, the same map as with every update.
  assert.equal(sum.sums, 28);
  assert.equal(sum.figures['linkability.sums'], 28);
  assert.ok(!sum.attackShown, JSON.stringify(sum));
  assert.ok(Math.abs(sum.rmse - mlp.rmse) < 1e-3, JSON.stringify({ mlp, sum }));
  // Central DP: the rounds compose to a total above one round's and below their sum, and the
  // figures the step reads are the card's.
  assert.ok(dp.epsilon > dp.epsilonRound && dp.epsilon < dp.sums * dp.epsilonRound, JSON.stringify(dp));
  assert.ok(Math.abs(dp.figures['linkability.epsilon'] - dp.epsilon) < 0.006, JSON.stringify(dp));
  assert.equal(dp.figures['linkability.rounds'], 28);
});
