// The lessons' shared walk (ui/lesson.rs and each lab's lesson.rs): a step moves on as a
// student moves it (the Next button, or the keyboard), its card comes into view, and every
// figure its prose names shows what the lab's card shows (ui/figures.rs). Each lesson's walk is
// its own file, lesson-<key>.test.mjs.
import assert from 'node:assert/strict';
import { params, useSite } from './fixture.mjs';
import { screenshotPath } from './harness.mjs';

export const step = (page) => page.$eval('[data-testid="lesson"]', (l) => Number(l.dataset.step));

/** Next, and the step it leads to is showing. */
export async function next(page, useKeys = false) {
  const from = await step(page);
  if (useKeys) await page.keyboard.press('ArrowRight');
  else await page.click('[data-testid="lesson-next"]');
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid="lesson"]').dataset.step) === n, from + 1);
  assert.equal((await params(page)).step, String(from + 1));
}

/**
 * Every figure the step's prose names shows the text the lab's card shows for it (read a few
 * times a second), none is still waiting ("…"), and none is missing from the lab. Returns the
 * figures by name, as numbers where they read as one ("64%" → 64, "1.2 km" → 1200).
 */
export async function figuresRead(page, timeout = 10000) {
  // The lesson reads its figures twice a second: a card that has just changed is caught up
  // with within one read. Wait until every figure agrees with its card, then read them all
  // once more; a card that moved in between is waited for again.
  const read = () =>
    page.$$eval('[data-testid="lesson-figure"]', (fs) =>
      fs.map((f) => ({
        name: f.dataset.figureOf,
        shown: f.textContent.trim(),
        card: document.querySelector(`[data-figure="${f.dataset.figureOf}"]`)?.textContent.trim() ?? null,
      })),
    );
  const agree = (seen) => seen.every((f) => f.card !== null && f.shown !== '…' && f.shown === f.card);
  const until = Date.now() + timeout;
  let seen = await read();
  while (!agree(seen) && Date.now() < until) {
    await page.waitForTimeout(250);
    seen = await read();
  }
  for (const f of seen) {
    assert.ok(f.card !== null, `the lab shows no figure ${f.name}`);
    assert.equal(f.shown, f.card, `the lesson's ${f.name} is not the card's`);
  }
  return Object.fromEntries(seen.map((f) => [f.name, asNumber(f.shown)]));
}

/** "64%" → 64, "1.2 km" → 1200, "350 m" → 350, "0.42" → 0.42, "12×" → 12; else the text. */
export function asNumber(text) {
  const m = text.replace(/,/g, '').match(/^(-?[\d.]+)\s*(km|m|%|×|dB)?$/);
  if (!m) return text;
  return Number(m[1]) * (m[2] === 'km' ? 1000 : 1);
}

/**
 * The card the step's "what to notice" is about is on screen whole, without the student
 * scrolling (at 1280×900 the lesson and the map push the cards below the fold: the step brings
 * its card into view).
 */
export async function cardInView(page) {
  const where = () => {
    const selector = document.querySelector('[data-testid="lesson"]').dataset.card;
    if (!selector) return null;
    const el = document.querySelector(selector);
    const card = el?.closest('.card') ?? el;
    const r = card?.getBoundingClientRect();
    return { selector, found: !!card, top: r?.top, bottom: r?.bottom, height: innerHeight };
  };
  // The step follows its card as the results fill it, checking a few times a second.
  await page
    .waitForFunction(() => {
      const selector = document.querySelector('[data-testid="lesson"]').dataset.card;
      const el = selector && document.querySelector(selector);
      const r = (el?.closest('.card') ?? el)?.getBoundingClientRect();
      return !selector || (r && r.top >= 0 && r.bottom <= innerHeight + 1);
    }, null, { timeout: 3000 })
    .catch(() => {});
  const seen = await page.evaluate(where);
  if (seen === null) return;
  assert.ok(seen.found && seen.top >= 0 && seen.bottom <= seen.height + 1, `the step's card is not in view: ${JSON.stringify(seen)}`);
}


/**
 * Walks `lesson`'s steps, calling `check(step, page)` on each once the lab has the step's
 * results, then checking the step's figures; returns what the checks gave, each with the
 * step's figures as `figures`.
 */
export async function walk(open, lesson, steps, check) {
  const { context, guard, page, errors } = await open(`?lesson=${lesson}`);
  const seen = [];
  for (let s = 1; s <= steps; s++) {
    if (s > 1) await next(page, s % 2 === 1);
    const got = await check(s, page);
    got.figures = await figuresRead(page);
    seen.push(got);
    await cardInView(page);
  }
  console.log(lesson, JSON.stringify(seen));
  await page.screenshot({ path: screenshotPath(`lesson-${lesson}`), fullPage: false });
  await page.click('[data-testid="lesson-sandbox"]');
  await page.waitForSelector('[data-testid="lesson"]', { state: 'detached' });
  assert.equal((await params(page)).lesson, undefined);
  assert.deepEqual(guard.violations, []);
  assert.deepEqual(errors, []);
  await context.close();
  return seen;
}
