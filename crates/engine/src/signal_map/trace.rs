//! From measurements to training data: the local metric plane, z-scored inputs, the held-out
//! test set, and the cutting of each user's stream into online rounds.
//!
//! Online FL ([000] §2.1): time is cut into rounds of equal duration T; in round t user k
//! trains only on D_t^k, the measurements it collected during that round. Rounds are calendar
//! windows shared by all users, starting at the UTC midnight before the first measurement. A
//! user with no data in a round does not take part in it (the paper is silent; our choice, see
//! docs/papers.md).

use crate::signal_map::world::Measurement;
use serde::{Deserialize, Serialize};
use whereabouts_core::error::ConfigError;
use whereabouts_core::geo::{LatLon, LocalProjection, Metres};
use whereabouts_core::order;
use whereabouts_core::rng::Stream;

/// One training example.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub user: u32,
    pub time: f64,
    /// Position on the local plane (what metrics are computed on).
    pub pos: Metres,
    /// Standardised input (what the model sees).
    pub x: [f32; 2],
    /// RSRP label in dBm (labels stay raw: [000] §3.1 standardises only the features).
    pub y: f32,
}

/// z-scoring of the two input coordinates ([000] §3.1). Statistics come from all the cell's
/// data (the paper does not say which; our choice, see docs/papers.md), which the server can
/// know from public data; they are applied to east/north metres, an affine map of lat/lon, so
/// this is z-scoring of lat/lon.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Standardizer {
    pub mean: [f64; 2],
    pub sd: [f64; 2],
}

impl Standardizer {
    pub fn fit(points: impl Iterator<Item = Metres> + Clone) -> Self {
        let n = points.clone().count().max(1) as f64;
        let (se, sn) = points
            .clone()
            .fold((0.0, 0.0), |(a, b), p| (a + p.east, b + p.north));
        let mean = [se / n, sn / n];
        let (ve, vn) = points.fold((0.0, 0.0), |(a, b), p| {
            (
                a + (p.east - mean[0]).powi(2),
                b + (p.north - mean[1]).powi(2),
            )
        });
        // A degenerate axis (everyone on one line) keeps unit scale instead of dividing by 0.
        let sd = [libm::sqrt(ve / n).max(1.0), libm::sqrt(vn / n).max(1.0)];
        Self { mean, sd }
    }

    pub fn to_input(&self, p: Metres) -> [f32; 2] {
        [
            ((p.east - self.mean[0]) / self.sd[0]) as f32,
            ((p.north - self.mean[1]) / self.sd[1]) as f32,
        ]
    }

    pub fn to_metres(&self, x: [f64; 2]) -> Metres {
        Metres::new(
            self.mean[0] + x[0] * self.sd[0],
            self.mean[1] + x[1] * self.sd[1],
        )
    }
}

/// Round duration T.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RoundLength {
    Hour,
    Day,
    Week,
    /// Any duration, in hours.
    Hours(f64),
}

impl RoundLength {
    pub fn seconds(self) -> f64 {
        match self {
            RoundLength::Hour => 3600.0,
            RoundLength::Day => 86_400.0,
            RoundLength::Week => 604_800.0,
            RoundLength::Hours(h) => h * 3600.0,
        }
    }

    pub fn validate(self) -> Result<(), ConfigError> {
        crate::signal_map::limits::ROUND_HOURS
            .check("round_length", self.seconds() / 3600.0)
            .map(|_| ())
    }
}

/// The measurements of one cell, prepared for federated training.
#[derive(Clone, Debug)]
pub struct Dataset {
    pub standardizer: Standardizer,
    pub projection: LocalProjection,
    /// Training samples, sorted by user then time.
    pub train: Vec<Sample>,
    /// The held-out global test set (all users, all rounds).
    pub test: Vec<Sample>,
    /// Start of round 0 (unix seconds).
    pub t0: f64,
    pub round_s: f64,
}

impl Dataset {
    /// Projects, standardises, holds out `test_fraction` of the measurements at random (the
    /// paper does not describe its test split; 20% is our documented default), and fixes the
    /// round calendar.
    pub fn new(
        measurements: &[Measurement],
        projection: LocalProjection,
        round_length: RoundLength,
        test_fraction: f64,
        seed: u64,
    ) -> Result<Self, ConfigError> {
        round_length.validate()?;
        if !(0.0..0.9).contains(&test_fraction) {
            return Err(ConfigError::new(
                "test_fraction",
                "must be at least 0 and below 0.9",
            ));
        }
        if measurements.is_empty() {
            return Err(ConfigError::new("data", "there are no measurements"));
        }
        let positions: Vec<Metres> = measurements
            .iter()
            .map(|m| projection.to_metres(LatLon::new(m.lat, m.lon)))
            .collect();
        let standardizer = Standardizer::fit(positions.iter().copied());
        let mut stream = Stream::new(seed, "test-split");
        let (mut train, mut test) = (Vec::new(), Vec::new());
        for (m, &pos) in measurements.iter().zip(&positions) {
            let sample = Sample {
                user: m.user,
                time: m.time,
                pos,
                x: standardizer.to_input(pos),
                y: m.rsrp_dbm as f32,
            };
            if stream.chance(test_fraction) {
                test.push(sample);
            } else {
                train.push(sample);
            }
        }
        order::sort_by(&mut train, |a, b| {
            (a.user, a.time).partial_cmp(&(b.user, b.time)).unwrap()
        });
        let first = measurements
            .iter()
            .map(|m| m.time)
            .fold(f64::INFINITY, f64::min);
        let t0 = (first / 86_400.0).floor() * 86_400.0;
        Ok(Self {
            standardizer,
            projection,
            train,
            test,
            t0,
            round_s: round_length.seconds(),
        })
    }

    /// Replaces `user`'s training data by `measurements` (all kept for training: the held-out
    /// test set stays the cell's own, so edits to one user's data never move the split of the
    /// others). The standardiser and the round calendar are unchanged.
    pub fn replace_user(&mut self, user: u32, measurements: &[Measurement]) {
        self.train.retain(|s| s.user != user);
        let at = self.train.partition_point(|s| s.user < user);
        let mut mine: Vec<Sample> = measurements
            .iter()
            .map(|m| {
                let pos = self.projection.to_metres(LatLon::new(m.lat, m.lon));
                Sample {
                    user,
                    time: m.time,
                    pos,
                    x: self.standardizer.to_input(pos),
                    y: m.rsrp_dbm as f32,
                }
            })
            .collect();
        order::sort_by(&mut mine, |a, b| a.time.total_cmp(&b.time));
        self.train.splice(at..at, mine);
    }

    /// Makes `user`'s own data the test set: a random `fraction` of their training samples
    /// (stream `test-split-user`) replaces the cell's held-out set. For imported traces with a
    /// measured signal, which the synthetic test set could not judge.
    pub fn hold_out_user(&mut self, user: u32, fraction: f64, seed: u64) {
        let mut stream = Stream::new(seed, "test-split-user");
        let mut test = Vec::new();
        self.train.retain(|s| {
            if s.user == user && stream.chance(fraction) {
                test.push(*s);
                false
            } else {
                true
            }
        });
        self.test = test;
    }

    /// Every user's training data becomes `times` copies of their round `round`, one per
    /// round from round 0 on (each copy keeps the samples' offsets within the round): [000]
    /// Fig. 7, where the federation trains on the same batch round after round. The test set
    /// is unchanged.
    pub fn repeat_round(&mut self, round: usize, times: usize) {
        let (t0, round_s) = (self.t0, self.round_s);
        let from = t0 + round as f64 * round_s;
        let batch: Vec<Sample> = self
            .train
            .iter()
            .filter(|s| self.round_of(s.time) == round)
            .copied()
            .collect();
        self.train = batch
            .iter()
            .flat_map(|s| {
                (0..times).map(move |k| Sample {
                    time: s.time - from + t0 + k as f64 * round_s,
                    ..*s
                })
            })
            .collect();
        order::sort_by(&mut self.train, |a, b| {
            (a.user, a.time).partial_cmp(&(b.user, b.time)).unwrap()
        });
    }

    /// All of `user`'s training samples, in time order.
    pub fn user_data(&self, user: u32) -> &[Sample] {
        let start = self.train.partition_point(|s| s.user < user);
        let end = self.train.partition_point(|s| s.user <= user);
        &self.train[start..end]
    }

    /// The round a time falls in.
    pub fn round_of(&self, time: f64) -> usize {
        ((time - self.t0) / self.round_s).floor().max(0.0) as usize
    }

    /// Number of rounds that contain any training data.
    pub fn rounds(&self) -> usize {
        self.train
            .iter()
            .map(|s| self.round_of(s.time) + 1)
            .max()
            .unwrap_or(0)
    }

    /// D_t^k: user `user`'s training samples in round `t` (online), or in rounds 0..=t
    /// (cumulative online FL, App. A.3).
    pub fn local_data(&self, user: u32, t: usize, cumulative: bool) -> &[Sample] {
        let mine = self.user_data(user);
        let lo = if cumulative {
            0
        } else {
            mine.partition_point(|s| self.round_of(s.time) < t)
        };
        let hi = mine.partition_point(|s| self.round_of(s.time) <= t);
        &mine[lo..hi]
    }

    /// Mean RSRP of the training data: the attacker's label prior (the paper assumes the server
    /// knows the mean RSRP near the tower, [000] §2.1, "Implementation details", and App. A.4).
    pub fn mean_label(&self) -> f32 {
        (self.train.iter().map(|s| f64::from(s.y)).sum::<f64>() / self.train.len().max(1) as f64)
            as f32
    }
}

/// Centroid of some samples' positions.
pub fn centroid(samples: &[Sample]) -> Option<Metres> {
    if samples.is_empty() {
        return None;
    }
    let n = samples.len() as f64;
    let (e, no) = samples
        .iter()
        .fold((0.0, 0.0), |(a, b), s| (a + s.pos.east, b + s.pos.north));
    Some(Metres::new(e / n, no / n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal_map::world::{Preset, World};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn dataset(round: RoundLength) -> Dataset {
        let mut c = Preset::Campus.config(11);
        c.mobility.users = 2;
        c.mobility.weeks = 2;
        let w = World::generate(&c).unwrap();
        Dataset::new(&w.measurements, w.projection, round, 0.2, 11).unwrap()
    }

    #[test]
    fn rounds_partition_each_users_data() {
        let d = dataset(RoundLength::Day);
        assert_eq!(d.rounds(), 14);
        for user in 0..2 {
            let total: usize = (0..d.rounds())
                .map(|t| d.local_data(user, t, false).len())
                .sum();
            let all = d.train.iter().filter(|s| s.user == user).count();
            assert_eq!(total, all);
            for t in 0..d.rounds() {
                for s in d.local_data(user, t, false) {
                    assert_eq!(d.round_of(s.time), t);
                    assert_eq!(s.user, user);
                }
            }
            // Cumulative rounds grow.
            assert_eq!(d.local_data(user, 13, true).len(), all);
        }
    }

    #[test]
    fn a_repeated_round_is_the_same_batch_in_every_round() {
        let mut d = dataset(RoundLength::Day);
        let batch: Vec<Vec<Sample>> = (0..2).map(|u| d.local_data(u, 3, false).to_vec()).collect();
        assert!(batch.iter().all(|b| !b.is_empty()));
        d.repeat_round(3, 5);
        assert_eq!(d.rounds(), 5);
        for (user, batch) in batch.iter().enumerate() {
            assert_eq!(d.user_data(user as u32).len(), 5 * batch.len());
            for t in 0..5 {
                let round = d.local_data(user as u32, t, false);
                assert_eq!(round.len(), batch.len());
                for (a, b) in round.iter().zip(batch) {
                    assert_eq!((a.pos, a.x, a.y), (b.pos, b.x, b.y));
                    // The same moment of the round, `t` rounds from round 0.
                    let offset = |s: &Sample, r: usize| s.time - d.t0 - r as f64 * d.round_s;
                    assert!((offset(a, t) - offset(b, 3)).abs() < 1e-6);
                }
            }
        }
    }

    #[test]
    fn inputs_are_z_scored_and_invertible() {
        let d = dataset(RoundLength::Week);
        let n = d.train.len() as f64;
        let mean0 = d.train.iter().map(|s| f64::from(s.x[0])).sum::<f64>() / n;
        assert!(mean0.abs() < 0.05, "{mean0}");
        let s = d.train[100];
        let back = d
            .standardizer
            .to_metres([f64::from(s.x[0]), f64::from(s.x[1])]);
        assert!(back.distance(&s.pos) < 0.01);
    }

    #[test]
    fn the_test_split_holds_out_about_a_fifth() {
        let d = dataset(RoundLength::Week);
        let share = d.test.len() as f64 / (d.test.len() + d.train.len()) as f64;
        assert!((share - 0.2).abs() < 0.02, "{share}");
    }

    #[test]
    fn bad_round_settings_are_refused() {
        let e = RoundLength::Hours(0.001).validate().unwrap_err();
        assert_eq!(e.field, "round_length");
        assert!(RoundLength::Hours(f64::NAN).validate().is_err());
    }
}
