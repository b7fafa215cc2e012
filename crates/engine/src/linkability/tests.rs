//! The evidence: the metrics against hand computations, every gradient against finite
//! differences, each attack above chance on an easy case and at chance on noise, the
//! mitigations changing the data as specified, and the same seed giving the same numbers.
//!
//! Its length (about 750 lines): 18 tests of the lab's parts, each with the small federation or
//! the hand-computed case it checks against, kept together as the lab's evidence.

use super::attack::dense::Dense;
use super::attack::mlp::{Mlp, MlpSettings};
use super::attack::siamese::Siamese;
use super::attack::unlabelled::{chain, cluster};
use super::attack::{Identifier, svm};
use super::config::{LinkConfig, Mitigation, Split};
use super::features::{Layers, Matrix};
use super::federation::FederationRun;
use super::metrics::{Scores, adjusted_rand, average_precision, identification, purity};
use super::mitigation::{Mitigator, count};
use super::population::{Population, client, owner};
use super::scenario::{Observations, identify, match_with_mlp};
use crate::signal_map::fl::BatchSelector;
use crate::signal_map::trace::Sample;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;

#[test]
fn average_precision_is_sklearns() {
    // Ranked: 0.9 (+), 0.8 (−), 0.7 (+), 0.1 (−): AP = ½·1 + ½·⅔ = 0.8333…
    let ap = average_precision(&[0.1, 0.9, 0.7, 0.8], &[false, true, true, false]).unwrap();
    assert!((ap - (0.5 + 0.5 * 2.0 / 3.0)).abs() < 1e-12);
    // Tied scores form one threshold: {0.5, 0.5} (one +), then 0.2 (+): ½·½ + ½·⅔.
    let ap = average_precision(&[0.5, 0.5, 0.2], &[true, false, true]).unwrap();
    assert!((ap - (0.25 + 1.0 / 3.0)).abs() < 1e-12);
    assert_eq!(average_precision(&[0.3], &[false]), None);
}

#[test]
fn identification_metrics_agree_with_a_hand_count() {
    // Three test updates, three people.
    let scores = Scores {
        rows: 3,
        classes: 3,
        data: vec![
            0.7, 0.2, 0.1, // truth 0: rank 1
            0.5, 0.1, 0.4, // truth 1: rank 3
            0.3, 0.3, 0.4, // truth 2: rank 1
        ],
    };
    let m = identification(&scores, &[0, 1, 2]).unwrap();
    assert!((m.top1 - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(m.top5, 1.0);
    // Per person: column 0 ranks rows 0,1,2 → the positive first: AP 1. Column 1: 0.3 (row 2),
    // 0.2, 0.1 (row 1 positive last): AP ⅓. Column 2: 0.4, 0.4 tie (rows 1 and 2, one +),
    // then 0.1: AP ½.
    assert!((m.mean_ap - (1.0 + 1.0 / 3.0 + 0.5) / 3.0).abs() < 1e-12);
    assert!((m.chance_ap - 1.0 / 3.0).abs() < 1e-12);
    // Tied classes share the places they tie for: row 2's classes 0 and 1 tie behind class 2,
    // each expected at rank 2.5, each first answer 0 times and within the first two half the
    // time.
    assert_eq!(scores.expected_rank(2, 0), 2.5);
    assert_eq!(scores.expected_rank(2, 1), 2.5);
    assert_eq!(scores.within(2, 0, 1), 0.0);
    assert_eq!(scores.within(2, 1, 2), 0.5);
    assert_eq!(scores.first_answer(2), vec![(2, 1.0)]);
}

#[test]
fn tied_scores_give_no_class_an_edge() {
    // Every score equal, every row's truth the first class (the visitor is person 0): ordering
    // ties by index would put the truth first every time (top-1 = 1); a fair rule gives 1/K.
    let k = 8;
    let rows = 5;
    let scores = Scores {
        rows,
        classes: k,
        data: vec![0.125; rows * k],
    };
    let m = identification(&scores, &vec![0; rows]).unwrap();
    assert_eq!(m.top1, 1.0 / k as f64);
    assert_eq!(m.top5, 5.0 / k as f64);
    for c in 0..k {
        assert_eq!(scores.expected_rank(0, c), (k as f64 + 1.0) / 2.0);
    }
    let shares = scores.first_answer(0);
    assert_eq!(shares.len(), k);
    assert!(shares.iter().all(|&(_, s)| s == 1.0 / k as f64));
    // A tie that straddles the cut: two above, four tied for places 3–6: within the first 5
    // with probability 3/4.
    let row = [0.9, 0.8, 0.5, 0.5, 0.5, 0.5, 0.1, 0.0];
    let straddle = Scores {
        rows: 1,
        classes: 8,
        data: row.to_vec(),
    };
    assert_eq!(straddle.within(0, 3, 5), 0.75);
    assert_eq!(straddle.expected_rank(0, 3), 4.5);
}

#[test]
fn purity_and_adjusted_rand_by_hand() {
    let owners = [0, 0, 1, 1, 2, 2];
    assert_eq!(purity(&[5, 5, 3, 3, 0, 0], &owners), 1.0);
    assert!((adjusted_rand(&[5, 5, 3, 3, 0, 0], &owners) - 1.0).abs() < 1e-12);
    // Clusters {0,1,2}, {3,4,5}: purity (2 + 2)/6. Pairs: index Σ C(n_ij, 2) = 1 + 1 = 2;
    // rows 3 + 3 = 6; columns 1·3 = 3; total C(6, 2) = 15; expected 6·3/15 = 1.2;
    // ARI = (2 − 1.2)/(4.5 − 1.2).
    let clusters = [0, 0, 0, 1, 1, 1];
    assert!((purity(&clusters, &owners) - 4.0 / 6.0).abs() < 1e-12);
    assert!((adjusted_rand(&clusters, &owners) - 0.8 / 3.3).abs() < 1e-12);
}

fn finite_difference_check(
    loss: &dyn Fn(&[Dense]) -> f64,
    layers: &[Dense],
    analytic: &[(Vec<f64>, Vec<f64>)],
) {
    let eps = 1e-6;
    for (li, layer) in layers.iter().enumerate() {
        for (which, len) in [(0, layer.w.len()), (1, layer.b.len())] {
            for k in (0..len).step_by(len.div_ceil(7).max(1)) {
                let nudged = |by: f64| {
                    let mut copy = layers.to_vec();
                    let v = if which == 0 {
                        &mut copy[li].w[k]
                    } else {
                        &mut copy[li].b[k]
                    };
                    *v += by;
                    loss(&copy)
                };
                let numeric = (nudged(eps) - nudged(-eps)) / (2.0 * eps);
                let exact = if which == 0 {
                    analytic[li].0[k]
                } else {
                    analytic[li].1[k]
                };
                assert!(
                    (numeric - exact).abs() <= 1e-6 + 1e-4 * exact.abs(),
                    "layer {li} {} {k}: finite difference {numeric}, backprop {exact}",
                    if which == 0 { "w" } else { "b" }
                );
            }
        }
    }
}

#[test]
fn the_mlps_gradient_matches_finite_differences() {
    let mut s = Stream::new(1, "mlp-grad");
    let net = Mlp::new(6, 4, 9, &mut s);
    let x: Vec<f64> = (0..5 * 6).map(|_| s.gaussian(0.0, 1.0)).collect();
    let y = [0, 3, 1, 1, 2];
    let (_, grads) = net.loss_grad(&x, &y, None);
    let loss = |layers: &[Dense]| {
        let m = Mlp {
            hidden: layers[0].clone(),
            output: layers[1].clone(),
        };
        m.loss_grad(&x, &y, None).0
    };
    finite_difference_check(
        &loss,
        &[net.hidden.clone(), net.output.clone()],
        &grads.map(|g| (g.w, g.b)),
    );
}

#[test]
fn the_siamese_gradient_matches_finite_differences() {
    let mut s = Stream::new(2, "siamese-grad");
    let net = Siamese::new(5, 7, &mut s);
    let xa: Vec<f64> = (0..4 * 5).map(|_| s.gaussian(0.0, 1.0)).collect();
    let xb: Vec<f64> = (0..4 * 5).map(|_| s.gaussian(0.0, 1.0)).collect();
    let same = [1.0, 0.0, 0.0, 1.0];
    let (_, grads) = net.loss_grad(&xa, &xb, &same);
    let loss = |layers: &[Dense]| {
        Siamese {
            first: layers[0].clone(),
            second: layers[1].clone(),
            head: layers[2].clone(),
        }
        .loss_grad(&xa, &xb, &same)
        .0
    };
    finite_difference_check(
        &loss,
        &[net.first.clone(), net.second.clone(), net.head.clone()],
        &grads.map(|g| (g.w, g.b)),
    );
}

/// `people` people with two devices and `rows` updates per device: each person's updates
/// scatter around a centre of their own (`spread` relative to the unit centres), or are pure
/// noise when `spread` is None.
fn synthetic(people: usize, rows: usize, spread: Option<f64>, seed: u64) -> Observations {
    let d = 12;
    let mut s = Stream::new(seed, "synthetic");
    let centres: Vec<Vec<f64>> = (0..people)
        .map(|_| (0..d).map(|_| s.gaussian(0.0, 1.0)).collect())
        .collect();
    let mut obs = Observations {
        x: Matrix::new(d),
        place: Matrix::new(2),
        ..Observations::default()
    };
    for (p, centre) in centres.iter().enumerate() {
        for device in 0..2 {
            for r in 0..rows {
                let row: Vec<f32> = (0..d)
                    .map(|j| match spread {
                        Some(sd) => (centre[j] + s.gaussian(0.0, sd)) as f32,
                        None => s.gaussian(0.0, 1.0) as f32,
                    })
                    .collect();
                obs.x.push(&row);
                // Places: the first two coordinates, people's centres spread three times wider.
                let place: Vec<f32> = (0..2)
                    .map(|j| match spread {
                        Some(_) => (3.0 * centre[j]) as f32 + row[j] - centre[j] as f32,
                        None => row[j],
                    })
                    .collect();
                obs.place.push(&place);
                obs.owner.push(p);
                obs.client.push(client(p, device));
                obs.round.push(r);
            }
        }
    }
    obs.x = obs.x.normalised();
    obs
}

#[test]
fn every_attack_beats_chance_on_an_easy_case_and_is_at_chance_on_noise() {
    let people = 8;
    let settings = MlpSettings {
        epochs: 30,
        ..MlpSettings::default()
    };
    let easy = synthetic(people, 30, Some(0.3), 1);
    let noise = synthetic(people, 30, None, 2);
    for attack in Identifier::ALL {
        let on_easy = identify(&easy, people, attack, settings, 3)
            .unwrap()
            .metrics;
        let on_noise = identify(&noise, people, attack, settings, 3)
            .unwrap()
            .metrics;
        let chance = 1.0 / people as f64;
        assert!((on_easy.chance_ap - chance).abs() < 1e-12);
        if attack == Identifier::Chance {
            assert!(on_easy.over_chance() < 1.6, "chance: {on_easy:?}");
        } else {
            assert!(
                on_easy.mean_ap > 0.8,
                "{attack:?} on the easy case: {on_easy:?}"
            );
            assert!(
                on_easy.top1 > 0.7,
                "{attack:?} on the easy case: {on_easy:?}"
            );
        }
        assert!(
            on_noise.over_chance() < 1.6 && on_noise.top1 < 2.0 * chance,
            "{attack:?} on noise: {on_noise:?}"
        );
    }
}

#[test]
fn matching_and_the_unlabelled_linkers_beat_chance_on_an_easy_case_only() {
    let people = 8;
    let settings = MlpSettings {
        epochs: 30,
        ..MlpSettings::default()
    };
    for (obs, easy) in [
        (synthetic(people, 20, Some(0.3), 4), true),
        (synthetic(people, 20, None, 5), false),
    ] {
        let net = identify(&obs, people, Identifier::Mlp, settings, 6)
            .unwrap()
            .mlp
            .unwrap();
        let ap = match_with_mlp(&obs, &net, 7).unwrap();
        let grouping = cluster(&obs.x, &obs.owner, people, &mut Stream::new(8, "k"));
        let chained = chain(&obs.x, &obs.round, &obs.owner);
        if easy {
            assert!(ap > 0.9, "matching AP {ap}");
            assert!(grouping.adjusted_rand > 0.8, "{grouping:?}");
            assert!(chained.same_person > 0.9, "{chained:?}");
        } else {
            assert!((ap - 0.5).abs() < 0.1, "matching AP on noise {ap}");
            assert!(grouping.adjusted_rand < 0.1, "{grouping:?}");
            assert!(chained.same_person < 3.0 * chained.chance, "{chained:?}");
        }
    }
}

#[test]
fn the_svm_separates_separable_data() {
    let x = Matrix::from_rows(
        2,
        [&[2.0f32, 0.1][..], &[1.5, -0.2], &[-1.8, 0.3], &[-2.2, 0.0]],
    );
    let w = svm::binary(&x, &[true, true, false, false], &mut Stream::new(1, "svm"));
    for (i, positive) in [true, true, false, false].into_iter().enumerate() {
        let margin = w[0] * f64::from(x.row(i)[0]) + w[1] * f64::from(x.row(i)[1]) + w[2];
        assert_eq!(margin > 0.0, positive, "row {i}: margin {margin}");
    }
}

fn sample(user: u32, east: f64) -> Sample {
    Sample {
        user,
        time: 0.0,
        pos: Metres::new(east, 0.0),
        x: [east as f32, 0.0],
        y: -90.0,
    }
}

#[test]
fn the_mitigations_change_the_data_as_specified() {
    let pool: std::sync::Arc<[Sample]> = (0..400)
        .map(|i| {
            sample(
                u32::MAX,
                1000.0 + f64::from(i % 40) * 100.0 + f64::from(i / 40),
            )
        })
        .collect();
    let mine: Vec<Sample> = (0..10)
        .map(|i| sample(client(3, 1), f64::from(i)))
        .collect();
    let is_own = |s: &Sample| s.pos.east < 100.0;
    let mut s = Stream::new(1, "m");
    for beta in [0.0, 0.25, 0.5, 1.0] {
        let m = Mitigator::new(Mitigation::BkgRepl { beta }, pool.clone(), 5, 1);
        let batch = m.select(&mine, &mut s).unwrap();
        assert_eq!(batch.len(), 10, "bkg-repl keeps the size");
        assert_eq!(batch.iter().filter(|s| !is_own(s)).count(), count(beta, 10));
        assert!(batch.iter().all(|s| s.user == client(3, 1)));
    }
    for alpha in [0.0, 0.5, 2.0] {
        for mitigation in [Mitigation::RandAug { alpha }, Mitigation::MmAug { alpha }] {
            let m = Mitigator::new(mitigation, pool.clone(), 5, 1);
            let batch = m.select(&mine, &mut s).unwrap();
            assert_eq!(batch.len(), 10 + count(alpha, 10), "{mitigation:?}");
            assert_eq!(batch.iter().filter(|s| is_own(s)).count(), 10);
        }
    }
    // mm-aug: a person's two devices draw from two different modes, and a device's additions
    // all come from its own mode.
    let m = Mitigator::new(Mitigation::MmAug { alpha: 2.0 }, pool.clone(), 5, 1);
    let modes = m.modes().unwrap().clone();
    for person in 0..5 {
        assert_ne!(modes.of_client[2 * person], modes.of_client[2 * person + 1]);
    }
    let mode = modes.of_client[client(3, 1) as usize];
    let members: std::collections::BTreeSet<u64> = modes.members[mode]
        .iter()
        .map(|&i| pool[i].pos.east.to_bits())
        .collect();
    let batch = m.select(&mine, &mut s).unwrap();
    assert!(
        batch
            .iter()
            .filter(|s| !is_own(s))
            .all(|s| members.contains(&s.pos.east.to_bits()))
    );
    // Noise moves every coordinate; other mitigations leave the update alone.
    let mut params = vec![0.0f32; 50];
    Mitigator::new(Mitigation::Noise { sigma: 0.5 }, pool.clone(), 5, 1).noise(&mut params, &mut s);
    assert!(params.iter().all(|&p| p != 0.0));
    let sd = (params.iter().map(|p| p * p).sum::<f32>() / 50.0).sqrt();
    assert!((0.3..0.7).contains(&sd), "noise sd {sd}");
    let mut params = vec![0.0f32; 5];
    Mitigator::new(Mitigation::RandAug { alpha: 1.0 }, pool, 5, 1).noise(&mut params, &mut s);
    assert!(params.iter().all(|&p| p == 0.0));
}

fn small(split: Split) -> LinkConfig {
    LinkConfig {
        people: 8,
        rounds: 6,
        split,
        ..LinkConfig::default()
    }
}

#[test]
fn the_splits_give_each_person_two_devices_as_specified() {
    for split in Split::ALL {
        let population = Population::generate(&small(split)).unwrap();
        let data = &population.dataset;
        for person in 0..8 {
            let a = data.user_data(client(person, 0));
            let b = data.user_data(client(person, 1));
            assert!(!a.is_empty() && !b.is_empty(), "{split:?}: person {person}");
            assert!(a.iter().chain(b).all(|s| owner(s.user) == person));
            match split {
                Split::Chrono => assert!(
                    a.last().unwrap().time <= b.first().unwrap().time,
                    "the old phone's data all comes first"
                ),
                Split::Day => {
                    let days = |v: &[Sample]| -> std::collections::BTreeSet<i64> {
                        v.iter()
                            .map(|s| (s.time / 86_400.0).floor() as i64)
                            .collect()
                    };
                    assert!(days(a).is_disjoint(&days(b)), "a day lives on one device");
                }
                Split::Random => {
                    let share = a.len() as f64 / (a.len() + b.len()) as f64;
                    assert!((0.35..0.65).contains(&share), "random split share {share}");
                }
            }
        }
        assert!(!population.pool.is_empty());
    }
}

#[test]
fn the_federation_logs_every_update_with_its_owner_and_the_same_seed_repeats_it() {
    let config = small(Split::Random);
    let run = |config: &LinkConfig| {
        let mut run = FederationRun::new(config, Population::generate(config).unwrap());
        run.finish().unwrap();
        run
    };
    let a = run(&config);
    let b = run(&config);
    assert_eq!(a.log, b.log);
    assert_eq!(a.global, b.global);
    assert_eq!(a.places, b.places);
    assert!(a.log.len() > 8 * 2 * 3, "{} updates", a.log.len());
    assert_eq!(
        a.log.entries()[0].delta.len(),
        65,
        "the last layer: 64 weights and a bias"
    );
    assert!(
        a.log
            .entries()
            .iter()
            .all(|e| e.owner as usize == owner(e.client))
    );
    assert!(a.test_rmse().unwrap() < 20.0);
    let all = run(&LinkConfig {
        layers: Layers::All,
        ..config.clone()
    });
    assert_eq!(all.log.entries()[0].delta.len(), 4417);
    // The last layer is the tail of the whole update.
    assert_eq!(
        all.log.entries()[0].delta[4417 - 65..],
        a.log.entries()[0].delta[..]
    );
    let other = run(&LinkConfig { seed: 8, ..config });
    assert_ne!(a.log, other.log);
}

#[test]
fn a_phone_whose_training_diverges_sends_nothing_and_is_counted() {
    // η = 1 with five local epochs blows up the phones' SGD on raw-scale data.
    let config = LinkConfig {
        learning_rate: 1.0,
        ..small(Split::Random)
    };
    let mut run = FederationRun::new(&config, Population::generate(&config).unwrap());
    let sent = |run: &FederationRun| run.log.len() + run.diverged_updates;
    run.finish().expect("the federation runs to its end");
    assert!(run.diverged_updates > 0, "nothing diverged at η = 1");
    let healthy = {
        let config = small(Split::Random);
        let mut run = FederationRun::new(&config, Population::generate(&config).unwrap());
        run.finish().unwrap();
        run
    };
    assert_eq!(healthy.diverged_updates, 0);
    // Every update the server did not get is one a phone could not send.
    assert_eq!(sent(&run), healthy.log.len());
    assert!(run.global.iter().all(|v| v.is_finite()));
}

#[test]
fn a_bad_setting_is_refused_with_its_name() {
    let bad = |c: LinkConfig| c.validate().unwrap_err().to_string();
    assert!(
        bad(LinkConfig {
            people: 1,
            ..LinkConfig::default()
        })
        .contains("people")
    );
    assert!(
        bad(LinkConfig {
            rounds: 1000,
            ..LinkConfig::default()
        })
        .contains("rounds")
    );
    assert!(
        bad(LinkConfig {
            mitigation: Mitigation::BkgRepl { beta: 1.5 },
            ..LinkConfig::default()
        })
        .contains("beta")
    );
    let big = bad(LinkConfig {
        people: 400,
        rounds: 60,
        layers: Layers::All,
        ..LinkConfig::default()
    });
    assert!(big.contains("layers") && big.contains("million"), "{big}");
    assert!(LinkConfig::default().validate().is_ok());
}

#[test]
fn the_lab_in_slices_gives_what_it_gives_in_one_go() {
    use super::lab::{LinkEvent, LinkLab, Phase};
    use whereabouts_core::driver::Driver;
    let config = LinkConfig {
        mlp: MlpSettings {
            epochs: 3,
            ..MlpSettings::default()
        },
        ..small(Split::Random)
    };
    let mut whole = LinkLab::start(config.clone()).unwrap();
    whole.finish(&mut |_| {}).unwrap();
    let whole = whole.summary();
    // A clock that passes the deadline at every look: the smallest slices there are.
    let mut sliced = LinkLab::start(config).unwrap();
    let tick = std::cell::Cell::new(0.0);
    let now = || {
        tick.set(tick.get() + 1.0);
        tick.get()
    };
    let mut phases = Vec::new();
    let mut slices = 0;
    while sliced
        .work(&now, tick.get(), &mut |e| {
            if let LinkEvent::Progress { phase, .. } = e {
                phases.push(phase)
            }
        })
        .unwrap()
    {
        slices += 1;
    }
    assert!(slices > 6, "{slices} slices");
    assert!(phases.contains(&Phase::Federation) && phases.contains(&Phase::Attack));
    let sliced = sliced.summary();
    assert_eq!(sliced, whole);
    let m = whole.identification.unwrap();
    assert!(m.mean_ap > 0.0 && whole.matching_ap.is_some());
    assert_eq!(whole.map.len(), whole.updates);
    assert_eq!(
        whole.ranking.len(),
        8,
        "every person's new device is ranked"
    );
    assert_eq!(whole.ranking.iter().filter(|d| d.yours).count(), 1);
    // Your expected rank is the middle of the places your device's score ties for, and the list
    // shows it somewhere among them.
    let rank = whole.your_rank.unwrap();
    let place = whole.ranking.iter().position(|d| d.yours).unwrap() + 1;
    let mine = whole.ranking[place - 1].score;
    let tied = whole.ranking.iter().filter(|d| d.score == mine).count() as f64;
    assert!(
        (place as f64 - rank).abs() <= (tied - 1.0) / 2.0,
        "{rank} {place}"
    );
    let attributed: f64 = whole.confusion.iter().flatten().sum();
    assert!(attributed > 0.0);
    // top-1 from the confusion matrix's diagonal equals the metric's.
    let diagonal: f64 = (0..8).map(|p| whole.confusion[p][p]).sum();
    assert!((diagonal / attributed - m.top1).abs() < 1e-12);
}

#[test]
fn the_open_world_answers_for_every_share_of_seen_people() {
    use super::attack::siamese::SiameseSettings;
    use super::scenario::open_world;
    let obs = synthetic(9, 12, Some(0.3), 9);
    let quick = MlpSettings {
        epochs: 20,
        ..MlpSettings::default()
    };
    let siamese = SiameseSettings {
        epochs: 20,
        ..SiameseSettings::default()
    };
    let none = open_world(&obs, 9, 0.0, quick, siamese, 1).unwrap();
    assert!(
        none.identification.is_none(),
        "no seen people, nothing to identify"
    );
    assert!(none.matching_ap.unwrap() > 0.8, "{none:?}");
    let all = open_world(&obs, 9, 1.0, quick, siamese, 1).unwrap();
    let m = all.identification.unwrap();
    // 6 seen people + "unknown" (7 classes).
    assert!(m.mean_ap > 0.8 && m.over_chance() > 3.0, "{m:?}");
}

#[test]
fn the_visitor_is_person_zero_split_over_two_devices() {
    use super::config::You;
    use crate::signal_map::placement::ImportedTrace;
    use crate::signal_map::trajectory::TrajectoryPreset;
    use whereabouts_core::import::Fix;
    // A ready-made path on the campus: five days, every measurement on one of your devices.
    let half = Population::generate(&small(Split::Random))
        .unwrap()
        .half_extent;
    let trajectory = TrajectoryPreset::Week.trajectory(half.0, half.1);
    let config = LinkConfig {
        split: Split::Chrono,
        you: You::Path {
            trajectory: trajectory.clone(),
        },
        ..small(Split::Chrono)
    };
    let population = Population::generate(&config).unwrap();
    let data = &population.dataset;
    let (a, b) = (
        data.user_data(client(0, 0)).len(),
        data.user_data(client(0, 1)).len(),
    );
    // Chrono: the first half on the old device; the test set takes ~20% of each.
    assert!(a > 50 && b > 50, "{a} and {b}");
    assert!(
        (a as f64 - b as f64).abs() < 0.25 * (a + b) as f64,
        "{a} vs {b}"
    );
    let days = trajectory.duration_s() / 86_400.0;
    let expected = (days * 144.0) as usize;
    let total = a + b + data.test.iter().filter(|s| owner(s.user) == 0).count();
    assert!(
        total.abs_diff(expected) <= expected / 20 + 2,
        "{total} measurements for {days} days"
    );
    // Over more rounds the week is walked again each week, with its own noise.
    let month = Population::generate(&LinkConfig {
        rounds: 20,
        ..config.clone()
    })
    .unwrap();
    let mine = |p: &Population| {
        let d = &p.dataset;
        d.train
            .iter()
            .chain(&d.test)
            .filter(|s| owner(s.user) == 0)
            .count()
    };
    assert_eq!(
        mine(&month),
        3 * mine(&population),
        "three weeks in 20 days"
    );
    assert!(
        month.notes.iter().any(|n| n.contains("walked 3 times")),
        "{:?}",
        month.notes
    );
    // Another person's device logs the same whoever you are (the test set and the inputs'
    // standardisation are drawn over everyone, so compare times, train and test together).
    let times = |d: &crate::signal_map::trace::Dataset| {
        let mut t: Vec<f64> = d
            .train
            .iter()
            .chain(&d.test)
            .filter(|s| s.user == client(3, 1))
            .map(|s| s.time)
            .collect();
        t.sort_by(f64::total_cmp);
        t
    };
    let synthetic = Population::generate(&small(Split::Chrono)).unwrap();
    assert_eq!(times(&synthetic.dataset), times(data));

    // A file: one fix a second for a day on a walk near Zurich, placed in its own world and
    // thinned to the loggers' rate.
    let fixes: Vec<Fix> = (0..86_400)
        .map(|s| Fix {
            time: 1_700_000_000.0 + s as f64,
            lat: 47.37 + 0.01 * (s as f64 / 86_400.0),
            lon: 8.54,
            rsrp_dbm: None,
            line: s + 2,
        })
        .collect();
    let config = LinkConfig {
        you: You::File {
            trace: ImportedTrace::new("walk.csv".into(), fixes),
        },
        ..small(Split::Random)
    };
    let population = Population::generate(&config).unwrap();
    let mine = population.dataset.user_data(client(0, 0)).len()
        + population.dataset.user_data(client(0, 1)).len();
    assert!((100..=144).contains(&mine), "{mine} of 144 kept");
    assert!(
        population
            .notes
            .iter()
            .any(|n| n.contains("144 of your 86400")),
        "{:?}",
        population.notes
    );
    // A path off the campus is refused, naming it.
    let mut off = trajectory;
    off.waypoints[0] = Metres::new(1e7, 0.0);
    let err = Population::generate(&LinkConfig {
        you: You::Path { trajectory: off },
        ..small(Split::Random)
    })
    .unwrap_err();
    assert!(err.to_string().contains("outside the area"), "{err}");
}

#[test]
fn the_trade_off_study_runs_every_mitigation_and_measures_each() {
    use super::study::{runner, runs};
    let base = LinkConfig {
        attack: Identifier::Knn,
        ..small(Split::Random)
    };
    let all = runs(&base);
    assert_eq!(all.len(), super::experiments::mitigation_grid().len());
    assert!(
        all.iter()
            .all(|r| r.config.people == 8 && r.config.attack == Identifier::Knn)
    );
    // The first runs: none, then noise; each measured, none failed.
    let points = runner(all.into_iter().take(2).collect()).finish().unwrap();
    assert_eq!(points[0].mitigation, "none");
    assert_eq!(points[1].mitigation, "noise");
    for p in &points {
        assert!(p.failed.is_none(), "{p:?}");
        assert!(p.over_chance.unwrap() > 0.0 && p.test_rmse.unwrap() > 0.0);
        assert!(p.your_rank.is_some());
    }
}
