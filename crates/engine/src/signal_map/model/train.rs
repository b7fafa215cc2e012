//! Local training on a device: plain SGD on the MSE loss (Algorithm 1, UserUpdate), written
//! out by hand (`by_hand`). `E` epochs over the LocalBatch cut into mini-batches of size `B` (B = ∞: one
//! mini-batch, so E = 1, B = ∞ is FedSGD, one exact gradient step).
//!
//! Mini-batches are drawn from a fresh seeded shuffle each epoch, as Keras' `fit` does by
//! default (the paper's implementation language; the paper itself is silent). Dropout masks
//! (inverted dropout, Keras semantics) come from the same seeded stream, so runs are
//! reproducible.
//!
//! Native builds keep candle's autograd as the reference (`candle`): a test keeps the two
//! within float rounding, and `whereabouts bench` times them side by side. The browser's worker
//! does not carry candle (it was half the worker's download: BENCHMARKS.md "Download size").

mod by_hand;
#[cfg(not(target_arch = "wasm32"))]
mod candle;

use super::MlpSpec;
use crate::signal_map::trace::Sample;
use serde::{Deserialize, Serialize};
use whereabouts_core::privacy::gaussian::clip_and_noise;
use whereabouts_core::rng::Stream;

/// Local optimisation settings (a key left out of a config keeps its [`Default`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LocalTraining {
    /// Mini-batch size; `None` is B = ∞.
    pub batch_size: Option<usize>,
    pub epochs: usize,
    pub learning_rate: f32,
}

impl Default for LocalTraining {
    /// FedSGD: B = ∞, E = 1, η = 0.001 ([000] §4.1's defaults).
    fn default() -> Self {
        Self {
            batch_size: None,
            epochs: 1,
            learning_rate: 1e-3,
        }
    }
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
    Diverged { step: usize },
    /// GAN obfuscation's networks left the finite numbers at this mini-batch step
    /// (`defence::gan`).
    GanDiverged { step: usize },
    /// The candle reference failed (native builds only).
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
            TrainError::GanDiverged { step } => write!(
                f,
                "GAN obfuscation diverged on this device at its mini-batch step {step} (the \
                 privatizer's or the adversary's numbers became infinite or NaN); raise the \
                 obfuscation level ρ"
            ),
            TrainError::Candle(e) => write!(f, "training failed inside candle: {e}"),
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
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
    let mut trainer = LocalTrainer::new(spec, start, batch.len(), cfg);
    trainer.run(spec, batch, stream, &mut noise)
}

/// [`train_local_with`] by candle's autograd: the reference the training by hand is tested
/// against (native builds only). For a LocalBatch of a few dozen points candle's per-operation
/// overhead is most of the time: a Linkability-lab federation runs 6.6–7.0× faster by hand
/// (`whereabouts bench`, BENCHMARKS.md "Linkability lab: local training").
#[cfg(not(target_arch = "wasm32"))]
pub fn train_local_candle_with(
    spec: &MlpSpec,
    start: &[f32],
    batch: &[Sample],
    cfg: &LocalTraining,
    stream: &mut Stream,
    mut noise: Noise,
) -> Result<LocalResult, TrainError> {
    let mut trainer = LocalTrainer::candle(spec, start, batch.len(), cfg)?;
    trainer.run(spec, batch, stream, &mut noise)
}

/// Local training one SGD step at a time: what [`train_local_with`] runs to the end, and what a caller that must yield between
/// steps (the worker's 4 ms slices) runs a few steps at a time. The steps, the shuffles and the
/// result are the same either way; every call must pass the same `spec`, `batch`, `stream` and
/// noise.
pub struct LocalTrainer {
    cfg: LocalTraining,
    /// Mini-batch size (B = ∞ is the whole batch).
    b: usize,
    /// This epoch's order of the batch's points.
    order: Vec<usize>,
    epoch: usize,
    /// Where in `order` the next mini-batch starts (0: the epoch's shuffle is still to draw).
    at: usize,
    steps: usize,
    batch_means: Vec<[f32; 2]>,
    engine: Engine,
}

/// Who computes a step: the arithmetic written out by hand, or (native reference) candle's
/// autograd.
enum Engine {
    ByHand(by_hand::Model),
    #[cfg(not(target_arch = "wasm32"))]
    Candle(candle::Model),
}

impl LocalTrainer {
    /// Training from `start` on a batch of `n` points.
    pub fn new(spec: &MlpSpec, start: &[f32], n: usize, cfg: &LocalTraining) -> Self {
        Self::with(Engine::ByHand(by_hand::Model::new(spec, start)), n, cfg)
    }

    /// Training from `start` on a batch of `n` points with candle (the native reference).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn candle(
        spec: &MlpSpec,
        start: &[f32],
        n: usize,
        cfg: &LocalTraining,
    ) -> Result<Self, TrainError> {
        Ok(Self::with(
            Engine::Candle(candle::Model::new(spec, start)?),
            n,
            cfg,
        ))
    }

    fn with(engine: Engine, n: usize, cfg: &LocalTraining) -> Self {
        Self {
            cfg: *cfg,
            b: cfg.batch_size.unwrap_or(n).clamp(1, n.max(1)),
            order: (0..n).collect(),
            epoch: 0,
            at: 0,
            steps: 0,
            batch_means: Vec::new(),
            engine,
        }
    }

    /// Every epoch is done.
    pub fn done(&self) -> bool {
        self.epoch >= self.cfg.epochs
    }

    /// SGD steps taken so far.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// SGD steps in all (E · ⌈n / B⌉).
    pub fn total_steps(&self) -> usize {
        self.cfg.epochs * self.order.len().div_ceil(self.b)
    }

    /// One SGD step on the next mini-batch (an epoch's shuffle is drawn before its first).
    pub fn step(
        &mut self,
        spec: &MlpSpec,
        batch: &[Sample],
        stream: &mut Stream,
        noise: &mut Noise,
    ) -> Result<(), TrainError> {
        if self.done() {
            return Ok(());
        }
        if self.at == 0 && self.cfg.batch_size.is_some() {
            stream.shuffle(&mut self.order);
        }
        let n = self.order.len();
        let end = (self.at + self.b).min(n);
        if self.at < end {
            let chunk = &self.order[self.at..end];
            let k = chunk.len() as f32;
            self.batch_means.push([
                chunk.iter().map(|&i| batch[i].x[0]).sum::<f32>() / k,
                chunk.iter().map(|&i| batch[i].x[1]).sum::<f32>() / k,
            ]);
            let stepped = match &mut self.engine {
                Engine::ByHand(m) => m.step(spec, batch, chunk, &self.cfg, stream, noise),
                #[cfg(not(target_arch = "wasm32"))]
                Engine::Candle(m) => m.step(spec, batch, chunk, &self.cfg, stream, noise),
            };
            stepped.map_err(|e| match e {
                TrainError::Diverged { .. } => TrainError::Diverged { step: self.steps },
                other => other,
            })?;
            self.steps += 1;
        }
        self.at = end;
        if self.at >= n {
            self.at = 0;
            self.epoch += 1;
        }
        Ok(())
    }

    /// Steps to the end and returns the result.
    pub fn run(
        &mut self,
        spec: &MlpSpec,
        batch: &[Sample],
        stream: &mut Stream,
        noise: &mut Noise,
    ) -> Result<LocalResult, TrainError> {
        while !self.done() {
            self.step(spec, batch, stream, noise)?;
        }
        self.result()
    }

    /// The parameters reached, the steps and their mini-batches' means; an error if a
    /// parameter is not finite.
    pub fn result(&self) -> Result<LocalResult, TrainError> {
        let params = match &self.engine {
            Engine::ByHand(m) => m.params().to_vec(),
            #[cfg(not(target_arch = "wasm32"))]
            Engine::Candle(m) => m.params()?,
        };
        if params.iter().any(|p| !p.is_finite()) {
            return Err(TrainError::Diverged { step: self.steps });
        }
        Ok(LocalResult {
            params,
            steps: self.steps,
            batch_means: self.batch_means.clone(),
        })
    }
}
