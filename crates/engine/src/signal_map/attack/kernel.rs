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
//! - [`Simd128`]: the front of the `whereabouts-simd` crate's wasm simd128 passes, where a `D4`
//!   is one 128-bit vector and each term one `f32x4.mul` and one `f32x4.add`. simd128 has no
//!   fused multiply-add, so every lane rounds exactly as the scalar code does, and four outputs
//!   (forward) or four rows of δ (backward) are taken per sweep over the live inputs, each
//!   output's own sum keeping its order: the results are the same bits (tested here, and the
//!   lab's equivalence matrix runs under both in the browser's tests).
//!
//! The engine holds no SIMD code itself: LLVM's WebAssembly backend gives every function of a
//! module the union of their features (the release build is one module, fat LTO), so a single
//! `#[target_feature(enable = "simd128")]` function made the whole worker SIMD (measured with
//! binaryen's validator), and a module with one SIMD instruction does not load at all in a
//! browser without simd128. The site's worker links the simd128 passes as an object file of
//! their own, in a chunk fetched only where the browser has SIMD, and installs them with
//! [`install`] (`src/worker/simd.rs`); everywhere else the scalar kernel runs.

use super::objective::D4;
use std::cell::Cell;
use whereabouts_core::rng::Stream;

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

/// The kernel a thread starts with: the scalar one, which every build has.
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

/// The simd128 passes' signatures (`whereabouts-simd`'s `forward` and `backward`, whose safety
/// contracts [`Simd128`] keeps): raw parts of the slices [`Kernel::forward`] and
/// [`Kernel::backward`] take, a `D4` as four floats.
pub type SimdForward = unsafe extern "C" fn(
    *const f32,
    *const f32,
    *const f32,
    *const f32,
    usize,
    usize,
    *const usize,
    *const f32,
    usize,
    *mut f32,
    *mut f32,
);
/// See [`SimdForward`].
pub type SimdBackward =
    unsafe extern "C" fn(*const f32, usize, *const f32, usize, *const usize, usize, *mut f32);

/// The simd128 kernel: `whereabouts-simd`'s two passes behind checks that make every call
/// sound (each slice's length, each live input below the layer's width).
pub struct Simd128 {
    forward: SimdForward,
    backward: SimdBackward,
}

impl Simd128 {
    /// The kernel over these two passes.
    ///
    /// # Safety
    /// `forward` and `backward` must be `whereabouts-simd`'s functions (or keep their
    /// contracts: read and write only within the bounds their documentation gives), and may
    /// only be called where the machine has wasm simd128.
    pub const unsafe fn new(forward: SimdForward, backward: SimdBackward) -> Self {
        Self { forward, backward }
    }
}

/// The raw parts of a `D4` slice, as four floats each (`Dual` is `repr(C)`, 16 bytes).
fn floats(v: &[D4]) -> *const f32 {
    const { assert!(std::mem::size_of::<D4>() == 16 && std::mem::align_of::<D4>() == 4) };
    v.as_ptr().cast()
}

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
        let outputs = bias.len();
        let cells = outputs
            .checked_mul(inputs)
            .expect("the layer's size fits in memory");
        assert!(rows.len() >= cells && grows.len() >= cells && gbias.len() == outputs);
        assert!(z.len() >= outputs && ga.len() >= outputs && compact.len() == active.len());
        assert!(
            active.iter().all(|&j| j < inputs),
            "a live input past the layer's width"
        );
        // SAFETY: the lengths and indices checked above are the contract `new`'s caller
        // vouched `forward` keeps; `z` and `ga` are exclusive borrows, apart from the inputs.
        unsafe {
            (self.forward)(
                rows.as_ptr(),
                grows.as_ptr(),
                bias.as_ptr(),
                gbias.as_ptr(),
                outputs,
                inputs,
                active.as_ptr(),
                floats(compact),
                active.len(),
                z.as_mut_ptr().cast(),
                ga.as_mut_ptr().cast(),
            )
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
        let outputs = delta.len();
        let cells = outputs
            .checked_mul(inputs)
            .expect("the layer's size fits in memory");
        assert!(rows.len() >= cells && back.len() == active.len());
        assert!(
            active.iter().all(|&j| j < inputs),
            "a live input past the layer's width"
        );
        // SAFETY: as in `forward`.
        unsafe {
            (self.backward)(
                rows.as_ptr(),
                inputs,
                floats(delta),
                outputs,
                active.as_ptr(),
                active.len(),
                back.as_mut_ptr().cast(),
            )
        }
    }
}

/// Where two kernels' results first differ, bit for bit, on a layer of `outputs` × `inputs`
/// drawn from `seed` (a third of its inputs dead, every fifth row of δ zero): `None` if they
/// agree everywhere. For tests: the engine's (the simd128 passes as a library) and the app's
/// (`tests/browser.rs`: the object the worker links).
pub fn first_difference(
    a: &dyn Kernel,
    b: &dyn Kernel,
    outputs: usize,
    inputs: usize,
    seed: u64,
) -> Option<String> {
    let l = layer(outputs, inputs, seed);
    let ((fa, ba), (fb, bb)) = (run(a, &l), run(b, &l));
    let bits = |d: &D4| [d.v, d.d[0], d.d[1], d.d[2]].map(f32::to_bits);
    let forward = fa
        .iter()
        .zip(&fb)
        .find(|((_, za, ga), (_, zb, gb))| (bits(za), bits(ga)) != (bits(zb), bits(gb)));
    if let Some(((o, za, ga), (_, zb, gb))) = forward {
        return Some(format!(
            "forward, {outputs}×{inputs}, output {o}: {} gives z {za:?}, Ga {ga:?}; {} gives z {zb:?}, Ga {gb:?}",
            a.name(),
            b.name()
        ));
    }
    let backward = ba.iter().zip(&bb).position(|(x, y)| bits(x) != bits(y));
    backward.map(|k| {
        format!(
            "backward, {outputs}×{inputs}, live input {k}: {} gives {:?}; {} gives {:?}",
            a.name(),
            ba[k],
            b.name(),
            bb[k]
        )
    })
}

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

/// Both passes of `kernel` on `l`: each output with its z and Ga, and the backward sums.
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

/// The simd128 kernel of the engine's wasm tests, from `whereabouts-simd` as a library.
#[cfg(all(test, target_arch = "wasm32"))]
pub(crate) static SIMD128: Simd128 =
    // SAFETY: these are whereabouts-simd's own passes, and the tests run in Chromium, which
    // has simd128.
    unsafe { Simd128::new(whereabouts_simd::forward, whereabouts_simd::backward) };

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// `Simd128`'s checks come before the raw call: a live input past the layer's width or a
    /// short buffer panics rather than reach the passes (here stand-ins that only say they ran).
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_simd128_front_refuses_what_the_passes_could_not_read_safely() {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        static RAN: AtomicUsize = AtomicUsize::new(0);
        unsafe extern "C" fn forward(
            _: *const f32,
            _: *const f32,
            _: *const f32,
            _: *const f32,
            _: usize,
            _: usize,
            _: *const usize,
            _: *const f32,
            _: usize,
            _: *mut f32,
            _: *mut f32,
        ) {
            RAN.fetch_add(1, SeqCst);
        }
        unsafe extern "C" fn backward(
            _: *const f32,
            _: usize,
            _: *const f32,
            _: usize,
            _: *const usize,
            _: usize,
            _: *mut f32,
        ) {
            RAN.fetch_add(1, SeqCst);
        }
        // SAFETY: neither stand-in reads or writes through its pointers.
        let k = unsafe { Simd128::new(forward, backward) };
        let l = layer(3, 5, 1);
        let refused = |f: &dyn Fn()| {
            let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
            e.downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| e.downcast_ref::<String>().cloned())
                .unwrap_or_default()
        };
        let two = [D4::ZERO; 2];
        // The forward pass on `rows` with these live inputs, and the backward one.
        let forward = |rows: &[f32], active: &[usize]| {
            let (mut z, mut ga) = ([D4::ZERO; 3], [D4::ZERO; 3]);
            k.forward(
                rows, &l.grows, &l.bias, &l.gbias, 5, active, &two, &mut z, &mut ga,
            )
        };
        let backward = |active: &[usize], back: usize| {
            k.backward(&l.rows, 5, &l.delta, active, &mut vec![D4::ZERO; back])
        };
        let m = refused(&|| forward(&l.rows, &[0, 5]));
        assert!(m.contains("past the layer's width"), "{m}");
        let m = refused(&|| backward(&[0, 5], 2));
        assert!(m.contains("past the layer's width"), "{m}");
        // A weight matrix too short for 3 outputs of 5 inputs, and a `back` of the wrong length.
        let m = refused(&|| forward(&l.rows[..14], &[0, 1]));
        assert!(m.contains("assertion failed"), "{m}");
        let m = refused(&|| backward(&[0, 4], 1));
        assert!(m.contains("assertion failed"), "{m}");
        assert_eq!(RAN.load(SeqCst), 0, "a pass ran on a refused call");
        // Within bounds both passes are called.
        forward(&l.rows, &[0, 4]);
        backward(&[0, 4], 2);
        assert_eq!(RAN.load(SeqCst), 2);
    }

    /// `first_difference` (the helper the kernels' bit tests rely on) finds one last bit.
    #[test]
    fn first_difference_sees_one_bit_in_either_pass() {
        struct Off(bool);
        impl Kernel for Off {
            fn name(&self) -> &'static str {
                "off by one bit"
            }
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
            ) {
                Scalar.forward(rows, grows, bias, gbias, inputs, active, compact, z, ga);
                if self.0 {
                    ga[2].d[1] = f32::from_bits(ga[2].d[1].to_bits() ^ 1);
                }
            }
            fn backward(&self, rows: &[f32], inputs: usize, d: &[D4], a: &[usize], b: &mut [D4]) {
                Scalar.backward(rows, inputs, d, a, b);
                if !self.0 {
                    b[1].v = f32::from_bits(b[1].v.to_bits() ^ 1);
                }
            }
        }
        assert_eq!(first_difference(&Scalar, &Scalar, 7, 10, 1), None);
        let f = first_difference(&Scalar, &Off(true), 7, 10, 1).unwrap();
        assert!(f.starts_with("forward, 7×10, output 2"), "{f}");
        let b = first_difference(&Scalar, &Off(false), 7, 10, 1).unwrap();
        assert!(b.starts_with("backward, 7×10, live input 1"), "{b}");
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
            let difference = first_difference(&Scalar, &SIMD128, outputs, inputs, seed);
            assert_eq!(difference, None);
        }
    }
}
