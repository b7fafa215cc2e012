use super::*;

#[test]
fn auc_is_the_chance_a_member_outscores_a_non_member() {
    assert_eq!(
        auc(&[0.9, 0.8, 0.2, 0.1], &[true, true, false, false]),
        Some(1.0)
    );
    assert_eq!(
        auc(&[0.1, 0.2, 0.8, 0.9], &[true, true, false, false]),
        Some(0.0)
    );
    assert_eq!(
        auc(&[0.5, 0.5, 0.5, 0.5], &[true, false, true, false]),
        Some(0.5)
    );
    assert_eq!(auc(&[0.9, 0.3, 0.5], &[true, true, false]), Some(0.5));
    assert_eq!(auc(&[0.9], &[true]), None);
}

#[test]
fn logistic_regression_separates_a_separable_set() {
    let mut s = Stream::new(1, "toy");
    let x: Vec<Vec<f64>> = (0..200)
        .map(|k| {
            let shift = if k % 2 == 0 { 1.0 } else { -1.0 };
            vec![shift + 0.3 * s.normal(), s.normal()]
        })
        .collect();
    let y: Vec<bool> = (0..200).map(|k| k % 2 == 0).collect();
    let model = Logistic::fit(&x, &y);
    let scores: Vec<f64> = x.iter().map(|r| model.score(r)).collect();
    assert!(auc(&scores, &y).unwrap() > 0.99);
    assert!(model.score(&[2.0, 0.0]) > 0.9 && model.score(&[-2.0, 0.0]) < 0.1);
}

/// The descent over every feature, as written before it skipped the features that are 0 in
/// every row: the oracle the faster fit must match bit for bit.
fn fit_dense(x: &[Vec<f64>], y: &[bool]) -> Logistic {
    let mut model = Logistic::fit(&x[..0], &y[..0]);
    let n = x.len() as f64;
    let d = x[0].len();
    model.mean = (0..d).map(|j| x.iter().map(|r| r[j] / n).sum()).collect();
    model.scale = (0..d)
        .map(|j| {
            let v: f64 = x.iter().map(|r| (r[j] - model.mean[j]).powi(2) / n).sum();
            if v > 1e-12 { v.sqrt() } else { 1.0 }
        })
        .collect();
    model.weights = vec![0.0; d];
    model.bias = 0.0;
    let z: Vec<Vec<f64>> = x.iter().map(|row| model.standardise(row)).collect();
    for _ in 0..ITERATIONS {
        let mut grad = vec![0.0; d];
        let mut grad_b = 0.0;
        for (row, &label) in z.iter().zip(y) {
            let err = sigmoid(model.linear(row)) - if label { 1.0 } else { 0.0 };
            for (g, v) in grad.iter_mut().zip(row) {
                *g += err * v / n;
            }
            grad_b += err / n;
        }
        for (w, g) in model.weights.iter_mut().zip(&grad) {
            *w -= STEP * (g + L2 * *w);
        }
        model.bias -= STEP * grad_b;
    }
    model
}

#[test]
fn skipping_the_empty_features_changes_no_bit_of_the_model() {
    let mut s = Stream::new(3, "sparse");
    // 60 rows of 30 counts, a third of the features never marked.
    let x: Vec<Vec<f64>> = (0..60)
        .map(|_| {
            (0..30)
                .map(|j| if j % 3 == 0 { 0.0 } else { s.below(4) as f64 })
                .collect()
        })
        .collect();
    let y: Vec<bool> = (0..60).map(|k| k % 2 == 0).collect();
    let fast = Logistic::fit(&x, &y);
    let dense = fit_dense(&x, &y);
    assert_eq!(fast, dense);
    // A released row marking an empty feature scores the same under both.
    let row: Vec<f64> = (0..30).map(|j| (j % 5) as f64).collect();
    assert_eq!(fast.score(&row).to_bits(), dense.score(&row).to_bits());
}

/// 201 people, each marking 5 of 40 common features; person 0 also marks feature 40, which
/// nobody else has.
fn crowd(unique_target: bool) -> Vec<Vec<u32>> {
    let mut s = Stream::new(2, "crowd");
    (0..201)
        .map(|i| {
            let mut f: Vec<u32> = (0..40).collect();
            s.shuffle(&mut f);
            let mut m: Vec<u32> = f[..5].to_vec();
            if i == 0 && unique_target {
                m.push(40);
            }
            m.sort_unstable();
            m
        })
        .collect()
}

#[test]
fn a_mark_only_the_target_has_gives_it_away_and_noise_hides_it() {
    let exact = Game {
        group: 50,
        train: 100,
        test: 100,
        cap: 6,
        epsilon: None,
    };
    let people = crowd(true);
    let a = play(&exact, &people, 41, 0, 1).unwrap();
    assert!(a > 0.99, "AUC {a}");
    // At ε = 0.05 (noise of scale 120 on each count) the adversary is near a coin.
    let noised = Game {
        epsilon: Some(0.05),
        ..exact
    };
    let a = play(&noised, &people, 41, 0, 1).unwrap();
    assert!((a - 0.5).abs() < 0.15, "AUC {a}");
}

#[test]
fn a_target_like_everyone_else_is_harder_to_find_in_a_larger_group() {
    let people = crowd(false);
    let game = |group| Game {
        group,
        train: 200,
        test: 200,
        cap: 6,
        epsilon: None,
    };
    let small = play(&game(5), &people, 41, 0, 3).unwrap();
    let large = play(&game(50), &people, 41, 0, 3).unwrap();
    assert!(small > large + 0.05, "m = 5: {small}, m = 50: {large}");
}

#[test]
fn bad_games_are_refused_by_name() {
    let people = crowd(false);
    let game = Game {
        group: 150,
        train: 10,
        test: 10,
        cap: 6,
        epsilon: None,
    };
    let e = play(&game, &people, 41, 0, 1).unwrap_err();
    assert!(
        e.contains("from 2 to 50 people") && e.contains("not 150"),
        "{e}"
    );
    let e = play(
        &Game {
            group: 10,
            epsilon: Some(0.0),
            ..game
        },
        &people,
        41,
        0,
        1,
    )
    .unwrap_err();
    assert!(e.contains("ε") && e.contains("not 0"), "{e}");
    let e = play(&Game { group: 10, ..game }, &people, 30, 0, 1).unwrap_err();
    assert!(e.contains("beyond the 30 features"), "{e}");
    let e = play(&Game { group: 10, ..game }, &people, 41, 999, 1).unwrap_err();
    assert!(e.contains("no person 999"), "{e}");
}

#[test]
fn marks_beyond_the_cap_are_cut_to_the_cap() {
    let marks = vec![vec![1, 2, 3, 4, 5], vec![7]];
    let c = capped(&marks, 3, 9);
    assert_eq!(c[0].len(), 3);
    assert!(c[0].iter().all(|f| marks[0].contains(f)));
    assert_eq!(c[1], vec![7]);
}
