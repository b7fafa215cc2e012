//! The FedAvg-aware attack: a server that simulates the phone's local training on dummy data
//! (Dimitrov et al., TMLR 2022) — beyond [000], whose DLG matches one dummy to the whole
//! update (Insight I3, §2.2). The objective and its exact gradient are [`super::unroll`]; this
//! file optimises the dummies (Adam, as DLG) and reads the answer: each dummy's location (a
//! reconstructed mini-batch centroid) and their n-weighted mean, the round's estimate.
//!
//! The settings DLG also has (optimiser, iterations, start, tolerance, patience, trail) mean
//! the same here; the defaults are DLG's (docs/papers.md).

use super::dlg::{
    DlgConfig, Init, InitContext, Optimizer, START_NOISE_M, initial_point, settled, validate_search,
};
use super::unroll::{Distance, Dummies, StepLabel, Unrolled};
use crate::signal_map::trace::Standardizer;
use serde::{Deserialize, Serialize};
use whereabouts_core::error::ConfigError;
use whereabouts_core::geo::Metres;
use whereabouts_core::optim::Adam;
use whereabouts_core::rng::Stream;

/// Every setting of the FedAvg-aware attack.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FedAvgConfig {
    pub max_iterations: usize,
    pub optimizer: Optimizer,
    /// Where each dummy starts (each draws its own noise).
    pub init: Init,
    pub label: StepLabel,
    pub distance: Distance,
    pub dummies: Dummies,
    /// Converged once no dummy moved more than this many metres for `patience` iterations.
    pub tolerance_m: f64,
    pub patience: usize,
    /// Record the round estimate every this many iterations (0, which a config refuses: its
    /// start and end alone).
    pub trail_every: usize,
}

impl Default for FedAvgConfig {
    fn default() -> Self {
        Self {
            max_iterations: 2000,
            optimizer: Optimizer::Adam { lr: 0.02 },
            init: Init::AnalyticPlusNoise {
                sd_m: START_NOISE_M,
            },
            label: StepLabel::Analytic,
            distance: Distance::Cosine,
            dummies: Dummies::PerStep,
            tolerance_m: 0.01,
            patience: 10,
            trail_every: 10,
        }
    }
}

impl FedAvgConfig {
    /// The FedAvg-aware search with DLG's iteration budget, step size and start (the lab's
    /// pairing: both servers get the same budget on each update), the rest its defaults.
    pub fn like(dlg: &DlgConfig) -> Self {
        Self {
            max_iterations: dlg.max_iterations,
            optimizer: dlg.optimizer,
            init: dlg.init,
            ..Self::default()
        }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        validate_search(
            "attack.fedavg",
            self.optimizer,
            self.max_iterations,
            (self.tolerance_m, self.patience),
            self.init,
            self.trail_every,
        )
    }
}

/// The outcome of one FedAvg-aware attack.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FedAvgResult {
    /// The n-weighted mean of the dummies: the round's estimate.
    pub position: Metres,
    /// Each dummy's location: a reconstructed mini-batch centroid (one per local step, or per
    /// mini-batch position when the epochs share dummies).
    pub dummies: Vec<Metres>,
    /// Each dummy's label, dBm.
    pub labels_dbm: Vec<f64>,
    /// The local step each dummy stands for is `dummy_of[k]` for step k.
    pub dummy_of: Vec<usize>,
    pub iterations: usize,
    pub converged: bool,
    /// The round's estimate ended outside the area (or at a non-finite point).
    pub diverged: bool,
    /// Dummies that ended outside the area.
    pub diverged_dummies: usize,
    /// −cos(Δ, Δ_obs) at the end (−1: the simulation reproduces the update's direction).
    pub neg_cosine: f64,
    /// The round estimate every `trail_every` iterations, start and end included.
    pub trail: Vec<Metres>,
}

/// A FedAvg-aware optimisation that can be advanced a few iterations at a time (the browser
/// interleaves it with the visitor's requests), like [`super::dlg::DlgRun`].
#[derive(Clone, Debug)]
pub struct FedAvgRun {
    /// Per dummy (x₀, x₁, y): standardised location and dBm.
    v: Vec<[f64; 3]>,
    /// Each dummy's Adam moments (when the optimiser is Adam).
    adam: Vec<Adam<f64, 3>>,
    grad: Vec<[f64; 3]>,
    weights: Vec<f64>,
    dummy_of: Vec<usize>,
    iterations: usize,
    still: usize,
    converged: bool,
    finished: bool,
    cosine: f64,
    trail: Vec<Metres>,
}

impl FedAvgRun {
    /// Dummies start where `init` says (each with its own draw from `stream`); labels from
    /// `prior_label` (used under a joint label).
    pub fn new(
        objective: &mut Unrolled,
        cfg: &FedAvgConfig,
        standardizer: &Standardizer,
        ctx: &InitContext,
        prior_label: f32,
        stream: &mut Stream,
    ) -> Self {
        let schedule = objective.schedule();
        let v: Vec<[f64; 3]> = (0..schedule.dummies)
            .map(|_| {
                let x = standardizer.to_input(initial_point(cfg.init, ctx, stream));
                [f64::from(x[0]), f64::from(x[1]), f64::from(prior_label)]
            })
            .collect();
        let n = v.len();
        let (weights, dummy_of) = (schedule.dummy_weights(), schedule.dummy_of.clone());
        let mut run = Self {
            adam: vec![Adam::new(); n],
            grad: vec![[0.0; 3]; n],
            weights,
            dummy_of,
            iterations: 0,
            still: 0,
            converged: false,
            finished: false,
            cosine: 0.0,
            trail: Vec::new(),
            v,
        };
        run.cosine = objective.evaluate(&run.v, &mut run.grad).cosine;
        run.trail.push(run.estimate(standardizer));
        run
    }

    /// The n-weighted mean of the dummies' locations.
    pub fn estimate(&self, standardizer: &Standardizer) -> Metres {
        let total: f64 = self.weights.iter().sum();
        let mut m = [0.0, 0.0];
        for (d, w) in self.v.iter().zip(&self.weights) {
            m[0] += d[0] * w / total;
            m[1] += d[1] * w / total;
        }
        standardizer.to_metres(m)
    }

    /// Each dummy's location.
    pub fn dummies(&self, standardizer: &Standardizer) -> Vec<Metres> {
        self.v
            .iter()
            .map(|d| standardizer.to_metres([d[0], d[1]]))
            .collect()
    }

    pub fn iterations(&self) -> usize {
        self.iterations
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Runs up to `budget` more iterations, reporting (iteration, estimate, −cos) every
    /// `trail_every`; true once stopped (converged, at the cap, or off the plane).
    pub fn advance(
        &mut self,
        objective: &mut Unrolled,
        cfg: &FedAvgConfig,
        standardizer: &Standardizer,
        budget: usize,
        on_progress: &mut dyn FnMut(usize, Metres, f64),
    ) -> bool {
        let lanes = if cfg.label == StepLabel::Joint { 3 } else { 2 };
        let scale = [standardizer.sd[0], standardizer.sd[1]];
        let mut done = 0;
        while !self.finished && done < budget {
            if self.iterations >= cfg.max_iterations {
                self.finished = true;
                break;
            }
            let it = self.iterations + 1;
            done += 1;
            let mut moved = 0.0f64;
            for ((d, g), adam) in self.v.iter_mut().zip(&self.grad).zip(&mut self.adam) {
                let step = match cfg.optimizer {
                    Optimizer::Sgd { lr } => g.map(|gk| lr * gk),
                    Optimizer::Adam { lr } => adam.step(lr, &g[..lanes]),
                };
                for (x, step) in d.iter_mut().zip(step).take(lanes) {
                    *x -= step;
                }
                moved = moved.max(libm::hypot(step[0] * scale[0], step[1] * scale[1]));
            }
            self.iterations = it;
            let lost = self
                .v
                .iter()
                .any(|d| !(d[0].abs() <= 1e4 && d[1].abs() <= 1e4));
            if lost {
                self.finished = true;
                break;
            }
            let e = objective.evaluate(&self.v, &mut self.grad);
            self.cosine = e.cosine;
            if cfg.trail_every > 0 && it.is_multiple_of(cfg.trail_every) {
                let p = self.estimate(standardizer);
                self.trail.push(p);
                on_progress(it, p, -e.cosine);
            }
            if settled(&mut self.still, moved, cfg.tolerance_m, cfg.patience) {
                self.converged = true;
                self.finished = true;
            }
        }
        if self.iterations >= cfg.max_iterations {
            self.finished = true;
        }
        self.finished
    }

    /// The result so far (normally once [`advance`](Self::advance) returned true).
    pub fn finish(
        mut self,
        objective: &mut Unrolled,
        standardizer: &Standardizer,
        area: (Metres, Metres),
    ) -> FedAvgResult {
        let position = self.estimate(standardizer);
        if self.trail.last() != Some(&position) {
            self.trail.push(position);
        }
        let (lo, hi) = area;
        let inside = |p: &Metres| {
            p.east >= lo.east && p.east <= hi.east && p.north >= lo.north && p.north <= hi.north
        };
        let dummies = self.dummies(standardizer);
        FedAvgResult {
            position,
            diverged_dummies: dummies.iter().filter(|p| !inside(p)).count(),
            labels_dbm: objective.labels(&self.v),
            dummies,
            dummy_of: self.dummy_of,
            iterations: self.iterations,
            converged: self.converged,
            diverged: !inside(&position) || !self.cosine.is_finite(),
            neg_cosine: -self.cosine,
            trail: self.trail,
        }
    }
}

/// Runs the attack to the end.
pub fn run(
    objective: &mut Unrolled,
    cfg: &FedAvgConfig,
    standardizer: &Standardizer,
    ctx: &InitContext,
    prior_label: f32,
    stream: &mut Stream,
) -> FedAvgResult {
    let mut run = FedAvgRun::new(objective, cfg, standardizer, ctx, prior_label, stream);
    while !run.advance(objective, cfg, standardizer, usize::MAX, &mut |_, _, _| {}) {}
    run.finish(objective, standardizer, ctx.area)
}
