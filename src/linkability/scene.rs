//! What the worker has told the page about the current run: the phase under way and how far it
//! is, the notes on the visitor's data, and the run's figures when it is done.

use crate::protocol::LinkResponse;
use whereabouts_engine::linkability::lab::{LinkEvent, LinkSummary, Phase};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    pub generation: u32,
    pub running: bool,
    /// The phase under way: (phase, done, total).
    pub progress: Option<(Phase, usize, usize)>,
    pub notes: Vec<String>,
    pub summary: Option<LinkSummary>,
    /// Page clock (ms) at the start, when the attack's training began and when the run ended:
    /// how long each part took as the visitor saw it (the benchmark reads them).
    pub started_ms: f64,
    pub attack_began_ms: Option<f64>,
    pub finished_ms: Option<f64>,
}

impl Scene {
    /// Applies a response of the current generation (the caller filters the others) at page
    /// time `now`.
    pub fn apply(&mut self, response: LinkResponse, now: f64) {
        match response {
            LinkResponse::Started { generation, notes } => {
                *self = Scene {
                    generation,
                    running: true,
                    notes,
                    started_ms: now,
                    ..Scene::default()
                };
            }
            LinkResponse::Event { event, .. } => match event {
                LinkEvent::Progress { phase, done, total } => {
                    // The federation's last round is in: the attack begins.
                    if phase == Phase::Federation && done == total {
                        self.attack_began_ms = Some(now);
                    }
                    self.progress = Some((phase, done, total));
                }
                LinkEvent::Finished => {}
            },
            LinkResponse::Idle { summary, .. } => {
                self.summary = Some(*summary);
                self.running = false;
                self.progress = None;
                self.finished_ms = Some(now);
            }
            LinkResponse::References { references, .. } => {
                if let Some(summary) = self.summary.as_mut() {
                    summary.references = Some(references);
                }
            }
            LinkResponse::Error { .. } => {
                self.running = false;
                self.progress = None;
            }
            _ => {}
        }
    }

    /// The attack's time (training and figures) as the page saw it, ms.
    pub fn attack_ms(&self) -> Option<f64> {
        Some(self.finished_ms? - self.attack_began_ms?)
    }
}
