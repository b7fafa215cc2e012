//! The findings check: each qualitative finding 3–8 of [000] (§4.1–4.6; numbered in
//! docs/papers.md §4) written as an explicit criterion and evaluated on the figures the studies
//! measured over several worlds, so `reproduce` itself says which findings hold — no
//! hand-written verdicts.
//!
//! Every figure is a mean over the worlds with its 95% interval ([`Estimate`]); a predicted
//! difference holds only where the two intervals separate in the predicted direction, fails
//! where they separate the other way, and is otherwise "inconclusive here". Where the paper's
//! wording is loose the criterion says how it was read:
//! - "roughly doubles EMD" (finding 5): the ratio to no defence, world by world, is at least
//!   1.5 — the paper's own Table 2 gives 1.9× under FedSGD and 1.6× under FedAvg;
//! - "beats … at equal privacy" (finding 7): every setting of the noise defence is either less
//!   private on both of Fig. 15's charts (EMD, and distance to the true centroid) or less
//!   accurate (RMSE) than the batch defence.

use super::Table;
use crate::signal_map::scenario::{FedAvgSummary, Summary};
use whereabouts_core::stats::{Estimate, Verdict};

/// What the intervals say of a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holds {
    /// Every predicted difference is there, the intervals separate.
    Yes,
    /// At least one predicted difference is reversed, the intervals separate.
    No,
    /// No reversal, but at least one predicted difference is within the noise of the worlds.
    Inconclusive,
    /// The runs did not give the figures (e.g. every attack diverged).
    NotMeasured,
}

impl Holds {
    /// Whether `a` lies above (`higher`) or below `b`, as predicted.
    pub fn predicted(a: Option<Estimate>, b: Option<Estimate>, higher: bool) -> Holds {
        let (Some(a), Some(b)) = (a, b) else {
            return Holds::NotMeasured;
        };
        match (Verdict::of(&a, &b), higher) {
            (Verdict::Higher, true) | (Verdict::Lower, false) => Holds::Yes,
            (Verdict::Inconclusive, _) => Holds::Inconclusive,
            _ => Holds::No,
        }
    }

    /// `a` is not above `b` beyond the noise ("no worse" for a figure where lower is better).
    pub fn not_above(a: Option<Estimate>, b: Option<Estimate>) -> Holds {
        match (a, b) {
            (Some(a), Some(b)) if a.above(&b) => Holds::No,
            (Some(_), Some(_)) => Holds::Yes,
            _ => Holds::NotMeasured,
        }
    }

    /// `e` lies at or above `floor` (`at_least`) or below it.
    pub fn against(e: Option<Estimate>, floor: f64, at_least: bool) -> Holds {
        let Some(e) = e else {
            return Holds::NotMeasured;
        };
        let (over, under) = (e.low() >= floor, e.high() < floor);
        match (over, under, at_least) {
            (true, _, true) | (_, true, false) => Holds::Yes,
            (_, true, true) | (true, _, false) => Holds::No,
            _ => Holds::Inconclusive,
        }
    }

    /// Every part: not measured if one is, no if one fails, inconclusive if one is.
    pub fn all(parts: impl IntoIterator<Item = Holds>) -> Holds {
        let parts: Vec<Holds> = parts.into_iter().collect();
        [Holds::NotMeasured, Holds::No, Holds::Inconclusive]
            .into_iter()
            .find(|h| parts.contains(h))
            .unwrap_or(Holds::Yes)
    }

    fn text(self) -> &'static str {
        match self {
            Holds::Yes => "yes",
            Holds::No => "**no**",
            Holds::Inconclusive => "inconclusive here",
            Holds::NotMeasured => "not measured",
        }
    }
}

/// One finding's criterion and what was measured for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// "3" … "8", with a letter where one finding has several parts.
    pub finding: String,
    pub criterion: String,
    pub measured: String,
    pub holds: Holds,
}

impl Check {
    fn new(finding: &str, criterion: &str, measured: String, holds: Holds) -> Self {
        Self {
            finding: finding.into(),
            criterion: criterion.into(),
            measured,
            holds,
        }
    }
}

/// The figures of one setting over the worlds that the criteria use.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Figures {
    pub emd_m: Option<Estimate>,
    /// EMD / random-guess EMD, world by world.
    pub emd_ratio: Option<Estimate>,
    /// Mean distance of the non-diverged reconstructions to the true centroid of D_t.
    pub dist_m: Option<Estimate>,
    pub diverged_percent: Option<Estimate>,
    pub rmse_db: Option<Estimate>,
}

fn over<T>(runs: &[T], f: impl Fn(&T) -> Option<f64>) -> Option<Estimate> {
    Estimate::of(runs.iter().map(|r| f(r).unwrap_or(f64::NAN)))
}

impl Figures {
    /// The figures of one setting's runs, one a world.
    pub fn of(runs: &[&Summary]) -> Self {
        Self {
            emd_m: over(runs, |s| s.emd_m),
            emd_ratio: over(runs, |s| Some(s.emd_m? / s.random_emd_m?)),
            dist_m: over(runs, |s| s.mean_error_m),
            diverged_percent: over(runs, |s| s.diverged_percent),
            rmse_db: over(runs, |s| s.final_rmse_db),
        }
    }

    /// The FedAvg-aware server's figures (its RMSE is the run's, not the attack's: none).
    pub fn of_aware(runs: &[&FedAvgSummary]) -> Self {
        Self {
            emd_m: over(runs, |s| s.emd_m),
            emd_ratio: None,
            dist_m: over(runs, |s| s.mean_error_m),
            diverged_percent: over(runs, |s| Some(s.diverged_percent)),
            rmse_db: None,
        }
    }
}

/// "mean ± half-width unit", or "—".
pub fn est(e: Option<Estimate>, digits: usize, unit: &str) -> String {
    e.map_or("—".into(), |e| format!("{}{unit}", e.cell(digits, 1.0)))
}

/// Finding 3: shorter rounds leak more — EMD / random-guess EMD rises from hour to day to week.
pub fn shorter_rounds_leak_more(hour: &Figures, day: &Figures, week: &Figures) -> Check {
    Check::new(
        "3",
        "FedSGD: EMD/random at T = 1 hour < 1 day < 1 week",
        format!(
            "{} < {} < {}",
            est(hour.emd_ratio, 2, ""),
            est(day.emd_ratio, 2, ""),
            est(week.emd_ratio, 2, "")
        ),
        Holds::all([
            Holds::predicted(hour.emd_ratio, day.emd_ratio, false),
            Holds::predicted(day.emd_ratio, week.emd_ratio, false),
        ]),
    )
}

/// Finding 4, its first half: more local steps (FedAvg) raise the share of diverged attacks and
/// do not hurt RMSE. (Judged apart from the EMD, [`local_steps_raise_emd`]: over a handful of
/// weekly reconstructions the EMD is a noisy figure, and the two halves can part.)
pub fn local_steps_diverge(fedsgd: &Figures, fedavg: &Figures) -> Check {
    Check::new(
        "4 (divergence)",
        "T = 1 week: FedAvg (B = 20, E = 5) has a higher % diverged than FedSGD, and RMSE not above it",
        format!(
            "diverged {} vs {}; RMSE {} vs {}",
            est(fedavg.diverged_percent, 0, "%"),
            est(fedsgd.diverged_percent, 0, "%"),
            est(fedavg.rmse_db, 1, " dB"),
            est(fedsgd.rmse_db, 1, " dB"),
        ),
        Holds::all([
            Holds::predicted(fedavg.diverged_percent, fedsgd.diverged_percent, true),
            Holds::not_above(fedavg.rmse_db, fedsgd.rmse_db),
        ]),
    )
}

/// Finding 4, its second half: more local steps raise the EMD.
pub fn local_steps_raise_emd(fedsgd: &Figures, fedavg: &Figures) -> Check {
    Check::new(
        "4 (EMD)",
        "T = 1 week: FedAvg (B = 20, E = 5) has a higher EMD than FedSGD",
        format!(
            "EMD {} vs {}; distance to the true centroid {} vs {}",
            est(fedavg.emd_m, 0, " m"),
            est(fedsgd.emd_m, 0, " m"),
            est(fedavg.dist_m, 0, " m"),
            est(fedsgd.dist_m, 0, " m"),
        ),
        Holds::predicted(fedavg.emd_m, fedsgd.emd_m, true),
    )
}

/// Finding 4 against the FedAvg-aware server (beyond [000]: docs/papers.md §3d): FedAvg still
/// raises EMD and divergence over FedSGD when the server replays the phone's local training.
/// `fedsgd` is DLG on FedSGD (there the two servers solve the same problem), `aware` the
/// FedAvg-aware server on the FedAvg updates.
pub fn local_steps_blur_aware_server(fedsgd: &Figures, aware: &Figures) -> Check {
    Check::new(
        "4 (FedAvg-aware server)",
        "T = 1 week: against the FedAvg-aware server, FedAvg (B = 20, E = 5) still has higher EMD and % diverged than FedSGD against DLG",
        format!(
            "EMD {} vs {}; diverged {} vs {}",
            est(aware.emd_m, 0, " m"),
            est(fedsgd.emd_m, 0, " m"),
            est(aware.diverged_percent, 0, "%"),
            est(fedsgd.diverged_percent, 0, "%"),
        ),
        Holds::all([
            Holds::predicted(aware.emd_m, fedsgd.emd_m, true),
            Holds::predicted(aware.diverged_percent, fedsgd.diverged_percent, true),
        ]),
    )
}

/// Finding 5: Diverse Batch roughly doubles EMD (≥ 1.5×, world by world) while using at most
/// 1% of the data. `factor` is the ratio of the two EMDs over the worlds, `chosen` the share of
/// the data Diverse Batch kept (%).
pub fn diverse_batch_doubles_emd(
    scheme: &str,
    none: &Figures,
    diverse: &Figures,
    factor: Option<Estimate>,
    chosen: Option<Estimate>,
) -> Check {
    Check::new(
        &format!("5 ({scheme})"),
        &format!(
            "T = 1 week, {scheme}: Diverse Batch eps 0.05 km uses ≤ 1% of the data and has ≥ 1.5× the EMD of no defence"
        ),
        format!(
            "{} vs {} ({}×) with {} of the data; distance to the true centroid {} vs {}",
            est(diverse.emd_m, 0, " m"),
            est(none.emd_m, 0, " m"),
            est(factor, 2, ""),
            est(chosen, 2, "%"),
            est(diverse.dist_m, 0, " m"),
            est(none.dist_m, 0, " m"),
        ),
        Holds::all([
            Holds::against(factor, 1.5, true),
            Holds::against(chosen, 1.0, false),
        ]),
    )
}

/// Finding 5 on the distance to the true centroid (Table 2's "Avg dist", Fig. 12(c)): Diverse
/// Batch moves the round's reconstruction away from the centroid of all of D_t. Unlike the EMD,
/// this figure has no ceiling near the undefended attack's (the EMD against all of a user's
/// points cannot double once the undefended attack scores near a random guess's).
pub fn diverse_batch_moves_reconstruction(
    scheme: &str,
    none: &Figures,
    diverse: &Figures,
) -> Check {
    Check::new(
        &format!("5 ({scheme}, distance)"),
        &format!(
            "T = 1 week, {scheme}: Diverse Batch eps 0.05 km lands further from the true centroid than no defence"
        ),
        format!(
            "{} vs {}",
            est(diverse.dist_m, 0, " m"),
            est(none.dist_m, 0, " m"),
        ),
        Holds::predicted(diverse.dist_m, none.dist_m, true),
    )
}

/// Finding 5's control (Table 2's last column): a random subset of the same size leaks more.
pub fn diverse_beats_random_subset(diverse: &Figures, random: &Figures) -> Check {
    Check::new(
        "5 (control)",
        "T = 1 week, FedSGD: Diverse Batch eps 0.05 km has higher EMD than a random subset of the same size",
        format!(
            "{} vs {}",
            est(diverse.emd_m, 0, " m"),
            est(random.emd_m, 0, " m")
        ),
        Holds::predicted(diverse.emd_m, random.emd_m, true),
    )
}

/// Finding 6: Farthest Batch moves the reconstruction further than Diverse Batch, under the
/// protocol `setting` names ("T = 1 day, FedAvg"; [000] Figs. 13–14 and 27–30 each say it).
pub fn farthest_beats_diverse(
    finding: &str,
    setting: &str,
    farthest: &Figures,
    diverse: &Figures,
) -> Check {
    Check::new(
        finding,
        &format!(
            "{setting}: Farthest Batch (num 5) has a larger distance to the true centroid and a higher EMD than Diverse Batch (eps 0.05 km)"
        ),
        format!(
            "distance {} vs {}; EMD {} vs {}",
            est(farthest.dist_m, 0, " m"),
            est(diverse.dist_m, 0, " m"),
            est(farthest.emd_m, 0, " m"),
            est(diverse.emd_m, 0, " m"),
        ),
        Holds::all([
            Holds::predicted(farthest.dist_m, diverse.dist_m, true),
            Holds::predicted(farthest.emd_m, diverse.emd_m, true),
        ]),
    )
}

/// Finding 7: a batch defence beats a noise defence at equal privacy. Fig. 15 measures privacy
/// two ways, one chart each — EMD and the distance to the true centroid, against RMSE. The
/// finding holds when every noise setting is beaten: less private on both charts or less
/// accurate, the intervals separating. It fails when a noise setting is more private on either
/// chart with an RMSE not above the batch defence's; otherwise it is inconclusive. `setting`
/// names the protocol the figures were measured under ("T = 1 day, FedAvg").
pub fn beats_at_equal_privacy(
    finding: &str,
    setting: &str,
    batch_name: &str,
    batch: &Figures,
    noise_name: &str,
    noise: &[(String, Figures)],
) -> Check {
    let criterion = format!(
        "{setting}: every {noise_name} setting is less private (by EMD and by distance to the true centroid) or less accurate (RMSE) than {batch_name}"
    );
    if batch.emd_m.is_none() || batch.rmse_db.is_none() {
        return Check::new(
            finding,
            &criterion,
            "no EMD or RMSE for the batch defence".into(),
            Holds::NotMeasured,
        );
    }
    let beaten = |f: &Figures| {
        Holds::predicted(f.rmse_db, batch.rmse_db, true) == Holds::Yes
            || (Holds::predicted(f.emd_m, batch.emd_m, false) == Holds::Yes
                && Holds::predicted(f.dist_m, batch.dist_m, false) == Holds::Yes)
    };
    let beats = |f: &Figures| {
        Holds::not_above(f.rmse_db, batch.rmse_db) == Holds::Yes
            && (Holds::predicted(f.emd_m, batch.emd_m, true) == Holds::Yes
                || Holds::predicted(f.dist_m, batch.dist_m, true) == Holds::Yes)
    };
    let describe = |(label, f): &(String, Figures)| {
        format!(
            "{label} (EMD {}, {} away, {})",
            est(f.emd_m, 0, " m"),
            est(f.dist_m, 0, " m"),
            est(f.rmse_db, 1, " dB")
        )
    };
    let winners: Vec<String> = noise
        .iter()
        .filter(|(_, f)| beats(f))
        .map(describe)
        .collect();
    let unbeaten: Vec<String> = noise
        .iter()
        .filter(|(_, f)| !beaten(f) && !beats(f))
        .map(describe)
        .collect();
    let own = format!(
        "EMD {}, {} away, {}",
        est(batch.emd_m, 0, " m"),
        est(batch.dist_m, 0, " m"),
        est(batch.rmse_db, 1, " dB")
    );
    let list = |v: &[String]| match v {
        [one] => one.clone(),
        [first, rest @ ..] => format!("{first} and {} more", rest.len()),
        [] => String::new(),
    };
    let (measured, holds) = if !winners.is_empty() {
        (format!("{own}; beaten by {}", list(&winners)), Holds::No)
    } else if !unbeaten.is_empty() {
        (
            format!("{own}; within the noise of {}", list(&unbeaten)),
            Holds::Inconclusive,
        )
    } else {
        (
            format!("{own}; beats all {} settings", noise.len()),
            Holds::Yes,
        )
    };
    Check::new(finding, &criterion, measured, holds)
}

/// Finding 8: dissimilar co-participants increase leakage — partner distance and EMD are
/// negatively rank-correlated (Spearman's ρ over one world's partners), over the worlds.
/// `label` and `setting` name the world it is read on: the metro of Table 3 (the paper's own
/// setup, "8") or the campus ("8 (campus)").
pub fn dissimilar_partners_leak_more(label: &str, setting: &str, rhos: &[f64]) -> Check {
    let rho = Estimate::of(rhos.iter().copied());
    Check::new(
        label,
        &format!("{setting}: Spearman ρ(partner distance, EMD) < 0 over the worlds"),
        format!(
            "ρ {} (each world: {})",
            est(rho, 2, ""),
            rhos.iter()
                .map(|r| format!("{r:+.2}"))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        Holds::against(rho, 0.0, false),
    )
}

/// The checks as a table.
pub fn table(checks: &[Check], worlds: u64) -> Table {
    Table {
        title: "Findings check ([000] §4.1–4.6; numbering in docs/papers.md), computed from the tables below".into(),
        notes: vec![format!(
            "Each criterion is evaluated by the code on the figures below, each the mean over {worlds} worlds ± the half-width of its 95% interval (Student's t). A predicted difference holds only where the two intervals separate; \"inconclusive here\" where they overlap. \"Roughly doubles\" is read as ≥ 1.5× (the ratio taken world by world) and \"beats at equal privacy\" as: every setting of the noise defence is less private (by EMD and by distance to the true centroid: the two charts of Fig. 15) or less accurate. Code: `crates/engine/src/signal_map/experiments/findings.rs`."
        )],
        columns: ["finding", "criterion", "measured", "holds"]
            .map(String::from)
            .to_vec(),
        rows: checks
            .iter()
            .map(|c| {
                vec![
                    c.finding.clone(),
                    c.criterion.clone(),
                    c.measured.clone(),
                    c.holds.text().into(),
                ]
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// An estimate around `mean` with a small spread (half-width ≈ 0.03·|mean| + 0.3).
    fn e(mean: f64) -> Option<Estimate> {
        let s = 0.01 * mean.abs() + 0.1;
        Estimate::of([mean - s, mean, mean + s, mean])
    }

    /// An estimate that overlaps everything near `mean`.
    fn wide(mean: f64) -> Option<Estimate> {
        Estimate::of([mean - 1000.0, mean + 1000.0, mean])
    }

    fn f(emd: f64, dist: f64, diverged: f64, rmse: f64) -> Figures {
        Figures {
            emd_m: e(emd),
            emd_ratio: e(emd / 400.0),
            dist_m: e(dist),
            diverged_percent: e(diverged),
            rmse_db: e(rmse),
        }
    }

    #[test]
    fn a_prediction_needs_separate_intervals() {
        assert_eq!(Holds::predicted(e(2.0), e(1.0), true), Holds::Yes);
        assert_eq!(Holds::predicted(e(2.0), e(1.0), false), Holds::No);
        assert_eq!(
            Holds::predicted(wide(2.0), e(1.0), true),
            Holds::Inconclusive
        );
        assert_eq!(Holds::predicted(None, e(1.0), true), Holds::NotMeasured);
        assert_eq!(Holds::not_above(e(1.0), e(2.0)), Holds::Yes);
        assert_eq!(Holds::not_above(wide(3.0), e(2.0)), Holds::Yes);
        assert_eq!(Holds::not_above(e(3.0), e(2.0)), Holds::No);
        assert_eq!(Holds::against(e(2.0), 1.5, true), Holds::Yes);
        assert_eq!(Holds::against(e(1.0), 1.5, true), Holds::No);
        assert_eq!(Holds::against(wide(1.5), 1.5, true), Holds::Inconclusive);
        assert_eq!(
            Holds::all([Holds::Yes, Holds::Inconclusive]),
            Holds::Inconclusive
        );
        assert_eq!(Holds::all([Holds::Inconclusive, Holds::No]), Holds::No);
        assert_eq!(
            Holds::all([Holds::No, Holds::NotMeasured]),
            Holds::NotMeasured
        );
        assert_eq!(Holds::all([Holds::Yes, Holds::Yes]), Holds::Yes);
    }

    #[test]
    fn figures_are_means_over_the_worlds() {
        let s = |emd: f64, random: f64| Summary {
            emd_m: Some(emd),
            random_emd_m: Some(random),
            ..Summary::default()
        };
        let (a, b) = (s(100.0, 400.0), s(300.0, 400.0));
        let fig = Figures::of(&[&a, &b]);
        assert_eq!(fig.emd_m.unwrap().mean, 200.0);
        assert_eq!(fig.emd_ratio.unwrap().mean, 0.5);
        assert!(fig.rmse_db.is_none(), "no world measured an RMSE");
    }

    #[test]
    fn finding_3_needs_the_ratio_to_rise_with_t() {
        let (h, d, w) = (
            f(80.0, 0., 0., 5.),
            f(200.0, 0., 0., 5.),
            f(320.0, 0., 0., 5.),
        );
        let c = shorter_rounds_leak_more(&h, &d, &w);
        assert_eq!(c.holds, Holds::Yes);
        assert!(c.measured.starts_with("0.20 ± "), "{}", c.measured);
        assert_eq!(shorter_rounds_leak_more(&h, &w, &d).holds, Holds::No);
        let noisy = Figures {
            emd_ratio: wide(0.5),
            ..d
        };
        assert_eq!(
            shorter_rounds_leak_more(&h, &noisy, &w).holds,
            Holds::Inconclusive
        );
        let missing = Figures::default();
        assert_eq!(
            shorter_rounds_leak_more(&h, &missing, &w).holds,
            Holds::NotMeasured
        );
    }

    #[test]
    fn finding_4_is_judged_in_two_halves_divergence_with_rmse_and_the_emd() {
        let sgd = f(300.0, 40.0, 0.0, 68.0);
        let avg = f(400.0, 0., 60., 5.);
        assert_eq!(local_steps_diverge(&sgd, &avg).holds, Holds::Yes);
        assert_eq!(local_steps_raise_emd(&sgd, &avg).holds, Holds::Yes);
        // The halves part: more divergence at a lower EMD.
        let lower = f(250.0, 0., 60., 5.);
        assert_eq!(local_steps_diverge(&sgd, &lower).holds, Holds::Yes);
        assert_eq!(local_steps_raise_emd(&sgd, &lower).holds, Holds::No);
        // Divergence down, the intervals separating: a reversal.
        let sgd_diverging = f(300.0, 40.0, 20.0, 68.0);
        assert_eq!(
            local_steps_diverge(&sgd_diverging, &f(400.0, 0., 0., 5.)).holds,
            Holds::No
        );
        // Equal divergence: no difference can be claimed; a worse map is a reversal.
        assert_eq!(
            local_steps_diverge(&sgd, &f(400.0, 0., 0., 5.)).holds,
            Holds::Inconclusive
        );
        assert_eq!(
            local_steps_diverge(&sgd, &f(400.0, 0., 60., 75.)).holds,
            Holds::No
        );
        let close = Figures {
            emd_m: wide(310.0),
            ..f(310.0, 0., 60., 5.)
        };
        assert_eq!(
            local_steps_raise_emd(&sgd, &close).holds,
            Holds::Inconclusive
        );
        assert!(
            local_steps_raise_emd(&sgd, &avg)
                .measured
                .contains("distance")
        );
        let aware = |emd, diverged| Figures {
            rmse_db: None,
            ..f(emd, 0., diverged, 0.)
        };
        assert_eq!(
            local_steps_blur_aware_server(&sgd, &aware(400.0, 20.0)).holds,
            Holds::Yes
        );
        assert_eq!(
            local_steps_blur_aware_server(&sgd, &aware(250.0, 20.0)).holds,
            Holds::No
        );
        let gone = Figures {
            emd_m: None,
            ..aware(0.0, 100.0)
        };
        assert_eq!(
            local_steps_blur_aware_server(&sgd, &gone).holds,
            Holds::NotMeasured
        );
    }

    #[test]
    fn finding_5_needs_one_and_a_half_times_the_emd_with_at_most_one_percent() {
        let (none, diverse) = (f(200.0, 30.0, 0.0, 6.0), f(300.0, 300.0, 0.0, 6.0));
        let c = diverse_batch_doubles_emd("FedSGD", &none, &diverse, e(1.8), e(0.2));
        assert_eq!(c.holds, Holds::Yes, "{}", c.measured);
        assert!(c.measured.contains("(1.80 ± "), "{}", c.measured);
        let short = diverse_batch_doubles_emd("FedSGD", &none, &diverse, e(1.2), e(0.2));
        assert_eq!(short.holds, Holds::No);
        let unsure = diverse_batch_doubles_emd("FedSGD", &none, &diverse, wide(1.5), e(0.2));
        assert_eq!(unsure.holds, Holds::Inconclusive);
        let greedy = diverse_batch_doubles_emd("FedSGD", &none, &diverse, e(1.8), e(1.5));
        assert_eq!(greedy.holds, Holds::No);
        // On the distance to the true centroid (no ceiling): 300 m against 30 m.
        let moved = diverse_batch_moves_reconstruction("FedSGD", &none, &diverse);
        assert_eq!(
            (moved.finding.as_str(), moved.holds),
            ("5 (FedSGD, distance)", Holds::Yes)
        );
        assert_eq!(
            diverse_batch_moves_reconstruction("FedSGD", &diverse, &none).holds,
            Holds::No
        );
        let control = diverse_beats_random_subset(&f(300.0, 0., 0., 6.), &f(250.0, 0., 0., 6.));
        assert_eq!(control.holds, Holds::Yes);
    }

    #[test]
    fn finding_6_needs_both_distance_and_emd() {
        let diverse = f(250.0, 300.0, 10.0, 6.0);
        assert_eq!(
            farthest_beats_diverse(
                "6",
                "T = 1 day, FedAvg",
                &f(440.0, 740.0, 7.0, 8.0),
                &diverse
            )
            .holds,
            Holds::Yes
        );
        assert_eq!(
            farthest_beats_diverse(
                "6",
                "T = 1 day, FedAvg",
                &f(240.0, 740.0, 7.0, 8.0),
                &diverse
            )
            .holds,
            Holds::No
        );
        // The criterion names the protocol it was measured under.
        let weekly = farthest_beats_diverse(
            "6 (T = 1 week, FedSGD)",
            "T = 1 week, FedSGD",
            &diverse,
            &diverse,
        );
        assert!(
            weekly
                .criterion
                .starts_with("T = 1 week, FedSGD: Farthest Batch"),
            "{}",
            weekly.criterion
        );
    }

    #[test]
    fn finding_7_fails_when_a_noise_setting_is_more_private_and_as_accurate() {
        let batch = f(300.0, 500.0, 10.0, 6.0);
        let beaten = vec![
            ("GeoInd a".to_string(), f(250.0, 450.0, 0., 5.0)), // less private on both
            ("GeoInd b".to_string(), f(350.0, 600.0, 0., 7.0)), // less accurate
        ];
        let c = beats_at_equal_privacy(
            "7",
            "T = 1 day, FedAvg",
            "Diverse Batch",
            &batch,
            "GeoInd",
            &beaten,
        );
        assert_eq!(c.holds, Holds::Yes, "{}", c.measured);
        assert!(
            c.measured.ends_with("beats all 2 settings"),
            "{}",
            c.measured
        );
        // More private by distance only (the second chart), as accurate.
        let mut winner = beaten.clone();
        winner.push(("GeoInd c".to_string(), f(200.0, 520.0, 0., 6.0)));
        let c = beats_at_equal_privacy(
            "7",
            "T = 1 day, FedAvg",
            "Diverse Batch",
            &batch,
            "GeoInd",
            &winner,
        );
        assert_eq!(c.holds, Holds::No, "{}", c.measured);
        assert!(
            c.measured.contains("beaten by GeoInd c (EMD 200 ±"),
            "{}",
            c.measured
        );
        // Less private by EMD only, as accurate: not beaten, not a winner.
        let mut close = beaten.clone();
        close.push(("GeoInd d".to_string(), f(250.0, 500.0, 0., 6.0)));
        let c = beats_at_equal_privacy(
            "7",
            "T = 1 day, FedAvg",
            "Diverse Batch",
            &batch,
            "GeoInd",
            &close,
        );
        assert_eq!(c.holds, Holds::Inconclusive, "{}", c.measured);
        assert!(
            c.measured.contains("within the noise of GeoInd d"),
            "{}",
            c.measured
        );
    }

    #[test]
    fn finding_8_needs_a_negative_correlation_over_the_worlds() {
        let c = dissimilar_partners_leak_more("8", "metro", &[-0.5, -0.4, -0.6, -0.45, -0.55]);
        assert_eq!(c.holds, Holds::Yes, "{}", c.measured);
        let c = dissimilar_partners_leak_more("8", "metro", &[-0.03, 0.54, -0.31]);
        assert_eq!(c.holds, Holds::Inconclusive);
        assert!(
            c.measured.ends_with("(each world: -0.03, +0.54, -0.31)"),
            "{}",
            c.measured
        );
        assert_eq!(
            dissimilar_partners_leak_more("8", "metro", &[0.5, 0.4, 0.6]).holds,
            Holds::No
        );
        assert_eq!(
            dissimilar_partners_leak_more("8", "metro", &[]).holds,
            Holds::NotMeasured
        );
    }
}
