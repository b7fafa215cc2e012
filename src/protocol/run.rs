//! A lab's start, study and cancel, one shape for every lab whose run and study share it (the
//! Density, Linkability and Mobility labs): each lab's family carries it as
//! `Run(RunRequest<its config, its start>)` and adds only its own messages (the Density lab's
//! edits of the places, the Mobility lab's play and pause). The worker's [`Host`] answers it
//! once for all of them.
//!
//! [`Host`]: crate::worker::host::Host

use serde::{Deserialize, Serialize};

/// What the page asks of a lab's run and study; `C` is the lab's engine config, `S` what else
/// a run needs to start (nothing, or the Mobility lab's round to play to).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "run")]
pub enum RunRequest<C, S = ()> {
    /// Start a run for `config`: every message of the run carries `generation` (the page drops
    /// an older run's). With `use_data`, on the visitor's imported file the worker holds.
    Start {
        generation: u32,
        config: Box<C>,
        #[serde(default)]
        use_data: bool,
        start: S,
    },
    /// The lab's study on `config` (with `use_data`, on the visitor's file).
    StudyStart {
        id: u32,
        config: Box<C>,
        #[serde(default)]
        use_data: bool,
    },
    StudyCancel {
        id: u32,
    },
}
