//! The server's attacks on the update log ([004] §6): identification (whose is this new
//! device?), matching (are these two devices one person's?), and, beyond the paper, linkers
//! that need no labels and linking by place.

pub mod dense;
pub mod knn;
pub mod mlp;
pub mod siamese;
pub mod svm;
pub mod unlabelled;

use crate::linkability::metrics::Scores;
use serde::{Deserialize, Serialize};
use whereabouts_core::rng::Stream;

/// The identification attacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Identifier {
    /// Guessing: random scores ([004] §6.1, "Chance").
    Chance,
    /// One-vs-rest linear SVM on the updates.
    Svm,
    /// K = 10 nearest neighbours on the updates.
    Knn,
    /// The MLP on the updates.
    Mlp,
    /// Beyond the paper: K = 10 nearest neighbours on where Lemma 1 puts each update ([000]
    /// §2.2), i.e. linking devices by the places they reveal.
    Place,
}

impl Identifier {
    pub const ALL: [Identifier; 5] = [
        Identifier::Mlp,
        Identifier::Svm,
        Identifier::Knn,
        Identifier::Place,
        Identifier::Chance,
    ];

    /// Its key in configs, links and tables ([`crate::linkability::settings`]).
    pub fn name(self) -> &'static str {
        whereabouts_core::setting::Choices::key(&self)
    }

    /// Its short name in tables and figures (the menu's is [`Choices::label`](whereabouts_core::setting::Choices::label)).
    pub fn short_label(self) -> &'static str {
        match self {
            Identifier::Chance => "Chance",
            Identifier::Svm => "SVM",
            Identifier::Knn => "k-NN",
            Identifier::Mlp => "MLP",
            Identifier::Place => "By place (Lemma 1 + k-NN)",
        }
    }
}

/// Random scores, uniform in [0, 1).
pub fn chance(rows: usize, classes: usize, stream: &mut Stream) -> Scores {
    Scores {
        rows,
        classes,
        data: (0..rows * classes).map(|_| stream.uniform()).collect(),
    }
}

/// The MLP's matching score for two updates ([004] §6.2; the formula was lost in the text, so
/// the inner product of the two identification distributions, P(same) = Σ_u p₁(u)·p₂(u), is
/// our reconstruction, docs/papers.md).
pub fn match_probability(p: &[f64], q: &[f64]) -> f64 {
    p.iter().zip(q).map(|(a, b)| a * b).sum()
}
