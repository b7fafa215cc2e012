//! The Mobility lab's settings: one field per setting ([`crate::ui::settings`]), keys prefixed
//! `m.` in the shared query string, and how they become an engine [`MobConfig`].

use crate::shell::path_link::{decode_path, encode_path};
use crate::ui::settings::{
    Field as SharedField, Kind, choice, flag, key_of, limited, query_pairs, trim,
};
use whereabouts_core::geo::Metres;
use whereabouts_engine::mobility::config::{
    AttackConfig, Calibration, Federation, Init, Mapping, Method, MobConfig, Start,
};
use whereabouts_engine::mobility::defence::{Audit, Defence, DpClip};
use whereabouts_engine::mobility::limits;
use whereabouts_engine::mobility::traces::{CITY_HALF_H_M, CITY_HALF_W_M, Target, TraceKind};

/// Who the server's target is, as the page offers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// The path the visitor draws on the lab's map.
    Path,
    /// The imported file.
    File,
    /// The city's first user (a bus, or a person's check-ins).
    City,
}

/// Which defence the phones use (its ε and audit are their own settings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    None,
    /// DP-SGD as Abadi et al. define it (one flat clip, analytic σ).
    DpSgd,
    /// DP-SGD as the authors' code does it (per-tensor clip, classic σ; ε understated).
    DpSgdCode,
    GeoI,
    GeoGi,
    Adaptive,
}

const WHO: [(Who, &str); 3] = [
    (Who::Path, "path"),
    (Who::File, "file"),
    (Who::City, "city"),
];
const WHO_LABELS: &[(&str, &str)] = &[
    ("path", "Your route"),
    ("file", "Your file"),
    ("city", "A user of the city"),
];
const DATA: [(TraceKind, &str); 2] = [
    (TraceKind::Vehicle, "vehicle"),
    (TraceKind::CheckIn, "checkin"),
];
const DATA_LABELS: &[(&str, &str)] = &[("vehicle", "Buses (like NYC)"), ("checkin", "Check-ins")];
const FEDERATIONS: [(Federation, &str); 2] = [
    (Federation::OneClient, "one"),
    (Federation::FedAvg, "fedavg"),
];
const FEDERATION_LABELS: &[(&str, &str)] =
    &[("one", "One client (code)"), ("fedavg", "FedAvg (paper)")];
const METHODS: [(Method, &str); 6] = [
    (Method::StGia, "stgia"),
    (Method::Dlg, "dlg"),
    (Method::Idlg, "idlg"),
    (Method::InvGrad, "invgrad"),
    (Method::Cpl, "cpl"),
    (Method::Sapag, "sapag"),
];
const METHOD_LABELS: &[(&str, &str)] = &[
    ("stgia", "ST-GIA"),
    ("dlg", "DLG"),
    ("idlg", "iDLG"),
    ("invgrad", "InvGrad"),
    ("cpl", "CPL"),
    ("sapag", "SAPAG"),
];
const INITS: [(Init, &str); 3] = [
    (Init::Code, "code"),
    (Init::Paper, "paper"),
    (Init::Off, "off"),
];
const INIT_LABELS: &[(&str, &str)] = &[
    ("code", "Shifted (code)"),
    ("paper", "As it was (paper)"),
    ("off", "Off (random)"),
];
const MAPPINGS: [(Mapping, &str); 3] = [
    (Mapping::Roads, "roads"),
    (Mapping::OwnPoints, "own"),
    (Mapping::Off, "off"),
];
const MAPPING_LABELS: &[(&str, &str)] = &[
    ("roads", "Streets"),
    ("own", "Own points (oracle)"),
    ("off", "Off"),
];
const CALIBRATIONS: [(Calibration, &str); 3] = [
    (Calibration::Causal, "causal"),
    (Calibration::AllRounds, "all"),
    (Calibration::Off, "off"),
];
const CALIBRATION_LABELS: &[(&str, &str)] = &[
    ("causal", "So far (Eq. 9)"),
    ("all", "All rounds (code)"),
    ("off", "Off"),
];
const STARTS: [(Start, &str); 2] = [(Start::Uniform, "uniform"), (Start::Gaussian, "gaussian")];
const START_LABELS: &[(&str, &str)] = &[
    ("uniform", "Uniform (code)"),
    ("gaussian", "Normal (paper)"),
];
const GUARDS: [(Guard, &str); 6] = [
    (Guard::None, "none"),
    (Guard::DpSgd, "dpsgd"),
    (Guard::DpSgdCode, "dpsgd_code"),
    (Guard::GeoI, "geoi"),
    (Guard::GeoGi, "geogi"),
    (Guard::Adaptive, "adaptive"),
];
const GUARD_LABELS: &[(&str, &str)] = &[
    ("none", "None"),
    ("dpsgd", "DP-SGD"),
    (
        "dpsgd_code",
        "DP-SGD as in the authors' code (per-tensor clip; ε understated)",
    ),
    ("geoi", "GeoI"),
    ("geogi", "GeoGI"),
    ("adaptive", "Adaptive PGEM"),
];
const AUDITS: [(Audit, &str); 2] = [
    (Audit::SelfAudit, "self"),
    (Audit::PreviousRound, "previous"),
];
const AUDIT_LABELS: &[(&str, &str)] = &[("self", "Self-audit"), ("previous", "Previous round")];

/// Everything the visitor can set in the Mobility lab.
#[derive(Clone, Debug, PartialEq)]
pub struct MobSettings {
    pub seed: u64,
    pub who: Who,
    /// A drawn path's legs follow the streets.
    pub snap: bool,
    pub data: TraceKind,
    pub federation: Federation,
    pub users: usize,
    pub rounds: usize,
    pub learning_rate: f32,
    pub method: Method,
    pub init: Init,
    pub mapping: Mapping,
    pub calibration: Calibration,
    pub start: Start,
    pub tv_weight: f32,
    pub iterations: usize,
    pub guard: Guard,
    pub epsilon: f64,
    pub audit: Audit,
    pub tau_m: f64,
}

/// The lab opens on the visitor's own path under the paper's attack with the authors' choices
/// (the engine's default run) and no defence.
impl Default for MobSettings {
    fn default() -> Self {
        let e = MobConfig::default();
        MobSettings {
            seed: e.seed,
            who: Who::Path,
            snap: true,
            data: e.data,
            federation: e.federation,
            users: e.users,
            rounds: e.rounds,
            learning_rate: e.learning_rate,
            method: e.attack.method,
            init: e.attack.init,
            mapping: e.attack.mapping,
            calibration: e.attack.calibration,
            start: e.attack.start,
            tv_weight: e.attack.tv_weight,
            iterations: e.attack.iterations,
            guard: Guard::None,
            epsilon: 10.0,
            audit: Audit::SelfAudit,
            tau_m: e.tau_m,
        }
    }
}

/// The path the lab opens with: across the city from the south-west, by the centre, to the
/// north-east (the visitor drags, adds and removes its waypoints).
pub fn default_path() -> Vec<Metres> {
    vec![
        Metres::new(-4200.0, -2600.0),
        Metres::new(-1500.0, -900.0),
        Metres::new(600.0, 700.0),
        Metres::new(3800.0, 2900.0),
    ]
}

/// Where a control goes in the panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    You,
    Attack,
    Defence,
    Federation,
}

pub type Field = SharedField<MobSettings, Section>;

pub const FIELDS: &[Field] = &[
    Field {
        key: "m.who",
        label: "The server's target",
        help: "Whose trajectory the phone trains on and the server tries to rebuild: the path you draw on the map (travelled back and forth like a bus route, a position about every 10 minutes), your imported file (its points in time order, one about every 10 minutes, placed on the city), or one of the city's own users.",
        kind: Kind::Choice(WHO_LABELS),
        get: |s| key_of(&WHO, &s.who).into(),
        set: |s, v| {
            s.who = choice(&WHO, v, "a target")?;
            Ok(())
        },
        section: Section::You,
    },
    Field {
        key: "m.snap",
        label: "Along the streets",
        help: "Each leg of your path follows the shortest way along the streets (on: like a vehicle, and like every point of the paper's data); off: straight across the blocks, so the server's road mapping pulls its guesses off your path.",
        kind: Kind::Toggle,
        get: |s| if s.snap { "1" } else { "0" }.into(),
        set: |s, v| {
            s.snap = flag(v)?;
            Ok(())
        },
        section: Section::You,
    },
    Field {
        key: "m.method",
        label: "The server's attack",
        help: "How the server inverts your phone's update ([002] Tables 1 and 3): every attack makes up 8 positions and a next position, and moves them until the gradient they would give matches the one your phone sent. ST-GIA adds the three switches below. DLG: the plain version (row-wise L2 distance, L-BFGS). iDLG and CPL are given the true next position (CPL also the model's output on your window: privileged knowledge). InvGrad: cosine distance and Adam. SAPAG: a Gaussian-kernel distance.",
        kind: Kind::Choice(METHOD_LABELS),
        get: |s| key_of(&METHODS, &s.method).into(),
        set: |s, v| {
            s.method = choice(&METHODS, v, "an attack")?;
            Ok(())
        },
        section: Section::Attack,
    },
    Field {
        key: "m.init",
        label: "Start from the last round",
        help: "ST-GIA's spatiotemporal initialisation (§3.1): round t's window is round t − 1's slid by one point, so the server starts from its previous reconstruction. The paper's: the previous window as it was. The authors' code: shifted by one, with the previous guess of the next position appended. Off: a random start every round (the ablation of Fig. 4).",
        kind: Kind::Choice(INIT_LABELS),
        get: |s| key_of(&INITS, &s.init).into(),
        set: |s, v| {
            s.init = choice(&INITS, v, "an initialisation")?;
            Ok(())
        },
        section: Section::Attack,
    },
    Field {
        key: "m.map",
        label: "Snap guesses",
        help: "ST-GIA's mapping after every step (§3.2): each guessed position is moved to the nearest point of the street network, since vehicles and check-ins are on the streets. The authors' code maps onto the target's own recorded points instead — an oracle, since that set holds the answer; it is here so its effect can be seen, labelled for what it is.",
        kind: Kind::Choice(MAPPING_LABELS),
        get: |s| key_of(&MAPPINGS, &s.mapping).into(),
        set: |s, v| {
            s.mapping = choice(&MAPPINGS, v, "a mapping")?;
            Ok(())
        },
        section: Section::Attack,
    },
    Field {
        key: "m.cal",
        label: "Average each point's guesses",
        help: "ST-GIA's calibration (§3.3, Eq. 9): each position is in up to 8 windows, so the server rebuilds it up to 8 times and averages. The paper's reading uses the rounds so far; the authors' code averages over every round of the run, later ones too (known only at the end). The success rate is scored on the averaged positions.",
        kind: Kind::Choice(CALIBRATION_LABELS),
        get: |s| key_of(&CALIBRATIONS, &s.calibration).into(),
        set: |s, v| {
            s.calibration = choice(&CALIBRATIONS, v, "a calibration")?;
            Ok(())
        },
        section: Section::Attack,
    },
    Field {
        key: "m.start",
        label: "Random start",
        help: "Where a random guess starts, in the normalised coordinates the model sees (your positions scaled to [0, 1]).",
        kind: Kind::Choice(START_LABELS),
        get: |s| key_of(&STARTS, &s.start).into(),
        set: |s, v| {
            s.start = choice(&STARTS, v, "a start")?;
            Ok(())
        },
        section: Section::Attack,
    },
    Field {
        key: "m.tv",
        label: "InvGrad's TV weight",
        help: "The weight of InvGrad's total-variation term, which favours smooth trajectories (0: off, as in the authors' code).",
        kind: Kind::Number {
            step: "0.01",
            limit: limits::TV_WEIGHT,
        },
        get: |s| s.tv_weight.to_string(),
        set: |s, v| {
            s.tv_weight = limited(v, &limits::TV_WEIGHT)? as f32;
            Ok(())
        },
        section: Section::Attack,
    },
    Field {
        key: "m.iters",
        label: "Iterations per round",
        help: "The attack's optimiser steps on each round's update (the paper: 200). Every iterate is kept: the trail on the map, and AIT (the first iteration at which a point came within the success radius).",
        kind: Kind::Number {
            step: "10",
            limit: limits::ITERATIONS,
        },
        get: |s| s.iterations.to_string(),
        set: |s, v| {
            s.iterations = limited(v, &limits::ITERATIONS)? as usize;
            Ok(())
        },
        section: Section::Attack,
    },
    Field {
        key: "m.tau",
        label: "Success radius τ (m)",
        help: "A position counts as found when the server's guess is within this distance (the paper: 500 m; the authors' scripts also 1 km and 2.5 km). ASR is the share of the window's positions found.",
        kind: Kind::Number {
            step: "100",
            limit: limits::TAU_M,
        },
        get: |s| trim(s.tau_m),
        set: |s, v| {
            s.tau_m = limited(v, &limits::TAU_M)?;
            Ok(())
        },
        section: Section::Attack,
    },
    Field {
        key: "m.def",
        label: "Your phone's defence",
        help: "What your phone does before it trains ([002] Table 5). DP-SGD (as Abadi et al. define it) clips your phone's whole gradient to length 0.2 and adds Gaussian noise so that each round is (ε, 10⁻⁵)-differentially private for that round's window — its 8 positions and the next one — against a server that sees your phone's own update (local DP: any two windows count as neighbours, so the update can move by 2 × 0.2). DP-SGD as in the authors' code clips each of the model's 6 weight tensors to 0.2 and sizes its noise for a change of 0.2, though the whole update can move by 2 × 0.2 × √6 ≈ 0.98: the ε it states is understated, and the lab shows the true one beside it. GeoI moves every position by planar-Laplace noise (ε per km). GeoGI replaces it with a street corner drawn by the exponential mechanism on distances along the streets. Adaptive PGEM (the paper's, Eq. 13) replaces it with one of your own places drawn the same way, and spends a total budget ε round by round: more where the attack is doing well (Eqs. 10–12).",
        kind: Kind::Choice(GUARD_LABELS),
        get: |s| key_of(&GUARDS, &s.guard).into(),
        set: |s, v| {
            s.guard = choice(&GUARDS, v, "a defence")?;
            Ok(())
        },
        section: Section::Defence,
    },
    Field {
        key: "m.eps",
        label: "Privacy budget ε",
        help: "Smaller is more private. DP-SGD: ε per round at δ = 10⁻⁵, protecting that round's window of 9 positions; the rounds add up, and the privacy budget card shows the total ε over the rounds so far (Rényi-DP accounting, δ = 10⁻⁵), which protects your whole trajectory trained on — both are upper bounds, from different accountings. For the authors'-code DP-SGD it is the ε the code states; the privacy budget card shows the true one. GeoI and GeoGI: ε per km, every round (over T rounds, T × ε per km). Adaptive PGEM: the run's total, per km, shared out by round as ε_t = e^(−γ_t)·(what is left), γ_t = ½·ASR_t + ½/AIT_t — the bar under the figures shows it being spent.",
        kind: Kind::Number {
            step: "1",
            limit: limits::EPSILON,
        },
        get: |s| trim(s.epsilon),
        set: |s, v| {
            s.epsilon = limited(v, &limits::EPSILON)?;
            Ok(())
        },
        section: Section::Defence,
    },
    Field {
        key: "m.audit",
        label: "Risk measured by",
        help: "The paper never says where the adaptive allocation's ASR_t and AIT_t come from. Our reading: the phone attacks its own clean update with ST-GIA before sending it (a self-audit; it doubles the phone's work). The alternative: the figures of the previous round's attack (the worst case in round 1).",
        kind: Kind::Choice(AUDIT_LABELS),
        get: |s| key_of(&AUDITS, &s.audit).into(),
        set: |s, v| {
            s.audit = choice(&AUDITS, v, "an audit")?;
            Ok(())
        },
        section: Section::Defence,
    },
    Field {
        key: "m.data",
        label: "The city's users",
        help: "The kind of trajectories of the city's users (the target too, when it is one of them), like the paper's data (§5.1): buses on their routes with a position about every 10 minutes, or people's sparse check-ins at the places they go.",
        kind: Kind::Choice(DATA_LABELS),
        get: |s| key_of(&DATA, &s.data).into(),
        set: |s, v| {
            s.data = choice(&DATA, v, "a kind of data")?;
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "m.fed",
        label: "Training",
        help: "The authors' code: one client (the target) takes one SGD step on its window t in round t, and the update the server sees is that gradient. The paper: every user of the city takes its step and the server averages (FedAvg), still attacking the target's own update.",
        kind: Kind::Choice(FEDERATION_LABELS),
        get: |s| key_of(&FEDERATIONS, &s.federation).into(),
        set: |s, v| {
            s.federation = choice(&FEDERATIONS, v, "a federation")?;
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "m.users",
        label: "Users in the city",
        help: "How many phones train under FedAvg (the paper: 100).",
        kind: Kind::Number {
            step: "10",
            limit: limits::USERS,
        },
        get: |s| s.users.to_string(),
        set: |s, v| {
            s.users = limited(v, &limits::USERS)? as usize;
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "m.T",
        label: "Rounds T",
        help: "Global rounds (the paper: 50). In round t the window is positions t to t + 7 and the label position t + 8, so the windows slide one position a round.",
        kind: Kind::Number {
            step: "1",
            limit: limits::ROUNDS,
        },
        get: |s| s.rounds.to_string(),
        set: |s, v| {
            s.rounds = limited(v, &limits::ROUNDS)? as usize;
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "m.lr",
        label: "Learning rate",
        help: "The phones' SGD step (the authors' code: 0.001). The model is an LSTM (2 → 16) and a linear layer (16 → 2) predicting the next position from the last 8, trained on the mean squared error.",
        kind: Kind::Number {
            step: "0.001",
            limit: limits::LEARNING_RATE,
        },
        get: |s| s.learning_rate.to_string(),
        set: |s, v| {
            s.learning_rate = limited(v, &limits::LEARNING_RATE)? as f32;
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "m.seed",
        label: "Seed",
        help: "Everything random (the streets, the users, the model's first weights, the attack's random starts, the defences' noise) comes from this number: the same seed gives the same run, here and in the command line.",
        kind: Kind::Number {
            step: "1",
            limit: limits::SEED,
        },
        get: |s| s.seed.to_string(),
        set: |s, v| {
            s.seed = limited(v, &limits::SEED)? as u64;
            Ok(())
        },
        section: Section::Federation,
    },
];

/// Hideable groups besides the fields.
pub const CONTROL_GROUPS: &[&str] = &["m.path", "m.study", "m.layers", "m.data"];

/// The city's corners.
pub fn city() -> (Metres, Metres) {
    (
        Metres::new(-CITY_HALF_W_M, -CITY_HALF_H_M),
        Metres::new(CITY_HALF_W_M, CITY_HALF_H_M),
    )
}

impl MobSettings {
    pub fn get(&self, key: &str) -> String {
        crate::ui::settings::get_field(FIELDS, self, key)
    }

    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        crate::ui::settings::set_field(FIELDS, self, key, value)
    }

    /// Whether a control matters with the others.
    pub fn relevant(&self, key: &str) -> bool {
        let st_gia = self.method == Method::StGia;
        match key {
            "m.snap" => self.who == Who::Path,
            "m.init" | "m.map" | "m.cal" => st_gia,
            "m.tv" => self.method == Method::InvGrad,
            "m.eps" => self.guard != Guard::None,
            "m.audit" => self.guard == Guard::Adaptive,
            "m.users" => self.federation == Federation::FedAvg,
            _ => true,
        }
    }

    pub fn defence(&self) -> Defence {
        let epsilon = self.epsilon;
        match self.guard {
            Guard::None => Defence::None,
            Guard::DpSgd => Defence::DpSgd {
                epsilon,
                clip: DpClip::Flat,
            },
            Guard::DpSgdCode => Defence::DpSgd {
                epsilon,
                clip: DpClip::PerTensor,
            },
            Guard::GeoI => Defence::GeoI { epsilon },
            Guard::GeoGi => Defence::GeoGi { epsilon },
            Guard::Adaptive => Defence::Adaptive {
                epsilon,
                audit: self.audit,
            },
        }
    }

    /// The engine configuration with the visitor's drawn `path` (for the file, the worker puts
    /// the file in).
    pub fn to_config(&self, path: &[Metres]) -> MobConfig {
        let target = match self.who {
            Who::Path => Target::Path {
                waypoints: path.to_vec(),
                snap: self.snap,
            },
            Who::File | Who::City => Target::Synthetic,
        };
        MobConfig {
            seed: self.seed,
            data: self.data,
            target,
            users: self.users,
            federation: self.federation,
            rounds: self.rounds,
            learning_rate: self.learning_rate,
            attack: AttackConfig {
                method: self.method,
                init: self.init,
                mapping: self.mapping,
                calibration: self.calibration,
                start: self.start,
                tv_weight: self.tv_weight,
                iterations: self.iterations,
            },
            defence: self.defence(),
            tau_m: self.tau_m,
            ..MobConfig::default()
        }
    }

    /// The lab's part of the query string: every setting, the path, hidden controls.
    pub fn to_query(&self, path: &[Metres], hidden: &[String]) -> String {
        let mut parts: Vec<String> = FIELDS
            .iter()
            .map(|f| format!("{}={}", f.key, self.get(f.key)))
            .collect();
        parts.push(format!("m.path={}", encode_path(path)));
        if !hidden.is_empty() {
            parts.push(format!("m.hide={}", hidden.join(",")));
        }
        parts.join("&")
    }

    /// Reads the lab's keys from a query string (others' are left alone); a bad value keeps
    /// the default and is reported.
    pub fn from_query(query: &str) -> FromQuery {
        let mut out = FromQuery {
            settings: MobSettings::default(),
            path: None,
            hidden: Vec::new(),
            problems: Vec::new(),
        };
        for (key, value) in query_pairs(query) {
            if !key.starts_with("m.") {
                continue;
            }
            match key {
                "m.path" => match read_path(&value) {
                    Ok(p) => out.path = Some(p),
                    Err(e) => out.problems.push(e),
                },
                "m.hide" => {
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

/// A path from the link, within the city and of a length the lab runs.
fn read_path(value: &str) -> Result<Vec<Metres>, String> {
    let path = decode_path(value).map_err(|e| format!("Your path: {e}"))?;
    let (lo, hi) = city();
    if let Some(p) = path
        .iter()
        .find(|p| p.east < lo.east || p.east > hi.east || p.north < lo.north || p.north > hi.north)
    {
        return Err(format!(
            "Your path: the waypoint at ({:.0}, {:.0}) m is outside the city (±{:.0} × ±{:.0} m)",
            p.east, p.north, hi.east, hi.north
        ));
    }
    if !limits::WAYPOINTS.contains(path.len() as f64) {
        return Err(format!(
            "Your path: {} waypoints; it needs {}",
            path.len(),
            limits::WAYPOINTS.text
        ));
    }
    Ok(path)
}

/// What a link said to the Mobility lab.
#[derive(Clone, Debug, PartialEq)]
pub struct FromQuery {
    pub settings: MobSettings,
    pub path: Option<Vec<Metres>>,
    pub hidden: Vec<String>,
    pub problems: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_round_trips_through_the_url_and_the_config_is_valid() {
        let s = MobSettings {
            seed: 9,
            who: Who::City,
            snap: false,
            data: TraceKind::CheckIn,
            federation: Federation::FedAvg,
            users: 20,
            rounds: 30,
            learning_rate: 0.01,
            method: Method::InvGrad,
            init: Init::Paper,
            mapping: Mapping::OwnPoints,
            calibration: Calibration::AllRounds,
            start: Start::Gaussian,
            tv_weight: 0.5,
            iterations: 150,
            guard: Guard::Adaptive,
            epsilon: 5.0,
            audit: Audit::PreviousRound,
            tau_m: 1000.0,
        };
        let path = default_path();
        let q = s.to_query(&path, &["m.study".into()]);
        let back = MobSettings::from_query(&format!("lab=mobility&T=6&d.N=5&{q}"));
        assert!(back.problems.is_empty(), "{:?}", back.problems);
        assert_eq!(back.settings, s);
        assert_eq!(back.path, Some(path.clone()));
        assert_eq!(back.hidden, vec!["m.study".to_string()]);
        assert!(s.to_config(&path).validate().is_ok());
        let default = MobSettings::default().to_config(&path);
        assert!(default.validate().is_ok());
        assert!(matches!(default.target, Target::Path { snap: true, .. }));
        assert_eq!(
            s.to_config(&path).defence,
            Defence::Adaptive {
                epsilon: 5.0,
                audit: Audit::PreviousRound
            }
        );
    }

    #[test]
    fn dpsgd_in_a_link_is_the_faithful_dp_sgd_and_dpsgd_code_the_authors() {
        let faithful = MobSettings::from_query("m.def=dpsgd&m.eps=5");
        assert!(faithful.problems.is_empty(), "{:?}", faithful.problems);
        assert_eq!(
            faithful.settings.defence(),
            Defence::DpSgd {
                epsilon: 5.0,
                clip: DpClip::Flat
            }
        );
        let code = MobSettings::from_query("m.def=dpsgd_code&m.eps=5");
        assert_eq!(
            code.settings.defence(),
            Defence::DpSgd {
                epsilon: 5.0,
                clip: DpClip::PerTensor
            }
        );
        assert!(
            code.settings
                .to_query(&default_path(), &[])
                .contains("m.def=dpsgd_code")
        );
    }

    #[test]
    fn every_bound_is_the_engines_and_absurd_values_are_named() {
        let mut s = MobSettings::default();
        for (key, bad) in [
            ("m.users", "0"),
            ("m.T", "501"),
            ("m.iters", "0"),
            ("m.eps", "0"),
            ("m.tau", "-5"),
            ("m.lr", "abc"),
            ("m.method", "guess"),
            ("m.snap", "maybe"),
        ] {
            let e = s.set(key, bad).unwrap_err();
            let label = FIELDS.iter().find(|f| f.key == key).unwrap().label;
            assert!(e.starts_with(label), "{key}: {e}");
        }
        assert_eq!(s, MobSettings::default());
        s.set("m.T", "500").unwrap();
        s.set("m.iters", "5000").unwrap();
        assert!(s.to_config(&default_path()).validate().is_ok());
        let far = encode_path(&[Metres::new(0.0, 0.0), Metres::new(9000.0, 0.0)]);
        let bad = MobSettings::from_query(&format!("m.path={far}&m.T=x"));
        assert_eq!(bad.problems.len(), 2, "{:?}", bad.problems);
        assert!(
            bad.problems[0].contains("outside the city"),
            "{:?}",
            bad.problems
        );
        assert_eq!(bad.path, None);
        let one = encode_path(&[Metres::new(0.0, 0.0)]);
        let bad = MobSettings::from_query(&format!("m.path={one}"));
        assert!(
            bad.problems[0].contains("2 to 10,000"),
            "{:?}",
            bad.problems
        );
    }
}
