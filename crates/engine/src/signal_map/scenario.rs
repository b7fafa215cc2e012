//! What a signal-map run is (its configuration) and what it reports (round records and the
//! summary), with the per-round steps shared by every part of the run: what the server derives
//! from an update before attacking it, the DP accounting, the whole-run figures. The run itself
//! is [`crate::signal_map::lab::Lab`], the one round pipeline:
//!
//! world → dataset (rounds) → each round: participants train → server aggregates → the server
//! attacks the target's update (DLG, Lemma 1) → metrics → events.
//!
//! The per-round steps (`AttackInputs`, the DP budget's stop, `summarize`) are
//! `scenario/steps.rs`; the tests `scenario/tests.rs`.

use crate::signal_map::attack::analytic;
use crate::signal_map::attack::dlg::{DlgConfig, DlgResult};
use crate::signal_map::attack::fedavg::{FedAvgConfig, FedAvgResult};
use crate::signal_map::defence::Defence;
use crate::signal_map::fl::FlConfig;
use crate::signal_map::limits;
use crate::signal_map::model::{MlpSpec, ModelPreset};
use crate::signal_map::placement::ImportedTrace;
use crate::signal_map::secure::SecureAggregation;
use crate::signal_map::trace::{Dataset, RoundLength};
use crate::signal_map::trajectory::Trajectory;
use crate::signal_map::warm_start::WarmStart;
use crate::signal_map::world::Preset;
use serde::{Deserialize, Serialize};
use whereabouts_core::error::ConfigError;
use whereabouts_core::geo::{LatLon, Metres};
use whereabouts_core::rng::Stream;

mod steps;

pub(crate) use steps::{AttackInputs, dp_budget_stop, summarize};

/// Which world, with the few overrides people reach for (the campus, as generated, unless
/// told).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorldChoice {
    pub preset: Preset,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub users: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weeks: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<usize>,
    /// Add (or remove) the background user: many short-lived sources merged into one extra
    /// user (the metro preset has one; on campus it is the metro preset's mix of sources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<bool>,
}

impl Default for WorldChoice {
    fn default() -> Self {
        Self {
            preset: Preset::Campus,
            users: None,
            weeks: None,
            cell: None,
            background: None,
        }
    }
}

/// The model: a preset, or a full custom spec.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ModelChoice {
    Preset(ModelPreset),
    Custom(MlpSpec),
}

impl ModelChoice {
    pub fn spec(&self) -> MlpSpec {
        match self {
            ModelChoice::Preset(p) => p.spec(),
            ModelChoice::Custom(s) => s.clone(),
        }
    }
}

/// The starting value of the output bias (see [`MlpSpec::init`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputBias {
    /// 0, Keras' default and the paper's.
    Zero,
    /// The mean training label: a model that starts at the right offset (weakens early attacks).
    MeanLabel,
}

/// What the server does with the target's updates (a key left out keeps its [`Default`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AttackConfig {
    /// Run DLG each round.
    pub dlg: bool,
    /// Compute Lemma 1's instant reconstruction each round.
    pub analytic: bool,
    /// Evaluate Theorems 1–2 on the true batch each round (diagnostics; FedSGD semantics).
    pub bounds: bool,
    pub settings: DlgConfig,
    /// Beyond the paper: also run the FedAvg-aware attack on the same update (a server that
    /// simulates the phone's local training, [`crate::signal_map::attack::fedavg`]), after DLG.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fedavg: Option<FedAvgConfig>,
    /// Where the attacker's mean-RSRP prior (the label y′ starts from, in the modes that search
    /// it) comes from ([000] App. A.4).
    #[serde(default, skip_serializing_if = "LabelPrior::is_default")]
    pub label_prior: LabelPrior,
}

/// The attacker's mean-RSRP prior ([000] §2.1, "Implementation details": the server knows the
/// mean RSRP near the tower; App. A.4 tries four of them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum LabelPrior {
    /// The mean of the cell's training data, every user of the world's whether or not they
    /// take part (A.4's "all x204 data").
    #[default]
    Everyone,
    /// The mean of the target's own training data (A.4's first, the paper's default).
    Target,
    /// The mean of a random `percent` of the cell's training data (A.4's 1% and 10%).
    Sample { percent: f64 },
}

impl LabelPrior {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// The prior on `data` for `target` (the sample drawn from stream `label-prior` of `seed`).
    pub fn of(self, data: &Dataset, target: u32, seed: u64) -> f32 {
        let mean = |ys: &mut dyn Iterator<Item = f32>| {
            let (sum, n) = ys.fold((0.0, 0usize), |(s, n), y| (s + f64::from(y), n + 1));
            if n == 0 {
                data.mean_label()
            } else {
                (sum / n as f64) as f32
            }
        };
        match self {
            Self::Everyone => data.mean_label(),
            Self::Target => mean(&mut data.user_data(target).iter().map(|s| s.y)),
            Self::Sample { percent } => {
                let mut stream = Stream::new(seed, "label-prior");
                mean(
                    &mut data
                        .train
                        .iter()
                        .filter(|_| stream.chance(percent / 100.0))
                        .map(|s| s.y),
                )
            }
        }
    }
}

impl Default for AttackConfig {
    fn default() -> Self {
        Self {
            dlg: true,
            analytic: true,
            bounds: false,
            settings: DlgConfig::default(),
            fedavg: None,
            label_prior: LabelPrior::Everyone,
        }
    }
}

/// Every participant's round `round` (counted from 0), trained on `rounds` times: the run has
/// `rounds` rounds, each on the same data ([000] §4.1, Fig. 7: week 7 for 21 rounds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SameBatch {
    pub round: usize,
    pub rounds: usize,
}

/// Everything a run depends on. The same config gives the same results, bit for bit. A key
/// left out of a config file keeps its [`Default`] (`whereabouts config` prints them all), as
/// in every other lab's config; `participants` left out is everyone in the world.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScenarioConfig {
    pub seed: u64,
    pub world: WorldChoice,
    pub model: ModelChoice,
    pub output_bias: OutputBias,
    /// The federation has been learning from the other users before the target's first round
    /// (our choice, not the paper's; `None` is [000]'s cold start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_start: Option<WarmStart>,
    /// T. The paper's default is a week; one day gives a 4-week world 28 rounds to watch.
    pub round_length: RoundLength,
    pub fl: FlConfig,
    /// Stop after this many rounds (None: all rounds with data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rounds: Option<usize>,
    /// The federation trains on one round's data, round after round ([000] Fig. 7, Insight I2):
    /// a study's setting, not the page's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_batch: Option<SameBatch>,
    pub test_fraction: f64,
    /// The user whose updates the server attacks.
    pub target: u32,
    /// Users taking part; None = everyone in the world.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub participants: Option<Vec<u32>>,
    pub attack: AttackConfig,
    /// The target's data drawn as a path (the lab) instead of its synthetic routine. The run
    /// then lasts as long as the trajectory (unless `max_rounds` is shorter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trajectory: Option<Trajectory>,
    /// The target's data from the visitor's own file: the world is placed around it and the
    /// rounds follow its timestamps ([`crate::signal_map::placement`]). Excludes `trajectory`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<ImportedTrace>,
    /// What every device does to protect itself ([000] §4.3–4.5). Configs written before the
    /// project settled on one spelling say `defense`; they still read.
    #[serde(default, alias = "defense", skip_serializing_if = "is_no_defence")]
    pub defence: Defence,
    /// Secure aggregation (issue 39 §2): the server receives only the round's sum of quantised
    /// updates and attacks the aggregate ([`crate::signal_map::secure`]); `None`: it receives
    /// every update, as in [000].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secure_aggregation: Option<SecureAggregation>,
    /// Central DP over the secure sum (DP-FedAvg, issue 39 §3: `sees=dp`), with
    /// `secure_aggregation` on ([`crate::signal_map::central_dp`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub central_dp: Option<crate::signal_map::central_dp::CentralDp>,
}

fn is_no_defence(d: &Defence) -> bool {
    *d == Defence::None
}

impl Default for ScenarioConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            world: WorldChoice::default(),
            model: ModelChoice::Preset(ModelPreset::Small),
            output_bias: OutputBias::Zero,
            warm_start: None,
            round_length: RoundLength::Day,
            fl: FlConfig::default(),
            max_rounds: None,
            same_batch: None,
            test_fraction: 0.2,
            target: 0,
            participants: Some(vec![0]),
            attack: AttackConfig::default(),
            trajectory: None,
            imported: None,
            defence: Defence::None,
            secure_aggregation: None,
            central_dp: None,
        }
    }
}

impl ScenarioConfig {
    /// The config as TOML (settings left at `None` are omitted).
    pub fn to_toml(&self) -> Result<String, String> {
        toml::to_string(self).map_err(|e| format!("cannot write TOML: {e}"))
    }

    /// Parses TOML or JSON (by the first non-blank character) and validates.
    pub fn parse(text: &str) -> Result<Self, String> {
        let trimmed = text.trim_start();
        if trimmed.is_empty() {
            return Err("the config is empty (`whereabouts config` prints a complete one)".into());
        }
        let config: ScenarioConfig = crate::config_text::parse(text)?;
        config.validate().map_err(|e| e.to_string())?;
        Ok(config)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        self.round_length.validate()?;
        self.model.spec().validate()?;
        self.attack.settings.validate()?;
        if let Some(f) = &self.attack.fedavg {
            f.validate()?;
        }
        self.defence.validate()?;
        if let Some(w) = &self.warm_start {
            w.validate()?;
        }
        let l = &self.fl.local;
        limits::LEARNING_RATE.check("fl.local.learning_rate", f64::from(l.learning_rate))?;
        limits::EPOCHS.check("fl.local.epochs", l.epochs as f64)?;
        if let Some(b) = l.batch_size {
            limits::BATCH_SIZE.check("fl.local.batch_size (leave it out for B = ∞)", b as f64)?;
        }
        limits::CLIENT_FRACTION.check("fl.client_fraction", self.fl.client_fraction)?;
        if !(self.test_fraction > 0.0 && self.test_fraction < 1.0) {
            return Err(ConfigError::new(
                "test_fraction",
                format!(
                    "{} must lie between 0 and 1, both left out: the share of the data held out for the map's RMSE (0 holds out nothing to measure it on, 1 leaves nothing to train on)",
                    self.test_fraction
                ),
            ));
        }
        // The world's overrides are named as the config writes them (the world's own check
        // would name its internal `mobility.*`).
        if let Some(u) = self.world.users.filter(|u| !(1..=1000).contains(u)) {
            return Err(ConfigError::new(
                "world.users",
                format!("{u} must be between 1 and 1000"),
            ));
        }
        if let Some(w) = self.world.weeks.filter(|w| !(1..=52).contains(w)) {
            return Err(ConfigError::new(
                "world.weeks",
                format!("{w} must be between 1 and 52"),
            ));
        }
        if self.max_rounds == Some(0) {
            return Err(ConfigError::new(
                "max_rounds",
                "must be at least 1 (leave it out to run as long as the trajectory)",
            ));
        }
        if let LabelPrior::Sample { percent } = self.attack.label_prior
            && !(percent > 0.0 && percent <= 100.0)
        {
            return Err(ConfigError::new(
                "attack.label_prior.percent",
                format!("{percent} must be above 0 and at most 100"),
            ));
        }
        if let Some(b) = self.same_batch {
            if !(1..=1000).contains(&b.rounds) {
                return Err(ConfigError::new(
                    "same_batch.rounds",
                    format!("{} must be between 1 and 1000", b.rounds),
                ));
            }
            if self.trajectory.is_some() || self.imported.is_some() {
                return Err(ConfigError::new(
                    "same_batch",
                    "repeats a synthetic user's round; not with a drawn trajectory or imported data",
                ));
            }
        }
        if let Some(sa) = &self.secure_aggregation {
            sa.validate()?;
            if let Some(p) = self
                .participants
                .as_ref()
                .filter(|p| sa.min_genuine > p.len())
            {
                return Err(ConfigError::new(
                    "secure_aggregation.min_genuine",
                    format!(
                        "{} genuine clients a round is more than the {} users taking part: no round would ever be sent (a cohort too small for the minimum)",
                        sa.min_genuine,
                        p.len()
                    ),
                ));
            }
        }
        if let Some(dp) = &self.central_dp {
            crate::signal_map::central_dp::validate(dp)?;
            if self.secure_aggregation.is_none() {
                return Err(ConfigError::new(
                    "central_dp",
                    "central DP runs over the secure sum: it needs secure_aggregation",
                ));
            }
        }
        if let Some(t) = &self.imported {
            if self.trajectory.is_some() {
                return Err(ConfigError::new(
                    "imported",
                    "a run uses either a drawn trajectory or imported data, not both",
                ));
            }
            t.placement().map_err(|e| ConfigError::new("imported", e))?;
        }
        Ok(())
    }

    /// The world this scenario runs in: the preset's, or one placed around imported data.
    pub fn world_config(&self) -> crate::signal_map::world::WorldConfig {
        let mut w = match self.imported.as_ref().and_then(|t| t.placement().ok()) {
            Some(p) => p.world_config(self.seed, self.world.users, self.world.cell),
            None => {
                let mut w = self.world.preset.config(self.seed);
                if let Some(u) = self.world.users {
                    w.mobility.users = u;
                }
                if let Some(wk) = self.world.weeks {
                    w.mobility.weeks = wk;
                }
                if let Some(c) = self.world.cell {
                    w.cell = c;
                }
                w
            }
        };
        match self.world.background {
            Some(false) => w.mobility.background_sources = 0,
            Some(true) if w.mobility.background_sources == 0 => {
                let metro = Preset::Metro.config(self.seed).mobility;
                w.mobility.background_sources = metro.background_sources;
                w.mobility.background_duty = metro.background_duty;
            }
            _ => {}
        }
        w
    }
}

/// A reconstructed location, in both coordinate systems, with its error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Located {
    pub position: Metres,
    pub latlon: LatLon,
    /// Distance to the round's true centroid, metres.
    pub error_m: f64,
}

/// Everything known about one round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundRecord {
    pub round: usize,
    /// Unix time of the round's start.
    pub start_unix: f64,
    pub participants: Vec<u32>,
    /// Points in the target's round data D_t (and in its LocalBatch).
    pub points: usize,
    pub batch_points: usize,
    pub true_centroid: Located,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dlg: Option<DlgOutcome>,
    /// The FedAvg-aware attack on the same update, when the server runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fedavg: Option<FedAvgOutcome>,
    /// Why the FedAvg-aware attack did not run this round (its simulation would not fit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fedavg_refused: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analytic: Option<Located>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds: Option<analytic::Bounds>,
    /// Test RMSE of the global model after this round, dB.
    pub rmse_db: f64,
    /// ‖w_t^k − w_{t−1}‖₂, the size of the target's update (all parameters): [000] Fig. 7(b)
    /// and Insight I2 (§2.2), the leak fades as this goes to 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_norm: Option<f64>,
    /// Under local DP: the target's total ε after this round (RDP composition, at the
    /// defence's δ), and how many releases (local steps, or updates) it composes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dp_epsilon: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dp_releases: Option<usize>,
    /// Under secure aggregation: who was in the sum, the blend the attacks aimed at and how
    /// far the update the server attacked is from the visitor's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secure: Option<crate::signal_map::secure::SecureRecord>,
    /// Under central DP: the round's sample, clip and noise, and the visitor's user-level ε.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub central_dp: Option<crate::signal_map::central_dp::CentralDpRecord>,
    /// Under the malicious server: the fixes its imprint module read out of the sum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imprint: Option<crate::signal_map::imprint::ImprintRecord>,
}

/// DLG's result for a round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DlgOutcome {
    pub reconstruction: Located,
    #[serde(flatten)]
    pub result: DlgResult,
    /// Wall-clock time of the attack, when the driver supplied a clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub millis: Option<f64>,
    /// Under FedAvg (more than one local step): the median distance from the one
    /// reconstruction to the true centroids of the local steps' mini-batches, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_step_error_m: Option<f64>,
}

/// The FedAvg-aware attack's result for a round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FedAvgOutcome {
    /// The n-weighted mean of the dummies, against the round's true centroid (as DLG's).
    pub reconstruction: Located,
    /// Per local step: its dummy's distance to the true centroid of the step's mini-batch.
    pub step_errors_m: Vec<f64>,
    pub median_step_error_m: Option<f64>,
    #[serde(flatten)]
    pub result: FedAvgResult,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub millis: Option<f64>,
}

/// Whole-run figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub rounds: usize,
    pub attacked_rounds: usize,
    pub median_error_m: Option<f64>,
    pub mean_error_m: Option<f64>,
    pub analytic_median_error_m: Option<f64>,
    /// Sliced-Wasserstein EMD (p = 2, 1000 projections) between the target's true locations and
    /// the non-diverged DLG reconstructions, metres.
    pub emd_m: Option<f64>,
    /// The same for uniform random guesses (5 draws).
    pub random_emd_m: Option<f64>,
    pub diverged_percent: Option<f64>,
    pub mean_iterations: Option<f64>,
    pub final_rmse_db: Option<f64>,
    /// Under local DP: the target's total ε over the run (protecting its whole data, at the
    /// defence's δ), the releases it composes, and why the run stopped early.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dp_epsilon: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dp_releases: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Under GeoInd: what its ε composes to over the run (per fix, the whole trajectory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geoind: Option<Box<crate::signal_map::defence::geoind::GeoIndLoss>>,
    /// What the model's RMSE is measured against: the mean predictor and the centralised
    /// model on the same data (`Lab::references`; filled by whoever asks for it, once a run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub references: Option<crate::signal_map::reference::References>,
    /// Under FedAvg: DLG's median distance to the local steps' mini-batch centroids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_step_error_m: Option<f64>,
    /// The FedAvg-aware attack's figures, when the server ran it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fedavg: Option<FedAvgSummary>,
    /// Under central DP: the visitor's user-level ε per round and in total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub central_dp: Option<Box<crate::signal_map::central_dp::CentralDpSummary>>,
    /// Under the malicious server: your fixes and everyone's it recovered over the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imprint: Option<Box<crate::signal_map::imprint::ImprintSummary>>,
}

/// The FedAvg-aware attack over a run: the same figures as DLG's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FedAvgSummary {
    pub attacked_rounds: usize,
    /// Of the round estimates (the n-weighted mean of the dummies), non-diverged: their
    /// median and mean distance to the round's true centroid (DLG's two figures).
    pub median_error_m: Option<f64>,
    #[serde(default)]
    pub mean_error_m: Option<f64>,
    pub emd_m: Option<f64>,
    pub diverged_percent: f64,
    /// Over every local step of every round: the dummy's distance to its step's centroid.
    pub median_step_error_m: Option<f64>,
    pub mean_iterations: f64,
}

#[cfg(test)]
mod tests;
