//! The DLG objective's two matrix–vector passes over a layer's live inputs, the loop where
//! nearly all of an attack iteration's time goes (`objective.rs`; BENCHMARKS.md "DLG").
//!
//! - forward: for each output o, zₒ = bₒ + Σⱼ Wₒⱼ aⱼ and (Ga)ₒ = gbₒ + Σⱼ Gₒⱼ aⱼ over the live
//!   inputs j, in the order they are listed;
//! - backward: for each live input j, backⱼ = Σₒ Wₒⱼ δₒ over the outputs whose δ is not zero,
//!   in ascending o.
//!
//! Every term is a [`D4`] (value and three tangents) times a constant weight, added to an
//! accumulator: `acc + a·w` on four lanes. Two [`Kernel`]s compute the same sums:
//!
//! - [`Scalar`]: `add_scaled` lane by lane, everywhere (natively the compiler vectorises it);
//! - [`Simd128`] (wasm only): a `D4` is one 128-bit vector and each term one `f32x4.mul` and one
//!   `f32x4.add`. simd128 has no fused multiply-add, so every lane rounds exactly as the scalar
//!   code does, and four outputs (forward) or four rows of δ (backward) are taken per sweep over
//!   the live inputs, each output's own sum keeping its order: the results are the same bits
//!   (tested here, and the lab's equivalence matrix runs under both in the browser's tests).
//!
//! The simd128 kernel is compiled in a build for simd128 (`-C target-feature=+simd128`), where
//! it is the default, and in the engine's own wasm tests, which run it beside the scalar one
//! in Chromium. It is left out of every other build on purpose: LLVM's WebAssembly backend gives
//! every function of a module the union of their features (the release build is one module,
//! fat LTO), so a single `#[target_feature(enable = "simd128")]` function made the whole worker
//! SIMD (measured with binaryen's validator), and a module with one SIMD instruction does not
//! load at all in a browser without simd128. Shipping it beside a scalar worker is a build of
//! its own (BENCHMARKS.md "DLG").

use super::objective::D4;
use std::cell::Cell;

/// A way to compute the two passes.
pub trait Kernel {
    /// Its name in benchmarks ("scalar", "simd128").
    fn name(&self) -> &'static str;

    /// One layer's forward pass: `z[o]` and `ga[o]` for every output o, where `rows` and
    /// `grows` are the layer's weight and observed-gradient matrices (row-major, `inputs` wide),
    /// `bias`/`gbias` their bias blocks (one per output), and (`active`, `compact`) the live
    /// inputs and their values.
    #[allow(clippy::too_many_arguments)]
    fn forward(
        &self,
        rows: &[f32],
        grows: &[f32],
        bias: &[f32],
        gbias: &[f32],
        inputs: usize,
        active: &[usize],
        compact: &[D4],
        z: &mut [D4],
        ga: &mut [D4],
    );

    /// One layer's backward pass: `back[k] = Σₒ rows[o][active[k]] · delta[o]` over the o with
    /// a non-zero δ (a zero δ would add exact zeros; skipping it keeps the bits). `back` is
    /// overwritten.
    fn backward(
        &self,
        rows: &[f32],
        inputs: usize,
        delta: &[D4],
        active: &[usize],
        back: &mut [D4],
    );
}

thread_local! {
    static CURRENT: Cell<&'static dyn Kernel> = const { Cell::new(DEFAULT) };
}

/// The kernel of this build: simd128 where it was compiled in, else the scalar one.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub const DEFAULT: &dyn Kernel = &SIMD128;
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub const DEFAULT: &dyn Kernel = &Scalar;

/// The kernel the attacks run on from now on (this thread).
pub fn install(kernel: &'static dyn Kernel) {
    CURRENT.with(|c| c.set(kernel));
}

/// The kernel the attacks run on: [`DEFAULT`] unless another was installed.
pub fn current() -> &'static dyn Kernel {
    CURRENT.with(Cell::get)
}

/// `add_scaled` on each lane, one output or one row at a time (the reference).
pub struct Scalar;

impl Kernel for Scalar {
    fn name(&self) -> &'static str {
        "scalar"
    }

    fn forward(
        &self,
        rows: &[f32],
        grows: &[f32],
        bias: &[f32],
        gbias: &[f32],
        inputs: usize,
        active: &[usize],
        compact: &[D4],
        z: &mut [D4],
        ga: &mut [D4],
    ) {
        for o in 0..bias.len() {
            let row = &rows[o * inputs..(o + 1) * inputs];
            let grow = &grows[o * inputs..(o + 1) * inputs];
            let mut zo = D4::constant(bias[o]);
            let mut gao = D4::constant(gbias[o]);
            for (&j, &a) in active.iter().zip(compact) {
                zo = zo.add_scaled(a, row[j]);
                gao = gao.add_scaled(a, grow[j]);
            }
            z[o] = zo;
            ga[o] = gao;
        }
    }

    fn backward(
        &self,
        rows: &[f32],
        inputs: usize,
        delta: &[D4],
        active: &[usize],
        back: &mut [D4],
    ) {
        back.fill(D4::ZERO);
        for (o, &d) in delta.iter().enumerate() {
            if d == D4::ZERO {
                continue;
            }
            let row = &rows[o * inputs..(o + 1) * inputs];
            for (b, &j) in back.iter_mut().zip(active) {
                *b = b.add_scaled(d, row[j]);
            }
        }
    }
}

/// The wasm simd128 kernel (a build for simd128, and the engine's wasm tests).
#[cfg(all(target_arch = "wasm32", any(target_feature = "simd128", test)))]
pub struct Simd128;

#[cfg(all(target_arch = "wasm32", any(target_feature = "simd128", test)))]
impl Kernel for Simd128 {
    fn name(&self) -> &'static str {
        "simd128"
    }

    fn forward(
        &self,
        rows: &[f32],
        grows: &[f32],
        bias: &[f32],
        gbias: &[f32],
        inputs: usize,
        active: &[usize],
        compact: &[D4],
        z: &mut [D4],
        ga: &mut [D4],
    ) {
        simd::forward(rows, grows, bias, gbias, inputs, active, compact, z, ga)
    }

    fn backward(
        &self,
        rows: &[f32],
        inputs: usize,
        delta: &[D4],
        active: &[usize],
        back: &mut [D4],
    ) {
        simd::backward(rows, inputs, delta, active, back)
    }
}

/// The simd128 kernel.
#[cfg(all(target_arch = "wasm32", any(target_feature = "simd128", test)))]
pub static SIMD128: Simd128 = Simd128;

#[cfg(all(target_arch = "wasm32", any(target_feature = "simd128", test)))]
mod simd {
    use super::D4;
    use core::arch::wasm32::{
        f32x4, f32x4_add, f32x4_mul, f32x4_splat, v128, v128_load, v128_store,
    };

    // A D4 is `#[repr(C)]` { v, d: [f32; 3] }: 16 bytes, the value in lane 0.
    const _: () = assert!(core::mem::size_of::<D4>() == 16);

    #[inline]
    #[target_feature(enable = "simd128")]
    fn load(a: &D4) -> v128 {
        // SAFETY: a D4 is 16 readable bytes (checked above); v128_load takes any alignment.
        unsafe { v128_load((a as *const D4).cast()) }
    }

    #[inline]
    #[target_feature(enable = "simd128")]
    fn store(to: &mut D4, v: v128) {
        // SAFETY: as in `load`, and every bit pattern is a D4.
        unsafe { v128_store((to as *mut D4).cast(), v) }
    }

    #[inline]
    #[target_feature(enable = "simd128")]
    fn constant(c: f32) -> v128 {
        f32x4(c, 0.0, 0.0, 0.0)
    }

    /// `acc + a·w` on each lane: the scalar `add_scaled`, rounded the same way.
    #[inline]
    #[target_feature(enable = "simd128")]
    fn add_scaled(acc: v128, a: v128, w: f32) -> v128 {
        f32x4_add(acc, f32x4_mul(a, f32x4_splat(w)))
    }

    /// [`super::Kernel::forward`], four outputs a sweep.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "simd128")]
    pub(super) fn forward(
        rows: &[f32],
        grows: &[f32],
        bias: &[f32],
        gbias: &[f32],
        inputs: usize,
        active: &[usize],
        compact: &[D4],
        zs: &mut [D4],
        gas: &mut [D4],
    ) {
        let outputs = bias.len();
        let mut o = 0;
        while o + 4 <= outputs {
            let row = |k: usize| &rows[(o + k) * inputs..(o + k + 1) * inputs];
            let grow = |k: usize| &grows[(o + k) * inputs..(o + k + 1) * inputs];
            let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
            let (g0, g1, g2, g3) = (grow(0), grow(1), grow(2), grow(3));
            let mut z = [
                constant(bias[o]),
                constant(bias[o + 1]),
                constant(bias[o + 2]),
                constant(bias[o + 3]),
            ];
            let mut ga = [
                constant(gbias[o]),
                constant(gbias[o + 1]),
                constant(gbias[o + 2]),
                constant(gbias[o + 3]),
            ];
            for (&j, a) in active.iter().zip(compact) {
                let a = load(a);
                z[0] = add_scaled(z[0], a, r0[j]);
                ga[0] = add_scaled(ga[0], a, g0[j]);
                z[1] = add_scaled(z[1], a, r1[j]);
                ga[1] = add_scaled(ga[1], a, g1[j]);
                z[2] = add_scaled(z[2], a, r2[j]);
                ga[2] = add_scaled(ga[2], a, g2[j]);
                z[3] = add_scaled(z[3], a, r3[j]);
                ga[3] = add_scaled(ga[3], a, g3[j]);
            }
            for k in 0..4 {
                store(&mut zs[o + k], z[k]);
                store(&mut gas[o + k], ga[k]);
            }
            o += 4;
        }
        for o in o..outputs {
            let row = &rows[o * inputs..(o + 1) * inputs];
            let grow = &grows[o * inputs..(o + 1) * inputs];
            let mut z = constant(bias[o]);
            let mut ga = constant(gbias[o]);
            for (&j, a) in active.iter().zip(compact) {
                let a = load(a);
                z = add_scaled(z, a, row[j]);
                ga = add_scaled(ga, a, grow[j]);
            }
            store(&mut zs[o], z);
            store(&mut gas[o], ga);
        }
    }

    /// [`super::Kernel::backward`], four rows of δ a sweep.
    #[target_feature(enable = "simd128")]
    pub(super) fn backward(
        rows: &[f32],
        inputs: usize,
        delta: &[D4],
        active: &[usize],
        back: &mut [D4],
    ) {
        back.fill(D4::ZERO);
        // The rows that contribute, in ascending o, four at a time; then the one to three left.
        let live = |o: usize| delta[o] != D4::ZERO;
        let row = |o: usize| &rows[o * inputs..(o + 1) * inputs];
        let mut o = 0;
        loop {
            let mut block = [0usize; 4];
            let mut n = 0;
            while n < 4 && o < delta.len() {
                if live(o) {
                    block[n] = o;
                    n += 1;
                }
                o += 1;
            }
            if n < 4 {
                for &o in &block[..n] {
                    let (r, d) = (row(o), load(&delta[o]));
                    for (b, &j) in back.iter_mut().zip(active) {
                        store(b, add_scaled(load(b), d, r[j]));
                    }
                }
                return;
            }
            let [o0, o1, o2, o3] = block;
            let (r0, r1, r2, r3) = (row(o0), row(o1), row(o2), row(o3));
            let (d0, d1, d2, d3) = (
                load(&delta[o0]),
                load(&delta[o1]),
                load(&delta[o2]),
                load(&delta[o3]),
            );
            for (b, &j) in back.iter_mut().zip(active) {
                let mut acc = load(b);
                acc = add_scaled(acc, d0, r0[j]);
                acc = add_scaled(acc, d1, r1[j]);
                acc = add_scaled(acc, d2, r2[j]);
                acc = add_scaled(acc, d3, r3[j]);
                store(b, acc);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;
    use whereabouts_core::rng::Stream;

    /// A layer of `outputs` × `inputs` with a third of its inputs dead, and a δ with zeros.
    struct Layer {
        rows: Vec<f32>,
        grows: Vec<f32>,
        bias: Vec<f32>,
        gbias: Vec<f32>,
        inputs: usize,
        active: Vec<usize>,
        compact: Vec<D4>,
        delta: Vec<D4>,
    }

    fn layer(outputs: usize, inputs: usize, seed: u64) -> Layer {
        let mut s = Stream::new(seed, "kernel-test");
        let mut draw = |n: usize| {
            (0..n)
                .map(|_| s.gaussian(0.0, 1.0) as f32)
                .collect::<Vec<_>>()
        };
        let (rows, grows) = (draw(outputs * inputs), draw(outputs * inputs));
        let (bias, gbias) = (draw(outputs), draw(outputs));
        let active: Vec<usize> = (0..inputs).filter(|j| j % 3 != 1).collect();
        let d4 = |v: &[f32]| D4 {
            v: v[0],
            d: [v[1], v[2], v[3]],
        };
        let compact = draw(4 * active.len()).chunks(4).map(d4).collect();
        let delta = draw(4 * outputs)
            .chunks(4)
            .enumerate()
            .map(|(o, v)| if o % 5 == 2 { D4::ZERO } else { d4(v) })
            .collect();
        Layer {
            rows,
            grows,
            bias,
            gbias,
            inputs,
            active,
            compact,
            delta,
        }
    }

    fn run(kernel: &dyn Kernel, l: &Layer) -> (Vec<(usize, D4, D4)>, Vec<D4>) {
        let n = l.bias.len();
        let (mut z, mut ga) = (
            vec![D4::constant(f32::NAN); n],
            vec![D4::constant(f32::NAN); n],
        );
        kernel.forward(
            &l.rows, &l.grows, &l.bias, &l.gbias, l.inputs, &l.active, &l.compact, &mut z, &mut ga,
        );
        let out = (0..n).map(|o| (o, z[o], ga[o])).collect();
        let mut back = vec![D4::constant(f32::NAN); l.active.len()];
        kernel.backward(&l.rows, l.inputs, &l.delta, &l.active, &mut back);
        (out, back)
    }

    #[test]
    fn the_scalar_kernel_computes_the_documented_sums() {
        // 7 outputs, 10 inputs: blocks of four and a remainder; f64 sums are close, not equal.
        let l = layer(7, 10, 1);
        let (out, back) = run(&Scalar, &l);
        assert_eq!(
            out.iter().map(|o| o.0).collect::<Vec<_>>(),
            (0..7).collect::<Vec<_>>()
        );
        for &(o, z, _) in &out {
            // The bias is a constant: the tangent is the sum alone.
            let want: f64 = l
                .active
                .iter()
                .zip(&l.compact)
                .map(|(&j, a)| f64::from(l.rows[o * 10 + j]) * f64::from(a.d[1]))
                .sum::<f64>();
            assert!((f64::from(z.d[1]) - want).abs() < 1e-5, "output {o}");
        }
        for (k, &j) in l.active.iter().enumerate() {
            let want: f64 = (0..7)
                .map(|o| f64::from(l.rows[o * 10 + j]) * f64::from(l.delta[o].v))
                .sum();
            assert!((f64::from(back[k].v) - want).abs() < 1e-5, "input {j}");
        }
        assert_eq!(current().name(), DEFAULT.name());
    }

    /// The simd128 kernel gives the scalar kernel's bits, on layers with and without a remainder
    /// of outputs and of non-zero δ rows (the lab's equivalence matrix also runs under both).
    #[cfg(target_arch = "wasm32")]
    #[test]
    fn the_simd128_kernel_gives_the_scalar_bits() {
        for (outputs, inputs, seed) in [
            (1, 64, 2),
            (7, 10, 3),
            (64, 64, 4),
            (640, 224, 5),
            (3, 2, 6),
        ] {
            let l = layer(outputs, inputs, seed);
            let (a, b) = (run(&Scalar, &l), run(&SIMD128, &l));
            let bits = |v: &[D4]| {
                v.iter()
                    .flat_map(|d| [d.v, d.d[0], d.d[1], d.d[2]])
                    .map(f32::to_bits)
                    .collect::<Vec<_>>()
            };
            let fwd = |v: &[(usize, D4, D4)]| {
                v.iter()
                    .flat_map(|&(o, z, ga)| [o as u32].into_iter().chain(bits(&[z, ga])))
                    .collect::<Vec<_>>()
            };
            assert_eq!(fwd(&a.0), fwd(&b.0), "forward, {outputs}×{inputs}");
            assert_eq!(bits(&a.1), bits(&b.1), "backward, {outputs}×{inputs}");
        }
    }
}
