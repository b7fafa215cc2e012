//! One SGD step with candle's autograd (the reference the by-hand step is tested against, and
//! the trainer of models with dropout).

use super::{LocalTraining, Noise, TrainError, privatise_step};
use crate::signal_map::model::{Activation, MlpSpec};
use crate::signal_map::trace::Sample;
use candle_core::{Device, Tensor, Var};
use whereabouts_core::rng::Stream;

/// The model's weights and biases as candle variables, one pair per layer.
pub(super) struct Model {
    vars: Vec<(Var, Var)>,
}

impl Model {
    pub(super) fn new(spec: &MlpSpec, start: &[f32]) -> Result<Self, TrainError> {
        let dev = Device::Cpu;
        let vars = spec
            .layers()
            .iter()
            .map(|l| {
                let w = Var::from_slice(&start[l.w..l.b], (l.outputs, l.inputs), &dev)?;
                let b = Var::from_slice(&start[l.b..l.b + l.outputs], l.outputs, &dev)?;
                Ok((w, b))
            })
            .collect::<Result<_, candle_core::Error>>()?;
        Ok(Self { vars })
    }

    /// One step on the mini-batch `chunk` of `batch` (its dropout masks from `stream`).
    pub(super) fn step(
        &mut self,
        spec: &MlpSpec,
        batch: &[Sample],
        chunk: &[usize],
        cfg: &LocalTraining,
        stream: &mut Stream,
        noise: &mut Noise,
    ) -> Result<(), TrainError> {
        let dev = Device::Cpu;
        let xs: Vec<f32> = chunk.iter().flat_map(|&i| batch[i].x).collect();
        let ys: Vec<f32> = chunk.iter().map(|&i| batch[i].y).collect();
        let x = Tensor::from_vec(xs, (chunk.len(), 2), &dev)?;
        let y = Tensor::from_vec(ys, (chunk.len(), 1), &dev)?;
        let mut a = x;
        for (l, (w, bias)) in spec.layers().iter().zip(&self.vars) {
            let z = a
                .matmul(&w.as_tensor().t()?)?
                .broadcast_add(bias.as_tensor())?;
            a = match l.activation {
                None => z,
                Some(act) => {
                    let h = match act {
                        Activation::Relu => z.relu()?,
                        Activation::Sigmoid => candle_nn::ops::sigmoid(&z)?,
                        Activation::Tanh => z.tanh()?,
                    };
                    dropout(h, spec.dropout, stream, &dev)?
                }
            };
        }
        let loss = (a - y)?.sqr()?.mean_all()?;
        if !loss.to_scalar::<f32>()?.is_finite() {
            return Err(TrainError::Diverged { step: 0 });
        }
        let grads = loss.backward()?;
        if noise.is_some() {
            // The whole step's gradient as one vector (the parameters' flat layout), clipped
            // and noised, then stepped.
            let mut flat = Vec::with_capacity(spec.parameter_count());
            for (w, bias) in &self.vars {
                for v in [w, bias] {
                    match grads.get(v.as_tensor()) {
                        Some(g) => flat.extend(g.flatten_all()?.to_vec1::<f32>()?),
                        None => flat.extend(std::iter::repeat_n(0.0, v.elem_count())),
                    }
                }
            }
            privatise_step(&mut flat, noise);
            let mut at = 0;
            for (w, bias) in &self.vars {
                for v in [w, bias] {
                    let g = Tensor::from_slice(&flat[at..at + v.elem_count()], v.shape(), &dev)?;
                    at += v.elem_count();
                    v.set(&(v.as_tensor() - (g * f64::from(cfg.learning_rate))?)?)?;
                }
            }
        } else {
            for (w, bias) in &self.vars {
                for v in [w, bias] {
                    if let Some(g) = grads.get(v.as_tensor()) {
                        v.set(&(v.as_tensor() - (g * f64::from(cfg.learning_rate))?)?)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The parameters in the model's flat layout.
    pub(super) fn params(&self) -> Result<Vec<f32>, TrainError> {
        let mut params = Vec::new();
        for (w, bias) in &self.vars {
            params.extend(w.as_tensor().flatten_all()?.to_vec1::<f32>()?);
            params.extend(bias.as_tensor().to_vec1::<f32>()?);
        }
        Ok(params)
    }
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
