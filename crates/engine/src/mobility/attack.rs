//! One round's gradient inversion ([002] §3, Algorithm 1 lines 4–12): from a starting dummy
//! window and label, an optimiser drives the distance between the dummy's gradient and the
//! observed one down for a number of iterations; after each, the road mapping (if on) moves
//! every dummy position to the nearest valid point (the label is not mapped, as in the authors'
//! code). Every iterate is kept, for the attack-iteration metric (AIT) and the page's trail.

use super::adjoint;
use super::lstm::{self, INPUT, OUTPUT, WINDOW, Window};
use super::objective::{Distance, Observed, UNKNOWNS};
use super::optim::{Lbfgs, Point};
use serde::{Deserialize, Serialize};
use whereabouts_core::dual::Dual;
use whereabouts_core::optim::Adam;

/// The optimiser and its learning rate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Optimiser {
    /// PyTorch's L-BFGS, up to 20 evaluations per iteration (the authors': lr 0.01).
    Lbfgs { lr: f32 },
    /// Adam, one evaluation per iteration (InvGrad's in the authors' code: lr 0.0005).
    Adam { lr: f32 },
    /// The plain gradient step of [002] Algorithm 1 line 10, x ← x − η∇ₓD, one evaluation per
    /// iteration (the paper gives no η; docs/papers.md).
    Gradient { lr: f32 },
}

/// How one round is inverted.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct InversionSettings {
    pub distance: Distance,
    pub optimiser: Optimiser,
    /// Attack iterations (the paper's limit: 200).
    pub iterations: usize,
    /// The road mapping moves the label too ([002] Algorithm 1 line 11 maps (x′, y′); the
    /// authors' code maps the window only).
    #[serde(default)]
    pub map_label: bool,
    /// Stop before the limit once an iteration leaves the dummy where it was (§3.4: "when the
    /// preset maximum number of iterations N is reached or the dummy data no longer changes").
    #[serde(default)]
    pub stop_when_still: bool,
}

impl Default for InversionSettings {
    fn default() -> Self {
        InversionSettings {
            distance: Distance::RowL2,
            optimiser: Optimiser::Lbfgs { lr: 0.01 },
            iterations: 200,
            map_label: false,
            stop_when_still: false,
        }
    }
}

/// The dummy at one iteration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Iterate {
    pub window: Window<f32>,
    pub label: [f32; OUTPUT],
    /// The distance before the iteration's step.
    pub distance: f32,
}

/// What one round's attack found.
#[derive(Clone, Debug, PartialEq)]
pub struct Inversion {
    pub window: Window<f32>,
    pub label: [f32; OUTPUT],
    /// Every iterate, after its mapping (index i: after iteration i + 1).
    pub trail: Vec<Iterate>,
    /// Evaluations of the objective in all.
    pub evaluations: usize,
    /// The optimiser left the finite numbers (the result is the last finite iterate), or the
    /// window it ends on has left the city ([`left_the_city`]).
    pub diverged: bool,
}

/// The box, in the target's normalised coordinates (its own trajectory spans [0, 1] on each
/// axis), that a reconstruction must end inside: ten times the trajectory's extent beyond it
/// on every side. L-BFGS without a line search can take a finite step to millions of
/// kilometres; such a window recovers nothing, and scoring it would swamp every mean. The
/// bound is the project's (the paper reports none): wide enough that no attack that is still
/// searching the city is cut off.
pub const CITY_BOX: (f32, f32) = (-10.0, 11.0);

/// Whether any point of `window` lies outside [`CITY_BOX`].
pub fn left_the_city(window: &Window<f32>) -> bool {
    window
        .iter()
        .flatten()
        .any(|&v| !(CITY_BOX.0..=CITY_BOX.1).contains(&v))
}

fn pack(window: &Window<f32>, label: &[f32; OUTPUT]) -> Point {
    let mut z = [0.0; UNKNOWNS];
    for t in 0..WINDOW {
        z[t * INPUT..(t + 1) * INPUT].copy_from_slice(&window[t]);
    }
    z[WINDOW * INPUT..].copy_from_slice(label);
    z
}

fn unpack(z: &Point) -> (Window<f32>, [f32; OUTPUT]) {
    (
        std::array::from_fn(|t| [z[t * INPUT], z[t * INPUT + 1]]),
        [z[WINDOW * INPUT], z[WINDOW * INPUT + 1]],
    )
}

/// Terms some attacks add to the gradient distance.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Extras {
    /// CPL's label-based regularizer as the authors' code has it: + ‖F(X'; w) − target‖₂, the
    /// distance of the model's output on the dummy window from its output on the true window
    /// (privileged knowledge, [002] Table 1).
    pub output_target: Option<[f32; OUTPUT]>,
    /// InvGrad's total-variation term, weighted: + w · Σ_k ‖x'_{k+1} − x'_k‖₂, the trajectory's
    /// length (the digest's reading of a TV norm for a sequence of positions).
    pub tv_weight: f32,
}

/// The extras' value and their gradient, added to `(value, gradient)`.
fn add_extras(params: &[f32], extras: &Extras, z: &Point, value: &mut f32, gradient: &mut Point) {
    if let Some(target) = extras.output_target {
        type D = Dual<UNKNOWNS>;
        let w: Window<D> = std::array::from_fn(|t| {
            std::array::from_fn(|c| D::variable(z[t * INPUT + c], t * INPUT + c))
        });
        let out = lstm::output(params, &w);
        let mut sq = D::ZERO;
        for k in 0..OUTPUT {
            let e = out[k] - D::constant(target[k]);
            sq += e * e;
        }
        // PyTorch's norm has a zero subgradient at 0.
        if sq.v > 0.0 {
            let n = sq.sqrt();
            *value += n.v;
            for (g, d) in gradient.iter_mut().zip(n.d) {
                *g += d;
            }
        }
    }
    if extras.tv_weight > 0.0 {
        for t in 0..WINDOW - 1 {
            let (a, b) = (t * INPUT, (t + 1) * INPUT);
            let (dx, dy) = (z[b] - z[a], z[b + 1] - z[a + 1]);
            let n = (dx * dx + dy * dy).sqrt();
            *value += extras.tv_weight * n;
            if n > 0.0 {
                let (gx, gy) = (extras.tv_weight * dx / n, extras.tv_weight * dy / n);
                gradient[b] += gx;
                gradient[b + 1] += gy;
                gradient[a] -= gx;
                gradient[a + 1] -= gy;
            }
        }
    }
}

enum State {
    Lbfgs(Lbfgs),
    /// `torch.optim.Adam(lr)` with its defaults: the core's Adam on the unknowns.
    Adam {
        lr: f32,
        adam: Adam<f32, UNKNOWNS>,
    },
    Gradient {
        lr: f32,
    },
}

/// One round's inversion, an iteration at a time (the page's worker works in slices).
pub struct Inverter {
    settings: InversionSettings,
    extras: Extras,
    label_free: bool,
    z: Point,
    state: State,
    pub trail: Vec<Iterate>,
    pub evaluations: usize,
    /// A step left the finite numbers (L-BFGS without a line search can): the round stops at
    /// the last finite iterate.
    pub diverged: bool,
    /// The last iteration left the dummy where it was (with [`InversionSettings::stop_when_still`]
    /// the round stops there).
    pub still: bool,
}

impl Inverter {
    /// Starts inverting from `start`. With `known_label` the label is not an unknown (iDLG,
    /// CPL).
    pub fn new(
        settings: InversionSettings,
        extras: Extras,
        start: (Window<f32>, [f32; OUTPUT]),
        known_label: Option<[f32; OUTPUT]>,
    ) -> Inverter {
        Inverter {
            settings,
            extras,
            label_free: known_label.is_none(),
            z: pack(&start.0, &known_label.unwrap_or(start.1)),
            state: match settings.optimiser {
                Optimiser::Lbfgs { lr } => State::Lbfgs(Lbfgs::new(lr)),
                Optimiser::Adam { lr } => State::Adam {
                    lr,
                    adam: Adam::new(),
                },
                Optimiser::Gradient { lr } => State::Gradient { lr },
            },
            trail: Vec::with_capacity(settings.iterations),
            evaluations: 0,
            diverged: false,
            still: false,
        }
    }

    pub fn done(&self) -> bool {
        self.diverged
            || (self.settings.stop_when_still && self.still)
            || self.trail.len() >= self.settings.iterations
    }

    /// The current dummy window and label.
    pub fn current(&self) -> (Window<f32>, [f32; OUTPUT]) {
        unpack(&self.z)
    }

    /// One iteration: the optimiser's step on the objective (`observed` under `params`), then
    /// the road mapping `map` of every dummy position, if given.
    pub fn step(
        &mut self,
        params: &[f32],
        observed: &Observed,
        map: Option<&dyn Fn([f32; INPUT]) -> [f32; INPUT]>,
    ) {
        let (distance, label_free, extras) = (self.settings.distance, self.label_free, self.extras);
        let mut f = |z: &Point| {
            let (w, y) = unpack(z);
            let e = adjoint::evaluate(params, observed, distance, &w, &y, label_free);
            let (mut value, mut gradient) = (e.value, e.gradient);
            add_extras(params, &extras, z, &mut value, &mut gradient);
            (value, gradient)
        };
        let before = self.z;
        let (value, n) = match &mut self.state {
            State::Lbfgs(o) => o.step(&mut self.z, &mut f),
            State::Adam { lr, adam } => {
                let (value, gradient) = f(&self.z);
                let step = adam.step(*lr, &gradient);
                for (z, step) in self.z.iter_mut().zip(step) {
                    *z -= step;
                }
                (value, 1)
            }
            State::Gradient { lr } => {
                let (value, gradient) = f(&self.z);
                for (z, g) in self.z.iter_mut().zip(gradient) {
                    *z -= *lr * g;
                }
                (value, 1)
            }
        };
        self.evaluations += n;
        if !value.is_finite() || self.z.iter().any(|v| !v.is_finite()) {
            self.z = before;
            self.diverged = true;
            return;
        }
        if let Some(map) = map {
            // The label is mapped only where it is an unknown (iDLG and CPL are given it).
            let mapped = WINDOW + usize::from(self.settings.map_label && self.label_free);
            for t in 0..mapped {
                let p = map([self.z[t * INPUT], self.z[t * INPUT + 1]]);
                self.z[t * INPUT..(t + 1) * INPUT].copy_from_slice(&p);
            }
        }
        self.still = self.z == before;
        let (window, label) = unpack(&self.z);
        self.trail.push(Iterate {
            window,
            label,
            distance: value,
        });
    }

    pub fn finish(self) -> Inversion {
        let (window, label) = unpack(&self.z);
        Inversion {
            window,
            label,
            trail: self.trail,
            evaluations: self.evaluations,
            diverged: self.diverged || left_the_city(&window),
        }
    }
}

/// Inverts `observed` (the gradient of one window under `params`) from `start`, all iterations
/// at once. With `known_label` the label is not an unknown (iDLG, CPL). `map` moves a position
/// to the nearest valid point (the road mapping), or leaves it.
pub fn invert(
    params: &[f32],
    observed: &Observed,
    settings: &InversionSettings,
    start: (Window<f32>, [f32; OUTPUT]),
    known_label: Option<[f32; OUTPUT]>,
    map: Option<&dyn Fn([f32; INPUT]) -> [f32; INPUT]>,
) -> Inversion {
    let mut inv = Inverter::new(*settings, Extras::default(), start, known_label);
    while !inv.done() {
        inv.step(params, observed, map);
    }
    inv.finish()
}
