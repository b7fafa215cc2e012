//! The lab's settings: what the controls edit, what the URL carries, and how they become an
//! engine [`ScenarioConfig`].
//!
//! Every setting has a short URL key. A URL holds the whole configuration, the seed and the
//! drawn path, so opening it reproduces a run exactly; `hide=key,key` hides controls (the
//! TensorFlow Playground convention for instructors). Values are refused with a message, never
//! clamped silently.

use crate::shell::path_link::{decode_path, encode_path};
pub use crate::ui::settings::Kind;
use crate::ui::settings::{flag, limited, query_pairs, trim, within};
use whereabouts_core::geo::Metres;
use whereabouts_engine::signal_map::attack::dlg::{Init, Optimizer, START_NOISE_M};
use whereabouts_engine::signal_map::attack::fedavg::FedAvgConfig;
use whereabouts_engine::signal_map::defence::Defence;
use whereabouts_engine::signal_map::defence::dp::{AppliedTo, LocalDp};
use whereabouts_engine::signal_map::fl::FlConfig;
use whereabouts_engine::signal_map::limits::{self, Limit};
use whereabouts_engine::signal_map::model::ModelPreset;
use whereabouts_engine::signal_map::model::train::LocalTraining;
use whereabouts_engine::signal_map::scenario::{
    AttackConfig, ModelChoice, OutputBias, ScenarioConfig, WorldChoice,
};
use whereabouts_engine::signal_map::trace::RoundLength;
use whereabouts_engine::signal_map::trajectory::Trajectory;
use whereabouts_engine::signal_map::warm_start::WarmStart;
use whereabouts_engine::signal_map::world::Preset;

/// Other users available in the campus world (users 1–6; user 0 is the visitor).
pub const MAX_OTHER_USERS: usize = 6;
/// The background user's id: it comes after the world's `MAX_OTHER_USERS + 1` regular users.
pub const BACKGROUND_ID: u32 = MAX_OTHER_USERS as u32 + 1;

/// Everything the visitor can set.
#[derive(Clone, Debug, PartialEq)]
pub struct LabSettings {
    pub seed: u64,
    /// The federation has learnt from the other users before the visitor's first round (a warm
    /// start, the lab's default); false is the paper's cold start from an untrained model.
    pub warm: bool,
    /// T, in hours.
    pub round_hours: f64,
    /// B; `None` = ∞ (the whole round's data in one batch).
    pub batch: Option<usize>,
    pub epochs: u32,
    /// η, the local learning rate.
    pub lr: f64,
    /// C, the fraction of users per round.
    pub fraction: f64,
    /// Other users: the first this many synthetic users of the campus world (not the
    /// background user, which is `background_user`).
    pub other_users: usize,
    /// The background user (many short-lived sources merged into one) takes part.
    pub background_user: bool,
    pub model: ModelPreset,
    pub iterations: usize,
    /// DLG's Adam step size.
    pub attack_lr: f64,
    pub init: InitChoice,
    pub analytic: bool,
    pub dlg: bool,
    /// The server also runs the FedAvg-aware attack (beyond the paper) on the same update.
    pub fedavg_attack: bool,
    pub leg_minutes: f64,
    pub sample_minutes: f64,
    /// The devices' defence ([000] §4.3–4.5) and its parameters.
    pub defence: DefenceChoice,
    pub dbscan_eps_km: f64,
    pub farthest_num: usize,
    pub dp_epsilon: f64,
    /// Local DP on every local step (the paper's) or once on the update.
    pub dp_applied_to: AppliedTo,
    pub geo_epsilon_per_m: f64,
}

/// Defences offered in the lab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefenceChoice {
    None,
    Diverse,
    Farthest,
    Random,
    Dp,
    GeoInd,
}

impl DefenceChoice {
    pub const ALL: [(DefenceChoice, &'static str); 6] = [
        (Self::None, "none"),
        (Self::Diverse, "diverse"),
        (Self::Farthest, "farthest"),
        (Self::Random, "random"),
        (Self::Dp, "dp"),
        (Self::GeoInd, "geoind"),
    ];

    fn key(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("", |x| x.1)
    }
}

/// DLG initialisations offered in the lab ([000] §4.1, "DLG Initialization Strategies"): the
/// grid is the paper's 350 m; the noise, 200 m, is our choice (the paper gives no scale; see
/// docs/papers.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitChoice {
    Analytic,
    Centroid,
    Random,
    Grid,
    Previous,
}

impl InitChoice {
    /// Each choice and its URL key.
    pub const ALL: [(InitChoice, &'static str); 5] = [
        (Self::Analytic, "analytic"),
        (Self::Centroid, "centroid"),
        (Self::Random, "random"),
        (Self::Grid, "grid"),
        (Self::Previous, "previous"),
    ];

    fn key(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("", |x| x.1)
    }

    fn engine(self) -> Init {
        match self {
            Self::Analytic => Init::AnalyticPlusNoise {
                sd_m: START_NOISE_M,
            },
            Self::Centroid => Init::CentroidPlusNoise {
                sd_m: START_NOISE_M,
            },
            Self::Random => Init::RandomInArea,
            Self::Grid => Init::Grid { spacing_m: 350.0 },
            Self::Previous => Init::Previous,
        }
    }
}

/// The lab's defaults: the engine's own where it has them (federation, model, attack, a drawn
/// path's timing), the lab's choices for the rest.
impl Default for LabSettings {
    fn default() -> Self {
        let engine = ScenarioConfig::default();
        let local = &engine.fl.local;
        let (Optimizer::Adam { lr: attack_lr } | Optimizer::Sgd { lr: attack_lr }) =
            engine.attack.settings.optimizer;
        let ModelChoice::Preset(model) = engine.model else {
            unreachable!("the engine's default model is a preset")
        };
        Self {
            seed: engine.seed,
            warm: true,
            round_hours: engine.round_length.seconds() / 3600.0,
            batch: local.batch_size,
            epochs: local.epochs as u32,
            // The shortest decimal of the engine's f32 (0.001, not 0.0010000000474974513).
            lr: local.learning_rate.to_string().parse().unwrap_or(1e-3),
            fraction: engine.fl.client_fraction,
            other_users: 0,
            background_user: false,
            model,
            iterations: engine.attack.settings.max_iterations,
            attack_lr,
            init: InitChoice::Analytic,
            analytic: engine.attack.analytic,
            dlg: engine.attack.dlg,
            fedavg_attack: engine.attack.fedavg.is_some(),
            leg_minutes: whereabouts_engine::signal_map::trajectory::DEFAULT_LEG_MINUTES,
            sample_minutes: whereabouts_engine::signal_map::trajectory::DEFAULT_FIX_MINUTES,
            defence: DefenceChoice::None,
            dbscan_eps_km: 0.05,
            farthest_num: 10,
            dp_epsilon: 100.0,
            dp_applied_to: AppliedTo::LocalStep,
            geo_epsilon_per_m: 0.005,
        }
    }
}

/// One of the lab's settings (the shared table form, [`crate::ui::settings`]).
pub type Field = crate::ui::settings::Field<LabSettings, Section>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    Trajectory,
    Federation,
    Attack,
    Defence,
    World,
}

const DEFENCES: &[(&str, &str)] = &[
    ("none", "None"),
    ("diverse", "Diverse Batch"),
    ("farthest", "Farthest Batch"),
    ("random", "Random subset"),
    ("dp", "Local DP"),
    ("geoind", "GeoInd"),
];
const ROUNDS: &[(&str, &str)] = &[
    ("1", "1 hour"),
    ("6", "6 hours"),
    ("12", "12 hours"),
    ("24", "1 day"),
    ("168", "1 week"),
];
const ATTACKS: &[(&str, &str)] = &[("dlg", "DLG (paper)"), ("fedavg", "+ FedAvg-aware")];
const STARTS: &[(&str, &str)] = &[("warm", "Learnt map"), ("cold", "Untrained")];
const DP_APPLIED: &[(&str, &str)] = &[
    ("local_step", "Every local step (paper)"),
    ("update", "Once on the update"),
];
const MODELS: &[(&str, &str)] = &[("small", "Small"), ("paper", "Paper's")];
const INITS: &[(&str, &str)] = &[
    ("analytic", "Near Lemma 1"),
    ("centroid", "Near the truth"),
    ("random", "Random"),
    ("grid", "Grid cell"),
    ("previous", "Previous"),
];

pub const FIELDS: &[Field] = &[
    Field {
        key: "leg",
        label: "Minutes per leg",
        help: "How long you take from one waypoint to the next. Every leg takes the same time, so two waypoints in the same place are a stay.",
        kind: Kind::Number {
            step: "10",
            limit: limits::LEG_MINUTES,
        },
        get: |s| trim(s.leg_minutes),
        set: |s, v| {
            s.leg_minutes = limited(v, &limits::LEG_MINUTES)?;
            Ok(())
        },
        section: Section::Trajectory,
    },
    Field {
        key: "fix",
        label: "Minutes between GPS fixes",
        help: "How often your phone logs a measurement (position + signal strength).",
        kind: Kind::Number {
            step: "1",
            limit: limits::FIX_MINUTES,
        },
        get: |s| trim(s.sample_minutes),
        set: |s, v| {
            s.sample_minutes = limited(v, &limits::FIX_MINUTES)?;
            Ok(())
        },
        section: Section::Trajectory,
    },
    Field {
        key: "start",
        label: "You join",
        help: "Warm: before your first round the federation trained for 4 weeks on the other campus users, so the map is a real signal map. A model that fits the data has small gradients that point every way, and the server's reconstructions land much farther from you (Insight I2). Cold: the paper's setting, an untrained model: the map starts blank and the first rounds leak the most.",
        kind: Kind::Choice(STARTS),
        get: |s| if s.warm { "warm" } else { "cold" }.into(),
        set: |s, v| {
            s.warm = match v {
                "warm" => true,
                "cold" => false,
                _ => return Err(format!("“{v}” is not a start (warm, cold)")),
            };
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "T",
        label: "Round length T",
        help: "Online FL: each round your phone trains only on what it logged during the round. Shorter rounds mean tighter batches, and more leakage (Insight I1).",
        kind: Kind::Choice(ROUNDS),
        get: |s| trim(s.round_hours),
        set: |s, v| {
            s.round_hours = limited(v, &limits::ROUND_HOURS)?;
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "B",
        label: "Batch size B",
        help: "Local mini-batch size; ∞ (type inf) = the whole round's data in one batch. With E = 1 and B = ∞ this is FedSGD: the update is one exact gradient.",
        kind: Kind::Number {
            step: "1",
            limit: limits::BATCH_SIZE,
        },
        get: |s| s.batch.map_or("inf".into(), |b| b.to_string()),
        set: |s, v| {
            let v = v.trim();
            s.batch = if matches!(v, "inf" | "∞" | "") {
                None
            } else {
                Some(limited(v, &limits::BATCH_SIZE)? as usize)
            };
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "E",
        label: "Local epochs E",
        help: "Passes over the round's data before sending the update. More local steps (FedAvg) blur what the update says about the batch (Insight I3).",
        kind: Kind::Number {
            step: "1",
            limit: limits::EPOCHS,
        },
        get: |s| s.epochs.to_string(),
        set: |s, v| {
            s.epochs = limited(v, &limits::EPOCHS)? as u32;
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "lr",
        label: "Learning rate η",
        help: "Local SGD step size. The server divides the update by η to get the gradient it attacks.",
        kind: Kind::Number {
            step: "0.001",
            limit: limits::LEARNING_RATE,
        },
        get: |s| trim(s.lr),
        set: |s, v| {
            s.lr = limited_f32(v, &limits::LEARNING_RATE)?;
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "C",
        label: "Fraction of users C",
        help: "Share of the users with data that the server picks each round.",
        kind: Kind::Number {
            step: "0.1",
            limit: limits::CLIENT_FRACTION,
        },
        get: |s| trim(s.fraction),
        set: |s, v| {
            s.fraction = limited(v, &limits::CLIENT_FRACTION)?;
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "bg",
        label: "Other users",
        help: "Synthetic users of the campus world who join the federation (0–6). They change the global model, not what your own update reveals.",
        kind: Kind::Number {
            step: "1",
            limit: OTHER_USERS,
        },
        get: |s| s.other_users.to_string(),
        set: |s, v| {
            s.other_users = limited(v, &OTHER_USERS)? as usize;
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "bgu",
        label: "Background user",
        help: "A crowd of short-lived sources merged into one extra participant, like the many one-off uploads of a crowdsourced data set (the paper's Radiocells background user, Table 3).",
        kind: Kind::Toggle,
        get: |s| u8::from(s.background_user).to_string(),
        set: |s, v| {
            s.background_user = flag(v)?;
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "model",
        label: "Model",
        help: "The signal-map model every phone trains. The paper's model has 145,313 parameters; the small one 4,417, fast enough to re-attack while you drag.",
        kind: Kind::Choice(MODELS),
        get: |s| match s.model {
            ModelPreset::Small => "small".into(),
            ModelPreset::Paper => "paper".into(),
        },
        set: |s, v| {
            s.model = match v {
                "small" => ModelPreset::Small,
                "paper" => ModelPreset::Paper,
                _ => return Err(format!("“{v}” is not a model (small, paper)")),
            };
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "dlg",
        label: "DLG attack",
        help: "Deep Leakage from Gradients (Algorithm 2): the server optimises one dummy location until its gradient points like your update.",
        kind: Kind::Toggle,
        get: |s| u8::from(s.dlg).to_string(),
        set: |s, v| {
            s.dlg = flag(v)?;
            Ok(())
        },
        section: Section::Attack,
    },
    Field {
        key: "att",
        label: "Server's attack",
        help: "DLG as in the paper matches one dummy point to your whole update. Beyond the paper, a FedAvg-aware server (Dimitrov et al. 2022) knows B, E, η and how many points you trained on, replays your phone's local training on one dummy point per local step, and matches the simulated update to yours: it runs after DLG on the same update, so both errors show side by side, and the map shows its dummies (one per step) beside the true mini-batch centroids. Each of its iterations replays every local step, so it is slower with many steps.",
        kind: Kind::Choice(ATTACKS),
        get: |s| if s.fedavg_attack { "fedavg" } else { "dlg" }.into(),
        set: |s, v| {
            s.fedavg_attack = match v {
                "dlg" => false,
                "fedavg" => true,
                _ => return Err(format!("“{v}” is not an attack")),
            };
            Ok(())
        },
        section: Section::Attack,
    },
    Field {
        key: "lemma",
        label: "Analytic attack (Lemma 1)",
        help: "The instant reconstruction: the first layer's weight and bias gradients give a weighted average of your locations, no optimisation needed.",
        kind: Kind::Toggle,
        get: |s| u8::from(s.analytic).to_string(),
        set: |s, v| {
            s.analytic = flag(v)?;
            Ok(())
        },
        section: Section::Attack,
    },
    Field {
        key: "its",
        label: "DLG iterations",
        help: "Upper limit on optimisation steps (the paper allows 400,000; it stops earlier once the dummy stops moving).",
        kind: Kind::Number {
            step: "100",
            limit: limits::DLG_ITERATIONS,
        },
        get: |s| s.iterations.to_string(),
        set: |s, v| {
            s.iterations = limited(v, &limits::DLG_ITERATIONS)? as usize;
            Ok(())
        },
        section: Section::Attack,
    },
    Field {
        key: "alr",
        label: "DLG step size",
        help: "Adam learning rate of the dummy location, in standardised units.",
        kind: Kind::Number {
            step: "0.005",
            limit: limits::DLG_LEARNING_RATE,
        },
        get: |s| trim(s.attack_lr),
        set: |s, v| {
            s.attack_lr = limited(v, &limits::DLG_LEARNING_RATE)?;
            Ok(())
        },
        section: Section::Attack,
    },
    Field {
        key: "init",
        label: "DLG starts from",
        help: "Where the dummy location starts ([000] §4.1). The paper starts near the true centroid, which a real server cannot; the default starts near the analytic estimate (both with a little noise).",
        kind: Kind::Choice(INITS),
        get: |s| s.init.key().into(),
        set: |s, v| {
            s.init = InitChoice::ALL
                .iter()
                .find(|(_, k)| *k == v)
                .map(|x| x.0)
                .ok_or_else(|| format!("“{v}” is not a starting point"))?;
            Ok(())
        },
        section: Section::Attack,
    },
    Field {
        key: "def",
        label: "Defence",
        help: "What every phone does before sending its update. Diverse Batch: train on one point per place (DBSCAN clusters). Farthest Batch: train on the places farthest from where you mostly were — a decoy. Random subset: as many random points as Diverse Batch (the baseline). Local DP: clip every local step’s gradient (or the whole update) and add Gaussian noise. GeoInd: move every location by planar-Laplace noise. Errors stay measured against your real round data.",
        kind: Kind::Choice(DEFENCES),
        get: |s| s.defence.key().into(),
        set: |s, v| {
            s.defence = DefenceChoice::ALL
                .iter()
                .find(|(_, k)| *k == v)
                .map(|x| x.0)
                .ok_or_else(|| format!("“{v}” is not a defence"))?;
            Ok(())
        },
        section: Section::Defence,
    },
    Field {
        key: "deps",
        label: "DBSCAN eps (km)",
        help: "Points closer than this belong to the same place (the paper's best: 0.05 km). Clusters need 5 points; stray points are left out.",
        kind: Kind::Number {
            step: "0.01",
            limit: limits::DBSCAN_EPS_KM,
        },
        get: |s| trim(s.dbscan_eps_km),
        set: |s, v| {
            s.dbscan_eps_km = limited(v, &limits::DBSCAN_EPS_KM)?;
            Ok(())
        },
        section: Section::Defence,
    },
    Field {
        key: "dnum",
        label: "Farthest Batch points",
        help: "How many points the phone trains on, taken from the farthest places first. Fewer points: more privacy, a worse model.",
        kind: Kind::Number {
            step: "1",
            limit: limits::FARTHEST_NUM,
        },
        get: |s| s.farthest_num.to_string(),
        set: |s, v| {
            s.farthest_num = limited(v, &limits::FARTHEST_NUM)? as usize;
            Ok(())
        },
        section: Section::Defence,
    },
    Field {
        key: "dpat",
        label: "DP applied to",
        help: "Where the phone clips and adds noise. Every local step (the paper's, [000] §4.5): each mini-batch gradient is clipped to norm 1 and noised before the step, so a FedAvg round of E·⌈n/B⌉ steps spends ε that many times. Once on the update: the whole update is clipped and noised once (one release a round, but a clipped update of many steps barely moves the model).",
        kind: Kind::Choice(DP_APPLIED),
        get: |s| s.dp_applied_to.key().into(),
        set: |s, v| {
            s.dp_applied_to = match v {
                "local_step" => AppliedTo::LocalStep,
                "update" => AppliedTo::Update,
                _ => return Err(format!("“{v}” is not a place for DP (local_step, update)")),
            };
            Ok(())
        },
        section: Section::Defence,
    },
    Field {
        key: "dpe",
        label: "DP ε per release",
        help: "What it protects: one phone's whole round of data (every point it trained on that round), against a server that sees its update — local DP, so any two of the phone's data sets are neighbours and the sensitivity is twice the clipping norm 1. Gaussian mechanism with δ = 1e-5, σ calibrated exactly for this ε per release (every local step, or the update) by the analytic Gaussian mechanism (Balle & Wang 2018; the paper's classic formula √(2 ln(1.25/δ))/ε is proven only for ε < 1). Smaller ε: more noise. The results show the ε of one round (its releases composed) and your total over all rounds, with δ (Rényi-DP composition).",
        kind: Kind::Number {
            step: "10",
            limit: limits::DP_EPSILON,
        },
        get: |s| trim(s.dp_epsilon),
        set: |s, v| {
            s.dp_epsilon = limited(v, &limits::DP_EPSILON)?;
            Ok(())
        },
        section: Section::Defence,
    },
    Field {
        key: "geo",
        label: "GeoInd ε (per m)",
        help: "Planar-Laplace noise on every location; the mean shift is 2/ε (0.005 per m: 400 m).",
        kind: Kind::Number {
            step: "0.001",
            limit: limits::GEOIND_EPSILON_PER_M,
        },
        get: |s| trim(s.geo_epsilon_per_m),
        set: |s, v| {
            s.geo_epsilon_per_m = limited(v, &limits::GEOIND_EPSILON_PER_M)?;
            Ok(())
        },
        section: Section::Defence,
    },
    Field {
        key: "seed",
        label: "Seed",
        help: "Everything random (the world, the noise, the model) comes from this number: the same seed gives the same run.",
        kind: Kind::Number {
            step: "1",
            limit: limits::SEED,
        },
        get: |s| s.seed.to_string(),
        set: |s, v| {
            s.seed = limited(v, &limits::SEED)? as u64;
            Ok(())
        },
        section: Section::World,
    },
];

/// The other synthetic users who can join the visitor (the campus world's users 1–6).
const OTHER_USERS: Limit = Limit {
    min: 0.0,
    min_exclusive: false,
    max: MAX_OTHER_USERS as f64,
    whole: true,
    text: "a whole number from 0 to 6",
};

/// A number the engine uses in f32 (the learning rate): the bound is checked on the f32 value,
/// as the engine checks it; the text as typed is kept.
fn limited_f32(value: &str, limit: &Limit) -> Result<f64, String> {
    within(value, limit, |v| f64::from(v as f32))
}

impl LabSettings {
    /// The value of a control as text ("" for an unknown key).
    pub fn get(&self, key: &str) -> String {
        crate::ui::settings::get_field(FIELDS, self, key)
    }

    /// Sets a control from text; an absurd value is refused with a message naming it, and the
    /// settings are left as they were.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = self.clone();
        crate::ui::settings::set_field(FIELDS, &mut next, key, value)?;
        if next.sample_minutes > next.leg_minutes {
            return Err("Minutes between GPS fixes: must not exceed the minutes per leg".into());
        }
        *self = next;
        Ok(())
    }

    /// The engine configuration: the campus world, the visitor as user 0 with `waypoints`,
    /// the first `background` synthetic users alongside. Waypoints are rounded to whole metres,
    /// as the URL carries them, so a shared link reproduces the run exactly.
    pub fn to_config(&self, waypoints: &[Metres]) -> ScenarioConfig {
        let trajectory = Trajectory {
            waypoints: waypoints
                .iter()
                .map(|p| Metres::new(p.east.round(), p.north.round()))
                .collect(),
            leg_minutes: self.leg_minutes,
            sample_minutes: self.sample_minutes,
        };
        let weeks = (trajectory.duration_s() / 604_800.0).ceil().clamp(1.0, 8.0) as u32;
        let mut attack = AttackConfig {
            dlg: self.dlg,
            analytic: self.analytic,
            ..AttackConfig::default()
        };
        attack.settings.max_iterations = self.iterations;
        attack.settings.optimizer = Optimizer::Adam { lr: self.attack_lr };
        attack.settings.init = self.init.engine();
        // The FedAvg-aware attack shares DLG's budget, step size and start.
        attack.fedavg = self
            .fedavg_attack
            .then(|| FedAvgConfig::like(&attack.settings));
        let round_length = match self.round_hours {
            1.0 => RoundLength::Hour,
            24.0 => RoundLength::Day,
            168.0 => RoundLength::Week,
            h => RoundLength::Hours(h),
        };
        ScenarioConfig {
            seed: self.seed,
            world: WorldChoice {
                preset: Preset::Campus,
                users: Some(MAX_OTHER_USERS + 1),
                weeks: Some(weeks),
                cell: None,
                background: Some(self.background_user),
            },
            model: ModelChoice::Preset(self.model),
            output_bias: if self.warm {
                OutputBias::MeanLabel
            } else {
                OutputBias::Zero
            },
            warm_start: self.warm.then(WarmStart::default),
            round_length,
            fl: FlConfig {
                local: LocalTraining {
                    batch_size: self.batch,
                    epochs: self.epochs as usize,
                    learning_rate: self.lr as f32,
                },
                client_fraction: self.fraction,
                cumulative: false,
            },
            target: 0,
            participants: Some(
                (0..=self.other_users as u32)
                    .chain(self.background_user.then_some(BACKGROUND_ID))
                    .collect(),
            ),
            attack,
            trajectory: Some(trajectory),
            defence: self.engine_defence(),
            ..ScenarioConfig::default()
        }
    }

    /// Whether a control matters with the other settings (a defence's parameters show only
    /// with that defence).
    pub fn relevant(&self, key: &str) -> bool {
        use DefenceChoice::*;
        match key {
            "deps" => matches!(self.defence, Diverse | Farthest | Random),
            "dnum" => self.defence == Farthest,
            "dpe" | "dpat" => self.defence == Dp,
            "geo" => self.defence == GeoInd,
            _ => true,
        }
    }

    fn engine_defence(&self) -> Defence {
        let (eps_km, min_samples) = (
            self.dbscan_eps_km,
            whereabouts_engine::signal_map::defence::PAPER_MIN_SAMPLES,
        );
        match self.defence {
            DefenceChoice::None => Defence::None,
            DefenceChoice::Diverse => Defence::DiverseBatch {
                eps_km,
                min_samples,
            },
            DefenceChoice::Farthest => Defence::FarthestBatch {
                eps_km,
                min_samples,
                num: self.farthest_num,
            },
            DefenceChoice::Random => Defence::RandomSubset {
                eps_km,
                min_samples,
            },
            DefenceChoice::Dp => Defence::LocalDp(LocalDp {
                applied_to: self.dp_applied_to,
                ..LocalDp::at(self.dp_epsilon)
            }),
            DefenceChoice::GeoInd => Defence::GeoInd {
                epsilon_per_m: self.geo_epsilon_per_m,
            },
        }
    }

    /// The query string (without `?`) for these settings, a path and hidden controls.
    pub fn to_query(&self, path: &[Metres], hidden: &[String]) -> String {
        let mut parts: Vec<String> = FIELDS
            .iter()
            .map(|f| format!("{}={}", f.key, self.get(f.key)))
            .collect();
        parts.push(format!("path={}", encode_path(path)));
        if !hidden.is_empty() {
            parts.push(format!("hide={}", hidden.join(",")));
        }
        parts.join("&")
    }

    /// Reads a query string. Problems are returned as messages (the default is kept for a bad
    /// value) so a mistyped URL still opens, and says what it ignored.
    pub fn from_query(query: &str) -> FromQuery {
        let mut out = FromQuery {
            settings: LabSettings::default(),
            path: None,
            hidden: Vec::new(),
            problems: Vec::new(),
        };
        for (key, value) in query_pairs(query) {
            match key {
                // The shell's (the tab showing, a lesson, present mode); another lab's setting.
                _ if crate::shell::tabs::SHELL_KEYS.contains(&key) => {}
                _ if crate::shell::tabs::other_lab_key(key) => {}
                "path" => match decode_path(&value) {
                    Ok(p) => out.path = Some(p),
                    Err(e) => out.problems.push(e),
                },
                "hide" => {
                    out.hidden = value
                        .split(',')
                        .filter(|k| {
                            FIELDS.iter().any(|f| f.key == *k) || CONTROL_GROUPS.contains(k)
                        })
                        .map(str::to_string)
                        .collect()
                }
                _ => {
                    if let Err(e) = out.settings.set(key, &value) {
                        out.problems.push(e);
                    }
                }
            }
        }
        // A link the lab wrote before the warm start existed (it carries a path, never a
        // start) ran from the paper's cold start: it still reproduces that run.
        let keys = || {
            query
                .trim_start_matches('?')
                .split('&')
                .map(|p| p.split('=').next())
        };
        if keys().any(|k| k == Some("path")) && !keys().any(|k| k == Some("start")) {
            out.settings.warm = false;
        }
        out
    }
}

/// Hideable groups of controls besides the fields (playback, trajectory tools).
pub const CONTROL_GROUPS: &[&str] = &[
    "playback", "draw", "presets", "export", "layers", "data", "studies", "status",
];

/// What a URL said.
#[derive(Clone, Debug, PartialEq)]
pub struct FromQuery {
    pub settings: LabSettings,
    pub path: Option<Vec<Metres>>,
    pub hidden: Vec<String>,
    pub problems: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each numeric control accepts exactly what the engine accepts: at both ends of its bound
    /// and a hair outside them, the page's parser and the engine's validation agree.
    #[test]
    fn every_bound_on_the_page_is_the_engines() {
        let (hw, hh) = crate::signal_map::campus_half();
        let area = (Metres::new(-hw, -hh), Metres::new(hw, hh));
        let path = whereabouts_engine::signal_map::trajectory::TrajectoryPreset::Commute
            .trajectory(hw, hh)
            .waypoints;
        // Room for the probes: one waypoint, the longest legs, the shortest fixes.
        let base = LabSettings {
            leg_minutes: 10_080.0,
            sample_minutes: 0.1,
            ..LabSettings::default()
        };
        let path = &path[..1];
        // The engine's verdict on a value put in place without the page's parser.
        let engine_accepts = |key: &str, x: f64| {
            let mut s = base.clone();
            match key {
                "T" => s.round_hours = x,
                "B" => s.batch = Some(x as usize).filter(|_| x.fract() == 0.0 && x >= 0.0),
                "E" => s.epochs = x as u32,
                "lr" => s.lr = x,
                "C" => s.fraction = x,
                "its" => s.iterations = x as usize,
                "alr" => s.attack_lr = x,
                "leg" => s.leg_minutes = x,
                "fix" => s.sample_minutes = x,
                "deps" => (s.defence, s.dbscan_eps_km) = (DefenceChoice::Diverse, x),
                "dnum" => (s.defence, s.farthest_num) = (DefenceChoice::Farthest, x as usize),
                "dpe" => (s.defence, s.dp_epsilon) = (DefenceChoice::Dp, x),
                "geo" => (s.defence, s.geo_epsilon_per_m) = (DefenceChoice::GeoInd, x),
                other => panic!("no engine check for {other}"),
            }
            if matches!(key, "B" | "E" | "its" | "dnum") && x.fract() != 0.0 {
                return false; // a whole-number setting has no fractional value to hold
            }
            if key == "fix" && x > s.leg_minutes {
                return false;
            }
            let c = s.to_config(path);
            c.validate().is_ok() && c.trajectory.as_ref().unwrap().validate(area).is_ok()
        };
        let mut checked = 0;
        for f in FIELDS {
            // T is offered as a list, but a link may carry any length within its bound.
            let limit = match f.kind {
                Kind::Number { limit, .. } => limit,
                _ if f.key == "T" => limits::ROUND_HOURS,
                _ => continue,
            };
            // The seed (any u64 for the engine; a URL carries 2⁵³) and the other users (the
            // lab's world has six) are the page's own bounds.
            if matches!(f.key, "seed" | "bg") {
                continue;
            }
            for x in [
                limit.min,
                limit.min.next_down(),
                limit.min.next_up(),
                limit.max,
                limit.max.next_up(),
                limit.max.next_down(),
                limit.max + 1.0,
                (limit.min + limit.max) / 2.0,
            ] {
                if x < 0.0 {
                    continue;
                }
                let mut page = base.clone();
                let accepted = page.set(f.key, &format!("{x}")).is_ok();
                assert_eq!(
                    accepted,
                    engine_accepts(f.key, x),
                    "{} = {x}: the page {} it, the engine does not agree",
                    f.key,
                    if accepted { "accepts" } else { "refuses" }
                );
            }
            checked += 1;
        }
        assert_eq!(checked, 13, "every numeric engine setting was probed");
    }

    #[test]
    fn the_defaults_are_the_engines() {
        let s = LabSettings::default();
        assert_eq!(s.get("lr"), "0.001");
        let c = s.to_config(&[Metres::new(0.0, 0.0)]);
        let e = ScenarioConfig::default();
        assert_eq!(c.fl.local, e.fl.local);
        assert_eq!(c.fl.client_fraction, e.fl.client_fraction);
        assert_eq!(c.round_length, e.round_length);
        assert_eq!(c.model, e.model);
        assert_eq!(c.attack.settings, e.attack.settings);
        assert_eq!(
            (c.attack.dlg, c.attack.analytic),
            (e.attack.dlg, e.attack.analytic)
        );
    }

    #[test]
    fn the_model_help_quotes_the_engines_parameter_counts() {
        use whereabouts_engine::signal_map::model::ModelPreset;
        let help = FIELDS.iter().find(|f| f.key == "model").unwrap().help;
        let grouped = |n: usize| {
            let s = n.to_string();
            let mut out = String::new();
            for (i, c) in s.chars().enumerate() {
                if i > 0 && (s.len() - i).is_multiple_of(3) {
                    out.push(',');
                }
                out.push(c);
            }
            out
        };
        for preset in [ModelPreset::Small, ModelPreset::Paper] {
            let n = grouped(preset.spec().parameter_count());
            assert!(
                help.contains(&n),
                "{preset:?} has {n} parameters; the help says: {help}"
            );
        }
    }

    #[test]
    fn the_shells_lab_key_is_not_a_problem_of_the_signal_map() {
        let q = LabSettings::from_query("?lab=density&seed=4");
        assert!(q.problems.is_empty(), "{:?}", q.problems);
        assert_eq!(q.settings.seed, 4);
    }

    #[test]
    fn every_field_round_trips_through_the_url() {
        let mut s = LabSettings::default();
        s.set("T", "6").unwrap();
        s.set("B", "32").unwrap();
        s.set("lr", "0.01").unwrap();
        s.set("bg", "3").unwrap();
        s.set("init", "grid").unwrap();
        s.set("dlg", "0").unwrap();
        s.set("seed", "42").unwrap();
        s.set("def", "farthest").unwrap();
        s.set("dnum", "7").unwrap();
        let path = vec![Metres::new(-10.0, 20.0), Metres::new(300.4, -299.6)];
        let q = s.to_query(&path, &["seed".into(), "playback".into()]);
        let back = LabSettings::from_query(&q);
        assert_eq!(back.settings, s);
        assert_eq!(
            back.path.unwrap(),
            vec![Metres::new(-10.0, 20.0), Metres::new(300.0, -300.0)]
        );
        assert_eq!(
            back.hidden,
            vec!["seed".to_string(), "playback".to_string()]
        );
        assert!(back.problems.is_empty(), "{:?}", back.problems);
    }

    #[test]
    fn a_shared_url_gives_the_same_engine_config() {
        let s = LabSettings::default();
        let path = vec![Metres::new(-382.5, 10.25), Metres::new(0.4999, -0.5)];
        let q = LabSettings::from_query(&s.to_query(&path, &[]));
        assert_eq!(q.settings.to_config(&q.path.unwrap()), s.to_config(&path));
    }

    #[test]
    fn absurd_values_are_refused_with_the_field_named() {
        let mut s = LabSettings::default();
        let e = s.set("lr", "100").unwrap_err();
        assert!(e.starts_with("Learning rate η"), "{e}");
        assert!(s.set("E", "2.5").unwrap_err().contains("whole number"));
        assert!(s.set("bg", "7").is_err());
        assert!(s.set("B", "0").is_err());
        assert!(s.set("lr", "NaN").is_err());
        assert!(s.set("fix", "500").unwrap_err().contains("minutes per leg"));
        assert_eq!(s, LabSettings::default(), "a refused value changes nothing");
        s.set("B", "inf").unwrap();
        assert_eq!(s.batch, None);
    }

    #[test]
    fn the_visitor_joins_a_learnt_federation_unless_the_link_asks_for_the_papers_cold_start() {
        let path = [Metres::new(0.0, 0.0)];
        let warm = LabSettings::default().to_config(&path);
        assert_eq!(warm.warm_start, Some(WarmStart::default()));
        assert_eq!(warm.output_bias, OutputBias::MeanLabel);
        assert!(
            LabSettings::default()
                .to_query(&[], &[])
                .contains("start=warm")
        );
        assert!(LabSettings::from_query("?seed=3").settings.warm);
        // A link written before the warm start existed still reproduces its cold run.
        assert!(!LabSettings::from_query("?seed=3&path=0.0").settings.warm);
        assert!(
            LabSettings::from_query("?start=warm&path=0.0")
                .settings
                .warm
        );
        let q = LabSettings::from_query("?start=cold");
        assert!(q.problems.is_empty(), "{:?}", q.problems);
        let cold = q.settings.to_config(&path);
        assert_eq!(cold.warm_start, None);
        assert_eq!(cold.output_bias, OutputBias::Zero);
        assert!(q.settings.to_query(&[], &[]).contains("start=cold"));
        let q = LabSettings::from_query("?start=lukewarm");
        assert!(q.problems[0].contains("You join"), "{:?}", q.problems);
    }

    #[test]
    fn a_bad_url_opens_with_defaults_and_says_why() {
        let q = LabSettings::from_query("?lr=abc&E=3&path=1.2_oops&hide=seed,bogus");
        assert_eq!(q.settings.epochs, 3);
        assert_eq!(q.settings.lr, LabSettings::default().lr);
        assert_eq!(q.problems.len(), 2, "{:?}", q.problems);
        assert!(q.problems[1].contains("point 2"));
        assert_eq!(q.hidden, vec!["seed".to_string()]);
    }

    #[test]
    fn the_config_is_valid_and_puts_the_visitor_first() {
        let mut s = LabSettings::default();
        s.set("bg", "2").unwrap();
        let c = s.to_config(&[Metres::new(0.0, 0.0), Metres::new(100.0, 0.0)]);
        c.validate().unwrap();
        assert_eq!(c.participants, Some(vec![0, 1, 2]));
        assert_eq!(c.round_length, RoundLength::Day);
        assert_eq!(c.trajectory.unwrap().waypoints.len(), 2);
        assert_eq!(c.world.background, Some(false));
        // The background user joins after the regular users.
        s.set("bgu", "1").unwrap();
        let c = s.to_config(&[Metres::new(0.0, 0.0)]);
        assert_eq!(c.participants, Some(vec![0, 1, 2, BACKGROUND_ID]));
        assert_eq!(c.world.background, Some(true));
        assert!(s.to_query(&[], &[]).contains("bgu=1"));
        let mut s = LabSettings::default();
        s.set("def", "dp").unwrap();
        assert!(s.relevant("dpe") && !s.relevant("dnum"));
        let c = s.to_config(&[Metres::new(0.0, 0.0)]);
        assert!(matches!(c.defence, Defence::LocalDp(d) if d.epsilon == 100.0));
        c.validate().unwrap();
    }
}
