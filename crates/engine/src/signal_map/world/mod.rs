//! The synthetic world: where the towers are, what the signal is everywhere, who lives there
//! and which measurements their phones record.
//!
//! Two presets mirror the paper's two data sets ([000] §3.1, App. A.2; the synthetic world is our
//! choice, see docs/papers.md):
//! - [`Preset::Campus`]: ~3 km², dense — thousands of measurements per user-week (the Campus
//!   data set's user 0 has ~3,492 per week on cell x204), 7 users.
//! - [`Preset::Metro`]: ~5,000 km², sparse — about 50 measurements per user-week (Radiocells
//!   London), 5 users plus one background user made of many short-lived sources.

pub use whereabouts_core::world::{mobility, people};
pub mod radio;

pub use mobility::{MobilityConfig, Place, PlaceKind};
pub use radio::{RadioConfig, Tower};
use serde::{Deserialize, Serialize};
use whereabouts_core::error::ConfigError;
use whereabouts_core::geo::{LatLon, LocalProjection, Metres};
use whereabouts_core::order;
use whereabouts_core::rng::Stream;
use whereabouts_core::world::roads::RoadNetwork;

/// 2026-01-05 00:00:00 UTC, a Monday: the synthetic world's first midnight.
pub const DEFAULT_START_UNIX: i64 = 1_767_571_200;

/// Named starting points for a world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    Campus,
    Metro,
}

impl Preset {
    pub const ALL: [Preset; 2] = [Preset::Campus, Preset::Metro];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Campus => "campus",
            Preset::Metro => "metro",
        }
    }

    pub fn parse(name: &str) -> Result<Self, ConfigError> {
        Preset::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                ConfigError::new(
                    "preset",
                    format!("unknown preset `{name}` (campus or metro)"),
                )
            })
    }

    /// The full configuration of this preset.
    pub fn config(self, seed: u64) -> WorldConfig {
        match self {
            Preset::Campus => WorldConfig {
                preset: Some(self),
                seed,
                // A university campus in southern California, as in the paper's Campus data.
                origin: LatLon::new(33.6455, -117.8425),
                width_m: 1800.0,
                height_m: 1700.0,
                cell: 0,
                radio: RadioConfig {
                    towers: 5,
                    path_loss_exponent: 2.8,
                    min_distance_m: 40.0,
                    mean_rsrp_dbm: -96.0,
                    shadowing_sd_db: 6.0,
                    shadowing_corr_m: 120.0,
                    fading_sd_db: 4.0,
                },
                mobility: MobilityConfig {
                    users: 7,
                    weeks: 4,
                    start_unix: DEFAULT_START_UNIX,
                    sample_interval_s: 60.0,
                    logging_duty: 0.35,
                    gps_noise_m: 5.0,
                    stay_wander_m: 25.0,
                    speed_mps: 1.6,
                    other_places: 3,
                    nearby_places: 3,
                    background_sources: 0,
                    background_duty: 0.0,
                },
            },
            Preset::Metro => WorldConfig {
                preset: Some(self),
                seed,
                // Greater London, as in the paper's Radiocells data.
                origin: LatLon::new(51.5072, -0.1276),
                width_m: 72_000.0,
                height_m: 70_000.0,
                cell: 0,
                radio: RadioConfig {
                    towers: 8,
                    path_loss_exponent: 2.2,
                    min_distance_m: 200.0,
                    mean_rsrp_dbm: -96.0,
                    shadowing_sd_db: 7.0,
                    shadowing_corr_m: 3000.0,
                    fading_sd_db: 5.0,
                },
                mobility: MobilityConfig {
                    users: 5,
                    weeks: 8,
                    start_unix: DEFAULT_START_UNIX,
                    sample_interval_s: 300.0,
                    logging_duty: 0.025,
                    gps_noise_m: 10.0,
                    stay_wander_m: 80.0,
                    speed_mps: 9.0,
                    other_places: 4,
                    nearby_places: 3,
                    background_sources: 150,
                    background_duty: 0.004,
                },
            },
        }
    }
}

/// Everything that defines a world. Same config (seed included) ⇒ the same world, bit for bit,
/// on every platform.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorldConfig {
    /// The preset this came from, if any (informational).
    #[serde(default)]
    pub preset: Option<Preset>,
    pub seed: u64,
    /// Centre of the area of interest.
    pub origin: LatLon,
    /// Size of the area of interest (a rectangle centred on `origin`), in metres.
    pub width_m: f64,
    pub height_m: f64,
    /// The tower whose signal map is learned (the paper trains one model per cell).
    pub cell: usize,
    pub radio: RadioConfig,
    pub mobility: MobilityConfig,
}

impl WorldConfig {
    /// Refuses absurd values with a message naming the field (never clamps silently).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let m = &self.mobility;
        let r = &self.radio;
        let checks: [(bool, &str, String); 17] = [
            (
                self.origin.is_valid(),
                "origin",
                "must be a valid latitude/longitude".into(),
            ),
            (
                range(self.width_m, 100.0, 500_000.0),
                "width_m",
                "must be between 100 m and 500 km".into(),
            ),
            (
                range(self.height_m, 100.0, 500_000.0),
                "height_m",
                "must be between 100 m and 500 km".into(),
            ),
            (
                r.towers >= 1 && r.towers <= 100,
                "radio.towers",
                "must be between 1 and 100".into(),
            ),
            (
                self.cell < r.towers,
                "cell",
                format!(
                    "must name one of the {} towers (0–{})",
                    r.towers,
                    r.towers.saturating_sub(1)
                ),
            ),
            (
                range(r.path_loss_exponent, 1.5, 6.0),
                "radio.path_loss_exponent",
                "must be between 1.5 and 6".into(),
            ),
            (
                range(r.min_distance_m, 1.0, 10_000.0),
                "radio.min_distance_m",
                "must be between 1 m and 10 km".into(),
            ),
            (
                range(r.mean_rsrp_dbm, -140.0, -44.0),
                "radio.mean_rsrp_dbm",
                "must be within the RSRP range −140…−44 dBm".into(),
            ),
            (
                range(r.shadowing_sd_db, 0.0, 20.0) && range(r.fading_sd_db, 0.0, 20.0),
                "radio.shadowing_sd_db / fading_sd_db",
                "must be between 0 and 20 dB".into(),
            ),
            (
                range(r.shadowing_corr_m, 1.0, 100_000.0),
                "radio.shadowing_corr_m",
                "must be between 1 m and 100 km".into(),
            ),
            (
                m.users >= 1 && m.users <= 1000,
                "mobility.users",
                "must be between 1 and 1000".into(),
            ),
            (
                m.weeks >= 1 && m.weeks <= 52,
                "mobility.weeks",
                "must be between 1 and 52".into(),
            ),
            (
                range(m.sample_interval_s, 1.0, 86_400.0),
                "mobility.sample_interval_s",
                "must be between 1 s and 1 day".into(),
            ),
            (
                range(m.logging_duty, 1e-4, 1.0)
                    && (m.background_sources == 0 || range(m.background_duty, 1e-4, 1.0)),
                "mobility.logging_duty",
                "must be in (0, 1]".into(),
            ),
            (
                range(m.gps_noise_m, 0.0, 1000.0) && range(m.stay_wander_m, 0.0, 5000.0),
                "mobility.gps_noise_m / stay_wander_m",
                "must be between 0 and 1 km / 5 km".into(),
            ),
            (
                range(m.speed_mps, 0.1, 100.0),
                "mobility.speed_mps",
                "must be between 0.1 and 100 m/s".into(),
            ),
            (
                m.other_places <= 20 && m.nearby_places <= 20 && m.background_sources <= 2000,
                "mobility.other_places / nearby_places / background_sources",
                "at most 20 places and 2000 background sources".into(),
            ),
        ];
        for (ok, field, problem) in checks {
            if !ok {
                return Err(ConfigError::new(field, problem));
            }
        }
        let samples = m.weeks as f64 * 7.0 * 86_400.0 / m.sample_interval_s
            * (m.users as f64 * m.logging_duty + m.background_sources as f64 * m.background_duty);
        if samples > 5_000_000.0 {
            return Err(ConfigError::new(
                "mobility",
                format!("would make about {samples:.0} measurements; the limit is 5 million"),
            ));
        }
        Ok(())
    }

    pub fn half_width(&self) -> f64 {
        self.width_m / 2.0
    }

    pub fn half_height(&self) -> f64 {
        self.height_m / 2.0
    }
}

fn range(x: f64, lo: f64, hi: f64) -> bool {
    x.is_finite() && x >= lo && x <= hi
}

/// One record as a phone logs it (and as an imported file provides it).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    pub user: u32,
    /// Unix time in seconds.
    pub time: f64,
    pub lat: f64,
    pub lon: f64,
    pub rsrp_dbm: f64,
}

/// Someone in the world.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UserProfile {
    pub id: u32,
    pub name: String,
    /// The background user merges many sources; it has no places of its own.
    pub background: bool,
    pub places: Vec<Place>,
}

/// A generated world.
#[derive(Clone, Debug)]
pub struct World {
    pub config: WorldConfig,
    pub projection: LocalProjection,
    pub towers: Vec<Tower>,
    pub users: Vec<UserProfile>,
    /// Sorted by user, then time.
    pub measurements: Vec<Measurement>,
}

impl World {
    /// Generates the world; deterministic in `config`.
    pub fn generate(config: &WorldConfig) -> Result<World, ConfigError> {
        config.validate()?;
        let (hw, hh) = (config.half_width(), config.half_height());
        let projection = LocalProjection::new(config.origin);
        let towers = radio::place_towers(&config.radio, hw, hh, config.seed);
        let roads = RoadNetwork::for_area(hw, hh, config.seed);
        let cell = &towers[config.cell];
        let m = &config.mobility;
        let mut users = Vec::new();
        let mut measurements = Vec::new();
        let fading = config.radio.fading_sd_db;
        let record = |out: &mut Vec<Measurement>,
                      user: u32,
                      samples: Vec<(f64, Metres, Metres)>,
                      s: &mut Stream| {
            for (t, truth, recorded) in samples {
                let ll = projection.to_latlon(recorded);
                let rsrp = (cell.rsrp_dbm(truth) + s.gaussian(0.0, fading))
                    .clamp(radio::RSRP_MIN_DBM, radio::RSRP_MAX_DBM);
                out.push(Measurement {
                    user,
                    time: t,
                    lat: ll.lat,
                    lon: ll.lon,
                    rsrp_dbm: rsrp,
                });
            }
        };
        for id in 0..m.users {
            // The core's person, measured here: the phone logs along their timeline (the same
            // stream goes on to the logging and the fading).
            let (person, mut s) = people::person(m, &roads, config.seed, &format!("user-{id}"));
            let samples = mobility::sample(m, &person.timeline, m.logging_duty, &mut s);
            record(&mut measurements, id as u32, samples, &mut s);
            users.push(UserProfile {
                id: id as u32,
                name: format!("User {id}"),
                background: false,
                places: person.places,
            });
        }
        if m.background_sources > 0 {
            let id = m.users as u32;
            let first = measurements.len();
            for source in 0..m.background_sources {
                let label = format!("background-{source}");
                let (person, mut s) = people::person(m, &roads, config.seed, &label);
                let samples = mobility::sample(m, &person.timeline, m.background_duty, &mut s);
                record(&mut measurements, id, samples, &mut s);
            }
            order::sort_by(&mut measurements[first..], |a, b| a.time.total_cmp(&b.time));
            users.push(UserProfile {
                id,
                name: "Background".into(),
                background: true,
                places: Vec::new(),
            });
        }
        Ok(World {
            config: config.clone(),
            projection,
            towers,
            users,
            measurements,
        })
    }

    /// The tower whose signal map is learned.
    pub fn cell(&self) -> &Tower {
        &self.towers[self.config.cell]
    }

    /// The area of interest in plane coordinates: (min, max) corners.
    pub fn area(&self) -> (Metres, Metres) {
        let (hw, hh) = (self.config.half_width(), self.config.half_height());
        (Metres::new(-hw, -hh), Metres::new(hw, hh))
    }

    /// One user's measurements.
    pub fn measurements_of(&self, user: u32) -> &[Measurement] {
        let start = self.measurements.partition_point(|m| m.user < user);
        let end = self.measurements.partition_point(|m| m.user <= user);
        &self.measurements[start..end]
    }
}

#[cfg(test)]
mod tests;
