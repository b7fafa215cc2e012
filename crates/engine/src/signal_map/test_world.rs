//! The small world the Signal map's secure-aggregation tests share (the lab's `secure_tests`,
//! `central_dp_tests`, `malicious_tests`, and `disaggregation`'s): the campus with 7 users over
//! one week, no background cells, seed 3, and a lab run of it to its end.

use crate::signal_map::lab::{Lab, LabEvent};
use crate::signal_map::scenario::{ScenarioConfig, WorldChoice};
use crate::signal_map::world::Preset;

/// The campus (7 users, 1 week, no background cells), seed 3: the visitor (user 0) and users
/// 1..=`others` take part; every other setting its default.
pub(crate) fn campus(others: u32) -> ScenarioConfig {
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
        ..ScenarioConfig::default()
    }
}

/// The lab of `config` run to its end (every round wanted), and the events it sent.
pub(crate) fn finished_with_events(config: ScenarioConfig) -> (Lab, Vec<LabEvent>) {
    let mut lab = Lab::new(config).unwrap();
    lab.want(usize::MAX);
    let mut events = Vec::new();
    lab.finish(&mut |e| events.push(e)).unwrap();
    (lab, events)
}

/// The lab of `config` run to its end (every round wanted).
pub(crate) fn finished(config: ScenarioConfig) -> Lab {
    finished_with_events(config).0
}
