//! How much the identification needs ([004] §8.3, "Sensitivity"): the MLP trained on fewer of
//! each person's updates (Fig. 9: "one training example per user already gives 21.5×" chance on
//! OpenImages) and on one range of rounds, tested on another (Fig. 12: "the round has little
//! influence").

use super::{Analysis, Findings, LinkPoint, LinkRuns, Scale, ap_cell, nth, pct};
use crate::linkability::config::Split;
use crate::linkability::scenario::{ClosedWorld, Observations};
use std::collections::BTreeMap;
use whereabouts_core::rng::Stream;
use whereabouts_core::stats::{self, Estimate};
use whereabouts_core::sweep::each;
use whereabouts_core::table::Table;

/// Updates a person the MLP trains on in Fig. 9's study (`usize::MAX`: all of them).
const SIZES: [usize; 6] = [1, 2, 3, 5, 10, usize::MAX];
/// Ranges the rounds are cut into for Fig. 12 (the paper: 10 ranges of 20 epochs).
const RANGES: usize = 4;

/// The closed world with only `k` of each person's known-device updates to train on (drawn
/// without replacement, stream `training-size-k`); the test rows unchanged.
pub fn fewer_updates(obs: &Observations, k: usize, seed: u64) -> ClosedWorld {
    let mut world = ClosedWorld::of(obs);
    let mut by_owner: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &i in &world.train {
        by_owner.entry(obs.owner[i]).or_default().push(i);
    }
    let mut stream = Stream::new(seed, &format!("training-size-{k}"));
    let mut train = Vec::new();
    for rows in by_owner.values_mut() {
        let n = k.min(rows.len());
        for i in 0..n {
            let j = i + stream.below((rows.len() - i) as u64) as usize;
            rows.swap(i, j);
        }
        train.extend_from_slice(&rows[..n]);
    }
    train.sort_unstable();
    world.train = train;
    world
}

/// The closed world restricted to each pair of round ranges (train range, then test range, row
/// by row): the rounds `0..rounds` cut into `ranges` consecutive ranges. `None` where a range
/// holds no update of its device.
pub fn round_ranges(obs: &Observations, rounds: usize, ranges: usize) -> Vec<Option<ClosedWorld>> {
    let closed = ClosedWorld::of(obs);
    let range_of = |i: usize| (obs.round[i] * ranges / rounds.max(1)).min(ranges - 1);
    let within = |rows: &[usize], r: usize| -> Vec<usize> {
        rows.iter().copied().filter(|&i| range_of(i) == r).collect()
    };
    let mut out = Vec::new();
    for a in 0..ranges {
        for b in 0..ranges {
            let (train, test) = (within(&closed.train, a), within(&closed.test, b));
            out.push(
                (!train.is_empty() && !test.is_empty()).then_some(ClosedWorld { train, test }),
            );
        }
    }
    out
}

fn size_name(k: usize) -> String {
    if k == usize::MAX {
        "all".into()
    } else {
        k.to_string()
    }
}

/// [004] Fig. 9: identification against the number of updates a person the MLP learns from.
pub fn training_size(scale: &Scale, runs: &mut LinkRuns) -> Result<Table, String> {
    let os = each(runs, scale.seeds(), |seed| LinkPoint {
        config: scale.config(seed, scale.people, Split::Random),
        analysis: Analysis::TrainingSize(SIZES.to_vec()),
    })?;
    let mut rows = Vec::new();
    for (k, size) in SIZES.into_iter().enumerate() {
        let ms = nth(&os, k);
        rows.push(vec![
            size_name(size),
            ap_cell(&ms),
            pct(ms.iter().map(|m| m.top1)),
            pct(ms.iter().map(|m| m.top5)),
        ]);
    }
    Ok(Table {
        title: format!(
            "Training-set size: the MLP trained on k of each person's known-device updates, {} people, random split ([004] §8.3, Fig. 9)",
            scale.people
        ),
        notes: vec![format!(
            "The paper: reasonable attacks need few updates, and one training update a user already gives 21.5× chance on OpenImages (the figure itself was lost). The k updates are drawn at random from the person's known device (all of them where it has fewer); every new-device update is tested. A known device sends about one update a round ({} rounds). Mean over {} populations ± 95% interval.",
            scale.rounds, scale.seeds
        )],
        columns: [
            "updates a person",
            "mean AP % (×chance)",
            "top-1 %",
            "top-5 %",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// [004] Fig. 12: the MLP trained on the known devices' updates of one range of rounds and
/// tested on the new devices' updates of another.
pub fn round_dependence(scale: &Scale, runs: &mut LinkRuns) -> Result<Table, String> {
    let os = each(runs, scale.seeds(), |seed| LinkPoint {
        config: scale.config(seed, scale.people, Split::Random),
        analysis: Analysis::RoundRanges(RANGES),
    })?;
    let name = |r: usize| {
        let (lo, hi) = (r * scale.rounds / RANGES, (r + 1) * scale.rounds / RANGES);
        format!("rounds {}–{}", lo + 1, hi)
    };
    let mut rows = Vec::new();
    for a in 0..RANGES {
        let mut row = vec![name(a)];
        row.extend((0..RANGES).map(|b| pct(nth(&os, a * RANGES + b).iter().map(|m| m.mean_ap))));
        rows.push(row);
    }
    // Per population: the mean AP on the diagonal (same range) and off it.
    let split = |o: &Findings, same: bool| -> f64 {
        let aps: Vec<f64> = (0..RANGES * RANGES)
            .filter(|k| (k / RANGES == k % RANGES) == same)
            .filter_map(|k| o.identifications.get(k).map(|m| m.mean_ap))
            .filter(|ap| ap.is_finite())
            .collect();
        aps.iter().sum::<f64>() / aps.len() as f64
    };
    let diagonal = Estimate::of(os.iter().map(|o| split(o, true)));
    let off = Estimate::of(os.iter().map(|o| split(o, false)));
    let reading = match (diagonal, off) {
        (Some(d), Some(o)) if d.above(&o) => {
            "the intervals separate: the round matters (against the paper)"
        }
        (Some(d), Some(o)) if o.above(&d) => {
            "the intervals separate: another range scores higher than the same"
        }
        (Some(_), Some(_)) => "the intervals overlap: inconclusive here",
        _ => "not measured",
    };
    Ok(Table {
        title: format!(
            "Which rounds: the MLP trained on one range of rounds (known devices) and tested on another (new devices), mean AP %, {} people, random split ([004] §8.3, Fig. 12)",
            scale.people
        ),
        notes: vec![
            format!(
                "Rows: the range trained on; columns: the range tested on. The paper cuts its 200 epochs into 10 ranges of 20 and finds that the round has little influence, so the adversary needs no round information (the figure itself was lost). Here {} rounds in {RANGES} ranges. Chance AP is {:.1}%. Mean over {} populations ± 95% interval.",
                scale.rounds,
                100.0 / scale.people as f64,
                scale.seeds
            ),
            format!(
                "Same range (the diagonal) {} against another range {}, AP % per population averaged: {reading}.",
                stats::cell(os.iter().map(|o| split(o, true)), 1, 100.0),
                stats::cell(os.iter().map(|o| split(o, false)), 1, 100.0),
            ),
        ],
        columns: std::iter::once("trained on".to_string())
            .chain((0..RANGES).map(|b| format!("tested on {}", name(b))))
            .collect(),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linkability::features::Matrix;
    use crate::linkability::population::client;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Three people, two devices each, one update a device a round for eight rounds.
    fn log() -> Observations {
        let (mut owner, mut clients, mut round) = (Vec::new(), Vec::new(), Vec::new());
        let mut x = Matrix::new(1);
        let mut place = Matrix::new(2);
        for r in 0..8 {
            for person in 0..3 {
                for device in 0..2 {
                    owner.push(person);
                    clients.push(client(person, device));
                    round.push(r);
                    x.push(&[person as f32]);
                    place.push(&[0.0, 0.0]);
                }
            }
        }
        Observations {
            x,
            owner,
            client: clients,
            round,
            place,
        }
    }

    #[test]
    fn fewer_updates_keeps_k_of_each_persons_known_device_and_every_test_row() {
        let obs = log();
        let all = ClosedWorld::of(&obs);
        for k in [1, 3, 8, usize::MAX] {
            let w = fewer_updates(&obs, k, 4);
            assert_eq!(w.test, all.test);
            for person in 0..3 {
                let mine = w.train.iter().filter(|&&i| obs.owner[i] == person).count();
                assert_eq!(mine, k.min(8));
            }
            assert!(w.train.iter().all(|i| all.train.contains(i)));
        }
        // Drawn from the seed: another seed, another draw.
        assert_ne!(
            fewer_updates(&obs, 2, 4).train,
            fewer_updates(&obs, 2, 5).train
        );
    }

    #[test]
    fn round_ranges_pair_every_train_range_with_every_test_range() {
        let obs = log();
        let worlds = round_ranges(&obs, 8, 4);
        assert_eq!(worlds.len(), 16);
        // Train range 1 (rounds 2–3) against test range 3 (rounds 6–7).
        let w = worlds[4 + 3].as_ref().unwrap();
        assert!(w.train.iter().all(|&i| (2..4).contains(&obs.round[i])));
        assert!(w.test.iter().all(|&i| (6..8).contains(&obs.round[i])));
        assert_eq!((w.train.len(), w.test.len()), (6, 6));
        // A range with no update is no world.
        let sparse = round_ranges(&obs, 16, 4);
        assert!(sparse[2 * 4 + 2].is_none() && sparse[0].is_some());
    }
}
