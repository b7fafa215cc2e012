//! The planar Laplace mechanism of geo-indistinguishability (Andrés et al., CCS 2013): noise
//! with density ∝ exp(−ε·r) around the true point, ε per metre.
//!
//! Exact sampler (Andrés et al., §4.1): θ ~ U[0, 2π) and r = C⁻¹(p) = −(1/ε)·(W₋₁((p − 1)/e) + 1),
//! p ~ U[0, 1), where W₋₁ is the −1 branch of the Lambert W function. The radius follows
//! Gamma(2, 1/ε), so its mean is 2/ε.

use crate::geo::Metres;
use crate::rng::Stream;

/// The −1 branch of Lambert W: the w ≤ −1 with w·eʷ = x, for x ∈ [−1/e, 0). Halley's method
/// from the branch-point series near −1/e and the asymptotic ln(−x) − ln(−ln(−x)) near 0.
pub fn lambert_w_minus1(x: f64) -> f64 {
    let e = core::f64::consts::E;
    if !(x >= -1.0 / e && x < 0.0) {
        return f64::NAN;
    }
    let mut w = if x < -0.25 {
        let p = -libm::sqrt(2.0 * (1.0 + e * x));
        -1.0 + p - p * p / 3.0 + 11.0 / 72.0 * p * p * p
    } else {
        let l1 = libm::log(-x);
        l1 - libm::log(-l1)
    };
    for _ in 0..50 {
        let ew = libm::exp(w);
        let f = w * ew - x;
        let wp1 = w + 1.0;
        if wp1.abs() < 1e-12 {
            break;
        }
        let step = f / (ew * wp1 - (w + 2.0) * f / (2.0 * wp1));
        w -= step;
        if step.abs() <= 1e-14 * (1.0 + w.abs()) {
            break;
        }
    }
    w
}

/// One draw of planar-Laplace noise with parameter `epsilon_per_m`: an offset in metres.
pub fn planar_laplace(epsilon_per_m: f64, s: &mut Stream) -> Metres {
    let theta = s.range(0.0, 2.0 * core::f64::consts::PI);
    let p = s.uniform();
    let r = -(1.0 / epsilon_per_m) * (lambert_w_minus1((p - 1.0) / core::f64::consts::E) + 1.0);
    Metres::new(r * libm::cos(theta), r * libm::sin(theta))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn lambert_w_minus1_inverts_w_exp_w() {
        let e = core::f64::consts::E;
        for x in [-1.0 / e + 1e-12, -0.3, -0.2, -0.1, -1e-3, -1e-9] {
            let w = lambert_w_minus1(x);
            assert!(w <= -1.0, "{x}: {w}");
            assert!(
                (w * w.exp() - x).abs() <= 1e-12 * x.abs().max(1e-3),
                "{x}: {w}"
            );
        }
        // A known value: W₋₁(−0.1) = −3.577152063957297.
        assert!((lambert_w_minus1(-0.1) + 3.577_152_063_957_297).abs() < 1e-12);
        assert!(lambert_w_minus1(0.1).is_nan());
    }

    #[test]
    fn the_mean_radius_is_two_over_epsilon() {
        let eps = 0.01; // per metre: mean radius 200 m
        let mut s = Stream::new(5, "geoind");
        let n = 20_000;
        let radii: Vec<f64> = (0..n)
            .map(|_| {
                let o = planar_laplace(eps, &mut s);
                o.east.hypot(o.north)
            })
            .collect();
        let mean = radii.iter().sum::<f64>() / n as f64;
        // Gamma(2, 1/ε): sd √2/ε ≈ 141 m, so the mean of 20,000 has sd ≈ 1 m.
        assert!((mean - 200.0).abs() < 4.0, "{mean}");
        // And the direction is uniform: the mean offset is near zero.
        let mut s = Stream::new(6, "geoind");
        let (se, sn) = (0..n).fold((0.0, 0.0), |(a, b), _| {
            let o = planar_laplace(eps, &mut s);
            (a + o.east, b + o.north)
        });
        assert!((se / n as f64).abs() < 3.0 && (sn / n as f64).abs() < 3.0);
    }
}
