use super::*;

const HOUR: f64 = 3600.0;
/// A Monday midnight (2023-11-20).
const MONDAY: f64 = 1_700_438_400.0;

fn at(x: f64, y: f64) -> Metres {
    Metres { east: x, north: y }
}

#[test]
fn points_fall_in_cells_and_hours_of_the_week() {
    let hourly = Resolution {
        cell_m: 100.0,
        bin_s: Some(HOUR),
    };
    let p = points(
        [
            (at(50.0, 50.0), MONDAY + 10.0),
            // The same cell and hour, a week later: the same point.
            (at(99.0, 1.0), MONDAY + 10.0 + WEEK_S),
            // West of the origin: its own cell.
            (at(-1.0, 1.0), MONDAY + 10.0),
            // Sunday, 23:30.
            (at(50.0, 50.0), MONDAY + WEEK_S - 0.5 * HOUR),
        ],
        &hourly,
    );
    assert_eq!(p, vec![(-1, 0, 0), (0, 0, 0), (0, 0, 167)]);
    let places = Resolution {
        cell_m: 100.0,
        bin_s: None,
    };
    let p = points(
        [
            (at(50.0, 50.0), MONDAY),
            (at(60.0, 40.0), MONDAY + 5.0 * HOUR),
        ],
        &places,
    );
    assert_eq!(p, vec![(0, 0, 0)]);
}

#[test]
fn the_hour_of_the_week_counts_from_monday() {
    assert_eq!((MONDAY - MONDAY_UNIX).rem_euclid(WEEK_S), 0.0);
}

#[test]
fn holders_are_the_traces_with_every_point() {
    let pop = Population::new(vec![
        vec![(0, 0, 0), (1, 0, 0)],
        vec![(1, 0, 0)],
        vec![(0, 0, 0), (1, 0, 0), (2, 0, 0)],
    ]);
    assert_eq!(pop.holders_of(&[(1, 0, 0)]), 3);
    assert_eq!(pop.holders_of(&[(0, 0, 0), (1, 0, 0)]), 2);
    assert_eq!(pop.holders_of(&[(2, 0, 0)]), 1);
    assert_eq!(pop.holders_of(&[(9, 9, 9)]), 0);
    assert_eq!(pop.holders_of(&[]), 3);
}

#[test]
fn a_point_only_you_hold_singles_you_out_and_a_shared_one_does_not() {
    // You: a (yours alone) and b (shared with the other trace).
    let pop = Population::new(vec![vec![(0, 0, 0), (1, 0, 0)], vec![(1, 0, 0)]]);
    let mut s = Stream::new(1, "t");
    let one = pop.singled_out(0, 1, 4000, &mut s).unwrap();
    assert!((one - 0.5).abs() < 0.03, "{one}");
    assert_eq!(pop.singled_out(0, 2, 100, &mut s), Some(1.0));
    // The other trace's only point is yours too: never singled out; two points it has not.
    assert_eq!(pop.singled_out(1, 1, 100, &mut s), Some(0.0));
    assert_eq!(pop.singled_out(1, 2, 100, &mut s), None);
    assert_eq!(pop.singled_out(0, 0, 100, &mut s), None);
}

#[test]
fn twins_are_never_unique_and_strangers_always() {
    let twins = Population::new(vec![vec![(0, 0, 0), (1, 0, 0)]; 3]);
    let u = twins.unicity(1, 50, 7);
    assert_eq!(u.epsilon(), Some(0.0));
    assert_eq!(u.shares.len(), 3);
    let strangers = Population::new((0..5).map(|i| vec![(i, 0, 0), (i, 1, 0)]).collect());
    assert_eq!(strangers.unicity(2, 50, 7).epsilon(), Some(1.0));
    let u = strangers.unicity(3, 50, 7);
    assert_eq!((u.epsilon(), u.too_short), (None, 5));
}

#[test]
fn more_points_single_out_more_people_as_the_closed_form_says() {
    // 200 people, each visiting 6 of 30 places (hours left out). Another person holds p given
    // places of yours with chance q_p = C(30 − p, 6 − p) / C(30, 6), so p places single you
    // out with chance (1 − q_p)^199.
    let mut s = Stream::new(3, "population");
    let traces: Vec<Vec<Point>> = (0..200)
        .map(|_| {
            let mut places: Vec<i64> = (0..30).collect();
            s.shuffle(&mut places);
            let mut t: Vec<Point> = places[..6].iter().map(|&x| (x, 0, 0)).collect();
            t.sort_unstable();
            t
        })
        .collect();
    let pop = Population::new(traces);
    let choose = |n: u64, k: u64| (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64);
    for p in 1..=5u64 {
        let measured = pop.unicity(p as usize, 40, 1).epsilon().unwrap();
        let q = choose(30 - p, 6 - p) / choose(30, 6);
        let expected = (1.0 - q).powi(199);
        assert!(
            (measured - expected).abs() < 0.03,
            "p = {p}: {measured} against {expected}"
        );
    }
}

#[test]
fn absurd_resolutions_are_refused_by_name() {
    let bad = Resolution {
        cell_m: 0.0,
        bin_s: None,
    };
    assert!(bad.validate().unwrap_err().contains("not 0"));
    let bad = Resolution {
        cell_m: 100.0,
        bin_s: Some(2.0 * WEEK_S),
    };
    assert!(bad.validate().unwrap_err().contains("time bin"));
    let good = Resolution {
        cell_m: 250.0,
        bin_s: Some(HOUR),
    };
    assert!(good.validate().is_ok());
    assert_eq!(good.label(), "250 m, 1 h of the week");
}
