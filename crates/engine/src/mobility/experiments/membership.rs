//! `whereabouts reproduce --lab mobility --study membership` (issue 40 §2): membership
//! inference on aggregate location data (Pyrgelis, Troncoso and De Cristofaro, *Knock Knock*,
//! NDSS 2018; the game in [`whereabouts_core::membership`]) — from a released count of how many
//! of a group were in each busy place during each six hours of the week, was this person in
//! the group? — against the group's size m and the release's user-level ε, on the city's
//! check-in people and, with `--real`, on the real check-ins' weekly trajectories.

use super::Scale;
use super::unicity::Source;
use crate::mobility::membership::{CAP, CITY_PEOPLE, EPOCH_H, ROI_CELL_M, ROIS, Release, marks};
use crate::mobility::traces::Fix;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use whereabouts_core::membership::play;
use whereabouts_core::stats::Estimate;
use whereabouts_core::sweep::{Runs, Sweep, each};
use whereabouts_core::table::Table;

/// Aggregates to train on and released ones to score, each half with the target.
pub const TRAIN: usize = 200;
pub const TEST: usize = 200;
/// Targets a point plays against (drawn among the people with a mark).
pub const TARGETS: usize = 5;
/// The releases' user-level ε (`None`: exact counts).
pub const EPSILONS: [Option<f64>; 4] = [None, Some(10.0), Some(1.0), Some(0.1)];

/// The group sizes m: the city's (a quarter of its 99 others at most) and the real data's.
pub const CITY_GROUPS: [usize; 3] = [5, 10, 20];
pub const REAL_GROUPS: [usize; 4] = [5, 20, 100, 500];

/// One point: a population, a group size and ε, and the seed of the people (the city's) and
/// of the game's draws.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub seed: u64,
    pub source: Source,
    pub group: usize,
    pub epsilon: Option<f64>,
}

/// What a point gives: each target's AUC.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub aucs: Vec<f64>,
}

/// The AUC against each of [`TARGETS`] targets drawn from `seed` among the people with a mark.
pub fn measure(
    people: &[Vec<Fix>],
    group: usize,
    epsilon: Option<f64>,
    seed: u64,
) -> Result<Outcome, String> {
    let (marks, features) = marks(people);
    // The card's game too (`mobility/membership.rs`), with the study's sizes.
    let game = Release { group, epsilon }.game(TRAIN, TEST);
    let mut eligible: Vec<usize> = (0..marks.len()).filter(|&i| !marks[i].is_empty()).collect();
    whereabouts_core::rng::Stream::new(seed, "membership-targets").shuffle(&mut eligible);
    let aucs = eligible
        .iter()
        .take(TARGETS)
        .map(|&t| play(&game, &marks, features, t, seed))
        .collect::<Result<Vec<f64>, String>>()?;
    Ok(Outcome { aucs })
}

/// The study: the city's people on the scale's seeds and, given real check-ins, those too.
pub struct Membership {
    pub scale: Scale,
    pub real: Option<Arc<Vec<Vec<Fix>>>>,
}

fn label(epsilon: Option<f64>) -> String {
    epsilon.map_or("exact counts".into(), |e| format!("ε = {e}"))
}

impl Sweep for Membership {
    type Config = Point;
    type Outcome = Outcome;

    fn seed(point: &Point) -> u64 {
        point.seed
    }

    fn run(&self, point: &Point) -> Result<Outcome, String> {
        let people = point.source.people(self.real.as_ref(), point.seed)?;
        measure(&people, point.group, point.epsilon, point.seed)
    }

    fn tables(&self, runs: &mut dyn Runs<Point, Outcome>) -> Result<Vec<Table>, String> {
        // The lab's city at full size ([002] §5.1: 100 people) at every scale: a smaller one
        // leaves no room for groups drawn from a quarter of it.
        let Source::City { check_ins, .. } = Source::city(&self.scale) else {
            unreachable!("the city's source")
        };
        let people = CITY_PEOPLE;
        let source = Source::City { people, check_ins };
        let mut columns = vec!["Group m".to_string()];
        columns.extend(EPSILONS.iter().map(|&e| format!("AUC, {}", label(e))));
        let game_note = format!(
            "The release: for a group of m people, how many were in each of the {ROIS} busiest {ROI_CELL_M} m cells during each {EPOCH_H} hours of the week. The adversary knows the target's own marks and half of the other people; it trains logistic regression on {TRAIN} aggregates of its own groups (half with the target) and is scored by AUC on {TEST} released aggregates of groups from the other half (half with the target). 0.5 is a coin. ε: user-level, per release, δ = 0 — each person's marks capped at {CAP}, Laplace noise {CAP}/ε on every count, whose mean absolute error is {CAP}/ε people (2, 20 and 200 at ε = 10, 1 and 0.1: the price, against counts of at most m); the adversary trains on noised aggregates too."
        );
        let mut rows = Vec::new();
        for group in CITY_GROUPS {
            let mut row = vec![group.to_string()];
            for epsilon in EPSILONS {
                let by_seed = each(runs, self.scale.seeds(), |seed| Point {
                    seed,
                    source,
                    group,
                    epsilon,
                })?;
                // A world's figure: its targets' mean AUC.
                let means = by_seed
                    .iter()
                    .map(|o| o.aucs.iter().sum::<f64>() / o.aucs.len().max(1) as f64);
                row.push(Estimate::of(means).map_or("—".into(), |e| e.cell(2, 1.0)));
            }
            rows.push(row);
        }
        let mut tables = vec![Table {
            title: format!(
                "Membership inference on aggregates (Pyrgelis et al., NDSS 2018) — the synthetic city's {people} check-in people"
            ),
            notes: vec![
                game_note.clone(),
                format!(
                    "A cell: the mean over {} worlds (seeds {}–{}) of the AUC against {TARGETS} targets each, ± its 95% interval.",
                    self.scale.seeds,
                    self.scale.seed,
                    self.scale.seed + self.scale.seeds - 1
                ),
            ],
            columns: columns.clone(),
            rows,
        }];
        if let Some(real) = &self.real {
            let mut rows = Vec::new();
            for group in REAL_GROUPS {
                let mut row = vec![group.to_string()];
                for epsilon in EPSILONS {
                    let o = runs.run(Point {
                        seed: self.scale.seed,
                        source: Source::Real,
                        group,
                        epsilon,
                    })?;
                    row.push(
                        Estimate::of(o.aucs.iter().copied())
                            .map_or("—".into(), |e| e.cell(2, 1.0)),
                    );
                }
                rows.push(row);
            }
            tables.push(Table {
                title: format!(
                    "Membership inference on aggregates — real check-ins (foursquare-nyc: {} weekly trajectories, each read as a person)",
                    real.len()
                ),
                notes: vec![
                    game_note,
                    format!(
                        "A cell: the mean AUC against {TARGETS} targets (seed {}) ± its 95% interval over them.",
                        self.scale.seed
                    ),
                ],
                columns,
                rows,
            });
        }
        Ok(tables)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mobility::experiments::unicity::city_people;

    #[test]
    fn the_quick_study_plans_every_group_and_epsilon_and_a_game_gives_aucs() {
        let study = Membership {
            scale: Scale::quick(1),
            real: None,
        };
        let points = whereabouts_core::sweep::plan(&study).unwrap();
        assert_eq!(points.len(), CITY_GROUPS.len() * EPSILONS.len() * 2);
        assert!(
            points
                .iter()
                .all(|p| matches!(p.source, Source::City { people: 100, .. }))
        );
        let people = city_people(100, 40, 1);
        let o = measure(&people, 10, None, 1).unwrap();
        assert_eq!(o.aucs.len(), TARGETS);
        assert!(o.aucs.iter().all(|a| (0.0..=1.0).contains(a)), "{o:?}");
        // Noise at ε = 0.1 (scale 200 on counts of at most 10) leaves a coin.
        let o = measure(&people, 10, Some(0.1), 1).unwrap();
        let mean = o.aucs.iter().sum::<f64>() / o.aucs.len() as f64;
        assert!((mean - 0.5).abs() < 0.15, "{o:?}");
    }
}
