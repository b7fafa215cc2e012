//! A lab's study as the worker reports it, one shape for every lab whose study is a list of
//! runs (the Density, Linkability and Mobility labs): its progress with each finished run's
//! point, its end (cancelled or not) and its failure. Each lab's family carries it as
//! `Study(StudyReply<its point>)`; the page's [`crate::ui::study::StudyView`] applies it.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "study")]
pub enum StudyReply<P> {
    /// `done` of `total` runs finished; `point` is the run just finished (none at the start).
    Progress {
        id: u32,
        done: usize,
        total: usize,
        point: Option<P>,
    },
    Done {
        id: u32,
        cancelled: bool,
    },
    Error {
        id: u32,
        message: String,
    },
}
