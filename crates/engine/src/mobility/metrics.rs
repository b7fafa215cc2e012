//! The attack's metrics ([002] §5.1): the attack success rate (ASR), the share of points
//! reconstructed within τ of the truth (500 m in the paper; the authors' scripts also use 1 and
//! 2.5 km), and the attack iterations (AIT), the first iteration at which a point came within τ,
//! averaged over the points it came within τ at all.

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
