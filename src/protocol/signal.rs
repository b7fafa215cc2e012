//! The Signal-map lab's messages.
//!
//! Lab messages carry a `generation`: the page bumps it whenever it starts a new lab (new
//! config), and drops any response of an older generation still in flight.

use serde::{Deserialize, Serialize};
use whereabouts_engine::signal_map::lab::{HeatMap, LabEvent, WorldView};
use whereabouts_engine::signal_map::reference::References;
use whereabouts_engine::signal_map::scenario::{ScenarioConfig, Summary};
use whereabouts_engine::signal_map::studies::{Study, StudyPoint};
use whereabouts_engine::signal_map::trajectory::Trajectory;
use whereabouts_engine::signal_map::undefended::Comparison;

/// What the page asks of the Signal-map lab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "signal")]
pub enum Request {
    /// Start a lab for `config` (which carries the visitor's trajectory), computing rounds
    /// 0..`want`. With `use_data`, the visitor's data is the imported trace the worker holds
    /// (see [`super::Request::Data`]) instead of a trajectory.
    Start {
        generation: u32,
        config: Box<ScenarioConfig>,
        want: usize,
        #[serde(default)]
        use_data: bool,
    },
    /// The visitor edited the trajectory; `edit` numbers the edits (latency measurement).
    Trajectory {
        generation: u32,
        edit: u32,
        trajectory: Trajectory,
    },
    /// Compute rounds 0..`rounds`.
    Want {
        generation: u32,
        rounds: usize,
    },
    /// Run a study (by default the privacy–utility trade-off: every defence over its grid) on
    /// `config`, in the background of the lab. `id` numbers the page's studies.
    StudyStart {
        id: u32,
        config: Box<ScenarioConfig>,
        #[serde(default)]
        use_data: bool,
        /// What the runs vary: defences, local steps (I3) or the co-participant (I4).
        #[serde(default)]
        kind: Study,
    },
    StudyCancel {
        id: u32,
    },
}

/// What the Signal-map lab tells the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "signal")]
pub enum Response {
    /// A lab is ready: what the map needs.
    Started {
        generation: u32,
        world: WorldView,
        total_rounds: usize,
        parameters: usize,
        initial_rmse_db: f64,
        heat: Option<HeatMap>,
    },
    /// Progress of the lab's computation.
    Event {
        generation: u32,
        event: LabEvent,
    },
    /// An edit was applied (after its instant results were sent).
    Edited {
        generation: u32,
        edit: u32,
        first_changed: Option<usize>,
        /// Time the worker spent applying the edit (to the instant reconstruction), ms.
        worker_ms: f64,
    },
    /// The model's prediction map after a round.
    Heat {
        generation: u32,
        heat: HeatMap,
    },
    /// All wanted rounds are done.
    Idle {
        generation: u32,
        summary: Summary,
    },
    /// The RMSE references of the lab's data, measured after the run's Idle (the page does
    /// not wait for them; the next Idle carries them too).
    References {
        generation: u32,
        references: References,
    },
    /// Under a defence: the lab's figures beside the same run without the defence (sent after
    /// the lab's Idle and references, for the rounds done).
    Undefended {
        generation: u32,
        comparison: Box<Comparison>,
    },
    /// The lab could not do what was asked; what was on screen stays.
    Error {
        generation: u32,
        message: String,
    },
    /// A study advanced: `done` of `total` runs, with the one just finished.
    StudyProgress {
        id: u32,
        done: usize,
        total: usize,
        point: Option<StudyPoint>,
    },
    /// The study ended (all runs, or cancelled).
    StudyDone {
        id: u32,
        cancelled: bool,
    },
    StudyError {
        id: u32,
        message: String,
    },
}
