//! DP-FedAvg's round: the clip bounds each client's contribution, the noise on the average is
//! z·C/(qN), dropouts under distributed noise leave less of it (and say so), adaptive
//! clipping moves C toward the target quantile, bad settings are refused by name and value.
//! The secure sum here is the plain sum (a lab's tests run the protocol).

use super::*;
use crate::limit::positive;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn std_dev(x: &[f64]) -> f64 {
    let m = x.iter().sum::<f64>() / x.len() as f64;
    (x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (x.len() - 1) as f64).sqrt()
}

fn norm(x: &[f32]) -> f64 {
    x.iter().map(|v| f64::from(*v).powi(2)).sum::<f64>().sqrt()
}

fn norm64(x: &[f64]) -> f64 {
    x.iter().map(|v| v.powi(2)).sum::<f64>().sqrt()
}

/// A round whose secure sum is the plain sum of the words.
fn aggregate(dp: &CentralDp, clip: f64, c: Clients, t: usize, seed: u64) -> NoisedRound<usize> {
    noised_round(dp, clip, c, t, seed, |words| {
        let mut sum = vec![0.0f64; words[0].1.len()];
        for (_, w) in &words {
            for (s, x) in sum.iter_mut().zip(w) {
                *s += f64::from(*x);
            }
        }
        Ok((sum, words.len()))
    })
    .unwrap()
}

#[test]
fn the_clip_bounds_every_clients_contribution() {
    let big: Vec<f32> = (0..50).map(|i| (i as f32 - 20.0) * 0.3).collect();
    let small: Vec<f32> = big.iter().map(|v| v * 1e-3).collect();
    let (c, within) = clip_update(&big, 0.5);
    assert!(!within && (norm(&c) - 0.5).abs() < 1e-6, "{}", norm(&c));
    // Same direction.
    let cos = c
        .iter()
        .zip(&big)
        .map(|(a, b)| f64::from(a * b))
        .sum::<f64>()
        / (norm(&c) * norm(&big));
    assert!((cos - 1.0).abs() < 1e-6);
    let (c, within) = clip_update(&small, 0.5);
    assert!(within && c == small);
    // In a round with next to no noise, the model moves by the clipped update over qN: one
    // client's update, however large, moves the average by at most C/(qN).
    let params = big.len();
    let dp = CentralDp {
        noise_multiplier: 1e-9,
        clip: 0.5,
        sampling_rate: 0.5,
        ..CentralDp::default()
    };
    for noise_at in [NoiseAt::Trusted, NoiseAt::Distributed] {
        let dp = CentralDp { noise_at, ..dp };
        let r = aggregate(
            &dp,
            dp.clip,
            Clients {
                sampled: 1,
                sent: vec![(0, Some(big.iter().map(|v| v * 100.0).collect()))],
                population: 4,
                length: params,
            },
            0,
            7,
        );
        let moved = norm64(&r.average);
        assert!((moved - 0.5 / 2.0).abs() < 1e-3, "{noise_at:?}: {moved}");
        assert_eq!(r.clipped, 1);
    }
}

#[test]
fn the_noise_on_the_average_has_standard_deviation_z_c_over_qn() {
    let params = 20_000;
    for noise_at in [NoiseAt::Trusted, NoiseAt::Distributed] {
        for &(z, clip, q, population) in &[(1.0, 0.1, 1.0, 7), (2.5, 0.4, 0.5, 10)] {
            let dp = CentralDp {
                noise_multiplier: z,
                clip,
                sampling_rate: q,
                noise_at,
                ..CentralDp::default()
            };
            // Phones with zero changes: only the noise moves the model.
            let sent: Vec<(u32, Option<Vec<f32>>)> = (0..5).map(|u| (u, None)).collect();
            let r = aggregate(
                &dp,
                clip,
                Clients {
                    sampled: 5,
                    sent,
                    population,
                    length: params,
                },
                3,
                11,
            );
            let want = z * clip / (q * population as f64);
            let moved = r.average.clone();
            let got = std_dev(&moved);
            assert!(
                (got / want - 1.0).abs() < 0.03,
                "{noise_at:?} z {z} C {clip} q {q} N {population}: {got} vs {want}"
            );
            assert!((r.noise_std - want).abs() < 1e-12);
            assert_eq!(r.z_present, z);
        }
    }
}

#[test]
fn a_client_that_drops_out_takes_its_share_of_the_distributed_noise_with_it() {
    let params = 20_000;
    let (z, clip, population) = (2.0, 0.2, 8);
    for noise_at in [NoiseAt::Trusted, NoiseAt::Distributed] {
        let dp = CentralDp {
            noise_multiplier: z,
            clip,
            noise_at,
            ..CentralDp::default()
        };
        // 8 sampled, 6 sent: distributed noise keeps 6/8 of the variance.
        let sent: Vec<(u32, Option<Vec<f32>>)> = (0..6).map(|u| (u, None)).collect();
        let r = aggregate(
            &dp,
            clip,
            Clients {
                sampled: 8,
                sent,
                population,
                length: params,
            },
            0,
            5,
        );
        let present = if noise_at == NoiseAt::Distributed {
            0.75
        } else {
            1.0
        };
        let want = z * clip * f64::sqrt(present) / population as f64;
        let moved = r.average.clone();
        assert!((std_dev(&moved) / want - 1.0).abs() < 0.03, "{noise_at:?}");
        assert!((r.z_present - z * f64::sqrt(present)).abs() < 1e-12);
        // And the accountant charges for what is there: less noise, more ε.
        let (mut full, mut thin) = (
            SampledGaussianAccountant::default(),
            SampledGaussianAccountant::default(),
        );
        let e_full = account(&mut full, Some(1.0), z).unwrap().0;
        let e_thin = account(&mut thin, Some(1.0), r.z_present).unwrap().0;
        if noise_at == NoiseAt::Distributed {
            assert!(e_thin > e_full, "{e_thin} vs {e_full}");
        } else {
            assert_eq!(e_thin, e_full);
        }
    }
}

#[test]
fn adaptive_clipping_moves_the_clip_toward_the_target_quantile() {
    // 40 clients whose update norms spread evenly over [0.5, 1.5]: the median is 1, the 0.2
    // quantile 0.7.
    let params = 8;
    let clients: Vec<(u32, Option<Vec<f32>>)> = (0..40)
        .map(|u| {
            let n = 0.5 + f64::from(u) / 39.0;
            let mut d = vec![0.0f32; params];
            d[u as usize % params] = n as f32;
            (u, Some(d))
        })
        .collect();
    for &(gamma, start, want) in &[(0.5, 0.1, 1.0), (0.5, 4.0, 1.0), (0.2, 3.0, 0.7)] {
        let dp = CentralDp {
            noise_multiplier: 0.5,
            clip: start,
            adaptive: true,
            target_quantile: gamma,
            ..CentralDp::default()
        };
        let mut clip = start;
        let mut track = Vec::new();
        for t in 0..60 {
            let r = aggregate(
                &dp,
                clip,
                Clients {
                    sampled: clients.len(),
                    sent: clients.clone(),
                    population: clients.len(),
                    length: params,
                },
                t,
                9,
            );
            let b = r.unclipped_fraction.unwrap();
            // The step's sign follows b̄ − γ.
            assert_eq!(r.next_clip > clip, b < gamma, "round {t}");
            clip = r.next_clip;
            track.push(clip);
        }
        let last = track[40..].iter().sum::<f64>() / 20.0;
        assert!(
            (last / want - 1.0).abs() < 0.1,
            "γ {gamma} from {start}: settles at {last}, the quantile is {want}"
        );
    }
    // The count is paid for: the update's noise multiplier is raised above z.
    let dp = CentralDp {
        noise_multiplier: 1.0,
        adaptive: true,
        ..CentralDp::default()
    };
    let (z_delta, sigma_b) = dp.noise(7);
    assert_eq!(sigma_b, Some(1.0));
    assert!((z_delta - 1.0 / (1.0f64 - 0.25).sqrt()).abs() < 1e-12);
    let (z_delta, sigma_b) = dp.noise(1000);
    assert_eq!(sigma_b, Some(50.0));
    assert!(z_delta > 1.0 && z_delta < 1.0001);
}

#[test]
fn poisson_sampling_draws_each_user_with_probability_q() {
    let dp = CentralDp {
        sampling_rate: 0.3,
        ..CentralDp::default()
    };
    let users: Vec<u32> = (0..100).collect();
    let total: usize = (0..200).map(|t| dp.sample(&users, t, 4).len()).sum();
    let rate = total as f64 / 20_000.0;
    assert!((rate - 0.3).abs() < 0.01, "{rate}");
    // The sample's size varies round to round (Poisson, not a fixed m).
    let sizes: Vec<usize> = (0..20).map(|t| dp.sample(&users, t, 4).len()).collect();
    assert!(sizes.iter().any(|&s| s != sizes[0]));
    let all = CentralDp::default();
    assert_eq!(all.sample(&users, 0, 4), users);
}

#[test]
fn bad_settings_are_refused_naming_the_setting_and_the_value() {
    let cases: [(&str, CentralDp); 8] = [
        (
            "sampling_rate",
            CentralDp {
                sampling_rate: 0.0,
                ..CentralDp::default()
            },
        ),
        (
            "sampling_rate",
            CentralDp {
                sampling_rate: 1.5,
                ..CentralDp::default()
            },
        ),
        (
            "noise_multiplier",
            CentralDp {
                noise_multiplier: 0.0,
                ..CentralDp::default()
            },
        ),
        (
            "noise_multiplier",
            CentralDp {
                noise_multiplier: f64::NAN,
                ..CentralDp::default()
            },
        ),
        (
            "noise_multiplier",
            CentralDp {
                noise_multiplier: f64::INFINITY,
                ..CentralDp::default()
            },
        ),
        (
            "clip",
            CentralDp {
                clip: -1.0,
                ..CentralDp::default()
            },
        ),
        (
            "target_quantile",
            CentralDp {
                target_quantile: 1.0,
                ..CentralDp::default()
            },
        ),
        (
            "target_quantile",
            CentralDp {
                target_quantile: 0.0,
                ..CentralDp::default()
            },
        ),
    ];
    for (field, dp) in cases {
        let e = dp.validate(&CLIP).unwrap_err();
        assert_eq!(e.field, format!("central_dp.{field}"), "{e}");
        let value = match field {
            "sampling_rate" => dp.sampling_rate,
            "noise_multiplier" => dp.noise_multiplier,
            "clip" => dp.clip,
            _ => dp.target_quantile,
        };
        assert!(e.problem.contains(&format!("{value}")), "{e}");
    }
    assert!(CentralDp::default().validate(&CLIP).is_ok());
}

const CLIP: Limit = positive(5.0, "between 0 (not included) and 5");

#[test]
fn a_round_of_no_clients_is_noise_alone_and_a_wrong_length_is_refused() {
    let dp = CentralDp::default();
    let r = aggregate(
        &dp,
        0.1,
        Clients {
            sampled: 0,
            sent: Vec::new(),
            population: 3,
            length: 4,
        },
        0,
        1,
    );
    assert!(r.secure.is_none() && r.average.iter().all(|v| *v != 0.0));
    let e = noised_round(
        &dp,
        0.1,
        Clients {
            sampled: 1,
            sent: vec![(2, Some(vec![0.0; 3]))],
            population: 3,
            length: 4,
        },
        0,
        1,
        |_| Ok((vec![0.0; 4], ())),
    )
    .unwrap_err();
    assert!(
        e.contains("client 2") && e.contains('3') && e.contains('4'),
        "{e}"
    );
}

/// A round made word by word ([`RoundWords`], a lab too large to hold its words) is
/// [`noised_round`]'s, bit for bit: the same words, the same noise, the same average, for a
/// trusted aggregator and distributed noise, with adaptive clipping and a dropout; finishing it
/// twice gives the same result (a lab reads a round again with one client's word replaced).
#[test]
fn a_round_made_word_by_word_is_the_noised_round() {
    let mut s = Stream::new(5, "word-by-word");
    let updates: Vec<Vec<f32>> = (0..6)
        .map(|_| (0..9).map(|_| s.range(-1.0, 1.0) as f32).collect())
        .collect();
    for noise_at in [NoiseAt::Trusted, NoiseAt::Distributed] {
        for adaptive in [false, true] {
            let dp = CentralDp {
                noise_multiplier: 0.8,
                clip: 1.1,
                sampling_rate: 0.6,
                adaptive,
                noise_at,
                ..CentralDp::default()
            };
            // Client 4 was sampled and dropped out; client 3 sends a zero update.
            let sent: Vec<(u32, Option<Vec<f32>>)> = [0u32, 1, 2, 3, 5]
                .iter()
                .map(|&u| (u, (u != 3).then(|| updates[u as usize].clone())))
                .collect();
            let clients = |sent: Vec<(u32, Option<Vec<f32>>)>| Clients {
                sampled: 6,
                sent,
                population: 10,
                length: 9,
            };
            let mut held = Vec::new();
            let whole = noised_round(&dp, 1.1, clients(sent.clone()), 3, 9, |words| {
                held = words.clone();
                let mut sum = vec![0.0f64; words[0].1.len()];
                for (_, w) in &words {
                    for (a, x) in sum.iter_mut().zip(w) {
                        *a += f64::from(*x);
                    }
                }
                Ok((sum, ()))
            })
            .unwrap();
            let mut round = RoundWords::new(&dp, 1.1, 6, 10, 9, 3, 9);
            assert_eq!(round.width(), 9 + usize::from(adaptive));
            let mut sum = vec![0.0f64; round.width()];
            for ((u, delta), (held_u, held_word)) in sent.iter().zip(&held) {
                let word = round.word(*u, delta.as_deref()).unwrap();
                assert_eq!((u, &word), (held_u, held_word));
                for (a, x) in sum.iter_mut().zip(&word) {
                    *a += f64::from(*x);
                }
            }
            assert_eq!(round.sent(), 5);
            let shares = round.shares();
            assert_eq!(shares.0 == 0.0, noise_at == NoiseAt::Trusted);
            let streamed = round.finish(Some((sum.clone(), ()))).unwrap();
            let again = round.finish(Some((sum, ()))).unwrap();
            for r in [&streamed, &again] {
                assert_eq!(r.average, whole.average, "{noise_at:?} {adaptive}");
                assert_eq!(
                    (r.clipped, r.z_present, r.noise_std, r.next_clip),
                    (
                        whole.clipped,
                        whole.z_present,
                        whole.noise_std,
                        whole.next_clip
                    )
                );
                assert_eq!(r.unclipped_fraction, whole.unclipped_fraction);
            }
        }
    }
    let mut round = RoundWords::new(&CentralDp::default(), 0.1, 1, 3, 4, 0, 1);
    let e = round.word(2, Some(&[0.0; 3])).unwrap_err();
    assert!(
        e.contains("client 2") && e.contains('3') && e.contains('4'),
        "{e}"
    );
}

/// A config with DP-FedAvg's settings, as a lab's.
#[derive(Clone, Debug, Default, PartialEq)]
struct Lab {
    dp_on: bool,
    central_dp: CentralDp,
}

type Row = crate::setting::Setting<Lab>;

const ROWS: &[Row] = &[
    Row::toggle("x.dp", "Central DP", "S")
        .help("On: the lab's sees is dp.")
        .get(|c| crate::setting::flag_text(c.dp_on))
        .set(|c, v| {
            c.dp_on = crate::setting::flag(v)?;
            Ok(())
        }),
    crate::central_dp_setting!(noise_multiplier, Row, "x.dpz", "S", |c: &Lab| c.dp_on),
    crate::central_dp_setting!(clip, Row, "x.dpclip", "S", CLIP, "0.01", |c: &Lab| c.dp_on),
    crate::central_dp_setting!(sampling_rate, Row, "x.dpq", "S", |c: &Lab| c.dp_on),
    crate::central_dp_setting!(adaptive, Row, "x.dpadapt", "S", |c: &Lab| c.dp_on),
    crate::central_dp_setting!(target_quantile, Row, "x.dpquant", "S", |c: &Lab| c.dp_on),
    crate::central_dp_setting!(noise_at, Row, "x.dpnoise", "S", |c: &Lab| c.dp_on),
    crate::central_dp_setting!(dropout, Row, "x.dpdrop", "S", |c: &Lab| c.dp_on),
];

#[test]
fn the_settings_rows_read_and_write_the_labs_central_dp() {
    let base = Lab::default();
    let changed = Lab {
        dp_on: true,
        central_dp: CentralDp {
            noise_multiplier: 2.5,
            clip: 0.3,
            sampling_rate: 0.2,
            adaptive: true,
            target_quantile: 0.3,
            noise_at: NoiseAt::Distributed,
            dropout: 0.1,
        },
    };
    crate::setting::check_rows(
        ROWS,
        &["S"],
        "x.",
        &base,
        &changed,
        &[
            ("x.dpz", "0"),
            ("x.dpclip", "6"),
            ("x.dpq", "1.5"),
            ("x.dpquant", "1"),
            ("x.dpnoise", "enclave"),
            ("x.dpdrop", "0.95"),
        ],
    );
    // Hidden unless the lab's dp is on; γ only under adaptive clipping.
    let quantile = crate::setting::find(ROWS, "x.dpquant").unwrap();
    assert!(!(quantile.relevant)(&base));
    assert!((quantile.relevant)(&changed));
    let z = crate::setting::find(ROWS, "x.dpz").unwrap();
    assert!(!(z.relevant)(&base) && (z.relevant)(&changed));
}

#[test]
fn the_accountant_records_q_where_the_sample_is_hidden_and_1_where_it_is_not() {
    let trusted = CentralDp {
        sampling_rate: 0.3,
        ..CentralDp::default()
    };
    assert_eq!(trusted.accounted_q(false, false), Some(0.3));
    assert_eq!(trusted.accounted_q(true, true), Some(1.0));
    let distributed = CentralDp {
        noise_at: NoiseAt::Distributed,
        ..trusted
    };
    assert_eq!(distributed.accounted_q(true, false), Some(1.0));
    assert_eq!(distributed.accounted_q(false, false), None);
}

/// A sample expecting fewer than one client a round is refused by name and value, in every
/// lab alike; qN = 1 exactly is allowed.
#[test]
fn a_sample_expecting_fewer_than_one_client_is_refused() {
    let dp = |q| CentralDp {
        sampling_rate: q,
        ..CentralDp::default()
    };
    let e = dp(0.5).validate_sample(1, "phones a round").unwrap_err();
    assert_eq!(e.field, "central_dp.sampling_rate");
    let text = e.to_string();
    assert!(
        text.contains("0.5 expects 0.50 of the 1 phones a round"),
        "{text}"
    );
    assert!(dp(0.5).validate_sample(2, "phones a round").is_ok());
    assert!(dp(1.0).validate_sample(1, "phones a round").is_ok());
    assert!(dp(0.01).validate_sample(99, "phones").is_err());
}

/// A lab's round becomes the visitor's record in one place: the accountant of the rounds
/// before charged at the round's q and z, ε of the round and in total, δ, and the next clip
/// only under adaptive clipping; a round that cost the visitor nothing leaves the total.
#[test]
fn a_rounds_facts_become_the_visitors_record() {
    let dp = CentralDp::default();
    let facts = RoundFacts {
        sampled: 4,
        dropped: 1,
        yours_in: true,
        clip: 0.1,
        clipped: 2,
        z_present: 1.0,
        noise_std: 0.025,
        unclipped_fraction: None,
        next_clip: 0.1,
    };
    let first = CentralState::after(&dp, None, facts, Some(0.5)).unwrap();
    let mut acc = super::super::rdp::SampledGaussianAccountant::default();
    acc.record(0.5, 1.0, 1).unwrap();
    let r = &first.record;
    assert_eq!(
        (r.sampled, r.dropped, r.clipped, r.yours_in),
        (4, 1, 2, true)
    );
    assert_eq!(
        (r.accounted_q, r.delta, r.next_clip),
        (Some(0.5), CENTRAL_DELTA, None)
    );
    assert_eq!(r.epsilon_total, acc.epsilon(CENTRAL_DELTA).0);
    assert_eq!(r.epsilon_round, r.epsilon_total);
    let second = CentralState::after(&dp, Some(&first), facts, Some(0.5)).unwrap();
    assert!(second.record.epsilon_total > first.record.epsilon_total);
    assert_eq!(second.record.epsilon_round, first.record.epsilon_round);
    let idle = CentralState::after(&dp, Some(&second), facts, None).unwrap();
    assert_eq!(
        (idle.record.epsilon_round, idle.record.epsilon_total),
        (0.0, second.record.epsilon_total)
    );
    let adaptive = CentralDp {
        adaptive: true,
        ..dp
    };
    let moved = RoundFacts {
        next_clip: 0.2,
        ..facts
    };
    let s = CentralState::after(&adaptive, None, moved, Some(1.0)).unwrap();
    assert_eq!((s.next_clip, s.record.next_clip), (0.2, Some(0.2)));
}
