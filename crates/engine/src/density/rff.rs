//! Federated KDE by random Fourier features ([003] Eqs. 2–4, 6–7).
//!
//! Bochner's theorem writes the Gaussian kernel as an expectation over frequencies,
//! k_h(x, y) = E_ω[cos(ωᵀ(x − y))] with ω ~ N(0, h⁻² I₂) (Eqs. 2–4; the distribution is the
//! Gaussian kernel's spectral density, which the poster leaves as "p(ω)"). Each user draws its
//! own B frequencies once, keeps them secret and fixed, and answers the server's query with
//! G′(d_i) = [Σ_b cos(ω_bᵀ(g_pq − d_i))] (Eq. 7): a pattern of cosine ridges with a peak of
//! height B at d_i and, for B ≤ 2, as high everywhere along a ridge or a lattice. The server
//! sums the uploads and divides by N·B (Eq. 6): the users' random parts average out.

use super::grid::Grid;
use super::nufft::Wave;
use serde::{Deserialize, Serialize};
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;

/// Most features per user (the poster's sweeps stop well below).
pub const MAX_FEATURES: usize = 200;

/// One user's private frequencies ω_b (rad/m, east and north components).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Basis {
    pub omega: Vec<[f64; 2]>,
}

impl Basis {
    /// B frequencies ω_b ~ N(0, h⁻² I₂) from `stream` (Bochner, [003] Eq. 2).
    pub fn draw(features: usize, h: f64, stream: &mut Stream) -> Basis {
        Basis {
            omega: (0..features)
                .map(|_| [stream.normal() / h, stream.normal() / h])
                .collect(),
        }
    }

    /// The user's basis, from their own stream: the same every time it is asked for (the
    /// poster's "fixed" basis), unless `query` asks for a basis redrawn for that query (the
    /// ablation of claim 3).
    pub fn of_user(seed: u64, user: u32, features: usize, h: f64, query: Option<usize>) -> Basis {
        let label = match query {
            None => format!("basis-{user}"),
            Some(k) => format!("basis-{user}-query-{k}"),
        };
        Basis::draw(features, h, &mut Stream::new(seed, &label))
    }

    pub fn len(&self) -> usize {
        self.omega.len()
    }

    pub fn is_empty(&self) -> bool {
        self.omega.is_empty()
    }

    /// Σ_b cos(ω_bᵀ(x − d)): the user's surface anywhere, not only on the grid.
    pub fn value(&self, d: Metres, x: Metres) -> f64 {
        self.omega
            .iter()
            .map(|w| libm::cos(w[0] * (x.east - d.east) + w[1] * (x.north - d.north)))
            .sum()
    }

    /// Adds `weight`·G′(d) to `acc` (row-major over `grid`). Each feature separates by axis,
    /// cos(a_p + c_q) = cos a_p cos c_q − sin a_p sin c_q: 2(P + Q) cosines and sines and
    /// 2·P·Q multiply-adds per feature.
    pub fn add_upload(&self, acc: &mut [f64], grid: &Grid, d: Metres, weight: f64) {
        let (mut ca, mut sa) = (vec![0.0; grid.p], vec![0.0; grid.p]);
        for w in &self.omega {
            for i in 0..grid.p {
                let a = w[0] * (grid.east(i) - d.east);
                ca[i] = libm::cos(a);
                sa[i] = libm::sin(a);
            }
            for (j, row) in acc.chunks_exact_mut(grid.p).enumerate() {
                let c = w[1] * (grid.north(j) - d.north);
                let (cc, sc) = (weight * libm::cos(c), weight * libm::sin(c));
                for ((v, x), y) in row.iter_mut().zip(&ca).zip(&sa) {
                    *v += x * cc - y * sc;
                }
            }
        }
    }

    /// The upload as plane waves over the grid's integer indices, for [`super::nufft`]:
    /// cos(ωᵀ(g_ij − d)) = cos(ω_e·Δe·i + ω_n·Δn·j + ωᵀ(g_00 − d)).
    pub fn waves<'a>(&'a self, grid: &Grid, d: Metres) -> impl Iterator<Item = Wave> + 'a {
        let (e0, n0) = (grid.east(0), grid.north(0));
        let (dx, dy) = grid.step();
        self.omega.iter().map(move |w| Wave {
            x: w[0] * dx,
            y: w[1] * dy,
            phase: w[0] * (e0 - d.east) + w[1] * (n0 - d.north),
            amplitude: 1.0,
        })
    }

    /// The upload G′(d) of [003] Eq. 7 (all zeros with no features: nothing is shared).
    pub fn upload(&self, grid: &Grid, d: Metres) -> Vec<f64> {
        let mut out = vec![0.0; grid.len()];
        self.add_upload(&mut out, grid, d, 1.0);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::density::kde;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_upload_is_the_sum_of_cosines_and_peaks_at_the_user() {
        let g = Grid::centred(1000.0, 800.0, 25, 20);
        let basis = Basis::of_user(3, 7, 5, 200.0, None);
        assert_eq!(basis, Basis::of_user(3, 7, 5, 200.0, None));
        assert_ne!(basis, Basis::of_user(3, 7, 5, 200.0, Some(0)));
        let d = g.point(123);
        let up = basis.upload(&g, d);
        for (k, v) in up.iter().enumerate() {
            assert!((v - basis.value(d, g.point(k))).abs() < 1e-12);
        }
        // At d every cosine is 1: the value B, the largest there is.
        assert!((up[123] - 5.0).abs() < 1e-12);
        assert!(up.iter().all(|&v| v <= 5.0 + 1e-12));
    }

    #[test]
    fn one_feature_averages_to_the_kernel() {
        // E[cos(ωᵀΔ)] = exp(−‖Δ‖²/2h²) for ω ~ N(0, h⁻² I) (Bochner; digest of [003] §4).
        let h = 150.0;
        let delta = Metres::new(120.0, -60.0);
        let basis = Basis::draw(200_000, h, &mut Stream::new(1, "bochner"));
        let mean = basis.value(Metres::new(0.0, 0.0), delta) / basis.len() as f64;
        let k = kde::kernel(delta.east * delta.east + delta.north * delta.north, h);
        // Var[cos] ≤ 1/2 + k⁴/2 − k²: four standard errors.
        let se = ((0.5 + 0.5 * k.powi(4) - k * k) / basis.len() as f64).sqrt();
        assert!((mean - k).abs() < 4.0 * se, "{mean} vs {k} ± {se}");
    }
}
