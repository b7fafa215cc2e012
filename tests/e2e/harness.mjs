// Shared end-to-end harness: the site and the browser, the origin guard, console capture,
// screenshots. Test files take these through fixture.mjs (node:test hooks); the benches and
// look.mjs, which are scripts, use them directly.
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.mjs';

export const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(HERE, '..', '..');
export const DIST = process.env.WHEREABOUTS_DIST ?? join(ROOT, 'dist');
export const SHOTS = process.env.WHEREABOUTS_SHOTS ?? join(ROOT, 'target', 'e2e');

/**
 * Debian's Chromium, quiet on a closed network: without the background-networking flags it
 * tries Google's hosts at every start and the machine's closed network refuses them.
 */
export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Serves `dir` (the built site unless told) on 127.0.0.1 and launches the browser; resolves to
 * { server, browser, url, close() }, `close()` stopping both.
 */
export async function startSite(dir = DIST) {
  if (dir === DIST) assert.ok(existsSync(join(DIST, 'index.html')), `no built site at ${DIST}: run ./x build first`);
  const server = await startServer(dir);
  let browser;
  try {
    browser = await launch();
  } catch (err) {
    await server.close();
    throw err;
  }
  return {
    server,
    browser,
    url: server.url,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/**
 * Records every request the pages and workers of `context` make. A request to any origin other
 * than `origin` is a violation: it is recorded and aborted, so it never leaves the machine.
 */
export async function guardOrigin(context, origin) {
  const guard = { origin, requests: [], violations: [] };
  const check = (url, via) => {
    let requestOrigin;
    try {
      requestOrigin = new URL(url).origin;
    } catch {
      requestOrigin = 'unparsable';
    }
    // data: and blob: URLs are made inside the page and go nowhere.
    if (url.startsWith('data:') || url.startsWith('blob:')) return true;
    const ok = requestOrigin === origin;
    if (!guard.requests.some((r) => r.url === url && r.via === via)) {
      guard.requests.push({ url, via, ok });
      if (!ok) guard.violations.push({ url, via });
    }
    return ok;
  };
  await context.route('**/*', (route) => {
    if (check(route.request().url(), 'route')) route.continue();
    else route.abort('blockedbyclient');
  });
  context.on('request', (req) => check(req.url(), 'request'));
  context.on('websocket', (ws) => check(ws.url(), 'websocket'));
  return guard;
}

/** Collects console errors and uncaught page errors (CSP violations are console errors). */
export function captureErrors(page) {
  const errors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  return errors;
}

export function screenshotPath(name) {
  mkdirSync(SHOTS, { recursive: true });
  return join(SHOTS, `${name}.png`);
}

/**
 * Opens `query` of the site at `baseUrl` in a fresh context with the origin guard and the error
 * capture, and waits until the engine worker has answered (`ready`: false skips the wait;
 * `attached`: the status line may be behind another lab's tab; `unreachable`: see below).
 */
export async function openPage(browser, baseUrl, query = '', options = {}) {
  const { viewport = { width: 1280, height: 900 }, scale = 1, ready = true, attached = false, touch = false, unreachable, delayed } = options;
  // `touch`: a phone (a touch screen as the main pointer, mobile viewport).
  // The offline copy (www/sw.js) would download the whole site again in every test's fresh
  // context: blocked here, tested on its own (teaching.test.mjs).
  const context = await browser.newContext({ viewport, deviceScaleFactor: scale, hasTouch: touch, isMobile: touch, serviceWorkers: 'block' });
  const guard = await guardOrigin(context, new URL(baseUrl).origin);
  // `unreachable`: a pattern of the site's own files whose requests fail, as on a broken network.
  if (unreachable) await context.route(unreachable, (route) => route.abort('failed'));
  // `delayed`: { pattern, ms }: those files come `ms` late, as on a slow network.
  if (delayed) await context.route(delayed.pattern, async (route) => {
    await new Promise((r) => setTimeout(r, delayed.ms));
    await route.continue();
  });
  const page = await context.newPage();
  const errors = captureErrors(page);
  await page.goto(new URL(query, baseUrl).href);
  if (ready) {
    await page.waitForSelector('[data-testid="engine-status"].ready', {
      timeout: 30000,
      ...(attached ? { state: 'attached' } : {}),
    });
  }
  return { context, guard, page, errors };
}

/**
 * Clicks `lab`'s tab and waits for its views: the Density, Linkability and Mobility labs' are
 * fetched when their tab first shows (src/shell/lab_views.rs), so a check right after the click
 * would read an empty panel.
 */
export async function showLab(page, lab) {
  await page.click(`[data-testid="tab-${lab}"]`);
  await page.locator(`#panel-${lab} > .side`).waitFor({ state: 'attached', timeout: 30000 });
}
