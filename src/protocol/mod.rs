//! Typed messages between the page and its workers: an envelope ([`Request`], [`Response`])
//! with one family per lab ([`signal`], [`density`], [`linkability`], [`mobility`]) and the import
//! worker's own ([`import`]).
//!
//! Messages cross the worker boundary as plain JS objects made by `serde-wasm-bindgen` (no JSON
//! strings), tagged by `type` (the envelope) and by the family's own tag (`signal`, `import`) so
//! they stay readable in the browser's devtools. Large payloads (a file, packed fixes, a Density
//! event's surfaces, a Linkability summary's map and confusion) travel as an attachment beside
//! the message, transferred rather than copied.

pub mod density;
pub mod import;
pub mod lab;
pub mod linkability;
pub mod mobility;
pub mod run;
pub mod signal;
pub mod study;

pub use density::{Request as DensityRequest, Response as DensityResponse};
pub use import::{
    ImportReport, ImportSettings, Request as ImportRequest, Response as ImportResponse,
};
pub use lab::LabKind;
pub use linkability::{Request as LinkRequest, Response as LinkResponse};
pub use mobility::{Request as MobRequest, Response as MobResponse};
pub use run::RunRequest;
pub use signal::{Request as SignalRequest, Response as SignalResponse};
pub use study::StudyReply;

use serde::{Deserialize, Serialize};
use wasm_bindgen::{JsCast, JsValue};
use whereabouts_core::import::Fix;

/// What the page asks of a worker: an envelope with one message family per lab, plus what
/// every lab shares (a ping, which lab shows, the visitor's data). An import worker has its
/// own small family ([`import`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Request {
    /// A round-trip check: the worker answers [`Response::Pong`] with the same nonce.
    Ping { nonce: u32 },
    /// Which lab's tab shows: only that lab computes; the others wait.
    Show { lab: LabKind },
    /// The visitor's imported trace, for every lab's runs and studies on "your own data";
    /// `fixes: None` forgets it. The fixes travel as a packed `Float64Array` attachment
    /// ([`pack`]).
    Data {
        name: String,
        #[serde(skip)]
        fixes: Option<JsValue>,
    },
    /// The Signal-map lab's messages.
    Signal(signal::Request),
    /// The Density lab's messages. The worker does not decode them with the rest: see
    /// [`Request::Later`].
    #[serde(skip_deserializing)]
    Density(density::Request),
    /// The Linkability lab's messages (see [`Request::Later`]).
    #[serde(skip_deserializing)]
    Linkability(linkability::Request),
    /// The Mobility lab's messages (see [`Request::Later`]).
    #[serde(skip_deserializing)]
    Mobility(mobility::Request),
    /// To an import worker.
    Import(import::Request),
    /// A Density, Linkability or Mobility message as it came to the worker, for that lab's host
    /// to read ([`decode_later_request`]): in the site's build the host is in the lab's
    /// chunk (src/worker/split.rs), and its decoder with it (issue 41 §1). Made by
    /// [`decode_request`]; never sent.
    #[serde(skip)]
    Later { lab: LabKind, message: JsValue },
}

/// What a worker tells the page: the same envelope.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Response {
    /// The worker has loaded its wasm and listens; requests sent before this would be lost.
    Ready { engine_version: String },
    /// The answer to [`Request::Ping`].
    Pong { nonce: u32, engine_version: String },
    /// The Signal map's attacks run on this DLG kernel from now on (`"simd128"`: its chunk has
    /// come, src/worker/simd.rs); until it is said, and where it never is, the scalar one.
    Kernel { name: String },
    /// The worker received a message it could not read.
    Rejected { reason: String },
    /// The engine panicked; the worker is dead and the page must say so.
    Fatal { message: String },
    /// The Signal-map lab's messages.
    Signal(signal::Response),
    /// The Density lab's messages. The page does not decode them with the rest: see
    /// [`Response::Later`].
    #[serde(skip_deserializing)]
    Density(density::Response),
    /// The Linkability lab's messages (see [`Response::Later`]).
    #[serde(skip_deserializing)]
    Linkability(linkability::Response),
    /// The Mobility lab's messages (see [`Response::Later`]).
    #[serde(skip_deserializing)]
    Mobility(mobility::Response),
    /// From an import worker.
    Import(import::Response),
    /// A Density, Linkability or Mobility message as it came to the page, for that lab to read
    /// with its family's `decode` once its views are here (src/shell/lab_views.rs,
    /// src/shell/run.rs): in the site's build the decoder of a lab's messages is then in that
    /// lab's chunk, not in the page's first download (issue 41 §1). Made by
    /// [`decode_response`]; never sent.
    #[serde(skip)]
    Later { lab: LabKind, message: JsValue },
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
        Request::Data { fixes, .. } => fixes.clone(),
        Request::Import(import::Request::File { file, .. }) => file.clone().map(Into::into),
        _ => None,
    };
    attach(&value, attachment)?;
    Ok(value)
}

/// Decodes a request, with its attachment; a Density, Linkability or Mobility message is left as
/// it came ([`Request::Later`]).
pub fn decode_request(value: JsValue) -> Result<Request, String> {
    if let Some(lab) = later_family(&value) {
        return Ok(Request::Later {
            lab,
            message: value,
        });
    }
    let attachment = detach(&value);
    let mut request: Request = decode(value)?;
    match &mut request {
        Request::Data { fixes, .. } => *fixes = attachment,
        Request::Import(import::Request::File { file, .. }) => {
            *file = attachment.and_then(|a| a.dyn_into().ok())
        }
        _ => {}
    }
    Ok(request)
}

/// Encodes a response, with its attachment.
pub fn encode_response(response: &Response) -> Result<JsValue, String> {
    if let Response::Density(density::Response::Event { generation, event }) = response
        && let Some((light, surfaces)) = density::take_surfaces(event)
    {
        let value = encode(&Response::Density(density::Response::Event {
            generation: *generation,
            event: light,
        }))?;
        attach(&value, Some(pack_surfaces(&surfaces)))?;
        return Ok(value);
    }
    if let Response::Linkability(linkability::Response::Idle {
        generation,
        summary,
    }) = response
    {
        let (light, flat) = linkability::take_figures(summary);
        let value = encode(&Response::Linkability(linkability::Response::Idle {
            generation: *generation,
            summary: Box::new(light),
        }))?;
        attach(&value, Some(pack_surfaces(&[&flat])))?;
        return Ok(value);
    }
    let value = encode(response)?;
    if let Response::Import(import::Response::Done { fixes, .. }) = response {
        attach(&value, fixes.clone())?;
    }
    Ok(value)
}

/// Decodes a response, with its attachment; a Density, Linkability or Mobility message is left
/// as it came ([`Response::Later`]).
pub fn decode_response(value: JsValue) -> Result<Response, String> {
    if let Some(lab) = later_family(&value) {
        return Ok(Response::Later {
            lab,
            message: value,
        });
    }
    let attachment = detach(&value);
    let mut response: Response = decode(value)?;
    if let Response::Import(import::Response::Done { fixes, .. }) = &mut response {
        *fixes = attachment;
    }
    Ok(response)
}

/// The lab of a Density, Linkability or Mobility message, read from the envelope's tag.
fn later_family(value: &JsValue) -> Option<LabKind> {
    let tag = js_sys::Reflect::get(value, &JsValue::from_str("type"))
        .ok()?
        .as_string()?;
    match tag.as_str() {
        "Density" => Some(LabKind::Density),
        "Linkability" => Some(LabKind::Linkability),
        "Mobility" => Some(LabKind::Mobility),
        _ => None,
    }
}

/// A later lab's request ([`Request::Later`]), decoded as that lab's family `T`.
pub fn decode_later_request<T: for<'de> Deserialize<'de>>(value: JsValue) -> Result<T, String> {
    decode(value)
}

/// A later lab's message's attachment, as numbers, and the rest decoded as that lab's family
/// (the envelope's `type` is a key the family does not read).
fn decode_family<T: for<'de> Deserialize<'de>>(
    value: JsValue,
) -> Result<(T, Option<Vec<f64>>), String> {
    let attachment = detach(&value);
    let family = decode(value)?;
    let numbers = attachment
        .as_ref()
        .and_then(|a| a.dyn_ref::<js_sys::Float64Array>())
        .map(|a| a.to_vec());
    Ok((family, numbers))
}

/// Numbers (surfaces, figures) one after another in one `Float64Array` (transferred when
/// posted).
fn pack_surfaces(surfaces: &[&[f64]]) -> JsValue {
    js_sys::Float64Array::from(surfaces.concat().as_slice()).into()
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
