//! Benchmark kernels of the Density lab, timed by the caller's clock (the engine has none).
//! `whereabouts bench` runs them natively; results go in BENCHMARKS.md.

use super::fit::{Evaluation, fit_with};
use super::grid::Grid;
use super::nufft::{self, Wave};
use super::rff::Basis;
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;

/// The server's aggregate Σ_i G′(d_i) of `n` users with `features` each on a `side` × `side`
/// grid over an 8 km city: milliseconds by the NUFFT and by the straightforward sum (every
/// feature separated by axis: 2·P·Q multiply-adds), and their largest difference relative to
/// N·B.
pub fn aggregate_ms(
    n: usize,
    features: usize,
    side: usize,
    now: &dyn Fn() -> f64,
) -> (f64, f64, f64) {
    let grid = Grid::centred(4000.0, 4000.0, side, side);
    let mut s = Stream::new(1, "bench-density");
    let waves: Vec<Wave> = (0..n)
        .flat_map(|u| {
            let d = Metres::new(s.range(-4000.0, 4000.0), s.range(-4000.0, 4000.0));
            let basis = Basis::of_user(1, u as u32, features, 300.0, None);
            basis.waves(&grid, d).collect::<Vec<_>>()
        })
        .collect();
    let t0 = now();
    let fast = nufft::cosine_sum(&waves, side, side);
    let t1 = now();
    let direct = nufft::cosine_sum_direct(&waves, side, side);
    let t2 = now();
    let worst = fast
        .iter()
        .zip(&direct)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    (t1 - t0, t2 - t1, worst / waves.len().max(1) as f64)
}

/// The frequency-fitting attack on one upload with `features` waves on a `side` × `side` grid
/// over an 8 km city (h = 300 m): milliseconds per upload over `users` users' uploads, with
/// every sum separated by axis and cell by cell (the straightforward baseline).
pub fn fit_ms(features: usize, side: usize, users: u32, now: &dyn Fn() -> f64) -> (f64, f64) {
    let grid = Grid::centred(4000.0, 4000.0, side, side);
    let mut s = Stream::new(2, "bench-fit");
    let uploads: Vec<Vec<f64>> = (0..users)
        .map(|u| {
            let d = Metres::new(s.range(-3000.0, 3000.0), s.range(-3000.0, 3000.0));
            Basis::of_user(2, u, features, 300.0, None).upload(&grid, d)
        })
        .collect();
    let time = |evaluation| {
        let t0 = now();
        for up in &uploads {
            std::hint::black_box(fit_with(up, &grid, features, evaluation));
        }
        (now() - t0) / users.max(1) as f64
    };
    (time(Evaluation::Separated), time(Evaluation::Direct))
}
