//! Sums of many plane waves on a regular grid, fast: a two-dimensional type-1 non-uniform FFT
//! by Gaussian gridding (Greengard & Lee, "Accelerating the nonuniform fast Fourier transform",
//! SIAM Review 46(3), 2004, §2).
//!
//! The server's aggregate in [003] Eq. 6 is Σ over N users and B features of
//! cos(ω_bᵀ(g − d_i)): N·B plane waves, each with its own frequency, evaluated on P × Q points.
//! Directly that is N·B·P·Q cosines (or, separated by axis, 2·N·B·P·Q multiply-adds:
//! 3.3·10⁹ for N = 10,000, B = 10 on 128 × 128). Written as F(m, n) = Σ_k c_k e^{i(x_k m + y_k n)}
//! it is a type-1 NUFFT: each wave is spread onto an oversampled grid with a Gaussian, one FFT
//! follows, and the Gaussian's transform is divided out. The cost is N·B·(2·SPREAD)² + an FFT
//! of (2P) × (2Q), and the error is about e^{−π·SPREAD·(R − ½)/R} of Σ|c_k| (≈ 10⁻⁸ here).

use rustfft::{FftPlanner, num_complex::Complex64};
use std::f64::consts::PI;

/// One wave a·cos(x·i + y·j + φ) over the integer grid (i, j).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wave {
    /// Phase steps per column and per row, radians.
    pub x: f64,
    pub y: f64,
    /// Phase at (0, 0), radians.
    pub phase: f64,
    pub amplitude: f64,
}

/// Grid points on each side of a wave's position the Gaussian is spread to (Msp).
const SPREAD: usize = 8;
/// Oversampling ratio of the spreading grid (R).
const OVERSAMPLING: usize = 2;

/// Σ_k a_k cos(x_k·i + y_k·j + φ_k) for i = 0..p, j = 0..q, row-major (index j·p + i).
pub fn cosine_sum(waves: &[Wave], p: usize, q: usize) -> Vec<f64> {
    let mut sum = CosineSum::new(p, q);
    for w in waves {
        sum.add(w);
    }
    sum.finish()
}

/// The sum built wave by wave (so a caller can spread it over slices of time), then finished
/// with one FFT.
pub struct CosineSum {
    p: usize,
    q: usize,
    /// The oversampled spreading grid, (2p) × (2q), row-major.
    grid: Vec<Complex64>,
    /// τ of the Gaussian along each axis.
    tx: f64,
    ty: f64,
    /// exp(−(t·h)²/4τ) for t = 0..2·SPREAD along each axis, h the grid step: the part of every
    /// wave's weights that does not depend on the wave ([`weights`]).
    ex: [f64; 2 * SPREAD],
    ey: [f64; 2 * SPREAD],
}

impl CosineSum {
    pub fn new(p: usize, q: usize) -> CosineSum {
        let r = OVERSAMPLING as f64;
        let tau = |m: usize| PI * SPREAD as f64 / ((m * m).max(1) as f64 * r * (r - 0.5));
        let (tx, ty) = (tau(p), tau(q));
        CosineSum {
            p,
            q,
            grid: vec![Complex64::new(0.0, 0.0); OVERSAMPLING * p * OVERSAMPLING * q],
            tx,
            ty,
            ex: fixed_factors(OVERSAMPLING * p, tx),
            ey: fixed_factors(OVERSAMPLING * q, ty),
        }
    }

    /// Spreads one wave onto the oversampled grid ((2·SPREAD)² multiply-adds).
    pub fn add(&mut self, w: &Wave) {
        let (mx, my) = (OVERSAMPLING * self.p, OVERSAMPLING * self.q);
        // Modes are taken symmetric about 0: i = m + p/2 with m in [−p/2, p − p/2).
        let (offx, offy) = (self.p / 2, self.q / 2);
        let (x, y) = (wrap(w.x), wrap(w.y));
        let theta = w.phase + x * offx as f64 + y * offy as f64;
        let c = Complex64::new(
            w.amplitude * libm::cos(theta),
            w.amplitude * libm::sin(theta),
        );
        let (mut wx, mut ix) = ([0.0; 2 * SPREAD], [0usize; 2 * SPREAD]);
        let (mut wy, mut iy) = ([0.0; 2 * SPREAD], [0usize; 2 * SPREAD]);
        weights(x, mx, self.tx, &self.ex, &mut wx, &mut ix);
        weights(y, my, self.ty, &self.ey, &mut wy, &mut iy);
        for (&fy, &row) in wy.iter().zip(&iy) {
            let cy = c * fy;
            let line = &mut self.grid[row * mx..(row + 1) * mx];
            for (&fx, &col) in wx.iter().zip(&ix) {
                line[col] += cy * fx;
            }
        }
    }

    /// One inverse FFT, then the Gaussian's transform divided out: the p × q sums.
    pub fn finish(mut self) -> Vec<f64> {
        let (p, q) = (self.p, self.q);
        if p == 0 || q == 0 {
            return Vec::new();
        }
        let (mx, my) = (OVERSAMPLING * p, OVERSAMPLING * q);
        let (offx, offy) = (p / 2, q / 2);
        inverse_fft_2d(&mut self.grid, mx, my);
        let scale = |n: i64, m: usize, t: f64| {
            libm::sqrt(PI / t) * libm::exp((n * n) as f64 * t) / m as f64
        };
        let columns: Vec<(usize, f64)> = (0..p)
            .map(|i| {
                let m = i as i64 - offx as i64;
                (m.rem_euclid(mx as i64) as usize, scale(m, mx, self.tx))
            })
            .collect();
        let mut out = vec![0.0; p * q];
        for (j, row) in out.chunks_exact_mut(p).enumerate() {
            let n = j as i64 - offy as i64;
            let (ky, sy) = (n.rem_euclid(my as i64) as usize, scale(n, my, self.ty));
            let line = &self.grid[ky * mx..(ky + 1) * mx];
            for (v, &(kx, sx)) in row.iter_mut().zip(&columns) {
                *v = line[kx].re * sx * sy;
            }
        }
        out
    }
}

/// Wraps a phase step into [0, 2π) (on integer grid points a step and the step + 2π agree).
fn wrap(x: f64) -> f64 {
    let t = x - 2.0 * PI * libm::floor(x / (2.0 * PI));
    if t >= 2.0 * PI { 0.0 } else { t }
}

/// The Gaussian's weights exp(−(x − 2πl/m)²/4τ) at the 2·SPREAD grid points l around `x`,
/// and their indices modulo `m`, by fast Gaussian gridding (Greengard & Lee 2004, §2 Eq. 9–10):
/// with d₀ the distance to the first point and h the step, the t-th weight is
/// exp(−d₀²/4τ) · exp(d₀h/2τ)ᵗ · exp(−(th)²/4τ), so a wave costs two exponentials per axis
/// instead of 2·SPREAD (`fixed` holds the last factor, the same for every wave). Far from f64's
/// range: d₀ < SPREAD·h, so the ratio is at most e^{2π(R−½)/R} ≈ e^{4.7} and its 15th power
/// e^{71}.
fn weights(
    x: f64,
    m: usize,
    tau: f64,
    fixed: &[f64; 2 * SPREAD],
    w: &mut [f64; 2 * SPREAD],
    idx: &mut [usize; 2 * SPREAD],
) {
    let step = 2.0 * PI / m as f64;
    let first = libm::floor(x / step) as i64 - SPREAD as i64 + 1;
    let d0 = x - first as f64 * step;
    let ratio = libm::exp(d0 * step / (2.0 * tau));
    let mut power = libm::exp(-d0 * d0 / (4.0 * tau));
    for t in 0..2 * SPREAD {
        w[t] = power * fixed[t];
        power *= ratio;
        idx[t] = (first + t as i64).rem_euclid(m as i64) as usize;
    }
}

/// exp(−(t·h)²/4τ) for t = 0..2·SPREAD, h = 2π/m: [`weights`]' factor that no wave changes.
fn fixed_factors(m: usize, tau: f64) -> [f64; 2 * SPREAD] {
    let step = 2.0 * PI / m.max(1) as f64;
    std::array::from_fn(|t| {
        let d = t as f64 * step;
        libm::exp(-d * d / (4.0 * tau))
    })
}

/// In place, unnormalised: G[kx, ky] = Σ f[lx, ly] e^{+2πi(kx·lx/mx + ky·ly/my)}.
fn inverse_fft_2d(data: &mut [Complex64], mx: usize, my: usize) {
    let mut planner = FftPlanner::<f64>::new();
    planner.plan_fft_inverse(mx).process(data);
    let mut columns = vec![Complex64::new(0.0, 0.0); mx * my];
    for (ly, row) in data.chunks_exact(mx).enumerate() {
        for (lx, v) in row.iter().enumerate() {
            columns[lx * my + ly] = *v;
        }
    }
    planner.plan_fft_inverse(my).process(&mut columns);
    for (lx, column) in columns.chunks_exact(my).enumerate() {
        for (ly, v) in column.iter().enumerate() {
            data[ly * mx + lx] = *v;
        }
    }
}

/// The same sum the straightforward way: a·cos(x·i + φ + y·j) separated by axis (2·p·q
/// multiply-adds per wave). For tests and the benchmark's baseline.
pub fn cosine_sum_direct(waves: &[Wave], p: usize, q: usize) -> Vec<f64> {
    let mut out = vec![0.0; p * q];
    let (mut ca, mut sa) = (vec![0.0; p], vec![0.0; p]);
    for w in waves {
        for i in 0..p {
            let a = w.x * i as f64 + w.phase;
            ca[i] = libm::cos(a);
            sa[i] = libm::sin(a);
        }
        for (j, row) in out.chunks_exact_mut(p).enumerate() {
            let c = w.y * j as f64;
            let (cc, sc) = (w.amplitude * libm::cos(c), w.amplitude * libm::sin(c));
            for ((v, x), y) in row.iter_mut().zip(&ca).zip(&sa) {
                *v += x * cc - y * sc;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;
    use whereabouts_core::rng::Stream;

    fn waves(n: usize, spread: f64, seed: u64) -> Vec<Wave> {
        let mut s = Stream::new(seed, "waves");
        (0..n)
            .map(|_| Wave {
                x: s.gaussian(0.0, spread),
                y: s.gaussian(0.0, spread),
                phase: s.range(-10.0, 10.0),
                amplitude: s.range(0.5, 1.5),
            })
            .collect()
    }

    /// Fast Gaussian gridding gives each weight as the exponential would, to a few ulps, on
    /// every side length and anywhere in [0, 2π).
    #[test]
    fn the_weights_by_products_equal_the_exponentials() {
        let mut worst: f64 = 0.0;
        for p in [8usize, 17, 32, 64, 128] {
            let m = OVERSAMPLING * p;
            let tau = PI * SPREAD as f64 / ((p * p) as f64 * 2.0 * 1.5);
            let fixed = fixed_factors(m, tau);
            let step = 2.0 * PI / m as f64;
            for k in 0..997 {
                let x = 2.0 * PI * k as f64 / 997.0;
                let (mut w, mut idx) = ([0.0; 2 * SPREAD], [0usize; 2 * SPREAD]);
                weights(x, m, tau, &fixed, &mut w, &mut idx);
                let l0 = libm::floor(x / step) as i64;
                for t in 0..2 * SPREAD {
                    let l = l0 - SPREAD as i64 + 1 + t as i64;
                    let d = x - l as f64 * step;
                    let exact = libm::exp(-d * d / (4.0 * tau));
                    worst = worst.max((w[t] - exact).abs() / exact);
                    assert_eq!(idx[t], l.rem_euclid(m as i64) as usize);
                }
            }
        }
        assert!(worst < 1e-12, "relative error {worst}");
    }

    #[test]
    fn the_fast_sum_equals_the_direct_one() {
        // Slow and fast phase steps (the fast ones alias: steps past π wrap), odd and even sides.
        for (n, spread, p, q) in [(300, 0.3, 32, 24), (200, 3.0, 17, 40), (50, 0.05, 8, 8)] {
            let w = waves(n, spread, n as u64);
            let fast = cosine_sum(&w, p, q);
            let direct = cosine_sum_direct(&w, p, q);
            let total: f64 = w.iter().map(|w| w.amplitude).sum();
            let worst = fast
                .iter()
                .zip(&direct)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(worst < 1e-7 * total, "{p}×{q}: {worst} of {total}");
        }
        assert!(cosine_sum(&[], 8, 8).iter().all(|&v| v == 0.0));
    }
}
