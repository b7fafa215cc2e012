//! What the worker has told the page about the current run: the grid, the exact density and the
//! server's, the server's attacks on the visitor's answers and on the city's, the figures.

use crate::protocol::DensityResponse;
use whereabouts_core::geo::Metres;
use whereabouts_engine::density::grid::Grid;
use whereabouts_engine::density::lab::{DensityEvent, DensitySummary, VisitorAnswer};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    pub generation: u32,
    pub grid: Option<Grid>,
    /// Normalised, row-major from the south-west (empty until computed).
    pub exact: Vec<f64>,
    pub estimate: Vec<f64>,
    /// The server's attack on each of the visitor's places.
    pub answers: Vec<Option<VisitorAnswer>>,
    /// The city's uploads attacked so far and their errors, metres.
    pub attacked: Vec<f64>,
    /// The stage under way and how far it is.
    pub progress: Option<(String, usize, usize)>,
    pub summary: Option<DensitySummary>,
    pub running: bool,
    pub note: Option<String>,
    /// When (page clock, ms) the estimate stage first reported and when its density arrived:
    /// the server's aggregate as the browser sees it (the benchmark reads it).
    pub estimate_began_ms: Option<f64>,
    pub aggregate_ms: Option<f64>,
}

impl Scene {
    /// Applies a response of the current generation (the caller filters the others).
    pub fn apply(&mut self, response: DensityResponse) {
        match response {
            DensityResponse::Started {
                generation,
                grid,
                places,
                note,
            } => {
                *self = Scene {
                    generation,
                    grid: Some(grid),
                    answers: vec![None; places.len()],
                    running: true,
                    note,
                    ..Scene::default()
                };
            }
            DensityResponse::Event { event, .. } => self.event(event),
            DensityResponse::Idle { summary, .. } => {
                self.summary = Some(summary);
                self.running = false;
                self.progress = None;
            }
            DensityResponse::Edited { .. } => self.running = true,
            _ => {}
        }
    }

    fn event(&mut self, event: DensityEvent) {
        match event {
            DensityEvent::Progress { stage, done, total } => {
                if stage == "estimate" && self.estimate_began_ms.is_none() {
                    self.estimate_began_ms = Some(super::now_ms());
                }
                self.progress = Some((stage, done, total));
            }
            DensityEvent::Density { exact, estimate } => {
                if self.aggregate_ms.is_none() {
                    self.aggregate_ms = self.estimate_began_ms.map(|t| super::now_ms() - t);
                }
                self.exact = exact;
                self.estimate = estimate;
            }
            DensityEvent::Guess(g) => self.attacked.push(g.error_m()),
            DensityEvent::Visitor(answer) => {
                let place = answer.place;
                if self.answers.len() <= place {
                    self.answers.resize(place + 1, None);
                }
                self.answers[place] = Some(answer);
            }
        }
    }

    /// The visitor's places changed (dragged, added, removed): their answers are redone; the
    /// old ones stay drawn until the new arrive, except those of places that went.
    pub fn places_changed(&mut self, places: usize) {
        self.answers.resize(places, None);
    }

    /// The value of `surface` at the grid point nearest `p` (for counting candidate peaks).
    pub fn value_at(&self, surface: &[f64], p: Metres) -> Option<f64> {
        let g = self.grid.as_ref()?;
        let (dx, dy) = g.step();
        let i = ((p.east - g.lo.east) / dx).floor();
        let j = ((p.north - g.lo.north) / dy).floor();
        if i < 0.0 || j < 0.0 || i >= g.p as f64 || j >= g.q as f64 {
            return None;
        }
        surface.get(j as usize * g.p + i as usize).copied()
    }

    /// The candidates of an answer whose value is within 10% of the top: the peaks the server
    /// cannot tell from yours by height ([003] claim 1).
    pub fn rivals(&self, answer: &VisitorAnswer) -> usize {
        let top = answer
            .surface
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        if top.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return 0;
        }
        answer
            .candidates
            .iter()
            .filter(|c| {
                self.value_at(&answer.surface, **c)
                    .is_some_and(|v| v >= 0.9 * top)
            })
            .count()
    }
}
