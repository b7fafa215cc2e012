//! `whereabouts reproduce --lab mobility --study secure-sum` (issue 39 §2): ST-GIA on your own
//! update beside ST-GIA on the round's secure sum, against the number of co-participants — the
//! city's other users who train in your round (one client and k others, FedAvg's equal weights).
//! The errors are always to *your* positions. Its second table sets the sum with central DP
//! (`sees = dp`, DP-FedAvg: `central_dp.rs`) beside every update and the sum, at two noise
//! levels with a trusted aggregator and with the phones' own noise and dropouts, with your
//! user-level ε and the model's prediction error beside staying put. Its third table is the
//! n − 1 (Sybil) attack (`secure.rs`): a server that fills your round with its own phones,
//! and the minimum cohort of genuine phones that stops it, as the Signal map's study has it.

use super::{MobOutcome, MobRuns, Scale, asr_estimate, cell, compared};
use crate::mobility::central_dp::{self, CentralDp, CentralDpRecord, NoiseAt};
use crate::mobility::config::{Calibration, MobConfig};
use crate::mobility::traces::TraceKind;
use whereabouts_core::metrics;
use whereabouts_core::secagg::Sees;
use whereabouts_core::sweep::LabStudy;
use whereabouts_core::table::Table;

/// The co-participants compared (issue 39 §2: 1, 2, 5, 10; 0 is your update alone).
pub const CO_PARTICIPANTS: [usize; 5] = [0, 1, 2, 5, 10];

/// The median error of a run's causally calibrated estimates of your positions (m).
fn median_error(o: &MobOutcome) -> f64 {
    let e: Vec<f64> = o
        .errors_with(Calibration::Causal)
        .into_iter()
        .flatten()
        .collect();
    metrics::median(&e).unwrap_or(f64::NAN)
}

/// The table, every run asked of `runs` once.
pub fn table(scale: &Scale, runs: &mut MobRuns) -> Result<Table, String> {
    let tau = MobConfig::default().tau_m;
    let data = TraceKind::Vehicle;
    let mut rows = Vec::new();
    for co in CO_PARTICIPANTS {
        let by = |runs: &mut MobRuns, sees| {
            scale.each(runs, data, |c| {
                c.co_participants = co;
                c.sees = sees;
            })
        };
        let every = by(runs, Sees::Updates)?;
        let sum = by(runs, Sees::Sum)?;
        let (a, b) = (
            asr_estimate(&every, Calibration::Causal, tau),
            asr_estimate(&sum, Calibration::Causal, tau),
        );
        rows.push(vec![
            co.to_string(),
            cell(&every, 3, |o| o.asr(Calibration::Causal, tau)),
            cell(&sum, 3, |o| o.asr(Calibration::Causal, tau)),
            compared(b, a),
            cell(&every, 0, median_error),
            cell(&sum, 0, median_error),
            cell(&sum, 0, |o| o.diverged()),
            format!(
                "{} / {}",
                cell(&every, 0, |o| o.utility.0.unwrap_or(f64::NAN)),
                cell(&sum, 0, |o| o.utility.0.unwrap_or(f64::NAN))
            ),
        ]);
    }
    Ok(Table {
        title: format!(
            "Under secure aggregation: ST-GIA on your update and on the round's sum, against the co-participants ({}, one client and k others, {} rounds, {} iterations)",
            data.name(),
            scale.rounds,
            scale.iterations
        ),
        notes: vec![format!(
            "Every update: the server inverts your own gradient, as in [002]. Only the sum: secure \
             aggregation — the round's phones (you and k co-participants, users 1 … k of the city, \
             each one SGD step on its own window t) send their gradients through the core's \
             protocol (run for real up to 20 phones) and the server inverts the mean it unmasks, \
             which also moves the model, as FedAvg would. ASR: the share of your window's points \
             within τ = {tau:.0} m, causally calibrated (ST-GIA as the authors' code), mean over \
             the rounds; median error: of those estimates to your positions. \"Sum against every \
             update\": lower or higher where the intervals separate. Diverged: rounds whose \
             inversion left the city or the finite numbers (not scored). Prediction error: the \
             model's on the trainers' held-out windows, every update / only the sum. Each cell: {}.",
            scale.over()
        )],
        columns: [
            "co-participants",
            "ASR, every update",
            "ASR, only the sum",
            "sum against every update",
            "median error, every update (m)",
            "median error, only the sum (m)",
            "diverged rounds, only the sum",
            "prediction error (m)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// The co-participants of the central-DP table: you alone (the authors' code; N = 1) and ten
/// others (N = 11).
pub const DP_CO_PARTICIPANTS: [usize; 2] = [0, 10];

/// What the server sees in the central-DP table: every update, the sum, and the sum with
/// DP-FedAvg (every phone of the round sampled, q = 1; the lab's clip C = 1) at z = 0.5 and 2
/// with a trusted aggregator, and at z = 1 with each phone adding its share and 10% of them
/// dropping out.
pub fn dp_arms() -> Vec<(&'static str, Sees, CentralDp)> {
    let dp = central_dp::lab_default();
    vec![
        ("every update", Sees::Updates, dp),
        ("only the sum", Sees::Sum, dp),
        (
            "sum + DP, z = 0.5",
            Sees::Dp,
            CentralDp {
                noise_multiplier: 0.5,
                ..dp
            },
        ),
        (
            "sum + DP, z = 2",
            Sees::Dp,
            CentralDp {
                noise_multiplier: 2.0,
                ..dp
            },
        ),
        (
            "sum + DP, z = 1, the phones' noise, 10% drop out",
            Sees::Dp,
            CentralDp {
                noise_multiplier: 1.0,
                noise_at: NoiseAt::Distributed,
                dropout: 0.1,
                ..dp
            },
        ),
    ]
}

/// A run's central-DP records, one a round (none without central DP).
fn dp_records(o: &MobOutcome) -> Vec<&CentralDpRecord> {
    o.records
        .iter()
        .filter_map(|r| r.central_dp.as_ref())
        .collect()
}

/// Your user-level ε over the run (the last round's total).
fn epsilon_total(o: &MobOutcome) -> f64 {
    dp_records(o).last().map_or(f64::NAN, |r| r.epsilon_total)
}

/// Your ε of a round, the mean over the rounds that cost you any (with the phones' noise, the
/// rounds your phone sent).
fn epsilon_round(o: &MobOutcome) -> f64 {
    let e: Vec<f64> = dp_records(o)
        .iter()
        .filter(|r| r.accounted_q.is_some())
        .map(|r| r.epsilon_round)
        .collect();
    e.iter().sum::<f64>() / e.len() as f64
}

/// The second table: the sum with central DP beside every update and the sum.
pub fn dp_table(scale: &Scale, runs: &mut MobRuns) -> Result<Table, String> {
    let tau = MobConfig::default().tau_m;
    let data = TraceKind::Vehicle;
    let mut rows = Vec::new();
    for co in DP_CO_PARTICIPANTS {
        let by = |runs: &mut MobRuns, sees, dp| {
            scale.each(runs, data, |c| {
                c.co_participants = co;
                c.sees = sees;
                c.central_dp = dp;
            })
        };
        let base = central_dp::lab_default();
        let sum = by(runs, Sees::Sum, base)?;
        let sum_asr = asr_estimate(&sum, Calibration::Causal, tau);
        for (name, sees, dp) in dp_arms() {
            let arm = by(runs, sees, dp)?;
            let asr = asr_estimate(&arm, Calibration::Causal, tau);
            let noised = sees == Sees::Dp;
            rows.push(vec![
                co.to_string(),
                name.to_string(),
                cell(&arm, 3, |o| o.asr(Calibration::Causal, tau)),
                match sees {
                    Sees::Dp => compared(asr, sum_asr),
                    _ => "–".into(),
                },
                cell(&arm, 0, median_error),
                if noised {
                    cell(&arm, 1, epsilon_total)
                } else {
                    "∞ (no noise)".into()
                },
                if noised {
                    cell(&arm, 2, epsilon_round)
                } else {
                    "–".into()
                },
                cell(&arm, 0, |o| o.utility.0.unwrap_or(f64::NAN)),
                cell(&arm, 0, |o| o.stay_error.unwrap_or(f64::NAN)),
            ]);
        }
    }
    Ok(Table {
        title: format!(
            "Under secure aggregation with central DP: ST-GIA on every update, the sum, and the sum with DP-FedAvg's noise ({}, one client and k others, {} rounds, {} iterations)",
            data.name(),
            scale.rounds,
            scale.iterations
        ),
        notes: vec![format!(
            "Sum + DP: DP-FedAvg (McMahan et al. 2018, Alg. 1) over the round's secure sum — the \
             round's phones (N = k + 1: you and users 1 … k) each sampled with q = 1, each \
             gradient clipped to L2 norm C = 1 (about the median norm of the lab's gradients), \
             Gaussian noise z·C on the sum (added once by a trusted aggregator, or a share by each \
             phone, whose dropouts take their share with them), divided by qN; the model steps by \
             that and ST-GIA inverts it. Your ε: user-level (your whole trajectory in or out), \
             at δ = 10⁻⁵, over the run's rounds by the RDP accountant of the sampled Gaussian \
             (trusted: every round at q; the phones' noise: the rounds your phone sent, at q = 1 \
             and the noise left after dropouts); a round: the mean over the rounds that cost you \
             any. \"Against only the sum\": lower or higher where the intervals separate. ASR and \
             median error as in the table before (causal calibration, τ = {tau:.0} m, errors to \
             your positions). Prediction error: the model's on the trainers' held-out windows, \
             beside staying put (the window's last position) on the same windows; every update \
             and only the sum are the model without noise. The malicious server is built only in \
             the Signal map. Each cell: {}.",
            scale.over()
        )],
        columns: [
            "co-participants",
            "what the server sees",
            "ASR",
            "against only the sum",
            "median error (m)",
            "your ε over the run",
            "your ε a round",
            "prediction error (m)",
            "staying put (m)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// The other phones of the Sybil table (the city's users 1 … 5 train in your round), the
/// Sybils the attacking server brings, and the minimum cohorts the phones may ask for.
pub const SYBIL_OTHERS: usize = 5;
pub const SYBILS: usize = 5;
pub const MIN_COHORTS: [usize; 2] = [3, 6];

/// Genuine phones in a run's sums, the mean over its rounds.
fn genuine(o: &MobOutcome) -> f64 {
    let n: Vec<f64> = o
        .records
        .iter()
        .filter_map(|r| r.secure.as_ref())
        .map(|s| s.clients as f64)
        .collect();
    n.iter().sum::<f64>() / n.len() as f64
}

/// The third table: the n − 1 (Sybil) attack and the minimum cohort of genuine phones.
pub fn sybil_table(scale: &Scale, runs: &mut MobRuns) -> Result<Table, String> {
    let tau = MobConfig::default().tau_m;
    let data = TraceKind::Vehicle;
    let by = |runs: &mut MobRuns, co: usize, sees: Sees, sybils: usize, k: usize| {
        scale.each(runs, data, |c| {
            c.co_participants = co;
            c.sees = sees;
            c.sybils = sybils;
            c.min_genuine = k;
        })
    };
    let mut arms: Vec<(String, Vec<MobOutcome>)> = vec![
        (
            "every update, you alone".into(),
            by(runs, 0, Sees::Updates, 0, 1)?,
        ),
        (
            format!("only the sum, honest server, you and {SYBIL_OTHERS} others"),
            by(runs, SYBIL_OTHERS, Sees::Sum, 0, 1)?,
        ),
        (
            format!("only the sum, Sybil server ({SYBILS} of its own phones), no minimum"),
            by(runs, SYBIL_OTHERS, Sees::Sum, SYBILS, 1)?,
        ),
    ];
    for k in MIN_COHORTS {
        arms.push((
            format!("only the sum, Sybil server, phones ask for {k} genuine"),
            by(runs, SYBIL_OTHERS, Sees::Sum, SYBILS, k)?,
        ));
    }
    let asr_of = |os: &[MobOutcome]| asr_estimate(os, Calibration::Causal, tau);
    let (alone, attacked) = (asr_of(&arms[0].1), asr_of(&arms[2].1));
    let mut rows = Vec::new();
    for (k, (name, os)) in arms.iter().enumerate() {
        let verdict = match k {
            0 => String::new(),
            2 => format!("ASR against you alone: {}", compared(asr_of(os), alone)),
            _ => format!(
                "ASR against the Sybil server's: {}",
                compared(asr_of(os), attacked)
            ),
        };
        rows.push(vec![
            name.clone(),
            if k == 0 {
                "–".into()
            } else {
                cell(os, 1, genuine)
            },
            cell(os, 3, |o| o.asr(Calibration::Causal, tau)),
            cell(os, 0, median_error),
            verdict,
            cell(os, 0, |o| o.utility.0.unwrap_or(f64::NAN)),
        ]);
    }
    Ok(Table {
        title: format!(
            "The n − 1 (Sybil) attack on secure aggregation and the minimum cohort of genuine phones ({}, one client and {SYBIL_OTHERS} others, {} rounds, {} iterations)",
            data.name(),
            scale.rounds,
            scale.iterations
        ),
        notes: vec![format!(
            "The Sybil server picks the round itself: you, as few of your {SYBIL_OTHERS} \
             co-participants as the phones accept (k − 1, drawn at random each round, when they \
             ask for k genuine phones), and {SYBILS} phones it runs on windows it made up; it \
             subtracts their words from the secure sum (exactly, in Z_2^32), divides by the \
             genuine phones and inverts that with ST-GIA — with no minimum, your own gradient to \
             the quantisation step. The model moves by the genuine phones' mean. ASR and median \
             error as in the first table (causal calibration, τ = {tau:.0} m, errors to your \
             positions); a verdict holds only where the intervals separate. Prediction error: the \
             model's on the trainers' held-out windows. Each cell: {}.",
            scale.over()
        )],
        columns: [
            "server and phones",
            "genuine phones in the sum",
            "ASR",
            "median error (m)",
            "verdict",
            "prediction error (m)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// The study as a sweep (each lab run a point).
pub struct SecureSum(pub Scale);

impl LabStudy for SecureSum {
    type Run = MobConfig;

    fn tables(&self, runs: &mut MobRuns) -> Result<Vec<Table>, String> {
        Ok(vec![
            table(&self.0, runs)?,
            dp_table(&self.0, runs)?,
            sybil_table(&self.0, runs)?,
        ])
    }
}
