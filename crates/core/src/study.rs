//! The study runner every lab shares: vary one thing, run each, summarise.
//!
//! A lab makes its study's runs (each a configuration with what it varies), then hands them to a
//! [`StudyRunner`] with two functions: how to start a run's [`Driver`] and how to measure a
//! finished one into a point. The runner does the rest the same way everywhere: runs one after
//! the other, in slices until a deadline (the browser worker reads the page's messages between
//! slices, so a study can be cancelled), a run that fails (a diverging model) is still a point
//! that says why, and a run that cannot start stops the study with that reason. Run to the end
//! with no clock ([`StudyRunner::finish`]) it is what the command line computes. A lab's
//! [`PageStudy`] says both functions once, for its [`runner`] and its sweep.

use crate::driver::Driver;

/// Starts a run's driver (a bad configuration is an error that names the setting).
type Start<R, D> = Box<dyn Fn(&R) -> Result<D, String>>;
/// Measures a run: its description, its driver after the work, and why it failed, if it did.
type Measure<R, D, P> = Box<dyn Fn(&R, &D, Option<String>) -> P>;

/// A study in progress: its runs, how many are done, and the one under way.
pub struct StudyRunner<R, D: Driver, P> {
    runs: Vec<R>,
    done: usize,
    current: Option<D>,
    start: Start<R, D>,
    measure: Measure<R, D, P>,
}

impl<R, D: Driver, P> StudyRunner<R, D, P> {
    pub fn new(
        runs: Vec<R>,
        start: impl Fn(&R) -> Result<D, String> + 'static,
        measure: impl Fn(&R, &D, Option<String>) -> P + 'static,
    ) -> Self {
        StudyRunner {
            runs,
            done: 0,
            current: None,
            start: Box::new(start),
            measure: Box::new(measure),
        }
    }

    /// How many runs the study has.
    pub fn total(&self) -> usize {
        self.runs.len()
    }

    /// How many are finished.
    pub fn done(&self) -> usize {
        self.done
    }

    /// Works until `now()` passes `deadline` (milliseconds), emitting each finished run's point
    /// in order. Returns true while runs remain; an error if a run could not start.
    pub fn work(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(P),
    ) -> Result<bool, String> {
        loop {
            let Some(run) = self.runs.get(self.done) else {
                return Ok(false);
            };
            if now() >= deadline {
                return Ok(true);
            }
            let driver = match self.current.as_mut() {
                Some(d) => d,
                None => self.current.insert((self.start)(run)?),
            };
            let result = driver.work(now, deadline, &mut |_| {});
            if matches!(result, Ok(true)) {
                return Ok(true);
            }
            let point = (self.measure)(run, driver, result.err());
            self.current = None;
            self.done += 1;
            emit(point);
        }
    }

    /// Every run to the end, with no clock; the points in the order of the runs.
    pub fn finish(mut self) -> Result<Vec<P>, String> {
        let mut points = Vec::with_capacity(self.runs.len());
        while self.work(&|| 0.0, f64::INFINITY, &mut |p| points.push(p))? {}
        Ok(points)
    }

    /// Runs the study to the end and gives the point of its only run (a sweep's point).
    pub fn finish_one(self) -> Result<P, String> {
        let total = self.total();
        let mut points = self.finish()?;
        match (points.pop(), total) {
            (Some(p), 1) => Ok(p),
            _ => Err(format!("a study of one run was expected, not of {total}")),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::driver::Guess;

    /// Counts to its target, one per call of `work`; a negative target diverges at once.
    pub struct Counter {
        target: i32,
        at: i32,
    }

    impl Driver for Counter {
        type Config = i32;
        type Event = ();
        type Summary = i32;
        fn start(target: i32) -> Result<Self, String> {
            if target == 0 {
                return Err("target: must not be 0".into());
            }
            Ok(Counter { target, at: 0 })
        }
        fn work(
            &mut self,
            _: &dyn Fn() -> f64,
            _: f64,
            _: &mut dyn FnMut(()),
        ) -> Result<bool, String> {
            if self.target < 0 {
                return Err("diverged".into());
            }
            self.at += 1;
            Ok(self.at < self.target)
        }
        fn summary(&self) -> i32 {
            self.at
        }
        fn guesses(&self) -> Vec<Guess> {
            Vec::new()
        }
    }

    fn runner(targets: Vec<i32>) -> StudyRunner<i32, Counter, (i32, i32, Option<String>)> {
        StudyRunner::new(
            targets,
            |t| Counter::start(*t),
            |t, c, why| (*t, c.summary(), why),
        )
    }

    #[test]
    fn every_run_is_a_point_in_order_and_a_failure_says_why() {
        let points = runner(vec![3, -1, 2]).finish().unwrap();
        assert_eq!(
            points,
            vec![(3, 3, None), (-1, 0, Some("diverged".into())), (2, 2, None)]
        );
    }

    #[test]
    fn slices_give_the_same_points_and_a_run_that_cannot_start_stops_the_study() {
        // A clock that passes the deadline after every second reading: many small slices.
        let ticks = std::cell::Cell::new(0.0);
        let now = || {
            ticks.set(ticks.get() + 0.5);
            ticks.get()
        };
        let mut r = runner(vec![3, -1, 2]);
        let mut points = Vec::new();
        let mut slices = 0;
        while r
            .work(&now, ticks.get() + 1.0, &mut |p| points.push(p))
            .unwrap()
        {
            slices += 1;
        }
        assert!(slices > 3, "{slices}");
        assert_eq!(points, runner(vec![3, -1, 2]).finish().unwrap());
        assert_eq!(r.done(), 3);

        let err = runner(vec![1, 0, 1]).finish().unwrap_err();
        assert!(err.contains("must not be 0"), "{err}");
    }

    #[test]
    fn a_study_of_one_run_gives_its_point_and_of_more_says_so() {
        assert_eq!(runner(vec![2]).finish_one().unwrap(), (2, 2, None));
        assert_eq!(
            runner(vec![-1]).finish_one().unwrap(),
            (-1, 0, Some("diverged".into()))
        );
        let e = runner(vec![1, 2]).finish_one().unwrap_err();
        assert_eq!(e, "a study of one run was expected, not of 2");
    }
}
