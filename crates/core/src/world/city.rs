//! A synthetic city of many residents, for labs that need a whole population at one moment (the
//! Density lab's N = 1,000–20,000 people) rather than a few people's weeks.
//!
//! The city is a handful of clusters: residential neighbourhoods (where people live), business
//! districts (where most of them work) and a few hot spots (a station, a market, a stadium…).
//! Each resident is made from their own seeded stream (`resident-<index>`), so a resident is the
//! same whatever the population size, and where they are depends on the moment of the day the
//! question is asked: at night at home, by day at work (or at home, or out), in the evening at
//! home or at a hot spot. The papers name no dataset for this ([003] gives none); the shares
//! below are this project's choices, documented in `docs/papers.md`.

use crate::geo::Metres;
use crate::rng::Stream;
use serde::{Deserialize, Serialize};

/// One cluster of places: a centre and how far around it places spread (a 2-D Gaussian).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    pub centre: Metres,
    /// Standard deviation of a place around the centre, metres (per axis).
    pub spread_m: f64,
    /// Relative share of the places drawn from this cluster.
    pub weight: f64,
}

/// The city's shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct City {
    /// Half-width and half-height of the area, metres (the city spans ±these around 0).
    pub half_w: f64,
    pub half_h: f64,
    pub neighbourhoods: Vec<Cluster>,
    pub districts: Vec<Cluster>,
    pub hot_spots: Vec<Cluster>,
}

/// When the question is asked: who is where depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Moment {
    /// Everyone at home.
    Night,
    /// Working hours: most at work, the rest at home or out.
    Day,
    /// Some out at a hot spot, most at home.
    Evening,
}

crate::choices!(Moment, "a moment", {
    Moment::Night => "night", "Night: at home";
    Moment::Day => "day", "Day: at work";
    Moment::Evening => "evening", "Evening: out";
});

impl Moment {
    pub const ALL: [Moment; 3] = [Moment::Night, Moment::Day, Moment::Evening];

    pub fn name(self) -> &'static str {
        match self {
            Moment::Night => "night",
            Moment::Day => "day",
            Moment::Evening => "evening",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// Share of residents with a workplace in a business district.
pub const EMPLOYED: f64 = 0.7;
/// Share of those without work who are out at a hot spot by day (the rest stay home).
pub const OUT_BY_DAY: f64 = 0.5;
/// Share of residents out at a hot spot in the evening.
pub const OUT_IN_THE_EVENING: f64 = 0.35;

/// One resident: their places and what they do at each moment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resident {
    pub home: Metres,
    pub work: Option<Metres>,
    /// The hot-spot place they go out to.
    pub haunt: Metres,
    /// Out by day (if not at work) / out in the evening.
    out_by_day: bool,
    out_in_the_evening: bool,
}

impl Resident {
    /// Where the resident is at `moment`.
    pub fn at(&self, moment: Moment) -> Metres {
        match moment {
            Moment::Night => self.home,
            Moment::Day => match self.work {
                Some(w) => w,
                None if self.out_by_day => self.haunt,
                None => self.home,
            },
            Moment::Evening if self.out_in_the_evening => self.haunt,
            Moment::Evening => self.home,
        }
    }
}

impl City {
    /// A city in ±`half_w` × ±`half_h` metres: 6 neighbourhoods, 2 business districts and 4
    /// hot spots, drawn from `seed`. Spreads scale with the area (on an 8 km square a
    /// neighbourhood spreads 300–700 m, a district 200–400 m, a hot spot 60–150 m).
    pub fn generate(half_w: f64, half_h: f64, seed: u64) -> City {
        let mut s = Stream::new(seed, "city");
        let scale = half_w.min(half_h) / 4000.0;
        let clusters = |n: usize, spread: (f64, f64), s: &mut Stream| -> Vec<Cluster> {
            (0..n)
                .map(|_| Cluster {
                    centre: Metres::new(
                        s.range(-0.75, 0.75) * half_w,
                        s.range(-0.75, 0.75) * half_h,
                    ),
                    spread_m: s.range(spread.0, spread.1) * scale,
                    weight: s.range(0.5, 1.5),
                })
                .collect()
        };
        let neighbourhoods = clusters(6, (300.0, 700.0), &mut s);
        let districts = clusters(2, (200.0, 400.0), &mut s);
        let hot_spots = clusters(4, (60.0, 150.0), &mut s);
        City {
            half_w,
            half_h,
            neighbourhoods,
            districts,
            hot_spots,
        }
    }

    /// Resident number `index` (their own stream: the same resident in every population size).
    pub fn resident(&self, seed: u64, index: usize) -> Resident {
        let mut s = Stream::new(seed, &format!("resident-{index}"));
        let home = self.place(&self.neighbourhoods, &mut s);
        let work = s
            .chance(EMPLOYED)
            .then(|| self.place(&self.districts, &mut s));
        let haunt = self.place(&self.hot_spots, &mut s);
        Resident {
            home,
            work,
            haunt,
            out_by_day: s.chance(OUT_BY_DAY),
            out_in_the_evening: s.chance(OUT_IN_THE_EVENING),
        }
    }

    /// A place drawn from one of `clusters` (by weight), kept inside the area.
    fn place(&self, clusters: &[Cluster], s: &mut Stream) -> Metres {
        let total: f64 = clusters.iter().map(|c| c.weight).sum();
        let mut pick = s.uniform() * total;
        let cluster = clusters
            .iter()
            .find(|c| {
                pick -= c.weight;
                pick < 0.0
            })
            .unwrap_or(&clusters[clusters.len() - 1]);
        let (w, h) = (0.98 * self.half_w, 0.98 * self.half_h);
        Metres::new(
            s.gaussian(cluster.centre.east, cluster.spread_m)
                .clamp(-w, w),
            s.gaussian(cluster.centre.north, cluster.spread_m)
                .clamp(-h, h),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn residents_are_reproducible_live_in_the_area_and_follow_the_moment() {
        let city = City::generate(4000.0, 4000.0, 7);
        assert_eq!(city, City::generate(4000.0, 4000.0, 7));
        let people: Vec<Resident> = (0..2000).map(|i| city.resident(7, i)).collect();
        assert_eq!(people[123], city.resident(7, 123));
        for p in &people {
            for m in Moment::ALL {
                let at = p.at(m);
                assert!(at.east.abs() <= 4000.0 && at.north.abs() <= 4000.0);
            }
            assert_eq!(p.at(Moment::Night), p.home);
        }
        let share = |f: &dyn Fn(&Resident) -> bool| {
            people.iter().filter(|p| f(p)).count() as f64 / people.len() as f64
        };
        let employed = share(&|p| p.work.is_some());
        assert!((employed - EMPLOYED).abs() < 0.04, "{employed}");
        let out = share(&|p| p.at(Moment::Evening) == p.haunt);
        assert!((out - OUT_IN_THE_EVENING).abs() < 0.04, "{out}");
    }

    #[test]
    fn people_cluster_in_neighbourhoods() {
        // Homes lie far closer to a neighbourhood centre than uniform points would.
        let city = City::generate(4000.0, 4000.0, 3);
        let mut s = Stream::new(3, "uniform");
        let nearest = |p: Metres| {
            city.neighbourhoods
                .iter()
                .map(|c| c.centre.distance(&p))
                .fold(f64::INFINITY, f64::min)
        };
        let homes: f64 = (0..1000)
            .map(|i| nearest(city.resident(3, i).home))
            .sum::<f64>();
        let uniform: f64 = (0..1000)
            .map(|_| nearest(Metres::new(s.range(-4e3, 4e3), s.range(-4e3, 4e3))))
            .sum::<f64>();
        assert!(homes < 0.5 * uniform, "{homes} vs {uniform}");
    }
}
