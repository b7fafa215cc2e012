//! The DLG attack (Algorithm 2): one dummy point, cosine loss, gradient descent on the dummy.
//!
//! Settings the paper leaves open ([000] §2.1, "Implementation details") are explicit, with
//! defaults documented in docs/papers.md: the optimiser (Adam, lr 0.02 in standardised units —
//! the paper only says "learning rate η for the DLG optimiser"), the iteration cap (2,000 here
//! for live use; the paper's 400,000 is one setting away), the early-stop tolerance (0.01 m; the
//! paper says "unchanged for 10 iterations" without a tolerance) and the initialisation
//! ([000] §4.1).

use super::objective::{LabelMode, Objective};
use crate::signal_map::limits;
use crate::signal_map::trace::Standardizer;
use serde::{Deserialize, Serialize};
use whereabouts_core::error::ConfigError;
use whereabouts_core::geo::Metres;
use whereabouts_core::optim::Adam;
use whereabouts_core::rng::Stream;

/// Where the dummy location starts ([000] §4.1, "DLG Initialization Strategies").
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Init {
    /// (i) uniformly at random in the area of interest.
    RandomInArea,
    /// (i) the centre of a cell of a grid over the area (the paper's 350 m grid): cell `cell`
    /// (row-major from the area's south-west corner, [`grid_cells`]) when given — [000]
    /// Fig. 6 starts from 20 of them — otherwise a random one.
    Grid {
        spacing_m: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cell: Option<usize>,
    },
    /// (ii) the true batch centroid plus Gaussian noise — the paper's default, a simulation
    /// shortcut ("faster simulation") that a real attacker could not take.
    CentroidPlusNoise { sd_m: f64 },
    /// (ii) without the shortcut: the analytic (Lemma 1) estimate plus Gaussian noise.
    AnalyticPlusNoise { sd_m: f64 },
    /// (iii) the previous round's reconstruction (the area's centre in the first round).
    Previous,
}

/// The DLG optimiser.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Optimizer {
    Adam { lr: f64 },
    Sgd { lr: f64 },
}

/// Which weights the dummy gradient is computed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DummyWeights {
    /// w_t^k, the target's model after its update: Algorithm 1 as printed.
    PostUpdate,
    /// w_{t−1}, the model the server broadcast: textbook DLG.
    PreUpdate,
}

/// Every DLG setting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DlgConfig {
    pub max_iterations: usize,
    pub optimizer: Optimizer,
    pub init: Init,
    pub label: LabelMode,
    pub weights: DummyWeights,
    /// Converged once the dummy moved less than this many metres for `patience` iterations.
    pub tolerance_m: f64,
    pub patience: usize,
    /// Record the dummy's position every this many iterations (0, which a config refuses:
    /// its start and end alone, as the benchmark runs it).
    pub trail_every: usize,
}

/// The searches' stop rule (DLG's and the FedAvg-aware attack's): counts the iterations in a
/// row in which nothing moved `tolerance_m` or more (`still`); true once there are `patience`.
pub(crate) fn settled(still: &mut usize, moved_m: f64, tolerance_m: f64, patience: usize) -> bool {
    if moved_m < tolerance_m {
        *still += 1;
        *still >= patience
    } else {
        *still = 0;
        false
    }
}

/// The spread of DLG's noisy starting point around its centre, m: our choice (the paper gives
/// no scale; docs/papers.md).
pub const START_NOISE_M: f64 = 200.0;

impl Default for DlgConfig {
    fn default() -> Self {
        Self {
            max_iterations: 2000,
            optimizer: Optimizer::Adam { lr: 0.02 },
            init: Init::AnalyticPlusNoise {
                sd_m: START_NOISE_M,
            },
            label: LabelMode::Analytic,
            weights: DummyWeights::PostUpdate,
            tolerance_m: 0.01,
            patience: 10,
            trail_every: 10,
        }
    }
}

/// The plain step of [`DlgConfig::algorithm2`], in standardised units. [000] names "learning
/// rate η for DLG optimizer" in Algorithm 2 and gives no value; 1 is the smallest plain step that
/// ended where Adam does on the measured fresh-model rounds (docs/papers.md §3a, "Adam instead of
/// Algorithm 2's plain step"), chosen before any table ran it.
pub const ALGORITHM2_LR: f64 = 1.0;

/// [000] §2.1 ("Implementation details", (3)): at most 400,000 DLG iterations.
pub const ALGORITHM2_ITERATIONS: usize = 400_000;

/// The two named DLGs the reproduction runs side by side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DlgPreset {
    /// The project's default ([`DlgConfig::default`]): Adam 0.02, the analytic label, a start at
    /// Lemma 1's estimate plus 200 m noise, 2,000 iterations.
    Lemma1Adam,
    /// [000] Algorithm 2 as printed ([`DlgConfig::algorithm2`]).
    Algorithm2,
}

impl DlgPreset {
    /// Its name in table headings and docs.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Lemma1Adam => "Lemma 1 refined by Adam",
            Self::Algorithm2 => "Algorithm 2 as printed",
        }
    }

    pub fn config(self) -> DlgConfig {
        match self {
            Self::Lemma1Adam => DlgConfig::default(),
            Self::Algorithm2 => DlgConfig::algorithm2(),
        }
    }
}

impl DlgConfig {
    /// [000]'s DLG as Algorithm 2 prints it (§2.1): plain gradient descent on the dummy,
    /// x′ ← x′ − η∇_{x′}𝔻 and y′ ← y′ − η∇_{y′}𝔻 with one η ([`ALGORITHM2_LR`], the paper gives
    /// none), y′ starting at the mean RSRP and moved jointly ([`LabelMode::Joint`]), the start
    /// (ii) "a rough estimate of x̄ plus Gaussian noise" with the true centroid as §4.1's
    /// simulation does ([`Init::CentroidPlusNoise`], 200 m: the paper gives no scale), at the
    /// post-update weights, up to 400,000 iterations, converged once the dummy is unchanged
    /// (moved < 0.01 m) for 10 iterations. The trail is thinned (every 1,000 iterations).
    pub fn algorithm2() -> Self {
        Self {
            max_iterations: ALGORITHM2_ITERATIONS,
            optimizer: Optimizer::Sgd { lr: ALGORITHM2_LR },
            init: Init::CentroidPlusNoise {
                sd_m: START_NOISE_M,
            },
            label: LabelMode::Joint,
            weights: DummyWeights::PostUpdate,
            tolerance_m: 0.01,
            patience: 10,
            trail_every: 1000,
        }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if let LabelMode::JointL2 { weight } = self.label
            && !(weight.is_finite() && weight >= 0.0)
        {
            return Err(ConfigError::new(
                "attack.label.weight",
                format!("{weight} must be a number from 0 up (the L2 term's weight)"),
            ));
        }
        validate_search(
            "attack",
            self.optimizer,
            self.max_iterations,
            (self.tolerance_m, self.patience),
            self.init,
            self.trail_every,
        )
    }
}

/// The checks every dummy search shares (DLG's and the FedAvg-aware attack's), with the
/// settings' keys under `prefix`.
pub(crate) fn validate_search(
    prefix: &str,
    optimizer: Optimizer,
    max_iterations: usize,
    (tolerance_m, patience): (f64, usize),
    init: Init,
    trail_every: usize,
) -> Result<(), ConfigError> {
    let lr = match optimizer {
        Optimizer::Adam { lr } | Optimizer::Sgd { lr } => lr,
    };
    limits::DLG_LEARNING_RATE.check(&format!("{prefix}.optimizer.lr"), lr)?;
    limits::DLG_ITERATIONS.check(&format!("{prefix}.max_iterations"), max_iterations as f64)?;
    // A config's trail has a pace (a run that wants none is the benchmark's, built in code).
    if trail_every == 0 {
        return Err(ConfigError::new(
            format!("{prefix}.trail_every"),
            "must be at least 1 (not 0): the search's position is recorded every this many iterations, its start and end always",
        ));
    }
    if !(tolerance_m.is_finite() && tolerance_m >= 0.0) || patience == 0 {
        return Err(ConfigError::new(
            format!("{prefix}.tolerance_m / patience"),
            "tolerance must be ≥ 0 m and patience ≥ 1",
        ));
    }
    match init {
        Init::Grid { spacing_m, .. } if !(spacing_m.is_finite() && spacing_m > 0.0) => {
            Err(ConfigError::new(
                format!("{prefix}.init.spacing_m"),
                "must be a positive distance",
            ))
        }
        Init::CentroidPlusNoise { sd_m } | Init::AnalyticPlusNoise { sd_m }
            if !(sd_m.is_finite() && sd_m >= 0.0) =>
        {
            Err(ConfigError::new(
                format!("{prefix}.init.sd_m"),
                "must be ≥ 0 m",
            ))
        }
        _ => Ok(()),
    }
}

/// What the server knows when it picks a starting point.
#[derive(Clone, Debug)]
pub struct InitContext {
    pub area: (Metres, Metres),
    pub previous: Option<Metres>,
    /// Only for the paper's simulation shortcut.
    pub true_centroid: Option<Metres>,
    pub analytic: Option<Metres>,
}

/// The centres of the cells of a `spacing_m` grid over `area`, row by row from its south-west
/// corner (a centre past the area's edge is pulled onto it). Never empty.
pub fn grid_cells((lo, hi): (Metres, Metres), spacing_m: f64) -> Vec<Metres> {
    let cols = ((hi.east - lo.east) / spacing_m).ceil().clamp(1.0, 1e4) as usize;
    let rows = ((hi.north - lo.north) / spacing_m).ceil().clamp(1.0, 1e4) as usize;
    (0..rows)
        .flat_map(|r| {
            (0..cols).map(move |c| {
                Metres::new(
                    (lo.east + (c as f64 + 0.5) * spacing_m).min(hi.east),
                    (lo.north + (r as f64 + 0.5) * spacing_m).min(hi.north),
                )
            })
        })
        .collect()
}

/// The starting location for `init`.
pub fn initial_point(init: Init, ctx: &InitContext, s: &mut Stream) -> Metres {
    let (lo, hi) = ctx.area;
    let centre = Metres::new((lo.east + hi.east) / 2.0, (lo.north + hi.north) / 2.0);
    let noisy = |p: Metres, sd: f64, s: &mut Stream| {
        Metres::new(p.east + s.gaussian(0.0, sd), p.north + s.gaussian(0.0, sd))
    };
    match init {
        Init::RandomInArea => Metres::new(s.range(lo.east, hi.east), s.range(lo.north, hi.north)),
        Init::Grid { spacing_m, cell } => {
            let cells = grid_cells(ctx.area, spacing_m);
            let i = cell.unwrap_or_else(|| {
                let cols = ((hi.east - lo.east) / spacing_m).ceil().clamp(1.0, 1e4) as u64;
                let rows = cells.len() as u64 / cols;
                let (c, r) = (s.below(cols), s.below(rows));
                (r * cols + c) as usize
            });
            // A cell past the grid's last (a study's on a smaller area) wraps round.
            cells[i % cells.len()]
        }
        Init::CentroidPlusNoise { sd_m } => noisy(ctx.true_centroid.unwrap_or(centre), sd_m, s),
        Init::AnalyticPlusNoise { sd_m } => noisy(ctx.analytic.unwrap_or(centre), sd_m, s),
        Init::Previous => ctx.previous.unwrap_or(centre),
    }
}

/// The outcome of one attack.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DlgResult {
    pub start: Metres,
    pub position: Metres,
    /// The reconstructed RSRP label, dBm.
    pub label_dbm: f64,
    pub iterations: usize,
    /// Stopped by the "unchanged for `patience` iterations" rule.
    pub converged: bool,
    /// Ended outside the area of interest (or at a non-finite point): excluded from EMD.
    pub diverged: bool,
    /// −cos(g′, g_obs) at the end, as the paper reports it (−1 is a perfect match).
    pub neg_cosine: f64,
    /// Positions every `trail_every` iterations, start and end included.
    pub trail: Vec<Metres>,
}

/// Runs DLG from `start`. `prior_label` is the attacker's mean-RSRP prior (Joint modes).
pub fn run(
    objective: &mut Objective,
    cfg: &DlgConfig,
    standardizer: &Standardizer,
    area: (Metres, Metres),
    start: Metres,
    prior_label: f32,
) -> DlgResult {
    run_observed(
        objective,
        cfg,
        standardizer,
        area,
        start,
        prior_label,
        &mut |_, _, _| {},
    )
}

/// [`run`], reporting (iteration, position, −cos) every `trail_every` iterations as it goes.
pub fn run_observed(
    objective: &mut Objective,
    cfg: &DlgConfig,
    standardizer: &Standardizer,
    area: (Metres, Metres),
    start: Metres,
    prior_label: f32,
    on_progress: &mut dyn FnMut(usize, Metres, f64),
) -> DlgResult {
    let mut run = DlgRun::new(objective, cfg, standardizer, start, prior_label);
    while !run.advance(objective, cfg, standardizer, usize::MAX, on_progress) {}
    run.finish(area)
}

/// A DLG optimisation that can be advanced a few iterations at a time (the browser worker
/// interleaves attacks with new requests) and gives exactly [`run_observed`]'s result.
///
/// The [`Objective`] is passed to every call rather than held, so the caller may rebuild it
/// between slices from the same weights and update.
#[derive(Clone, Debug)]
pub struct DlgRun {
    start: Metres,
    /// (x′₀, x′₁, y′) in standardised units and dBm.
    v: [f64; 3],
    /// Adam's moments (when the optimiser is Adam).
    adam: Adam<f64, 3>,
    iterations: usize,
    still: usize,
    converged: bool,
    finished: bool,
    /// The dummy's step or its match left the finite numbers (e.g. a dummy whose gradient
    /// vanishes has no cosine): the run stops at its last finite position, diverged.
    lost: bool,
    position: Metres,
    trail: Vec<Metres>,
    cosine: f32,
    label: f32,
    tangents: [f32; 3],
}

impl DlgRun {
    pub fn new(
        objective: &mut Objective,
        cfg: &DlgConfig,
        standardizer: &Standardizer,
        start: Metres,
        prior_label: f32,
    ) -> Self {
        let x0 = standardizer.to_input(start);
        let last = objective.evaluate([x0[0], x0[1]], prior_label, cfg.label);
        Self {
            start,
            v: [f64::from(x0[0]), f64::from(x0[1]), f64::from(prior_label)],
            adam: Adam::new(),
            iterations: 0,
            still: 0,
            converged: false,
            finished: !last.cosine.is_finite(),
            lost: !last.cosine.is_finite(),
            position: start,
            trail: vec![start],
            cosine: last.cosine,
            // The prior where the start has no finite label (the run is lost from the start).
            label: if last.label.is_finite() {
                last.label
            } else {
                prior_label
            },
            tangents: last.loss.tangents(),
        }
    }

    /// The dummy's current location.
    pub fn position(&self) -> Metres {
        self.position
    }

    pub fn iterations(&self) -> usize {
        self.iterations
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Runs up to `budget` more iterations; true once the attack has stopped (converged, hit
    /// the iteration cap, or left the plane).
    pub fn advance(
        &mut self,
        objective: &mut Objective,
        cfg: &DlgConfig,
        standardizer: &Standardizer,
        budget: usize,
        on_progress: &mut dyn FnMut(usize, Metres, f64),
    ) -> bool {
        let learn_label = !matches!(cfg.label, LabelMode::Analytic);
        let mut done = 0;
        while !self.finished && done < budget {
            if self.iterations >= cfg.max_iterations {
                self.finished = true;
                break;
            }
            let it = self.iterations + 1;
            done += 1;
            // x′₀, x′₁, and y′ when the label is learned.
            let lanes = if learn_label { 3 } else { 2 };
            let g = self.tangents.map(f64::from);
            let step = match cfg.optimizer {
                Optimizer::Sgd { lr } => g.map(|gk| lr * gk),
                Optimizer::Adam { lr } => self.adam.step(lr, &g[..lanes]),
            };
            for (v, step) in self.v.iter_mut().zip(step).take(lanes) {
                *v -= step;
            }
            self.iterations = it;
            let next = standardizer.to_metres([self.v[0], self.v[1]]);
            if !(next.east.is_finite() && next.north.is_finite()) {
                self.lost = true;
                self.finished = true;
                break;
            }
            if self.v[0].abs() > 1e4 || self.v[1].abs() > 1e4 {
                self.position = next;
                self.finished = true;
                break;
            }
            let moved = next.distance(&self.position);
            self.position = next;
            let last = objective.evaluate(
                [self.v[0] as f32, self.v[1] as f32],
                self.v[2] as f32,
                cfg.label,
            );
            if !last.cosine.is_finite() || !last.label.is_finite() {
                self.lost = true;
                self.finished = true;
                break;
            }
            self.cosine = last.cosine;
            self.label = last.label;
            self.tangents = last.loss.tangents();
            if cfg.trail_every > 0 && it.is_multiple_of(cfg.trail_every) {
                self.trail.push(self.position);
                on_progress(it, self.position, -f64::from(last.cosine));
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

    /// The result so far (normally called once [`advance`](Self::advance) returned true).
    pub fn finish(mut self, area: (Metres, Metres)) -> DlgResult {
        if self.trail.last() != Some(&self.position) {
            self.trail.push(self.position);
        }
        let (lo, hi) = area;
        let p = self.position;
        let inside =
            p.east >= lo.east && p.east <= hi.east && p.north >= lo.north && p.north <= hi.north;
        DlgResult {
            start: self.start,
            position: p,
            label_dbm: f64::from(self.label),
            iterations: self.iterations,
            converged: self.converged,
            diverged: !inside || self.lost || !self.cosine.is_finite(),
            // 0 (no match) where the match was never defined: the run is diverged anyway.
            neg_cosine: if self.cosine.is_finite() {
                -f64::from(self.cosine)
            } else {
                0.0
            },
            trail: self.trail,
        }
    }
}
