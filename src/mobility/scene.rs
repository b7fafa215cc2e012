//! What the worker has told the page about the current run: the target's trajectory, every
//! round's record and the server's optimisation trail, where the attack is, the figures.

use crate::protocol::MobResponse;
use crate::protocol::mobility::trail_paths;
use std::sync::Arc;
use whereabouts_core::geo::Metres;
use whereabouts_core::world::roads::RoadNetwork;
use whereabouts_engine::mobility::lab::{MobSummary, RoundRecord};
use whereabouts_engine::mobility::lstm::WINDOW;
use whereabouts_engine::mobility::membership::YourMembership;
use whereabouts_engine::mobility::unicity::YourUnicity;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    pub generation: u32,
    /// The seed the streets were made from.
    pub seed: u64,
    /// The city's streets (made on the page from the seed: the same as the worker's).
    pub roads: Option<Arc<RoadNetwork>>,
    /// The target's recorded trajectory.
    pub target: Vec<Metres>,
    pub rounds: usize,
    pub records: Vec<RoundRecord>,
    /// Each round's trail: for each of the 9 points, its path through the iterations.
    pub trails: Vec<Vec<Vec<Metres>>>,
    /// The round under attack and the attack's iteration.
    pub progress: Option<(usize, usize)>,
    pub summary: Option<MobSummary>,
    /// How many of your points single you out, once the run is done.
    pub unicity: Option<YourUnicity>,
    /// Were you in the count (the membership card), or why not, once the run is done.
    pub membership: Option<Result<YourMembership, String>>,
    /// The worker is computing (not stopped at the round wanted, nor ended).
    pub running: bool,
    pub note: Option<String>,
    /// Page clock (ms) when the run started and when each round arrived.
    pub started_ms: f64,
    pub arrived_ms: Vec<f64>,
}

impl Scene {
    /// Applies a response of the current generation (the caller filters the others).
    pub fn apply(&mut self, response: MobResponse, now: f64) {
        match response {
            MobResponse::Started {
                target,
                rounds,
                note,
                ..
            } => {
                self.target = target;
                self.rounds = rounds;
                self.note = note;
            }
            MobResponse::Progress {
                round, iteration, ..
            } => {
                self.progress = Some((round, iteration));
                self.running = true;
            }
            MobResponse::Round { record, trail, .. } => {
                self.records.push(*record);
                self.trails.push(trail_paths(&trail));
                self.arrived_ms.push(now);
                self.progress = None;
            }
            MobResponse::Idle {
                summary,
                unicity,
                membership,
                ..
            } => {
                self.summary = Some(*summary);
                self.unicity = unicity.map(|u| *u);
                self.membership = membership.map(|m| *m);
                self.running = false;
                self.progress = None;
            }
            MobResponse::Error { .. } => {
                self.running = false;
                self.progress = None;
            }
            _ => {}
        }
    }

    pub fn done(&self) -> usize {
        self.records.len()
    }

    /// True once every round is in.
    pub fn finished(&self) -> bool {
        self.rounds > 0 && self.records.len() >= self.rounds
    }

    /// The record shown: round `viewed`, or the latest.
    pub fn shown(&self, viewed: Option<usize>) -> Option<&RoundRecord> {
        match viewed {
            Some(r) => self.records.get(r),
            None => self.records.last(),
        }
    }

    /// The calibrated estimate of every position reconstructed up to round `upto` (inclusive):
    /// position i's from the latest round whose window holds it; with its truth.
    pub fn estimates(&self, upto: usize) -> Vec<(usize, Metres, Metres)> {
        let mut out: Vec<Option<(Metres, Metres)>> = Vec::new();
        for r in self.records.iter().take(upto + 1) {
            // A point no round recovered (every attack on it diverged) has no estimate.
            for k in (0..WINDOW.min(r.calibrated.len())).filter(|&k| r.is_calibrated(k)) {
                let i = r.round + k;
                if out.len() <= i {
                    out.resize(i + 1, None);
                }
                out[i] = Some((r.calibrated[k], r.truth[k]));
            }
        }
        out.into_iter()
            .enumerate()
            .filter_map(|(i, e)| e.map(|(g, t)| (i, g, t)))
            .collect()
    }

    /// Mean ASR over the rounds in (each round's, as it was scored when it ended), leaving out
    /// the rounds with nothing scored ([`Scene::diverged`]).
    pub fn mean_asr(&self) -> Option<f64> {
        let scored: Vec<f64> = self.records.iter().filter_map(|r| r.asr).collect();
        (!scored.is_empty()).then(|| scored.iter().sum::<f64>() / scored.len() as f64)
    }

    /// Rounds whose attack diverged so far.
    pub fn diverged(&self) -> usize {
        self.records.iter().filter(|r| r.diverged).count()
    }

    /// The page's milliseconds per round, from the first round's arrival to the last's.
    pub fn ms_per_round(&self) -> Option<f64> {
        let n = self.arrived_ms.len();
        (n >= 2).then(|| (self.arrived_ms[n - 1] - self.arrived_ms[0]) / (n - 1) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(round: usize, shift: f64) -> RoundRecord {
        let truth: Vec<Metres> = (0..WINDOW)
            .map(|k| Metres::new((round + k) as f64 * 100.0, 0.0))
            .collect();
        RoundRecord {
            round,
            calibrated: truth
                .iter()
                .map(|t| Metres::new(t.east + shift, 0.0))
                .collect(),
            reconstruction: truth.clone(),
            truth,
            truth_label: Metres::new(0.0, 0.0),
            reconstructed_label: Metres::new(0.0, 0.0),
            errors_m: vec![0.0; WINDOW],
            calibrated_errors_m: vec![shift; WINDOW],
            calibrated_from: vec![1; WINDOW],
            asr: Some(round as f64 / 10.0),
            ait: None,
            distance: 0.0,
            evaluations: 1,
            diverged: false,
            epsilon: None,
            audit: None,
            remaining: None,
            sent: None,
            dp_epsilon: None,
            dp_round_epsilon: None,
            dp_stated_epsilon: None,
            secure: None,
            central_dp: None,
        }
    }

    #[test]
    fn every_position_has_its_latest_calibrated_estimate_and_rounds_are_timed() {
        let mut scene = Scene::default();
        for (r, at) in [(0, 1000.0), (1, 1200.0), (2, 1400.0)] {
            scene.apply(
                MobResponse::Round {
                    generation: 1,
                    record: Box::new(record(r, 10.0 * (r + 1) as f64)),
                    trail: vec![0.0; 36],
                },
                at,
            );
        }
        assert_eq!(scene.trails[0].len(), 9, "8 points and the label");
        assert_eq!(scene.trails[0][0].len(), 2, "two iterates");
        let upto1 = scene.estimates(1);
        assert_eq!(upto1.len(), WINDOW + 1, "positions 0 … 8");
        assert_eq!(upto1[0].1.east, 10.0, "position 0 is only in round 0");
        assert_eq!(
            upto1[1].1.east,
            100.0 + 20.0,
            "position 1: round 1's estimate"
        );
        assert_eq!(scene.estimates(2).len(), WINDOW + 2);
        assert_eq!(scene.ms_per_round(), Some(200.0));
        assert!((scene.mean_asr().unwrap() - 0.1).abs() < 1e-12);
        assert_eq!(scene.diverged(), 0);
        assert_eq!(scene.shown(Some(0)).unwrap().round, 0);
        assert_eq!(scene.shown(None).unwrap().round, 2);
    }

    #[test]
    fn a_diverged_round_is_left_out_of_the_mean_and_the_estimates() {
        let mut scene = Scene::default();
        let mut far = record(1, 6.7e11);
        far.diverged = true;
        far.asr = None;
        far.calibrated_from = vec![0; WINDOW];
        // Position 1 was recovered by round 0: its calibrated estimate is that recovery.
        far.calibrated_from[0] = 1;
        far.calibrated[0] = Metres::new(105.0, 0.0);
        for (i, r) in [record(0, 10.0), far].into_iter().enumerate() {
            scene.apply(
                MobResponse::Round {
                    generation: 1,
                    record: Box::new(r),
                    trail: vec![0.0; 36],
                },
                i as f64,
            );
        }
        assert_eq!(scene.diverged(), 1);
        assert_eq!(scene.mean_asr(), Some(0.0), "round 0's ASR alone");
        let estimates = scene.estimates(1);
        // Positions 0 … 7 from round 0; position 1 from round 1's one recovered point; 8 none.
        assert_eq!(estimates.len(), WINDOW);
        assert!(estimates.iter().all(|(_, g, _)| g.east < 1e6));
        assert_eq!(estimates[1].1.east, 105.0);
    }
}
