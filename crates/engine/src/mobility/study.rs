//! The Mobility lab's privacy–utility study ([002] Table 5 and Fig. 5 on the visitor's run):
//! the same target, city and attack with no defence and with every defence at every ε of the
//! paper's table, each run measured by the attack's mean ASR and AIT and the model's utility
//! (next-location error on held-out windows, recall@5). The page runs it in the worker on the
//! core's [`runner`]; the command line's tables are made in [`super::experiments`].

use super::config::MobConfig;
use super::defence::{Audit, Defence, DpClip};
use super::experiments::{EPSILONS, format_epsilon};
use super::lab::MobLab;
use serde::{Deserialize, Serialize};
use whereabouts_core::driver::Driver;
pub use whereabouts_core::sweep::runner;
use whereabouts_core::sweep::{PageStudy, cell, failures};
use whereabouts_core::table::Table;

/// The defences of the study, by family key, each at ε.
pub const FAMILIES: [&str; 5] = ["none", "dp_sgd", "geo_i", "geo_gi", "adaptive"];

/// One run: a defence on the base config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyRun {
    /// One of [`FAMILIES`].
    pub family: String,
    pub epsilon: Option<f64>,
    /// How the page names it ("GeoI, ε = 5").
    pub label: String,
    pub config: MobConfig,
}

/// What one run gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyPoint {
    pub family: String,
    pub epsilon: Option<f64>,
    pub label: String,
    /// The attack's mean ASR over the rounds (with the configured calibration) and mean AIT.
    pub asr: Option<f64>,
    pub ait: Option<f64>,
    /// The model's mean next-location error on held-out windows, metres, and recall@5.
    pub utility_error_m: Option<f64>,
    pub recall_at_5: Option<f64>,
    /// Why the run failed, if it did.
    pub failed: Option<String>,
    /// The total ε over the run, on the defence's footing ([`Defence::total_epsilon`]):
    /// DP-SGD's by Rényi-DP composition at δ = 10⁻⁵ per device; a location defence's for the
    /// whole trajectory, per km ([`super::defence::LocationLoss::trajectory`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_epsilon: Option<f64>,
}

/// The defence of `family` at `epsilon` (the adaptive one audits as `audit` says).
fn defence(family: &str, epsilon: f64, audit: Audit) -> Defence {
    match family {
        "dp_sgd" => Defence::DpSgd {
            epsilon,
            clip: DpClip::Flat,
        },
        "geo_i" => Defence::GeoI { epsilon },
        "geo_gi" => Defence::GeoGi { epsilon },
        "adaptive" => Defence::Adaptive { epsilon, audit },
        _ => Defence::None,
    }
}

/// The study's runs on `base` (its target, city, federation and attack): no defence, then each
/// defence at every ε of [`EPSILONS`]. The adaptive defence audits as `base`'s does, if it is
/// the adaptive one; else by the self-audit.
pub fn runs(base: &MobConfig) -> Vec<StudyRun> {
    let audit = match base.defence {
        Defence::Adaptive { audit, .. } => audit,
        _ => Audit::SelfAudit,
    };
    let with = |defence| MobConfig {
        defence,
        ..base.clone()
    };
    let mut runs = vec![StudyRun {
        family: "none".into(),
        epsilon: None,
        label: "no defence".into(),
        config: with(Defence::None),
    }];
    for family in &FAMILIES[1..] {
        for e in EPSILONS {
            let d = defence(family, e, audit);
            runs.push(StudyRun {
                family: (*family).into(),
                epsilon: Some(e),
                label: format!("{}, ε = {e}", d.name()),
                config: with(d),
            });
        }
    }
    runs
}

/// What the total ε column holds, row by row.
pub const TOTAL_NOTE: &str = "Total ε over the run: DP-SGD's is (ε, 10⁻⁵)-DP per device for its whole trajectory trained on, by Rényi-DP composition of every round's noise (ε per round protects that round's window of 9 fixes against a server that sees the update; both are upper bounds from different accountings); the location defences' is per km that each position moves, for the whole trajectory by basic composition (δ = 0): every round re-noises all 9 positions of its window, so GeoI's and GeoGI's is 9 × rounds × ε, the adaptive PGEM's at most 9 × ε (its rounds' ε_t sum to at most ε); one position alone, noised in each of the up to 9 windows that hold it, gets min(rounds, 9) × ε and at most ε.";

/// A point's total ε with its unit.
pub fn total_cell(p: &StudyPoint) -> String {
    match (p.total_epsilon, p.family.as_str()) {
        (None, _) => "–".into(),
        (Some(t), "dp_sgd") => format!("{} at δ = 10⁻⁵", format_epsilon(t)),
        // PGEM's rounds' ε_t sum to at most its ε: a bound.
        (Some(t), "adaptive") => format!("≤ {} per km", format_epsilon(t)),
        (Some(t), _) => format!("{} per km", format_epsilon(t)),
    }
}

/// The study on a base configuration: each run a [`MobLab`], measured by the attack and the
/// model's utility; as a sweep of its runs, `whereabouts sweep plan mobility --study defences`.
impl PageStudy for StudyRun {
    type Base = MobConfig;
    type Lab = MobLab;
    type Point = StudyPoint;

    fn runs(base: &MobConfig) -> Result<Vec<StudyRun>, String> {
        base.validate()?;
        Ok(runs(base))
    }

    fn seed(&self) -> u64 {
        self.config.seed
    }

    fn start(&self) -> Result<MobLab, String> {
        MobLab::start(self.config.clone())
    }

    fn measure(&self, lab: &MobLab, failed: Option<String>) -> StudyPoint {
        let summary = lab.summary();
        StudyPoint {
            family: self.family.clone(),
            epsilon: self.epsilon,
            label: self.label.clone(),
            asr: summary.mean_asr,
            ait: summary.mean_ait,
            utility_error_m: summary.utility_error_m,
            recall_at_5: summary.recall_at_5,
            failed,
            total_epsilon: self
                .config
                .defence
                .total_epsilon(summary.rounds_done, summary.dp_epsilon),
        }
    }

    fn table(base: &MobConfig, points: &[StudyPoint]) -> Table {
        Table {
            title: format!(
                "The privacy–utility study: every defence at every ε on one target ({} rounds, seed {}; Table 5, Fig. 5)",
                base.rounds, base.seed
            ),
            notes: {
                let mut notes = vec![TOTAL_NOTE.to_string()];
                notes.extend(failures(points.iter().map(|p| (&p.label, &p.failed))));
                notes
            },
            columns: [
                "defence",
                "ASR",
                "AIT",
                "next-position error m",
                "recall@5",
                "total ε over the run",
            ]
            .map(String::from)
            .to_vec(),
            rows: points
                .iter()
                .map(|p| {
                    vec![
                        p.label.clone(),
                        cell(p.asr, 3, ""),
                        cell(p.ait, 2, ""),
                        cell(p.utility_error_m, 0, ""),
                        cell(p.recall_at_5, 3, ""),
                        total_cell(p),
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
    fn every_defence_at_every_epsilon_is_a_point_with_its_privacy_and_utility() {
        let mut base = MobConfig {
            rounds: 3,
            held_out: 4,
            defence: Defence::Adaptive {
                epsilon: 1.0,
                audit: Audit::PreviousRound,
            },
            ..MobConfig::default()
        };
        base.attack.iterations = 10;
        let runs = runs(&base);
        assert_eq!(runs.len(), 1 + 4 * EPSILONS.len());
        assert!(runs.iter().all(|r| r.config.rounds == 3));
        assert!(
            runs.iter()
                .filter(|r| r.family == "adaptive")
                .all(|r| matches!(
                    r.config.defence,
                    Defence::Adaptive {
                        audit: Audit::PreviousRound,
                        ..
                    }
                )),
            "the base's audit is kept"
        );
        assert_eq!(runs[6].label, "GeoI, ε = 1");
        let points = runner(runs).finish().unwrap();
        assert_eq!(points.len(), 21);
        for p in &points {
            assert!(p.failed.is_none(), "{p:?}");
            let asr = p.asr.unwrap();
            assert!((0.0..=1.0).contains(&asr), "{p:?}");
            assert!(p.utility_error_m.unwrap() > 0.0, "{p:?}");
            assert!((0.0..=1.0).contains(&p.recall_at_5.unwrap()), "{p:?}");
            // Every defended row's total ε, on its own footing.
            let e = p.epsilon.unwrap_or_default();
            match p.family.as_str() {
                "none" => assert_eq!(p.total_epsilon, None),
                "dp_sgd" => assert!(p.total_epsilon.unwrap() > e, "{p:?}"),
                // 3 rounds of 9 noisy positions each.
                "geo_i" | "geo_gi" => assert_eq!(p.total_epsilon, Some(27.0 * e)),
                _ => assert_eq!(p.total_epsilon, Some(9.0 * e)),
            }
        }
        let dp: Vec<f64> = points
            .iter()
            .filter(|p| p.family == "dp_sgd")
            .map(|p| p.total_epsilon.unwrap())
            .collect();
        assert!(dp.windows(2).all(|w| w[0] < w[1]), "{dp:?}");
        let table = StudyRun::table(&base, &points);
        assert_eq!(table.columns.last().unwrap(), "total ε over the run");
        assert!(
            table.rows[1][5].ends_with("at δ = 10⁻⁵"),
            "{:?}",
            table.rows[1]
        );
        assert_eq!(table.rows[6][5], "27 per km");
        assert_eq!(table.rows[16][5], "≤ 9 per km", "{:?}", table.rows[16]);
    }
}
