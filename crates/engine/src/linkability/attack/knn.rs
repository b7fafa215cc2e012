//! k-nearest neighbours ([004] §6.1, "K-NN", K = 10): a test update's score for a person is
//! the share of its K nearest training updates (Euclidean) that are theirs, as scikit-learn's
//! `KNeighborsClassifier.predict_proba` with uniform weights. Equal distances keep the training
//! order.

use crate::linkability::features::{Matrix, distance2};
use crate::linkability::metrics::Scores;

/// The paper's K.
pub const K: usize = 10;

pub fn classify(
    train: &Matrix,
    labels: &[usize],
    classes: usize,
    test: &Matrix,
    k: usize,
) -> Scores {
    let k = k.clamp(1, train.rows.max(1));
    let mut scores = Scores::zeros(test.rows, classes);
    let mut near: Vec<(f64, usize)> = Vec::with_capacity(train.rows);
    for i in 0..test.rows {
        near.clear();
        near.extend((0..train.rows).map(|j| (distance2(test.row(i), train.row(j)), j)));
        if near.len() > k {
            near.select_nth_unstable_by(k - 1, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            near.truncate(k);
        }
        let row = scores.row_mut(i);
        for &(_, j) in &near {
            row[labels[j]] += 1.0 / k as f64;
        }
    }
    scores
}
