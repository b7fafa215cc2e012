#[cfg(not(target_arch = "wasm32"))]
use super::train::train_local_candle_with;
use super::train::{LocalTraining, StepNoise, TrainError, train_local, train_local_with};
use super::*;
use crate::signal_map::trace::Sample;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::geo::Metres;

/// Σ |p − q| over two parameter vectors.
fn l1(p: &[f32], q: &[f32]) -> f32 {
    p.iter().zip(q).map(|(p, q)| (p - q).abs()).sum()
}

fn toy_batch(n: usize, seed: u64) -> Vec<Sample> {
    let mut s = Stream::new(seed, "toy");
    (0..n)
        .map(|_| {
            let x = [s.gaussian(0.0, 1.0) as f32, s.gaussian(0.0, 1.0) as f32];
            Sample {
                user: 0,
                time: 0.0,
                pos: Metres::new(0.0, 0.0),
                x,
                y: (-96.0 + 8.0 * f64::from(x[0]).sin() + 3.0 * s.normal()) as f32,
            }
        })
        .collect()
}

#[test]
fn the_papers_model_has_its_parameter_count() {
    // 2·224+224 + 224·640+640 + 640+1
    assert_eq!(ModelPreset::Paper.spec().parameter_count(), 145_313);
    assert_eq!(ModelPreset::Small.spec().parameter_count(), 192 + 4160 + 65);
}

#[test]
fn example_gradient_matches_finite_differences_of_the_loss() {
    for preset in [ModelPreset::Small, ModelPreset::Paper] {
        let mut spec = preset.spec();
        spec.dropout = 0.0;
        let params = spec.init(-96.0, &mut Stream::new(1, "init"));
        let (x, y) = ([0.3f64, -0.7], -90.0f64);
        let g = spec.example_gradient(&params, x, y);
        let loss = |p: &[f32]| {
            let d = f64::from(spec.predict(p, [x[0] as f32, x[1] as f32])) - y;
            d * d
        };
        // Check the biggest-gradient coordinates of each layer (f32 params: eps 1e-2).
        for l in spec.layers() {
            let i = (l.w..l.b + l.outputs)
                .max_by(|&a, &b| g[a].abs().total_cmp(&g[b].abs()))
                .unwrap();
            let eps = 1e-2f32;
            let (mut up, mut down) = (params.clone(), params.clone());
            up[i] += eps;
            down[i] -= eps;
            let fd = (loss(&up) - loss(&down)) / (2.0 * f64::from(eps));
            assert!(
                (fd - g[i]).abs() <= 2e-2 * g[i].abs().max(1e-3),
                "{preset:?} param {i}: analytic {} vs finite difference {fd}",
                g[i]
            );
        }
    }
}

#[test]
fn a_fedsgd_step_is_minus_eta_times_the_mean_gradient() {
    let spec = ModelPreset::Small.spec();
    let start = spec.init(-96.0, &mut Stream::new(2, "init"));
    let batch = toy_batch(50, 3);
    let eta = 1e-3f32;
    let cfg = LocalTraining {
        batch_size: None,
        epochs: 1,
        learning_rate: eta,
    };
    let out = train_local(&spec, &start, &batch, &cfg, &mut Stream::new(4, "sgd")).unwrap();
    assert_eq!(out.steps, 1);
    let mut mean = vec![0.0f64; start.len()];
    for s in &batch {
        let g = spec.example_gradient(
            &start,
            [f64::from(s.x[0]), f64::from(s.x[1])],
            f64::from(s.y),
        );
        for (m, gi) in mean.iter_mut().zip(g) {
            *m += gi / batch.len() as f64;
        }
    }
    let (mut num, mut den) = (0.0f64, 0.0f64);
    for i in 0..start.len() {
        let delta = f64::from(out.params[i]) - f64::from(start[i]);
        let expected = -f64::from(eta) * mean[i];
        num += (delta - expected).powi(2);
        den += expected.powi(2);
    }
    assert!(
        (num / den).sqrt() < 1e-3,
        "relative error {}",
        (num / den).sqrt()
    );
}

#[test]
fn fedavg_takes_e_times_ceil_n_over_b_steps_and_learns() {
    let spec = ModelPreset::Small.spec();
    let start = spec.init(-96.0, &mut Stream::new(5, "init"));
    let batch = toy_batch(100, 6);
    let cfg = LocalTraining {
        batch_size: Some(20),
        epochs: 5,
        learning_rate: 1e-3,
    };
    let mse = |p: &[f32]| {
        batch
            .iter()
            .map(|s| (f64::from(spec.predict(p, s.x)) - f64::from(s.y)).powi(2))
            .sum::<f64>()
            / batch.len() as f64
    };
    let out = train_local(&spec, &start, &batch, &cfg, &mut Stream::new(7, "sgd")).unwrap();
    assert_eq!(out.steps, 25);
    assert!(
        mse(&out.params) < mse(&start),
        "training did not reduce the loss"
    );
}

#[test]
fn an_absurd_learning_rate_is_reported_as_divergence() {
    let spec = ModelPreset::Small.spec();
    let start = spec.init(0.0, &mut Stream::new(8, "init"));
    let batch = toy_batch(20, 9);
    let cfg = LocalTraining {
        batch_size: Some(1),
        epochs: 50,
        learning_rate: 1e6,
    };
    let err = train_local(&spec, &start, &batch, &cfg, &mut Stream::new(1, "sgd")).unwrap_err();
    assert!(matches!(err, TrainError::Diverged { .. }), "{err:?}");
    assert!(err.to_string().contains("lower the learning rate"));
}

#[test]
fn specs_are_validated() {
    let mut spec = ModelPreset::Small.spec();
    spec.hidden.clear();
    assert_eq!(spec.validate().unwrap_err().field, "model.hidden");
    let mut spec = ModelPreset::Small.spec();
    spec.dropout = 1.0;
    assert_eq!(spec.validate().unwrap_err().field, "model.dropout");
}

#[test]
fn per_step_dp_clips_every_step_and_both_paths_agree() {
    // Local DP on each local step ([000] §4.5): with no noise, each step moves the parameters by
    // at most η·ℂ, so E·⌈n/B⌉ steps move them by at most that many times η·ℂ; with noise the
    // candle path and the path by hand take the same noisy steps.
    let spec = ModelPreset::Small.spec();
    let start = spec.init(-96.0, &mut Stream::new(3, "init"));
    let batch = toy_batch(37, 5);
    let cfg = LocalTraining {
        batch_size: Some(8),
        epochs: 2,
        learning_rate: 0.01,
    };
    let clip = 0.5;
    let quiet = StepNoise { clip, sigma: 0.0 };
    let mut s = Stream::new(9, "dp");
    let a = train_local_with(
        &spec,
        &start,
        &batch,
        &cfg,
        &mut Stream::new(4, "sgd"),
        Some((quiet, &mut s)),
    )
    .unwrap();
    let moved = |p: &[f32]| -> f64 {
        p.iter()
            .zip(&start)
            .map(|(p, s)| f64::from(p - s).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    let bound = a.steps as f64 * f64::from(cfg.learning_rate) * clip;
    assert_eq!(a.steps, 10);
    assert!(
        moved(&a.params) <= bound * (1.0 + 1e-5),
        "{}",
        moved(&a.params)
    );
    // Unclipped, the same training moves much further: the clip bites.
    let free = train_local(&spec, &start, &batch, &cfg, &mut Stream::new(4, "sgd")).unwrap();
    assert!(moved(&free.params) > 2.0 * bound, "{}", moved(&free.params));
    let noisy = StepNoise { clip, sigma: 0.3 };
    // The candle reference, natively; in wasm the path by hand against itself.
    #[cfg(not(target_arch = "wasm32"))]
    let reference = train_local_candle_with;
    #[cfg(target_arch = "wasm32")]
    let reference = train_local_with;
    let b = reference(
        &spec,
        &start,
        &batch,
        &cfg,
        &mut Stream::new(4, "sgd"),
        Some((noisy, &mut Stream::new(9, "dp"))),
    )
    .unwrap();
    let c = train_local_with(
        &spec,
        &start,
        &batch,
        &cfg,
        &mut Stream::new(4, "sgd"),
        Some((noisy, &mut Stream::new(9, "dp"))),
    )
    .unwrap();
    assert_eq!(
        b.batch_means, free.batch_means,
        "the noise leaves the shuffles alone"
    );
    let apart: f64 = b
        .params
        .iter()
        .zip(&c.params)
        .map(|(p, q)| f64::from(p - q).abs())
        .sum();
    assert!(apart < 1e-4 * moved(&b.params), "{apart}");
    assert!(
        moved(&b.params) > bound,
        "the noise moves the model beyond the clip"
    );
}

/// The candle reference and the training by hand take the same steps (within float rounding),
/// with and without mini-batches, and with dropout (the paper's model trains with 0.05).
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn sgd_by_hand_takes_the_same_steps_as_candle() {
    let batch = toy_batch(37, 5);
    for (preset, dropout) in [
        (ModelPreset::Small, 0.0),
        (ModelPreset::Small, 0.3),
        (ModelPreset::Paper, 0.05),
    ] {
        let mut spec = preset.spec();
        spec.dropout = dropout;
        let start = spec.init(-96.0, &mut Stream::new(3, "init"));
        for batch_size in [Some(8), None] {
            let cfg = LocalTraining {
                batch_size,
                epochs: 2,
                learning_rate: 0.01,
            };
            let a = train_local(&spec, &start, &batch, &cfg, &mut Stream::new(4, "sgd")).unwrap();
            let b = train_local_candle_with(
                &spec,
                &start,
                &batch,
                &cfg,
                &mut Stream::new(4, "sgd"),
                None,
            )
            .unwrap();
            assert_eq!(a.steps, b.steps);
            assert_eq!(a.batch_means, b.batch_means);
            let moved = l1(&a.params, &start);
            let apart = l1(&a.params, &b.params);
            assert!(moved > 1e-2, "training moved the parameters by {moved}");
            assert!(
                apart < 1e-4 * moved,
                "{preset:?}, dropout {dropout}, B {batch_size:?}: by hand and candle differ by \
                 {apart} (moved {moved})"
            );
        }
    }
}

/// Dropout draws its masks from the run's stream: the same stream gives the same steps, and a
/// dropout of 0.3 trains to other weights than none (the masks are used).
#[test]
fn dropout_by_hand_is_seeded_and_bites() {
    let batch = toy_batch(37, 5);
    let mut spec = ModelPreset::Small.spec();
    let start = spec.init(-96.0, &mut Stream::new(3, "init"));
    let cfg = LocalTraining {
        batch_size: Some(8),
        epochs: 2,
        learning_rate: 0.01,
    };
    spec.dropout = 0.0;
    let none = train_local(&spec, &start, &batch, &cfg, &mut Stream::new(4, "sgd")).unwrap();
    spec.dropout = 0.3;
    let a = train_local(&spec, &start, &batch, &cfg, &mut Stream::new(4, "sgd")).unwrap();
    let b = train_local(&spec, &start, &batch, &cfg, &mut Stream::new(4, "sgd")).unwrap();
    assert_eq!(a.params, b.params);
    let apart = l1(&a.params, &none.params);
    assert!(apart > 1e-3, "dropout changed the weights by {apart}");
}
