//! Federated-learning plumbing every lab shares: the n-weighted aggregation of FedAvg and the
//! log of every participant's update with its true owner.
//!
//! The server aggregates w_t = Σ_k (n_t^k / n_t)·w_t^k over the round's participants
//! ([000] §2.1, Algorithm 1). The update log keeps what the server saw — each client's update
//! per round — next to who really sent it, which the server does not know: the Linkability lab
//! ([004]) attacks the log, and its metrics compare the attacker's answer with the owner.

use serde::{Deserialize, Serialize};

/// n-weighted FedAvg of the participants' models: each `(n, params)` is a participant's number
/// of training samples and its model after local training. `None` when nobody took part or
/// the shapes differ.
pub fn aggregate<'a>(models: impl IntoIterator<Item = (usize, &'a [f32])>) -> Option<Vec<f32>> {
    let models: Vec<(usize, &[f32])> = models.into_iter().collect();
    let (_, first) = models.first()?;
    let dimension = first.len();
    if models.iter().any(|(_, p)| p.len() != dimension) {
        return None;
    }
    let n: usize = models.iter().map(|(n, _)| n).sum();
    let mut global = vec![0.0f64; dimension];
    for (k, params) in &models {
        let weight = if n == 0 {
            1.0 / models.len() as f64
        } else {
            *k as f64 / n as f64
        };
        for (g, &p) in global.iter_mut().zip(params.iter()) {
            *g += weight * f64::from(p);
        }
    }
    Some(global.into_iter().map(|g| g as f32).collect())
}

/// One participant's update as the server received it, and who really sent it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggedUpdate {
    pub round: usize,
    /// The pseudonymous client the server sees (a device).
    pub client: u32,
    /// The person the client belongs to: ground truth, never shown to the attacker.
    pub owner: u32,
    /// Training samples behind the update (FedAvg's weight, which the protocol sends).
    pub samples: usize,
    /// The update w_{t−1} − w_t^k, as the server can compute it (or the part of it the server
    /// keeps, e.g. the last layer).
    pub delta: Vec<f32>,
}

/// Every update of a run, in the order the server received them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UpdateLog {
    entries: Vec<LoggedUpdate>,
}

impl UpdateLog {
    /// Records a client's update of `round`: its model `after` training from `before`.
    pub fn record(
        &mut self,
        round: usize,
        client: u32,
        owner: u32,
        samples: usize,
        before: &[f32],
        after: &[f32],
    ) {
        self.entries.push(LoggedUpdate {
            round,
            client,
            owner,
            samples,
            delta: before.iter().zip(after).map(|(b, a)| b - a).collect(),
        });
    }

    /// Records an update the lab has already computed (and perhaps cut down to the part the
    /// server keeps).
    pub fn push(&mut self, update: LoggedUpdate) {
        self.entries.push(update);
    }

    pub fn entries(&self) -> &[LoggedUpdate] {
        &self.entries
    }

    /// The updates of one round.
    pub fn round(&self, round: usize) -> impl Iterator<Item = &LoggedUpdate> {
        self.entries.iter().filter(move |u| u.round == round)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn aggregation_weights_by_samples() {
        let a = [1.0f32, 0.0];
        let b = [0.0f32, 4.0];
        // 3 samples against 1: w = 0.75·a + 0.25·b.
        assert_eq!(
            aggregate([(3, &a[..]), (1, &b[..])]).unwrap(),
            vec![0.75, 1.0]
        );
        assert_eq!(aggregate([]), None);
        assert_eq!(aggregate([(1, &a[..]), (1, &[0.0f32][..])]), None);
    }

    #[test]
    fn the_log_keeps_each_update_with_its_owner() {
        let mut log = UpdateLog::default();
        log.record(0, 10, 1, 5, &[1.0, 1.0], &[0.5, 1.0]);
        log.record(0, 11, 1, 3, &[1.0, 1.0], &[1.0, 0.0]);
        log.record(1, 10, 1, 4, &[0.5, 1.0], &[0.5, 0.5]);
        assert_eq!(log.round(0).count(), 2);
        assert_eq!(log.entries()[0].delta, vec![0.5, 0.0]);
        assert!(log.entries().iter().all(|u| u.owner == 1));
        assert_eq!(log.len(), 3);
    }
}
