//! The Linkability lab with the sum + central DP (`sees = dp`, issue 39 §3–4): the server's
//! average is the clipped devices' mean plus noise of z·C/(qN) a coordinate, through the real
//! secure sum; a person's two devices are one user in the sample and in the accountant; the
//! visitor's ε is reported per round and in total; what could wrap or is absurd is refused
//! naming the setting and the value.

use super::central_dp::{self, CENTRAL_DELTA, CentralDp, NoiseAt};
use super::config::{LinkConfig, Split};
use super::features::Layers;
use super::federation::{FederationRun, UPDATE_CLIP};
use super::lab::LinkLab;
use super::population::Population;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::driver::Driver;
use whereabouts_core::privacy::central::clip_update;
use whereabouts_core::privacy::rdp::SampledGaussianAccountant;
use whereabouts_core::rng::Stream;
use whereabouts_core::secagg::Sees;

fn small(dp: CentralDp) -> LinkConfig {
    LinkConfig {
        people: 6,
        rounds: 4,
        split: Split::Random,
        layers: Layers::Last,
        sees: Sees::Dp,
        central_dp: dp,
        ..LinkConfig::default()
    }
}

fn dp(z: f64, q: f64) -> CentralDp {
    CentralDp {
        noise_multiplier: z,
        sampling_rate: q,
        ..super::config::default_dp()
    }
}

/// Devices' changes of `length` numbers, some longer than the clip, some shorter.
fn changes(devices: usize, length: usize) -> Vec<(u32, Option<Vec<f32>>)> {
    let mut s = Stream::new(5, "dp-test-changes");
    (0..devices as u32)
        .map(|c| {
            let scale = if c % 2 == 0 { 0.2 } else { 0.01 };
            let delta = (0..length).map(|_| s.gaussian(0.0, scale) as f32).collect();
            (c, Some(delta))
        })
        .collect()
}

/// The server's average minus the clipped changes' sum over 2qN, and its standard deviation.
fn noise_of(dp: &CentralDp, people: usize, seed: u64) -> (f64, f64, central_dp::DpRound) {
    let length = 4000;
    let sent = changes(2 * people, length);
    let clip = dp.clip;
    let plain: Vec<f64> = (0..length)
        .map(|i| {
            sent.iter()
                .map(|(_, d)| f64::from(clip_update(d.as_ref().unwrap(), clip).0[i]))
                .sum::<f64>()
                / (2.0 * dp.sampling_rate * people as f64)
        })
        .collect();
    let round = central_dp::round(dp, clip, people, 2 * people, sent, length, 0, seed).unwrap();
    let gap: Vec<f64> = round
        .average
        .iter()
        .zip(&plain)
        .map(|(a, p)| a - p)
        .collect();
    let mean = gap.iter().sum::<f64>() / length as f64;
    let sd = (gap.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (length - 1) as f64).sqrt();
    (mean, sd, round)
}

/// Trusted and distributed alike, the noise on the server's average has standard deviation
/// z·C/(qN) (N people, each a user of two devices): the sample's 4,000 coordinates put it within
/// 5%, its mean near 0; the round reports the same figure and a person's z.
#[test]
fn the_servers_average_carries_noise_of_z_c_over_qn() {
    for noise_at in [NoiseAt::Trusted, NoiseAt::Distributed] {
        for (z, q, people) in [(1.0, 1.0, 10), (2.5, 0.5, 10), (0.7, 1.0, 30)] {
            let dp = CentralDp {
                noise_at,
                ..dp(z, q)
            };
            let want = z * dp.clip / (q * people as f64);
            let (mean, sd, round) = noise_of(&dp, people, 3);
            assert!(
                (sd / want - 1.0).abs() < 0.05,
                "{noise_at:?} z {z} q {q} N {people}: sd {sd} against {want}"
            );
            assert!(mean.abs() < 4.0 * want / 4000f64.sqrt(), "{mean}");
            assert!((round.noise_std - want).abs() < 1e-12 * want);
            assert!((round.z_present - z).abs() < 1e-12);
            assert_eq!(round.clipped, people, "the even devices' changes are long");
            assert_eq!(round.clipped_coordinates, 0);
            let sum = round
                .sum
                .expect("the devices' words went through the secure sum");
            assert_eq!(sum.clients(), 2 * people);
        }
    }
}

/// The sample is of people: both devices of a sampled person, none of the others'; q = 1 takes
/// everyone.
#[test]
fn a_person_is_sampled_with_both_devices() {
    let d = dp(1.0, 0.4);
    let mut seen = 0;
    for t in 0..20 {
        let devices = central_dp::sample(&d, 30, t, 9);
        assert_eq!(devices.len() % 2, 0);
        for pair in devices.chunks(2) {
            assert_eq!(
                (pair[0] % 2, pair[1], pair[0] / 2),
                (0, pair[0] + 1, pair[1] / 2)
            );
        }
        seen += devices.len() / 2;
    }
    // 20 rounds of 30 people at q = 0.4: 240 expected, sd 12.
    assert!((190..=290).contains(&seen), "{seen}");
    assert_eq!(
        central_dp::sample(&dp(1.0, 1.0), 7, 0, 9),
        (0..14).collect::<Vec<_>>()
    );
}

/// A lab run under `dp`: the server has one noised sum a round and no update of any device, so
/// no attack; the model's test error stands beside its references; every round is recorded,
/// and under a trusted aggregator the visitor's ε is the accountant's over (q, z) each round,
/// total growing round by round, δ the lab's.
#[test]
fn a_dp_run_reports_your_epsilon_per_round_and_in_total() {
    let config = small(dp(1.0, 0.5));
    let mut lab = LinkLab::start(config).unwrap();
    lab.finish(&mut |_| {}).unwrap();
    let s = lab.summary();
    assert_eq!(s.updates, 0, "no update of any device");
    assert!(s.identification.is_none() && s.ranking.is_empty() && s.map.is_empty());
    assert!(s.test_rmse.is_some_and(f64::is_finite));
    assert!(s.round_sums >= 1 && s.round_sums <= 4);
    let summary = s.central_dp.as_ref().expect("the summary has ε");
    assert_eq!(summary.rounds, 4);
    assert_eq!(summary.delta, CENTRAL_DELTA);
    assert_eq!(s.central_rounds.len(), 4);
    let mut acc = SampledGaussianAccountant::default();
    let mut last = 0.0;
    for (t, r) in s.central_rounds.iter().enumerate() {
        acc.record(0.5, 1.0, 1).unwrap();
        assert!(
            (r.epsilon_total - acc.epsilon(CENTRAL_DELTA).0).abs() < 1e-12,
            "round {t}"
        );
        assert!(r.epsilon_total > last, "round {t}: ε grows");
        assert!(r.epsilon_round > 0.0 && r.epsilon_round <= r.epsilon_total);
        assert_eq!(r.accounted_q, Some(0.5));
        assert_eq!(r.sampled % 2, 0, "both devices of a sampled person");
        last = r.epsilon_total;
    }
    assert_eq!(summary.epsilon_total, last);
    // Sampled people's devices are in the sums (a device without data sends a zero change).
    let sampled: usize = s.central_rounds.iter().map(|r| r.sampled).sum();
    assert_eq!(s.summed_updates, sampled);
}

/// Under distributed noise only the rounds one of your devices sent in count, at q = 1; a round
/// where you were not sampled costs you nothing; dropouts leave less noise in the sum and a
/// smaller z for the round; a round where one of your two devices dropped out is charged for
/// the one that sent (sensitivity C, not 2C: twice the multiplier), so your ε is not
/// overstated.
#[test]
fn distributed_noise_charges_only_your_rounds_and_what_you_sent() {
    let mut config = small(CentralDp {
        noise_at: NoiseAt::Distributed,
        dropout: 0.3,
        ..dp(1.0, 0.5)
    });
    config.rounds = 8;
    let (dp, people, seed) = (config.central_dp, config.people, config.seed);
    let mut lab = LinkLab::start(config).unwrap();
    lab.finish(&mut |_| {}).unwrap();
    let s = lab.summary();
    let rounds = &s.central_rounds;
    assert!(rounds.iter().any(|r| r.yours_in) && rounds.iter().any(|r| !r.yours_in));
    let mut acc = SampledGaussianAccountant::default();
    let mut one_sent = 0;
    for (t, r) in rounds.iter().enumerate() {
        // Your devices (0 and 1) that sent: sampled, and not among the round's dropouts.
        let sampled = central_dp::sample(&dp, people, t, seed);
        let dropped = dp.dropouts(&sampled, t, seed);
        let yours_sent = sampled
            .iter()
            .filter(|&&c| c < 2 && !dropped.contains(&c))
            .count();
        assert_eq!(r.yours_in, yours_sent > 0, "round {t}");
        match r.yours_in {
            true => {
                assert_eq!(r.accounted_q, Some(1.0));
                acc.record(1.0, r.z_present, 1).unwrap();
            }
            false => assert_eq!((r.accounted_q, r.epsilon_round), (None, 0.0)),
        }
        assert!((r.epsilon_total - acc.epsilon(CENTRAL_DELTA).0).abs() < 1e-9);
        if r.sampled > 0 {
            let present = (r.sampled - r.dropped) as f64 / r.sampled as f64;
            let mine = if yours_sent == 1 { 2.0 } else { 1.0 };
            assert!(
                (r.z_present - mine * present.sqrt()).abs() < 1e-12,
                "round {t}: {r:?}"
            );
        }
        one_sent += usize::from(yours_sent == 1);
    }
    assert!(rounds.iter().any(|r| r.dropped > 0));
    assert!(
        one_sent > 0,
        "a round where one of your devices dropped out"
    );
}

/// More noise, a worse model: at z = 5 the federation's test error is above the one at z = 0.1
/// on the same population; both are DP-FedAvg's, not the FedAvg model of `sum`.
#[test]
fn the_noise_costs_utility_and_the_model_is_dp_fedavgs() {
    let run = |c: LinkConfig| {
        let mut r = FederationRun::new(&c, Population::generate(&c).unwrap());
        r.finish().unwrap();
        r
    };
    let low = run(small(dp(0.1, 1.0)));
    let high = run(small(dp(5.0, 1.0)));
    let plain = run(LinkConfig {
        sees: Sees::Sum,
        ..small(dp(1.0, 1.0))
    });
    assert_ne!(low.global, plain.global);
    assert!(
        high.test_rmse().unwrap() > low.test_rmse().unwrap(),
        "{:?} against {:?}",
        high.test_rmse(),
        low.test_rmse()
    );
    assert!(low.log.is_empty() && low.sums.len() == 4);
}

/// Absurd values and a clip whose distributed noise could pass the secure sum's bound are
/// refused, naming the setting and the value; a trusted aggregator's noise is never in a
/// word, so the same clip and z are accepted there; the bound is only checked under `dp`.
#[test]
fn a_clip_and_noise_that_could_overflow_a_word_or_an_absurd_value_are_refused() {
    let wide = CentralDp {
        noise_multiplier: 20.0,
        clip: 20.0,
        noise_at: NoiseAt::Distributed,
        ..dp(1.0, 1.0)
    };
    let e = small(wide).validate().unwrap_err().to_string();
    assert!(
        e.contains("central_dp.clip") && e.contains("20") && e.contains(&UPDATE_CLIP.to_string()),
        "{e}"
    );
    assert!(
        small(CentralDp {
            noise_at: NoiseAt::Trusted,
            ..wide
        })
        .validate()
        .is_ok()
    );
    assert!(
        LinkConfig {
            sees: Sees::Sum,
            ..small(wide)
        }
        .validate()
        .is_ok()
    );
    // Just within: C·(1 + 8·2z/√2) ≤ 1024.
    let z = 10.0;
    let most = UPDATE_CLIP / (1.0 + 8.0 * 2.0 * z / 2f64.sqrt());
    for (clip, ok) in [(most * 0.99, true), (most * 1.01, false)] {
        let c = small(CentralDp {
            noise_multiplier: z,
            clip,
            ..wide
        });
        assert_eq!(c.validate().is_ok(), ok, "clip {clip}");
    }
    for (dp, field, value) in [
        (dp(0.0, 1.0), "central_dp.noise_multiplier", "0"),
        (dp(1.0, 1.5), "central_dp.sampling_rate", "1.5"),
        (
            CentralDp {
                clip: 25.0,
                ..dp(1.0, 1.0)
            },
            "central_dp.clip",
            "25",
        ),
        (
            CentralDp {
                dropout: 0.95,
                ..dp(1.0, 1.0)
            },
            "central_dp.dropout",
            "0.95",
        ),
    ] {
        let e = small(dp).validate().unwrap_err().to_string();
        assert!(e.contains(field) && e.contains(value), "{e}");
    }
}

/// A stored config under `dp` writes its settings and reads them back; at the lab's defaults
/// they are left out, and a config without them opens on the defaults.
#[test]
fn the_dp_settings_are_stored_only_when_changed() {
    let c = small(CentralDp {
        noise_at: NoiseAt::Distributed,
        adaptive: true,
        ..dp(2.0, 0.5)
    });
    let text = toml::to_string(&c).unwrap();
    assert!(text.contains("sees = \"dp\"") && text.contains("noise_multiplier = 2"));
    assert_eq!(toml::from_str::<LinkConfig>(&text).unwrap(), c);
    assert!(
        !toml::to_string(&LinkConfig::default())
            .unwrap()
            .contains("central_dp")
    );
    let c: LinkConfig = toml::from_str("sees = \"dp\"").unwrap();
    assert_eq!(c.central_dp, super::config::default_dp());
    assert!(c.validate().is_ok());
}
