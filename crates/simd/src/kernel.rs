//! The two passes on `v128`s. Each function's contract is its caller's slices, as raw parts:
//! the engine's `Simd128` (`signal_map/attack/kernel.rs`) checks every length and index before
//! it calls, which is what makes the calls sound.

use core::arch::wasm32::{f32x4, f32x4_add, f32x4_mul, f32x4_splat, v128, v128_load, v128_store};

/// `acc + a·w` on each lane: the scalar `add_scaled`, rounded the same way.
#[inline]
#[target_feature(enable = "simd128")]
fn add_scaled(acc: v128, a: v128, w: f32) -> v128 {
    f32x4_add(acc, f32x4_mul(a, f32x4_splat(w)))
}

/// A dual number's constant: `c` in the value's lane, zero tangents.
#[inline]
#[target_feature(enable = "simd128")]
fn constant(c: f32) -> v128 {
    f32x4(c, 0.0, 0.0, 0.0)
}

/// The forward pass, four outputs a sweep: for each output o < `outputs`,
/// `z[o] = bias[o] + Σₖ rows[o·inputs + active[k]] · compact[k]` and `ga[o]` the same with
/// `grows` and `gbias`, k in ascending order.
///
/// # Safety
/// `rows` and `grows` hold `outputs · inputs` floats, `bias` and `gbias` `outputs`, `active`
/// `n` indices each below `inputs`, `compact` `n` dual numbers (4·n floats), and `z` and `ga`
/// `outputs` dual numbers each, writable and not overlapping the inputs.
#[unsafe(no_mangle)]
#[target_feature(enable = "simd128")]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn whereabouts_simd_forward(
    rows: *const f32,
    grows: *const f32,
    bias: *const f32,
    gbias: *const f32,
    outputs: usize,
    inputs: usize,
    active: *const usize,
    compact: *const f32,
    n: usize,
    z: *mut f32,
    ga: *mut f32,
) {
    // SAFETY (every access below): within the bounds the contract gives; v128_load and
    // v128_store take any alignment.
    unsafe {
        let dual = |p: *const f32, k: usize| v128_load(p.add(4 * k).cast());
        let mut o = 0;
        while o + 4 <= outputs {
            let row = |k: usize| rows.add((o + k) * inputs);
            let grow = |k: usize| grows.add((o + k) * inputs);
            let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
            let (g0, g1, g2, g3) = (grow(0), grow(1), grow(2), grow(3));
            let mut zs = [
                constant(*bias.add(o)),
                constant(*bias.add(o + 1)),
                constant(*bias.add(o + 2)),
                constant(*bias.add(o + 3)),
            ];
            let mut gas = [
                constant(*gbias.add(o)),
                constant(*gbias.add(o + 1)),
                constant(*gbias.add(o + 2)),
                constant(*gbias.add(o + 3)),
            ];
            for k in 0..n {
                let j = *active.add(k);
                let a = dual(compact, k);
                zs[0] = add_scaled(zs[0], a, *r0.add(j));
                gas[0] = add_scaled(gas[0], a, *g0.add(j));
                zs[1] = add_scaled(zs[1], a, *r1.add(j));
                gas[1] = add_scaled(gas[1], a, *g1.add(j));
                zs[2] = add_scaled(zs[2], a, *r2.add(j));
                gas[2] = add_scaled(gas[2], a, *g2.add(j));
                zs[3] = add_scaled(zs[3], a, *r3.add(j));
                gas[3] = add_scaled(gas[3], a, *g3.add(j));
            }
            for k in 0..4 {
                v128_store(z.add(4 * (o + k)).cast(), zs[k]);
                v128_store(ga.add(4 * (o + k)).cast(), gas[k]);
            }
            o += 4;
        }
        while o < outputs {
            let (row, grow) = (rows.add(o * inputs), grows.add(o * inputs));
            let mut zo = constant(*bias.add(o));
            let mut gao = constant(*gbias.add(o));
            for k in 0..n {
                let j = *active.add(k);
                let a = dual(compact, k);
                zo = add_scaled(zo, a, *row.add(j));
                gao = add_scaled(gao, a, *grow.add(j));
            }
            v128_store(z.add(4 * o).cast(), zo);
            v128_store(ga.add(4 * o).cast(), gao);
            o += 1;
        }
    }
}

/// The backward pass, four rows of δ a sweep: `back[k] = Σₒ rows[o·inputs + active[k]] ·
/// delta[o]` over the o < `outputs` whose δ is not zero (all four lanes equal to 0.0), in
/// ascending o; `back` is overwritten.
///
/// # Safety
/// `rows` holds `outputs · inputs` floats, `delta` `outputs` dual numbers, `active` `n`
/// indices each below `inputs`, and `back` `n` dual numbers, writable and not overlapping the
/// inputs.
#[unsafe(no_mangle)]
#[target_feature(enable = "simd128")]
pub unsafe extern "C" fn whereabouts_simd_backward(
    rows: *const f32,
    inputs: usize,
    delta: *const f32,
    outputs: usize,
    active: *const usize,
    n: usize,
    back: *mut f32,
) {
    // SAFETY (every access below): within the bounds the contract gives.
    unsafe {
        let zero = constant(0.0);
        for k in 0..n {
            v128_store(back.add(4 * k).cast(), zero);
        }
        // A zero δ adds exact zeros: skipping it keeps the bits (the scalar kernel skips it too).
        let live = |o: usize| {
            let d = delta.add(4 * o);
            !(*d == 0.0 && *d.add(1) == 0.0 && *d.add(2) == 0.0 && *d.add(3) == 0.0)
        };
        let dual = |o: usize| v128_load(delta.add(4 * o).cast());
        let row = |o: usize| rows.add(o * inputs);
        let mut o = 0;
        loop {
            // The next four rows that contribute, in ascending o; then the one to three left.
            let mut block = [0usize; 4];
            let mut found = 0;
            while found < 4 && o < outputs {
                if live(o) {
                    // `found` < 4 here.
                    *block.get_unchecked_mut(found) = o;
                    found += 1;
                }
                o += 1;
            }
            if found < 4 {
                for &o in block.iter().take(found) {
                    let (r, d) = (row(o), dual(o));
                    for k in 0..n {
                        let b = back.add(4 * k).cast();
                        v128_store(b, add_scaled(v128_load(b), d, *r.add(*active.add(k))));
                    }
                }
                return;
            }
            let [o0, o1, o2, o3] = block;
            let (r0, r1, r2, r3) = (row(o0), row(o1), row(o2), row(o3));
            let (d0, d1, d2, d3) = (dual(o0), dual(o1), dual(o2), dual(o3));
            for k in 0..n {
                let j = *active.add(k);
                let b = back.add(4 * k).cast();
                let mut acc = v128_load(b);
                acc = add_scaled(acc, d0, *r0.add(j));
                acc = add_scaled(acc, d1, *r1.add(j));
                acc = add_scaled(acc, d2, *r2.add(j));
                acc = add_scaled(acc, d3, *r3.add(j));
                v128_store(b, acc);
            }
        }
    }
}
