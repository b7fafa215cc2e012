//! `whereabouts run --lab density|linkability|mobility`: one run of any lab from a config (TOML
//! or JSON; left-out settings keep the lab's defaults), to JSON — the same numbers as the page
//! for the same settings and seed. With `--data`, the visitor's own file goes in as the page
//! puts it in: the Density lab's places are its frequent places, the Linkability lab's visitor
//! is the file split over their two devices, the Mobility lab's target is its positions.

use serde::Serialize;
use whereabouts_core::driver::{Driver, Guess};
use whereabouts_core::import::Fix;
use whereabouts_engine::linkability::config::{LinkConfig, You};
use whereabouts_engine::linkability::lab::LinkLab;
use whereabouts_engine::mobility::config::MobConfig;
use whereabouts_engine::mobility::lab::MobLab;
use whereabouts_engine::mobility::traces::Target;
use whereabouts_engine::signal_map::placement::ImportedTrace;

/// The labs `run --lab` takes besides the Signal map.
pub const LABS: &str = "signal-map, density, linkability, mobility";

/// A run's figures as the CLI writes them.
#[derive(Serialize)]
struct RunOut<C, S> {
    engine_version: &'static str,
    config: C,
    summary: S,
    guesses: Vec<Guess>,
}

/// Runs a lab to the end and returns its JSON.
fn run_driver<D: Driver>(config: D::Config) -> Result<String, String>
where
    D::Config: Clone + Serialize,
    D::Summary: Serialize,
{
    let mut lab = D::start(config.clone())?;
    lab.finish(&mut |_| {})?;
    let out = RunOut {
        engine_version: whereabouts_engine::VERSION,
        config,
        summary: lab.summary(),
        guesses: lab.guesses(),
    };
    serde_json::to_string_pretty(&out)
        .map(|t| t + "\n")
        .map_err(|e| e.to_string())
}

/// The Linkability lab ([004]) on `text` (the default run without one); with `data` (a file's
/// name and fixes), the visitor is that file.
pub fn linkability(text: Option<&str>, data: Option<(String, Vec<Fix>)>) -> Result<String, String> {
    let mut config: LinkConfig = match text {
        Some(t) => whereabouts_engine::config_text::parse(t)?,
        None => LinkConfig::default(),
    };
    if let Some((name, fixes)) = data {
        let trace = ImportedTrace::new(name, fixes);
        trace.placement()?;
        config.you = You::File { trace };
    }
    config.validate().map_err(|e| e.to_string())?;
    run_driver::<LinkLab>(config)
}

/// The Mobility lab ([002]) on `text` (the default run without one); with `data`, the target
/// is the file's positions on the city's plane.
pub fn mobility(text: Option<&str>, data: Option<(String, Vec<Fix>)>) -> Result<String, String> {
    let mut config: MobConfig = match text {
        Some(t) => whereabouts_engine::config_text::parse(t)?,
        None => MobConfig::default(),
    };
    if let Some((name, fixes)) = data {
        let target = whereabouts_engine::mobility::visitor::target_from_file(&fixes)
            .map_err(|e| format!("{name}: {e}"))?;
        if let Some(note) = target.note() {
            eprintln!("whereabouts: {note}");
        }
        config.target = Target::Fixes {
            fixes: target.fixes,
        };
    }
    config.validate()?;
    run_driver::<MobLab>(config)
}

/// The lab's default config as TOML, a starting point for `--config`.
pub fn default_config(lab: &str) -> Result<String, String> {
    let toml = |r: Result<String, toml::ser::Error>| r.map_err(|e| e.to_string());
    match lab {
        "signal-map" => {
            whereabouts_engine::signal_map::scenario::ScenarioConfig::default().to_toml()
        }
        "density" => crate::density::default_config(),
        "linkability" => toml(toml::to_string(&LinkConfig::default())),
        "mobility" => toml(toml::to_string(&MobConfig::default())),
        other => Err(format!("no lab is called “{other}” ({LABS})")),
    }
}
