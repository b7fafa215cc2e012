//! Benchmark kernels (timed by the caller's clock: the engine has no clock of its own, since
//! wasm32-unknown-unknown has none). `whereabouts bench` runs them natively; `./x bench` also
//! runs them in headless Chromium. Results go in BENCHMARKS.md.

use crate::attack::dlg::{self, DlgConfig};
use crate::attack::objective::Objective;
use crate::geo::Metres;
use crate::model::{Activation, Hidden, MlpSpec, ModelPreset};
use crate::rng::Stream;
use crate::trace::Standardizer;

/// The architectures benchmarked: the defaults, and the 2-64-64-1 tanh network that the
/// PyTorch reference timing (double backward, one CPU thread) used.
pub fn architectures() -> Vec<(&'static str, MlpSpec)> {
    let tanh64 = MlpSpec {
        hidden: vec![
            Hidden {
                width: 64,
                activation: Activation::Tanh,
            },
            Hidden {
                width: 64,
                activation: Activation::Tanh,
            },
        ],
        dropout: 0.0,
    };
    let mut paper = ModelPreset::Paper.spec();
    paper.dropout = 0.0;
    vec![
        ("small (2-64 tanh-64 sigmoid-1)", ModelPreset::Small.spec()),
        ("2-64-64-1 tanh (PyTorch reference shape)", tanh64),
        ("paper (2-224 ReLU-640 sigmoid-1)", paper),
    ]
}

/// Milliseconds per DLG iteration on `spec`, over `iterations` iterations after a warm-up of
/// `iterations / 10`. The observed gradient is a 30-point batch's at a seeded initial model.
pub fn dlg_ms_per_iteration(spec: &MlpSpec, iterations: usize, now: &dyn Fn() -> f64) -> f64 {
    let w = spec.init(0.0, &mut Stream::new(1, "bench-init"));
    let mut s = Stream::new(2, "bench-batch");
    let mut g = vec![0.0f64; w.len()];
    for _ in 0..30 {
        let x = [s.gaussian(0.0, 0.5), s.gaussian(0.0, 0.5)];
        for (gi, e) in g
            .iter_mut()
            .zip(spec.example_gradient(&w, x, s.gaussian(-96.0, 8.0)))
        {
            *gi += e / 30.0;
        }
    }
    let g: Vec<f32> = g.into_iter().map(|v| v as f32).collect();
    let std = Standardizer {
        mean: [0.0, 0.0],
        sd: [500.0, 500.0],
    };
    let area = (Metres::new(-1e6, -1e6), Metres::new(1e6, 1e6));
    // Tolerance 0 with a huge patience: every iteration runs.
    let cfg = |n| DlgConfig {
        max_iterations: n,
        tolerance_m: 0.0,
        patience: usize::MAX,
        trail_every: 0,
        ..DlgConfig::default()
    };
    let mut objective = Objective::new(spec, &w, &g, 1);
    let start = Metres::new(100.0, -100.0);
    dlg::run(
        &mut objective,
        &cfg(iterations / 10 + 1),
        &std,
        area,
        start,
        -96.0,
    );
    let t0 = now();
    let r = dlg::run(&mut objective, &cfg(iterations), &std, area, start, -96.0);
    let elapsed = now() - t0;
    elapsed / r.iterations.max(1) as f64
}
