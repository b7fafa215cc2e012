// Accessibility: axe-core (pinned, run from node_modules — nothing is fetched) on the page as a
// visitor finds it and after the panels have filled; no violation of any impact. And the
// things axe cannot judge: a skip link, reduced motion, keyboard editing of the path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { useSite } from './fixture.mjs';
import { showLab } from './harness.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const { open } = useSite();

/** axe's violations of any impact (minor to critical) on the page as it is now, one line each. */
async function violations(page) {
  // Evaluated through the debugging protocol: the page's Content-Security-Policy (no inline
  // scripts) stays as it is.
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 4),
    }));
  });
  return found.map((v) => `${v.impact} ${v.id}: ${v.nodes.join(', ')}`);
}

async function finished(page) {
  await page.waitForFunction(() => /^Round (\d+) of \1$/.test(document.querySelector('[data-testid="round-label"]')?.textContent ?? ''), null, { timeout: 90000 });
}

for (const [name, viewport] of [
  ['laptop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
]) {
  test(`axe finds no violation of any impact (${name})`, async () => {
    const { context, guard, page, errors } = await open('', { viewport, touch: name === 'phone' });
    await finished(page);
    // The study panel with a chart and a table, and a help open.
    await page.locator('.results .help-toggle').first().click();
    const found = await violations(page);
    assert.deepEqual(found, []);
    // Every table that scrolls is a region the keyboard reaches (axe judges only those that
    // scroll now: a study's table does once it has rows).
    const unreachable = await page.$$eval('.table-wrap, .table-scroll', (els) =>
      els.filter((e) => e.getAttribute('tabindex') !== '0' || !e.getAttribute('role')).map((e) => e.outerHTML.slice(0, 80)),
    );
    assert.deepEqual(unreachable, []);
    // Every other lab's panel too.
    for (const lab of ['density', 'linkability', 'mobility']) {
      await showLab(page, lab);
      assert.deepEqual(await violations(page), [], lab);
    }
    assert.deepEqual(guard.violations, []);
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test('axe finds no violation of any impact in any lesson, the instructor panel, the glossary or present mode', async () => {
  for (const [lesson, query] of [['signal', '&glossary'], ['density', '&present=1'], ['linkability', ''], ['mobility', '']]) {
    const { context, page, errors } = await open(`?lesson=${lesson}${query}`, { attached: true });
    await page.waitForSelector('[data-testid="lesson"]');
    // The glossary comes in a chunk of its own (src/shell/lab_views.rs): check it, not its loading line.
    if (query === '&glossary') await page.waitForSelector('[data-testid="glossary"] dt');
    assert.deepEqual(await violations(page), [], lesson);
    await page.click('[data-testid="lesson-next"]');
    await page.waitForSelector('[data-testid="lesson"][data-step="2"]');
    await page.click('[data-testid="instructor-toggle"]');
    await page.waitForSelector('[data-testid="qr"]');
    assert.deepEqual(await violations(page), [], `${lesson} with the instructor's panel`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('a lesson is walked with the keyboard alone, with a visible focus', async () => {
  const { context, page, errors } = await open('?lesson=linkability', { attached: true });
  await page.waitForSelector('[data-testid="lesson"]');
  // Tab reaches the lesson's buttons; Enter on Next moves on; the focus ring shows.
  let found = false;
  for (let i = 0; i < 40 && !found; i++) {
    await page.keyboard.press('Tab');
    found = await page.evaluate(() => document.activeElement?.dataset.testid === 'lesson-next');
  }
  assert.ok(found, 'Tab reaches Next');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="lesson"][data-step="2"]');
  // The arrows step too, but not while typing in a field.
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('[data-testid="lesson"][data-step="3"]');
  await page.focus('[data-testid="input-l.people"]');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.$eval('[data-testid="lesson"]', (l) => l.dataset.step), '3');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a skip link leads past the header to the lab, and reduced motion stops the transitions', async () => {
  const { context, page, errors } = await open('');
  await page.keyboard.press('Tab');
  const skip = page.locator('.skip-link');
  assert.equal(await skip.evaluate((a) => a === document.activeElement), true);
  assert.equal(await skip.isVisible(), true);
  await page.keyboard.press('Enter');
  const focused = await page.evaluate(() => document.activeElement?.id);
  assert.equal(focused, 'panel-signal');
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const duration = await page.evaluate(() => getComputedStyle(document.querySelector('.map-hint')).transitionDuration);
  assert.ok(parseFloat(duration) < 0.01, duration);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the path can be edited without a pointer: select, move, add and delete waypoints from the keyboard', async () => {
  const { context, page, errors } = await open('?start=cold');
  await finished(page);
  const stats = () => page.textContent('[data-testid="path-stats"]');
  const count = async () => Number((await stats()).match(/^(\d+) waypoints/)[1]);
  const status = () => page.textContent('[data-testid="waypoint-status"]');
  const at = async () => (await status()).match(/: (-?\d+) m east, (-?\d+) m north/).slice(1).map(Number);
  const n = await count();
  await page.focus('[data-testid="map-canvas"]');
  assert.match(await page.getAttribute('[data-testid="map-canvas"]', 'aria-label'), /N and P select/);
  await page.keyboard.press('n');
  assert.match(await status(), new RegExp(`^Waypoint 1 of ${n}:`));
  await page.keyboard.press('p');
  assert.match(await status(), new RegExp(`^Waypoint ${n} of ${n}:`));
  await page.keyboard.press('n');
  const [e0, n0] = await at();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Shift+ArrowUp');
  assert.deepEqual(await at(), [e0 + 10, n0 + 100]);
  // The run follows the edit (the URL too), and Undo takes it back one key at a time.
  const url = page.url();
  await page.keyboard.press('a');
  assert.equal(await count(), n + 1);
  assert.match(await status(), new RegExp(`^Waypoint 2 of ${n + 1}:`));
  assert.notEqual(page.url(), url);
  await page.keyboard.press('Delete');
  assert.equal(await count(), n);
  await page.click('[data-testid="undo"]');
  assert.equal(await count(), n + 1);
  await page.click('[data-testid="undo"]');
  await page.click('[data-testid="undo"]');
  await page.focus('[data-testid="map-canvas"]');
  await page.keyboard.press('n');
  assert.deepEqual(await at(), [e0 + 10, n0]);
  // Escape: the arrows pan the map again and leave the path alone.
  await page.keyboard.press('Escape');
  const view = await page.getAttribute('[data-testid="map-canvas"]', 'data-view');
  await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(100);
  assert.notEqual(await page.getAttribute('[data-testid="map-canvas"]', 'data-view'), view);
  assert.equal(await count(), n);
  assert.deepEqual(errors, []);
  await context.close();
});
