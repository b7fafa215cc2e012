//! The Signal map's DP-FedAvg round through the real secure sum: the model it gives is the core's
//! round over the plain sum, to the quantisation, with or without a Sybil server's clients (the
//! mechanism's own tests are the core's, `privacy/central/tests.rs`); settings past the Signal
//! map's clip limit are refused by name and value.

use super::round::{Phones, aggregate};
use super::*;
use crate::signal_map::secure::Contribution;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::privacy::central::{Clients, noised_round};

#[test]
fn the_round_through_secure_aggregation_is_the_plain_rounds_model() {
    let params = 30;
    let before: Vec<f32> = (0..params).map(|i| i as f32 * 0.01).collect();
    let sent: Vec<(u32, Option<Vec<f32>>)> = (0..5u32)
        .map(|u| {
            let d = (0..params)
                .map(|i| ((i as f32 + u as f32) * 0.37).sin() * 0.05)
                .collect();
            (u, if u == 3 { None } else { Some(d) })
        })
        .collect();
    for noise_at in [NoiseAt::Trusted, NoiseAt::Distributed] {
        for adaptive in [false, true] {
            let dp = CentralDp {
                noise_multiplier: 0.7,
                clip: 0.1,
                sampling_rate: 0.5,
                adaptive,
                noise_at,
                ..CentralDp::default()
            };
            let plain = noised_round(
                &dp,
                dp.clip,
                Clients {
                    sampled: 6,
                    sent: sent.clone(),
                    population: 12,
                    length: params,
                },
                2,
                5,
                |words| {
                    let mut sum = vec![0.0f64; words[0].1.len()];
                    for (_, w) in &words {
                        for (s, x) in sum.iter_mut().zip(w) {
                            *s += f64::from(*x);
                        }
                    }
                    Ok((sum, ()))
                },
            )
            .unwrap();
            for sybils in [0, 2] {
                let sybils = (0..sybils)
                    .map(|k| Contribution {
                        weight: 1,
                        delta: vec![0.3 * (k + 1) as f32; params],
                    })
                    .collect();
                let r = aggregate(
                    &dp,
                    dp.clip,
                    Phones {
                        sampled: 6,
                        sent: sent.clone(),
                        sybils,
                        population: 12,
                        before: &before,
                    },
                    2,
                    5,
                )
                .unwrap();
                assert!(r.secure.is_some());
                for ((w, a), b) in r.after.iter().zip(&plain.average).zip(&before) {
                    let want = f64::from(*b) + a;
                    assert!(
                        (f64::from(*w) - want).abs() < 1e-5,
                        "{noise_at:?} adaptive {adaptive}: {w} vs {want}"
                    );
                }
                assert_eq!(r.clipped, plain.clipped);
                assert_eq!(r.noise_std, plain.noise_std);
                assert_eq!(r.next_clip > dp.clip, plain.next_clip > dp.clip);
            }
        }
    }
}

#[test]
fn a_clip_past_the_signal_maps_limit_is_refused_by_name_and_value() {
    let dp = CentralDp {
        clip: 7.5,
        ..CentralDp::default()
    };
    let e = validate(&dp).unwrap_err();
    assert_eq!(e.field, "central_dp.clip");
    assert!(e.problem.contains("7.5") && e.problem.contains('5'), "{e}");
    assert!(validate(&CentralDp::default()).is_ok());
}
