//! The page's side of the engine worker: spawns it, queues requests until it is ready, and
//! hands every response to one callback.

use crate::protocol::{self, Request, Response};
use std::{cell::RefCell, rc::Rc};
use wasm_bindgen::{JsCast, JsValue, closure::Closure};
use web_sys::{ErrorEvent, MessageEvent, Worker, WorkerOptions, WorkerType};

/// The worker's loader, as tools/build.mjs writes it (a module that loads `worker.js` and
/// `worker_bg.wasm`). Relative, so the site works from any sub-path; resolved against the page's
/// `<base>`.
pub const WORKER_URL: &str = "./worker_loader.js";

/// A running engine worker.
#[derive(Clone)]
pub struct EngineBridge {
    worker: Worker,
    state: Rc<State>,
}

struct State {
    /// Requests sent before the worker said [`Response::Ready`]; `None` once it has.
    queue: RefCell<Option<Vec<JsValue>>>,
    closures: RefCell<Vec<Box<dyn std::any::Any>>>,
}

impl EngineBridge {
    /// Spawns the worker. `on_response` sees every response, [`Response::Ready`] included. A
    /// worker that fails to load is reported as a [`Response::Fatal`].
    pub fn spawn(url: &str, on_response: impl Fn(Response) + 'static) -> Result<Self, String> {
        // A module worker: the worker's loader imports its glue, and its lazily fetched labs
        // import it too (src/worker/split.rs).
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options(url, &options)
            .map_err(|e| format!("could not start the engine worker: {e:?}"))?;
        let state = Rc::new(State {
            queue: RefCell::new(Some(Vec::new())),
            closures: RefCell::new(Vec::new()),
        });
        let on_response = Rc::new(on_response);

        let (msg_state, msg_worker, msg_cb) = (state.clone(), worker.clone(), on_response.clone());
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let response = match protocol::decode_response(event.data()) {
                Ok(response) => response,
                Err(reason) => Response::Fatal {
                    message: format!("the engine sent a message the page cannot read: {reason}"),
                },
            };
            if matches!(response, Response::Ready { .. }) {
                let queued = msg_state.queue.borrow_mut().take().unwrap_or_default();
                for message in queued {
                    post(&msg_worker, &message);
                }
            }
            msg_cb(response);
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));

        let err_cb = on_response.clone();
        // An error inside the worker is an ErrorEvent; a worker whose script could not be
        // fetched (offline, say) gets a plain Event, with nothing to read from it.
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
            let message = match event.dyn_ref::<ErrorEvent>() {
                Some(e) => format!(
                    "the engine worker failed: {} ({}:{})",
                    e.message(),
                    e.filename(),
                    e.lineno()
                ),
                None => "the engine worker could not be loaded (is the page offline?)".into(),
            };
            err_cb(Response::Fatal { message });
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));

        state.closures.borrow_mut().push(Box::new(on_message));
        state.closures.borrow_mut().push(Box::new(on_error));
        Ok(Self { worker, state })
    }

    /// Sends a request now, or as soon as the worker is ready.
    pub fn send(&self, request: &Request) -> Result<(), String> {
        let message = protocol::encode_request(request)?;
        match self.state.queue.borrow_mut().as_mut() {
            Some(queue) => queue.push(message),
            None => post(&self.worker, &message),
        }
        Ok(())
    }

    /// Stops the worker at once (an import's cancel button); its closures go with it.
    pub fn terminate(&self) {
        self.worker.terminate();
        self.state.queue.borrow_mut().take();
    }
}

fn post(worker: &Worker, message: &JsValue) {
    // A packed trace is handed over, not copied (the page keeps no copy of the fixes).
    let result = match protocol::transferables(message) {
        Some(transfer) => worker.post_message_with_transfer(message, &transfer),
        None => worker.post_message(message),
    };
    if let Err(e) = result {
        web_sys::console::error_2(&JsValue::from_str("postMessage to the engine failed"), &e);
    }
}
