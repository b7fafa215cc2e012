//! The lab's unicity card (issue 40 §2; de Montjoye et al. 2013, [`whereabouts_core::unicity`]):
//! how many of the target's points single it out among the city's people. No federated
//! learning is needed for this leak: anyone who holds the city's traces and a few of your
//! points — a data broker, a leaked table — can pick your trace out of them.
//!
//! The crowd is the city's check-in users (as many as the lab's city, as long as its
//! trajectories), with the target in place of the first of them, as the lab's own federation
//! has it. Points are 250 m cells and the hour of the week, or the cells alone (docs/papers.md
//! §3j).

use super::config::MobConfig;
use super::lstm::WINDOW;
use super::traces::{self, Fix, TraceKind};
use serde::{Deserialize, Serialize};
use whereabouts_core::rng::Stream;
use whereabouts_core::unicity::{Population, Resolution, points};
use whereabouts_core::world::roads::RoadNetwork;

/// The card's cell side, metres.
pub const CELL_M: f64 = 250.0;
/// The largest p shown.
pub const MAX_POINTS: usize = 4;
/// Draws of your p points (the share is known to about ±3.5 points at 95%).
const YOUR_DRAWS: usize = 200;
/// Draws of each other person's p points for the city's ε_p.
const CITY_DRAWS: usize = 10;

/// What the card shows. Each list is for p = 1 … [`MAX_POINTS`]; `None` where the trace has
/// fewer than p distinct points.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct YourUnicity {
    /// The people in the crowd, you included.
    pub people: usize,
    /// The share of draws of p of your points that single you out, cells and the hour of the
    /// week.
    pub timed: Vec<Option<f64>>,
    /// The same with the cells alone (where you go, not when).
    pub places: Vec<Option<f64>>,
    /// The city's ε_p, cells and the hour: the share of its people p of their points single
    /// out, you included.
    pub city_timed: Vec<Option<f64>>,
}

fn shares(population: &Population, who: usize, seed: u64, label: &str) -> Vec<Option<f64>> {
    (1..=MAX_POINTS)
        .map(|p| {
            let mut s = Stream::new(seed, &format!("{label}-{p}"));
            population.singled_out(who, p, YOUR_DRAWS, &mut s)
        })
        .collect()
}

/// The card for `target`'s trajectory in `config`'s city on `roads`.
pub fn yours(config: &MobConfig, roads: &RoadNetwork, target: &[Fix]) -> YourUnicity {
    let length = config.rounds + WINDOW + config.held_out + 1;
    let mut people = traces::population(
        TraceKind::CheckIn,
        roads,
        config.users.max(2),
        length,
        config.seed,
    );
    people[0] = target.to_vec();
    of_crowd(config, &people)
}

/// The card for the first of `people` (the target, among the city's check-in people).
pub fn of_crowd(config: &MobConfig, people: &[Vec<Fix>]) -> YourUnicity {
    let crowd = |resolution: &Resolution| {
        Population::new(
            people
                .iter()
                .map(|fixes| points(fixes.iter().map(|f| (f.at, f.time)), resolution))
                .collect(),
        )
    };
    let timed = crowd(&Resolution {
        cell_m: CELL_M,
        bin_s: Some(3600.0),
    });
    let places = crowd(&Resolution {
        cell_m: CELL_M,
        bin_s: None,
    });
    YourUnicity {
        people: people.len(),
        timed: shares(&timed, 0, config.seed, "your-unicity-timed"),
        places: shares(&places, 0, config.seed, "your-unicity-places"),
        city_timed: (1..=MAX_POINTS)
            .map(|p| timed.unicity(p, CITY_DRAWS, config.seed).epsilon())
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use whereabouts_core::geo::Metres;

    fn at(east: f64, north: f64) -> Metres {
        Metres { east, north }
    }

    #[test]
    fn a_target_far_from_everyone_is_singled_out_by_one_point() {
        let config = MobConfig {
            users: 20,
            ..MobConfig::default()
        };
        let roads = traces::streets(config.area, config.seed);
        // Far outside the city: no one else is ever there.
        let far: Vec<Fix> = (0..40)
            .map(|k| Fix {
                time: 600.0 * k as f64,
                at: at(1.0e6 + 10.0 * k as f64, 1.0e6),
            })
            .collect();
        let u = yours(&config, &roads, &far);
        assert_eq!(u.people, 20);
        assert_eq!(u.timed[0], Some(1.0));
        assert_eq!(u.places[0], Some(1.0));
        assert_eq!(u.city_timed.len(), MAX_POINTS);
    }

    #[test]
    fn a_target_who_is_one_of_the_city_is_not_always_unique_by_place() {
        // The city's first person as the target: its places are the shared world's, some of
        // them others' too (work, the buildings near it), so one place alone does not always
        // single it out, while more points single it out more often.
        let config = MobConfig {
            users: 60,
            ..MobConfig::default()
        };
        let roads = traces::streets(config.area, config.seed);
        let length = config.rounds + WINDOW + config.held_out + 1;
        let first =
            traces::population(TraceKind::CheckIn, &roads, 1, length, config.seed).remove(0);
        let u = yours(&config, &roads, &first);
        let places: Vec<f64> = u.places.iter().map(|s| s.unwrap()).collect();
        assert!(places[0] < 1.0, "{u:?}");
        assert!(places[3] >= places[0], "{u:?}");
        let city: Vec<f64> = u.city_timed.iter().map(|s| s.unwrap()).collect();
        assert!(city.windows(2).all(|w| w[1] >= w[0] - 0.05), "{u:?}");
    }
}
