//! Where the attacker starts ([000] §4.1, "DLG Initialization Strategies"): one weekly update
//! attacked from 20 cells of a 350 m grid (Figs. 3 and 6: every start converges to the batch's
//! centroid), the strategies (i)–(iii) over a week of hourly rounds (Fig. 8), and the label's
//! prior (App. A.4: four means of the RSRP give the same result). Algorithm 2 as printed is the
//! paper's attack here, the project's DLG runs beside it.

use super::round_length::round_length_run;
use super::{
    DLGS, FEDSGD, Outcome, Scale, SignalRuns, Table, campus, cell, cell_of, each, mean,
    mean_iterations, with_dlg,
};
use crate::signal_map::attack::dlg::{DlgPreset, Init, START_NOISE_M, grid_cells};
use crate::signal_map::lab::Lab;
use crate::signal_map::scenario::{LabelPrior, OutputBias, SameBatch, ScenarioConfig};
use crate::signal_map::settings::GRID_SPACING_M;
use crate::signal_map::trace::RoundLength;
use whereabouts_core::geo::Metres;
use whereabouts_core::metrics::median;
use whereabouts_core::rng::Stream;

/// The round [000] Fig. 6 attacks: "week t = 7" of user 0, the seventh week (index 6).
pub(super) const FIG6_ROUND: usize = 6;

/// A reconstruction this close to the batch's centroid has converged to it (Fig. 3's example
/// ends 20 m away; our choice of threshold, stated in the table).
const AT_CENTROID_M: f64 = 50.0;

/// The single weekly round Figs. 3 and 6 attack (FedSGD, campus, user 0, the paper's start).
pub(super) fn fig6_round(s: &Scale, rounds: usize) -> ScenarioConfig {
    ScenarioConfig {
        same_batch: Some(SameBatch {
            round: FIG6_ROUND.min(s.campus_weeks.saturating_sub(1) as usize),
            rounds,
        }),
        ..campus(s, s.campus_weeks, RoundLength::Week, FEDSGD)
    }
}

/// `n` cells of the 350 m grid over `config`'s area, drawn without replacement (stream
/// `fig6-starts` of the world's seed; all of them if the grid has fewer).
fn start_cells(config: &ScenarioConfig, n: usize) -> Vec<usize> {
    let w = config.world_config();
    let area = (
        Metres::new(-w.half_width(), -w.half_height()),
        Metres::new(w.half_width(), w.half_height()),
    );
    let cells = grid_cells(area, GRID_SPACING_M).len();
    let mut order: Vec<usize> = (0..cells).collect();
    let mut s = Stream::new(config.seed, "fig6-starts");
    let n = n.min(cells);
    for i in 0..n {
        let j = i + s.below((cells - i) as u64) as usize;
        order.swap(i, j);
    }
    order.truncate(n);
    order
}

/// One grid start's attack on the round.
struct GridAttack {
    /// The start's and the end's distance to the round's true centroid, m.
    start_m: f64,
    end_m: f64,
    diverged: bool,
    neg_cosine: f64,
    iterations: f64,
}

impl GridAttack {
    fn of(o: &Outcome) -> Option<Self> {
        let r = o.records.first()?;
        let d = r.dlg.as_ref()?;
        Some(Self {
            start_m: d.result.start.distance(&r.true_centroid.position),
            end_m: d.reconstruction.error_m,
            diverged: d.result.diverged,
            neg_cosine: d.result.neg_cosine,
            iterations: d.result.iterations as f64,
        })
    }
}

/// A figure of one world's grid attacks.
type WorldFigure<'a> = &'a dyn Fn(&[GridAttack]) -> Option<f64>;

/// The median of `f` over `attacks` (`None` without any).
fn median_of(attacks: &[GridAttack], f: impl Fn(&GridAttack) -> f64) -> Option<f64> {
    median(&attacks.iter().map(f).collect::<Vec<_>>())
}

/// The percentage of `attacks` for which `p` holds.
fn share(attacks: &[GridAttack], p: impl Fn(&GridAttack) -> bool) -> Option<f64> {
    (!attacks.is_empty())
        .then(|| 100.0 * attacks.iter().filter(|a| p(a)).count() as f64 / attacks.len() as f64)
}

/// [000] Figs. 3 and 6: one weekly FedSGD update (the seventh week) attacked from each of
/// `scale.grid_starts` cells of the 350 m grid, by each DLG.
pub fn grid_starts(scale: &Scale, runs: &mut SignalRuns) -> Result<Table, String> {
    let mut rows = Vec::new();
    for dlg in DLGS {
        // Per world: the attacks from every start.
        let mut worlds = Vec::new();
        for seed in scale.seeds() {
            let s = scale.on(seed);
            let base = with_dlg(&s, dlg, fig6_round(&s, 1));
            let mut attacks = Vec::new();
            for cell in start_cells(&base, scale.grid_starts) {
                let mut c = base.clone();
                c.attack.settings.init = Init::Grid {
                    spacing_m: GRID_SPACING_M,
                    cell: Some(cell),
                };
                attacks.extend(GridAttack::of(&runs.run(c)?));
            }
            worlds.push(attacks);
        }
        let per_world = |f: WorldFigure, digits| cell_of(worlds.iter().map(|w| f(w)), digits);
        let ends = |w: &[GridAttack]| -> Vec<(f64, f64)> {
            w.iter()
                .filter(|a| !a.diverged)
                .map(|a| (a.start_m, a.end_m))
                .collect()
        };
        rows.push(vec![
            dlg.name().to_string(),
            per_world(&|w| Some(w.len() as f64), 0),
            per_world(&|w| median_of(w, |a| a.start_m), 0),
            per_world(
                &|w| median(&ends(w).iter().map(|e| e.1).collect::<Vec<_>>()),
                0,
            ),
            per_world(&|w| ends(w).iter().map(|e| e.1).reduce(f64::max), 0),
            per_world(&|w| share(w, |a| !a.diverged && a.end_m < AT_CENTROID_M), 0),
            per_world(&|w| share(w, |a| a.diverged), 0),
            per_world(&|w| median_of(w, |a| a.neg_cosine), 4),
            per_world(
                &|w| {
                    let e = ends(w);
                    super::spearman(
                        &e.iter().map(|e| e.0).collect::<Vec<_>>(),
                        &e.iter().map(|e| e.1).collect::<Vec<_>>(),
                    )
                },
                2,
            ),
            per_world(&|w| median_of(w, |a| a.iterations), 0),
        ]);
    }
    Ok(Table {
        title: "One update from 20 starts on the 350 m grid (FedSGD, campus, user 0, T = 1 week, the seventh week) — [000] §4.1, Figs. 3 and 6 — DLG: Algorithm 2 as printed, and Lemma 1 refined by Adam".into(),
        notes: vec![
            format!(
                "[000] Fig. 6: from 20 random cells of a 350 m grid over the campus, every DLG run converged to the batch's centroid (cosine loss below −0.9988), whatever its distance from it; Fig. 3's example ends 20 m from the centroid after 500 iterations. Here: {} cells per world drawn without replacement from the grid over the area, each a run of the seventh week's FedSGD update from the paper's start (0 dBm, η = 0.001). Each cell: the per-world figure's mean over {} ± its 95% interval. Distances to the week's true centroid; \"end\" over the runs that did not diverge; \"at the centroid\": ended within {AT_CENTROID_M} m of it (our threshold), of all starts. ρ: Spearman's rank correlation between a start's distance and its end's, over the non-diverged runs (near 0: the end does not depend on the start).",
                scale.grid_starts,
                scale.worlds()
            ),
            super::round_length::dlgs_note(scale),
        ],
        columns: [
            "DLG",
            "starts",
            "median start dist (m)",
            "median end dist (m)",
            "max end dist (m)",
            "% at the centroid",
            "% diverged",
            "median −cos",
            "ρ(start, end)",
            "median DLG iterations",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// [000] Fig. 8 and §4.1's strategies over a week of hourly FedSGD rounds: (ii) the true
/// centroid plus noise (the paper's default), (iii) the previous round's reconstruction (the
/// campus centre first), (i) at random in the area and at a random cell of the 350 m grid — by
/// Algorithm 2 as printed; the project's DLG (its own start) beside them.
pub fn start_strategies(scale: &Scale, runs: &mut SignalRuns) -> Result<Table, String> {
    let arms: [(DlgPreset, Option<Init>, &str); 5] = [
        (
            DlgPreset::Algorithm2,
            Some(Init::CentroidPlusNoise {
                sd_m: START_NOISE_M,
            }),
            "(ii) true centroid + 200 m noise (the paper's default)",
        ),
        (
            DlgPreset::Algorithm2,
            Some(Init::Previous),
            "(iii) previous reconstruction (campus centre first)",
        ),
        (
            DlgPreset::Algorithm2,
            Some(Init::RandomInArea),
            "(i) at random in the area",
        ),
        (
            DlgPreset::Algorithm2,
            Some(Init::Grid {
                spacing_m: GRID_SPACING_M,
                cell: None,
            }),
            "(i) a random cell of the 350 m grid",
        ),
        (
            DlgPreset::Lemma1Adam,
            None,
            "Lemma 1's estimate + 200 m noise (the project's)",
        ),
    ];
    let mut rows = Vec::new();
    for (dlg, init, name) in arms {
        let os = each(scale, runs, |s| {
            let mut c = with_dlg(
                s,
                dlg,
                round_length_run(s, RoundLength::Hour, OutputBias::Zero),
            );
            if let Some(init) = init {
                c.attack.settings.init = init;
            }
            c
        })?;
        rows.push(vec![
            dlg.name().to_string(),
            name.to_string(),
            cell(&os, 0, |o| Some(o.records.len() as f64)),
            cell(&os, 0, |o| o.summary.emd_m),
            cell(&os, 2, |o| Some(o.summary.emd_m? / o.summary.random_emd_m?)),
            cell(&os, 0, |o| o.summary.median_error_m),
            cell(&os, 0, |o| o.summary.diverged_percent),
            cell(&os, 0, mean_iterations),
        ]);
    }
    Ok(Table {
        title: "DLG's start (FedSGD, campus, user 0, T = 1 hour over one week) — [000] §4.1, Fig. 8 — DLG: Algorithm 2 as printed, and Lemma 1 refined by Adam".into(),
        notes: vec![
            format!(
                "[000] Fig. 8 compares (ii) and (iii) on the hourly rounds: \"both are strong attacks, with all points converging within the area of interest, and resulting in similar EMD\"; (i) is suggested for when attacks diverge. Every row attacks the same updates (the paper's start, 0 dBm, η = 0.001). Each cell: the mean over {} ± its 95% interval.",
                scale.worlds()
            ),
            super::round_length::dlgs_note(scale),
        ],
        columns: [
            "DLG",
            "start",
            "rounds",
            "EMD (m)",
            "EMD/random",
            "median dist (m)",
            "% diverged",
            "DLG iterations",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// [000] App. A.4: Algorithm 2's label y′ starts from the mean RSRP of the target's training
/// data, of everyone's, of a random 1% and of a random 10% of everyone's (FedSGD, T = 1 week,
/// the target training alone in the campus world with all its users; the paper does not say
/// its setting).
pub fn label_priors(scale: &Scale, runs: &mut SignalRuns) -> Result<Table, String> {
    let priors = [
        (LabelPrior::Target, "the target's training data", "−95.96"),
        (LabelPrior::Everyone, "everyone's training data", "−95.98"),
        (
            LabelPrior::Sample { percent: 1.0 },
            "a random 1% of everyone's",
            "−96.048",
        ),
        (
            LabelPrior::Sample { percent: 10.0 },
            "a random 10% of everyone's",
            "−96.0685",
        ),
    ];
    let mut rows = Vec::new();
    for (prior, name, paper) in priors {
        let config = |s: &Scale| {
            let mut c = with_dlg(
                s,
                DlgPreset::Algorithm2,
                round_length_run(s, RoundLength::Week, OutputBias::Zero),
            );
            // The campus world with every user in it, the target training alone: the cell's
            // data is more than the target's, as x204's was.
            c.world.users = None;
            c.attack.label_prior = prior;
            c
        };
        // The prior itself, from the run's data (a small thing computed outside the runs).
        let mut values = Vec::new();
        for seed in scale.seeds() {
            let c = config(&scale.on(seed));
            let lab = Lab::new(c.clone())?;
            values.push(Some(f64::from(prior.of(lab.data(), c.target, c.seed))));
        }
        let os = each(scale, runs, config)?;
        rows.push(vec![
            name.to_string(),
            cell_of(values.into_iter(), 2),
            paper.to_string(),
            cell(&os, 0, |o| o.summary.emd_m),
            cell(&os, 0, |o| o.summary.median_error_m),
            cell(&os, 0, |o| o.summary.diverged_percent),
            cell(&os, 1, |o| {
                let labels: Vec<f64> = o
                    .records
                    .iter()
                    .filter_map(|r| r.dlg.as_ref().map(|d| d.result.label_dbm))
                    .collect();
                (!labels.is_empty()).then(|| mean(labels.into_iter()))
            }),
            cell(&os, 1, |o| o.summary.final_rmse_db),
        ]);
    }
    Ok(Table {
        title: "The label's prior (FedSGD, campus with every user, user 0 training alone, T = 1 week) — [000] App. A.4 — DLG: Algorithm 2 as printed".into(),
        notes: vec![
            format!(
                "[000] App. A.4: the four priors (paper column, cell x204, \"dB\") gave identical results, RMSE 4.88, EMD 11.33, distance 230.57 m; the paper does not say in which setting. Algorithm 2 moves the label y′ jointly with the location from this prior; the project's DLG solves the label analytically and does not use it, so it is not run here. The sample is drawn once a run (stream `label-prior`). Each cell: the mean over {} ± its 95% interval.",
                scale.worlds()
            ),
            super::round_length::dlgs_note(scale),
        ],
        columns: [
            "prior: the mean RSRP of",
            "prior (dBm)",
            "paper prior (dB)",
            "EMD (m)",
            "median dist (m)",
            "% diverged",
            "mean final label (dBm)",
            "RMSE (dB)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}
