//! The federation's people, each with two devices ([004] §4.1: a user owns several clients,
//! each client holds one user's data, disjoint; the paper's evaluation has two per user), and
//! the public background pool the mitigations draw from.
//!
//! The people are the signal map's: the core's synthetic people on the campus, their phones
//! logging the cell's RSRP as they go ([000] §3.1), here a fix every 10 minutes while logging.
//! The background pool is the same kind of measurements from other people, who are not in the
//! federation: as many as there are people, at most [`POOL_PEOPLE`] (the paper's D_bkg is about
//! twice the training data; ours is one to a third of it, docs/papers.md).

use super::config::{LinkConfig, Split, You};
use crate::signal_map::trace::{Dataset, RoundLength, Sample};
use crate::signal_map::trajectory::Trajectory;
use crate::signal_map::world::radio::Tower;
use crate::signal_map::world::{Measurement, Place, Preset, World};
use std::sync::Arc;
use whereabouts_core::error::ConfigError;
use whereabouts_core::geo::LatLon;
use whereabouts_core::rng::Stream;

/// The pseudonymous client of `person`'s `device` (0 or 1).
pub fn client(person: usize, device: usize) -> u32 {
    (2 * person + device) as u32
}

/// The person a client belongs to (ground truth the attacker does not have).
pub fn owner(client: u32) -> usize {
    client as usize / 2
}

/// Which of its owner's two devices a client is.
pub fn device(client: u32) -> usize {
    client as usize % 2
}

/// The most people the background pool is made of (beyond, it only costs time to generate).
pub const POOL_PEOPLE: usize = 100;

/// The share of each device's data held out as the global test set ([004] §8.1: 20%).
pub const TEST_FRACTION: f64 = 0.2;

/// The people, their devices' data, the test set and the background pool.
#[derive(Clone, Debug)]
pub struct Population {
    pub people: usize,
    /// Training data with `user` = the client (device), and the held-out test set.
    pub dataset: Dataset,
    /// Background measurements of people outside the federation, on the same plane.
    pub pool: Arc<[Sample]>,
    /// Each person's places (home first), for the map.
    pub places: Vec<Vec<Place>>,
    /// The area: half-width and half-height, metres.
    pub half_extent: (f64, f64),
    /// What the page should know about the visitor's data (what of a file was kept).
    pub notes: Vec<String>,
    /// The serving cell's tower: its noise-free field is the signal a crafted client's
    /// measurements carry (`experiments/crafted.rs`: the adversary can drive-test the cell).
    pub cell: Tower,
}

/// The shortest time between two of the visitor's measurements that are both kept, seconds: a
/// drawn path or a file logs as often as the synthetic people's phones (every 10 minutes), so
/// that the visitor's devices send updates of the same size as everyone's.
pub const VISITOR_INTERVAL_S: f64 = 600.0;

impl Population {
    /// The world of `config.people` people plus the pool's, over `config.rounds` days.
    pub fn generate(config: &LinkConfig) -> Result<Self, ConfigError> {
        let placement = match &config.you {
            You::File { trace } => Some(trace.placement().map_err(|e| ConfigError::new("you", e))?),
            _ => None,
        };
        let mut world_config = match placement {
            Some(p) => p.world_config(config.seed, None, None),
            None => Preset::Campus.config(config.seed),
        };
        let m = &mut world_config.mobility;
        let pool_people = config.people.min(POOL_PEOPLE);
        m.users = config.people + pool_people;
        m.weeks = config.rounds.div_ceil(7) as u32;
        m.sample_interval_s = 600.0;
        let world = World::generate(&world_config)?;
        let last = world_config.mobility.start_unix as f64 + config.rounds as f64 * 86_400.0;
        let mut notes = Vec::new();
        let visitor = match (&config.you, placement) {
            (You::Synthetic, _) => None,
            (You::Path { trajectory }, _) => {
                trajectory.validate(world.area())?;
                let (all, times) = routine(trajectory, &world, config.seed, last);
                if times > 1 {
                    notes.push(format!(
                        "Your path is your routine: walked {times} times over the {} rounds, once every {} days.",
                        config.rounds,
                        period_days(trajectory)
                    ));
                }
                Some(all)
            }
            (You::File { .. }, Some(p)) => {
                notes.extend(p.notes.iter().cloned());
                Some(p.measurements(&world, 0, config.seed))
            }
            (You::File { .. }, None) => unreachable!("a file is placed above"),
        };
        let visitor = visitor.map(|all| {
            let kept = thin(&all, last);
            if kept.len() < all.len() {
                notes.push(format!(
                    "Your devices use {} of your {} measurements: one every {} minutes at most, in the first {} days.",
                    kept.len(),
                    all.len(),
                    VISITOR_INTERVAL_S / 60.0,
                    config.rounds
                ));
            }
            kept
        });
        if visitor.as_ref().is_some_and(Vec::is_empty) {
            return Err(ConfigError::new(
                "you",
                format!(
                    "none of your measurements fall in the first {} days",
                    config.rounds
                ),
            ));
        }
        let mut ours = Vec::new();
        let mut pool = Vec::new();
        for person in 0..config.people + pool_people {
            let mine: Vec<Measurement> = match (&visitor, person) {
                (Some(v), 0) => v.clone(),
                _ => world
                    .measurements_of(person as u32)
                    .iter()
                    .filter(|m| m.time < last)
                    .copied()
                    .collect(),
            };
            if person < config.people {
                let mut stream = Stream::new(config.seed, &format!("split-person-{person}"));
                ours.extend(split(&mine, person, config.split, &mut stream));
            } else {
                pool.extend(mine);
            }
        }
        let dataset = Dataset::new(
            &ours,
            world.projection,
            RoundLength::Day,
            TEST_FRACTION,
            config.seed,
        )?;
        let pool = pool
            .iter()
            .map(|m| {
                let pos = dataset.projection.to_metres(LatLon::new(m.lat, m.lon));
                Sample {
                    user: u32::MAX,
                    time: m.time,
                    pos,
                    x: dataset.standardizer.to_input(pos),
                    y: m.rsrp_dbm as f32,
                }
            })
            .collect();
        Ok(Self {
            people: config.people,
            dataset,
            pool,
            places: world.users[..config.people]
                .iter()
                .map(|u| u.places.clone())
                .collect(),
            half_extent: (world_config.half_width(), world_config.half_height()),
            notes,
            cell: world.towers[world_config.cell].clone(),
        })
    }

    /// Every client, in order.
    pub fn clients(&self) -> Vec<u32> {
        (0..2 * self.people as u32).collect()
    }
}

/// A path's period: its length rounded up to whole weeks, in days.
fn period_days(trajectory: &Trajectory) -> u64 {
    7 * (trajectory.duration_s() / (7.0 * 86_400.0)).ceil().max(1.0) as u64
}

/// The path walked again every [`period_days`] until `last` (each walk with its own GPS noise and
/// fading, from its own seed): a drawn week is a routine, and the visitor's devices take part
/// in the federation's rounds as everyone's do. How many walks.
fn routine(
    trajectory: &Trajectory,
    world: &World,
    seed: u64,
    last: f64,
) -> (Vec<Measurement>, u64) {
    let period = period_days(trajectory) as f64 * 86_400.0;
    let start = world.config.mobility.start_unix as f64;
    let mut all = Vec::new();
    let mut k = 0u64;
    while start + k as f64 * period < last {
        let shift = k as f64 * period;
        all.extend(
            trajectory
                .measurements(world, 0, seed.wrapping_add(k.wrapping_mul(0x9E37_79B9)))
                .into_iter()
                .map(|m| Measurement {
                    time: m.time + shift,
                    ..m
                }),
        );
        k += 1;
    }
    (all, k)
}

/// The visitor's measurements before `last`, at most one per [`VISITOR_INTERVAL_S`], as the
/// world's loggers (a file's fixes may be a second apart).
fn thin(measurements: &[Measurement], last: f64) -> Vec<Measurement> {
    let mut kept: Vec<Measurement> = Vec::new();
    for m in measurements.iter().filter(|m| m.time < last) {
        if kept
            .last()
            .is_none_or(|k| m.time - k.time >= VISITOR_INTERVAL_S - 1e-6)
        {
            kept.push(*m);
        }
    }
    kept
}

/// One person's time-ordered measurements shared over their two devices by `split`: each
/// comes back with `user` set to its device's client.
pub fn split(
    measurements: &[Measurement],
    person: usize,
    split: Split,
    stream: &mut Stream,
) -> Vec<Measurement> {
    let half = measurements.len() / 2;
    let mut day_device: Option<(i64, usize)> = None;
    measurements
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let device = match split {
                Split::Random => usize::from(stream.chance(0.5)),
                Split::Day => {
                    let day = (m.time / 86_400.0).floor() as i64;
                    match day_device {
                        Some((d, device)) if d == day => device,
                        _ => {
                            let device = usize::from(stream.chance(0.5));
                            day_device = Some((day, device));
                            device
                        }
                    }
                }
                Split::Chrono => usize::from(i >= half),
            };
            Measurement {
                user: client(person, device),
                ..*m
            }
        })
        .collect()
}
