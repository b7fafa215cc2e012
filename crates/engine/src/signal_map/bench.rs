//! Benchmark kernels (timed by the caller's clock: the engine has no clock of its own, since
//! wasm32-unknown-unknown has none). `whereabouts bench` runs them natively; `./x bench` also
//! runs them in headless Chromium. Results go in BENCHMARKS.md.

use crate::signal_map::attack::dlg::{self, DlgConfig};
use crate::signal_map::attack::kernel::Kernel;
use crate::signal_map::attack::objective::{D4, Objective};
use crate::signal_map::model::{Activation, Hidden, MlpSpec, ModelPreset};
use crate::signal_map::trace::Standardizer;
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;

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

/// Where a DLG iteration on the small network (2-64 tanh-64 sigmoid-1) spends its time, in µs:
/// what `kernel`'s two passes over its 64 × 64 layer take (the forward pass with Ga, and the
/// backward pass), and what its 128 activations take (64 `tanhf` and 64 `expf` with the
/// sigmoid's division, as the objective calls them from libm), each over `reps` repetitions.
/// The rest of an iteration (`dlg_ms_per_iteration` minus the two) is the other layers, the
/// O(n) dual-number products and the Adam step.
pub fn small_network_parts_us(
    kernel: &dyn Kernel,
    reps: usize,
    now: &dyn Fn() -> f64,
) -> (f64, f64) {
    let n = 64;
    let mut s = Stream::new(3, "bench-parts");
    let mut draw = |k: usize| {
        (0..k)
            .map(|_| s.gaussian(0.0, 0.3) as f32)
            .collect::<Vec<_>>()
    };
    let (rows, grows, bias) = (draw(n * n), draw(n * n), draw(n));
    let active: Vec<usize> = (0..n).collect();
    let compact: Vec<D4> = draw(3 * n)
        .chunks(3)
        .map(|v| D4 {
            v: v[0],
            d: [v[1], v[2], 0.0],
        })
        .collect();
    let (mut z, mut ga, mut back) = (vec![D4::ZERO; n], vec![D4::ZERO; n], vec![D4::ZERO; n]);
    let reps = reps.max(1);
    let t0 = now();
    for _ in 0..reps {
        kernel.forward(
            &rows, &grows, &bias, &bias, n, &active, &compact, &mut z, &mut ga,
        );
        kernel.backward(&rows, n, &z, &active, &mut back);
    }
    let passes = (now() - t0) * 1000.0 / reps as f64;
    let values = draw(n);
    let mut sink = 0.0f32;
    let t0 = now();
    for r in 0..reps {
        let shift = r as f32 * 1e-6;
        for &v in &values {
            sink += libm::tanhf(v + shift) + 1.0 / (1.0 + libm::expf(-(v + shift)));
        }
    }
    let activations = (now() - t0) * 1000.0 / reps as f64;
    // The sums are used, so neither loop can be left out.
    assert!(sink.is_finite() && back.iter().all(|b| b.v.is_finite()));
    (passes, activations)
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

/// The local-step counts the FedAvg-aware benchmark sweeps.
pub const FEDAVG_STEPS: [usize; 5] = [1, 10, 50, 100, 150];

/// Milliseconds per FedAvg-aware iteration (one simulation of K local steps and its reverse
/// pass) on `spec` for K = `steps` single-point steps (n = K, B = 1, E = 1, η = 0.001), over
/// `iterations` evaluations after one warm-up; the update is real local training on K seeded
/// points. Each K is timed against a DLG iteration on the same model in the same run (the
/// ratio is the figure to trust on a shared machine).
pub fn fedavg_ms_per_iteration(
    spec: &MlpSpec,
    steps: usize,
    iterations: usize,
    now: &dyn Fn() -> f64,
) -> Result<f64, String> {
    use crate::signal_map::attack::unroll::{
        Distance, Dummies, LocalSchedule, StepLabel, Unrolled,
    };
    use crate::signal_map::model::train::{LocalTraining, train_local};
    use crate::signal_map::trace::Sample;
    let w = spec.init(0.0, &mut Stream::new(1, "bench-init"));
    let mut s = Stream::new(2, "bench-batch");
    let batch: Vec<Sample> = (0..steps)
        .map(|_| {
            let x = [s.gaussian(0.0, 0.5) as f32, s.gaussian(0.0, 0.5) as f32];
            Sample {
                user: 0,
                time: 0.0,
                pos: Metres::new(0.0, 0.0),
                x,
                y: s.gaussian(-96.0, 8.0) as f32,
            }
        })
        .collect();
    let local = LocalTraining {
        batch_size: Some(1),
        epochs: 1,
        learning_rate: 1e-3,
    };
    let after = train_local(spec, &w, &batch, &local, &mut Stream::new(3, "bench-t"))
        .map_err(|e| e.to_string())?
        .params;
    let schedule = LocalSchedule::new(steps, Some(1), 1, 1e-3, Dummies::PerStep);
    let mut objective = Unrolled::new(
        spec,
        &w,
        &after,
        schedule,
        StepLabel::Analytic,
        Distance::Cosine,
    )?;
    let dummies: Vec<[f64; 3]> = batch
        .iter()
        .map(|b| [f64::from(b.x[0]) + 0.1, f64::from(b.x[1]) - 0.1, -96.0])
        .collect();
    let mut grad = vec![[0.0; 3]; dummies.len()];
    objective.evaluate(&dummies, &mut grad);
    let t0 = now();
    for _ in 0..iterations {
        objective.evaluate(&dummies, &mut grad);
    }
    Ok((now() - t0) / iterations.max(1) as f64)
}

/// The FedAvg-aware sweep: for the small and the paper model, each K of [`FEDAVG_STEPS`]
/// with its ms per iteration, and DLG's ms per iteration on the same model measured just
/// before. `(model, K, FedAvg-aware ms, DLG ms)`.
pub fn fedavg_sweep(now: &dyn Fn() -> f64) -> Vec<(&'static str, usize, Result<f64, String>, f64)> {
    let mut paper = ModelPreset::Paper.spec();
    paper.dropout = 0.0;
    let mut rows = Vec::new();
    for (name, spec, evaluations) in [
        ("small", ModelPreset::Small.spec(), 20),
        ("paper", paper, 3),
    ] {
        for k in FEDAVG_STEPS {
            let dlg = dlg_ms_per_iteration(&spec, 200, now);
            let fedavg = fedavg_ms_per_iteration(&spec, k, evaluations, now);
            rows.push((name, k, fedavg, dlg));
        }
    }
    rows
}

/// Sample files of about `bytes` bytes in each import format, from a seeded random walk
/// (name, contents): CSV with a signal column, GPX, GeoJSON, Google Records.json.
pub fn import_samples(bytes: usize) -> Vec<(&'static str, String)> {
    let mut s = Stream::new(3, "bench-import");
    let (mut lat, mut lon) = (33.6455f64, -117.8425f64);
    let mut csv = String::from("time,lat,lon,rsrp\n");
    let mut gpx = String::from("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\"><trk><trkseg>\n");
    let mut geo = String::from("{\"type\":\"FeatureCollection\",\"features\":[\n");
    let mut rec = String::from("{\"locations\":[\n");
    let mut t = 1_714_557_600u64;
    let mut first = true;
    while csv.len() < bytes {
        lat += s.gaussian(0.0, 1e-4);
        lon += s.gaussian(0.0, 1e-4);
        t += 10;
        let iso = whereabouts_core::import::time::format_iso(t as f64);
        let rsrp = -96 + (s.gaussian(0.0, 6.0) as i64);
        csv += &format!("{iso},{lat:.6},{lon:.6},{rsrp}\n");
        gpx += &format!("<trkpt lat=\"{lat:.6}\" lon=\"{lon:.6}\"><time>{iso}</time></trkpt>\n");
        let sep = if first { "" } else { ",\n" };
        geo += &format!(
            "{sep}{{\"type\":\"Feature\",\"properties\":{{\"time\":\"{iso}\"}},\"geometry\":{{\"type\":\"Point\",\"coordinates\":[{lon:.6},{lat:.6}]}}}}"
        );
        rec += &format!(
            "{sep}{{\"latitudeE7\":{},\"longitudeE7\":{},\"timestamp\":\"{iso}\"}}",
            (lat * 1e7) as i64,
            (lon * 1e7) as i64
        );
        first = false;
    }
    gpx += "</trkseg></trk></gpx>\n";
    geo += "]}\n";
    rec += "]}\n";
    vec![
        ("CSV", csv),
        ("GPX", gpx),
        ("GeoJSON", geo),
        ("Records.json", rec),
    ]
}

/// Import throughput in MB/s for each sample, and the fixes read.
pub fn import_mb_per_s(
    samples: &[(&'static str, String)],
    now: &dyn Fn() -> f64,
) -> Vec<(&'static str, f64, usize)> {
    samples
        .iter()
        .map(|(name, text)| {
            let t0 = now();
            let result =
                whereabouts_core::import::import(name, text.as_bytes(), &Default::default());
            let ms = now() - t0;
            let n = result.map_or(0, |i| i.fixes.len());
            (*name, text.len() as f64 / 1e6 / (ms / 1000.0), n)
        })
        .collect()
}

/// The local training benchmarked: the paper's model with its dropout (0.05) on a LocalBatch of
/// 100 seeded points, FedAvg's B = 20, E = 2 (10 steps), η = 0.001.
fn local_training_case() -> (MlpSpec, Vec<f32>, Vec<crate::signal_map::trace::Sample>) {
    use crate::signal_map::trace::Sample;
    let spec = ModelPreset::Paper.spec();
    let w = spec.init(-96.0, &mut Stream::new(1, "bench-init"));
    let mut s = Stream::new(2, "bench-batch");
    let batch = (0..100)
        .map(|_| Sample {
            user: 0,
            time: 0.0,
            pos: Metres::new(0.0, 0.0),
            x: [s.gaussian(0.0, 0.5) as f32, s.gaussian(0.0, 0.5) as f32],
            y: s.gaussian(-96.0, 8.0) as f32,
        })
        .collect();
    (spec, w, batch)
}

const LOCAL: crate::signal_map::model::train::LocalTraining =
    crate::signal_map::model::train::LocalTraining {
        batch_size: Some(20),
        epochs: 2,
        learning_rate: 1e-3,
    };

/// Milliseconds per local update of [`local_training_case`] as the labs train (by hand), over
/// `updates` updates after one warm-up.
pub fn local_training_ms(updates: usize, now: &dyn Fn() -> f64) -> Result<f64, String> {
    use crate::signal_map::model::train::train_local;
    let (spec, w, batch) = local_training_case();
    let run = || {
        train_local(&spec, &w, &batch, &LOCAL, &mut Stream::new(3, "bench-t"))
            .map_err(|e| e.to_string())
    };
    run()?;
    let t0 = now();
    for _ in 0..updates {
        run()?;
    }
    Ok((now() - t0) / updates.max(1) as f64)
}

/// [`local_training_ms`] with candle's autograd (the native reference), and the largest
/// difference between the two trainings' parameters.
#[cfg(not(target_arch = "wasm32"))]
pub fn local_training_candle_ms(
    updates: usize,
    now: &dyn Fn() -> f64,
) -> Result<(f64, f32), String> {
    use crate::signal_map::model::train::{train_local, train_local_candle_with};
    let (spec, w, batch) = local_training_case();
    let run = || {
        train_local_candle_with(
            &spec,
            &w,
            &batch,
            &LOCAL,
            &mut Stream::new(3, "bench-t"),
            None,
        )
        .map_err(|e| e.to_string())
    };
    let candle = run()?;
    let t0 = now();
    for _ in 0..updates {
        run()?;
    }
    let ms = (now() - t0) / updates.max(1) as f64;
    let hand = train_local(&spec, &w, &batch, &LOCAL, &mut Stream::new(3, "bench-t"))
        .map_err(|e| e.to_string())?;
    let difference = hand
        .params
        .iter()
        .zip(&candle.params)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    Ok((ms, difference))
}
