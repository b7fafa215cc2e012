//! The people of the synthetic world and where they go.
//!
//! The paper's finding rests on the structure of human mobility: people spend most of their
//! time at a few important places (home, work) and repeat daily routines ([000] §2.1, key
//! observation O2; App. A.3). Each user here has a home, a workplace, other buildings near
//! work and a few other places, all at the roadside, and lives a weekday / weekend routine with
//! randomised times, travelling along the streets ([`super::roads`]). The phone logs measurements every
//! `sample_interval_s` seconds while logging is on; logging switches on and off hour by hour (a
//! two-state Markov chain whose on-probability is `logging_duty`), which reproduces the bursty
//! density of crowdsourced data. Recorded positions carry GPS noise; the signal is measured at
//! the true position.

use super::roads::{self, RoadNetwork};
use crate::geo::Metres;
use crate::rng::Stream;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Parameters of the population and its routines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MobilityConfig {
    /// Users with their own trajectories (the attack targets come from these).
    pub users: usize,
    /// Weeks of data.
    pub weeks: u32,
    /// Unix time (s) of the first midnight; a Monday.
    pub start_unix: i64,
    pub sample_interval_s: f64,
    /// Long-run fraction of hours in which the phone logs.
    pub logging_duty: f64,
    pub gps_noise_m: f64,
    /// How far someone strays from a place's exact point during a stay (building size).
    pub stay_wander_m: f64,
    pub speed_mps: f64,
    /// Places besides home and work.
    pub other_places: usize,
    /// Other buildings near work visited on working days (a lecture hall, a meeting room).
    #[serde(default = "default_nearby_places")]
    pub nearby_places: usize,
    /// Sources merged into one extra "background" user (0 = no background user). The metro
    /// preset's background user stands for the many short uploads of a crowdsourced data set
    /// ([000] §4.6, Fig. 16: upload files "contributed by a large number of real users").
    pub background_sources: usize,
    pub background_duty: f64,
}

fn default_nearby_places() -> usize {
    3
}

/// What a place is, for labels on the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlaceKind {
    Home,
    Work,
    Cafe,
    Gym,
    Shop,
    Park,
    Friend,
    /// Another building near work.
    Building,
}

const OTHER_KINDS: [PlaceKind; 5] = [
    PlaceKind::Cafe,
    PlaceKind::Gym,
    PlaceKind::Shop,
    PlaceKind::Park,
    PlaceKind::Friend,
];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Place {
    pub kind: PlaceKind,
    pub position: Metres,
}

/// A piece of someone's timeline, in unix seconds.
#[derive(Clone, Debug, PartialEq)]
pub enum Segment {
    Stay {
        at: Metres,
        start: f64,
        end: f64,
    },
    /// Travel along the streets: `path` from where they were to where they go, at an even pace.
    Move {
        path: Vec<Metres>,
        start: f64,
        end: f64,
    },
}

impl Segment {
    pub fn start(&self) -> f64 {
        match self {
            Segment::Stay { start, .. } | Segment::Move { start, .. } => *start,
        }
    }

    pub fn end(&self) -> f64 {
        match self {
            Segment::Stay { end, .. } | Segment::Move { end, .. } => *end,
        }
    }

    /// The true position at time `t` within the segment.
    pub fn position(&self, t: f64) -> Metres {
        match self {
            Segment::Stay { at, .. } => *at,
            Segment::Move { path, start, end } => {
                let f = ((t - start) / (end - start).max(1e-9)).clamp(0.0, 1.0);
                roads::point_along(path, f * roads::length(path))
            }
        }
    }
}

/// A point within `radius` of `centre` (uniform over the disc).
fn around(centre: Metres, radius: f64, s: &mut Stream) -> Metres {
    let r = radius * s.uniform().sqrt();
    let a = s.range(0.0, std::f64::consts::TAU);
    Metres::new(centre.east + r * a.cos(), centre.north + r * a.sin())
}

/// How far from work the other buildings of a working day are (at most), metres.
const NEARBY_RADIUS_M: f64 = 400.0;

/// Picks home, work, the other places and the buildings near work inside the area (90% of it),
/// each at the roadside (the nearest point on a street), with home and work at least a third
/// of the area's half-diagonal apart.
pub fn pick_places(cfg: &MobilityConfig, roads: &RoadNetwork, s: &mut Stream) -> Vec<Place> {
    let (half_w, half_h) = roads.half_extent();
    let point =
        |s: &mut Stream| Metres::new(s.range(-0.9, 0.9) * half_w, s.range(-0.9, 0.9) * half_h);
    let home = point(s);
    let min_apart = libm::hypot(half_w, half_h) / 3.0;
    let mut work = point(s);
    for _ in 0..100 {
        if work.distance(&home) >= min_apart {
            break;
        }
        work = point(s);
    }
    let mut places = vec![(PlaceKind::Home, home), (PlaceKind::Work, work)];
    for i in 0..cfg.other_places {
        places.push((OTHER_KINDS[i % OTHER_KINDS.len()], point(s)));
    }
    let radius = NEARBY_RADIUS_M.min(libm::hypot(half_w, half_h) / 4.0);
    for _ in 0..cfg.nearby_places {
        places.push((PlaceKind::Building, around(work, radius, s)));
    }
    places
        .into_iter()
        .map(|(kind, p)| Place {
            kind,
            position: roads.snap(p).position,
        })
        .collect()
}

/// Builds a timeline by walking a cursor through the days.
struct Timeline<'a> {
    segments: Vec<Segment>,
    now: f64,
    here: Metres,
    speed: f64,
    wander: f64,
    roads: &'a RoadNetwork,
    /// Routes already found, by (from, to) junction: people go the same ways again and again.
    routes: HashMap<(usize, usize), Vec<usize>>,
    s: &'a mut Stream,
}

impl Timeline<'_> {
    /// Stays at the current place until `t` (no-op if `t` has passed).
    fn stay_until(&mut self, t: f64) {
        if t > self.now {
            self.segments.push(Segment::Stay {
                at: self.here,
                start: self.now,
                end: t,
            });
            self.now = t;
        }
    }

    /// Travels along the streets to `place` (arriving at a spot within the place's wander
    /// radius), by the quickest route between the junctions nearest the two ends.
    fn go(&mut self, place: Metres) {
        let to = Metres::new(
            place.east + self.s.gaussian(0.0, self.wander),
            place.north + self.s.gaussian(0.0, self.wander),
        );
        let (ja, jb) = (
            self.roads.nearest_junction(self.here),
            self.roads.nearest_junction(to),
        );
        let roads = self.roads;
        let route = self
            .routes
            .entry((ja, jb))
            .or_insert_with(|| roads.route(ja, jb));
        let mut path = Vec::with_capacity(route.len() + 2);
        path.push(self.here);
        path.extend(route.iter().map(|&k| roads.junctions[k]));
        path.push(to);
        let duration = roads::length(&path) / self.speed;
        self.segments.push(Segment::Move {
            path,
            start: self.now,
            end: self.now + duration,
        });
        self.now += duration;
        self.here = to;
    }

    /// Goes to `place` and stays between `hours_min` and `hours_max` hours.
    fn visit(&mut self, place: Metres, hours_min: f64, hours_max: f64) {
        self.go(place);
        let until = self.now + self.s.range(hours_min, hours_max) * HOUR;
        self.stay_until(until);
    }

    fn pick(&mut self, places: &[Metres]) -> Option<Metres> {
        (!places.is_empty()).then(|| places[self.s.below(places.len() as u64) as usize])
    }
}

const HOUR: f64 = 3600.0;
const DAY: f64 = 24.0 * HOUR;

/// The routine over `cfg.weeks` weeks for someone with these places. A working day: to work in
/// the morning; a few visits to other buildings near work (a lecture, a meeting) and perhaps
/// lunch out, back to work after each; errands on the way home. A weekend day: an outing of one
/// to three places, perhaps one in the evening. Every journey follows the streets.
pub fn timeline(
    cfg: &MobilityConfig,
    places: &[Place],
    roads: &RoadNetwork,
    s: &mut Stream,
) -> Vec<Segment> {
    let of = |kinds: &[PlaceKind]| -> Vec<Metres> {
        places
            .iter()
            .filter(|p| kinds.contains(&p.kind))
            .map(|p| p.position)
            .collect()
    };
    let home = of(&[PlaceKind::Home])[0];
    let work = of(&[PlaceKind::Work])[0];
    let others = of(&OTHER_KINDS);
    let nearby = of(&[PlaceKind::Building]);
    let lunch_spots: Vec<Metres> = others.iter().chain(&nearby).copied().collect();
    let start = cfg.start_unix as f64;
    let mut tl = Timeline {
        segments: Vec::new(),
        now: start,
        here: home,
        speed: cfg.speed_mps,
        wander: cfg.stay_wander_m,
        roads,
        routes: HashMap::new(),
        s,
    };
    let days = cfg.weeks as usize * 7;
    for day in 0..days {
        let midnight = start + day as f64 * DAY;
        let at = |hours: f64| midnight + hours * HOUR;
        if day % 7 < 5 {
            let leave = tl.s.gaussian(8.3, 0.5).clamp(6.0, 11.0);
            tl.stay_until(at(leave));
            tl.go(work);
            let home_time = tl.s.gaussian(17.5, 0.7).clamp(15.0, 21.0);
            // The day's other buildings and lunch, in time order.
            let mut outings: Vec<(f64, Option<Metres>, f64, f64)> = Vec::new();
            let visits = tl.s.below(4);
            for _ in 0..visits {
                let when = tl.s.range(leave + 0.5, (home_time - 1.0).max(leave + 0.6));
                let place = tl.pick(&nearby);
                outings.push((when, place, 0.3, 1.2));
            }
            if tl.s.chance(0.5) {
                let lunch = tl.s.gaussian(12.2, 0.3).clamp(11.0, 14.0);
                let place = tl.pick(&lunch_spots);
                outings.push((lunch, place, 0.5, 1.0));
            }
            outings.sort_by(|a, b| a.0.total_cmp(&b.0));
            for (when, place, lo, hi) in outings {
                if let Some(place) = place {
                    tl.stay_until(at(when));
                    tl.visit(place, lo, hi);
                    tl.go(work);
                }
            }
            tl.stay_until(at(home_time));
            let errands = match tl.s.uniform() {
                u if u < 0.4 => 0,
                u if u < 0.8 => 1,
                _ => 2,
            };
            for _ in 0..errands {
                if let Some(place) = tl.pick(&others) {
                    tl.visit(place, 0.3, 1.5);
                }
            }
            tl.go(home);
        } else {
            if tl.s.chance(0.7) {
                let out = tl.s.range(10.0, 15.0);
                tl.stay_until(at(out));
                let stops = 1 + tl.s.below(3);
                for _ in 0..stops {
                    if let Some(place) = tl.pick(&others) {
                        tl.visit(place, 0.5, 2.5);
                    }
                }
                tl.go(home);
            }
            if tl.s.chance(0.3) {
                let out = tl.s.range(18.0, 20.0);
                tl.stay_until(at(out));
                if let Some(place) = tl.pick(&others) {
                    tl.visit(place, 1.0, 2.5);
                }
                tl.go(home);
            }
        }
    }
    tl.stay_until(start + days as f64 * DAY);
    tl.segments
}

/// Samples the timeline as the phone would log it: times and noisy recorded positions, with
/// the true position alongside (the signal is measured where the phone really is).
pub fn sample(
    cfg: &MobilityConfig,
    segments: &[Segment],
    duty: f64,
    s: &mut Stream,
) -> Vec<(f64, Metres, Metres)> {
    let start = cfg.start_unix as f64;
    let end = start + cfg.weeks as f64 * 7.0 * DAY;
    // Hour-level on/off chain with stationary on-probability `duty`: P(off→on) = p_on and
    // P(on→off) = 1/2 give π_on = p_on / (p_on + 1/2).
    let duty = duty.clamp(1e-6, 1.0);
    let p_off = if duty >= 1.0 { 0.0 } else { 0.5 };
    let p_on = if duty >= 1.0 {
        1.0
    } else {
        (duty * 0.5 / (1.0 - duty)).min(1.0)
    };
    let mut logging = s.chance(duty);
    let mut hour_end = start + HOUR;
    let mut out = Vec::new();
    let mut seg = 0;
    let mut t = start + s.range(0.0, cfg.sample_interval_s);
    while t < end {
        while t >= hour_end {
            logging = if logging {
                !s.chance(p_off)
            } else {
                s.chance(p_on)
            };
            hour_end += HOUR;
        }
        if logging {
            while seg + 1 < segments.len() && segments[seg].end() <= t {
                seg += 1;
            }
            let truth = segments[seg].position(t);
            let recorded = Metres::new(
                truth.east + s.gaussian(0.0, cfg.gps_noise_m),
                truth.north + s.gaussian(0.0, cfg.gps_noise_m),
            );
            out.push((t, truth, recorded));
        }
        t += cfg.sample_interval_s * s.range(0.9, 1.1);
    }
    out
}
