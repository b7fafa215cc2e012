// The origin guard must itself be tested: a page that leaks must be caught, so a silent guard
// cannot pass the real test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useSite } from './fixture.mjs';
import { HERE, guardOrigin } from './harness.mjs';

const site = useSite({ dir: join(HERE, 'fixtures') });

test('the guard reports cross-origin requests from the page and from a worker', async () => {
  const context = await site.browser.newContext();
  const origin = new URL(site.url).origin;
  const guard = await guardOrigin(context, origin);
  const page = await context.newPage();
  await page.goto(`${site.url}leaky.html`);
  await page.waitForFunction(() => window.leaksAttempted === 3, null, { timeout: 10000 });
  // The worker's request is asynchronous; give it time to reach the network layer.
  await page.waitForTimeout(500);
  const leaked = guard.violations.map((v) => new URL(v.url).pathname);
  assert.ok(leaked.includes('/leak-fetch'), `fetch leak not seen: ${JSON.stringify(guard.violations)}`);
  assert.ok(leaked.includes('/leak-image'), `image leak not seen: ${JSON.stringify(guard.violations)}`);
  assert.ok(leaked.includes('/leak-worker'), `worker leak not seen: ${JSON.stringify(guard.violations)}`);
  // Same-origin requests are allowed and recorded, not reported.
  assert.ok(guard.requests.some((r) => r.ok && r.url.endsWith('/leaky.html')));
  await context.close();
});
