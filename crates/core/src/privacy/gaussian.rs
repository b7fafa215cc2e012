//! The Gaussian mechanism on plain vectors: σ calibrated to (ε, δ), clipping, and the Rényi-DP
//! accountant that composes the releases of a person over rounds.
//!
//! Calibration ([`Calibration`]): the classic σ = √(2 ln(1.25/δ))·Δ/ε (Dwork & Roth 2014,
//! Theorem A.1) is proven only for ε < 1; the analytic Gaussian mechanism (Balle & Wang, ICML
//! 2018, Theorem 8) gives the exact smallest σ for every ε.
//!
//! Accounting ([`RdpAccountant`]): the Gaussian mechanism with sensitivity Δ and noise σ is
//! (α, α·Δ²/(2σ²))-RDP for every α > 1 (Mironov 2017, Corollary 3); RDP adds up over releases;
//! and (α, ρ)-RDP implies (ρ + ln(1/δ)/(α − 1), δ)-DP (ibid., Proposition 3). Minimising over α
//! in closed form: with a = Σ Δ²/(2σ²), ε_total = a + 2√(a·ln(1/δ)). Each release adds its own
//! Δ²/(2σ²), so releases with different σ (an adaptive budget) compose exactly.

use crate::rng::Stream;
use serde::{Deserialize, Serialize};

/// How the Gaussian mechanism's σ is calibrated to (ε, δ).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Calibration {
    /// The analytic Gaussian mechanism (Balle & Wang, ICML 2018, Theorem 8 / Algorithm 1):
    /// the smallest σ for which the mechanism is (ε, δ)-DP, exact for every ε.
    #[default]
    Analytic,
    /// The classic σ = √(2 ln(1.25/δ))·Δ/ε (Dwork & Roth 2014, Theorem A.1), which [000]
    /// uses. It is proven only for ε < 1: at larger ε it is too small to give (ε, δ)-DP.
    Classic,
}

/// The Gaussian mechanism's noise for (ε, δ) at L2 sensitivity `sensitivity`.
pub fn gaussian_sigma(calibration: Calibration, epsilon: f64, delta: f64, sensitivity: f64) -> f64 {
    match calibration {
        Calibration::Classic => libm::sqrt(2.0 * libm::log(1.25 / delta)) * sensitivity / epsilon,
        Calibration::Analytic => analytic_sigma(epsilon, delta, sensitivity),
    }
}

/// The exact δ of the Gaussian mechanism with noise σ at sensitivity Δ for a given ε (Balle &
/// Wang 2018, Theorem 8): δ(σ) = Φ(Δ/2σ − εσ/Δ) − e^ε·Φ(−Δ/2σ − εσ/Δ).
pub fn gaussian_delta(epsilon: f64, sigma: f64, sensitivity: f64) -> f64 {
    let a = sensitivity / (2.0 * sigma);
    let b = epsilon * sigma / sensitivity;
    // e^ε·Φ(−a−b) in logs: at large ε, e^ε overflows while Φ underflows.
    let second = libm::exp(epsilon + log_phi(-a - b));
    (libm::exp(log_phi(a - b)) - second).max(0.0)
}

/// The smallest σ with δ(σ) ≤ δ: δ(σ) falls as σ grows, so bisect on log σ.
pub fn analytic_sigma(epsilon: f64, delta: f64, sensitivity: f64) -> f64 {
    let (mut lo, mut hi) = (libm::log(1e-8 * sensitivity), libm::log(1e8 * sensitivity));
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if gaussian_delta(epsilon, libm::exp(mid), sensitivity) > delta {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    libm::exp(hi)
}

/// The smallest ε for which noise σ at sensitivity Δ is (ε, δ)-DP (the inverse of
/// [`analytic_sigma`]): δ(ε) falls as ε grows, so bisect on ε. 0 if σ already gives δ at ε = 0.
pub fn analytic_epsilon(sigma: f64, delta: f64, sensitivity: f64) -> f64 {
    if gaussian_delta(0.0, sigma, sensitivity) <= delta {
        return 0.0;
    }
    let mut hi = 1.0;
    while gaussian_delta(hi, sigma, sensitivity) > delta && hi < 1e12 {
        hi *= 2.0;
    }
    let mut lo = 0.0;
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if gaussian_delta(mid, sigma, sensitivity) > delta {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// ln Φ(x), the log of the standard normal CDF, accurate far into the lower tail.
pub(crate) fn log_phi(x: f64) -> f64 {
    if x > -30.0 {
        libm::log(0.5 * libm::erfc(-x / std::f64::consts::SQRT_2))
    } else {
        // Mills ratio: Φ(x) = φ(x)/|x| · (1 − 1/x² + 3/x⁴ − …) for x → −∞.
        let x2 = x * x;
        -0.5 * x2 - libm::log(-x) - 0.5 * libm::log(2.0 * std::f64::consts::PI)
            + libm::log(1.0 - 1.0 / x2 + 3.0 / (x2 * x2))
    }
}

/// Clips `g` to L2 norm `clip` and adds i.i.d. N(0, σ²) noise to each coordinate, in place.
pub fn clip_and_noise(g: &mut [f64], clip: f64, sigma: f64, s: &mut Stream) {
    let norm = libm::sqrt(g.iter().map(|v| v * v).sum::<f64>());
    let scale = if norm > clip { clip / norm } else { 1.0 };
    for v in g.iter_mut() {
        *v = *v * scale + s.gaussian(0.0, sigma);
    }
}

/// Total privacy loss of a user's releases (every round, or every local step, they sent; RDP
/// composition, see the module docs). Each release adds its own Δ²/(2σ²), so releases with
/// different σ compose exactly, and the total is kept as they happen rather than recomputed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RdpAccountant {
    /// a = Σ over releases of Δ²/(2σ²).
    a: f64,
    releases: usize,
}

impl RdpAccountant {
    /// How many releases were recorded.
    pub fn releases(&self) -> usize {
        self.releases
    }

    /// Records one release of the Gaussian mechanism with noise `sigma` at L2 sensitivity
    /// `sensitivity`.
    pub fn record(&mut self, sigma: f64, sensitivity: f64) {
        self.a += sensitivity * sensitivity / (2.0 * sigma * sigma);
        self.releases += 1;
    }

    /// ε of the composition at `delta` (0 before any round).
    pub fn epsilon(&self, delta: f64) -> f64 {
        Self::epsilon_for(self.a, delta)
    }

    /// ε if one more release with `sigma` at `sensitivity` were made.
    pub fn epsilon_after(&self, sigma: f64, sensitivity: f64, delta: f64) -> f64 {
        Self::epsilon_for(
            self.a + sensitivity * sensitivity / (2.0 * sigma * sigma),
            delta,
        )
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
    fn the_analytic_sigma_meets_delta_exactly_and_the_classic_one_fails_above_one() {
        for &eps in &[0.1, 0.5, 1.0, 2.0, 10.0, 100.0, 1000.0] {
            let s = analytic_sigma(eps, 1e-5, 1.0);
            // Exactly at δ: a hair less noise would exceed it.
            let d = gaussian_delta(eps, s, 1.0);
            assert!(d <= 1e-5 && d > 0.999e-5, "ε {eps}: δ({s}) = {d}");
            assert!(gaussian_delta(eps, s * 0.999, 1.0) > 1e-5, "ε {eps}");
            // The classic formula is valid (σ at least the exact one) for ε < 1 …
            let classic = gaussian_sigma(Calibration::Classic, eps, 1e-5, 1.0);
            if eps < 1.0 {
                assert!(classic >= s, "ε {eps}: classic {classic} < exact {s}");
            }
            // … and at large ε gives too little noise: its real δ exceeds 1e-5 (at ε = 10,
            // 2.3e-5), and at the paper's ε = 100 it is near 1, no guarantee at all.
            if eps >= 10.0 {
                assert!(classic < s, "ε {eps}");
                assert!(gaussian_delta(eps, classic, 1.0) > 1e-5, "ε {eps}");
            }
            if eps >= 100.0 {
                assert!(gaussian_delta(eps, classic, 1.0) > 0.5, "ε {eps}");
            }
        }
        // Balle & Wang's Fig. 1 regime: at ε = 1, δ = 1e-5 the exact σ is about 3.73·Δ
        // (classic: 4.84·Δ).
        let s = analytic_sigma(1.0, 1e-5, 1.0);
        assert!((s - 3.73).abs() < 0.02, "{s}");
        // σ scales with the sensitivity.
        let s2 = analytic_sigma(1.0, 1e-5, 2.0);
        assert!((s2 / s - 2.0).abs() < 1e-9, "{s2}");
    }

    #[test]
    fn the_analytic_epsilon_inverts_the_analytic_sigma() {
        for &eps in &[0.01, 0.5, 1.0, 10.0, 100.0, 1000.0] {
            for &sens in &[0.4, 1.0, 3.0] {
                let s = analytic_sigma(eps, 1e-5, sens);
                let back = analytic_epsilon(s, 1e-5, sens);
                assert!((back / eps - 1.0).abs() < 1e-6, "ε {eps}, Δ {sens}: {back}");
            }
        }
        // Enormous noise: private at ε = 0 already.
        assert_eq!(analytic_epsilon(1e6, 1e-5, 1.0), 0.0);
        // The classic σ for ε = 10 at Δ = 1, applied where the sensitivity is really 5: far
        // more than 10.
        let classic = gaussian_sigma(Calibration::Classic, 10.0, 1e-5, 1.0);
        assert!(analytic_epsilon(classic, 1e-5, 5.0) > 50.0);
    }

    #[test]
    fn the_accountant_composes_rounds_of_different_sigma() {
        // Three releases with σ = 1, 2, 0.5 at ℂ = 1: ε(δ) = min over α > 1 of
        // α·Σ 1/(2σ²) + ln(1/δ)/(α − 1), checked against a brute-force search over α.
        let sigmas = [1.0, 2.0, 0.5];
        let mut acc = RdpAccountant::default();
        let mut total_rho = 0.0;
        for s in sigmas {
            acc.record(s, 1.0);
            total_rho += 1.0 / (2.0 * s * s);
            let brute = (1..200_000)
                .map(|i| 1.0 + i as f64 * 1e-4)
                .map(|a| a * total_rho + (1e5f64).ln() / (a - 1.0))
                .fold(f64::INFINITY, f64::min);
            assert!(
                (acc.epsilon(1e-5) - brute).abs() < 1e-3,
                "{acc:?} vs {brute}"
            );
        }
        // The order of the rounds does not matter; their σ does.
        let mut other = RdpAccountant::default();
        for s in [0.5, 1.0, 2.0] {
            other.record(s, 1.0);
        }
        assert!((other.epsilon(1e-5) - acc.epsilon(1e-5)).abs() < 1e-12);
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
        assert_eq!(acc.releases(), 11);
        // Sub-linear in the rounds: 11 rounds cost less than 11 times one.
        assert!(last < 11.0 * 5.2985);
    }
}
