//! Disaggregation on the Signal map succeeds with a fixed model, the same day's data and more
//! rounds than users, and fails with too few rounds or with drifting updates.

use super::*;
use crate::signal_map::test_world::campus;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The campus, the visitor (user 0) and 5 others.
fn lab() -> Lab {
    Lab::new(campus(5)).unwrap()
}

#[test]
fn a_fixed_model_over_more_rounds_than_users_gives_your_update_back() {
    let lab = lab();
    let o = run(
        &lab,
        Plan {
            rounds: 24,
            window: 4,
            drift: false,
        },
        1,
    )
    .unwrap();
    assert!(o.participation_exact, "{o:?}");
    assert!(o.relative_error < 1e-3, "{o:?}");
    let (got, own) = (o.lemma1_recovered_m.unwrap(), o.lemma1_own_m.unwrap());
    assert!((got - own).abs() < 1.0, "{o:?}");
    // The blend the plain sum gives is much farther than your own update's.
    assert!(o.lemma1_sum_m.unwrap() > own, "{o:?}");
}

#[test]
fn too_few_rounds_are_refused() {
    let lab = lab();
    let e = run(
        &lab,
        Plan {
            rounds: 4,
            window: 4,
            drift: false,
        },
        1,
    )
    .unwrap_err();
    assert!(e.contains("rounds for") && e.contains("users"), "{e}");
}

#[test]
fn drifting_updates_are_not_disaggregated() {
    let lab = lab();
    match run(
        &lab,
        Plan {
            rounds: 24,
            window: 4,
            drift: true,
        },
        1,
    ) {
        Err(_) => {}
        Ok(o) => assert!(!o.participation_exact || o.relative_error > 0.1, "{o:?}"),
    }
}
