//! Disaggregation succeeds with enough rounds in varied subsets and constant updates, and fails
//! with too few rounds, a rank-deficient P or drifting updates.

use super::*;
use crate::rng::Stream;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// P (rounds × users), U (users × dim) and the rounds' sums.
type World = (Vec<Vec<bool>>, Vec<Vec<f64>>, Vec<Vec<f64>>);

/// `rounds` rounds of `users` users taking part with probability ½; each round's sum of the
/// users' updates, each drifted by `drift`·t·(a fixed random direction).
fn world(users: usize, rounds: usize, dim: usize, drift: f64, seed: u64) -> World {
    let mut s = Stream::new(seed, "disaggregation-test");
    let u: Vec<Vec<f64>> = (0..users)
        .map(|_| (0..dim).map(|_| s.gaussian(0.0, 1.0)).collect())
        .collect();
    let d: Vec<Vec<f64>> = (0..users)
        .map(|_| (0..dim).map(|_| s.gaussian(0.0, 1.0)).collect())
        .collect();
    let p: Vec<Vec<bool>> = (0..rounds)
        .map(|_| (0..users).map(|_| s.uniform() < 0.5).collect())
        .collect();
    let sums = p
        .iter()
        .enumerate()
        .map(|(t, row)| {
            (0..dim)
                .map(|k| {
                    (0..users)
                        .filter(|&i| row[i])
                        .map(|i| u[i][k] + drift * t as f64 * d[i][k])
                        .sum()
                })
                .collect()
        })
        .collect();
    (p, u, sums)
}

fn largest_error(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    a.iter()
        .flatten()
        .zip(b.iter().flatten())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

#[test]
fn constant_updates_over_enough_rounds_are_recovered_from_the_sums() {
    let (p, u, sums) = world(8, 40, 30, 0.0, 1);
    check(&sums, 8).unwrap();
    let found = participation(&sums, &counts(&p, 8, 5)).unwrap();
    assert_eq!(found, p, "P recovered exactly");
    let got = updates(&found, &sums).unwrap();
    assert!(
        largest_error(&got, &u) < 1e-9,
        "{}",
        largest_error(&got, &u)
    );
}

#[test]
fn too_few_rounds_or_a_rank_deficient_p_cannot_be_disaggregated() {
    let (_, _, sums) = world(8, 6, 30, 0.0, 2);
    let e = check(&sums, 8).unwrap_err().to_string();
    assert!(e.contains("6 rounds for 8 users"), "{e}");
    let e = check(&sums, 17).unwrap_err().to_string();
    assert!(e.contains("17 users"), "{e}");
    // Users 0 and 1 always together: their columns are equal and P has rank 7 of 8.
    let (mut p, _, _) = world(8, 40, 30, 0.0, 3);
    for row in &mut p {
        row[1] = row[0];
    }
    let sums: Vec<Vec<f64>> = p
        .iter()
        .map(|row| vec![row.iter().filter(|&&x| x).count() as f64; 3])
        .collect();
    assert_eq!(
        updates(&p, &sums),
        Err(Failure::RankDeficient { rank: 7, users: 8 })
    );
}

#[test]
fn drifting_updates_break_the_recovery() {
    // A small drift is noise the truncation absorbs; a large one leaves P's columns off the
    // sums' column space, and what comes back is not the users' updates.
    let (p, u, sums) = world(8, 40, 30, 1e-7, 4);
    let found = participation(&sums, &counts(&p, 8, 5)).unwrap();
    assert_eq!(found, p);
    assert!(largest_error(&updates(&found, &sums).unwrap(), &u) < 1e-4);
    let (p, u, sums) = world(8, 40, 30, 0.2, 4);
    let broken = match participation(&sums, &counts(&p, 8, 5)) {
        Err(_) => true,
        Ok(found) => found != p || largest_error(&updates(&found, &sums).unwrap(), &u) > 0.5,
    };
    assert!(
        broken,
        "a drift of 0.2 a round over 40 rounds is not disaggregated"
    );
}
