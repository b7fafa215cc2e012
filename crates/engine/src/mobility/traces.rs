//! The lab's data, like the paper's (§5.1): a synthetic city with a road network, and for each
//! of its users a trajectory of one of two kinds —
//! - **vehicles**, like the NYC bus data (NYCB): a bus on its route, back and forth along the
//!   streets through the service day, its position taken about every 10 minutes (the paper:
//!   "trajectory points in roughly 10-minute increments");
//! - **check-ins**, like Foursquare Tokyo and Gowalla: a person of the shared world (home, work,
//!   the buildings near work, errands, travelling along the streets) who checks in at some of
//!   the places they arrive at, so the sequence is sparse and irregular in time.
//!
//! Every point lies on the road network (vehicles drive on it; places are at the roadside), as
//! the paper's attacker assumes (§3.2). Positions are metres on the city's local plane;
//! per-user min-max normalisation of each coordinate ([`Scaler`]) is the paper's per-column
//! scaling of (lat, lon) — the plane is a linear map of (lat, lon) within 0.1% over a city.

use super::lstm::{INPUT, OUTPUT, WINDOW, Window};
use serde::{Deserialize, Serialize};
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;
use whereabouts_core::world::mobility::{MobilityConfig, Segment};
use whereabouts_core::world::people;
use whereabouts_core::world::roads::{self, RoadNetwork};

/// Which kind of trajectories the city's users have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceKind {
    /// Buses on their routes, sampled about every 10 minutes (like NYCB).
    Vehicle,
    /// People's check-ins at places (like Foursquare Tokyo and Gowalla).
    CheckIn,
}

impl TraceKind {
    pub const ALL: [TraceKind; 2] = [TraceKind::Vehicle, TraceKind::CheckIn];

    pub fn name(self) -> &'static str {
        match self {
            TraceKind::Vehicle => "vehicle",
            TraceKind::CheckIn => "check-in",
        }
    }
}

/// The city: half-width and half-height (metres) and the size of its blocks.
pub const CITY_HALF_W_M: f64 = 6000.0;
pub const CITY_HALF_H_M: f64 = 5000.0;
pub const BLOCK_M: f64 = 250.0;
/// A bus's average speed with its stops (NYC buses average about 13 km/h).
const BUS_SPEED_MPS: f64 = 3.6;
/// The interval between a bus's recorded positions, and its jitter.
pub const BUS_INTERVAL_S: f64 = 600.0;
const BUS_JITTER_S: f64 = 60.0;
/// Service hours.
const SERVICE_START_H: f64 = 6.0;
const SERVICE_END_H: f64 = 23.0;
/// The chance that a person checks in on arriving at a place (at home: rarely).
const CHECK_IN_CHANCE: f64 = 0.6;
const CHECK_IN_AT_HOME_CHANCE: f64 = 0.1;
/// Unix time of the first midnight, a Monday (2023-11-20, as the shared world's).
const START_UNIX: i64 = 1_700_438_400;

/// One recorded point.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fix {
    /// Unix seconds (carried along, not fed to the model, as in the authors' code).
    pub time: f64,
    pub at: Metres,
}

/// The city's streets.
pub fn city(seed: u64) -> RoadNetwork {
    RoadNetwork::new(
        CITY_HALF_W_M,
        CITY_HALF_H_M,
        BLOCK_M,
        &mut Stream::new(seed, "mobility-roads"),
    )
}

/// The streets of a run: the synthetic city's without `area`, else the same kind of jittered
/// grid of [`BLOCK_M`] blocks laid over ±`area` (half-width, half-height; real data's extent,
/// where no map of the real streets is at hand).
pub fn streets(area: Option<[f64; 2]>, seed: u64) -> RoadNetwork {
    match area {
        None => city(seed),
        Some([w, h]) => RoadNetwork::new(w, h, BLOCK_M, &mut Stream::new(seed, "mobility-roads")),
    }
}

/// The half-width and half-height of a run's streets (see [`streets`]), metres.
pub fn half_extent(area: Option<[f64; 2]>) -> (f64, f64) {
    area.map_or((CITY_HALF_W_M, CITY_HALF_H_M), |[w, h]| (w, h))
}

/// A bus's day(s): a route between two terminals at least half the city apart, driven back and
/// forth from a random point of it, one position per ~10 minutes, `points` of them.
pub fn vehicle(roads: &RoadNetwork, points: usize, s: &mut Stream) -> Vec<Fix> {
    let n = roads.junctions.len();
    let (a, mut b) = (s.below(n as u64) as usize, s.below(n as u64) as usize);
    for _ in 0..200 {
        if roads.junctions[a].distance(&roads.junctions[b]) >= CITY_HALF_W_M {
            break;
        }
        b = s.below(n as u64) as usize;
    }
    let route: Vec<Metres> = roads
        .route(a, b)
        .into_iter()
        .map(|k| roads.junctions[k])
        .collect();
    let start = s.range(0.0, 2.0 * roads::length(&route).max(1.0));
    shuttle(&route, start, points, s)
}

/// Back and forth along `route` from `start` metres into the there-and-back, at a bus's pace
/// through the service hours, one position per ~10 minutes, `points` of them.
fn shuttle(route: &[Metres], start: f64, points: usize, s: &mut Stream) -> Vec<Fix> {
    let length = roads::length(route).max(1.0);
    // Distance travelled since the start of the route, unfolded (there and back is 2·length).
    let mut travelled = start;
    let mut out = Vec::with_capacity(points);
    let mut day = 0.0;
    let mut t = SERVICE_START_H * 3600.0;
    while out.len() < points {
        if t > SERVICE_END_H * 3600.0 {
            day += 1.0;
            t = SERVICE_START_H * 3600.0;
            continue;
        }
        let along = travelled % (2.0 * length);
        let at = if along <= length {
            roads::point_along(route, along)
        } else {
            roads::point_along(route, 2.0 * length - along)
        };
        out.push(Fix {
            time: START_UNIX as f64 + day * 86_400.0 + t,
            at,
        });
        let dt = BUS_INTERVAL_S + s.range(-BUS_JITTER_S, BUS_JITTER_S);
        t += dt;
        travelled += dt * BUS_SPEED_MPS;
    }
    out
}

/// Who the server's target is.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Target {
    /// The city's first user.
    #[default]
    Synthetic,
    /// The visitor's drawn path (waypoints on the city's plane), travelled back and forth like a
    /// bus's route; with `snap`, each leg follows the streets.
    Path { waypoints: Vec<Metres>, snap: bool },
    /// The visitor's own recorded points, in order (an imported file, already on the city's
    /// plane and thinned to about 10 minutes).
    Fixes { fixes: Vec<Fix> },
}

/// The visitor's drawn path as a trajectory of `points`: the legs (along the streets with
/// `snap`), back and forth from the first waypoint.
pub fn path_trace(
    roads: &RoadNetwork,
    waypoints: &[Metres],
    snap: bool,
    points: usize,
) -> Vec<Fix> {
    let mut route: Vec<Metres> = Vec::new();
    for w in waypoints.windows(2) {
        let leg = if snap {
            let (a, b) = (roads.snap(w[0]).position, roads.snap(w[1]).position);
            roads.path(a, b)
        } else {
            w.to_vec()
        };
        route.extend(leg.into_iter().skip(usize::from(!route.is_empty())));
    }
    if route.is_empty() {
        route.extend(
            waypoints
                .iter()
                .map(|w| if snap { roads.snap(*w).position } else { *w }),
        );
    }
    shuttle(&route, 0.0, points, &mut Stream::new(0, "your-path"))
}

/// The shared world's routine in the city, for check-ins: places at the roadside, stays exactly
/// there (a venue has one position), travel by city speed.
fn check_in_routine(weeks: u32) -> MobilityConfig {
    MobilityConfig {
        users: 1,
        weeks,
        start_unix: START_UNIX,
        sample_interval_s: 60.0,
        logging_duty: 1.0,
        gps_noise_m: 0.0,
        stay_wander_m: 0.0,
        speed_mps: 8.0,
        other_places: 8,
        nearby_places: 3,
        background_sources: 0,
        background_duty: 0.0,
    }
}

/// A person's check-ins: on arriving at a place they check in with some chance, until there
/// are `points` (more weeks are lived as needed).
pub fn check_ins(roads: &RoadNetwork, points: usize, seed: u64, label: &str) -> Vec<Fix> {
    let mut weeks = 4;
    loop {
        let (person, mut s) = people::person(&check_in_routine(weeks), roads, seed, label);
        // The shared world's first place is home.
        let home = person.places[0].position;
        let mut out = Vec::new();
        let mut moved = false;
        for seg in &person.timeline {
            match seg {
                Segment::Move { .. } => moved = true,
                Segment::Stay { at, start, .. } => {
                    if moved {
                        let chance = if home.distance(at) < 1.0 {
                            CHECK_IN_AT_HOME_CHANCE
                        } else {
                            CHECK_IN_CHANCE
                        };
                        if s.chance(chance) {
                            out.push(Fix {
                                time: *start,
                                at: *at,
                            });
                        }
                    }
                    moved = false;
                }
            }
            if out.len() == points {
                return out;
            }
        }
        if weeks >= 64 {
            return out;
        }
        weeks *= 2;
    }
}

/// Every user's trajectory: `users` of them, each at least `points` long.
pub fn population(
    kind: TraceKind,
    roads: &RoadNetwork,
    users: usize,
    points: usize,
    seed: u64,
) -> Vec<Vec<Fix>> {
    (0..users)
        .map(|u| {
            let label = format!("mobility-user-{u}");
            match kind {
                TraceKind::Vehicle => vehicle(roads, points, &mut Stream::new(seed, &label)),
                TraceKind::CheckIn => check_ins(roads, points, seed, &label),
            }
        })
        .collect()
}

/// Per-user min-max scaling of each coordinate to [0, 1] (the authors' `MinMaxScaler`, fitted
/// on the user's own points). A coordinate that never changes keeps a 1 m span.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scaler {
    pub min: [f64; INPUT],
    pub span: [f64; INPUT],
}

impl Scaler {
    pub fn fit(points: &[Metres]) -> Scaler {
        let mut lo = [f64::INFINITY; INPUT];
        let mut hi = [f64::NEG_INFINITY; INPUT];
        for p in points {
            for (c, v) in [p.east, p.north].into_iter().enumerate() {
                lo[c] = lo[c].min(v);
                hi[c] = hi[c].max(v);
            }
        }
        if points.is_empty() {
            return Scaler {
                min: [0.0; INPUT],
                span: [1.0; INPUT],
            };
        }
        Scaler {
            min: lo,
            span: std::array::from_fn(|c| (hi[c] - lo[c]).max(1.0)),
        }
    }

    pub fn normalise(&self, p: Metres) -> [f32; INPUT] {
        [
            ((p.east - self.min[0]) / self.span[0]) as f32,
            ((p.north - self.min[1]) / self.span[1]) as f32,
        ]
    }

    pub fn denormalise(&self, x: [f32; INPUT]) -> Metres {
        Metres::new(
            self.min[0] + f64::from(x[0]) * self.span[0],
            self.min[1] + f64::from(x[1]) * self.span[1],
        )
    }
}

/// Training window `t` of a normalised trajectory: points t … t+7 and the label, point t+8.
pub fn window(normalised: &[[f32; INPUT]], t: usize) -> Option<(Window<f32>, [f32; OUTPUT])> {
    (t + WINDOW < normalised.len()).then(|| {
        (
            std::array::from_fn(|k| normalised[t + k]),
            normalised[t + WINDOW],
        )
    })
}
