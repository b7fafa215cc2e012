//! A run's setup: the world (generated, or given by a study), the dataset with the visitor's
//! drawn path or imported file in place of the target's routine, the model's start (with the
//! warm start, taken from the cache when it holds it), the number of rounds and the federation.

use super::Lab;
use super::edit::measure_legs;
use crate::signal_map::fl::Federation;
use crate::signal_map::scenario::{OutputBias, ScenarioConfig};
use crate::signal_map::trace::Dataset;
use crate::signal_map::warm_start::WarmCache;
use crate::signal_map::world::World;
use whereabouts_core::rng::Stream;

impl Lab {
    /// A lab for `config`. The target is the visitor when the config carries a drawn
    /// trajectory or imported data, otherwise a synthetic user with its own routine.
    pub fn new(config: ScenarioConfig) -> Result<Self, String> {
        config.validate().map_err(|e| e.to_string())?;
        let world = World::generate(&config.world_config()).map_err(|e| e.to_string())?;
        Self::with_world(config, world)
    }

    /// [`new`](Self::new) in a world already generated for this config (it must be
    /// `World::generate(&config.world_config())`; studies reuse one world for many runs).
    pub fn with_world(config: ScenarioConfig, world: World) -> Result<Self, String> {
        Self::with_world_cached(config, world, &mut WarmCache::default())
    }

    /// [`new`](Self::new), taking a warm start from `cache` if it holds this config's.
    pub fn new_cached(config: ScenarioConfig, cache: &mut WarmCache) -> Result<Self, String> {
        config.validate().map_err(|e| e.to_string())?;
        let world = World::generate(&config.world_config()).map_err(|e| e.to_string())?;
        Self::with_world_cached(config, world, cache)
    }

    /// [`with_world`](Self::with_world), taking a warm start from `cache` if it holds this
    /// config's (and leaving it there).
    pub fn with_world_cached(
        config: ScenarioConfig,
        world: World,
        cache: &mut WarmCache,
    ) -> Result<Self, String> {
        config.validate().map_err(|e| e.to_string())?;
        if world.config != config.world_config() {
            return Err("internal: the world does not belong to this config".into());
        }
        let mut data = Dataset::new(
            &world.measurements,
            world.projection,
            config.round_length,
            config.test_fraction,
            config.seed,
        )
        .map_err(|e| e.to_string())?;
        let users: Vec<u32> = match &config.participants {
            Some(list) => list.clone(),
            None => world.users.iter().map(|u| u.id).collect(),
        };
        if let Some(bad) = users
            .iter()
            .chain(std::iter::once(&config.target))
            .find(|&&u| u as usize >= world.users.len())
        {
            return Err(format!(
                "participants/target: user {bad} does not exist (the world has users 0–{})",
                world.users.len() - 1
            ));
        }
        if !users.contains(&config.target) {
            return Err(format!(
                "target: user {} is not among the participants {users:?}",
                config.target
            ));
        }
        let spec = config.model.spec();
        // The output bias starts from the world's labels, before the visitor's data replaces
        // the target's routine.
        let bias = match config.output_bias {
            OutputBias::Zero => 0.0,
            OutputBias::MeanLabel => data.mean_label(),
        };
        let mut initial = spec.init(bias, &mut Stream::new(config.seed, "model-init"));
        if let Some(warm) = &config.warm_start {
            // Everything the warm-up depends on (the other users' data: the world, the seed's
            // test split; the model and its start).
            let key = serde_json::to_string(&(
                world.config.clone(),
                config.seed,
                config.test_fraction,
                &config.model,
                config.output_bias,
                warm,
                config.target,
            ))
            .map_err(|e| format!("internal: {e}"))?;
            initial = cache.get_or_train(key, || {
                warm.train(&spec, &initial, &data, config.target, config.seed)
            })?;
        }
        let mut rounds = data.rounds();
        let mut leg_cache = Vec::new();
        if let Some(trajectory) = &config.trajectory {
            trajectory
                .validate(world.area())
                .map_err(|e| e.to_string())?;
            let measurements;
            (measurements, leg_cache) =
                measure_legs(trajectory, &world, config.target, config.seed, &[]);
            data.replace_user(config.target, &measurements);
            let last = measurements.last().map_or(data.t0, |m| m.time);
            rounds = data.round_of(last) + 1;
        }
        if let Some(trace) = &config.imported {
            let placement = trace.placement()?;
            let measurements = placement.measurements(&world, config.target, config.seed);
            data.replace_user(config.target, &measurements);
            if trace.has_signal() {
                data.hold_out_user(config.target, config.test_fraction, config.seed);
            }
            let last = measurements.last().map_or(data.t0, |m| m.time);
            rounds = data.round_of(last) + 1;
        }
        if let Some(same) = config.same_batch {
            if data.local_data(config.target, same.round, false).is_empty() {
                return Err(format!(
                    "same_batch.round: the target has no data in round {} (the run has {rounds} rounds)",
                    same.round
                ));
            }
            data.repeat_round(same.round, same.rounds);
            rounds = same.rounds;
        }
        let total_rounds = config.max_rounds.map_or(rounds, |m| m.min(rounds));
        let mut federation = Federation::new(spec, config.fl.clone(), config.seed);
        federation.dp = config.defence.dp();
        let selector = config.defence.selector(&data);
        Ok(Self {
            config,
            world,
            data,
            federation,
            selector,
            users,
            initial,
            total_rounds,
            rounds: Vec::new(),
            wanted: 0,
            stopped: None,
            leg_cache,
            timed: true,
        })
    }
}
