//! Everything a Mobility run depends on, each choice the paper leaves open a visible setting
//! (docs/papers.md, [002]): the data, the federation, the attack with ST-GIA's three parts
//! switchable for the Fig. 4 ablation, the defence, and the success radius.

use super::attack::{InversionSettings, Optimiser};
use super::central_dp::{self, CentralDp};
use super::defence::Defence;
use super::limits;
use super::membership::Release;
use super::objective::Distance;
use super::traces::{Target, TraceKind};
use serde::{Deserialize, Serialize};
use whereabouts_core::secagg::Sees;

/// How the phones train ([002] §5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Federation {
    /// The authors' code: one client (the target), one SGD step on its window t in round t; the
    /// shared update is that window's gradient.
    OneClient,
    /// The paper's: every user of the city takes one SGD step on its own window t; the server
    /// averages (FedAvg, equal weights: one window each) and attacks the target's update.
    FedAvg,
}

/// The attack ([002] Tables 1 and 3, and the digest's adaptation of each baseline to the
/// LSTM regression task).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// ST-GIA (§3) as the authors' code runs it: the row-wise L2 distance by L-BFGS (lr 0.01),
    /// the spatiotemporal initialisation, the road mapping and the calibration, each
    /// switchable.
    StGia,
    /// ST-GIA as [002] Algorithm 1 prints it: Eq. 8's L2 distance, the plain gradient step of
    /// line 10 (η = 0.01, the code's learning rate: the paper gives none), stopped when the
    /// dummy no longer changes (§3.4); the start of Eq. 6 (round 1 and every label from
    /// N(0, 1), later windows from the previous reconstruction unshifted); the mapping of line
    /// 11 moves the label too. The mapping and the calibration stay switchable.
    StGiaPaper,
    /// DLG (Zhu et al. 2019): inputs and label by L-BFGS on the row-wise L2 distance.
    Dlg,
    /// iDLG (Zhao et al. 2020): the label given (the truth, standing in for iDLG's label
    /// inference, which needs cross-entropy), the inputs by L-BFGS.
    Idlg,
    /// InvGrad (Geiping et al. 2020): cosine distance by Adam, optionally the TV term.
    InvGrad,
    /// CPL (Wei et al. 2020): the label given and the model's output on the true window matched
    /// (privileged knowledge), L-BFGS.
    Cpl,
    /// SAPAG (Wang et al. 2020): the Gaussian-kernel distance, L-BFGS.
    Sapag,
}

impl Method {
    pub const ALL: [Method; 7] = [
        Method::Dlg,
        Method::Idlg,
        Method::InvGrad,
        Method::Cpl,
        Method::Sapag,
        Method::StGia,
        Method::StGiaPaper,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Method::StGia => "ST-GIA",
            Method::StGiaPaper => "ST-GIA (Alg. 1)",
            Method::Dlg => "DLG",
            Method::Idlg => "iDLG",
            Method::InvGrad => "InvGrad",
            Method::Cpl => "CPL",
            Method::Sapag => "SAPAG",
        }
    }

    /// The distance and optimiser of the authors' code for this attack (Algorithm 1's for
    /// [`Method::StGiaPaper`]).
    pub fn inversion(self, iterations: usize) -> InversionSettings {
        let (distance, optimiser) = match self {
            Method::StGia | Method::Dlg => (Distance::RowL2, Optimiser::Lbfgs { lr: 0.01 }),
            Method::StGiaPaper => (Distance::L2, Optimiser::Gradient { lr: 0.01 }),
            Method::Idlg | Method::Cpl => (Distance::RowL2, Optimiser::Lbfgs { lr: 0.0005 }),
            Method::InvGrad => (Distance::Cosine, Optimiser::Adam { lr: 0.0005 }),
            Method::Sapag => (Distance::Gaussian, Optimiser::Lbfgs { lr: 0.0005 }),
        };
        let paper = self == Method::StGiaPaper;
        InversionSettings {
            distance,
            optimiser,
            iterations,
            map_label: paper,
            stop_when_still: paper,
        }
    }

    /// ST-GIA in either form (its switches apply).
    pub fn is_st_gia(self) -> bool {
        matches!(self, Method::StGia | Method::StGiaPaper)
    }

    /// Whether the attacker is given the true label.
    pub fn knows_label(self) -> bool {
        matches!(self, Method::Idlg | Method::Cpl)
    }
}

/// ST-GIA's spatiotemporal initialisation (§3.1, Eq. 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Init {
    /// A fresh random start every round (the ablation's "random init").
    Off,
    /// The paper's (Alg. 1 line 5): the previous round's reconstructed window, a random label.
    Paper,
    /// The authors' code: the previous window shifted by one with the previous label appended;
    /// the label starts from the previous label.
    Code,
}

/// ST-GIA's road mapping after every step (§3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mapping {
    Off,
    /// Onto the nearest point of the road network (the paper's prior).
    Roads,
    /// Onto the nearest of the target's own recorded points (the authors' code): an oracle
    /// prior, since that set holds the truth.
    OwnPoints,
}

/// ST-GIA's calibration from multiple recoveries (§3.3, Eq. 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Calibration {
    /// Each point as its round reconstructed it.
    Off,
    /// The mean of the point's recoveries in rounds up to now (the paper's Eq. 9).
    Causal,
    /// The mean over every round of the run that holds the point, later ones too (the authors'
    /// code; known only when the run ends).
    AllRounds,
}

impl Calibration {
    /// What a round's record is scored with when it ends: the all-rounds reading needs the
    /// whole run, so until then it scores as the causal one.
    pub fn as_recorded(self) -> Calibration {
        match self {
            Calibration::Off => Calibration::Off,
            Calibration::Causal | Calibration::AllRounds => Calibration::Causal,
        }
    }
}

/// Where a random dummy starts (in normalised coordinates).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Start {
    /// U[0, 1) (the authors' code; the data lie in [0, 1]).
    Uniform,
    /// N(0, 1) (the paper's Eq. 6).
    Gaussian,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AttackConfig {
    pub method: Method,
    /// ST-GIA's switches (the baselines start at random each round, unmapped, uncalibrated).
    pub init: Init,
    pub mapping: Mapping,
    pub calibration: Calibration,
    pub start: Start,
    /// InvGrad's TV term weight (0: off, as the authors' code).
    pub tv_weight: f32,
    /// Attack iterations per round (the paper's limit: 200).
    pub iterations: usize,
}

impl Default for AttackConfig {
    fn default() -> Self {
        AttackConfig {
            method: Method::StGia,
            init: Init::Code,
            mapping: Mapping::Roads,
            calibration: Calibration::Causal,
            start: Start::Uniform,
            tv_weight: 0.0,
            iterations: 200,
        }
    }
}

impl AttackConfig {
    /// The switches that apply: ST-GIA's own (Algorithm 1's initialisation is Eq. 6's), the
    /// baselines' none.
    pub fn effective(&self) -> (Init, Mapping, Calibration) {
        match self.method {
            Method::StGia => (self.init, self.mapping, self.calibration),
            Method::StGiaPaper => (Init::Paper, self.mapping, self.calibration),
            _ => (Init::Off, Mapping::Off, Calibration::Off),
        }
    }

    /// Where a random dummy starts: the setting, or N(0, 1) for Algorithm 1 (Eq. 6).
    pub fn start_distribution(&self) -> Start {
        match self.method {
            Method::StGiaPaper => Start::Gaussian,
            _ => self.start,
        }
    }
}

/// One run of the lab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MobConfig {
    pub seed: u64,
    pub data: TraceKind,
    /// The server's target: the city's first user, or the visitor's path or file.
    #[serde(default)]
    pub target: Target,
    /// Users in the city (the paper: 100); with [`Federation::OneClient`] only the target
    /// trains.
    pub users: usize,
    pub federation: Federation,
    /// With one client training: this many of the city's other users (users 1 … k) take one
    /// SGD step on their own window t in the target's round too, and the server averages them
    /// (0: the target alone, the authors' code). With every user training, the round is the
    /// whole city and this is not used.
    #[serde(skip_serializing_if = "is_zero")]
    pub co_participants: usize,
    /// What the server receives: every phone's update ([002]), only the sum of the round's
    /// updates under secure aggregation (issue 39 §2; `secure.rs` says how), or that sum with
    /// DP-FedAvg's noise on it (issue 39 §3; `central_dp.rs`), which it then attacks.
    #[serde(skip_serializing_if = "is_updates")]
    pub sees: Sees,
    /// The n − 1 (Sybil) attack under `sees = sum` (`secure.rs`): the server's own phones it
    /// adds to each round, putting the target in with as few genuine phones as
    /// `min_genuine` allows (0: an honest server, which sums every trainer).
    #[serde(skip_serializing_if = "is_zero")]
    pub sybils: usize,
    /// Under `sees = sum`, the least number of genuine phones (the target included) a phone
    /// sends in: the defence against the Sybil server (1: no minimum). At most the trainers.
    #[serde(skip_serializing_if = "is_one")]
    pub min_genuine: usize,
    /// DP-FedAvg's settings under `sees = dp` (the lab's own clip: [`central_dp::lab_default`]).
    #[serde(skip_serializing_if = "is_lab_dp")]
    pub central_dp: CentralDp,
    /// Global rounds T (the paper: 50).
    pub rounds: usize,
    /// Windows after the training ones on which the model's utility is measured.
    pub held_out: usize,
    /// The phones' SGD learning rate (the authors' code: 0.001).
    pub learning_rate: f32,
    /// Epochs the server's model is trained on the city's other people before round 0 (0: a
    /// fresh model, as [002]; `pretrain.rs`).
    #[serde(default)]
    pub pretrain_epochs: usize,
    pub attack: AttackConfig,
    pub defence: Defence,
    /// The success radius τ, metres (the paper: 500 m).
    pub tau_m: f64,
    /// The streets' area, half-width and half-height in metres, centred on the plane's origin:
    /// the synthetic city's without one; real check-ins' extent under `reproduce --real`
    /// (docs/papers.md, "Real data: foursquare-nyc").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<[f64; 2]>,
    /// The released counts the membership card plays against (`membership.rs`; the run does
    /// not read it).
    #[serde(default, skip_serializing_if = "is_default_release")]
    pub release: Release,
}

impl Default for MobConfig {
    fn default() -> Self {
        MobConfig {
            seed: 1,
            data: TraceKind::Vehicle,
            target: Target::Synthetic,
            users: 100,
            federation: Federation::OneClient,
            co_participants: 0,
            sees: Sees::Updates,
            sybils: 0,
            min_genuine: 1,
            central_dp: central_dp::lab_default(),
            rounds: 50,
            held_out: 20,
            learning_rate: 0.001,
            pretrain_epochs: 0,
            attack: AttackConfig::default(),
            defence: Defence::None,
            tau_m: 500.0,
            area: None,
            release: Release::default(),
        }
    }
}

impl MobConfig {
    /// A bad setting named, with what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        let check = |ok: bool, what: &str| if ok { Ok(()) } else { Err(what.to_string()) };
        let bound = |limit: &limits::Limit, field: &str, x: f64| {
            limit.check(field, x).map(|_| ()).map_err(|e| e.to_string())
        };
        bound(&limits::SEED, "seed", self.seed as f64)?;
        bound(&limits::USERS, "users", self.users as f64)?;
        bound(
            &limits::CO_PARTICIPANTS,
            "co_participants",
            self.co_participants as f64,
        )?;
        if self.federation == Federation::OneClient && self.co_participants >= self.users {
            return Err(format!(
                "co_participants: {} other phones in the round need a city of at least {} users; it has {}",
                self.co_participants,
                self.co_participants + 1,
                self.users
            ));
        }
        bound(&limits::ROUNDS, "rounds", self.rounds as f64)?;
        bound(&limits::HELD_OUT, "held_out", self.held_out as f64)?;
        bound(
            &limits::LEARNING_RATE,
            "learning_rate",
            f64::from(self.learning_rate),
        )?;
        bound(
            &limits::PRETRAIN_EPOCHS,
            "pretrain_epochs",
            self.pretrain_epochs as f64,
        )?;
        bound(
            &limits::ITERATIONS,
            "attack.iterations",
            self.attack.iterations as f64,
        )?;
        bound(
            &limits::TV_WEIGHT,
            "attack.tv_weight",
            f64::from(self.attack.tv_weight),
        )?;
        bound(&limits::TAU_M, "tau_m", self.tau_m)?;
        if let Some(area) = self.area {
            for half in area {
                bound(&limits::AREA_HALF_M, "area", half)?;
            }
        }
        match &self.target {
            Target::Path { waypoints, .. } => {
                bound(&limits::WAYPOINTS, "target", waypoints.len() as f64)?;
                check(
                    waypoints
                        .iter()
                        .all(|w| w.east.is_finite() && w.north.is_finite()),
                    "target: a waypoint is not a finite position",
                )?;
            }
            Target::Fixes { fixes } => {
                let need = self.rounds + super::lstm::WINDOW + 1;
                check(
                    fixes.len() >= need,
                    &format!(
                        "target: your file has {} points about 10 minutes apart; {} rounds need {need}",
                        fixes.len(),
                        self.rounds
                    ),
                )?;
                check(
                    fixes
                        .iter()
                        .all(|f| f.at.east.is_finite() && f.at.north.is_finite()),
                    "target: a point of your file is not a finite position",
                )?;
            }
            Target::Synthetic => {}
        }
        if let Some(e) = self.defence.epsilon() {
            bound(&limits::EPSILON, "defence.epsilon", e)?;
        }
        bound(&limits::SYBILS, "sybils", self.sybils as f64)?;
        bound(&limits::MIN_GENUINE, "min_genuine", self.min_genuine as f64)?;
        if self.sees == Sees::Sum && self.min_genuine > self.trainers() {
            return Err(format!(
                "min_genuine: a minimum cohort of {} genuine phones is more than the {} phones that train in a round: no round would ever be sent",
                self.min_genuine,
                self.trainers()
            ));
        }
        if self.sees == Sees::Dp {
            central_dp::validate(&self.central_dp, self.trainers())?;
        }
        self.release.validate()
    }

    /// Users who train in a round: the one client and its co-participants, or every user of
    /// the city (under `sees = dp`, N, the population DP-FedAvg samples from).
    pub fn trainers(&self) -> usize {
        match self.federation {
            Federation::OneClient => 1 + self.co_participants,
            Federation::FedAvg => self.users,
        }
    }
}

fn is_default_release(r: &Release) -> bool {
    *r == Release::default()
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

fn is_updates(s: &Sees) -> bool {
    *s == Sees::Updates
}

fn is_lab_dp(dp: &CentralDp) -> bool {
    *dp == central_dp::lab_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn an_absurd_setting_is_named_with_its_bound() {
        assert!(MobConfig::default().validate().is_ok());
        let bad = |f: fn(&mut MobConfig)| {
            let mut c = MobConfig::default();
            f(&mut c);
            c.validate().unwrap_err()
        };
        assert!(bad(|c| c.users = 0).starts_with("users"));
        assert!(bad(|c| c.rounds = 501).contains("1 to 500"));
        assert!(bad(|c| c.learning_rate = f32::NAN).starts_with("learning_rate"));
        assert!(bad(|c| c.attack.iterations = 0).starts_with("attack.iterations"));
        assert!(bad(|c| c.tau_m = -1.0).starts_with("tau_m"));
        assert!(bad(|c| c.defence = Defence::GeoI { epsilon: 0.0 }).starts_with("defence.epsilon"));
        let one = bad(|c| {
            c.target = Target::Path {
                waypoints: vec![whereabouts_core::geo::Metres::new(0.0, 0.0)],
                snap: true,
            }
        });
        assert!(one.contains("2 to 10,000 waypoints"), "{one}");
    }

    #[test]
    fn a_misspelt_key_inside_the_defence_or_the_target_is_refused_by_name() {
        let parse = crate::config_text::parse::<MobConfig>;
        let e = parse("[defence]\nkind = \"geo_i\"\nepsilonn = 5.0\n").unwrap_err();
        assert!(e.contains("unknown field `epsilonn`"), "{e}");
        let e = parse("[defence]\ndp_sgd = { epsilon = 0.0 }\n").unwrap_err();
        assert!(e.contains("kind"), "{e}");
        let e = parse("[target]\nkind = \"path\"\nwaypoint = []\nsnap = true\n").unwrap_err();
        assert!(e.contains("unknown field `waypoint`"), "{e}");
        assert!(parse("[defence]\nkind = \"geo_i\"\nepsilon = 5.0\n").is_ok());
    }
}
