//! One round's gradient inversion ([002] §3, Algorithm 1 lines 4–12): from a starting dummy
//! window and label, an optimiser drives the distance between the dummy's gradient and the
//! observed one down for a number of iterations; after each, the road mapping (if on) moves
//! every dummy position to the nearest valid point (the label is not mapped, as in the authors'
//! code). Every iterate is kept, for the attack-iteration metric (AIT) and the page's trail.

use super::adjoint;
use super::lstm::{INPUT, OUTPUT, WINDOW, Window};
use super::objective::{Distance, Observed, UNKNOWNS};
use super::optim::{Adam, Lbfgs, Point};
use serde::{Deserialize, Serialize};

/// The optimiser and its learning rate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Optimiser {
    /// PyTorch's L-BFGS, up to 20 evaluations per iteration (the authors': lr 0.01).
    Lbfgs { lr: f32 },
    /// Adam, one evaluation per iteration (InvGrad's in the authors' code: lr 0.0005).
    Adam { lr: f32 },
}

/// How one round is inverted.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct InversionSettings {
    pub distance: Distance,
    pub optimiser: Optimiser,
    /// Attack iterations (the paper's limit: 200).
    pub iterations: usize,
}

impl Default for InversionSettings {
    fn default() -> Self {
        InversionSettings {
            distance: Distance::RowL2,
            optimiser: Optimiser::Lbfgs { lr: 0.01 },
            iterations: 200,
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

/// Inverts `observed` (the gradient of one window under `params`) from `start`. With
/// `known_label` the label is not an unknown (iDLG, CPL). `map` moves a position to the nearest
/// valid point (the road mapping), or leaves it.
pub fn invert(
    params: &[f32],
    observed: &Observed,
    settings: &InversionSettings,
    start: (Window<f32>, [f32; OUTPUT]),
    known_label: Option<[f32; OUTPUT]>,
    map: Option<&dyn Fn([f32; INPUT]) -> [f32; INPUT]>,
) -> Inversion {
    let label_free = known_label.is_none();
    let mut z = pack(&start.0, &known_label.unwrap_or(start.1));
    let mut evaluations = 0;
    let mut f = |z: &Point| {
        let (w, y) = unpack(z);
        let e = adjoint::evaluate(params, observed, settings.distance, &w, &y, label_free);
        (e.value, e.gradient)
    };
    let mut lbfgs = match settings.optimiser {
        Optimiser::Lbfgs { lr } => Some(Lbfgs::new(lr)),
        Optimiser::Adam { .. } => None,
    };
    let mut adam = match settings.optimiser {
        Optimiser::Adam { lr } => Some(Adam::new(lr)),
        Optimiser::Lbfgs { .. } => None,
    };
    let mut trail = Vec::with_capacity(settings.iterations);
    for _ in 0..settings.iterations {
        let (value, n) = match (&mut lbfgs, &mut adam) {
            (Some(o), _) => o.step(&mut z, &mut f),
            (_, Some(o)) => o.step(&mut z, &mut f),
            _ => unreachable!("one optimiser"),
        };
        evaluations += n;
        if let Some(map) = map {
            for t in 0..WINDOW {
                let p = map([z[t * INPUT], z[t * INPUT + 1]]);
                z[t * INPUT..(t + 1) * INPUT].copy_from_slice(&p);
            }
        }
        let (window, label) = unpack(&z);
        trail.push(Iterate {
            window,
            label,
            distance: value,
        });
    }
    let (window, label) = unpack(&z);
    Inversion {
        window,
        label,
        trail,
        evaluations,
    }
}
