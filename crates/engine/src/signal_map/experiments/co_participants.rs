//! Finding 8 on the campus preset (Table 3 itself is metro, [000] §4.6): the target with each
//! other user in turn, T = 1 day, FedAvg B = 10, E = 5, on every world; the rank correlation
//! between partner distance and EMD within a world.

use super::findings::{self, Check, est};
use super::{DEFAULT_DLG, ONLY_DEFAULT, Scale, SignalRuns, Table, base, references_note, spearman};
use crate::signal_map::studies;
use crate::signal_map::trace::RoundLength;
use crate::signal_map::world::Preset;
use whereabouts_core::stats::Estimate;

/// Finding 8 on the campus preset (Table 3 itself is metro): the target (user 0) with each
/// other user in turn, T = 1 day over `days_weeks` weeks (more rounds than weekly ones, so EMD
/// rests on more reconstructions), FedAvg B = 10, E = 5 (Table 3's scheme), on every world.
/// Each partner's dissimilarity is the EMD between the two users' locations; the finding
/// predicts more leakage (lower EMD) with more dissimilar partners, i.e. a negative rank
/// correlation between partner distance and EMD within a world.
pub fn co_participants_campus(
    scale: &Scale,
    runs: &mut SignalRuns,
    checks: &mut Vec<Check>,
) -> Result<Table, String> {
    let mut rows = Vec::new();
    let mut rhos = Vec::new();
    let mut all = Vec::new();
    for seed in scale.seeds() {
        let scale = scale.on(seed);
        let base = base(
            &scale,
            Preset::Campus,
            scale.days_weeks,
            RoundLength::Day,
            (Some(10), 5),
        );
        let world = crate::signal_map::world::World::generate(&base.world_config())
            .map_err(|e| e.to_string())?;
        let (mut ds, mut emds) = (Vec::new(), Vec::new());
        for run in studies::runs(studies::Study::CoParticipants, &base, &world)? {
            let o = runs.run(run.config.clone())?;
            let point = studies::StudyPoint::new(&run, &o.summary, &o.records);
            if let (Some(d), Some(e)) = (point.user_distance_m, point.emd_m) {
                ds.push(d);
                emds.push(e);
            }
            let f =
                |x: Option<f64>, digits: usize| x.map_or("—".into(), |v| format!("{v:.digits$}"));
            rows.push(vec![
                seed.to_string(),
                point.parameter.clone(),
                f(point.user_distance_m, 0),
                f(point.rmse_db, 1),
                f(point.emd_m, 0),
                f(point.random_emd_m, 0),
                f(point.diverged_percent, 0),
                f(point.mean_error_m, 0),
                String::new(),
            ]);
            all.push(o);
        }
        let rho = spearman(&ds, &emds);
        if let Some(last) = rows.last_mut() {
            last[8] = rho.map_or("—".into(), |r| format!("{r:+.2}"));
        }
        rhos.extend(rho);
    }
    checks.push(findings::dissimilar_partners_leak_more(
        "8 (campus)",
        "campus, T = 1 day, FedAvg B = 10, E = 5",
        &rhos,
    ));
    Ok(Table {
        title: format!(
            "Finding 8 on the campus preset — the target with each other user (T = 1 day; FedAvg B = 10, E = 5; {} worlds) — DLG: {DEFAULT_DLG}",
            scale.seeds
        ),
        notes: vec![
            format!(
                "One row per world and partner (the partners differ between worlds). User distance: EMD between user 0's and the partner's locations (m). ρ: Spearman rank correlation between partner distance and EMD over the partners of that world (last row of each world); finding 8 predicts ρ < 0 (more dissimilar partner, lower EMD, more leakage). ρ over the worlds: {}.",
                est(Estimate::of(rhos.iter().copied()), 2, "")
            ),
            references_note(&all),
            ONLY_DEFAULT.into(),
        ],
        columns: [
            "world (seed)",
            "partner",
            "user distance (m)",
            "RMSE (dB)",
            "EMD (m)",
            "random EMD (m)",
            "% diverged",
            "avg dist (m)",
            "ρ(distance, EMD)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}
