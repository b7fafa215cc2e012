//! A warm start: the federation the target joins has already been learning from the other
//! users (a project choice; [000] starts every run from an untrained model, see
//! docs/papers.md §3a, "Output bias and warm start").
//!
//! Before round 0 the server runs `rounds` rounds of FedAvg (Algorithm 1) in which every
//! other user of the world trains on its first week of training data: their routine repeats
//! week after week, so that week stands for the weeks the federation ran before the target
//! joined. The target's own data and the held-out test set are never used. What this means for
//! the attack is [000] §2.2, Insight I2: the bias-gradient's mean |ḡ| shrinks as the model
//! converges, so the reconstruction bound of Theorems 1–2 grows and the early rounds of a cold
//! start leak the most.

use crate::signal_map::model::MlpSpec;
use crate::signal_map::model::train::{LocalTraining, TrainError, train_local};
use crate::signal_map::trace::{Dataset, Sample};
use serde::{Deserialize, Serialize};
use whereabouts_core::error::ConfigError;
use whereabouts_core::rng::Stream;

/// The week of data each other user trains on in every warm-up round, seconds.
const WEEK_S: f64 = 604_800.0;

/// How long the federation learned before the target's first round, and how.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WarmStart {
    /// Rounds of FedAvg before the target's first (each a week of the other users' routine).
    pub rounds: usize,
    /// The other users' local training in those rounds.
    pub local: LocalTraining,
}

impl Default for WarmStart {
    /// The lab's: 4 weeks of FedAvg with B = 16, E = 1, η = 0.01 (plain SGD as in
    /// Algorithm 1). Our choice, for a map that has visibly learnt within about a second in
    /// the browser; the paper's FedSGD with η = 0.001 would need thousands of rounds.
    fn default() -> Self {
        Self {
            rounds: 4,
            local: LocalTraining {
                batch_size: Some(16),
                epochs: 1,
                learning_rate: 0.01,
            },
        }
    }
}

/// Most warm-up rounds a config may ask for (a year of weekly rounds).
pub const MAX_ROUNDS: usize = 52;

impl WarmStart {
    pub fn validate(&self) -> Result<(), ConfigError> {
        use crate::signal_map::limits;
        if self.rounds > MAX_ROUNDS {
            return Err(ConfigError::new(
                "warm_start.rounds",
                format!("must be a whole number from 0 to {MAX_ROUNDS}"),
            ));
        }
        let l = &self.local;
        limits::LEARNING_RATE
            .check("warm_start.local.learning_rate", f64::from(l.learning_rate))?;
        limits::EPOCHS.check("warm_start.local.epochs", l.epochs as f64)?;
        if let Some(b) = l.batch_size {
            limits::BATCH_SIZE.check("warm_start.local.batch_size", b as f64)?;
        }
        Ok(())
    }

    /// The global model after the warm-up, from `initial`: FedAvg over every user of `data`
    /// except `target`, each on its first week of training data (weights n_k / n). Each
    /// round's and user's randomness comes from its own stream of `seed`.
    pub fn train(
        &self,
        spec: &MlpSpec,
        initial: &[f32],
        data: &Dataset,
        target: u32,
        seed: u64,
    ) -> Result<Vec<f32>, String> {
        let mut users: Vec<u32> = data.train.iter().map(|s| s.user).collect();
        users.dedup(); // train is sorted by user
        let weeks: Vec<(u32, &[Sample])> = users
            .into_iter()
            .filter(|&u| u != target)
            .map(|u| {
                let mine = data.user_data(u);
                let end = mine.partition_point(|s| s.time < data.t0 + WEEK_S);
                (u, &mine[..end])
            })
            .filter(|(_, d)| !d.is_empty())
            .collect();
        let mut global = initial.to_vec();
        for round in 0..self.rounds {
            let mut updates = Vec::with_capacity(weeks.len());
            for &(user, week) in &weeks {
                let mut stream = Stream::new(seed, &format!("warm-start-{round}-user-{user}"));
                let result = train_local(spec, &global, week, &self.local, &mut stream)
                    .map_err(|e| warm_up_failed(round, user, &e))?;
                updates.push((week.len(), result.params));
            }
            match whereabouts_core::fl::aggregate(updates.iter().map(|(n, p)| (*n, &p[..]))) {
                Some(next) => global = next,
                None => break, // no other user has data: the federation had nothing to learn
            }
        }
        Ok(global)
    }
}

fn warm_up_failed(round: usize, user: u32, e: &TrainError) -> String {
    format!(
        "warm_start: in warm-up round {} user {user}'s training failed: {e}",
        round + 1
    )
}

/// The last warm start trained, by what it depends on: a page that changes a defence or the
/// path does not train it again.
#[derive(Default)]
pub struct WarmCache {
    key: String,
    weights: Vec<f32>,
}

impl WarmCache {
    /// The cached weights for `key`, or `make()`'s (then cached).
    pub fn get_or_train(
        &mut self,
        key: String,
        make: impl FnOnce() -> Result<Vec<f32>, String>,
    ) -> Result<Vec<f32>, String> {
        if self.key != key || self.weights.is_empty() {
            self.weights = make()?;
            self.key = key;
        }
        Ok(self.weights.clone())
    }
}

#[cfg(test)]
mod tests;
