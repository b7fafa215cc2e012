//! ST-GIA's start: where each round's dummy window and label begin ([002] §3.1, the
//! spatiotemporal initialisation, Eq. 6 and Algorithm 1 line 5). Consecutive windows overlap in
//! seven of their eight points, so the previous round's reconstruction is a far better start
//! than noise: the paper starts from that window with a random label, the authors' code from
//! it shifted by one with the previous label appended. The baselines (and ST-GIA with the
//! switch off) start at random every round.

use super::config::{Init, MobConfig, Start};
use super::lstm::{OUTPUT, WINDOW, Window};
use whereabouts_core::rng::Stream;

/// A random dummy for round `t` in normalised coordinates: U[0, 1) (the authors' code) or
/// N(0, 1) (Eq. 6), from the run's seed and `label` (each use its own stream).
pub fn random(config: &MobConfig, t: usize, label: &str) -> (Window<f32>, [f32; OUTPUT]) {
    let mut s = Stream::new(config.seed, &format!("{label}-{t}"));
    let start = config.attack.start_distribution();
    let mut draw = || match start {
        Start::Uniform => s.uniform() as f32,
        Start::Gaussian => s.normal() as f32,
    };
    let w: Window<f32> = std::array::from_fn(|_| [draw(), draw()]);
    (w, [draw(), draw()])
}

/// Round `t`'s start under `init`, from the `previous` round's reconstructed window and label
/// (none in the first round: a random start).
pub fn start_from(
    config: &MobConfig,
    t: usize,
    init: Init,
    previous: Option<(Window<f32>, [f32; OUTPUT])>,
    label: &str,
) -> (Window<f32>, [f32; OUTPUT]) {
    let random = random(config, t, label);
    match (init, previous) {
        (Init::Paper, Some((w, _))) => (w, random.1),
        (Init::Code, Some((w, y))) => (
            std::array::from_fn(|k| if k + 1 < WINDOW { w[k + 1] } else { y }),
            y,
        ),
        _ => random,
    }
}
