//! The visitor's drawn path, edited while the run is live: the new path is measured leg by leg
//! (legs whose end points and timing did not change keep their measurements), and the run is
//! kept up to the first round whose data changed, whose target update is retrained at once
//! (its Lemma 1 reconstruction reported before the call returns); later rounds follow in the
//! background.

use super::{Lab, LabEvent};
use crate::signal_map::trace::Sample;
use crate::signal_map::trajectory::Trajectory;
use crate::signal_map::world::{Measurement, World};
use whereabouts_core::geo::Metres;

/// What a leg's measurements depend on: its end points, leg time and fix interval.
pub(super) type LegKey = (Metres, Metres, f64, f64);

impl Lab {
    /// Replaces the visitor's trajectory. Returns the first round whose data changed (`None`
    /// if nothing did). If that round was already trained, its target update is retrained now
    /// and reported (with Lemma 1's reconstruction) before this returns; later rounds are
    /// dropped and recomputed by [`work`](Self::work).
    pub fn set_trajectory(
        &mut self,
        trajectory: Trajectory,
        emit: &mut dyn FnMut(LabEvent),
    ) -> Result<Option<usize>, String> {
        if self.config.imported.is_some() {
            return Err("the visitor's data is an imported file; forget it to draw a path".into());
        }
        trajectory
            .validate(self.world.area())
            .map_err(|e| e.to_string())?;
        let target = self.config.target;
        let measurements;
        (measurements, self.leg_cache) = measure_legs(
            &trajectory,
            &self.world,
            target,
            self.config.seed,
            &self.leg_cache,
        );
        let old: Vec<Sample> = self.data.user_data(target).to_vec();
        self.data.replace_user(target, &measurements);
        let last = measurements.last().map_or(self.data.t0, |m| m.time);
        let rounds = self.data.round_of(last) + 1;
        let old_total = self.total_rounds;
        self.total_rounds = self.config.max_rounds.map_or(rounds, |m| m.min(rounds));
        self.config.trajectory = Some(trajectory);
        // The first round whose D_t changed: that of the first sample that differs (online or
        // cumulative alike, since rounds are contiguous in time).
        let new = self.data.user_data(target);
        let differs = old
            .iter()
            .zip(new)
            .position(|(a, b)| a != b)
            .or_else(|| (old.len() != new.len()).then_some(old.len().min(new.len())));
        let first = differs.map(|i| {
            let time = match (old.get(i), new.get(i)) {
                (Some(a), Some(b)) => a.time.min(b.time),
                (Some(a), None) => a.time,
                (None, Some(b)) => b.time,
                (None, None) => unreachable!("i is within one of them"),
            };
            self.data.round_of(time)
        });
        let Some(first) = first.or_else(|| {
            (old_total != self.total_rounds).then_some(old_total.min(self.total_rounds))
        }) else {
            return Ok(None);
        };
        emit(LabEvent::Edited {
            first_changed: first,
            total_rounds: self.total_rounds,
        });
        self.wanted = self.wanted.min(self.total_rounds);
        if first < self.rounds.len() {
            let old_round = self.rounds.swap_remove(first);
            self.rounds.truncate(first);
            if first < self.total_rounds {
                self.train_round(first, Some(old_round), emit)?;
            }
        }
        Ok(Some(first))
    }
}

/// The measurements of a drawn path, leg by leg, and the cache for the next edit: legs whose
/// end points and timing are those of `cache` keep their measurements.
pub(super) fn measure_legs(
    trajectory: &Trajectory,
    world: &World,
    target: u32,
    seed: u64,
    cache: &[(LegKey, Vec<Measurement>)],
) -> (Vec<Measurement>, Vec<(LegKey, Vec<Measurement>)>) {
    let mut measurements = Vec::new();
    let mut legs = Vec::with_capacity(trajectory.legs());
    for k in 0..trajectory.legs() {
        let key = trajectory.leg_key(k);
        let leg = match cache.get(k) {
            Some((old_key, leg)) if *old_key == key => leg.clone(),
            _ => trajectory.leg_measurements(world, target, seed, k),
        };
        measurements.extend_from_slice(&leg);
        legs.push((key, leg));
    }
    (measurements, legs)
}
