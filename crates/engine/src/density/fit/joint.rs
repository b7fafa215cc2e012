//! The fit's last stage: Levenberg–Marquardt on every component at once, the normal matrix built
//! from trigonometric moments separated by axis (the textbook fit of sums of sinusoids, Stoica &
//! Moses, "Spectral Analysis of Signals", 2005, §4.3–4.4; the module's comment in [`super`]).

use super::{Cell, Fitter, JOINT_ITERATIONS, solve};
use rustfft::num_complex::Complex64;

impl Fitter {
    /// Levenberg–Marquardt on every component at once (4 parameters each), starting from the
    /// residual of `comps` (which the fitter holds). Refining one component at a time converges
    /// slowly, or stops, where components overlap in frequency; the joint step moves them
    /// together. Its normal matrix is built from trigonometric moments separated by axis
    /// ([`Self::pair_moments`]), so an iteration costs O(B·P·Q + B²·(P + Q)).
    pub(super) fn refine_jointly(&mut self, mut comps: Vec<Cell>) -> Vec<Cell> {
        let m = 4 * comps.len();
        let mut sse = self.sse();
        let mut lambda = 1e-3;
        for _ in 0..JOINT_ITERATIONS {
            if sse <= self.energy * 1e-26 {
                break;
            }
            let mut n = vec![0.0; m * m];
            let mut rhs = vec![0.0; m];
            for (k, ck) in comps.iter().enumerate() {
                let (s0, sx, sy) = self.correlate(ck.u, ck.v, true);
                rhs[4 * k..4 * k + 4].copy_from_slice(&[
                    s0.re,
                    s0.im,
                    -ck.a * sx.im + ck.b * sx.re,
                    -ck.a * sy.im + ck.b * sy.re,
                ]);
                for (l, cl) in comps.iter().enumerate().take(k + 1) {
                    let block = self.pair_block(ck, cl);
                    for r in 0..4 {
                        for c in 0..4 {
                            n[(4 * k + r) * m + 4 * l + c] = block[r][c];
                            n[(4 * l + c) * m + 4 * k + r] = block[r][c];
                        }
                    }
                }
            }
            for k in 0..m {
                n[k * m + k] *= 1.0 + lambda;
            }
            let x = solve(&mut n, &mut rhs, m);
            if x.iter().any(|v| !v.is_finite()) {
                break;
            }
            let next: Vec<Cell> = comps
                .iter()
                .enumerate()
                .map(|(k, c)| Cell {
                    a: c.a + x[4 * k],
                    b: c.b + x[4 * k + 1],
                    u: c.u + x[4 * k + 2],
                    v: c.v + x[4 * k + 3],
                })
                .collect();
            comps.iter().for_each(|c| self.subtract(c, -1.0));
            next.iter().for_each(|c| self.subtract(c, 1.0));
            let after = self.sse();
            if after < sse {
                let small = after >= sse * (1.0 - 1e-10);
                (comps, sse) = (next, after);
                lambda = (lambda * 0.1).max(1e-12);
                if small {
                    break;
                }
            } else {
                next.iter().for_each(|c| self.subtract(c, -1.0));
                comps.iter().for_each(|c| self.subtract(c, 1.0));
                lambda *= 10.0;
                if lambda > 1e8 {
                    break;
                }
            }
        }
        comps
    }

    /// The 4 × 4 block of the normal matrix between the Jacobian columns of components k and l
    /// (c, s, X·g, Y·g each, g = −a·sin θ + b·cos θ). With M = Σ w e^{i(θk−θl)} and
    /// P = Σ w e^{i(θk+θl)} for a weight w: Σ w c_k c_l = ½Re(M + P), Σ w s_k s_l = ½Re(M − P),
    /// Σ w c_k s_l = ½Im(P − M), Σ w s_k c_l = ½Im(P + M).
    fn pair_block(&self, k: &Cell, l: &Cell) -> [[f64; 4]; 4] {
        let minus = self.pair_moments(k.u - l.u, k.v - l.v);
        let plus = self.pair_moments(k.u + l.u, k.v + l.v);
        // [CC, CS, SC, SS] for the weight X^mx·Y^ny (index 3·ny + mx).
        let prod = |w: usize| {
            let (mi, pl) = (minus[w], plus[w]);
            [
                0.5 * (mi.re + pl.re),
                0.5 * (pl.im - mi.im),
                0.5 * (pl.im + mi.im),
                0.5 * (mi.re - pl.re),
            ]
        };
        let (one, x, y, xx, xy, yy) = (prod(0), prod(1), prod(3), prod(2), prod(4), prod(6));
        let [cc, cs, sc, ss] = one;
        // Σ w f_k·g_l for f = c, s: g_l = −a_l s_l + b_l c_l.
        let cg = |p: [f64; 4]| -l.a * p[1] + l.b * p[0];
        let sg = |p: [f64; 4]| -l.a * p[3] + l.b * p[2];
        // Σ w g_k·f_l.
        let gc = |p: [f64; 4]| -k.a * p[2] + k.b * p[0];
        let gs = |p: [f64; 4]| -k.a * p[3] + k.b * p[1];
        // Σ w g_k·g_l.
        let gg =
            |p: [f64; 4]| k.a * l.a * p[3] - k.a * l.b * p[2] - k.b * l.a * p[1] + k.b * l.b * p[0];
        [
            [cc, cs, cg(x), cg(y)],
            [sc, ss, sg(x), sg(y)],
            [gc(x), gs(x), gg(xx), gg(xy)],
            [gc(y), gs(y), gg(xy), gg(yy)],
        ]
    }

    /// Σ_cells X^m·Y^n·e^{i(u·X + v·Y)} for m, n ∈ {0, 1, 2}, at index 3·n + m.
    fn pair_moments(&self, u: f64, v: f64) -> [Complex64; 9] {
        if self.direct {
            let mut out = [Complex64::default(); 9];
            for (k, o) in out.iter_mut().enumerate() {
                *o = self.weighted_exp_sum(u, v, (k % 3) as i32, (k / 3) as i32);
            }
            return out;
        }
        let axis = |offsets: &[f64], w: f64| {
            let (mut s0, mut s1, mut s2) = (
                Complex64::default(),
                Complex64::default(),
                Complex64::default(),
            );
            let step = Complex64::cis(w);
            let mut e = Complex64::cis(w * offsets.first().copied().unwrap_or(0.0));
            for &x in offsets {
                s0 += e;
                s1 += e * x;
                s2 += e * (x * x);
                e *= step;
            }
            [s0, s1, s2]
        };
        let (ax, ay) = (axis(&self.xs, u), axis(&self.ys, v));
        let mut out = [Complex64::default(); 9];
        for n in 0..3 {
            for m in 0..3 {
                out[3 * n + m] = ax[m] * ay[n];
            }
        }
        out
    }
}
