//! The Linkability lab's messages ([004]).
//!
//! As in the other labs' families, a run's messages carry a `generation` (bumped by every new
//! start; the page drops responses of an older one) and a study's an `id`.

use serde::{Deserialize, Serialize};
use whereabouts_engine::linkability::config::LinkConfig;
use whereabouts_engine::linkability::lab::{LinkEvent, LinkSummary};
use whereabouts_engine::linkability::study::StudyPoint;

/// Who the visitor is, when the page cannot say it in the config: their imported file, which
/// only the worker holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UseData {
    /// The config's `you` as it is.
    #[default]
    No,
    /// The visitor is the imported file.
    File,
}

/// What the page asks of the Linkability lab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "linkability")]
pub enum Request {
    /// Start a run for `config`.
    Start {
        generation: u32,
        config: Box<LinkConfig>,
        #[serde(default)]
        use_data: UseData,
    },
    /// The trade-off study: every mitigation at every strength on `config`.
    StudyStart {
        id: u32,
        config: Box<LinkConfig>,
        #[serde(default)]
        use_data: UseData,
    },
    StudyCancel {
        id: u32,
    },
}

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
