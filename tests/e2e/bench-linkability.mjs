// Benchmark of the Linkability lab in headless Chromium (run by `./x bench`): 100 people × 2
// devices × 50 rounds (PEOPLE=300 ROUNDS=28 for the lab's large population) on the default attack (the MLP, 20 epochs, on the last layer), three fresh
// tabs. For each: the federation (from the start to its last round on the page), the attack (the
// MLP's training and the figures, from the last round to the figures on the page), and the
// page's long tasks (> 50 ms on the main thread) over the whole run, which must be 0.
import { startSite } from './harness.mjs';

const site = await startSite();
const { browser } = site;
const [people, rounds] = [Number(process.env.PEOPLE ?? 100), Number(process.env.ROUNDS ?? 50)];
const query = `?lab=linkability&l.people=${people}&l.rounds=${rounds}`;
for (let run = 0; run < Number(process.env.RUNS ?? 3); run++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries().map((e) => e.duration))).observe({
      type: 'longtask',
      buffered: true,
    });
  });
  const page = await context.newPage();
  await page.goto(new URL(query, site.url).href);
  // The page is loaded: long tasks from here on are the lab's.
  await page.waitForSelector('[data-testid="link-results"]', { state: 'attached' });
  await page.evaluate(() => (window.__longTasks.length = 0));
  await page.waitForFunction(() => document.querySelector('[data-testid="link-results"]')?.dataset.idle === 'true', null, {
    timeout: 600000,
  });
  const r = await page.$eval('[data-testid="link-results"]', (e) => ({ attack: Number(e.dataset.attackMs), total: Number(e.dataset.totalMs) }));
  const updates = await page.getAttribute('[data-testid="link-updates-map"]', 'data-points');
  const long = await page.evaluate(() => window.__longTasks);
  console.log(
    `linkability (${people} people × 2 devices × ${rounds} rounds, ${updates} updates), run ${run + 1}: federation ${(r.total - r.attack).toFixed(0)} ms, ` +
      `MLP attack ${r.attack.toFixed(0)} ms, ${long.length} long tasks${long.length ? ` (longest ${Math.max(...long).toFixed(0)} ms)` : ''}`,
  );
  await context.close();
}
await site.close();
