//! Studies as sweeps: every run of a study is an independent point, so a study can be spread
//! over a cluster (one point per batch task) and its tables merged from the points' results.
//!
//! A lab writes a study once, as [`Sweep::tables`]: a function that asks a [`Runs`] for each
//! run it needs (by its full configuration) and builds its tables from what the runs give. The
//! same function then serves three ways:
//! - **plan**: [`Plan`] records each configuration asked for and answers with a placeholder
//!   (`Outcome::default()`), so the function lists its points without computing any (the
//!   tables it builds from placeholders are thrown away);
//! - **run**: [`Sweep::run`] computes one point on its own, anywhere, in any order;
//! - **merge**: [`Replay`] answers each request with the stored result of the same point,
//!   after checking that the function asks for exactly the configuration planned there.
//!
//! So a study's runs must not depend on other runs' results (the merge checks it), and the
//! expensive work belongs in [`Sweep::run`]; what a study computes outside its runs it computes
//! again when it merges. [`run_here`] is plan + run on this machine's threads + merge, which is
//! what `whereabouts reproduce` does; `whereabouts sweep` does the same through files.

use crate::driver::Driver;
use crate::study::StudyRunner;
use crate::table::Table;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Where a study's runs come from.
pub trait Runs<C, O> {
    /// The outcome of the run of `config`.
    fn run(&mut self, config: C) -> Result<O, String>;
}

/// A study that can be swept.
pub trait Sweep: Sync {
    /// One run's full configuration (its seed included).
    type Config: Serialize + DeserializeOwned + PartialEq + Clone + Send + Sync;
    /// What one run gives (what the tables need of it, no more: it is stored as JSON).
    type Outcome: Serialize + DeserializeOwned + Default + Send;
    /// The seed a point's runs draw from (recorded beside each point of a plan).
    fn seed(config: &Self::Config) -> u64;
    /// Computes one run.
    fn run(&self, config: &Self::Config) -> Result<Self::Outcome, String>;
    /// The study: asks `runs` for every run and builds the tables from their outcomes.
    fn tables(
        &self,
        runs: &mut dyn Runs<Self::Config, Self::Outcome>,
    ) -> Result<Vec<Table>, String>;
}

/// One run of a lab, said by its full configuration (its seed included): what a point of the
/// lab's studies is, and how it is computed. A lab whose studies all compute their points the
/// same way says so once, here, and each of its studies is then a [`LabStudy`].
pub trait LabRun: Serialize + DeserializeOwned + PartialEq + Clone + Send + Sync {
    /// What the run gives (what the tables need of it, no more: it is stored as JSON).
    type Outcome: Serialize + DeserializeOwned + Default + Send;
    /// The seed the run draws from (recorded beside each point of a plan).
    fn seed(&self) -> u64;
    /// Computes the run.
    fn run(&self) -> Result<Self::Outcome, String>;
}

/// A study whose points are its lab's runs ([`LabRun`]): it says only which runs it asks for
/// and what tables it builds from them; it is a [`Sweep`] with the run's seed and computation.
pub trait LabStudy: Sync {
    /// The lab's run.
    type Run: LabRun;
    /// The study: asks `runs` for every run and builds the tables from their outcomes.
    fn tables(
        &self,
        runs: &mut dyn Runs<Self::Run, <Self::Run as LabRun>::Outcome>,
    ) -> Result<Vec<Table>, String>;
}

impl<S: LabStudy> Sweep for S {
    type Config = S::Run;
    type Outcome = <S::Run as LabRun>::Outcome;

    fn seed(config: &S::Run) -> u64 {
        config.seed()
    }

    fn run(&self, config: &S::Run) -> Result<Self::Outcome, String> {
        config.run()
    }

    fn tables(
        &self,
        runs: &mut dyn Runs<S::Run, <S::Run as LabRun>::Outcome>,
    ) -> Result<Vec<Table>, String> {
        LabStudy::tables(self, runs)
    }
}

/// The point `point(seed)` for every seed of `seeds`, in order: one setting of a study on
/// independent worlds, whose figures a table gives as their mean and 95% interval
/// ([`crate::stats`]).
pub fn each<C, O>(
    runs: &mut (dyn Runs<C, O> + '_),
    seeds: impl IntoIterator<Item = u64>,
    point: impl Fn(u64) -> C,
) -> Result<Vec<O>, String> {
    seeds
        .into_iter()
        .map(|seed| runs.run(point(seed)))
        .collect()
}

/// Records the configurations a study asks for and answers with placeholders.
pub struct Plan<C> {
    pub points: Vec<C>,
}

impl<C, O: Default> Runs<C, O> for Plan<C> {
    fn run(&mut self, config: C) -> Result<O, String> {
        self.points.push(config);
        Ok(O::default())
    }
}

/// Every point of `study`, in order.
pub fn plan<S: Sweep>(study: &S) -> Result<Vec<S::Config>, String> {
    let mut plan = Plan { points: Vec::new() };
    study.tables(&mut plan)?;
    Ok(plan.points)
}

/// Answers a study's requests from the planned points' stored outcomes, in order.
pub struct Replay<'a, C, O> {
    planned: &'a [C],
    outcomes: std::vec::IntoIter<O>,
    next: usize,
}

impl<'a, C, O> Replay<'a, C, O> {
    pub fn new(planned: &'a [C], outcomes: Vec<O>) -> Self {
        Replay {
            planned,
            outcomes: outcomes.into_iter(),
            next: 0,
        }
    }
}

impl<C: PartialEq, O> Runs<C, O> for Replay<'_, C, O> {
    fn run(&mut self, config: C) -> Result<O, String> {
        let i = self.next;
        self.next += 1;
        match (self.planned.get(i), self.outcomes.next()) {
            (Some(planned), Some(outcome)) if *planned == config => Ok(outcome),
            (Some(_), _) => Err(format!(
                "point {i}: the study asked for a different run than the plan holds (was the plan made by another version?)"
            )),
            (None, _) => Err(format!(
                "the study asked for a run beyond the plan's {} points",
                self.planned.len()
            )),
        }
    }
}

/// The tables of `study` from the outcomes of its planned points.
pub fn merge<S: Sweep>(
    study: &S,
    planned: &[S::Config],
    outcomes: Vec<S::Outcome>,
) -> Result<Vec<Table>, String> {
    let mut replay = Replay::new(planned, outcomes);
    let tables = study.tables(&mut replay)?;
    if replay.next != planned.len() {
        return Err(format!(
            "the study used {} of the plan's {} points (was the plan made by another version?)",
            replay.next,
            planned.len()
        ));
    }
    Ok(tables)
}

/// Runs `points` of `study` on `threads` threads (one: in this thread), each point once, and gives
/// their outcomes in order; `done(i)` is called as point `i` finishes. The first failure
/// stops the rest and is returned, naming its point.
pub fn run_points<S: Sweep>(
    study: &S,
    points: &[S::Config],
    threads: usize,
    done: &(dyn Fn(usize) + Sync),
) -> Result<Vec<S::Outcome>, String> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    if threads <= 1 {
        // In this thread (the only way in the browser's wasm).
        return points
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let r = study.run(p).map_err(|e| format!("point {i}: {e}"));
                done(i);
                r
            })
            .collect();
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    /// Each point's outcome once it ran.
    type Slots<O> = Mutex<Vec<Option<Result<O, String>>>>;
    let slots: Slots<S::Outcome> = Mutex::new((0..points.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, points.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= points.len() || failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let r = study.run(&points[i]).map_err(|e| format!("point {i}: {e}"));
                    failed.fetch_or(r.is_err(), Ordering::Relaxed);
                    slots.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r);
                    done(i);
                }
            });
        }
    });
    let slots = slots.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut out = Vec::with_capacity(points.len());
    for (i, slot) in slots.into_iter().enumerate() {
        match slot {
            Some(r) => out.push(r?),
            None => return Err(format!("point {i} did not run")),
        }
    }
    Ok(out)
}

/// Plan, run every point on `threads` threads, merge: the study on this machine.
pub fn run_here<S: Sweep>(
    study: &S,
    threads: usize,
    done: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<Table>, String> {
    let points = plan(study)?;
    let total = points.len();
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let outcomes = run_points(study, &points, threads, &|_| {
        let n = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        done(n, total);
    })?;
    merge(study, &points, outcomes)
}

/// A lab's in-page study (one base configuration run many times, one thing varied, each run
/// measured into a point: [`crate::study`]), said by the type of its runs: what a study starts
/// from, the runs it makes of it, how each run's lab starts and is measured, and the table of the
/// points. [`runner`] runs it in the page's worker; [`PageSweep`] makes it a sweep.
pub trait PageStudy:
    Serialize + DeserializeOwned + PartialEq + Clone + Send + Sync + 'static
{
    /// What the study starts from: a base configuration (and which study, where a lab has more).
    type Base: Sync;
    /// The lab a run drives.
    type Lab: Driver;
    /// What a run gave.
    type Point: Serialize + DeserializeOwned + Send;
    /// The study's runs on `base`, in order; an error names a setting `base` cannot run with.
    fn runs(base: &Self::Base) -> Result<Vec<Self>, String>;
    /// The seed the run draws from.
    fn seed(&self) -> u64;
    /// Starts the run's lab (a bad configuration is an error that names the setting).
    fn start(&self) -> Result<Self::Lab, String>;
    /// Measures the run from its lab after the work, and why it failed, if it did.
    fn measure(&self, lab: &Self::Lab, failed: Option<String>) -> Self::Point;
    /// The study's table of its points.
    fn table(base: &Self::Base, points: &[Self::Point]) -> Table;
}

/// The runner for a page study's runs: each run's lab started and measured as the run says.
pub fn runner<R: PageStudy>(runs: Vec<R>) -> StudyRunner<R, R::Lab, R::Point> {
    StudyRunner::new(runs, R::start, R::measure)
}

/// A [`PageStudy`] on its base as a [`Sweep`]: each run a point (run to its end on its own; a
/// run that fails is a point that says why), and one table of the points, as the page shows it.
pub struct PageSweep<R: PageStudy>(pub R::Base);

impl<R: PageStudy> Sweep for PageSweep<R> {
    type Config = R;
    type Outcome = Option<R::Point>;

    fn seed(run: &R) -> u64 {
        run.seed()
    }

    fn run(&self, run: &R) -> Result<Option<R::Point>, String> {
        runner(vec![run.clone()]).finish_one().map(Some)
    }

    fn tables(&self, runs: &mut dyn Runs<R, Option<R::Point>>) -> Result<Vec<Table>, String> {
        let mut points = Vec::new();
        for run in R::runs(&self.0)? {
            points.extend(runs.run(run)?);
        }
        Ok(vec![R::table(&self.0, &points)])
    }
}

/// A table's notes on the runs that stopped early: each one's label and why.
pub fn failures<'a>(points: impl Iterator<Item = (&'a String, &'a Option<String>)>) -> Vec<String> {
    points
        .filter_map(|(label, failed)| {
            failed
                .as_ref()
                .map(|why| format!("{label} stopped early: {why}; its figures are those of the rounds it completed."))
        })
        .collect()
}

/// A table cell: `v` to `digits` decimals and its unit, or "–" without a value.
pub fn cell(v: Option<f64>, digits: usize, unit: &str) -> String {
    v.filter(|v| v.is_finite())
        .map_or("–".into(), |v| format!("{v:.digits$}{unit}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::tests::Counter;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Squares of 1..=n, tabulated with their sum (a study that also computes outside its runs).
    struct Squares {
        n: u64,
        fail_at: Option<u64>,
    }

    impl Sweep for Squares {
        type Config = u64;
        type Outcome = u64;
        fn seed(x: &u64) -> u64 {
            *x
        }
        fn run(&self, x: &u64) -> Result<u64, String> {
            if Some(*x) == self.fail_at {
                return Err(format!("{x} is unlucky"));
            }
            Ok(x * x)
        }
        fn tables(&self, runs: &mut dyn Runs<u64, u64>) -> Result<Vec<Table>, String> {
            let mut rows = Vec::new();
            let mut sum = 0;
            for x in 1..=self.n {
                let y = runs.run(x)?;
                sum += y;
                rows.push(vec![x.to_string(), y.to_string()]);
            }
            rows.push(vec!["sum".into(), sum.to_string()]);
            Ok(vec![Table {
                title: "squares".into(),
                notes: vec![],
                columns: vec!["x".into(), "x²".into()],
                rows,
            }])
        }
    }

    #[test]
    fn plan_lists_the_runs_and_merge_builds_the_tables_from_their_outcomes() {
        let s = Squares {
            n: 4,
            fail_at: None,
        };
        let points = plan(&s).unwrap();
        assert_eq!(points, vec![1, 2, 3, 4]);
        let outcomes: Vec<u64> = points.iter().map(|p| s.run(p).unwrap()).collect();
        let t = merge(&s, &points, outcomes).unwrap();
        assert_eq!(
            t[0].rows.last().unwrap(),
            &vec!["sum".to_string(), "30".into()]
        );
    }

    #[test]
    fn a_plan_from_another_study_is_refused() {
        let s = Squares {
            n: 3,
            fail_at: None,
        };
        let e = merge(&s, &[1, 5, 3], vec![1, 25, 9]).unwrap_err();
        assert!(e.starts_with("point 1:"), "{e}");
        let e = merge(&s, &[1, 2], vec![1, 4]).unwrap_err();
        assert!(e.contains("beyond the plan's 2 points"), "{e}");
        let e = merge(&s, &[1, 2, 3, 4], vec![1, 4, 9, 16]).unwrap_err();
        assert!(e.contains("used 3 of the plan's 4 points"), "{e}");
    }

    #[test]
    fn each_asks_for_the_point_of_every_seed_in_order() {
        let mut plan = Plan { points: Vec::new() };
        let found: Vec<u64> = each(&mut plan, 3..6, |seed| 10 * seed).unwrap();
        assert_eq!(plan.points, vec![30, 40, 50]);
        assert_eq!(found, vec![0, 0, 0]);
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn threads_give_the_same_tables_as_one_and_a_failure_names_its_point() {
        let s = Squares {
            n: 50,
            fail_at: None,
        };
        let one = run_here(&s, 1, &|_, _| {}).unwrap();
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let four = run_here(&s, 4, &|_, total| {
            assert_eq!(total, 50);
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(one, four);
        assert_eq!(calls.into_inner(), 50);
        let bad = Squares {
            n: 50,
            fail_at: Some(7),
        };
        assert_eq!(
            run_here(&bad, 3, &|_, _| {}).unwrap_err(),
            "point 6: 7 is unlucky"
        );
    }

    /// Cubes of 1..=n as a page study: a run is its x, and its lab counts to x.
    impl PageStudy for u64 {
        type Base = u64;
        type Lab = Counter;
        type Point = (u64, u64);
        fn runs(n: &u64) -> Result<Vec<u64>, String> {
            Ok((1..=*n).collect())
        }
        fn seed(&self) -> u64 {
            *self
        }
        fn start(&self) -> Result<Counter, String> {
            Counter::start(*self as i32)
        }
        fn measure(&self, lab: &Counter, _: Option<String>) -> (u64, u64) {
            (*self, (lab.summary() as u64).pow(3))
        }
        fn table(_: &u64, points: &[(u64, u64)]) -> Table {
            Table {
                title: "cubes".into(),
                notes: vec![],
                columns: vec!["x".into(), "x³".into()],
                rows: points
                    .iter()
                    .map(|(x, y)| vec![x.to_string(), y.to_string()])
                    .collect(),
            }
        }
    }

    #[test]
    fn a_page_study_sweeps_a_point_per_run_into_one_table() {
        let s = PageSweep::<u64>(3);
        let points = plan(&s).unwrap();
        assert_eq!(points, vec![1, 2, 3]);
        let outcomes = run_points(&s, &points, 1, &|_| {}).unwrap();
        let t = merge(&s, &points, outcomes).unwrap();
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].rows[2], vec!["3".to_string(), "27".into()]);
    }

    /// A lab whose run of x gives x³, failing at 0; its studies differ only in which runs
    /// they ask for.
    impl LabRun for u32 {
        type Outcome = u64;
        fn seed(&self) -> u64 {
            u64::from(*self) + 100
        }
        fn run(&self) -> Result<u64, String> {
            if *self == 0 {
                return Err("x = 0: no cube".into());
            }
            Ok(u64::from(*self).pow(3))
        }
    }

    /// The cubes of `.0`, one row each.
    struct Cubes(Vec<u32>);

    impl LabStudy for Cubes {
        type Run = u32;
        fn tables(&self, runs: &mut dyn Runs<u32, u64>) -> Result<Vec<Table>, String> {
            let mut rows = Vec::new();
            for &x in &self.0 {
                rows.push(vec![x.to_string(), runs.run(x)?.to_string()]);
            }
            Ok(vec![Table {
                title: "cubes".into(),
                notes: vec![],
                columns: vec!["x".into(), "x³".into()],
                rows,
            }])
        }
    }

    #[test]
    fn a_lab_study_sweeps_its_labs_runs_with_their_seed_and_computation() {
        let s = Cubes(vec![2, 5]);
        assert_eq!(plan(&s).unwrap(), vec![2, 5]);
        assert_eq!(<Cubes as Sweep>::seed(&5), 105);
        let t = run_here(&s, 1, &|_, _| {}).unwrap();
        assert_eq!(t[0].rows, vec![vec!["2", "8"], vec!["5", "125"]]);
        let e = run_here(&Cubes(vec![3, 0]), 1, &|_, _| {}).unwrap_err();
        assert!(e.contains("x = 0: no cube"), "{e}");
    }

    #[test]
    fn a_cell_says_its_value_and_unit_or_a_dash() {
        assert_eq!(cell(Some(12.345), 1, " m"), "12.3 m");
        assert_eq!(cell(None, 1, " m"), "–");
        assert_eq!(cell(Some(f64::NAN), 0, ""), "–");
    }
}
