// The static server the tests and `./x serve` use: a long link reaches the page (which then
// says what is wrong with it), where Node's default 16 KiB header limit answered a bare 431.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../tools/serve.mjs';

test('a link with a 200 kB query is served the page, and paths outside the site are not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wb-serve-'));
  writeFileSync(join(dir, 'index.html'), '<p>page</p>');
  const server = await startServer(dir);
  try {
    const base = server.url.replace(/\/$/, '');
    const long = await fetch(`${base}/?path=${'1'.repeat(200000)}`);
    assert.equal(long.status, 200);
    assert.equal(await long.text(), '<p>page</p>');
    const outside = await fetch(`${base}/..%2f..%2fetc%2fpasswd`);
    assert.ok([403, 404].includes(outside.status), `status ${outside.status}`);
  } finally {
    await server.close();
  }
});
