// A wasm module's sections (`sections`: build.mjs strips the chunks' custom sections with it), and
// the wasm features a linked module uses, from the `target_features` custom section that
// rustc's linker (wasm-ld) writes: a count, then for each feature a prefix byte ('+' used,
// '-' disallowed, '=' required) and its name (the tool-conventions "Target features section").
//
// tools/build.mjs checks with it that the site's binaries use no wasm SIMD: a module with one
// SIMD instruction does not load in a browser without simd128, and LLVM gives every function
// of a module the union of the features any one asked for
// (crates/engine/src/signal_map/attack/kernel.rs).

function leb(buf, at) {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = buf[at++];
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, at];
  }
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

/** The features `wasm` (a Buffer) lists, e.g. ['+bulk-memory', '+simd128']; null if none. */
export function targetFeatures(wasm) {
  for (const { id, payload } of sections(wasm)) {
    if (id !== 0) continue;
    let [length, p] = leb(wasm, payload);
    if (wasm.subarray(p, p + length).toString() !== 'target_features') continue;
    p += length;
    let count;
    [count, p] = leb(wasm, p);
    const features = [];
    for (let i = 0; i < count; i++) {
      const prefix = String.fromCharCode(wasm[p++]);
      [length, p] = leb(wasm, p);
      features.push(prefix + wasm.subarray(p, p + length).toString());
      p += length;
    }
    return features;
  }
  return null;
}
