//! The attack's objective ([002] §2, Eq. 8; Algorithm 1): how far the gradient of a dummy window
//! and label is from the gradient the phone sent, and the exact derivative of that distance with
//! respect to the 8×2 dummy positions and the 2-D dummy label.
//!
//! The derivative goes through the model's gradient, i.e. it is a second derivative of the loss
//! (PyTorch's `create_graph=True`). candle cannot take it in wasm (docs/DESIGN facts), so the
//! LSTM's back-propagation through time runs on forward-mode dual numbers with one tangent per
//! unknown ([`UNKNOWNS`] = 18): the dummy gradient comes out with its 1,314 × 18 Jacobian, and
//! the distance's derivative follows by the chain rule.
//!
//! The distances, per parameter tensor l (weights are matrices, biases vectors):
//! - `RowL2`, the authors' code (`PairwiseDistance(p=2, eps=1e-6)` per tensor, summed): the sum
//!   over every row of ‖g'_row − g_row + ε‖₂ (a bias vector is one row);
//! - `L2`, Eq. 8: ‖g' − g‖₂ over all parameters; `SquaredL2`, Algorithm 1 line 9: its square;
//! - `Cosine`, InvGrad's (Geiping et al.): Σ_l 1 − cos(g'_l, g_l);
//! - `Gaussian`, SAPAG's (Wang et al., as the authors' code computes it): Σ_l Σ_c 1 −
//!   exp(−‖g'_l − g_l‖²_F / σ²_{l,c}), with σ²_{l,c} the variance of the observed gradient's
//!   column c (over rows; a bias vector has one variance), zeros replaced by 1.

use super::lstm::{INPUT, OUTPUT, PARAMETERS, TENSORS, WINDOW, Window, loss_and_gradient};
use serde::{Deserialize, Serialize};
use whereabouts_core::dual::Dual;

/// The attack's unknowns: the window's positions (row-major) and the label.
pub const UNKNOWNS: usize = WINDOW * INPUT + OUTPUT;

type D = Dual<UNKNOWNS>;

/// PyTorch's `PairwiseDistance` ε, added to every difference.
const PAIRWISE_EPS: f32 = 1e-6;
/// PyTorch's `cosine_similarity` ε, the least the product of the norms is taken to be.
const COSINE_EPS: f32 = 1e-8;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Distance {
    RowL2,
    L2,
    SquaredL2,
    Cosine,
    Gaussian,
}

impl Distance {
    pub const ALL: [Distance; 5] = [
        Distance::RowL2,
        Distance::L2,
        Distance::SquaredL2,
        Distance::Cosine,
        Distance::Gaussian,
    ];
}

/// The gradient the phone sent, with what the distances need of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Observed {
    pub gradient: Vec<f32>,
    /// SAPAG's variances, per tensor: one per column of a matrix, one for a vector.
    variances: Vec<Vec<f32>>,
}

impl Observed {
    pub fn new(gradient: Vec<f32>) -> Self {
        assert_eq!(gradient.len(), PARAMETERS, "an LSTM gradient");
        let variances = TENSORS
            .iter()
            .map(|t| {
                let g = &gradient[t.start..t.start + t.len()];
                let columns: Vec<Vec<f32>> = if t.vector {
                    vec![g.to_vec()]
                } else {
                    (0..t.cols)
                        .map(|c| (0..t.rows).map(|r| g[r * t.cols + c]).collect())
                        .collect()
                };
                columns.iter().map(|v| unbiased_variance(v)).collect()
            })
            .collect();
        Self {
            gradient,
            variances,
        }
    }
}

/// `torch.var` (n − 1 in the denominator), with 0 and NaN replaced by 1 as the authors' code does.
fn unbiased_variance(v: &[f32]) -> f32 {
    let n = v.len() as f32;
    let mean = v.iter().sum::<f32>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / (n - 1.0);
    if var == 0.0 || !var.is_finite() {
        1.0
    } else {
        var
    }
}

/// The objective at one point: its value and its derivative with respect to the unknowns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evaluation {
    pub value: f32,
    pub gradient: [f32; UNKNOWNS],
}

/// The distance between the gradient of (`window`, `label`) under `params` and the observed
/// one, and its derivative with respect to the window's positions and (if `label_free`) the
/// label; with the label known (iDLG, CPL) its derivatives are zero.
pub fn evaluate(
    params: &[f32],
    observed: &Observed,
    distance: Distance,
    window: &Window<f32>,
    label: &[f32; OUTPUT],
    label_free: bool,
) -> Evaluation {
    let mut w: Window<D> = [[D::ZERO; INPUT]; WINDOW];
    for (t, p) in window.iter().enumerate() {
        for k in 0..INPUT {
            w[t][k] = D::variable(p[k], t * INPUT + k);
        }
    }
    let y: [D; OUTPUT] = std::array::from_fn(|k| {
        if label_free {
            D::variable(label[k], WINDOW * INPUT + k)
        } else {
            D::constant(label[k])
        }
    });
    let (_, dummy) = loss_and_gradient(params, &w, &y);
    let d = between(&dummy, observed, distance);
    Evaluation {
        value: d.v,
        gradient: d.d,
    }
}

/// The distance between a dummy gradient (on duals) and the observed one.
fn between(dummy: &[D], observed: &Observed, distance: Distance) -> D {
    let g = &observed.gradient;
    let mut total = D::ZERO;
    match distance {
        Distance::L2 | Distance::SquaredL2 => {
            for (a, &b) in dummy.iter().zip(g) {
                let e = *a - D::constant(b);
                total += e * e;
            }
            if distance == Distance::L2 {
                total = total.sqrt();
            }
        }
        Distance::RowL2 => {
            for t in &TENSORS {
                let rows = if t.vector { 1 } else { t.rows };
                let cols = t.len() / rows;
                for r in 0..rows {
                    let mut s = D::ZERO;
                    for c in 0..cols {
                        let i = t.start + r * cols + c;
                        let e = dummy[i] - D::constant(g[i] - PAIRWISE_EPS);
                        s += e * e;
                    }
                    total += s.sqrt();
                }
            }
        }
        Distance::Cosine => {
            for t in &TENSORS {
                let range = t.start..t.start + t.len();
                let mut dot = D::ZERO;
                let mut norm2 = D::ZERO;
                for (a, &b) in dummy[range.clone()].iter().zip(&g[range.clone()]) {
                    dot = dot.add_scaled(*a, b);
                    norm2 += *a * *a;
                }
                let observed_norm = g[range].iter().map(|b| b * b).sum::<f32>().sqrt();
                let denominator = norm2.sqrt().scale(observed_norm);
                let denominator = if denominator.v < COSINE_EPS {
                    D::constant(COSINE_EPS)
                } else {
                    denominator
                };
                // 1/d with its derivative as −(1/d)²: this reference's own rounding, kept bit
                // for bit (the core's `Dual::recip` takes −1/d², which differs in the last bit).
                let r = 1.0 / denominator.v;
                total = total + D::constant(1.0) - dot * denominator.chain(r, -r * r);
            }
        }
        Distance::Gaussian => {
            for (t, variances) in TENSORS.iter().zip(&observed.variances) {
                let mut n2 = D::ZERO;
                for i in t.start..t.start + t.len() {
                    let e = dummy[i] - D::constant(g[i]);
                    n2 += e * e;
                }
                for &v in variances {
                    total = total + D::constant(1.0) - n2.scale(-1.0 / v).exp();
                }
            }
        }
    }
    total
}

/// The distance between a model gradient `dummy` and the observed one, and its derivative with
/// respect to `dummy` (A = ∂D/∂G, the cotangent the reverse sweep of [`crate::mobility::adjoint`]
/// starts from); in f64, returned in f32.
pub fn cotangent(dummy: &[f32], observed: &Observed, distance: Distance) -> (f32, Vec<f32>) {
    let g = &observed.gradient;
    let mut a = vec![0.0f64; dummy.len()];
    let diff = |i: usize| f64::from(dummy[i]) - f64::from(g[i]);
    let mut value = 0.0f64;
    match distance {
        Distance::SquaredL2 | Distance::L2 => {
            let sq: f64 = (0..dummy.len()).map(|i| diff(i).powi(2)).sum();
            if distance == Distance::SquaredL2 {
                value = sq;
                for (i, ai) in a.iter_mut().enumerate() {
                    *ai = 2.0 * diff(i);
                }
            } else {
                value = sq.sqrt();
                for (i, ai) in a.iter_mut().enumerate() {
                    *ai = if value > 0.0 { diff(i) / value } else { 0.0 };
                }
            }
        }
        Distance::RowL2 => {
            for t in &TENSORS {
                let rows = if t.vector { 1 } else { t.rows };
                let cols = t.len() / rows;
                for r in 0..rows {
                    let range = t.start + r * cols..t.start + (r + 1) * cols;
                    let e = |i: usize| diff(i) + f64::from(PAIRWISE_EPS);
                    let norm = range.clone().map(|i| e(i).powi(2)).sum::<f64>().sqrt();
                    value += norm;
                    for i in range {
                        a[i] = if norm > 0.0 { e(i) / norm } else { 0.0 };
                    }
                }
            }
        }
        Distance::Cosine => {
            for t in &TENSORS {
                let range = t.start..t.start + t.len();
                let dot: f64 = range
                    .clone()
                    .map(|i| f64::from(dummy[i]) * f64::from(g[i]))
                    .sum();
                let nd = range
                    .clone()
                    .map(|i| f64::from(dummy[i]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                let ng = range
                    .clone()
                    .map(|i| f64::from(g[i]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                let den = nd * ng;
                if den < f64::from(COSINE_EPS) {
                    value += 1.0 - dot / f64::from(COSINE_EPS);
                    for i in range {
                        a[i] = -f64::from(g[i]) / f64::from(COSINE_EPS);
                    }
                } else {
                    value += 1.0 - dot / den;
                    for i in range {
                        a[i] =
                            -(f64::from(g[i]) / den - dot * f64::from(dummy[i]) / (nd * nd * den));
                    }
                }
            }
        }
        Distance::Gaussian => {
            for (t, variances) in TENSORS.iter().zip(&observed.variances) {
                let range = t.start..t.start + t.len();
                let n2: f64 = range.clone().map(|i| diff(i).powi(2)).sum();
                let mut slope = 0.0;
                for &v in variances {
                    let e = (-n2 / f64::from(v)).exp();
                    value += 1.0 - e;
                    slope += e / f64::from(v);
                }
                for i in range {
                    a[i] = slope * 2.0 * diff(i);
                }
            }
        }
    }
    // Below f32's normal range a derivative is flushed to zero: it changes nothing the attack can
    // see, and subnormal arithmetic runs many times slower on common CPUs (SAPAG's kernel makes
    // them, exp(−n²/σ²) of a far dummy).
    let flush = |x: f64| {
        let x = x as f32;
        if x.abs() < f32::MIN_POSITIVE { 0.0 } else { x }
    };
    (value as f32, a.into_iter().map(flush).collect())
}
