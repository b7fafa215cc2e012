//! The engine worker: receives [`Request`]s, runs the labs, posts [`Response`]s.
//!
//! The [`Scheduler`] is written once for every lab: it hands each lab's message family to that
//! lab's host ([`signal_map`]), gives every lab the visitor's data, and works only the visible
//! lab, in slices ([`Scheduler::pump`]) so that a message from the page (a dragged waypoint,
//! pause, another tab) is read within one slice; it is plain Rust, tested without a worker. The
//! glue in [`start`] moves messages across the boundary and schedules the next slice through a
//! `MessageChannel` (unlike `setTimeout(0)`, not clamped to 4 ms). An import worker runs the
//! same binary and answers only [`import`]'s family.
//!
//! Its length: the scheduler is about 270 lines; the rest is its tests, which drive every lab's
//! host through it.

pub mod density;
pub mod host;
pub mod import;
pub mod linkability;
pub mod mobility;
pub mod secure;
pub mod signal_map;
pub mod simd;
pub mod split;
pub mod study;

use crate::protocol::LabKind;
use crate::protocol::{self, ImportRequest, ImportSettings, Request, Response};
use std::{cell::RefCell, rc::Rc};
use wasm_bindgen::{JsCast, JsValue, closure::Closure};
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent};
use whereabouts_core::import::Fix;

/// How long one slice of background work may run, in milliseconds.
pub const SLICE_MS: f64 = 4.0;

/// The visitor's imported file, as every lab receives it.
#[derive(Clone, Debug, PartialEq)]
pub struct VisitorData {
    pub name: String,
    pub fixes: Vec<Fix>,
}

/// What a lab made of the visitor's file (its places, its target, …), for a run that asks for
/// it: the lab's reading, or why there is none.
pub fn visitor_file<T>(data: Option<&Result<T, String>>) -> Result<&T, String> {
    match data {
        None => Err(NO_FILE.into()),
        Some(Err(why)) => Err(format!("your file: {why}")),
        Some(Ok(found)) => Ok(found),
    }
}

/// What a run on the visitor's file says when there is none.
pub const NO_FILE: &str = "no imported data: choose or drop a file first";

/// A lab's side of the worker: what the scheduler needs of it (each host also answers its own
/// message family).
pub trait LabHost {
    /// Answers a request of the lab's own family (the scheduler sends it no other).
    fn handle(&mut self, request: Request, now: &dyn Fn() -> f64, emit: &mut dyn FnMut(Response));
    /// The visitor's data changed (`None`: forgotten); runs started from now on use it.
    fn set_data(&mut self, data: Option<&VisitorData>);
    /// True if [`pump`](Self::pump) has something to do.
    fn has_work(&self) -> bool;
    /// Works until `now()` passes `deadline` (milliseconds); true if work remains.
    fn pump(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(Response),
    ) -> bool;
}

/// A lab whose engine is fetched when first asked for ([`split`]).
#[derive(Default)]
enum Slot {
    /// Not asked for yet.
    #[default]
    Absent,
    /// Asked for while its tab is hidden (the page starts every lab's run at once): what the
    /// page sent it, kept until its tab first shows, when its code is fetched.
    Waiting(Vec<Request>),
    /// Its code is being fetched: what the page sent it meanwhile, in order.
    Fetching(Vec<Request>),
    Ready(Box<dyn LabHost>),
    /// Its code could not be fetched: why.
    Failed(String),
}

/// The worker's state: one host per built lab, and which lab shows.
#[derive(Default)]
pub struct Scheduler {
    signal: signal_map::SignalHost,
    /// The other labs ([`split::FETCHED`], in that order).
    fetched: [Slot; 3],
    /// The visitor's data, for a lab whose host arrives after it.
    data: Option<VisitorData>,
    /// The lab whose tab shows (`None`: the Signal map, the page's default): only it computes,
    /// the others wait where they were.
    shown: Option<LabKind>,
    /// Labs whose code must be fetched: the glue takes them ([`Scheduler::to_fetch`]).
    to_fetch: Vec<LabKind>,
    /// While secure aggregation's protocol is fetched ([`secure`]): the Signal map's requests
    /// meanwhile, in order (`None`: nothing waits for it).
    protocol_wait: Option<Vec<Request>>,
    /// The protocol must be fetched: the glue takes it ([`Scheduler::protocol_to_fetch`]).
    protocol_to_fetch: bool,
}

impl Scheduler {
    /// Answers one request: what every lab shares here, a lab's family by its host.
    pub fn handle(
        &mut self,
        request: Request,
        now: &dyn Fn() -> f64,
        emit: &mut dyn FnMut(Response),
    ) {
        match request {
            Request::Ping { nonce } => emit(Response::Pong {
                nonce,
                engine_version: whereabouts_engine::VERSION.to_string(),
            }),
            Request::Show { lab } => {
                self.shown = Some(lab);
                if lab != LabKind::Signal {
                    let i = slot(lab);
                    if let Slot::Waiting(waiting) = &mut self.fetched[i] {
                        self.fetched[i] = Slot::Fetching(std::mem::take(waiting));
                        self.to_fetch.push(lab);
                    }
                }
            }
            Request::Data { name, fixes } => {
                let data = fixes.map(|f| VisitorData {
                    name,
                    fixes: protocol::unpack(&f),
                });
                self.set_data(data);
            }
            request @ Request::Signal(_) => self.signal_request(request, now, emit),
            request @ (Request::Density(_)
            | Request::Linkability(_)
            | Request::Mobility(_)
            | Request::Later { .. }) => self.lab_request(request, split::at_once, now, emit),
            Request::Import(_) => emit(Response::Rejected {
                reason: "imports run in their own worker".into(),
            }),
        }
    }

    /// A Signal-map request: now, or, while secure aggregation's protocol is fetched (for it or
    /// for one before it), once the protocol is here ([`secure`]).
    fn signal_request(
        &mut self,
        request: Request,
        now: &dyn Fn() -> f64,
        emit: &mut dyn FnMut(Response),
    ) {
        if let Some(waiting) = &mut self.protocol_wait {
            waiting.push(request);
        } else if secure::needs(&request) && !whereabouts_engine::signal_map::secure::installed() {
            self.protocol_wait = Some(vec![request]);
            self.protocol_to_fetch = true;
        } else {
            LabHost::handle(&mut self.signal, request, now, emit);
        }
    }

    /// True once when secure aggregation's protocol must be fetched (the glue fetches it).
    pub fn protocol_to_fetch(&mut self) -> bool {
        std::mem::take(&mut self.protocol_to_fetch)
    }

    /// Secure aggregation's protocol is installed (or could not come: why): the Signal map gets
    /// what the page sent it meanwhile, in order; without the protocol, a run or study that
    /// needs it is refused by name ([`secure::refused`]), and the next one fetches it again.
    pub fn protocol_arrived(
        &mut self,
        result: Result<(), String>,
        now: &dyn Fn() -> f64,
        emit: &mut dyn FnMut(Response),
    ) {
        for request in self.protocol_wait.take().unwrap_or_default() {
            match &result {
                Err(why) if secure::needs(&request) => {
                    if let Some(refusal) = secure::refused(&request, why) {
                        emit(refusal);
                    }
                }
                _ => LabHost::handle(&mut self.signal, request, now, emit),
            }
        }
    }

    /// A request to a lab whose host `made` makes now, or which is fetched
    /// ([`split::at_once`]): the first one for a hidden lab waits until its tab shows.
    fn lab_request(
        &mut self,
        request: Request,
        made: impl FnOnce(LabKind) -> Option<Box<dyn LabHost>>,
        now: &dyn Fn() -> f64,
        emit: &mut dyn FnMut(Response),
    ) {
        let kind = match &request {
            Request::Density(_) => LabKind::Density,
            Request::Linkability(_) => LabKind::Linkability,
            Request::Mobility(_) => LabKind::Mobility,
            Request::Later { lab, .. } if *lab != LabKind::Signal => *lab,
            _ => unreachable!("only the fetched labs' families come here"),
        };
        let i = slot(kind);
        if matches!(self.fetched[i], Slot::Absent) {
            match made(kind) {
                Some(host) => self.arrived(kind, Ok(host), now, emit),
                None if self.shown == Some(kind) => {
                    self.fetched[i] = Slot::Fetching(Vec::new());
                    self.to_fetch.push(kind);
                }
                None => self.fetched[i] = Slot::Waiting(Vec::new()),
            }
        }
        match &mut self.fetched[i] {
            Slot::Ready(host) => host.handle(request, now, emit),
            Slot::Waiting(waiting) | Slot::Fetching(waiting) => waiting.push(request),
            Slot::Failed(why) => emit(Response::Fatal {
                message: why.clone(),
            }),
            Slot::Absent => unreachable!("a lab asked for is fetched or made"),
        }
    }

    /// The labs whose code the glue must now fetch ([`split::fetched`]), each once.
    pub fn to_fetch(&mut self) -> Vec<LabKind> {
        std::mem::take(&mut self.to_fetch)
    }

    /// A lab's host arrived (or could not): it gets the visitor's data and what the page sent
    /// it meanwhile, in order.
    pub fn arrived(
        &mut self,
        kind: LabKind,
        host: Result<Box<dyn LabHost>, String>,
        now: &dyn Fn() -> f64,
        emit: &mut dyn FnMut(Response),
    ) {
        let i = slot(kind);
        let waiting = match std::mem::take(&mut self.fetched[i]) {
            Slot::Fetching(waiting) => waiting,
            _ => Vec::new(),
        };
        match host {
            Ok(mut host) => {
                host.set_data(self.data.as_ref());
                for request in waiting {
                    host.handle(request, now, emit);
                }
                self.fetched[i] = Slot::Ready(host);
            }
            Err(why) => {
                emit(Response::Fatal {
                    message: why.clone(),
                });
                self.fetched[i] = Slot::Failed(why);
            }
        }
    }

    /// Gives every lab the visitor's data (`None`: forgets it).
    pub fn set_data(&mut self, data: Option<VisitorData>) {
        self.signal.set_data(data.as_ref());
        for slot in &mut self.fetched {
            if let Slot::Ready(host) = slot {
                host.set_data(data.as_ref());
            }
        }
        self.data = data;
    }

    /// The visible lab's host, if it is here.
    fn visible(&mut self) -> Option<&mut dyn LabHost> {
        match self.shown.unwrap_or(LabKind::Signal) {
            LabKind::Signal => Some(&mut self.signal),
            kind => match &mut self.fetched[slot(kind)] {
                Slot::Ready(host) => Some(host.as_mut()),
                _ => None,
            },
        }
    }

    /// True if the visible lab has something to do.
    pub fn has_work(&self) -> bool {
        match self.shown.unwrap_or(LabKind::Signal) {
            LabKind::Signal => self.signal.has_work(),
            kind => matches!(&self.fetched[slot(kind)], Slot::Ready(host) if host.has_work()),
        }
    }

    /// Works the visible lab until `now()` passes `deadline` (milliseconds); true if work
    /// remains.
    pub fn pump(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(Response),
    ) -> bool {
        self.visible()
            .is_some_and(|host| host.pump(now, deadline, emit))
    }
}

/// Where `kind`'s host is kept in [`Scheduler::fetched`].
fn slot(kind: LabKind) -> usize {
    split::FETCHED
        .iter()
        .position(|k| *k == kind)
        .expect("only the fetched labs have a slot")
}

/// Answers one request with a fresh scheduler (kept for quick checks of the boundary).
pub fn handle(request: Request, emit: &mut dyn FnMut(Response)) {
    Scheduler::default().handle(request, &js_sys::Date::now, emit);
}

/// How the site's worker fetches what its binary does not hold (src/bin/worker.rs); every
/// field `None` in a build that holds it all.
#[derive(Clone, Copy, Default)]
pub struct Chunks {
    /// The Density, Linkability and Mobility labs' engines ([`split`]).
    pub labs: Option<split::Fetch>,
    /// The simd128 DLG kernel ([`simd`]).
    pub simd: Option<simd::Load>,
    /// Secure aggregation's protocol ([`secure`]).
    pub protocol: Option<secure::Load>,
    /// The importer of the visitor's files ([`import`]).
    pub import: Option<import::Load>,
}

struct Glue {
    engine: RefCell<Scheduler>,
    /// How a lab's chunk is fetched (the split build), if the binary has one.
    fetch: Option<split::Fetch>,
    /// How secure aggregation's protocol is fetched (the split build), if the binary has one.
    protocol: Option<secure::Load>,
    /// How the importer's chunk is fetched (the split build), if the binary has one.
    import: Option<import::Load>,
    /// How the simd128 DLG kernel's chunk is fetched (the split build), until the first
    /// Signal-map request takes it (an import worker never gets one, and never fetches it).
    simd: std::cell::Cell<Option<simd::Load>>,
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

    /// Fetches the code of each lab the scheduler asked for, and hands it its host when it is
    /// here ([`split`]), and secure aggregation's protocol if it asked for it ([`secure`]);
    /// nothing to do in a build that has every lab and the protocol.
    fn fetch(self: &Rc<Self>) {
        if self.engine.borrow_mut().protocol_to_fetch() {
            let glue = self.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let result = match glue.protocol {
                    Some(load) => load().await,
                    None => Err("this worker has no way to fetch it".into()),
                }
                .map(|protocol| whereabouts_engine::signal_map::secure::install(Some(protocol)));
                let now = || glue.now();
                glue.engine
                    .borrow_mut()
                    .protocol_arrived(result, &now, &mut |r| post(&glue.scope, &r));
                glue.schedule();
            });
        }
        for kind in self.engine.borrow_mut().to_fetch() {
            let glue = self.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let host = match glue.fetch {
                    Some(fetch) => fetch(kind).await,
                    None => Err(format!(
                        "this worker has no way to fetch the {} lab's engine",
                        kind.title()
                    )),
                };
                let now = || glue.now();
                glue.engine
                    .borrow_mut()
                    .arrived(kind, host, &now, &mut |r| post(&glue.scope, &r));
                glue.schedule();
            });
        }
    }

    /// The importer, at once or once its chunk has come.
    async fn importer(&self) -> Result<import::Run, String> {
        match (import::at_once(), self.import) {
            (Some(run), _) => Ok(run),
            (None, Some(load)) => load().await,
            (None, None) => Err("this worker has no way to fetch it".into()),
        }
    }

    /// Has the importer ready ([`ImportRequest::Prepare`]) and says so; if its chunk cannot
    /// come, says nothing (the page's next file asks again, and its failure says why).
    fn prepare_import(self: &Rc<Self>) {
        let glue = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            match glue.importer().await {
                Ok(_) => post(
                    &glue.scope,
                    &Response::Import(protocol::ImportResponse::Prepared),
                ),
                Err(why) => web_sys::console::warn_1(
                    &format!("whereabouts: the importer is not ready: {why}").into(),
                ),
            }
        });
    }

    /// Imports `file`: at once where the importer is in the binary, else once its chunk has come
    /// (the first import fetches it; a failed fetch fails this import, and the next asks again).
    fn import(self: &Rc<Self>, file: web_sys::File, settings: ImportSettings) {
        if let Some(run) = import::at_once() {
            let now = || self.now();
            run(&file, &settings, &now, &mut |r| post(&self.scope, &r));
            return;
        }
        let glue = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            match glue.importer().await {
                Ok(run) => {
                    // The importer is here now (a `Prepare` before may have failed): the page
                    // learns this worker can import offline too.
                    post(
                        &glue.scope,
                        &Response::Import(protocol::ImportResponse::Prepared),
                    );
                    let now = || glue.now();
                    run(&file, &settings, &now, &mut |r| post(&glue.scope, &r));
                }
                Err(why) => post(&glue.scope, &import::unloaded(&file, &why)),
            }
        });
    }
}

/// Starts the worker: installs the panic reporter and the message listener, then says ready.
/// `chunks` fetches what was split off the binary ([`Chunks`]).
pub fn start(chunks: Chunks) {
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
        engine: RefCell::new(Scheduler::default()),
        fetch: chunks.labs,
        protocol: chunks.protocol,
        import: chunks.import,
        simd: std::cell::Cell::new(chunks.simd),
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
            })) => msg_glue.import(file, settings),
            Ok(Request::Import(ImportRequest::Prepare)) => msg_glue.prepare_import(),
            Ok(request) => {
                if let (Request::Signal(_), Some(load)) = (&request, msg_glue.simd.get()) {
                    msg_glue.simd.set(None);
                    simd::load(load, msg_glue.scope.clone());
                }
                let now = || msg_glue.now();
                msg_glue
                    .engine
                    .borrow_mut()
                    .handle(request, &now, &mut emit)
            }
            Err(reason) => emit(Response::Rejected { reason }),
        }
        msg_glue.fetch();
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

pub(crate) fn post(scope: &DedicatedWorkerGlobalScope, response: &Response) {
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
    use crate::protocol::{RunRequest, SignalRequest, SignalResponse, StudyReply};
    use whereabouts_core::geo::Metres;
    use whereabouts_engine::signal_map::lab::LabEvent;
    use whereabouts_engine::signal_map::scenario::{ScenarioConfig, WorldChoice};
    use whereabouts_engine::signal_map::studies::{self, Study, StudyPoint};
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

    fn pump_all(engine: &mut Scheduler) -> Vec<Response> {
        let mut out = Vec::new();
        while engine.pump(&|| 0.0, f64::INFINITY, &mut |r| out.push(r)) {}
        out
    }

    #[test]
    fn a_lab_on_imported_data_needs_the_data_and_draws_the_trace() {
        use whereabouts_core::import::Fix;
        let start = || {
            Request::Signal(SignalRequest::Start {
                generation: 1,
                config: Box::new(config()),
                want: 1,
                use_data: true,
            })
        };
        let mut engine = Scheduler::default();
        let mut out = Vec::new();
        engine.handle(start(), &|| 0.0, &mut |r| out.push(r));
        assert!(
            matches!(&out[0], Response::Signal(SignalResponse::Error { message, .. }) if message.contains("no imported data"))
        );
        engine.set_data(Some(VisitorData {
            name: "walk.csv".into(),
            fixes: (0..50)
                .map(|i| Fix {
                    time: 1_700_000_000.0 + i as f64 * 60.0,
                    lat: 47.37 + i as f64 * 1e-4,
                    lon: 8.54,
                    rsrp_dbm: None,
                    line: i + 2,
                })
                .collect(),
        }));
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

    /// Secure aggregation's protocol fetched (the split build, played here by taking this
    /// thread's protocol away): a run with it on waits, the Signal map's requests after it wait
    /// behind it in order, and the rest of the worker does not; once the protocol is here they
    /// run as they would have. A run without it never waits.
    #[test]
    fn a_run_with_secure_aggregation_waits_for_its_protocol_and_keeps_order() {
        use whereabouts_engine::signal_map::secure::{self, SecureAggregation};
        let secure_run = |generation| {
            Request::Signal(SignalRequest::Start {
                generation,
                config: Box::new(ScenarioConfig {
                    secure_aggregation: Some(SecureAggregation::default()),
                    ..config()
                }),
                want: 1,
                use_data: false,
            })
        };
        secure::install(None);
        let mut engine = Scheduler::default();
        let mut out = Vec::new();
        // Without it on, at once.
        let plain = Request::Signal(SignalRequest::Start {
            generation: 1,
            config: Box::new(config()),
            want: 1,
            use_data: false,
        });
        engine.handle(plain, &|| 0.0, &mut |r| out.push(r));
        assert!(matches!(
            out[..],
            [Response::Signal(SignalResponse::Started {
                generation: 1,
                ..
            })]
        ));
        assert!(!engine.protocol_to_fetch());
        // With it: nothing yet, one fetch asked for, and what follows waits behind it.
        out.clear();
        engine.handle(secure_run(2), &|| 0.0, &mut |r| out.push(r));
        let want = Request::Signal(SignalRequest::Want {
            generation: 2,
            rounds: 1,
        });
        engine.handle(want, &|| 0.0, &mut |r| out.push(r));
        engine.handle(Request::Ping { nonce: 7 }, &|| 0.0, &mut |r| out.push(r));
        assert!(
            matches!(out[..], [Response::Pong { nonce: 7, .. }]),
            "only the Signal map waits: {out:?}"
        );
        assert!(engine.protocol_to_fetch());
        assert!(!engine.protocol_to_fetch(), "asked for once");
        // It comes: the run starts, then its rounds run with the protocol.
        secure::install(Some(whereabouts_core::secagg::run));
        out.clear();
        engine.protocol_arrived(Ok(()), &|| 0.0, &mut |r| out.push(r));
        assert!(matches!(
            out[..],
            [Response::Signal(SignalResponse::Started {
                generation: 2,
                ..
            })]
        ));
        let out = pump_all(&mut engine);
        assert!(
            out.iter().any(|r| matches!(
                r,
                Response::Signal(SignalResponse::Event {
                    generation: 2,
                    event: LabEvent::Attacked(record),
                }) if record.secure.is_some()
            )),
            "a round attacked through the protocol: {out:?}"
        );
    }

    /// A protocol that does not come: the run and the study that needed it are refused by name
    /// (what was on screen stays), the Signal map's other requests go on, and the next run that
    /// needs it asks again.
    #[test]
    fn a_protocol_that_does_not_come_refuses_what_needed_it_and_is_asked_for_again() {
        use whereabouts_engine::signal_map::secure::{self, SecureAggregation};
        let secure = || {
            Box::new(ScenarioConfig {
                secure_aggregation: Some(SecureAggregation::default()),
                ..config()
            })
        };
        secure::install(None);
        let mut engine = Scheduler::default();
        let mut out = Vec::new();
        let start = Request::Signal(SignalRequest::Start {
            generation: 4,
            config: secure(),
            want: 1,
            use_data: false,
        });
        engine.handle(start.clone(), &|| 0.0, &mut |r| out.push(r));
        let study = Request::Signal(SignalRequest::StudyStart {
            id: 9,
            config: secure(),
            use_data: false,
            kind: Study::Defences,
        });
        engine.handle(study, &|| 0.0, &mut |r| out.push(r));
        let plain = Request::Signal(SignalRequest::Start {
            generation: 5,
            config: Box::new(config()),
            want: 1,
            use_data: false,
        });
        engine.handle(plain, &|| 0.0, &mut |r| out.push(r));
        assert!(out.is_empty());
        assert!(engine.protocol_to_fetch());
        engine.protocol_arrived(Err("offline".into()), &|| 0.0, &mut |r| out.push(r));
        match &out[..] {
            [
                Response::Signal(SignalResponse::Error {
                    generation: 4,
                    message,
                }),
                Response::Signal(SignalResponse::StudyError { id: 9, message: m }),
                Response::Signal(SignalResponse::Started { generation: 5, .. }),
            ] => {
                assert!(
                    message.starts_with(
                        "secure aggregation's code could not be loaded (offline); reload the page"
                    ),
                    "{message}"
                );
                assert_eq!(m, message);
            }
            other => panic!("{other:?}"),
        }
        out.clear();
        engine.handle(start, &|| 0.0, &mut |r| out.push(r));
        assert!(out.is_empty());
        assert!(engine.protocol_to_fetch(), "asked for again");
        secure::install(Some(whereabouts_core::secagg::run));
    }

    #[test]
    fn a_lab_starts_runs_and_takes_edits() {
        let mut engine = Scheduler::default();
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
        // The run's figures, then the references measured in the slices after them.
        let idle = out
            .iter()
            .position(|r| {
                matches!(
                    r,
                    Response::Signal(SignalResponse::Idle { generation: 3, .. })
                )
            })
            .expect("the run goes idle");
        assert!(matches!(
            &out[idle + 1..],
            [Response::Signal(SignalResponse::References { generation: 3, references })]
                if references.mean_rmse_db > 0.0
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
        // The edit changed the data: the Idle after it carries no references, new ones follow.
        let out = pump_all(&mut engine);
        assert!(out.iter().any(|r| matches!(
            r,
            Response::Signal(SignalResponse::Idle { summary, .. }) if summary.references.is_none()
        )));
        assert!(matches!(
            out.last(),
            Some(Response::Signal(SignalResponse::References { .. }))
        ));
        assert!(!engine.has_work());
    }

    #[test]
    fn a_defended_lab_is_compared_with_the_same_run_without_its_defence() {
        use whereabouts_engine::signal_map::defence::Defence;
        let defended = ScenarioConfig {
            defence: Defence::DiverseBatch {
                eps_km: 0.05,
                min_samples: 5,
            },
            ..config()
        };
        let mut engine = Scheduler::default();
        let start = Request::Signal(SignalRequest::Start {
            generation: 1,
            config: Box::new(defended),
            want: 1,
            use_data: false,
        });
        engine.handle(start, &|| 0.0, &mut |_| {});
        let comparisons = |out: &[Response]| -> Vec<(usize, usize)> {
            out.iter()
                .filter_map(|r| match r {
                    Response::Signal(SignalResponse::Undefended { comparison, .. }) => {
                        Some((comparison.defended.rounds, comparison.undefended.rounds))
                    }
                    _ => None,
                })
                .collect()
        };
        // After the run's figures and its references: the same rounds, run without the defence.
        let out = pump_all(&mut engine);
        assert!(matches!(
            out.last(),
            Some(Response::Signal(SignalResponse::Undefended {
                generation: 1,
                ..
            }))
        ));
        assert_eq!(comparisons(&out), vec![(1, 1)]);
        assert!(!engine.has_work());
        // One more round wanted: the comparison follows it.
        let want = Request::Signal(SignalRequest::Want {
            generation: 1,
            rounds: 2,
        });
        engine.handle(want, &|| 0.0, &mut |_| {});
        assert_eq!(comparisons(&pump_all(&mut engine)), vec![(2, 2)]);
        assert!(!engine.has_work());
    }

    /// Starts study `study` on `config`, pumps it to the end; the responses and the points.
    fn run_study(
        engine: &mut Scheduler,
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
        let mut engine = Scheduler::default();
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
                lab: LabKind::Density,
            },
            &|| 0.0,
            &mut |r| out.push(r),
        );
        assert!(!engine.has_work(), "a hidden lab waits");
        assert!(pump_all(&mut engine).is_empty());
        engine.handle(
            Request::Show {
                lab: LabKind::Signal,
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
        let mut engine = Scheduler::default();
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
        let mut engine = Scheduler::default();
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
        // Each point carries both attacks (the page compares defences with both).
        assert!(
            points.iter().all(|p| p.analytic_error_m.is_some()),
            "{points:?}"
        );

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
    fn a_hosted_study_runs_behind_the_run_reports_each_point_and_can_be_cancelled() {
        use crate::protocol::{DensityRequest, DensityResponse};
        use whereabouts_engine::density::DensityConfig;
        let mut engine = Scheduler::default();
        let show = Request::Show {
            lab: LabKind::Density,
        };
        engine.handle(show, &|| 0.0, &mut |_| {});
        let config = DensityConfig {
            population: 200,
            grid_side: 16,
            attacked: 3,
            ..DensityConfig::default()
        };
        let study = |id, use_data| {
            Request::Density(DensityRequest::Run(RunRequest::StudyStart {
                id,
                config: Box::new(config.clone()),
                use_data,
            }))
        };
        let replies = |out: Vec<Response>| -> Vec<StudyReply<_>> {
            out.into_iter()
                .filter_map(|r| match r {
                    Response::Density(DensityResponse::Study(reply)) => Some(reply),
                    _ => None,
                })
                .collect()
        };
        // On a file the worker does not hold: refused, nothing to do.
        let mut out = Vec::new();
        engine.handle(study(1, true), &|| 0.0, &mut |r| out.push(r));
        assert!(
            matches!(&replies(out)[..], [StudyReply::Error { id: 1, message }] if message.contains("no imported data"))
        );
        assert!(!engine.has_work());
        // Started, then cancelled before its first run: it says so and stops.
        let mut out = Vec::new();
        engine.handle(study(2, false), &|| 0.0, &mut |r| out.push(r));
        let total = match &replies(out)[..] {
            [
                StudyReply::Progress {
                    id: 2,
                    done: 0,
                    total,
                    point: None,
                },
            ] => *total,
            other => panic!("{other:?}"),
        };
        assert!(total > 1);
        let cancel = Request::Density(DensityRequest::Run(RunRequest::StudyCancel { id: 2 }));
        let mut out = Vec::new();
        engine.handle(cancel, &|| 0.0, &mut |r| out.push(r));
        assert!(matches!(
            &replies(out)[..],
            [StudyReply::Done {
                id: 2,
                cancelled: true
            }]
        ));
        assert!(!engine.has_work());
        // Run to its end: one point a run, then done.
        engine.handle(study(3, false), &|| 0.0, &mut |_| {});
        let replies = replies(pump_all(&mut engine));
        let points = replies
            .iter()
            .filter(|r| matches!(r, StudyReply::Progress { point: Some(_), .. }))
            .count();
        assert_eq!(points, total);
        assert!(matches!(
            replies.last(),
            Some(StudyReply::Done {
                id: 3,
                cancelled: false
            })
        ));
    }

    #[test]
    fn a_density_drag_answers_at_once_and_its_figures_wait_until_the_places_settle() {
        use crate::protocol::{DensityRequest, DensityResponse};
        use whereabouts_engine::density::DensityConfig;
        use whereabouts_engine::density::lab::DensityEvent;
        let mut engine = Scheduler::default();
        let show = Request::Show {
            lab: LabKind::Density,
        };
        engine.handle(show, &|| 0.0, &mut |_| {});
        let config = DensityConfig {
            population: 300,
            grid_side: 32,
            attacked: 5,
            ..DensityConfig::default()
        };
        let mut places = config.visitor.clone();
        let start = Request::Density(DensityRequest::Run(RunRequest::Start {
            generation: 1,
            config: Box::new(config),
            use_data: false,
            start: (),
        }));
        engine.handle(start, &|| 0.0, &mut |_| {});
        let idle = |out: &[Response]| {
            out.iter()
                .any(|r| matches!(r, Response::Density(DensityResponse::Idle { .. })))
        };
        assert!(idle(&pump_all(&mut engine)));
        let drag = |engine: &mut Scheduler, edit: u32, places: &[Metres]| {
            let mut out = Vec::new();
            let request = Request::Density(DensityRequest::Places {
                generation: 1,
                edit,
                places: places.to_vec(),
            });
            engine.handle(request, &|| 0.0, &mut |r| out.push(r));
            let events: Vec<DensityEvent> = out
                .iter()
                .filter_map(|r| match r {
                    Response::Density(DensityResponse::Event { event, .. }) => Some(event.clone()),
                    _ => None,
                })
                .collect();
            assert!(matches!(
                out.last(),
                Some(Response::Density(DensityResponse::Edited { edit: e, .. })) if *e == edit
            ));
            events
        };

        // The first place moves: the densities and both answers, then no figures mid-drag.
        places[0] = Metres::new(-1000.0, -800.0);
        let events = drag(&mut engine, 1, &places);
        assert!(matches!(events[0], DensityEvent::Density { .. }));
        assert_eq!(events.len(), 3, "{events:?}");
        assert!(!engine.has_work(), "the figures wait");
        // The second moves: its answers only, the densities are as they were.
        places[1] = Metres::new(800.0, 600.0);
        let events = drag(&mut engine, 2, &places);
        assert!(
            events.iter().all(|e| matches!(e, DensityEvent::Visitor(_))),
            "{events:?}"
        );
        // Settled: the figures come once, then nothing more.
        let settled = Request::Density(DensityRequest::Settled { generation: 1 });
        engine.handle(settled.clone(), &|| 0.0, &mut |_| {});
        assert!(idle(&pump_all(&mut engine)));
        engine.handle(settled, &|| 0.0, &mut |_| {});
        assert!(!engine.has_work(), "nothing is stale");
    }

    /// The split build's path (src/worker/split.rs), with no host made at once as there: a
    /// hidden lab keeps what the page sends it and is fetched only when its tab shows; when the
    /// host arrives it gets the visitor's data first and then every request, in order.
    #[test]
    fn a_lab_fetched_when_it_shows_answers_what_was_sent_meanwhile_on_the_visitors_data() {
        use crate::protocol::LinkResponse;
        use whereabouts_core::import::Fix;
        use whereabouts_engine::linkability::attack::Identifier;
        use whereabouts_engine::linkability::config::LinkConfig;
        let start = |generation| {
            Request::Linkability(RunRequest::Start {
                generation,
                config: Box::new(LinkConfig {
                    people: 6,
                    rounds: 4,
                    attack: Identifier::Knn,
                    ..LinkConfig::default()
                }),
                use_data: true,
                start: (),
            })
        };
        let mut engine = Scheduler::default();
        let mut out = Vec::new();
        let none = |_| None;
        engine.lab_request(start(1), none, &|| 0.0, &mut |r| out.push(r));
        assert!(engine.to_fetch().is_empty(), "hidden: not fetched yet");
        engine.set_data(Some(VisitorData {
            name: "walk.csv".into(),
            fixes: (0..400)
                .map(|i| Fix {
                    time: 1_700_000_000.0 + i as f64 * 600.0,
                    lat: 47.37 + (i % 40) as f64 * 1e-3,
                    lon: 8.54 + (i % 7) as f64 * 1e-3,
                    rsrp_dbm: None,
                    line: i + 2,
                })
                .collect(),
        }));
        engine.lab_request(start(2), none, &|| 0.0, &mut |r| out.push(r));
        let show = Request::Show {
            lab: LabKind::Linkability,
        };
        engine.handle(show, &|| 0.0, &mut |r| out.push(r));
        assert_eq!(
            engine.to_fetch(),
            [LabKind::Linkability],
            "fetched when it shows"
        );
        assert!(engine.to_fetch().is_empty(), "once");
        assert!(
            out.is_empty(),
            "nothing answers before the code is here: {out:?}"
        );
        assert!(!engine.has_work() && !engine.pump(&|| 0.0, f64::INFINITY, &mut |_| {}));

        let host = split::at_once(LabKind::Linkability).expect("a native build has every lab");
        engine.arrived(LabKind::Linkability, Ok(host), &|| 0.0, &mut |r| {
            out.push(r)
        });
        let generations: Vec<u32> = out
            .iter()
            .filter_map(|r| match r {
                Response::Linkability(LinkResponse::Started { generation, .. }) => {
                    Some(*generation)
                }
                Response::Linkability(LinkResponse::Error {
                    generation,
                    message,
                }) => panic!("run {generation} failed: {message}"),
                _ => None,
            })
            .collect();
        assert_eq!(generations, [1, 2], "both starts, in order, on the data");
        assert!(engine.has_work(), "the lab shows and now runs");
    }

    /// A chunk that cannot be fetched (offline before the lab was ever opened) is said, as a
    /// fatal error naming the lab, once when it fails and again to each later request.
    #[test]
    fn a_lab_whose_code_cannot_be_fetched_says_so() {
        let mut engine = Scheduler::default();
        engine.fetched[slot(LabKind::Mobility)] = Slot::Fetching(Vec::new());
        let mut out = Vec::new();
        let why = "the Mobility lab's engine could not be loaded".to_string();
        engine.arrived(LabKind::Mobility, Err(why.clone()), &|| 0.0, &mut |r| {
            out.push(r)
        });
        let play = Request::Mobility(crate::protocol::MobRequest::Play {
            generation: 1,
            want: 3,
        });
        engine.handle(play, &|| 0.0, &mut |r| out.push(r));
        assert_eq!(
            out,
            [
                Response::Fatal {
                    message: why.clone()
                },
                Response::Fatal { message: why }
            ]
        );
        assert!(
            engine.to_fetch().is_empty(),
            "a failed lab is not fetched again"
        );
    }

    #[test]
    fn the_linkability_lab_runs_when_shown_and_needs_a_file_to_use_one() {
        use crate::protocol::LinkResponse;
        use whereabouts_engine::linkability::attack::Identifier;
        use whereabouts_engine::linkability::config::LinkConfig;
        let config = LinkConfig {
            people: 6,
            rounds: 4,
            attack: Identifier::Knn,
            ..LinkConfig::default()
        };
        let start = |use_data| {
            Request::Linkability(RunRequest::Start {
                generation: 2,
                config: Box::new(config.clone()),
                use_data,
                start: (),
            })
        };
        let mut engine = Scheduler::default();
        let mut out = Vec::new();
        engine.handle(start(true), &|| 0.0, &mut |r| out.push(r));
        assert!(
            matches!(&out[0], Response::Linkability(LinkResponse::Error { message, .. }) if message.contains("no imported data")),
            "{out:?}"
        );
        engine.handle(start(false), &|| 0.0, &mut |_| {});
        assert!(!engine.has_work(), "the Signal map shows: the lab waits");
        let show = Request::Show {
            lab: LabKind::Linkability,
        };
        engine.handle(show, &|| 0.0, &mut |_| {});
        let out = pump_all(&mut engine);
        let summary = out
            .iter()
            .find_map(|r| match r {
                Response::Linkability(LinkResponse::Idle {
                    generation: 2,
                    summary,
                }) => Some(summary.clone()),
                _ => None,
            })
            .expect("the run ends with its figures");
        assert_eq!(summary.rounds_done, 4);
        assert_eq!(summary.ranking.len(), 6, "every new device ranked");
        assert!(summary.your_rank.is_some() && summary.identification.is_some());
        assert!(!engine.has_work());
    }

    #[test]
    fn the_mobility_lab_plays_to_the_round_wanted_and_sends_each_rounds_trail() {
        use crate::protocol::{MobRequest, MobResponse};
        use whereabouts_engine::mobility::config::MobConfig;
        let mut config = MobConfig {
            rounds: 4,
            held_out: 2,
            ..MobConfig::default()
        };
        config.attack.iterations = 12;
        let mut engine = Scheduler::default();
        let show = Request::Show {
            lab: LabKind::Mobility,
        };
        engine.handle(show, &|| 0.0, &mut |_| {});
        let mut out = Vec::new();
        let start = Request::Mobility(MobRequest::Run(RunRequest::Start {
            generation: 5,
            config: Box::new(config),
            use_data: false,
            start: 2,
        }));
        engine.handle(start, &|| 0.0, &mut |r| out.push(r));
        assert!(matches!(
            &out[0],
            Response::Mobility(MobResponse::Started { rounds: 4, target, .. }) if target.len() >= 4 + 9
        ));
        let rounds = |out: &[Response]| -> Vec<(usize, usize)> {
            out.iter()
                .filter_map(|r| match r {
                    Response::Mobility(MobResponse::Round { record, trail, .. }) => {
                        Some((record.round, trail.len()))
                    }
                    _ => None,
                })
                .collect()
        };
        let out = pump_all(&mut engine);
        assert_eq!(
            rounds(&out),
            vec![(0, 12 * 18), (1, 12 * 18)],
            "two rounds, each with its 12 iterates of 9 points"
        );
        assert!(matches!(
            out.last(),
            Some(Response::Mobility(MobResponse::Idle { summary, .. })) if summary.rounds_done == 2
        ));
        assert!(!engine.has_work(), "paused at the round wanted");
        let play = Request::Mobility(MobRequest::Play {
            generation: 5,
            want: 4,
        });
        engine.handle(play, &|| 0.0, &mut |_| {});
        let out = pump_all(&mut engine);
        assert_eq!(rounds(&out).len(), 2);
        match out.last() {
            Some(Response::Mobility(MobResponse::Idle { summary, .. })) => {
                assert_eq!(summary.rounds_done, 4);
                assert!(summary.utility_error_m.is_some(), "the end has the utility");
            }
            other => panic!("{other:?}"),
        }
        // A file target needs a file.
        let mut out = Vec::new();
        let start = Request::Mobility(MobRequest::Run(RunRequest::Start {
            generation: 6,
            config: Box::new(MobConfig::default()),
            use_data: true,
            start: 1,
        }));
        engine.handle(start, &|| 0.0, &mut |r| out.push(r));
        assert!(
            matches!(&out[0], Response::Mobility(MobResponse::Error { message, .. }) if message.contains("no imported data")),
            "{out:?}"
        );
    }

    #[test]
    fn a_bad_config_is_an_error_not_a_panic() {
        let mut engine = Scheduler::default();
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
