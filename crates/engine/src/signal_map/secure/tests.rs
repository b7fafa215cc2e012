//! The encoding and the cohort rules of secure aggregation in the Signal map; the rounds of a
//! lab under it are tested in `lab/secure_tests.rs`.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::secagg::quantise::wrapping_sum;

fn contribution(weight: usize, scale: f32, len: usize) -> Contribution {
    Contribution {
        weight,
        delta: (0..len)
            .map(|i| scale * ((i as f32 * 0.37).sin() - 0.2))
            .collect(),
    }
}

/// The weighted sum decodes to FedAvg's weighted mean change, to the quantisation's step, and
/// the weights exactly.
#[test]
fn the_sum_decodes_to_the_weighted_mean() {
    let cs = [
        contribution(144, 1e-3, 50),
        contribution(20, -4e-2, 50),
        contribution(700, 1e-5, 50),
    ];
    let e = Encoding::for_cohort(cs.len()).unwrap();
    let words: Vec<Vec<u32>> = cs
        .iter()
        .enumerate()
        .map(|(k, c)| e.encode(k as u32, c).unwrap())
        .collect();
    let sum = wrapping_sum(51, words.iter().map(Vec::as_slice));
    let (mean, weight) = e.mean(&sum).unwrap();
    assert_eq!(weight, 864);
    let step = e.mean_step(3, weight);
    assert!(step < 1e-6, "{step}");
    for (i, &got) in mean.iter().enumerate() {
        let want: f64 = cs
            .iter()
            .map(|c| c.weight as f64 * f64::from(c.delta[i]))
            .sum::<f64>()
            / 864.0;
        assert!(
            (f64::from(got) - want).abs() <= step + 1e-9,
            "coordinate {i}: {got} against {want}"
        );
    }
    assert_eq!(cs.iter().map(|c| e.clipped(c)).sum::<usize>(), 0);
    // A weighted coordinate beyond the clip is counted.
    assert_eq!(e.clipped(&contribution(1000, 1000.0, 50)), 50);
    // Nobody's weight: nothing to decode.
    assert_eq!(e.mean(&[0; 51]), None);
}

/// The real protocol's sum equals the plain wrapping sum of the words, and subtracting the
/// server's own clients leaves the others' exactly; one client alone is its own sum.
#[test]
fn aggregate_runs_the_protocol_and_subtracts_the_sybils() {
    let genuine = vec![contribution(100, 2e-3, 40)];
    let sybils = vec![contribution(24, 5e-3, 40), contribution(24, -1e-3, 40)];
    let round = aggregate(&genuine, sybils.clone(), 3, 9).unwrap();
    let e = round.encoding;
    let words: Vec<Vec<u32>> = genuine
        .iter()
        .chain(&sybils)
        .enumerate()
        .map(|(k, c)| e.encode(k as u32, c).unwrap())
        .collect();
    assert_eq!(round.sum, wrapping_sum(41, words.iter().map(Vec::as_slice)));
    // The server's view is the one genuine client's quantised update, word for word.
    assert_eq!(round.genuine, e.mean(&words[0]));
    let (seen, weight) = round.genuine.unwrap();
    assert_eq!(weight, 100);
    for (s, d) in seen.iter().zip(&genuine[0].delta) {
        assert!(f64::from((s - d).abs()) <= e.mean_step(3, 100) + 1e-9);
    }
    let alone = aggregate(&genuine, Vec::new(), 3, 9).unwrap();
    assert_eq!(
        alone.sum,
        Encoding::for_cohort(1)
            .unwrap()
            .encode(0, &genuine[0])
            .unwrap()
    );
}

#[test]
fn settings_out_of_range_are_refused_by_name() {
    assert!(SecureAggregation::default().validate().is_ok());
    for (sa, field) in [
        (
            SecureAggregation {
                sybils: 101,
                min_genuine: 1,
                imprint: None,
            },
            "secure_aggregation.sybils",
        ),
        (
            SecureAggregation {
                sybils: 0,
                min_genuine: 0,
                imprint: None,
            },
            "secure_aggregation.min_genuine",
        ),
    ] {
        assert!(sa.validate().unwrap_err().to_string().contains(field));
    }
}
