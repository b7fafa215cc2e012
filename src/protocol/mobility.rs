//! The Mobility lab's messages ([002]).
//!
//! As in the other labs' families, a run's messages carry a `generation` (bumped by every new
//! start; the page drops responses of an older one) and a study's an `id`. The run plays up to
//! the round the page wants ([`Request::Play`]): playing is wanting every round, pausing is
//! wanting the rounds done, a step is one more.

use super::RunRequest;
use serde::{Deserialize, Serialize};
use whereabouts_core::geo::Metres;
use whereabouts_engine::mobility::config::MobConfig;
use whereabouts_engine::mobility::lab::{MobSummary, RoundRecord};
use whereabouts_engine::mobility::membership::YourMembership;
use whereabouts_engine::mobility::study::StudyPoint;
use whereabouts_engine::mobility::unicity::YourUnicity;

/// What the page asks of the Mobility lab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mobility")]
pub enum Request {
    /// Start a run for `config`, playing up to the round its `start` says (with `use_data`, the
    /// target is the imported file the worker holds); or the privacy–utility study (no
    /// defence, every defence at every ε) on it, or cancel that.
    Run(RunRequest<MobConfig, usize>),
    /// Play up to round `want` (rounds done: pause).
    Play { generation: u32, want: usize },
}

/// What the Mobility lab tells the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mobility")]
pub enum Response {
    /// A run started: the target's whole recorded trajectory (the windows slide along it), the
    /// rounds, and what the page should say about the visitor's file.
    Started {
        generation: u32,
        target: Vec<Metres>,
        rounds: usize,
        note: Option<String>,
    },
    /// The attack on round `round` is at iteration `iteration`.
    Progress {
        generation: u32,
        round: usize,
        iteration: usize,
    },
    /// A round is done. `trail` is the server's optimisation, iterate by iterate: the 8 points
    /// and the label, east and north in metres (18 numbers an iterate; empty if another round
    /// ended after it in the same slice).
    Round {
        generation: u32,
        record: Box<RoundRecord>,
        trail: Vec<f32>,
    },
    /// The run stopped at the round the page wanted, or at its end; its figures so far.
    Idle {
        generation: u32,
        summary: Box<MobSummary>,
        /// How many of your points single you out among the city's people, once the run is
        /// done (`mobility/unicity.rs`).
        unicity: Option<Box<YourUnicity>>,
        /// Were you in the count: the membership adversary's AUC against you on the city's
        /// released counts, or why it could not be played, once the run is done
        /// (`mobility/membership.rs`).
        membership: Option<Box<Result<YourMembership, String>>>,
    },
    Error {
        generation: u32,
        message: String,
    },
    /// The study's progress, end or failure.
    Study(super::StudyReply<StudyPoint>),
}

/// Numbers per iterate in a [`Response::Round`]'s trail.
pub const PER_ITERATE: usize = 2 * (whereabouts_engine::mobility::lstm::WINDOW + 1);

/// The trail of each point (the 8 of the window, then the label) through the iterations.
pub fn trail_paths(flat: &[f32]) -> Vec<Vec<Metres>> {
    let points = PER_ITERATE / 2;
    (0..points)
        .map(|k| {
            flat.chunks_exact(PER_ITERATE)
                .map(|it| Metres::new(f64::from(it[2 * k]), f64::from(it[2 * k + 1])))
                .collect()
        })
        .collect()
}

/// Reads a Mobility message the page received ([`super::Response::Later`]).
pub fn decode(value: wasm_bindgen::JsValue) -> Result<Response, String> {
    super::decode_family::<Response>(value).map(|(response, _)| response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trail_comes_apart_point_by_point() {
        let mut flat = Vec::new();
        for i in 0..3 {
            for k in 0..PER_ITERATE / 2 {
                flat.extend([i as f32, k as f32]);
            }
        }
        let paths = trail_paths(&flat);
        assert_eq!(paths.len(), 9, "8 points and the label");
        assert!(paths.iter().all(|p| p.len() == 3));
        assert_eq!(paths[8][2], Metres::new(2.0, 8.0));
    }
}
