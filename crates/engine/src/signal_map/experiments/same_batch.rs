//! Insight I2 on one batch ([000] §2.2 and §4.1, Fig. 7): the federation trains on the same
//! week round after round (t = 0..20); as the model fits it, the update shrinks towards 0, the
//! cosine loss rises and the reconstruction drifts from the centroid ("after about round 9").

use super::starts::fig6_round;
use super::{Outcome, Scale, SignalRuns, Table, cell_of, each, references_note, with_dlg};
use crate::signal_map::attack::dlg::DlgPreset;
use crate::signal_map::scenario::{OutputBias, RoundRecord};

/// The rounds the table shows (those the run has).
const SHOWN: [usize; 9] = [0, 1, 3, 6, 9, 12, 15, 18, 20];

/// [000] Fig. 7: the seventh week's batch for `scale.same_batch_rounds` rounds, attacked every
/// round — Algorithm 2 and the project's DLG from the paper's start (0 dBm), and the project's
/// DLG from the mean label (a model that already fits the labels on average).
pub fn same_batch(scale: &Scale, runs: &mut SignalRuns) -> Result<Table, String> {
    let arms = [
        (DlgPreset::Algorithm2, OutputBias::Zero, "0 dBm (paper)"),
        (DlgPreset::Lemma1Adam, OutputBias::Zero, "0 dBm (paper)"),
        (DlgPreset::Lemma1Adam, OutputBias::MeanLabel, "mean label"),
    ];
    let mut rows = Vec::new();
    let mut all = Vec::new();
    for (dlg, start, start_name) in arms {
        let os = each(scale, runs, |s| {
            let mut c = with_dlg(s, dlg, fig6_round(s, s.same_batch_rounds));
            c.output_bias = start;
            c
        })?;
        let at = |o: &Outcome, t: usize| -> Option<RoundRecord> {
            o.records.iter().find(|r| r.round == t).cloned()
        };
        for t in SHOWN.into_iter().filter(|&t| t < scale.same_batch_rounds) {
            let figure = |f: &dyn Fn(&Outcome, &RoundRecord) -> Option<f64>, digits| {
                cell_of(os.iter().map(|o| at(o, t).and_then(|r| f(o, &r))), digits)
            };
            rows.push(vec![
                dlg.name().to_string(),
                start_name.to_string(),
                t.to_string(),
                figure(&|o, r| Some(r.update_norm? / at(o, 0)?.update_norm?), 3),
                figure(&|_, r| r.dlg.as_ref().map(|d| d.result.neg_cosine), 4),
                figure(
                    &|_, r| {
                        r.dlg
                            .as_ref()
                            .filter(|d| !d.result.diverged)
                            .map(|d| d.reconstruction.error_m)
                    },
                    0,
                ),
                figure(
                    &|_, r| {
                        r.dlg
                            .as_ref()
                            .map(|d| if d.result.diverged { 100.0 } else { 0.0 })
                    },
                    0,
                ),
                figure(&|_, r| Some(r.rmse_db), 1),
            ]);
        }
        all.extend(os);
    }
    Ok(Table {
        title: format!(
            "The same batch for {} rounds (FedSGD, campus, user 0, the seventh week, η = 0.001) — [000] §4.1, Fig. 7, Insight I2 — DLG: Algorithm 2 as printed, and Lemma 1 refined by Adam",
            scale.same_batch_rounds
        ),
        notes: vec![
            format!(
                "[000] Fig. 7: trained on Fig. 6's batch for rounds t = 0..20, the update's norms approach 0 after about round 9, the cosine loss rises and the reconstructions drift from the centroid, up to about 1 km. ‖Δw‖: the target's update's norm over all parameters, relative to round 0's. −cos: at the end of the round's attack (−1 is a perfect match). Dist: to the batch's true centroid, when the attack did not diverge; % diverged: of the worlds. Each cell: the mean over {} ± its 95% interval, \"(k of n)\" where only k worlds had a figure.",
                scale.worlds()
            ),
            super::round_length::dlgs_note(scale),
            references_note(&all),
        ],
        columns: [
            "DLG",
            "start",
            "round t",
            "‖Δw‖ / ‖Δw₀‖",
            "−cos",
            "dist (m)",
            "% diverged",
            "RMSE (dB)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}
