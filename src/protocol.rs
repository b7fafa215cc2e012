//! Typed messages between the page and the engine worker.
//!
//! Messages cross the worker boundary as plain JS objects made by `serde-wasm-bindgen` (no JSON
//! strings), tagged by `type` so they stay readable in the browser's devtools.

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

/// What the page asks of the engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Request {
    /// A round-trip check: the worker answers [`Response::Pong`] with the same nonce.
    Ping { nonce: u32 },
}

/// What the engine tells the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Response {
    /// The worker has loaded its wasm and listens; requests sent before this would be lost.
    Ready { engine_version: String },
    /// The answer to [`Request::Ping`].
    Pong { nonce: u32, engine_version: String },
    /// The worker received a message it could not read.
    Rejected { reason: String },
    /// The engine panicked; the worker is dead and the page must say so.
    Fatal { message: String },
}

/// Encodes a message for `postMessage`.
pub fn encode<T: Serialize>(message: &T) -> Result<JsValue, String> {
    serde_wasm_bindgen::to_value(message).map_err(|e| format!("could not encode message: {e}"))
}

/// Decodes a message received from `postMessage`.
pub fn decode<T: for<'de> Deserialize<'de>>(value: JsValue) -> Result<T, String> {
    serde_wasm_bindgen::from_value(value).map_err(|e| format!("could not decode message: {e}"))
}
