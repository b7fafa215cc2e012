//! Local differential privacy on the update: the paper's DP baseline ([000] §4.5, "DP"; App. B).
//!
//! Each participant clips the gradient its update stands for, g = (w_{t−1} − w_t^k)/η (one
//! exact gradient under FedSGD; the sum of the local steps' gradients under FedAvg), to L2 norm
//! ℂ, adds i.i.d. N(0, σ²) noise with the Gaussian mechanism's σ = √(2 ln(1.25/δ))·ℂ/ε, and
//! sends w_{t−1} − η·g̃. The paper leaves open whether this happens per SGD step or once per
//! update; we do it once per update (the server only ever sees the update). Its δ is 1e-5 (the
//! value that matches its quoted σ = 0.048 at ε = 100), and its sensitivity is ℂ, as in its
//! formula (for replacing one device's whole update by another, the sensitivity is 2ℂ: then
//! every ε here is half the real one — a documented property of the paper's baseline).
//!
//! Accounting across rounds: the per-round (ε, δ) says nothing about a user who takes part in
//! many rounds. [`RdpAccountant`] composes the rounds with Rényi DP (Mironov 2017): the
//! Gaussian mechanism with sensitivity ℂ and noise σ is (α, α·ℂ²/(2σ²))-RDP for every α > 1;
//! RDP adds up over rounds; and (α, ρ)-RDP implies (ρ + ln(1/δ)/(α − 1), δ)-DP. Minimising over
//! α in closed form: with a = Σ ℂ²/(2σ²), ε_total = a + 2√(a·ln(1/δ)).

use crate::error::ConfigError;
use crate::rng::Stream;
use serde::{Deserialize, Serialize};

/// The Gaussian mechanism's noise for (ε, δ) at L2 sensitivity `clip`.
pub fn gaussian_sigma(epsilon: f64, delta: f64, clip: f64) -> f64 {
    libm::sqrt(2.0 * libm::log(1.25 / delta)) * clip / epsilon
}

/// Local DP settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalDp {
    /// ε per round.
    pub epsilon: f64,
    pub delta: f64,
    /// ℂ, the clipping norm (the paper's 1).
    pub clip: f64,
    /// Stop a user's participation before its total ε (RDP-composed) would exceed this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<f64>,
}

impl LocalDp {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(self.epsilon.is_finite() && self.epsilon > 0.0) {
            return Err(ConfigError::new(
                "defense.epsilon",
                "must be a positive number",
            ));
        }
        if !(self.delta > 0.0 && self.delta < 1.0) {
            return Err(ConfigError::new("defense.delta", "must be in (0, 1)"));
        }
        if !(self.clip.is_finite() && self.clip > 0.0) {
            return Err(ConfigError::new("defense.clip", "must be a positive norm"));
        }
        if self.budget.is_some_and(|b| !(b.is_finite() && b > 0.0)) {
            return Err(ConfigError::new("defense.budget", "must be a positive ε"));
        }
        Ok(())
    }

    pub fn sigma(&self) -> f64 {
        gaussian_sigma(self.epsilon, self.delta, self.clip)
    }

    /// Privatises an update: clip g = (before − after)/η to ℂ, add noise, rebuild the weights.
    pub fn privatise(&self, before: &[f32], after: &[f32], lr: f32, s: &mut Stream) -> Vec<f32> {
        let g: Vec<f64> = before
            .iter()
            .zip(after)
            .map(|(&b, &a)| f64::from(b - a) / f64::from(lr))
            .collect();
        let norm = libm::sqrt(g.iter().map(|v| v * v).sum::<f64>());
        let scale = if norm > self.clip {
            self.clip / norm
        } else {
            1.0
        };
        let sigma = self.sigma();
        before
            .iter()
            .zip(&g)
            .map(|(&b, &gi)| {
                let noisy = gi * scale + s.gaussian(0.0, sigma);
                (f64::from(b) - f64::from(lr) * noisy) as f32
            })
            .collect()
    }
}

/// Total privacy loss of the rounds a user took part in (RDP composition, see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RdpAccountant {
    /// a = Σ over rounds of ℂ²/(2σ²).
    a: f64,
    rounds: usize,
}

impl RdpAccountant {
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// Records one release of the Gaussian mechanism with noise `sigma` at sensitivity `clip`.
    pub fn record(&mut self, sigma: f64, clip: f64) {
        self.a += clip * clip / (2.0 * sigma * sigma);
        self.rounds += 1;
    }

    /// ε of the composition at `delta` (0 before any round).
    pub fn epsilon(&self, delta: f64) -> f64 {
        Self::epsilon_for(self.a, delta)
    }

    /// ε if one more round with `sigma`, `clip` were released.
    pub fn epsilon_after(&self, sigma: f64, clip: f64, delta: f64) -> f64 {
        Self::epsilon_for(self.a + clip * clip / (2.0 * sigma * sigma), delta)
    }

    fn epsilon_for(a: f64, delta: f64) -> f64 {
        if a <= 0.0 {
            return 0.0;
        }
        a + 2.0 * libm::sqrt(a * libm::log(1.0 / delta))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_papers_sigma() {
        // ε = 100, δ = 1e-5, ℂ = 1: σ = √(2 ln 125000)/100 ≈ 0.0484 ([000] §4.5: ℂ = 1, δ = 1e-5; App. B.2: σ = 0.048 at ε = 100).
        let s = gaussian_sigma(100.0, 1e-5, 1.0);
        assert!((s - 0.04845).abs() < 5e-5, "{s}");
    }

    #[test]
    fn the_accountant_grows_with_rounds_and_matches_a_known_value() {
        let mut acc = RdpAccountant::default();
        assert_eq!(acc.epsilon(1e-5), 0.0);
        // σ = ℂ, one round, δ = 1e-5: min over α of α/2 + ln(1e5)/(α − 1), at α = 1 + √(2 ln 1e5)
        // ≈ 5.798, is 5.2985 (computed by hand).
        acc.record(1.0, 1.0);
        assert!(
            (acc.epsilon(1e-5) - 5.2985).abs() < 1e-3,
            "{}",
            acc.epsilon(1e-5)
        );
        let mut last = acc.epsilon(1e-5);
        for _ in 0..10 {
            let next = acc.epsilon_after(1.0, 1.0, 1e-5);
            acc.record(1.0, 1.0);
            assert_eq!(acc.epsilon(1e-5), next);
            assert!(next > last);
            last = next;
        }
        assert_eq!(acc.rounds(), 11);
        // Sub-linear in the rounds: 11 rounds cost less than 11 times one.
        assert!(last < 11.0 * 5.2985);
    }

    #[test]
    fn privatising_clips_then_adds_noise() {
        let dp = LocalDp {
            epsilon: 1e9, // negligible noise
            delta: 1e-5,
            clip: 1.0,
            budget: None,
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
