//! The round-length study ([000] §4.1, "Impact of time interval T", Figs. 4–5; Insight I1):
//! FedSGD at T = 1 hour, 1 day and 1 week (campus, user 0), the project's DLG and [000]
//! Algorithm 2 as printed side by side; its run at each T, which the tables of the model's start
//! and of DLG's start reuse, and the note that says what the two DLGs are (docs/papers.md §3a).

use super::findings::{self, Check, Figures};
use super::{
    BOTH_DLGS, DEFAULT_DLG, DLGS, FEDSGD, Scale, SignalRuns, Table, campus, cell, each,
    mean_iterations, references_note, summaries, titled, with_dlg,
};
use crate::signal_map::attack::dlg::{ALGORITHM2_LR, DlgPreset};
use crate::signal_map::scenario::{OutputBias, ScenarioConfig};
use crate::signal_map::trace::RoundLength;

/// The round-length study's run at `t` (T = 1 hour on one week of data).
pub(super) fn round_length_run(scale: &Scale, t: RoundLength, start: OutputBias) -> ScenarioConfig {
    let weeks = if t == RoundLength::Hour {
        1
    } else {
        scale.campus_weeks
    };
    ScenarioConfig {
        output_bias: start,
        ..campus(scale, weeks, t, FEDSGD)
    }
}

pub(super) const ROUND_LENGTHS: [RoundLength; 3] =
    [RoundLength::Hour, RoundLength::Day, RoundLength::Week];

pub(super) fn t_name(t: RoundLength) -> String {
    format!("{t:?}").to_lowercase()
}

/// [000] §4.1 ("Impact of time interval T", Figs. 4–5) / Insight I1: FedSGD at T = 1 hour, 1
/// day, 1 week (campus, user 0).
pub fn round_length_study(
    scale: &Scale,
    runs: &mut SignalRuns,
    checks: &mut Vec<Check>,
) -> Result<Table, String> {
    let paper = ["5.3", "6.4", "7.6"];
    let mut rows = Vec::new();
    let mut figures = Vec::new();
    let mut all = Vec::new();
    for (t, p) in ROUND_LENGTHS.into_iter().zip(paper) {
        for dlg in DLGS {
            let os = each(scale, runs, |s| {
                with_dlg(s, dlg, round_length_run(s, t, OutputBias::Zero))
            })?;
            if dlg == DlgPreset::Lemma1Adam {
                figures.push(Figures::of(&summaries(&os)));
            }
            rows.push(vec![
                t_name(t),
                dlg.name().to_string(),
                cell(&os, 0, |o| Some(o.records.len() as f64)),
                cell(&os, 0, |o| o.summary.emd_m),
                cell(&os, 0, |o| o.summary.random_emd_m),
                cell(&os, 2, |o| Some(o.summary.emd_m? / o.summary.random_emd_m?)),
                cell(&os, 0, |o| o.summary.median_error_m),
                cell(&os, 0, |o| o.summary.diverged_percent),
                cell(&os, 0, mean_iterations),
                cell(&os, 1, |o| o.summary.final_rmse_db),
                p.to_string(),
            ]);
            if dlg == DlgPreset::Lemma1Adam {
                all.extend(os);
            }
        }
    }
    checks.push(findings::shorter_rounds_leak_more(
        &figures[0],
        &figures[1],
        &figures[2],
    ));
    Ok(Table {
        title: titled(
            "Round length T (FedSGD, campus, user 0) — [000] §4.1, Figs. 4–5, Insight I1",
            BOTH_DLGS,
        ),
        notes: vec![
            format!(
                "Finding 3 (shorter T leaks more) predicts that EMD/random falls as T shortens; the findings check says whether it does (on the project's DLG, {DEFAULT_DLG}). T = 1 hour uses one week of data. Each cell: the mean over {} ± its 95% interval. The paper's start (output bias 0 dBm, η = 0.001): one step a round barely moves the model, hence the RMSE; the start table below runs the same at a start that fits the labels.",
                scale.worlds()
            ),
            dlgs_note(scale),
            references_note(&all),
        ],
        columns: [
            "T",
            "DLG",
            "rounds",
            "EMD (m)",
            "random EMD (m)",
            "EMD/random",
            "median dist (m)",
            "% diverged",
            "DLG iterations",
            "RMSE (dB)",
            "paper RMSE (dB)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// What the two DLGs are, for the tables that run both.
pub(super) fn dlgs_note(scale: &Scale) -> String {
    format!(
        "DLG: {} is the project's (docs/papers.md §3a): Adam 0.02, the analytic label, the start at Lemma 1's estimate plus 200 m noise, at most {} iterations. {} is [000] Algorithm 2 (§2.1) as printed: plain gradient descent on x′ and y′ with one step η = {} (the paper gives no value), y′ from the mean RSRP, the start (ii) at the true centroid plus 200 m noise, at the post-update weights, at most {} iterations, converged once unchanged (< 0.01 m) for 10 iterations. Both attack the same updates of the same worlds. DLG iterations: the mean per attacked round.",
        DlgPreset::Lemma1Adam.name(),
        scale.dlg_iterations,
        DlgPreset::Algorithm2.name(),
        ALGORITHM2_LR,
        scale.paper_dlg_iterations,
    )
}
