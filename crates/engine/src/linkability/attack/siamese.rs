//! The Siamese matching network ([004] §6.2 and App. A, Fig. 16; Bromley et al. 1994, Chopra
//! et al. 2005): both updates go through one shared encoder of two FC-128 ReLU layers, a
//! distance layer compares the two embeddings, FC-1 with a sigmoid gives P(same user), trained
//! with binary cross-entropy and RMSProp. The paper does not name the distance nor give the
//! learning rate, epochs or batch. The distance is the Euclidean one, d = √max(‖e₁ − e₂‖², 1e-7),
//! as the `euclidean_distance` layer of Keras' Siamese example; Keras' default RMSProp rate
//! 0.001, batches of 32 pairs and 20 epochs are our choices (docs/papers.md). We tried the
//! element-wise |e₁ − e₂| first: with a weight per dimension the head learns which dimensions
//! separate the few training people, and on people it never saw it was worse than chance
//! (AP 0.32 on well-separated synthetic people, where the raw distance gives 0.98); one
//! distance, one weight, cannot invert.

use super::dense::{Batches, Dense, DenseGrad, RmsProp, relu, relu_back};
use super::mlp::gather;
use crate::linkability::features::Matrix;
use serde::{Deserialize, Serialize};
use whereabouts_core::rng::Stream;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiameseSettings {
    pub hidden: usize,
    pub learning_rate: f64,
    pub batch_size: usize,
    pub epochs: usize,
}

impl Default for SiameseSettings {
    fn default() -> Self {
        Self {
            hidden: 128,
            learning_rate: 0.001,
            batch_size: 32,
            epochs: 20,
        }
    }
}

/// A pair of rows of one feature matrix, and whether they come from the same person.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    pub a: usize,
    pub b: usize,
    pub same: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Siamese {
    pub first: Dense,
    pub second: Dense,
    pub head: Dense,
}

struct Encoded {
    a1: Vec<f64>,
    a2: Vec<f64>,
}

impl Siamese {
    pub fn new(inputs: usize, hidden: usize, stream: &mut Stream) -> Self {
        Self {
            first: Dense::glorot(inputs, hidden, stream),
            second: Dense::glorot(hidden, hidden, stream),
            head: Dense::glorot(1, 1, stream),
        }
    }

    fn encode(&self, x: &[f64], rows: usize) -> Encoded {
        let mut a1 = self.first.forward(x, rows);
        relu(&mut a1);
        let mut a2 = self.second.forward(&a1, rows);
        relu(&mut a2);
        Encoded { a1, a2 }
    }

    /// The logit of P(same) for each pair of rows of `xa` and `xb`, with the embeddings and
    /// their distances.
    fn logits(
        &self,
        xa: &[f64],
        xb: &[f64],
        rows: usize,
    ) -> (Vec<f64>, Encoded, Encoded, Vec<f64>) {
        let ea = self.encode(xa, rows);
        let eb = self.encode(xb, rows);
        let width = self.second.outputs;
        let distance: Vec<f64> = (0..rows)
            .map(|r| {
                let span = r * width..(r + 1) * width;
                let squared: f64 = ea.a2[span.clone()]
                    .iter()
                    .zip(&eb.a2[span])
                    .map(|(p, q)| (p - q).powi(2))
                    .sum();
                squared.max(DISTANCE_FLOOR).sqrt()
            })
            .collect();
        let z = self.head.forward(&distance, rows);
        (z, ea, eb, distance)
    }

    /// Mean binary cross-entropy of the pairs (`same` as 1/0) and its gradient.
    pub fn loss_grad(&self, xa: &[f64], xb: &[f64], same: &[f64]) -> (f64, [DenseGrad; 3]) {
        let rows = same.len();
        let (z, ea, eb, distance) = self.logits(xa, xb, rows);
        let mut loss = 0.0;
        let dz: Vec<f64> = z
            .iter()
            .zip(same)
            .map(|(&zi, &y)| {
                // Stable BCE on the logit: max(z, 0) − z·y + ln(1 + e^−|z|).
                loss += zi.max(0.0) - zi * y + (-zi.abs()).exp().ln_1p();
                (sigmoid(zi) - y) / rows as f64
            })
            .collect();
        let mut g_head = self.head.zero_grad();
        let dd = self
            .head
            .backward(&distance, &dz, rows, &mut g_head, true)
            .expect("dx requested");
        let mut g_first = self.first.zero_grad();
        let mut g_second = self.second.zero_grad();
        let width = self.second.outputs;
        for (enc, x, sign) in [(&ea, xa, 1.0), (&eb, xb, -1.0)] {
            // ∂d/∂eₐ = (eₐ − e_b)/d, and the opposite for e_b (0 on the floor, where d is
            // constant).
            let mut da2: Vec<f64> = (0..rows * width)
                .map(|k| {
                    let r = k / width;
                    let d = distance[r];
                    if d * d <= DISTANCE_FLOOR {
                        0.0
                    } else {
                        sign * dd[r] * (ea.a2[k] - eb.a2[k]) / d
                    }
                })
                .collect();
            relu_back(&mut da2, &enc.a2);
            let mut da1 = self
                .second
                .backward(&enc.a1, &da2, rows, &mut g_second, true)
                .expect("dx requested");
            relu_back(&mut da1, &enc.a1);
            self.first.backward(x, &da1, rows, &mut g_first, false);
        }
        (loss / rows as f64, [g_first, g_second, g_head])
    }

    /// P(same person) for each pair of rows.
    pub fn probabilities(&self, x: &Matrix, pairs: &[Pair]) -> Vec<f64> {
        pairs
            .chunks(256)
            .flat_map(|chunk| {
                let xa = gather(x, &chunk.iter().map(|p| p.a).collect::<Vec<_>>());
                let xb = gather(x, &chunk.iter().map(|p| p.b).collect::<Vec<_>>());
                self.logits(&xa, &xb, chunk.len())
                    .0
                    .into_iter()
                    .map(sigmoid)
            })
            .collect()
    }
}

/// The smallest squared distance (Keras' ε): keeps √ differentiable at zero.
const DISTANCE_FLOOR: f64 = 1e-7;

pub fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Trains a [`Siamese`] network on `pairs` of rows of `x`, one mini-batch of pairs at a time.
#[derive(Clone, Debug)]
pub struct SiameseTrainer {
    pub net: Siamese,
    settings: SiameseSettings,
    optimiser: RmsProp,
    batches: Batches,
    stream: Stream,
}

impl SiameseTrainer {
    pub fn new(inputs: usize, pairs: usize, settings: SiameseSettings, mut stream: Stream) -> Self {
        let net = Siamese::new(inputs, settings.hidden, &mut stream);
        let optimiser = RmsProp::new(
            settings.learning_rate,
            &[&net.first, &net.second, &net.head],
        );
        Self {
            net,
            settings,
            optimiser,
            batches: Batches::new(pairs, settings.batch_size),
            stream,
        }
    }

    /// One step; false once every epoch is done.
    pub fn step(&mut self, x: &Matrix, pairs: &[Pair]) -> Result<bool, String> {
        if self.done() {
            return Ok(false);
        }
        let batch: Vec<Pair> = self
            .batches
            .next(&mut self.stream)
            .iter()
            .map(|&i| pairs[i])
            .collect();
        let xa = gather(x, &batch.iter().map(|p| p.a).collect::<Vec<_>>());
        let xb = gather(x, &batch.iter().map(|p| p.b).collect::<Vec<_>>());
        let same: Vec<f64> = batch.iter().map(|p| f64::from(u8::from(p.same))).collect();
        let (loss, grads) = self.net.loss_grad(&xa, &xb, &same);
        if !loss.is_finite() {
            return Err(format!(
                "the Siamese network diverged in epoch {} (the loss became infinite)",
                self.batches.epoch
            ));
        }
        let Siamese {
            first,
            second,
            head,
        } = &mut self.net;
        self.optimiser.step(&mut [first, second, head], &grads);
        Ok(!self.done())
    }

    pub fn done(&self) -> bool {
        self.batches.epoch >= self.settings.epochs && self.batches.epoch_done()
    }
}

/// Trains to the end.
pub fn train(
    x: &Matrix,
    pairs: &[Pair],
    settings: SiameseSettings,
    stream: Stream,
) -> Result<Siamese, String> {
    let mut trainer = SiameseTrainer::new(x.cols, pairs.len(), settings, stream);
    while trainer.step(x, pairs)? {}
    Ok(trainer.net)
}
