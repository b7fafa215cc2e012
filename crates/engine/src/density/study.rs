//! The Density lab's privacy–utility study: the same city and visitor under every scheme the
//! page offers — random features over B (with the 0-feature baseline, [003] "Baseline 2"), the
//! baseline federated KDE ("Baseline 1") and geo-indistinguishability over ε — each run measured
//! by its utility (Spearman's ρ, hotspot F1) and its privacy (how far the server's guesses land).
//! The page runs it in the worker on the core's [`runner`]; the command line to the end.

use super::config::{DensityConfig, Scheme};
use super::lab::DensityLab;
use serde::{Deserialize, Serialize};
use whereabouts_core::driver::Driver;
pub use whereabouts_core::sweep::runner;
use whereabouts_core::sweep::{PageStudy, cell, failures};
use whereabouts_core::table::Table;

/// B for the feature sweep: the page's choices.
pub const FEATURES: [usize; 7] = [0, 1, 2, 3, 5, 10, 50];
/// GeoInd ε per metre for its sweep (a mean shift of 2/ε: 2 km … 20 m).
pub const GEOIND_EPSILONS: [f64; 5] = [0.001, 0.003, 0.01, 0.03, 0.1];

/// One run of the study: a scheme on the base config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyRun {
    /// "rff", "kde" or "geoind" (the scheme's name).
    pub family: String,
    /// B for random features, ε per metre for GeoInd, none for the baseline KDE.
    pub parameter: Option<f64>,
    /// How the page and the tables name it ("B = 3", "ε = 0.01/m", "own bump").
    pub label: String,
    pub config: DensityConfig,
}

/// What one run gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyPoint {
    pub family: String,
    pub parameter: Option<f64>,
    pub label: String,
    /// Utility: Spearman's ρ over all cells, and hotspot F1.
    pub spearman_all: Option<f64>,
    pub hotspot_f1: Option<f64>,
    /// Privacy over the attacked sample: median and mean error, share within 100 m.
    pub median_m: Option<f64>,
    pub mean_m: Option<f64>,
    pub located: Option<f64>,
    pub random_guess_m: Option<f64>,
    /// The mean error of the guesses at the visitor's places.
    pub visitor_m: Option<f64>,
    /// Why the run failed, if it did.
    pub failed: Option<String>,
}

/// The study's runs on `base` (its city, visitor, attack and persistence): every B, the
/// baseline KDE, every GeoInd ε.
pub fn runs(base: &DensityConfig) -> Vec<StudyRun> {
    let with = |scheme| DensityConfig {
        scheme,
        ..base.clone()
    };
    let features = FEATURES.iter().map(|&b| StudyRun {
        family: "rff".into(),
        parameter: Some(b as f64),
        label: format!("B = {b}"),
        config: with(Scheme::Rff { features: b }),
    });
    let kde = std::iter::once(StudyRun {
        family: "kde".into(),
        parameter: None,
        label: "own bump".into(),
        config: with(Scheme::Kde),
    });
    let geoind = GEOIND_EPSILONS.iter().map(|&e| StudyRun {
        family: "geoind".into(),
        parameter: Some(e),
        label: format!("ε = {e}/m"),
        config: with(Scheme::GeoInd { epsilon_per_m: e }),
    });
    features.chain(kde).chain(geoind).collect()
}

/// The study on a base configuration: each run a [`DensityLab`], measured by its utility and
/// privacy; as a sweep of its runs, `whereabouts sweep plan density --study schemes`.
impl PageStudy for StudyRun {
    type Base = DensityConfig;
    type Lab = DensityLab;
    type Point = StudyPoint;

    fn runs(base: &DensityConfig) -> Result<Vec<StudyRun>, String> {
        base.validate().map_err(|e| e.to_string())?;
        Ok(runs(base))
    }

    fn seed(&self) -> u64 {
        self.config.seed
    }

    fn start(&self) -> Result<DensityLab, String> {
        DensityLab::start(self.config.clone())
    }

    fn measure(&self, lab: &DensityLab, failed: Option<String>) -> StudyPoint {
        let summary = lab.summary();
        let visitor: Vec<f64> = lab
            .visitor_answers()
            .iter()
            .map(|a| a.guess.error_m())
            .collect();
        StudyPoint {
            family: self.family.clone(),
            parameter: self.parameter,
            label: self.label.clone(),
            spearman_all: summary.utility.as_ref().map(|u| u.spearman_all),
            hotspot_f1: summary.utility.as_ref().map(|u| u.hotspot_f1),
            median_m: summary.privacy.as_ref().map(|p| p.median_m),
            mean_m: summary.privacy.as_ref().map(|p| p.mean_m),
            located: summary.privacy.as_ref().map(|p| p.located),
            random_guess_m: summary.privacy.as_ref().map(|p| p.random_guess_m),
            visitor_m: (!visitor.is_empty())
                .then(|| visitor.iter().sum::<f64>() / visitor.len() as f64),
            failed,
        }
    }

    fn table(base: &DensityConfig, points: &[StudyPoint]) -> Table {
        Table {
            title: format!(
                "The privacy–utility study: every scheme on one city (N = {}, seed {})",
                base.population, base.seed
            ),
            notes: failures(points.iter().map(|p| (&p.label, &p.failed))),
            columns: [
                "phones send",
                "Spearman ρ",
                "hotspot F1",
                "median error m",
                "mean error m",
                "found ≤ 100 m %",
                "random guess m",
                "your places m",
            ]
            .map(String::from)
            .to_vec(),
            rows: points
                .iter()
                .map(|p| {
                    vec![
                        p.label.clone(),
                        cell(p.spearman_all, 3, ""),
                        cell(p.hotspot_f1, 3, ""),
                        cell(p.median_m, 0, ""),
                        cell(p.mean_m, 0, ""),
                        cell(p.located.map(|l| 100.0 * l), 1, ""),
                        cell(p.random_guess_m, 0, ""),
                        cell(p.visitor_m, 0, ""),
                    ]
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_study_trades_utility_for_privacy_along_b_and_epsilon() {
        let base = DensityConfig {
            population: 600,
            grid_side: 48,
            attacked: 40,
            ..DensityConfig::default()
        };
        let runs = runs(&base);
        assert_eq!(runs.len(), FEATURES.len() + 1 + GEOIND_EPSILONS.len());
        let points = runner(runs).finish().unwrap();
        let get = |label: &str| points.iter().find(|p| p.label == label).unwrap();
        for p in &points {
            assert!(p.failed.is_none(), "{p:?}");
            assert!(p.visitor_m.is_some(), "{p:?}");
        }
        // Nothing shared ranks nothing; the own bump is the exact KDE and gives everyone away.
        assert_eq!(get("B = 0").spearman_all, Some(0.0));
        assert!(get("own bump").spearman_all.unwrap() > 0.999);
        assert!(get("own bump").median_m.unwrap() < 100.0);
        // More features: better density, closer guesses.
        assert!(get("B = 50").spearman_all.unwrap() > get("B = 1").spearman_all.unwrap());
        assert!(get("B = 50").median_m.unwrap() < get("B = 1").median_m.unwrap());
        // Less GeoInd noise: the same.
        let (loose, tight) = (get("ε = 0.1/m"), get("ε = 0.001/m"));
        assert!(loose.spearman_all.unwrap() > tight.spearman_all.unwrap());
        assert!(loose.median_m.unwrap() < tight.median_m.unwrap());
    }
}
