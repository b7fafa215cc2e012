//! Where a fitted surface is highest, and what the server does when several places are as high
//! (issue #15 (b) and (d); the poster's attacker stops at the grid's largest cell, [`super::attack`]).
//!
//! A user's fitted surface Σ_b A_b cos(ω_bᵀ(x − c) − φ_b) ([`super::fit`]) is B at the user's
//! location. With B = 1 it is B all along a family of parallel ridges, with B = 2 on a lattice
//! of points, and with B ≥ 3 (frequencies in general position) at the user alone, up to how well
//! the fit went. So the server looks for every place the surface comes within the fit's own
//! uncertainty of its top: the cells near the top are each climbed by Newton's method to the
//! surface's local maximum, and those ending within the tie tolerance of the best are tied.
//! Among ties the server either picks at random (what the surface alone says) or uses the
//! density it published as a prior: people are more likely where more people are.

use super::fit::{Component, Fit};
use super::grid::Grid;
use serde::{Deserialize, Serialize};
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;

/// One of the places the fitted surface is highest.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub at: Metres,
    pub value: f64,
}

/// Most cells climbed from (the highest first).
const MAX_STARTS: usize = 4096;
/// Newton steps per climb.
const CLIMB_STEPS: usize = 20;

/// The places within the tie tolerance of the surface's maximum over `grid`'s rectangle,
/// highest first. The tolerance is three times the fit's residual (its uncertainty in value)
/// plus rounding; the cells climbed from are those within the most any cell centre can fall
/// below a nearby crest, Σ_b A_b(1 − cos(‖ω_b‖·r)) for r half a cell's diagonal.
pub fn tied_maxima(fit: &Fit, grid: &Grid) -> Vec<Candidate> {
    let total: f64 = fit.components.iter().map(|c| c.amplitude.abs()).sum();
    if total <= 0.0 {
        return Vec::new();
    }
    let surface = fit.surface(grid);
    let top = surface.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (dx, dy) = grid.step();
    let r = 0.5 * dx.hypot(dy);
    let slack: f64 = fit
        .components
        .iter()
        .map(|c| c.amplitude.abs() * (1.0 - libm::cos(c.omega[0].hypot(c.omega[1]) * r)))
        .sum();
    let tie = 3.0 * fit.rms_residual + 1e-9 * total;
    let mut starts: Vec<usize> = (0..surface.len())
        .filter(|&k| surface[k] >= top - slack - tie)
        .collect();
    starts.sort_by(|&a, &b| surface[b].total_cmp(&surface[a]).then(a.cmp(&b)));
    starts.truncate(MAX_STARTS);
    let mut found: Vec<Candidate> = starts
        .iter()
        .map(|&k| climb(fit, grid, grid.point(k)))
        .collect();
    let best = found
        .iter()
        .map(|c| c.value)
        .fold(f64::NEG_INFINITY, f64::max);
    found.retain(|c| c.value >= best - tie);
    found.sort_by(|a, b| b.value.total_cmp(&a.value));
    // Climbs that met at one maximum count once (within a metre).
    let mut out: Vec<Candidate> = Vec::with_capacity(found.len());
    for c in found {
        if out.iter().all(|o| o.at.distance(&c.at) > 1.0) {
            out.push(c);
        }
    }
    out
}

/// Newton's method up the surface from `x`, kept on the grid's rectangle. The Hessian is shifted
/// until it is negative definite, so every step goes uphill (on a ridge it steps onto the crest
/// and barely along it); a step that lowers the value is halved.
pub fn climb(fit: &Fit, grid: &Grid, mut x: Metres) -> Candidate {
    let curvature: f64 = fit
        .components
        .iter()
        .map(|c| c.amplitude.abs() * (c.omega[0].powi(2) + c.omega[1].powi(2)))
        .sum::<f64>()
        .max(1e-300);
    let clamp = |m: Metres| {
        Metres::new(
            m.east.clamp(grid.lo.east, grid.hi.east),
            m.north.clamp(grid.lo.north, grid.hi.north),
        )
    };
    let (mut value, _, _) = fit.slope(x);
    for _ in 0..CLIMB_STEPS {
        let (_, g, [hee, hen, hnn]) = fit.slope(x);
        let top = 0.5 * (hee + hnn + ((hee - hnn).powi(2) + 4.0 * hen * hen).sqrt());
        let mu = top.max(0.0) + 1e-3 * curvature;
        let (a, b, c) = (hee - mu, hen, hnn - mu);
        let det = a * c - b * b;
        let mut step = [-(c * g[0] - b * g[1]) / det, -(a * g[1] - b * g[0]) / det];
        let mut moved = false;
        for _ in 0..8 {
            let next = clamp(Metres::new(x.east + step[0], x.north + step[1]));
            let v = fit.value(next);
            if v > value {
                (x, value, moved) = (next, v, true);
                break;
            }
            step = [0.5 * step[0], 0.5 * step[1]];
        }
        if !moved || step[0].hypot(step[1]) < 1e-6 {
            break;
        }
    }
    Candidate { at: x, value }
}

/// The server's pick among tied candidates: at random from `stream` without a prior; with one
/// (a density on `grid`, read bilinearly, below zero read as zero), the densest, ties again at
/// random. None without candidates.
pub fn choose(
    candidates: &[Candidate],
    prior: Option<&[f64]>,
    grid: &Grid,
    stream: &mut Stream,
) -> Option<Metres> {
    if candidates.is_empty() {
        return None;
    }
    let pool: Vec<Metres> = match prior {
        None => candidates.iter().map(|c| c.at).collect(),
        Some(density) => {
            let weights: Vec<f64> = candidates
                .iter()
                .map(|c| sample(density, grid, c.at).max(0.0))
                .collect();
            let best = weights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            candidates
                .iter()
                .zip(&weights)
                .filter(|(_, w)| **w >= best * (1.0 - 1e-12))
                .map(|(c, _)| c.at)
                .collect()
        }
    };
    Some(pool[stream.below(pool.len() as u64) as usize])
}

/// A surface on `grid` read at `x` by bilinear interpolation between cell centres (clamped to
/// the outermost centres).
pub fn sample(surface: &[f64], grid: &Grid, x: Metres) -> f64 {
    let (dx, dy) = grid.step();
    let fi = ((x.east - grid.lo.east) / dx - 0.5).clamp(0.0, (grid.p - 1) as f64);
    let fj = ((x.north - grid.lo.north) / dy - 0.5).clamp(0.0, (grid.q - 1) as f64);
    let (i, j) = (fi.floor() as usize, fj.floor() as usize);
    let (i1, j1) = ((i + 1).min(grid.p - 1), (j + 1).min(grid.q - 1));
    let (ti, tj) = (fi - i as f64, fj - j as f64);
    let at = |i: usize, j: usize| surface[j * grid.p + i];
    (1.0 - tj) * ((1.0 - ti) * at(i, j) + ti * at(i1, j))
        + tj * ((1.0 - ti) * at(i, j1) + ti * at(i1, j1))
}

/// What two uploads of one user with one basis reveal about how far they moved (issue #15 (d)).
/// The first upload's fit gives the frequencies ω_b and phases φ_b = ω_bᵀ(d₁ − c); the second
/// upload's phases on the same frequencies ([`super::fit::phases`]) are ω_bᵀ(d₂ − c). Their
/// differences ψ_b = ω_bᵀΔ (mod 2π) pin the displacement Δ = d₂ − d₁ down to the same ambiguity
/// as a location (ridges for B = 1, a lattice for B = 2), whatever the phases say about where
/// either place is. The server maximises Σ_b A_b cos(ω_bᵀΔ − ψ_b) over every displacement the
/// grid allows and, among ties, takes the shortest: people move less rather than more.
pub fn displacement(first: &Fit, second: &[Component], grid: &Grid) -> Option<Metres> {
    let components: Vec<Component> = first
        .components
        .iter()
        .zip(second)
        .map(|(a, b)| Component {
            omega: a.omega,
            amplitude: a.amplitude.min(b.amplitude),
            phase: b.phase - a.phase,
        })
        .collect();
    let shifts = Fit {
        centre: Metres::new(0.0, 0.0),
        components,
        rms_residual: 2.0 * first.rms_residual,
    };
    let (w, h) = (grid.hi.east - grid.lo.east, grid.hi.north - grid.lo.north);
    let reach = Grid::centred(w, h, 2 * grid.p, 2 * grid.q);
    tied_maxima(&shifts, &reach)
        .into_iter()
        .map(|c| c.at)
        .min_by(|a, b| a.east.hypot(a.north).total_cmp(&b.east.hypot(b.north)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::density::fit::{fit, phases};
    use crate::density::rff::Basis;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn grid() -> Grid {
        Grid::centred(4000.0, 4000.0, 128, 128)
    }

    #[test]
    fn three_or_more_features_give_the_location_away_on_a_noiseless_upload() {
        let g = grid();
        let mut s = Stream::new(1, "search");
        for b in [3, 5, 10] {
            let mut errors: Vec<f64> = (0..20)
                .map(|user| {
                    let basis = Basis::of_user(11, user, b, 300.0, None);
                    let d =
                        Metres::new(-2900.0 + 290.0 * user as f64, 1500.0 - 130.0 * user as f64);
                    let f = fit(&basis.upload(&g, d), &g, b);
                    let tied = tied_maxima(&f, &g);
                    choose(&tied, None, &g, &mut s).unwrap().distance(&d)
                })
                .collect();
            errors.sort_by(f64::total_cmp);
            // Better than the grid's resolution (62.5 m cells) for most users.
            assert!(errors[14] < 1.0, "B = {b}: {errors:?}");
        }
    }

    #[test]
    fn one_feature_leaves_a_ridge_and_the_density_prior_picks_on_it() {
        let g = grid();
        let basis = Basis::of_user(3, 1, 1, 300.0, None);
        let d = Metres::new(1000.0, -500.0);
        let f = fit(&basis.upload(&g, d), &g, 1);
        let tied = tied_maxima(&f, &g);
        // Many places along parallel ridges tie, each where ωᵀ(x − d) ≡ 0 (mod 2π).
        assert!(tied.len() > 20, "{}", tied.len());
        let w = basis.omega[0];
        for c in &tied {
            let t = w[0] * (c.at.east - d.east) + w[1] * (c.at.north - d.north);
            let off = (t / std::f64::consts::TAU).round() * std::f64::consts::TAU - t;
            assert!(off.abs() < 1e-3, "{off}");
        }
        // A prior that is a bump at the user makes the pick.
        let prior = crate::density::kde::bump(&g, d, 300.0);
        let pick = choose(&tied, Some(&prior), &g, &mut Stream::new(1, "p")).unwrap();
        assert!(pick.distance(&d) < 50.0, "{}", pick.distance(&d));
    }

    #[test]
    fn two_uploads_give_the_displacement_even_where_the_places_are_ambiguous() {
        let g = grid();
        let (home, work) = (Metres::new(-800.0, -300.0), Metres::new(-450.0, 100.0));
        let truth = Metres::new(work.east - home.east, work.north - home.north);
        for b in [2, 3, 5] {
            let basis = Basis::of_user(4, 2, b, 300.0, None);
            let first = fit(&basis.upload(&g, home), &g, b);
            let second = phases(&first, &basis.upload(&g, work), &g);
            let guess = displacement(&first, &second, &g).unwrap();
            let off = Metres::new(guess.east - truth.east, guess.north - truth.north);
            assert!(
                off.east.hypot(off.north) < 1.0,
                "B = {b}: {guess:?} vs {truth:?}"
            );
        }
    }

    #[test]
    fn bilinear_sampling_meets_the_cell_centres() {
        let g = Grid::centred(10.0, 10.0, 4, 4);
        let s: Vec<f64> = (0..16).map(|k| k as f64).collect();
        assert_eq!(sample(&s, &g, g.point(5)), 5.0);
        let mid = Metres::new(0.5 * (g.point(5).east + g.point(6).east), g.point(5).north);
        assert!((sample(&s, &g, mid) - 5.5).abs() < 1e-12);
    }
}
