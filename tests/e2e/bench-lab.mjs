// Interaction benchmark of the Signal-map lab in headless Chromium (run by `./x bench`).
//
// 1. Drag latency: on the commute preset (chosen from the ready-made menu; campus, small model,
//    FedSGD, the rest the lab's defaults), drag
//    the gym waypoint (evening of day 1, so the edit hits round 1 and every later round must be
//    recomputed) one small step at a time; for each step, the time from the pointer move to the
//    frame that shows the edited round's Lemma 1 reconstruction, and to the frame that shows its
//    finished DLG attack (the page measures both, see src/signal_map/mod.rs).
// 2. Playback: while a run plays from round 0, the longest gap between animation frames and
//    the main thread's long tasks (> 50 ms, PerformanceObserver 'longtask').
// 3. Start: from navigation to the first round's RMSE on screen, for the paper's cold start
//    and the lab's warm start (4 rounds of FedAvg over the other users first), alternated
//    three times in fresh tabs (a fresh worker: nothing cached).
// 4. DLG's two kernels in the lab: a whole run on the paper's model (`?model=paper`), from
//    navigation to the last round attacked, with the simd128 kernel (its chunk fetched, the
//    status line's data-kernel says so) and with its chunk unreachable (the scalar kernel, as in
//    a browser without SIMD), alternated three times in fresh tabs; the rows must be the same.
//    RUNS=0 skips it.
import { startSite } from './harness.mjs';

const STEPS = Number(process.env.STEPS ?? 30);
const RUNS = Number(process.env.RUNS ?? 3);
const site = await startSite();
const { browser } = site;
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const page = await context.newPage();
await page.goto(site.url);

const allDone = () =>
  page.waitForFunction(
    () => {
      const m = (document.querySelector('[data-testid="round-label"]')?.textContent ?? '').match(/Round (\d+) of (\d+)/);
      const rows = [...document.querySelectorAll('[data-testid="round-row"]')];
      return m && m[1] === m[2] && rows.length === Number(m[2]) && rows.every((r) => r.dataset.dlgError !== '' && !r.classList.contains('stale'));
    },
    null,
    { timeout: 120000 },
  );
await allDone();
// The commute, not the lab's simpler default: its gym evening on day 1 makes every later round
// depend on the edit (and keeps the figures comparable with earlier runs).
await page.selectOption('[data-testid="preset"]', 'commute');
await page.waitForFunction(() => document.querySelector('[data-testid="path-stats"]')?.textContent.startsWith('41 waypoints · 16.8 km'), null, { timeout: 10000 });
await allDone();

// Where the gym waypoint (−180 m E, 85 m N) is on screen.
const box = await page.locator('[data-testid="map-canvas"]').boundingBox();
const [ce, cn, mpp] = (await page.getAttribute('[data-testid="map-canvas"]', 'data-view')).split(' ').map(Number);
let x = box.x + box.width / 2 + (-180 - ce) / mpp;
let y = box.y + box.height / 2 - (85 - cn) / mpp;

const analytic = [];
const dlg = [];
const worker = [];
// Long tasks on the main thread while dragging.
await page.evaluate(() => {
  window.__dragLong = [];
  window.__dragObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__dragLong.push(e.duration);
  });
  window.__dragObserver.observe({ type: 'longtask', buffered: false });
});
await page.mouse.move(x, y);
await page.mouse.down();
for (let i = 0; i < STEPS; i++) {
  const edit = Number(await page.getAttribute('[data-testid="latency"]', 'data-edit'));
  x += i % 2 ? -6 : 8;
  y += i % 3 ? 3 : -4;
  await page.mouse.move(x, y);
  await page.waitForFunction(
    (before) => {
      const l = document.querySelector('[data-testid="latency"]').dataset;
      return Number(l.edit) > before && l.dlgMs !== '';
    },
    edit,
    { timeout: 30000 },
  );
  const l = await page.$eval('[data-testid="latency"]', (e) => ({ ...e.dataset }));
  analytic.push(Number(l.analyticMs));
  if (l.workerMs !== '') worker.push(Number(l.workerMs));
  dlg.push(Number(l.dlgMs));
}
await page.mouse.up();
const dragLong = await page.evaluate(() => {
  window.__dragObserver.disconnect();
  return window.__dragLong;
});

// Playback smoothness: reset, play, and watch the main thread for 10 s.
await page.evaluate(() => {
  window.__frames = { count: 0, maxGap: 0, last: performance.now(), long: [] };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__frames.long.push(e.duration);
  }).observe({ type: 'longtask', buffered: false });
  const tick = (t) => {
    const f = window.__frames;
    f.maxGap = Math.max(f.maxGap, t - f.last);
    f.last = t;
    f.count++;
    if (!f.stop) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
});
await page.click('[data-testid="reset"]');
await page.click('[data-testid="play"]');
const t0 = Date.now();
await page.waitForTimeout(10000);
const frames = await page.evaluate(() => {
  window.__frames.stop = true;
  return window.__frames;
});
const seconds = (Date.now() - t0) / 1000;

const starts = { cold: [], warm: [] };
for (let rep = 0; rep < 3; rep++) {
  for (const start of ['cold', 'warm']) {
    const tab = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await tab.newPage();
    const t = Date.now();
    await p.goto(`${site.url}?start=${start}`);
    await p.waitForFunction(() => document.querySelector('[data-testid="rmse"]')?.textContent.includes('dB'), null, { timeout: 60000 });
    starts[start].push(Date.now() - t);
    await tab.close();
  }
}

const whole = { simd128: [], scalar: [] };
const rowsOf = (p) => p.$$eval('[data-testid="round-row"]', (rs) => rs.map((r) => [r.dataset.dlgE, r.dataset.dlgN].join(',')).join(' '));
let rowsSeen;
for (let rep = 0; rep < RUNS; rep++) {
  for (const kernel of ['simd128', 'scalar']) {
    const tab = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
    if (kernel === 'scalar') await tab.route(/split_simd128\.wasm$/, (route) => route.abort('failed'));
    const p = await tab.newPage();
    const t = Date.now();
    await p.goto(`${site.url}?model=paper`);
    await p.waitForFunction(
      () => {
        const m = (document.querySelector('[data-testid="round-label"]')?.textContent ?? '').match(/Round (\d+) of (\d+)/);
        const rows = [...document.querySelectorAll('[data-testid="round-row"]')];
        return m && m[1] === m[2] && rows.length === Number(m[2]) && rows.every((r) => (r.dataset.dlgError !== '' || r.dataset.absent) && !r.classList.contains('stale'));
      },
      null,
      { timeout: 600000 },
    );
    whole[kernel].push(Date.now() - t);
    const said = await p.getAttribute('[data-testid="engine-status"]', 'data-kernel');
    if ((said === 'simd128') !== (kernel === 'simd128')) throw new Error(`the ${kernel} tab's worker said its kernel is ${said}`);
    const rows = await rowsOf(p);
    if (rowsSeen !== undefined && rows !== rowsSeen) throw new Error(`the ${kernel} kernel gave other rows:\n${rows}\nagainst\n${rowsSeen}`);
    rowsSeen = rows;
    await tab.close();
  }
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: q(0.5), p90: q(0.9), max: s[s.length - 1] };
};
const result = {
  drag_steps: STEPS,
  analytic_ms: stats(analytic),
  worker_apply_ms: stats(worker),
  dlg_ms: stats(dlg),
  drag_long_tasks: dragLong.length,
  drag_longest_task_ms: dragLong.length ? Math.max(...dragLong) : 0,
  playback: {
    seconds,
    fps: frames.count / seconds,
    max_frame_gap_ms: frames.maxGap,
    long_tasks: frames.long.length,
    longest_task_ms: frames.long.length ? Math.max(...frames.long) : 0,
  },
  first_round_ms: { cold: stats(starts.cold), warm: stats(starts.warm) },
  paper_run_ms: RUNS > 0 ? { simd128: whole.simd128, scalar: whole.scalar } : null,
};
console.log(JSON.stringify(result, null, 2));
const f = (v) => v.toFixed(1);
console.log(
  `LAB analytic ${f(result.analytic_ms.median)} ms median / ${f(result.analytic_ms.p90)} p90 / ${f(result.analytic_ms.max)} max; ` +
    `(worker ${f(result.worker_apply_ms.median)} / ${f(result.worker_apply_ms.p90)}); ` +
    `DLG ${f(result.dlg_ms.median)} / ${f(result.dlg_ms.p90)} / ${f(result.dlg_ms.max)} ms; ` +
    `${result.drag_long_tasks} long tasks while dragging; playback ${f(result.playback.fps)} fps, longest frame gap ${f(result.playback.max_frame_gap_ms)} ms, ` +
    `${result.playback.long_tasks} long tasks (longest ${f(result.playback.longest_task_ms)} ms); ` +
    `first round on screen: cold ${result.first_round_ms.cold.median} ms, warm ${result.first_round_ms.warm.median} ms median ` +
    `(×${f(result.first_round_ms.warm.median / result.first_round_ms.cold.median)})` +
    (RUNS > 0
      ? `; a whole run on the paper's model: simd128 ${whole.simd128.join(' / ')} ms, scalar ${whole.scalar.join(' / ')} ms ` +
        `(median ×${f(stats(whole.scalar).median / stats(whole.simd128).median)}), the same rows`
      : ''),
);
await site.close();
