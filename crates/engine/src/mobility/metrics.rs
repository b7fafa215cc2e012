//! The attack's metrics ([002] §5.1): the attack success rate (ASR), the share of points
//! reconstructed within τ of the truth (500 m in the paper; the authors' scripts also use 1 and
//! 2.5 km), and the attack iterations (AIT), the first iteration at which a point came within τ,
//! averaged over the points it came within τ at all. Beside them, the same success scored
//! against the person's own places rather than against where they were at that time
//! ([`place_errors`]), which puts PGEM and the other defences on one footing.

use whereabouts_core::geo::Metres;

/// The share of `errors_m` at most `tau_m` (None for no points).
pub fn asr(errors_m: &[f64], tau_m: f64) -> Option<f64> {
    (!errors_m.is_empty())
        .then(|| errors_m.iter().filter(|&&e| e <= tau_m).count() as f64 / errors_m.len() as f64)
}

/// For one point: the first iteration (1-based) whose error is at most `tau_m`.
pub fn first_success(errors_by_iteration: &[f64], tau_m: f64) -> Option<usize> {
    errors_by_iteration
        .iter()
        .position(|&e| e <= tau_m)
        .map(|i| i + 1)
}

/// The mean of the points' first successes (None if no point succeeded).
pub fn ait(first_successes: &[Option<usize>]) -> Option<f64> {
    let hits: Vec<usize> = first_successes.iter().flatten().copied().collect();
    (!hits.is_empty()).then(|| hits.iter().sum::<usize>() as f64 / hits.len() as f64)
}

/// The distance (metres) from `guess` to the nearest of `places` (infinite without any).
pub fn nearest_place_m(guess: Metres, places: &[Metres]) -> f64 {
    places
        .iter()
        .map(|p| guess.distance(p))
        .fold(f64::INFINITY, f64::min)
}

/// Each guess's distance to the nearest of the person's own places: read with [`asr`], a guess
/// succeeds when it lands within τ of any place the person goes, not only of where they were
/// in that round. PGEM ([002] Eq. 13) makes the phone train on places drawn from that set, so an
/// attack that recovers what was sent fails by the paper's ASR and succeeds by this one: it
/// learns where the person goes, though not when.
pub fn place_errors(guesses: &[Metres], places: &[Metres]) -> Vec<f64> {
    guesses
        .iter()
        .map(|g| nearest_place_m(*g, places))
        .collect()
}

/// The share of the city (± `half_w` × ± `half_h` metres) within `tau_m` of one of `places`:
/// the chance that a guess drawn uniformly over the city succeeds against them. Counted at the
/// centres of a lattice of cells τ/10 on a side.
pub fn place_chance(places: &[Metres], tau_m: f64, half_w: f64, half_h: f64) -> f64 {
    let step = tau_m / 10.0;
    let (nx, ny) = (
        (2.0 * half_w / step).ceil() as usize,
        (2.0 * half_h / step).ceil() as usize,
    );
    let mut within = 0usize;
    for i in 0..nx {
        for j in 0..ny {
            let at = Metres::new(
                -half_w + (i as f64 + 0.5) * 2.0 * half_w / nx as f64,
                -half_h + (j as f64 + 0.5) * 2.0 * half_h / ny as f64,
            );
            within += usize::from(nearest_place_m(at, places) <= tau_m);
        }
    }
    within as f64 / (nx * ny).max(1) as f64
}
