//! A model that has learnt before the target's first round (a project choice; [002] and the
//! authors' code start every run from a fresh LSTM, see docs/papers.md, "Mobility: a model that
//! learns").
//!
//! With the authors' training — one SGD step at η = 0.001 on one window a round — the LSTM
//! stays worse than "stay where you are" for the whole run, so [002]'s reading that the attack
//! weakens "as the model converges" cannot be tested on it. Here the server's model may first
//! be trained on the other people of the city: every window of `users − 1` other trajectories
//! (their own min-max coordinates, as each phone normalises), mini-batch SGD on the same MSE,
//! for `epochs` passes in a seeded order. The target's own trajectory is never used.

use super::lstm::{self, OUTPUT, PARAMETERS, Window};
use super::traces::{self, Scaler, TraceKind};
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;
use whereabouts_core::world::roads::RoadNetwork;

/// The pretraining's mini-batch and step size.
pub const BATCH: usize = 32;
pub const LEARNING_RATE: f32 = 0.1;

/// Every window of `others` (trajectories, each normalised to its own extent), with its label.
pub fn windows(others: &[Vec<Metres>]) -> Vec<(Window<f32>, [f32; OUTPUT])> {
    let mut out = Vec::new();
    for at in others {
        let scaler = Scaler::fit(at);
        let normalised: Vec<[f32; 2]> = at.iter().map(|p| scaler.normalise(*p)).collect();
        let mut t = 0;
        while let Some(w) = traces::window(&normalised, t) {
            out.push(w);
            t += 1;
        }
    }
    out
}

/// The other people of the city the server pretrains on: `users − 1` trajectories of `points`
/// points, drawn like the population's (their own stream: the target's is not among them).
pub fn others(
    kind: TraceKind,
    roads: &RoadNetwork,
    users: usize,
    points: usize,
    seed: u64,
) -> Vec<Vec<Metres>> {
    traces::population(kind, roads, users, points, seed)
        .into_iter()
        .skip(1)
        .map(|fixes| fixes.iter().map(|f| f.at).collect())
        .collect()
}

/// `epochs` passes of mini-batch SGD over `data` from `params`; returns the mean training loss
/// of the last pass.
pub fn train(
    params: &mut [f32],
    data: &[(Window<f32>, [f32; OUTPUT])],
    epochs: usize,
    stream: &mut Stream,
) -> f64 {
    let mut order: Vec<usize> = (0..data.len()).collect();
    let mut last = f64::NAN;
    let mut grad = vec![0.0f64; PARAMETERS];
    for _ in 0..epochs {
        stream.shuffle(&mut order);
        let mut total = 0.0;
        for chunk in order.chunks(BATCH) {
            grad.iter_mut().for_each(|g| *g = 0.0);
            for &i in chunk {
                let (w, y) = &data[i];
                let (loss, g) = lstm::loss_and_gradient(params, w, y);
                total += f64::from(loss);
                for (a, b) in grad.iter_mut().zip(&g) {
                    *a += f64::from(*b);
                }
            }
            let scale = f64::from(LEARNING_RATE) / chunk.len() as f64;
            for (p, g) in params.iter_mut().zip(&grad) {
                *p -= (g * scale) as f32;
            }
        }
        last = total / data.len().max(1) as f64;
    }
    last
}
