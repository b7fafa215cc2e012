//! The client-side mitigations of [004] §9, on location measurements: every device applies the
//! same one for the whole run (AM2, AM4), before the server sees anything (AM5: the attack is
//! trained on mitigated updates too).
//!
//! The data-centric ones pick each round's local batch, so they plug into the federation as a
//! [`BatchSelector`]; the noise acts on the update itself ([`Mitigator::noise`]). Background
//! measurements are drawn from the pool with replacement (the paper does not say; our choice,
//! docs/papers.md).

use super::config::Mitigation;
use super::features::Matrix;
use super::kmeans::{closest, kmeans};
use super::population::{device, owner};
use crate::signal_map::fl::BatchSelector;
use crate::signal_map::model::train::TrainError;
use crate::signal_map::trace::Sample;
use std::sync::Arc;
use whereabouts_core::rng::Stream;

/// mm-aug's modes: the pool's k-means clusters and the one each device draws from.
#[derive(Clone, Debug, PartialEq)]
pub struct Modes {
    /// Pool indices of each cluster.
    pub members: Vec<Vec<usize>>,
    /// The cluster of each client (indexed by client id).
    pub of_client: Vec<usize>,
}

impl Modes {
    /// Clusters the pool's locations into `k` modes (the paper clusters image features, 100
    /// clusters for 53 users and 500 for 327; one per person here, docs/papers.md) and gives
    /// each of `people`'s two devices a different random one: the phone and the tablet blend
    /// into different crowds (the paper's "cars on the phone, flowers on the tablet").
    pub fn new(pool: &[Sample], people: usize, k: usize, seed: u64) -> Self {
        let mut stream = Stream::new(seed, "mm-aug-modes");
        // The centres are fitted on at most FIT_ROWS random pool measurements (k-means on the
        // whole pool would cost seconds at 400 people); every measurement then joins its
        // nearest centre.
        const FIT_ROWS: usize = 20_000;
        let mut fit: Vec<usize> = (0..pool.len()).collect();
        stream.shuffle(&mut fit);
        fit.truncate(FIT_ROWS);
        let x = Matrix {
            rows: fit.len(),
            cols: 2,
            data: fit.iter().flat_map(|&i| pool[i].x).collect(),
        };
        let centroids = kmeans(&x, k, 30, &mut stream).centroids;
        let mut members = vec![Vec::new(); centroids.rows];
        for (i, s) in pool.iter().enumerate() {
            members[closest(&centroids, &s.x)].push(i);
        }
        // A centre fitted on the subsample always keeps at least its own point.
        members.retain(|m| !m.is_empty());
        let k = members.len();
        let mut of_client = Vec::with_capacity(2 * people);
        for _ in 0..people {
            let first = stream.below(k as u64) as usize;
            let second = if k > 1 {
                (first + 1 + stream.below(k as u64 - 1) as usize) % k
            } else {
                first
            };
            of_client.extend([first, second]);
        }
        Self { members, of_client }
    }
}

/// A mitigation ready to apply: the pool it draws from and, for mm-aug, the modes.
pub struct Mitigator {
    pub mitigation: Mitigation,
    pool: Arc<[Sample]>,
    modes: Option<Modes>,
}

impl Mitigator {
    pub fn new(mitigation: Mitigation, pool: Arc<[Sample]>, people: usize, seed: u64) -> Self {
        let modes = matches!(mitigation, Mitigation::MmAug { .. })
            .then(|| Modes::new(&pool, people, people, seed));
        Self {
            mitigation,
            pool,
            modes,
        }
    }

    pub fn modes(&self) -> Option<&Modes> {
        self.modes.as_ref()
    }

    fn draw(&self, from: Option<&[usize]>, stream: &mut Stream) -> Sample {
        match from {
            Some(members) => self.pool[members[stream.below(members.len() as u64) as usize]],
            None => self.pool[stream.below(self.pool.len() as u64) as usize],
        }
    }

    /// The noise mitigation on a model a device is about to send: θ + ε, ε ~ N(0, σ² I), so the
    /// update the server computes carries the same noise (Eq. 5). Other mitigations leave it.
    pub fn noise(&self, params: &mut [f32], stream: &mut Stream) {
        if let Mitigation::Noise { sigma } = self.mitigation
            && sigma > 0.0
        {
            for p in params {
                *p += stream.gaussian(0.0, sigma) as f32;
            }
        }
    }
}

/// round(share · n), the count a share of n measurements means.
pub fn count(share: f64, n: usize) -> usize {
    (share * n as f64).round() as usize
}

impl BatchSelector for Mitigator {
    fn select(
        &self,
        round_data: &[Sample],
        stream: &mut Stream,
    ) -> Result<Vec<Sample>, TrainError> {
        let n = round_data.len();
        if self.pool.is_empty() || n == 0 {
            return Ok(round_data.to_vec());
        }
        let client = round_data[0].user;
        let mut batch = round_data.to_vec();
        match self.mitigation {
            Mitigation::None | Mitigation::Noise { .. } => {}
            Mitigation::BkgRepl { beta } => {
                let mut order: Vec<usize> = (0..n).collect();
                stream.shuffle(&mut order);
                for &i in &order[..count(beta, n)] {
                    batch[i] = Sample {
                        user: client,
                        ..self.draw(None, stream)
                    };
                }
            }
            Mitigation::RandAug { alpha } => {
                for _ in 0..count(alpha, n) {
                    let s = self.draw(None, stream);
                    batch.push(Sample { user: client, ..s });
                }
            }
            Mitigation::MmAug { alpha } => {
                let modes = self.modes.as_ref().expect("mm-aug has modes");
                let mode = modes.of_client[2 * owner(client) + device(client)];
                for _ in 0..count(alpha, n) {
                    let s = self.draw(Some(&modes.members[mode]), stream);
                    batch.push(Sample { user: client, ..s });
                }
            }
        }
        Ok(batch)
    }
}
