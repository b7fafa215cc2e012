//! `whereabouts density`: one Density-lab run ([003]) to JSON, the same numbers as the page for
//! the same settings and seed.

use serde::Serialize;
use std::path::Path;
use whereabouts_core::driver::{Driver, Guess};
use whereabouts_core::geo::Metres;
use whereabouts_engine::density::lab::DensitySummary;
use whereabouts_engine::density::{DensityConfig, DensityLab};

/// One of the visitor's places and what the server made of its answer.
#[derive(Serialize)]
struct VisitorOut {
    place: usize,
    truth: Metres,
    guess: Metres,
    error_m: f64,
    /// The places the attack could not tell apart, best first.
    candidates: Vec<Metres>,
}

#[derive(Serialize)]
struct RunOut {
    engine_version: &'static str,
    config: DensityConfig,
    summary: DensitySummary,
    /// The population's attacked uploads.
    guesses: Vec<Guess>,
    visitor: Vec<VisitorOut>,
    /// Row-major over the grid (south-west first), with --surfaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    exact: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    estimate: Option<Vec<f64>>,
}

/// Runs `config` (the lab's default without one) and returns the JSON text.
pub fn run(config: Option<&str>, surfaces: bool) -> Result<String, String> {
    run_with(config, surfaces, None)
}

/// [`run`]; with `data` (a file's name and fixes), the visitor's places are the file's frequent
/// places, as the page puts them.
pub fn run_with(
    config: Option<&str>,
    surfaces: bool,
    data: Option<(String, Vec<whereabouts_core::import::Fix>)>,
) -> Result<String, String> {
    let mut config = match config {
        Some(text) => DensityConfig::parse(text)?,
        None => DensityConfig::default(),
    };
    if let Some((name, fixes)) = data {
        let found =
            whereabouts_engine::density::visitor::places_from_fixes(&fixes, config.city_half_m)
                .map_err(|e| format!("{name}: {e}"))?;
        config.visitor = found.places;
        config.validate().map_err(|e| e.to_string())?;
    }
    let mut lab = DensityLab::start(config.clone())?;
    lab.finish(&mut |_| {})?;
    let visitor_id = lab.visitor_id();
    let out = RunOut {
        engine_version: whereabouts_engine::VERSION,
        summary: lab.summary(),
        guesses: lab
            .guesses()
            .into_iter()
            .filter(|g| g.user != visitor_id)
            .collect(),
        visitor: lab
            .visitor_answers()
            .iter()
            .map(|a| VisitorOut {
                place: a.place,
                truth: a.guess.truth,
                guess: a.guess.guess,
                error_m: a.guess.error_m(),
                candidates: a.candidates.clone(),
            })
            .collect(),
        exact: surfaces.then(|| lab.exact()),
        estimate: surfaces.then(|| lab.estimate()),
        config,
    };
    serde_json::to_string_pretty(&out)
        .map(|t| t + "\n")
        .map_err(|e| e.to_string())
}

/// The default config as TOML, a starting point for `--config`.
pub fn default_config() -> Result<String, String> {
    DensityConfig::default().to_toml()
}

/// Reads a config file, naming it in any error.
pub fn read_config(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}
