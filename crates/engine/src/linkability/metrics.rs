//! The linkability metrics ([004] §8.2): average precision as scikit-learn computes it, mean AP
//! over users (one-vs-rest), top-k accuracy, the increase over chance; and for the linkers
//! that use no labels, cluster purity and the adjusted Rand index (Hubert & Arabie 1985).

/// Scores of every test row for every class, row-major (`rows × classes`): higher means "more
/// likely this class".
#[derive(Clone, Debug, PartialEq)]
pub struct Scores {
    pub rows: usize,
    pub classes: usize,
    pub data: Vec<f64>,
}

impl Scores {
    pub fn zeros(rows: usize, classes: usize) -> Self {
        Self {
            rows,
            classes,
            data: vec![0.0; rows * classes],
        }
    }

    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.classes..(i + 1) * self.classes]
    }

    pub fn row_mut(&mut self, i: usize) -> &mut [f64] {
        &mut self.data[i * self.classes..(i + 1) * self.classes]
    }

    /// The scores of class `c` down the rows.
    pub fn column(&self, c: usize) -> Vec<f64> {
        (0..self.rows)
            .map(|i| self.data[i * self.classes + c])
            .collect()
    }

    /// How many classes of row `i` score above `class`, and how many score the same (`class`
    /// itself included).
    pub fn standing(&self, i: usize, class: usize) -> (usize, usize) {
        standing(self.row(i), self.row(i)[class])
    }

    /// The expected 1-based rank of `class` in row `i` when tied scores are put in a uniformly
    /// random order: `higher + (tied + 1)/2`. No class wins a tie by its index (the visitor is
    /// class 0: ordering ties by index would hand the visitor every tie).
    pub fn expected_rank(&self, i: usize, class: usize) -> f64 {
        let (higher, tied) = self.standing(i, class);
        higher as f64 + (tied as f64 + 1.0) / 2.0
    }

    /// The probability that `class` is among the first `k` answers of row `i` when ties are put
    /// in a uniformly random order (fractional credit for a tie that straddles the cut).
    pub fn within(&self, i: usize, class: usize, k: usize) -> f64 {
        let (higher, tied) = self.standing(i, class);
        within(higher, tied, k)
    }

    /// Each class's share of row `i`'s first answer: 1 for a lone top score, 1/t to each of t
    /// tied top scores.
    pub fn first_answer(&self, i: usize) -> Vec<(usize, f64)> {
        let row = self.row(i);
        let top = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let tops: Vec<usize> = (0..row.len()).filter(|&c| row[c] == top).collect();
        let share = 1.0 / tops.len().max(1) as f64;
        tops.into_iter().map(|c| (c, share)).collect()
    }
}

/// How many of `values` exceed `value`, and how many equal it.
pub fn standing(values: &[f64], value: f64) -> (usize, usize) {
    values.iter().fold((0, 0), |(higher, tied), &v| {
        if v > value {
            (higher + 1, tied)
        } else if v == value {
            (higher, tied + 1)
        } else {
            (higher, tied)
        }
    })
}

/// P(rank ≤ k) for a score with `higher` scores above it and `tied` equal to it (itself
/// included), the ties in a uniformly random order: its rank is uniform on
/// higher + 1 … higher + tied.
pub fn within(higher: usize, tied: usize, k: usize) -> f64 {
    if tied == 0 {
        return 0.0;
    }
    ((k as f64 - higher as f64) / tied as f64).clamp(0.0, 1.0)
}

/// Average precision of `scores` against binary `labels`, as scikit-learn's
/// `average_precision_score`: AP = Σₙ (Rₙ − Rₙ₋₁)·Pₙ over the distinct score thresholds in
/// decreasing order (tied scores form one threshold). `None` without a positive.
pub fn average_precision(scores: &[f64], labels: &[bool]) -> Option<f64> {
    let positives = labels.iter().filter(|&&l| l).count();
    if positives == 0 {
        return None;
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let (mut tp, mut seen, mut ap, mut last_recall) = (0usize, 0usize, 0.0, 0.0);
    let mut i = 0;
    while i < order.len() {
        let threshold = scores[order[i]];
        while i < order.len() && scores[order[i]] == threshold {
            tp += usize::from(labels[order[i]]);
            seen += 1;
            i += 1;
        }
        let recall = tp as f64 / positives as f64;
        let precision = tp as f64 / seen as f64;
        ap += (recall - last_recall) * precision;
        last_recall = recall;
    }
    Some(ap)
}

/// Identification figures over a test set.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Identification {
    /// Mean over classes of the one-vs-rest AP (classes with no test row are left out).
    /// (Every figure reads back as NaN where it was stored as null: [`Identification::NONE`].)
    #[serde(deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub mean_ap: f64,
    #[serde(deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub top1: f64,
    #[serde(deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub top5: f64,
    /// The AP of guessing: the mean over those classes of their share of the test rows
    /// (1/|U| for a balanced test set), which random scores achieve in expectation.
    #[serde(deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub chance_ap: f64,
}

impl Identification {
    /// No figure (a run that had nothing to identify, a placeholder): every value NaN.
    pub const NONE: Identification = Identification {
        mean_ap: f64::NAN,
        top1: f64::NAN,
        top5: f64::NAN,
        chance_ap: f64::NAN,
    };

    /// Mean AP as a multiple of chance (the paper's "×chance-level").
    pub fn over_chance(&self) -> f64 {
        self.mean_ap / self.chance_ap
    }
}

/// Mean AP, top-1 and top-5 of `scores` for rows whose true class is `truth`. `None` with no
/// test rows. Top-k is the expectation over a uniformly random order of tied scores; AP treats
/// tied scores as one threshold (as scikit-learn does), which no order of the ties changes.
pub fn identification(scores: &Scores, truth: &[usize]) -> Option<Identification> {
    assert_eq!(scores.rows, truth.len());
    if truth.is_empty() {
        return None;
    }
    let n = truth.len() as f64;
    let (mut ap_sum, mut chance_sum, mut classes) = (0.0, 0.0, 0usize);
    for c in 0..scores.classes {
        let labels: Vec<bool> = truth.iter().map(|&t| t == c).collect();
        if let Some(ap) = average_precision(&scores.column(c), &labels) {
            ap_sum += ap;
            chance_sum += labels.iter().filter(|&&l| l).count() as f64 / n;
            classes += 1;
        }
    }
    let within = |k: usize| {
        truth
            .iter()
            .enumerate()
            .map(|(i, &t)| scores.within(i, t, k))
            .sum::<f64>()
            / n
    };
    Some(Identification {
        mean_ap: ap_sum / classes as f64,
        top1: within(1),
        top5: within(5),
        chance_ap: chance_sum / classes as f64,
    })
}

/// Cluster purity: each cluster counts its most common true owner; the share of rows counted.
pub fn purity(clusters: &[usize], owners: &[usize]) -> f64 {
    let table = contingency(clusters, owners);
    let best: usize = table
        .iter()
        .map(|row| row.iter().copied().max().unwrap_or(0))
        .sum();
    best as f64 / clusters.len().max(1) as f64
}

/// Adjusted Rand index between a clustering and the true owners (Hubert & Arabie 1985):
/// 1 for identical partitions, about 0 for a random one.
pub fn adjusted_rand(clusters: &[usize], owners: &[usize]) -> f64 {
    let pairs = |k: usize| (k * k.saturating_sub(1)) as f64 / 2.0;
    let table = contingency(clusters, owners);
    let index: f64 = table.iter().flatten().map(|&k| pairs(k)).sum();
    let a: f64 = table.iter().map(|row| pairs(row.iter().sum())).sum();
    let cols = table.first().map_or(0, Vec::len);
    let b: f64 = (0..cols)
        .map(|j| pairs(table.iter().map(|row| row[j]).sum()))
        .sum();
    let total = pairs(clusters.len());
    if total == 0.0 {
        return 1.0;
    }
    let expected = a * b / total;
    let max = (a + b) / 2.0;
    if max == expected {
        1.0
    } else {
        (index - expected) / (max - expected)
    }
}

fn contingency(clusters: &[usize], owners: &[usize]) -> Vec<Vec<usize>> {
    assert_eq!(clusters.len(), owners.len());
    let rows = clusters.iter().max().map_or(0, |m| m + 1);
    let cols = owners.iter().max().map_or(0, |m| m + 1);
    let mut table = vec![vec![0usize; cols]; rows];
    for (&c, &o) in clusters.iter().zip(owners) {
        table[c][o] += 1;
    }
    table
}
