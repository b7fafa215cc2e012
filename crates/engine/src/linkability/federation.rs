//! The federation the server watches: the signal map's online FedAvg ([000] §2.1,
//! Algorithm 1), every device a pseudonymous client, one round a day. Each participating
//! device's update goes into the update log with its client and true owner ([004] §6: every
//! update labelled with client, user and round), together with where Lemma 1 puts it (the
//! server can read that off any update, [000] §2.2).
//!
//! The server keeps only the layers it attacks ([`super::model::kept_range`]): the log of 400
//! people's full updates would not fit in a tab.
//!
//! **Only the sum** ([`Sees::Sum`], issue 39 §2): under secure aggregation ([Bonawitz] Fig. 4)
//! the round's devices mask their updates and the server unmasks only their sum. The devices
//! train and send exactly as with every update, and the model moves by the same FedAvg
//! aggregate ([000] Algorithm 1; a server under secure aggregation gets that n-weighted mean
//! from the sum of [n_k·Δ_k, n_k], as the Signal map's devices send it:
//! `signal_map::secure`), so the federation is the same run. What changes is the server's
//! record: for each round one [`RoundSum`] of the devices' changes Δ_k — every coordinate of the
//! model, clipped to ±[`UPDATE_CLIP`] and quantised as the protocol does, word for word its
//! unmasked sum (the core's tests) — and no entry in the update log. The server then holds no
//! update of any one device and no pseudonym attached to one: nothing to train the
//! identification or matching attacks on ([004] §6 trains them on labelled updates) and nothing
//! to attribute, and no Lemma 1 place of any device. What a server that trained its attack
//! before secure aggregation still reads from sums is `experiments/secure.rs`.
//!
//! **Sum + central DP** ([`Sees::Dp`], issue 39 §3–4): DP-FedAvg over the same secure sum
//! ([`super::central_dp`] says how a person's two devices are one user): each round samples
//! people with probability q, both devices of a sampled person clip their change to C and
//! send it through the [`RoundSum`], the sum gets Gaussian noise (by a trusted aggregator, or
//! in shares by the devices), and the model moves by the noised sum over 2qN — no longer the
//! FedAvg aggregate, so this federation's model is not the other two's. The server's record is
//! again one sum a round and no update of any device; the visitor's ε is accounted every
//! round ([`FederationRun::central`]).

use super::central_dp::{self, CentralDp, CentralDpRecord, CentralState};
use super::config::LinkConfig;
use super::mitigation::Mitigator;
use super::model::{kept_range, model_spec};
use super::population::{Population, owner};
use crate::signal_map::attack::analytic;
use crate::signal_map::fl::{Federation, FlConfig};
use crate::signal_map::model::train::{LocalTraining, TrainError};
use crate::signal_map::model::{MlpSpec, Predictor};
use crate::signal_map::reference::References;
use crate::signal_map::trace::Dataset;
use whereabouts_core::fl::{LoggedUpdate, UpdateLog, aggregate};
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;
use whereabouts_core::secagg::{RoundSum, Sees};

/// The clip of one coordinate of a device's change Δ_k on its way into a round's sum: far above
/// what the lab's updates reach (at the defaults, seeds 1–7, the largest coordinate of any
/// update of a healthy federation was 213, most below 1; a federation whose phones diverge sends
/// far larger ones, which are clipped), so nothing is clipped in practice (the run counts what
/// is: [`FederationRun::clipped`]). With 120 devices in a round the quantisation step is then
/// 5.7·10⁻⁵ of a coordinate.
pub const UPDATE_CLIP: f64 = 1024.0;

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
    /// The L2 norm of each logged update over the whole model (not only the kept layers), in
    /// log order: what DP-FedAvg's clip reads (`experiments/secure.rs` clips logged updates).
    pub norms: Vec<f64>,
    /// Updates not sent because the phone's local training diverged (see [`Self::step`]).
    pub diverged_updates: usize,
    /// What the server receives of a round ([`LinkConfig::sees`]).
    pub sees: Sees,
    /// Only the sum: each round's sum of its devices' changes as the server unmasks it (a round
    /// nobody sent in has none); empty when the server sees every update.
    pub sums: Vec<RoundSum>,
    /// Only the sum: updates that went into the sums, and coordinates clipped on the way in.
    pub summed_updates: usize,
    pub clipped: usize,
    /// Sum + central DP: DP-FedAvg's settings, the visitor's accountant and the next clip after
    /// the last round, every round's record, and the changes the clip shortened.
    pub dp: CentralDp,
    pub central: Option<CentralState>,
    pub central_rounds: Vec<CentralDpRecord>,
    pub dp_clipped_updates: usize,
}

impl FederationRun {
    pub fn new(config: &LinkConfig, population: Population) -> Self {
        let spec = model_spec();
        let federation = Federation::new(
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
            norms: Vec::new(),
            diverged_updates: 0,
            sees: config.sees,
            sums: Vec::new(),
            summed_updates: 0,
            clipped: 0,
            dp: config.central_dp,
            central: None,
            central_rounds: Vec::new(),
            dp_clipped_updates: 0,
            population,
        }
    }

    /// Whether the devices' local SGD is candle's (the native reference the benchmark compares
    /// with) instead of the hand-written one.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn set_candle(&mut self, candle: bool) {
        self.federation.candle = candle;
    }

    pub fn mitigator(&self) -> &Mitigator {
        &self.mitigator
    }

    pub fn done(&self) -> bool {
        self.round >= self.rounds
    }

    /// Runs the next round: every participant trains, applies the mitigation and sends; the
    /// server logs each update (or, with only the sum, their sum) and aggregates.
    pub fn step(&mut self) -> Result<(), String> {
        if self.sees == Sees::Dp {
            return self.dp_step();
        }
        let t = self.round;
        let data = &self.population.dataset;
        let clients = self.population.clients();
        let mut sent: Vec<(usize, Vec<f32>)> = Vec::new();
        let mut changes: Vec<(u32, Vec<f32>)> = Vec::new();
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
            match self.sees {
                Sees::Updates => {
                    self.norms.push(
                        delta
                            .iter()
                            .map(|v| f64::from(*v).powi(2))
                            .sum::<f64>()
                            .sqrt(),
                    );
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
                }
                // (Sum + central DP runs its own round: `dp_step`.)
                Sees::Sum | Sees::Dp => changes.push((client, delta)),
            }
            sent.push((update.batch.len(), params));
        }
        if !changes.is_empty() {
            let fail = |e: &dyn std::fmt::Display| format!("round {t}: secure aggregation: {e}");
            let length = changes[0].1.len();
            let mut sum =
                RoundSum::new(changes.len(), UPDATE_CLIP, length).map_err(|e| fail(&e))?;
            for (client, delta) in &changes {
                let delta: Vec<f64> = delta.iter().map(|&v| f64::from(v)).collect();
                self.clipped += delta.iter().filter(|v| v.abs() > UPDATE_CLIP).count();
                sum.add(*client, &delta).map_err(|e| fail(&e))?;
            }
            self.summed_updates += changes.len();
            self.sums.push(sum);
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

    /// A round of DP-FedAvg ([`Sees::Dp`]; [`super::central_dp`]): the sampled people's devices
    /// train, apply the mitigation and send their clipped change (a zero one without data or
    /// after a diverged SGD) through the secure sum; the model moves by minus the noised
    /// average; the visitor's ε is accounted.
    fn dp_step(&mut self) -> Result<(), String> {
        let t = self.round;
        let data = &self.population.dataset;
        let people = self.population.people;
        let dp = self.dp;
        let clip = self.central.as_ref().map_or(dp.clip, |s| s.next_clip);
        let mut devices = central_dp::sample(&dp, people, t, self.seed);
        let sampled = devices.len();
        let dropped = dp.dropouts(&devices, t, self.seed);
        devices.retain(|c| !dropped.contains(c));
        let mut sent: Vec<(u32, Option<Vec<f32>>)> = Vec::with_capacity(devices.len());
        for client in devices {
            let update =
                match self
                    .federation
                    .local_update(data, client, t, &self.global, &self.mitigator)
                {
                    Ok(update) => update,
                    Err((_, TrainError::Diverged { .. })) => {
                        self.diverged_updates += 1;
                        None
                    }
                    Err((c, e)) => return Err(format!("round {t}, device {c}: {e}")),
                };
            let delta = update.map(|update| {
                let mut params = update.params;
                let mut stream =
                    Stream::new(self.seed, &format!("noise-round-{t}-client-{client}"));
                self.mitigator.noise(&mut params, &mut stream);
                self.global
                    .iter()
                    .zip(&params)
                    .map(|(b, a)| b - a)
                    .collect::<Vec<f32>>()
            });
            sent.push((client, delta));
        }
        let yours_sent = sent
            .iter()
            .filter(|(c, _)| owner(*c) == super::lab::YOU)
            .count();
        let length = self.global.len();
        let round = central_dp::round(&dp, clip, people, sampled, sent, length, t, self.seed)?;
        if let Some(sum) = round.sum.as_ref() {
            self.summed_updates += sum.clients();
        }
        self.clipped += round.clipped_coordinates;
        self.dp_clipped_updates += round.clipped;
        let state = central_dp::record(
            &dp,
            self.central.as_ref(),
            &round,
            clip,
            sampled,
            dropped.len(),
            yours_sent,
        )?;
        self.central_rounds.push(state.record.clone());
        self.central = Some(state);
        if let Some(sum) = round.sum {
            self.sums.push(sum);
        }
        let global: Vec<f32> = self
            .global
            .iter()
            .zip(&round.average)
            .map(|(w, d)| w - *d as f32)
            .collect();
        if global.iter().any(|v| !v.is_finite()) {
            return Err(format!(
                "the global model diverged in round {t}: lower the phones' learning rate"
            ));
        }
        self.global = global;
        self.round += 1;
        Ok(())
    }

    /// The kept layers of the update a client outside the federation would send in round `t`
    /// from the model `before`, trained on its data in `data` (a dataset on the population's
    /// plane) exactly as a device is: the same batch selection, local SGD and mitigation noise
    /// ([004] §4's T3, the adversary's crafted clients: `experiments/crafted.rs`). Nothing is
    /// logged or aggregated. `None`: no data that round, or its SGD diverged.
    pub fn outside_update(
        &self,
        data: &Dataset,
        client: u32,
        t: usize,
        before: &[f32],
    ) -> Result<Option<Vec<f32>>, String> {
        let update = match self
            .federation
            .local_update(data, client, t, before, &self.mitigator)
        {
            Ok(Some(update)) => update,
            Ok(None) | Err((_, TrainError::Diverged { .. })) => return Ok(None),
            Err((c, e)) => return Err(format!("round {t}, crafted client {c}: {e}")),
        };
        let mut params = update.params;
        let mut stream = Stream::new(self.seed, &format!("noise-round-{t}-client-{client}"));
        self.mitigator.noise(&mut params, &mut stream);
        Ok(Some(
            before[self.kept.clone()]
                .iter()
                .zip(&params[self.kept.clone()])
                .map(|(b, a)| b - a)
                .collect(),
        ))
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
