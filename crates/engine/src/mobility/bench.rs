//! Benchmark kernel of the Mobility lab (timed by the caller's clock): one evaluation of the
//! attack's objective — the dummy window's gradient through the LSTM and its derivative with
//! respect to the 18 unknowns — the inner step of every attack iteration; by reverse mode over
//! reverse mode (the attack's) or on dual numbers (the reference).

use super::adjoint;
use super::lstm::{self, OUTPUT, WINDOW, Window, loss_and_gradient};
use super::objective::{Distance, Observed, evaluate};
use whereabouts_core::rng::Stream;

/// Milliseconds per evaluation of the objective with `distance`, over `evaluations` of them (the
/// dummy moved a little each time, so nothing is cached), and the last value (kept so the work
/// is not optimised away).
pub fn objective_ms(
    distance: Distance,
    evaluations: usize,
    reverse: bool,
    now: &dyn Fn() -> f64,
) -> (f64, f32) {
    let params = lstm::init(&mut Stream::new(1, "bench-lstm"));
    let at = |s: f32| -> (Window<f32>, [f32; OUTPUT]) {
        let p = |i: usize| [0.2 + s + 0.05 * i as f32, 0.4 + 0.03 * i as f32];
        (std::array::from_fn(p), p(WINDOW))
    };
    let (truth, label) = at(0.0);
    let observed = Observed::new(loss_and_gradient(&params, &truth, &label).1);
    let mut last = 0.0;
    // Untimed first: a wasm engine compiles a hot function again, optimised, after a while.
    for e in 0..evaluations / 4 {
        let (dummy, dummy_label) = at(0.1 + 1e-4 * e as f32);
        last += if reverse {
            adjoint::evaluate(&params, &observed, distance, &dummy, &dummy_label, true).value
        } else {
            evaluate(&params, &observed, distance, &dummy, &dummy_label, true).value
        };
    }
    let began = now();
    for e in 0..evaluations {
        let (dummy, dummy_label) = at(0.1 + 1e-4 * e as f32);
        last = if reverse {
            adjoint::evaluate(&params, &observed, distance, &dummy, &dummy_label, true).value
        } else {
            evaluate(&params, &observed, distance, &dummy, &dummy_label, true).value
        };
    }
    ((now() - began) / evaluations.max(1) as f64, last)
}

/// Milliseconds per whole attack round (the lab's default: ST-GIA, L-BFGS, 200 iterations, the
/// road mapping, one client on vehicle-like data), over the first `rounds` rounds of a run, and
/// the attack's objective evaluations per round.
pub fn round_ms(rounds: usize, now: &dyn Fn() -> f64) -> (f64, f64) {
    use super::config::MobConfig;
    use super::lab::MobLab;
    use whereabouts_core::driver::Driver;
    let config = MobConfig {
        rounds,
        ..MobConfig::default()
    };
    let mut lab = MobLab::start(config).expect("the default configuration is valid");
    let began = now();
    lab.finish(&mut |_| {}).expect("the run ends");
    let ms = now() - began;
    let evaluations: usize = lab.records().iter().map(|r| r.evaluations).sum();
    (ms / rounds as f64, evaluations as f64 / rounds as f64)
}
