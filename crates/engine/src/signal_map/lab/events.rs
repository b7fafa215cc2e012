//! What the lab reports: its events (a round trained, DLG's progress, the FedAvg-aware server's
//! dummies, a round attacked, a whole run's start and end), the target's side of a trained
//! round and the world as the map needs it. The page's protocol carries them as they are.

use crate::signal_map::scenario::{DlgOutcome, RoundRecord, Summary};
use serde::{Deserialize, Serialize};
use whereabouts_core::geo::{LatLon, Metres};

/// What the map needs to know about the world.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorldView {
    pub origin: LatLon,
    /// (south-west, north-east) corners of the area of interest, plane metres.
    pub area: (Metres, Metres),
    pub towers: Vec<Metres>,
    /// Index of the learned cell in `towers`.
    pub cell: usize,
    pub users: usize,
    pub start_unix: f64,
    pub round_s: f64,
    /// The visitor's imported fixes in time order (at most [`TRACE_POINTS`], evenly thinned),
    /// for the map before any round is trained; empty for a drawn trajectory.
    #[serde(default)]
    pub trace: Vec<Metres>,
}

/// The most points of an imported trace sent for drawing.
pub const TRACE_POINTS: usize = 5000;

/// What the lab reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum LabEvent {
    /// A whole run begins ([`Lab::run`](super::Lab::run) only; the browser gets the world
    /// instead).
    Started {
        rounds: usize,
        users: usize,
        train_points: usize,
        test_points: usize,
        parameters: usize,
        initial_rmse_db: f64,
    },
    /// The trajectory changed: rounds from `first_changed` on are being recomputed.
    Edited {
        first_changed: usize,
        total_rounds: usize,
    },
    /// Round `round` is trained. `target` is present when the visitor took part. (The test
    /// RMSE comes with the final record: it is evaluated after the attack, off the critical
    /// path of an edit.)
    Trained {
        round: usize,
        participants: Vec<u32>,
        target: Option<TargetRound>,
        /// Why the target sent no update this round (`target` is `None`), in words for the page.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        absent: Option<String>,
    },
    /// DLG positions since the last report for `round`.
    Progress {
        round: usize,
        iteration: usize,
        trail: Vec<Metres>,
    },
    /// DLG has finished on the round (its final record follows once the model is evaluated).
    Reconstructed { round: usize, dlg: Box<DlgOutcome> },
    /// The FedAvg-aware attack's state since the last report for `round`: its round estimate
    /// and every dummy (at most [`STEP_POINTS`], evenly thinned).
    Simulated {
        round: usize,
        iteration: usize,
        estimate: Metres,
        dummies: Vec<Metres>,
    },
    /// The round is complete: attacks and the model's test RMSE.
    Attacked(Box<RoundRecord>),
    /// A whole run is over ([`Lab::run`](super::Lab::run) only).
    Finished(Summary),
}

/// The target's side of a trained round: its data and the instant reconstruction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TargetRound {
    /// Positions of D_t (the round's measurements), plane metres.
    pub points: Vec<Metres>,
    pub truth: Metres,
    pub analytic: Option<Metres>,
    /// DLG's starting point, when DLG runs.
    pub dlg_start: Option<Metres>,
    /// Under FedAvg, the centroid of each local step's mini-batch (at most [`STEP_POINTS`],
    /// evenly thinned): the update sums their gradients, so the server's one reconstruction
    /// blurs them (Insight I3). Empty for a single step (FedSGD).
    #[serde(default)]
    pub steps: Vec<Metres>,
}

/// The most mini-batch centroids reported per round.
pub const STEP_POINTS: usize = 400;

/// At most [`STEP_POINTS`] of `points`, evenly thinned (what a round reports of its local
/// steps).
pub fn thinned(points: &[Metres]) -> Vec<Metres> {
    let every = points.len().div_ceil(STEP_POINTS).max(1);
    points.iter().step_by(every).copied().collect()
}
