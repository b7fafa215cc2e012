//! Online FedAvg ([000] §2.1, Algorithm 1).
//!
//! Each round t: the server picks m = max(⌈C·K_t⌉, 1) of the K_t users that have data in the
//! round, sends them w_{t−1}; each trains E epochs of mini-batch SGD on its LocalBatch ⊆ D_t^k
//! (chosen by a [`BatchSelector`]); the server averages w_t = Σ_k (n_t^k / n_t) w_t^k over the
//! participants (Algorithm 1 sums over k = 1..K; we read it as over the participants: our choice, see docs/papers.md) and keeps each
//! participant's update, which is all the curious server needs.

use crate::signal_map::model::MlpSpec;
#[cfg(not(target_arch = "wasm32"))]
use crate::signal_map::model::train::train_local_candle_with;
use crate::signal_map::model::train::{
    LocalResult, LocalTraining, Noise, TrainError, train_local_with,
};
use crate::signal_map::trace::{Dataset, Sample};
use serde::{Deserialize, Serialize};
use whereabouts_core::rng::Stream;

/// Picks the LocalBatch from a round's data (defences plug in here; the identity is vanilla).
/// It may fail: GAN obfuscation trains two networks on the device, which can diverge.
pub trait BatchSelector {
    fn select(&self, round_data: &[Sample], stream: &mut Stream)
    -> Result<Vec<Sample>, TrainError>;
}

/// LocalBatch = D_t^k.
pub struct AllData;

impl BatchSelector for AllData {
    fn select(&self, round_data: &[Sample], _: &mut Stream) -> Result<Vec<Sample>, TrainError> {
        Ok(round_data.to_vec())
    }
}

/// Server-side settings.
/// A key left out of a config keeps its [`Default`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FlConfig {
    pub local: LocalTraining,
    /// C, the fraction of the round's users that take part.
    pub client_fraction: f64,
    /// Cumulative online FL (App. A.3): train on all data so far instead of the round's.
    pub cumulative: bool,
}

impl Default for FlConfig {
    /// FedSGD ([`LocalTraining::default`]) with every user of the round (C = 1), on the
    /// round's data only.
    fn default() -> Self {
        Self {
            local: LocalTraining::default(),
            client_fraction: 1.0,
            cumulative: false,
        }
    }
}

/// One user's contribution to a round.
#[derive(Clone, Debug)]
pub struct Update {
    pub user: u32,
    /// The LocalBatch it trained on.
    pub batch: Vec<Sample>,
    /// D_t^k before selection (what the metrics compare against).
    pub round_data: Vec<Sample>,
    pub params: Vec<f32>,
    pub steps: usize,
    /// Each local step's mini-batch mean input (standardised), see [`LocalResult`].
    ///
    /// [`LocalResult`]: crate::signal_map::model::train::LocalResult
    pub batch_means: Vec<[f32; 2]>,
}

/// A device's local training (Algorithm 1's UserUpdate): [`train_local_with`]'s signature.
pub type TrainFn = fn(
    &MlpSpec,
    &[f32],
    &[Sample],
    &LocalTraining,
    &mut Stream,
    Noise,
) -> Result<LocalResult, TrainError>;

/// The federation's protocol: who takes part in a round and how each participant trains. It
/// keeps no model: the driver holds each round's w_{t−1} and w_t. Every round's randomness
/// comes from its own stream, derived from the seed and the round index, so any round can be
/// re-run from a checkpoint of the global model (the lab does this when the visitor edits a
/// trajectory) with the same result.
pub struct Federation {
    pub spec: MlpSpec,
    pub config: FlConfig,
    /// Local DP applied by every device to its update ([000] §4.5, "DP"; App. B.2), if any.
    pub dp: Option<crate::signal_map::defence::dp::LocalDp>,
    /// Train with candle's autograd instead of by hand (the native reference the benchmark and
    /// the tests compare with; the same steps within float rounding).
    #[cfg(not(target_arch = "wasm32"))]
    pub candle: bool,
    seed: u64,
}

impl Federation {
    pub fn new(spec: MlpSpec, config: FlConfig, seed: u64) -> Self {
        Self {
            spec,
            config,
            dp: None,
            #[cfg(not(target_arch = "wasm32"))]
            candle: false,
            seed,
        }
    }

    /// The same protocol on another model: the one a malicious server sends (issue 39 §2,
    /// [`crate::signal_map::imprint`]); every phone trains it as it would the honest one.
    pub fn with_spec(&self, spec: MlpSpec) -> Self {
        Self {
            spec,
            config: self.config.clone(),
            dp: self.dp,
            #[cfg(not(target_arch = "wasm32"))]
            candle: self.candle,
            seed: self.seed,
        }
    }

    /// The local training this federation's devices run: by hand, or candle's (the native
    /// reference).
    pub fn trainer(&self) -> TrainFn {
        #[cfg(not(target_arch = "wasm32"))]
        if self.candle {
            return train_local_candle_with;
        }
        train_local_with
    }

    /// The users of `users` that take part in round `t`: those with data, of which the server
    /// picks m = max(⌈C·K_t⌉, 1) (Algorithm 1), sorted.
    pub fn participants(&self, data: &Dataset, users: &[u32], t: usize) -> Vec<u32> {
        let mut with_data: Vec<u32> = users
            .iter()
            .copied()
            .filter(|&u| !data.local_data(u, t, false).is_empty())
            .collect();
        if with_data.is_empty() {
            return with_data;
        }
        let m = ((self.config.client_fraction * with_data.len() as f64).ceil() as usize)
            .clamp(1, with_data.len());
        if m < with_data.len() {
            let mut s = Stream::new(self.seed, &format!("federation-round-{t}"));
            s.shuffle(&mut with_data);
            with_data.truncate(m);
            with_data.sort_unstable();
        }
        with_data
    }

    /// One participant's local training in round `t`, starting from `before` (w_{t−1});
    /// `None` if its LocalBatch is empty.
    pub fn local_update(
        &self,
        data: &Dataset,
        user: u32,
        t: usize,
        before: &[f32],
        selector: &dyn BatchSelector,
    ) -> Result<Option<Update>, (u32, TrainError)> {
        let round_data = data.local_data(user, t, self.config.cumulative).to_vec();
        let mut user_stream = Stream::new(self.seed, &format!("federation-round-{t}-user-{user}"));
        let batch = selector
            .select(&round_data, &mut user_stream)
            .map_err(|e| (user, e))?;
        if batch.is_empty() {
            return Ok(None);
        }
        let train = self.trainer();
        // Local DP's noise has its own stream: the shuffles are those of the run without it.
        let mut dp_stream = Stream::new(self.seed, &format!("federation-round-{t}-user-{user}-dp"));
        let step_noise = self.dp.and_then(|dp| dp.step_noise());
        let result = train(
            &self.spec,
            before,
            &batch,
            &self.config.local,
            &mut user_stream,
            step_noise.map(|n| (n, &mut dp_stream)),
        )
        .map_err(|e| (user, e))?;
        let params = match &self.dp {
            Some(dp) if step_noise.is_none() => dp.privatise(
                before,
                &result.params,
                self.config.local.learning_rate,
                &mut dp_stream,
            ),
            _ => result.params,
        };
        Ok(Some(Update {
            user,
            batch,
            round_data,
            params,
            steps: result.steps,
            batch_means: result.batch_means,
        }))
    }

    /// n-weighted FedAvg of the participants' models: w_t = Σ_k (n_t^k / n_t) w_t^k.
    /// `None` when nobody sent an update.
    pub fn aggregate(updates: &[Update]) -> Option<Vec<f32>> {
        whereabouts_core::fl::aggregate(updates.iter().map(|u| (u.batch.len(), &u.params[..])))
    }
}
