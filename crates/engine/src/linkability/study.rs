//! The Linkability lab's trade-off study ([004] §9.2, Fig. 14): the page's run under every
//! mitigation at every strength of its grid, each measured by its privacy (the attack's mean AP
//! as a multiple of chance, retrained on the mitigated updates) and its utility (the global
//! model's test RMSE). The page runs it in the worker on the core's [`runner`].

use super::config::{LinkConfig, Mitigation};
use super::experiments::mitigation_grid;
use super::lab::LinkLab;
use serde::{Deserialize, Serialize};
use whereabouts_core::driver::Driver;
pub use whereabouts_core::sweep::runner;
use whereabouts_core::sweep::{PageStudy, cell, failures};
use whereabouts_core::table::Table;

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
    /// Where your second device came in the server's ranking for you (expected over a random
    /// order of tied scores).
    pub your_rank: Option<f64>,
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

/// The study on a base configuration: each run a [`LinkLab`], measured by its privacy and
/// utility; as a sweep of its runs, `whereabouts sweep plan linkability --study mitigations`.
impl PageStudy for StudyRun {
    type Base = LinkConfig;
    type Lab = LinkLab;
    type Point = StudyPoint;

    fn runs(base: &LinkConfig) -> Result<Vec<StudyRun>, String> {
        base.validate().map_err(|e| e.to_string())?;
        Ok(runs(base))
    }

    fn seed(&self) -> u64 {
        self.config.seed
    }

    fn start(&self) -> Result<LinkLab, String> {
        LinkLab::start(self.config.clone())
    }

    fn measure(&self, lab: &LinkLab, failed: Option<String>) -> StudyPoint {
        let summary = lab.summary();
        StudyPoint {
            mitigation: self.mitigation.name().into(),
            strength: self.mitigation.strength(),
            mean_ap: summary.identification.map(|m| m.mean_ap),
            over_chance: summary.identification.map(|m| m.over_chance()),
            your_rank: summary.your_rank,
            test_rmse: summary.test_rmse,
            failed,
        }
    }

    fn table(base: &LinkConfig, points: &[StudyPoint]) -> Table {
        // Utility relative to the first run's (no mitigation).
        let unmitigated = points.first().and_then(|p| p.test_rmse);
        let label = |p: &StudyPoint| format!("{} {}", p.mitigation, p.strength);
        let labels: Vec<String> = points.iter().map(label).collect();
        Table {
            title: format!(
                "The trade-off study: every mitigation at every strength, {} people, {} split, the {} attack (Fig. 14)",
                base.people,
                base.split.name(),
                base.attack.short_label()
            ),
            notes: failures(labels.iter().zip(points.iter().map(|p| &p.failed))),
            columns: [
                "mitigation",
                "strength",
                "mean AP %",
                "×chance",
                "your new device ranked",
                "test RMSE dB",
                "relative RMSE",
            ]
            .map(String::from)
            .to_vec(),
            rows: points
                .iter()
                .map(|p| {
                    vec![
                        p.mitigation.clone(),
                        p.strength.to_string(),
                        cell(p.mean_ap.map(|a| 100.0 * a), 1, ""),
                        cell(p.over_chance, 1, ""),
                        cell(p.your_rank, 1, ""),
                        cell(p.test_rmse, 2, ""),
                        cell(p.test_rmse.zip(unmitigated).map(|(r, b)| r / b), 2, ""),
                    ]
                })
                .collect(),
        }
    }
}
