//! The Rényi DP of the sampled Gaussian mechanism: each record (here, each user) is in the
//! sample independently with probability q (Poisson sampling), the sample's sum of
//! contributions of L2 norm at most 1 gets N(0, z²) noise on every coordinate.
//!
//! Mironov, Talwar & Zhang, *Rényi Differential Privacy of the Sampled Gaussian Mechanism*
//! (arXiv 1908.10530, 2019): the mechanism is (α, ε(α))-RDP with
//! ε(α) = log A_α / (α − 1), where A_α = E_{x∼μ₀}[((1 − q) + q·μ₁(x)/μ₀(x))^α], μ₀ = N(0, z²),
//! μ₁ = N(1, z²) (§3, Theorem 4 and the remark after it: the pair (μ₀, (1 − q)μ₀ + qμ₁) is the
//! worst case for adding or removing one record).
//!
//! - For integer α, §3.2 expands the binomial: A_α = Σ_{i=0}^{α} C(α, i)·(1 − q)^{α−i}·q^i ·
//!   exp((i² − i)/(2z²)) ([`log_a_int`]).
//! - For fractional α, §3.3 splits the integral at z₀ = z²·ln(1/q − 1) + ½, where
//!   μ₁/μ₀ = (1 − q)/q, and sums the two convergent binomial series
//!   A_α = Σ_i C(α, i)·[q^i(1 − q)^{α−i}·e^{(i²−i)/(2z²)}·½erfc((i − z₀)/(√2 z))
//!   + q^{α−i}(1 − q)^i·e^{((α−i)²−(α−i))/(2z²)}·½erfc((z₀ − (α − i))/(√2 z))] ([`log_a_frac`]).
//!
//! Everything is in logs (the terms overflow long before the sum is useless), and the
//! fractional series is computed as Google's `dp_accounting` computes it
//! (`rdp_privacy_accountant._compute_log_a_frac`), so the two agree (the fixture test,
//! `tests/dp_accounting.rs`): it stops when both terms fall and are 30 nats below the running
//! total, or gives the order up after 1,000 terms (ε(α) = ∞, left out of the minimum over
//! orders); and it adds the terms' magnitudes, log|C(α, i)| from log|Γ|, although C(α, i)
//! changes sign past i = α. That sum is an upper bound on A_α, so the RDP it gives is valid
//! and a little loose (docs/papers.md §3g).

use super::gaussian::log_phi;

/// Terms of the fractional-order series before the order is given up (`dp_accounting`'s
/// `_MAX_STEPS_LOG_A_FRAC`).
const MAX_FRACTIONAL_TERMS: usize = 1000;

/// ε(α) of one step of the sampled Gaussian mechanism with sampling rate `q` ∈ [0, 1] and noise
/// multiplier `z` ≥ 0 (noise standard deviation over L2 sensitivity), at order `alpha` > 1.
/// Infinite where it is (no noise) or where the fractional series did not converge.
pub fn rdp(q: f64, z: f64, alpha: f64) -> f64 {
    if q == 0.0 {
        return 0.0;
    }
    if alpha.is_infinite() || z == 0.0 {
        return f64::INFINITY;
    }
    // Without sampling, the Gaussian mechanism's α/(2z²) (Mironov 2017, Corollary 3).
    if q == 1.0 {
        return alpha / (2.0 * z * z);
    }
    let log_a = if alpha.fract() == 0.0 {
        log_a_int(q, z, alpha as u64)
    } else {
        log_a_frac(q, z, alpha)
    };
    log_a / (alpha - 1.0)
}

/// log A_α for an integer α (§3.2), 0 < q < 1.
pub fn log_a_int(q: f64, z: f64, alpha: u64) -> f64 {
    let (log_q, log_1mq) = (libm::log(q), libm::log1p(-q));
    let mut log_a = f64::NEG_INFINITY;
    for i in 0..=alpha {
        let i = i as f64;
        let a = alpha as f64;
        let term = log_comb(a, i) + i * log_q + (a - i) * log_1mq + (i * i - i) / (2.0 * z * z);
        log_a = log_add(log_a, term);
    }
    log_a
}

/// log A_α for a fractional α (§3.3), 0 < q < 1; +∞ when the series does not settle within
/// [`MAX_FRACTIONAL_TERMS`] terms.
pub fn log_a_frac(q: f64, z: f64, alpha: f64) -> f64 {
    let (mut log_a0, mut log_a1) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    let z0 = z * z * libm::log(1.0 / q - 1.0) + 0.5;
    let (log_q, log_1mq) = (libm::log(q), libm::log1p(-q));
    let (mut last0, mut last1) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    let root2z = std::f64::consts::SQRT_2 * z;
    for i in 0..MAX_FRACTIONAL_TERMS {
        let i = i as f64;
        let j = alpha - i;
        let coef = log_comb(alpha, i);
        let t0 = coef + i * log_q + j * log_1mq;
        let t1 = coef + j * log_q + i * log_1mq;
        let e0 = libm::log(0.5) + log_erfc((i - z0) / root2z);
        let e1 = libm::log(0.5) + log_erfc((z0 - j) / root2z);
        let s0 = t0 + (i * i - i) / (2.0 * z * z) + e0;
        let s1 = t1 + (j * j - j) / (2.0 * z * z) + e1;
        log_a0 = log_add(log_a0, s0);
        log_a1 = log_add(log_a1, s1);
        let total = log_add(log_a0, log_a1);
        if s0 < last0 && s1 < last1 && s0.max(s1) < total - 30.0 {
            return total;
        }
        last0 = s0;
        last1 = s1;
    }
    f64::INFINITY
}

/// log(eˣ + eʸ) without overflow.
fn log_add(x: f64, y: f64) -> f64 {
    let (a, b) = if x < y { (x, y) } else { (y, x) };
    if a == f64::NEG_INFINITY {
        return b;
    }
    libm::log1p(libm::exp(a - b)) + b
}

/// log of the binomial coefficient C(n, k) for real n, k: log|Γ(n+1)| − log|Γ(k+1)| −
/// log|Γ(n−k+1)| (for a fractional n and k > n the Γ's argument is negative; the series uses
/// the coefficient's magnitude, as `scipy.special.gammaln` gives it).
fn log_comb(n: f64, k: f64) -> f64 {
    libm::lgamma(n + 1.0) - libm::lgamma(k + 1.0) - libm::lgamma(n - k + 1.0)
}

/// log erfc(x) = ln 2 + ln Φ(−√2·x), accurate far into the tail.
fn log_erfc(x: f64) -> f64 {
    std::f64::consts::LN_2 + log_phi(-x * std::f64::consts::SQRT_2)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A_α by numerical integration of E_{μ₀}[((1 − q) + q·μ₁/μ₀)^α] (the definition, §3), on
    /// a fine grid over ±40 z.
    fn a_by_quadrature(q: f64, z: f64, alpha: f64) -> f64 {
        let (lo, hi, n) = (-40.0 * z, 40.0 * z + 1.0, 400_000);
        let h = (hi - lo) / n as f64;
        (0..=n)
            .map(|k| {
                let x = lo + k as f64 * h;
                let mu0 = libm::exp(-x * x / (2.0 * z * z));
                let ratio = libm::exp((2.0 * x - 1.0) / (2.0 * z * z));
                let w = if k == 0 || k == n { 0.5 } else { 1.0 };
                w * mu0 * libm::pow(1.0 - q + q * ratio, alpha)
            })
            .sum::<f64>()
            * h
            / (z * libm::sqrt(2.0 * std::f64::consts::PI))
    }

    #[test]
    fn the_integer_series_is_the_integral_and_the_fractional_one_bounds_it() {
        for &(q, z) in &[(0.01, 1.0), (0.1, 0.8), (0.5, 2.0), (0.9, 1.5)] {
            for &alpha in &[2.0, 3.0, 8.0] {
                let exact = a_by_quadrature(q, z, alpha);
                let series = libm::exp(log_a_int(q, z, alpha as u64));
                assert!(
                    (series / exact - 1.0).abs() < 1e-6,
                    "q {q}, z {z}, α {alpha}: series {series} vs integral {exact}"
                );
            }
            // The fractional series sums the terms' magnitudes (C(α, i) changes sign past
            // i = α; dp_accounting takes log|C|): an upper bound on A_α, so a valid (looser)
            // RDP. At q = 0.01, z = 1, α = 1.5 it is 1.0000662 against 1.0000636 (checked
            // with the signed series in 50-digit arithmetic, docs/papers.md §3g).
            for &alpha in &[2.7, 6.3] {
                let exact = a_by_quadrature(q, z, alpha);
                let series = libm::exp(log_a_frac(q, z, alpha));
                assert!(
                    series >= exact * (1.0 - 1e-9) && series - 1.0 < 1.2 * (exact - 1.0),
                    "q {q}, z {z}, α {alpha}: series {series} vs integral {exact}"
                );
            }
        }
        let (series, exact) = (
            libm::exp(log_a_frac(0.01, 1.0, 1.5)),
            a_by_quadrature(0.01, 1.0, 1.5),
        );
        assert!((series - 1.000_066_186).abs() < 1e-8, "{series}");
        assert!((exact - 1.000_063_629).abs() < 1e-8, "{exact}");
    }

    #[test]
    fn the_fractional_series_meets_the_integer_one_between_orders() {
        // ε(α) is continuous in α: a hair off an integer order, the fractional series lands on
        // the integer closed form.
        for &(q, z) in &[(0.01, 1.0), (0.2, 0.7), (0.6, 3.0)] {
            for alpha in [2.0, 5.0, 12.0] {
                let int = rdp(q, z, alpha);
                let frac = rdp(q, z, alpha + 1e-9);
                assert!((frac / int - 1.0).abs() < 1e-6, "q {q} z {z} α {alpha}");
            }
        }
    }

    #[test]
    fn sampling_only_lowers_the_privacy_loss() {
        // q = 1 is the Gaussian mechanism; q = 0 releases nothing of anyone; in between, ε(α)
        // grows with q and falls with z.
        assert_eq!(rdp(1.0, 2.0, 4.0), 4.0 / 8.0);
        assert_eq!(rdp(0.0, 2.0, 4.0), 0.0);
        assert_eq!(rdp(0.5, 0.0, 4.0), f64::INFINITY);
        for alpha in [2.0, 10.0, 32.0] {
            let mut last = 0.0;
            for q in [0.001, 0.01, 0.1, 0.5, 0.99] {
                let e = rdp(q, 1.0, alpha);
                assert!(e > last && e <= rdp(1.0, 1.0, alpha), "α {alpha} q {q}");
                last = e;
            }
            assert!(rdp(0.1, 2.0, alpha) < rdp(0.1, 1.0, alpha));
        }
        // Small q: the loss falls far faster than q (order q² for moderate α): at q = 0.001
        // it is under 1% of the unsampled one.
        assert!(rdp(0.001, 1.0, 4.0) < 0.01 * rdp(1.0, 1.0, 4.0));
    }
}
