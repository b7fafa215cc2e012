//! The Mobility lab's studies for `whereabouts reproduce --lab mobility`
//! (docs/reproduce-mobility.md), laid out as [002]'s tables on the synthetic city's data: the
//! attacks by round (Tables 3 and 4, vehicle-like data beside NYCB, check-in-like beside
//! Gowalla), ST-GIA's ablation (Fig. 4), the defences by ε (Table 5) and utility against ASR
//! (Fig. 5), and the paper's FedAvg over 100 users beside the authors' one-client setting.
//!
//! Every setting is run on `Scale::seeds` seeds and each figure given as its mean over them with
//! its 95% interval ([`whereabouts_core::stats`]); the authors' code averages 4 repeats, we use 5
//! for the interval, and a comparison holds only where the intervals separate ([`Verdict`]).
//!
//! Runs are independent points of a sweep ([`Reproduce`], [`whereabouts_core::sweep`]): the
//! command line spreads them over the machine's cores or a cluster; the browser's lab runs one
//! at a time in its worker.
//!
//! Each runner stands beside the table it fills; the defences by ε (Table 5, Fig. 5) are
//! `experiments/defences.rs`.

use super::config::{Calibration, Federation, Init, Mapping, Method, MobConfig};
use super::lab::{MobLab, RoundRecord, recorded_errors};
use super::metrics::{asr, place_errors};
use super::traces::{self, TraceKind};
use serde::{Deserialize, Serialize};
use whereabouts_core::driver::Driver;
use whereabouts_core::geo::Metres;
use whereabouts_core::stats::{self, Estimate, Verdict};
use whereabouts_core::sweep::{LabRun, LabStudy, Runs, each};
use whereabouts_core::table::Table;

mod defences;
mod membership;
mod real;
mod secure;
mod unicity;

use defences::defence_tables;
pub use defences::{EPSILONS, format_epsilon};
pub use membership::Membership;
pub use real::RealTargets;
pub use secure::SecureSum;
pub use unicity::{Unicity, city_people, people as unicity_people};

/// How many repeats the authors' code averages each figure over; we run [`Scale::seeds`] (5)
/// to give each figure with its 95% interval.
pub const AUTHORS_REPEATS: usize = 4;

/// How big the studies are, and on which data.
#[derive(Clone, Debug)]
pub struct Scale {
    pub seed: u64,
    pub rounds: usize,
    pub iterations: usize,
    /// Users of the FedAvg comparison (the paper: 100).
    pub users: usize,
    /// Independent runs of every setting, seeds `seed`, `seed + 1`, …: each cell is the mean
    /// over them with its 95% interval (the authors' code: [`AUTHORS_REPEATS`] repeats, no
    /// interval).
    pub seeds: u64,
    /// Real check-ins instead of the synthetic city (`reproduce --real`): seed s's target is
    /// one of their weekly trajectories ([`RealTargets`]).
    pub real: Option<std::sync::Arc<RealTargets>>,
}

impl Scale {
    pub fn full(seed: u64) -> Scale {
        Scale {
            seed,
            rounds: 50,
            iterations: 200,
            users: 100,
            seeds: 5,
            real: None,
        }
    }

    pub fn quick(seed: u64) -> Scale {
        Scale {
            seed,
            rounds: 10,
            iterations: 20,
            users: 5,
            seeds: 2,
            real: None,
        }
    }

    /// The runs' seeds.
    pub fn seeds(&self) -> impl Iterator<Item = u64> + use<> {
        self.seed..self.seed.saturating_add(self.seeds)
    }

    /// "the mean over 5 runs (seeds 1–5) ± its 95% interval", for the tables' notes.
    fn over(&self) -> String {
        let runs = match self.real {
            Some(_) => "runs (seeds {}–{}: each seed a different weekly trajectory as the target, and its own model and attack draws)",
            None => "runs (seeds {}–{})",
        }
        .replacen("{}", &self.seed.to_string(), 1)
        .replacen("{}", &(self.seed + self.seeds - 1).to_string(), 1);
        format!(
            "the mean over {} {runs} ± its 95% interval (Student's t; the authors' code averages {AUTHORS_REPEATS} repeats, we use {} for the interval)",
            self.seeds, self.seeds
        )
    }

    /// The half-width and half-height of the runs' streets, metres.
    fn half_extent(&self) -> (f64, f64) {
        traces::half_extent(self.real.as_ref().map(|r| r.area))
    }

    /// The rounds reported (1-based, as the paper's columns: 1, 10, 20, …).
    fn reported(&self) -> Vec<usize> {
        let mut r = vec![1];
        r.extend((10..=self.rounds).step_by(10));
        r
    }

    fn config(&self, data: TraceKind, seed: u64) -> MobConfig {
        let mut c = MobConfig {
            seed,
            data,
            rounds: self.rounds,
            ..MobConfig::default()
        };
        c.attack.iterations = self.iterations;
        if let Some(real) = &self.real {
            real.apply(&mut c);
        }
        c
    }

    /// The runs of `config(seed)` on every seed, each setting of `data` (the scale's config)
    /// changed by `set`.
    fn each(
        &self,
        runs: &mut MobRuns,
        data: TraceKind,
        set: impl Fn(&mut MobConfig),
    ) -> Result<Vec<MobOutcome>, String> {
        each(runs, self.seeds(), |seed| {
            let mut c = self.config(data, seed);
            set(&mut c);
            c
        })
    }
}

/// What the tables need of one run (a point's outcome when the study is swept).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MobOutcome {
    pub records: Vec<RoundRecord>,
    /// Each round's errors with the all-rounds calibration (the code's), m; the other two
    /// calibrations are in the records.
    pub all_rounds_errors_m: Vec<Vec<f64>>,
    /// [`MobLab::utility`]: the prediction error (m) and hit rate on held-out windows.
    pub utility: (Option<f64>, Option<f64>),
    /// [`MobLab::stay_error`]: the trivial predictor's error on the same windows (m).
    #[serde(default)]
    pub stay_error: Option<f64>,
    /// [`MobLab::places`]: the target's places (PGEM's constraint domain), what
    /// [`MobOutcome::place_asr`] scores against.
    #[serde(default)]
    pub places: Vec<Metres>,
}

/// A point of every Mobility study: one lab run to the end, what the tables read of it.
impl LabRun for MobConfig {
    type Outcome = MobOutcome;

    fn seed(&self) -> u64 {
        self.seed
    }

    fn run(&self) -> Result<MobOutcome, String> {
        let mut lab = MobLab::start(self.clone())?;
        lab.finish(&mut |_| {})?;
        Ok(MobOutcome {
            records: lab.records().to_vec(),
            all_rounds_errors_m: lab.errors_with(Calibration::AllRounds),
            utility: lab.utility(),
            stay_error: lab.stay_error(),
            places: lab.places(),
        })
    }
}

impl MobOutcome {
    /// Every round's points' errors with `calibration` (as [`MobLab::errors_with`]).
    fn errors_with(&self, calibration: Calibration) -> Vec<Vec<f64>> {
        recorded_errors(&self.records, calibration)
            .unwrap_or_else(|| self.all_rounds_errors_m.clone())
    }

    /// ASR at τ over the points of round `round` (1-based), with `calibration`; NaN without
    /// them (a placeholder).
    fn round_asr(&self, calibration: Calibration, round: usize, tau: f64) -> f64 {
        self.errors_with(calibration)
            .get(round - 1)
            .and_then(|e| asr(e, tau))
            .unwrap_or(f64::NAN)
    }

    /// The mean ASR over the rounds (every round has a window's points: the ASR over all of
    /// them), with `calibration`.
    fn asr(&self, calibration: Calibration, tau: f64) -> f64 {
        let errors: Vec<f64> = self
            .errors_with(calibration)
            .into_iter()
            .flatten()
            .collect();
        asr(&errors, tau).unwrap_or(f64::NAN)
    }

    /// The ASR against the person's places ([`place_errors`]): the share of the causally
    /// calibrated estimates within τ of any place the person goes (the scored ones: a point no
    /// round recovered without diverging is left out; NaN for a run stored without its places).
    fn place_asr(&self, tau: f64) -> f64 {
        if self.places.is_empty() {
            return f64::NAN;
        }
        let guesses: Vec<Metres> = self
            .records
            .iter()
            .flat_map(|r| {
                (0..r.calibrated.len())
                    .filter(|&k| r.is_calibrated(k))
                    .map(|k| r.calibrated[k])
            })
            .collect();
        asr(&place_errors(&guesses, &self.places), tau).unwrap_or(f64::NAN)
    }

    /// The AIT over the rounds that had a success (NaN without one).
    fn ait(&self) -> f64 {
        let aits: Vec<f64> = self.records.iter().filter_map(|r| r.ait).collect();
        if aits.is_empty() {
            f64::NAN
        } else {
            aits.iter().sum::<f64>() / aits.len() as f64
        }
    }

    /// Rounds whose attack diverged.
    fn diverged(&self) -> f64 {
        self.records.iter().filter(|r| r.diverged).count() as f64
    }
}

/// A figure of every run: mean ± its 95% interval, to `digits` decimals.
fn cell(labs: &[MobOutcome], digits: usize, f: impl Fn(&MobOutcome) -> f64) -> String {
    stats::cell(labs.iter().map(f), digits, 1.0)
}

/// The mean ASR over the rounds of every run, with `calibration`.
fn asr_estimate(labs: &[MobOutcome], calibration: Calibration, tau: f64) -> Option<Estimate> {
    Estimate::of(labs.iter().map(|o| o.asr(calibration, tau)))
}

/// "lower", "higher" or "inconclusive here": `a` against `b` by their intervals.
fn compared(a: Option<Estimate>, b: Option<Estimate>) -> String {
    match (a, b) {
        (Some(a), Some(b)) => match Verdict::of(&a, &b) {
            Verdict::Lower => "lower",
            Verdict::Higher => "higher",
            Verdict::Inconclusive => "inconclusive here",
        }
        .into(),
        _ => "–".into(),
    }
}

/// Where the studies' runs come from: computed, planned or replayed.
pub type MobRuns<'a> = dyn Runs<MobConfig, MobOutcome> + 'a;

/// `whereabouts reproduce --lab mobility`: every study, each lab run a point.
pub struct Reproduce(pub Scale);

impl LabStudy for Reproduce {
    type Run = MobConfig;

    fn tables(&self, runs: &mut MobRuns) -> Result<Vec<Table>, String> {
        all(&self.0, runs)
    }
}

/// ASR at each reported round, the mean ASR over the rounds and the AIT, each over the runs.
fn by_round(
    labs: &[MobOutcome],
    calibration: Calibration,
    reported: &[usize],
    tau: f64,
) -> Vec<String> {
    let mut row: Vec<String> = reported
        .iter()
        .map(|&r| cell(labs, 3, |o| o.round_asr(calibration, r, tau)))
        .collect();
    row.push(cell(labs, 3, |o| o.asr(calibration, tau)));
    row.push(cell(labs, 0, MobOutcome::ait));
    row
}

/// The paper's Table 3 (NYCB) and Table 4 (Gowalla), rounds 1, 10, …, 50 (its ST-GIA row for
/// both of our forms of it: the paper does not say which it ran).
fn paper_attacks(data: TraceKind, method: Method) -> Option<[f64; 6]> {
    Some(match (data, method) {
        (TraceKind::Vehicle, Method::Dlg) => [0.781, 0.687, 0.531, 0.464, 0.332, 0.269],
        (TraceKind::Vehicle, Method::Idlg) => [0.531, 0.472, 0.418, 0.366, 0.301, 0.245],
        (TraceKind::Vehicle, Method::InvGrad) => [0.031, 0.015, 0.006, 0.001, 0.0, 0.0],
        (TraceKind::Vehicle, Method::Cpl) => [0.575, 0.523, 0.452, 0.395, 0.321, 0.281],
        (TraceKind::Vehicle, Method::Sapag) => [0.406, 0.344, 0.313, 0.312, 0.250, 0.214],
        (TraceKind::Vehicle, Method::StGia) => [0.895, 0.825, 0.761, 0.709, 0.593, 0.425],
        (TraceKind::CheckIn, Method::Dlg) => [0.281, 0.252, 0.218, 0.173, 0.191, 0.153],
        (TraceKind::CheckIn, Method::Idlg) => [0.217, 0.187, 0.156, 0.125, 0.121, 0.117],
        (TraceKind::CheckIn, Method::InvGrad) => [0.0; 6],
        (TraceKind::CheckIn, Method::Cpl) => [0.224, 0.217, 0.178, 0.153, 0.147, 0.141],
        (TraceKind::CheckIn, Method::Sapag) => [0.125, 0.141, 0.005, 0.004, 0.002, 0.0],
        (TraceKind::CheckIn, Method::StGia) => [0.562, 0.531, 0.312, 0.250, 0.226, 0.187],
        (_, Method::StGiaPaper) => return None,
    })
}

/// The paper's Table 5 for a defence, ε = 1, 5, 10, 20, 50.
fn paper_defence(data: TraceKind, defence: &str) -> Option<[f64; 5]> {
    Some(match (data, defence) {
        (TraceKind::Vehicle, "DP-SGD") => [0.06, 0.14, 0.23, 0.40, 0.51],
        (TraceKind::Vehicle, "GeoI") => [0.08, 0.17, 0.26, 0.38, 0.54],
        (TraceKind::Vehicle, "GeoGI") => [0.11, 0.20, 0.28, 0.44, 0.56],
        (TraceKind::Vehicle, "PGEM, adaptive (ours)") => [0.09, 0.15, 0.23, 0.34, 0.48],
        (TraceKind::CheckIn, "DP-SGD") => [0.04, 0.11, 0.19, 0.21, 0.37],
        (TraceKind::CheckIn, "GeoI") => [0.09, 0.12, 0.22, 0.34, 0.41],
        (TraceKind::CheckIn, "GeoGI") => [0.11, 0.14, 0.26, 0.30, 0.39],
        (TraceKind::CheckIn, "PGEM, adaptive (ours)") => [0.02, 0.10, 0.17, 0.24, 0.35],
        _ => return None,
    })
}

fn data_title(scale: &Scale, data: TraceKind) -> String {
    match (&scale.real, data) {
        (Some(r), _) => format!(
            "on real data ({}), weekly check-in trajectories (paper: Gowalla, Table 4)",
            r.name
        ),
        (None, TraceKind::Vehicle) => "vehicle-like data (paper: NYCB, Table 3)".into(),
        (None, TraceKind::CheckIn) => "check-in-like data (paper: Gowalla, Table 4)".into(),
    }
}

/// Tables 3/4: every attack by round, ST-GIA with each calibration.
fn attacks(scale: &Scale, data: TraceKind, runs: &mut MobRuns) -> Result<Table, String> {
    let reported = scale.reported();
    let tau = MobConfig::default().tau_m;
    let mut rows = Vec::new();
    for method in Method::ALL {
        let mine = scale.each(runs, data, |c| c.attack.method = method)?;
        let variants: Vec<(String, Calibration)> = if method.is_st_gia() {
            let name = match method {
                Method::StGiaPaper => "ST-GIA as Algorithm 1 prints it",
                _ => "ST-GIA as the authors' code",
            };
            vec![
                (
                    format!("{name} (causal calibration, Eq. 9)"),
                    Calibration::Causal,
                ),
                (
                    format!("{name} (all-rounds calibration, code)"),
                    Calibration::AllRounds,
                ),
            ]
        } else {
            vec![(method.name().to_string(), Calibration::Off)]
        };
        for (name, cal) in variants {
            let mut row = vec![name];
            row.extend(by_round(&mine, cal, &reported, tau));
            rows.push(row);
        }
        if scale.rounds == 50
            && let Some(p) = paper_attacks(data, method)
        {
            let mut row = vec![format!("{} (paper)", method.name())];
            row.extend(p.iter().map(|v| format!("{v:.3}")));
            row.push(format!("{:.3}", p.iter().sum::<f64>() / 6.0));
            row.push("–".into());
            rows.push(row);
        }
    }
    let mut columns = vec!["attack".to_string()];
    columns.extend(reported.iter().map(|r| format!("round {r}")));
    columns.push("mean ASR".into());
    columns.push("AIT".into());
    Ok(Table {
        title: format!("Attacks by round — {}", data_title(scale, data)),
        notes: vec![format!(
            "ASR within 500 m over the points of round r's window; one client, one SGD step per round, {} attack iterations. ST-GIA as the authors' code: the row-wise L2 distance by L-BFGS (lr 0.01), the code's initialisation (the previous window shifted, U[0, 1) in round 1) and the road-network mapping. ST-GIA as Algorithm 1 prints it: Eq. 8's L2 distance by the plain gradient step of line 10 (η = 0.01, the paper gives none), stopped when the dummy no longer moves; Eq. 6's start (N(0, 1) in round 1, then the previous window unshifted with a label from N(0, 1)); the road mapping of the window and the label (line 11). A round whose attack diverged (left the finite numbers or the city) is not scored (docs/papers.md); a round with nothing scored is left out of its column. The mean ASR is over every scored point; AIT is the mean first iteration within 500 m over the rounds' points that got there. Each cell: {}.",
            scale.iterations,
            scale.over()
        )],
        columns,
        rows,
    })
}

/// Fig. 4: ST-GIA with each part switched.
fn ablation(scale: &Scale, kinds: &[TraceKind], runs: &mut MobRuns) -> Result<Table, String> {
    let variants: [(&str, Init, Mapping); 5] = [
        ("ST-GIA (code init, roads)", Init::Code, Mapping::Roads),
        ("random init", Init::Off, Mapping::Roads),
        ("paper's init (Eq. 6)", Init::Paper, Mapping::Roads),
        ("no mapping", Init::Code, Mapping::Off),
        (
            "mapping onto own points (oracle)",
            Init::Code,
            Mapping::OwnPoints,
        ),
    ];
    let tau = MobConfig::default().tau_m;
    let mut rows = Vec::new();
    for &data in kinds {
        for (name, init, mapping) in variants {
            let mine = scale.each(runs, data, |c| {
                c.attack.init = init;
                c.attack.mapping = mapping;
            })?;
            rows.push(vec![
                scale
                    .real
                    .as_ref()
                    .map_or(data.name(), |r| r.name)
                    .to_string(),
                name.to_string(),
                cell(&mine, 3, |o| o.asr(Calibration::Off, tau)),
                cell(&mine, 3, |o| o.asr(Calibration::Causal, tau)),
                cell(&mine, 3, |o| o.asr(Calibration::AllRounds, tau)),
                cell(&mine, 0, MobOutcome::ait),
                cell(&mine, 1, MobOutcome::diverged),
            ]);
        }
    }
    Ok(Table {
        title: format!(
            "ST-GIA ablation ([002] Fig. 4){} — ST-GIA as the authors' code, mean ASR over the rounds",
            scale
                .real
                .as_ref()
                .map_or(String::new(), |r| format!(" on real data ({})", r.name))
        ),
        notes: vec![format!(
            "Each row switches one part of ST-GIA; the calibration columns read the same runs ({} rounds, {} iterations). Diverged: rounds of a run whose L-BFGS left the finite numbers or whose window ended outside the city ([−10, 11] in the target's normalised coordinates); they are not scored, not calibrated from, and not started from (docs/papers.md). Each cell: {}.",
            scale.rounds,
            scale.iterations,
            scale.over()
        )],
        columns: [
            "data",
            "variant",
            "uncalibrated",
            "causal calibration",
            "all-rounds calibration",
            "AIT",
            "diverged rounds",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// The paper's FedAvg over 100 users against the authors' one client, FedAvg's ASR compared
/// with one client's by the intervals.
fn federation(scale: &Scale, runs: &mut MobRuns) -> Result<Table, String> {
    let tau = MobConfig::default().tau_m;
    let mut rows = Vec::new();
    for data in TraceKind::ALL {
        let mut one_client: Vec<Option<Estimate>> = Vec::new();
        for (fed, fed_name) in [
            (Federation::OneClient, "one client (code)"),
            (Federation::FedAvg, "FedAvg (paper)"),
        ] {
            let methods = [Method::Dlg, Method::StGia, Method::StGiaPaper];
            for (m, method) in methods.into_iter().enumerate() {
                let ls = scale.each(runs, data, |c| {
                    c.federation = fed;
                    c.users = scale.users;
                    c.attack.method = method;
                })?;
                let cal = if method.is_st_gia() {
                    Calibration::Causal
                } else {
                    Calibration::Off
                };
                let a = asr_estimate(&ls, cal, tau);
                let against = match fed {
                    Federation::OneClient => {
                        one_client.push(a);
                        "–".into()
                    }
                    Federation::FedAvg => compared(a, one_client[m]),
                };
                rows.push(vec![
                    data.name().into(),
                    fed_name.into(),
                    method.name().into(),
                    cell(&ls, 3, |o| o.asr(cal, tau)),
                    against,
                    cell(&ls, 0, MobOutcome::ait),
                    cell(&ls, 0, |o| o.utility.0.unwrap_or(f64::NAN)),
                ]);
            }
        }
    }
    Ok(Table {
        title: format!(
            "One client against FedAvg over {} users — ST-GIA as the authors' code and as Algorithm 1 prints it",
            scale.users
        ),
        notes: vec![format!(
            "In FedAvg every user takes one step on its own window t and the server attacks the target's update, which is the same gradient; what changes is the model the attack inverts, trained on everyone's data. FedAvg with ST-GIA as Algorithm 1 prints it is the paper's own setup (§5.1); one client with ST-GIA as the authors' code is theirs. Prediction error: on the trainers' held-out windows. \"Against one client\": FedAvg's ASR lower or higher where its interval lies wholly below or above one client's, else inconclusive here. Each cell: {}.",
            scale.over()
        )],
        columns: [
            "data",
            "federation",
            "attack",
            "mean ASR",
            "against one client",
            "AIT",
            "prediction error (m)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// How long the server's model was trained before round 0 (`pretrain.rs`) in the convergence
/// table: none (the paper's fresh model), a little, and until it beats staying put.
pub const PRETRAIN_EPOCHS: [usize; 3] = [0, 5, 20];

/// [002]'s reading that the attack weakens as the model converges: ST-GIA against models
/// pretrained on the city's other people for 0, 5 and 20 epochs, on `scale.seeds` runs each,
/// every figure the mean ± its 95% interval; the verdict follows the intervals.
pub fn convergence(scale: &Scale, data: TraceKind, runs: &mut MobRuns) -> Result<Table, String> {
    let tau = MobConfig::default().tau_m;
    let mut rows = Vec::new();
    let mut asrs = Vec::new();
    for epochs in PRETRAIN_EPOCHS {
        let ls = scale.each(runs, data, |c| c.pretrain_epochs = epochs)?;
        let a = asr_estimate(&ls, Calibration::Causal, tau);
        asrs.push(a);
        rows.push(vec![
            epochs.to_string(),
            cell(&ls, 0, |o| o.utility.0.unwrap_or(f64::NAN)),
            cell(&ls, 0, |o| o.stay_error.unwrap_or(f64::NAN)),
            a.map_or("–".into(), |e| e.cell(3, 1.0)),
            cell(&ls, 0, MobOutcome::ait),
        ]);
    }
    let verdict = match (
        asrs.first().copied().flatten(),
        asrs.last().copied().flatten(),
    ) {
        (Some(fresh), Some(trained)) => match Verdict::of(&trained, &fresh) {
            Verdict::Lower => {
                "holds here: the ASR interval on the model pretrained longest lies wholly below the fresh model's"
            }
            Verdict::Higher => {
                "the opposite here: the ASR interval on the model pretrained longest lies wholly above the fresh model's"
            }
            Verdict::Inconclusive => {
                "inconclusive here: the ASR intervals of the fresh and the longest-pretrained model overlap"
            }
        },
        _ => "not measured",
    };
    let name = match data {
        TraceKind::Vehicle => "vehicle-like data",
        TraceKind::CheckIn => "check-in-like data",
    };
    Ok(Table {
        title: format!(
            "The attack as the model converges ([002] §5; not a table of the paper) — {name}, ST-GIA as the authors' code"
        ),
        notes: vec![format!(
            "The server's model pretrained for 0, 5 or 20 epochs on the city's other {} people (mini-batch SGD, B = {}, η = {}; pretrain.rs) before the target's {} rounds of one SGD step each (η = 0.001, the authors' code); ST-GIA ({} iterations, causal calibration) attacks every round. Prediction error: the model's on the 20 windows after the training ones; staying where you are: the window's last position as the next, on the same windows. Each cell: {}. \"ASR falls as the model converges\" ([002]): {verdict}.",
            MobConfig::default().users - 1,
            super::pretrain::BATCH,
            super::pretrain::LEARNING_RATE,
            scale.rounds,
            scale.iterations,
            scale.over(),
        )],
        columns: [
            "pretraining epochs",
            "prediction error (m)",
            "staying where you are (m)",
            "mean ASR",
            "AIT",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// Every table, in order.
pub fn all(scale: &Scale, runs: &mut MobRuns) -> Result<Vec<Table>, String> {
    if let Some(real) = &scale.real {
        return real::tables(scale, real, runs);
    }
    let mut tables = Vec::new();
    for data in TraceKind::ALL {
        tables.push(attacks(scale, data, runs)?);
    }
    tables.push(ablation(scale, &TraceKind::ALL, runs)?);
    for data in TraceKind::ALL {
        let (a, u) = defence_tables(scale, data, runs)?;
        tables.push(a);
        tables.push(u);
    }
    tables.push(federation(scale, runs)?);
    for data in TraceKind::ALL {
        tables.push(convergence(scale, data, runs)?);
    }
    Ok(tables)
}
