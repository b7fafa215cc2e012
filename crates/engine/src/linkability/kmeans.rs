//! k-means (Lloyd's algorithm from a k-means++ start, Arthur & Vassilvitskii 2007): mm-aug's
//! clusters of the background pool ([004] §9.1, Eq. 7) and the unlabelled linker's clusters of
//! updates.

use super::features::{Matrix, distance2};
use whereabouts_core::rng::Stream;

/// A clustering: the centroids and each row's cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct KMeans {
    pub centroids: Matrix,
    pub assignment: Vec<usize>,
}

/// Clusters the rows of `x` into `k` groups (fewer if there are fewer rows), at most
/// `iterations` Lloyd steps; an emptied cluster restarts at the row farthest from its centroid.
pub fn kmeans(x: &Matrix, k: usize, iterations: usize, stream: &mut Stream) -> KMeans {
    let k = k.min(x.rows).max(1);
    if x.rows == 0 {
        return KMeans {
            centroids: Matrix::new(x.cols),
            assignment: Vec::new(),
        };
    }
    // k-means++: each next centre drawn with probability ∝ squared distance to the nearest.
    let mut centroids = Matrix::new(x.cols);
    centroids.push(x.row(stream.below(x.rows as u64) as usize));
    let mut nearest: Vec<f64> = (0..x.rows)
        .map(|i| distance2(x.row(i), centroids.row(0)))
        .collect();
    while centroids.rows < k {
        let total: f64 = nearest.iter().sum();
        let pick = if total > 0.0 {
            let mut target = stream.uniform() * total;
            nearest
                .iter()
                .position(|&d| {
                    target -= d;
                    target < 0.0
                })
                .unwrap_or(x.rows - 1)
        } else {
            stream.below(x.rows as u64) as usize
        };
        centroids.push(x.row(pick));
        let c = centroids.rows - 1;
        for (i, d) in nearest.iter_mut().enumerate() {
            *d = d.min(distance2(x.row(i), centroids.row(c)));
        }
    }
    let mut assignment = vec![0usize; x.rows];
    for _ in 0..iterations.max(1) {
        let mut changed = false;
        for (i, a) in assignment.iter_mut().enumerate() {
            let best = closest(&centroids, x.row(i));
            if best != *a {
                *a = best;
                changed = true;
            }
        }
        let mut sums = vec![0.0f64; k * x.cols];
        let mut counts = vec![0usize; k];
        for (i, &a) in assignment.iter().enumerate() {
            counts[a] += 1;
            for (s, &v) in sums[a * x.cols..(a + 1) * x.cols].iter_mut().zip(x.row(i)) {
                *s += f64::from(v);
            }
        }
        for c in 0..k {
            if counts[c] == 0 {
                let far = (0..x.rows)
                    .max_by(|&i, &j| {
                        distance2(x.row(i), centroids.row(assignment[i]))
                            .total_cmp(&distance2(x.row(j), centroids.row(assignment[j])))
                    })
                    .unwrap_or(0);
                let row = x.row(far).to_vec();
                centroids.data[c * x.cols..(c + 1) * x.cols].copy_from_slice(&row);
                assignment[far] = c;
                changed = true;
            } else {
                let centre = &mut centroids.data[c * x.cols..(c + 1) * x.cols];
                for (v, s) in centre.iter_mut().zip(&sums[c * x.cols..(c + 1) * x.cols]) {
                    *v = (s / counts[c] as f64) as f32;
                }
            }
        }
        if !changed {
            break;
        }
    }
    KMeans {
        centroids,
        assignment,
    }
}

/// The index of the centroid nearest `row`.
pub fn closest(centroids: &Matrix, row: &[f32]) -> usize {
    (0..centroids.rows)
        .min_by(|&a, &b| {
            distance2(row, centroids.row(a)).total_cmp(&distance2(row, centroids.row(b)))
        })
        .unwrap_or(0)
}
