//! Where secure aggregation's protocol comes from (the engine's
//! [`whereabouts_engine::signal_map::secure::Protocol`]).
//!
//! In the site's build (`--features split`) the protocol and its cryptography are a split point
//! of the worker's binary (src/bin/worker.rs): wasm-split moves them into a chunk of their own,
//! which the worker fetches the first time a Signal-map request needs them (a run or a study
//! with secure aggregation on), holding the Signal map's requests meanwhile, in order
//! ([`super::Scheduler`]). A first visit, whose run has no secure aggregation, does not
//! download it (issue 41 §1; BENCHMARKS.md "Download size"). In every other build the engine
//! has the protocol linked in and nothing waits.

use crate::protocol::{Request, Response, SignalRequest, SignalResponse};
use std::{future::Future, pin::Pin};
use whereabouts_engine::signal_map::secure::Protocol;

/// How the worker fetches the protocol's chunk: the split build's worker binary gives one to
/// [`super::start`].
pub type Load = fn() -> Loading;

/// The protocol on its way, or why it could not come.
pub type Loading = Pin<Box<dyn Future<Output = Result<Protocol, String>>>>;

/// True if `request` runs secure aggregation: a run or a study whose config has it on.
pub fn needs(request: &Request) -> bool {
    match request {
        Request::Signal(SignalRequest::Start { config, .. })
        | Request::Signal(SignalRequest::StudyStart { config, .. }) => {
            config.secure_aggregation.is_some()
        }
        _ => false,
    }
}

/// What the page is told of `request` (one that [`needs`] the protocol) when the protocol could
/// not come: its run's or its study's error; what was on screen stays.
pub fn refused(request: &Request, why: &str) -> Option<Response> {
    let message = format!(
        "secure aggregation's code could not be loaded ({why}); reload the page to try again"
    );
    match request {
        Request::Signal(SignalRequest::Start { generation, .. }) => {
            Some(Response::Signal(SignalResponse::Error {
                generation: *generation,
                message,
            }))
        }
        Request::Signal(SignalRequest::StudyStart { id, .. }) => {
            Some(Response::Signal(SignalResponse::StudyError {
                id: *id,
                message,
            }))
        }
        _ => None,
    }
}
