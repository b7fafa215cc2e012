// tools/features.mjs finds the functions of a wasm module that use SIMD, reading the
// instructions, which tools/build.mjs uses to refuse a site module with SIMD (it would not load
// without simd128) other than the simd128 DLG kernel's chunk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sections, simdFunctions } from '../../tools/features.mjs';

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
const code = (...bodies) => section(10, [...leb(bodies.length), ...bodies.flatMap((b) => [...leb(b.length), ...b])]);
const producers = section(0, [...name('producers'), 0x00]);

// A body that touches every kind of immediate the reader skips: locals, a block with a value
// type and one with a type index, br_table, i32/i64/f32/f64 constants, a load's memarg,
// call_indirect, memory.copy and a saturating conversion (0xFC), typed select, ref.null.
const plain = [
  0x01, 0x02, 0x7f, // one local group: two i32
  0x02, 0x7f, 0x41, 0xc0, 0xbb, 0x78, 0x0b, // block (result i32) i32.const -123456 end
  0x02, 0x00, 0x0b, // block (type 0) end
  0x42, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x1a, // i64.const, drop
  0x43, 0, 0, 0x80, 0x3f, 0x1a, // f32.const 1.0, drop
  0x44, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x1a, // f64.const 1.0, drop
  0x41, 0x00, 0x28, 0x02, 0x80, 0x08, // i32.const 0, i32.load align=2 offset=1024
  0x41, 0x00, 0x0e, 0x02, 0x00, 0x01, 0x00, // i32.const 0, br_table [0 1] 0
  0x41, 0, 0x41, 0, 0x41, 0, 0xfc, 0x0a, 0x00, 0x00, // memory.copy
  0x43, 0, 0, 0, 0, 0xfc, 0x00, 0x1a, // i32.trunc_sat_f32_s, drop
  0x41, 0, 0x41, 0, 0x41, 0, 0x1c, 0x01, 0x7f, 0x1a, // select (result i32), drop
  0xd0, 0x70, 0x1a, // ref.null func, drop
  0x41, 0, 0x11, 0x00, 0x00, // call_indirect type 0 table 0
  0x0b,
];
// `v128.const 0; drop`: the one SIMD instruction.
const simd = [0x00, 0xfd, 0x0c, ...new Array(16).fill(0), 0x1a, 0x0b];

test('the functions with a SIMD instruction are found, after every other kind of immediate', () => {
  assert.deepEqual(simdFunctions(module(producers, code(plain, simd, plain))), [1]);
  assert.deepEqual(simdFunctions(module(code(simd, simd))), [0, 1]);
});

test('a module without SIMD has none, and one without code has none', () => {
  assert.deepEqual(simdFunctions(module(code(plain, plain))), []);
  assert.deepEqual(simdFunctions(module(section(1, [0x01, 0x60, 0x00, 0x00]))), []);
});

test('an instruction the reader does not know is refused by name, not misread', () => {
  const withTry = [0x00, 0x06, 0x40, 0x0b, 0x0b]; // try (exceptions) … end
  assert.throws(() => simdFunctions(module(code(plain, withTry))), /function 1: opcode 0x6 at byte/);
});

test('the probe src/worker/simd.rs validates is a SIMD module to this reader and to V8', async () => {
  // The worker's PROBE, byte for byte.
  const probe = Buffer.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,
    0x03, 0x02, 0x01, 0x00, 0x0a, 0x16, 0x01, 0x14, 0x00, 0xfd, 0x0c, ...new Array(16).fill(0), 0x0b,
  ]);
  assert.equal(WebAssembly.validate(probe), true);
  assert.deepEqual(simdFunctions(probe), [0]);
  assert.deepEqual([...sections(probe)].map((s) => s.id), [1, 3, 10]);
});
