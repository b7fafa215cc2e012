//! The Linkability lab on the [`Driver`]: the federation round by round, then the chosen attack
//! (the MLP one mini-batch at a time), then the figures the page shows. The visitor is person 0
//! ("you"); the attacker does not know that, the figures do.
//!
//! When the server sees only the sum ([`Sees::Sum`]) the federation runs the same and the lab
//! ends there: the server holds one sum a round and no update of any device
//! ([`super::federation`]), so there is no attack to train and no device to rank; the summary
//! says how many sums it has ([`LinkSummary::round_sums`]). With the sum + central DP
//! ([`Sees::Dp`]) the same holds of the noised sums, the federation's model is DP-FedAvg's
//! (its test error is the utility, beside the references), and the summary carries the
//! visitor's user-level ε, per round and in total ([`LinkSummary::central_dp`]).

use super::attack::Identifier;
use super::attack::mlp::MlpTrainer;
use super::central_dp::{CentralDpRecord, CentralDpSummary};
use super::config::LinkConfig;
use super::features::{Matrix, Scaler, pca2};
use super::federation::FederationRun;
use super::metrics::{Identification, Scores, identification, standing};
use super::population::{Population, client, device};
use super::scenario::{
    ClosedWorld, Identified, Observations, TrainedMlp, identify, match_with_mlp,
};
use crate::signal_map::reference::References;
use serde::{Deserialize, Serialize};
use whereabouts_core::driver::{Driver, Guess};
use whereabouts_core::rng::Stream;
use whereabouts_core::secagg::Sees;

/// The person the visitor is.
pub const YOU: usize = 0;

/// What the lab is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The devices train and send; the server logs.
    Federation,
    /// The server trains its attack on the known devices' updates.
    Attack,
    Done,
}

/// What the lab reports as it works.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LinkEvent {
    /// `done` of `total` steps of `phase` (rounds, or the attack's training batches).
    Progress {
        phase: Phase,
        done: usize,
        total: usize,
    },
    /// Everything is computed: the summary is final.
    Finished,
}

/// A new device in the server's ranking for "which devices are yours?".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankedDevice {
    pub client: u32,
    /// Mean score for you over the device's updates.
    pub score: f64,
    /// It really is your second device.
    pub yours: bool,
}

/// One update on the 2-D map.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MapPoint {
    pub x: f32,
    pub y: f32,
    pub owner: u32,
    pub device: u8,
}

/// Whole-run figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LinkSummary {
    pub people: usize,
    pub rounds_done: usize,
    pub updates: usize,
    /// The global model's RMSE on the held-out test set, dB.
    pub test_rmse: Option<f64>,
    /// Updates never sent because a phone's local training diverged (it sends none that round).
    #[serde(default)]
    pub diverged_updates: usize,
    /// Beside it, on the same test set: the mean predictor and the same model trained
    /// centrally on every device's training data (`FederationRun::references`; it trains a
    /// model, so whoever shows the summary fills it in, once a run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub references: Option<References>,
    pub attack: Option<Identifier>,
    /// The attack on the closed world: every person's known device trains it, every new device
    /// is attributed.
    pub identification: Option<Identification>,
    /// Matching AP (the MLP attack only).
    pub matching_ap: Option<f64>,
    /// Every new device ranked by the attack's score for you, best first.
    pub ranking: Vec<RankedDevice>,
    /// Your second device's expected place in `ranking` (1 = the server's first answer), ties
    /// put in a uniformly random order: a device tied with two others for first is 2.
    pub your_rank: Option<f64>,
    /// Every update on its first two principal components.
    pub map: Vec<MapPoint>,
    /// confusion[true][guessed]: the new devices' updates by true owner and top-1 answer; an
    /// update whose top score is tied between t people counts 1/t for each (the expected count
    /// over a random order of the ties).
    pub confusion: Vec<Vec<f64>>,
    /// Updates your two devices sent (your known device's, your new device's).
    pub your_updates: [usize; 2],
    /// What the page should say about your data (what of a file was kept).
    pub notes: Vec<String>,
    /// Only the sum: the round sums the server holds (one a round anyone sent in), the updates
    /// summed in them, and coordinates clipped on the way in; 0 when it sees every update.
    #[serde(default)]
    pub round_sums: usize,
    #[serde(default)]
    pub summed_updates: usize,
    #[serde(default)]
    pub clipped: usize,
    /// Sum + central DP: the visitor's (a person's: both devices') user-level ε over every round
    /// and of the last round, at δ, with the mechanism's settings; every round's record; and the
    /// devices' changes the clip shortened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub central_dp: Option<CentralDpSummary>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub central_rounds: Vec<CentralDpRecord>,
    #[serde(default)]
    pub dp_clipped_updates: usize,
}

enum Stage {
    Federation,
    Training(Box<MlpTrainer>, Matrix, Vec<usize>, Scaler),
    Figures(Option<Identified>),
    Done,
}

/// A run of the lab.
pub struct LinkLab {
    config: LinkConfig,
    run: FederationRun,
    stage: Stage,
    summary: LinkSummary,
    obs: Option<Observations>,
}

impl LinkLab {
    pub fn config(&self) -> &LinkConfig {
        &self.config
    }

    pub fn federation(&self) -> &FederationRun {
        &self.run
    }

    fn begin_attack(&mut self) -> Result<(), String> {
        let obs = Observations::from_log(&self.run.log, &self.run.places, None);
        self.summary.map = pca2(&obs.x)
            .into_iter()
            .enumerate()
            .map(|(i, [x, y])| MapPoint {
                x,
                y,
                owner: obs.owner[i] as u32,
                device: device(obs.client[i]) as u8,
            })
            .collect();
        self.summary.test_rmse = self.run.test_rmse();
        self.summary.diverged_updates = self.run.diverged_updates;
        for d in 0..2 {
            self.summary.your_updates[d] =
                obs.client.iter().filter(|&&c| c == client(YOU, d)).count();
        }
        let world = ClosedWorld::of(&obs);
        self.stage = if self.config.attack == Identifier::Mlp && !world.train.is_empty() {
            let (x, y, scaler) = world.training_set(&obs);
            let trainer = MlpTrainer::new(
                x.cols,
                self.config.people,
                x.rows,
                self.config.mlp,
                Stream::new(self.config.seed, "identify-mlp"),
            );
            Stage::Training(Box::new(trainer), x, y, scaler)
        } else {
            Stage::Figures(None)
        };
        self.obs = Some(obs);
        Ok(())
    }

    /// The figures from the attack's scores on the new devices.
    fn figures(&mut self, trained: Option<Identified>) -> Result<(), String> {
        let obs = self.obs.as_ref().ok_or("no observations")?;
        let people = self.config.people;
        let identified = match trained {
            Some(i) => i,
            None => identify(
                obs,
                people,
                self.config.attack,
                self.config.mlp,
                self.config.seed,
            )?,
        };
        let world = ClosedWorld::of(obs);
        self.summary.attack = Some(self.config.attack);
        self.summary.identification = Some(identified.metrics);
        self.summary.matching_ap = identified
            .mlp
            .as_ref()
            .and_then(|net| match_with_mlp(obs, net, self.config.seed));
        // Rank the new devices by their mean score for you.
        let mut by_client: std::collections::BTreeMap<u32, (f64, usize)> = Default::default();
        let mut confusion = vec![vec![0.0f64; people]; people];
        for (r, &i) in world.test.iter().enumerate() {
            let row = identified.scores.row(r);
            let e = by_client.entry(obs.client[i]).or_default();
            e.0 += row[YOU];
            e.1 += 1;
            for (top, share) in identified.scores.first_answer(r) {
                confusion[obs.owner[i]][top] += share;
            }
        }
        let mut ranking: Vec<RankedDevice> = by_client
            .into_iter()
            .map(|(c, (sum, n))| RankedDevice {
                client: c,
                score: sum / n as f64,
                yours: c == client(YOU, 1),
            })
            .collect();
        // Tied devices are shown in a seeded random order (never yours first by its number), and
        // your rank is the expectation over every order of the ties.
        let mut order = Stream::new(self.config.seed, "ranking-ties");
        order.shuffle(&mut ranking);
        ranking.sort_by(|a, b| b.score.total_cmp(&a.score));
        let scores: Vec<f64> = ranking.iter().map(|d| d.score).collect();
        self.summary.your_rank = ranking.iter().find(|d| d.yours).map(|d| {
            let (higher, tied) = standing(&scores, d.score);
            higher as f64 + (tied as f64 + 1.0) / 2.0
        });
        self.summary.ranking = ranking;
        self.summary.confusion = confusion;
        Ok(())
    }
}

impl Driver for LinkLab {
    type Config = LinkConfig;
    type Event = LinkEvent;
    type Summary = LinkSummary;

    fn start(config: LinkConfig) -> Result<Self, String> {
        config.validate().map_err(|e| e.to_string())?;
        let population = Population::generate(&config).map_err(|e| e.to_string())?;
        let run = FederationRun::new(&config, population);
        Ok(Self {
            summary: LinkSummary {
                people: config.people,
                notes: run.population.notes.clone(),
                ..LinkSummary::default()
            },
            config,
            run,
            stage: Stage::Federation,
            obs: None,
        })
    }

    fn work(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(LinkEvent),
    ) -> Result<bool, String> {
        loop {
            match &mut self.stage {
                Stage::Federation => {
                    if self.run.done() && self.config.sees != Sees::Updates {
                        // Sums only: nothing to train an attack on, nothing to attribute.
                        self.summary.test_rmse = self.run.test_rmse();
                        self.summary.diverged_updates = self.run.diverged_updates;
                        self.summary.round_sums = self.run.sums.len();
                        self.summary.summed_updates = self.run.summed_updates;
                        self.summary.clipped = self.run.clipped;
                        self.summary.central_dp = self
                            .run
                            .central
                            .as_ref()
                            .map(|s| s.summary(&self.run.dp, self.run.round));
                        self.summary.central_rounds = self.run.central_rounds.clone();
                        self.summary.dp_clipped_updates = self.run.dp_clipped_updates;
                        self.stage = Stage::Done;
                        emit(LinkEvent::Finished);
                    } else if self.run.done() {
                        self.begin_attack()?;
                    } else {
                        self.run.step()?;
                        self.summary.rounds_done = self.run.round;
                        self.summary.updates = self.run.log.len();
                        emit(LinkEvent::Progress {
                            phase: Phase::Federation,
                            done: self.run.round,
                            total: self.run.rounds,
                        });
                    }
                }
                Stage::Training(trainer, x, y, _) => {
                    let mut steps = 0;
                    while trainer.step(x, y)? {
                        steps += 1;
                        if steps % 16 == 0 && now() > deadline {
                            break;
                        }
                    }
                    emit(LinkEvent::Progress {
                        phase: Phase::Attack,
                        done: (trainer.progress() * 1000.0) as usize,
                        total: 1000,
                    });
                    if trainer.done() {
                        let Stage::Training(trainer, _, _, scaler) =
                            std::mem::replace(&mut self.stage, Stage::Done)
                        else {
                            unreachable!()
                        };
                        let obs = self.obs.as_ref().ok_or("no observations")?;
                        let world = ClosedWorld::of(obs);
                        let trained = TrainedMlp {
                            net: trainer.mlp,
                            scaler,
                        };
                        let scores: Scores = trained.probabilities(&obs.x.select(&world.test));
                        let truth: Vec<usize> = world.test.iter().map(|&i| obs.owner[i]).collect();
                        let metrics = identification(&scores, &truth).ok_or("no test updates")?;
                        self.stage = Stage::Figures(Some(Identified {
                            attack: Identifier::Mlp,
                            scores,
                            metrics,
                            mlp: Some(trained),
                        }));
                    }
                }
                Stage::Figures(trained) => {
                    let trained = trained.take();
                    self.figures(trained)?;
                    self.stage = Stage::Done;
                    emit(LinkEvent::Finished);
                }
                Stage::Done => return Ok(false),
            }
            if now() > deadline {
                return Ok(!matches!(self.stage, Stage::Done));
            }
        }
    }

    fn summary(&self) -> LinkSummary {
        self.summary.clone()
    }

    /// The lab's answers are people, not places: it makes no location guesses.
    fn guesses(&self) -> Vec<Guess> {
        Vec::new()
    }
}
