//! The people of the synthetic world and where they go.
//!
//! The paper's finding rests on the structure of human mobility: people spend most of their
//! time at a few important places (home, work) and repeat daily routines ([000] §2.1, key
//! observation O2; App. A.3). Each user here has a home, a workplace and a few other places,
//! and lives a weekday / weekend routine with randomised times. The phone logs measurements every
//! `sample_interval_s` seconds while logging is on; logging switches on and off hour by hour (a
//! two-state Markov chain whose on-probability is `logging_duty`), which reproduces the bursty
//! density of crowdsourced data. Recorded positions carry GPS noise; the signal is measured at
//! the true position.

use crate::geo::Metres;
use crate::rng::Stream;
use serde::{Deserialize, Serialize};

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
    /// Sources merged into one extra "background" user (0 = no background user). The metro
    /// preset's background user stands for the many short uploads of a crowdsourced data set
    /// ([000] §4.6, Fig. 16: upload files "contributed by a large number of real users").
    pub background_sources: usize,
    pub background_duty: f64,
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
    Move {
        from: Metres,
        via: Metres,
        to: Metres,
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
        match *self {
            Segment::Stay { at, .. } => at,
            Segment::Move {
                from,
                via,
                to,
                start,
                end,
            } => {
                let f = ((t - start) / (end - start).max(1e-9)).clamp(0.0, 1.0);
                let (a, b) = (from.distance(&via), via.distance(&to));
                let along = f * (a + b);
                if along <= a {
                    lerp(from, via, along / a.max(1e-9))
                } else {
                    lerp(via, to, (along - a) / b.max(1e-9))
                }
            }
        }
    }
}

fn lerp(a: Metres, b: Metres, f: f64) -> Metres {
    Metres::new(
        a.east + (b.east - a.east) * f,
        a.north + (b.north - a.north) * f,
    )
}

/// Picks home, work and other places inside the area (±`half_w`, ±`half_h`, 90% of it), with
/// home and work at least a third of the area's half-diagonal apart.
pub fn pick_places(cfg: &MobilityConfig, half_w: f64, half_h: f64, s: &mut Stream) -> Vec<Place> {
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
    let mut places = vec![
        Place {
            kind: PlaceKind::Home,
            position: home,
        },
        Place {
            kind: PlaceKind::Work,
            position: work,
        },
    ];
    for i in 0..cfg.other_places {
        places.push(Place {
            kind: OTHER_KINDS[i % OTHER_KINDS.len()],
            position: point(s),
        });
    }
    places
}

/// Builds a timeline by walking a cursor through the days.
struct Timeline<'a> {
    segments: Vec<Segment>,
    now: f64,
    here: Metres,
    speed: f64,
    wander: f64,
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

    /// Travels to `place` (arriving at a spot within the place's wander radius).
    fn go(&mut self, place: Metres) {
        let to = Metres::new(
            place.east + self.s.gaussian(0.0, self.wander),
            place.north + self.s.gaussian(0.0, self.wander),
        );
        let d = self.here.distance(&to);
        // Streets are not straight lines: bend the path through a point off the midpoint.
        let bend = self.s.gaussian(0.0, 0.15) * d;
        let (dx, dy) = (
            (to.east - self.here.east) / d.max(1e-9),
            (to.north - self.here.north) / d.max(1e-9),
        );
        let via = Metres::new(
            (self.here.east + to.east) / 2.0 - dy * bend,
            (self.here.north + to.north) / 2.0 + dx * bend,
        );
        let duration = (self.here.distance(&via) + via.distance(&to)) / self.speed;
        self.segments.push(Segment::Move {
            from: self.here,
            via,
            to,
            start: self.now,
            end: self.now + duration,
        });
        self.now += duration;
        self.here = to;
    }
}

const HOUR: f64 = 3600.0;
const DAY: f64 = 24.0 * HOUR;

/// The routine over `cfg.weeks` weeks for someone with these places.
pub fn timeline(cfg: &MobilityConfig, places: &[Place], s: &mut Stream) -> Vec<Segment> {
    let home = places[0].position;
    let work = places[1].position;
    let others: Vec<Metres> = places[2..].iter().map(|p| p.position).collect();
    let start = cfg.start_unix as f64;
    let mut tl = Timeline {
        segments: Vec::new(),
        now: start,
        here: home,
        speed: cfg.speed_mps,
        wander: cfg.stay_wander_m,
        s,
    };
    let days = cfg.weeks as usize * 7;
    for day in 0..days {
        let midnight = start + day as f64 * DAY;
        let weekday = day % 7 < 5;
        let errand = |tl: &mut Timeline, hours_min: f64, hours_max: f64| {
            if others.is_empty() {
                return;
            }
            let place = others[tl.s.below(others.len() as u64) as usize];
            tl.go(place);
            let stay = tl.s.range(hours_min, hours_max) * HOUR;
            let until = tl.now + stay;
            tl.stay_until(until);
        };
        if weekday {
            let leave = tl.s.gaussian(8.3, 0.5).clamp(6.0, 11.0);
            tl.stay_until(midnight + leave * HOUR);
            tl.go(work);
            if tl.s.chance(0.3) {
                let lunch = tl.s.gaussian(12.2, 0.3).clamp(11.0, 14.0);
                tl.stay_until(midnight + lunch * HOUR);
                errand(&mut tl, 0.5, 1.0);
                tl.go(work);
            }
            let home_time = tl.s.gaussian(17.5, 0.7).clamp(15.0, 21.0);
            tl.stay_until(midnight + home_time * HOUR);
            if tl.s.chance(0.35) {
                errand(&mut tl, 1.0, 2.0);
            }
            tl.go(home);
        } else {
            if tl.s.chance(0.6) {
                let out = tl.s.range(10.0, 15.0);
                tl.stay_until(midnight + out * HOUR);
                errand(&mut tl, 1.5, 4.0);
                tl.go(home);
            }
            if tl.s.chance(0.3) {
                let out = tl.s.range(18.0, 20.0);
                tl.stay_until(midnight + out * HOUR);
                errand(&mut tl, 1.0, 2.5);
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
