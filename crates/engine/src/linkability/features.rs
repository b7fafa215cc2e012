//! What the server feeds its attacks: each update as a feature vector ([004] §6).
//!
//! The paper's default input is the flattened update of the last (fully connected) layer,
//! normalised; all layers, or any one layer (Fig. 8's per-layer study), are the alternatives.
//! The paper does not say how it normalises: we scale each vector to unit L2 norm, so the
//! attack compares the direction of an update and not its size (our choice, docs/papers.md).

use serde::{Deserialize, Serialize};

/// Which layers of an update the server keeps and attacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layers {
    /// The output layer (weights and bias): the paper's default.
    Last,
    /// Every parameter.
    All,
}

impl Layers {
    pub const ALL: [Layers; 2] = [Layers::Last, Layers::All];

    /// Its key in configs, links and tables ([`crate::linkability::settings`]).
    pub fn name(self) -> &'static str {
        whereabouts_core::setting::Choices::key(&self)
    }
}

/// Rows of f32 features, row-major.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Matrix {
    pub rows: usize,
    pub cols: usize,
    pub data: Vec<f32>,
}

impl Matrix {
    pub fn new(cols: usize) -> Self {
        Self {
            rows: 0,
            cols,
            data: Vec::new(),
        }
    }

    pub fn from_rows<'a>(cols: usize, rows: impl IntoIterator<Item = &'a [f32]>) -> Self {
        let mut m = Self::new(cols);
        for r in rows {
            m.push(r);
        }
        m
    }

    /// Appends a row (its length must be `cols`).
    pub fn push(&mut self, row: &[f32]) {
        assert_eq!(row.len(), self.cols, "row length");
        self.data.extend_from_slice(row);
        self.rows += 1;
    }

    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// The rows at `indices`, in that order.
    pub fn select(&self, indices: &[usize]) -> Matrix {
        Matrix::from_rows(self.cols, indices.iter().map(|&i| self.row(i)))
    }

    /// Columns `range` of every row.
    pub fn columns(&self, range: std::ops::Range<usize>) -> Matrix {
        Matrix::from_rows(
            range.len(),
            (0..self.rows).map(|i| &self.row(i)[range.clone()]),
        )
    }

    /// Every row scaled to unit L2 norm (a zero row stays zero).
    pub fn normalised(mut self) -> Matrix {
        for i in 0..self.rows {
            let row = &mut self.data[i * self.cols..(i + 1) * self.cols];
            normalise(row);
        }
        self
    }
}

/// Per-coordinate standardisation fitted on some rows (scikit-learn's `StandardScaler`).
#[derive(Clone, Debug, PartialEq)]
pub struct Scaler {
    pub mean: Vec<f64>,
    pub sd: Vec<f64>,
}

impl Scaler {
    /// Mean and standard deviation of each column over `rows` of `x` (a constant column keeps
    /// unit scale).
    pub fn fit(x: &Matrix, rows: &[usize]) -> Self {
        let n = rows.len().max(1) as f64;
        let mut mean = vec![0.0; x.cols];
        for &i in rows {
            for (m, &v) in mean.iter_mut().zip(x.row(i)) {
                *m += f64::from(v) / n;
            }
        }
        let mut var = vec![0.0; x.cols];
        for &i in rows {
            for ((s, &v), m) in var.iter_mut().zip(x.row(i)).zip(&mean) {
                *s += (f64::from(v) - m).powi(2) / n;
            }
        }
        let sd = var
            .into_iter()
            .map(|v: f64| if v > 0.0 { v.sqrt() } else { 1.0 })
            .collect();
        Self { mean, sd }
    }

    /// Every row of `x` standardised.
    pub fn apply(&self, x: &Matrix) -> Matrix {
        let mut out = x.clone();
        for i in 0..out.rows {
            for (c, v) in out.data[i * out.cols..(i + 1) * out.cols]
                .iter_mut()
                .enumerate()
            {
                *v = ((f64::from(*v) - self.mean[c]) / self.sd[c]) as f32;
            }
        }
        out
    }
}

/// Scales `v` to unit L2 norm in place (a zero vector stays zero).
pub fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        for x in v {
            *x = (f64::from(*x) / norm) as f32;
        }
    }
}

/// Squared Euclidean distance.
pub fn distance2(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).powi(2))
        .sum()
}

/// Cosine similarity (0 when either vector is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let (mut ab, mut aa, mut bb) = (0.0f64, 0.0f64, 0.0f64);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (f64::from(x), f64::from(y));
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0.0 || bb == 0.0 {
        0.0
    } else {
        ab / (aa.sqrt() * bb.sqrt())
    }
}

/// The rows of `x` projected on their first two principal components (power iteration on the
/// covariance, the second deflated), for the 2-D map of updates ([004] §8.2 reduces by PCA
/// before t-SNE; the map stops at PCA). Deterministic: the iteration starts from fixed vectors.
pub fn pca2(x: &Matrix) -> Vec<[f32; 2]> {
    let (n, d) = (x.rows, x.cols);
    if n == 0 || d == 0 {
        return vec![[0.0, 0.0]; n];
    }
    let mut mean = vec![0.0f64; d];
    for i in 0..n {
        for (m, &v) in mean.iter_mut().zip(x.row(i)) {
            *m += f64::from(v) / n as f64;
        }
    }
    let centred = |i: usize| x.row(i).iter().zip(&mean).map(|(&v, m)| f64::from(v) - m);
    // C·v = Σᵢ (xᵢ·v) xᵢ / n without forming C (d may be thousands).
    let times_covariance = |v: &[f64]| {
        let mut out = vec![0.0f64; d];
        for i in 0..n {
            let p: f64 = centred(i).zip(v).map(|(a, b)| a * b).sum();
            for (o, a) in out.iter_mut().zip(centred(i)) {
                *o += p * a / n as f64;
            }
        }
        out
    };
    let mut components: Vec<Vec<f64>> = Vec::new();
    for k in 0..2 {
        let mut v: Vec<f64> = (0..d).map(|j| 1.0 + ((j * (k + 3)) % 7) as f64).collect();
        for _ in 0..100 {
            let mut w = times_covariance(&v);
            for c in &components {
                let p: f64 = w.iter().zip(c).map(|(a, b)| a * b).sum();
                for (wj, cj) in w.iter_mut().zip(c) {
                    *wj -= p * cj;
                }
            }
            let norm = w.iter().map(|a| a * a).sum::<f64>().sqrt();
            if norm == 0.0 {
                break;
            }
            let change: f64 = w.iter().zip(&v).map(|(a, b)| (a / norm - b).abs()).sum();
            v = w.into_iter().map(|a| a / norm).collect();
            if change < 1e-9 {
                break;
            }
        }
        components.push(v);
    }
    (0..n)
        .map(|i| {
            let project = |c: &[f64]| centred(i).zip(c).map(|(a, b)| a * b).sum::<f64>() as f32;
            [project(&components[0]), project(&components[1])]
        })
        .collect()
}
