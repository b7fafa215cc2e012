//! The model's start, beyond [000] (its start is lost, docs/papers.md §3a): FedSGD at each T
//! and FedAvg at T = 1 week, from the paper's literal start (output bias 0 dBm) and from the
//! mean label, the attack and the map side by side.

use super::round_length::{ROUND_LENGTHS, round_length_run, t_name};
use super::{
    DEFAULT_DLG, ONLY_DEFAULT, Scale, SignalRuns, Table, campus, cell, each, references_note,
    titled,
};
use crate::signal_map::scenario::{OutputBias, ScenarioConfig};
use crate::signal_map::trace::RoundLength;

/// A setting of the start table: its configuration on a world from a start.
type StartRun = Box<dyn Fn(&Scale, OutputBias) -> ScenarioConfig>;

/// Beyond [000] (its start is lost, docs/papers.md §3a): FedSGD at each T and FedAvg at
/// T = 1 week from the paper's literal start (output bias 0 dBm) and from the mean label, the
/// attack and the map side by side.
pub fn starts(scale: &Scale, runs: &mut SignalRuns) -> Result<Table, String> {
    let mut settings: Vec<(String, StartRun)> = ROUND_LENGTHS
        .into_iter()
        .map(|t| {
            let run: StartRun = Box::new(move |s: &Scale, b| round_length_run(s, t, b));
            (format!("FedSGD, T = 1 {}", t_name(t)), run)
        })
        .collect();
    settings.push((
        "FedAvg B = 20, E = 5, T = 1 week".into(),
        Box::new(|s: &Scale, b| ScenarioConfig {
            output_bias: b,
            ..campus(s, s.campus_weeks, RoundLength::Week, (Some(20), 5))
        }),
    ));
    let mut rows = Vec::new();
    let mut all = Vec::new();
    for (label, config) in &settings {
        for (start, bias) in [
            ("0 dBm (paper)", OutputBias::Zero),
            ("mean label", OutputBias::MeanLabel),
        ] {
            let os = each(scale, runs, |s| config(s, bias))?;
            rows.push(vec![
                label.clone(),
                start.into(),
                cell(&os, 0, |o| o.summary.median_error_m),
                cell(&os, 0, |o| o.summary.analytic_median_error_m),
                cell(&os, 2, |o| Some(o.summary.emd_m? / o.summary.random_emd_m?)),
                cell(&os, 0, |o| o.summary.diverged_percent),
                cell(&os, 1, |o| o.summary.final_rmse_db),
            ]);
            all.extend(os);
        }
    }
    Ok(Table {
        title: titled(
            "The model's start (campus, user 0): the paper's 0 dBm against the mean label",
            DEFAULT_DLG,
        ),
        notes: vec![
            format!(
                "[000] trains from an untrained model and does not say where its output starts (docs/papers.md §3a). From 0 dBm every residual has one sign, so an update is a weighted sum of the round's points' gradients all pulling one way, and the reconstruction lands near their centroid; from the mean label the residuals cancel, the update no longer looks like any one place (DLG diverges, Lemma 1's divisor is near 0), and at η = 0.001 the map stays the mean predictor's. Median dist: DLG's median distance to the centroid of D_t (non-diverged rounds); Lemma 1: the analytic reconstruction's. Each cell: the mean over {} ± its 95% interval, \"(k of n)\" where only k worlds had a figure.",
                scale.worlds()
            ),
            references_note(&all),
            ONLY_DEFAULT.into(),
        ],
        columns: [
            "protocol",
            "start",
            "DLG median dist (m)",
            "Lemma 1 median dist (m)",
            "EMD/random",
            "% diverged",
            "RMSE (dB)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}
