//! The frequency-fitting server: it estimates a user's own frequencies and phases from one
//! upload, a stronger attacker than the poster's peak picking (issue #15 (b); [003] does not
//! consider it, docs/papers.md §3b).
//!
//! An upload is G′(d) = Σ_b cos(ω_bᵀ(g − d)) on the grid ([003] Eq. 7): a sum of B sinusoids in
//! two dimensions. The server knows B (it divides the aggregate by N·B, Eq. 6) and the grid;
//! it fits B components A_b cos(ω_bᵀ(x − c) − φ_b) to the upload by least squares, c the grid's
//! centre, and then holds the user's surface everywhere, not only on the grid. Its maximum is
//! the user's location (value B, every cosine 1) up to the ambiguity the frequencies leave
//! (`super::search`).
//!
//! The fit is the textbook one for sums of sinusoids (e.g. Stoica & Moses, "Spectral Analysis
//! of Signals", 2005, §4.3–4.4): each component starts at the peak of the residual's
//! periodogram (Hann window, zero-padded ×2), is refined by Gauss–Newton with its amplitude
//! and phase projected out (variable projection: for a given frequency they solve a 2 × 2
//! linear least-squares problem), and is peeled off; then all components are refined together
//! by Levenberg–Marquardt. Everything separates by axis (θ = u·X + v·Y on the grid's integer
//! offsets X, Y from the centre): an iteration costs a few complex multiply-adds per cell and
//! component, and O(P + Q) per pair of components, never a cosine per cell.
//!
//! Where two of the user's frequencies lie closer than about a tenth of the grid's frequency
//! resolution (2π over the grid's width), the greedy start takes them for one component and the
//! refinement may not split them again: the fit is then close but not exact
//! (docs/reproduce-density.md counts how often, and what it costs the attack).
//!
//! The joint refinement (Levenberg–Marquardt over every component) is `fit/joint.rs`; the
//! tests are `fit/tests.rs`.

use super::grid::Grid;
use rustfft::{FftPlanner, num_complex::Complex64};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;
use whereabouts_core::geo::Metres;

mod joint;

/// One fitted component A·cos(ωᵀ(x − c) − φ).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Component {
    /// ω, rad/m (east, north).
    pub omega: [f64; 2],
    pub amplitude: f64,
    /// φ, radians, at the grid's centre c.
    pub phase: f64,
}

/// A user's surface as the server fitted it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// c, the grid's centre: where the phases are measured.
    pub centre: Metres,
    pub components: Vec<Component>,
    /// The root mean square of what the fit leaves of the upload (0 for a perfect fit).
    pub rms_residual: f64,
}

impl Fit {
    /// The fitted surface at `x`.
    pub fn value(&self, x: Metres) -> f64 {
        let (e, n) = (x.east - self.centre.east, x.north - self.centre.north);
        self.components
            .iter()
            .map(|c| c.amplitude * libm::cos(c.omega[0] * e + c.omega[1] * n - c.phase))
            .sum()
    }

    /// The value, gradient and Hessian (∂ee, ∂en, ∂nn) at `x`, for Newton's method.
    pub fn slope(&self, x: Metres) -> (f64, [f64; 2], [f64; 3]) {
        let (e, n) = (x.east - self.centre.east, x.north - self.centre.north);
        let (mut v, mut g, mut h) = (0.0, [0.0; 2], [0.0; 3]);
        for c in &self.components {
            let t = c.omega[0] * e + c.omega[1] * n - c.phase;
            let (s, k) = (c.amplitude * libm::sin(t), c.amplitude * libm::cos(t));
            v += k;
            g[0] -= s * c.omega[0];
            g[1] -= s * c.omega[1];
            h[0] -= k * c.omega[0] * c.omega[0];
            h[1] -= k * c.omega[0] * c.omega[1];
            h[2] -= k * c.omega[1] * c.omega[1];
        }
        (v, g, h)
    }

    /// The fitted surface on every cell of `grid` (row-major), separated by axis.
    pub fn surface(&self, grid: &Grid) -> Vec<f64> {
        let mut out = vec![0.0; grid.len()];
        let (mut ca, mut sa) = (vec![0.0; grid.p], vec![0.0; grid.p]);
        for c in &self.components {
            for i in 0..grid.p {
                let a = c.omega[0] * (grid.east(i) - self.centre.east) - c.phase;
                ca[i] = c.amplitude * libm::cos(a);
                sa[i] = c.amplitude * libm::sin(a);
            }
            for (j, row) in out.chunks_exact_mut(grid.p).enumerate() {
                let b = c.omega[1] * (grid.north(j) - self.centre.north);
                let (cb, sb) = (libm::cos(b), libm::sin(b));
                for ((o, x), y) in row.iter_mut().zip(&ca).zip(&sa) {
                    *o += x * cb - y * sb;
                }
            }
        }
        out
    }

    /// The sum of several fits of one grid (the answers to repeated queries, each fitted on its
    /// own) as one surface, weighted by `weight` (1/queries for the mean).
    pub fn combine(fits: &[Fit], weight: f64) -> Option<Fit> {
        let first = fits.first()?;
        let mut components = Vec::new();
        for f in fits {
            components.extend(f.components.iter().map(|c| Component {
                amplitude: c.amplitude * weight,
                ..*c
            }));
        }
        let rms = fits.iter().map(|f| f.rms_residual * weight).sum();
        Some(Fit {
            centre: first.centre,
            components,
            rms_residual: rms,
        })
    }
}

/// The periodogram's zero padding (×2: bins half as wide as the grid's own).
const PAD: usize = 2;
/// Most components refined jointly: the joint step's normal matrix grows as B², so beyond this
/// each component is refined on the residual of the others, in sweeps.
const JOINT_MAX: usize = 20;
/// Most refine-each sweeps for more components than [`JOINT_MAX`].
const SWEEPS: usize = 3;
/// Most Levenberg–Marquardt iterations of the joint refinement.
const JOINT_ITERATIONS: usize = 60;
/// Most Gauss–Newton iterations for one component in one refinement.
const ITERATIONS: usize = 40;

/// Fits `count` components to `upload` on `grid` (see the module's comment). An upload of
/// nothing (or a count of 0) fits nothing.
pub fn fit(upload: &[f64], grid: &Grid, count: usize) -> Fit {
    fit_with(upload, grid, count, Evaluation::Separated)
}

/// How the fit's sums over the cells are evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluation {
    /// Separated by axis: the fit as the server runs it.
    Separated,
    /// A cosine and a sine per cell and sum, the straightforward way: the benchmark's baseline
    /// (`super::bench`), the same numbers to rounding.
    Direct,
}

/// [`fit`] with the sums evaluated as `evaluation` says.
pub fn fit_with(upload: &[f64], grid: &Grid, count: usize, evaluation: Evaluation) -> Fit {
    let mut f = Fitter::new(upload, grid);
    f.direct = evaluation == Evaluation::Direct;
    let mut comps: Vec<Cell> = Vec::with_capacity(count);
    for _ in 0..count {
        let Some((u, mut v)) = f.periodogram_peak() else {
            break;
        };
        if u == 0.0 && v == 0.0 {
            // At zero frequency sin θ vanishes and so does every derivative: start a quarter
            // of a padded bin away.
            v = PI / (4.0 * grid.q as f64);
        }
        let c = f.refine(Cell {
            a: 0.0,
            b: 0.0,
            u,
            v,
        });
        f.subtract(&c, 1.0);
        comps.push(c);
    }
    if comps.len() <= JOINT_MAX {
        if comps.len() > 1 {
            comps = f.refine_jointly(comps);
        }
    } else {
        let mut sse = f.sse();
        for _ in 0..SWEEPS {
            for c in comps.iter_mut() {
                f.subtract(c, -1.0);
                *c = f.refine(*c);
                f.subtract(c, 1.0);
            }
            let next = f.sse();
            let done = next >= sse * (1.0 - 1e-3);
            sse = next;
            if done {
                break;
            }
        }
    }
    let (dx, dy) = grid.step();
    Fit {
        centre: f.centre,
        components: comps
            .iter()
            .map(|c| Component {
                omega: [c.u / dx, c.v / dy],
                amplitude: c.a.hypot(c.b),
                phase: libm::atan2(c.b, c.a),
            })
            .collect(),
        rms_residual: (f.sse() / upload.len().max(1) as f64).sqrt(),
    }
}

/// The phases of `upload` on the known frequencies of `fit` (the same user asked again with the
/// same basis, from elsewhere: [`super::search::displacement`]): amplitudes and phases of every
/// component by one linear least-squares solve.
pub fn phases(fit: &Fit, upload: &[f64], grid: &Grid) -> Vec<Component> {
    let f = Fitter::new(upload, grid);
    let (dx, dy) = grid.step();
    let uv: Vec<(f64, f64)> = fit
        .components
        .iter()
        .map(|c| (c.omega[0] * dx, c.omega[1] * dy))
        .collect();
    let m = 2 * uv.len();
    // Normal equations for [a_1, b_1, a_2, b_2, …] with columns cos θ_b and sin θ_b.
    let mut gram = vec![0.0; m * m];
    let mut rhs = vec![0.0; m];
    for (k, &(u, v)) in uv.iter().enumerate() {
        let s0 = f.correlate(u, v, false).0;
        rhs[2 * k] = s0.re;
        rhs[2 * k + 1] = s0.im;
        for (l, &(u2, v2)) in uv.iter().enumerate().take(k + 1) {
            // cos θ cos θ′ = ½[cos(θ−θ′) + cos(θ+θ′)], and so on.
            let minus = f.exp_sum(u - u2, v - v2);
            let plus = f.exp_sum(u + u2, v + v2);
            let cc = 0.5 * (minus.re + plus.re);
            let ss = 0.5 * (minus.re - plus.re);
            let cs = 0.5 * (plus.im - minus.im); // cos θ sin θ′
            let sc = 0.5 * (plus.im + minus.im); // sin θ cos θ′
            for (r, c, v) in [
                (2 * k, 2 * l, cc),
                (2 * k + 1, 2 * l + 1, ss),
                (2 * k, 2 * l + 1, cs),
                (2 * k + 1, 2 * l, sc),
            ] {
                gram[r * m + c] = v;
                gram[c * m + r] = v;
            }
        }
    }
    let x = solve(&mut gram, &mut rhs, m);
    fit.components
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let (a, b) = (x[2 * k], x[2 * k + 1]);
            Component {
                omega: c.omega,
                amplitude: a.hypot(b),
                phase: libm::atan2(b, a),
            }
        })
        .collect()
}

/// A component in the grid's own units: a·cos θ + b·sin θ, θ = u·X + v·Y (rad per cell).
#[derive(Clone, Copy, Debug)]
struct Cell {
    a: f64,
    b: f64,
    u: f64,
    v: f64,
}

/// The residual being fitted and the grid's offsets from its centre, in cells.
struct Fitter {
    p: usize,
    q: usize,
    xs: Vec<f64>,
    ys: Vec<f64>,
    residual: Vec<f64>,
    /// Σ of the upload's squares: the scale of "no improvement".
    energy: f64,
    centre: Metres,
    /// Evaluate every sum cell by cell ([`Evaluation::Direct`]).
    direct: bool,
}

/// A point's correlations with the residual: Σ r·e^{iθ}, Σ r·X·e^{iθ}, Σ r·Y·e^{iθ}.
type Correlations = (Complex64, Complex64, Complex64);

impl Fitter {
    fn new(upload: &[f64], grid: &Grid) -> Fitter {
        let offsets = |n: usize| (0..n).map(|i| i as f64 - (n as f64 - 1.0) / 2.0).collect();
        Fitter {
            p: grid.p,
            q: grid.q,
            xs: offsets(grid.p),
            ys: offsets(grid.q),
            residual: upload.to_vec(),
            energy: upload.iter().map(|v| v * v).sum(),
            centre: Metres::new(
                0.5 * (grid.lo.east + grid.hi.east),
                0.5 * (grid.lo.north + grid.hi.north),
            ),
            direct: false,
        }
    }

    /// Σ_cells w(X, Y)·e^{i(u·X + v·Y)} cell by cell, for [`Evaluation::Direct`].
    fn direct_sum(&self, u: f64, v: f64, w: impl Fn(f64, f64, usize) -> f64) -> Complex64 {
        let mut s = Complex64::default();
        for (j, &y) in self.ys.iter().enumerate() {
            for (i, &x) in self.xs.iter().enumerate() {
                s += Complex64::cis(u * x + v * y) * w(x, y, j * self.p + i);
            }
        }
        s
    }

    fn sse(&self) -> f64 {
        self.residual.iter().map(|v| v * v).sum()
    }

    /// The residual's correlations at (u, v); with `moments` also the X- and Y-weighted ones
    /// (the Jacobian's), else those are zero.
    fn correlate(&self, u: f64, v: f64, moments: bool) -> Correlations {
        if self.direct {
            let r = &self.residual;
            let s0 = self.direct_sum(u, v, |_, _, k| r[k]);
            if !moments {
                return (s0, Complex64::default(), Complex64::default());
            }
            let sx = self.direct_sum(u, v, |x, _, k| r[k] * x);
            let sy = self.direct_sum(u, v, |_, y, k| r[k] * y);
            return (s0, sx, sy);
        }
        let eu: Vec<Complex64> = self.xs.iter().map(|&x| Complex64::cis(u * x)).collect();
        let (mut s0, mut sx, mut sy) = (
            Complex64::default(),
            Complex64::default(),
            Complex64::default(),
        );
        for (row, &y) in self.residual.chunks_exact(self.p).zip(&self.ys) {
            let (mut t, mut tx) = (Complex64::default(), Complex64::default());
            if moments {
                for ((r, e), x) in row.iter().zip(&eu).zip(&self.xs) {
                    t += e * r;
                    tx += e * (r * x);
                }
            } else {
                for (r, e) in row.iter().zip(&eu) {
                    t += e * r;
                }
            }
            let ev = Complex64::cis(v * y);
            s0 += t * ev;
            sx += tx * ev;
            sy += t * ev * y;
        }
        (s0, sx, sy)
    }

    /// Σ_cells e^{i(u·X + v·Y)}, separated by axis.
    fn exp_sum(&self, u: f64, v: f64) -> Complex64 {
        self.weighted_exp_sum(u, v, 0, 0)
    }

    /// Σ_cells X^m·Y^n·e^{i(u·X + v·Y)} = (Σ_X X^m e^{iuX})·(Σ_Y Y^n e^{ivY}).
    fn weighted_exp_sum(&self, u: f64, v: f64, m: i32, n: i32) -> Complex64 {
        if self.direct {
            return self.direct_sum(u, v, |x, y, _| x.powi(m) * y.powi(n));
        }
        let sx: Complex64 = self
            .xs
            .iter()
            .map(|&x| Complex64::cis(u * x) * x.powi(m))
            .sum();
        let sy: Complex64 = self
            .ys
            .iter()
            .map(|&y| Complex64::cis(v * y) * y.powi(n))
            .sum();
        sx * sy
    }

    /// The 2 × 2 Gram matrix of cos θ and sin θ at (u, v): (Σc², Σcs, Σs²).
    fn gram(&self, u: f64, v: f64) -> (f64, f64, f64) {
        let cells = (self.p * self.q) as f64;
        let d = self.exp_sum(2.0 * u, 2.0 * v);
        (0.5 * (cells + d.re), 0.5 * d.im, 0.5 * (cells - d.re))
    }

    /// The best amplitudes at (u, v) for correlations `s0` (variable projection), and the
    /// decrease of the squared error they bring.
    fn project(&self, u: f64, v: f64, s0: Complex64) -> (f64, f64, f64) {
        let (cc, cs, ss) = self.gram(u, v);
        let det = cc * ss - cs * cs;
        let scale = (cc + ss).max(1e-300);
        if det <= 1e-12 * scale * scale {
            // (u, v) ≈ 0 or Nyquist: sin θ vanishes on the grid; cos θ alone.
            let a = if cc > 0.0 { s0.re / cc } else { 0.0 };
            return (a, 0.0, a * s0.re);
        }
        let a = (ss * s0.re - cs * s0.im) / det;
        let b = (cc * s0.im - cs * s0.re) / det;
        (a, b, a * s0.re + b * s0.im)
    }

    /// Adds `−sign`·component to the residual (sign 1 peels it off, −1 puts it back).
    fn subtract(&mut self, c: &Cell, sign: f64) {
        if self.direct {
            for (j, &y) in self.ys.iter().enumerate() {
                for (i, &x) in self.xs.iter().enumerate() {
                    let t = c.u * x + c.v * y;
                    self.residual[j * self.p + i] -=
                        sign * (c.a * libm::cos(t) + c.b * libm::sin(t));
                }
            }
            return;
        }
        let cu: Vec<(f64, f64)> = self
            .xs
            .iter()
            .map(|&x| (libm::cos(c.u * x), libm::sin(c.u * x)))
            .collect();
        for (row, &y) in self.residual.chunks_exact_mut(self.p).zip(&self.ys) {
            let (cv, sv) = (libm::cos(c.v * y), libm::sin(c.v * y));
            // a cos θ + b sin θ with θ = uX + vY.
            let (pa, pb) = (sign * (c.a * cv + c.b * sv), sign * (c.b * cv - c.a * sv));
            for (r, (cx, sx)) in row.iter_mut().zip(&cu) {
                *r -= pa * cx + pb * sx;
            }
        }
    }

    /// The largest peak of the residual's periodogram over half the frequency plane (the
    /// upload is real, so the other half mirrors it), Hann-windowed and zero-padded ×2, refined
    /// between bins by a parabola through the log-magnitudes. None for an empty residual.
    fn periodogram_peak(&self) -> Option<(f64, f64)> {
        let (p, q) = (self.p, self.q);
        let (np, nq) = (PAD * p, PAD * q);
        let hann = |n: usize| -> Vec<f64> {
            (0..n)
                .map(|i| 0.5 - 0.5 * libm::cos(2.0 * PI * (i as f64 + 0.5) / n as f64))
                .collect()
        };
        let (wx, wy) = (hann(p), hann(q));
        let mut buf = vec![Complex64::default(); np * nq];
        for j in 0..q {
            for i in 0..p {
                buf[j * np + i] = Complex64::new(self.residual[j * p + i] * wx[i] * wy[j], 0.0);
            }
        }
        let mut planner = FftPlanner::new();
        let rows = planner.plan_fft_forward(np);
        for j in 0..q {
            rows.process(&mut buf[j * np..(j + 1) * np]);
        }
        let cols = planner.plan_fft_forward(nq);
        let mut col = vec![Complex64::default(); nq];
        for i in 0..np {
            for j in 0..nq {
                col[j] = buf[j * np + i];
            }
            cols.process(&mut col);
            for j in 0..nq {
                buf[j * np + i] = col[j];
            }
        }
        let power = |i: usize, j: usize| buf[(j % nq) * np + (i % np)].norm_sqr();
        // Half plane: rows l = 0..=Q (v ≥ 0); on l = 0 and l = Q, columns k ≤ P (u ≥ 0).
        let mut best = (0, 0, 0.0);
        for l in 0..=q {
            for k in 0..np {
                if (l == 0 || l == q) && k > p {
                    continue;
                }
                let w = power(k, l);
                if w > best.2 {
                    best = (k, l, w);
                }
            }
        }
        if best.2 <= 1e-24 * self.energy.max(1e-300) * (p * q) as f64 || best.2 == 0.0 {
            return None;
        }
        let (k, l, top) = best;
        let shift = |lo: f64, hi: f64| {
            let (a, b, c) = (lo.max(1e-300).ln(), top.ln(), hi.max(1e-300).ln());
            let den = a - 2.0 * b + c;
            if den < 0.0 {
                (0.5 * (a - c) / den).clamp(-0.5, 0.5)
            } else {
                0.0
            }
        };
        let dk = shift(power(k + np - 1, l), power(k + 1, l));
        let dl = shift(power(k, l + nq - 1), power(k, l + 1));
        let signed = |k: f64, n: usize| if k > n as f64 / 2.0 { k - n as f64 } else { k };
        let u = 2.0 * PI * signed(k as f64 + dk, np) / np as f64;
        let v = 2.0 * PI * signed(l as f64 + dl, nq) / nq as f64;
        Some((u, v))
    }

    /// Gauss–Newton (Levenberg–Marquardt damped) on one component against the residual, its
    /// amplitudes projected out after every step.
    fn refine(&self, start: Cell) -> Cell {
        let (mut u, mut v) = (start.u, start.v);
        let mut corr = self.correlate(u, v, true);
        let (mut a, mut b, mut gain) = self.project(u, v, corr.0);
        let mut lambda = 1e-3;
        for _ in 0..ITERATIONS {
            let Some((du, dv)) = self.step(a, b, u, v, &corr, lambda) else {
                break;
            };
            let (nu, nv) = (u + du, v + dv);
            let next = self.correlate(nu, nv, true);
            let (na, nb, ngain) = self.project(nu, nv, next.0);
            if ngain > gain {
                let small = du.abs().max(dv.abs()) < 1e-11
                    || ngain - gain <= 1e-15 * self.energy.max(1e-300);
                (u, v, a, b, gain, corr) = (nu, nv, na, nb, ngain, next);
                lambda = (lambda * 0.1).max(1e-12);
                if small {
                    break;
                }
            } else {
                lambda *= 10.0;
                if lambda > 1e8 {
                    break;
                }
            }
        }
        Cell { a, b, u, v }
    }

    /// The damped Gauss–Newton step for (u, v) at a component a·cos θ + b·sin θ, from the normal
    /// equations of all four parameters (amplitudes then frequencies). Every Gram entry is a
    /// sum of trigonometric moments, separated by axis: c² = (1 + cos 2θ)/2, s² = (1 − cos 2θ)/2,
    /// cs = sin 2θ/2, and the model's derivative in u is X·g with g = −a·sin θ + b·cos θ.
    fn step(
        &self,
        a: f64,
        b: f64,
        u: f64,
        v: f64,
        corr: &Correlations,
        lambda: f64,
    ) -> Option<(f64, f64)> {
        let (s0, sx, sy) = *corr;
        let plain = |m: i32, n: i32| -> f64 {
            let px: f64 = self.xs.iter().map(|x| x.powi(m)).sum();
            let py: f64 = self.ys.iter().map(|y| y.powi(n)).sum();
            px * py
        };
        // Σ w c², Σ w s², Σ w cs for the weight w = X^m Y^n.
        let moments = |m: i32, n: i32| {
            let d = self.weighted_exp_sum(2.0 * u, 2.0 * v, m, n);
            let w = plain(m, n);
            (0.5 * (w + d.re), 0.5 * (w - d.re), 0.5 * d.im)
        };
        let (c2, s2, cs) = moments(0, 0);
        let cg = |(c2, _s2, cs): (f64, f64, f64)| -a * cs + b * c2; // Σ w c g
        let sg = |(_c2, s2, cs): (f64, f64, f64)| -a * s2 + b * cs; // Σ w s g
        let gg = |(c2, s2, cs): (f64, f64, f64)| a * a * s2 + b * b * c2 - 2.0 * a * b * cs;
        let (mx, my) = (moments(1, 0), moments(0, 1));
        let (mxx, mxy, myy) = (moments(2, 0), moments(1, 1), moments(0, 2));
        let mut n = [
            c2,
            cs,
            cg(mx),
            cg(my), //
            cs,
            s2,
            sg(mx),
            sg(my), //
            cg(mx),
            sg(mx),
            gg(mxx),
            gg(mxy), //
            cg(my),
            sg(my),
            gg(mxy),
            gg(myy),
        ];
        // Jᵀr − N·[a, b, 0, 0]: the residual after this component is Jᵀ(r − a c − b s).
        let jr = [s0.re, s0.im, -a * sx.im + b * sx.re, -a * sy.im + b * sy.re];
        let mut rhs = [0.0; 4];
        for (k, r) in rhs.iter_mut().enumerate() {
            *r = jr[k] - n[4 * k] * a - n[4 * k + 1] * b;
        }
        for k in 0..4 {
            n[5 * k] *= 1.0 + lambda;
        }
        let x = solve(&mut n, &mut rhs, 4);
        (x[2].is_finite() && x[3].is_finite()).then_some((x[2], x[3]))
    }
}

/// Solves the symmetric system `a`·x = `b` (m × m, row-major) by Gaussian elimination with
/// partial pivoting; a singular direction gets 0.
fn solve(a: &mut [f64], b: &mut [f64], m: usize) -> Vec<f64> {
    let scale = (0..m)
        .map(|k| a[k * m + k].abs())
        .fold(0.0, f64::max)
        .max(1e-300);
    for k in 0..m {
        let pivot = (k..m)
            .max_by(|&i, &j| a[i * m + k].abs().total_cmp(&a[j * m + k].abs()))
            .unwrap_or(k);
        if pivot != k {
            for c in 0..m {
                a.swap(k * m + c, pivot * m + c);
            }
            b.swap(k, pivot);
        }
        let d = a[k * m + k];
        if d.abs() <= 1e-13 * scale {
            continue;
        }
        for i in k + 1..m {
            let f = a[i * m + k] / d;
            if f != 0.0 {
                for c in k..m {
                    a[i * m + c] -= f * a[k * m + c];
                }
                b[i] -= f * b[k];
            }
        }
    }
    let mut x = vec![0.0; m];
    for k in (0..m).rev() {
        let d = a[k * m + k];
        if d.abs() <= 1e-13 * scale {
            continue;
        }
        let s: f64 = (k + 1..m).map(|c| a[k * m + c] * x[c]).sum();
        x[k] = (b[k] - s) / d;
    }
    x
}

#[cfg(test)]
mod tests;
