//! The Density lab's messages ([003]).
//!
//! As in the Signal map's family, lab messages carry a `generation` (bumped by every new start;
//! the page drops responses of an older one) and edits carry a number (latency measurement).
//! An event's surfaces cross as a transferred attachment ([`take_surfaces`]).

use super::RunRequest;
use serde::{Deserialize, Serialize};
use whereabouts_core::geo::Metres;
use whereabouts_engine::density::DensityConfig;
use whereabouts_engine::density::grid::Grid;
use whereabouts_engine::density::lab::{DensityEvent, DensitySummary, VisitorAnswer};
use whereabouts_engine::density::study::StudyPoint;

/// What the page asks of the Density lab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "density")]
pub enum Request {
    /// Start a run for `config` (which carries the visitor's places; with `use_data`, they
    /// are the frequent places of the imported file the worker holds), or the privacy–utility
    /// study (every B, the own bump, every GeoInd ε) on it, or cancel that.
    Run(RunRequest<DensityConfig>),
    /// The visitor moved, added or removed a place; `edit` numbers the edits.
    Places {
        generation: u32,
        edit: u32,
        places: Vec<Metres>,
    },
    /// The places stopped moving (a drag ended, a key moved one, one was added or removed) and
    /// every edit is answered: the worker brings the run's figures up to date. It skips them
    /// after each edit of a drag, because they cost the worker far more than a frame (the
    /// city's random-guess baseline alone is N_attacked × P × Q distances) and would hold up
    /// the next edit.
    Settled { generation: u32 },
}

/// What the Density lab tells the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "density")]
pub enum Response {
    /// A run started: its grid, and the places the visitor has in it (the file's, with
    /// `use_data`).
    Started {
        generation: u32,
        grid: Grid,
        places: Vec<Metres>,
        /// What the page should know about the places (a file's places left out, say).
        note: Option<String>,
    },
    /// One of the run's events; its surfaces travel as the attachment ([`take_surfaces`]).
    Event {
        generation: u32,
        event: DensityEvent,
    },
    /// An edit of the places was applied; what is instant was sent before this.
    Edited {
        generation: u32,
        edit: u32,
        worker_ms: f64,
    },
    /// The run is done, with its figures (again after [`Request::Settled`], if edits made
    /// them stale).
    Idle {
        generation: u32,
        summary: DensitySummary,
    },
    Error {
        generation: u32,
        message: String,
    },
    /// The study's progress, end or failure.
    Study(super::StudyReply<StudyPoint>),
}

/// An event without its surfaces (the densities' or an answer's P × Q numbers), and the
/// surfaces in order; `None` for an event that has none (or surfaces of unequal lengths, which
/// then go through serde as they are).
///
/// The surfaces travel beside the message as one transferred `Float64Array` (the envelope's
/// attachment), not as JS arrays through serde-wasm-bindgen: a drag step sends two densities and
/// an answer per place, 16,384 numbers each, which took the page tens of milliseconds to decode
/// (BENCHMARKS.md, "Density lab: in the browser").
pub fn take_surfaces(event: &DensityEvent) -> Option<(DensityEvent, Vec<&[f64]>)> {
    match event {
        DensityEvent::Density { exact, estimate } if exact.len() == estimate.len() => Some((
            DensityEvent::Density {
                exact: Vec::new(),
                estimate: Vec::new(),
            },
            vec![exact, estimate],
        )),
        DensityEvent::Visitor(answer) => Some((
            DensityEvent::Visitor(VisitorAnswer {
                place: answer.place,
                surface: Vec::new(),
                candidates: answer.candidates.clone(),
                guess: answer.guess.clone(),
            }),
            vec![&answer.surface],
        )),
        _ => None,
    }
}

/// The inverse of [`take_surfaces`]: `flat` (the surfaces one after another) back into `event`.
pub fn put_surfaces(event: &mut DensityEvent, mut flat: Vec<f64>) {
    match event {
        DensityEvent::Density { exact, estimate } => {
            *estimate = flat.split_off(flat.len() / 2);
            *exact = flat;
        }
        DensityEvent::Visitor(answer) => answer.surface = flat,
        _ => {}
    }
}

/// Reads a Density message the page received ([`super::Response::Later`]), with its surfaces.
pub fn decode(value: wasm_bindgen::JsValue) -> Result<Response, String> {
    let (mut response, numbers) = super::decode_family::<Response>(value)?;
    if let (Response::Event { event, .. }, Some(flat)) = (&mut response, numbers) {
        put_surfaces(event, flat);
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;
    use whereabouts_core::driver::Guess;

    fn round_trip(event: &DensityEvent) -> DensityEvent {
        let (mut light, surfaces) = take_surfaces(event).expect("surfaces");
        put_surfaces(&mut light, surfaces.concat());
        light
    }

    #[test]
    fn surfaces_come_off_an_event_and_go_back_in_order() {
        let density = DensityEvent::Density {
            exact: vec![1.0, 2.0, 3.0],
            estimate: vec![-4.0, 5.0, f64::MIN_POSITIVE],
        };
        assert_eq!(round_trip(&density), density);
        let answer = DensityEvent::Visitor(VisitorAnswer {
            place: 1,
            surface: vec![0.5, -0.25],
            candidates: vec![Metres::new(10.0, 20.0)],
            guess: Guess {
                round: 1,
                user: 7,
                attack: "peak".into(),
                truth: Metres::new(0.0, 0.0),
                guess: Metres::new(10.0, 20.0),
                diverged: false,
            },
        });
        assert_eq!(round_trip(&answer), answer);
        let (light, _) = take_surfaces(&answer).unwrap();
        assert!(matches!(light, DensityEvent::Visitor(a) if a.surface.is_empty()));
        let progress = DensityEvent::Progress {
            stage: "exact".into(),
            done: 1,
            total: 2,
        };
        assert!(take_surfaces(&progress).is_none(), "nothing to carry");
    }
}
