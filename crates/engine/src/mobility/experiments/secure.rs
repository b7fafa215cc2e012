//! `whereabouts reproduce --lab mobility --study secure-sum` (issue 39 §2): ST-GIA on your own
//! update beside ST-GIA on the round's secure sum, against the number of co-participants — the
//! city's other users who train in your round (one client and k others, FedAvg's equal weights).
//! The errors are always to *your* positions.

use super::{MobOutcome, MobRuns, Scale, asr_estimate, cell, compared};
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

/// The study as a sweep (each lab run a point).
pub struct SecureSum(pub Scale);

impl LabStudy for SecureSum {
    type Run = MobConfig;

    fn tables(&self, runs: &mut MobRuns) -> Result<Vec<Table>, String> {
        Ok(vec![table(&self.0, runs)?])
    }
}
