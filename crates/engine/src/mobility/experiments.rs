//! The Mobility lab's studies for `whereabouts reproduce --lab mobility`
//! (docs/reproduce-mobility.md), laid out as [002]'s tables on the synthetic city's data: the
//! attacks by round (Tables 3 and 4, vehicle-like data beside NYCB, check-in-like beside
//! Gowalla), ST-GIA's ablation (Fig. 4), the defences by ε (Table 5) and utility against ASR
//! (Fig. 5), and the paper's FedAvg over 100 users beside the authors' one-client setting.
//!
//! Runs are independent points of a sweep ([`Reproduce`], [`whereabouts_core::sweep`]): the
//! command line spreads them over the machine's cores or a cluster; the browser's lab runs one
//! at a time in its worker.

use super::config::{Calibration, Federation, Init, Mapping, Method, MobConfig};
use super::defence::{Audit, Defence, DpClip};
use super::lab::{MobLab, RoundRecord, recorded_errors};
use super::metrics::asr;
use super::traces::TraceKind;
use serde::{Deserialize, Serialize};
use whereabouts_core::driver::Driver;
use whereabouts_core::stats::{self, Estimate, Verdict};
use whereabouts_core::sweep::{Runs, Sweep};
use whereabouts_core::table::Table;

/// How big the studies are.
#[derive(Clone, Copy, Debug)]
pub struct Scale {
    pub seed: u64,
    /// Independent runs per setting, seeds seed … seed + repeats − 1 (the authors' code: 4).
    pub repeats: usize,
    pub rounds: usize,
    pub iterations: usize,
    /// Users of the FedAvg comparison (the paper: 100).
    pub users: usize,
    /// Runs (seeds seed …) of the tables that give each figure with its 95% interval.
    pub seeds: usize,
}

impl Scale {
    pub fn full(seed: u64) -> Scale {
        Scale {
            seed,
            repeats: 4,
            rounds: 50,
            iterations: 200,
            users: 100,
            seeds: 5,
        }
    }

    pub fn quick(seed: u64) -> Scale {
        Scale {
            seed,
            repeats: 1,
            rounds: 10,
            iterations: 20,
            users: 5,
            seeds: 2,
        }
    }

    /// The rounds reported (1-based, as the paper's columns: 1, 10, 20, …).
    fn reported(&self) -> Vec<usize> {
        let mut r = vec![1];
        r.extend((10..=self.rounds).step_by(10));
        r
    }

    fn config(&self, data: TraceKind, repeat: usize) -> MobConfig {
        let mut c = MobConfig {
            seed: self.seed + repeat as u64,
            data,
            rounds: self.rounds,
            ..MobConfig::default()
        };
        c.attack.iterations = self.iterations;
        c
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
}

impl MobOutcome {
    /// One run to the end: a point of the sweep.
    pub fn of(config: &MobConfig) -> Result<Self, String> {
        let mut lab = MobLab::start(config.clone())?;
        lab.finish(&mut |_| {})?;
        Ok(Self {
            records: lab.records().to_vec(),
            all_rounds_errors_m: lab.errors_with(Calibration::AllRounds),
            utility: lab.utility(),
            stay_error: lab.stay_error(),
        })
    }

    fn records(&self) -> &[RoundRecord] {
        &self.records
    }

    fn utility(&self) -> (Option<f64>, Option<f64>) {
        self.utility
    }

    /// Every round's points' errors with `calibration` (as [`MobLab::errors_with`]).
    fn errors_with(&self, calibration: Calibration) -> Vec<Vec<f64>> {
        recorded_errors(&self.records, calibration)
            .unwrap_or_else(|| self.all_rounds_errors_m.clone())
    }
}

/// Where the studies' runs come from: computed, planned or replayed.
pub type MobRuns<'a> = dyn Runs<MobConfig, MobOutcome> + 'a;

/// Every config's outcome, in order.
fn run_all(runs: &mut MobRuns, configs: Vec<MobConfig>) -> Result<Vec<MobOutcome>, String> {
    configs.into_iter().map(|c| runs.run(c)).collect()
}

/// `whereabouts reproduce --lab mobility`: every study, each lab run a point.
pub struct Reproduce(pub Scale);

impl Sweep for Reproduce {
    type Config = MobConfig;
    type Outcome = MobOutcome;

    fn seed(config: &MobConfig) -> u64 {
        config.seed
    }

    fn run(&self, config: &MobConfig) -> Result<MobOutcome, String> {
        MobOutcome::of(config)
    }

    fn tables(&self, runs: &mut MobRuns) -> Result<Vec<Table>, String> {
        all(&self.0, runs)
    }
}

/// ASR at each reported round over the repeats' window points, and the mean AIT.
fn by_round(
    labs: &[&MobOutcome],
    calibration: Calibration,
    reported: &[usize],
    tau: f64,
) -> Vec<String> {
    let mut row: Vec<String> = reported
        .iter()
        .map(|&r| {
            let errors: Vec<f64> = labs
                .iter()
                .flat_map(|l| {
                    l.errors_with(calibration)
                        .get(r - 1)
                        .cloned()
                        .unwrap_or_default()
                })
                .collect();
            asr(&errors, tau).map_or("–".into(), |a| format!("{a:.3}"))
        })
        .collect();
    row.push(mean_over_rounds(labs, calibration, tau));
    row.push(mean_ait(labs));
    row
}

fn mean_over_rounds(labs: &[&MobOutcome], calibration: Calibration, tau: f64) -> String {
    let errors: Vec<f64> = labs
        .iter()
        .flat_map(|l| l.errors_with(calibration).into_iter().flatten())
        .collect();
    asr(&errors, tau).map_or("–".into(), |a| format!("{a:.3}"))
}

fn mean_ait(labs: &[&MobOutcome]) -> String {
    let aits: Vec<f64> = labs
        .iter()
        .flat_map(|l| l.records().iter().filter_map(|r| r.ait))
        .collect();
    if aits.is_empty() {
        "–".into()
    } else {
        format!("{:.0}", aits.iter().sum::<f64>() / aits.len() as f64)
    }
}

/// The paper's Table 3 (NYCB) and Table 4 (Gowalla), rounds 1, 10, …, 50.
fn paper_attacks(data: TraceKind, method: Method) -> [f64; 6] {
    match (data, method) {
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
    }
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

fn data_title(data: TraceKind) -> &'static str {
    match data {
        TraceKind::Vehicle => "vehicle-like data (paper: NYCB, Table 3)",
        TraceKind::CheckIn => "check-in-like data (paper: Gowalla, Table 4)",
    }
}

/// Tables 3/4: every attack by round, ST-GIA with each calibration.
fn attacks(scale: &Scale, data: TraceKind, runs: &mut MobRuns) -> Result<Table, String> {
    let mut configs = Vec::new();
    for method in Method::ALL {
        for r in 0..scale.repeats {
            let mut c = scale.config(data, r);
            c.attack.method = method;
            configs.push(c);
        }
    }
    let labs = run_all(runs, configs)?;
    let reported = scale.reported();
    let tau = MobConfig::default().tau_m;
    let mut rows = Vec::new();
    for (m, method) in Method::ALL.iter().enumerate() {
        let mine: Vec<&MobOutcome> = labs[m * scale.repeats..(m + 1) * scale.repeats]
            .iter()
            .collect();
        let variants: Vec<(String, Calibration)> = if *method == Method::StGia {
            vec![
                (
                    "ST-GIA (causal calibration, Eq. 9)".into(),
                    Calibration::Causal,
                ),
                (
                    "ST-GIA (all-rounds calibration, code)".into(),
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
        if scale.rounds == 50 {
            let p = paper_attacks(data, *method);
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
        title: format!("Attacks by round — {}", data_title(data)),
        notes: vec![format!(
            "ASR within 500 m over the points of round r's window, {} runs (seeds {}–{}), one client, one SGD step per round, {} attack iterations; ST-GIA with the code's initialisation and the road-network mapping. The mean ASR is over every round; AIT is the mean first iteration within 500 m over the points that got there.",
            scale.repeats,
            scale.seed,
            scale.seed + scale.repeats as u64 - 1,
            scale.iterations
        )],
        columns,
        rows,
    })
}

/// Fig. 4: ST-GIA with each part switched.
fn ablation(scale: &Scale, runs: &mut MobRuns) -> Result<Table, String> {
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
    let mut configs = Vec::new();
    for data in TraceKind::ALL {
        for (_, init, mapping) in variants {
            for r in 0..scale.repeats {
                let mut c = scale.config(data, r);
                c.attack.init = init;
                c.attack.mapping = mapping;
                configs.push(c);
            }
        }
    }
    let labs = run_all(runs, configs)?;
    let tau = MobConfig::default().tau_m;
    let mut rows = Vec::new();
    for (d, data) in TraceKind::ALL.iter().enumerate() {
        for (v, (name, _, _)) in variants.iter().enumerate() {
            let at = (d * variants.len() + v) * scale.repeats;
            let mine: Vec<&MobOutcome> = labs[at..at + scale.repeats].iter().collect();
            let diverged = mine
                .iter()
                .flat_map(|l| l.records())
                .filter(|r| r.diverged)
                .count();
            rows.push(vec![
                data.name().to_string(),
                name.to_string(),
                mean_over_rounds(&mine, Calibration::Off, tau),
                mean_over_rounds(&mine, Calibration::Causal, tau),
                mean_over_rounds(&mine, Calibration::AllRounds, tau),
                mean_ait(&mine),
                format!("{diverged}"),
            ]);
        }
    }
    Ok(Table {
        title: "ST-GIA ablation ([002] Fig. 4) — mean ASR over the rounds".into(),
        notes: vec![format!(
            "Each row switches one part of ST-GIA; the calibration columns read the same runs ({} per row, {} rounds, {} iterations). Diverged: rounds whose L-BFGS left the finite numbers (the round keeps its last finite iterate).",
            scale.repeats, scale.rounds, scale.iterations
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

pub const EPSILONS: [f64; 5] = [1.0, 5.0, 10.0, 20.0, 50.0];

/// Table 5's defences at ε: the paper's, DP-SGD also as the authors' code does it, and the
/// adaptive PGEM with each audit.
fn defences(epsilon: f64) -> [Defence; 6] {
    [
        Defence::DpSgd {
            epsilon,
            clip: DpClip::Flat,
        },
        Defence::DpSgd {
            epsilon,
            clip: DpClip::PerTensor,
        },
        Defence::GeoI { epsilon },
        Defence::GeoGi { epsilon },
        Defence::Adaptive {
            epsilon,
            audit: Audit::SelfAudit,
        },
        Defence::Adaptive {
            epsilon,
            audit: Audit::PreviousRound,
        },
    ]
}

fn defence_label(d: &Defence) -> String {
    match d {
        Defence::Adaptive {
            audit: Audit::SelfAudit,
            ..
        } => "PGEM, adaptive (ours), self-audit".into(),
        Defence::Adaptive {
            audit: Audit::PreviousRound,
            ..
        } => "PGEM, adaptive (ours), previous round".into(),
        d => d.name().to_string(),
    }
}

/// The total ε over a run of each repeat (the same for every repeat: σ does not depend on
/// the data), on the defence's footing ([`Defence::total_epsilon`]).
fn total_epsilon(d: &Defence, labs: &[&MobOutcome]) -> String {
    let totals: Vec<f64> = labs
        .iter()
        .filter_map(|l| {
            let records = l.records();
            d.total_epsilon(records.len(), records.last().and_then(|r| r.dp_epsilon))
        })
        .collect();
    if totals.is_empty() {
        return "–".into();
    }
    format_epsilon(totals.iter().sum::<f64>() / totals.len() as f64)
}

/// An ε to a sensible precision: whole numbers from 10, else up to two decimals.
pub fn format_epsilon(e: f64) -> String {
    if e >= 10.0 {
        format!("{e:.0}")
    } else {
        let s = format!("{e:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Table 5 and Fig. 5: ST-GIA's ASR under each defence by ε, and the model's utility.
fn defence_tables(
    scale: &Scale,
    data: TraceKind,
    runs: &mut MobRuns,
) -> Result<(Table, Table), String> {
    let mut configs = Vec::new();
    let mut none = Vec::new();
    for r in 0..scale.repeats {
        none.push(scale.config(data, r));
    }
    configs.extend(none);
    for e in EPSILONS {
        for d in defences(e) {
            for r in 0..scale.repeats {
                let mut c = scale.config(data, r);
                c.defence = d;
                configs.push(c);
            }
        }
    }
    let labs = run_all(runs, configs)?;
    let tau = MobConfig::default().tau_m;
    let group = |g: usize| -> Vec<&MobOutcome> {
        labs[g * scale.repeats..(g + 1) * scale.repeats]
            .iter()
            .collect()
    };
    let utility = |ls: &[&MobOutcome]| {
        let u: Vec<(f64, f64)> = ls
            .iter()
            .filter_map(|l| {
                let (e, r) = l.utility();
                Some((e?, r?))
            })
            .collect();
        let n = u.len().max(1) as f64;
        (
            u.iter().map(|x| x.0).sum::<f64>() / n,
            u.iter().map(|x| x.1).sum::<f64>() / n,
        )
    };
    let mut asr_rows = Vec::new();
    let mut util_rows = Vec::new();
    let base = group(0);
    let (be, br) = utility(&base);
    let stays: Vec<f64> = base.iter().filter_map(|o| o.stay_error).collect();
    let stay = stays.iter().sum::<f64>() / stays.len().max(1) as f64;
    util_rows.push(vec![
        "none".into(),
        "–".into(),
        mean_over_rounds(&base, Calibration::Causal, tau),
        format!("{be:.0}"),
        format!("{br:.2}"),
    ]);
    let per_epsilon = defences(1.0).len();
    // The paper's row once per defence it names (both audits of PGEM are its one row; the
    // authors'-code DP-SGD has none of its own).
    let mut papers_shown: Vec<&str> = Vec::new();
    for (k, d) in defences(1.0).iter().enumerate() {
        let mut row = vec![defence_label(d)];
        let mut totals = Vec::new();
        for (i, e) in EPSILONS.iter().enumerate() {
            let ls = group(1 + i * per_epsilon + k);
            let at = defences(*e)[k];
            totals.push(total_epsilon(&at, &ls));
            let a = mean_over_rounds(&ls, Calibration::Causal, tau);
            let (ue, ur) = utility(&ls);
            util_rows.push(vec![
                defence_label(d),
                format!("{e}"),
                a.clone(),
                format!("{ue:.0}"),
                format!("{ur:.2}"),
            ]);
            row.push(a);
        }
        row.push(totals.join(" / "));
        row.push(d.total_unit().into());
        asr_rows.push(row);
        if let Some(p) = paper_defence(data, d.name()).filter(|_| !papers_shown.contains(&d.name()))
        {
            papers_shown.push(d.name());
            let mut row = vec![format!("{} (paper)", d.name())];
            row.extend(p.iter().map(|v| format!("{v:.2}")));
            row.extend(["–".into(), "–".into()]);
            asr_rows.push(row);
        }
    }
    let mut columns = vec!["defence".to_string()];
    columns.extend(EPSILONS.iter().map(|e| format!("ε = {e}")));
    columns.push(format!(
        "total ε over the run (at ε = {})",
        EPSILONS.map(|e| e.to_string()).join(" / ")
    ));
    columns.push("unit of the total".into());
    let name = match data {
        TraceKind::Vehicle => "vehicle-like data (paper: NYCB)",
        TraceKind::CheckIn => "check-in-like data (paper: Gowalla)",
    };
    let note = format!(
        "ST-GIA (causal calibration) against each defence, mean ASR over {} rounds, {} runs each; undefended: {}. The ε of a column is what each defence is set to: DP-SGD's and GeoI's and GeoGI's is spent every round, PGEM's is the run's total (per km), allocated by Eqs. 10–12. Every row's total over the run is on a stated footing. DP-SGD (local DP: the server sees each phone's own noisy gradient, so any two training windows are neighbours): ε per round is exact, (ε, 10⁻⁵) for the round's window of 9 fixes, the whole gradient clipped to C = 0.2 and σ from the analytic Gaussian mechanism at Δ = 2C; its total is the Rényi-DP composition of every round's σ read at δ = 10⁻⁵, for the device's whole trajectory trained on (both are upper bounds from different accountings: the RDP total after one round already exceeds the round's exact ε). DP-SGD as in the authors' code clips each of the 6 tensors to 0.2 and calibrates the classic σ for a sensitivity of 0.2; its true replace-sensitivity is 2·0.2·√6 ≈ 0.98, and its total is accounted at that. GeoI and GeoGI: ε per km per round, total = rounds × ε per km (basic composition of pure DP). PGEM: ε per km is already the run's total.",
        scale.rounds,
        scale.repeats,
        mean_over_rounds(&base, Calibration::Causal, tau)
    );
    Ok((
        Table {
            title: format!("Defences by ε ([002] Table 5) — {name}"),
            notes: vec![note],
            columns,
            rows: asr_rows,
        },
        Table {
            title: format!("Utility against ASR ([002] Fig. 5) — {name}"),
            notes: vec![format!(
                "Utility: the model's next-location error on the 20 windows after the training ones (metres) and recall@5 over the person's own places (our reading of the paper's recall@5 for a regression model). Beside it, on the same windows: staying where you are (the window's last position as the next) errs by {stay:.0} m; a model that does no better has learnt nothing about where the person goes."
            )],
            columns: ["defence", "ε", "ASR", "prediction error (m)", "recall@5"]
                .map(String::from)
                .to_vec(),
            rows: util_rows,
        },
    ))
}

/// The paper's FedAvg over 100 users against the authors' one client.
fn federation(scale: &Scale, runs: &mut MobRuns) -> Result<Table, String> {
    let mut configs = Vec::new();
    let methods = [Method::Dlg, Method::StGia];
    for data in TraceKind::ALL {
        for fed in [Federation::OneClient, Federation::FedAvg] {
            for m in methods {
                for r in 0..scale.repeats {
                    let mut c = scale.config(data, r);
                    c.federation = fed;
                    c.users = scale.users;
                    c.attack.method = m;
                    configs.push(c);
                }
            }
        }
    }
    let labs = run_all(runs, configs)?;
    let tau = MobConfig::default().tau_m;
    let mut rows = Vec::new();
    let mut g = 0;
    for data in TraceKind::ALL {
        for fed in ["one client (code)", "FedAvg (paper)"] {
            for m in methods {
                let ls: Vec<&MobOutcome> = labs[g * scale.repeats..(g + 1) * scale.repeats]
                    .iter()
                    .collect();
                g += 1;
                let cal = if m == Method::StGia {
                    Calibration::Causal
                } else {
                    Calibration::Off
                };
                let (e, _) = ls[0].utility();
                rows.push(vec![
                    data.name().into(),
                    fed.into(),
                    m.name().into(),
                    mean_over_rounds(&ls, cal, tau),
                    mean_ait(&ls),
                    e.map_or("–".into(), |e| format!("{e:.0}")),
                ]);
            }
        }
    }
    Ok(Table {
        title: format!("One client against FedAvg over {} users", scale.users),
        notes: vec!["In FedAvg every user takes one step on its own window t and the server attacks the target's update, which is the same gradient; what changes is the model the attack inverts, trained on everyone's data. Prediction error: the first run's, on the trainers' held-out windows.".into()],
        columns: ["data", "federation", "attack", "mean ASR", "AIT", "prediction error (m)"]
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
    let mut configs = Vec::new();
    for epochs in PRETRAIN_EPOCHS {
        for r in 0..scale.seeds {
            let mut c = scale.config(data, r);
            c.pretrain_epochs = epochs;
            configs.push(c);
        }
    }
    let labs = run_all(runs, configs)?;
    let run_asr = |o: &MobOutcome| {
        let errors: Vec<f64> = o
            .errors_with(Calibration::Causal)
            .into_iter()
            .flatten()
            .collect();
        asr(&errors, tau).unwrap_or(f64::NAN)
    };
    let mut rows = Vec::new();
    let mut asrs = Vec::new();
    for (g, epochs) in PRETRAIN_EPOCHS.into_iter().enumerate() {
        let ls = &labs[g * scale.seeds..(g + 1) * scale.seeds];
        let a = Estimate::of(ls.iter().map(run_asr));
        asrs.push(a);
        rows.push(vec![
            epochs.to_string(),
            stats::cell(ls.iter().map(|o| o.utility.0.unwrap_or(f64::NAN)), 0, 1.0),
            stats::cell(ls.iter().map(|o| o.stay_error.unwrap_or(f64::NAN)), 0, 1.0),
            a.map_or("–".into(), |e| e.cell(3, 1.0)),
            stats::cell(
                ls.iter().map(|o| {
                    o.records.iter().filter_map(|r| r.ait).sum::<f64>()
                        / o.records.iter().filter(|r| r.ait.is_some()).count().max(1) as f64
                }),
                0,
                1.0,
            ),
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
            "The attack as the model converges ([002] §5; not a table of the paper) — {name}"
        ),
        notes: vec![format!(
            "The server's model pretrained for 0, 5 or 20 epochs on the city's other {} people (mini-batch SGD, B = {}, η = {}; pretrain.rs) before the target's {} rounds of one SGD step each (η = 0.001, the authors' code); ST-GIA ({} iterations, causal calibration) attacks every round. Prediction error: the model's on the 20 windows after the training ones; staying where you are: the window's last position as the next, on the same windows. Each cell: the mean over {} runs (seeds {}–{}) ± its 95% interval. \"ASR falls as the model converges\" ([002]): {verdict}.",
            MobConfig::default().users - 1,
            super::pretrain::BATCH,
            super::pretrain::LEARNING_RATE,
            scale.rounds,
            scale.iterations,
            scale.seeds,
            scale.seed,
            scale.seed + scale.seeds as u64 - 1,
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
    let mut tables = Vec::new();
    for data in TraceKind::ALL {
        tables.push(attacks(scale, data, runs)?);
    }
    tables.push(ablation(scale, runs)?);
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
