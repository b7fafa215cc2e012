//! Local training on a device, with candle: plain SGD on the MSE loss (Algorithm 1,
//! UserUpdate). `E` epochs over the LocalBatch cut into mini-batches of size `B` (B = ∞: one
//! mini-batch, so E = 1, B = ∞ is FedSGD, one exact gradient step).
//!
//! Mini-batches are drawn from a fresh seeded shuffle each epoch, as Keras' `fit` does by
//! default (the paper's implementation language; the paper itself is silent). Dropout masks
//! (inverted dropout, Keras semantics) come from the same seeded stream rather than candle's own
//! RNG, so runs are reproducible.

use super::MlpSpec;
use crate::signal_map::trace::Sample;
use candle_core::{Device, Tensor, Var};
use serde::{Deserialize, Serialize};
use whereabouts_core::privacy::gaussian::clip_and_noise;
use whereabouts_core::rng::Stream;

/// Local optimisation settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalTraining {
    /// Mini-batch size; `None` is B = ∞.
    pub batch_size: Option<usize>,
    pub epochs: usize,
    pub learning_rate: f32,
}

/// What local training produced.
#[derive(Clone, Debug)]
pub struct LocalResult {
    pub params: Vec<f32>,
    /// SGD steps taken (E · ⌈n / B⌉).
    pub steps: usize,
    /// The mean (standardised) input of each step's mini-batch, in order: what each step's
    /// gradient points at (Insight I3: the update the server sees sums all of them).
    pub batch_means: Vec<[f32; 2]>,
}

/// Training failed; says why in words.
#[derive(Clone, Debug, PartialEq)]
pub enum TrainError {
    /// The loss or weights became NaN/∞ (learning rate too high for this model and data).
    Diverged {
        step: usize,
    },
    Candle(String),
}

impl std::fmt::Display for TrainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrainError::Diverged { step } => write!(
                f,
                "the model diverged at local step {step} (the loss became infinite); \
                 lower the learning rate"
            ),
            TrainError::Candle(e) => write!(f, "training failed inside candle: {e}"),
        }
    }
}

impl From<candle_core::Error> for TrainError {
    fn from(e: candle_core::Error) -> Self {
        TrainError::Candle(e.to_string())
    }
}

/// Local DP on every local step ([000] §4.5, "on the gradients of each LocalBatch"): the
/// step's mini-batch gradient is clipped to L2 norm `clip` and N(0, σ²) is added to each
/// coordinate before the step is taken (the device's `defence::dp::LocalDp` says which σ).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepNoise {
    pub clip: f64,
    pub sigma: f64,
}

/// The per-step noise and the stream it is drawn from (its own, so that the shuffles and the
/// dropout masks are those of the run without noise).
pub type Noise<'a> = Option<(StepNoise, &'a mut Stream)>;

/// Clips and noises one step's gradient in place (f64 arithmetic, as the update's DP).
fn privatise_step(grad: &mut [f32], noise: &mut Noise) {
    if let Some((n, s)) = noise {
        let mut g: Vec<f64> = grad.iter().map(|&v| f64::from(v)).collect();
        clip_and_noise(&mut g, n.clip, n.sigma, s);
        for (v, g) in grad.iter_mut().zip(g) {
            *v = g as f32;
        }
    }
}

/// Runs UserUpdate from `start` on `batch`; `dropout` masks are drawn from `stream`.
pub fn train_local(
    spec: &MlpSpec,
    start: &[f32],
    batch: &[Sample],
    cfg: &LocalTraining,
    stream: &mut Stream,
) -> Result<LocalResult, TrainError> {
    train_local_with(spec, start, batch, cfg, stream, None)
}

/// [`train_local`] with local DP on every step when `noise` is given.
pub fn train_local_with(
    spec: &MlpSpec,
    start: &[f32],
    batch: &[Sample],
    cfg: &LocalTraining,
    stream: &mut Stream,
    mut noise: Noise,
) -> Result<LocalResult, TrainError> {
    let dev = Device::Cpu;
    let layers = spec.layers();
    let vars: Vec<(Var, Var)> = layers
        .iter()
        .map(|l| {
            let w = Var::from_slice(&start[l.w..l.b], (l.outputs, l.inputs), &dev)?;
            let b = Var::from_slice(&start[l.b..l.b + l.outputs], l.outputs, &dev)?;
            Ok((w, b))
        })
        .collect::<Result<_, candle_core::Error>>()?;

    let n = batch.len();
    let b = cfg.batch_size.unwrap_or(n).clamp(1, n.max(1));
    let mut order: Vec<usize> = (0..n).collect();
    let mut steps = 0;
    let mut batch_means = Vec::new();
    for _ in 0..cfg.epochs {
        if cfg.batch_size.is_some() {
            stream.shuffle(&mut order);
        }
        for chunk in order.chunks(b) {
            let xs: Vec<f32> = chunk.iter().flat_map(|&i| batch[i].x).collect();
            let k = chunk.len() as f32;
            batch_means.push([
                chunk.iter().map(|&i| batch[i].x[0]).sum::<f32>() / k,
                chunk.iter().map(|&i| batch[i].x[1]).sum::<f32>() / k,
            ]);
            let ys: Vec<f32> = chunk.iter().map(|&i| batch[i].y).collect();
            let x = Tensor::from_vec(xs, (chunk.len(), 2), &dev)?;
            let y = Tensor::from_vec(ys, (chunk.len(), 1), &dev)?;
            let mut a = x;
            for (l, (w, bias)) in layers.iter().zip(&vars) {
                let z = a
                    .matmul(&w.as_tensor().t()?)?
                    .broadcast_add(bias.as_tensor())?;
                a = match l.activation {
                    None => z,
                    Some(act) => {
                        let h = match act {
                            super::Activation::Relu => z.relu()?,
                            super::Activation::Sigmoid => candle_nn::ops::sigmoid(&z)?,
                            super::Activation::Tanh => z.tanh()?,
                        };
                        dropout(h, spec.dropout, stream, &dev)?
                    }
                };
            }
            let loss = (a - y)?.sqr()?.mean_all()?;
            let loss_value = loss.to_scalar::<f32>()?;
            if !loss_value.is_finite() {
                return Err(TrainError::Diverged { step: steps });
            }
            let grads = loss.backward()?;
            if noise.is_some() {
                // The whole step's gradient as one vector (the parameters' flat layout), clipped
                // and noised, then stepped.
                let mut flat = Vec::with_capacity(start.len());
                for (w, bias) in &vars {
                    for v in [w, bias] {
                        match grads.get(v.as_tensor()) {
                            Some(g) => flat.extend(g.flatten_all()?.to_vec1::<f32>()?),
                            None => flat.extend(std::iter::repeat_n(0.0, v.elem_count())),
                        }
                    }
                }
                privatise_step(&mut flat, &mut noise);
                let mut at = 0;
                for (w, bias) in &vars {
                    for v in [w, bias] {
                        let g =
                            Tensor::from_slice(&flat[at..at + v.elem_count()], v.shape(), &dev)?;
                        at += v.elem_count();
                        v.set(&(v.as_tensor() - (g * f64::from(cfg.learning_rate))?)?)?;
                    }
                }
            } else {
                for (w, bias) in &vars {
                    for v in [w, bias] {
                        if let Some(g) = grads.get(v.as_tensor()) {
                            v.set(&(v.as_tensor() - (g * f64::from(cfg.learning_rate))?)?)?;
                        }
                    }
                }
            }
            steps += 1;
        }
    }
    let mut params = Vec::with_capacity(start.len());
    for (w, bias) in &vars {
        params.extend(w.as_tensor().flatten_all()?.to_vec1::<f32>()?);
        params.extend(bias.as_tensor().to_vec1::<f32>()?);
    }
    if params.iter().any(|p| !p.is_finite()) {
        return Err(TrainError::Diverged { step: steps });
    }
    Ok(LocalResult {
        params,
        steps,
        batch_means,
    })
}

/// [`train_local`] written out by hand, for a model without dropout: the same SGD on the same
/// mini-batches (the same shuffles from `stream`), in f32 as candle computes it, without a
/// tensor graph. For a LocalBatch of a few dozen points candle's per-operation overhead is
/// most of the time: a Linkability-lab federation runs 6.6–7.0× faster this way than with
/// candle (`whereabouts bench`, BENCHMARKS.md "Linkability lab: local training"), which the lab
/// needs to train hundreds of devices a round. A model with dropout goes to
/// candle. A test keeps the two equal.
pub fn train_local_by_hand(
    spec: &MlpSpec,
    start: &[f32],
    batch: &[Sample],
    cfg: &LocalTraining,
    stream: &mut Stream,
) -> Result<LocalResult, TrainError> {
    train_local_by_hand_with(spec, start, batch, cfg, stream, None)
}

/// [`train_local_by_hand`] with local DP on every step when `noise` is given.
pub fn train_local_by_hand_with(
    spec: &MlpSpec,
    start: &[f32],
    batch: &[Sample],
    cfg: &LocalTraining,
    stream: &mut Stream,
    mut noise: Noise,
) -> Result<LocalResult, TrainError> {
    if spec.dropout > 0.0 {
        return train_local_with(spec, start, batch, cfg, stream, noise);
    }
    let layers = spec.layers();
    let mut params = start.to_vec();
    let n = batch.len();
    let b = cfg.batch_size.unwrap_or(n).clamp(1, n.max(1));
    let mut order: Vec<usize> = (0..n).collect();
    let mut steps = 0;
    let mut batch_means = Vec::new();
    // acts[l]: the layer-l inputs of every row of the mini-batch (acts[0] = x), row-major.
    let mut acts: Vec<Vec<f32>> = vec![Vec::new(); layers.len() + 1];
    let mut grad = vec![0.0f32; params.len()];
    let (mut delta, mut below) = (Vec::new(), Vec::new());
    for _ in 0..cfg.epochs {
        if cfg.batch_size.is_some() {
            stream.shuffle(&mut order);
        }
        for chunk in order.chunks(b) {
            let k = chunk.len();
            batch_means.push([
                chunk.iter().map(|&i| batch[i].x[0]).sum::<f32>() / k as f32,
                chunk.iter().map(|&i| batch[i].x[1]).sum::<f32>() / k as f32,
            ]);
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
                            Some(super::Activation::Relu) => z.max(0.0),
                            Some(super::Activation::Sigmoid) => 1.0 / (1.0 + (-z).exp()),
                            Some(super::Activation::Tanh) => z.tanh(),
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
                return Err(TrainError::Diverged { step: steps });
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
                        super::Activation::Relu => f32::from(u8::from(a > 0.0)),
                        super::Activation::Sigmoid => a * (1.0 - a),
                        super::Activation::Tanh => 1.0 - a * a,
                    };
                }
                std::mem::swap(&mut delta, &mut below);
            }
            privatise_step(&mut grad, &mut noise);
            for (p, g) in params.iter_mut().zip(&grad) {
                *p -= cfg.learning_rate * g;
            }
            steps += 1;
        }
    }
    if params.iter().any(|p| !p.is_finite()) {
        return Err(TrainError::Diverged { step: steps });
    }
    Ok(LocalResult {
        params,
        steps,
        batch_means,
    })
}

/// Inverted dropout with a mask from our own stream.
fn dropout(h: Tensor, p: f64, stream: &mut Stream, dev: &Device) -> candle_core::Result<Tensor> {
    if p <= 0.0 {
        return Ok(h);
    }
    let keep = (1.0 / (1.0 - p)) as f32;
    let mask: Vec<f32> = (0..h.elem_count())
        .map(|_| if stream.chance(p) { 0.0 } else { keep })
        .collect();
    let mask = Tensor::from_vec(mask, h.shape(), dev)?;
    h * mask
}
