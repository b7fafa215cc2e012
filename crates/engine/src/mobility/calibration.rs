//! ST-GIA's calibration from multiple recoveries ([002] §3.3, Eq. 9): round r's window holds the
//! trajectory's points r … r + 7, so each point is recovered in up to 8 rounds; its estimate is
//! the mean of its recoveries. Causal (the paper's): at round t only rounds ≤ t count. All
//! rounds (the authors' code): every round of the run that contains the point, later ones too.
//! A round whose attack diverged ([`super::attack::Inversion::diverged`]) recovered nothing: it
//! is left out of every mean (the paper's Eq. 9 averages recoveries, and a point thousands of
//! kilometres out is none).

use super::lstm::{INPUT, WINDOW, Window};
use super::traces::Scaler;
use whereabouts_core::geo::Metres;

/// One point's calibrated estimate: the mean of its recoveries and how many there were.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub at: [f32; INPUT],
    pub recoveries: usize,
}

/// The estimate of every point of the trajectory covered so far, from `recovered[r]` = round
/// r's reconstructed window (its first point is point r; `None` where the round's attack
/// diverged), using the first `rounds` of them (`rounds` = t + 1 at round t for the causal
/// reading; all of them for the code's). `None` for a point no counted round recovered.
pub fn calibrate(recovered: &[Option<Window<f32>>], rounds: usize) -> Vec<Option<Estimate>> {
    let rounds = rounds.min(recovered.len());
    let points = if rounds == 0 { 0 } else { rounds - 1 + WINDOW };
    let mut sum = vec![[0.0f64; INPUT]; points];
    let mut count = vec![0usize; points];
    for (r, window) in recovered[..rounds].iter().enumerate() {
        let Some(window) = window else { continue };
        for (k, p) in window.iter().enumerate() {
            for c in 0..INPUT {
                sum[r + k][c] += f64::from(p[c]);
            }
            count[r + k] += 1;
        }
    }
    sum.iter()
        .zip(&count)
        .map(|(s, &n)| {
            (n > 0).then(|| Estimate {
                at: std::array::from_fn(|c| (s[c] / n as f64) as f32),
                recoveries: n,
            })
        })
        .collect()
}

/// How many recoveries of point `p` the first `rounds` rounds hold when none diverged:
/// min(p, rounds − 1) − max(0, p − 7) + 1 when positive.
pub fn recoveries(p: usize, rounds: usize) -> usize {
    if rounds == 0 {
        return 0;
    }
    let first = p.saturating_sub(WINDOW - 1);
    let last = p.min(rounds - 1);
    if last < first { 0 } else { last - first + 1 }
}

/// Window `t`'s points as the causal calibration has them at round `t` (Eq. 9 over rounds ≤ t),
/// from `recovered` (rounds 0 … t at least); `None` for a point no round recovered.
pub fn causal(recovered: &[Option<Window<f32>>], t: usize) -> [Option<Estimate>; WINDOW] {
    let estimates = calibrate(recovered, t + 1);
    std::array::from_fn(|k| estimates[t + k])
}

/// Each given round's errors (metres) under the all-rounds calibration (every recovered window
/// of the run counts), for the points some round recovered (a point none did is not scored):
/// `rounds` gives each round's index and its window's true points, `scaler` the target's
/// normalisation.
pub fn all_rounds_errors<'a>(
    recovered: &[Option<Window<f32>>],
    scaler: &Scaler,
    rounds: impl Iterator<Item = (usize, &'a [Metres])>,
) -> Vec<Vec<f64>> {
    let all = calibrate(recovered, recovered.len());
    rounds
        .map(|(round, truth)| {
            (0..WINDOW)
                .filter_map(|k| {
                    let p = all[round + k]?;
                    Some(scaler.denormalise(p.at).distance(&truth[k]))
                })
                .collect()
        })
        .collect()
}
