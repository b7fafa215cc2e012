//! The fit's tests: a noiseless upload fitted to its own frequencies, the phases of a second
//! upload on known frequencies, the direct sums' fit equal to the separated one, nothing fits
//! nothing.

use super::*;
use crate::density::rff::Basis;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn a_noiseless_upload_is_fitted_to_its_own_frequencies() {
    let g = Grid::centred(4000.0, 4000.0, 128, 128);
    let mut exact = 0;
    for user in 0..12 {
        let basis = Basis::of_user(5, user, 3, 300.0, None);
        let d = Metres::new(-1234.0 + 300.0 * user as f64, 567.0);
        let f = fit(&basis.upload(&g, d), &g, 3);
        if f.rms_residual > 1e-6 {
            continue;
        }
        exact += 1;
        for w in &basis.omega {
            // A component fits ω or −ω (the same cosine).
            let near = f
                .components
                .iter()
                .map(|c| {
                    let same = (c.omega[0] - w[0]).hypot(c.omega[1] - w[1]);
                    let mirror = (c.omega[0] + w[0]).hypot(c.omega[1] + w[1]);
                    same.min(mirror)
                })
                .fold(f64::INFINITY, f64::min);
            assert!(near < 1e-7, "user {user}: ω {w:?} off by {near}");
        }
        // The fitted surface is the user's anywhere, not only on the grid.
        let x = Metres::new(101.0, -2020.0);
        assert!((f.value(x) - basis.value(d, x)).abs() < 1e-5);
    }
    // User 4's first and third frequencies are 0.2 bins apart: that fit is close, not exact.
    assert!(exact >= 10, "{exact} of 12");
}

#[test]
fn known_frequencies_give_the_phases_of_a_second_upload() {
    let g = Grid::centred(4000.0, 4000.0, 96, 96);
    let basis = Basis::of_user(8, 2, 4, 300.0, None);
    let f = fit(&basis.upload(&g, Metres::new(100.0, 200.0)), &g, 4);
    let moved = Metres::new(700.0, -300.0);
    let again = phases(&f, &basis.upload(&g, moved), &g);
    let refit = Fit {
        components: again,
        ..f.clone()
    };
    for k in [0, 777, 4321] {
        let x = g.point(k);
        assert!((refit.value(x) - basis.value(moved, x)).abs() < 1e-5);
    }
}

#[test]
fn the_direct_sums_give_the_same_fit() {
    let g = Grid::centred(2000.0, 2000.0, 40, 40);
    let basis = Basis::of_user(2, 3, 3, 300.0, None);
    let up = basis.upload(&g, Metres::new(300.0, -200.0));
    let (a, b) = (fit(&up, &g, 3), fit_with(&up, &g, 3, Evaluation::Direct));
    for (x, y) in a.components.iter().zip(&b.components) {
        assert!((x.omega[0] - y.omega[0]).abs() < 1e-9 && (x.phase - y.phase).abs() < 1e-6);
    }
}

#[test]
fn nothing_fits_nothing() {
    let g = Grid::centred(100.0, 100.0, 16, 16);
    let f = fit(&vec![0.0; g.len()], &g, 3);
    assert!(f.components.is_empty());
    assert_eq!(f.rms_residual, 0.0);
}
