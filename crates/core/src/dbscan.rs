//! DBSCAN (Ester et al. 1996) over locations, as Diverse Batch and Farthest Batch use it
//! ([000] §4.3–4.4).
//!
//! Distances are metres on the local plane ([`crate::geo::LocalProjection`]), which agrees with
//! the great-circle (haversine) distance to 0.1% over tens of kilometres (tested in `geo`) —
//! the paper's `eps` is in km and its metric unstated; haversine would be the natural reading,
//! and at the scale of a cell the two are the same (our choice, see docs/papers.md).
//! `min_samples` counts the point itself, as in scikit-learn (whose default, 5, is ours).
//! Neighbours are found through a grid of cell size `eps`, so a query looks at 3×3 cells.

use crate::geo::Metres;
use std::collections::HashMap;

/// What DBSCAN says of a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    Noise,
    Cluster(usize),
}

/// Labels every point; clusters are numbered 0.. in order of discovery (by point index).
pub fn dbscan(points: &[Metres], eps_m: f64, min_samples: usize) -> Vec<Label> {
    let n = points.len();
    let mut labels = vec![None::<Label>; n];
    if n == 0 || !(eps_m > 0.0 && eps_m.is_finite()) {
        return vec![Label::Noise; n];
    }
    let cell = |p: &Metres| {
        (
            (p.east / eps_m).floor() as i64,
            (p.north / eps_m).floor() as i64,
        )
    };
    let mut grid: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
    for (i, p) in points.iter().enumerate() {
        grid.entry(cell(p)).or_default().push(i);
    }
    let eps2 = eps_m * eps_m;
    let neighbours = |i: usize| -> Vec<usize> {
        let (cx, cy) = cell(&points[i]);
        let mut out = Vec::new();
        for dx in -1..=1 {
            for dy in -1..=1 {
                if let Some(members) = grid.get(&(cx + dx, cy + dy)) {
                    for &j in members {
                        let (a, b) = (points[i], points[j]);
                        let d2 = (a.east - b.east).powi(2) + (a.north - b.north).powi(2);
                        if d2 <= eps2 {
                            out.push(j);
                        }
                    }
                }
            }
        }
        out.sort_unstable();
        out
    };
    let mut clusters = 0;
    for i in 0..n {
        if labels[i].is_some() {
            continue;
        }
        let seeds = neighbours(i);
        if seeds.len() < min_samples {
            labels[i] = Some(Label::Noise);
            continue;
        }
        let id = clusters;
        clusters += 1;
        labels[i] = Some(Label::Cluster(id));
        let mut queue: Vec<usize> = seeds;
        let mut k = 0;
        while k < queue.len() {
            let j = queue[k];
            k += 1;
            match labels[j] {
                Some(Label::Cluster(_)) => continue,
                Some(Label::Noise) => {
                    // A border point: reachable, but not a core point.
                    labels[j] = Some(Label::Cluster(id));
                    continue;
                }
                None => labels[j] = Some(Label::Cluster(id)),
            }
            let more = neighbours(j);
            if more.len() >= min_samples {
                queue.extend(more);
            }
        }
    }
    labels
        .into_iter()
        .map(|l| l.unwrap_or(Label::Noise))
        .collect()
}

/// The members of each cluster, by cluster id (noise left out).
pub fn clusters(labels: &[Label]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, l) in labels.iter().enumerate() {
        if let Label::Cluster(c) = *l {
            if out.len() <= c {
                out.resize(c + 1, Vec::new());
            }
            out[c].push(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Hand-checked: two tight groups, a bridge-less gap, a border point and a lone point.
    #[test]
    fn a_hand_checked_example() {
        let p = |e: f64, n: f64| Metres::new(e, n);
        let points = vec![
            // Group A: a 3×2 block with 1 m spacing (all core with eps 1.5, min 3).
            p(0.0, 0.0),
            p(1.0, 0.0),
            p(2.0, 0.0),
            p(0.0, 1.0),
            p(1.0, 1.0),
            p(2.0, 1.0),
            // A border point of A: 1.4 m from (2, 1) only — reachable, not core.
            p(3.4, 1.0),
            // Group B, 100 m away: a triangle, each point within 1.5 m of the other two.
            p(100.0, 0.0),
            p(101.0, 0.0),
            p(100.5, 1.0),
            // A lone point.
            p(50.0, 50.0),
        ];
        let labels = dbscan(&points, 1.5, 3);
        use Label::*;
        assert_eq!(
            labels,
            vec![
                Cluster(0),
                Cluster(0),
                Cluster(0),
                Cluster(0),
                Cluster(0),
                Cluster(0),
                Cluster(0),
                Cluster(1),
                Cluster(1),
                Cluster(1),
                Noise
            ]
        );
        assert_eq!(
            clusters(&labels),
            vec![(0..7).collect::<Vec<_>>(), vec![7, 8, 9]]
        );
        // With min_samples 4 the triangle is noise: each point has only 3 neighbours (itself
        // included).
        let strict = dbscan(&points, 1.5, 4);
        assert_eq!(&strict[7..], &[Noise, Noise, Noise, Noise]);
        assert!(strict[..6].iter().all(|l| *l == Cluster(0)));
    }

    #[test]
    fn degenerate_inputs() {
        assert!(dbscan(&[], 1.0, 5).is_empty());
        assert_eq!(
            dbscan(&[Metres::new(0.0, 0.0)], 1.0, 1),
            vec![Label::Cluster(0)]
        );
        assert_eq!(
            dbscan(&[Metres::new(0.0, 0.0)], f64::NAN, 1),
            vec![Label::Noise]
        );
    }
}
