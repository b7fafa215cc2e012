//! Membership inference on the lab's released counts (issue 40 §2; Pyrgelis, Troncoso and De
//! Cristofaro, *Knock Knock, Who's There?*, NDSS 2018; the game is
//! [`whereabouts_core::membership`]): what the card "Were you in the count?" and the command
//! line's study (`reproduce --lab mobility --study membership`) share — the regions of
//! interest, the epochs, the cap — and the card itself.
//!
//! The release: for a group of m people, how many of them were in each of the city's busiest
//! places ([`ROIS`] cells of [`ROI_CELL_M`] m) during each [`EPOCH_H`] hours of the week. The
//! adversary knows the target's trajectory and half of the other people; from counts of groups
//! of its own, half with the target, it learns to tell the target in from out, and is scored
//! (AUC) on released counts of groups from the other half. No federated learning is needed for
//! this leak either: it is what a city's published footfall counts say about one person.
//!
//! The card's crowd is the city's check-in people (as many as the lab's city, at least
//! [`CITY_PEOPLE`]; as long as its trajectories), with the target in place of the first of
//! them, as the unicity card has it (`unicity.rs`); the command line's study on the same people
//! and seed gives the same AUC (a test below).

use super::config::MobConfig;
use super::lab::MobLab;
use super::limits;
use super::lstm::WINDOW;
use super::traces::{self, Fix, TraceKind};
use super::unicity::{self, YourUnicity};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use whereabouts_core::membership::{Game, play};
use whereabouts_core::stats::Estimate;
use whereabouts_core::unicity::{Resolution, points};
use whereabouts_core::world::roads::RoadNetwork;

/// The regions of interest: the busiest cells (by people who visit them) of this side, metres.
pub const ROI_CELL_M: f64 = 500.0;
pub const ROIS: usize = 30;
/// The epochs: bins of the hour of the week, hours (28 a week).
pub const EPOCH_H: f64 = 6.0;
/// A person's marks in one aggregate at most (the DP bound).
pub const CAP: usize = 20;
/// The fewest people in the card's crowd, and the command line's city at every scale ([002]
/// §5.1: 100 people): a group takes at most a quarter of the others.
pub const CITY_PEOPLE: usize = 100;
/// The card's games: aggregates to train on and released ones to score (each half with you),
/// and independent games (seeds `seed` … `seed + GAMES − 1`) for the AUC's interval.
pub const CARD_TRAIN: usize = 100;
pub const CARD_TEST: usize = 100;
pub const CARD_GAMES: u64 = 5;

/// The release the card plays against: its group size m and its user-level ε (per release,
/// δ = 0; `None`: exact counts). The lab's rows `m.group`, `m.aggdp`, `m.aggeps`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Release {
    pub group: usize,
    pub epsilon: Option<f64>,
}

/// The card opens on groups of 5 and exact counts; the noise, once on, at ε = 1.
pub const RELEASE_EPSILON: f64 = 1.0;

impl Default for Release {
    fn default() -> Self {
        Release {
            group: 5,
            epsilon: None,
        }
    }
}

impl Release {
    /// The bounds of its two numbers, named as the config's fields.
    pub fn validate(&self) -> Result<(), String> {
        limits::GROUP
            .check("release.group", self.group as f64)
            .map_err(|e| e.to_string())?;
        if let Some(e) = self.epsilon {
            limits::RELEASE_EPSILON
                .check("release.epsilon", e)
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// The game of this release with `train` and `test` aggregates.
    pub fn game(&self, train: usize, test: usize) -> Game {
        Game {
            group: self.group,
            train,
            test,
            cap: CAP,
            epsilon: self.epsilon,
        }
    }
}

/// Each person's marks, the (ROI, epoch) features they were in: the [`ROIS`] cells most
/// people visit, and the number of features.
pub fn marks(people: &[Vec<Fix>]) -> (Vec<Vec<u32>>, usize) {
    let resolution = Resolution {
        cell_m: ROI_CELL_M,
        bin_s: Some(EPOCH_H * 3600.0),
    };
    let traces: Vec<Vec<(i64, i64, i64)>> = people
        .iter()
        .map(|f| points(f.iter().map(|x| (x.at, x.time)), &resolution))
        .collect();
    let mut visitors: HashMap<(i64, i64), usize> = HashMap::new();
    for t in &traces {
        let mut cells: Vec<(i64, i64)> = t.iter().map(|p| (p.0, p.1)).collect();
        cells.sort_unstable();
        cells.dedup();
        for c in cells {
            *visitors.entry(c).or_default() += 1;
        }
    }
    let mut busiest: Vec<((i64, i64), usize)> = visitors.into_iter().collect();
    // The most visited first; ties by the cell, so the choice does not depend on hashing.
    busiest.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let roi: HashMap<(i64, i64), u32> = busiest
        .iter()
        .take(ROIS)
        .enumerate()
        .map(|(i, (c, _))| (*c, i as u32))
        .collect();
    let epochs = (7.0 * 24.0 / EPOCH_H) as u32;
    let marks = traces
        .iter()
        .map(|t| {
            let mut m: Vec<u32> = t
                .iter()
                .filter_map(|p| roi.get(&(p.0, p.1)).map(|r| r * epochs + p.2 as u32))
                .collect();
            m.sort_unstable();
            m.dedup();
            m
        })
        .collect();
    (marks, ROIS * epochs as usize)
}

/// The AUC of `release`'s game with `train` and `test` aggregates against person `target` of
/// `people`, from `seed`'s draws: the one computation the card and the study share.
pub fn auc(
    people: &[Vec<Fix>],
    target: usize,
    release: &Release,
    (train, test): (usize, usize),
    seed: u64,
) -> Result<f64, String> {
    let (marks, features) = marks(people);
    play(&release.game(train, test), &marks, features, target, seed)
}

/// What the card shows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct YourMembership {
    /// The people in the crowd, you included.
    pub people: usize,
    /// Your marks: the (busy place, epoch) pairs you were in, of `features`.
    pub marks: usize,
    pub features: usize,
    /// The release played against.
    pub release: Release,
    /// Each game's aggregates to train on and released ones scored.
    pub train: usize,
    pub test: usize,
    /// Each game's AUC (seeds `seed` …).
    pub aucs: Vec<f64>,
    /// Their mean and its 95% interval's half-width (Student's t over the games).
    pub auc: f64,
    pub half_width: f64,
}

/// The card's crowd for `target` in `config`'s city on `roads`: the city's check-in people
/// (as many as the lab's users, at least [`CITY_PEOPLE`], as long as its trajectories), the
/// target first in place of the city's first.
pub fn crowd(config: &MobConfig, roads: &RoadNetwork, target: &[Fix]) -> Vec<Vec<Fix>> {
    let length = config.rounds + WINDOW + config.held_out + 1;
    let mut people = traces::population(
        TraceKind::CheckIn,
        roads,
        config.users.max(CITY_PEOPLE),
        length,
        config.seed,
    );
    people[0] = target.to_vec();
    people
}

/// The card for `target`'s trajectory in `config`'s city on `roads`, against `config`'s
/// release: [`CARD_GAMES`] games of [`CARD_TRAIN`] and [`CARD_TEST`] aggregates.
pub fn yours(
    config: &MobConfig,
    roads: &RoadNetwork,
    target: &[Fix],
) -> Result<YourMembership, String> {
    of_crowd(config, &crowd(config, roads, target))
}

/// The card for the first of `people` (the crowd [`crowd`] makes), against `config`'s release.
pub fn of_crowd(config: &MobConfig, people: &[Vec<Fix>]) -> Result<YourMembership, String> {
    let release = config.release;
    release.validate()?;
    let (marks, features) = marks(people);
    let game = release.game(CARD_TRAIN, CARD_TEST);
    let aucs = (0..CARD_GAMES)
        .map(|k| play(&game, &marks, features, 0, config.seed.wrapping_add(k)))
        .collect::<Result<Vec<f64>, String>>()?;
    let estimate = Estimate::of(aucs.iter().copied())
        .ok_or_else(|| "internal: membership without a game".to_string())?;
    Ok(YourMembership {
        people: people.len(),
        marks: marks[0].len(),
        features,
        release,
        train: CARD_TRAIN,
        test: CARD_TEST,
        aucs,
        auc: estimate.mean,
        half_width: estimate.half_width,
    })
}

/// The lab's two cards on the city's crowd, unicity and membership, once `lab`'s run is done
/// (about a second's work, so not before; the studies never ask), from one crowd: the unicity
/// card's is the first as many as the lab's users of it (each person's trajectory is drawn
/// from its own stream, so the first n of a larger crowd are the same n people). `None` while
/// it runs, and for the synthetic bus: a vehicle among people says nothing.
pub fn cards(lab: &MobLab) -> Option<(YourUnicity, Result<YourMembership, String>)> {
    let config = lab.config();
    let bus =
        config.data == TraceKind::Vehicle && matches!(config.target, traces::Target::Synthetic);
    if lab.rounds_done() < config.rounds || bus {
        return None;
    }
    let people = crowd(config, lab.roads(), lab.target());
    let unicity = unicity::of_crowd(config, &people[..config.users.max(2)]);
    Some((unicity, of_crowd(config, &people)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mobility::experiments::city_people;
    use whereabouts_core::geo::Metres;

    fn fix(east: f64, time: f64) -> Fix {
        Fix {
            time,
            at: Metres { east, north: 0.0 },
        }
    }

    fn config(group: usize, epsilon: Option<f64>) -> MobConfig {
        MobConfig {
            release: Release { group, epsilon },
            ..MobConfig::default()
        }
    }

    #[test]
    fn the_busiest_cells_become_the_features() {
        // Cell 0 visited by two people, cell 10 by one.
        let people = vec![vec![fix(10.0, 0.0), fix(5000.0, 0.0)], vec![fix(20.0, 0.0)]];
        let (m, features) = marks(&people);
        assert_eq!(features, ROIS * 28);
        // The busiest cell is ROI 0; both people mark it in the same epoch.
        assert_eq!(m[0][0], m[1][0]);
        assert_eq!(m[0].len(), 2);
    }

    /// The city's first person (a real member of the crowd's world) as the target.
    fn first(c: &MobConfig) -> (RoadNetwork, Vec<Fix>) {
        let roads = traces::streets(c.area, c.seed);
        let length = c.rounds + WINDOW + c.held_out + 1;
        let first = traces::population(TraceKind::CheckIn, &roads, 1, length, c.seed).remove(0);
        (roads, first)
    }

    #[test]
    fn the_card_and_the_command_lines_study_compute_the_same_auc() {
        let c = config(10, Some(10.0));
        let (roads, target) = first(&c);
        let card = yours(&c, &roads, &target).unwrap();
        // The study's people: the city of the same seed, as long as the lab's trajectories.
        let mut people = city_people(CITY_PEOPLE, c.rounds + WINDOW + c.held_out + 1, c.seed);
        people[0] = target;
        for k in 0..CARD_GAMES {
            let study = auc(&people, 0, &c.release, (CARD_TRAIN, CARD_TEST), c.seed + k).unwrap();
            assert_eq!(card.aucs[k as usize], study, "game {k}");
        }
        assert_eq!(card.people, CITY_PEOPLE);
        assert_eq!(card.aucs.len(), CARD_GAMES as usize);
    }

    /// A target never in the busy places adds no mark to any count, but the groups are of m
    /// people either way, so a group with it has one person fewer who could have been there:
    /// the counts still lean. Far less than for a person who marks them, and noise hides it.
    #[test]
    fn a_target_never_in_the_busy_places_is_found_far_less_often() {
        let (roads, first) = first(&MobConfig::default());
        // Far outside the city: none of the busiest cells.
        let far: Vec<Fix> = (0..80)
            .map(|k| fix(1.0e6 + 10.0 * k as f64, 600.0 * k as f64))
            .collect();
        let absent = yours(&config(5, None), &roads, &far).unwrap();
        let present = yours(&config(5, None), &roads, &first).unwrap();
        eprintln!("never there: {absent:?}\nthere: {present:?}");
        assert_eq!(absent.marks, 0);
        assert!(
            absent.auc + absent.half_width < present.auc - present.half_width,
            "{absent:?} vs {present:?}"
        );
        let noised = yours(&config(5, Some(1.0)), &roads, &far).unwrap();
        assert!((noised.auc - 0.5).abs() < 0.1, "{noised:?}");
    }

    #[test]
    fn small_groups_give_a_member_away_and_noise_hides_it() {
        let (roads, target) = first(&MobConfig::default());
        let exact = yours(&config(5, None), &roads, &target).unwrap();
        assert!(exact.marks > 0, "{exact:?}");
        assert!(exact.auc > 0.8, "{exact:?}");
        let mut last = exact.auc;
        for e in [1.0, 0.1] {
            let noised = yours(&config(5, Some(e)), &roads, &target).unwrap();
            assert!(noised.auc < last, "ε = {e}: {noised:?} after {last}");
            last = noised.auc;
        }
        assert!((last - 0.5).abs() < 0.15, "ε = 0.1: {last}");
    }

    #[test]
    fn a_release_out_of_bounds_is_named() {
        let (roads, target) = first(&MobConfig::default());
        let e = yours(&config(1, None), &roads, &target).unwrap_err();
        assert!(e.starts_with("release.group"), "{e}");
        let e = yours(&config(5, Some(0.0)), &roads, &target).unwrap_err();
        assert!(e.starts_with("release.epsilon"), "{e}");
    }

    #[test]
    fn the_unicity_cards_crowd_is_the_first_of_this_one() {
        let c = MobConfig {
            users: 30,
            rounds: 5,
            held_out: 2,
            ..MobConfig::default()
        };
        let (roads, target) = first(&c);
        let people = crowd(&c, &roads, &target);
        assert_eq!(people.len(), CITY_PEOPLE);
        assert_eq!(
            unicity::of_crowd(&c, &people[..30]),
            unicity::yours(&c, &roads, &target)
        );
    }

    /// The card's own work, the crowd made (the unicity card's too, made once for both): its
    /// five games. Bounded in an optimised build, where the page's wasm is made.
    #[test]
    fn the_card_is_quick() {
        let (roads, target) = first(&MobConfig::default());
        let c = config(20, Some(1.0));
        let people = crowd(&c, &roads, &target);
        let started = std::time::Instant::now();
        let card = of_crowd(&c, &people).unwrap();
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        eprintln!("membership card, the crowd made: {ms:.0} ms natively ({card:?})");
        if !cfg!(debug_assertions) {
            assert!(ms < 1000.0, "{ms} ms");
        }
    }
}
