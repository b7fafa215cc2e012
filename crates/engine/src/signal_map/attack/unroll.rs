//! The FedAvg-aware objective: simulate the phone's local training on dummy data and compare
//! the simulated weight change with the observed one, with its exact gradient with respect to
//! every dummy (Dimitrov et al., "Data Leakage in Federated Averaging", TMLR 2022, §4; our
//! reading for the signal-map MLPs, see docs/papers.md).
//!
//! [000]'s Insight I3 (§2.2) says FedAvg's local steps blur DLG: the update sums E·⌈n/B⌉
//! mini-batch steps, each at different weights, and one dummy matched to their sum lands on a
//! blur of them. The server knows the protocol (B, E, η, and n, which FedAvg's weighting sends
//! anyway), so it can do what the phone did: starting from the global weights w₀ it runs the
//! same K local SGD steps on dummies, one dummy point (x_k, y_k) per step standing for that
//! step's mini-batch,
//!
//!   w_{k+1} = w_k − η ∇_w ℓ(x_k, y_k; w_k),   ℓ = (F(x; w) − y)²,
//!
//! and minimises a distance between Δ = w_K − w₀ and the observed Δ_obs = w_after − w_before:
//! the cosine distance 1 − ⟨Δ, Δ_obs⟩/(‖Δ‖‖Δ_obs‖) (as DLG) or ‖Δ − Δ_obs‖²/‖Δ_obs‖².
//!
//! **The gradient.** Reverse through the steps (the adjoint of the unrolled loop): with
//! λ_K = ∂L/∂w_K and g_k = ∇_w ℓ(x_k, y_k; w_k),
//!
//!   ∂L/∂x_k = −η ∂⟨g_k, λ_{k+1}⟩/∂x_k,   λ_k = λ_{k+1} − η H_k λ_{k+1},
//!
//! where H_k = ∂g_k/∂w is the loss's Hessian at w_k (symmetric). Both come from one pass of
//! Pearlmutter's R-operator (forward-mode differentiation of backpropagation in the direction
//! v = λ_{k+1}): R{g} is H v, and since ⟨g, v⟩ = R{ℓ}, its derivative with respect to the input
//! is R{∂ℓ/∂x} = R{W₁ᵀ δ₁}, the R-operator carried one layer further down. candle cannot
//! differentiate twice (docs/DESIGN notes), so this is written out, in f64, and tested against
//! finite differences. A reverse step costs about nine passes over the weights, a forward step
//! three, so an evaluation costs ≈ 12·K·P multiply-adds for P parameters: linear in K.
//!
//! **Memory.** The reverse pass needs every w_k: K + 1 copies of the weights (in f64; the phone
//! trains in f32, a difference far below what the attack resolves). [`MAX_STORED`] bounds K·P.
//!
//! **Dropout.** The server cannot know the phone's dropout masks; it uses their expectation.
//! Under inverted dropout (Keras') a unit's expected output is its output without dropout, so
//! the simulation trains without dropout (an approximation: the expectation of a step is not
//! the step of the expectation).
//!
//! **Labels.** [`StepLabel::Analytic`] gives every step the same residual r̄ = ŷ − y, read off
//! the observed output-bias change (Δb_L = −2η Σ_k r_k, so r̄ = −Δb_L / 2ηK): the simulated
//! output-bias change is then exactly the observed one, and for K = 1 the objective is DLG's
//! with its analytic label at the broadcast weights. [`StepLabel::Joint`] makes each y_k a free
//! variable, optimised with the locations.

use crate::signal_map::model::{Activation, LayerShape, MlpSpec};
use serde::{Deserialize, Serialize};

/// The most numbers the simulated trajectory may hold (K + 1 copies of P weights, f64): 200 MB.
/// The paper's model (145,313 parameters) fits 171 local steps, the small one (4,417) 5,658.
pub const MAX_STORED: usize = 25_000_000;

/// How the simulated and the observed weight changes are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Distance {
    /// 1 − cos(Δ, Δ_obs), DLG's loss: blind to the update's scale.
    Cosine,
    /// ‖Δ − Δ_obs‖² / ‖Δ_obs‖², which sees the scale too.
    L2,
}

/// How each step's dummy label is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepLabel {
    /// Every step's residual is r̄ from the observed output-bias change (default).
    Analytic,
    /// Each y_k is optimised with x_k (from the attacker's mean-label prior).
    Joint,
}

/// Which dummy each local step trains on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dummies {
    /// One dummy per local step: E·⌈n/B⌉ of them (each epoch reshuffles the mini-batches, so
    /// step k of one epoch and step k of the next saw different points).
    PerStep,
    /// One dummy per mini-batch position, shared by the E epochs: ⌈n/B⌉ unknowns, E times
    /// fewer, at the price of ignoring the reshuffle.
    PerMiniBatch,
}

/// The phone's local training as the server knows it: each step's mini-batch size, the dummy
/// it trains on, and η.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalSchedule {
    /// Mini-batch size of each local step, in order (each epoch: ⌈n/B⌉ steps, the last one
    /// holding what is left).
    pub sizes: Vec<usize>,
    /// The dummy step k trains on.
    pub dummy_of: Vec<usize>,
    pub dummies: usize,
    pub learning_rate: f32,
}

impl LocalSchedule {
    /// `n` local samples, B (`None`: ∞), E epochs, η.
    pub fn new(
        n: usize,
        batch_size: Option<usize>,
        epochs: usize,
        learning_rate: f32,
        sharing: Dummies,
    ) -> Self {
        let n = n.max(1);
        let b = batch_size.unwrap_or(n).clamp(1, n);
        let per_epoch: Vec<usize> = (0..n.div_ceil(b)).map(|i| b.min(n - i * b)).collect();
        let m = per_epoch.len();
        let sizes: Vec<usize> = per_epoch
            .iter()
            .copied()
            .cycle()
            .take(m * epochs.max(1))
            .collect();
        let dummy_of = (0..sizes.len())
            .map(|k| match sharing {
                Dummies::PerStep => k,
                Dummies::PerMiniBatch => k % m,
            })
            .collect();
        let dummies = match sharing {
            Dummies::PerStep => sizes.len(),
            Dummies::PerMiniBatch => m,
        };
        Self {
            sizes,
            dummy_of,
            dummies,
            learning_rate,
        }
    }

    /// K, the local steps.
    pub fn steps(&self) -> usize {
        self.sizes.len()
    }

    /// Each dummy's weight in the round's estimate: the points its steps trained on. The
    /// weighted mean of the true step centroids is the LocalBatch's centroid (every point is in
    /// one mini-batch per epoch).
    pub fn dummy_weights(&self) -> Vec<f64> {
        let mut w = vec![0.0; self.dummies];
        for (&d, &s) in self.dummy_of.iter().zip(&self.sizes) {
            w[d] += s as f64;
        }
        w
    }
}

/// One evaluation: the loss, cos(Δ, Δ_obs), and (in the caller's buffer) the gradient.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evaluation {
    pub loss: f64,
    pub cosine: f64,
}

/// The observed update, prepared for repeated evaluation, with its buffers.
pub struct Unrolled {
    layers: Vec<LayerShape>,
    start: Vec<f32>,
    schedule: LocalSchedule,
    observed: Vec<f64>,
    observed_norm: f64,
    /// r̄, the analytic residual of every step.
    residual: f64,
    label: StepLabel,
    distance: Distance,
    /// w₀ … w_K, each P numbers (f64: the gradient is checked against finite differences,
    /// which f32 rounding would drown).
    trajectory: Vec<f64>,
    lambda: Vec<f64>,
    hv: Vec<f64>,
    /// Per layer (index 0 = input): activations, σ′, σ″, R{z}, R{a}.
    a: Vec<Vec<f64>>,
    d1: Vec<Vec<f64>>,
    d2: Vec<Vec<f64>>,
    rz: Vec<Vec<f64>>,
    ra: Vec<Vec<f64>>,
    delta: Vec<f64>,
    rdelta: Vec<f64>,
    back: Vec<f64>,
    rback: Vec<f64>,
}

impl Unrolled {
    /// `start`: w₀, the weights the server broadcast; `after`: the phone's returned weights.
    /// Fails when the trajectory would not fit [`MAX_STORED`].
    pub fn new(
        spec: &MlpSpec,
        start: &[f32],
        after: &[f32],
        schedule: LocalSchedule,
        label: StepLabel,
        distance: Distance,
    ) -> Result<Self, String> {
        let layers = spec.layers();
        let p = spec.parameter_count();
        let k = schedule.steps();
        if (k + 1).saturating_mul(p) > MAX_STORED {
            return Err(format!(
                "simulating {k} local steps of a {p}-parameter model needs {} MB; the limit is \
                 {} MB (fewer epochs or a larger B)",
                (k + 1) * p * 8 / 1_000_000,
                MAX_STORED * 8 / 1_000_000
            ));
        }
        let observed: Vec<f64> = after
            .iter()
            .zip(start)
            .map(|(&a, &b)| f64::from(a) - f64::from(b))
            .collect();
        let observed_norm = observed.iter().map(|v| v * v).sum::<f64>().sqrt();
        let last = layers.last().expect("an MLP has an output layer");
        let eta = f64::from(schedule.learning_rate);
        let residual = -observed[last.b] / (2.0 * eta * k.max(1) as f64);
        let widths: Vec<usize> = std::iter::once(2)
            .chain(layers.iter().map(|l| l.outputs))
            .collect();
        let per_layer = || widths.iter().map(|&w| vec![0.0; w]).collect::<Vec<_>>();
        let widest = widths.iter().copied().max().unwrap_or(2);
        Ok(Self {
            start: start.to_vec(),
            schedule,
            observed,
            observed_norm,
            residual,
            label,
            distance,
            trajectory: vec![0.0; (k + 1) * p],
            lambda: vec![0.0; p],
            hv: vec![0.0; p],
            a: per_layer(),
            d1: per_layer(),
            d2: per_layer(),
            rz: per_layer(),
            ra: per_layer(),
            delta: Vec::with_capacity(widest),
            rdelta: Vec::with_capacity(widest),
            back: Vec::with_capacity(widest),
            rback: Vec::with_capacity(widest),
            layers,
        })
    }

    /// The local training it simulates.
    pub fn schedule(&self) -> &LocalSchedule {
        &self.schedule
    }

    /// ‖Δ_obs‖; zero means the update carries nothing to invert.
    pub fn observed_norm(&self) -> f64 {
        self.observed_norm
    }

    /// r̄, the residual every step gets under [`StepLabel::Analytic`].
    pub fn residual(&self) -> f64 {
        self.residual
    }

    /// The residual ŷ − y of a step whose output is `y_hat` and whose dummy label is `y`.
    fn error(&self, y_hat: f64, y: f64) -> f64 {
        match self.label {
            StepLabel::Analytic => self.residual,
            StepLabel::Joint => y_hat - y,
        }
    }

    /// Forward pass at `w`: activations, σ′ and σ″ (the output layer is linear: 1 and 0).
    fn forward_with(&mut self, layers: &[LayerShape], w: &[f64], x: [f64; 2]) {
        self.a[0].copy_from_slice(&x);
        for (li, l) in layers.iter().enumerate() {
            let (below, above) = self.a.split_at_mut(li + 1);
            let input = &below[li];
            for o in 0..l.outputs {
                let row = &w[l.w + o * l.inputs..l.w + (o + 1) * l.inputs];
                let mut z = w[l.b + o];
                for (&wj, &aj) in row.iter().zip(input) {
                    z += wj * aj;
                }
                let (value, slope, curve) = activate(l.activation, z);
                above[0][o] = value;
                self.d1[li + 1][o] = slope;
                self.d2[li + 1][o] = curve;
            }
        }
    }

    /// Runs the K local steps from w₀ on `dummies` ((x₀, x₁, y) per dummy, standardised
    /// inputs, dBm), storing every w_k. Returns Δ's distance to Δ_obs and the cosine.
    fn simulate(&mut self, dummies: &[[f64; 3]]) -> Evaluation {
        let p = self.start.len();
        let eta = f64::from(self.schedule.learning_rate);
        let mut trajectory = std::mem::take(&mut self.trajectory);
        for (t, &w) in trajectory[..p].iter_mut().zip(&self.start) {
            *t = f64::from(w);
        }
        let layers = std::mem::take(&mut self.layers);
        for k in 0..self.schedule.steps() {
            let d = dummies[self.schedule.dummy_of[k]];
            let (done, rest) = trajectory.split_at_mut((k + 1) * p);
            let w = &done[k * p..];
            let next = &mut rest[..p];
            self.forward_with(&layers, w, [d[0], d[1]]);
            let y_hat = self.a[layers.len()][0];
            self.delta.clear();
            self.delta.push(2.0 * self.error(y_hat, d[2]));
            for li in (0..layers.len()).rev() {
                let l = layers[li];
                let input = &self.a[li];
                for (o, &dl) in self.delta.iter().enumerate() {
                    let at = l.w + o * l.inputs;
                    for j in 0..l.inputs {
                        next[at + j] = w[at + j] - eta * dl * input[j];
                    }
                    next[l.b + o] = w[l.b + o] - eta * dl;
                }
                if li > 0 {
                    self.back.clear();
                    self.back.resize(l.inputs, 0.0);
                    for (o, &dl) in self.delta.iter().enumerate() {
                        let row = &w[l.w + o * l.inputs..l.w + (o + 1) * l.inputs];
                        for (b, &wj) in self.back.iter_mut().zip(row) {
                            *b += wj * dl;
                        }
                    }
                    self.delta.clear();
                    self.delta
                        .extend(self.back.iter().zip(&self.d1[li]).map(|(b, s)| b * s));
                }
            }
        }
        self.layers = layers;
        self.trajectory = trajectory;
        self.distance_to_observed(None)
    }

    /// The loss at w_K, and λ_K = ∂L/∂w_K into `self.lambda` when `gradient` is set.
    fn distance_to_observed(&mut self, gradient: Option<()>) -> Evaluation {
        let p = self.start.len();
        let k = self.schedule.steps();
        let end = &self.trajectory[k * p..(k + 1) * p];
        let (mut dot, mut norm2, mut diff2) = (0.0, 0.0, 0.0);
        for ((&we, &w0), &o) in end.iter().zip(&self.start).zip(&self.observed) {
            let d = we - f64::from(w0);
            dot += d * o;
            norm2 += d * d;
            diff2 += (d - o) * (d - o);
        }
        let norm = norm2.sqrt();
        let on = self.observed_norm;
        let cosine = if norm > 0.0 && on > 0.0 {
            dot / (norm * on)
        } else {
            0.0
        };
        let loss = match self.distance {
            Distance::Cosine => 1.0 - cosine,
            Distance::L2 => diff2 / (on * on),
        };
        if gradient.is_some() {
            for ((l, (&we, &w0)), &o) in self
                .lambda
                .iter_mut()
                .zip(end.iter().zip(&self.start))
                .zip(&self.observed)
            {
                let d = we - f64::from(w0);
                *l = match self.distance {
                    Distance::Cosine if norm > 0.0 && on > 0.0 => {
                        -(o / (norm * on) - cosine * d / norm2)
                    }
                    Distance::Cosine => 0.0,
                    Distance::L2 => 2.0 * (d - o) / (on * on),
                };
            }
        }
        Evaluation { loss, cosine }
    }

    /// The loss only (finite-difference tests; the optimiser uses [`evaluate`](Self::evaluate)).
    pub fn loss(&mut self, dummies: &[[f64; 3]]) -> Evaluation {
        self.simulate(dummies)
    }

    /// The loss and, into `grad` (one (∂x₀, ∂x₁, ∂y) per dummy; ∂y is 0 under an analytic
    /// label), its exact gradient.
    pub fn evaluate(&mut self, dummies: &[[f64; 3]], grad: &mut [[f64; 3]]) -> Evaluation {
        assert_eq!(dummies.len(), self.schedule.dummies, "one dummy per slot");
        assert_eq!(grad.len(), dummies.len(), "one gradient per dummy");
        let evaluation = self.simulate(dummies);
        self.distance_to_observed(Some(()));
        grad.iter_mut().for_each(|g| *g = [0.0; 3]);
        let p = self.start.len();
        let eta = f64::from(self.schedule.learning_rate);
        let joint = self.label == StepLabel::Joint;
        let layers = std::mem::take(&mut self.layers);
        let depth = layers.len();
        for k in (0..self.schedule.steps()).rev() {
            let slot = self.schedule.dummy_of[k];
            let d = dummies[slot];
            let trajectory = std::mem::take(&mut self.trajectory);
            let w = &trajectory[k * p..(k + 1) * p];
            self.forward_with(&layers, w, [d[0], d[1]]);
            // R-forward: R{z} = V a + vb + W R{a}, R{a} = σ′ R{z} (R{a₀} = 0: x is data).
            let v = &self.lambda;
            self.ra[0].fill(0.0);
            for (li, l) in layers.iter().enumerate() {
                for o in 0..l.outputs {
                    let at = l.w + o * l.inputs;
                    let mut rz = v[l.b + o];
                    for j in 0..l.inputs {
                        rz += v[at + j] * self.a[li][j] + w[at + j] * self.ra[li][j];
                    }
                    self.rz[li + 1][o] = rz;
                    self.ra[li + 1][o] = self.d1[li + 1][o] * rz;
                }
            }
            let y_hat = self.a[depth][0];
            let r_y_hat = self.ra[depth][0];
            let e = self.error(y_hat, d[2]);
            self.delta.clear();
            self.delta.push(2.0 * e);
            self.rdelta.clear();
            self.rdelta.push(if joint { 2.0 * r_y_hat } else { 0.0 });
            for li in (0..depth).rev() {
                let l = layers[li];
                // H v for this layer: R{δ} aᵀ + δ R{a}ᵀ, and R{δ} for the bias.
                for o in 0..l.outputs {
                    let (dl, rdl) = (self.delta[o], self.rdelta[o]);
                    let at = l.w + o * l.inputs;
                    for j in 0..l.inputs {
                        self.hv[at + j] = rdl * self.a[li][j] + dl * self.ra[li][j];
                    }
                    self.hv[l.b + o] = rdl;
                }
                // Down one layer: Wᵀδ and R{Wᵀδ} = Vᵀδ + Wᵀ R{δ}.
                self.back.clear();
                self.back.resize(l.inputs, 0.0);
                self.rback.clear();
                self.rback.resize(l.inputs, 0.0);
                for o in 0..l.outputs {
                    let (dl, rdl) = (self.delta[o], self.rdelta[o]);
                    let at = l.w + o * l.inputs;
                    for j in 0..l.inputs {
                        let wj = w[at + j];
                        self.back[j] += wj * dl;
                        self.rback[j] += v[at + j] * dl + wj * rdl;
                    }
                }
                if li > 0 {
                    self.delta.clear();
                    self.rdelta.clear();
                    for j in 0..l.inputs {
                        let (s1, s2) = (self.d1[li][j], self.d2[li][j]);
                        self.delta.push(self.back[j] * s1);
                        self.rdelta
                            .push(self.rback[j] * s1 + self.back[j] * s2 * self.rz[li][j]);
                    }
                }
            }
            // ∂L/∂x_k = −η R{∂ℓ/∂x}; ∂L/∂y_k = −η R{∂ℓ/∂y} = −η · (−2 R{ŷ}).
            let g = &mut grad[slot];
            g[0] -= eta * self.rback[0];
            g[1] -= eta * self.rback[1];
            if joint {
                g[2] += eta * 2.0 * r_y_hat;
            }
            // λ_k = λ_{k+1} − η H_k λ_{k+1} (not needed below step 0).
            if k > 0 {
                for (l, h) in self.lambda.iter_mut().zip(&self.hv) {
                    *l -= eta * h;
                }
            }
            self.trajectory = trajectory;
        }
        self.layers = layers;
        evaluation
    }

    /// Each step's output ŷ at the end of the last evaluation's simulation, minus its residual:
    /// the dummy labels in dBm (the analytic ones, or the joint ones as given).
    pub fn labels(&mut self, dummies: &[[f64; 3]]) -> Vec<f64> {
        let p = self.start.len();
        let mut labels = vec![f64::NAN; dummies.len()];
        let trajectory = std::mem::take(&mut self.trajectory);
        for k in 0..self.schedule.steps() {
            let slot = self.schedule.dummy_of[k];
            if !labels[slot].is_nan() {
                continue;
            }
            let d = dummies[slot];
            labels[slot] = match self.label {
                StepLabel::Joint => d[2],
                StepLabel::Analytic => {
                    let layers = std::mem::take(&mut self.layers);
                    self.forward_with(&layers, &trajectory[k * p..(k + 1) * p], [d[0], d[1]]);
                    self.layers = layers;
                    self.a[self.layers.len()][0] - self.residual
                }
            };
        }
        self.trajectory = trajectory;
        labels
    }
}

/// σ(z), σ′(z), σ″(z); the output layer (no activation) is the identity.
#[inline(always)]
fn activate(act: Option<Activation>, z: f64) -> (f64, f64, f64) {
    match act {
        None => (z, 1.0, 0.0),
        Some(Activation::Relu) => {
            if z > 0.0 {
                (z, 1.0, 0.0)
            } else {
                (0.0, 0.0, 0.0)
            }
        }
        Some(Activation::Sigmoid) => {
            let s = 1.0 / (1.0 + libm::exp(-z));
            let ds = s * (1.0 - s);
            (s, ds, ds * (1.0 - 2.0 * s))
        }
        Some(Activation::Tanh) => {
            let t = libm::tanh(z);
            let dt = 1.0 - t * t;
            (t, dt, -2.0 * t * dt)
        }
    }
}
