//! The Mobility lab under central DP (`sees = dp`, issue 39 §3): the gradient the server
//! inverts and the model's step are the secure sum of the sampled phones' clipped gradients
//! plus noise of standard deviation z·C/(qN), the target's user-level ε is recorded every round
//! and grows, a setting that could overrun the secure sum or lies outside its bound is refused
//! by name, and `updates` and `sum` are what they were.

use super::*;
use crate::mobility::config::{AttackConfig, Federation};
use crate::mobility::secure::mean_of_sum;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::privacy::central::{CentralDp, NoiseAt};

fn config(dp: CentralDp, co: usize, rounds: usize, iterations: usize) -> MobConfig {
    MobConfig {
        rounds,
        held_out: 2,
        users: 12,
        co_participants: co,
        sees: Sees::Dp,
        central_dp: dp,
        attack: AttackConfig {
            iterations,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Every trainer's clean gradient on window `t` at the lab's current weights.
fn gradients(lab: &MobLab, t: usize) -> Vec<Vec<f32>> {
    (0..lab.trainers())
        .map(|u| {
            let (w, y) = traces::window(&lab.users[u].normalised, t).unwrap();
            lstm::loss_and_gradient(&lab.params, &w, &y).1
        })
        .collect()
}

fn observed(lab: &MobLab) -> (Vec<f32>, CentralDpRecord) {
    let Phase::Attack(_, round) = &lab.phase else {
        panic!("round 0 is attacked at once without a self-audit");
    };
    (
        round.observed.as_ref().unwrap().gradient.clone(),
        round.central.as_ref().unwrap().record.clone(),
    )
}

/// The standard deviation of `a − b`, coordinate by coordinate.
fn spread(a: &[f32], b: &[f64]) -> f64 {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| f64::from(*x) - y).collect();
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (d.len() - 1) as f64).sqrt()
}

/// A clip of 4 is above every gradient's norm (at most 1.65: `limits::DP_CLIP`), so round 0's
/// observed gradient is the sampled phones' plain sum over qN plus noise of standard deviation
/// z·C/(qN) — with every phone sampled (q = 1, N = 11) and with about half (q = 0.5) — and the
/// model moves by it.
#[test]
fn the_server_gets_the_sampled_sum_over_qn_plus_noise_of_z_c_over_qn() {
    for (q, z) in [(1.0, 1.0), (0.5, 2.0)] {
        let dp = CentralDp {
            noise_multiplier: z,
            clip: 4.0,
            sampling_rate: q,
            ..central_dp::lab_default()
        };
        let lab = MobLab::start(config(dp, 10, 2, 2)).unwrap();
        let all = gradients(&lab, 0);
        let (sampled, _) = central_dp::sample(&dp, 11, 0, lab.config.seed);
        let m = q * 11.0;
        let plain: Vec<f64> = (0..lstm::PARAMETERS)
            .map(|i| {
                sampled
                    .iter()
                    .map(|&u| f64::from(all[u as usize][i]))
                    .sum::<f64>()
                    / m
            })
            .collect();
        let (seen, record) = observed(&lab);
        let want = z * 4.0 / m;
        assert_eq!(record.noise_std, want);
        assert_eq!(
            (record.sampled, record.clipped, record.clip),
            (sampled.len(), 0, 4.0)
        );
        let sd = spread(&seen, &plain);
        assert!(
            (sd / want - 1.0).abs() < 0.1,
            "q = {q}: noise sd {sd}, z·C/(qN) = {want}"
        );
        // Not the plain mean, not the target's gradient.
        assert!(sd > 0.1 * want);
        let mut lab = lab;
        let before = lab.params.clone();
        lab.work(&|| 0.0, f64::INFINITY, &mut |_| {}).unwrap();
        let lr = lab.config.learning_rate;
        for ((a, b), g) in lab.params.iter().zip(&before).zip(&seen) {
            assert_eq!(*a, b - lr * g);
        }
    }
}

/// With a clip below the gradients' norms and no noise to speak of, the server's average is
/// each phone's gradient scaled to C, summed, over qN (the clip is L2, per phone).
#[test]
fn each_phone_is_clipped_to_c_in_l2_before_the_sum() {
    let dp = CentralDp {
        noise_multiplier: 1e-6,
        clip: 0.05,
        ..central_dp::lab_default()
    };
    let lab = MobLab::start(config(dp, 3, 1, 1)).unwrap();
    let all = gradients(&lab, 0);
    let clipped: Vec<Vec<f32>> = all
        .iter()
        .map(|g| whereabouts_core::privacy::central::clip_update(g, 0.05).0)
        .collect();
    let (seen, record) = observed(&lab);
    assert_eq!(record.clipped, 4, "every gradient's norm is above 0.05");
    let (want, _) = mean_of_sum(&clipped, 0, lab.config.seed).unwrap();
    for (a, b) in seen.iter().zip(&want) {
        assert!((a - b).abs() < 1e-6, "{a} against {b}");
    }
}

/// The target's user-level ε is recorded every round and grows; the summary states it with δ.
/// With the noise added by the phones, a round the target did not send costs nothing.
#[test]
fn the_targets_epsilon_is_reported_per_round_and_in_total_and_grows() {
    let dp = CentralDp {
        noise_multiplier: 1.5,
        sampling_rate: 0.5,
        ..central_dp::lab_default()
    };
    let mut lab = MobLab::start(config(dp, 4, 4, 2)).unwrap();
    lab.finish(&mut |_| {}).unwrap();
    let records: Vec<&CentralDpRecord> = lab
        .records()
        .iter()
        .map(|r| r.central_dp.as_ref().unwrap())
        .collect();
    assert_eq!(records.len(), 4);
    for w in records.windows(2) {
        assert!(w[1].epsilon_total > w[0].epsilon_total, "{w:?}");
    }
    for r in &records {
        assert_eq!((r.accounted_q, r.delta), (Some(0.5), 1e-5));
        assert!(r.epsilon_round > 0.0 && r.epsilon_round <= r.epsilon_total);
    }
    let s = lab.summary().central_dp.unwrap();
    assert_eq!(s.rounds, 4);
    assert_eq!(s.epsilon_total, records[3].epsilon_total);
    assert_eq!(
        (s.delta, s.sampling_rate, s.noise_multiplier),
        (1e-5, 0.5, 1.5)
    );
    // The utility is measured on the DP model, beside staying put.
    let summary = lab.summary();
    assert!(summary.utility_error_m.is_some() && summary.stay_error_m.is_some());

    let distributed = CentralDp {
        noise_at: NoiseAt::Distributed,
        ..dp
    };
    let mut lab = MobLab::start(config(distributed, 4, 6, 2)).unwrap();
    lab.finish(&mut |_| {}).unwrap();
    let mut total = 0.0;
    let mut skipped = 0;
    for r in lab.records() {
        let c = r.central_dp.as_ref().unwrap();
        match c.yours_in {
            true => {
                assert_eq!(c.accounted_q, Some(1.0));
                assert!(c.epsilon_total > total);
                // What the target's phone sent is in the record as without DP.
            }
            false => {
                assert_eq!((c.accounted_q, c.epsilon_round), (None, 0.0));
                assert_eq!(c.epsilon_total, total);
                skipped += 1;
            }
        }
        total = c.epsilon_total;
    }
    assert!(
        skipped > 0 && skipped < 6,
        "q = 0.5 over 6 rounds: {skipped} left out"
    );
}

/// A clip and z whose noise a lone phone could carry past the secure sum's ±64, and values
/// outside their bounds, are refused naming the setting and the value; the lab's defaults and
/// a trusted aggregator's large z are not.
#[test]
fn a_combination_that_could_overrun_the_sum_or_an_absurd_value_is_refused_by_name() {
    let with = |f: fn(&mut CentralDp)| {
        let mut dp = central_dp::lab_default();
        f(&mut dp);
        config(dp, 4, 2, 1).validate()
    };
    assert!(with(|_| {}).is_ok());
    assert!(
        with(|d| d.noise_multiplier = 20.0).is_ok(),
        "trusted: no share to carry"
    );
    let e = with(|d| {
        d.noise_at = NoiseAt::Distributed;
        d.noise_multiplier = 20.0;
    })
    .unwrap_err();
    assert!(
        e.starts_with("central_dp.noise_multiplier") && e.contains("z = 20") && e.contains("C = 1"),
        "{e}"
    );
    assert!(
        with(|d| {
            d.noise_at = NoiseAt::Distributed;
            d.noise_multiplier = 5.0;
        })
        .is_ok()
    );
    // Adaptive clipping is checked at the largest clip it may reach (4).
    let e = with(|d| {
        d.noise_at = NoiseAt::Distributed;
        d.noise_multiplier = 5.0;
        d.adaptive = true;
    })
    .unwrap_err();
    assert!(e.contains("C = 4") && e.contains("largest clip"), "{e}");
    let e = with(|d| d.clip = 5.0).unwrap_err();
    assert!(e.starts_with("central_dp.clip") && e.contains('5'), "{e}");
    let e = with(|d| d.sampling_rate = 0.0).unwrap_err();
    assert!(e.starts_with("central_dp.sampling_rate"), "{e}");
    let e = with(|d| d.noise_multiplier = f64::NAN).unwrap_err();
    assert!(e.starts_with("central_dp.noise_multiplier"), "{e}");
    // A sample expecting fewer than one phone a round (qN < 1) is refused, as in the Density
    // lab: q = 0.1 of the target and its 4 co-participants expects 0.5; q = 0.2 expects 1.
    let e = with(|d| d.sampling_rate = 0.1).unwrap_err();
    assert!(
        e.starts_with("central_dp.sampling_rate") && e.contains("0.1 expects 0.50 of the 5 phones"),
        "{e}"
    );
    assert!(with(|d| d.sampling_rate = 0.2).is_ok());
    // The DP settings are not checked where the server sees no noise.
    let mut c = config(
        CentralDp {
            clip: 5.0,
            ..central_dp::lab_default()
        },
        4,
        2,
        1,
    );
    c.sees = Sees::Sum;
    assert!(c.validate().is_ok());
}

/// `updates` and `sum` are what they were: their records carry no central DP, a config
/// without `central_dp` reads as the lab's and writes none, and the same run under `sum` with
/// DP settings changed is the same to the bit.
#[test]
fn updates_and_sum_are_unchanged_by_central_dp_settings() {
    let c: MobConfig = serde_json::from_str(r#"{"rounds": 3}"#).unwrap();
    assert_eq!(c.central_dp, central_dp::lab_default());
    let text = serde_json::to_string(&MobConfig::default()).unwrap();
    assert!(!text.contains("central_dp"), "{text}");
    for sees in [Sees::Updates, Sees::Sum] {
        let mut plain = config(central_dp::lab_default(), 3, 2, 3);
        plain.sees = sees;
        let mut changed = plain.clone();
        changed.central_dp.noise_multiplier = 3.0;
        changed.central_dp.sampling_rate = 0.2;
        let (mut a, mut b) = (
            MobLab::start(plain).unwrap(),
            MobLab::start(changed).unwrap(),
        );
        a.finish(&mut |_| {}).unwrap();
        b.finish(&mut |_| {}).unwrap();
        assert_eq!(a.records(), b.records());
        assert_eq!(a.params, b.params);
        assert!(a.records().iter().all(|r| r.central_dp.is_none()));
        assert!(a.summary().central_dp.is_none());
    }
}

/// Under FedAvg the population is the whole city: N = users.
#[test]
fn under_fedavg_the_city_is_sampled() {
    let mut c = config(
        CentralDp {
            sampling_rate: 0.5,
            ..central_dp::lab_default()
        },
        0,
        1,
        1,
    );
    c.federation = Federation::FedAvg;
    let lab = MobLab::start(c).unwrap();
    let (_, record) = observed(&lab);
    let (sampled, _) = central_dp::sample(&lab.config.central_dp, 12, 0, lab.config.seed);
    assert_eq!(record.sampled, sampled.len());
    assert_eq!(record.noise_std, 1.0 * 1.0 / (0.5 * 12.0));
}
