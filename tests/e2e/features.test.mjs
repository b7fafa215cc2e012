// tools/features.mjs reads a wasm module's target_features section, which tools/build.mjs uses
// to refuse a site binary that uses wasm SIMD (it would not load without simd128).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { targetFeatures } from '../../tools/features.mjs';

const leb = (n) => {
  const out = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
};
const name = (s) => [...leb(s.length), ...Buffer.from(s)];
const section = (id, body) => [id, ...leb(body.length), ...body];
const module = (...sections) => Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...sections.flat()]);
const features = (...list) => section(0, [...name('target_features'), ...leb(list.length), ...list.flatMap((f) => [f.charCodeAt(0), ...name(f.slice(1))])]);

test('the features a module lists are read, after other sections', () => {
  const types = section(1, [0x01, 0x60, 0x00, 0x00]);
  const producers = section(0, [...name('producers'), 0x00]);
  assert.deepEqual(targetFeatures(module(types, producers, features('+sign-ext', '+simd128'))), ['+sign-ext', '+simd128']);
  assert.deepEqual(targetFeatures(module(features('+bulk-memory'))), ['+bulk-memory']);
});

test('a module without the section has no features to read', () => {
  assert.equal(targetFeatures(module(section(1, [0x01, 0x60, 0x00, 0x00]))), null);
});
