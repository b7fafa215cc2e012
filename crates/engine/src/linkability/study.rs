//! The Linkability lab's trade-off study ([004] §11, Fig. 14): the page's run under every
//! mitigation at every strength of its grid, each measured by its privacy (the attack's mean AP
//! as a multiple of chance, retrained on the mitigated updates) and its utility (the global
//! model's test RMSE). The page runs it in the worker on the core's [`StudyRunner`].

use super::config::{LinkConfig, Mitigation};
use super::experiments::mitigation_grid;
use super::lab::LinkLab;
use serde::{Deserialize, Serialize};
use whereabouts_core::driver::Driver;
use whereabouts_core::study::StudyRunner;

/// One run of the study: a mitigation on the base config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyRun {
    pub mitigation: Mitigation,
    pub config: LinkConfig,
}

/// What one run gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyPoint {
    /// "none", "noise", "bkg-repl", "rand-aug", "mm-aug".
    pub mitigation: String,
    /// σ, β or α (0 for none).
    pub strength: f64,
    /// Privacy: the attack's mean AP, and as a multiple of chance.
    pub mean_ap: Option<f64>,
    pub over_chance: Option<f64>,
    /// Where your second device came in the server's ranking for you.
    pub your_rank: Option<usize>,
    /// Utility: the global model's test RMSE, dB.
    pub test_rmse: Option<f64>,
    /// Why the run failed, if it did.
    pub failed: Option<String>,
}

/// Every mitigation at every strength of its grid on `base` (its people, split, attack).
pub fn runs(base: &LinkConfig) -> Vec<StudyRun> {
    mitigation_grid()
        .into_iter()
        .map(|mitigation| StudyRun {
            mitigation,
            config: LinkConfig {
                mitigation,
                ..base.clone()
            },
        })
        .collect()
}

pub fn measure(run: &StudyRun, lab: &LinkLab, failed: Option<String>) -> StudyPoint {
    let summary = lab.summary();
    StudyPoint {
        mitigation: run.mitigation.name().into(),
        strength: run.mitigation.strength(),
        mean_ap: summary.identification.map(|m| m.mean_ap),
        over_chance: summary.identification.map(|m| m.over_chance()),
        your_rank: summary.your_rank,
        test_rmse: summary.test_rmse,
        failed,
    }
}

/// The runner for `runs`: each run a [`LinkLab`], measured by [`measure`].
pub fn runner(runs: Vec<StudyRun>) -> StudyRunner<StudyRun, LinkLab, StudyPoint> {
    StudyRunner::new(
        runs,
        |r: &StudyRun| LinkLab::start(r.config.clone()),
        measure,
    )
}
