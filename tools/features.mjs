// A wasm module's sections (`sections`: build.mjs strips the chunks' custom sections with it), and
// which of its functions use wasm SIMD (`simdFunctions`), read from the instructions themselves.
//
// tools/build.mjs checks with it that the site's page, the worker's main module and every lab's
// chunk hold no SIMD instruction: a module with one does not load in a browser without simd128.
// Only the chunk of the simd128 DLG kernel may, and must (crates/simd: it is fetched only where
// the browser validates SIMD, src/worker/simd.rs). The `target_features` custom section cannot
// tell: wasm-ld merges the features of every object it links, so the worker lists +simd128
// while only the kernel's two functions use it.

function leb(buf, at) {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = buf[at++];
    if (byte === undefined) throw new Error('a LEB128 number runs past the end of the module');
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, at];
  }
}

/** Skips a LEB128 number (signed or not) at `at`. */
function skipLeb(buf, at) {
  while (buf[at++] & 0x80);
  return at;
}

/** Each section of `wasm` (a Buffer) in order: its id, where it starts, where its payload starts
 * and where it ends (an id byte, a LEB128 size and the payload: the WebAssembly spec, §5.5.2). */
export function* sections(wasm) {
  let at = 8;
  while (at < wasm.length) {
    const start = at;
    const id = wasm[at++];
    let size;
    [size, at] = leb(wasm, at);
    yield { id, start, payload: at, end: at + size };
    at += size;
  }
}

// The immediates of each opcode rustc's wasm32 target emits (the spec's §5.4, with the
// sign-extension, non-trapping conversion, bulk-memory, reference-types, multi-value and
// tail-call proposals), as a list of kinds: 'u' a LEB128 number, 'f4'/'f8' a float's bytes,
// 'bt' a block type, 'vec' a vector of numbers, 'vt' a vector of value types.
const IMMEDIATES = new Map([
  [0x02, ['bt']], [0x03, ['bt']], [0x04, ['bt']], [0x0c, ['u']], [0x0d, ['u']], [0x0e, ['vec', 'u']],
  [0x10, ['u']], [0x11, ['u', 'u']], [0x12, ['u']], [0x13, ['u', 'u']], [0x1c, ['vt']],
  [0x20, ['u']], [0x21, ['u']], [0x22, ['u']], [0x23, ['u']], [0x24, ['u']], [0x25, ['u']], [0x26, ['u']],
  [0x3f, ['u']], [0x40, ['u']], [0x41, ['u']], [0x42, ['u']], [0x43, ['f4']], [0x44, ['f8']],
  [0xd0, ['byte']], [0xd2, ['u']],
]);
for (let op = 0x28; op <= 0x3e; op++) IMMEDIATES.set(op, ['u', 'u']); // loads and stores: memarg
for (const op of [0x00, 0x01, 0x05, 0x0b, 0x0f, 0x1a, 0x1b, 0xd1]) IMMEDIATES.set(op, []);
for (let op = 0x45; op <= 0xc4; op++) IMMEDIATES.set(op, []); // numeric, sign extension
// 0xFC n: saturating conversions (0–7), then bulk memory and tables (8–17).
const FC = [[], [], [], [], [], [], [], [], ['u', 'u'], ['u'], ['u', 'u'], ['u'], ['u', 'u'], ['u'], ['u', 'u'], ['u'], ['u'], ['u']];

/** The indices (in the code section's order) of the function bodies of `wasm` (a Buffer) that
 * hold a SIMD instruction (prefix 0xFD). Throws, naming the byte, on an instruction it does not
 * know, rather than misread what follows. */
export function simdFunctions(wasm) {
  const found = [];
  for (const { id, payload, end } of sections(wasm)) {
    if (id !== 10) continue;
    let [count, at] = leb(wasm, payload);
    for (let f = 0; f < count; f++) {
      let size;
      [size, at] = leb(wasm, at);
      const bodyEnd = at + size;
      let locals;
      [locals, at] = leb(wasm, at);
      for (let l = 0; l < locals; l++) at = skipLeb(wasm, at) + 1;
      while (at < bodyEnd) {
        const op = wasm[at++];
        if (op === 0xfd) {
          found.push(f);
          break;
        }
        let kinds = IMMEDIATES.get(op);
        if (op === 0xfc) {
          let sub;
          [sub, at] = leb(wasm, at);
          kinds = FC[sub];
        }
        if (kinds === undefined) {
          throw new Error(`function ${f}: opcode 0x${op.toString(16)} at byte ${at - 1} is not one this check reads`);
        }
        for (const kind of kinds) {
          if (kind === 'u') at = skipLeb(wasm, at);
          else if (kind === 'byte') at += 1;
          else if (kind === 'f4') at += 4;
          else if (kind === 'f8') at += 8;
          else if (kind === 'bt') {
            // 0x40 (empty) or a value type is one byte; otherwise a type index (signed LEB128).
            const b = wasm[at];
            at = b === 0x40 || (b >= 0x6f && b <= 0x7f) ? at + 1 : skipLeb(wasm, at);
          } else if (kind === 'vec' || kind === 'vt') {
            let n;
            [n, at] = leb(wasm, at);
            for (let i = 0; i < n; i++) at = kind === 'vec' ? skipLeb(wasm, at) : at + 1;
          }
        }
      }
      at = bodyEnd;
    }
    if (at !== end) throw new Error('the code section does not end where its size says');
  }
  return found;
}
