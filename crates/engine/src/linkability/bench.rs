//! Benchmark kernel of the Linkability lab (timed by the caller's clock): the federation's local
//! training written out by hand ([`crate::signal_map::model::train::train_local`], the
//! lab's) against candle's (native builds only), on the same population and rounds.

use super::config::LinkConfig;
use super::federation::FederationRun;
use super::population::Population;

/// A federation of `people` × 2 devices over `rounds` rounds, run with the hand-written local
/// SGD and with candle's: (milliseconds by hand, milliseconds with candle, updates, the largest
/// difference between the two logs' update coordinates).
pub fn local_training_ms(
    people: usize,
    rounds: usize,
    now: &dyn Fn() -> f64,
) -> Result<(f64, f64, usize, f32), String> {
    let config = LinkConfig {
        people,
        rounds,
        ..LinkConfig::default()
    };
    let population = Population::generate(&config).map_err(|e| e.to_string())?;
    let run = |by_hand: bool| -> Result<(f64, FederationRun), String> {
        let mut run = FederationRun::new(&config, population.clone());
        run.set_candle(!by_hand);
        let began = now();
        run.finish()?;
        Ok((now() - began, run))
    };
    let (hand_ms, hand) = run(true)?;
    let (candle_ms, candle) = run(false)?;
    let difference = hand
        .log
        .entries()
        .iter()
        .zip(candle.log.entries())
        .flat_map(|(a, b)| a.delta.iter().zip(&b.delta).map(|(x, y)| (x - y).abs()))
        .fold(0.0f32, f32::max);
    Ok((hand_ms, candle_ms, hand.log.len(), difference))
}
