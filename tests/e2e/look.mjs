// Ad-hoc: screenshots of the built app at desktop and phone size (node tests/e2e/look.mjs [query] [wait ms]).
import { captureErrors, screenshotPath, startSite } from './harness.mjs';
const query = process.argv[2] ?? '';
const wait = Number(process.argv[3] ?? 8000);
const site = await startSite();
const { browser } = site;
for (const [name, viewport, scale] of [['look-desktop', { width: 1366, height: 900 }, 1], ['look-phone', { width: 390, height: 844 }, 2]]) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: scale });
  const page = await context.newPage();
  const errors = captureErrors(page);
  await page.goto(new URL(query, site.url).href);
  await page.waitForTimeout(wait);
  await page.screenshot({ path: screenshotPath(name), fullPage: true });
  console.log(name, 'errors:', errors);
  console.log(await page.locator('[data-testid=summary]').textContent());
  console.log(await page.locator('[data-testid=round-label]').textContent());
  await context.close();
}
await site.close();
