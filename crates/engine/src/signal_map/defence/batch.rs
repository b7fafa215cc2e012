//! FL-native defences that choose the LocalBatch ([000] §4.3–4.4, Algorithm 3), and the
//! random-subset baseline of the same size ([000] §4.3, Table 2).
//!
//! By O1 the DLG attacker recovers the centroid of the LocalBatch; these defences make that
//! centroid say less about the round's real data D_t: Diverse Batch spreads the batch out (one
//! point per place), Farthest Batch hands the server a point far from the true centroid (the
//! places farthest from it: still the person's own places, not a decoy). Choices where the paper is silent (docs/papers.md §3a): `min_samples` = 5,
//! scikit-learn's default ([000] gives only `eps`; a configuration may set another); noise
//! points are left out; a cluster's "center point" is its member closest to the cluster mean;
//! Farthest Batch takes, inside each cluster, the members farthest from D_t's centroid first.
//! One pass only (the evaluated version, data minimisation, [000] §4.3).

use super::dbscan::{clusters, dbscan};
use crate::signal_map::fl::BatchSelector;
use crate::signal_map::model::train::TrainError;
use crate::signal_map::trace::{Sample, centroid};
use whereabouts_core::geo::Metres;
use whereabouts_core::order;
use whereabouts_core::rng::Stream;

fn positions(data: &[Sample]) -> Vec<Metres> {
    data.iter().map(|s| s.pos).collect()
}

fn mean_of(data: &[Sample], members: &[usize]) -> Metres {
    let n = members.len() as f64;
    let (e, no) = members.iter().fold((0.0, 0.0), |(a, b), &i| {
        (a + data[i].pos.east, b + data[i].pos.north)
    });
    Metres::new(e / n, no / n)
}

/// Diverse Batch: DBSCAN once over D_t, one representative point per cluster.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiverseBatch {
    pub eps_m: f64,
    pub min_samples: usize,
}

impl BatchSelector for DiverseBatch {
    fn select(&self, data: &[Sample], _: &mut Stream) -> Result<Vec<Sample>, TrainError> {
        let labels = dbscan(&positions(data), self.eps_m, self.min_samples);
        Ok(clusters(&labels)
            .iter()
            .map(|members| {
                let mean = mean_of(data, members);
                let best = members
                    .iter()
                    .copied()
                    .min_by(|&a, &b| {
                        data[a]
                            .pos
                            .distance(&mean)
                            .total_cmp(&data[b].pos.distance(&mean))
                    })
                    .expect("clusters are not empty");
                data[best]
            })
            .collect())
    }
}

/// Farthest Batch (Algorithm 3): `num` points from the clusters farthest from D_t's centroid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FarthestBatch {
    pub eps_m: f64,
    pub min_samples: usize,
    pub num: usize,
}

impl BatchSelector for FarthestBatch {
    fn select(&self, data: &[Sample], _: &mut Stream) -> Result<Vec<Sample>, TrainError> {
        let Some(xbar) = centroid(data) else {
            return Ok(Vec::new());
        };
        let labels = dbscan(&positions(data), self.eps_m, self.min_samples);
        let mut groups = clusters(&labels);
        let far = |i: usize| data[i].pos.distance(&xbar);
        order::sort_by(&mut groups, |a, b| {
            mean_of(data, b)
                .distance(&xbar)
                .total_cmp(&mean_of(data, a).distance(&xbar))
        });
        let mut out = Vec::with_capacity(self.num);
        for mut members in groups {
            order::sort_by(&mut members, |&a, &b| far(b).total_cmp(&far(a)));
            for i in members {
                if out.len() == self.num {
                    return Ok(out);
                }
                out.push(data[i]);
            }
        }
        Ok(out)
    }
}

/// The baseline: a uniformly random subset of D_t as large as what `like` would select.
pub struct RandomSubset<S: BatchSelector> {
    pub like: S,
}

impl<S: BatchSelector> BatchSelector for RandomSubset<S> {
    fn select(&self, data: &[Sample], stream: &mut Stream) -> Result<Vec<Sample>, TrainError> {
        let size = self.like.select(data, stream)?.len();
        let mut index: Vec<usize> = (0..data.len()).collect();
        stream.shuffle(&mut index);
        index.truncate(size);
        index.sort_unstable();
        Ok(index.into_iter().map(|i| data[i]).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn at(e: f64, n: f64) -> Sample {
        Sample {
            user: 0,
            time: 0.0,
            pos: Metres::new(e, n),
            x: [0.0, 0.0],
            y: -90.0,
        }
    }

    /// A day: 60 fixes at home, 30 at work, 10 at a café, and two stray fixes.
    fn day() -> Vec<Sample> {
        let mut d = Vec::new();
        for k in 0..60 {
            d.push(at((k % 6) as f64, (k / 6) as f64 * 0.5));
        }
        for k in 0..30 {
            d.push(at(800.0 + (k % 5) as f64, 600.0 + (k / 5) as f64 * 0.5));
        }
        for k in 0..10 {
            d.push(at(-300.0 + k as f64 * 0.5, 300.0));
        }
        d.push(at(3000.0, 0.0));
        d.push(at(0.0, -3000.0));
        d
    }

    #[test]
    fn diverse_batch_keeps_one_point_per_place() {
        let b = DiverseBatch {
            eps_m: 10.0,
            min_samples: 5,
        }
        .select(&day(), &mut Stream::new(1, "t"))
        .unwrap();
        assert_eq!(b.len(), 3);
        // Representatives sit in their places.
        assert!(b[0].pos.distance(&Metres::new(2.5, 2.25)) < 2.0);
        assert!(b[1].pos.distance(&Metres::new(802.0, 601.25)) < 2.0);
        assert!(b[2].pos.distance(&Metres::new(-297.75, 300.0)) < 1.0);
    }

    #[test]
    fn farthest_batch_takes_the_farthest_place_first() {
        let d = day();
        let xbar = centroid(&d).unwrap();
        let b = FarthestBatch {
            eps_m: 10.0,
            min_samples: 5,
            num: 12,
        }
        .select(&d, &mut Stream::new(1, "t"))
        .unwrap();
        assert_eq!(b.len(), 12);
        // Work (≈ 700 m from the centroid) is the farthest cluster: 30 points, so all 12 are
        // from there, and the decoy centroid is far from the truth.
        assert!(b.iter().all(|s| s.pos.east >= 800.0));
        assert!(centroid(&b).unwrap().distance(&xbar) > 650.0);
        // Asking for more than the farthest cluster holds spills into the next farthest (café).
        let more = FarthestBatch {
            eps_m: 10.0,
            min_samples: 5,
            num: 35,
        }
        .select(&d, &mut Stream::new(1, "t"))
        .unwrap();
        assert_eq!(more.iter().filter(|s| s.pos.east < -200.0).count(), 5);
    }

    #[test]
    fn the_random_subset_matches_the_curated_size() {
        let d = day();
        let like = DiverseBatch {
            eps_m: 10.0,
            min_samples: 5,
        };
        let r = RandomSubset { like }
            .select(&d, &mut Stream::new(3, "t"))
            .unwrap();
        assert_eq!(r.len(), 3);
        let again = RandomSubset { like }
            .select(&d, &mut Stream::new(3, "t"))
            .unwrap();
        assert_eq!(r, again);
    }
}
