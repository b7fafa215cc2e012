//! One SGD step written out by hand: candle's arithmetic in f32 without a tensor graph (see
//! [`super::train_local_by_hand`] for why), for a model without dropout.

use super::{LocalTraining, Noise, TrainError, privatise_step};
use crate::signal_map::model::{Activation, MlpSpec};
use crate::signal_map::trace::Sample;

/// The flat parameters and the step's buffers (kept between steps, so a step allocates
/// nothing once the first has run).
pub(super) struct Model {
    params: Vec<f32>,
    /// acts[l]: the layer-l inputs of every row of the mini-batch (acts[0] = x), row-major.
    acts: Vec<Vec<f32>>,
    grad: Vec<f32>,
    delta: Vec<f32>,
    below: Vec<f32>,
}

impl Model {
    pub(super) fn new(spec: &MlpSpec, start: &[f32]) -> Self {
        Self {
            params: start.to_vec(),
            acts: vec![Vec::new(); spec.layers().len() + 1],
            grad: vec![0.0; start.len()],
            delta: Vec::new(),
            below: Vec::new(),
        }
    }

    pub(super) fn params(&self) -> &[f32] {
        &self.params
    }

    /// One step on the mini-batch `chunk` of `batch`: forward, MSE, backward, SGD.
    pub(super) fn step(
        &mut self,
        spec: &MlpSpec,
        batch: &[Sample],
        chunk: &[usize],
        cfg: &LocalTraining,
        noise: &mut Noise,
    ) -> Result<(), TrainError> {
        let layers = spec.layers();
        let Self {
            params,
            acts,
            grad,
            delta,
            below,
        } = self;
        let k = chunk.len();
        acts[0].clear();
        acts[0].extend(chunk.iter().flat_map(|&i| batch[i].x));
        for (li, l) in layers.iter().enumerate() {
            let (lower, upper) = acts.split_at_mut(li + 1);
            let (input, out) = (&lower[li], &mut upper[0]);
            out.clear();
            for r in 0..k {
                let a = &input[r * l.inputs..(r + 1) * l.inputs];
                for o in 0..l.outputs {
                    let w = &params[l.w + o * l.inputs..l.w + (o + 1) * l.inputs];
                    let z = params[l.b + o] + w.iter().zip(a).map(|(w, a)| w * a).sum::<f32>();
                    out.push(match l.activation {
                        None => z,
                        Some(Activation::Relu) => z.max(0.0),
                        Some(Activation::Sigmoid) => 1.0 / (1.0 + (-z).exp()),
                        Some(Activation::Tanh) => z.tanh(),
                    });
                }
            }
        }
        // loss = mean (ŷ − y)², ∂loss/∂ŷ = 2(ŷ − y)/k.
        let prediction = &acts[layers.len()];
        let mut loss = 0.0f32;
        delta.clear();
        for (r, &i) in chunk.iter().enumerate() {
            let e = prediction[r] - batch[i].y;
            loss += e * e / k as f32;
            delta.push(2.0 * e / k as f32);
        }
        if !loss.is_finite() {
            return Err(TrainError::Diverged { step: 0 });
        }
        grad.iter_mut().for_each(|g| *g = 0.0);
        for (li, l) in layers.iter().enumerate().rev() {
            let input = &acts[li];
            for r in 0..k {
                let a = &input[r * l.inputs..(r + 1) * l.inputs];
                for o in 0..l.outputs {
                    let d = delta[r * l.outputs + o];
                    grad[l.b + o] += d;
                    for (g, &ai) in grad[l.w + o * l.inputs..l.w + (o + 1) * l.inputs]
                        .iter_mut()
                        .zip(a)
                    {
                        *g += d * ai;
                    }
                }
            }
            if li == 0 {
                break;
            }
            // δ below = (δ W) ⊙ σ'(a), σ' from the activation's output.
            let act = layers[li - 1]
                .activation
                .expect("hidden layers have activations");
            below.clear();
            below.resize(k * l.inputs, 0.0f32);
            for r in 0..k {
                for o in 0..l.outputs {
                    let d = delta[r * l.outputs + o];
                    let w = &params[l.w + o * l.inputs..l.w + (o + 1) * l.inputs];
                    for (bj, &wj) in below[r * l.inputs..(r + 1) * l.inputs].iter_mut().zip(w) {
                        *bj += d * wj;
                    }
                }
            }
            for (bj, &a) in below.iter_mut().zip(input.iter()) {
                *bj *= match act {
                    Activation::Relu => f32::from(u8::from(a > 0.0)),
                    Activation::Sigmoid => a * (1.0 - a),
                    Activation::Tanh => 1.0 - a * a,
                };
            }
            std::mem::swap(delta, below);
        }
        privatise_step(grad, noise);
        for (p, g) in params.iter_mut().zip(grad.iter()) {
            *p -= cfg.learning_rate * g;
        }
        Ok(())
    }
}
