// Interaction benchmark of the Density lab in headless Chromium (run by `./x bench`).
//
// 1. Drag latency: on the lab's default (N = 5,000, B = 3, 128 × 128), drag place 1 one small
//    step at a time; for each step, the time from the page sending the edit to the page holding
//    the server's new attack on it (the page measures it, src/density/mod.rs), and the worker's
//    share. One animation frame is 16.7 ms.
// 2. The server's aggregate in the browser: N = 10,000, B = 10 on 128 × 128 — from the first
//    report of the estimate stage to the density on the page (the worker's slices of 4 ms, the
//    NUFFT's FFT and the transfer included), three fresh tabs.
import { startSite } from './harness.mjs';

const STEPS = Number(process.env.STEPS ?? 30);
const site = await startSite();
const { browser } = site;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const idle = (page) =>
  page.waitForFunction(() => document.querySelector('[data-testid="density-results"]')?.dataset.idle === 'true', null, {
    timeout: 120000,
  });

{
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(new URL('?lab=density', site.url).href);
  await idle(page);
  const box = await page.locator('[data-testid="density-map"]').boundingBox();
  const [[px, py]] = (await page.getAttribute('[data-testid="density-map"]', 'data-places'))
    .split(';')
    .map((p) => p.split(' ').map(Number));
  let [x, y] = [box.x + px, box.y + py];
  const total = [];
  const worker = [];
  await page.mouse.move(x, y);
  await page.mouse.down();
  for (let i = 0; i < STEPS; i++) {
    const before = Number(await page.getAttribute('[data-testid="density-results"]', 'data-edit'));
    x += 3;
    y -= 2;
    await page.mouse.move(x, y);
    await page.waitForFunction(
      (b) => Number(document.querySelector('[data-testid="density-results"]').dataset.edit) > b,
      before,
      { timeout: 10000 },
    );
    const [t, w] = (await page.getAttribute('[data-testid="density-results"]', 'data-latency')).split(' ').map(Number);
    total.push(t);
    worker.push(w);
  }
  await page.mouse.up();
  console.log(
    `drag (N = 5,000, B = 3, 128²): edit → attack on the page, median ${median(total).toFixed(1)} ms ` +
      `(worker ${median(worker).toFixed(1)} ms), max ${Math.max(...total).toFixed(1)} ms over ${STEPS} steps`,
  );
  await context.close();
}

for (let run = 0; run < 3; run++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(new URL('?lab=density&d.N=10000&d.B=10&d.grid=128', site.url).href);
  await idle(page);
  const ms = Number(await page.getAttribute('[data-testid="density-results"]', 'data-aggregate-ms'));
  console.log(`aggregate (N = 10,000, B = 10, 128²) in the browser, run ${run + 1}: ${ms.toFixed(0)} ms`);
  await context.close();
}

await site.close();
