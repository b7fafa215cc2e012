//! The Signal-map lab's driver: the federation, the server's attacks and the metrics of a
//! signal-map run, computed incrementally so the browser stays live.
//!
//! - Work comes in small slices ([`Lab::work`] stops at a deadline), so the worker can read the
//!   visitor's next message between slices; a DLG attack is resumed where it stopped
//!   ([`DlgRun`]).
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

use crate::signal_map::attack::analytic;
use crate::signal_map::attack::dlg::DlgRun;
use crate::signal_map::attack::fedavg::FedAvgRun;
use crate::signal_map::attack::objective::Objective;
use crate::signal_map::attack::unroll::Unrolled;
use crate::signal_map::defence::dp::RdpAccountant;
use crate::signal_map::fl::{Federation, Update};
use crate::signal_map::model::Predictor;
use crate::signal_map::reference::{Measuring, References};
use crate::signal_map::scenario::{
    AttackInputs, DlgOutcome, FedAvgOutcome, OutputBias, RoundRecord, ScenarioConfig, Summary,
    dp_budget_stop, summarize,
};
use crate::signal_map::trace::{Dataset, Sample};
use crate::signal_map::trajectory::Trajectory;
use crate::signal_map::warm_start::WarmCache;
use crate::signal_map::world::{Measurement, World};
use serde::{Deserialize, Serialize};
use whereabouts_core::driver::{Driver, Guess};
use whereabouts_core::geo::{LatLon, Metres};
use whereabouts_core::rng::Stream;

/// What the map needs to know about the world.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorldView {
    pub origin: LatLon,
    /// (south-west, north-east) corners of the area of interest, plane metres.
    pub area: (Metres, Metres),
    pub towers: Vec<Metres>,
    /// Index of the learned cell in `towers`.
    pub cell: usize,
    pub users: usize,
    pub start_unix: f64,
    pub round_s: f64,
    /// The visitor's imported fixes in time order (at most [`TRACE_POINTS`], evenly thinned),
    /// for the map before any round is trained; empty for a drawn trajectory.
    #[serde(default)]
    pub trace: Vec<Metres>,
}

/// The most points of an imported trace sent for drawing.
pub const TRACE_POINTS: usize = 5000;

/// The global model's predicted RSRP on a grid over the area (row 0 = north).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeatMap {
    pub round: Option<usize>,
    pub cols: usize,
    pub rows: usize,
    pub values_dbm: Vec<f32>,
}

/// What the lab reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum LabEvent {
    /// A whole run begins ([`Lab::run`] only; the browser gets the world instead).
    Started {
        rounds: usize,
        users: usize,
        train_points: usize,
        test_points: usize,
        parameters: usize,
        initial_rmse_db: f64,
    },
    /// The trajectory changed: rounds from `first_changed` on are being recomputed.
    Edited {
        first_changed: usize,
        total_rounds: usize,
    },
    /// Round `round` is trained. `target` is present when the visitor took part. (The test
    /// RMSE comes with the final record: it is evaluated after the attack, off the critical
    /// path of an edit.)
    Trained {
        round: usize,
        participants: Vec<u32>,
        target: Option<TargetRound>,
        /// Why the target sent no update this round (`target` is `None`), in words for the page.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        absent: Option<String>,
    },
    /// DLG positions since the last report for `round`.
    Progress {
        round: usize,
        iteration: usize,
        trail: Vec<Metres>,
    },
    /// DLG has finished on the round (its final record follows once the model is evaluated).
    Reconstructed { round: usize, dlg: Box<DlgOutcome> },
    /// The FedAvg-aware attack's state since the last report for `round`: its round estimate
    /// and every dummy (at most [`STEP_POINTS`], evenly thinned).
    Simulated {
        round: usize,
        iteration: usize,
        estimate: Metres,
        dummies: Vec<Metres>,
    },
    /// The round is complete: attacks and the model's test RMSE.
    Attacked(Box<RoundRecord>),
    /// A whole run is over ([`Lab::run`] only).
    Finished(Summary),
}

/// The target's side of a trained round: its data and the instant reconstruction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TargetRound {
    /// Positions of D_t (the round's measurements), plane metres.
    pub points: Vec<Metres>,
    pub truth: Metres,
    pub analytic: Option<Metres>,
    /// DLG's starting point, when DLG runs.
    pub dlg_start: Option<Metres>,
    /// Under FedAvg, the centroid of each local step's mini-batch (at most [`STEP_POINTS`],
    /// evenly thinned): the update sums their gradients, so the server's one reconstruction
    /// blurs them (Insight I3). Empty for a single step (FedSGD).
    #[serde(default)]
    pub steps: Vec<Metres>,
}

/// The most mini-batch centroids reported per round.
pub const STEP_POINTS: usize = 400;

/// At most [`STEP_POINTS`] of `points`, evenly thinned (what a round reports of its local
/// steps).
pub fn thinned(points: &[Metres]) -> Vec<Metres> {
    let every = points.len().div_ceil(STEP_POINTS).max(1);
    points.iter().step_by(every).copied().collect()
}

/// A round's attacks: DLG, then (when the server runs it) the FedAvg-aware attack, then the
/// record once the model's RMSE is in.
enum Attack {
    Running {
        inputs: Box<AttackInputs>,
        run: Box<DlgRun>,
        steps: usize,
        millis: f64,
    },
    Simulating {
        inputs: Box<AttackInputs>,
        dlg: Option<Box<DlgOutcome>>,
        objective: Box<Unrolled>,
        run: Box<FedAvgRun>,
        millis: f64,
    },
    /// Attacks done; the record waits for the RMSE.
    Reconstructed {
        inputs: Box<AttackInputs>,
        dlg: Option<Box<DlgOutcome>>,
        fedavg: Option<Result<Box<FedAvgOutcome>, String>>,
    },
    Done(Box<RoundRecord>),
}

/// The global model's test RMSE, evaluated a slice at a time (the same sum, in the same
/// order, as [`whereabouts_core::metrics::rmse`]).
enum Rmse {
    Pending { next: usize, sum: f64 },
    Done(f64),
}

struct LabRound {
    before: Vec<f32>,
    after: Vec<f32>,
    updates: Vec<Update>,
    /// Under local DP, the target's privacy loss after this round (kept per round, so an edit
    /// that drops later rounds drops their releases too).
    spent: RdpAccountant,
    rmse: Rmse,
    attack: Option<Attack>,
}

impl LabRound {
    fn complete(&self) -> bool {
        matches!(self.rmse, Rmse::Done(_)) && matches!(self.attack, None | Some(Attack::Done(_)))
    }
}

/// What a leg's measurements depend on: its end points, leg time and fix interval.
type LegKey = (Metres, Metres, f64, f64);

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

/// DLG iterations between two looks at the clock.
const SLICE_ITERATIONS: usize = 16;
/// Test points evaluated between two looks at the clock.
const RMSE_CHUNK: usize = 256;

impl Lab {
    /// A lab for `config`. The target is the visitor when the config carries a drawn
    /// trajectory or imported data, otherwise a synthetic user with its own routine.
    pub fn new(config: ScenarioConfig) -> Result<Self, String> {
        config.validate().map_err(|e| e.to_string())?;
        let world = World::generate(&config.world_config()).map_err(|e| e.to_string())?;
        Self::with_world(config, world)
    }

    /// [`new`](Self::new) in a world already generated for this config (it must be
    /// `World::generate(&config.world_config())`; studies reuse one world for many runs).
    pub fn with_world(config: ScenarioConfig, world: World) -> Result<Self, String> {
        Self::with_world_cached(config, world, &mut WarmCache::default())
    }

    /// [`new`](Self::new), taking a warm start from `cache` if it holds this config's.
    pub fn new_cached(config: ScenarioConfig, cache: &mut WarmCache) -> Result<Self, String> {
        config.validate().map_err(|e| e.to_string())?;
        let world = World::generate(&config.world_config()).map_err(|e| e.to_string())?;
        Self::with_world_cached(config, world, cache)
    }

    /// [`with_world`](Self::with_world), taking a warm start from `cache` if it holds this
    /// config's (and leaving it there).
    pub fn with_world_cached(
        config: ScenarioConfig,
        world: World,
        cache: &mut WarmCache,
    ) -> Result<Self, String> {
        config.validate().map_err(|e| e.to_string())?;
        if world.config != config.world_config() {
            return Err("internal: the world does not belong to this config".into());
        }
        let mut data = Dataset::new(
            &world.measurements,
            world.projection,
            config.round_length,
            config.test_fraction,
            config.seed,
        )
        .map_err(|e| e.to_string())?;
        let users: Vec<u32> = match &config.participants {
            Some(list) => list.clone(),
            None => world.users.iter().map(|u| u.id).collect(),
        };
        if let Some(bad) = users
            .iter()
            .chain(std::iter::once(&config.target))
            .find(|&&u| u as usize >= world.users.len())
        {
            return Err(format!(
                "participants/target: user {bad} does not exist (the world has users 0–{})",
                world.users.len() - 1
            ));
        }
        if !users.contains(&config.target) {
            return Err(format!(
                "target: user {} is not among the participants {users:?}",
                config.target
            ));
        }
        let spec = config.model.spec();
        // The output bias starts from the world's labels, before the visitor's data replaces
        // the target's routine.
        let bias = match config.output_bias {
            OutputBias::Zero => 0.0,
            OutputBias::MeanLabel => data.mean_label(),
        };
        let mut initial = spec.init(bias, &mut Stream::new(config.seed, "model-init"));
        if let Some(warm) = &config.warm_start {
            // Everything the warm-up depends on (the other users' data: the world, the seed's
            // test split; the model and its start).
            let key = serde_json::to_string(&(
                world.config.clone(),
                config.seed,
                config.test_fraction,
                &config.model,
                config.output_bias,
                warm,
                config.target,
            ))
            .map_err(|e| format!("internal: {e}"))?;
            initial = cache.get_or_train(key, || {
                warm.train(&spec, &initial, &data, config.target, config.seed)
            })?;
        }
        let mut rounds = data.rounds();
        let mut leg_cache = Vec::new();
        if let Some(trajectory) = &config.trajectory {
            trajectory
                .validate(world.area())
                .map_err(|e| e.to_string())?;
            let measurements;
            (measurements, leg_cache) =
                measure_legs(trajectory, &world, config.target, config.seed, &[]);
            data.replace_user(config.target, &measurements);
            let last = measurements.last().map_or(data.t0, |m| m.time);
            rounds = data.round_of(last) + 1;
        }
        if let Some(trace) = &config.imported {
            let placement = trace.placement()?;
            let measurements = placement.measurements(&world, config.target, config.seed);
            data.replace_user(config.target, &measurements);
            if trace.has_signal() {
                data.hold_out_user(config.target, config.test_fraction, config.seed);
            }
            let last = measurements.last().map_or(data.t0, |m| m.time);
            rounds = data.round_of(last) + 1;
        }
        let total_rounds = config.max_rounds.map_or(rounds, |m| m.min(rounds));
        let mut federation = Federation::new(spec, config.fl.clone(), config.seed);
        federation.dp = config.defence.dp();
        let selector = config.defence.selector(data.standardizer);
        Ok(Self {
            config,
            world,
            data,
            federation,
            selector,
            users,
            initial,
            total_rounds,
            rounds: Vec::new(),
            wanted: 0,
            stopped: None,
            leg_cache,
            timed: true,
        })
    }

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
        summary
    }

    /// Replaces the visitor's trajectory. Returns the first round whose data changed (`None`
    /// if nothing did). If that round was already trained, its target update is retrained now
    /// and reported (with Lemma 1's reconstruction) before this returns; later rounds are
    /// dropped and recomputed by [`work`](Self::work).
    pub fn set_trajectory(
        &mut self,
        trajectory: Trajectory,
        emit: &mut dyn FnMut(LabEvent),
    ) -> Result<Option<usize>, String> {
        if self.config.imported.is_some() {
            return Err("the visitor's data is an imported file; forget it to draw a path".into());
        }
        trajectory
            .validate(self.world.area())
            .map_err(|e| e.to_string())?;
        let target = self.config.target;
        let measurements;
        (measurements, self.leg_cache) = measure_legs(
            &trajectory,
            &self.world,
            target,
            self.config.seed,
            &self.leg_cache,
        );
        let old: Vec<Sample> = self.data.user_data(target).to_vec();
        self.data.replace_user(target, &measurements);
        let last = measurements.last().map_or(self.data.t0, |m| m.time);
        let rounds = self.data.round_of(last) + 1;
        let old_total = self.total_rounds;
        self.total_rounds = self.config.max_rounds.map_or(rounds, |m| m.min(rounds));
        self.config.trajectory = Some(trajectory);
        // The first round whose D_t changed: that of the first sample that differs (online or
        // cumulative alike, since rounds are contiguous in time).
        let new = self.data.user_data(target);
        let differs = old
            .iter()
            .zip(new)
            .position(|(a, b)| a != b)
            .or_else(|| (old.len() != new.len()).then_some(old.len().min(new.len())));
        let first = differs.map(|i| {
            let time = match (old.get(i), new.get(i)) {
                (Some(a), Some(b)) => a.time.min(b.time),
                (Some(a), None) => a.time,
                (None, Some(b)) => b.time,
                (None, None) => unreachable!("i is within one of them"),
            };
            self.data.round_of(time)
        });
        let Some(first) = first.or_else(|| {
            (old_total != self.total_rounds).then_some(old_total.min(self.total_rounds))
        }) else {
            return Ok(None);
        };
        emit(LabEvent::Edited {
            first_changed: first,
            total_rounds: self.total_rounds,
        });
        self.wanted = self.wanted.min(self.total_rounds);
        if first < self.rounds.len() {
            let old_round = self.rounds.swap_remove(first);
            self.rounds.truncate(first);
            if first < self.total_rounds {
                self.train_round(first, Some(old_round), emit)?;
            }
        }
        Ok(Some(first))
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

    /// Why the target sent no update in round `t`.
    fn absent_because(&self, t: usize, participants: &[u32]) -> String {
        let me = self.config.target;
        // The server picks among the users with data, so "no fixes" comes first.
        if self
            .data
            .local_data(me, t, self.federation.config.cumulative)
            .is_empty()
        {
            "you have no fixes in this round".into()
        } else if !participants.contains(&me) {
            "the server did not pick you this round (fraction of users C < 1)".into()
        } else {
            "the defence chose none of your fixes to train on, so your phone sent no update".into()
        }
    }

    /// Trains round `t` (all earlier rounds trained). `reuse`: the round as it was before an
    /// edit of the target's data, whose other participants' updates are still valid.
    fn train_round(
        &mut self,
        t: usize,
        reuse: Option<LabRound>,
        emit: &mut dyn FnMut(LabEvent),
    ) -> Result<(), String> {
        let before = self
            .rounds
            .last()
            .map_or_else(|| self.initial.clone(), |r| r.after.clone());
        let participants = self.federation.participants(&self.data, &self.users, t);
        let mut updates = Vec::with_capacity(participants.len());
        for &user in &participants {
            let kept = reuse.as_ref().and_then(|r| {
                (user != self.config.target)
                    .then(|| r.updates.iter().find(|u| u.user == user))
                    .flatten()
            });
            let update = match kept {
                Some(u) => Some(u.clone()),
                None => self
                    .federation
                    .local_update(&self.data, user, t, &before, self.selector.as_ref())
                    .map_err(|(user, e)| format!("round {t}, user {user}: {e}"))?,
            };
            updates.extend(update);
        }
        let after = Federation::aggregate(&updates).unwrap_or_else(|| before.clone());
        let previous = self.previous_reconstruction();
        let target = updates.iter().find(|u| u.user == self.config.target);
        let mut spent = self.spent();
        if let (Some(dp), Some(u)) = (self.config.defence.dp(), target) {
            dp.spend(
                &mut spent,
                dp.releases(u.batch.len(), &self.config.fl.local),
            );
        }
        let inputs = target.map(|u| {
            AttackInputs::new(
                &self.config,
                &self.federation.spec,
                &self.data,
                self.world.area(),
                t,
                &before,
                u,
                previous,
            )
        });
        let absent = target
            .is_none()
            .then(|| self.absent_because(t, &participants));
        emit(LabEvent::Trained {
            round: t,
            absent,
            participants: updates.iter().map(|u| u.user).collect(),
            target: inputs.as_ref().zip(target).map(|(i, u)| TargetRound {
                points: u.round_data.iter().map(|s| s.pos).collect(),
                truth: i.truth,
                analytic: i.analytic,
                dlg_start: i.start,
                steps: thinned(&i.steps),
            }),
        });
        let attack = match (inputs, target) {
            (Some(inputs), Some(update)) => Some(match inputs.start {
                Some(start) => {
                    let mut objective = Objective::new(
                        &self.federation.spec,
                        &inputs.weights,
                        &inputs.g_obs,
                        update.steps,
                    );
                    let run = DlgRun::new(
                        &mut objective,
                        &self.config.attack.settings,
                        &self.data.standardizer,
                        start,
                        self.data.mean_label(),
                    );
                    Attack::Running {
                        inputs: Box::new(inputs),
                        run: Box::new(run),
                        steps: update.steps,
                        millis: 0.0,
                    }
                }
                None => self.after_dlg(Box::new(inputs), None, &before, update),
            }),
            _ => None,
        };
        self.rounds.push(LabRound {
            before,
            after,
            updates,
            spent,
            rmse: Rmse::Pending { next: 0, sum: 0.0 },
            attack,
        });
        Ok(())
    }

    /// What follows DLG on a round: the FedAvg-aware attack when the server runs it, else the
    /// wait for the RMSE.
    fn after_dlg(
        &self,
        inputs: Box<AttackInputs>,
        dlg: Option<Box<DlgOutcome>>,
        before: &[f32],
        update: &crate::signal_map::fl::Update,
    ) -> Attack {
        match inputs.fedavg(
            &self.config,
            &self.federation.spec,
            &self.data,
            before,
            update,
        ) {
            Some(Ok((objective, run))) => Attack::Simulating {
                inputs,
                dlg,
                objective: Box::new(objective),
                run: Box::new(run),
                millis: 0.0,
            },
            Some(Err(why)) => Attack::Reconstructed {
                inputs,
                dlg,
                fedavg: Some(Err(why)),
            },
            None => Attack::Reconstructed {
                inputs,
                dlg,
                fedavg: None,
            },
        }
    }

    /// Advances round `t` towards complete: its DLG attack first (the reconstruction the
    /// visitor waits for), then the FedAvg-aware attack if the server runs it, then the
    /// model's test RMSE, then the final record.
    fn complete_round(
        &mut self,
        t: usize,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(LabEvent),
    ) {
        if matches!(self.rounds[t].attack, Some(Attack::Running { .. })) {
            self.advance_attack(t, now, deadline, emit);
            return;
        }
        if matches!(self.rounds[t].attack, Some(Attack::Simulating { .. })) {
            self.advance_fedavg(t, now, deadline, emit);
            return;
        }
        let round = &mut self.rounds[t];
        if let Rmse::Pending { next, sum } = &mut round.rmse {
            let test = &self.data.test;
            let params = &round.after;
            let end = (*next + RMSE_CHUNK).min(test.len());
            let mut predictor = Predictor::new(&self.federation.spec);
            for s in &test[*next..end] {
                let p = f64::from(predictor.predict(params, s.x));
                *sum += (p - f64::from(s.y)).powi(2);
            }
            *next = end;
            if end == test.len() {
                let value = if test.is_empty() {
                    f64::NAN
                } else {
                    libm::sqrt(*sum / test.len() as f64)
                };
                round.rmse = Rmse::Done(value);
            }
            return;
        }
        let Rmse::Done(rmse_db) = self.rounds[t].rmse else {
            return;
        };
        if let Some(Attack::Reconstructed {
            inputs,
            dlg,
            fedavg,
        }) = self.rounds[t].attack.take()
        {
            let round = &self.rounds[t];
            let record = self.record(
                &inputs,
                &round.before,
                &round.updates,
                (dlg.map(|d| *d), fedavg.map(|f| f.map(|o| *o))),
                rmse_db,
            );
            emit(LabEvent::Attacked(Box::new(record.clone())));
            self.rounds[t].attack = Some(Attack::Done(Box::new(record)));
        }
    }

    fn advance_attack(
        &mut self,
        t: usize,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(LabEvent),
    ) {
        let area = self.world.area();
        let round = &mut self.rounds[t];
        let Some(Attack::Running {
            inputs,
            run,
            steps,
            millis,
        }) = round.attack.as_mut()
        else {
            return;
        };
        let settings = &self.config.attack.settings;
        let mut objective = Objective::new(
            &self.federation.spec,
            &inputs.weights,
            &inputs.g_obs,
            *steps,
        );
        let mut trail = Vec::new();
        let mut iteration = run.iterations();
        loop {
            let began = now();
            let finished = run.advance(
                &mut objective,
                settings,
                &self.data.standardizer,
                SLICE_ITERATIONS,
                &mut |it, p, _| {
                    iteration = it;
                    trail.push(p);
                },
            );
            *millis += now() - began;
            if finished || now() >= deadline {
                break;
            }
        }
        if !trail.is_empty() {
            emit(LabEvent::Progress {
                round: t,
                iteration,
                trail,
            });
        }
        if !run.is_finished() {
            return;
        }
        let Some(Attack::Running {
            inputs,
            run,
            millis,
            ..
        }) = round.attack.take()
        else {
            unreachable!("matched above")
        };
        let millis = Some(millis).filter(|_| self.timed);
        let outcome = inputs.outcome(&self.data, run.finish(area), millis);
        emit(LabEvent::Reconstructed {
            round: t,
            dlg: Box::new(outcome.clone()),
        });
        let round = &self.rounds[t];
        let update = round
            .updates
            .iter()
            .find(|u| u.user == self.config.target)
            .expect("the target took part");
        let next = self.after_dlg(inputs, Some(Box::new(outcome)), &round.before, update);
        self.rounds[t].attack = Some(next);
    }

    /// [`advance_attack`](Self::advance_attack) for the FedAvg-aware attack.
    fn advance_fedavg(
        &mut self,
        t: usize,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(LabEvent),
    ) {
        let area = self.world.area();
        let std = &self.data.standardizer;
        let Some(settings) = self.config.attack.fedavg.as_ref() else {
            return;
        };
        let Some(Attack::Simulating {
            objective,
            run,
            millis,
            ..
        }) = self.rounds[t].attack.as_mut()
        else {
            return;
        };
        let start = run.iterations();
        loop {
            let began = now();
            // One iteration costs K simulated steps: look at the clock after each.
            let finished = run.advance(objective, settings, std, 1, &mut |_, _, _| {});
            *millis += now() - began;
            if finished || now() >= deadline {
                break;
            }
        }
        // Reported at the trail's pace, and at the end.
        let every = settings.trail_every.max(1);
        if run.iterations() > start
            && (run.is_finished() || run.iterations() / every > start / every)
        {
            emit(LabEvent::Simulated {
                round: t,
                iteration: run.iterations(),
                estimate: run.estimate(std),
                dummies: thinned(&run.dummies(std)),
            });
        }
        if !run.is_finished() {
            return;
        }
        let Some(Attack::Simulating {
            inputs,
            dlg,
            mut objective,
            run,
            millis,
        }) = self.rounds[t].attack.take()
        else {
            unreachable!("matched above")
        };
        let millis = Some(millis).filter(|_| self.timed);
        let result = run.finish(&mut objective, std, area);
        let outcome = inputs.fedavg_outcome(&self.data, result, millis);
        self.rounds[t].attack = Some(Attack::Reconstructed {
            inputs,
            dlg,
            fedavg: Some(Ok(Box::new(outcome))),
        });
    }

    fn record(
        &self,
        inputs: &AttackInputs,
        before: &[f32],
        updates: &[Update],
        attacks: (Option<DlgOutcome>, Option<Result<FedAvgOutcome, String>>),
        rmse_db: f64,
    ) -> RoundRecord {
        let update = updates
            .iter()
            .find(|u| u.user == self.config.target)
            .expect("the target took part");
        let bounds = if self.config.attack.bounds {
            let mut s = Stream::new(self.config.seed, &format!("bounds-{}", inputs.round));
            analytic::bounds(
                &self.federation.spec,
                before,
                &update.batch,
                &self.data.standardizer,
                &mut s,
            )
        } else {
            None
        };
        let mut record = inputs.record(
            &self.data,
            updates.iter().map(|u| u.user).collect(),
            update,
            attacks,
            bounds,
            rmse_db,
        );
        if let Some(dp) = self.config.defence.dp() {
            let spent = &self.rounds[inputs.round].spent;
            record.dp_epsilon = Some(spent.epsilon(dp.delta));
            record.dp_releases = Some(spent.releases());
        }
        record
    }

    /// The last non-diverged DLG reconstruction (Init::Previous).
    fn previous_reconstruction(&self) -> Option<Metres> {
        self.rounds.iter().rev().find_map(|r| match &r.attack {
            Some(Attack::Done(record)) => record
                .dlg
                .as_ref()
                .filter(|d| !d.result.diverged)
                .map(|d| d.reconstruction.position),
            _ => None,
        })
    }

    /// The global model's prediction over the area after round `round` (`None`: the initial
    /// model), on a grid of about `cells` cells shaped like the area.
    pub fn heat_map(&self, round: Option<usize>, cells: usize) -> Option<HeatMap> {
        let params = match round {
            None => &self.initial,
            Some(t) => &self.rounds.get(t)?.after,
        };
        let (lo, hi) = self.world.area();
        let (w, h) = (hi.east - lo.east, hi.north - lo.north);
        let cols = ((cells.max(4) as f64 * w / h).sqrt().round() as usize).clamp(2, 256);
        let rows = (cells.max(4) / cols).clamp(2, 256);
        let mut values_dbm = Vec::with_capacity(cols * rows);
        let mut predictor = Predictor::new(&self.federation.spec);
        for r in 0..rows {
            for c in 0..cols {
                let p = Metres::new(
                    lo.east + (c as f64 + 0.5) * w / cols as f64,
                    hi.north - (r as f64 + 0.5) * h / rows as f64,
                );
                let x = self.data.standardizer.to_input(p);
                values_dbm.push(predictor.predict(params, x));
            }
        }
        Some(HeatMap {
            round,
            cols,
            rows,
            values_dbm,
        })
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

/// The measurements of a drawn path, leg by leg, and the cache for the next edit: legs whose
/// end points and timing are those of `cache` keep their measurements.
fn measure_legs(
    trajectory: &Trajectory,
    world: &World,
    target: u32,
    seed: u64,
    cache: &[(LegKey, Vec<Measurement>)],
) -> (Vec<Measurement>, Vec<(LegKey, Vec<Measurement>)>) {
    let mut measurements = Vec::new();
    let mut legs = Vec::with_capacity(trajectory.legs());
    for k in 0..trajectory.legs() {
        let key = trajectory.leg_key(k);
        let leg = match cache.get(k) {
            Some((old_key, leg)) if *old_key == key => leg.clone(),
            _ => trajectory.leg_measurements(world, target, seed, k),
        };
        measurements.extend_from_slice(&leg);
        legs.push((key, leg));
    }
    (measurements, legs)
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
mod matrix;
#[cfg(test)]
mod tests;
