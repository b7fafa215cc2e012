//! Lemma 1 as an attack, and the quantities of Theorems 1 and 2 ([000] §2.2, Eqs. (1)–(3);
//! proofs in App. A.1, the closed form from Eqs. (6) and (9)).
//!
//! The model's first layer is affine (Assumption 1), so for every hidden unit h the gradient
//! of its weights is the gradient of its bias times the input: ∇W¹_h = Σᵢ gᵢ,ₕ xᵢ. The ratio
//! x̂_h = ∇W¹_h / ∇b¹_h = Σᵢ gᵢ,ₕ xᵢ / Σᵢ gᵢ,ₕ is therefore a gradient-weighted average of the
//! batch's locations — exactly the location for a batch of one. The server reads it straight
//! off the update, no optimisation needed: an instant reconstruction.
//!
//! Different units weight the points differently; the estimate combines them weighted by
//! |∇b¹_h| (units that barely moved say little), i.e. Σₕ sign(∇b¹_h) ∇W¹_h / Σₕ |∇b¹_h|.

use crate::signal_map::model::MlpSpec;
use crate::signal_map::trace::{Sample, Standardizer};
use serde::{Deserialize, Serialize};
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;

/// Lemma 1's reconstruction from an observed gradient (flat layout), or `None` when the first
/// layer's bias gradient is zero (a converged model: Assumption 2 fails).
pub fn reconstruct(
    spec: &MlpSpec,
    observed: &[f32],
    standardizer: &Standardizer,
) -> Option<Metres> {
    let first = spec.layers()[0];
    let (mut num, mut den) = ([0.0f64; 2], 0.0f64);
    for h in 0..first.outputs {
        let gb = f64::from(observed[first.b + h]);
        let sign = gb.signum();
        num[0] += sign * f64::from(observed[first.w + 2 * h]);
        num[1] += sign * f64::from(observed[first.w + 2 * h + 1]);
        den += gb.abs();
    }
    if den <= f64::MIN_POSITIVE || !den.is_finite() {
        return None;
    }
    let p = standardizer.to_metres([num[0] / den, num[1] / den]);
    (p.east.is_finite() && p.north.is_finite()).then_some(p)
}

/// Theorems 1 and 2 evaluated on an actual batch, for the hidden unit with the largest mean
/// bias gradient |ḡ|. Lengths are in standardised input units (the space the theorems live in)
/// unless the name says metres.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    pub unit: usize,
    /// ḡ = (1/B) Σ gᵢ for that unit.
    pub mean_bias_gradient: f64,
    /// ‖x̂_h − x̄‖: Lemma 1's point for the unit vs the batch centroid.
    pub error: f64,
    pub error_m: f64,
    /// Theorem 1, first line: ‖Σ(gᵢ − ḡ)(xᵢ − x̄)‖ / (B|ḡ|) — equal to `error`.
    pub covariance_form: f64,
    /// Theorem 1's bound: Σ[(gᵢ − ḡ)² + ‖xᵢ − x̄‖²] / (2B|ḡ|).
    pub theorem1_bound: f64,
    /// The Lipschitz constant L of Assumption 3, estimated from sampled pairs (a lower
    /// estimate, so `theorem2_bound` is optimistic).
    pub lipschitz_estimate: f64,
    /// Theorem 2's bound: (L²/(B|ḡ|)) Σ[α‖xᵢ − x̄‖² + (yᵢ − ȳ)²], α = 1 + 1/(2L²).
    pub theorem2_bound: f64,
}

/// Evaluates the theorems for one gradient step of `params` on `batch` (no dropout).
pub fn bounds(
    spec: &MlpSpec,
    params: &[f32],
    batch: &[Sample],
    standardizer: &Standardizer,
    stream: &mut Stream,
) -> Option<Bounds> {
    if batch.is_empty() {
        return None;
    }
    let b = batch.len() as f64;
    let xs: Vec<[f64; 2]> = batch
        .iter()
        .map(|s| [f64::from(s.x[0]), f64::from(s.x[1])])
        .collect();
    let ys: Vec<f64> = batch.iter().map(|s| f64::from(s.y)).collect();
    // Per-example first-layer bias gradients (δ¹ᵢ).
    let g: Vec<Vec<f64>> = xs
        .iter()
        .zip(&ys)
        .map(|(&x, &y)| spec.backprop(params, x, y).1.swap_remove(0))
        .collect();
    let units = g[0].len();
    let means: Vec<f64> = (0..units)
        .map(|h| g.iter().map(|gi| gi[h]).sum::<f64>() / b)
        .collect();
    let unit = (0..units).max_by(|&a, &c| means[a].abs().total_cmp(&means[c].abs()))?;
    let gbar = means[unit];
    if gbar == 0.0 {
        return None;
    }
    let xbar = [
        xs.iter().map(|x| x[0]).sum::<f64>() / b,
        xs.iter().map(|x| x[1]).sum::<f64>() / b,
    ];
    let ybar = ys.iter().sum::<f64>() / b;
    let gi: Vec<f64> = g.iter().map(|gi| gi[unit]).collect();
    let sum_g: f64 = gi.iter().sum();
    let lemma = [
        gi.iter().zip(&xs).map(|(g, x)| g * x[0]).sum::<f64>() / sum_g,
        gi.iter().zip(&xs).map(|(g, x)| g * x[1]).sum::<f64>() / sum_g,
    ];
    let error = libm::hypot(lemma[0] - xbar[0], lemma[1] - xbar[1]);
    let error_m = standardizer
        .to_metres(lemma)
        .distance(&standardizer.to_metres(xbar));
    let cov = [
        gi.iter()
            .zip(&xs)
            .map(|(g, x)| (g - gbar) * (x[0] - xbar[0]))
            .sum::<f64>(),
        gi.iter()
            .zip(&xs)
            .map(|(g, x)| (g - gbar) * (x[1] - xbar[1]))
            .sum::<f64>(),
    ];
    let covariance_form = libm::hypot(cov[0], cov[1]) / (b * gbar.abs());
    let sq_dx = |x: &[f64; 2]| (x[0] - xbar[0]).powi(2) + (x[1] - xbar[1]).powi(2);
    let theorem1_bound = gi
        .iter()
        .zip(&xs)
        .map(|(g, x)| (g - gbar).powi(2) + sq_dx(x))
        .sum::<f64>()
        / (2.0 * b * gbar.abs());
    let mut lipschitz: f64 = 0.0;
    let n = batch.len() as u64;
    for _ in 0..(2000.min(n * n)) {
        let (i, j) = (stream.below(n) as usize, stream.below(n) as usize);
        let dist = libm::sqrt(
            (xs[i][0] - xs[j][0]).powi(2) + (xs[i][1] - xs[j][1]).powi(2) + (ys[i] - ys[j]).powi(2),
        );
        if dist > 1e-9 {
            lipschitz = lipschitz.max((gi[i] - gi[j]).abs() / dist);
        }
    }
    let alpha = 1.0 + 1.0 / (2.0 * lipschitz.max(1e-12).powi(2));
    let theorem2_bound = lipschitz.powi(2) / (b * gbar.abs())
        * xs.iter()
            .zip(&ys)
            .map(|(x, y)| alpha * sq_dx(x) + (y - ybar).powi(2))
            .sum::<f64>();
    Some(Bounds {
        unit,
        mean_bias_gradient: gbar,
        error,
        error_m,
        covariance_form,
        theorem1_bound,
        lipschitz_estimate: lipschitz,
        theorem2_bound,
    })
}
