//! Benchmark kernels of the Density lab, timed by the caller's clock (the engine has none).
//! `whereabouts bench` runs them natively; results go in BENCHMARKS.md.

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
