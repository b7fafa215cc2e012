//! Local differential privacy on the device: the paper's DP baseline ([000] §4.5, "DP"; App. B).
//!
//! [000] §4.5 applies clipping and Gaussian noise "on the gradients of each LocalBatch": each
//! local SGD step's mini-batch gradient is clipped to L2 norm ℂ and N(0, σ²) noise is added to
//! every coordinate before the step is taken ([`AppliedTo::LocalStep`], the default; under
//! FedSGD that is the one step of the round). The option [`AppliedTo::Update`] clips and
//! noises once, the gradient the whole update stands for, g = (w_{t−1} − w_t^k)/η (the sum of
//! the local steps' gradients under FedAvg), and sends w_{t−1} − η·g̃.
//!
//! What is protected: the server sees each device's update on its own (local DP), so any two
//! data sets of one device in one round are neighbours — the protected unit is **one device's
//! whole round of data** (every point of its LocalBatch), not one point. Replacing that data
//! can move a clipped gradient from one side of the ℂ-ball to the other: the L2 sensitivity is
//! **2ℂ** ([`LocalDp::sensitivity`]), and σ is calibrated to it. (The paper's formula uses ℂ,
//! which halves every ε it states.) δ is 1e-5 ([000] §4.5 gives both δ = 1/‖LocalBatch‖ and
//! 1e-5; its σ = 0.048 at ε = 100, App. B.2, is the classic formula at ℂ = 1, δ = 1e-5).
//!
//! Calibration ([`Calibration`]): the paper uses the classic σ = √(2 ln(1.25/δ))·Δ/ε, which is
//! proven only for ε < 1; at large ε it is far below what (ε, δ)-DP needs. The default here is
//! the analytic Gaussian mechanism (Balle & Wang 2018), the exact smallest σ for every ε, in
//! the lab and in `reproduce`; the classic formula stays as the paper's option, at Δ = 2ℂ.
//!
//! The ε set is spent per release: per local step ([`AppliedTo::LocalStep`]) or per update.
//! [`RdpAccountant`] composes every release of the device (each step of each round) with Rényi
//! DP (Mironov 2017): the Gaussian mechanism with sensitivity Δ and noise σ is
//! (α, α·Δ²/(2σ²))-RDP; RDP adds up; and (α, ρ)-RDP implies (ρ + ln(1/δ)/(α − 1), δ)-DP.
//! With a = Σ Δ²/(2σ²), ε_total = a + 2√(a·ln(1/δ)) — the device's total over the run, at δ.

use crate::signal_map::model::train::{LocalTraining, StepNoise};
use serde::{Deserialize, Serialize};
use whereabouts_core::error::ConfigError;
pub use whereabouts_core::privacy::gaussian::{Calibration, RdpAccountant};
use whereabouts_core::privacy::gaussian::{clip_and_noise, gaussian_sigma};
use whereabouts_core::rng::Stream;

/// Where the device clips and noises.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AppliedTo {
    /// Every local SGD step's mini-batch gradient ([000] §4.5: "on the gradients of each
    /// LocalBatch").
    #[default]
    LocalStep,
    /// Once, on the gradient the whole update stands for.
    Update,
}

// The key in configurations and links, and the label in the lab's menu.
whereabouts_core::choices!(AppliedTo, "a place for DP", {
    AppliedTo::LocalStep => "local_step", "Every local step (paper)";
    AppliedTo::Update => "update", "Once on the update";
});

/// Local DP settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalDp {
    /// ε per release: per local step, or per update (see `applied_to`).
    pub epsilon: f64,
    pub delta: f64,
    /// ℂ, the clipping norm (the paper's 1).
    pub clip: f64,
    /// Stop a user's participation before its total ε (RDP-composed) would exceed this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<f64>,
    /// How σ follows from (ε, δ, Δ = 2ℂ).
    #[serde(default)]
    pub calibration: Calibration,
    /// Per local step (the paper's) or once per update.
    #[serde(default)]
    pub applied_to: AppliedTo,
}

/// The paper's δ for local DP ([000] §4.5, App. B.2).
pub const PAPER_DELTA: f64 = 1e-5;
/// The paper's clipping norm ℂ ([000] §4.5).
pub const PAPER_CLIP: f64 = 1.0;

impl LocalDp {
    /// Local DP at `epsilon` per local step with the paper's δ and ℂ, no budget, the exact
    /// (analytic) calibration.
    pub fn at(epsilon: f64) -> Self {
        Self {
            epsilon,
            delta: PAPER_DELTA,
            clip: PAPER_CLIP,
            budget: None,
            calibration: Calibration::Analytic,
            applied_to: AppliedTo::LocalStep,
        }
    }

    /// The L2 sensitivity of one release: 2ℂ, since any two clipped gradients of a device are
    /// neighbours under local DP (see the module docs).
    pub fn sensitivity(&self) -> f64 {
        2.0 * self.clip
    }

    /// How many releases a device makes in a round of `n` points trained with `local`: its
    /// local steps E·⌈n/B⌉, or one update (none without data).
    pub fn releases(&self, n: usize, local: &LocalTraining) -> usize {
        if n == 0 {
            return 0;
        }
        match self.applied_to {
            AppliedTo::Update => 1,
            AppliedTo::LocalStep => {
                let b = local.batch_size.unwrap_or(n).clamp(1, n);
                local.epochs * n.div_ceil(b)
            }
        }
    }

    /// Records `releases` releases in `spent`.
    pub fn spend(&self, spent: &mut RdpAccountant, releases: usize) {
        for _ in 0..releases {
            spent.record(self.sigma(), self.sensitivity());
        }
    }

    /// ε of `releases` releases composed (RDP, at this δ): one round's ε under local steps.
    pub fn composed(&self, releases: usize) -> f64 {
        let mut a = RdpAccountant::default();
        self.spend(&mut a, releases);
        a.epsilon(self.delta)
    }

    /// The per-step privatisation for local training, or `None` when applied to the update.
    pub fn step_noise(&self) -> Option<StepNoise> {
        (self.applied_to == AppliedTo::LocalStep).then(|| StepNoise {
            clip: self.clip,
            sigma: self.sigma(),
        })
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::signal_map::limits::DP_EPSILON.check("defence.epsilon", self.epsilon)?;
        if !(self.delta > 0.0 && self.delta < 1.0) {
            return Err(ConfigError::new("defence.delta", "must be in (0, 1)"));
        }
        if !(self.clip.is_finite() && self.clip > 0.0) {
            return Err(ConfigError::new("defence.clip", "must be a positive norm"));
        }
        if self.budget.is_some_and(|b| !(b.is_finite() && b > 0.0)) {
            return Err(ConfigError::new("defence.budget", "must be a positive ε"));
        }
        Ok(())
    }

    /// σ of each release, calibrated to (ε, δ) at sensitivity 2ℂ.
    pub fn sigma(&self) -> f64 {
        gaussian_sigma(
            self.calibration,
            self.epsilon,
            self.delta,
            self.sensitivity(),
        )
    }

    /// Privatises an update: clip g = (before − after)/η to ℂ, add noise, rebuild the weights.
    pub fn privatise(&self, before: &[f32], after: &[f32], lr: f32, s: &mut Stream) -> Vec<f32> {
        let mut g: Vec<f64> = before
            .iter()
            .zip(after)
            .map(|(&b, &a)| f64::from(b - a) / f64::from(lr))
            .collect();
        clip_and_noise(&mut g, self.clip, self.sigma(), s);
        before
            .iter()
            .zip(&g)
            .map(|(&b, &noisy)| (f64::from(b) - f64::from(lr) * noisy) as f32)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_papers_sigma() {
        // ε = 100, δ = 1e-5, ℂ = 1: σ = √(2 ln 125000)/100 ≈ 0.0484 ([000] §4.5: ℂ = 1,
        // δ = 1e-5; App. B.2: σ = 0.048 at ε = 100) — the formula at sensitivity ℂ.
        let s = gaussian_sigma(Calibration::Classic, 100.0, 1e-5, 1.0);
        assert!((s - 0.04845).abs() < 5e-5, "{s}");
        // At the true sensitivity 2ℂ the same ε needs twice the noise.
        let dp = LocalDp {
            calibration: Calibration::Classic,
            ..LocalDp::at(100.0)
        };
        assert!((dp.sigma() - 2.0 * s).abs() < 1e-12, "{}", dp.sigma());
    }

    #[test]
    fn sigma_is_calibrated_to_the_sensitivity_of_the_clipped_gradient() {
        // Measure the sensitivity: clip gradients of many directions and sizes, the largest
        // distance between two clipped ones is 2ℂ (opposite directions, both over ℂ).
        let clip = 1.5;
        let mut s = Stream::new(7, "sensitivity");
        let mut raw: Vec<Vec<f64>> = (0..200)
            .map(|_| (0..6).map(|_| s.gaussian(0.0, 3.0)).collect())
            .collect();
        raw.push(vec![clip * 4.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        raw.push(vec![-clip * 9.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        let clipped: Vec<Vec<f64>> = raw
            .into_iter()
            .map(|mut g| {
                clip_and_noise(&mut g, clip, 0.0, &mut s);
                g
            })
            .collect();
        let mut widest = 0.0f64;
        for a in &clipped {
            for b in &clipped {
                let d = a
                    .iter()
                    .zip(b)
                    .map(|(x, y)| (x - y).powi(2))
                    .sum::<f64>()
                    .sqrt();
                widest = widest.max(d);
            }
        }
        assert!((widest - 2.0 * clip).abs() < 1e-9, "{widest}");
        let dp = LocalDp {
            clip,
            ..LocalDp::at(2.0)
        };
        assert!((dp.sensitivity() - widest).abs() < 1e-9);
        let exact = whereabouts_core::privacy::gaussian::analytic_sigma(2.0, 1e-5, 2.0 * clip);
        assert_eq!(dp.sigma(), exact);
    }

    #[test]
    fn a_round_spends_one_release_per_local_step() {
        let fedavg = LocalTraining {
            batch_size: Some(20),
            epochs: 5,
            learning_rate: 0.001,
        };
        let dp = LocalDp::at(1.0);
        assert_eq!(dp.releases(45, &fedavg), 15); // E·⌈45/20⌉
        assert_eq!(dp.releases(0, &fedavg), 0);
        let fedsgd = LocalTraining {
            batch_size: None,
            ..fedavg
        };
        assert_eq!(dp.releases(45, &fedsgd), 5);
        let once = LocalDp {
            applied_to: AppliedTo::Update,
            ..dp
        };
        assert_eq!(once.releases(45, &fedavg), 1);
        // Fifteen steps cost more than one, less than fifteen times one (RDP).
        let (one, fifteen) = (dp.composed(1), dp.composed(15));
        assert!(fifteen > one && fifteen < 15.0 * one, "{one} {fifteen}");
        let mut spent = RdpAccountant::default();
        dp.spend(&mut spent, 15);
        assert_eq!(spent.releases(), 15);
        assert_eq!(spent.epsilon(dp.delta), fifteen);
        // A configuration without the field is the paper's per-step DP.
        let old: LocalDp =
            serde_json::from_str(r#"{"epsilon": 10, "delta": 1e-5, "clip": 1}"#).unwrap();
        assert_eq!(old.applied_to, AppliedTo::LocalStep);
    }

    #[test]
    fn privatising_clips_then_adds_noise() {
        let dp = LocalDp {
            epsilon: 1e9, // negligible noise
            delta: 1e-5,
            clip: 1.0,
            budget: None,
            calibration: Calibration::Classic,
            applied_to: AppliedTo::Update,
        };
        let before = vec![0.0f32; 4];
        let after = vec![-0.3f32, 0.4, 0.0, 0.0]; // g = (3, −4, 0, 0)/… with η = 0.1: ‖g‖ = 5
        let out = dp.privatise(&before, &after, 0.1, &mut Stream::new(1, "dp"));
        // Clipped to norm 1: g̃ = (0.6, −0.8, 0, 0), w = −η g̃.
        let expect = [-0.06f32, 0.08, 0.0, 0.0];
        for (o, e) in out.iter().zip(expect) {
            assert!((o - e).abs() < 1e-6, "{out:?}");
        }
        let noisy = LocalDp { epsilon: 1.0, ..dp };
        let a = noisy.privatise(&before, &after, 0.1, &mut Stream::new(1, "dp"));
        assert_ne!(a, out);
        assert!(noisy.validate().is_ok());
        assert!(LocalDp { delta: 0.0, ..dp }.validate().is_err());
    }
}
