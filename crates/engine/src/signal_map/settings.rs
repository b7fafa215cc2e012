//! The Signal-map lab's settings, one row each ([`whereabouts_core::setting`]): the page's
//! controls, the address bar's keys (plain: `T`, `B`, … — the lab was there first), the
//! lessons' and the instructor's keys and the messages for refused values all come from
//! [`SETTINGS`], read and written on a [`ScenarioConfig`]. The lab opens on [`lab_default`]:
//! the campus with the visitor walking the simple week, joining a federation that has learnt.
//!
//! Its length (about 770 lines before the tests): 35 rows, one per setting, each with its help
//! text, in the panel's order, and the few helpers the defence and attack rows share.

use super::attack::dlg::{Init, Optimizer, START_NOISE_M};
use super::attack::fedavg::FedAvgConfig;
use super::central_dp::{CentralDp, NoiseAt};
use super::defence::dp::{AppliedTo, LocalDp};
use super::defence::{DEFAULT_MIN_SAMPLES, Defence};
use super::limits::{self, Limit};
use super::model::ModelPreset;
use super::scenario::{ModelChoice, OutputBias, ScenarioConfig, WorldChoice};
use super::trace::RoundLength;
use super::trajectory::{Trajectory, TrajectoryPreset};
use super::warm_start::WarmStart;
use super::world::Preset;
use whereabouts_core::choices;
use whereabouts_core::geo::Metres;
use whereabouts_core::privacy::central::settings as central_help;
use whereabouts_core::secagg::sybil::{SybilSettings, min_genuine_row, sybils_row};
use whereabouts_core::setting::{Choices, Setting, flag, flag_text, number, trim};

/// The panel's sections, in order.
pub const TRAJECTORY: &str = "Your trajectory";
pub const FEDERATION: &str = "Federated learning";
pub const ATTACK: &str = "The server's attack";
pub const DEFENCE: &str = "Defence";
pub const WORLD: &str = "World";
pub const SECTIONS: [&str; 5] = [TRAJECTORY, FEDERATION, ATTACK, DEFENCE, WORLD];

/// The link's key for hidden controls, and the groups of controls besides the settings
/// (playback, the path tools, …).
pub const HIDE_KEY: &str = "hide";
pub const CONTROL_GROUPS: &[&str] = &[
    "playback", "draw", "presets", "export", "layers", "data", "studies", "status",
];

/// Other users available in the campus world (users 1–6; user 0 is the visitor).
pub const MAX_OTHER_USERS: usize = 6;
/// The background user's id: it comes after the world's `MAX_OTHER_USERS + 1` regular users.
pub const BACKGROUND_ID: u32 = MAX_OTHER_USERS as u32 + 1;
/// The other synthetic users who can join the visitor (the campus world's users 1–6).
pub const OTHER_USERS: Limit = Limit {
    min: 0.0,
    min_exclusive: false,
    max: MAX_OTHER_USERS as f64,
    whole: true,
    text: "a whole number from 0 to 6",
};

/// Each defence's parameters when it is first chosen: DBSCAN's eps (the paper's best, 0.05
/// km), Farthest Batch's points, local DP's ε per release, GeoInd's ε per metre (400 m), GAN
/// obfuscation's level ρ (the middle of its range).
pub const DEFAULT_EPS_KM: f64 = 0.05;
pub const DEFAULT_FARTHEST_NUM: usize = 10;
pub const DEFAULT_DP_EPSILON: f64 = 100.0;
pub const DEFAULT_GEO_EPSILON_PER_M: f64 = 0.005;
pub const DEFAULT_GAN_RHO: f64 = 0.5;
/// The grid of DLG's grid start: the paper's 350 m ([000] §4.1).
pub const GRID_SPACING_M: f64 = 350.0;

choices!(ModelPreset, "a model", {
    ModelPreset::Small => "small", "Small";
    ModelPreset::Paper => "paper", "Paper's";
});

const ROUNDS: &[(&str, &str)] = &[
    ("1", "1 hour"),
    ("6", "6 hours"),
    ("12", "12 hours"),
    ("24", "1 day"),
    ("168", "1 week"),
];
/// What the server receives each round (issue 39 §4's setting, here its first two values).
const SEES: &[(&str, &str)] = &[
    ("updates", "Every update"),
    ("sum", "Only the sum"),
    ("dp", "Sum + central DP"),
    ("malicious", "Malicious server"),
];
const STARTS: &[(&str, &str)] = &[("warm", "Learnt map"), ("cold", "Untrained")];
const ATTACKS: &[(&str, &str)] = &[("dlg", "DLG (paper)"), ("fedavg", "+ FedAvg-aware")];
/// DLG's starts ([000] §4.1, "DLG Initialization Strategies"): the grid is the paper's 350 m;
/// the noise, 200 m, is our choice (the paper gives no scale; docs/papers.md).
const INITS: &[(&str, &str)] = &[
    ("analytic", "Near Lemma 1"),
    ("centroid", "Near the truth"),
    ("random", "Random"),
    ("grid", "Grid cell"),
    ("previous", "Previous"),
];
const DEFENCES: &[(&str, &str)] = &[
    ("none", "None"),
    ("diverse", "Diverse Batch"),
    ("farthest", "Farthest Batch"),
    ("random", "Random subset"),
    ("dp", "Local DP"),
    ("geoind", "GeoInd"),
    ("gan", "GAN obfuscation"),
];

/// The campus's half width and height, m (the same for every seed).
pub fn campus_half() -> (f64, f64) {
    let c = Preset::Campus.config(1);
    (c.half_width(), c.half_height())
}

/// The path the lab opens with: the simple week on the campus.
pub fn default_path() -> Vec<Metres> {
    let (hw, hh) = campus_half();
    TrajectoryPreset::Week.trajectory(hw, hh).waypoints
}

/// The lab's opening run: the engine's federation, model and attack (FedSGD, the small model,
/// DLG and Lemma 1) on the campus, the visitor (user 0) walking the simple week alone, after
/// the federation learnt from the other campus users for four weeks.
pub fn lab_default() -> ScenarioConfig {
    let (hw, hh) = campus_half();
    let mut c = ScenarioConfig {
        world: WorldChoice {
            preset: Preset::Campus,
            users: Some(MAX_OTHER_USERS + 1),
            weeks: None,
            cell: None,
            background: Some(false),
        },
        target: 0,
        participants: Some(vec![0]),
        trajectory: Some(TrajectoryPreset::Week.trajectory(hw, hh)),
        ..ScenarioConfig::default()
    };
    set_warm(&mut c, true);
    set_init(&mut c, "analytic").expect("a start the table offers");
    with_path(&c, &default_path())
}

/// `config` with the visitor walking `waypoints` (rounded to whole metres, as the link carries
/// them, so that a shared link reproduces the run exactly); the world lasts as many weeks as
/// the walk (1 to 8).
pub fn with_path(config: &ScenarioConfig, waypoints: &[Metres]) -> ScenarioConfig {
    let mut c = config.clone();
    let trajectory = c.trajectory.get_or_insert_with(|| Trajectory {
        waypoints: Vec::new(),
        leg_minutes: super::trajectory::DEFAULT_LEG_MINUTES,
        sample_minutes: super::trajectory::DEFAULT_FIX_MINUTES,
    });
    trajectory.waypoints = waypoints
        .iter()
        .map(|p| Metres::new(p.east.round(), p.north.round()))
        .collect();
    fit_weeks(&mut c);
    c
}

/// The world lasts as long as the visitor's walk, 1 to 8 weeks.
fn fit_weeks(c: &mut ScenarioConfig) {
    if let Some(t) = &c.trajectory {
        c.world.weeks = Some((t.duration_s() / 604_800.0).ceil().clamp(1.0, 8.0) as u32);
    }
}

/// The walk's timing (a config without a walk — the visitor's file, the engine's synthetic
/// routine — has the defaults', and its timing rows have no effect).
fn walk(c: &ScenarioConfig) -> (f64, f64) {
    c.trajectory.as_ref().map_or(
        (
            super::trajectory::DEFAULT_LEG_MINUTES,
            super::trajectory::DEFAULT_FIX_MINUTES,
        ),
        |t| (t.leg_minutes, t.sample_minutes),
    )
}

/// Warm: the federation has learnt before the visitor's first round (the lab's choice); cold:
/// [000]'s untrained model.
fn set_warm(c: &mut ScenarioConfig, warm: bool) {
    c.warm_start = warm.then(WarmStart::default);
    c.output_bias = if warm {
        OutputBias::MeanLabel
    } else {
        OutputBias::Zero
    };
}

/// The other users taking part (not the visitor, not the background user).
fn other_users(c: &ScenarioConfig) -> usize {
    c.participants.as_ref().map_or(0, |p| {
        p.iter()
            .filter(|&&u| u != c.target && u != BACKGROUND_ID)
            .count()
    })
}

fn background_user(c: &ScenarioConfig) -> bool {
    c.world.background == Some(true)
}

/// The visitor, the first `others` campus users, and the background user if it takes part.
fn set_participants(c: &mut ScenarioConfig, others: usize, background: bool) {
    c.world.background = Some(background);
    c.participants = Some(
        (0..=others as u32)
            .chain(background.then_some(BACKGROUND_ID))
            .collect(),
    );
}

/// The n − 1 attack's rows (the core's, shared with the Mobility lab) read and write secure
/// aggregation's settings; with secure aggregation off they read as an honest server with no
/// minimum, and writing them does nothing.
impl SybilSettings for ScenarioConfig {
    fn sybils(&self) -> usize {
        self.secure_aggregation.as_ref().map_or(0, |s| s.sybils)
    }
    fn set_sybils(&mut self, sybils: usize) {
        if let Some(s) = &mut self.secure_aggregation {
            s.sybils = sybils;
        }
    }
    fn min_genuine(&self) -> usize {
        self.secure_aggregation
            .as_ref()
            .map_or(1, |s| s.min_genuine)
    }
    fn set_min_genuine(&mut self, min_genuine: usize) {
        if let Some(s) = &mut self.secure_aggregation {
            s.min_genuine = min_genuine;
        }
    }
    fn taking_part(&self) -> usize {
        self.participants.as_ref().map_or(usize::MAX, Vec::len)
    }
    fn sees_sum(&self) -> bool {
        self.secure_aggregation.is_some()
    }
}

/// Central DP's settings, or their defaults where it is off (what its rows show).
fn central(c: &ScenarioConfig) -> CentralDp {
    c.central_dp.unwrap_or_default()
}

/// Refuses a federation of `users` smaller than secure aggregation's minimum cohort.
fn fewer_than_the_cohort(c: &ScenarioConfig, users: usize) -> Result<(), String> {
    match &c.secure_aggregation {
        Some(s) if s.min_genuine > users => Err(format!(
            "{users} users taking part is fewer than the minimum cohort of {} genuine phones (lower it first)",
            s.min_genuine
        )),
        _ => Ok(()),
    }
}

/// The FedAvg-aware attack shares DLG's budget, step size and start.
fn refresh_fedavg(c: &mut ScenarioConfig) {
    if c.attack.fedavg.is_some() {
        c.attack.fedavg = Some(FedAvgConfig::like(&c.attack.settings));
    }
}

fn init_key(init: Init) -> &'static str {
    match init {
        Init::AnalyticPlusNoise { .. } => "analytic",
        Init::CentroidPlusNoise { .. } => "centroid",
        Init::RandomInArea => "random",
        Init::Grid { .. } => "grid",
        Init::Previous => "previous",
    }
}

fn set_init(c: &mut ScenarioConfig, v: &str) -> Result<(), String> {
    c.attack.settings.init = match v {
        "analytic" => Init::AnalyticPlusNoise {
            sd_m: START_NOISE_M,
        },
        "centroid" => Init::CentroidPlusNoise {
            sd_m: START_NOISE_M,
        },
        "random" => Init::RandomInArea,
        "grid" => Init::Grid {
            spacing_m: GRID_SPACING_M,
            cell: None,
        },
        "previous" => Init::Previous,
        _ => return Err(format!("“{v}” is not a starting point")),
    };
    refresh_fedavg(c);
    Ok(())
}

/// The defence as the page names it ("Diverse Batch").
pub fn defence_label(d: &Defence) -> &'static str {
    let key = defence_key(d);
    DEFENCES
        .iter()
        .find(|(k, _)| *k == key)
        .map_or(key, |(_, label)| label)
}

fn defence_key(d: &Defence) -> &'static str {
    match d {
        Defence::None => "none",
        Defence::DiverseBatch { .. } => "diverse",
        Defence::FarthestBatch { .. } => "farthest",
        Defence::RandomSubset { .. } => "random",
        Defence::LocalDp(_) => "dp",
        Defence::GeoInd { .. } => "geoind",
        Defence::Gan { .. } => "gan",
    }
}

/// DBSCAN's eps of a batch defence (Diverse, Farthest, Random subset).
fn eps_km(d: &Defence) -> Option<f64> {
    match *d {
        Defence::DiverseBatch { eps_km, .. }
        | Defence::FarthestBatch { eps_km, .. }
        | Defence::RandomSubset { eps_km, .. } => Some(eps_km),
        _ => None,
    }
}

/// The defence `key` at its first parameters; the batch defences share DBSCAN's eps, so
/// switching between them keeps it.
fn defence_of(key: &str, before: &Defence) -> Result<Defence, String> {
    let eps_km = eps_km(before).unwrap_or(DEFAULT_EPS_KM);
    let min_samples = DEFAULT_MIN_SAMPLES;
    Ok(match key {
        "none" => Defence::None,
        "diverse" => Defence::DiverseBatch {
            eps_km,
            min_samples,
        },
        "farthest" => Defence::FarthestBatch {
            eps_km,
            min_samples,
            num: DEFAULT_FARTHEST_NUM,
        },
        "random" => Defence::RandomSubset {
            eps_km,
            min_samples,
        },
        "dp" => Defence::LocalDp(LocalDp::at(DEFAULT_DP_EPSILON)),
        "geoind" => Defence::GeoInd {
            epsilon_per_m: DEFAULT_GEO_EPSILON_PER_M,
        },
        "gan" => Defence::Gan {
            rho: DEFAULT_GAN_RHO,
        },
        _ => return Err(format!("“{key}” is not a defence")),
    })
}

/// Local DP's settings when it is the defence in force.
fn local_dp(c: &ScenarioConfig) -> Option<LocalDp> {
    match c.defence {
        Defence::LocalDp(d) => Some(d),
        _ => None,
    }
}

/// A number the engine uses in f32 (the learning rate): the bound is checked on the f32 value,
/// as the engine checks it.
fn number_f32(value: &str, limit: &Limit) -> Result<f32, String> {
    whereabouts_core::setting::within(value, limit, |v| f64::from(v as f32)).map(|v| v as f32)
}

/// A row of the lab's table.
type Row = Setting<ScenarioConfig>;

/// Every setting of the Signal-map lab, in the panel's order.
pub const SETTINGS: &[Row] = &[
    Row::number("leg", "Minutes per leg", TRAJECTORY, "10", limits::LEG_MINUTES)
        .help("How long you take from one waypoint to the next. Every leg takes the same time, so two waypoints in the same place are a stay.")
        .get(|c| trim(walk(c).0))
        .set(|c, v| {
            let leg = number(v, &limits::LEG_MINUTES)?;
            if walk(c).1 > leg {
                return Err("must not be less than the minutes between GPS fixes".into());
            }
            if let Some(t) = c.trajectory.as_mut() {
                t.leg_minutes = leg;
            }
            fit_weeks(c);
            Ok(())
        })
        .relevant(|c| c.trajectory.is_some()),
    Row::number("fix", "Minutes between GPS fixes", TRAJECTORY, "1", limits::FIX_MINUTES)
        .help("How often your phone logs a measurement (position + signal strength).")
        .get(|c| trim(walk(c).1))
        .set(|c, v| {
            let fix = number(v, &limits::FIX_MINUTES)?;
            if fix > walk(c).0 {
                return Err("must not exceed the minutes per leg".into());
            }
            if let Some(t) = c.trajectory.as_mut() {
                t.sample_minutes = fix;
            }
            Ok(())
        })
        .relevant(|c| c.trajectory.is_some()),
    Row::choice("start", "You join", FEDERATION, STARTS)
        .help("Warm: before your first round the federation trained for 4 weeks on the other campus users, so the map is a real signal map. A model that fits the data has small gradients that point every way, and the server's reconstructions land much farther from you (Insight I2). Cold: the paper's setting, an untrained model: the map starts blank and the first rounds leak the most.")
        .get(|c| {
            if c.warm_start.is_some() {
                "warm"
            } else {
                "cold"
            }
            .into()
        })
        .set(|c, v| {
            match v {
                "warm" => set_warm(c, true),
                "cold" => set_warm(c, false),
                _ => return Err(format!("“{v}” is not a start (warm, cold)")),
            }
            Ok(())
        }),
    Row::choice("T", "Round length T", FEDERATION, ROUNDS)
        .help("Online FL: each round your phone trains only on what it logged during the round. Shorter rounds mean tighter batches, and more leakage (Insight I1).")
        .get(|c| trim(c.round_length.seconds() / 3600.0))
        .set(|c, v| {
            c.round_length = match number(v, &limits::ROUND_HOURS)? {
                1.0 => RoundLength::Hour,
                24.0 => RoundLength::Day,
                168.0 => RoundLength::Week,
                h => RoundLength::Hours(h),
            };
            Ok(())
        }),
    Row::number("B", "Batch size B", FEDERATION, "1", limits::BATCH_SIZE)
        .help("Local mini-batch size; ∞ (type inf) = the whole round's data in one batch. With E = 1 and B = ∞ this is FedSGD: the update is one exact gradient.")
        .get(|c| {
            c.fl.local
                .batch_size
                .map_or("inf".into(), |b| b.to_string())
        })
        .set(|c, v| {
            let v = v.trim();
            c.fl.local.batch_size = if matches!(v, "inf" | "∞" | "") {
                None
            } else {
                Some(number(v, &limits::BATCH_SIZE)? as usize)
            };
            Ok(())
        }),
    Row::number("E", "Local epochs E", FEDERATION, "1", limits::EPOCHS)
        .help("Passes over the round's data before sending the update. More local steps (FedAvg) blur what the update says about the batch (Insight I3).")
        .get(|c| c.fl.local.epochs.to_string())
        .set(|c, v| {
            c.fl.local.epochs = number(v, &limits::EPOCHS)? as usize;
            Ok(())
        }),
    // The shortest decimal of the f32 (0.001, not 0.0010000000474974513).
    Row::number("lr", "Learning rate η", FEDERATION, "0.001", limits::LEARNING_RATE)
        .help("Local SGD step size. The server divides the update by η to get the gradient it attacks.")
        .get(|c| c.fl.local.learning_rate.to_string())
        .set(|c, v| {
            c.fl.local.learning_rate = number_f32(v, &limits::LEARNING_RATE)?;
            Ok(())
        }),
    Row::number("C", "Fraction of users C", FEDERATION, "0.1", limits::CLIENT_FRACTION)
        .help("Share of the users with data that the server picks each round.")
        .get(|c| trim(c.fl.client_fraction))
        .set(|c, v| {
            c.fl.client_fraction = number(v, &limits::CLIENT_FRACTION)?;
            Ok(())
        }),
    Row::number("bg", "Other users", FEDERATION, "1", OTHER_USERS)
        .help("Synthetic users of the campus world who join the federation (0–6). They change the global model, and through it what your own update reveals ([000] §4.6, Insight I4): users unlike you keep the model from fitting you, so your updates stay large and the attacks more accurate; users like you protect you a little. In this synthetic world the effect is inside the noise (docs/reproduce.md, finding 8).")
        .get(|c| other_users(c).to_string())
        .set(|c, v| {
            let others = number(v, &OTHER_USERS)? as usize;
            fewer_than_the_cohort(c, others + 1 + usize::from(background_user(c)))?;
            set_participants(c, others, background_user(c));
            Ok(())
        }),
    Row::toggle("bgu", "Background user", FEDERATION)
        .help("A crowd of short-lived sources merged into one extra participant, like the many one-off uploads of a crowdsourced data set (the paper's Radiocells background user, Table 3).")
        .get(|c| flag_text(background_user(c)))
        .set(|c, v| {
            let background = flag(v)?;
            fewer_than_the_cohort(c, other_users(c) + 1 + usize::from(background))?;
            set_participants(c, other_users(c), background);
            Ok(())
        }),
    Row::choice("model", "Model", FEDERATION, ModelPreset::MENU)
        .help("The signal-map model every phone trains. The paper's model has 145,313 parameters; the small one 4,417, fast enough to re-attack while you drag.")
        .get(|c| match &c.model {
            ModelChoice::Preset(p) => Choices::key(p).into(),
            ModelChoice::Custom(_) => "custom".into(),
        })
        .set(|c, v| {
            c.model = ModelChoice::Preset(<ModelPreset as Choices>::parse(v)?);
            Ok(())
        }),
    Row::choice("sees", "What the server sees", FEDERATION, SEES)
        .help("Every update: the server receives each phone's update, as in the paper, and attacks yours. Only the sum: secure aggregation (Bonawitz et al. 2017) — the phones mask their updates so that the server can unmask only the round's sum; it learns the same model and attacks the only update it has, the average of everyone's, so DLG and Lemma 1 land on a blend of all participants' places. The errors stay measured to your own centroid. Each round runs the real protocol among the phones (key agreement, secret sharing, masking). Sum + central DP: the same secure sum, and DP-FedAvg (McMahan et al. 2018) on top — every sampled phone clips its update, Gaussian noise is added to the sum (its settings are under Defence), and the server attacks the noised average; the results show your user-level ε beside the map's error. Malicious server: beyond honest-but-curious, the server changes the model it sends (Fowl et al. 2022): an imprint layer in front reads individual fixes exactly out of the secure sum; it spends the round on that, so the map does not learn and DLG and Lemma 1 do not run.")
        .get(|c| match (&c.secure_aggregation, &c.central_dp) {
            (Some(s), _) if s.imprint.is_some() => "malicious".into(),
            (Some(_), Some(_)) => "dp".into(),
            (Some(_), None) => "sum".into(),
            _ => "updates".into(),
        })
        .set(|c, v| {
            c.secure_aggregation = match v {
                "updates" => None,
                "sum" | "dp" | "malicious" => Some(c.secure_aggregation.take().unwrap_or_default()),
                _ => return Err(format!("“{v}” is not what a server can see")),
            };
            if let Some(s) = &mut c.secure_aggregation {
                s.imprint = (v == "malicious").then(|| s.imprint.clone().unwrap_or_default());
            }
            c.central_dp = (v == "dp").then(|| c.central_dp.unwrap_or_default());
            Ok(())
        }),
    Row::toggle("dlg", "DLG attack", ATTACK)
        .help("Deep Leakage from Gradients (Algorithm 2): the server optimises one dummy location until its gradient points like your update.")
        .get(|c| flag_text(c.attack.dlg))
        .set(|c, v| {
            c.attack.dlg = flag(v)?;
            Ok(())
        }),
    Row::choice("att", "Server's attack", ATTACK, ATTACKS)
        .help("DLG as in the paper matches one dummy point to your whole update. Beyond the paper, a FedAvg-aware server (Dimitrov et al. 2022) knows B, E, η and how many points you trained on, replays your phone's local training on one dummy point per local step, and matches the simulated update to yours: it runs after DLG on the same update, so both errors show side by side, and the map shows its dummies (one per step) beside the true mini-batch centroids. Each of its iterations replays every local step, so it is slower with many steps.")
        .get(|c| {
            if c.attack.fedavg.is_some() {
                "fedavg"
            } else {
                "dlg"
            }
            .into()
        })
        .set(|c, v| {
            c.attack.fedavg = match v {
                "dlg" => None,
                "fedavg" => Some(FedAvgConfig::like(&c.attack.settings)),
                _ => return Err(format!("“{v}” is not an attack")),
            };
            Ok(())
        }),
    Row::toggle("lemma", "Analytic attack (Lemma 1)", ATTACK)
        .help("The instant reconstruction: the first layer's weight gradient divided by its bias gradient is a weighted combination of your locations ([000] Lemma 1; the weights sum to one but can be negative), read with no optimisation. [000] uses Lemma 1 to explain DLG; running it as an attack is this project's extension.")
        .get(|c| flag_text(c.attack.analytic))
        .set(|c, v| {
            c.attack.analytic = flag(v)?;
            Ok(())
        }),
    Row::number("its", "DLG iterations", ATTACK, "100", limits::DLG_ITERATIONS)
        .help("Upper limit on optimisation steps (the paper allows 400,000; it stops earlier once the dummy stops moving).")
        .get(|c| c.attack.settings.max_iterations.to_string())
        .set(|c, v| {
            c.attack.settings.max_iterations = number(v, &limits::DLG_ITERATIONS)? as usize;
            refresh_fedavg(c);
            Ok(())
        }),
    Row::number("alr", "DLG step size", ATTACK, "0.005", limits::DLG_LEARNING_RATE)
        .help("Adam learning rate of the dummy location, in standardised units.")
        .get(|c| match c.attack.settings.optimizer {
            Optimizer::Adam { lr } | Optimizer::Sgd { lr } => trim(lr),
        })
        .set(|c, v| {
            let lr = number(v, &limits::DLG_LEARNING_RATE)?;
            c.attack.settings.optimizer = Optimizer::Adam { lr };
            refresh_fedavg(c);
            Ok(())
        }),
    Row::choice("init", "DLG starts from", ATTACK, INITS)
        .help("Where the dummy location starts ([000] §4.1). The paper starts near the true centroid, which a real server cannot; the default starts near the analytic estimate (both with a little noise).")
        .get(|c| init_key(c.attack.settings.init).into())
        .set(set_init),
    sybils_row("sybil", ATTACK),
    Row::number("bins", "Imprint bins", ATTACK, "1", limits::IMPRINT_BINS)
        .help("The malicious server (Fowl et al. 2022, “Robbing the Fed”) puts a layer of this many bins in front of the model it sends: every bin measures the same thing about a fix (here the mean of its standardised east and north) and switches on above its own threshold, the thresholds at equal shares of the area. From the round's sum — through secure aggregation and FedAvg — the difference of two neighbouring bins' changes is the one fix that fell between them, exactly, when it fell there alone; two fixes in one bin give a blend of them. More bins: fewer shared bins, so more fixes recovered, and a bigger model to send.")
        .get(|c| {
            c.secure_aggregation
                .as_ref()
                .and_then(|s| s.imprint.as_ref())
                .map_or(crate::signal_map::imprint::ImprintConfig::default().bins, |i| i.bins)
                .to_string()
        })
        .set(|c, v| {
            let n = number(v, &limits::IMPRINT_BINS)? as usize;
            if let Some(i) = c.secure_aggregation.as_mut().and_then(|s| s.imprint.as_mut()) {
                i.bins = n;
            }
            Ok(())
        })
        .relevant(|c| c.secure_aggregation.as_ref().is_some_and(|s| s.imprint.is_some())),
    Row::choice("def", "Defence", DEFENCE, DEFENCES)
        .help("What every phone does before sending its update. Diverse Batch: train on one point per place (DBSCAN clusters), raising the batch's location variance ([000] §4.3). Farthest Batch: train on the places farthest from the round's centroid, so the attacks land far from it — on one of your own places, not a decoy. Random subset: as many random points as Diverse Batch (the baseline). Local DP: clip every local step’s gradient (or the whole update) and add Gaussian noise. GeoInd: move every location by planar-Laplace noise. GAN obfuscation: two small networks trained on the phone, one rewriting your points so that the other cannot tell where they were taken. Errors stay measured against your real round data.")
        .get(|c| defence_key(&c.defence).into())
        .set(|c, v| {
            // The same defence again keeps its parameters.
            if defence_key(&c.defence) != v {
                c.defence = defence_of(v, &c.defence)?;
            }
            Ok(())
        }),
    Row::number("deps", "DBSCAN eps (km)", DEFENCE, "0.01", limits::DBSCAN_EPS_KM)
        .help("Points closer than this belong to the same place (the paper's best: 0.05 km). Clusters need 5 points; stray points are left out.")
        .get(|c| trim(eps_km(&c.defence).unwrap_or(DEFAULT_EPS_KM)))
        .set(|c, v| {
            let e = number(v, &limits::DBSCAN_EPS_KM)?;
            match &mut c.defence {
                Defence::DiverseBatch { eps_km, .. }
                | Defence::FarthestBatch { eps_km, .. }
                | Defence::RandomSubset { eps_km, .. } => *eps_km = e,
                _ => {}
            }
            Ok(())
        })
        .relevant(|c| eps_km(&c.defence).is_some()),
    Row::number("dnum", "Farthest Batch points", DEFENCE, "1", limits::FARTHEST_NUM)
        .help("How many points the phone trains on, taken from the farthest places first. Fewer points: more privacy, a worse model.")
        .get(|c| match c.defence {
            Defence::FarthestBatch { num, .. } => num.to_string(),
            _ => DEFAULT_FARTHEST_NUM.to_string(),
        })
        .set(|c, v| {
            let n = number(v, &limits::FARTHEST_NUM)? as usize;
            if let Defence::FarthestBatch { num, .. } = &mut c.defence {
                *num = n;
            }
            Ok(())
        })
        .relevant(|c| matches!(c.defence, Defence::FarthestBatch { .. })),
    Row::choice("dpat", "DP applied to", DEFENCE, AppliedTo::MENU)
        .help("Where the phone clips and adds noise. Every local step (the paper's, [000] §4.5): each mini-batch gradient is clipped to norm 1 and noised before the step, so a FedAvg round of E·⌈n/B⌉ steps spends ε that many times. Once on the update: the whole update is clipped and noised once (one release a round, but a clipped update of many steps barely moves the model).")
        .get(|c| Choices::key(&local_dp(c).map_or(AppliedTo::LocalStep, |d| d.applied_to)).into())
        .set(|c, v| {
            let applied_to = <AppliedTo as Choices>::parse(v)?;
            if let Defence::LocalDp(d) = &mut c.defence {
                d.applied_to = applied_to;
            }
            Ok(())
        })
        .relevant(|c| local_dp(c).is_some()),
    Row::number("dpe", "DP ε per release", DEFENCE, "10", limits::DP_EPSILON)
        .help("What it protects: one phone's whole round of data (every point it trained on that round), against a server that sees its update — local DP, so any two of the phone's data sets are neighbours and the sensitivity is twice the clipping norm 1. Gaussian mechanism with δ = 1e-5, σ calibrated exactly for this ε per release (every local step, or the update) by the analytic Gaussian mechanism (Balle & Wang 2018; the paper's classic formula √(2 ln(1.25/δ))/ε is proven only for ε < 1). Smaller ε: more noise. The results show the ε of one round (its releases composed) and your total over all rounds, with δ (Rényi-DP composition).")
        .get(|c| trim(local_dp(c).map_or(DEFAULT_DP_EPSILON, |d| d.epsilon)))
        .set(|c, v| {
            let epsilon = number(v, &limits::DP_EPSILON)?;
            if let Defence::LocalDp(d) = &mut c.defence {
                *d = LocalDp {
                    applied_to: d.applied_to,
                    ..LocalDp::at(epsilon)
                };
            }
            Ok(())
        })
        .relevant(|c| local_dp(c).is_some()),
    Row::number("geo", "GeoInd ε (per m)", DEFENCE, "0.001", limits::GEOIND_EPSILON_PER_M)
        .help("Planar-Laplace noise on every location; the mean shift is 2/ε (0.005 per m: 400 m).")
        .get(|c| match c.defence {
            Defence::GeoInd { epsilon_per_m } => trim(epsilon_per_m),
            _ => trim(DEFAULT_GEO_EPSILON_PER_M),
        })
        .set(|c, v| {
            let e = number(v, &limits::GEOIND_EPSILON_PER_M)?;
            if let Defence::GeoInd { epsilon_per_m } = &mut c.defence {
                *epsilon_per_m = e;
            }
            Ok(())
        })
        .relevant(|c| matches!(c.defence, Defence::GeoInd { .. })),
    Row::number("rho", "GAN obfuscation level ρ", DEFENCE, "0.01", limits::GAN_RHO)
        .help("Every round, before training, the phone trains two small networks on its round's points ([000] §4.5 after its ref. [15]): a privatizer that rewrites each point (position and signal) and an adversary that tries to tell from a rewritten point where it was really taken. ρ weighs keeping the points against fooling that adversary: 1 keeps them nearly as they are, smaller values rewrite them more and the map gets worse. The paper expects more privacy from a smaller ρ; but the server's attacks recover the round's centroid, which the rewriting moves much less, so see what the results say. From 0.01 to 1 (at 0 the privatizer's numbers run off to infinity). It costs far more computation than the other defences: two networks trained on every phone, every round.")
        .get(|c| match c.defence {
            Defence::Gan { rho } => trim(rho),
            _ => trim(DEFAULT_GAN_RHO),
        })
        .set(|c, v| {
            let r = number(v, &limits::GAN_RHO)?;
            if let Defence::Gan { rho } = &mut c.defence {
                *rho = r;
            }
            Ok(())
        })
        .relevant(|c| matches!(c.defence, Defence::Gan { .. })),
    min_genuine_row("cohort", DEFENCE),
    Row::number("dpz", "Noise multiplier z", DEFENCE, "0.1", limits::DP_NOISE_MULTIPLIER)
        .help(central_help::NOISE_MULTIPLIER)
        .get(|c| trim(central(c).noise_multiplier))
        .set(|c, v| {
            let z = number(v, &limits::DP_NOISE_MULTIPLIER)?;
            if let Some(d) = &mut c.central_dp {
                d.noise_multiplier = z;
            }
            Ok(())
        })
        .relevant(|c| c.central_dp.is_some()),
    Row::number("dpclip", "Clip C (update norm)", DEFENCE, "0.01", limits::DP_CLIP)
        .help(central_help::CLIP)
        .get(|c| trim(central(c).clip))
        .set(|c, v| {
            let clip = number(v, &limits::DP_CLIP)?;
            if let Some(d) = &mut c.central_dp {
                d.clip = clip;
            }
            Ok(())
        })
        .relevant(|c| c.central_dp.is_some()),
    Row::number("dpq", "Sampling rate q", DEFENCE, "0.05", limits::DP_SAMPLING_RATE)
        .help(central_help::SAMPLING_RATE)
        .get(|c| trim(central(c).sampling_rate))
        .set(|c, v| {
            let q = number(v, &limits::DP_SAMPLING_RATE)?;
            if let Some(d) = &mut c.central_dp {
                d.sampling_rate = q;
            }
            Ok(())
        })
        .relevant(|c| c.central_dp.is_some()),
    Row::toggle("dpadapt", "Adaptive clipping", DEFENCE)
        .help(central_help::ADAPTIVE)
        .get(|c| flag_text(central(c).adaptive))
        .set(|c, v| {
            let on = flag(v)?;
            if let Some(d) = &mut c.central_dp {
                d.adaptive = on;
            }
            Ok(())
        })
        .relevant(|c| c.central_dp.is_some()),
    Row::number("dpquant", "Target quantile γ", DEFENCE, "0.05", limits::DP_QUANTILE)
        .help(central_help::TARGET_QUANTILE)
        .get(|c| trim(central(c).target_quantile))
        .set(|c, v| {
            let g = number(v, &limits::DP_QUANTILE)?;
            if let Some(d) = &mut c.central_dp {
                d.target_quantile = g;
            }
            Ok(())
        })
        .relevant(|c| c.central_dp.is_some_and(|d| d.adaptive)),
    Row::choice("dpnoise", "Noise added by", DEFENCE, NoiseAt::MENU)
        .help(central_help::NOISE_AT)
        .get(|c| Choices::key(&central(c).noise_at).into())
        .set(|c, v| {
            let at = <NoiseAt as Choices>::parse(v)?;
            if let Some(d) = &mut c.central_dp {
                d.noise_at = at;
            }
            Ok(())
        })
        .relevant(|c| c.central_dp.is_some()),
    Row::number("dpdrop", "Phones that drop out", DEFENCE, "0.05", limits::DP_DROPOUT)
        .help(central_help::DROPOUT)
        .get(|c| trim(central(c).dropout))
        .set(|c, v| {
            let p = number(v, &limits::DP_DROPOUT)?;
            if let Some(d) = &mut c.central_dp {
                d.dropout = p;
            }
            Ok(())
        })
        .relevant(|c| c.central_dp.is_some()),
    whereabouts_core::seed_setting!(
        Row,
        "seed",
        WORLD,
        "Everything random (the world, the noise, the model) comes from this number: the same seed gives the same run."
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;
    use whereabouts_core::setting::Kind;
    use whereabouts_core::setting::{check_rows, get, set};

    #[test]
    fn every_setting_round_trips_through_its_text_and_absurd_values_are_named() {
        let mut c = lab_default();
        for (key, value) in [
            ("T", "6"),
            ("B", "32"),
            ("lr", "0.01"),
            ("bg", "3"),
            ("bgu", "1"),
            ("init", "grid"),
            ("att", "fedavg"),
            ("its", "700"),
            ("dlg", "0"),
            ("start", "cold"),
            ("seed", "42"),
            ("def", "gan"),
            ("rho", "0.25"),
            ("def", "farthest"),
            ("deps", "0.1"),
            ("dnum", "7"),
            ("leg", "90"),
            ("fix", "5"),
            ("sees", "sum"),
            ("sybil", "4"),
            ("cohort", "3"),
        ] {
            set(SETTINGS, &mut c, key, value).unwrap();
            assert_eq!(get(SETTINGS, &c, key), value, "{key}");
        }
        check_rows(
            SETTINGS,
            &SECTIONS,
            "",
            &lab_default(),
            &c,
            &[
                ("lr", "100"),
                ("lr", "NaN"),
                ("E", "2.5"),
                ("bg", "7"),
                ("B", "0"),
                ("T", "0"),
                ("fix", "500"),
                ("leg", "5"),
                ("its", "0"),
                ("def", "vpn"),
                ("rho", "0"),
                ("model", "huge"),
                ("start", "lukewarm"),
                ("sees", "everything"),
                ("sybil", "101"),
                ("sybil", "2.5"),
                ("cohort", "0"),
                ("cohort", "2"),
            ],
        );
        assert_eq!(
            c.secure_aggregation,
            Some(crate::signal_map::secure::SecureAggregation {
                sybils: 4,
                min_genuine: 3,
                imprint: None,
            })
        );
        assert_eq!(c.participants, Some(vec![0, 1, 2, 3, BACKGROUND_ID]));
        assert_eq!(c.world.background, Some(true));
        assert_eq!(
            c.attack.fedavg,
            Some(FedAvgConfig::like(&c.attack.settings))
        );
        assert_eq!(c.attack.settings.max_iterations, 700);
        c.validate().unwrap();

        let mut c = lab_default();
        assert!(
            set(SETTINGS, &mut c, "fix", "500")
                .unwrap_err()
                .contains("minutes per leg")
        );
        set(SETTINGS, &mut c, "B", "inf").unwrap();
        assert_eq!(c.fl.local.batch_size, None);
    }

    /// Each numeric row accepts exactly what the engine's validation accepts, at both ends of
    /// its bound and a hair outside them.
    #[test]
    fn every_bound_is_the_engines() {
        let (hw, hh) = campus_half();
        let area = (Metres::new(-hw, -hh), Metres::new(hw, hh));
        // Room for the probes: one waypoint, the longest legs, the shortest fixes.
        let mut base = with_path(&lab_default(), &default_path()[..1]);
        let t = base.trajectory.as_mut().unwrap();
        (t.leg_minutes, t.sample_minutes) = (10_080.0, 0.1);
        let mut checked = 0;
        for s in SETTINGS {
            let limit = match s.kind {
                Kind::Number { limit, .. } => limit,
                // T is offered as a list, but a link may carry any length within its bound.
                _ if s.key == "T" => limits::ROUND_HOURS,
                _ => continue,
            };
            // The seed (any u64 for the engine; a link carries 2⁵³) and the other users (the
            // lab's world has six) are the lab's own bounds.
            // So is the minimum cohort: at most the users taking part (its own test below).
            if matches!(s.key, "seed" | "bg" | "cohort") {
                continue;
            }
            let mut c = base.clone();
            // A defence's parameter is probed with its defence in force.
            let defence = match s.key {
                "deps" => "diverse",
                "dnum" => "farthest",
                "dpe" => "dp",
                "geo" => "geoind",
                "rho" => "gan",
                _ => "none",
            };
            set(SETTINGS, &mut c, "def", defence).unwrap();
            // Secure aggregation's settings are probed with it on (the imprint's bins with the
            // malicious server).
            let sees = if s.key == "bins" { "malicious" } else { "sum" };
            set(SETTINGS, &mut c, "sees", sees).unwrap();
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
                let mut row = c.clone();
                let accepted = set(SETTINGS, &mut row, s.key, &format!("{x}")).is_ok();
                if accepted {
                    let valid = row.validate().is_ok()
                        && row.trajectory.as_ref().unwrap().validate(area).is_ok();
                    assert!(
                        valid,
                        "{} = {x}: the row accepts it, the engine does not",
                        s.key
                    );
                } else {
                    // Refused: the value is outside the engine's bound (or not whole).
                    assert!(
                        !limit.contains(x) || x.fract() != 0.0,
                        "{} = {x}: the row refuses a value within the engine's bound",
                        s.key
                    );
                }
            }
            checked += 1;
        }
        assert_eq!(checked, 21, "every numeric engine setting was probed");
    }

    /// Secure aggregation's minimum cohort is at most the users taking part, both ways: a
    /// larger minimum is refused, and so are fewer users than the minimum; the engine refuses
    /// what the rows refuse.
    #[test]
    fn the_minimum_cohort_fits_the_federation() {
        let mut c = lab_default();
        set(SETTINGS, &mut c, "sees", "sum").unwrap();
        let e = set(SETTINGS, &mut c, "cohort", "2").unwrap_err();
        assert!(e.contains("more than the 1 users taking part"), "{e}");
        set(SETTINGS, &mut c, "bg", "4").unwrap();
        set(SETTINGS, &mut c, "cohort", "5").unwrap();
        c.validate().unwrap();
        let e = set(SETTINGS, &mut c, "bg", "3").unwrap_err();
        assert!(
            e.starts_with("Other users") && e.contains("minimum cohort of 5"),
            "{e}"
        );
        set(SETTINGS, &mut c, "bgu", "1").unwrap();
        set(SETTINGS, &mut c, "bg", "3").unwrap();
        let e = set(SETTINGS, &mut c, "bgu", "0").unwrap_err();
        assert!(e.contains("minimum cohort of 5"), "{e}");
        // Beyond the rows, the engine refuses it by name.
        let mut bad = c.clone();
        bad.participants = Some(vec![0, 1]);
        let e = bad.validate().unwrap_err().to_string();
        assert!(e.contains("secure_aggregation.min_genuine"), "{e}");
        // Back to every update: the settings go, and read as their defaults.
        set(SETTINGS, &mut c, "sees", "updates").unwrap();
        assert_eq!(c.secure_aggregation, None);
        assert_eq!(
            (get(SETTINGS, &c, "sybil"), get(SETTINGS, &c, "cohort")),
            ("0".into(), "1".into())
        );
    }

    #[test]
    fn the_defaults_are_the_engines_and_the_visitor_joins_a_learnt_federation() {
        let c = lab_default();
        let e = ScenarioConfig::default();
        assert_eq!(get(SETTINGS, &c, "lr"), "0.001");
        assert_eq!(c.fl, e.fl);
        assert_eq!(c.round_length, e.round_length);
        assert_eq!(c.model, e.model);
        assert_eq!(
            (c.attack.dlg, c.attack.analytic, c.attack.fedavg.clone()),
            (e.attack.dlg, e.attack.analytic, None)
        );
        assert_eq!(c.warm_start, Some(WarmStart::default()));
        assert_eq!(c.output_bias, OutputBias::MeanLabel);
        assert_eq!(c.participants, Some(vec![0]));
        assert_eq!(c.world.weeks, Some(1));
        c.validate().unwrap();
        let mut cold = c.clone();
        set(SETTINGS, &mut cold, "start", "cold").unwrap();
        assert_eq!(
            (cold.warm_start, cold.output_bias),
            (None, OutputBias::Zero)
        );
        let mut dp = c;
        set(SETTINGS, &mut dp, "def", "dp").unwrap();
        set(SETTINGS, &mut dp, "dpat", "update").unwrap();
        set(SETTINGS, &mut dp, "dpe", "30").unwrap();
        let relevant = |key: &str| (SETTINGS.iter().find(|s| s.key == key).unwrap().relevant)(&dp);
        assert!(relevant("dpe") && !relevant("dnum"));
        assert_eq!(
            dp.defence,
            Defence::LocalDp(LocalDp {
                applied_to: AppliedTo::Update,
                ..LocalDp::at(30.0)
            })
        );
        dp.validate().unwrap();
    }

    #[test]
    fn the_model_help_quotes_the_engines_parameter_counts() {
        let help = SETTINGS.iter().find(|s| s.key == "model").unwrap().help;
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
}
