//! The Linkability lab's messages ([004]).
//!
//! As in the other labs' families, a run's messages carry a `generation` (bumped by every new
//! start; the page drops responses of an older one) and a study's an `id`.

use super::RunRequest;
use serde::{Deserialize, Serialize};
use whereabouts_engine::linkability::config::LinkConfig;
use whereabouts_engine::linkability::lab::{LinkEvent, LinkSummary, MapPoint};
use whereabouts_engine::linkability::study::StudyPoint;
use whereabouts_engine::signal_map::reference::References;

/// What the page asks of the Linkability lab: a run for a config (with `use_data`, the visitor
/// is the imported file the worker holds), the trade-off study (every mitigation at every
/// strength) on it, or cancel that.
/// The lab has no messages of its own besides these.
pub type Request = RunRequest<LinkConfig>;

/// What the Linkability lab tells the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "linkability")]
pub enum Response {
    /// A run started; what the page should say about the visitor's data.
    Started {
        generation: u32,
        notes: Vec<String>,
    },
    Event {
        generation: u32,
        event: LinkEvent,
    },
    /// The run is done, with its figures.
    Idle {
        generation: u32,
        summary: Box<LinkSummary>,
    },
    /// The references beside the model's RMSE, after the run's figures (they train a model).
    References {
        generation: u32,
        references: References,
    },
    Error {
        generation: u32,
        message: String,
    },
    /// The study's progress, end or failure.
    Study(super::StudyReply<StudyPoint>),
}

/// Numbers per point of the map in [`take_figures`]: x, y, owner, device.
const PER_POINT: usize = 4;

/// A summary without its map of updates and its confusion, and those as one flat array (the
/// number of points, the map's points, then the confusion row by row).
///
/// They travel beside the message as one transferred `Float64Array` (the envelope's attachment):
/// at 100 people over 50 rounds the map is 10,000 points, which as JS objects through
/// serde-wasm-bindgen held the page's main thread for over 50 ms (BENCHMARKS.md).
pub fn take_figures(summary: &LinkSummary) -> (LinkSummary, Vec<f64>) {
    let mut flat = Vec::with_capacity(1 + PER_POINT * summary.map.len() + summary.people.pow(2));
    flat.push(summary.map.len() as f64);
    for p in &summary.map {
        flat.extend([
            f64::from(p.x),
            f64::from(p.y),
            f64::from(p.owner),
            f64::from(p.device),
        ]);
    }
    for row in &summary.confusion {
        flat.extend(row.iter().copied());
    }
    let light = LinkSummary {
        map: Vec::new(),
        confusion: Vec::new(),
        ..summary.clone()
    };
    (light, flat)
}

/// The inverse of [`take_figures`].
pub fn put_figures(summary: &mut LinkSummary, flat: &[f64]) {
    let Some((&n, flat)) = flat.split_first() else {
        return;
    };
    let points = (n as usize).min(flat.len() / PER_POINT);
    let (map, rest) = flat.split_at(points * PER_POINT);
    summary.map = map
        .chunks_exact(PER_POINT)
        .map(|c| MapPoint {
            x: c[0] as f32,
            y: c[1] as f32,
            owner: c[2] as u32,
            device: c[3] as u8,
        })
        .collect();
    let people = summary.people;
    summary.confusion = if people > 0 && rest.len() == people * people {
        rest.chunks_exact(people).map(<[f64]>::to_vec).collect()
    } else {
        Vec::new()
    };
}

/// Reads a Linkability message the page received ([`super::Response::Later`]), with its figures.
pub fn decode(value: wasm_bindgen::JsValue) -> Result<Response, String> {
    let (mut response, numbers) = super::decode_family::<Response>(value)?;
    if let (Response::Idle { summary, .. }, Some(flat)) = (&mut response, numbers) {
        put_figures(summary, &flat);
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_and_the_confusion_come_off_a_summary_and_go_back() {
        let summary = LinkSummary {
            people: 2,
            map: vec![
                MapPoint {
                    x: 0.5,
                    y: -1.25,
                    owner: 1,
                    device: 0,
                },
                MapPoint {
                    x: 3.0,
                    y: 0.0,
                    owner: 0,
                    device: 1,
                },
            ],
            confusion: vec![vec![3.0, 0.0], vec![0.5, 2.5]],
            your_rank: Some(1.5),
            ..LinkSummary::default()
        };
        let (mut light, flat) = take_figures(&summary);
        assert!(light.map.is_empty() && light.confusion.is_empty());
        assert_eq!(flat.len(), 1 + 8 + 4);
        put_figures(&mut light, &flat);
        assert_eq!(light.map, summary.map);
        assert_eq!(light.confusion, summary.confusion);
        assert_eq!(light.your_rank, Some(1.5));
    }
}
