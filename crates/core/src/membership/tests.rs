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
