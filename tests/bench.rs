//! DLG speed in headless Chromium: a benchmark, not a test — ignored by `./x test`, run by
//! `./x bench` (release build), which prints µs per iteration for BENCHMARKS.md.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;
use whereabouts_engine::signal_map::bench::{
    architectures, dlg_ms_per_iteration, fedavg_sweep, import_mb_per_s, import_samples,
    small_network_parts_us as small_network_parts,
};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
#[ignore = "a benchmark: run with ./x bench"]
fn dlg_iteration_time_in_the_browser() {
    let performance = web_sys::window().unwrap().performance().unwrap();
    let now = move || performance.now();
    use whereabouts_engine::signal_map::attack::kernel::{self, Kernel, Scalar};
    console_log!("DLG, one dummy point, cosine loss; wasm in headless Chromium; 2000 iterations");
    // The worker's two kernels, side by side, each compiled as the site compiles it (the scalar
    // one with the engine, no SIMD; the simd128 one from crates/simd's object, build.rs): the
    // same bits, each architecture under one then the other.
    let kernels: [&'static dyn Kernel; 2] = [&Scalar, &whereabouts_web::worker::simd::SIMD128];
    for (name, spec) in architectures() {
        for k in kernels {
            kernel::install(k);
            let ms = dlg_ms_per_iteration(&spec, 2000, &now);
            console_log!(
                "BENCH {name:<45} {:<8} {:>9.2} µs/iteration",
                k.name(),
                ms * 1000.0
            );
        }
    }
    // Where the small network's iteration goes (issue 41 §2: what is left outside the passes).
    for k in kernels {
        let (passes, activations) = small_network_parts(k, 20_000, &now);
        console_log!(
            "BENCH small network's parts, {:<8} its 64 × 64 layer's two passes {passes:>6.2} µs; its 128 activations (libm) {activations:>6.2} µs",
            k.name()
        );
    }
    kernel::install(kernel::DEFAULT);
}

#[wasm_bindgen_test]
#[ignore = "a benchmark: run with ./x bench"]
fn import_throughput_in_the_browser() {
    let performance = web_sys::window().unwrap().performance().unwrap();
    let now = move || performance.now();
    console_log!("Import throughput; wasm in headless Chromium; ~20 MB per format");
    let samples = import_samples(20_000_000);
    for (name, mb_s, fixes) in import_mb_per_s(&samples, &now) {
        console_log!("BENCH import {name:<38} {mb_s:>9.1} MB/s ({fixes} fixes)");
    }
}

#[wasm_bindgen_test]
#[ignore = "a benchmark: run with ./x bench"]
fn fitting_time_in_the_browser() {
    let performance = web_sys::window().unwrap().performance().unwrap();
    let now = move || performance.now();
    console_log!("Frequency fitting, one upload, 128 × 128; wasm in headless Chromium; 10 uploads");
    for b in [3, 10] {
        let (fast, direct) = whereabouts_engine::density::bench::fit_ms(b, 128, 10, &now);
        console_log!(
            "BENCH fitting B = {b:<3} separated {fast:>8.2} ms   cell by cell {direct:>9.2} ms   ({:.1}× faster)",
            direct / fast
        );
    }
}

#[wasm_bindgen_test]
#[ignore = "a benchmark: run with ./x bench"]
fn mobility_attack_objective_in_the_browser() {
    use whereabouts_engine::mobility::bench::objective_ms;
    use whereabouts_engine::mobility::objective::Distance;
    let performance = web_sys::window().unwrap().performance().unwrap();
    let now = move || performance.now();
    console_log!(
        "Mobility attack objective (the dummy gradient and its derivative); wasm in headless Chromium"
    );
    for distance in Distance::ALL {
        let (reverse, _) = objective_ms(distance, 5000, true, &now);
        let (dual, _) = objective_ms(distance, 2000, false, &now);
        console_log!(
            "BENCH mobility {distance:?}: reverse over reverse {:.1} µs, dual numbers {:.1} µs per evaluation (×{:.1})",
            1000.0 * reverse,
            1000.0 * dual,
            dual / reverse
        );
    }
    let (round, evaluations) = whereabouts_engine::mobility::bench::round_ms(10, &now);
    console_log!(
        "BENCH mobility round: one ST-GIA round (200 L-BFGS iterations, road mapping), first 10 rounds: {round:.0} ms per round, {evaluations:.0} evaluations"
    );
}

#[wasm_bindgen_test]
#[ignore = "a benchmark: run with ./x bench"]
fn fedavg_aware_iteration_time_in_the_browser() {
    let performance = web_sys::window().unwrap().performance().unwrap();
    let now = move || performance.now();
    console_log!("FedAvg-aware attack against DLG, one iteration each; wasm in headless Chromium");
    for (model, k, fedavg, dlg) in fedavg_sweep(&now) {
        match fedavg {
            Ok(ms) => console_log!(
                "BENCH fedavg-aware {model:<6} K = {k:<4} {ms:>10.3} ms/iteration, DLG {dlg:>8.3} ms (×{:.0})",
                ms / dlg
            ),
            Err(e) => console_log!("BENCH fedavg-aware {model:<6} K = {k:<4} {e}"),
        }
    }
}

#[wasm_bindgen_test]
#[ignore = "a benchmark: run with ./x bench"]
fn secure_aggregation_round_in_the_browser() {
    use whereabouts_core::secagg::bench::{PER_ROUND_HEADER, Plan, WHOLE_ROUND_HEADER, measure};
    let performance = web_sys::window().unwrap().performance().unwrap();
    let now = move || performance.now();
    // The plan of `whereabouts bench --secagg`'s defaults: n = 10, 100, 1000, m = the Signal
    // map's small model's parameter count, a second run of each with 10% silent after shares.
    let plan = Plan {
        clients: vec![10, 100, 1000],
        length: whereabouts_engine::signal_map::model::ModelPreset::Small
            .spec()
            .parameter_count(),
        dropout: 0.1,
    };
    console_log!(
        "Secure aggregation, one round in one process; wasm in headless Chromium, one thread; m = {} words",
        plan.length
    );
    let rows = measure(&plan, &now, &mut |r| {
        console_log!(
            "n = {:>5} {:<28} dropped {:>4}: {:>9.0} ms",
            r.n,
            r.protocol,
            r.dropped,
            r.wall_ms
        )
    })
    .unwrap();
    for line in PER_ROUND_HEADER.lines() {
        console_log!("BENCH {line}");
    }
    for r in &rows {
        for line in r.per_round_rows() {
            console_log!("BENCH {line}");
        }
    }
    for line in WHOLE_ROUND_HEADER.lines() {
        console_log!("BENCH {line}");
    }
    for r in &rows {
        console_log!("BENCH {}", r.whole_round_row());
    }
}

#[wasm_bindgen_test]
#[ignore = "a benchmark: run with ./x bench"]
fn local_training_time_in_the_browser() {
    let performance = web_sys::window().unwrap().performance().unwrap();
    let now = move || performance.now();
    console_log!(
        "Signal map: one local update (the paper's model, dropout 0.05; 100 points, B = 20, E = 2); wasm in headless Chromium"
    );
    match whereabouts_engine::signal_map::bench::local_training_ms(20, &now) {
        Ok(ms) => console_log!("BENCH local update, by hand {ms:>9.2} ms"),
        Err(e) => console_log!("BENCH local update failed: {e}"),
    }
}
