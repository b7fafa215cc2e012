//! One SGD step written out by hand: forward, the MSE loss, backward and the step in f32,
//! without a tensor graph (see [`super::train_local`] for why). Dropout is inverted dropout
//! with Keras' semantics, its masks drawn from the run's own stream; candle's autograd
//! (`super::candle`, native builds only) is the reference a test keeps it equal to.

use super::{LocalTraining, Noise, TrainError, privatise_step};
use crate::signal_map::model::{Activation, MlpSpec};
use crate::signal_map::trace::Sample;
use whereabouts_core::rng::Stream;

/// Mini-batch rows per block of the step's passes: a multiple of four, and small enough that a
/// block's activations (ROWS × the widest layer's inputs) stay in the first-level cache.
const ROWS: usize = 16;

/// The flat parameters and the step's buffers (kept between steps, so a step allocates
/// nothing once the first has run).
pub(super) struct Model {
    params: Vec<f32>,
    /// acts[l]: the layer-l inputs of every row of the mini-batch (acts[0] = x), row-major;
    /// for a hidden layer's output, after dropout.
    acts: Vec<Vec<f32>>,
    /// kept[l]: the activation before dropout of the hidden layer whose output is acts[l],
    /// and masks[l] its dropout mask (0 or 1/(1 − p)); empty without dropout.
    kept: Vec<Vec<f32>>,
    masks: Vec<Vec<f32>>,
    grad: Vec<f32>,
    delta: Vec<f32>,
    below: Vec<f32>,
}

impl Model {
    pub(super) fn new(spec: &MlpSpec, start: &[f32]) -> Self {
        let depth = spec.layers().len() + 1;
        Self {
            params: start.to_vec(),
            acts: vec![Vec::new(); depth],
            kept: vec![Vec::new(); depth],
            masks: vec![Vec::new(); depth],
            grad: vec![0.0; start.len()],
            delta: Vec::new(),
            below: Vec::new(),
        }
    }

    pub(super) fn params(&self) -> &[f32] {
        &self.params
    }

    /// One step on the mini-batch `chunk` of `batch`: forward (dropout masks from `stream`,
    /// layer by layer, row-major, as the candle reference draws them), MSE, backward, SGD.
    pub(super) fn step(
        &mut self,
        spec: &MlpSpec,
        batch: &[Sample],
        chunk: &[usize],
        cfg: &LocalTraining,
        stream: &mut Stream,
        noise: &mut Noise,
    ) -> Result<(), TrainError> {
        let layers = spec.layers();
        let dropout = spec.dropout;
        let keep = (1.0 / (1.0 - dropout)) as f32;
        let Self {
            params,
            acts,
            kept,
            masks,
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
            out.resize(k * l.outputs, 0.0);
            // z = b + w·a for every row: each row's dot product in input order, for two
            // outputs and four rows at a time so that eight independent sums are in flight and
            // each loaded number serves several (the same arithmetic as one at a time, bit for
            // bit; a single sum is bound by the latency of its adds).
            let w = |o: usize| &params[l.w + o * l.inputs..l.w + (o + 1) * l.inputs];
            let row = |r: usize| &input[r * l.inputs..(r + 1) * l.inputs];
            let dot =
                |o: usize, r: usize| w(o).iter().zip(row(r)).fold(0.0f32, |z, (w, a)| z + w * a);
            // Rows in blocks of ROWS, so that the block's inputs stay in cache while every
            // output passes over them (a mini-batch of thousands would stream them from memory
            // once per output pair).
            for r0 in (0..k).step_by(ROWS) {
                let r1 = (r0 + ROWS).min(k);
                let mut o = 0;
                while o + 2 <= l.outputs {
                    let mut r = r0;
                    while r + 4 <= r1 {
                        let (mut z0, mut z1) = ([0.0f32; 4], [0.0f32; 4]);
                        for (((((&u, &v), &a0), &a1), &a2), &a3) in w(o)
                            .iter()
                            .zip(w(o + 1))
                            .zip(row(r))
                            .zip(row(r + 1))
                            .zip(row(r + 2))
                            .zip(row(r + 3))
                        {
                            z0[0] += u * a0;
                            z0[1] += u * a1;
                            z0[2] += u * a2;
                            z0[3] += u * a3;
                            z1[0] += v * a0;
                            z1[1] += v * a1;
                            z1[2] += v * a2;
                            z1[3] += v * a3;
                        }
                        for i in 0..4 {
                            out[(r + i) * l.outputs + o] = z0[i];
                            out[(r + i) * l.outputs + o + 1] = z1[i];
                        }
                        r += 4;
                    }
                    for r in r..r1 {
                        out[r * l.outputs + o] = dot(o, r);
                        out[r * l.outputs + o + 1] = dot(o + 1, r);
                    }
                    o += 2;
                }
                for o in o..l.outputs {
                    for r in r0..r1 {
                        out[r * l.outputs + o] = dot(o, r);
                    }
                }
            }
            for (i, z) in out.iter_mut().enumerate() {
                let z_ = params[l.b + i % l.outputs] + *z;
                *z = match l.activation {
                    None => z_,
                    Some(Activation::Relu) => z_.max(0.0),
                    // libm's, so that native and wasm builds train bit for bit alike.
                    Some(Activation::Sigmoid) => 1.0 / (1.0 + libm::expf(-z_)),
                    Some(Activation::Tanh) => libm::tanhf(z_),
                };
            }
            if l.activation.is_some() && dropout > 0.0 {
                let (h, mask) = (&mut kept[li + 1], &mut masks[li + 1]);
                h.clear();
                h.extend_from_slice(out);
                mask.clear();
                mask.extend(
                    (0..out.len()).map(|_| if stream.chance(dropout) { 0.0 } else { keep }),
                );
                for (a, m) in out.iter_mut().zip(mask.iter()) {
                    *a *= m;
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
            below.clear();
            if li > 0 {
                below.resize(k * l.inputs, 0.0f32);
            }
            // ∂loss/∂b = Σ_rows δ, ∂loss/∂W = Σ_rows δ aᵀ, each entry summed over the rows in
            // order; two weight rows and four mini-batch rows at a time (each entry loaded and
            // stored once per four terms, each input once per eight).
            for o in 0..l.outputs {
                grad[l.b + o] = (0..k).fold(grad[l.b + o], |g, r| g + delta[r * l.outputs + o]);
            }
            let row = |r: usize| &input[r * l.inputs..(r + 1) * l.inputs];
            let weights = &mut grad[l.w..l.w + l.outputs * l.inputs];
            // In blocks of ROWS rows (a multiple of four, so the groups of four are those of
            // the whole batch and every entry's sum keeps its order).
            for r0 in (0..k).step_by(ROWS) {
                let r1 = (r0 + ROWS).min(k);
                let mut pairs = weights.chunks_exact_mut(2 * l.inputs);
                let mut o = 0;
                for pair in &mut pairs {
                    let (g0, g1) = pair.split_at_mut(l.inputs);
                    let mut r = r0;
                    while r + 4 <= r1 {
                        let d = |o: usize| [0, 1, 2, 3].map(|i| delta[(r + i) * l.outputs + o]);
                        let (d0, d1) = (d(o), d(o + 1));
                        for (((((u, v), &a0), &a1), &a2), &a3) in g0
                            .iter_mut()
                            .zip(g1.iter_mut())
                            .zip(row(r))
                            .zip(row(r + 1))
                            .zip(row(r + 2))
                            .zip(row(r + 3))
                        {
                            *u = *u + d0[0] * a0 + d0[1] * a1 + d0[2] * a2 + d0[3] * a3;
                            *v = *v + d1[0] * a0 + d1[1] * a1 + d1[2] * a2 + d1[3] * a3;
                        }
                        r += 4;
                    }
                    for r in r..r1 {
                        let (d0, d1) = (delta[r * l.outputs + o], delta[r * l.outputs + o + 1]);
                        for ((u, v), &a) in g0.iter_mut().zip(g1.iter_mut()).zip(row(r)) {
                            *u += d0 * a;
                            *v += d1 * a;
                        }
                    }
                    o += 2;
                }
                for g in pairs.into_remainder().chunks_exact_mut(l.inputs) {
                    for r in r0..r1 {
                        let d = delta[r * l.outputs + o];
                        for (gj, &a) in g.iter_mut().zip(row(r)) {
                            *gj += d * a;
                        }
                    }
                }
            }
            if li == 0 {
                break;
            }
            // δ below = δ W, each entry summed over the outputs in order, four weight rows at a
            // time (each entry loaded and stored once per four).
            let w = |o: usize| &params[l.w + o * l.inputs..l.w + (o + 1) * l.inputs];
            // In blocks of ROWS rows, the four weight rows outside: they stay in cache while
            // the block's rows pass (each entry still takes the outputs in order).
            for r0 in (0..k).step_by(ROWS) {
                let r1 = (r0 + ROWS).min(k);
                let mut o = 0;
                while o + 4 <= l.outputs {
                    for r in r0..r1 {
                        let b = &mut below[r * l.inputs..(r + 1) * l.inputs];
                        let d = &delta[r * l.outputs..(r + 1) * l.outputs];
                        let (d0, d1, d2, d3) = (d[o], d[o + 1], d[o + 2], d[o + 3]);
                        for ((((bj, &w0), &w1), &w2), &w3) in b
                            .iter_mut()
                            .zip(w(o))
                            .zip(w(o + 1))
                            .zip(w(o + 2))
                            .zip(w(o + 3))
                        {
                            *bj = *bj + d0 * w0 + d1 * w1 + d2 * w2 + d3 * w3;
                        }
                    }
                    o += 4;
                }
                for r in r0..r1 {
                    let b = &mut below[r * l.inputs..(r + 1) * l.inputs];
                    let d = &delta[r * l.outputs..(r + 1) * l.outputs];
                    for (o, &d) in d.iter().enumerate().skip(o) {
                        for (bj, &wj) in b.iter_mut().zip(w(o)) {
                            *bj += d * wj;
                        }
                    }
                }
            }
            // δ below ⊙= mask ⊙ σ'(h), σ' from the activation's output h before dropout.
            let act = layers[li - 1]
                .activation
                .expect("hidden layers have activations");
            let h = if masks[li].is_empty() {
                input
            } else {
                for (bj, &m) in below.iter_mut().zip(masks[li].iter()) {
                    *bj *= m;
                }
                &kept[li]
            };
            for (bj, &a) in below.iter_mut().zip(h.iter()) {
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
