//! The linear SVM of the identification attack ([004] §6.1, "SVM"): the paper uses
//! scikit-learn's `LinearSVC`, i.e. liblinear's L2-regularised squared-hinge SVM, one class
//! against the rest, C = 1, with the intercept as an extra constant feature. Solved here as
//! liblinear solves it: dual coordinate descent (Hsieh et al., ICML 2008, Algorithm 1) with its
//! stopping rule (projected-gradient spread below ε = 0.1, at most 1,000 passes).

use crate::linkability::features::Matrix;
use crate::linkability::metrics::Scores;
use whereabouts_core::rng::Stream;

/// C, the penalty on margin violations (scikit-learn's default).
pub const C: f64 = 1.0;
const EPSILON: f64 = 0.1;
const MAX_PASSES: usize = 1000;

/// One binary SVM: the weights, the intercept last.
pub fn binary(x: &Matrix, positive: &[bool], stream: &mut Stream) -> Vec<f64> {
    let n = x.rows;
    let d = x.cols;
    // L2-loss SVM dual: min ½αᵀ(Q + D)α − eᵀα, α ≥ 0, D_ii = 1/(2C).
    let diag = 1.0 / (2.0 * C);
    let mut w = vec![0.0f64; d + 1];
    let mut alpha = vec![0.0f64; n];
    let y: Vec<f64> = positive
        .iter()
        .map(|&p| if p { 1.0 } else { -1.0 })
        .collect();
    let q: Vec<f64> = (0..n)
        .map(|i| x.row(i).iter().map(|&v| f64::from(v).powi(2)).sum::<f64>() + 1.0 + diag)
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    for _ in 0..MAX_PASSES {
        stream.shuffle(&mut order);
        let (mut pg_max, mut pg_min) = (f64::NEG_INFINITY, f64::INFINITY);
        for &i in &order {
            let xi = x.row(i);
            let margin = xi
                .iter()
                .zip(&w)
                .map(|(&v, wj)| f64::from(v) * wj)
                .sum::<f64>()
                + w[d];
            let g = y[i] * margin - 1.0 + diag * alpha[i];
            let pg = if alpha[i] == 0.0 { g.min(0.0) } else { g };
            pg_max = pg_max.max(pg);
            pg_min = pg_min.min(pg);
            if pg != 0.0 {
                let old = alpha[i];
                alpha[i] = (old - g / q[i]).max(0.0);
                let step = (alpha[i] - old) * y[i];
                for (wj, &v) in w.iter_mut().zip(xi) {
                    *wj += step * f64::from(v);
                }
                w[d] += step;
            }
        }
        if pg_max - pg_min <= EPSILON {
            break;
        }
    }
    w
}

/// One-vs-rest over `classes`: the decision values w_u·x + b_u of each test row.
pub fn one_vs_rest(
    train: &Matrix,
    labels: &[usize],
    classes: usize,
    test: &Matrix,
    stream: &mut Stream,
) -> Scores {
    let models: Vec<Vec<f64>> = (0..classes)
        .map(|c| {
            let positive: Vec<bool> = labels.iter().map(|&l| l == c).collect();
            binary(train, &positive, stream)
        })
        .collect();
    let mut scores = Scores::zeros(test.rows, classes);
    for i in 0..test.rows {
        let xi = test.row(i);
        for (c, w) in models.iter().enumerate() {
            scores.row_mut(i)[c] = xi
                .iter()
                .zip(w)
                .map(|(&v, wj)| f64::from(v) * wj)
                .sum::<f64>()
                + w[train.cols];
        }
    }
    scores
}
