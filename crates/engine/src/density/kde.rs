//! The Gaussian kernel density estimate on the grid ([003] Eq. 1) and the baseline federated
//! KDE in which each user sends its own kernel bump ([003] Eq. 5).
//!
//! The kernel is k_h(x, y) = exp(−‖x − y‖² / 2h²), unnormalised (k_h(x, x) = 1) as on the
//! poster; its "Δ = ‖x − y‖₂²" would square the distance twice, a typo (docs/papers.md).
//! The kernel separates by axis, exp(−(Δe² + Δn²)/2h²) = exp(−Δe²/2h²)·exp(−Δn²/2h²), so a
//! bump is the outer product of a column factor and a row factor: P + Q exponentials, not P·Q.

use super::grid::Grid;
use whereabouts_core::geo::Metres;

/// k_h for a squared distance `d2` (m²) and bandwidth `h` (m).
pub fn kernel(d2: f64, h: f64) -> f64 {
    libm::exp(-d2 / (2.0 * h * h))
}

/// The column factors exp(−(g_e − d_e)²/2h²) and row factors exp(−(g_n − d_n)²/2h²).
pub fn axis_factors(grid: &Grid, d: Metres, h: f64) -> (Vec<f64>, Vec<f64>) {
    let ex = (0..grid.p)
        .map(|i| {
            let t = grid.east(i) - d.east;
            kernel(t * t, h)
        })
        .collect();
    let ey = (0..grid.q)
        .map(|j| {
            let t = grid.north(j) - d.north;
            kernel(t * t, h)
        })
        .collect();
    (ex, ey)
}

/// Adds `weight`·G_h(d) to `acc` (row-major, grid.len() long).
pub fn add_bump(acc: &mut [f64], grid: &Grid, d: Metres, h: f64, weight: f64) {
    let (ex, ey) = axis_factors(grid, d, h);
    for (row, fy) in acc.chunks_exact_mut(grid.p).zip(&ey) {
        let f = weight * fy;
        for (a, fx) in row.iter_mut().zip(&ex) {
            *a += f * fx;
        }
    }
}

/// One user's upload in the baseline federated KDE: G_h(d_i) = [k_h(d_i, g_pq)] ([003] Eq. 5).
pub fn bump(grid: &Grid, d: Metres, h: f64) -> Vec<f64> {
    let mut out = vec![0.0; grid.len()];
    add_bump(&mut out, grid, d, h, 1.0);
    out
}

/// The exact KDE f(g | D) = (1/N) Σ_i k_h(g, d_i) on every grid point ([003] Eq. 1); it is
/// also what the baseline federated KDE's server computes from the bumps (Eq. 5, divided by N).
pub fn exact(grid: &Grid, locations: &[Metres], h: f64) -> Vec<f64> {
    let mut acc = vec![0.0; grid.len()];
    if locations.is_empty() {
        return acc;
    }
    let w = 1.0 / locations.len() as f64;
    for &d in locations {
        add_bump(&mut acc, grid, d, h, w);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_separable_bump_is_the_kernel_at_every_grid_point() {
        let g = Grid::centred(500.0, 300.0, 20, 12);
        let d = Metres::new(37.0, -81.0);
        let b = bump(&g, d, 120.0);
        for (k, v) in b.iter().enumerate() {
            let p = g.point(k);
            let d2 = (p.east - d.east).powi(2) + (p.north - d.north).powi(2);
            assert!((v - kernel(d2, 120.0)).abs() < 1e-15);
        }
        let kde = exact(&g, &[d, Metres::new(0.0, 0.0)], 120.0);
        let other = bump(&g, Metres::new(0.0, 0.0), 120.0);
        for k in 0..g.len() {
            assert!((kde[k] - (b[k] + other[k]) / 2.0).abs() < 1e-15);
        }
    }
}
