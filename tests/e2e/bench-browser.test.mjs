// `./x bench`'s browser step (issue 41 §5.4): when wasm-bindgen-test-runner fails, its error is
// shown (no output filter hides it), the figures it printed are kept, and the Chromium it
// started (found by its own profile directory) is not left running. The step is x's own
// bench_browser, run with a stand-in cargo that starts a "browser" and fails as WebDriver did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

test("the browser benchmark's failure is shown with its figures, and no browser is left behind", () => {
  const dir = mkdtempSync(join(tmpdir(), 'wb-bench-'));
  copyFileSync(join(root, 'webdriver.json'), join(dir, 'webdriver.json'));
  mkdirSync(join(dir, 'bin'));
  writeFileSync(
    join(dir, 'bin', 'cargo'),
    `#!/usr/bin/env bash
profile=$(node -e 'const c = JSON.parse(require("fs").readFileSync(process.env.WASM_BINDGEN_TEST_WEBDRIVER_JSON, "utf8"));
console.log(c["goog:chromeOptions"].args.find((a) => a.startsWith("--user-data-dir=")))')
( exec -a "stand-in-chromium $profile" sleep 300 ) &
sleep 0.5
echo "BENCH dlg (small): 1.0 us an iteration"
echo "driver status: WebDriver request timed out after 20 s"
exit 101
`,
    { mode: 0o755 },
  );
  const step = readFileSync(join(root, 'x'), 'utf8').match(/^bench_browser\(\) \{[\s\S]*?^\}/m)[0];
  const profile = `--user-data-dir=${join(dir, 'target', 'bench-chromium-profile')}`;
  try {
    const r = spawnSync('bash', ['-c', `set -euo pipefail\n${step}\nbench_browser`], {
      cwd: dir,
      env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}`, CHROMEDRIVER: '/usr/bin/chromedriver' },
      encoding: 'utf8',
      timeout: 30000,
    });
    assert.equal(r.status, 101, r.stderr);
    assert.match(r.stdout, /^dlg \(small\): 1\.0 us an iteration$/m);
    assert.match(r.stderr, /the browser benchmark failed \(exit 101\)/);
    assert.match(r.stderr, /WebDriver request timed out after 20 s/);
    const left = spawnSync('pgrep', ['-f', '--', profile], { encoding: 'utf8' });
    assert.equal(left.stdout, '', 'the browser it started is still running');
  } finally {
    spawnSync('pkill', ['-f', '--', profile]);
  }
});
