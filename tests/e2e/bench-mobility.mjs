// Benchmark of the Mobility lab in headless Chromium (run by `./x bench`): the lab as it opens
// (the drawn route, ST-GIA, 200 iterations a round) played to the end, three fresh tabs, with the
// undefended run and the adaptive defence (whose phone attacks itself first: twice the work).
// For each: milliseconds a round as the page receives them (first round to last), and the
// page's long tasks (> 50 ms on the main thread) over the run, which must be 0.
import { startSite } from './harness.mjs';

const site = await startSite();
const { browser } = site;
const rounds = Number(process.env.ROUNDS ?? 50);
for (const [name, extra] of [['no defence', ''], ['adaptive PGEM, self-audit', '&m.def=adaptive']]) {
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
    await page.goto(new URL(`?lab=mobility&m.T=${rounds}${extra}`, site.url).href);
    await page.waitForSelector('[data-testid="mob-results"]', { state: 'attached' });
    await page.evaluate(() => (window.__longTasks.length = 0));
    await page.waitForFunction(
      (rounds) => {
        const r = document.querySelector('[data-testid="mob-results"]');
        return Number(r?.dataset.done) === rounds && r.dataset.idle === 'true';
      },
      rounds,
      { timeout: 600000 },
    );
    const ms = Number(await page.getAttribute('[data-testid="mob-results"]', 'data-ms-per-round'));
    const long = await page.evaluate(() => window.__longTasks);
    console.log(
      `mobility (${name}, ${rounds} rounds × 200 iterations), run ${run + 1}: ${ms.toFixed(0)} ms a round, ` +
        `${long.length} long tasks${long.length ? ` (longest ${Math.max(...long).toFixed(0)} ms)` : ''}`,
    );
    await context.close();
  }
}
await site.close();
