//! Beyond the paper: linking without labels. A server that knows nobody can still group the
//! updates it sees, either by clustering the updates of a range of rounds (k-means with one
//! cluster per person, the head count being public), or, when clients rotate their pseudonyms
//! every round ([004] §5.1, T2: updates "can be used as a signature"), by chaining each
//! round's updates to the next round's with the optimal one-to-one matching on cosine
//! similarity (Kuhn–Munkres). Judged by purity and the adjusted Rand index against the true
//! owners.

use crate::linkability::features::{Matrix, cosine};
use crate::linkability::kmeans::kmeans;
use crate::linkability::metrics::{adjusted_rand, purity};
use pathfinding::kuhn_munkres::kuhn_munkres;
use pathfinding::matrix::Matrix as Weights;
use serde::{Deserialize, Serialize};
use whereabouts_core::rng::Stream;

/// How well a grouping of updates follows their owners.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Grouping {
    pub groups: usize,
    pub purity: f64,
    pub adjusted_rand: f64,
}

/// k-means of the updates into `people` clusters.
pub fn cluster(x: &Matrix, owners: &[usize], people: usize, stream: &mut Stream) -> Grouping {
    let clustering = kmeans(x, people, 100, stream);
    Grouping {
        groups: clustering.centroids.rows,
        purity: purity(&clustering.assignment, owners),
        adjusted_rand: adjusted_rand(&clustering.assignment, owners),
    }
}

/// What chaining rounds found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chaining {
    /// Links made (one per matched pair of updates in consecutive rounds).
    pub links: usize,
    /// Share of links joining two updates of one person.
    pub same_person: f64,
    /// The same share for a random one-to-one matching of the same rounds (in expectation).
    pub chance: f64,
    /// The chains as groups of updates.
    pub chains: Grouping,
}

/// Chains the updates round by round: each round's updates are matched one-to-one to the next
/// round's to maximise the total cosine similarity; a matched update continues its chain, an
/// unmatched one starts a new chain.
pub fn chain(x: &Matrix, rounds: &[usize], owners: &[usize]) -> Chaining {
    let mut distinct: Vec<usize> = rounds.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let members =
        |r: usize| -> Vec<usize> { (0..rounds.len()).filter(|&i| rounds[i] == r).collect() };
    let mut chain_of = vec![usize::MAX; rounds.len()];
    let mut chains = 0usize;
    let (mut links, mut same, mut chance) = (0usize, 0usize, 0.0f64);
    let mut previous: Vec<usize> = Vec::new();
    for &r in &distinct {
        let current = members(r);
        for (a, b) in match_rounds(x, &previous, &current) {
            chain_of[b] = chain_of[a];
            links += 1;
            same += usize::from(owners[a] == owners[b]);
        }
        if !previous.is_empty() && !current.is_empty() {
            // A random matching pairs min(|A|, |B|) updates; each pair is one person's with the
            // probability that two random updates of the two rounds share an owner.
            let pairs = previous.len().min(current.len()) as f64;
            let shared = previous
                .iter()
                .map(|&a| current.iter().filter(|&&b| owners[b] == owners[a]).count())
                .sum::<usize>() as f64;
            chance += pairs * shared / (previous.len() * current.len()) as f64;
        }
        for &b in &current {
            if chain_of[b] == usize::MAX {
                chain_of[b] = chains;
                chains += 1;
            }
        }
        previous = current;
    }
    Chaining {
        links,
        same_person: same as f64 / links.max(1) as f64,
        chance: chance / links.max(1) as f64,
        chains: Grouping {
            groups: chains,
            purity: purity(&chain_of, owners),
            adjusted_rand: adjusted_rand(&chain_of, owners),
        },
    }
}

/// The one-to-one matching of rows `a` to rows `b` with the largest total cosine similarity,
/// as (row of a, row of b) pairs.
pub fn match_rounds(x: &Matrix, a: &[usize], b: &[usize]) -> Vec<(usize, usize)> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    // Kuhn–Munkres needs rows ≤ columns and integer weights: cosines to micro-units.
    let (rows, cols, flipped) = if a.len() <= b.len() {
        (a, b, false)
    } else {
        (b, a, true)
    };
    let weights: Vec<i64> = rows
        .iter()
        .flat_map(|&i| {
            cols.iter()
                .map(move |&j| (cosine(x.row(i), x.row(j)) * 1e6).round() as i64)
        })
        .collect();
    let matrix = Weights::from_vec(rows.len(), cols.len(), weights).expect("rows × cols weights");
    let (_, assignment) = kuhn_munkres(&matrix);
    assignment
        .into_iter()
        .enumerate()
        .map(|(r, c)| {
            if flipped {
                (cols[c], rows[r])
            } else {
                (rows[r], cols[c])
            }
        })
        .collect()
}
