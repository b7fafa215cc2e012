//! Placement: the synthetic world rebuilt around a visitor's own trace, so the federation and
//! the attack run on *their* places and *their* calendar.
//!
//! - **Where**: the map is a local projection centred on the trace. A phone's history often
//!   holds a few far trips; a map that fits them all would make a home and an office one pixel.
//!   So the window is the bounding box of the fixes within [`WINDOW_HALF_M`] of the median
//!   position (a robust centre), plus a margin; fixes outside it are left out and counted.
//! - **When**: rounds are cut by the data's own timestamps. The world starts at the UTC
//!   midnight before the first kept fix (the round calendar of [`crate::signal_map::trace::Dataset`]), and
//!   lasts as many weeks as the trace. A world holds at most [`MAX_WEEKS`] weeks, so a longer
//!   history keeps its most recent weeks (and says so).
//! - **Signal**: fixes that carry RSRP keep it; the others get the synthetic field's RSRP for
//!   the learned cell at the recorded position, plus fading noise (the page says so).
//! - **The rest of the world** (towers, other users, the background) is the synthetic world of
//!   the chosen preset's kind, scaled to the window: the campus kind up to
//!   [`CAMPUS_MAX_M`], the metro kind above, with the shadowing correlation length scaled with
//!   the window, and the other users' logging interval stretched so the world stays small.
//!
//! The paper is silent on all of this (it uses its own data sets); these rules are ours, and
//! each produces a note the page shows.

use crate::signal_map::world::{Measurement, Preset, World, WorldConfig, radio};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, OnceLock};
use whereabouts_core::geo::{LatLon, LocalProjection, Metres, median_longitude};
use whereabouts_core::import::Fix;
use whereabouts_core::rng::Stream;

/// Half the side of the largest window around the median position, metres (a 100 km square).
pub const WINDOW_HALF_M: f64 = 50_000.0;
/// Margin around the kept fixes, as a fraction of their extent (plus [`MIN_MARGIN_M`]).
const MARGIN: f64 = 0.08;
const MIN_MARGIN_M: f64 = 100.0;
/// The smallest map side, metres.
const MIN_SIDE_M: f64 = 600.0;
/// Windows up to this side get the campus kind of world; larger ones the metro kind.
pub const CAMPUS_MAX_M: f64 = 10_000.0;
/// A world's longest calendar (see [`WorldConfig::validate`]).
pub const MAX_WEEKS: u32 = 52;
/// The other users' measurements are thinned so the synthetic world stays around this size.
const SYNTHETIC_BUDGET: f64 = 150_000.0;
const WEEK_S: f64 = 7.0 * 86_400.0;
const DAY_S: f64 = 86_400.0;

/// The visitor's own trace, as a scenario carries it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportedTrace {
    /// The file's name (for messages and exports).
    pub name: String,
    /// Sorted by time, no repeated timestamps (as [`whereabouts_core::import::import`]
    /// returns them). Shared, not copied, by every clone: a study runs the visitor's trace,
    /// possibly millions of fixes, in twenty configurations.
    pub fixes: Arc<[Fix]>,
    /// [`placement`](Self::placement), computed once for the trace and all its clones (a lab
    /// start asks for it three times, and on a few million fixes it sorts for a noticeable
    /// fraction of a second).
    #[serde(skip)]
    placed: Arc<OnceLock<Result<Placement, String>>>,
}

/// Two traces are equal when their name and fixes are (whether the placement is cached yet
/// does not matter).
impl PartialEq for ImportedTrace {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.fixes == other.fixes
    }
}

/// Where and when the world goes, and which fixes it keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    pub origin: LatLon,
    pub width_m: f64,
    pub height_m: f64,
    /// UTC midnight before the first kept fix.
    pub start_unix: i64,
    pub weeks: u32,
    /// The fixes inside the window and the calendar, in time order.
    pub kept: Vec<Fix>,
    /// What was left out and why, for the page.
    pub notes: Vec<String>,
}

impl ImportedTrace {
    pub fn new(name: String, fixes: Vec<Fix>) -> Self {
        Self {
            name,
            fixes: fixes.into(),
            placed: Arc::default(),
        }
    }

    /// Whether any fix carries a measured signal.
    pub fn has_signal(&self) -> bool {
        self.fixes.iter().any(|f| f.rsrp_dbm.is_some())
    }

    /// Where the world goes. Fails only on a trace with fewer than two fixes (or none near
    /// their median position).
    pub fn placement(&self) -> Result<&Placement, String> {
        self.placed
            .get_or_init(|| self.place())
            .as_ref()
            .map_err(Clone::clone)
    }

    fn place(&self) -> Result<Placement, String> {
        if self.fixes.len() < 2 {
            return Err(format!("{}: a trace needs at least two fixes", self.name));
        }
        // A config's fixes (`run --config`) may not come from the importer: the calendar and
        // the window read them as it leaves them.
        if let Some((k, f)) = self
            .fixes
            .iter()
            .enumerate()
            .find(|(_, f)| !(f.lat.abs() <= 90.0 && f.lon.abs() <= 180.0))
        {
            return Err(format!(
                "{}: fix {} (line {}) is at latitude {}, longitude {}, not a place on Earth",
                self.name,
                k + 1,
                f.line,
                f.lat,
                f.lon
            ));
        }
        if let Some(k) = (1..self.fixes.len()).find(|&k| {
            !(self.fixes[k].time > self.fixes[k - 1].time && self.fixes[k].time.is_finite())
        }) {
            let (before, at) = (self.fixes[k - 1], self.fixes[k]);
            return Err(format!(
                "{}: fix {} (line {}) is at time {}, not after the fix before it ({}): the fixes must be in time order, none repeated (as `whereabouts import` leaves them)",
                self.name,
                k + 1,
                at.line,
                at.time,
                before.time
            ));
        }
        let mut notes = Vec::new();
        // When: the most recent MAX_WEEKS weeks (a week is the calendar's unit of length).
        let last = self.fixes.last().map_or(0.0, |f| f.time);
        let earliest = last - (MAX_WEEKS as f64 * WEEK_S - DAY_S);
        let recent: Vec<Fix> = self
            .fixes
            .iter()
            .copied()
            .filter(|f| f.time >= earliest)
            .collect();
        if recent.len() < self.fixes.len() {
            notes.push(format!(
                "kept the last {MAX_WEEKS} weeks: {} older fixes were left out",
                self.fixes.len() - recent.len()
            ));
        }
        // Where: a robust centre, then the window around it.
        let median = LatLon::new(
            median(recent.iter().map(|f| f.lat)),
            median_longitude(recent.iter().map(|f| f.lon)),
        );
        let around = LocalProjection::new(median);
        let inside: Vec<(Fix, Metres)> = recent
            .iter()
            .map(|&f| (f, around.to_metres(LatLon::new(f.lat, f.lon))))
            .filter(|(_, p)| p.east.abs() <= WINDOW_HALF_M && p.north.abs() <= WINDOW_HALF_M)
            .collect();
        if inside.len() < recent.len() {
            notes.push(format!(
                "{} fixes more than {:.0} km from your median position (trips) were left out",
                recent.len() - inside.len(),
                WINDOW_HALF_M / 1000.0
            ));
        }
        if inside.len() < 2 {
            return Err(format!(
                "{}: fewer than two fixes near the median position",
                self.name
            ));
        }
        let (mut lo, mut hi) = (
            Metres::new(f64::INFINITY, f64::INFINITY),
            Metres::new(f64::NEG_INFINITY, f64::NEG_INFINITY),
        );
        for (_, p) in &inside {
            lo = Metres::new(lo.east.min(p.east), lo.north.min(p.north));
            hi = Metres::new(hi.east.max(p.east), hi.north.max(p.north));
        }
        let centre = around.to_latlon(Metres::new(
            (lo.east + hi.east) / 2.0,
            (lo.north + hi.north) / 2.0,
        ));
        let side = |extent: f64| {
            (extent * (1.0 + 2.0 * MARGIN) + 2.0 * MIN_MARGIN_M)
                .max(MIN_SIDE_M)
                .ceil()
        };
        let kept: Vec<Fix> = inside.into_iter().map(|(f, _)| f).collect();
        let first = kept[0].time;
        let start_unix = (first / DAY_S).floor() * DAY_S;
        let span = kept[kept.len() - 1].time - start_unix;
        let weeks = ((span / WEEK_S).floor() as u32 + 1).clamp(1, MAX_WEEKS);
        Ok(Placement {
            origin: centre,
            width_m: side(hi.east - lo.east),
            height_m: side(hi.north - lo.north),
            start_unix: start_unix as i64,
            weeks,
            kept,
            notes,
        })
    }
}

impl Placement {
    /// The world around the trace, of `kind`'s sort (its radio and mobility parameters scaled
    /// to the window), with `users` synthetic users (None: the kind's default).
    pub fn world_config(
        &self,
        seed: u64,
        users: Option<usize>,
        cell: Option<usize>,
    ) -> WorldConfig {
        let size = self.width_m.max(self.height_m);
        let kind = if size <= CAMPUS_MAX_M {
            Preset::Campus
        } else {
            Preset::Metro
        };
        let mut w = kind.config(seed);
        let base = w.width_m.max(w.height_m);
        w.preset = None;
        w.origin = self.origin;
        w.width_m = self.width_m;
        w.height_m = self.height_m;
        w.radio.shadowing_corr_m = (w.radio.shadowing_corr_m * size / base).clamp(20.0, 20_000.0);
        w.radio.min_distance_m = (w.radio.min_distance_m * size / base).clamp(10.0, 1_000.0);
        w.mobility.start_unix = self.start_unix;
        w.mobility.weeks = self.weeks;
        if let Some(u) = users {
            w.mobility.users = u;
        }
        if let Some(c) = cell {
            w.cell = c;
        }
        let m = &mut w.mobility;
        let per_interval =
            m.users as f64 * m.logging_duty + m.background_sources as f64 * m.background_duty;
        let samples = m.weeks as f64 * WEEK_S / m.sample_interval_s * per_interval;
        if samples > SYNTHETIC_BUDGET {
            m.sample_interval_s = (m.sample_interval_s * samples / SYNTHETIC_BUDGET)
                .ceil()
                .min(86_400.0);
        }
        w
    }

    /// The visitor's measurements in `world` (which must be this placement's): the file's RSRP
    /// where it has one, otherwise the learned cell's synthetic RSRP at the recorded position
    /// plus fading noise (stream `imported-signal`).
    pub fn measurements(&self, world: &World, user: u32, seed: u64) -> Vec<Measurement> {
        let cell = world.cell();
        let fading = world.config.radio.fading_sd_db;
        let mut s = Stream::new(seed, "imported-signal");
        self.kept
            .iter()
            .map(|f| {
                let rsrp = match f.rsrp_dbm {
                    Some(r) => r,
                    None => {
                        let at = world.projection.to_metres(LatLon::new(f.lat, f.lon));
                        (cell.rsrp_dbm(at) + s.gaussian(0.0, fading))
                            .clamp(radio::RSRP_MIN_DBM, radio::RSRP_MAX_DBM)
                    }
                };
                Measurement {
                    user,
                    time: f.time,
                    lat: f.lat,
                    lon: f.lon,
                    rsrp_dbm: rsrp,
                }
            })
            .collect()
    }
}

fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn fix(time: f64, lat: f64, lon: f64) -> Fix {
        Fix {
            time,
            lat,
            lon,
            rsrp_dbm: None,
            line: 0,
        }
    }

    /// A walk around Zürich over three days, and one trip to Rome.
    fn trace() -> ImportedTrace {
        let t0 = 1_700_000_000.0;
        let mut fixes: Vec<Fix> = (0..300)
            .map(|i| {
                let a = i as f64 / 300.0 * std::f64::consts::TAU;
                fix(
                    t0 + i as f64 * 900.0,
                    47.37 + 0.01 * a.sin(),
                    8.54 + 0.015 * a.cos(),
                )
            })
            .collect();
        fixes.insert(150, fix(t0 + 150.0 * 900.0 - 1.0, 41.9, 12.5));
        ImportedTrace::new("walk.gpx".into(), fixes)
    }

    #[test]
    fn the_window_fits_the_trace_and_leaves_out_far_trips() {
        let p = trace().placement().unwrap().clone();
        assert_eq!(p.kept.len(), 300);
        assert!(
            p.notes
                .iter()
                .any(|n| n.contains("1 fixes more than 50 km"))
        );
        assert!((p.origin.lat - 47.37).abs() < 0.001 && (p.origin.lon - 8.54).abs() < 0.001);
        // ±0.015° of longitude at 47.37° ≈ ±1,131 m, ±0.01° of latitude ≈ ±1,112 m; plus 8% and
        // 100 m on each side.
        assert!((2_500.0..3_000.0).contains(&p.width_m), "{}", p.width_m);
        assert!((2_500.0..3_000.0).contains(&p.height_m), "{}", p.height_m);
        let world = World::generate(&p.world_config(1, None, None)).unwrap();
        let proj = world.projection;
        let (half_w, half_h) = (p.width_m / 2.0, p.height_m / 2.0);
        for f in &p.kept {
            let m = proj.to_metres(LatLon::new(f.lat, f.lon));
            assert!(m.east.abs() < half_w && m.north.abs() < half_h);
        }
    }

    #[test]
    fn a_walk_across_the_antimeridian_is_placed_as_the_few_km_it_is() {
        // Taveuni, Fiji: 40 fixes along 16.8° S from 179.98° E to 179.98° W (about 4 km).
        let fixes: Vec<Fix> = (0..40)
            .map(|i| {
                let lon = 179.98 + 0.04 * i as f64 / 39.0;
                let lon = if lon > 180.0 { lon - 360.0 } else { lon };
                fix(1_700_000_000.0 + 600.0 * i as f64, -16.8, lon)
            })
            .collect();
        let p = ImportedTrace::new("fiji.gpx".into(), fixes)
            .placement()
            .unwrap()
            .clone();
        assert_eq!(p.kept.len(), 40, "{:?}", p.notes);
        assert!(p.notes.is_empty(), "{:?}", p.notes);
        assert!((4_000.0..6_000.0).contains(&p.width_m), "{}", p.width_m);
        assert!(p.origin.lon.abs() > 179.9, "{:?}", p.origin);
    }

    /// A config's fixes (`run --config`, issue 41 §5.6): out of time order, a repeated time or
    /// a place off the Earth is refused, naming the fix, before a world is built on it.
    #[test]
    fn fixes_out_of_time_order_or_off_the_earth_are_refused_by_the_fix() {
        let refused = |fixes: Vec<Fix>| {
            ImportedTrace::new("x.csv".into(), fixes)
                .placement()
                .unwrap_err()
        };
        let (a, b, c) = (
            fix(1_767_600_000.0, 33.6455, -117.8425),
            fix(1_767_590_000.0, 33.6460, -117.8430),
            fix(1_767_610_000.0, 33.6465, -117.8435),
        );
        let e = refused(vec![a, b, c]);
        assert!(
            e.starts_with("x.csv: fix 2 (line 0) is at time 1767590000, not after the fix before it (1767600000)"),
            "{e}"
        );
        let e = refused(vec![a, a, c]);
        assert!(e.contains("fix 2") && e.contains("none repeated"), "{e}");
        let e = refused(vec![a, fix(f64::NAN, 33.6, -117.8), c]);
        assert!(e.contains("fix 2") && e.contains("time NaN"), "{e}");
        let e = refused(vec![a, fix(1_767_605_000.0, 123.0, -117.8), c]);
        assert!(
            e.contains("fix 2") && e.contains("not a place on Earth"),
            "{e}"
        );
        assert!(
            ImportedTrace::new("x.csv".into(), vec![b, a, c])
                .placement()
                .is_ok()
        );
    }

    #[test]
    fn the_placement_is_computed_once_and_equality_ignores_it() {
        let (placed, fresh) = (trace(), trace());
        let a: *const Placement = placed.placement().unwrap();
        let b: *const Placement = placed.placement().unwrap();
        assert_eq!(a, b, "the same cached placement");
        assert_eq!(placed, fresh);
        assert_eq!(placed.clone().placement(), fresh.placement());
    }

    #[test]
    fn the_calendar_follows_the_timestamps() {
        let p = trace().placement().unwrap().clone();
        assert_eq!(p.start_unix, 1_699_920_000); // the UTC midnight before 1,700,000,000
        assert_eq!(p.weeks, 1);
        let w = p.world_config(1, None, None);
        assert_eq!(w.mobility.start_unix, p.start_unix);
        w.validate().unwrap();
        // A two-year history keeps its last 52 weeks.
        let long = ImportedTrace::new(
            "years.csv".into(),
            (0..730)
                .map(|d| {
                    fix(
                        1_600_000_000.0 + d as f64 * DAY_S,
                        47.0,
                        8.0 + d as f64 * 1e-5,
                    )
                })
                .collect(),
        );
        let p = long.placement().unwrap();
        assert_eq!(p.weeks, 52);
        assert_eq!(p.kept.len(), 364);
        assert!(p.notes[0].contains("366 older fixes"), "{:?}", p.notes);
    }

    #[test]
    fn a_large_window_gets_a_metro_world_of_bounded_size() {
        let t = ImportedTrace::new(
            "region.json".into(),
            (0..200)
                .map(|i| {
                    fix(
                        1_700_000_000.0 + i as f64 * 3600.0,
                        51.3 + i as f64 * 1.5e-3,
                        -0.2,
                    )
                })
                .collect(),
        );
        let p = t.placement().unwrap();
        assert!(p.height_m > CAMPUS_MAX_M);
        let w = p.world_config(1, None, None);
        assert_eq!(w.radio.towers, Preset::Metro.config(1).radio.towers);
        w.validate().unwrap();
    }

    #[test]
    fn signal_is_kept_where_the_file_has_it_and_synthesised_elsewhere() {
        let t = trace();
        let mut fixes = t.fixes.to_vec();
        fixes[0].rsrp_dbm = Some(-87.5);
        let t = ImportedTrace::new(t.name, fixes);
        let p = t.placement().unwrap();
        let world = World::generate(&p.world_config(1, Some(2), None)).unwrap();
        let m = p.measurements(&world, 0, 1);
        assert_eq!(m.len(), p.kept.len());
        assert_eq!(m[0].rsrp_dbm, -87.5);
        assert!(
            m[1..]
                .iter()
                .all(|x| (-140.0..=-44.0).contains(&x.rsrp_dbm))
        );
        assert_eq!(m, p.measurements(&world, 0, 1), "deterministic");
    }
}
