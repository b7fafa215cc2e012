//! The Signal-map lab's driver: the federation, the server's attacks and the metrics of a
//! signal-map run, computed incrementally so the browser stays live.
//!
//! - Work comes in small slices ([`Lab::work`] stops at a deadline), so the worker can read the
//!   visitor's next message between slices; a DLG attack is resumed where it stopped
//!   ([`DlgRun`](crate::signal_map::attack::dlg::DlgRun)).
//! - Rounds are computed only as far as the visitor has asked ([`Lab::want`]), in order: a
//!   round's attack finishes before the next round trains (Init::Previous needs it).
//! - Editing the trajectory ([`Lab::set_trajectory`]) keeps every round before the first one
//!   whose data changed (their checkpoints are still valid), retrains only the target in that
//!   round (the other participants' updates depend on w_{t−1} alone) and reports its instant
//!   Lemma 1 reconstruction at once; DLG and the later rounds follow in the background.
//!
//! This is the signal map's one round pipeline: the CLI's `run`, the studies and `reproduce`
//! drive it to completion ([`Lab::run`], [`Lab::finish`]); the browser's worker drives it in
//! slices. Its matrix test (`lab/matrix.rs`) pins the numbers of every kind of run.
//!
//! This file holds the lab's state, what it answers and its work loop; its parts are in
//! `lab/`: the run's setup (`setup.rs`), one round (`round.rs`), the round's attacks
//! (`attacks.rs`), the visitor's path edited live (`edit.rs`), what it reports (`events.rs`)
//! and the heat map (`heat_map.rs`).

use crate::signal_map::defence::dp::RdpAccountant;
use crate::signal_map::fl::Federation;
use crate::signal_map::model::Predictor;
use crate::signal_map::reference::{Measuring, References};
use crate::signal_map::scenario::{
    RoundRecord, ScenarioConfig, Summary, dp_budget_stop, summarize,
};
use crate::signal_map::trace::{Dataset, Sample};
use crate::signal_map::world::{Measurement, World};
use attacks::Attack;
use edit::LegKey;
use round::{LabRound, Rmse};
use whereabouts_core::driver::{Driver, Guess};
use whereabouts_core::rng::Stream;

mod attacks;
mod edit;
mod events;
mod heat_map;
mod malicious;
mod round;
mod setup;

pub use events::{LabEvent, STEP_POINTS, TRACE_POINTS, TargetRound, WorldView, thinned};
pub use heat_map::HeatMap;

/// An incremental run of one lab configuration.
pub struct Lab {
    config: ScenarioConfig,
    world: World,
    data: Dataset,
    federation: Federation,
    selector: Box<dyn crate::signal_map::fl::BatchSelector>,
    users: Vec<u32>,
    initial: Vec<f32>,
    total_rounds: usize,
    rounds: Vec<LabRound>,
    wanted: usize,
    /// Why the run ended early (a DP budget).
    stopped: Option<String>,
    /// Per leg of the current trajectory: what it depends on, and its measurements.
    leg_cache: Vec<(LegKey, Vec<Measurement>)>,
    /// Whether the clock given to [`work`](Self::work) is a real one (the attack's
    /// wall-clock time goes into the records only then).
    timed: bool,
}

impl Lab {
    /// The world (to start further labs in it without generating it again).
    pub fn world(&self) -> &World {
        &self.world
    }

    pub fn config(&self) -> &ScenarioConfig {
        &self.config
    }

    /// The data every participant trains on and the model is tested on.
    pub fn data(&self) -> &Dataset {
        &self.data
    }

    /// The federation's protocol, the users taking part and the model before round 0 (what a
    /// study that drives rounds of its own starts from: gradient disaggregation).
    pub fn federation(&self) -> &Federation {
        &self.federation
    }

    pub fn users(&self) -> &[u32] {
        &self.users
    }

    pub fn initial(&self) -> &[f32] {
        &self.initial
    }

    pub fn total_rounds(&self) -> usize {
        self.total_rounds
    }

    pub fn parameters(&self) -> usize {
        self.federation.spec.parameter_count()
    }

    pub fn world_view(&self) -> WorldView {
        WorldView {
            origin: self.world.config.origin,
            area: self.world.area(),
            towers: self.world.towers.iter().map(|t| t.position).collect(),
            cell: self.world.config.cell,
            users: self.world.users.len(),
            start_unix: self.data.t0,
            round_s: self.data.round_s,
            trace: match &self.config.imported {
                Some(_) => {
                    let mine = self.data.user_data(self.config.target);
                    let step = mine.len().div_ceil(TRACE_POINTS).max(1);
                    mine.iter().step_by(step).map(|s| s.pos).collect()
                }
                None => Vec::new(),
            },
        }
    }

    /// Test RMSE of the initial model, dB.
    pub fn initial_rmse_db(&self) -> f64 {
        rmse(&self.federation, &self.initial, &self.data.test)
    }

    /// Compute rounds 0..`rounds` (capped at the run's length).
    pub fn want(&mut self, rounds: usize) {
        self.wanted = rounds.min(self.total_rounds);
    }

    /// The target's privacy loss after the rounds trained so far.
    fn spent(&self) -> RdpAccountant {
        self.rounds.last().map(|r| r.spent).unwrap_or_default()
    }

    /// Under central DP, the visitor's accounting after the last round (`None` before the
    /// first) and the clip of the next round.
    fn central_before(&self) -> (Option<&super::central_dp::CentralState>, f64) {
        let before = self.rounds.last().and_then(|r| r.central.as_ref());
        let clip = before.map_or(self.config.central_dp.map_or(0.0, |dp| dp.clip), |c| {
            c.next_clip
        });
        (before, clip)
    }

    /// Rounds trained so far.
    pub fn trained(&self) -> usize {
        self.rounds.len()
    }

    /// True while some wanted round is not fully trained, attacked and evaluated.
    pub fn busy(&self) -> bool {
        self.rounds.len() < self.wanted || self.incomplete().is_some()
    }

    /// The first trained round still being attacked or evaluated (at most one: rounds are
    /// completed in order).
    fn incomplete(&self) -> Option<usize> {
        self.rounds.iter().position(|r| !r.complete())
    }

    /// Finished round records, in round order.
    pub fn records(&self) -> Vec<RoundRecord> {
        self.rounds
            .iter()
            .filter_map(|r| match &r.attack {
                Some(Attack::Done(record)) => Some((**record).clone()),
                _ => None,
            })
            .collect()
    }

    /// The final global model's RMSE on the training data of every round it trained on, dB
    /// ([000] App. A.3, Fig. 23: "Test on Previous Data", against forgetting); `None` before a
    /// round has trained.
    pub fn past_rmse(&self) -> Option<f64> {
        let last = self.rounds.last()?;
        let end = self.rounds.len();
        let past: Vec<_> = self
            .data
            .train
            .iter()
            .filter(|s| self.users.contains(&s.user) && self.data.round_of(s.time) < end)
            .copied()
            .collect();
        Some(crate::signal_map::reference::test_rmse(
            &self.federation.spec,
            &last.after,
            &past,
        ))
        .filter(|r| r.is_finite())
    }

    /// The RMSE references on this run's data — every user's training data pooled, scored on
    /// the run's test set (the mean predictor, the centralised model; see [`References`]) —
    /// from a fresh model whose output bias starts at the mean label. Not cached: it trains a
    /// model, so callers ask once per run.
    pub fn references(&self) -> References {
        self.measure_references()
            .finish(&self.federation.spec, &self.data.train, &self.data.test)
    }

    /// The references' measurement, to advance with [`Lab::advance_references`] a few steps at
    /// a time (the worker's slices); run to the end, [`Lab::references`].
    pub fn measure_references(&self) -> Measuring {
        Measuring::of_fresh_model(
            &self.federation.spec,
            &self.data.train,
            &self.data.test,
            &mut Stream::new(self.config.seed, "model-init"),
            self.config.seed,
        )
    }

    /// Up to `steps` more steps of `measuring` (begun by this lab's
    /// [`Lab::measure_references`]); the references once done.
    pub fn advance_references(
        &self,
        measuring: &mut Measuring,
        steps: usize,
    ) -> Option<References> {
        measuring.advance(
            &self.federation.spec,
            &self.data.train,
            &self.data.test,
            steps,
        )
    }

    pub fn summary(&self) -> Summary {
        let done = self.rounds.iter().take_while(|r| r.complete()).count();
        let mut summary = summarize(
            &self.config,
            &self.data,
            self.world.area(),
            &self.records(),
            done,
        );
        summary.stopped = self.stopped.clone();
        if let Some(dp) = &self.config.central_dp {
            // The model after the last round run, whether or not you were sampled in it.
            if let Some(Rmse::Done(r)) = self.rounds[..done].last().map(|r| &r.rmse) {
                summary.final_rmse_db = Some(*r);
            }
            summary.central_dp = self.rounds[..done]
                .last()
                .and_then(|r| r.central.as_ref())
                .map(|c| Box::new(c.summary(dp, done)));
        }
        summary
    }

    /// Does the next piece of wanted work until `now()` passes `deadline` (milliseconds).
    /// Returns true if work remains.
    pub fn work(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(LabEvent),
    ) -> Result<bool, String> {
        loop {
            if !self.busy() {
                return Ok(false);
            }
            if now() >= deadline {
                return Ok(true);
            }
            if let Some(t) = self.incomplete() {
                self.complete_round(t, now, deadline, emit);
            } else if let Some(why) = dp_budget_stop(
                &self.config,
                &self.spent(),
                self.rounds.len(),
                self.data
                    .local_data(
                        self.config.target,
                        self.rounds.len(),
                        self.config.fl.cumulative,
                    )
                    .len(),
            ) {
                self.stopped = Some(why);
                self.total_rounds = self.rounds.len();
                self.wanted = self.wanted.min(self.total_rounds);
            } else {
                self.train_round(self.rounds.len(), None, emit)?;
            }
        }
    }

    /// Runs every wanted round to the end, untimed (tests, studies).
    pub fn finish(&mut self, emit: &mut dyn FnMut(LabEvent)) -> Result<(), String> {
        self.timed = false;
        let result = self.work(&|| 0.0, f64::INFINITY, emit).map(|_| ());
        self.timed = true;
        result
    }

    /// The whole run, as the CLI reports it: `Started`, every round's events, `Finished`.
    /// `clock` (milliseconds) times each attack if given.
    pub fn run(
        &mut self,
        clock: Option<&dyn Fn() -> f64>,
        emit: &mut dyn FnMut(LabEvent),
    ) -> Result<Summary, String> {
        emit(LabEvent::Started {
            rounds: self.total_rounds,
            users: self.users.len(),
            train_points: self.data.train.len(),
            test_points: self.data.test.len(),
            parameters: self.parameters(),
            initial_rmse_db: self.initial_rmse_db(),
        });
        self.want(usize::MAX);
        match clock {
            Some(now) => {
                self.work(now, f64::INFINITY, emit)?;
            }
            None => self.finish(emit)?,
        }
        let summary = self.summary();
        emit(LabEvent::Finished(summary.clone()));
        Ok(summary)
    }
}

/// The Signal-map lab as every lab's engine is driven (the worker, studies, the CLI).
impl Driver for Lab {
    type Config = ScenarioConfig;
    type Event = LabEvent;
    type Summary = Summary;

    fn start(config: ScenarioConfig) -> Result<Self, String> {
        Lab::new(config)
    }

    fn work(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(LabEvent),
    ) -> Result<bool, String> {
        Lab::work(self, now, deadline, emit)
    }

    fn summary(&self) -> Summary {
        Lab::summary(self)
    }

    /// Each attacked round's DLG and Lemma 1 reconstructions against its true centroid.
    fn guesses(&self) -> Vec<Guess> {
        let target = self.config.target;
        let mut out = Vec::new();
        for r in self.records() {
            let truth = r.true_centroid.position;
            if let Some(d) = &r.dlg {
                out.push(Guess {
                    round: r.round,
                    user: target,
                    attack: "dlg".into(),
                    truth,
                    guess: d.reconstruction.position,
                    diverged: d.result.diverged,
                });
            }
            if let Some(a) = &r.analytic {
                out.push(Guess {
                    round: r.round,
                    user: target,
                    attack: "lemma1".into(),
                    truth,
                    guess: a.position,
                    diverged: false,
                });
            }
        }
        out
    }

    fn finish(&mut self, emit: &mut dyn FnMut(LabEvent)) -> Result<(), String> {
        Lab::finish(self, emit)
    }
}

fn rmse(federation: &Federation, params: &[f32], test: &[Sample]) -> f64 {
    let mut predictor = Predictor::new(&federation.spec);
    whereabouts_core::metrics::rmse(
        test.iter()
            .map(|s| (f64::from(predictor.predict(params, s.x)), f64::from(s.y))),
    )
    .unwrap_or(f64::NAN)
}

#[cfg(test)]
mod central_dp_tests;
#[cfg(test)]
mod malicious_tests;
#[cfg(test)]
mod matrix;
#[cfg(test)]
mod secure_tests;
#[cfg(test)]
mod tests;
