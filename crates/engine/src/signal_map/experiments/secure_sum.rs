//! What a server still learns from sums (issue 39 §2; `whereabouts reproduce --study
//! secure-sum`): the Signal map's federation with secure aggregation
//! ([`crate::signal_map::secure`]: the real protocol of Bonawitz et al. CCS 2017, Fig. 4, every
//! round) against the same federation without it, on the campus (T = 1 day, FedSGD, the
//! paper's cold start, DLG and Lemma 1), every figure over the scale's worlds with its 95%
//! interval.
//!
//! - **Co-participants.** The visitor (user 0) with 0, 1, 2, 5, 10 and 50 other users: the
//!   error of the server's attacks to the visitor's own centroid when it sees every update, and
//!   when it sees only the round's sum (its attacks then run on the aggregate).
//! - **The n − 1 (Sybil) attack and the minimum cohort.** With 10 other users: the honest
//!   server under secure aggregation; a server that leaves them out and fills the round with 10
//!   clients of its own, then subtracts them from the sum (it must get the visitor's update
//!   exactly: its errors those of the attack on the visitor alone, without secure aggregation);
//!   and the same server against phones that send only among at least k genuine phones (k = 2,
//!   5, 10), which must let k − 1 of the others in.
//!
//! - **Secure sum + central DP.** With 10 other users: DP-FedAvg over the secure sum
//!   ([`crate::signal_map::central_dp`]: McMahan et al. ICLR 2018, adaptive clipping after
//!   Andrew et al. NeurIPS 2021), noise added by a trusted aggregator or by the phones (with and
//!   without dropouts), beside the secure sum without noise: the attacks' error to the
//!   visitor's centroid, the visitor's user-level ε over the run, and the model's RMSE; and
//!   beside them a malicious server ([`crate::signal_map::imprint`]: Fowl et al. ICLR 2022's
//!   imprint module in the model it sends, 64 and 1,024 bins), with the share of the visitor's
//!   fixes it reads out of the sum exactly — the four things a server may see, side by side.
//!
//! A difference "holds" only where the 95% intervals separate.

use super::{FEDSGD, Outcome, Scale, SignalRuns, Table, base, each, mean};
use crate::signal_map::central_dp::{CentralDp, NoiseAt};
use crate::signal_map::imprint::ImprintConfig;
use crate::signal_map::scenario::{RoundRecord, ScenarioConfig};
use crate::signal_map::secure::{SecureAggregation, SecureRecord};
use crate::signal_map::trace::RoundLength;
use crate::signal_map::world::Preset;
use whereabouts_core::stats::{Estimate, Verdict};
use whereabouts_core::sweep::Sweep;

/// The co-participants the first table runs (the visitor's partners in every round).
pub const CO_PARTICIPANTS: [u32; 6] = [0, 1, 2, 5, 10, 50];
/// The other users of the Sybil table, the Sybils the attacking server brings, and the minimum
/// cohorts the phones may ask for.
pub const SYBIL_OTHERS: u32 = 10;
pub const SYBILS: usize = 10;
pub const MIN_COHORTS: [usize; 3] = [2, 5, 10];

/// The campus with 51 users (the visitor and 50 others), T = 1 day over the scale's weeks,
/// FedSGD from [000]'s cold start; the visitor and `others` users take part.
pub fn campus(scale: &Scale, others: u32, sa: Option<SecureAggregation>) -> ScenarioConfig {
    let mut c = base(
        scale,
        Preset::Campus,
        scale.days_weeks,
        RoundLength::Day,
        FEDSGD,
    );
    c.world.users = Some(CO_PARTICIPANTS[CO_PARTICIPANTS.len() - 1] as usize + 1);
    c.world.background = Some(false);
    c.participants = Some((0..=others).collect());
    c.secure_aggregation = sa;
    c
}

/// The mean of a figure over the run's attacked rounds (`None` without one).
fn per_round(o: &Outcome, f: impl Fn(&RoundRecord) -> Option<f64>) -> Option<f64> {
    let v: Vec<f64> = o.records.iter().filter_map(f).collect();
    (!v.is_empty()).then(|| mean(v.into_iter()))
}

fn secure(r: &RoundRecord) -> Option<&SecureRecord> {
    r.secure.as_ref()
}

/// Genuine clients whose updates the server's view holds (a run without secure aggregation:
/// the one it attacks).
fn genuine(o: &Outcome) -> Option<f64> {
    per_round(o, |r| Some(secure(r).map_or(1.0, |s| s.genuine as f64)))
}

fn dlg(o: &Outcome) -> Option<f64> {
    o.summary.mean_error_m
}

fn lemma(o: &Outcome) -> Option<f64> {
    o.summary.analytic_median_error_m
}

fn estimate(os: &[Outcome], f: impl Fn(&Outcome) -> Option<f64>) -> Option<Estimate> {
    Estimate::of(os.iter().map(|o| f(o).unwrap_or(f64::NAN)))
}

fn cell(os: &[Outcome], digits: usize, f: impl Fn(&Outcome) -> Option<f64>) -> String {
    super::cell(os, digits, f)
}

/// "farther" / "nearer" where the intervals separate, else "inconclusive".
fn verdict(a: Option<Estimate>, b: Option<Estimate>, higher: &str, lower: &str) -> String {
    match (a, b) {
        (Some(a), Some(b)) => match Verdict::of(&a, &b) {
            Verdict::Higher => higher.into(),
            Verdict::Lower => lower.into(),
            Verdict::Inconclusive => "inconclusive here".into(),
        },
        _ => "—".into(),
    }
}

/// The first table: the error to the visitor's centroid against the number of co-participants,
/// every update against only the sum.
pub fn co_participants(scale: &Scale, runs: &mut SignalRuns) -> Result<Table, String> {
    let mut rows = Vec::new();
    for others in CO_PARTICIPANTS {
        let plain = each(scale, runs, |s| campus(s, others, None))?;
        let sum = each(scale, runs, |s| {
            campus(s, others, Some(SecureAggregation::default()))
        })?;
        rows.push(vec![
            others.to_string(),
            cell(&sum, 1, genuine),
            cell(&plain, 0, dlg),
            cell(&sum, 0, dlg),
            verdict(
                estimate(&sum, dlg),
                estimate(&plain, dlg),
                "sum farther",
                "sum nearer",
            ),
            cell(&plain, 0, lemma),
            cell(&sum, 0, lemma),
            verdict(
                estimate(&sum, lemma),
                estimate(&plain, lemma),
                "sum farther",
                "sum nearer",
            ),
            cell(&sum, 0, |o| {
                per_round(o, |r| secure(r).map(|s| s.blend_distance_m))
            }),
            cell(&sum, 0, |o| {
                per_round(o, |r| secure(r).and_then(|s| s.dlg_to_blend_m))
            }),
            cell(&sum, 0, |o| {
                per_round(o, |r| secure(r).and_then(|s| s.analytic_to_blend_m))
            }),
            format!(
                "{} / {}",
                cell(&plain, 1, |o| o.summary.final_rmse_db),
                cell(&sum, 1, |o| o.summary.final_rmse_db)
            ),
        ]);
    }
    Ok(Table {
        title: format!(
            "What the server learns from sums — the error to your centroid against the number of co-participants (campus, T = 1 day, FedSGD, cold start; {})",
            scale.worlds()
        ),
        notes: vec![
            "Every update: the server attacks your own update, as in [000]. Only the sum: secure aggregation (Bonawitz et al. 2017, the core's protocol run among the round's phones every round); the server unmasks the sum of [n_k·Δ_k, n_k] and attacks the only update it has, the round's n-weighted mean change. Errors are to your own round centroid (m; DLG: the mean over its non-diverged rounds; Lemma 1: the median), each the mean over the worlds ± its 95% interval. Verdict: where the two intervals separate.".into(),
            "Genuine clients: the phones in the sum (you included), averaged over the rounds (a user without fixes that day sends nothing). Blend: the centroid of all their round data; \"you → blend\" is how far it lies from your centroid, \"DLG → blend\" and \"Lemma 1 → blend\" where the attacks on the sum land from it.".into(),
        ],
        columns: [
            "co-participants",
            "genuine clients in the sum",
            "DLG, every update (m)",
            "DLG, only the sum (m)",
            "DLG verdict",
            "Lemma 1, every update (m)",
            "Lemma 1, only the sum (m)",
            "Lemma 1 verdict",
            "you → blend (m)",
            "DLG → blend (m)",
            "Lemma 1 → blend (m)",
            "RMSE dB (every update / sum)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// The largest figure over the run's rounds.
fn most(o: &Outcome, f: impl Fn(&SecureRecord) -> f64) -> Option<f64> {
    o.records
        .iter()
        .filter_map(|r| secure(r).map(&f))
        .reduce(f64::max)
}

/// The second table: the Sybil server against the honest one, and the minimum cohort.
pub fn sybil(scale: &Scale, runs: &mut SignalRuns) -> Result<Table, String> {
    let sa = |sybils, min_genuine| {
        Some(SecureAggregation {
            sybils,
            min_genuine,
            imprint: None,
        })
    };
    let mut arms: Vec<(String, Vec<Outcome>)> = vec![
        (
            format!("every update, you and {SYBIL_OTHERS} others"),
            each(scale, runs, |s| campus(s, SYBIL_OTHERS, None))?,
        ),
        (
            "every update, you alone".into(),
            each(scale, runs, |s| campus(s, 0, None))?,
        ),
        (
            format!("only the sum, honest server, you and {SYBIL_OTHERS} others"),
            each(scale, runs, |s| campus(s, SYBIL_OTHERS, sa(0, 1)))?,
        ),
        (
            format!("only the sum, Sybil server ({SYBILS} of its own clients), no minimum"),
            each(scale, runs, |s| campus(s, SYBIL_OTHERS, sa(SYBILS, 1)))?,
        ),
    ];
    for k in MIN_COHORTS {
        arms.push((
            format!("only the sum, Sybil server, phones ask for {k} genuine"),
            each(scale, runs, |s| campus(s, SYBIL_OTHERS, sa(SYBILS, k)))?,
        ));
    }
    let alone = arms[1].1.clone();
    let attacked = arms[3].1.clone();
    let mut rows = Vec::new();
    for (k, (name, os)) in arms.iter().enumerate() {
        let against_alone = if k == 3 {
            // Per world: the Sybil server's error against the attack on your update alone.
            let d: Vec<f64> = os
                .iter()
                .zip(&alone)
                .filter_map(|(a, b)| Some((dlg(a)? - dlg(b)?).abs()))
                .collect();
            format!(
                "equal to \"you alone\": DLG within {:.3} m in every world",
                d.iter().copied().fold(0.0, f64::max)
            )
        } else if k > 3 {
            verdict(
                estimate(os, dlg),
                estimate(&attacked, dlg),
                "farther than the Sybil server's",
                "nearer than the Sybil server's",
            )
        } else {
            String::new()
        };
        rows.push(vec![
            name.clone(),
            cell(os, 1, genuine),
            cell(os, 1, |o| Some(o.records.len() as f64)),
            cell(os, 0, dlg),
            cell(os, 0, lemma),
            against_alone,
            cell(os, 0, |o| {
                per_round(o, |r| secure(r).map(|s| s.blend_distance_m))
            }),
            most_cell(os, |s| s.update_gap),
            most_cell(os, |s| s.quantisation_step),
            cell(os, 1, |o| o.summary.final_rmse_db),
        ]);
    }
    Ok(Table {
        title: format!(
            "The n − 1 (Sybil) attack on secure aggregation and the minimum cohort of genuine phones (campus, T = 1 day, FedSGD, cold start; {})",
            scale.worlds()
        ),
        notes: vec![
            format!(
                "The Sybil server picks the round itself: you, as few of the {SYBIL_OTHERS} other users as the phones accept (k − 1 when they ask for k genuine phones), and {SYBILS} clients it runs on data it made; it subtracts their words from the secure sum (exactly, in Z_2^32) and attacks what is left. A phone that sees fewer than k genuine phones in the round does not send. Attacked rounds: rounds in which your update reached the server (mean over the worlds)."
            ),
            "Update gap: the largest |coordinate| of (the update the server attacks − your own update) over the run's rounds, the largest over the worlds; quantisation step: the most the fixed-point round trip can move one coordinate of that update. A gap within the step is your update, recovered exactly. DLG and Lemma 1 are errors to your own centroid (m), mean over the worlds ± 95% interval; a verdict holds only where the intervals separate.".into(),
        ],
        columns: [
            "server and phones",
            "genuine clients in the sum",
            "attacked rounds",
            "DLG (m)",
            "Lemma 1 (m)",
            "verdict",
            "you → blend (m)",
            "update gap (max)",
            "quantisation step (max)",
            "RMSE (dB)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// The central-DP arms: (name, z, noise added by, dropout).
pub const CENTRAL_ARMS: [(&str, f64, NoiseAt, f64); 4] = [
    ("trusted aggregator, z = 1", 1.0, NoiseAt::Trusted, 0.0),
    ("trusted aggregator, z = 0.3", 0.3, NoiseAt::Trusted, 0.0),
    ("each phone, z = 1", 1.0, NoiseAt::Distributed, 0.0),
    (
        "each phone, z = 1, 30% drop",
        1.0,
        NoiseAt::Distributed,
        0.3,
    ),
];

/// The malicious server's imprint modules in the third table: the authors' 64 bins and 1,024.
pub const IMPRINT_BINS: [usize; 2] = [64, 1024];

/// DP-FedAvg's settings in the third table: q = 1 (the 11 phones are the round), adaptive
/// clipping from C = 0.1 toward the median update norm (Andrew et al.'s recommendation).
pub fn central(z: f64, noise_at: NoiseAt, dropout: f64) -> CentralDp {
    CentralDp {
        noise_multiplier: z,
        clip: 0.1,
        sampling_rate: 1.0,
        adaptive: true,
        target_quantile: 0.5,
        noise_at,
        dropout,
    }
}

/// The third table, what the server sees four ways: every update, only the sum, the sum with
/// central DP, and a malicious server's imprint module read out of the sum.
pub fn central_dp(scale: &Scale, runs: &mut SignalRuns) -> Result<Table, String> {
    let plain = each(scale, runs, |s| campus(s, SYBIL_OTHERS, None))?;
    let sum = each(scale, runs, |s| {
        campus(s, SYBIL_OTHERS, Some(SecureAggregation::default()))
    })?;
    let mut arms: Vec<(String, Vec<Outcome>)> = vec![
        ("every update".into(), plain),
        ("only the sum".into(), sum.clone()),
    ];
    for (name, z, at, drop) in CENTRAL_ARMS {
        arms.push((
            format!("sum + central DP, {name}"),
            each(scale, runs, |s| {
                let mut c = campus(s, SYBIL_OTHERS, Some(SecureAggregation::default()));
                c.central_dp = Some(central(z, at, drop));
                c
            })?,
        ));
    }
    for bins in IMPRINT_BINS {
        arms.push((
            format!("a malicious server, imprint of {bins} bins"),
            each(scale, runs, |s| {
                campus(
                    s,
                    SYBIL_OTHERS,
                    Some(SecureAggregation {
                        imprint: Some(ImprintConfig { bins }),
                        ..SecureAggregation::default()
                    }),
                )
            })?,
        ));
    }
    // Your fixes the imprint read out exactly, % of those you trained on.
    let read_out = |o: &Outcome| {
        o.summary
            .imprint
            .as_ref()
            .filter(|i| i.your_fixes > 0)
            .map(|i| 100.0 * i.your_exact as f64 / i.your_fixes as f64)
    };
    let epsilon = |o: &Outcome| o.summary.central_dp.as_ref().map(|c| c.epsilon_total);
    let rows = arms
        .iter()
        .enumerate()
        .map(|(k, (name, os))| {
            vec![
                name.clone(),
                cell(os, 1, |o| Some(o.records.len() as f64)),
                cell(os, 0, dlg),
                cell(os, 0, lemma),
                if k >= 2 {
                    verdict(
                        estimate(os, lemma),
                        estimate(&sum, lemma),
                        "farther than the sum's",
                        "nearer than the sum's",
                    )
                } else {
                    String::new()
                },
                cell(os, 2, epsilon),
                cell(os, 1, read_out),
                cell(os, 1, |o| o.summary.final_rmse_db),
            ]
        })
        .collect();
    Ok(Table {
        title: format!(
            "What the server sees, four ways — every update, only the sum, the sum + central DP (DP-FedAvg), a malicious server: the attacks, your user-level ε, your fixes read out and the model (campus, you and {SYBIL_OTHERS} others, T = 1 day, FedSGD, cold start; {})",
            scale.worlds()
        ),
        notes: vec![
            "DP-FedAvg (McMahan et al. 2018) over the secure sum: every phone in the round (q = 1) clips its change, adaptively toward the median norm from C = 0.1 (Andrew et al. 2021, γ = 0.5, η = 0.2), the noise N(0, (z·C)²) is added to the sum by a trusted aggregator or, 1/n of the variance each, by the n phones; the server divides by qN and attacks the noised mean change. Dropouts: a phone falls silent after the keys with probability 0.3, its update and its noise share absent; the ε is for the noise left.".into(),
            "User-level ε at δ = 1e-5 over the run's rounds (the sampled Gaussian mechanism's RDP composed and converted as dp_accounting does; with the phones' noise, only the rounds your phone sent). Errors to your centroid (m; DLG: the mean over its non-diverged rounds; Lemma 1: the median), each the mean over the worlds ± its 95% interval; the verdict compares Lemma 1 with the sum without noise and holds only where the intervals separate. RMSE: the model's test error after the last round; \"every update\" and \"only the sum\" are the model without DP.".into(),
            "The malicious server (Fowl et al., ICLR 2022, \"Robbing the Fed\"): the model it sends carries an imprint module of k bins in front (thresholds at equal shares of the area), and from the round's secure sum the difference of two neighbouring bins' changes is a fix that fell alone in its bin; \"read out exactly\" counts your fixes it recovered within 25 cm, as a % of the fixes you trained on over the run. It spends the rounds on that: the update is of the model it planted, so DLG and Lemma 1 (which invert the signal map's update) do not run and the map stays the cold start (its RMSE).".into(),
        ],
        columns: [
            "server sees",
            "attacked rounds",
            "DLG (m)",
            "Lemma 1 (m)",
            "Lemma 1 verdict",
            "user-level ε (δ = 1e-5)",
            "your fixes read out exactly (%)",
            "RMSE (dB)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// The largest of a figure over every world's rounds, in scientific notation; "—" without
/// secure aggregation.
fn most_cell(os: &[Outcome], f: impl Fn(&SecureRecord) -> f64 + Copy) -> String {
    os.iter()
        .filter_map(|o| most(o, f))
        .reduce(f64::max)
        .map_or("—".into(), |v| format!("{v:.1e}"))
}

/// One run to the end, without the RMSE references of `reproduce`'s runs (they train a
/// centralised model on all 51 users' data, a cost this study's question does not need).
pub fn run(config: ScenarioConfig) -> Result<Outcome, String> {
    super::run_to_end(config, false)
}

/// `whereabouts reproduce --study secure-sum`: both tables on the scale's worlds.
pub struct SecureSum(pub Scale);

impl Sweep for SecureSum {
    type Config = ScenarioConfig;
    type Outcome = Outcome;

    fn seed(config: &ScenarioConfig) -> u64 {
        config.seed
    }

    fn run(&self, config: &ScenarioConfig) -> Result<Outcome, String> {
        run(config.clone())
    }

    fn tables(&self, runs: &mut SignalRuns) -> Result<Vec<Table>, String> {
        Ok(vec![
            co_participants(&self.0, runs)?,
            sybil(&self.0, runs)?,
            central_dp(&self.0, runs)?,
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The study asks for the malicious server's runs beside the others: one per world and
    /// imprint size, on the same campus as the central-DP arms, honest otherwise.
    #[test]
    fn the_third_table_runs_the_malicious_server_beside_the_sum_and_central_dp() {
        let scale = Scale {
            seeds: 2,
            ..Scale::quick(1)
        };
        let points = whereabouts_core::sweep::plan(&SecureSum(scale)).unwrap();
        let malicious: Vec<&ScenarioConfig> = points
            .iter()
            .filter(|c| {
                c.secure_aggregation
                    .as_ref()
                    .is_some_and(|s| s.imprint.is_some())
            })
            .collect();
        assert_eq!(malicious.len(), IMPRINT_BINS.len() * 2);
        for (c, bins) in malicious
            .iter()
            .zip(IMPRINT_BINS.iter().flat_map(|b| [b, b]))
        {
            let s = c.secure_aggregation.as_ref().unwrap();
            assert_eq!(s.imprint.as_ref().unwrap().bins, *bins);
            assert_eq!((s.sybils, s.min_genuine), (0, 1));
            assert!(c.central_dp.is_none());
            assert_eq!(
                c.participants.as_ref().unwrap().len(),
                SYBIL_OTHERS as usize + 1
            );
        }
    }
}
