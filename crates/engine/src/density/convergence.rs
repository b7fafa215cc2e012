//! How fast the random-features estimate converges to the exact KDE: [003]'s "Convergence
//! Analysis" (a heading whose content our copy of the poster lost), derived here.
//!
//! The server's estimate at grid point g is (1/(N·B)) Σ_i Σ_b cos(ω_ibᵀ(g − d_i)) (Eq. 6), every
//! user with its own frequencies ω ~ N(0, h⁻² I₂) (Eq. 2), so its N·B terms are independent. One
//! term has mean k_h(g − d_i) (Bochner: the estimate is unbiased) and variance
//! E cos² − k² = (1 + E cos(2ωᵀΔ))/2 − k² = (1 + k_h(Δ)⁴)/2 − k_h(Δ)², since E cos(2ωᵀΔ) =
//! k_h(2Δ) = k_h(Δ)⁴. The estimate's mean squared error at g is therefore
//! (1/(N·B)) · (1/N) Σ_i [½ + ½ k_h(g − d_i)⁴ − k_h(g − d_i)²], and k_h² = k_{h/√2},
//! k_h⁴ = k_{h/2}: exact KDEs at two narrower bandwidths ([`mse_per_feature`]). Averaged over
//! the grid it falls as 1/(N·B), the error as 1/√(N·B) — the poster's reason why B can be 1
//! when N is large. Where each kernel lies inside the grid, the grid's sum of k_{h′}(g − d) is
//! 2πh′²/(cell area), so the average over the grid is ½ − 3πh²/(4A) for a grid of area A,
//! whoever the people are ([`mse_per_feature_closed`]).

use super::grid::Grid;
use super::kde;
use whereabouts_core::geo::Metres;

/// The grid's mean, over its points, of one feature's variance ½ + ½k⁴ − k² averaged over
/// the `locations` (bandwidth `h`): N·B times the estimate's mean squared error.
pub fn mse_per_feature(grid: &Grid, locations: &[Metres], h: f64) -> f64 {
    let k2 = kde::exact(grid, locations, h / std::f64::consts::SQRT_2);
    let k4 = kde::exact(grid, locations, h / 2.0);
    let sum: f64 = k2.iter().zip(&k4).map(|(a, b)| 0.5 + 0.5 * b - a).sum();
    sum / grid.len().max(1) as f64
}

/// [`mse_per_feature`] when every kernel lies inside the grid: ½ − 3πh²/(4A), A the grid's
/// area (m²).
pub fn mse_per_feature_closed(grid: &Grid, h: f64) -> f64 {
    let area = (grid.hi.east - grid.lo.east) * (grid.hi.north - grid.lo.north);
    0.5 - 3.0 * std::f64::consts::PI * h * h / (4.0 * area)
}

/// The error theory predicts for N users with B features each: √(per-feature variance / (N·B)).
pub fn rmse(per_feature: f64, users: usize, features: usize) -> f64 {
    (per_feature / (users * features).max(1) as f64).sqrt()
}

/// The root mean squared difference of `estimate` from `exact` over the grid.
pub fn measured_rmse(estimate: &[f64], exact: &[f64]) -> f64 {
    let n = exact.len().max(1) as f64;
    (estimate
        .iter()
        .zip(exact)
        .map(|(e, x)| (e - x) * (e - x))
        .sum::<f64>()
        / n)
        .sqrt()
}

/// The least-squares slope of ln `y` against ln `x` (None for fewer than two points or a
/// constant x).
pub fn log_slope(points: &[(f64, f64)]) -> Option<f64> {
    let logs: Vec<(f64, f64)> = points.iter().map(|(x, y)| (x.ln(), y.ln())).collect();
    let n = logs.len() as f64;
    if logs.len() < 2 {
        return None;
    }
    let (mx, my) = (
        logs.iter().map(|p| p.0).sum::<f64>() / n,
        logs.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxx: f64 = logs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = logs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}
