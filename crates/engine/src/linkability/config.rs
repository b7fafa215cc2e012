//! A Linkability-lab run's settings: the people and how their data is split over their two
//! devices, the federation, what the server keeps of each update, the attack, and the
//! mitigation every device applies.

use super::attack::Identifier;
use super::attack::mlp::MlpSettings;
use super::central_dp::{self, CentralDp};
use super::features::Layers;
use super::limits;
use super::model::model_spec;
use crate::signal_map::placement::ImportedTrace;
use crate::signal_map::trajectory::Trajectory;
use serde::{Deserialize, Serialize};
use whereabouts_core::error::ConfigError;
use whereabouts_core::secagg::Sees;

/// How a person's measurements are shared between their two devices ([004] §7: random, by
/// day, chronological).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// Each measurement goes to either device at random (a phone and a tablet used together).
    Random,
    /// Each day's measurements all go to one device, chosen at random per day.
    Day,
    /// The first half of the person's measurements on the old phone, the second half on the
    /// new one: the hardest split, "buying a new phone".
    Chrono,
}

impl Split {
    pub const ALL: [Split; 3] = [Split::Random, Split::Day, Split::Chrono];

    /// Its key in configs, links and tables ([`crate::linkability::settings`]).
    pub fn name(self) -> &'static str {
        whereabouts_core::setting::Choices::key(&self)
    }
}

/// What every device does to blend in ([004] §9), adapted from photos to location
/// measurements: the background pool is the measurements of people outside the federation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Mitigation {
    None,
    /// Zero-mean Gaussian noise of standard deviation σ on every coordinate of the update
    /// (Eq. 5).
    Noise {
        sigma: f64,
    },
    /// `bkg-repl`: a share β of the device's measurements in each round replaced by background
    /// ones.
    BkgRepl {
        beta: f64,
    },
    /// `rand-aug`: α·n random background measurements added to the n of each round (Eq. 6).
    RandAug {
        alpha: f64,
    },
    /// `mm-aug`: the background pool clustered by k-means; each device keeps one cluster (a
    /// person's two devices different ones) and adds α·n measurements from it (Eq. 7).
    MmAug {
        alpha: f64,
    },
}

impl Mitigation {
    pub fn name(&self) -> &'static str {
        match self {
            Mitigation::None => "none",
            Mitigation::Noise { .. } => "noise",
            Mitigation::BkgRepl { .. } => "bkg-repl",
            Mitigation::RandAug { .. } => "rand-aug",
            Mitigation::MmAug { .. } => "mm-aug",
        }
    }

    /// The strength in the mitigation's own unit (σ, β or α; 0 for none).
    pub fn strength(&self) -> f64 {
        match *self {
            Mitigation::None => 0.0,
            Mitigation::Noise { sigma } => sigma,
            Mitigation::BkgRepl { beta } => beta,
            Mitigation::RandAug { alpha } | Mitigation::MmAug { alpha } => alpha,
        }
    }

    /// The mitigation called `name` at `strength`.
    pub fn parse(name: &str, strength: f64) -> Option<Self> {
        Some(match name {
            "none" => Mitigation::None,
            "noise" => Mitigation::Noise { sigma: strength },
            "bkg-repl" => Mitigation::BkgRepl { beta: strength },
            "rand-aug" => Mitigation::RandAug { alpha: strength },
            "mm-aug" => Mitigation::MmAug { alpha: strength },
            _ => return None,
        })
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        match *self {
            Mitigation::None => Ok(()),
            Mitigation::Noise { sigma } => limits::NOISE_SIGMA
                .check("mitigation.sigma", sigma)
                .map(drop),
            Mitigation::BkgRepl { beta } => limits::BETA.check("mitigation.beta", beta).map(drop),
            Mitigation::RandAug { alpha } | Mitigation::MmAug { alpha } => {
                limits::ALPHA.check("mitigation.alpha", alpha).map(drop)
            }
        }
    }
}

/// Who person 0, the visitor, is. The paper's users are photo collections; here a person is
/// where they went, so the visitor can be themselves: a path drawn on the campus or their own
/// file, split over their two devices like everyone else's data (docs/papers.md §3c).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum You {
    /// One of the campus's synthetic people.
    #[default]
    Synthetic,
    /// A path on the campus plane (drawn, or one of the Signal map's ready-made ones).
    Path { trajectory: Trajectory },
    /// The visitor's own file: the world is placed around it (the Signal map's placement).
    File { trace: ImportedTrace },
}

impl You {
    pub fn name(&self) -> &'static str {
        match self {
            You::Synthetic => "synthetic",
            You::Path { .. } => "path",
            You::File { .. } => "file",
        }
    }
}

/// A configuration written before `local_epochs` existed trained one local epoch.
fn one() -> usize {
    1
}

/// Everything a run depends on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LinkConfig {
    pub seed: u64,
    /// People in the federation; each has two devices.
    pub people: usize,
    /// Rounds of online FL (one a day).
    pub rounds: usize,
    pub split: Split,
    /// C: the share of the devices with data that take part in each round.
    pub participation: f64,
    /// The phones' SGD learning rate, mini-batch and local epochs. The defaults (η = 0.05,
    /// B = 8, E = 5) are a federation whose model learns: 7.3 dB test RMSE after 28 rounds
    /// against 9.7 dB for the mean predictor and 4.2 dB for the same model trained centrally
    /// (seed 7); the earlier η = 0.01, E = 1 stayed at the mean predictor (9.6 dB), so no
    /// utility statement could rest on it (docs/papers.md §3c).
    pub learning_rate: f32,
    pub batch_size: usize,
    #[serde(default = "one")]
    pub local_epochs: usize,
    /// What the server keeps of each update and attacks.
    pub layers: Layers,
    /// The attack the lab runs.
    pub attack: Identifier,
    pub mlp: MlpSettings,
    pub mitigation: Mitigation,
    /// Who the visitor (person 0) is.
    #[serde(default)]
    pub you: You,
    /// What the server receives of a round: every device's update, labelled with its
    /// pseudonym ([004] §6), or only the sum of the round's updates under secure aggregation
    /// (issue 39 §2; [`super::federation`] says what the server then has: no update of any one
    /// device, so nothing to train the attacks on and nothing to attribute).
    #[serde(skip_serializing_if = "is_updates")]
    pub sees: Sees,
    /// Under `sees = dp`: DP-FedAvg's settings (z, C, q, adaptive clipping, where the noise is
    /// added, dropouts), a person the user ([`super::central_dp`]); left out of a stored
    /// config at the lab's defaults.
    #[serde(skip_serializing_if = "is_default_dp")]
    pub central_dp: CentralDp,
}

fn is_updates(s: &Sees) -> bool {
    *s == Sees::Updates
}

/// DP-FedAvg's settings the lab opens with: the core's, with the clip at about the median
/// norm of a device's change ([`limits::DP_DEFAULT_CLIP`]).
pub fn default_dp() -> CentralDp {
    CentralDp {
        clip: limits::DP_DEFAULT_CLIP,
        ..CentralDp::default()
    }
}

fn is_default_dp(dp: &CentralDp) -> bool {
    *dp == default_dp()
}

impl Default for LinkConfig {
    fn default() -> Self {
        Self {
            seed: 7,
            people: 60,
            rounds: 28,
            split: Split::Random,
            participation: 1.0,
            learning_rate: 0.05,
            batch_size: 8,
            local_epochs: 5,
            layers: Layers::Last,
            attack: Identifier::Mlp,
            mlp: MlpSettings::default(),
            mitigation: Mitigation::None,
            you: You::Synthetic,
            sees: Sees::Updates,
            central_dp: default_dp(),
        }
    }
}

impl LinkConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        limits::SEED.check("seed", self.seed as f64)?;
        limits::PEOPLE.check("people", self.people as f64)?;
        limits::ROUNDS.check("rounds", self.rounds as f64)?;
        limits::PARTICIPATION.check("participation", self.participation)?;
        limits::LEARNING_RATE.check("learning_rate", f64::from(self.learning_rate))?;
        limits::BATCH_SIZE.check("batch_size", self.batch_size as f64)?;
        limits::LOCAL_EPOCHS.check("local_epochs", self.local_epochs as f64)?;
        limits::EPOCHS.check("mlp.epochs", self.mlp.epochs as f64)?;
        self.mitigation.validate()?;
        // DP-FedAvg's settings within their limits whatever the server sees; under `dp` also
        // within the secure sum's words.
        self.central_dp.validate(&limits::DP_CLIP)?;
        if self.sees == Sees::Dp {
            central_dp::validate(&self.central_dp, self.people)?;
        }
        let kept = (2 * self.people * self.rounds) as f64 * self.kept_per_update() as f64;
        if kept > limits::LOGGED_NUMBERS {
            return Err(ConfigError::new(
                "layers",
                format!(
                    "keeping {} layers of {} people's updates over {} rounds would hold {:.0} million \
                     numbers; the limit is {:.0} million: keep the last layer, or fewer people or rounds",
                    self.layers.name(),
                    self.people,
                    self.rounds,
                    kept / 1e6,
                    limits::LOGGED_NUMBERS / 1e6
                ),
            ));
        }
        Ok(())
    }

    /// Coordinates of each update the server keeps.
    pub fn kept_per_update(&self) -> usize {
        let spec = model_spec();
        match self.layers {
            Layers::Last => spec
                .layers()
                .last()
                .map_or(0, |l| l.inputs * l.outputs + l.outputs),
            Layers::All => spec.parameter_count(),
        }
    }
}
