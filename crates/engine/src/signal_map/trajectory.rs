//! A trajectory drawn by the visitor, turned into the measurements their phone would log.
//!
//! The visitor's path is a list of waypoints on the local plane. Every leg (waypoint to the next)
//! takes the same time, `leg_minutes`: a waypoint is "where I was at hour k", and two equal
//! consecutive waypoints are a stay. Equal-time legs keep edits local — moving one waypoint
//! changes only its two legs, hence only the rounds those legs fall in — which is what lets the
//! lab recompute just the affected rounds while a waypoint is dragged.
//!
//! The phone logs a GPS fix every `sample_minutes` on a fixed clock starting at the world's first
//! midnight, at the position interpolated along the current leg, plus the world's GPS noise; the
//! RSRP is the world's signal field of the learned cell at the true position plus fast fading
//! (`world::radio`). Each leg draws its noise from its own seeded stream, so editing one leg
//! leaves every other leg's measurements bit-identical.
//!
//! The papers have no drawn trajectories: this is the playground's way of letting the visitor be
//! the target user of [000] §3.1 (whose D_t^k are cut from these measurements by round); see
//! docs/papers.md.

use crate::signal_map::limits;
use crate::signal_map::world::{Measurement, World, radio};
use serde::{Deserialize, Serialize};
use whereabouts_core::error::ConfigError;
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;

/// At most this many waypoints (a freehand drag adds one every few pixels).
pub const MAX_WAYPOINTS: usize = 2000;
/// At most this many measurements from one trajectory.
pub const MAX_FIXES: usize = 200_000;

/// The time per leg of the ready-made paths and the lab's default, minutes.
pub const DEFAULT_LEG_MINUTES: f64 = 180.0;
/// The time between GPS fixes of the ready-made paths and the lab's default, minutes.
pub const DEFAULT_FIX_MINUTES: f64 = 10.0;

/// A drawn path and how it is walked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trajectory {
    /// Plane positions (metres east/north of the world's origin), in visiting order.
    pub waypoints: Vec<Metres>,
    /// Time from one waypoint to the next, minutes.
    pub leg_minutes: f64,
    /// Time between GPS fixes, minutes.
    pub sample_minutes: f64,
}

/// Ready-made trajectories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrajectoryPreset {
    /// The lab's default: five days among five places — work (then home, or the gym on the
    /// way), a day off at the park and the shops. Few places and few distinct legs, so the
    /// map stays legible while each round's centroid still differs.
    Week,
    /// Five weekdays: home at night, work 9 to 6, lunch and the evening somewhere different
    /// each day.
    Commute,
    /// Two days out and about: a park, the shops, a friend's place, home at night.
    Weekend,
    /// A week that never leaves the block.
    StayAtHome,
}

impl TrajectoryPreset {
    pub const ALL: [TrajectoryPreset; 4] =
        [Self::Week, Self::Commute, Self::Weekend, Self::StayAtHome];

    pub fn name(self) -> &'static str {
        match self {
            Self::Week => "week",
            Self::Commute => "commute",
            Self::Weekend => "weekend",
            Self::StayAtHome => "stay_at_home",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Week => "Simple week (5 days)",
            Self::Commute => "Commute (5 weekdays)",
            Self::Weekend => "Weekend out (2 days)",
            Self::StayAtHome => "Stay-at-home week",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The preset in an area of half-size (`half_w`, `half_h`) metres, with 3-hour legs and a
    /// fix every 10 minutes. Places sit at fixed fractions of the area.
    pub fn trajectory(self, half_w: f64, half_h: f64) -> Trajectory {
        let at = |fe: f64, fn_: f64| Metres::new(fe * half_w, fn_ * half_h);
        let home = at(-0.55, -0.45);
        let corner = at(-0.05, -0.40);
        let work = at(0.50, 0.40);
        let park = at(-0.45, 0.45);
        let shops = at(0.15, -0.10);
        let friend = at(0.60, -0.55);
        // Legs of 3 h: the k-th waypoint of a day is where one is at 0, 3, 6, …, 21 h.
        let waypoints = match self {
            Self::Week => {
                let gym = at(-0.20, 0.10);
                let days = [
                    [home, home, home, work, work, work, home, home],
                    [home, home, home, work, work, gym, home, home],
                    [home, home, home, park, park, shops, home, home],
                    [home, home, home, work, work, work, home, home],
                    [home, home, home, work, work, shops, home, home],
                ];
                let mut w: Vec<Metres> = days.concat();
                w.push(home);
                w
            }
            Self::Commute => {
                let cafe = at(0.30, 0.55);
                let gym = at(-0.20, 0.10);
                let lunch = [cafe, work, shops, cafe, park];
                let evening = [gym, shops, corner, friend, park];
                let mut w: Vec<Metres> = (0..5)
                    .flat_map(|d| [home, home, home, work, lunch[d], work, evening[d], home])
                    .collect();
                w.push(home);
                w
            }
            Self::Weekend => {
                let mut w = vec![home, home, home, park, park, shops, shops, home];
                w.extend([home, home, home, shops, friend, friend, corner, home, home]);
                w
            }
            Self::StayAtHome => {
                // Round the block now and then; the offsets are fixed so the preset is exact.
                let offsets = [
                    (0.0, 0.0),
                    (0.0, 0.0),
                    (0.0, 0.0),
                    (40.0, 10.0),
                    (0.0, 0.0),
                    (-30.0, 35.0),
                    (0.0, 0.0),
                    (0.0, 0.0),
                ];
                let mut w: Vec<Metres> = (0..7 * 8)
                    .map(|k| {
                        let (e, n) = offsets[k % 8];
                        Metres::new(home.east + e, home.north + n)
                    })
                    .collect();
                w.push(home);
                w
            }
        };
        Trajectory {
            waypoints,
            leg_minutes: DEFAULT_LEG_MINUTES,
            sample_minutes: DEFAULT_FIX_MINUTES,
        }
    }
}

impl Trajectory {
    /// Refuses absurd trajectories with a message naming the field. Waypoints must lie in the
    /// area of interest (the attack's divergence test is "left the area").
    pub fn validate(&self, area: (Metres, Metres)) -> Result<(), ConfigError> {
        if self.waypoints.is_empty() {
            return Err(ConfigError::new(
                "trajectory.waypoints",
                "is empty: draw at least one point",
            ));
        }
        if self.waypoints.len() > MAX_WAYPOINTS {
            return Err(ConfigError::new(
                "trajectory.waypoints",
                format!(
                    "has {} points; the limit is {MAX_WAYPOINTS}",
                    self.waypoints.len()
                ),
            ));
        }
        let (lo, hi) = area;
        if let Some((i, p)) = self.waypoints.iter().enumerate().find(|(_, p)| {
            !(p.east.is_finite()
                && p.north.is_finite()
                && p.east >= lo.east
                && p.east <= hi.east
                && p.north >= lo.north
                && p.north <= hi.north)
        }) {
            return Err(ConfigError::new(
                "trajectory.waypoints",
                format!(
                    "point {} ({:.0} m E, {:.0} m N) is outside the area of interest",
                    i + 1,
                    p.east,
                    p.north
                ),
            ));
        }
        limits::LEG_MINUTES.check("trajectory.leg_minutes", self.leg_minutes)?;
        limits::FIX_MINUTES.check("trajectory.sample_minutes", self.sample_minutes)?;
        if self.sample_minutes > self.leg_minutes {
            return Err(ConfigError::new(
                "trajectory.sample_minutes",
                "must not exceed the minutes per leg",
            ));
        }
        let fixes = self.duration_s() / (self.sample_minutes * 60.0);
        if fixes > MAX_FIXES as f64 {
            return Err(ConfigError::new(
                "trajectory",
                format!("would log about {fixes:.0} fixes; the limit is {MAX_FIXES}"),
            ));
        }
        Ok(())
    }

    /// How long the walk lasts: one leg per pair of waypoints (a single waypoint is one leg's
    /// stay).
    pub fn duration_s(&self) -> f64 {
        self.waypoints.len().saturating_sub(1).max(1) as f64 * self.leg_minutes * 60.0
    }

    /// Leg `k` runs from waypoint k to k + 1 (a lone waypoint stays put).
    fn leg(&self, k: usize) -> (Metres, Metres) {
        let a = self.waypoints[k.min(self.waypoints.len() - 1)];
        let b = self.waypoints[(k + 1).min(self.waypoints.len() - 1)];
        (a, b)
    }

    /// Path length in metres.
    pub fn length_m(&self) -> f64 {
        self.waypoints
            .windows(2)
            .map(|w| w[0].distance(&w[1]))
            .sum()
    }

    /// The true positions and times of every fix: (unix time, position, leg).
    pub fn fixes(&self, start_unix: f64) -> Vec<(f64, Metres, usize)> {
        let leg_s = self.leg_minutes * 60.0;
        let dt = self.sample_minutes * 60.0;
        let legs = self.waypoints.len().saturating_sub(1).max(1);
        let total = self.duration_s();
        let mut out = Vec::new();
        let mut j = 0usize;
        loop {
            let elapsed = j as f64 * dt;
            if elapsed >= total {
                break;
            }
            let k = ((elapsed / leg_s) as usize).min(legs - 1);
            let f = (elapsed - k as f64 * leg_s) / leg_s;
            let (a, b) = self.leg(k);
            let p = Metres::new(
                a.east + f * (b.east - a.east),
                a.north + f * (b.north - a.north),
            );
            out.push((start_unix + elapsed, p, k));
            j += 1;
        }
        out
    }

    /// The phone's log for `user` in `world`: recorded (noisy) positions as lat/lon and the
    /// learned cell's RSRP at the true positions, with noise from per-leg streams of `seed`.
    pub fn measurements(&self, world: &World, user: u32, seed: u64) -> Vec<Measurement> {
        (0..self.legs())
            .flat_map(|k| self.leg_measurements(world, user, seed, k))
            .collect()
    }

    /// Number of legs (a lone waypoint is one leg's stay).
    pub fn legs(&self) -> usize {
        self.waypoints.len().saturating_sub(1).max(1)
    }

    /// The end points of leg `k` and its timing: what its measurements depend on.
    pub fn leg_key(&self, k: usize) -> (Metres, Metres, f64, f64) {
        let (a, b) = self.leg(k);
        (a, b, self.leg_minutes, self.sample_minutes)
    }

    /// The measurements of leg `k` alone ([`measurements`](Self::measurements) is their
    /// concatenation): the fixes of the global clock that fall in the leg.
    pub fn leg_measurements(
        &self,
        world: &World,
        user: u32,
        seed: u64,
        k: usize,
    ) -> Vec<Measurement> {
        let cell = world.cell();
        let gps = world.config.mobility.gps_noise_m;
        let fading = world.config.radio.fading_sd_db;
        let start = world.config.mobility.start_unix as f64;
        let leg_s = self.leg_minutes * 60.0;
        let dt = self.sample_minutes * 60.0;
        let (a, b) = self.leg(k);
        let mut s = Stream::new(seed, &format!("trajectory-leg-{k}"));
        let first = (k as f64 * leg_s / dt).ceil() as usize;
        let mut out = Vec::new();
        for j in first.. {
            let elapsed = j as f64 * dt;
            if elapsed >= (k + 1) as f64 * leg_s {
                break;
            }
            let f = (elapsed - k as f64 * leg_s) / leg_s;
            let truth = Metres::new(
                a.east + f * (b.east - a.east),
                a.north + f * (b.north - a.north),
            );
            let recorded = Metres::new(
                truth.east + s.gaussian(0.0, gps),
                truth.north + s.gaussian(0.0, gps),
            );
            let ll = world.projection.to_latlon(recorded);
            out.push(Measurement {
                user,
                time: start + elapsed,
                lat: ll.lat,
                lon: ll.lon,
                rsrp_dbm: (cell.rsrp_dbm(truth) + s.gaussian(0.0, fading))
                    .clamp(radio::RSRP_MIN_DBM, radio::RSRP_MAX_DBM),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal_map::world::Preset;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn world() -> World {
        let mut c = Preset::Campus.config(3);
        c.mobility.users = 1;
        c.mobility.weeks = 1;
        World::generate(&c).unwrap()
    }

    #[test]
    fn fixes_follow_equal_time_legs() {
        let t = Trajectory {
            waypoints: vec![
                Metres::new(0.0, 0.0),
                Metres::new(600.0, 0.0),
                Metres::new(600.0, 300.0),
            ],
            leg_minutes: 60.0,
            sample_minutes: 15.0,
        };
        let f = t.fixes(1000.0);
        // Two one-hour legs, a fix every 15 minutes: 8 fixes.
        assert_eq!(f.len(), 8);
        assert_eq!(f[0], (1000.0, Metres::new(0.0, 0.0), 0));
        assert_eq!(f[2].1, Metres::new(300.0, 0.0));
        assert_eq!(f[4], (1000.0 + 3600.0, Metres::new(600.0, 0.0), 1));
        assert_eq!(f[6].1, Metres::new(600.0, 150.0));
        assert_eq!(t.length_m(), 900.0);
    }

    #[test]
    fn legs_partition_the_fixes() {
        let w = world();
        let t = TrajectoryPreset::Weekend.trajectory(900.0, 850.0);
        let fixes = t.fixes(w.config.mobility.start_unix as f64);
        let ms = t.measurements(&w, 0, 2);
        assert_eq!(fixes.len(), ms.len());
        for ((time, _, _), m) in fixes.iter().zip(&ms) {
            assert_eq!(*time, m.time);
        }
    }

    #[test]
    fn moving_a_waypoint_changes_only_its_two_legs() {
        let w = world();
        let mut t = TrajectoryPreset::Commute.trajectory(900.0, 850.0);
        let before = t.measurements(&w, 0, 7);
        t.waypoints[10] = Metres::new(100.0, 100.0);
        let after = t.measurements(&w, 0, 7);
        assert_eq!(before.len(), after.len());
        let leg_s = t.leg_minutes * 60.0;
        let start = w.config.mobility.start_unix as f64;
        for (a, b) in before.iter().zip(&after) {
            let leg = ((a.time - start) / leg_s) as usize;
            if leg == 9 || leg == 10 {
                continue;
            }
            assert_eq!(a, b, "leg {leg} changed");
        }
        assert_ne!(before, after);
    }

    #[test]
    fn rsrp_comes_from_the_cells_field() {
        let w = world();
        let t = TrajectoryPreset::StayAtHome.trajectory(900.0, 850.0);
        let ms = t.measurements(&w, 0, 1);
        let home = t.waypoints[0];
        let field = w.cell().rsrp_dbm(home);
        let at_home: Vec<f64> = ms
            .iter()
            .filter(|m| {
                w.projection
                    .to_metres(whereabouts_core::geo::LatLon::new(m.lat, m.lon))
                    .distance(&home)
                    < 20.0
            })
            .map(|m| m.rsrp_dbm)
            .collect();
        assert!(at_home.len() > 100);
        let mean = at_home.iter().sum::<f64>() / at_home.len() as f64;
        // Fading is zero-mean (sd 4 dB): the mean over hundreds of fixes is the field ± 1 dB.
        assert!((mean - field).abs() < 1.0, "{mean} vs {field}");
    }

    #[test]
    fn the_default_week_is_five_days_among_five_places_on_few_legs() {
        let t = TrajectoryPreset::Week.trajectory(900.0, 850.0);
        assert_eq!(t.duration_s(), 5.0 * 86_400.0);
        let key = |p: &Metres| ((p.east * 10.0) as i64, (p.north * 10.0) as i64);
        let places: std::collections::BTreeSet<_> = t.waypoints.iter().map(key).collect();
        assert_eq!(places.len(), 5);
        // A leg is an unordered pair of different places; the commute has far more.
        let legs = |t: &Trajectory| {
            t.waypoints
                .windows(2)
                .filter(|w| w[0] != w[1])
                .map(|w| {
                    let (a, b) = (key(&w[0]), key(&w[1]));
                    (a.min(b), a.max(b))
                })
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        };
        let commute = TrajectoryPreset::Commute.trajectory(900.0, 850.0);
        assert!(legs(&t) <= 7, "{} legs", legs(&t));
        assert!(legs(&commute) > legs(&t) + 3, "{}", legs(&commute));
    }

    #[test]
    fn presets_are_valid_and_bad_trajectories_are_refused() {
        let w = world();
        let area = w.area();
        for p in TrajectoryPreset::ALL {
            p.trajectory(900.0, 850.0).validate(area).unwrap();
            assert_eq!(TrajectoryPreset::parse(p.name()), Some(p));
        }
        let mut t = TrajectoryPreset::Commute.trajectory(900.0, 850.0);
        t.waypoints[3] = Metres::new(5000.0, 0.0);
        let e = t.validate(area).unwrap_err();
        assert!(e.to_string().contains("point 4"), "{e}");
        t.waypoints.clear();
        assert!(t.validate(area).is_err());
        let mut t = TrajectoryPreset::Commute.trajectory(900.0, 850.0);
        t.sample_minutes = 0.0;
        assert_eq!(
            t.validate(area).unwrap_err().field,
            "trajectory.sample_minutes"
        );
        t.sample_minutes = f64::NAN;
        assert!(t.validate(area).is_err());
    }
}
