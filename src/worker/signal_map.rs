//! The Signal map's side of the worker ([000]/[001]): the lab, worked in slices with edits
//! applied at once and heat maps after the urgent work, and a study behind it when it is idle.

use super::{LabHost, VisitorData};
use crate::protocol::{Request, Response, SignalRequest, SignalResponse};
use whereabouts_core::study::StudyRunner;
use whereabouts_engine::signal_map::lab::{HeatMap, Lab, LabEvent};
use whereabouts_engine::signal_map::placement::ImportedTrace;
use whereabouts_engine::signal_map::reference::{Measuring, References};
use whereabouts_engine::signal_map::scenario::ScenarioConfig;
use whereabouts_engine::signal_map::studies::{self, Study, StudyPoint, StudyRun};
use whereabouts_engine::signal_map::undefended::{self, Comparison};
use whereabouts_engine::signal_map::warm_start::WarmCache;
use whereabouts_engine::signal_map::world::World;

/// SGD steps of the references' training between looks at the clock.
const REFERENCE_STEPS: usize = 8;

/// Multiply-adds the heat map may cost (a few milliseconds in the browser).
const HEAT_BUDGET: usize = 3_000_000;

/// The Signal map's side of the worker: at most one lab, and a study behind it.
#[derive(Default)]
pub struct SignalHost {
    generation: u32,
    lab: Option<Lab>,
    /// The lab went idle and the page has been told.
    idle_reported: bool,
    /// Rounds whose heat map is still to be sent (after the urgent work of an edit).
    heat_due: Vec<usize>,
    /// A privacy–utility study, worked on when the lab is idle.
    study: Option<RunningStudy>,
    /// The visitor's imported trace (labs and studies with `use_data` run on it).
    data: Option<ImportedTrace>,
    /// The last warm start trained (a new lab in the same world and model reuses it).
    warm: WarmCache,
    /// The RMSE references of the current lab's data, once measured.
    references: Option<References>,
    /// Their measurement, begun when the lab first goes idle (it trains a model, in the
    /// slices the lab leaves free, so that a start or an edit never waits for it); a new start
    /// or an edit of the path drops it, and the references, for a new measurement on the new
    /// data.
    measuring: Option<Measuring>,
    /// Under a defence: the same run without it, worked once the lab and its references are
    /// done, so the page can say whether the defence moved the server away or closer.
    undefended: Option<Undefended>,
}

/// The lab's run without its defence, up to the rounds the lab has done.
struct Undefended {
    /// `None` if it could not start (the page then shows no comparison).
    lab: Option<Lab>,
    /// Its comparison has been sent for the rounds it wants.
    reported: bool,
}

/// A study in progress (the privacy–utility study, I3, I4): one lab per run, in one world.
struct RunningStudy {
    id: u32,
    kind: Study,
    base: ScenarioConfig,
    /// The core's runner, made in the first slice (the world is generated then: the
    /// co-participant study needs it to know its runs).
    runner: Option<StudyRunner<StudyRun, Lab, StudyPoint>>,
}

impl SignalHost {
    /// Answers one of the lab's requests. What is instant answers at once (a start, the edited
    /// round's Lemma 1 reconstruction); the rest comes from [`pump`](LabHost::pump).
    pub fn handle(
        &mut self,
        request: SignalRequest,
        now: &dyn Fn() -> f64,
        emit: &mut dyn FnMut(Response),
    ) {
        match request {
            SignalRequest::Start {
                generation,
                config,
                want,
                use_data,
            } => {
                self.generation = generation;
                self.references = None;
                self.measuring = None;
                self.undefended = None;
                match self
                    .with_data(*config, use_data)
                    .and_then(|c| Lab::new_cached(c, &mut self.warm))
                {
                    Ok(mut lab) => {
                        lab.want(want);
                        emit(Response::Signal(SignalResponse::Started {
                            generation,
                            world: lab.world_view(),
                            total_rounds: lab.total_rounds(),
                            parameters: lab.parameters(),
                            initial_rmse_db: lab.initial_rmse_db(),
                            heat: heat(&lab, None),
                        }));
                        self.lab = Some(lab);
                        self.idle_reported = false;
                        self.heat_due.clear();
                    }
                    Err(message) => {
                        self.lab = None;
                        emit(Response::Signal(SignalResponse::Error {
                            generation,
                            message,
                        }))
                    }
                }
            }
            SignalRequest::Trajectory {
                generation,
                edit,
                trajectory,
            } => {
                let began = now();
                let Some(lab) = self.current(generation) else {
                    return;
                };
                let mut trained = Vec::new();
                let result = lab.set_trajectory(trajectory, &mut |event| {
                    if let LabEvent::Trained { round, .. } = &event {
                        trained.push(*round);
                    }
                    emit(Response::Signal(SignalResponse::Event {
                        generation,
                        event,
                    }))
                });
                match result {
                    Ok(first_changed) => {
                        emit(Response::Signal(SignalResponse::Edited {
                            generation,
                            edit,
                            first_changed,
                            worker_ms: now() - began,
                        }));
                        self.heat_due.extend(trained);
                        self.idle_reported = false;
                        self.references = None;
                        self.measuring = None;
                        self.undefended = None;
                    }
                    Err(message) => emit(Response::Signal(SignalResponse::Error {
                        generation,
                        message,
                    })),
                }
            }
            SignalRequest::StudyStart {
                id,
                config,
                use_data,
                kind,
            } => {
                let config = match self.with_data(*config, use_data) {
                    Ok(c) => c,
                    Err(message) => {
                        emit(Response::Signal(SignalResponse::StudyError { id, message }));
                        return;
                    }
                };
                emit(Response::Signal(SignalResponse::StudyProgress {
                    id,
                    done: 0,
                    total: 0,
                    point: None,
                }));
                self.study = Some(RunningStudy {
                    id,
                    kind,
                    base: config,
                    runner: None,
                });
            }
            SignalRequest::StudyCancel { id } => {
                if self.study.as_ref().is_some_and(|s| s.id == id) {
                    self.study = None;
                    emit(Response::Signal(SignalResponse::StudyDone {
                        id,
                        cancelled: true,
                    }));
                }
            }
            SignalRequest::Want { generation, rounds } => {
                if let Some(lab) = self.current(generation) {
                    lab.want(rounds);
                    self.idle_reported = false;
                    // The comparison follows the lab to its new last round.
                    if let Some(u) = self.undefended.as_mut() {
                        u.reported = u.lab.is_none();
                    }
                }
            }
        }
    }

    /// `config` with the imported trace in place of a trajectory, when asked for.
    fn with_data(
        &self,
        mut config: ScenarioConfig,
        use_data: bool,
    ) -> Result<ScenarioConfig, String> {
        if use_data {
            let Some(data) = &self.data else {
                return Err(super::NO_FILE.into());
            };
            config.trajectory = None;
            config.imported = Some(data.clone());
        }
        Ok(config)
    }

    fn current(&mut self, generation: u32) -> Option<&mut Lab> {
        (generation == self.generation)
            .then_some(self.lab.as_mut())
            .flatten()
    }

    /// Measures the references until the deadline, and sends them once measured.
    fn pump_references(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(Response),
    ) {
        let (Some(lab), Some(measuring)) = (self.lab.as_ref(), self.measuring.as_mut()) else {
            // No lab (it stopped on an error): nothing to measure.
            self.measuring = None;
            return;
        };
        while now() < deadline {
            // A few steps between looks at the clock (one is ~20 µs on the small model).
            if let Some(references) = lab.advance_references(measuring, REFERENCE_STEPS) {
                self.references = Some(references);
                self.measuring = None;
                emit(Response::Signal(SignalResponse::References {
                    generation: self.generation,
                    references,
                }));
                return;
            }
        }
    }

    /// True while the run without the defence has work (the lab is idle and defended).
    fn undefended_due(&self) -> bool {
        match (&self.undefended, &self.lab) {
            (Some(u), _) => !u.reported,
            (None, Some(lab)) => undefended::config(lab.config()).is_some(),
            (None, None) => false,
        }
    }

    /// Works the run without the defence until the deadline (started on the first call, in the
    /// same world, path and seed as the lab), and sends the comparison once it has done the
    /// lab's rounds.
    fn pump_undefended(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(Response),
    ) {
        let Some(lab) = self.lab.as_ref() else {
            return;
        };
        let u = self.undefended.get_or_insert_with(|| Undefended {
            lab: undefended::config(lab.config())
                .and_then(|c| Lab::with_world_cached(c, lab.world().clone(), &mut self.warm).ok()),
            reported: false,
        });
        let Some(plain) = u.lab.as_mut() else {
            u.reported = true;
            return;
        };
        plain.want(lab.trained());
        match plain.work(now, deadline, &mut |_| {}) {
            Ok(true) => {}
            Ok(false) => {
                u.reported = true;
                emit(Response::Signal(SignalResponse::Undefended {
                    generation: self.generation,
                    comparison: Box::new(Comparison {
                        defended: lab.summary(),
                        undefended: plain.summary(),
                    }),
                }));
            }
            // It diverged where the defended run did not: no comparison to show.
            Err(_) => {
                u.lab = None;
                u.reported = true;
            }
        }
    }

    /// Advances the study until the deadline; the lab has priority (see [`pump`](LabHost::pump)).
    fn pump_study(&mut self, now: &dyn Fn() -> f64, deadline: f64, emit: &mut dyn FnMut(Response)) {
        let Some(study) = self.study.as_mut() else {
            return;
        };
        let id = study.id;
        if study.runner.is_none() {
            // First slice: the world, then the runs (a few hundred ms, once per study).
            let prepared = World::generate(&study.base.world_config())
                .map_err(|e| e.to_string())
                .and_then(|w| studies::runs(study.kind, &study.base, &w).map(|r| (w, r)));
            match prepared {
                Ok((world, runs)) => {
                    let runner = studies::runner(runs, world);
                    emit(Response::Signal(SignalResponse::StudyProgress {
                        id,
                        done: 0,
                        total: runner.total(),
                        point: None,
                    }));
                    study.runner = Some(runner);
                }
                Err(message) => {
                    return self.end_study(emit, |id| {
                        Response::Signal(SignalResponse::StudyError { id, message })
                    });
                }
            }
        }
        let runner = study.runner.as_mut().expect("made above");
        let total = runner.total();
        let mut done = runner.done();
        let result = runner.work(now, deadline, &mut |point| {
            done += 1;
            emit(Response::Signal(SignalResponse::StudyProgress {
                id,
                done,
                total,
                point: Some(point),
            }))
        });
        match result {
            Ok(true) => {}
            Ok(false) => self.end_study(emit, |id| {
                Response::Signal(SignalResponse::StudyDone {
                    id,
                    cancelled: false,
                })
            }),
            Err(message) => self.end_study(emit, |id| {
                Response::Signal(SignalResponse::StudyError { id, message })
            }),
        }
    }

    /// Drops the study and tells the page how it ended.
    fn end_study(&mut self, emit: &mut dyn FnMut(Response), how: impl FnOnce(u32) -> Response) {
        if let Some(study) = self.study.take() {
            emit(how(study.id));
        }
    }
}

impl LabHost for SignalHost {
    fn handle(&mut self, request: Request, now: &dyn Fn() -> f64, emit: &mut dyn FnMut(Response)) {
        if let Request::Signal(request) = request {
            SignalHost::handle(self, request, now, emit);
        }
    }

    fn set_data(&mut self, data: Option<&VisitorData>) {
        self.data = data.map(|d| {
            let trace = ImportedTrace::new(d.name.clone(), d.fixes.clone());
            // Placed once here; every lab and study started on it reuses that.
            let _ = trace.placement();
            trace
        });
    }

    fn has_work(&self) -> bool {
        self.study.is_some()
            || self.measuring.is_some()
            || self.undefended_due()
            || self
                .lab
                .as_ref()
                .is_some_and(|lab| lab.busy() || !self.idle_reported || !self.heat_due.is_empty())
    }

    /// The lab first (its rounds, then heat maps); the study when the lab is idle.
    fn pump(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(Response),
    ) -> bool {
        let generation = self.generation;
        let lab_idle = self
            .lab
            .as_ref()
            .is_none_or(|lab| !lab.busy() && self.idle_reported && self.heat_due.is_empty());
        if lab_idle {
            if self.measuring.is_some() {
                self.pump_references(now, deadline, emit);
            } else if self.undefended_due() {
                self.pump_undefended(now, deadline, emit);
            } else {
                self.pump_study(now, deadline, emit);
            }
            return self.has_work();
        }
        let Some(lab) = self.lab.as_mut() else {
            return false;
        };
        let due = &mut self.heat_due;
        let result = lab.work(now, deadline, &mut |event| {
            if let LabEvent::Trained { round, .. } = &event {
                due.push(*round);
            }
            emit(Response::Signal(SignalResponse::Event {
                generation,
                event,
            }))
        });
        // Heat maps once the urgent work is done (a dragged waypoint's next edit must not wait
        // for one); a round edited twice is drawn once.
        if matches!(result, Ok(false)) {
            due.sort_unstable();
            due.dedup();
            for round in due.drain(..) {
                if let Some(heat) = heat(lab, Some(round)) {
                    emit(Response::Signal(SignalResponse::Heat { generation, heat }));
                }
            }
        }
        match result {
            Ok(true) => true,
            Ok(false) => {
                if !self.idle_reported {
                    self.idle_reported = true;
                    let mut summary = lab.summary();
                    summary.references = self.references;
                    emit(Response::Signal(SignalResponse::Idle {
                        generation,
                        summary,
                    }));
                    if self.references.is_none() && self.measuring.is_none() {
                        self.measuring = Some(lab.measure_references());
                    }
                }
                self.has_work()
            }
            Err(message) => {
                // A diverging model: stop this lab, keep what the page shows.
                self.lab = None;
                self.measuring = None;
                emit(Response::Signal(SignalResponse::Error {
                    generation,
                    message,
                }));
                false
            }
        }
    }
}

fn heat(lab: &Lab, round: Option<usize>) -> Option<HeatMap> {
    let cells = (HEAT_BUDGET / lab.parameters().max(1)).clamp(48, 1600);
    lab.heat_map(round, cells)
}
