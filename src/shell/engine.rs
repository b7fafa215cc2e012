//! The page's one engine worker, shared by every lab: spawned once by the shell, told which
//! lab shows, and its responses handed to whoever listens for them (each lab takes its own
//! family; the shell keeps the rest: Ready, Pong, Rejected, Fatal).

use crate::bridge::{EngineBridge, WORKER_URL};
use crate::protocol::{Request, Response};
use leptos::prelude::*;
use std::rc::Rc;

/// What the page knows about its engine worker.
#[derive(Clone, Debug, PartialEq)]
pub enum EngineStatus {
    Starting,
    Ready { version: String, round_trip_ms: f64 },
    Failed(String),
}

impl EngineStatus {
    pub fn describe(&self) -> String {
        match self {
            EngineStatus::Starting => "Starting the engine…".into(),
            EngineStatus::Ready {
                version,
                round_trip_ms,
            } => format!(
                "Engine {version} running in a Web Worker (started and answered in {round_trip_ms:.0} ms)"
            ),
            EngineStatus::Failed(why) => format!("The engine is not running: {why}"),
        }
    }
}

/// A listener takes the responses it handles and hands back the rest.
type Listener = Rc<dyn Fn(Response) -> Option<Response>>;

/// A handle on the engine worker (`Copy`, for every lab's state).
#[derive(Clone, Copy)]
pub struct Engine {
    bridge: StoredValue<Option<EngineBridge>, LocalStorage>,
    listeners: StoredValue<Vec<Listener>, LocalStorage>,
    /// Later labs' messages no listener has taken yet ([`Response::Later`]): a lab listens
    /// once its views are here (src/shell/lab_views.rs).
    held: StoredValue<Vec<Response>, LocalStorage>,
    pub status: RwSignal<EngineStatus>,
    /// The DLG kernel the worker said its attacks run on ([`Response::Kernel`]), if it said.
    pub kernel: RwSignal<Option<String>>,
}

impl Engine {
    /// Spawns the worker and pings it (the status line shows the round trip).
    pub fn spawn() -> Self {
        let engine = Engine {
            bridge: StoredValue::new_local(None),
            listeners: StoredValue::new_local(Vec::new()),
            held: StoredValue::new_local(Vec::new()),
            status: RwSignal::new(EngineStatus::Starting),
            kernel: RwSignal::new(None),
        };
        let sent_at = js_sys::Date::now();
        match EngineBridge::spawn(WORKER_URL, move |r| engine.dispatch(r, sent_at)) {
            Ok(bridge) => {
                if let Err(e) = bridge.send(&Request::Ping { nonce: 1 }) {
                    engine.status.set(EngineStatus::Failed(e));
                }
                engine.bridge.set_value(Some(bridge));
            }
            Err(e) => engine.status.set(EngineStatus::Failed(e)),
        }
        engine
    }

    /// Sends a request (queued until the worker is ready); a failure is the returned message.
    pub fn send(&self, request: &Request) -> Result<(), String> {
        self.bridge.with_value(|b| match b {
            Some(b) => b.send(request),
            None => Err("the engine is not running".into()),
        })
    }

    /// `listener` sees every response before the shell; it returns the ones it does not take.
    /// It first sees the later labs' messages that came before anyone took them, in order.
    pub fn listen(&self, listener: impl Fn(Response) -> Option<Response> + 'static) {
        let held = self
            .held
            .try_update_value(std::mem::take)
            .unwrap_or_default();
        let kept: Vec<Response> = held.into_iter().filter_map(&listener).collect();
        self.held
            .update_value(|h| h.splice(0..0, kept).for_each(drop));
        self.listeners.update_value(|l| l.push(Rc::new(listener)));
    }

    /// Stops the page as a dead engine does: `message` in the banner and the status line.
    pub fn fail(&self, message: String) {
        crate::fatal::show_fatal(&format!("The engine stopped: {message}"));
        self.status.set(EngineStatus::Failed(message));
    }

    fn dispatch(&self, response: Response, ping_sent_at: f64) {
        let listeners = self.listeners.get_value();
        let mut rest = Some(response);
        for listener in listeners {
            match rest {
                Some(r) => rest = listener(r),
                None => return,
            }
        }
        match rest {
            Some(Response::Pong { engine_version, .. }) => self.status.set(EngineStatus::Ready {
                version: engine_version,
                round_trip_ms: js_sys::Date::now() - ping_sent_at,
            }),
            Some(Response::Kernel { name }) => self.kernel.set(Some(name)),
            Some(Response::Rejected { reason }) => {
                web_sys::console::warn_1(&format!("engine rejected a request: {reason}").into())
            }
            Some(Response::Fatal { message }) => self.fail(message),
            // A later lab's message before that lab listens: kept for it.
            Some(later @ Response::Later { .. }) => self.held.update_value(|h| h.push(later)),
            _ => {}
        }
    }
}
