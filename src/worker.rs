//! The engine worker: receives [`Request`]s, runs engine code, posts [`Response`]s.
//!
//! [`Engine`] holds the lab and does its work in slices ([`Engine::pump`]) so that a message
//! from the page (a dragged waypoint, pause) is read within one slice; it is plain Rust, tested
//! without a worker. The glue in [`start`] moves messages across the boundary and schedules the
//! next slice through a `MessageChannel` (unlike `setTimeout(0)`, not clamped to 4 ms).

use crate::protocol::{self, ImportRequest, Request, Response, SignalRequest, SignalResponse};
use std::{cell::RefCell, rc::Rc};
use wasm_bindgen::{JsCast, JsValue, closure::Closure};
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent};
use whereabouts_engine::signal_map::lab::{HeatMap, Lab, LabEvent};
use whereabouts_engine::signal_map::placement::ImportedTrace;
use whereabouts_engine::signal_map::scenario::ScenarioConfig;
use whereabouts_engine::signal_map::studies::{self, Study, StudyPoint, StudyRun};
use whereabouts_engine::signal_map::world::World;

/// How long one slice of background work may run, in milliseconds.
pub const SLICE_MS: f64 = 4.0;

/// Multiply-adds the heat map may cost (a few milliseconds in the browser).
const HEAT_BUDGET: usize = 3_000_000;

/// The worker's state: at most one lab.
#[derive(Default)]
pub struct Engine {
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
    /// The Signal map's tab is hidden ([`Request::Show`] named another lab): only the visible
    /// lab computes, so its lab and studies wait.
    hidden: bool,
}

/// A study in progress (the privacy–utility study, I3, I4): one lab per run, in one world.
struct RunningStudy {
    id: u32,
    kind: Study,
    base: ScenarioConfig,
    /// The runs, known once the world is generated (co-participants need it).
    runs: Vec<StudyRun>,
    done: usize,
    world: Option<World>,
    current: Option<Lab>,
}

impl Engine {
    /// Answers one request. Lab requests answer at once with what is instant (a start, the
    /// edited round's Lemma 1 reconstruction); the rest comes from [`pump`](Self::pump).
    pub fn handle(
        &mut self,
        request: Request,
        now: &dyn Fn() -> f64,
        emit: &mut dyn FnMut(Response),
    ) {
        match request {
            Request::Show { lab } => self.hidden = lab != "signal",
            Request::Ping { nonce } => emit(Response::Pong {
                nonce,
                engine_version: whereabouts_engine::VERSION.to_string(),
            }),
            Request::Signal(SignalRequest::Start {
                generation,
                config,
                want,
                use_data,
            }) => {
                self.generation = generation;
                match self.with_data(*config, use_data).and_then(Lab::new) {
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
            Request::Signal(SignalRequest::Trajectory {
                generation,
                edit,
                trajectory,
            }) => {
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
                    }
                    Err(message) => emit(Response::Signal(SignalResponse::Error {
                        generation,
                        message,
                    })),
                }
            }
            Request::Data { name, fixes } => {
                self.data = fixes.map(|f| {
                    let trace = ImportedTrace::new(name, protocol::unpack(&f));
                    // Placed once here; every lab and study started on it reuses that.
                    let _ = trace.placement();
                    trace
                });
            }
            Request::Import(ImportRequest::File { .. }) => emit(Response::Rejected {
                reason: "imports run in their own worker".into(),
            }),
            Request::Signal(SignalRequest::StudyStart {
                id,
                config,
                use_data,
                kind,
            }) => {
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
                    runs: Vec::new(),
                    done: 0,
                    world: None,
                    current: None,
                });
            }
            Request::Signal(SignalRequest::StudyCancel { id }) => {
                if self.study.as_ref().is_some_and(|s| s.id == id) {
                    self.study = None;
                    emit(Response::Signal(SignalResponse::StudyDone {
                        id,
                        cancelled: true,
                    }));
                }
            }
            Request::Signal(SignalRequest::Want { generation, rounds }) => {
                if let Some(lab) = self.current(generation) {
                    lab.want(rounds);
                    self.idle_reported = false;
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
                return Err("no imported data: choose or drop a file first".into());
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

    /// True if [`pump`](Self::pump) has something to do.
    pub fn has_work(&self) -> bool {
        if self.hidden {
            return false;
        }
        self.study.is_some()
            || self
                .lab
                .as_ref()
                .is_some_and(|lab| lab.busy() || !self.idle_reported || !self.heat_due.is_empty())
    }

    /// Advances the study until the deadline; the lab has priority (see [`pump`](Self::pump)).
    fn pump_study(&mut self, now: &dyn Fn() -> f64, deadline: f64, emit: &mut dyn FnMut(Response)) {
        let Some(study) = self.study.as_mut() else {
            return;
        };
        while now() < deadline {
            if study.world.is_none() {
                // First slice: the world, then the runs (a few hundred ms, once per study).
                let prepared = World::generate(&study.base.world_config())
                    .map_err(|e| e.to_string())
                    .and_then(|w| studies::runs(study.kind, &study.base, &w).map(|r| (w, r)));
                match prepared {
                    Ok((world, runs)) => {
                        study.world = Some(world);
                        study.runs = runs;
                        emit(Response::Signal(SignalResponse::StudyProgress {
                            id: study.id,
                            done: 0,
                            total: study.runs.len(),
                            point: None,
                        }));
                    }
                    Err(message) => {
                        return self.end_study(emit, |study| {
                            Response::Signal(SignalResponse::StudyError { id: study, message })
                        });
                    }
                }
                continue;
            }
            if study.current.is_none() {
                let Some(run) = study.runs.get(study.done) else {
                    return self.end_study(emit, |study| {
                        Response::Signal(SignalResponse::StudyDone {
                            id: study,
                            cancelled: false,
                        })
                    });
                };
                let world = study.world.clone().expect("generated above");
                match Lab::with_world(run.config.clone(), world) {
                    Ok(mut lab) => {
                        lab.want(usize::MAX);
                        study.current = Some(lab);
                    }
                    Err(message) => {
                        return self.end_study(emit, |study| {
                            Response::Signal(SignalResponse::StudyError { id: study, message })
                        });
                    }
                }
                continue;
            }
            let lab = study.current.as_mut().expect("set above");
            let result = lab.work(now, deadline, &mut |_| {});
            if matches!(result, Ok(true)) {
                return;
            }
            // A run that fails (a diverging model) is a point that says why, with what
            // it computed before.
            let run = &study.runs[study.done];
            let (summary, records) = (lab.summary(), lab.records());
            let point = match result {
                Err(why) => StudyPoint::failed(run, &summary, &records, why),
                _ => StudyPoint::new(run, &summary, &records),
            };
            study.done += 1;
            study.current = None;
            emit(Response::Signal(SignalResponse::StudyProgress {
                id: study.id,
                done: study.done,
                total: study.runs.len(),
                point: Some(point),
            }));
        }
    }

    /// Drops the study and tells the page how it ended.
    fn end_study(&mut self, emit: &mut dyn FnMut(Response), how: impl FnOnce(u32) -> Response) {
        if let Some(study) = self.study.take() {
            emit(how(study.id));
        }
    }

    /// Works until `now()` passes `deadline` (milliseconds); true if work remains.
    pub fn pump(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(Response),
    ) -> bool {
        if self.hidden {
            return false;
        }
        let generation = self.generation;
        let lab_idle = self
            .lab
            .as_ref()
            .is_none_or(|lab| !lab.busy() && self.idle_reported && self.heat_due.is_empty());
        if lab_idle {
            self.pump_study(now, deadline, emit);
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
                    emit(Response::Signal(SignalResponse::Idle {
                        generation,
                        summary: lab.summary(),
                    }));
                }
                false
            }
            Err(message) => {
                // A diverging model: stop this lab, keep what the page shows.
                self.lab = None;
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

/// Answers one request with a fresh engine (kept for quick checks of the boundary).
pub fn handle(request: Request, emit: &mut dyn FnMut(Response)) {
    Engine::default().handle(request, &js_sys::Date::now, emit);
}

struct Glue {
    engine: RefCell<Engine>,
    scope: DedicatedWorkerGlobalScope,
    channel: MessageChannel,
    scheduled: RefCell<bool>,
}

impl Glue {
    fn now(&self) -> f64 {
        self.scope
            .performance()
            .map_or_else(js_sys::Date::now, |p| p.now())
    }

    fn schedule(&self) {
        if !*self.scheduled.borrow() && self.engine.borrow().has_work() {
            *self.scheduled.borrow_mut() = true;
            if let Err(e) = self.channel.port2().post_message(&JsValue::NULL) {
                web_sys::console::error_2(&"worker: could not schedule work".into(), &e);
            }
        }
    }

    fn slice(&self) {
        *self.scheduled.borrow_mut() = false;
        let deadline = self.now() + SLICE_MS;
        let now = || self.now();
        self.engine
            .borrow_mut()
            .pump(&now, deadline, &mut |r| post(&self.scope, &r));
        self.schedule();
    }
}

/// Starts the worker: installs the panic reporter and the message listener, then says ready.
pub fn start() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    install_panic_reporter(scope.clone());
    let channel = match MessageChannel::new() {
        Ok(c) => c,
        Err(e) => {
            let message = format!("the worker cannot schedule work: {e:?}");
            post(&scope, &Response::Fatal { message });
            return;
        }
    };
    let glue = Rc::new(Glue {
        engine: RefCell::new(Engine::default()),
        scope: scope.clone(),
        channel,
        scheduled: RefCell::new(false),
    });

    let slice_glue = glue.clone();
    let on_slice = Closure::<dyn FnMut(MessageEvent)>::new(move |_: MessageEvent| {
        slice_glue.slice();
    });
    glue.channel
        .port1()
        .set_onmessage(Some(on_slice.as_ref().unchecked_ref()));
    on_slice.forget();

    let msg_glue = glue.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let mut emit = |response: Response| post(&msg_glue.scope, &response);
        match protocol::decode_request(event.data()) {
            Ok(Request::Import(ImportRequest::File {
                settings,
                file: Some(file),
            })) => {
                let now = || msg_glue.now();
                crate::importer::run(&file, &settings, &now, &mut emit);
            }
            Ok(request) => {
                let now = || msg_glue.now();
                msg_glue
                    .engine
                    .borrow_mut()
                    .handle(request, &now, &mut emit)
            }
            Err(reason) => emit(Response::Rejected { reason }),
        }
        msg_glue.schedule();
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();

    post(
        &scope,
        &Response::Ready {
            engine_version: whereabouts_engine::VERSION.to_string(),
        },
    );
}

fn post(scope: &DedicatedWorkerGlobalScope, response: &Response) {
    match protocol::encode_response(response) {
        Ok(value) => {
            let result = match protocol::transferables(&value) {
                Some(transfer) => scope.post_message_with_transfer(&value, &transfer),
                None => scope.post_message(&value),
            };
            if let Err(e) = result {
                web_sys::console::error_2(&JsValue::from_str("worker: postMessage failed"), &e);
            }
        }
        Err(e) => web_sys::console::error_1(&JsValue::from_str(&e)),
    }
}

/// A panic in the engine must not leave the page waiting forever: report it, then die.
fn install_panic_reporter(scope: DedicatedWorkerGlobalScope) {
    std::panic::set_hook(Box::new(move |info| {
        console_error_panic_hook::hook(info);
        post(
            &scope,
            &Response::Fatal {
                message: info.to_string(),
            },
        );
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use whereabouts_core::geo::Metres;
    use whereabouts_engine::signal_map::scenario::{ScenarioConfig, WorldChoice};
    use whereabouts_engine::signal_map::trajectory::TrajectoryPreset;
    use whereabouts_engine::signal_map::world::Preset;

    fn config() -> ScenarioConfig {
        ScenarioConfig {
            world: WorldChoice {
                preset: Preset::Campus,
                users: Some(2),
                weeks: Some(1),
                cell: None,
                background: None,
            },
            max_rounds: Some(2),
            trajectory: Some(TrajectoryPreset::Commute.trajectory(900.0, 850.0)),
            ..ScenarioConfig::default()
        }
    }

    fn pump_all(engine: &mut Engine) -> Vec<Response> {
        let mut out = Vec::new();
        while engine.pump(&|| 0.0, f64::INFINITY, &mut |r| out.push(r)) {}
        out
    }

    #[test]
    fn a_lab_on_imported_data_needs_the_data_and_draws_the_trace() {
        use {
            whereabouts_core::import::Fix, whereabouts_engine::signal_map::placement::ImportedTrace,
        };
        let start = || {
            Request::Signal(SignalRequest::Start {
                generation: 1,
                config: Box::new(config()),
                want: 1,
                use_data: true,
            })
        };
        let mut engine = Engine::default();
        let mut out = Vec::new();
        engine.handle(start(), &|| 0.0, &mut |r| out.push(r));
        assert!(
            matches!(&out[0], Response::Signal(SignalResponse::Error { message, .. }) if message.contains("no imported data"))
        );
        engine.data = Some(ImportedTrace::new(
            "walk.csv".into(),
            (0..50)
                .map(|i| Fix {
                    time: 1_700_000_000.0 + i as f64 * 60.0,
                    lat: 47.37 + i as f64 * 1e-4,
                    lon: 8.54,
                    rsrp_dbm: None,
                    line: i + 2,
                })
                .collect(),
        ));
        let mut out = Vec::new();
        engine.handle(start(), &|| 0.0, &mut |r| out.push(r));
        match &out[0] {
            Response::Signal(SignalResponse::Started {
                world,
                total_rounds,
                ..
            }) => {
                assert_eq!(*total_rounds, 1);
                assert_eq!(world.trace.len(), 50, "every fix, in time order");
                assert!((world.origin.lat - 47.3725).abs() < 1e-3);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_lab_starts_runs_and_takes_edits() {
        let mut engine = Engine::default();
        let mut out = Vec::new();
        let start = Request::Signal(SignalRequest::Start {
            generation: 3,
            config: Box::new(config()),
            want: 2,
            use_data: false,
        });
        engine.handle(start, &|| 0.0, &mut |r| out.push(r));
        assert!(matches!(
            out[0],
            Response::Signal(SignalResponse::Started {
                generation: 3,
                total_rounds: 2,
                ..
            })
        ));
        let out = pump_all(&mut engine);
        let attacked = out
            .iter()
            .filter(|r| {
                matches!(
                    r,
                    Response::Signal(SignalResponse::Event {
                        event: LabEvent::Attacked(_),
                        ..
                    })
                )
            })
            .count();
        assert_eq!(attacked, 2);
        assert!(
            out.iter()
                .any(|r| matches!(r, Response::Signal(SignalResponse::Heat { .. })))
        );
        assert!(matches!(
            out.last(),
            Some(Response::Signal(SignalResponse::Idle { generation: 3, .. }))
        ));
        assert!(!engine.has_work());

        // An edit of an old generation is ignored; the current one is applied at once.
        let mut moved = config().trajectory.unwrap();
        moved.waypoints[2] = Metres::new(0.0, 0.0);
        let mut out = Vec::new();
        let stale = Request::Signal(SignalRequest::Trajectory {
            generation: 2,
            edit: 1,
            trajectory: moved.clone(),
        });
        engine.handle(stale, &|| 0.0, &mut |r| out.push(r));
        assert!(out.is_empty());
        let edit = Request::Signal(SignalRequest::Trajectory {
            generation: 3,
            edit: 2,
            trajectory: moved,
        });
        engine.handle(edit, &|| 0.0, &mut |r| out.push(r));
        assert!(out.iter().any(|r| matches!(
            r,
            Response::Signal(SignalResponse::Event {
                event: LabEvent::Trained { round: 0, .. },
                ..
            })
        )));
        assert!(matches!(
            out.last(),
            Some(Response::Signal(SignalResponse::Edited {
                edit: 2,
                first_changed: Some(0),
                ..
            }))
        ));
        assert!(engine.has_work());
        pump_all(&mut engine);
        assert!(!engine.has_work());
    }

    /// Starts study `study` on `config`, pumps it to the end; the responses and the points.
    fn run_study(
        engine: &mut Engine,
        id: u32,
        config: &ScenarioConfig,
        kind: Study,
    ) -> (Vec<Response>, Vec<StudyPoint>) {
        let mut out = Vec::new();
        let start = Request::Signal(SignalRequest::StudyStart {
            id,
            config: Box::new(config.clone()),
            use_data: false,
            kind,
        });
        engine.handle(start, &|| 0.0, &mut |r| out.push(r));
        out.extend(pump_all(engine));
        let points = out
            .iter()
            .filter_map(|r| match r {
                Response::Signal(SignalResponse::StudyProgress { point: Some(p), .. }) => {
                    Some(p.clone())
                }
                _ => None,
            })
            .collect();
        (out, points)
    }

    #[test]
    fn only_the_visible_lab_computes() {
        let mut engine = Engine::default();
        let mut out = Vec::new();
        let start = Request::Signal(SignalRequest::Start {
            generation: 1,
            config: Box::new(config()),
            want: 1,
            use_data: false,
        });
        engine.handle(start, &|| 0.0, &mut |r| out.push(r));
        assert!(engine.has_work());
        engine.handle(
            Request::Show {
                lab: "density".into(),
            },
            &|| 0.0,
            &mut |r| out.push(r),
        );
        assert!(!engine.has_work(), "a hidden lab waits");
        assert!(pump_all(&mut engine).is_empty());
        engine.handle(
            Request::Show {
                lab: "signal".into(),
            },
            &|| 0.0,
            &mut |r| out.push(r),
        );
        assert!(engine.has_work());
        let out = pump_all(&mut engine);
        assert!(
            out.iter()
                .any(|r| matches!(r, Response::Signal(SignalResponse::Idle { .. }))),
            "it resumes where it was"
        );
    }

    #[test]
    fn a_run_that_fails_is_a_point_that_says_why() {
        let mut engine = Engine::default();
        let mut wild = config();
        wild.max_rounds = Some(2);
        wild.attack.settings.max_iterations = 50;
        // η = 10 on dBm labels: the model diverges at once.
        wild.fl.local.learning_rate = 10.0;
        let (out, points) = run_study(&mut engine, 7, &wild, Study::LocalSteps);
        assert!(matches!(
            out.last(),
            Some(Response::Signal(SignalResponse::StudyDone { .. }))
        ));
        assert_eq!(points.len(), 7, "every run is a point");
        let failed: Vec<&StudyPoint> = points.iter().filter(|p| p.failed.is_some()).collect();
        assert!(!failed.is_empty(), "{points:?}");
        for p in failed {
            let why = p.failed.as_deref().unwrap();
            assert!(why.contains("diverged"), "{why}");
        }
    }

    #[test]
    fn a_study_runs_every_defence_behind_the_lab_and_can_be_cancelled() {
        let mut engine = Engine::default();
        let mut small = config();
        small.max_rounds = Some(1);
        small.attack.settings.max_iterations = 200;
        let (out, points) = run_study(&mut engine, 1, &small, Study::Defences);
        assert_eq!(points.len(), studies::defence_grid().len());
        assert_eq!(points[0].family, "none");
        assert!(matches!(
            out.last(),
            Some(Response::Signal(SignalResponse::StudyDone {
                id: 1,
                cancelled: false
            }))
        ));
        // Farthest Batch's decoy lands further from the truth than no defence.
        let farthest = points
            .iter()
            .find(|p| p.family == "Farthest Batch")
            .unwrap();
        assert!(farthest.mean_error_m.unwrap() > points[0].mean_error_m.unwrap());

        let mut out = Vec::new();
        engine.handle(
            Request::Signal(SignalRequest::StudyStart {
                id: 2,
                config: Box::new(small.clone()),
                use_data: false,
                kind: Study::Defences,
            }),
            &|| 0.0,
            &mut |r| out.push(r),
        );
        engine.handle(
            Request::Signal(SignalRequest::StudyCancel { id: 2 }),
            &|| 0.0,
            &mut |r| out.push(r),
        );
        assert!(matches!(
            out.last(),
            Some(Response::Signal(SignalResponse::StudyDone {
                id: 2,
                cancelled: true
            }))
        ));
        assert!(!engine.has_work());

        // Insight I4: the visitor alone, then with each other user, with their distance.
        let (_, points) = run_study(&mut engine, 3, &small, Study::CoParticipants);
        assert_eq!(
            points.len(),
            2,
            "alone, and with user 1 (the world has two users)"
        );
        assert_eq!(points[1].parameter, "user 1");
        assert!(points[1].user_distance_m.unwrap() > 0.0);
    }

    #[test]
    fn a_bad_config_is_an_error_not_a_panic() {
        let mut engine = Engine::default();
        let mut bad = config();
        bad.trajectory.as_mut().unwrap().waypoints[0] = Metres::new(1e7, 0.0);
        let mut out = Vec::new();
        let start = Request::Signal(SignalRequest::Start {
            generation: 1,
            config: Box::new(bad),
            want: 1,
            use_data: false,
        });
        engine.handle(start, &|| 0.0, &mut |r| out.push(r));
        let [Response::Signal(SignalResponse::Error { message, .. })] = out.as_slice() else {
            panic!("{out:?}")
        };
        assert!(message.contains("outside the area"), "{message}");
        assert!(!engine.has_work());
    }
}
