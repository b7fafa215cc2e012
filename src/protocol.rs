//! Typed messages between the page and the engine worker.
//!
//! Messages cross the worker boundary as plain JS objects made by `serde-wasm-bindgen` (no JSON
//! strings), tagged by `type` so they stay readable in the browser's devtools.
//!
//! Lab messages carry a `generation`: the page bumps it whenever it starts a new lab (new
//! config), and drops any response of an older generation still in flight.

use serde::{Deserialize, Serialize};
use wasm_bindgen::{JsCast, JsValue};
use whereabouts_core::import::{Fix, ImportError, csv::Mapping};
use whereabouts_engine::signal_map::lab::{HeatMap, LabEvent, WorldView};
use whereabouts_engine::signal_map::scenario::{ScenarioConfig, Summary};
use whereabouts_engine::signal_map::studies::{Study, SweepPoint};
use whereabouts_engine::signal_map::trajectory::Trajectory;

/// What the page asks of the engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Request {
    /// A round-trip check: the worker answers [`Response::Pong`] with the same nonce.
    Ping {
        nonce: u32,
    },
    /// Start a lab for `config` (which carries the visitor's trajectory), computing rounds
    /// 0..`want`. With `use_data`, the visitor's data is the imported trace the worker holds
    /// (see [`Request::LabData`]) instead of a trajectory.
    LabStart {
        generation: u32,
        config: Box<ScenarioConfig>,
        want: usize,
        #[serde(default)]
        use_data: bool,
    },
    /// The visitor's imported trace, for labs and sweeps with `use_data`; `fixes: None`
    /// forgets it. The fixes travel as a packed `Float64Array` attachment ([`pack`]).
    LabData {
        name: String,
        #[serde(skip)]
        fixes: Option<JsValue>,
    },
    /// To an import worker (a separate instance, terminated to cancel): read `file` in chunks
    /// and parse it. The `File` travels as an attachment (structured clone, not copied).
    ImportFile {
        settings: ImportSettings,
        #[serde(skip)]
        file: Option<web_sys::File>,
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
    /// Run a study (by default the privacy–utility sweep: every defence over its grid) on
    /// `config`, in the background of the lab. `sweep` numbers sweeps.
    SweepStart {
        sweep: u32,
        config: Box<ScenarioConfig>,
        #[serde(default)]
        use_data: bool,
        /// What the runs vary: defences, local steps (I3) or the co-participant (I4).
        #[serde(default)]
        study: Study,
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
    /// An import is under way: `done` of `total` bytes read, or parsing (`parsing`).
    ImportProgress {
        done: f64,
        total: f64,
        parsing: bool,
    },
    /// The file was read; the fixes (after sub-sampling) are a packed attachment.
    ImportDone {
        report: Box<ImportReport>,
        #[serde(skip)]
        fixes: Option<JsValue>,
    },
    /// The file could not be imported: which file, where, what.
    ImportFailed {
        error: ImportError,
    },
}

/// What the visitor chose for an import.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ImportSettings {
    /// CSV columns chosen in the preview (None: detect).
    pub csv: Option<Mapping>,
    /// Keep at most one fix per this many seconds (0: keep all).
    pub thin_s: f64,
}

/// What the page shows about an import.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportReport {
    pub name: String,
    pub bytes: f64,
    pub format: String,
    /// Fixes read, and kept after sub-sampling.
    pub read: usize,
    pub kept: usize,
    pub thin_s: f64,
    pub skipped: usize,
    pub skipped_examples: Vec<String>,
    pub warnings: Vec<String>,
    /// Where the world goes: what was left out (far trips, old weeks).
    pub placement_notes: Vec<String>,
    pub has_signal: bool,
    pub first_unix: f64,
    pub last_unix: f64,
    /// The CSV columns used, and the first rows split into fields (for the mapping preview).
    pub csv: Option<Mapping>,
    pub preview: Vec<Vec<String>>,
    pub read_ms: f64,
    pub parse_ms: f64,
}

/// Fields per fix in a packed array: time, lat, lon, RSRP (NaN: none), line.
const PACKED: usize = 5;

/// Packs fixes into one `Float64Array` (cheap to post, no per-fix JS objects).
pub fn pack(fixes: &[Fix]) -> JsValue {
    js_sys::Float64Array::from(flatten(fixes).as_slice()).into()
}

fn flatten(fixes: &[Fix]) -> Vec<f64> {
    fixes
        .iter()
        .flat_map(|f| {
            [
                f.time,
                f.lat,
                f.lon,
                f.rsrp_dbm.unwrap_or(f64::NAN),
                f.line as f64,
            ]
        })
        .collect()
}

/// The inverse of [`pack`] (nothing if `value` is not a `Float64Array`).
pub fn unpack(value: &JsValue) -> Vec<Fix> {
    value
        .dyn_ref::<js_sys::Float64Array>()
        .map_or_else(Vec::new, |a| unflatten(&a.to_vec()))
}

fn unflatten(flat: &[f64]) -> Vec<Fix> {
    flat.chunks_exact(PACKED)
        .map(|c| Fix {
            time: c[0],
            lat: c[1],
            lon: c[2],
            rsrp_dbm: (!c[3].is_nan()).then_some(c[3]),
            line: c[4] as usize,
        })
        .collect()
}

/// Name of the attachment field of the messages that have one.
const ATTACHMENT: &str = "attachment";

/// Encodes a request, with its attachment.
pub fn encode_request(request: &Request) -> Result<JsValue, String> {
    let value = encode(request)?;
    let attachment: Option<JsValue> = match request {
        Request::LabData { fixes, .. } => fixes.clone(),
        Request::ImportFile { file, .. } => file.clone().map(Into::into),
        _ => None,
    };
    attach(&value, attachment)?;
    Ok(value)
}

/// Decodes a request, with its attachment.
pub fn decode_request(value: JsValue) -> Result<Request, String> {
    let attachment = detach(&value);
    let mut request: Request = decode(value)?;
    match &mut request {
        Request::LabData { fixes, .. } => *fixes = attachment,
        Request::ImportFile { file, .. } => *file = attachment.and_then(|a| a.dyn_into().ok()),
        _ => {}
    }
    Ok(request)
}

/// Encodes a response, with its attachment.
pub fn encode_response(response: &Response) -> Result<JsValue, String> {
    let value = encode(response)?;
    if let Response::ImportDone { fixes, .. } = response {
        attach(&value, fixes.clone())?;
    }
    Ok(value)
}

/// Decodes a response, with its attachment.
pub fn decode_response(value: JsValue) -> Result<Response, String> {
    let attachment = detach(&value);
    let mut response: Response = decode(value)?;
    if let Response::ImportDone { fixes, .. } = &mut response {
        *fixes = attachment;
    }
    Ok(response)
}

/// What to transfer (not copy) when posting `message`: the buffer of a packed attachment.
pub fn transferables(message: &JsValue) -> Option<js_sys::Array> {
    let a = js_sys::Reflect::get(message, &JsValue::from_str(ATTACHMENT)).ok()?;
    let packed = a.dyn_ref::<js_sys::Float64Array>()?;
    Some(js_sys::Array::of1(&packed.buffer()))
}

fn attach(value: &JsValue, attachment: Option<JsValue>) -> Result<(), String> {
    if let Some(a) = attachment {
        js_sys::Reflect::set(value, &JsValue::from_str(ATTACHMENT), &a)
            .map_err(|e| format!("could not attach to a message: {e:?}"))?;
    }
    Ok(())
}

/// Takes the attachment off (so serde never walks a million-element array).
fn detach(value: &JsValue) -> Option<JsValue> {
    let key = JsValue::from_str(ATTACHMENT);
    let object: &js_sys::Object = value.dyn_ref()?;
    let a = js_sys::Reflect::get(object, &key).ok()?;
    if a.is_undefined() || a.is_null() {
        return None;
    }
    let _ = js_sys::Reflect::delete_property(object, &key);
    Some(a)
}

/// Encodes a message for `postMessage`.
pub fn encode<T: Serialize>(message: &T) -> Result<JsValue, String> {
    serde_wasm_bindgen::to_value(message).map_err(|e| format!("could not encode message: {e}"))
}

/// Decodes a message received from `postMessage`.
pub fn decode<T: for<'de> Deserialize<'de>>(value: JsValue) -> Result<T, String> {
    serde_wasm_bindgen::from_value(value).map_err(|e| format!("could not decode message: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_fixes_round_trip_with_and_without_signal() {
        let fixes = vec![
            Fix {
                time: 1.5,
                lat: 47.0,
                lon: 8.0,
                rsrp_dbm: Some(-90.0),
                line: 3,
            },
            Fix {
                time: 2.5,
                lat: -33.9,
                lon: 151.2,
                rsrp_dbm: None,
                line: 4,
            },
        ];
        assert_eq!(flatten(&fixes).len(), 10);
        assert_eq!(unflatten(&flatten(&fixes)), fixes);
    }
}
