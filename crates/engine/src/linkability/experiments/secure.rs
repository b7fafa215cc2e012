//! `whereabouts reproduce --lab linkability --study secure-sum` (issue 39 §2): what the
//! identification attacks still reach when the server sees only sums of updates.
//!
//! With secure aggregation on from the start the server holds one sum a round and no update of
//! any device ([`crate::linkability::federation`]): nothing to train an attack on. The study
//! therefore gives the server every advantage short of that: it trained its attacks on
//! individual labelled updates — the closed world's known (first) devices, as in [004] §6.1 and
//! §8.2 — *before* secure aggregation was switched on, and from then on it sees only sums of
//! cohorts of k devices' updates. Each cohort is drawn in one round among the devices that took
//! part, second (new) devices only, so its owners are k different people whom the attack has
//! never seen on those devices: for each of a round's new-device updates, it and k − 1 others of
//! the round drawn at random (a round with fewer than k new devices gives no cohort of k). The
//! cohort's updates are clipped and quantised and summed as the protocol sums them
//! ([`RoundSum`], word for word its unmasked sum), and the server reads the sum as it read an
//! update: the kept layers scaled to unit length ([004] §6), standardised as the attack's
//! training set was, scored by the trained MLP and by the k-NN.
//!
//! Scored: is the attack's first answer (one of its first five) one of the cohort's k owners?
//! Ties are put in a uniformly random order and the hit is its probability, as the lab's top-k
//! ([`super::super::metrics`]). Chance is exact: a first answer drawn at random among P people
//! hits one of k owners with probability k/P, five answers with 1 − C(P − k, 5)/C(P, 5). Beside
//! it, the rank of the visitor (person 0, "you") in the scores of each sum that holds your new
//! device's update (chance (P + 1)/2). A cohort of one is the lab's identification of that
//! update, so the first row equals the identification's top-1 and top-5 (a test checks it).
//!
//! **Sum + central DP** (issue 39 §3–4, [`super::super::central_dp`]): on the same populations
//! the federation is run again under DP-FedAvg at each of [`dp_arms`] (a trusted aggregator,
//! q = 1, C = the lab's default, z = 0.3 and 1), and its signal map's test error is set beside
//! the same federation without DP (every update and only the sum train the same model), the
//! mean predictor and the model trained centrally, with the visitor's user-level ε. The
//! malicious server is built only in the Signal map.

use super::super::attack::Identifier;
use super::super::attack::knn;
use super::super::central_dp::{CENTRAL_DELTA, CentralDp};
use super::super::config::{LinkConfig, Split, default_dp};
use super::super::features::{Matrix, normalise};
use super::super::federation::FederationRun;
use super::super::federation::UPDATE_CLIP;
use super::super::lab::YOU;
use super::super::metrics::{Identification, Scores};
use super::super::population::Population;
use super::super::scenario::{ClosedWorld, Observations, identify};
use super::Scale;
use serde::{Deserialize, Serialize};
use whereabouts_core::rng::Stream;
use whereabouts_core::secagg::{RoundSum, Sees};
use whereabouts_core::stats::{self, Estimate, Verdict};
use whereabouts_core::sweep::{Runs, Sweep, each};
use whereabouts_core::table::Table;

/// The cohort sizes compared (issue 39 §2: 1, 2, 5, 10, 50), each at most the people.
pub const COHORTS: [usize; 5] = [1, 2, 5, 10, 50];

/// The attacks that score the sums: the paper's best and the one without training.
pub const ATTACKS: [Identifier; 2] = [Identifier::Mlp, Identifier::Knn];

/// The cohort sizes for `people` people: [`COHORTS`] with 50 brought down to the people where
/// there are fewer, no size twice.
pub fn cohorts(people: usize) -> Vec<usize> {
    let mut ks: Vec<usize> = COHORTS.iter().map(|&k| k.min(people)).collect();
    ks.dedup();
    ks
}

/// A point of the study: one population's federation (its server sees every update, so that
/// its attack can be trained before secure aggregation) and the cohort sizes scored on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SumPoint {
    pub config: LinkConfig,
    pub cohorts: Vec<usize>,
    /// DP-FedAvg's arms whose federations are run on the same population (none: the sums'
    /// table only).
    #[serde(default)]
    pub dp: Vec<CentralDp>,
}

/// The central-DP arms of the study: a trusted aggregator, everyone each round (q = 1), the
/// lab's default clip, z = 0.3 and z = 1.
pub fn dp_arms() -> Vec<CentralDp> {
    [0.3, 1.0]
        .into_iter()
        .map(|z| CentralDp {
            noise_multiplier: z,
            ..default_dp()
        })
        .collect()
}

/// One DP-FedAvg federation's figures on a population.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DpFigures {
    /// The signal map's test RMSE, dB (NaN: none).
    #[serde(deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub test_rmse: f64,
    /// The visitor's user-level ε over every round and of the last, at [`CENTRAL_DELTA`].
    pub epsilon_total: f64,
    pub epsilon_round: f64,
    /// Devices' changes the clip shortened, of those sent.
    pub clipped: usize,
    pub sent: usize,
    pub diverged_updates: usize,
}

/// An attack's figures on the sums of one cohort size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Hits {
    /// The mean over the sums of P(the first answer is an owner), P(one of the first five is).
    #[serde(deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub top1: f64,
    #[serde(deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub top5: f64,
    /// Your mean expected rank over the sums holding your new device's update (NaN: none).
    #[serde(deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub your_rank: f64,
}

/// One cohort size's figures on one population.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CohortFigures {
    pub k: usize,
    /// Sums scored, and of them the ones holding your new device's update.
    pub sums: usize,
    pub yours: usize,
    /// By attack, in [`ATTACKS`]' order.
    pub hits: Vec<Hits>,
    /// The same cohorts' sums under each of the point's DP arms (each update clipped to C over
    /// the whole model, the round's noise 2z·C on each coordinate of the sum), by attack.
    #[serde(default)]
    pub noised: Vec<Vec<Hits>>,
}

/// What one population gave.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SumFindings {
    pub people: usize,
    /// The attacks' identification of the individual new-device updates (in [`ATTACKS`]' order).
    pub individual: Vec<Identification>,
    pub by_size: Vec<CohortFigures>,
    /// Updates a phone could not send (its local training diverged): a failed federation.
    pub diverged_updates: usize,
    /// Coordinates clipped on the way into the sums.
    pub clipped: usize,
    /// The federation without DP's test RMSE, the mean predictor's and the centralised
    /// model's (dB; NaN: none), and each DP arm's figures, in the point's order.
    #[serde(default, deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub plain_rmse: f64,
    #[serde(default, deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub mean_rmse: f64,
    #[serde(default, deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub centralised_rmse: f64,
    #[serde(default)]
    pub dp: Vec<DpFigures>,
}

/// P(one of `owners` is among the first `k` answers of `row`), the tied scores in a uniformly
/// random order: classes above the cut count whole; where a tie of t classes holding o owners
/// straddles the cut with s places left, 1 − C(t − o, s)/C(t, s).
pub fn any_within(row: &[f64], owners: &[usize], k: usize) -> f64 {
    let mut levels: Vec<f64> = row.to_vec();
    levels.sort_by(|a, b| b.total_cmp(a));
    levels.dedup();
    let mut above = 0usize;
    for v in levels {
        let tied = row.iter().filter(|&&x| x == v).count();
        let owned = owners.iter().filter(|&&o| row[o] == v).count();
        if above + tied <= k {
            if owned > 0 {
                return 1.0;
            }
            above += tied;
            continue;
        }
        let slots = k.saturating_sub(above);
        return 1.0 - none_drawn(tied, owned, slots);
    }
    0.0
}

/// C(t − o, s)/C(t, s): the chance that `s` of `t` drawn without replacement miss all `o`.
fn none_drawn(t: usize, o: usize, s: usize) -> f64 {
    (0..s)
        .map(|j| (t.saturating_sub(o + j)) as f64 / (t - j) as f64)
        .product()
}

/// Chance: a random order of `people` hits one of `k` owners within its first `top` answers.
pub fn chance(people: usize, k: usize, top: usize) -> f64 {
    1.0 - none_drawn(people, k, top.min(people))
}

/// The cohorts of `k` among the closed world's new-device rows: for each row, it and k − 1
/// others of its round drawn at random (rows of a round with fewer than k new devices: none).
pub fn draw_cohorts(obs: &Observations, test: &[usize], k: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut by_round: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for &i in test {
        by_round.entry(obs.round[i]).or_default().push(i);
    }
    let mut cohorts = Vec::new();
    for (t, rows) in by_round {
        if rows.len() < k {
            continue;
        }
        let mut stream = Stream::new(seed, &format!("secure-sum-cohort-{k}-round-{t}"));
        for &anchor in &rows {
            let mut others: Vec<usize> = rows.iter().copied().filter(|&i| i != anchor).collect();
            stream.shuffle(&mut others);
            let mut cohort = vec![anchor];
            cohort.extend_from_slice(&others[..k - 1]);
            cohorts.push(cohort);
        }
    }
    cohorts
}

/// Each cohort's sum as the server reads it: the logged updates (`deltas`, by row) clipped,
/// quantised and summed as the protocol does, then scaled to unit length ([004] §6).
pub fn sums(deltas: &[&[f32]], cohorts: &[Vec<usize>]) -> Result<(Matrix, usize), String> {
    let width = deltas.first().map_or(0, |d| d.len());
    let mut x = Matrix::new(width);
    let mut clipped = 0;
    for cohort in cohorts {
        let mut sum = RoundSum::new(cohort.len(), UPDATE_CLIP, width).map_err(|e| e.to_string())?;
        for (c, &i) in cohort.iter().enumerate() {
            let d: Vec<f64> = deltas[i].iter().map(|&v| f64::from(v)).collect();
            clipped += d.iter().filter(|v| v.abs() > UPDATE_CLIP).count();
            sum.add(c as u32, &d).map_err(|e| e.to_string())?;
        }
        let mut row: Vec<f32> = sum.value().iter().map(|&v| v as f32).collect();
        normalise(&mut row);
        x.push(&row);
    }
    Ok((x, clipped))
}

/// Each cohort's sum under DP-FedAvg `dp` as the server reads it: every logged update (its kept
/// layers) scaled by min(1, C/‖Δ‖) with ‖Δ‖ its whole-model norm (`norms`), summed as the
/// protocol sums them, plus the trusted aggregator's Gaussian noise of 2z·C a coordinate — the
/// noise a round's sum carries ([`super::super::central_dp`]) — then scaled to unit length.
pub fn noised_sums(
    deltas: &[&[f32]],
    norms: &[f64],
    cohorts: &[Vec<usize>],
    dp: &CentralDp,
    seed: u64,
) -> Result<Matrix, String> {
    let width = deltas.first().map_or(0, |d| d.len());
    let mut x = Matrix::new(width);
    let mut noise = Stream::new(
        seed,
        &format!("secure-sum-dp-noise-z-{}", dp.noise_multiplier),
    );
    let sd = 2.0 * dp.noise_multiplier * dp.clip;
    for cohort in cohorts {
        let mut sum = RoundSum::new(cohort.len(), UPDATE_CLIP, width).map_err(|e| e.to_string())?;
        for (c, &i) in cohort.iter().enumerate() {
            let scale = (dp.clip / norms[i]).min(1.0);
            let d: Vec<f64> = deltas[i].iter().map(|&v| f64::from(v) * scale).collect();
            sum.add(c as u32, &d).map_err(|e| e.to_string())?;
        }
        let mut row: Vec<f32> = sum
            .value()
            .iter()
            .map(|&v| (v + noise.gaussian(0.0, sd)) as f32)
            .collect();
        normalise(&mut row);
        x.push(&row);
    }
    Ok(x)
}

/// The attack's hits on the sums of `cohorts` (rows of `obs`) from their `scores`.
fn hits(obs: &Observations, cohorts: &[Vec<usize>], scores: &Scores) -> Hits {
    let (mut top1, mut top5, mut rank, mut yours) = (0.0, 0.0, 0.0, 0usize);
    for (r, cohort) in cohorts.iter().enumerate() {
        let owners: Vec<usize> = cohort.iter().map(|&i| obs.owner[i]).collect();
        top1 += any_within(scores.row(r), &owners, 1);
        top5 += any_within(scores.row(r), &owners, 5);
        if owners.contains(&YOU) {
            rank += scores.expected_rank(r, YOU);
            yours += 1;
        }
    }
    let n = cohorts.len().max(1) as f64;
    Hits {
        top1: top1 / n,
        top5: top5 / n,
        your_rank: if yours == 0 {
            f64::NAN
        } else {
            rank / yours as f64
        },
    }
}

/// Runs one point: the federation with every update, the attacks trained on the known devices
/// (before secure aggregation), then every cohort size's sums scored.
pub fn find(point: &SumPoint) -> Result<SumFindings, String> {
    let config = LinkConfig {
        sees: Sees::Updates,
        ..point.config.clone()
    };
    let (people, seed) = (config.people, config.seed);
    let o = super::observe(&config)?;
    let obs = &o.obs;
    let world = ClosedWorld::of(obs);
    let mlp = identify(obs, people, Identifier::Mlp, config.mlp, seed)?;
    let knn_individual = identify(obs, people, Identifier::Knn, config.mlp, seed)?;
    let net = mlp.mlp.as_ref().ok_or("the MLP attack keeps its network")?;
    let (train_x, train_y, scaler) = world.training_set(obs);
    let deltas: Vec<&[f32]> = o.run.log.entries().iter().map(|e| &e.delta[..]).collect();
    let mut findings = SumFindings {
        people,
        individual: vec![mlp.metrics, knn_individual.metrics],
        diverged_updates: o.run.diverged_updates,
        ..SumFindings::default()
    };
    for &k in &point.cohorts {
        let cohorts = draw_cohorts(obs, &world.test, k, seed);
        let (x, clipped) = sums(&deltas, &cohorts)?;
        findings.clipped += clipped;
        let by_mlp = net.probabilities(&x);
        let by_knn = knn::classify(&train_x, &train_y, people, &scaler.apply(&x), knn::K);
        let mut noised = Vec::new();
        for dp in &point.dp {
            let x = noised_sums(&deltas, &o.run.norms, &cohorts, dp, seed)?;
            let by_knn = knn::classify(&train_x, &train_y, people, &scaler.apply(&x), knn::K);
            noised.push(vec![
                hits(obs, &cohorts, &net.probabilities(&x)),
                hits(obs, &cohorts, &by_knn),
            ]);
        }
        findings.by_size.push(CohortFigures {
            k,
            sums: cohorts.len(),
            yours: cohorts
                .iter()
                .filter(|c| c.iter().any(|&i| obs.owner[i] == YOU))
                .count(),
            hits: vec![hits(obs, &cohorts, &by_mlp), hits(obs, &cohorts, &by_knn)],
            noised,
        });
    }
    if !point.dp.is_empty() {
        let references = o.run.references();
        findings.plain_rmse = o.run.test_rmse().unwrap_or(f64::NAN);
        findings.mean_rmse = references.mean_rmse_db;
        findings.centralised_rmse = references.centralised_rmse_db.unwrap_or(f64::NAN);
        for dp in &point.dp {
            findings.dp.push(dp_federation(&config, dp)?);
        }
    }
    Ok(findings)
}

/// The federation of `config` under DP-FedAvg `dp` (`sees = dp`): its model's error and the
/// visitor's ε.
pub fn dp_federation(config: &LinkConfig, dp: &CentralDp) -> Result<DpFigures, String> {
    let config = LinkConfig {
        sees: Sees::Dp,
        central_dp: *dp,
        ..config.clone()
    };
    config.validate().map_err(|e| e.to_string())?;
    let population = Population::generate(&config).map_err(|e| e.to_string())?;
    let mut run = FederationRun::new(&config, population);
    run.finish()?;
    let last = run.central_rounds.last();
    Ok(DpFigures {
        test_rmse: run.test_rmse().unwrap_or(f64::NAN),
        epsilon_total: last.map_or(0.0, |r| r.epsilon_total),
        epsilon_round: last.map_or(0.0, |r| r.epsilon_round),
        clipped: run.dp_clipped_updates,
        sent: run.summed_updates,
        diverged_updates: run.diverged_updates,
    })
}

/// The second table: the signal map's test error under each DP arm beside the federation
/// without DP and the references, with the visitor's ε, over the healthy populations.
fn dp_table(scale: &Scale, arms: &[CentralDp], os: &[SumFindings]) -> Table {
    let db = |v: Vec<f64>| stats::cell(v, 2, 1.0);
    let plain: Vec<f64> = os.iter().map(|o| o.plain_rmse).collect();
    let against = |v: &[f64]| match (Estimate::of(v.to_vec()), Estimate::of(plain.clone())) {
        (Some(a), Some(b)) => match Verdict::of(&a, &b) {
            Verdict::Higher => "worse",
            Verdict::Lower => "better",
            Verdict::Inconclusive => "no difference shown",
        },
        _ => "–",
    };
    let mut rows = vec![vec![
        "every update, or only the sum (no DP)".into(),
        db(plain.clone()),
        "∞ (no DP)".into(),
        "–".into(),
        "–".into(),
        "–".into(),
    ]];
    for (a, dp) in arms.iter().enumerate() {
        let figures: Vec<DpFigures> = os.iter().filter_map(|o| o.dp.get(a).copied()).collect();
        let rmse: Vec<f64> = figures.iter().map(|f| f.test_rmse).collect();
        let clipped: usize = figures.iter().map(|f| f.clipped).sum();
        let sent: usize = figures.iter().map(|f| f.sent).sum();
        rows.push(vec![
            format!(
                "sum + central DP, z = {}, C = {}, q = {} (trusted)",
                dp.noise_multiplier, dp.clip, dp.sampling_rate
            ),
            db(rmse.clone()),
            stats::cell(figures.iter().map(|f| f.epsilon_total), 2, 1.0),
            stats::cell(figures.iter().map(|f| f.epsilon_round), 2, 1.0),
            format!("{:.0}%", 100.0 * clipped as f64 / sent.max(1) as f64),
            against(&rmse).into(),
        ]);
    }
    let reference = |name: &str, v: Vec<f64>| {
        let verdict = against(&v);
        vec![
            name.into(),
            db(v),
            "–".into(),
            "–".into(),
            "–".into(),
            verdict.into(),
        ]
    };
    rows.push(reference(
        "mean predictor",
        os.iter().map(|o| o.mean_rmse).collect(),
    ));
    rows.push(reference(
        "the same model trained centrally",
        os.iter().map(|o| o.centralised_rmse).collect(),
    ));
    let diverged: usize = os
        .iter()
        .flat_map(|o| o.dp.iter().map(|f| f.diverged_updates))
        .sum();
    let mut notes = vec![
        format!(
            "DP-FedAvg (McMahan et al. 2018, Alg. 1) over the lab's secure sum, a person the user: each round every person is sampled with probability q and both their devices clip their change (the whole model's) to L2 norm C; a trusted aggregator adds Gaussian noise of 2z·C to the devices' sum (z times a person's sensitivity, 2C), and the map moves by the sum over 2qN, noise z·C/(qN) a coordinate (docs/secagg.md). ε: the visitor's user-level ε — both their devices' whole data — over the {} rounds and of the last round alone, at δ = {CENTRAL_DELTA:e} (RDP accountant of the sampled Gaussian). Clipped: the share of the devices' sent changes the clip cut short. Against no DP: worse or better where the 95% intervals of the test error separate.",
            scale.rounds
        ),
        "The malicious server (a server that breaks the protocol) is built only in the Signal map (reproduce --lab signal-map --study secure-sum)."
            .to_string(),
    ];
    if diverged > 0 {
        notes.push(format!(
            "{diverged} device updates under DP were never computed (a phone's local SGD diverged; it sent a zero change)."
        ));
    }
    notes.push(format!(
        "Each cell: the mean over {} populations (seeds from {}) ± the half-width of its 95% interval (Student's t); random split, {} people × 2 devices, {} rounds; the same populations as the table above.",
        os.len(),
        scale.seed,
        scale.people,
        scale.rounds
    ));
    Table {
        title: format!(
            "Under secure aggregation + central DP: the signal map's test error and your ε, {} people × 2 devices",
            scale.people
        ),
        notes,
        columns: [
            "server sees",
            "test RMSE, dB",
            "your ε, total",
            "your ε, last round",
            "changes clipped",
            "against no DP",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// Against a constant (chance): where the 95% interval excludes it. A hit above chance and a
/// rank below it (`better`) are the attack doing better than guessing.
fn versus_chance(values: Vec<f64>, chance: f64, better: Verdict) -> &'static str {
    match Estimate::of(values) {
        Some(e) => {
            let c = Estimate {
                mean: chance,
                half_width: 0.0,
                n: e.n,
            };
            match Verdict::of(&e, &c) {
                Verdict::Inconclusive => "at chance",
                v if v == better => "above chance",
                _ => "below chance",
            }
        }
        None => "–",
    }
}

/// The third table: the same cohorts' sums under each DP arm, scored by the same attacks.
fn noised_table(scale: &Scale, arms: &[CentralDp], ks: &[usize], os: &[SumFindings]) -> Table {
    let people = scale.people;
    let pct = |v: Vec<f64>| stats::cell(v, 1, 100.0);
    let middle = (people as f64 + 1.0) / 2.0;
    let mut rows = Vec::new();
    for (a, dp) in arms.iter().enumerate() {
        for (j, &k) in ks.iter().enumerate() {
            let of = |attack: usize, f: &dyn Fn(&Hits) -> f64| -> Vec<f64> {
                os.iter()
                    .map(|o| {
                        o.by_size
                            .get(j)
                            .and_then(|c| c.noised.get(a))
                            .and_then(|h| h.get(attack))
                            .map_or(f64::NAN, f)
                    })
                    .collect()
            };
            let c1 = chance(people, k, 1);
            rows.push(vec![
                format!("z = {}, C = {}", dp.noise_multiplier, dp.clip),
                k.to_string(),
                pct(of(0, &|h| h.top1)),
                pct(of(1, &|h| h.top1)),
                format!("{:.1}", 100.0 * c1),
                stats::cell(of(0, &|h| h.your_rank), 1, 1.0),
                versus_chance(of(0, &|h| h.top1), c1, Verdict::Higher).into(),
                versus_chance(of(0, &|h| h.your_rank), middle, Verdict::Lower).into(),
            ]);
        }
    }
    Table {
        title: format!(
            "Under secure aggregation + central DP: the same server scoring noised sums of k devices' updates, {people} people × 2 devices"
        ),
        notes: vec![
            format!(
                "The cohorts of the first table, each update first clipped to L2 norm C over the whole model (scaled by min(1, C/‖Δ‖)), summed as the protocol sums them, and the trusted aggregator's Gaussian noise of 2z·C added to every coordinate — the noise a round's sum carries under DP-FedAvg with a person the user (docs/secagg.md) — then read as before (the last layer, unit length) by the MLP and the k-NN trained on the known devices' individual updates. Chance: k/P (P = {people}); your rank's chance {middle:.1}; against chance where the 95% interval excludes it."
            ),
            format!(
                "Each cell: the mean over {} populations ± the half-width of its 95% interval (Student's t), the populations of the first table.",
                os.len()
            ),
        ],
        columns: [
            "DP arm",
            "k (devices a sum)",
            "MLP top-1 %",
            "k-NN top-1 %",
            "chance top-1 %",
            "your rank, MLP",
            "MLP top-1 against chance",
            "your rank (MLP) against chance",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// The tables (the sums', then central DP's), every population asked of `runs` once.
pub fn tables(
    scale: &Scale,
    runs: &mut dyn Runs<SumPoint, SumFindings>,
) -> Result<Vec<Table>, String> {
    let people = scale.people;
    let ks = cohorts(people);
    let all = each(runs, scale.seeds(), |seed| SumPoint {
        config: LinkConfig {
            seed,
            people,
            rounds: scale.rounds,
            split: Split::Random,
            mlp: scale.mlp,
            ..LinkConfig::default()
        },
        cohorts: ks.clone(),
        dp: dp_arms(),
    })?;
    // A federation in which a phone's local SGD diverged is a failed run (as in the
    // identification table): left out and named.
    let (healthy, failed): (Vec<_>, Vec<_>) = scale
        .seeds()
        .zip(all)
        .partition(|(_, f)| f.diverged_updates == 0);
    let os: Vec<SumFindings> = healthy.into_iter().map(|(_, f)| f).collect();
    let pct = |v: Vec<f64>| stats::cell(v, 1, 100.0);
    let mut rows = Vec::new();
    for (j, &k) in ks.iter().enumerate() {
        let figures: Vec<&CohortFigures> = os.iter().filter_map(|o| o.by_size.get(j)).collect();
        let of = |a: usize, f: &dyn Fn(&Hits) -> f64| -> Vec<f64> {
            figures
                .iter()
                .map(|c| c.hits.get(a).map_or(f64::NAN, f))
                .collect()
        };
        let (c1, c5) = (chance(people, k, 1), chance(people, k, 5));
        let against = versus_chance;
        let middle = (people as f64 + 1.0) / 2.0;
        rows.push(vec![
            k.to_string(),
            stats::cell(figures.iter().map(|c| c.sums as f64), 0, 1.0),
            pct(of(0, &|h| h.top1)),
            pct(of(1, &|h| h.top1)),
            format!("{:.1}", 100.0 * c1),
            pct(of(0, &|h| h.top5)),
            pct(of(1, &|h| h.top5)),
            format!("{:.1}", 100.0 * c5),
            stats::cell(of(0, &|h| h.your_rank), 1, 1.0),
            stats::cell(of(1, &|h| h.your_rank), 1, 1.0),
            against(of(0, &|h| h.top1), c1, Verdict::Higher).into(),
            against(of(0, &|h| h.your_rank), middle, Verdict::Lower).into(),
        ]);
    }
    let individual = |a: usize, f: &dyn Fn(&Identification) -> f64| {
        pct(os
            .iter()
            .map(|o| o.individual.get(a).map_or(f64::NAN, f))
            .collect())
    };
    let mut notes = vec![
        format!(
            "The server trained its attacks on the known (first) devices' individual labelled \
             updates ([004] §6.1, §8.2) before secure aggregation was switched on; from then on it \
             sees only sums of cohorts of k devices' updates, drawn in each round among the new \
             (second) devices that took part — for each new-device update, it and k − 1 others \
             of its round — clipped to ±{UPDATE_CLIP} a coordinate, quantised and summed as the \
             protocol sums them, read as an update (the last layer, unit length). Hit: the \
             attack's first answer (one of its first five) is one of the cohort's k owners, ties \
             in a random order; chance: k/P for the first answer, 1 − C(P − k, 5)/C(P, 5) for \
             five (P = {people}). Your rank: the visitor's place in the scores of the sums \
             holding your new device's update (chance {:.1}). Against chance: the MLP's top-1 \
             and your rank by it, above (the attack beats guessing) or below chance where the \
             95% interval excludes chance, else at chance.",
            (people as f64 + 1.0) / 2.0
        ),
        format!(
            "On the same populations, each new-device update alone (the lab's identification): \
             MLP top-1 {}, top-5 {}; k-NN top-1 {}, top-5 {} — the k = 1 row.",
            individual(0, &|m| m.top1),
            individual(0, &|m| m.top5),
            individual(1, &|m| m.top1),
            individual(1, &|m| m.top5),
        ),
    ];
    let clipped: usize = os.iter().map(|o| o.clipped).sum();
    if clipped > 0 {
        notes.push(format!(
            "{clipped} coordinates were clipped on the way into the sums."
        ));
    }
    if !failed.is_empty() {
        notes.push(format!(
            "Left out (a phone's local SGD diverged, the global model is not the signal map the \
             others learn): {}.",
            failed
                .iter()
                .map(|(seed, f)| format!(
                    "population {seed} ({} updates never sent)",
                    f.diverged_updates
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    notes.push(format!(
        "Each cell: the mean over {} populations (seeds {}–{}) ± the half-width of its 95% \
         interval (Student's t); random split, {} rounds.",
        os.len(),
        scale.seed,
        scale.seed + scale.seeds - 1,
        scale.rounds
    ));
    let sums = Table {
        title: format!(
            "Under secure aggregation: a server that trained its attacks before, scoring sums of k \
             devices' updates, {people} people × 2 devices"
        ),
        notes,
        columns: [
            "k (devices a sum)",
            "sums scored",
            "MLP top-1 %",
            "k-NN top-1 %",
            "chance top-1 %",
            "MLP top-5 %",
            "k-NN top-5 %",
            "chance top-5 %",
            "your rank, MLP",
            "your rank, k-NN",
            "MLP top-1 against chance",
            "your rank (MLP) against chance",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    };
    Ok(vec![
        sums,
        noised_table(scale, &dp_arms(), &ks, &os),
        dp_table(scale, &dp_arms(), &os),
    ])
}

/// The study as a sweep (each population a point).
pub struct SecureSum(pub Scale);

impl Sweep for SecureSum {
    type Config = SumPoint;
    type Outcome = SumFindings;

    fn seed(point: &SumPoint) -> u64 {
        point.config.seed
    }

    fn run(&self, point: &SumPoint) -> Result<SumFindings, String> {
        find(point)
    }

    fn tables(&self, runs: &mut dyn Runs<SumPoint, SumFindings>) -> Result<Vec<Table>, String> {
        tables(&self.0, runs)
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::attack::mlp::MlpSettings;
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn point(people: usize, cohorts: Vec<usize>) -> SumPoint {
        SumPoint {
            config: LinkConfig {
                seed: 3,
                people,
                rounds: 6,
                mlp: MlpSettings {
                    epochs: 10,
                    ..MlpSettings::default()
                },
                ..LinkConfig::default()
            },
            cohorts,
            dp: Vec::new(),
        }
    }

    /// Ties in a random order: hand-counted probabilities, and chance in closed form.
    #[test]
    fn a_hit_counts_ties_at_random_and_chance_is_exact() {
        let row = [0.5, 0.2, 0.5, 0.5, 0.1];
        // First answer: one of three tied; two owners among them: 2/3.
        assert!((any_within(&row, &[0, 2], 1) - 2.0 / 3.0).abs() < 1e-12);
        assert!((any_within(&row, &[3], 1) - 1.0 / 3.0).abs() < 1e-12);
        // Two answers from three tied, one owner: 1 − C(2,2)/C(3,2) = 2/3.
        assert!((any_within(&row, &[3], 2) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(any_within(&row, &[1], 3), 0.0);
        assert_eq!(any_within(&row, &[1], 4), 1.0);
        assert_eq!(any_within(&row, &[4], 4), 0.0);
        // One owner: the lab's top-k.
        let s = Scores {
            rows: 1,
            classes: 5,
            data: row.to_vec(),
        };
        for k in 1..=5 {
            for c in 0..5 {
                assert!((any_within(&row, &[c], k) - s.within(0, c, k)).abs() < 1e-12);
            }
        }
        assert!((chance(53, 2, 1) - 2.0 / 53.0).abs() < 1e-12);
        // 1 − C(51, 5)/C(53, 5) = 1 − (48·47)/(53·52).
        let c5 = 1.0 - (48.0 * 47.0) / (53.0 * 52.0);
        assert!((chance(53, 2, 5) - c5).abs() < 1e-12);
        assert_eq!(chance(10, 10, 1), 1.0);
        assert_eq!(cohorts(53), vec![1, 2, 5, 10, 50]);
        assert_eq!(cohorts(8), vec![1, 2, 5, 8]);
    }

    /// A cohort of one is the update itself: its hits are the lab's identification, to the
    /// quantisation (which changes no answer here).
    #[test]
    fn a_sum_of_one_is_the_labs_identification() {
        let f = find(&point(8, vec![1])).unwrap();
        let one = &f.by_size[0];
        for (a, m) in ATTACKS.iter().zip(&f.individual) {
            let h = one.hits[ATTACKS.iter().position(|x| x == a).unwrap()];
            assert!(
                (h.top1 - m.top1).abs() < 1e-12,
                "{a:?}: {} vs {}",
                h.top1,
                m.top1
            );
            assert!(
                (h.top5 - m.top5).abs() < 1e-12,
                "{a:?}: {} vs {}",
                h.top5,
                m.top5
            );
        }
        assert!(
            f.individual[0].top1 > 3.0 * chance(8, 1, 1),
            "{:?}",
            f.individual
        );
        assert!(one.yours > 0 && one.hits[0].your_rank.is_finite());
    }

    /// A cohort of everyone holds every owner: every answer hits, as chance does; a test that
    /// would fail if the sums were not sums (the first answer of one update is not always an
    /// owner).
    #[test]
    fn a_sum_of_everyone_is_at_chance() {
        let f = find(&point(8, vec![1, 8])).unwrap();
        let (one, all) = (&f.by_size[0], &f.by_size[1]);
        assert!(one.hits[0].top1 < 1.0);
        for h in &all.hits {
            assert_eq!((h.top1, h.top5), (1.0, 1.0));
        }
        assert_eq!(chance(8, 8, 1), 1.0);
        assert!(
            all.sums > 0 && all.sums == one.sums,
            "{} / {}",
            all.sums,
            one.sums
        );
    }

    /// As the cohort grows, the first answer's lead over chance shrinks and your rank comes to
    /// the middle: 20 people, one update against sums of ten.
    #[test]
    fn a_large_cohort_approaches_chance() {
        let mut p = point(20, vec![1, 10]);
        p.config.seed = 1;
        p.config.rounds = 8;
        let f = find(&p).unwrap();
        let (one, ten) = (&f.by_size[0].hits[0], &f.by_size[1].hits[0]);
        let lead = |h: &Hits, k| h.top1 - chance(20, k, 1);
        assert!(lead(one, 1) > 0.2, "{one:?}");
        assert!(lead(ten, 10) < lead(one, 1), "{ten:?} against {one:?}");
        let middle = 21.0 / 2.0;
        assert!((ten.your_rank - middle).abs() < 2.0, "{ten:?}");
        assert!(one.your_rank < middle - 2.0, "{one:?}");
    }

    /// The central-DP arms run their own federations on the point's population: the map's error
    /// is finite, ε is the trusted accountant's at q = 1 (so larger at the smaller z), and the
    /// table sets them beside the federation without DP and the references.
    #[test]
    fn the_dp_arms_report_the_maps_error_and_your_epsilon() {
        let mut p = point(8, vec![1]);
        p.dp = dp_arms();
        let f = find(&p).unwrap();
        assert_eq!(f.dp.len(), 2);
        assert!(f.plain_rmse.is_finite() && f.mean_rmse.is_finite());
        let (low, high) = (f.dp[0], f.dp[1]);
        assert!(low.test_rmse.is_finite() && high.test_rmse.is_finite());
        assert!(low.epsilon_total > high.epsilon_total && high.epsilon_total > 0.0);
        assert!(high.epsilon_round < high.epsilon_total);
        assert_eq!(high.sent, 2 * 8 * 6, "q = 1: every device every round");
        // The noised sums of one update: each arm scored by both attacks; the noise (2z·C a
        // coordinate against an update clipped to C) takes the MLP's lead over chance away.
        let one = &f.by_size[0];
        assert_eq!((one.noised.len(), one.noised[1].len()), (2, 2));
        assert!(one.noised[1][0].top1 < one.hits[0].top1, "{one:?}");
        let scale = Scale {
            people: 8,
            rounds: 6,
            seeds: 1,
            ..Scale::full(3)
        };
        let t = dp_table(&scale, &p.dp, &[f]);
        assert_eq!(t.rows.len(), 5);
        assert!(t.rows[1][0].contains("z = 0.3") && t.rows[2][0].contains("z = 1"));
    }

    /// The cohorts are drawn within a round among its new devices, k distinct owners each.
    #[test]
    fn a_cohort_is_k_new_devices_of_one_round() {
        let p = point(8, vec![]);
        let o = super::super::observe(&p.config).unwrap();
        let world = ClosedWorld::of(&o.obs);
        for k in [2, 5] {
            let cs = draw_cohorts(&o.obs, &world.test, k, 3);
            assert!(!cs.is_empty());
            for c in &cs {
                assert_eq!(c.len(), k);
                assert!(c.iter().all(|&i| world.test.contains(&i)));
                assert!(c.iter().all(|&i| o.obs.round[i] == o.obs.round[c[0]]));
                let mut owners: Vec<usize> = c.iter().map(|&i| o.obs.owner[i]).collect();
                owners.sort_unstable();
                owners.dedup();
                assert_eq!(owners.len(), k);
            }
        }
    }
}
