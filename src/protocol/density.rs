//! The Density lab's messages ([003]).
//!
//! As in the Signal map's family, lab messages carry a `generation` (bumped by every new start;
//! the page drops responses of an older one) and edits carry a number (latency measurement).

use serde::{Deserialize, Serialize};
use whereabouts_core::geo::Metres;
use whereabouts_engine::density::DensityConfig;
use whereabouts_engine::density::grid::Grid;
use whereabouts_engine::density::lab::{DensityEvent, DensitySummary};
use whereabouts_engine::density::study::StudyPoint;

/// What the page asks of the Density lab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "density")]
pub enum Request {
    /// Start a run for `config` (which carries the visitor's places). With `use_data`, the
    /// visitor's places are the frequent places of the imported file the worker holds.
    Start {
        generation: u32,
        config: Box<DensityConfig>,
        #[serde(default)]
        use_data: bool,
    },
    /// The visitor moved, added or removed a place; `edit` numbers the edits.
    Places {
        generation: u32,
        edit: u32,
        places: Vec<Metres>,
    },
    /// The privacy–utility study (every B, the own bump, every GeoInd ε) on `config`.
    StudyStart {
        id: u32,
        config: Box<DensityConfig>,
        #[serde(default)]
        use_data: bool,
    },
    StudyCancel {
        id: u32,
    },
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
    /// The run is done (and after each edit's work).
    Idle {
        generation: u32,
        summary: DensitySummary,
    },
    Error {
        generation: u32,
        message: String,
    },
    StudyProgress {
        id: u32,
        done: usize,
        total: usize,
        point: Option<StudyPoint>,
    },
    StudyDone {
        id: u32,
        cancelled: bool,
    },
    StudyError {
        id: u32,
        message: String,
    },
}
