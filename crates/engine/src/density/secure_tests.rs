//! The Density lab when the server sees only the sum (issue 39 §2): the attacks read the sum of
//! every phone's upload — the protocol's sum, word for word — the density stays what it was, and
//! the attacks on one upload no longer find its owner.

use super::config::{Attack, DensityConfig, Scheme};
use super::lab::DensityLab;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::driver::Driver;
use whereabouts_core::geo::Metres;
use whereabouts_core::secagg::{RoundSum, Sees, protocol_sum};

/// A small city (4 km across, a 32² grid, random features with `features` waves) with the
/// visitor's two places; the server attacks up to 80 residents (the central-DP tests share it).
pub(super) fn city(
    sees: Sees,
    attack: Attack,
    population: usize,
    features: usize,
) -> DensityConfig {
    DensityConfig {
        city_half_m: 2000.0,
        population,
        grid_side: 32,
        bandwidth_m: 250.0,
        scheme: Scheme::Rff { features },
        attacked: population.min(80),
        attack,
        sees,
        visitor: vec![Metres::new(-500.0, 300.0), Metres::new(600.0, -400.0)],
        ..DensityConfig::default()
    }
}

pub(super) fn run(config: DensityConfig) -> DensityLab {
    let mut lab = DensityLab::start(config).unwrap();
    lab.finish(&mut |_| {}).unwrap();
    lab
}

/// What the server attacks, for the visitor at each place, is the round's sum: every phone's
/// upload quantised and summed through the core's protocol (word for word), with the visitor at
/// that place; and it is within the quantisation of the plain sum of the uploads.
#[test]
fn the_attack_reads_the_sum_of_the_rounds_uploads() {
    let lab = run(city(Sees::Sum, Attack::Peak, 12, 3));
    let (people, grid) = (lab.people().to_vec(), lab.grid().clone());
    let visitor = lab.visitor_id();
    for (place, answer) in lab.visitor_answers().iter().enumerate() {
        let at = lab.config().visitor[place];
        let mut uploads: Vec<Vec<f64>> = people
            .iter()
            .enumerate()
            .map(|(u, &d)| lab.answer(u as u32, d, 0))
            .collect();
        uploads.push(lab.answer(visitor, at, 0));
        let sum = RoundSum::new(uploads.len(), 3.0, grid.len()).unwrap();
        let words: Vec<Vec<u32>> = uploads
            .iter()
            .enumerate()
            .map(|(u, x)| sum.encode(u as u32, x).unwrap())
            .collect();
        let unmasked = protocol_sum(&words, 7).unwrap();
        let scale = sum.quantiser().scale();
        let from_protocol: Vec<f64> = unmasked
            .iter()
            .map(|&w| f64::from(w as i32) / scale)
            .collect();
        assert_eq!(answer.surface, from_protocol, "place {place}");
        let step = uploads.len() as f64 * sum.quantiser().step_error() + 1e-4;
        for (k, v) in answer.surface.iter().enumerate() {
            let plain: f64 = uploads.iter().map(|u| u[k]).sum();
            assert!((v - plain).abs() <= step, "cell {k}: {v} vs {plain}");
        }
        // Not the visitor's own upload.
        assert!(
            answer
                .surface
                .iter()
                .zip(&uploads[12])
                .any(|(a, b)| (a - b).abs() > 1.0)
        );
    }
}

/// The density is the same sum either way (to the quantisation); peak picking and fitting, which
/// find most people from their own upload at B = 3, find almost nobody from the sum.
#[test]
fn the_sum_keeps_the_density_and_hides_the_uploads_owner() {
    for attack in [Attack::Peak, Attack::Fit] {
        let every = run(city(Sees::Updates, attack, 300, 3));
        let sum = run(city(Sees::Sum, attack, 300, 3));
        let (u, s) = (every.estimate(), sum.estimate());
        let worst = u
            .iter()
            .zip(&s)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-4, "{attack:?}: the density moved by {worst}");
        let (pu, ps) = (
            every.summary().privacy.unwrap(),
            sum.summary().privacy.unwrap(),
        );
        assert!(pu.located > 0.6, "{attack:?}: every update {pu:?}");
        assert!(ps.located < 0.15, "{attack:?}: only the sum {ps:?}");
        assert!(
            ps.median_m > 4.0 * pu.median_m.max(50.0),
            "{pu:?} vs {ps:?}"
        );
    }
}

/// Stored configs and old links carry no `sees`: they are the paper's every update.
#[test]
fn without_sees_the_server_sees_every_update() {
    let c = DensityConfig::parse("population = 100\nattacked = 10").unwrap();
    assert_eq!(c.sees, Sees::Updates);
    let c = DensityConfig::parse("sees = \"sum\"").unwrap();
    assert_eq!(c.sees, Sees::Sum);
    let e = DensityConfig::parse("sees = \"half\"").unwrap_err();
    assert!(e.contains("sees"), "{e}");
}
