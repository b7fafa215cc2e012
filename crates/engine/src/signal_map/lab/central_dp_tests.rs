//! A lab run with `sees=dp` (DP-FedAvg over the secure sum, issue 39 §3): every round has its
//! record and the visitor's user-level ε, the total is the accountant's over the rounds run,
//! the attacks run on the noised aggregate, the summary carries ε beside the model's RMSE.

use super::*;
use crate::signal_map::central_dp::{CENTRAL_DELTA, CentralDp, NoiseAt};
use crate::signal_map::secure::SecureAggregation;
use crate::signal_map::test_world::{campus, finished};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::privacy::rdp::SampledGaussianAccountant;

/// The campus, the visitor (user 0) and 6 others, 5 rounds, DP-FedAvg `dp` over the secure sum.
fn config(dp: CentralDp) -> ScenarioConfig {
    ScenarioConfig {
        secure_aggregation: Some(SecureAggregation::default()),
        central_dp: Some(dp),
        max_rounds: Some(5),
        ..campus(6)
    }
}

#[test]
fn a_dp_fedavg_run_reports_user_level_epsilon_per_round_and_in_total() {
    let dp = CentralDp {
        noise_multiplier: 1.0,
        clip: 0.05,
        sampling_rate: 0.5,
        ..CentralDp::default()
    };
    let lab = finished(config(dp));
    let rounds = lab.rounds.len();
    assert!(rounds >= 3, "{rounds}");
    // Trusted noise: every round is one sampled Gaussian step (q, z), sent or not.
    let mut acc = SampledGaussianAccountant::default();
    for (t, r) in lab.rounds.iter().enumerate() {
        let c = r.central.as_ref().expect("every round has its record");
        acc.record(0.5, 1.0, 1).unwrap();
        let want = acc.epsilon(CENTRAL_DELTA).0;
        assert!((c.record.epsilon_total - want).abs() < 1e-12, "round {t}");
        assert_eq!(c.record.accounted_q, Some(0.5));
        assert!(c.record.epsilon_round > 0.0 && c.record.epsilon_round <= want + 1e-12);
        // The noise on the average: z·C/(qN), N = 7 users.
        assert!((c.record.noise_std - 1.0 * 0.05 / 3.5).abs() < 1e-12);
        // The model moved by the noised average, not FedAvg's mean.
        let fedavg = crate::signal_map::fl::Federation::aggregate(&r.updates);
        assert_ne!(Some(r.after.clone()), fedavg, "round {t}");
    }
    let s = lab.summary();
    let c = s.central_dp.expect("the summary carries central DP");
    assert_eq!(c.rounds, rounds);
    assert!((c.epsilon_total - acc.epsilon(CENTRAL_DELTA).0).abs() < 1e-12);
    assert!(s.final_rmse_db.is_some(), "the utility beside it");
    // The attacked rounds' records carry the same figures, and the attacks ran on the
    // aggregate the server holds.
    let records = lab.records();
    let sent: Vec<bool> = lab
        .rounds
        .iter()
        .map(|r| r.central.as_ref().unwrap().record.yours_in)
        .collect();
    let states: Vec<&str> = lab
        .rounds
        .iter()
        .map(|r| match &r.attack {
            None => "none",
            Some(super::attacks::Attack::Done(_)) => "done",
            Some(_) => "other",
        })
        .collect();
    assert_eq!(
        records.len(),
        sent.iter().filter(|&&s| s).count(),
        "{sent:?} {states:?}"
    );
    assert!(!records.is_empty(), "{sent:?}");
    for rec in &records {
        let c = rec.central_dp.as_ref().unwrap();
        assert!(c.yours_in);
        assert!(rec.secure.is_some());
        assert!(rec.analytic.is_some() || rec.dlg.is_some());
    }
}

#[test]
fn distributed_noise_charges_only_your_rounds_and_dropouts_raise_epsilon() {
    let base = CentralDp {
        noise_multiplier: 1.0,
        clip: 0.05,
        sampling_rate: 1.0,
        noise_at: NoiseAt::Distributed,
        ..CentralDp::default()
    };
    let full = finished(config(base));
    let leaky = finished(config(CentralDp {
        dropout: 0.5,
        ..base
    }));
    let total = |lab: &Lab| {
        lab.rounds
            .last()
            .and_then(|r| r.central.as_ref())
            .unwrap()
            .record
            .epsilon_total
    };
    for r in &full.rounds {
        let c = &r.central.as_ref().unwrap().record;
        assert_eq!(c.dropped, 0);
        assert_eq!(c.z_present, 1.0);
        assert_eq!(c.accounted_q, c.yours_in.then_some(1.0));
    }
    let thinned = leaky
        .rounds
        .iter()
        .filter_map(|r| r.central.as_ref())
        .filter(|c| c.record.dropped > 0 && c.record.yours_in)
        .count();
    assert!(thinned > 0, "some round lost phones while yours sent");
    for r in &leaky.rounds {
        let c = &r.central.as_ref().unwrap().record;
        let sent = (c.sampled - c.dropped) as f64;
        assert!((c.z_present - f64::sqrt(sent / c.sampled as f64)).abs() < 1e-12);
    }
    // The same rounds at the full noise would cost less: the ε is for the noise left.
    let mut at_full = SampledGaussianAccountant::default();
    for r in &leaky.rounds {
        if r.central.as_ref().unwrap().record.yours_in {
            at_full.record(1.0, 1.0, 1).unwrap();
        }
    }
    assert!(
        total(&leaky) > at_full.epsilon(CENTRAL_DELTA).0,
        "{} vs {}",
        total(&leaky),
        at_full.epsilon(CENTRAL_DELTA).0
    );
    assert!(total(&full) > 0.0);
}
