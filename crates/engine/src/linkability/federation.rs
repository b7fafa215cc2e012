//! The federation the server watches: the signal map's online FedAvg ([000] §2.1,
//! Algorithm 1), every device a pseudonymous client, one round a day. Each participating
//! device's update goes into the update log with its client and true owner ([004] §6: every
//! update labelled with client, user and round), together with where Lemma 1 puts it (the
//! server can read that off any update, [000] §2.2).
//!
//! The server keeps only the layers it attacks ([`super::model::kept_range`]): the log of 400
//! people's full updates would not fit in a tab.

use super::config::LinkConfig;
use super::mitigation::Mitigator;
use super::model::{kept_range, model_spec};
use super::population::{Population, owner};
use crate::signal_map::attack::analytic;
use crate::signal_map::fl::{Federation, FlConfig};
use crate::signal_map::model::train::{LocalTraining, TrainError};
use crate::signal_map::model::{MlpSpec, Predictor};
use crate::signal_map::reference::References;
use whereabouts_core::fl::{LoggedUpdate, UpdateLog, aggregate};
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;

/// A federation in progress: the global model, the log, and the next round.
pub struct FederationRun {
    pub population: Population,
    pub spec: MlpSpec,
    federation: Federation,
    mitigator: Mitigator,
    kept: std::ops::Range<usize>,
    seed: u64,
    pub rounds: usize,
    /// The next round to run.
    pub round: usize,
    pub global: Vec<f32>,
    /// Every update the server received (the kept layers), with its client and true owner.
    pub log: UpdateLog,
    /// Lemma 1's reconstruction of each logged update (`None` when it has no first-layer
    /// gradient), in log order.
    pub places: Vec<Option<Metres>>,
    /// Updates not sent because the phone's local training diverged (see [`Self::step`]).
    pub diverged_updates: usize,
}

impl FederationRun {
    pub fn new(config: &LinkConfig, population: Population) -> Self {
        let spec = model_spec();
        let mut federation = Federation::new(
            spec.clone(),
            FlConfig {
                local: LocalTraining {
                    batch_size: Some(config.batch_size),
                    epochs: config.local_epochs,
                    learning_rate: config.learning_rate,
                },
                client_fraction: config.participation,
                cumulative: false,
            },
            config.seed,
        );
        federation.by_hand = true;
        // The output bias starts at the pool's mean signal: public knowledge, the way the
        // paper's model starts pretrained rather than from nothing (our choice, docs/papers.md).
        let pool_mean = population.pool.iter().map(|s| f64::from(s.y)).sum::<f64>()
            / population.pool.len().max(1) as f64;
        let global = spec.init(pool_mean as f32, &mut Stream::new(config.seed, "link-init"));
        let mitigator = Mitigator::new(
            config.mitigation,
            population.pool.clone(),
            population.people,
            config.seed,
        );
        Self {
            kept: kept_range(&spec, config.layers),
            spec,
            federation,
            mitigator,
            seed: config.seed,
            rounds: config.rounds,
            round: 0,
            global,
            log: UpdateLog::default(),
            places: Vec::new(),
            diverged_updates: 0,
            population,
        }
    }

    /// Whether the devices' local SGD is the hand-written one (the default) or candle's (the
    /// benchmark compares them).
    pub fn set_by_hand(&mut self, by_hand: bool) {
        self.federation.by_hand = by_hand;
    }

    pub fn mitigator(&self) -> &Mitigator {
        &self.mitigator
    }

    pub fn done(&self) -> bool {
        self.round >= self.rounds
    }

    /// Runs the next round: every participant trains, applies the mitigation and sends; the
    /// server logs each update and aggregates.
    pub fn step(&mut self) -> Result<(), String> {
        let t = self.round;
        let data = &self.population.dataset;
        let clients = self.population.clients();
        let mut sent: Vec<(usize, Vec<f32>)> = Vec::new();
        for client in self.federation.participants(data, &clients, t) {
            let update =
                match self
                    .federation
                    .local_update(data, client, t, &self.global, &self.mitigator)
                {
                    Ok(Some(update)) => update,
                    Ok(None) => continue,
                    // The phone's local SGD blew up: it has no finite update to send, so it sends
                    // none this round (a server drops a non-finite update); the run counts them.
                    Err((_, TrainError::Diverged { .. })) => {
                        self.diverged_updates += 1;
                        continue;
                    }
                    Err((c, e)) => return Err(format!("round {t}, device {c}: {e}")),
                };
            let mut params = update.params;
            let mut stream = Stream::new(self.seed, &format!("noise-round-{t}-client-{client}"));
            self.mitigator.noise(&mut params, &mut stream);
            let delta: Vec<f32> = self
                .global
                .iter()
                .zip(&params)
                .map(|(b, a)| b - a)
                .collect();
            self.places.push(analytic::reconstruct(
                &self.spec,
                &delta,
                &data.standardizer,
            ));
            self.log.push(LoggedUpdate {
                round: t,
                client,
                owner: owner(client) as u32,
                samples: update.batch.len(),
                delta: delta[self.kept.clone()].to_vec(),
            });
            sent.push((update.batch.len(), params));
        }
        if let Some(global) = aggregate(sent.iter().map(|(n, p)| (*n, &p[..]))) {
            if global.iter().any(|v| !v.is_finite()) {
                return Err(format!(
                    "the global model diverged in round {t}: lower the phones' learning rate"
                ));
            }
            self.global = global;
        }
        self.round += 1;
        Ok(())
    }

    /// Runs every remaining round.
    pub fn finish(&mut self) -> Result<(), String> {
        while !self.done() {
            self.step()?;
        }
        Ok(())
    }

    /// The references for [`test_rmse`](Self::test_rmse) on the same test set: the mean
    /// predictor and the same model trained centrally on every device's training data, from
    /// the federation's start (`signal_map::reference`).
    pub fn references(&self) -> References {
        let d = &self.population.dataset;
        References::of_fresh_model(
            &self.spec,
            &d.train,
            &d.test,
            &mut Stream::new(self.seed, "link-init"),
            self.seed,
        )
    }

    /// The global model's RMSE (dBm) on the held-out test set: the federation's utility.
    pub fn test_rmse(&self) -> Option<f64> {
        let mut predictor = Predictor::new(&self.spec);
        whereabouts_core::metrics::rmse(self.population.dataset.test.iter().map(|s| {
            (
                f64::from(predictor.predict(&self.global, s.x)),
                f64::from(s.y),
            )
        }))
    }
}
