//! Geo-indistinguishability (Andrés et al., CCS 2013), the paper's GeoInd baseline ([000] §4.5,
//! App. B.1): every location gets planar-Laplace noise on the device, before local training.
//!
//! The planar Laplace density is ∝ exp(−ε·r) around the true point (ε per metre). Its exact
//! sampler: θ ~ U[0, 2π) and r = C⁻¹(p) = −(1/ε)·(W₋₁((p − 1)/e) + 1), p ~ U[0, 1), where W₋₁
//! is the −1 branch of the Lambert W function (Andrés et al., §4.1). The radius follows
//! Gamma(2, 1/ε), so its mean is 2/ε (tested). Labels stay: the phone measured the signal where
//! it really was.

use crate::signal_map::fl::BatchSelector;
use crate::signal_map::model::train::TrainError;
use crate::signal_map::trace::{Sample, Standardizer};
use serde::{Deserialize, Serialize};
use whereabouts_core::geo::Metres;
use whereabouts_core::privacy::laplace::planar_laplace;
use whereabouts_core::rng::Stream;

/// GeoInd on the device: every fix of D_t moved by planar-Laplace noise before training.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoInd {
    pub epsilon_per_m: f64,
    pub standardizer: Standardizer,
}

impl BatchSelector for GeoInd {
    fn select(&self, data: &[Sample], s: &mut Stream) -> Result<Vec<Sample>, TrainError> {
        Ok(data
            .iter()
            .map(|d| {
                let n = planar_laplace(self.epsilon_per_m, s);
                let pos = Metres::new(d.pos.east + n.east, d.pos.north + n.north);
                Sample {
                    pos,
                    x: self.standardizer.to_input(pos),
                    ..*d
                }
            })
            .collect())
    }
}

/// The distance [`GeoIndLoss::text`] states ε for: per metre the numbers are too small to read.
pub const LOSS_SCALE_M: f64 = 100.0;

/// What GeoInd's ε composes to over a run, by basic composition of pure DP (δ = 0), per metre
/// a fix moves: a server tells a fix from a place d metres away by a factor of at most e^(ε·d).
/// Each fix of a round's data is noised once, on the device, and the round trains on that copy
/// (every local step and epoch: no new release), so a fix is sent once — unless the training is
/// cumulative ([000] App. A.3), where every later round trains on it again, noised afresh.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GeoIndLoss {
    pub epsilon_per_m: f64,
    /// How many times one fix was sent, at most.
    pub releases_per_fix: usize,
    /// Every noisy fix the target sent over the run (with cumulative training, the re-sent
    /// ones again).
    pub reports: usize,
}

impl GeoIndLoss {
    /// From the size of the target's LocalBatch in each round it sent an update.
    pub fn of(epsilon_per_m: f64, batches: &[usize], cumulative: bool) -> GeoIndLoss {
        let sent = batches.iter().filter(|&&n| n > 0).count();
        GeoIndLoss {
            epsilon_per_m,
            releases_per_fix: if cumulative { sent } else { sent.min(1) },
            reports: batches.iter().sum(),
        }
    }

    /// One fix over the run, ε per metre it moves.
    pub fn per_fix(&self) -> f64 {
        self.releases_per_fix as f64 * self.epsilon_per_m
    }

    /// The whole trajectory over the run, ε per metre that each of its fixes moves.
    pub fn trajectory(&self) -> f64 {
        self.reports as f64 * self.epsilon_per_m
    }

    /// In words, for the summary (a leading space, as the local-DP text).
    pub fn text(&self) -> String {
        let scale = LOSS_SCALE_M;
        let fix = match self.releases_per_fix {
            0 => return String::new(),
            1 => format!(
                "each of your fixes was sent once, moved by planar-Laplace noise at ε = {} per metre, so one fix has ε = {} per {scale:.0} m it might have moved (δ = 0), however many rounds run",
                self.epsilon_per_m,
                number(self.per_fix() * scale),
            ),
            k => format!(
                "cumulative training sends your earlier fixes again every round, each time with fresh planar-Laplace noise at ε = {} per metre, so one fix, sent up to {k} times, has ε = {} per {scale:.0} m it might have moved (δ = 0)",
                self.epsilon_per_m,
                number(self.per_fix() * scale),
            ),
        };
        format!(
            " GeoInd: {fix}; your whole trajectory, {} noisy fixes, has ε = {} if every fix may move by up to {scale:.0} m (basic composition).",
            self.reports,
            number(self.trajectory() * scale),
        )
    }
}

/// An ε to read: whole numbers from 10, else up to two decimals.
fn number(e: f64) -> String {
    if e >= 10.0 {
        format!("{e:.0}")
    } else {
        let s = format!("{e:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_fix_sent_once_keeps_its_epsilon_and_the_trajectory_adds_every_fix() {
        // Three rounds of 40, 0 (no update) and 25 fixes.
        let l = GeoIndLoss::of(0.002, &[40, 25], false);
        assert_eq!((l.releases_per_fix, l.reports), (1, 65));
        assert_eq!(l.per_fix(), 0.002);
        assert!((l.trajectory() - 0.13).abs() < 1e-12);
        let t = l.text();
        assert!(t.contains("ε = 0.2 per 100 m"), "{t}");
        assert!(t.contains("65 noisy fixes, has ε = 13 if"), "{t}");
        assert!(t.contains("δ = 0"), "{t}");
    }

    #[test]
    fn cumulative_training_resends_a_fix_every_round() {
        let l = GeoIndLoss::of(0.002, &[40, 80, 120], true);
        assert_eq!((l.releases_per_fix, l.reports), (3, 240));
        assert!((l.per_fix() - 0.006).abs() < 1e-12);
        assert!(
            l.text()
                .contains("sent up to 3 times, has ε = 0.6 per 100 m")
        );
        assert_eq!(GeoIndLoss::of(0.002, &[], false).text(), "");
    }
}
