//! Typed messages between the page and the engine worker.
//!
//! Messages cross the worker boundary as plain JS objects made by `serde-wasm-bindgen` (no JSON
//! strings), tagged by `type` so they stay readable in the browser's devtools.
//!
//! Lab messages carry a `generation`: the page bumps it whenever it starts a new lab (new
//! config), and drops any response of an older generation still in flight.

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;
use whereabouts_engine::experiments::SweepPoint;
use whereabouts_engine::lab::{HeatMap, LabEvent, WorldView};
use whereabouts_engine::scenario::{ScenarioConfig, Summary};
use whereabouts_engine::trajectory::Trajectory;

/// What the page asks of the engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Request {
    /// A round-trip check: the worker answers [`Response::Pong`] with the same nonce.
    Ping {
        nonce: u32,
    },
    /// Start a lab for `config` (which carries the visitor's trajectory), computing rounds
    /// 0..`want`.
    LabStart {
        generation: u32,
        config: Box<ScenarioConfig>,
        want: usize,
    },
    /// The visitor edited the trajectory; `edit` numbers the edits (latency measurement).
    LabTrajectory {
        generation: u32,
        edit: u32,
        trajectory: Trajectory,
    },
    /// Compute rounds 0..`rounds`.
    LabWant {
        generation: u32,
        rounds: usize,
    },
    /// Run the privacy–utility sweep (every defence over its grid) on `config`, in the
    /// background of the lab. `sweep` numbers sweeps.
    SweepStart {
        sweep: u32,
        config: Box<ScenarioConfig>,
    },
    SweepCancel {
        sweep: u32,
    },
}

/// What the engine tells the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Response {
    /// The worker has loaded its wasm and listens; requests sent before this would be lost.
    Ready {
        engine_version: String,
    },
    /// The answer to [`Request::Ping`].
    Pong {
        nonce: u32,
        engine_version: String,
    },
    /// The worker received a message it could not read.
    Rejected {
        reason: String,
    },
    /// The engine panicked; the worker is dead and the page must say so.
    Fatal {
        message: String,
    },
    /// A lab is ready: what the map needs.
    LabStarted {
        generation: u32,
        world: WorldView,
        total_rounds: usize,
        parameters: usize,
        initial_rmse_db: f64,
        heat: Option<HeatMap>,
    },
    /// Progress of the lab's computation.
    Lab {
        generation: u32,
        event: LabEvent,
    },
    /// An edit was applied (after its instant results were sent).
    LabEdited {
        generation: u32,
        edit: u32,
        first_changed: Option<usize>,
        /// Time the worker spent applying the edit (to the instant reconstruction), ms.
        worker_ms: f64,
    },
    /// The model's prediction map after a round.
    LabHeat {
        generation: u32,
        heat: HeatMap,
    },
    /// All wanted rounds are done.
    LabIdle {
        generation: u32,
        summary: Summary,
    },
    /// The lab could not do what was asked; what was on screen stays.
    LabError {
        generation: u32,
        message: String,
    },
    /// A sweep advanced: `done` of `total` points, with the one just finished.
    SweepProgress {
        sweep: u32,
        done: usize,
        total: usize,
        point: Option<SweepPoint>,
    },
    /// The sweep ended (all points, or cancelled).
    SweepDone {
        sweep: u32,
        cancelled: bool,
    },
    SweepError {
        sweep: u32,
        message: String,
    },
}

/// Encodes a message for `postMessage`.
pub fn encode<T: Serialize>(message: &T) -> Result<JsValue, String> {
    serde_wasm_bindgen::to_value(message).map_err(|e| format!("could not encode message: {e}"))
}

/// Decodes a message received from `postMessage`.
pub fn decode<T: for<'de> Deserialize<'de>>(value: JsValue) -> Result<T, String> {
    serde_wasm_bindgen::from_value(value).map_err(|e| format!("could not decode message: {e}"))
}
