//! The identification MLP ([004] §6.1 and App. A, Fig. 15): update → Dense(128, ReLU) →
//! Dropout(0.2) → Dense(|U|, softmax), categorical cross-entropy, SGD with learning rate
//! 0.01, momentum 0.9 and decay 1e-6. The paper gives neither the epochs nor the batch size:
//! Keras' default batch of 32 and 20 epochs are our choice (docs/papers.md).

use super::dense::{Batches, Dense, DenseGrad, Momentum, dropout, relu, relu_back};
use crate::linkability::features::Matrix;
use crate::linkability::metrics::Scores;
use serde::{Deserialize, Serialize};
use whereabouts_core::rng::Stream;

/// The MLP's hyper-parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MlpSettings {
    pub hidden: usize,
    pub dropout: f64,
    pub learning_rate: f64,
    pub momentum: f64,
    pub decay: f64,
    pub batch_size: usize,
    pub epochs: usize,
}

impl Default for MlpSettings {
    fn default() -> Self {
        Self {
            hidden: 128,
            dropout: 0.2,
            learning_rate: 0.01,
            momentum: 0.9,
            decay: 1e-6,
            batch_size: 32,
            epochs: 20,
        }
    }
}

/// The network.
#[derive(Clone, Debug, PartialEq)]
pub struct Mlp {
    pub hidden: Dense,
    pub output: Dense,
}

impl Mlp {
    pub fn new(inputs: usize, classes: usize, hidden: usize, stream: &mut Stream) -> Self {
        Self {
            hidden: Dense::glorot(inputs, hidden, stream),
            output: Dense::glorot(hidden, classes, stream),
        }
    }

    /// Mean cross-entropy of the rows `x` (row-major, f64) with classes `y`, and its gradient;
    /// with `dropout`, the hidden layer is dropped out as in training.
    pub fn loss_grad(
        &self,
        x: &[f64],
        y: &[usize],
        dropout_with: Option<(f64, &mut Stream)>,
    ) -> (f64, [DenseGrad; 2]) {
        let rows = y.len();
        let mut a = self.hidden.forward(x, rows);
        relu(&mut a);
        let relu_out = a.clone();
        let mask = dropout_with.map(|(p, s)| dropout(&mut a, p, s));
        let z = self.output.forward(&a, rows);
        let classes = self.output.outputs;
        let mut dz = vec![0.0; z.len()];
        let mut loss = 0.0;
        for r in 0..rows {
            let zr = &z[r * classes..(r + 1) * classes];
            let p = softmax(zr);
            loss -= p[y[r]].max(1e-300).ln();
            for (c, &pc) in p.iter().enumerate() {
                dz[r * classes + c] = (pc - f64::from(u8::from(c == y[r]))) / rows as f64;
            }
        }
        let mut g_out = self.output.zero_grad();
        let mut da = self
            .output
            .backward(&a, &dz, rows, &mut g_out, true)
            .expect("dx requested");
        if let Some(mask) = &mask {
            for (d, m) in da.iter_mut().zip(mask) {
                *d *= m;
            }
        }
        relu_back(&mut da, &relu_out);
        let mut g_hidden = self.hidden.zero_grad();
        self.hidden.backward(x, &da, rows, &mut g_hidden, false);
        (loss / rows as f64, [g_hidden, g_out])
    }

    /// P(u | update) for every row (evaluation mode: no dropout).
    pub fn probabilities(&self, x: &Matrix) -> Scores {
        let classes = self.output.outputs;
        let mut scores = Scores::zeros(x.rows, classes);
        for i in 0..x.rows {
            let row: Vec<f64> = x.row(i).iter().map(|&v| f64::from(v)).collect();
            let mut a = self.hidden.forward(&row, 1);
            relu(&mut a);
            let z = self.output.forward(&a, 1);
            scores.row_mut(i).copy_from_slice(&softmax(&z));
        }
        scores
    }
}

/// Softmax, shifted by the maximum for stability.
pub fn softmax(z: &[f64]) -> Vec<f64> {
    let max = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|&v| (v - max).exp()).collect();
    let sum: f64 = e.iter().sum();
    e.into_iter().map(|v| v / sum).collect()
}

/// Rows `batch` of `x` as f64.
pub fn gather(x: &Matrix, batch: &[usize]) -> Vec<f64> {
    batch
        .iter()
        .flat_map(|&i| x.row(i).iter().map(|&v| f64::from(v)))
        .collect()
}

/// Trains an [`Mlp`] one mini-batch at a time, so a worker can stop between any two.
#[derive(Clone, Debug)]
pub struct MlpTrainer {
    pub mlp: Mlp,
    settings: MlpSettings,
    optimiser: Momentum,
    batches: Batches,
    stream: Stream,
    /// Mean loss of the last finished epoch.
    pub last_epoch_loss: Option<f64>,
    epoch_loss: (f64, usize),
}

impl MlpTrainer {
    pub fn new(
        inputs: usize,
        classes: usize,
        rows: usize,
        settings: MlpSettings,
        mut stream: Stream,
    ) -> Self {
        let mlp = Mlp::new(inputs, classes, settings.hidden, &mut stream);
        let optimiser = Momentum::new(
            settings.learning_rate,
            settings.momentum,
            settings.decay,
            &[&mlp.hidden, &mlp.output],
        );
        Self {
            mlp,
            settings,
            optimiser,
            batches: Batches::new(rows, settings.batch_size),
            stream,
            last_epoch_loss: None,
            epoch_loss: (0.0, 0),
        }
    }

    /// One SGD step on the next mini-batch of (`x`, `y`). Returns false once every epoch is done.
    pub fn step(&mut self, x: &Matrix, y: &[usize]) -> Result<bool, String> {
        if self.done() {
            return Ok(false);
        }
        let batch = self.batches.next(&mut self.stream).to_vec();
        let xb = gather(x, &batch);
        let yb: Vec<usize> = batch.iter().map(|&i| y[i]).collect();
        let (loss, grads) =
            self.mlp
                .loss_grad(&xb, &yb, Some((self.settings.dropout, &mut self.stream)));
        if !loss.is_finite() {
            return Err(format!(
                "the attack's MLP diverged in epoch {} (the loss became infinite)",
                self.batches.epoch
            ));
        }
        let Mlp { hidden, output } = &mut self.mlp;
        self.optimiser.step(&mut [hidden, output], &grads);
        self.epoch_loss.0 += loss * yb.len() as f64;
        self.epoch_loss.1 += yb.len();
        if self.batches.epoch_done() {
            self.last_epoch_loss = Some(self.epoch_loss.0 / self.epoch_loss.1.max(1) as f64);
            self.epoch_loss = (0.0, 0);
        }
        Ok(!self.done())
    }

    pub fn done(&self) -> bool {
        self.batches.epoch >= self.settings.epochs && self.batches.epoch_done()
    }

    /// Share of the training done, 0–1.
    pub fn progress(&self) -> f64 {
        let epochs = self.settings.epochs.max(1) as f64;
        let finished = if self.batches.epoch_done() {
            self.batches.epoch
        } else {
            self.batches.epoch.saturating_sub(1)
        };
        (finished as f64 / epochs).min(1.0)
    }
}

/// Trains to the end.
pub fn train(
    x: &Matrix,
    y: &[usize],
    classes: usize,
    settings: MlpSettings,
    stream: Stream,
) -> Result<Mlp, String> {
    let mut trainer = MlpTrainer::new(x.cols, classes, x.rows, settings, stream);
    while trainer.step(x, y)? {}
    Ok(trainer.mlp)
}
