//! The interface every lab's engine implements, so that the browser worker's scheduler, the
//! studies and the command line are written once.
//!
//! A lab is started from its configuration (and, where it has one, the visitor's data), then
//! worked in slices: [`Driver::work`] does the next piece of wanted work until a deadline and
//! reports what happened as events, so the worker can read the page's next message between
//! slices; run to the end ([`Driver::finish`]) it is what the CLI and the studies compute.
//! Every lab reports its attacks as [`Guess`]es, so metrics, map markers, tables and exports
//! work for every lab.

use crate::geo::Metres;
use serde::{Deserialize, Serialize};

/// A lab's engine.
pub trait Driver: Sized {
    /// Everything a run depends on (seed included).
    type Config;
    /// What the lab reports as it works.
    type Event;
    /// Whole-run figures.
    type Summary;

    /// A run of `config`; a bad configuration is an error that names the setting.
    fn start(config: Self::Config) -> Result<Self, String>;

    /// Does the next piece of wanted work until `now()` passes `deadline` (milliseconds).
    /// Returns true if work remains.
    fn work(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(Self::Event),
    ) -> Result<bool, String>;

    /// Figures over the work done so far.
    fn summary(&self) -> Self::Summary;

    /// Every guess of the server so far, with its truth.
    fn guesses(&self) -> Vec<Guess>;

    /// Does all wanted work, with no clock (tests, studies, the CLI).
    fn finish(&mut self, emit: &mut dyn FnMut(Self::Event)) -> Result<(), String> {
        while self.work(&|| 0.0, f64::INFINITY, emit)? {}
        Ok(())
    }
}

/// A location the server guessed, beside where the person really was: the result every lab
/// shares. Distances are in metres on the lab's local plane.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Guess {
    /// The round (or query) it came from.
    pub round: usize,
    /// Whose location it is (ground truth; the attacker may not know it).
    pub user: u32,
    /// Which attack made it, in the lab's own names ("dlg", "lemma1", "peak", …).
    pub attack: String,
    pub truth: Metres,
    pub guess: Metres,
    /// The attack failed to converge: kept, but left out of error statistics.
    #[serde(default)]
    pub diverged: bool,
}

impl Guess {
    /// How far the guess is from the truth, metres.
    pub fn error_m(&self) -> f64 {
        self.guess.distance(&self.truth)
    }
}
