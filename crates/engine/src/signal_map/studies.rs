//! The lab's studies: one configuration (the visitor's) run many times with one thing varied,
//! in the worker behind the lab, each run summarised as a [`StudyPoint`].
//!
//! - [`Study::Defences`] — the privacy–utility trade-off (issue #5, item 8): every defence of
//!   [000] §4.3–4.5 swept over its parameter.
//! - [`Study::LocalSteps`] — Insight I3 ([000] §2.2): under FedAvg the update the server
//!   sees is the sum of E·⌈n/B⌉ gradient steps, each on its own mini-batch at its own weights;
//!   the attack recovers a blur of those batches' centroids, and more steps blur it more, while
//!   the model learns as well or better. FedSGD, then FedAvg with B = 20 and B = 5 over E.
//!   Every run also faces the FedAvg-aware server (beyond [000],
//!   [`crate::signal_map::attack::fedavg`]), with DLG's iteration budget, step size and
//!   start ([`with_fedavg_aware`]): does FedAvg still protect when the server replays the
//!   phone's training?
//! - [`Study::CoParticipants`] — Insight I4 (Table 3): the visitor alone, then with each other
//!   user in turn; each point carries how different that user's whereabouts are from the
//!   visitor's (sliced-Wasserstein EMD between their locations), the background user included
//!   when the world has one. Dissimilar partners slow the
//!   global model's convergence, keep the visitor's gradients large and so *help* the attack.

use crate::signal_map::attack::fedavg::FedAvgConfig;
use crate::signal_map::defence::dp::LocalDp;
use crate::signal_map::defence::{DEFAULT_MIN_SAMPLES, Defence};
use crate::signal_map::lab::Lab;
use crate::signal_map::model::train::LocalTraining;
use crate::signal_map::scenario::{FedAvgSummary, RoundRecord, ScenarioConfig, Summary};
use crate::signal_map::warm_start::WarmCache;
use crate::signal_map::world::World;
use serde::{Deserialize, Serialize};
use whereabouts_core::metrics;
use whereabouts_core::rng::Stream;
use whereabouts_core::study::StudyRunner;
use whereabouts_core::sweep::{PageStudy, cell, failures};
use whereabouts_core::table::Table;

/// What a study varies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Study {
    #[default]
    Defences,
    LocalSteps,
    CoParticipants,
}

/// One run of a study: how it is labelled and the configuration it runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyRun {
    /// Which series of the study the run belongs to (0, 1, …): what the page groups and
    /// colours by. The family is its label, for people; never an identity.
    pub series: usize,
    pub family: String,
    pub parameter: String,
    pub config: ScenarioConfig,
    /// Co-participant studies: how far the partner's whereabouts are from the visitor's, m.
    pub user_distance_m: Option<f64>,
}

/// One point of a study: a run's family and parameter and what it gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyPoint {
    /// The run's series within the study (see [`StudyRun::series`]).
    pub series: usize,
    /// The family ("none", "Diverse Batch", "FedAvg B = 20", "with user 2", …) and its
    /// parameter, as shown.
    pub family: String,
    pub parameter: String,
    /// Mean distance of the non-diverged DLG reconstructions to the centroid of D_t, m.
    pub mean_error_m: Option<f64>,
    /// Median distance of the analytic (Lemma 1) reconstructions to the centroid of D_t, m: the
    /// server's other attack, often the closer one.
    #[serde(default)]
    pub analytic_error_m: Option<f64>,
    pub emd_m: Option<f64>,
    pub random_emd_m: Option<f64>,
    pub diverged_percent: Option<f64>,
    pub rmse_db: Option<f64>,
    /// Under local DP: the target's total ε.
    pub dp_epsilon: Option<f64>,
    /// Mean number of local SGD steps in the target's updates.
    #[serde(default)]
    pub local_steps: Option<f64>,
    /// Co-participant studies: sliced-Wasserstein EMD between the partner and the visitor, m.
    #[serde(default)]
    pub user_distance_m: Option<f64>,
    /// Under FedAvg: DLG's median distance to the local steps' mini-batch centroids, m.
    #[serde(default)]
    pub step_error_m: Option<f64>,
    /// The FedAvg-aware server's figures on the same updates, when it ran.
    #[serde(default)]
    pub fedavg: Option<FedAvgPoint>,
    /// Why the run stopped before its end (a diverging model, say); its figures are those of
    /// the rounds it completed.
    #[serde(default)]
    pub failed: Option<String>,
}

/// The FedAvg-aware server's figures in a study point (see [`FedAvgSummary`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FedAvgPoint {
    /// Mean distance of its non-diverged round estimates to the centroid of D_t, m (as
    /// [`StudyPoint::mean_error_m`]).
    pub mean_error_m: Option<f64>,
    pub emd_m: Option<f64>,
    pub diverged_percent: f64,
    /// Median distance of each step's dummy to its mini-batch's centroid, m.
    pub step_error_m: Option<f64>,
}

impl From<&FedAvgSummary> for FedAvgPoint {
    fn from(s: &FedAvgSummary) -> Self {
        Self {
            mean_error_m: s.mean_error_m,
            emd_m: s.emd_m,
            diverged_percent: s.diverged_percent,
            step_error_m: s.median_step_error_m,
        }
    }
}

impl StudyPoint {
    pub fn new(run: &StudyRun, summary: &Summary, records: &[RoundRecord]) -> Self {
        Self {
            series: run.series,
            family: run.family.clone(),
            parameter: run.parameter.clone(),
            mean_error_m: summary.mean_error_m,
            analytic_error_m: summary.analytic_median_error_m,
            emd_m: summary.emd_m,
            random_emd_m: summary.random_emd_m,
            diverged_percent: summary.diverged_percent,
            rmse_db: summary.final_rmse_db,
            dp_epsilon: summary.dp_epsilon,
            local_steps: local_steps(&run.config.fl.local, records),
            user_distance_m: run.user_distance_m,
            step_error_m: summary.median_step_error_m,
            fedavg: summary.fedavg.as_ref().map(FedAvgPoint::from),
            failed: None,
        }
    }

    /// The point of a run that failed with `why`, with what it computed before.
    pub fn failed(run: &StudyRun, summary: &Summary, records: &[RoundRecord], why: String) -> Self {
        Self {
            failed: Some(why),
            ..Self::new(run, summary, records)
        }
    }
}

/// Mean number of SGD steps in the target's updates: E·⌈|LocalBatch| / B⌉ (one for B = ∞).
pub fn local_steps(local: &LocalTraining, records: &[RoundRecord]) -> Option<f64> {
    if records.is_empty() {
        return None;
    }
    let steps: f64 = records
        .iter()
        .map(|r| {
            let per_epoch = match local.batch_size {
                Some(b) => r.batch_points.div_ceil(b.max(1)),
                None => 1,
            };
            (local.epochs * per_epoch) as f64
        })
        .sum();
    Some(steps / records.len() as f64)
}

/// The runs of `study` on `base` in `world` (which must be `base`'s world).
pub fn runs(study: Study, base: &ScenarioConfig, world: &World) -> Result<Vec<StudyRun>, String> {
    let run = |family: &str, parameter: String, config: ScenarioConfig| StudyRun {
        series: 0,
        family: family.into(),
        parameter,
        config,
        user_distance_m: None,
    };
    let mut runs = match study {
        Study::Defences => defence_grid()
            .into_iter()
            .map(|(family, parameter, defence)| {
                let mut c = base.clone();
                c.defence = defence;
                run(family, parameter, c)
            })
            .collect(),
        Study::LocalSteps => {
            let mut out = Vec::new();
            let base = &with_fedavg_aware(base);
            let mut c = base.clone();
            c.defence = Defence::None;
            c.fl.local.batch_size = None;
            c.fl.local.epochs = 1;
            out.push(run("FedSGD", "B = ∞, E = 1".into(), c));
            for (b, epochs) in [(20, &[1, 2, 5, 10][..]), (5, &[1, 5][..])] {
                for &e in epochs {
                    let mut c = base.clone();
                    c.defence = Defence::None;
                    c.fl.local.batch_size = Some(b);
                    c.fl.local.epochs = e;
                    out.push(run(&format!("FedAvg B = {b}"), format!("E = {e}"), c));
                }
            }
            out
        }
        Study::CoParticipants => {
            let target = base.target;
            let probe = Lab::with_world(base.clone(), world.clone())?;
            let mut alone = base.clone();
            alone.participants = Some(vec![target]);
            let mut out = vec![run("alone", "the visitor only".into(), alone)];
            for u in world.users.iter().filter(|u| u.id != target) {
                let distance = user_distance(&probe, target, u.id, base.seed);
                let mut c = base.clone();
                c.participants = Some(vec![target, u.id]);
                let (family, parameter) = if u.background {
                    ("with the background user", "background user".to_string())
                } else {
                    ("with one other user", format!("user {}", u.id))
                };
                out.push(StudyRun {
                    series: 0,
                    family: family.into(),
                    parameter,
                    config: c,
                    user_distance_m: distance,
                });
            }
            out
        }
    };
    // Consecutive runs of one family form a series, numbered in order.
    for k in 1..runs.len() {
        runs[k].series = runs[k - 1].series + usize::from(runs[k].family != runs[k - 1].family);
    }
    Ok(runs)
}

/// `config` with the FedAvg-aware server on: the visitor's own settings for it when they chose
/// it, else DLG's iteration budget, step size and start (the study's stated budget: both
/// servers get the same number of iterations on each update).
pub fn with_fedavg_aware(config: &ScenarioConfig) -> ScenarioConfig {
    let mut c = config.clone();
    c.attack
        .fedavg
        .get_or_insert_with(|| FedAvgConfig::like(&config.attack.settings));
    c
}

/// The study's runs on the core's runner: each a lab in `world` (generated once for the study)
/// run through every round, measured into a [`StudyPoint`] (a failed run says why, with the
/// figures of the rounds it completed).
pub fn runner(runs: Vec<StudyRun>, world: World) -> StudyRunner<StudyRun, Lab, StudyPoint> {
    // Runs that differ only in the defence or the federation share one warm start.
    let cache = std::cell::RefCell::new(WarmCache::default());
    StudyRunner::new(
        runs,
        move |run| {
            let mut lab =
                Lab::with_world_cached(run.config.clone(), world.clone(), &mut cache.borrow_mut())?;
            lab.want(usize::MAX);
            Ok(lab)
        },
        StudyRun::measure,
    )
}

/// A study on a base configuration (`whereabouts sweep plan signal-map --study defences`,
/// `local-steps` or `co-participants`).
pub struct StudyOn {
    pub study: Study,
    pub base: ScenarioConfig,
}

/// A study's runs on their own (a sweep's points): each regenerates the base's world (the same
/// world: a run varies neither its seed nor its world settings) and runs through every round.
impl PageStudy for StudyRun {
    type Base = StudyOn;
    type Lab = Lab;
    type Point = StudyPoint;

    fn runs(on: &StudyOn) -> Result<Vec<StudyRun>, String> {
        on.base.validate().map_err(|e| e.to_string())?;
        let world = World::generate(&on.base.world_config()).map_err(|e| e.to_string())?;
        runs(on.study, &on.base, &world)
    }

    fn seed(&self) -> u64 {
        self.config.seed
    }

    fn start(&self) -> Result<Lab, String> {
        let mut lab = Lab::new(self.config.clone())?;
        lab.want(usize::MAX);
        Ok(lab)
    }

    fn measure(&self, lab: &Lab, failed: Option<String>) -> StudyPoint {
        let (summary, records) = (lab.summary(), lab.records());
        match failed {
            Some(why) => StudyPoint::failed(self, &summary, &records, why),
            None => StudyPoint::new(self, &summary, &records),
        }
    }

    fn table(on: &StudyOn, points: &[StudyPoint]) -> Table {
        let (title, extra) = match on.study {
            Study::Defences => ("every defence over its parameter", "total ε"),
            Study::LocalSteps => (
                "FedSGD and FedAvg over B and E, against DLG and the FedAvg-aware server (I3)",
                "steps per update",
            ),
            Study::CoParticipants => (
                "the visitor alone and with each other user (I4, Table 3)",
                "user distance m",
            ),
        };
        let aware = on.study == Study::LocalSteps;
        let mut columns: Vec<String> = [
            "run",
            "setting",
            "DLG distance m",
            "analytic distance m",
            "EMD m",
            "random EMD m",
            "diverged %",
            "RMSE dB",
            extra,
        ]
        .map(String::from)
        .to_vec();
        if aware {
            columns.extend(
                [
                    "FedAvg-aware distance m",
                    "FedAvg-aware diverged %",
                    "DLG step distance m",
                    "FedAvg-aware step distance m",
                ]
                .map(String::from),
            );
        }
        let rows = points
            .iter()
            .map(|p| {
                let mut row = vec![
                    p.family.clone(),
                    p.parameter.clone(),
                    cell(p.mean_error_m, 0, ""),
                    cell(p.analytic_error_m, 0, ""),
                    cell(p.emd_m, 0, ""),
                    cell(p.random_emd_m, 0, ""),
                    cell(p.diverged_percent, 1, ""),
                    cell(p.rmse_db, 2, ""),
                    match on.study {
                        Study::Defences => cell(p.dp_epsilon, 0, ""),
                        Study::LocalSteps => cell(p.local_steps, 0, ""),
                        Study::CoParticipants => cell(p.user_distance_m, 0, ""),
                    },
                ];
                if aware {
                    let a = p.fedavg.as_ref();
                    row.extend([
                        cell(a.and_then(|a| a.mean_error_m), 0, ""),
                        cell(a.map(|a| a.diverged_percent), 1, ""),
                        cell(p.step_error_m, 0, ""),
                        cell(a.and_then(|a| a.step_error_m), 0, ""),
                    ]);
                }
                row
            })
            .collect();
        let labels: Vec<String> = points
            .iter()
            .map(|p| format!("{} ({})", p.family, p.parameter))
            .collect();
        Table {
            title: format!(
                "The study on one configuration ({} world, seed {}): {title}",
                on.base.world.preset.name(),
                on.base.seed
            ),
            notes: failures(labels.iter().zip(points.iter().map(|p| &p.failed))),
            columns,
            rows,
        }
    }
}

/// Pairwise user similarity: sliced-Wasserstein EMD between two users' training locations, m.
pub fn user_distance(s: &Lab, a: u32, b: u32, seed: u64) -> Option<f64> {
    let points = |u: u32| -> Vec<whereabouts_core::geo::Metres> {
        s.data()
            .train
            .iter()
            .filter(|x| x.user == u)
            .map(|x| x.pos)
            .collect()
    };
    metrics::emd(&points(a), &points(b), &mut Stream::new(seed, "similarity"))
}

/// The defences and parameters the privacy–utility study runs, weakest protection first within
/// each family ([000]'s values where it gives them: Table 2's eps, §4.4's eps = 0.05 km, §4.5's ℂ = 1, δ = 1e-5; our choices otherwise, see docs/papers.md).
pub fn defence_grid() -> Vec<(&'static str, String, Defence)> {
    let mut g: Vec<(&'static str, String, Defence)> = vec![("none", "—".into(), Defence::None)];
    for eps_km in [0.005, 0.02, 0.05, 0.1] {
        g.push((
            "Diverse Batch",
            format!("eps {eps_km} km"),
            Defence::DiverseBatch {
                eps_km,
                min_samples: DEFAULT_MIN_SAMPLES,
            },
        ));
    }
    for num in [40, 20, 10, 5, 1] {
        g.push((
            "Farthest Batch",
            format!("num {num}"),
            Defence::FarthestBatch {
                eps_km: 0.05,
                min_samples: DEFAULT_MIN_SAMPLES,
                num,
            },
        ));
    }
    for eps_km in [0.005, 0.05] {
        g.push((
            "Random subset",
            format!("as Diverse eps {eps_km} km"),
            Defence::RandomSubset {
                eps_km,
                min_samples: DEFAULT_MIN_SAMPLES,
            },
        ));
    }
    for epsilon in [1000.0, 100.0, 10.0, 1.0] {
        g.push((
            "Local DP",
            format!("ε {epsilon}"),
            Defence::LocalDp(LocalDp::at(epsilon)),
        ));
    }
    for e in [0.02, 0.01, 0.005, 0.002] {
        g.push((
            "GeoInd",
            format!("ε {e}/m"),
            Defence::GeoInd { epsilon_per_m: e },
        ));
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal_map::scenario::WorldChoice;
    use crate::signal_map::trajectory::TrajectoryPreset;
    use crate::signal_map::world::Preset;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn base() -> ScenarioConfig {
        ScenarioConfig {
            seed: 5,
            world: WorldChoice {
                preset: Preset::Campus,
                users: Some(4),
                weeks: Some(1),
                cell: None,
                background: None,
            },
            max_rounds: Some(2),
            trajectory: Some(TrajectoryPreset::Commute.trajectory(900.0, 850.0)),
            ..ScenarioConfig::default()
        }
    }

    fn world() -> World {
        World::generate(&base().world_config()).unwrap()
    }

    #[test]
    fn every_run_of_a_study_shares_the_visitors_imported_trace() {
        use crate::signal_map::placement::ImportedTrace;
        use whereabouts_core::import::Fix;
        let fixes: Vec<Fix> = (0..500)
            .map(|i| Fix {
                time: 1_700_006_400.0 + i as f64 * 60.0,
                lat: 47.37 + i as f64 * 1e-5,
                lon: 8.54,
                rsrp_dbm: None,
                line: i + 1,
            })
            .collect();
        let mut config = base();
        config.trajectory = None;
        config.imported = Some(ImportedTrace::new("walk.csv".into(), fixes));
        let world = World::generate(&config.world_config()).unwrap();
        let trace = config.imported.as_ref().unwrap();
        let placed = trace.placement().unwrap() as *const _;
        let runs = runs(Study::Defences, &config, &world).unwrap();
        assert_eq!(runs.len(), defence_grid().len());
        for r in &runs {
            let t = r.config.imported.as_ref().unwrap();
            // The same fixes and the same placement, not copies.
            assert!(
                std::sync::Arc::ptr_eq(&t.fixes, &trace.fixes),
                "{}",
                r.parameter
            );
            assert!(std::ptr::eq(t.placement().unwrap(), placed));
        }
    }

    #[test]
    fn local_steps_count_mini_batches_and_epochs() {
        let r = |n| RoundRecord {
            round: 0,
            start_unix: 0.0,
            participants: vec![0],
            points: n,
            batch_points: n,
            true_centroid: crate::signal_map::scenario::Located {
                position: whereabouts_core::geo::Metres::new(0.0, 0.0),
                latlon: whereabouts_core::geo::LatLon::new(0.0, 0.0),
                error_m: 0.0,
            },
            dlg: None,
            fedavg: None,
            fedavg_refused: None,
            analytic: None,
            bounds: None,
            rmse_db: 0.0,
            update_norm: None,
            dp_epsilon: None,
            dp_releases: None,
            secure: None,
            central_dp: None,
            imprint: None,
        };
        let fedavg = LocalTraining {
            batch_size: Some(20),
            epochs: 5,
            learning_rate: 1e-3,
        };
        // 41 points: 3 mini-batches per epoch; 20 points: 1.
        assert_eq!(
            local_steps(&fedavg, &[r(41), r(20)]),
            Some((15.0 + 5.0) / 2.0)
        );
        let fedsgd = LocalTraining {
            batch_size: None,
            epochs: 1,
            learning_rate: 1e-3,
        };
        assert_eq!(local_steps(&fedsgd, &[r(41)]), Some(1.0));
        assert_eq!(local_steps(&fedsgd, &[]), None);
    }

    #[test]
    fn each_family_is_one_numbered_series() {
        let runs = runs(Study::Defences, &base(), &world()).unwrap();
        let series: Vec<usize> = runs.iter().map(|r| r.series).collect();
        // none, Diverse ×4, Farthest ×5, random ×2, local DP ×4, GeoInd ×4.
        let expected: Vec<usize> = [1, 4, 5, 2, 4, 4]
            .iter()
            .enumerate()
            .flat_map(|(s, &n)| std::iter::repeat_n(s, n))
            .collect();
        assert_eq!(series, expected);
        let steps = super::runs(Study::LocalSteps, &base(), &world()).unwrap();
        assert_eq!(
            steps.iter().map(|r| r.series).collect::<Vec<_>>(),
            vec![0, 1, 1, 1, 1, 2, 2]
        );
    }

    #[test]
    fn the_local_steps_study_varies_only_b_and_e() {
        let runs = runs(Study::LocalSteps, &base(), &world()).unwrap();
        assert_eq!(runs.len(), 7);
        assert_eq!(runs[0].config.fl.local.batch_size, None);
        for r in &runs {
            let mut c = r.config.clone();
            c.fl.local = base().fl.local;
            // Every run also faces the FedAvg-aware server, on DLG's budget.
            assert_eq!(
                c.attack.fedavg.take(),
                Some(FedAvgConfig::like(&base().attack.settings))
            );
            assert_eq!(c, base(), "{} {}", r.family, r.parameter);
        }
        // The visitor's own FedAvg-aware settings are kept.
        let mut own = base();
        own.attack.fedavg = Some(FedAvgConfig {
            max_iterations: 77,
            ..FedAvgConfig::default()
        });
        for r in super::runs(Study::LocalSteps, &own, &world()).unwrap() {
            assert_eq!(r.config.attack.fedavg, own.attack.fedavg);
        }
        assert_eq!(
            runs.iter()
                .map(|r| (r.config.fl.local.batch_size, r.config.fl.local.epochs))
                .collect::<Vec<_>>(),
            vec![
                (None, 1),
                (Some(20), 1),
                (Some(20), 2),
                (Some(20), 5),
                (Some(20), 10),
                (Some(5), 1),
                (Some(5), 5)
            ]
        );
    }

    #[test]
    fn the_co_participant_study_pairs_the_visitor_with_each_user_and_measures_them() {
        let w = world();
        let runs = runs(Study::CoParticipants, &base(), &w).unwrap();
        assert_eq!(runs.len(), 4, "alone, then users 1–3");
        assert_eq!(runs[0].config.participants, Some(vec![0]));
        assert_eq!(runs[0].user_distance_m, None);
        for (k, r) in runs[1..].iter().enumerate() {
            assert_eq!(r.config.participants, Some(vec![0, k as u32 + 1]));
            let d = r.user_distance_m.unwrap();
            assert!(d > 10.0 && d < 3000.0, "user {}: {d} m", k + 1);
        }
        // The distance is symmetric in the two users and zero for a user with itself.
        let probe = Lab::with_world(base(), w).unwrap();
        let (ab, ba) = (
            user_distance(&probe, 0, 2, 5),
            user_distance(&probe, 2, 0, 5),
        );
        assert!((ab.unwrap() - ba.unwrap()).abs() < 1e-6 * ab.unwrap());
        assert!(user_distance(&probe, 2, 2, 5).unwrap() < 1e-9);
    }

    #[test]
    fn a_campus_world_can_have_a_background_user_and_the_study_pairs_it_too() {
        let mut with_bg = base();
        with_bg.world.background = Some(true);
        let w = World::generate(&with_bg.world_config()).unwrap();
        let bg = w
            .users
            .iter()
            .find(|u| u.background)
            .expect("a background user");
        assert_eq!(bg.id, 4, "after the 4 regular users");
        assert!(!w.measurements_of(bg.id).is_empty());
        let runs = runs(Study::CoParticipants, &with_bg, &w).unwrap();
        let last = runs.last().unwrap();
        assert_eq!(
            (last.family.as_str(), last.parameter.as_str()),
            ("with the background user", "background user")
        );
        assert_eq!(last.config.participants, Some(vec![0, 4]));
        assert!(last.user_distance_m.unwrap() > 0.0);
    }

    #[test]
    fn a_point_reports_what_the_lab_gave() {
        let w = world();
        let mut short = base();
        short.attack.settings.max_iterations = 200;
        let run = &runs(Study::LocalSteps, &short, &w).unwrap()[3]; // B = 20, E = 5
        let mut lab = Lab::with_world(run.config.clone(), w).unwrap();
        lab.want(usize::MAX);
        lab.finish(&mut |_| {}).unwrap();
        let p = StudyPoint::new(run, &lab.summary(), &lab.records());
        assert_eq!(
            (p.family.as_str(), p.parameter.as_str()),
            ("FedAvg B = 20", "E = 5")
        );
        assert_eq!(p.rmse_db, lab.summary().final_rmse_db);
        assert!(p.local_steps.unwrap() >= 5.0);
        // Both servers' figures on the same updates.
        let aware = p.fedavg.as_ref().expect("the FedAvg-aware server ran");
        assert_eq!(
            Some(aware),
            lab.summary()
                .fedavg
                .as_ref()
                .map(FedAvgPoint::from)
                .as_ref()
        );
        assert!(aware.step_error_m.is_some() && p.step_error_m.is_some());
    }
}
