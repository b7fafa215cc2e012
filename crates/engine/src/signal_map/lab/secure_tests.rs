//! A lab under secure aggregation (issue 39 §2): the sum the real protocol gives inside a round
//! is the plain sum of the quantised updates; the attacks run on the aggregate; the Sybil
//! server recovers the visitor's update to the quantisation; a minimum cohort of genuine
//! clients refuses rounds and brings the blend back.

use super::*;
use crate::signal_map::secure::{Contribution, Encoding, SecureAggregation};
use crate::signal_map::test_world::{campus, finished, finished_with_events};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::secagg::quantise::wrapping_sum;

/// The campus, FedSGD, T = 1 day, the visitor (user 0) and `others` users, 3 rounds.
fn config(others: u32, sa: Option<SecureAggregation>) -> ScenarioConfig {
    ScenarioConfig {
        secure_aggregation: sa,
        max_rounds: Some(3),
        ..campus(others)
    }
}

#[test]
fn the_secure_sum_in_a_lab_round_is_the_plain_sum_of_the_quantised_updates() {
    let sa = SecureAggregation {
        sybils: 0,
        min_genuine: 1,
        imprint: None,
    };
    let lab = finished(config(4, Some(sa)));
    let plain = finished(config(4, None));
    assert!(!lab.rounds.is_empty());
    for (t, round) in lab.rounds.iter().enumerate() {
        let secure = round
            .secure
            .as_ref()
            .expect("every round went through the sum");
        assert!(round.updates.len() >= 2, "round {t}: a real cohort");
        let words: Vec<Vec<u32>> = round
            .updates
            .iter()
            .map(|u| Contribution::of(u, &round.before))
            .enumerate()
            .map(|(k, c)| secure.encoding.encode(k as u32, &c).unwrap())
            .collect();
        let plain_sum = wrapping_sum(words[0].len(), words.iter().map(Vec::as_slice));
        assert_eq!(secure.sum, plain_sum, "round {t}");
        assert_eq!(secure.clipped, 0, "round {t}");
        // The model is FedAvg's, to the quantisation.
        let (_, weight) = secure.genuine.as_ref().unwrap();
        let step = secure.encoding.mean_step(round.updates.len(), *weight);
        let fedavg = Federation::aggregate(&round.updates).unwrap();
        for (a, b) in round.after.iter().zip(&fedavg) {
            assert!(f64::from((a - b).abs()) <= step + 1e-6, "{a} vs {b}");
        }
    }
    // The same run without secure aggregation trains the same federation.
    assert_eq!(
        lab.records()
            .iter()
            .map(|r| r.participants.clone())
            .collect::<Vec<_>>(),
        plain
            .records()
            .iter()
            .map(|r| r.participants.clone())
            .collect::<Vec<_>>()
    );
    // The server attacked the aggregate: its Lemma 1 lands nearer the blend than the visitor's
    // update alone would put it, and the record says how far the blend is.
    for r in lab.records() {
        let s = r.secure.as_ref().unwrap();
        assert_eq!((s.genuine, s.sybils), (5, 0));
        assert!(s.update_gap > 100.0 * s.quantisation_step, "{s:?}");
        assert!(s.analytic_to_blend_m.is_some());
    }
}

#[test]
fn the_sybil_server_recovers_your_update_to_the_quantisation() {
    let sybil = SecureAggregation {
        sybils: 5,
        min_genuine: 1,
        imprint: None,
    };
    let lab = finished(config(4, Some(sybil)));
    let alone = finished(config(0, None));
    let (sybil_records, plain) = (lab.records(), alone.records());
    assert_eq!(sybil_records.len(), plain.len());
    for (t, (r, p)) in sybil_records.iter().zip(&plain).enumerate() {
        let s = r.secure.as_ref().unwrap();
        // Only the visitor is genuine; the other four were left out, five Sybils put in.
        assert_eq!((s.genuine, s.sybils), (1, 5), "round {t}");
        assert_eq!(r.participants, vec![0]);
        assert!(s.update_gap <= s.quantisation_step, "round {t}: {s:?}");
        assert!(s.quantisation_step < 1e-6);
        // …so its attacks land where they land on the visitor's own update, without secure
        // aggregation: Lemma 1 to the centimetre, DLG to within a metre.
        let (a, b) = (r.analytic.as_ref().unwrap(), p.analytic.as_ref().unwrap());
        assert!(
            (a.error_m - b.error_m).abs() < 0.01,
            "round {t}: {a:?} {b:?}"
        );
        let (a, b) = (r.dlg.as_ref().unwrap(), p.dlg.as_ref().unwrap());
        assert!(
            (a.reconstruction.error_m - b.reconstruction.error_m).abs() < 1.0,
            "round {t}: {} vs {} m",
            a.reconstruction.error_m,
            b.reconstruction.error_m
        );
        // The Sybils' updates are the server's own: they left the model alone.
        let round = &lab.rounds[t];
        let secure = round.secure.as_ref().unwrap();
        assert_eq!(secure.sybils.len(), 5);
        let words: Vec<Vec<u32>> =
            std::iter::once(Contribution::of(&round.updates[0], &round.before))
                .chain(secure.sybils.iter().cloned())
                .enumerate()
                .map(|(k, c)| secure.encoding.encode(k as u32, &c).unwrap())
                .collect();
        assert_eq!(
            secure.sum,
            wrapping_sum(words[0].len(), words.iter().map(Vec::as_slice))
        );
        assert_eq!(secure.genuine, secure.encoding.mean(&words[0]));
    }
}

#[test]
fn a_minimum_cohort_of_genuine_clients_brings_the_blend_back() {
    let guarded = SecureAggregation {
        sybils: 5,
        min_genuine: 3,
        imprint: None,
    };
    let lab = finished(config(4, Some(guarded)));
    let records = lab.records();
    assert!(!records.is_empty());
    for r in &records {
        let s = r.secure.as_ref().unwrap();
        assert_eq!((s.genuine, s.sybils), (3, 5));
        assert!(s.update_gap > 100.0 * s.quantisation_step, "{s:?}");
    }
    // Encoded for the whole cohort: eight clients, three of them genuine.
    let e = Encoding::for_cohort(8).unwrap();
    assert_eq!(
        lab.rounds[0].secure.as_ref().unwrap().encoding.update,
        e.update
    );
}

#[test]
fn a_round_with_too_few_genuine_clients_is_refused() {
    // Two of the three users picked a round (C = 0.5), never the three the devices ask for.
    let mut c = config(
        2,
        Some(SecureAggregation {
            sybils: 0,
            min_genuine: 3,
            imprint: None,
        }),
    );
    c.fl.client_fraction = 0.5;
    let (lab, events) = finished_with_events(c);
    assert!(lab.records().is_empty(), "no round was sent");
    let absent: Vec<&String> = events
        .iter()
        .filter_map(|e| match e {
            LabEvent::Trained { absent, .. } => absent.as_ref(),
            _ => None,
        })
        .collect();
    assert_eq!(absent.len(), 3);
    for a in absent {
        assert!(a.contains("minimum cohort of 3"), "{a}");
    }
    // The model did not move.
    assert!(lab.rounds.iter().all(|r| r.after == r.before));
    // A minimum the federation can never meet is refused before the run, by name.
    let e = config(
        1,
        Some(SecureAggregation {
            sybils: 0,
            min_genuine: 3,
            imprint: None,
        }),
    )
    .validate()
    .unwrap_err()
    .to_string();
    assert!(e.contains("secure_aggregation.min_genuine"), "{e}");
}
