//! Insight I3 ([000] §2.2; finding 4, §4.2) against two servers: DLG as in the paper and the
//! FedAvg-aware server that replays the phone's local training (beyond [000]: docs/papers.md
//! §3d), on the same updates of Table 2's first row.

use super::findings::{self, Check, Figures};
use super::{
    DEFAULT_DLG, FEDSGD, ONLY_DEFAULT, Outcome, Scale, SignalRuns, Table, campus, cell, each,
    summaries, titled,
};
use crate::signal_map::scenario::FedAvgSummary;
use crate::signal_map::studies;
use crate::signal_map::trace::RoundLength;

/// Insight I3 ([000] §2.2; finding 4, §4.2) against two servers: DLG as in the paper and the
/// FedAvg-aware server that replays the phone's local training (beyond [000]: docs/papers.md
/// §3d), on the same updates of Table 2's first row (campus, T = 1 week, no defence), with the
/// same iteration budget. Per-step errors measure how well the aware server recovers each
/// local step's mini-batch centroid.
pub fn local_steps_two_servers(
    scale: &Scale,
    runs: &mut SignalRuns,
    checks: &mut Vec<Check>,
) -> Result<Table, String> {
    let schemes = [("FedSGD", FEDSGD), ("FedAvg B = 20, E = 5", (Some(20), 5))];
    let mut rows = Vec::new();
    let mut dlg_on_fedsgd = None;
    for (name, scheme) in schemes {
        let config = |s: &Scale| {
            studies::with_fedavg_aware(&campus(s, s.campus_weeks, RoundLength::Week, scheme))
        };
        let local = config(scale).fl.local;
        let os = each(scale, runs, config)?;
        let steps = cell(&os, 0, |o| studies::local_steps(&local, &o.records));
        /// A figure of the FedAvg-aware server's summary.
        fn aware(f: fn(&FedAvgSummary) -> Option<f64>) -> impl Fn(&Outcome) -> Option<f64> {
            move |o| o.summary.fedavg.as_ref().and_then(f)
        }
        rows.push(vec![
            name.into(),
            "DLG (paper)".into(),
            steps.clone(),
            cell(&os, 0, |o| o.summary.diverged_percent),
            format!(
                "{} ({})",
                cell(&os, 0, |o| o.summary.emd_m),
                cell(&os, 0, |o| o.summary.random_emd_m)
            ),
            cell(&os, 0, |o| o.summary.mean_error_m),
            cell(&os, 0, |o| o.summary.median_step_error_m),
            cell(&os, 0, |o| o.summary.mean_iterations),
            cell(&os, 1, |o| o.summary.final_rmse_db),
        ]);
        rows.push(vec![
            name.into(),
            "FedAvg-aware".into(),
            steps,
            cell(&os, 0, aware(|a| Some(a.diverged_percent))),
            format!(
                "{} ({})",
                cell(&os, 0, aware(|a| a.emd_m)),
                cell(&os, 0, |o| o.summary.random_emd_m)
            ),
            cell(&os, 0, aware(|a| a.mean_error_m)),
            cell(&os, 0, aware(|a| a.median_step_error_m)),
            cell(&os, 0, aware(|a| Some(a.mean_iterations))),
            cell(&os, 1, |o| o.summary.final_rmse_db),
        ]);
        match scheme {
            FEDSGD => dlg_on_fedsgd = Some(Figures::of(&summaries(&os))),
            _ => {
                if let Some(sgd) = &dlg_on_fedsgd {
                    let aware: Vec<_> = os
                        .iter()
                        .filter_map(|o| o.summary.fedavg.as_ref())
                        .collect();
                    checks.push(findings::local_steps_blur_aware_server(
                        sgd,
                        &Figures::of_aware(&aware),
                    ));
                }
            }
        }
    }
    Ok(Table {
        title: titled(
            "Insight I3 against two servers (campus, T = 1 week; beyond [000]: the FedAvg-aware server)",
            DEFAULT_DLG,
        ),
        notes: vec![
            format!(
                "Both servers attack the same updates with the same budget ({} iterations, Adam 0.02, the start near Lemma 1 with 200 m noise). The FedAvg-aware server knows B, E, η and the number of local samples and replays the phone's E·⌈n/B⌉ SGD steps on one dummy point per step (docs/papers.md §3d); under FedSGD (one step) it solves DLG's problem. Avg dist: mean distance of the non-diverged round guesses (DLG's reconstruction, the aware server's step-weighted mean of its dummies) to the centroid of D_t; step dist: median distance to the true centroids of the local steps' mini-batches (DLG's one guess against each of them). Each cell: the mean over {} ± its 95% interval.",
                scale.dlg_iterations,
                scale.worlds()
            ),
            ONLY_DEFAULT.into(),
        ],
        columns: [
            "protocol",
            "server",
            "local steps",
            "% diverged",
            "EMD m (random)",
            "avg dist m",
            "step dist m",
            "iterations",
            "RMSE dB",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}
