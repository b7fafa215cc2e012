//! What the federation's RMSE is measured against: a utility figure means something only beside
//! what a trivial predictor and a non-private model reach on the same data (a project choice:
//! [000] reports RMSE alone, see docs/papers.md, "References beside every RMSE").
//!
//! - **Mean predictor**: the mean RSRP of the training data, predicted everywhere. A model that
//!   does no better has learnt nothing about *where* the signal is strong.
//! - **Centralised model**: the same MLP, from a fresh start with its output bias at the mean
//!   label, trained on every training point of every user of the world pooled in one place (no
//!   federation, no defence, no round structure): mini-batch SGD, B = 32, η = 0.01, for
//!   [`centralised_epochs`]: 10 epochs, or fewer on a large pool (about 400,000 example visits
//!   in all, so a page's tab spends about a second on it; on the Linkability lab's 69,000
//!   points 5 epochs reach 4.46 dB where 10 reach 4.22). What the model class reaches on this world's
//!   data when privacy costs nothing — the test set covers every user, so this is the model a
//!   federation of everyone could hope for.
//!
//! Both are scored on the run's held-out test set, as the federation's model is.

use crate::signal_map::model::train::{LocalTrainer, LocalTraining};
use crate::signal_map::model::{MlpSpec, Predictor};
use crate::signal_map::trace::Sample;
use serde::{Deserialize, Serialize};
use whereabouts_core::rng::Stream;

/// Most epochs of the centralised model's training over the pooled data.
pub const CENTRALISED_EPOCHS: usize = 10;
/// About how many example visits the centralised training may make in all.
pub const CENTRALISED_VISITS: usize = 400_000;

/// Epochs over a pool of `n` points: [`CENTRALISED_EPOCHS`], fewer where the pool is large.
pub fn centralised_epochs(n: usize) -> usize {
    (CENTRALISED_VISITS / n.max(1)).clamp(1, CENTRALISED_EPOCHS)
}

/// The centralised model's training on `n` points: mini-batches of 32, η = 0.01.
pub fn centralised(n: usize) -> LocalTraining {
    LocalTraining {
        batch_size: Some(32),
        epochs: centralised_epochs(n),
        learning_rate: 0.01,
    }
}

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
    /// Both references for a fresh model of `spec` — its parameters drawn from `init`, its
    /// output bias at the mean of `train`'s labels — trained on `train`, scored on `test`.
    pub fn of_fresh_model(
        spec: &MlpSpec,
        train: &[Sample],
        test: &[Sample],
        init: &mut Stream,
        seed: u64,
    ) -> Self {
        Measuring::of_fresh_model(spec, train, test, init, seed).finish(spec, train, test)
    }

    /// Both references for a model `spec` starting at `initial`, trained on `train`, scored on
    /// `test`; the centralised training's shuffles come from `seed`.
    pub fn measure(
        spec: &MlpSpec,
        initial: &[f32],
        train: &[Sample],
        test: &[Sample],
        seed: u64,
    ) -> Self {
        Measuring::new(spec, initial, train, test, seed).finish(spec, train, test)
    }
}

/// The references being measured a few SGD steps at a time (the page's worker trains them in
/// its 4 ms slices, so that a run's next edit never waits for them). Run to the end they are
/// [`References::measure`], to the last bit; every call must pass the same `spec`, `train` and
/// `test`.
pub struct Measuring {
    mean_rmse_db: f64,
    /// The centralised model's training; `None` once it is over.
    training: Option<(LocalTrainer, Stream)>,
    centralised_rmse_db: Option<f64>,
}

impl Measuring {
    /// The mean predictor's RMSE now, the centralised model's training from `initial` to come.
    pub fn new(
        spec: &MlpSpec,
        initial: &[f32],
        train: &[Sample],
        test: &[Sample],
        seed: u64,
    ) -> Self {
        let mean = mean_label(train);
        let mean_rmse_db =
            whereabouts_core::metrics::rmse(test.iter().map(|s| (mean, f64::from(s.y))))
                .unwrap_or(f64::NAN);
        let training = Some((
            LocalTrainer::new(spec, initial, train.len(), &centralised(train.len())),
            Stream::new(seed, "centralised-reference"),
        ));
        Self {
            mean_rmse_db,
            training,
            centralised_rmse_db: None,
        }
    }

    /// [`Measuring::new`] for a fresh model of `spec` (see [`References::of_fresh_model`]).
    pub fn of_fresh_model(
        spec: &MlpSpec,
        train: &[Sample],
        test: &[Sample],
        init: &mut Stream,
        seed: u64,
    ) -> Self {
        let initial = spec.init(mean_label(train) as f32, init);
        Self::new(spec, &initial, train, test, seed)
    }

    /// Up to `steps` more SGD steps of the centralised model; both references once its
    /// training is over (or has diverged).
    pub fn advance(
        &mut self,
        spec: &MlpSpec,
        train: &[Sample],
        test: &[Sample],
        steps: usize,
    ) -> Option<References> {
        if let Some((trainer, stream)) = self.training.as_mut() {
            let mut failed = false;
            for _ in 0..steps {
                if trainer.done() || trainer.step(spec, train, stream, &mut None).is_err() {
                    failed = !trainer.done();
                    break;
                }
            }
            if failed || trainer.done() {
                self.centralised_rmse_db = if failed {
                    None
                } else {
                    trainer
                        .result()
                        .ok()
                        .map(|r| test_rmse(spec, &r.params, test))
                };
                self.training = None;
            }
        }
        self.training.is_none().then_some(References {
            mean_rmse_db: self.mean_rmse_db,
            centralised_rmse_db: self.centralised_rmse_db,
        })
    }

    /// Trains to the end.
    pub fn finish(mut self, spec: &MlpSpec, train: &[Sample], test: &[Sample]) -> References {
        loop {
            if let Some(r) = self.advance(spec, train, test, usize::MAX) {
                return r;
            }
        }
    }
}

fn mean_label(train: &[Sample]) -> f64 {
    train.iter().map(|s| f64::from(s.y)).sum::<f64>() / train.len().max(1) as f64
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

/// The RMSE on `test` (dB) of predicting each point's RSRP as the mean of its `k` nearest
/// training points' (by position): [004] Table 3's k-NN baseline for the collaborative task,
/// on the raw input instead of image features. `None` without training or test points.
pub fn knn_rmse(train: &[Sample], test: &[Sample], k: usize) -> Option<f64> {
    if train.is_empty() || test.is_empty() || k == 0 {
        return None;
    }
    let k = k.min(train.len());
    let mut d: Vec<(f64, f32)> = Vec::with_capacity(train.len());
    whereabouts_core::metrics::rmse(test.iter().map(|t| {
        d.clear();
        d.extend(train.iter().map(|s| {
            let (e, n) = (s.pos.east - t.pos.east, s.pos.north - t.pos.north);
            (e * e + n * n, s.y)
        }));
        d.select_nth_unstable_by(k - 1, |a, b| a.0.total_cmp(&b.0));
        let guess = d[..k].iter().map(|p| f64::from(p.1)).sum::<f64>() / k as f64;
        (guess, f64::from(t.y))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal_map::model::ModelPreset;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_references_bracket_a_learnable_signal() {
        // A signal that depends on where you are: the mean predictor misses it by its spread,
        // the centralised model learns most of it.
        let mut s = Stream::new(3, "reference-data");
        let points: Vec<Sample> = (0..3000)
            .map(|i| {
                let x = [s.gaussian(0.0, 1.0) as f32, s.gaussian(0.0, 1.0) as f32];
                Sample {
                    user: 0,
                    time: i as f64,
                    pos: whereabouts_core::geo::Metres::new(0.0, 0.0),
                    x,
                    y: -90.0 + 8.0 * x[0] - 5.0 * x[1] + s.gaussian(0.0, 1.0) as f32,
                }
            })
            .collect();
        let (train, test) = points.split_at(2400);
        let spec = ModelPreset::Small.spec();
        let mean = train.iter().map(|p| f64::from(p.y)).sum::<f64>() / train.len() as f64;
        let initial = spec.init(mean as f32, &mut Stream::new(1, "init"));
        let r = References::measure(&spec, &initial, train, test, 1);
        // The spread of the signal: √(8² + 5² + 1) ≈ 9.5 dB.
        assert!((r.mean_rmse_db - 9.5).abs() < 0.6, "{r:?}");
        let central = r.centralised_rmse_db.unwrap();
        assert!(central < 0.5 * r.mean_rmse_db, "{r:?}");
        assert_eq!(centralised_epochs(2400), 10);
        assert_eq!(centralised_epochs(69_000), 5);
        assert_eq!(centralised_epochs(10_000_000), 1);

        // Measured a few steps at a time (as the worker does), the same to the last bit.
        let mut measuring = Measuring::new(&spec, &initial, train, test, 1);
        let mut calls = 0;
        let sliced = loop {
            calls += 1;
            if let Some(r) = measuring.advance(&spec, train, test, 7) {
                break r;
            }
        };
        assert_eq!(sliced, r);
        // 10 epochs of ⌈2400 / 32⌉ = 75 steps, 7 a call.
        assert_eq!(calls, 750usize.div_ceil(7));
    }

    #[test]
    fn knn_predicts_the_mean_of_the_nearest_points() {
        let at = |east: f64, y: f32| Sample {
            user: 0,
            time: 0.0,
            pos: whereabouts_core::geo::Metres::new(east, 0.0),
            x: [0.0, 0.0],
            y,
        };
        let train = [
            at(0.0, -80.0),
            at(1.0, -90.0),
            at(10.0, -100.0),
            at(11.0, -110.0),
        ];
        // Near 0.4 the two nearest are −80 and −90 (guess −85); near 10.6, −105.
        let test = [at(0.4, -85.0), at(10.6, -101.0)];
        let rmse = knn_rmse(&train, &test, 2).unwrap();
        assert!((rmse - (16.0f64 / 2.0).sqrt()).abs() < 1e-9, "{rmse}");
        // k = 1 is the nearest point's label; k beyond the pool is the mean of all of it.
        assert!((knn_rmse(&train, &[at(0.2, -80.0)], 1).unwrap()).abs() < 1e-9);
        assert!((knn_rmse(&train, &[at(5.0, -95.0)], 99).unwrap()).abs() < 1e-9);
        assert_eq!(knn_rmse(&[], &test, 2), None);
    }
}
