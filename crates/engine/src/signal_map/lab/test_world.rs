//! The small world the secure-aggregation, central-DP and malicious-server tests share
//! (`secure_tests`, `central_dp_tests`, `malicious_tests`): the campus with 7 users over one
//! week, no background cells, seed 3, and a run of it to its end.

use super::*;
use crate::signal_map::scenario::WorldChoice;
use crate::signal_map::world::Preset;

/// The campus (7 users, 1 week, no background cells), seed 3: the visitor (user 0) and users
/// 1..=`others` take part, for at most `rounds` rounds; every other setting its default.
pub(super) fn campus(others: u32, rounds: usize) -> ScenarioConfig {
    ScenarioConfig {
        seed: 3,
        world: WorldChoice {
            preset: Preset::Campus,
            users: Some(7),
            weeks: Some(1),
            cell: None,
            background: Some(false),
        },
        participants: Some((0..=others).collect()),
        max_rounds: Some(rounds),
        ..ScenarioConfig::default()
    }
}

/// The lab of `config` run to its end (every round wanted), and the events it sent.
pub(super) fn finished_with_events(config: ScenarioConfig) -> (Lab, Vec<LabEvent>) {
    let mut lab = Lab::new(config).unwrap();
    lab.want(usize::MAX);
    let mut events = Vec::new();
    lab.finish(&mut |e| events.push(e)).unwrap();
    (lab, events)
}

/// The lab of `config` run to its end (every round wanted).
pub(super) fn finished(config: ScenarioConfig) -> Lab {
    finished_with_events(config).0
}
