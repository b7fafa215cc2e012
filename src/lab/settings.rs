//! The lab's settings: what the controls edit, what the URL carries, and how they become an
//! engine [`ScenarioConfig`].
//!
//! Every setting has a short URL key. A URL holds the whole configuration, the seed and the
//! drawn path, so opening it reproduces a run exactly; `hide=key,key` hides controls (the
//! TensorFlow Playground convention for instructors). Values are refused with a message, never
//! clamped silently.

use whereabouts_core::geo::Metres;
use whereabouts_engine::signal_map::attack::dlg::{Init, Optimizer, START_NOISE_M};
use whereabouts_engine::signal_map::defense::Defense;
use whereabouts_engine::signal_map::defense::dp::LocalDp;
use whereabouts_engine::signal_map::fl::FlConfig;
use whereabouts_engine::signal_map::model::ModelPreset;
use whereabouts_engine::signal_map::model::train::LocalTraining;
use whereabouts_engine::signal_map::scenario::{
    AttackConfig, ModelChoice, ScenarioConfig, WorldChoice,
};
use whereabouts_engine::signal_map::trace::RoundLength;
use whereabouts_engine::signal_map::trajectory::Trajectory;
use whereabouts_engine::signal_map::world::Preset;

/// Background users available in the campus world (users 1–6; user 0 is the visitor).
pub const MAX_BACKGROUND: usize = 6;
/// The background user's id: it comes after the world's `MAX_BACKGROUND + 1` regular users.
pub const BACKGROUND_ID: u32 = MAX_BACKGROUND as u32 + 1;

/// Everything the visitor can set.
#[derive(Clone, Debug, PartialEq)]
pub struct LabSettings {
    pub seed: u64,
    /// T, in hours.
    pub round_hours: f64,
    /// B; `None` = ∞ (the whole round's data in one batch).
    pub batch: Option<usize>,
    pub epochs: u32,
    /// η, the local learning rate.
    pub lr: f64,
    /// C, the fraction of users per round.
    pub fraction: f64,
    pub background: usize,
    /// The background user (many short-lived sources merged into one) takes part.
    pub background_user: bool,
    pub model: ModelPreset,
    pub iterations: usize,
    /// DLG's Adam step size.
    pub attack_lr: f64,
    pub init: InitChoice,
    pub analytic: bool,
    pub dlg: bool,
    pub leg_minutes: f64,
    pub sample_minutes: f64,
    /// The devices' defence ([000] §4.3–4.5) and its parameters.
    pub defense: DefenseChoice,
    pub dbscan_eps_km: f64,
    pub farthest_num: usize,
    pub dp_epsilon: f64,
    pub geo_epsilon_per_m: f64,
}

/// Defences offered in the lab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefenseChoice {
    None,
    Diverse,
    Farthest,
    Random,
    Dp,
    GeoInd,
}

impl DefenseChoice {
    pub const ALL: [(DefenseChoice, &'static str); 6] = [
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

impl Default for LabSettings {
    fn default() -> Self {
        Self {
            seed: 1,
            round_hours: 24.0,
            batch: None,
            epochs: 1,
            lr: 1e-3,
            fraction: 1.0,
            background: 0,
            background_user: false,
            model: ModelPreset::Small,
            iterations: 2000,
            attack_lr: 0.02,
            init: InitChoice::Analytic,
            analytic: true,
            dlg: true,
            leg_minutes: 180.0,
            sample_minutes: 10.0,
            defense: DefenseChoice::None,
            dbscan_eps_km: 0.05,
            farthest_num: 10,
            dp_epsilon: 100.0,
            geo_epsilon_per_m: 0.005,
        }
    }
}

/// How a control is edited.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Number { step: &'static str },
    Select(&'static [(&'static str, &'static str)]),
    Toggle,
}

/// One control: URL key, label, explanation, kind, and the panel section.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Field {
    pub key: &'static str,
    pub label: &'static str,
    pub help: &'static str,
    pub kind: Kind,
    pub section: Section,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    Trajectory,
    Federation,
    Attack,
    Defense,
    World,
}

const DEFENSES: &[(&str, &str)] = &[
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
const MODELS: &[(&str, &str)] = &[("small", "Small"), ("paper", "Paper's")];
const INITS: &[(&str, &str)] = &[
    ("analytic", "Lemma 1 + noise"),
    ("centroid", "Truth + noise"),
    ("random", "Random"),
    ("grid", "Grid cell"),
    ("previous", "Previous"),
];

pub const FIELDS: &[Field] = &[
    Field {
        key: "leg",
        label: "Minutes per leg",
        help: "How long you take from one waypoint to the next. Every leg takes the same time, so two waypoints in the same place are a stay.",
        kind: Kind::Number { step: "10" },
        section: Section::Trajectory,
    },
    Field {
        key: "fix",
        label: "Minutes between GPS fixes",
        help: "How often your phone logs a measurement (position + signal strength).",
        kind: Kind::Number { step: "1" },
        section: Section::Trajectory,
    },
    Field {
        key: "T",
        label: "Round length T",
        help: "Online FL: each round your phone trains only on what it logged during the round. Shorter rounds mean tighter batches, and more leakage (Insight I1).",
        kind: Kind::Select(ROUNDS),
        section: Section::Federation,
    },
    Field {
        key: "B",
        label: "Batch size B",
        help: "Local mini-batch size; ∞ (type inf) = the whole round's data in one batch. With E = 1 and B = ∞ this is FedSGD: the update is one exact gradient.",
        kind: Kind::Number { step: "1" },
        section: Section::Federation,
    },
    Field {
        key: "E",
        label: "Local epochs E",
        help: "Passes over the round's data before sending the update. More local steps (FedAvg) blur what the update says about the batch (Insight I3).",
        kind: Kind::Number { step: "1" },
        section: Section::Federation,
    },
    Field {
        key: "lr",
        label: "Learning rate η",
        help: "Local SGD step size. The server divides the update by η to get the gradient it attacks.",
        kind: Kind::Number { step: "0.001" },
        section: Section::Federation,
    },
    Field {
        key: "C",
        label: "Fraction of users C",
        help: "Share of the users with data that the server picks each round.",
        kind: Kind::Number { step: "0.1" },
        section: Section::Federation,
    },
    Field {
        key: "bg",
        label: "Other users",
        help: "Synthetic users of the campus world who join the federation (0–6). They change the global model, not what your own update reveals.",
        kind: Kind::Number { step: "1" },
        section: Section::Federation,
    },
    Field {
        key: "bgu",
        label: "Background user",
        help: "A crowd of short-lived sources merged into one extra participant, like the many one-off uploads of a crowdsourced data set (the paper's Radiocells background user, Table 3).",
        kind: Kind::Toggle,
        section: Section::Federation,
    },
    Field {
        key: "model",
        label: "Model",
        help: "The signal-map model every phone trains. The paper's model has 145,313 parameters; the small one 4,417, fast enough to re-attack while you drag.",
        kind: Kind::Select(MODELS),
        section: Section::Federation,
    },
    Field {
        key: "dlg",
        label: "DLG attack",
        help: "Deep Leakage from Gradients (Algorithm 2): the server optimises one dummy location until its gradient points like your update.",
        kind: Kind::Toggle,
        section: Section::Attack,
    },
    Field {
        key: "lemma",
        label: "Analytic attack (Lemma 1)",
        help: "The instant reconstruction: the first layer's weight and bias gradients give a weighted average of your locations, no optimisation needed.",
        kind: Kind::Toggle,
        section: Section::Attack,
    },
    Field {
        key: "its",
        label: "DLG iterations",
        help: "Upper limit on optimisation steps (the paper allows 400,000; it stops earlier once the dummy stops moving).",
        kind: Kind::Number { step: "100" },
        section: Section::Attack,
    },
    Field {
        key: "alr",
        label: "DLG step size",
        help: "Adam learning rate of the dummy location, in standardised units.",
        kind: Kind::Number { step: "0.005" },
        section: Section::Attack,
    },
    Field {
        key: "init",
        label: "DLG starts from",
        help: "Where the dummy location starts ([000] §4.1). The paper starts near the true centroid, which a real server cannot; the default starts from the analytic estimate.",
        kind: Kind::Select(INITS),
        section: Section::Attack,
    },
    Field {
        key: "def",
        label: "Defence",
        help: "What every phone does before sending its update. Diverse Batch: train on one point per place (DBSCAN clusters). Farthest Batch: train on the places farthest from where you mostly were — a decoy. Random subset: as many random points as Diverse Batch (the baseline). Local DP: clip the update and add Gaussian noise. GeoInd: move every location by planar-Laplace noise. Errors stay measured against your real round data.",
        kind: Kind::Select(DEFENSES),
        section: Section::Defense,
    },
    Field {
        key: "deps",
        label: "DBSCAN eps (km)",
        help: "Points closer than this belong to the same place (the paper's best: 0.05 km). Clusters need 5 points; stray points are left out.",
        kind: Kind::Number { step: "0.01" },
        section: Section::Defense,
    },
    Field {
        key: "dnum",
        label: "Farthest Batch points",
        help: "How many points the phone trains on, taken from the farthest places first. Fewer points: more privacy, a worse model.",
        kind: Kind::Number { step: "1" },
        section: Section::Defense,
    },
    Field {
        key: "dpe",
        label: "DP ε per round",
        help: "Gaussian mechanism with δ = 1e-5 and clipping norm 1 (the paper's), σ calibrated exactly for this ε per round by the analytic Gaussian mechanism (Balle & Wang 2018; the paper's classic formula √(2 ln(1.25/δ))/ε is proven only for ε < 1 and at ε = 100 gives no guarantee). Smaller ε: more noise. The results show the total ε over all rounds (Rényi-DP composition).",
        kind: Kind::Number { step: "10" },
        section: Section::Defense,
    },
    Field {
        key: "geo",
        label: "GeoInd ε (per m)",
        help: "Planar-Laplace noise on every location; the mean shift is 2/ε (0.005 per m: 400 m).",
        kind: Kind::Number { step: "0.001" },
        section: Section::Defense,
    },
    Field {
        key: "seed",
        label: "Seed",
        help: "Everything random (the world, the noise, the model) comes from this number: the same seed gives the same run.",
        kind: Kind::Number { step: "1" },
        section: Section::World,
    },
];

fn number(key: &str, value: &str) -> Result<f64, String> {
    let v: f64 = value
        .trim()
        .parse()
        .map_err(|_| format!("{key}: “{value}” is not a number"))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("{key}: must be a finite number"))
    }
}

fn whole(key: &str, value: &str, lo: u64, hi: u64) -> Result<u64, String> {
    let v = number(key, value)?;
    if v.fract() != 0.0 || v < lo as f64 || v > hi as f64 {
        return Err(format!("{key}: must be a whole number from {lo} to {hi}"));
    }
    Ok(v as u64)
}

fn within(key: &str, value: &str, lo: f64, hi: f64, what: &str) -> Result<f64, String> {
    let v = number(key, value)?;
    if v < lo || v > hi {
        return Err(format!("{key}: must be {what}"));
    }
    Ok(v)
}

fn flag(key: &str, value: &str) -> Result<bool, String> {
    match value {
        "1" | "true" | "on" => Ok(true),
        "0" | "false" | "off" => Ok(false),
        _ => Err(format!("{key}: must be 1 or 0")),
    }
}

/// The label of a field, for messages.
pub fn label(key: &str) -> &'static str {
    FIELDS
        .iter()
        .find(|f| f.key == key)
        .map_or("setting", |f| f.label)
}

impl LabSettings {
    /// The value of a control as text.
    pub fn get(&self, key: &str) -> String {
        match key {
            "seed" => self.seed.to_string(),
            "T" => trim(self.round_hours),
            "B" => self.batch.map_or("inf".into(), |b| b.to_string()),
            "E" => self.epochs.to_string(),
            "lr" => trim(self.lr),
            "C" => trim(self.fraction),
            "bg" => self.background.to_string(),
            "bgu" => u8::from(self.background_user).to_string(),
            "model" => match self.model {
                ModelPreset::Small => "small".into(),
                ModelPreset::Paper => "paper".into(),
            },
            "its" => self.iterations.to_string(),
            "alr" => trim(self.attack_lr),
            "init" => self.init.key().into(),
            "lemma" => u8::from(self.analytic).to_string(),
            "dlg" => u8::from(self.dlg).to_string(),
            "leg" => trim(self.leg_minutes),
            "fix" => trim(self.sample_minutes),
            "def" => self.defense.key().into(),
            "deps" => trim(self.dbscan_eps_km),
            "dnum" => self.farthest_num.to_string(),
            "dpe" => trim(self.dp_epsilon),
            "geo" => trim(self.geo_epsilon_per_m),
            _ => String::new(),
        }
    }

    /// Sets a control from text; an absurd value is refused with a message naming it, and the
    /// settings are left as they were.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let name = label(key);
        let mut next = self.clone();
        match key {
            "seed" => next.seed = whole(name, value, 0, 9_007_199_254_740_991)?,
            "T" => {
                next.round_hours = within(
                    name,
                    value,
                    1.0 / 60.0,
                    744.0,
                    "between 1 minute and 31 days (in hours)",
                )?
            }
            "B" => {
                let v = value.trim();
                next.batch = if matches!(v, "inf" | "∞" | "") {
                    None
                } else {
                    Some(whole(name, v, 1, 1_000_000)? as usize)
                }
            }
            "E" => next.epochs = whole(name, value, 1, 100)? as u32,
            "lr" => next.lr = within(name, value, 1e-6, 10.0, "between 0.000001 and 10")?,
            "C" => next.fraction = within(name, value, 0.01, 1.0, "between 0.01 and 1")?,
            "bg" => next.background = whole(name, value, 0, MAX_BACKGROUND as u64)? as usize,
            "model" => {
                next.model = match value {
                    "small" => ModelPreset::Small,
                    "paper" => ModelPreset::Paper,
                    _ => return Err(format!("{name}: “{value}” is not a model (small, paper)")),
                }
            }
            "its" => next.iterations = whole(name, value, 1, 100_000)? as usize,
            "alr" => next.attack_lr = within(name, value, 1e-5, 10.0, "between 0.00001 and 10")?,
            "init" => {
                next.init = InitChoice::ALL
                    .iter()
                    .find(|(_, k)| *k == value)
                    .map(|x| x.0)
                    .ok_or_else(|| format!("{name}: “{value}” is not a starting point"))?
            }
            "lemma" => next.analytic = flag(name, value)?,
            "dlg" => next.dlg = flag(name, value)?,
            "bgu" => next.background_user = flag(name, value)?,
            "leg" => {
                next.leg_minutes =
                    within(name, value, 1.0, 10_080.0, "between 1 minute and 1 week")?
            }
            "fix" => {
                next.sample_minutes =
                    within(name, value, 0.5, 1440.0, "between 0.5 minutes and 1 day")?
            }
            "def" => {
                next.defense = DefenseChoice::ALL
                    .iter()
                    .find(|(_, k)| *k == value)
                    .map(|x| x.0)
                    .ok_or_else(|| format!("{name}: “{value}” is not a defence"))?
            }
            "deps" => {
                next.dbscan_eps_km = within(name, value, 0.0001, 10.0, "between 0.0001 and 10 km")?
            }
            "dnum" => next.farthest_num = whole(name, value, 1, 100_000)? as usize,
            "dpe" => {
                next.dp_epsilon = within(name, value, 0.01, 1e6, "between 0.01 and 1,000,000")?
            }
            "geo" => {
                next.geo_epsilon_per_m =
                    within(name, value, 1e-5, 10.0, "between 0.00001 and 10 per metre")?
            }
            _ => return Err(format!("unknown setting “{key}”")),
        }
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
                users: Some(MAX_BACKGROUND + 1),
                weeks: Some(weeks),
                cell: None,
                background: Some(self.background_user),
            },
            model: ModelChoice::Preset(self.model),
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
                (0..=self.background as u32)
                    .chain(self.background_user.then_some(BACKGROUND_ID))
                    .collect(),
            ),
            attack,
            trajectory: Some(trajectory),
            defense: self.engine_defense(),
            ..ScenarioConfig::default()
        }
    }

    /// Whether a control matters with the other settings (a defence's parameters show only
    /// with that defence).
    pub fn relevant(&self, key: &str) -> bool {
        use DefenseChoice::*;
        match key {
            "deps" => matches!(self.defense, Diverse | Farthest | Random),
            "dnum" => self.defense == Farthest,
            "dpe" => self.defense == Dp,
            "geo" => self.defense == GeoInd,
            _ => true,
        }
    }

    fn engine_defense(&self) -> Defense {
        let (eps_km, min_samples) = (
            self.dbscan_eps_km,
            whereabouts_engine::signal_map::defense::PAPER_MIN_SAMPLES,
        );
        match self.defense {
            DefenseChoice::None => Defense::None,
            DefenseChoice::Diverse => Defense::DiverseBatch {
                eps_km,
                min_samples,
            },
            DefenseChoice::Farthest => Defense::FarthestBatch {
                eps_km,
                min_samples,
                num: self.farthest_num,
            },
            DefenseChoice::Random => Defense::RandomSubset {
                eps_km,
                min_samples,
            },
            DefenseChoice::Dp => Defense::LocalDp(LocalDp::at(self.dp_epsilon)),
            DefenseChoice::GeoInd => Defense::GeoInd {
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
        for pair in query
            .trim_start_matches('?')
            .split('&')
            .filter(|p| !p.is_empty())
        {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode_component(value);
            match key {
                // The shell's: which lab's tab shows (crate::shell).
                "lab" => {}
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
        out
    }
}

/// Hideable groups of controls besides the fields (playback, trajectory tools).
pub const CONTROL_GROUPS: &[&str] = &["playback", "draw", "presets", "export", "layers"];

/// What a URL said.
#[derive(Clone, Debug, PartialEq)]
pub struct FromQuery {
    pub settings: LabSettings,
    pub path: Option<Vec<Metres>>,
    pub hidden: Vec<String>,
    pub problems: Vec<String>,
}

fn trim(x: f64) -> String {
    format!("{x}")
}

fn decode_component(s: &str) -> String {
    js_free_percent_decode(&s.replace('+', " "))
}

/// Percent-decoding without a browser (the app's URLs only carry ASCII).
fn js_free_percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Waypoints as whole metres: `e.n_e.n_…` (URL-safe, readable).
pub fn encode_path(path: &[Metres]) -> String {
    path.iter()
        .map(|p| format!("{}.{}", p.east.round() as i64, p.north.round() as i64))
        .collect::<Vec<_>>()
        .join("_")
}

pub fn decode_path(s: &str) -> Result<Vec<Metres>, String> {
    if s.trim().is_empty() {
        return Ok(Vec::new());
    }
    s.split('_')
        .enumerate()
        .map(|(i, pair)| {
            let bad = || {
                format!(
                    "path: point {} (“{pair}”) is not “east.north” in whole metres",
                    i + 1
                )
            };
            let (e, n) = pair.split_once('.').ok_or_else(bad)?;
            let e: i64 = e.parse().map_err(|_| bad())?;
            let n: i64 = n.parse().map_err(|_| bad())?;
            Ok(Metres::new(e as f64, n as f64))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(matches!(c.defense, Defense::LocalDp(d) if d.epsilon == 100.0));
        c.validate().unwrap();
    }
}
