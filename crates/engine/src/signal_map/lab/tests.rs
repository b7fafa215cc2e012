use super::*;
use crate::signal_map::placement::ImportedTrace;
use crate::signal_map::scenario::WorldChoice;
use crate::signal_map::trajectory::TrajectoryPreset;
use crate::signal_map::world::Preset;
use std::cell::Cell;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::geo::Metres;

pub(super) fn config() -> ScenarioConfig {
    ScenarioConfig {
        seed: 4,
        world: WorldChoice {
            preset: Preset::Campus,
            users: Some(3),
            weeks: Some(1),
            cell: None,
            background: None,
        },
        participants: Some(vec![0, 1, 2]),
        max_rounds: Some(3),
        trajectory: Some(TrajectoryPreset::Commute.trajectory(900.0, 850.0)),
        ..ScenarioConfig::default()
    }
}

/// Records without the wall-clock time, which only the lab measures.
fn timeless(mut records: Vec<RoundRecord>) -> Vec<RoundRecord> {
    for r in &mut records {
        if let Some(d) = r.dlg.as_mut() {
            d.millis = None;
        }
    }
    records
}

/// A fresh run of `config`, all at once.
fn fresh_records(config: ScenarioConfig) -> Vec<RoundRecord> {
    crate::signal_map::experiments::run(config).unwrap().records
}

#[test]
fn a_run_reports_each_round_trained_then_attacked() {
    let mut lab = Lab::new(config()).unwrap();
    assert_eq!(lab.total_rounds(), 3);
    lab.want(usize::MAX);
    let mut events = Vec::new();
    lab.finish(&mut |e| events.push(e)).unwrap();
    let records = lab.records();
    assert_eq!(records.len(), 3);
    assert_eq!(timeless(records), fresh_records(config()));
    // Each round: trained (with the instant reconstruction), progress, then attacked.
    assert!(
        matches!(&events[0], LabEvent::Trained { round: 0, target: Some(t), .. } if t.analytic.is_some())
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, LabEvent::Progress { round: 0, .. }))
    );
    assert!(matches!(events.last(), Some(LabEvent::Attacked(r)) if r.round == 2));
    assert_eq!(lab.summary().attacked_rounds, 3);
}

#[test]
fn an_edit_recomputes_from_the_first_changed_round_only() {
    let mut lab = Lab::new(config()).unwrap();
    lab.want(3);
    lab.finish(&mut |_| {}).unwrap();
    let old = lab.records();
    // Waypoint 12 is 36 h in: legs 11 and 12 lie in day 1 (round 1).
    let mut moved = config().trajectory.unwrap();
    moved.waypoints[12] = Metres::new(200.0, -300.0);
    let mut events = Vec::new();
    let first = lab
        .set_trajectory(moved.clone(), &mut |e| events.push(e))
        .unwrap();
    assert_eq!(first, Some(1));
    // Reported before any background work: the edit and round 1's instant reconstruction.
    assert!(matches!(
        events[0],
        LabEvent::Edited {
            first_changed: 1,
            total_rounds: 3
        }
    ));
    let LabEvent::Trained {
        round: 1,
        target: Some(t),
        ..
    } = &events[1]
    else {
        panic!("{:?}", events[1])
    };
    assert!(
        t.points
            .iter()
            .any(|p| p.distance(&Metres::new(200.0, -300.0)) < 30.0)
    );
    assert_eq!(lab.trained(), 2);
    assert_eq!(timeless(lab.records())[0], timeless(old.clone())[0]);
    lab.finish(&mut |_| {}).unwrap();
    let mut fresh = config();
    fresh.trajectory = Some(moved);
    let new = timeless(lab.records());
    assert_eq!(new, fresh_records(fresh));
    assert_ne!(new[1], timeless(old)[1]);
    // The same trajectory again changes nothing.
    let same = lab.config().trajectory.clone().unwrap();
    assert_eq!(lab.set_trajectory(same, &mut |_| {}).unwrap(), None);
}

#[test]
fn work_stops_at_the_deadline_and_resumes() {
    let mut lab = Lab::new(config()).unwrap();
    lab.want(1);
    let clock = Cell::new(0.0);
    let now = || {
        clock.set(clock.get() + 1.0);
        clock.get()
    };
    let mut slices = 0;
    while lab.work(&now, clock.get() + 4.0, &mut |_| {}).unwrap() {
        slices += 1;
        assert!(slices < 10_000);
    }
    assert!(slices > 1, "the attack should take several slices");
    assert!(!lab.busy());
    let mut one = config();
    one.max_rounds = Some(1);
    assert_eq!(timeless(lab.records()), fresh_records(one));
}

#[test]
fn bad_trajectories_are_refused_and_change_nothing() {
    let mut lab = Lab::new(config()).unwrap();
    lab.want(1);
    lab.finish(&mut |_| {}).unwrap();
    let mut bad = config().trajectory.unwrap();
    bad.waypoints[0] = Metres::new(1e6, 0.0);
    let e = lab.set_trajectory(bad, &mut |_| {}).unwrap_err();
    assert!(e.contains("outside the area"), "{e}");
    assert_eq!(lab.trained(), 1);
    assert_eq!(lab.config().trajectory, config().trajectory);
}

#[test]
fn the_heat_map_covers_the_area_in_dbm() {
    let mut lab = Lab::new(config()).unwrap();
    lab.want(1);
    lab.finish(&mut |_| {}).unwrap();
    let h = lab.heat_map(Some(0), 600).unwrap();
    assert_eq!(h.values_dbm.len(), h.cols * h.rows);
    assert!(h.cols * h.rows <= 600 && h.cols * h.rows > 400);
    assert!(h.values_dbm.iter().all(|v| v.is_finite()));
    assert!(lab.heat_map(Some(5), 600).is_none());
}

/// Three days of a walk in Zürich with a day without data in between, as a file would give.
pub(super) fn imported() -> ScenarioConfig {
    use {crate::signal_map::placement::ImportedTrace, whereabouts_core::import::Fix};
    let day = 86_400.0;
    let t0 = 1_700_006_400.0; // 2023-11-15 00:00 UTC
    let fixes = [0.0, 2.0, 3.0]
        .iter()
        .flat_map(|&d| {
            (0..120).map(move |i| {
                let a = i as f64 / 120.0 * std::f64::consts::TAU;
                Fix {
                    time: t0 + d * day + 8.0 * 3600.0 + i as f64 * 120.0,
                    lat: 47.37 + 0.004 * a.sin() + d * 1e-3,
                    lon: 8.54 + 0.006 * a.cos(),
                    rsrp_dbm: None,
                    line: i + 1,
                }
            })
        })
        .collect();
    ScenarioConfig {
        seed: 4,
        world: WorldChoice {
            preset: Preset::Campus,
            users: Some(3),
            weeks: None,
            cell: None,
            background: None,
        },
        imported: Some(ImportedTrace::new("walk.gpx".into(), fixes)),
        ..ScenarioConfig::default()
    }
}

#[test]
fn imported_data_places_the_world_and_cuts_rounds_by_its_timestamps() {
    let mut lab = Lab::new(imported()).unwrap();
    let view = lab.world_view();
    assert!(
        (view.origin.lat - 47.3715).abs() < 0.002,
        "{:?}",
        view.origin
    );
    assert_eq!(view.start_unix, 1_700_006_400.0);
    // Days 0, 2 and 3 have data: four daily rounds, the target is silent in round 1.
    assert_eq!(lab.total_rounds(), 4);
    lab.want(usize::MAX);
    lab.finish(&mut |_| {}).unwrap();
    let records = lab.records();
    assert_eq!(
        records.iter().map(|r| r.round).collect::<Vec<_>>(),
        vec![0, 2, 3]
    );
    for r in &records {
        assert_eq!(r.points, 120);
        // The walk is a ~1 km loop; Lemma 1 through FedSGD lands near its centroid.
        let analytic = r.analytic.as_ref().unwrap();
        assert!(
            analytic.error_m < 50.0,
            "round {}: {}",
            r.round,
            analytic.error_m
        );
    }
    assert_eq!(timeless(records), fresh_records(imported()));
    let mut both = imported();
    both.trajectory = Some(TrajectoryPreset::Commute.trajectory(900.0, 850.0));
    assert!(Lab::new(both).err().unwrap().contains("not both"));
}

#[test]
fn a_measured_signal_is_tested_on_the_visitors_own_held_out_fixes() {
    let mut config = imported();
    if let Some(t) = config.imported.take() {
        let mut fixes = t.fixes.to_vec();
        for (i, f) in fixes.iter_mut().enumerate() {
            f.rsrp_dbm = Some(-80.0 - (i % 20) as f64);
        }
        config.imported = Some(ImportedTrace::new(t.name, fixes));
    }
    let lab = Lab::new(config).unwrap();
    assert!(!lab.data().test.is_empty());
    assert!(lab.data().test.iter().all(|s| s.user == 0));
    assert!(
        lab.data()
            .test
            .iter()
            .all(|s| (-99.0..=-80.0).contains(&s.y))
    );
}

#[test]
fn fedavg_rounds_report_each_local_steps_mini_batch_centroid() {
    let steps_of = |batch_size: Option<usize>, epochs: usize| {
        let mut c = config();
        c.max_rounds = Some(1);
        c.fl.local.batch_size = batch_size;
        c.fl.local.epochs = epochs;
        let mut lab = Lab::new(c).unwrap();
        lab.want(1);
        let mut found = None;
        lab.finish(&mut |e| {
            if let LabEvent::Trained {
                target: Some(t), ..
            } = e
            {
                found = Some(t);
            }
        })
        .unwrap();
        found.unwrap()
    };
    // FedSGD: one step, nothing to blur.
    assert!(steps_of(None, 1).steps.is_empty());
    // FedAvg B = 20, E = 2: 2·⌈n/20⌉ steps, whose mini-batches tile the batch twice, so
    // their centroids average (nearly: the last one is smaller) to the batch centroid.
    let t = steps_of(Some(20), 2);
    let n = t.points.len();
    assert_eq!(t.steps.len(), 2 * n.div_ceil(20));
    let mean = t.steps.iter().fold((0.0, 0.0), |a, p| {
        (
            a.0 + p.east / t.steps.len() as f64,
            a.1 + p.north / t.steps.len() as f64,
        )
    });
    let off = Metres::new(mean.0, mean.1).distance(&t.truth);
    assert!(off < 25.0, "{off} m");
    let spread = t
        .steps
        .iter()
        .map(|p| p.distance(&t.truth))
        .fold(0.0, f64::max);
    assert!(
        spread > 50.0,
        "mini-batches cover the round's places: {spread} m"
    );
}

#[test]
fn the_guesses_match_the_records() {
    let mut lab = Lab::new(config()).unwrap();
    lab.want(usize::MAX);
    lab.finish(&mut |_| {}).unwrap();
    let records = lab.records();
    let guesses = whereabouts_core::driver::Driver::guesses(&lab);
    assert_eq!(
        guesses.len(),
        2 * records.len(),
        "DLG and Lemma 1 per round"
    );
    for (g, r) in guesses.chunks(2).zip(&records) {
        let dlg = r.dlg.as_ref().unwrap();
        assert_eq!(g[0].attack, "dlg");
        assert_eq!(g[0].error_m(), dlg.reconstruction.error_m);
        assert_eq!(g[1].error_m(), r.analytic.as_ref().unwrap().error_m);
    }
}

/// A round without the visitor's update says why (issue #14, item 4), for each cause.
#[test]
fn a_round_without_the_targets_update_says_why() {
    let absences = |c: ScenarioConfig| {
        let mut lab = Lab::new(c).unwrap();
        lab.want(usize::MAX);
        let mut out = Vec::new();
        lab.finish(&mut |e| {
            if let LabEvent::Trained {
                round,
                target,
                absent,
                ..
            } = e
            {
                assert_eq!(target.is_none(), absent.is_some(), "round {round}");
                out.extend(absent);
            }
        })
        .unwrap();
        out
    };
    assert!(absences(config()).is_empty());
    // C < 1: the server picks some rounds without the visitor.
    let mut few = config();
    few.fl.client_fraction = 0.34;
    few.max_rounds = Some(6);
    let why = absences(few);
    assert!(
        !why.is_empty(),
        "C = 0.34 over 6 rounds never left the visitor out"
    );
    assert!(
        why.iter().all(|w| w.contains("did not pick you")),
        "{why:?}"
    );
    // A Diverse Batch whose eps finds no cluster trains on nothing.
    let mut none = config();
    none.defence = crate::signal_map::defence::Defence::DiverseBatch {
        eps_km: 1e-7,
        min_samples: crate::signal_map::defence::DEFAULT_MIN_SAMPLES,
    };
    let why = absences(none);
    assert!(!why.is_empty());
    assert!(
        why.iter().all(|w| w.contains("defence chose none")),
        "{why:?}"
    );
}

#[test]
fn a_round_that_leaves_the_model_as_it_was_keeps_the_rmse_it_measured() {
    // One user at T = 1 hour: in most hours nobody takes part and the model stays as it was
    // (the long calendars of real traces are mostly such rounds); every round's RMSE is still
    // the measured one, bit for bit.
    let mut config = config();
    config.world.users = Some(1);
    config.participants = Some(vec![0]);
    config.trajectory = None;
    config.round_length = crate::signal_map::trace::RoundLength::Hour;
    config.max_rounds = Some(30);
    config.attack.dlg = false;
    let mut lab = Lab::new(config).unwrap();
    lab.run(None, &mut |_| {}).unwrap();
    assert_eq!(lab.rounds.len(), 30);
    let mut kept = 0;
    for (t, r) in lab.rounds.iter().enumerate() {
        let Rmse::Done(value) = r.rmse else {
            panic!("round {t} not measured");
        };
        let measured =
            crate::signal_map::reference::test_rmse(&lab.federation.spec, &r.after, &lab.data.test);
        assert_eq!(value.to_bits(), measured.to_bits(), "round {t}");
        kept += usize::from(t > 0 && lab.rounds[t - 1].after == r.after);
    }
    assert!(kept > 0, "no round without a participant in 30 hours");
}
