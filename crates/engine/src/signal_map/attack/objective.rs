//! The DLG objective for one dummy point, with its exact gradient (Algorithm 2's inner loop).
//!
//! The server observed g_obs (a model update turned into a gradient, see `attack::observed`)
//! and searches for a dummy (x′, y′) whose gradient g′ = ∇_w (F(x′; w) − y′)² points the same
//! way: it minimises the cosine distance 1 − ⟨g′, g_obs⟩ / (‖g′‖ ‖g_obs‖) ([000] §2.1,
//! Algorithm 2) over all parameters concatenated, as Geiping et al. do ([000] does not say
//! whether per layer or over all; our choice, see docs/papers.md).
//!
//! candle has no second-order autograd (in wasm its `backward()` gives gradients that are
//! silently wrong to differentiate again, measured when the project began), so the objective
//! is written out. For a single dummy point each layer's weight gradient is an outer product δₗ aₗ₋₁ᵀ, so
//! g′ never has to exist:
//!
//! ⟨g′, g_obs⟩ = Σₗ δₗᵀ (Gₗ aₗ₋₁) + δₗ · gbₗ,   ‖g′‖² = Σₗ ‖δₗ‖² (‖aₗ₋₁‖² + 1)
//!
//! where Gₗ, gbₗ are the observed gradient's blocks. That is three matrix–vector products per
//! layer (forward Wa, observed Ga, backward Wᵀδ), evaluated on dual numbers so one pass yields
//! the loss and its exact derivatives with respect to x′₀, x′₁ and y′ (tested against finite
//! differences).
//!
//! **The label.** With one dummy point and MSE, g′ = 2(ŷ − y′)·∇_w ŷ(x′): y′ changes only the
//! scale and sign of g′, so cosine alone cannot recover it. [`LabelMode::Analytic`]
//! (the default) removes it: the last layer's bias gradient of the batch is its mean residual
//! times 2, so the server sets y′ = ŷ(x′) − ĝ_b/2 with ĝ_b = gb_L / (local steps), which gives the
//! dummy the batch's residual — the right sign always, and the right label at the optimum.
//! [`LabelMode::Joint`] is the paper's literal choice (y′ optimised with x′ from the prior mean);
//! [`LabelMode::JointL2`] adds an ‖g′ − g_obs‖²/‖g_obs‖² term that can see the label's scale.

use super::kernel::{self, Kernel};
use crate::signal_map::model::{Activation, LayerShape, MlpSpec};
use serde::{Deserialize, Serialize};
use whereabouts_core::dual::Dual;

/// The loss's numbers: a value and its three tangents ∂/∂x′₀, ∂/∂x′₁ (the dummy location) and
/// ∂/∂y′ (the dummy label) — four f32 lanes, so every multiply-add of a constant weight by one
/// is a 4-wide vector operation on SIMD hardware.
pub type D4 = Dual<3>;

/// How the dummy label y′ is treated.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "mode")]
pub enum LabelMode {
    /// y′ = ŷ(x′) − ĝ_b/2 from the observed last-bias gradient (default).
    Analytic,
    /// y′ optimised jointly by the cosine loss, starting from the prior (the paper's literal
    /// Algorithm 2; the cosine is blind to it except for its sign).
    Joint,
    /// Joint, plus `weight`·‖g′ − g_obs‖²/‖g_obs‖², which sees the label's scale.
    JointL2 { weight: f32 },
}

/// What one evaluation returns.
#[derive(Clone, Copy, Debug)]
pub struct Evaluation {
    /// The loss with ∂/∂x′₀, ∂/∂x′₁, ∂/∂y′ as tangents.
    pub loss: D4,
    /// cos(g′, g_obs); the paper plots −cos (≤ −0.9988 at convergence).
    pub cosine: f32,
    /// The dummy label used (equal to the input y′ unless analytic).
    pub label: f32,
}

/// The observed update, prepared for repeated evaluation, with preallocated buffers.
pub struct Objective<'a> {
    layers: Vec<LayerShape>,
    weights: &'a [f32],
    observed: &'a [f32],
    observed_norm: f32,
    /// ĝ_b: the observed last-bias gradient per local step (2 × mean residual).
    mean_residual2: f32,
    /// Activations per layer (index 0 = input) and activation derivatives per hidden layer.
    acts: Vec<Vec<D4>>,
    slopes: Vec<Vec<D4>>,
    /// Per layer: the inputs that are not identically zero (a ReLU that is off contributes
    /// exact zeros to every pass, so skipping it changes no sum), and those inputs compacted.
    active: Vec<Vec<usize>>,
    compact: Vec<Vec<D4>>,
    /// Per layer: Gₗ aₗ₋₁ + gbₗ, fused into the forward pass.
    observed_product: Vec<Vec<D4>>,
    delta: Vec<D4>,
    back: Vec<D4>,
    /// The passes' kernel: the one installed when the objective was made.
    kernel: &'static dyn Kernel,
}

impl<'a> Objective<'a> {
    /// `weights`: where the dummy gradient is taken; `observed`: g_obs in the flat layout;
    /// `steps`: the local SGD steps behind the update (1 for FedSGD).
    pub fn new(spec: &MlpSpec, weights: &'a [f32], observed: &'a [f32], steps: usize) -> Self {
        let layers = spec.layers();
        let last = layers.last().expect("an MLP has an output layer");
        let observed_norm = libm::sqrt(
            observed
                .iter()
                .map(|&g| f64::from(g) * f64::from(g))
                .sum::<f64>(),
        ) as f32;
        let widest = layers
            .iter()
            .map(|l| l.inputs.max(l.outputs))
            .max()
            .unwrap_or(1);
        Self {
            acts: std::iter::once(vec![D4::ZERO; 2])
                .chain(layers.iter().map(|l| vec![D4::ZERO; l.outputs]))
                .collect(),
            slopes: layers.iter().map(|l| vec![D4::ZERO; l.outputs]).collect(),
            active: layers
                .iter()
                .map(|l| Vec::with_capacity(l.inputs))
                .collect(),
            compact: layers
                .iter()
                .map(|l| Vec::with_capacity(l.inputs))
                .collect(),
            observed_product: layers.iter().map(|l| vec![D4::ZERO; l.outputs]).collect(),
            delta: Vec::with_capacity(widest),
            back: vec![D4::ZERO; widest],
            mean_residual2: observed[last.b] / steps.max(1) as f32,
            kernel: kernel::current(),
            layers,
            weights,
            observed,
            observed_norm,
        }
    }

    /// ‖g_obs‖; zero means the update carries no information (a converged model, I2).
    pub fn observed_norm(&self) -> f32 {
        self.observed_norm
    }

    /// The loss at (x′, y′) and its exact derivatives.
    pub fn evaluate(&mut self, x: [f32; 2], y: f32, mode: LabelMode) -> Evaluation {
        let w = self.weights;
        let g = self.observed;
        // Forward pass on duals, with the observed product Ga computed alongside.
        self.acts[0][0] = D4::variable(x[0], 0);
        self.acts[0][1] = D4::variable(x[1], 1);
        for (li, l) in self.layers.iter().enumerate() {
            let (below, above) = self.acts.split_at_mut(li + 1);
            let input = &below[li];
            let active = &mut self.active[li];
            let compact = &mut self.compact[li];
            active.clear();
            compact.clear();
            for (j, &a) in input.iter().enumerate() {
                let live = a != D4::ZERO || (li > 0 && self.slopes[li - 1][j] != D4::ZERO);
                if live {
                    active.push(j);
                    compact.push(a);
                }
            }
            let out = &mut above[0];
            let matrix = l.w..l.w + l.outputs * l.inputs;
            let bias = l.b..l.b + l.outputs;
            self.kernel.forward(
                &w[matrix.clone()],
                &g[matrix],
                &w[bias.clone()],
                &g[bias],
                l.inputs,
                active,
                compact,
                out,
                &mut self.observed_product[li],
            );
            if let Some(act) = l.activation {
                for (z, slope) in out.iter_mut().zip(self.slopes[li].iter_mut()) {
                    (*z, *slope) = activate(act, *z);
                }
            }
        }
        let y_hat = self.acts[self.layers.len()][0];
        let (residual2, label) = match mode {
            LabelMode::Analytic => (
                D4::constant(self.mean_residual2),
                y_hat.value() - self.mean_residual2 / 2.0,
            ),
            LabelMode::Joint | LabelMode::JointL2 { .. } => {
                ((y_hat - D4::variable(y, 2)).scale(2.0), y)
            }
        };

        // Backward pass, accumulating ⟨g′, g_obs⟩ and ‖g′‖² layer by layer.
        let mut dot = D4::ZERO;
        let mut norm2 = D4::ZERO;
        self.delta.clear();
        self.delta.push(residual2);
        for li in (0..self.layers.len()).rev() {
            let l = self.layers[li];
            let mut input_norm2 = D4::constant(1.0);
            for a in &self.compact[li] {
                input_norm2 += *a * *a;
            }
            for (&d, &ga) in self.delta.iter().zip(&self.observed_product[li]) {
                dot += d * ga;
                norm2 += d * d * input_norm2;
            }
            if li > 0 {
                let active = &self.active[li];
                let back = &mut self.back[..active.len()];
                let matrix = l.w..l.w + l.outputs * l.inputs;
                self.kernel
                    .backward(&w[matrix], l.inputs, &self.delta, active, back);
                let slopes = &self.slopes[li - 1];
                self.delta.clear();
                self.delta.resize(l.inputs, D4::ZERO);
                for (&b, &j) in back.iter().zip(active) {
                    self.delta[j] = b * slopes[j];
                }
            }
        }

        let norm = norm2.sqrt();
        let cosine = dot * (norm.scale(self.observed_norm)).recip();
        let mut loss = D4::constant(1.0) - cosine;
        if let LabelMode::JointL2 { weight } = mode {
            // ‖g′ − g_obs‖² = ‖g′‖² − 2⟨g′, g_obs⟩ + ‖g_obs‖², normalised by ‖g_obs‖².
            let on2 = self.observed_norm * self.observed_norm;
            let l2 = (norm2 - dot.scale(2.0) + D4::constant(on2)).scale(1.0 / on2);
            loss += l2.scale(weight);
        }
        Evaluation {
            loss,
            cosine: cosine.value(),
            label,
        }
    }
}

/// σ(z) and σ′(z) as duals (σ′ carries its own derivative so δ's tangents are exact).
#[inline(always)]
fn activate(act: Activation, z: D4) -> (D4, D4) {
    let v = z.value();
    match act {
        Activation::Relu => {
            if v > 0.0 {
                (z, D4::constant(1.0))
            } else {
                (D4::ZERO, D4::ZERO)
            }
        }
        Activation::Sigmoid => {
            let s = 1.0 / (1.0 + libm::expf(-v));
            let ds = s * (1.0 - s);
            (z.chain(s, ds), z.chain(ds, ds * (1.0 - 2.0 * s)))
        }
        Activation::Tanh => {
            let t = libm::tanhf(v);
            let dt = 1.0 - t * t;
            (z.chain(t, dt), z.chain(dt, -2.0 * t * dt))
        }
    }
}
