// Draws the install icons (www/icon-192.png, www/icon-512.png) from www/icon.svg in headless
// Chromium, so the PNGs committed beside the SVG are reproducible:
//
//   node tools/icons.mjs
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, ROOT } from '../tests/e2e/harness.mjs';

const svg = readFileSync(join(ROOT, 'www', 'icon.svg'), 'utf8');
const browser = await launch();
for (const size of [192, 512]) {
  const page = await browser.newPage({ viewport: { width: size, height: size } });
  await page.setContent(`<html><body style="margin:0">${svg.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`);
  await page.screenshot({ path: join(ROOT, 'www', `icon-${size}.png`) });
  await page.close();
}
await browser.close();
console.log('www/icon-192.png, www/icon-512.png');
