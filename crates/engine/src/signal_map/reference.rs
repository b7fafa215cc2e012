//! What the federation's RMSE is measured against: a utility figure means something only beside
//! what a trivial predictor and a non-private model reach on the same data (a project choice:
//! [000] reports RMSE alone, see docs/papers.md, "References beside every RMSE").
//!
//! - **Mean predictor**: the mean RSRP of the training data, predicted everywhere. A model that
//!   does no better has learnt nothing about *where* the signal is strong.
//! - **Centralised model**: the same MLP, from a fresh start with its output bias at the mean
//!   label, trained on every training point of every user of the world pooled in one place (no
//!   federation, no defence, no round structure): mini-batch SGD, B = 32, η = 0.01,
//!   [`CENTRALISED_EPOCHS`] epochs over the pool. What the model class reaches on this world's
//!   data when privacy costs nothing — the test set covers every user, so this is the model a
//!   federation of everyone could hope for.
//!
//! Both are scored on the run's held-out test set, as the federation's model is.

use crate::signal_map::model::train::{LocalTraining, train_local_by_hand};
use crate::signal_map::model::{MlpSpec, Predictor};
use crate::signal_map::trace::Sample;
use serde::{Deserialize, Serialize};
use whereabouts_core::rng::Stream;

/// Epochs of the centralised model's training over the pooled data.
pub const CENTRALISED_EPOCHS: usize = 10;

/// The centralised model's local training: mini-batches of 32, η = 0.01.
pub const CENTRALISED: LocalTraining = LocalTraining {
    batch_size: Some(32),
    epochs: CENTRALISED_EPOCHS,
    learning_rate: 0.01,
};

/// The references' test RMSE, dB.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct References {
    /// Predicting the training data's mean RSRP everywhere.
    pub mean_rmse_db: f64,
    /// The same model trained centrally on all the training data; `None` if that training
    /// diverged.
    pub centralised_rmse_db: Option<f64>,
}

impl References {
    /// Both references for a model `spec` starting at `initial`, trained on `train`, scored on
    /// `test`; the centralised training's shuffles come from `seed`.
    pub fn measure(
        spec: &MlpSpec,
        initial: &[f32],
        train: &[Sample],
        test: &[Sample],
        seed: u64,
    ) -> Self {
        let mean = train.iter().map(|s| f64::from(s.y)).sum::<f64>() / train.len().max(1) as f64;
        let mean_rmse_db =
            whereabouts_core::metrics::rmse(test.iter().map(|s| (mean, f64::from(s.y))))
                .unwrap_or(f64::NAN);
        let centralised_rmse_db = train_local_by_hand(
            spec,
            initial,
            train,
            &CENTRALISED,
            &mut Stream::new(seed, "centralised-reference"),
        )
        .ok()
        .map(|r| test_rmse(spec, &r.params, test));
        Self {
            mean_rmse_db,
            centralised_rmse_db,
        }
    }
}

/// A model's RMSE on `test`, dB.
pub fn test_rmse(spec: &MlpSpec, params: &[f32], test: &[Sample]) -> f64 {
    let mut predictor = Predictor::new(spec);
    whereabouts_core::metrics::rmse(
        test.iter()
            .map(|s| (f64::from(predictor.predict(params, s.x)), f64::from(s.y))),
    )
    .unwrap_or(f64::NAN)
}
