//! The engine worker: receives [`Request`]s, runs engine code, posts [`Response`]s.
//!
//! The message handler ([`handle`]) is a plain function so it is tested without a worker; the
//! glue in [`start`] only moves messages across the boundary.

use crate::protocol::{self, Request, Response};
use wasm_bindgen::{JsCast, JsValue, closure::Closure};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// Answers one request. Long-running requests will answer with several responses (progress,
/// then a result), hence the `emit` callback.
pub fn handle(request: Request, emit: &mut dyn FnMut(Response)) {
    match request {
        Request::Ping { nonce } => emit(Response::Pong {
            nonce,
            engine_version: whereabouts_engine::VERSION.to_string(),
        }),
    }
}

/// Starts the worker: installs the panic reporter and the message listener, then says ready.
pub fn start() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    install_panic_reporter(scope.clone());

    let post_scope = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let mut emit = |response: Response| post(&post_scope, &response);
        match protocol::decode::<Request>(event.data()) {
            Ok(request) => handle(request, &mut emit),
            Err(reason) => emit(Response::Rejected { reason }),
        }
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
    match protocol::encode(response) {
        Ok(value) => {
            if let Err(e) = scope.post_message(&value) {
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
