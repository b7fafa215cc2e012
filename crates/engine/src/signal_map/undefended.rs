//! The same run without its defence, and what the two say side by side.
//!
//! A defence is meant to push the server's guesses away from you, but it need not: a batch
//! defence ([000] §4.3–4.4) trains on a subset of your own fixes, so what the server recovers
//! is still a place you went, and on a map the federation has already learnt (the warm start)
//! the undefended attack may have been no better than random guesses to begin with. The lab
//! therefore runs the visitor's path a second time with no defence — same world, seed, path,
//! federation and attack — and [`Comparison::reading`] says plainly whether the defence moved
//! the server's closest attack away from the visitor, left it where it was, or brought it
//! closer, and why where the figures show it. This comparison is the project's (none of the
//! papers runs it per path); it is one run each, not an interval: the defence study compares
//! over more runs.

use crate::signal_map::defence::Defence;
use crate::signal_map::scenario::{ScenarioConfig, Summary};
use serde::{Deserialize, Serialize};

/// A change in the closest attack's median error smaller than this share of the undefended
/// one reads as "about the same": one run each, so a small difference is noise.
pub const ALIKE_SHARE: f64 = 0.10;

/// An undefended attack whose EMD is at least this share of the random-guess EMD reads as "no
/// better than random guesses".
pub const RANDOM_SHARE: f64 = 0.90;

/// `config` without its defence, everything else the same; `None` when it has none.
pub fn config(config: &ScenarioConfig) -> Option<ScenarioConfig> {
    (config.defence != Defence::None).then(|| ScenarioConfig {
        defence: Defence::None,
        ..config.clone()
    })
}

/// The server's closest attack over a run — the one whose median error is smaller ("DLG" or
/// "analytic"), with that median in metres: the server uses its best.
pub fn closest(s: &Summary) -> Option<(&'static str, f64)> {
    match (s.median_error_m, s.analytic_median_error_m) {
        (Some(d), Some(a)) if a < d => Some(("analytic", a)),
        (Some(d), _) => Some(("DLG", d)),
        (None, Some(a)) => Some(("analytic", a)),
        (None, None) => None,
    }
}

/// Which way the defence moved the server's closest attack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// The defended median error is more than [`ALIKE_SHARE`] below the undefended one.
    Closer,
    /// Within [`ALIKE_SHARE`] of it.
    Alike,
    /// More than [`ALIKE_SHARE`] above it.
    Farther,
}

/// A defended run and the same run undefended, over the same rounds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub defended: Summary,
    pub undefended: Summary,
}

impl Comparison {
    /// Which way the defence moved the closest attack's median error; `None` when either run
    /// attacked nothing.
    pub fn verdict(&self) -> Option<Verdict> {
        let (_, with) = closest(&self.defended)?;
        let (_, without) = closest(&self.undefended)?;
        let change = with - without;
        Some(if change < -ALIKE_SHARE * without {
            Verdict::Closer
        } else if change > ALIKE_SHARE * without {
            Verdict::Farther
        } else {
            Verdict::Alike
        })
    }

    /// True when the undefended attack was no better than random guesses: its EMD at least
    /// [`RANDOM_SHARE`] of the random-guess EMD.
    pub fn undefended_at_random(&self) -> bool {
        matches!(
            (self.undefended.emd_m, self.undefended.random_emd_m),
            (Some(e), Some(r)) if e >= RANDOM_SHARE * r
        )
    }

    /// The comparison in words: both runs' closest attack, EMD and model RMSE, the verdict,
    /// and why where the figures or the defence's mechanism show it. `defence_name`: the
    /// defence as the page names it ("Diverse Batch").
    pub fn reading(&self, defence: &Defence, defence_name: &str) -> Option<String> {
        let verdict = self.verdict()?;
        let (with_attack, with) = closest(&self.defended)?;
        let (without_attack, without) = closest(&self.undefended)?;
        let emd = |s: &Summary| s.emd_m.map_or("—".into(), |e| format!("{e:.0} m"));
        let rmse = |s: &Summary| s.final_rmse_db.map_or("—".into(), |r| format!("{r:.1} dB"));
        let figures = format!(
            "Without {defence_name}, on the same path and rounds, the server's closest attack ({without_attack}) lands a median {without:.0} m from you, EMD {}, model RMSE {}; with it, {with:.0} m ({with_attack}), EMD {}, RMSE {}.",
            emd(&self.undefended),
            rmse(&self.undefended),
            emd(&self.defended),
            rmse(&self.defended),
        );
        let change = (with - without).abs();
        let verdict_text = match verdict {
            Verdict::Farther => {
                format!(" {defence_name} moved the server {change:.0} m away from you here.")
            }
            Verdict::Alike => format!(
                " {defence_name} left the server about where it was (within {:.0}% of the undefended error).",
                100.0 * ALIKE_SHARE
            ),
            Verdict::Closer => {
                let mut why = Vec::new();
                if matches!(
                    defence,
                    Defence::DiverseBatch { .. }
                        | Defence::FarthestBatch { .. }
                        | Defence::RandomSubset { .. }
                ) {
                    why.push(
                        "it trains on a subset of your own fixes, so what the server reconstructs is still a place you really went: the defence hides which fixes you trained on, not where you were".to_string(),
                    );
                }
                if matches!(defence, Defence::Gan { .. }) {
                    why.push(
                        "the GAN rewrites each fix so that its own adversary cannot place it, but the attacks recover the round's centroid, which it moves much less (over campus days, 175 m on average at ρ = 0.1 and 3 m at ρ = 0.9)".to_string(),
                    );
                }
                if self.undefended_at_random() {
                    why.push(format!(
                        "without it the attack was already no better than random guesses (EMD {} against {} for random guesses), so there was nothing left for the defence to hide",
                        emd(&self.undefended),
                        self.undefended
                            .random_emd_m
                            .map_or("—".into(), |r| format!("{r:.0} m")),
                    ));
                }
                if why.is_empty() {
                    why.push(
                        "noise can land the guesses closer as well as farther, and over a few rounds that can be chance".to_string(),
                    );
                }
                format!(
                    " {defence_name} brought the server {change:.0} m closer to you here: {}.",
                    why.join("; and ")
                )
            }
        };
        Some(format!(
            "{figures}{verdict_text} One run each; the study below compares over more."
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(dlg: f64, analytic: f64, emd: f64, random: f64) -> Summary {
        Summary {
            rounds: 5,
            attacked_rounds: 5,
            median_error_m: Some(dlg),
            mean_error_m: Some(dlg),
            analytic_median_error_m: Some(analytic),
            emd_m: Some(emd),
            random_emd_m: Some(random),
            diverged_percent: Some(0.0),
            mean_iterations: Some(100.0),
            final_rmse_db: Some(6.2),
            dp_epsilon: None,
            dp_releases: None,
            stopped: None,
            geoind: None,
            references: None,
            median_step_error_m: None,
            fedavg: None,
            central_dp: None,
            imprint: None,
        }
    }

    const DIVERSE: Defence = Defence::DiverseBatch {
        eps_km: 0.05,
        min_samples: 5,
    };

    #[test]
    fn the_same_run_without_its_defence() {
        let defended = ScenarioConfig {
            defence: DIVERSE,
            ..ScenarioConfig::default()
        };
        let plain = config(&defended).unwrap();
        assert_eq!(plain.defence, Defence::None);
        assert_eq!(
            ScenarioConfig {
                defence: DIVERSE,
                ..plain.clone()
            },
            defended
        );
        assert!(config(&plain).is_none());
    }

    #[test]
    fn the_closest_attack_is_the_smaller_median() {
        assert_eq!(
            closest(&summary(311.0, 299.0, 1.0, 1.0)),
            Some(("analytic", 299.0))
        );
        assert_eq!(
            closest(&summary(250.0, 299.0, 1.0, 1.0)),
            Some(("DLG", 250.0))
        );
    }

    #[test]
    fn a_defence_that_brings_the_server_closer_says_so_and_why() {
        let c = Comparison {
            defended: summary(311.0, 299.0, 206.0, 434.0),
            undefended: summary(701.0, 720.0, 420.0, 434.0),
        };
        assert_eq!(c.verdict(), Some(Verdict::Closer));
        let text = c.reading(&DIVERSE, "Diverse Batch").unwrap();
        assert!(text.contains("brought the server 402 m closer"), "{text}");
        assert!(text.contains("a subset of your own fixes"), "{text}");
        assert!(text.contains("no better than random guesses"), "{text}");
        assert!(text.contains("701 m") && text.contains("299 m"), "{text}");
    }

    #[test]
    fn farther_and_alike_are_named_too() {
        let farther = Comparison {
            defended: summary(900.0, 950.0, 400.0, 434.0),
            undefended: summary(300.0, 320.0, 200.0, 434.0),
        };
        assert_eq!(farther.verdict(), Some(Verdict::Farther));
        let text = farther.reading(
            &Defence::GeoInd {
                epsilon_per_m: 0.001,
            },
            "GeoInd",
        );
        assert!(text.unwrap().contains("moved the server 600 m away"));
        let alike = Comparison {
            defended: summary(310.0, 330.0, 200.0, 434.0),
            undefended: summary(300.0, 320.0, 200.0, 434.0),
        };
        assert_eq!(alike.verdict(), Some(Verdict::Alike));
        assert!(
            alike
                .reading(&DIVERSE, "Diverse Batch")
                .unwrap()
                .contains("about where it was")
        );
    }

    #[test]
    fn noise_closer_by_chance_is_not_explained_by_a_mechanism_it_lacks() {
        let c = Comparison {
            defended: summary(200.0, 250.0, 150.0, 434.0),
            undefended: summary(300.0, 320.0, 200.0, 434.0),
        };
        let text = c
            .reading(
                &Defence::GeoInd {
                    epsilon_per_m: 0.001,
                },
                "GeoInd",
            )
            .unwrap();
        assert!(text.contains("can be chance"), "{text}");
        assert!(!text.contains("subset of your own fixes"), "{text}");
    }

    #[test]
    fn gan_closer_names_the_centroid_it_keeps() {
        let c = Comparison {
            defended: summary(200.0, 250.0, 150.0, 434.0),
            undefended: summary(300.0, 320.0, 200.0, 434.0),
        };
        let text = c
            .reading(&Defence::Gan { rho: 0.1 }, "GAN obfuscation")
            .unwrap();
        assert!(text.contains("recover the round's centroid"), "{text}");
        assert!(!text.contains("can be chance"), "{text}");
    }

    #[test]
    fn nothing_attacked_reads_nothing() {
        let mut empty = summary(1.0, 1.0, 1.0, 1.0);
        empty.median_error_m = None;
        empty.analytic_median_error_m = None;
        let c = Comparison {
            defended: empty.clone(),
            undefended: summary(300.0, 320.0, 200.0, 434.0),
        };
        assert_eq!(c.verdict(), None);
        assert_eq!(c.reading(&DIVERSE, "Diverse Batch"), None);
    }
}
