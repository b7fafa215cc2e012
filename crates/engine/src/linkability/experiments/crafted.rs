//! `whereabouts reproduce --lab linkability --study crafted` (issue 42 §3): [004] §4's threat
//! T3, "the adversary creates clients with crafted data distributions (e.g. mimicking users
//! interested in cars, fashion or food); linking Alice's updates to these reveals her
//! interests" — with places for interests.
//!
//! The adversary creates one crafted client per candidate place: every distinct place of the
//! population (homes, workplaces and the places people share, [`candidate_places`]). A crafted
//! client's data is measurements at and around its one place only: positions drawn from a
//! Gaussian of [`SPREAD_M`] around it (the campus's stay wander), each labelled with the cell's
//! noise-free signal there (the adversary drive-tests the cell; the global model's own
//! prediction would give a zero loss and so no update — docs/papers.md), as many a round as a
//! real device has (the median over the devices with data that round). Each round the crafted
//! clients train from the round's global model exactly as the devices do
//! ([`FederationRun::outside_update`]: the same batch selection and local SGD); their updates
//! are not aggregated, so the federation is the lab's own.
//!
//! The attack is the lab's identification attack with the crafted clients as its "users": the
//! MLP (and k-NN) trained on their updates labelled by place, applied to every logged update of
//! the real devices; a person's score for a place is the mean of its score over their two
//! devices' updates, which ranks the places. A person's relevant places are those holding at
//! least [`RELEVANT_SHARE`] of their training points (a point belongs to its nearest candidate
//! place within [`VISIT_RADIUS_M`]). Scored: the AP of that ranking (scikit-learn's, ties one
//! threshold) and whether its first place is relevant (ties in a random order), each a mean
//! over people, beside chance — a random ranking's expected AP ([`chance_ap`]) and, for the
//! first place, the relevant share. The control: the same number of crafted clients at points
//! drawn uniformly over the area, their classes read as the places' — it must score at chance.

use super::super::attack::knn;
use super::super::attack::mlp;
use super::super::config::{LinkConfig, Split};
use super::super::features::{Matrix, Scaler, normalise};
use super::super::federation::FederationRun;
use super::super::metrics::{Scores, average_precision};
use super::super::population::{Population, owner};
use super::super::scenario::Observations;
use super::Scale;
use crate::signal_map::trace::{Dataset, Sample};
use serde::{Deserialize, Serialize};
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;
use whereabouts_core::stats::{self, Estimate, Verdict};
use whereabouts_core::sweep::{Runs, Sweep, each};
use whereabouts_core::table::Table;

/// The spread of a crafted client's positions around its place, metres (one standard deviation
/// east and north: the campus's stay wander).
pub const SPREAD_M: f64 = 25.0;

/// A person's point is at a place when that place is its nearest candidate within this, metres.
pub const VISIT_RADIUS_M: f64 = 100.0;

/// A place is relevant to a person who has at least this share of their points there.
pub const RELEVANT_SHARE: f64 = 0.05;

/// The first crafted client's pseudonym (far above every device's).
pub const CRAFTED_BASE: u32 = 1 << 24;

/// Where the adversary puts its crafted clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Crafting {
    /// One at each candidate place (the attack).
    AtPlaces,
    /// As many at points drawn uniformly over the area (the control).
    AtRandom,
}

impl Crafting {
    fn label(self) -> &'static str {
        match self {
            Crafting::AtPlaces => "one crafted client at each place",
            Crafting::AtRandom => "as many at random points (control)",
        }
    }
}

/// A point of the study: one population's federation and the crafted clients' arms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CraftedPoint {
    pub config: LinkConfig,
    pub arms: Vec<Crafting>,
}

/// One arm's figures on one population: means over people.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ArmFigures {
    #[serde(deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub ap_mlp: f64,
    #[serde(deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub ap_knn: f64,
    #[serde(deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub top1_mlp: f64,
    #[serde(deserialize_with = "whereabouts_core::nan::f64_or_null")]
    pub top1_knn: f64,
}

/// What one population gave.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CraftedFindings {
    /// Candidate places (crafted clients an arm).
    pub places: usize,
    /// People scored (with at least one relevant place), and their mean relevant places.
    pub people: usize,
    pub relevant: f64,
    /// Chance: the mean over people of their relevant share (a random first place's hit rate)
    /// and of a random ranking's expected AP ([`chance_ap`]).
    pub chance: f64,
    #[serde(default)]
    pub chance_ap: f64,
    /// Crafted updates an arm trained on (mean over arms).
    pub crafted_updates: usize,
    pub diverged_updates: usize,
    /// By arm, in the point's order.
    pub arms: Vec<ArmFigures>,
}

/// Every distinct place of the population's people (within a metre is the same place).
pub fn candidate_places(population: &Population) -> Vec<Metres> {
    let mut places: Vec<Metres> = Vec::new();
    for p in population.places.iter().flatten() {
        if places.iter().all(|q| q.distance(&p.position) > 1.0) {
            places.push(p.position);
        }
    }
    places
}

/// For each person, which of `places` are relevant ([`RELEVANT_SHARE`] of their training points).
pub fn relevant(population: &Population, places: &[Metres]) -> Vec<Vec<bool>> {
    let mut counts = vec![vec![0usize; places.len()]; population.people];
    let mut totals = vec![0usize; population.people];
    for s in &population.dataset.train {
        let person = owner(s.user);
        totals[person] += 1;
        let nearest = places
            .iter()
            .enumerate()
            .map(|(i, q)| (q.distance(&s.pos), i))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((d, i)) = nearest
            && d <= VISIT_RADIUS_M
        {
            counts[person][i] += 1;
        }
    }
    counts
        .iter()
        .zip(&totals)
        .map(|(c, &n)| {
            c.iter()
                .map(|&k| n > 0 && k as f64 >= RELEVANT_SHARE * n as f64)
                .collect()
        })
        .collect()
}

/// The points a device has in each round: the median over the devices with data that round.
pub fn points_a_round(population: &Population, rounds: usize) -> Vec<usize> {
    let data = &population.dataset;
    (0..rounds)
        .map(|t| {
            let mut n: Vec<usize> = population
                .clients()
                .iter()
                .map(|&c| data.local_data(c, t, false).len())
                .filter(|&n| n > 0)
                .collect();
            n.sort_unstable();
            n.get(n.len() / 2).copied().unwrap_or(0)
        })
        .collect()
}

/// The crafted clients' data: client `CRAFTED_BASE + i` holds, in round t, `counts[t]`
/// positions around `centres[i]` labelled with the cell's noise-free signal, on the
/// population's plane and calendar.
pub fn crafted_data(
    population: &Population,
    centres: &[Metres],
    counts: &[usize],
    seed: u64,
) -> Dataset {
    let d = &population.dataset;
    let mut stream = Stream::new(seed, "crafted-clients");
    let mut train = Vec::new();
    for (i, c) in centres.iter().enumerate() {
        for (t, &n) in counts.iter().enumerate() {
            for j in 0..n {
                let pos = Metres::new(
                    c.east + stream.gaussian(0.0, SPREAD_M),
                    c.north + stream.gaussian(0.0, SPREAD_M),
                );
                train.push(Sample {
                    user: CRAFTED_BASE + i as u32,
                    time: d.t0 + (t as f64 + (j as f64 + 0.5) / n as f64) * d.round_s,
                    pos,
                    x: d.standardizer.to_input(pos),
                    y: population.cell.rsrp_dbm(pos) as f32,
                });
            }
        }
    }
    Dataset {
        standardizer: d.standardizer,
        projection: d.projection,
        train,
        test: Vec::new(),
        t0: d.t0,
        round_s: d.round_s,
    }
}

/// A uniformly random ranking's expected AP with `r` relevant of `n`: with rel_i the i-th
/// place's relevance, E[rel_i·Σ_{k≤i} rel_k] = r/n + (i − 1)·r(r − 1)/(n(n − 1)), so
/// E[AP] = (1/r)·Σ_i E[…]/i = H_n/n + (r − 1)(n − H_n)/(n(n − 1)) (H_n the harmonic number):
/// well above the share r/n when r is small (r = 1: H_n/n).
pub fn chance_ap(r: usize, n: usize) -> f64 {
    if r == 0 || n == 0 {
        return f64::NAN;
    }
    let (r, n) = (r as f64, n as f64);
    let h: f64 = (1..=n as usize).map(|i| 1.0 / i as f64).sum();
    let tail = if n > 1.0 {
        (r - 1.0) * (n - h) / (n * (n - 1.0))
    } else {
        0.0
    };
    h / n + tail
}

/// Each person's score for each class: the mean of `scores` over their rows (`owners`).
fn by_person(scores: &Scores, owners: &[usize], people: usize) -> Vec<Vec<f64>> {
    let mut sum = vec![vec![0.0; scores.classes]; people];
    let mut n = vec![0usize; people];
    for (r, &o) in owners.iter().enumerate() {
        n[o] += 1;
        for (s, v) in sum[o].iter_mut().zip(scores.row(r)) {
            *s += v;
        }
    }
    for (row, &k) in sum.iter_mut().zip(&n) {
        row.iter_mut().for_each(|v| *v /= k.max(1) as f64);
    }
    sum
}

/// The mean AP and first-place hit over the people with a relevant place (and a row).
pub fn rank_places(scores: &[Vec<f64>], relevant: &[Vec<bool>]) -> (f64, f64) {
    let (mut ap, mut top1, mut n) = (0.0, 0.0, 0usize);
    for (row, labels) in scores.iter().zip(relevant) {
        let Some(a) = average_precision(row, labels) else {
            continue;
        };
        let best = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let tied: Vec<bool> = row
            .iter()
            .zip(labels)
            .filter(|(v, _)| **v == best)
            .map(|(_, &l)| l)
            .collect();
        ap += a;
        top1 += tied.iter().filter(|&&l| l).count() as f64 / tied.len().max(1) as f64;
        n += 1;
    }
    let n = n.max(1) as f64;
    (ap / n, top1 / n)
}

/// Runs one point: the federation, each arm's crafted clients trained alongside every round,
/// the attacks trained on them and every person's places ranked.
pub fn find(point: &CraftedPoint) -> Result<CraftedFindings, String> {
    let config = &point.config;
    config.validate().map_err(|e| e.to_string())?;
    let seed = config.seed;
    let population = Population::generate(config).map_err(|e| e.to_string())?;
    let places = candidate_places(&population);
    if places.is_empty() {
        return Err("crafted: the population has no places".into());
    }
    let relevant = relevant(&population, &places);
    let counts = points_a_round(&population, config.rounds);
    let (hw, hh) = population.half_extent;
    let data: Vec<Dataset> = point
        .arms
        .iter()
        .map(|arm| {
            let centres: Vec<Metres> = match arm {
                Crafting::AtPlaces => places.clone(),
                Crafting::AtRandom => {
                    let mut s = Stream::new(seed, "crafted-random-centres");
                    (0..places.len())
                        .map(|_| Metres::new(s.range(-hw, hw), s.range(-hh, hh)))
                        .collect()
                }
            };
            crafted_data(&population, &centres, &counts, seed)
        })
        .collect();
    let people = population.people;
    let mut run = FederationRun::new(config, population);
    let mut crafted: Vec<(Vec<Vec<f32>>, Vec<usize>)> = vec![Default::default(); data.len()];
    while !run.done() {
        let (t, before) = (run.round, run.global.clone());
        run.step()?;
        for (d, (rows, labels)) in data.iter().zip(crafted.iter_mut()) {
            for i in 0..places.len() {
                if let Some(mut delta) =
                    run.outside_update(d, CRAFTED_BASE + i as u32, t, &before)?
                {
                    normalise(&mut delta);
                    rows.push(delta);
                    labels.push(i);
                }
            }
        }
    }
    let obs = Observations::from_log(&run.log, &run.places, None);
    let scored: Vec<bool> = relevant.iter().map(|r| r.iter().any(|&l| l)).collect();
    let mut findings = CraftedFindings {
        places: places.len(),
        people: scored.iter().filter(|&&s| s).count(),
        diverged_updates: run.diverged_updates,
        ..CraftedFindings::default()
    };
    let shares: Vec<f64> = relevant
        .iter()
        .filter(|r| r.iter().any(|&l| l))
        .map(|r| r.iter().filter(|&&l| l).count() as f64)
        .collect();
    let scored_people = shares.len().max(1) as f64;
    findings.relevant = shares.iter().sum::<f64>() / scored_people;
    findings.chance = findings.relevant / places.len() as f64;
    findings.chance_ap = shares
        .iter()
        .map(|&r| chance_ap(r as usize, places.len()))
        .sum::<f64>()
        / scored_people;
    for (rows, labels) in &crafted {
        findings.crafted_updates += rows.len() / crafted.len();
        let x = Matrix::from_rows(obs.x.cols, rows.iter().map(|r| &r[..]));
        let all: Vec<usize> = (0..x.rows).collect();
        let scaler = Scaler::fit(&x, &all);
        let x = scaler.apply(&x);
        let test = scaler.apply(&obs.x);
        let net = mlp::train(
            &x,
            labels,
            places.len(),
            config.mlp,
            Stream::new(seed, "crafted-mlp"),
        )?;
        let by_mlp = by_person(&net.probabilities(&test), &obs.owner, people);
        let by_knn = by_person(
            &knn::classify(&x, labels, places.len(), &test, knn::K),
            &obs.owner,
            people,
        );
        let (ap_mlp, top1_mlp) = rank_places(&by_mlp, &relevant);
        let (ap_knn, top1_knn) = rank_places(&by_knn, &relevant);
        findings.arms.push(ArmFigures {
            ap_mlp,
            ap_knn,
            top1_mlp,
            top1_knn,
        });
    }
    Ok(findings)
}

/// The arms of the study: the attack, then the control.
pub const ARMS: [Crafting; 2] = [Crafting::AtPlaces, Crafting::AtRandom];

/// `a` against `b` where their 95% intervals separate.
fn against(a: &[f64], b: &[f64]) -> &'static str {
    match (Estimate::of(a.to_vec()), Estimate::of(b.to_vec())) {
        (Some(a), Some(b)) => match Verdict::of(&a, &b) {
            Verdict::Higher => "above chance",
            Verdict::Lower => "below chance",
            Verdict::Inconclusive => "at chance",
        },
        _ => "–",
    }
}

/// The table, every population asked of `runs` once.
pub fn tables(
    scale: &Scale,
    runs: &mut dyn Runs<CraftedPoint, CraftedFindings>,
) -> Result<Vec<Table>, String> {
    let all = each(runs, scale.seeds(), |seed| CraftedPoint {
        config: LinkConfig {
            seed,
            people: scale.people,
            rounds: scale.rounds,
            split: Split::Random,
            mlp: scale.mlp,
            ..LinkConfig::default()
        },
        arms: ARMS.to_vec(),
    })?;
    let (healthy, failed): (Vec<_>, Vec<_>) = scale
        .seeds()
        .zip(all)
        .partition(|(_, f)| f.diverged_updates == 0);
    let os: Vec<CraftedFindings> = healthy.into_iter().map(|(_, f)| f).collect();
    let pct = |v: &[f64]| stats::cell(v.to_vec(), 1, 100.0);
    let chance: Vec<f64> = os.iter().map(|o| o.chance).collect();
    let chance_ap: Vec<f64> = os.iter().map(|o| o.chance_ap).collect();
    let mut rows = Vec::new();
    for (a, arm) in ARMS.iter().enumerate() {
        let of = |f: &dyn Fn(&ArmFigures) -> f64| -> Vec<f64> {
            os.iter()
                .map(|o| o.arms.get(a).map_or(f64::NAN, f))
                .collect()
        };
        let (ap_mlp, ap_knn) = (of(&|f| f.ap_mlp), of(&|f| f.ap_knn));
        let (top1_mlp, top1_knn) = (of(&|f| f.top1_mlp), of(&|f| f.top1_knn));
        rows.push(vec![
            arm.label().into(),
            pct(&ap_mlp),
            pct(&ap_knn),
            pct(&chance_ap),
            pct(&top1_mlp),
            pct(&top1_knn),
            pct(&chance),
            against(&ap_mlp, &chance_ap).into(),
            against(&ap_knn, &chance_ap).into(),
        ]);
    }
    let mut notes = vec![
        format!(
            "[004] §4's T3 with places for interests: the adversary creates one client per candidate place (every distinct place of the people: homes, workplaces, shared places; {} a population), holding positions drawn around its place (Gaussian, {SPREAD_M} m a side) labelled with the cell's noise-free signal there, as many a round as a real device's median; each round they train from the round's global model as the devices do (not aggregated). The MLP and k-NN (K = {}) are trained on their updates labelled by place and score every logged update of the real devices; a person's place scores are the mean over their two devices' updates, and rank the places.",
            stats::cell(os.iter().map(|o| o.places as f64), 0, 1.0),
            knn::K
        ),
        format!(
            "Relevant: a place holding at least {:.0}% of a person's training points (a point is at its nearest place within {VISIT_RADIUS_M} m); {} relevant places a person. AP: scikit-learn's over the places, a mean over people; top-1: the first place is relevant (ties in a random order). Chance: a random ranking's expected AP, H_n/n + (r − 1)(n − H_n)/(n(n − 1)) with r relevant of n places (H_n harmonic), a mean over people; for the top-1, the relevant share r/n. The control puts as many crafted clients at points drawn uniformly over the area and reads their classes as the places'. Against chance: above or below where the 95% intervals of the AP and of chance separate, else at chance.",
            100.0 * RELEVANT_SHARE,
            stats::cell(os.iter().map(|o| o.relevant), 1, 1.0)
        ),
    ];
    if !failed.is_empty() {
        notes.push(format!(
            "Left out (a phone's local SGD diverged): {}.",
            failed
                .iter()
                .map(|(seed, _)| format!("population {seed}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    notes.push(format!(
        "Each cell: the mean over {} populations (seeds {}–{}) ± the half-width of its 95% interval (Student's t); {} people × 2 devices, random split, {} rounds.",
        os.len(),
        scale.seed,
        scale.seed + scale.seeds - 1,
        scale.people,
        scale.rounds
    ));
    Ok(vec![Table {
        title: format!(
            "T3, crafted clients: the places a person visits ranked from their updates, {} people × 2 devices",
            scale.people
        ),
        notes,
        columns: [
            "crafted clients",
            "MLP AP %",
            "k-NN AP %",
            "chance AP %",
            "MLP top-1 %",
            "k-NN top-1 %",
            "chance top-1 %",
            "MLP AP against chance",
            "k-NN AP against chance",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }])
}

/// The study as a sweep (each population a point).
pub struct Crafted(pub Scale);

impl Sweep for Crafted {
    type Config = CraftedPoint;
    type Outcome = CraftedFindings;

    fn seed(point: &CraftedPoint) -> u64 {
        point.config.seed
    }

    fn run(&self, point: &CraftedPoint) -> Result<CraftedFindings, String> {
        find(point)
    }

    fn tables(
        &self,
        runs: &mut dyn Runs<CraftedPoint, CraftedFindings>,
    ) -> Result<Vec<Table>, String> {
        tables(&self.0, runs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Hand-counted: AP over ties as one threshold, the first place's hit over ties.
    #[test]
    fn ranking_places_counts_ties() {
        let scores = vec![
            vec![0.9, 0.1, 0.5],
            vec![0.5, 0.5, 0.1],
            vec![0.2, 0.2, 0.2],
        ];
        let relevant = vec![
            vec![true, false, false],
            vec![false, true, false],
            vec![false, false, false],
        ];
        let (ap, top1) = rank_places(&scores, &relevant);
        // Person 0: AP 1, hit 1; person 1: AP 1/2 (two tied, one relevant), hit 1/2; person 2
        // has no relevant place and is left out.
        assert!((ap - 0.75).abs() < 1e-12, "{ap}");
        assert!((top1 - 0.75).abs() < 1e-12, "{top1}");
        // A random ranking's AP: r = n is 1; r = 1 of 3 is H_3/3; r = 2 of 3, by enumeration of
        // the 3 positions of the one irrelevant place: (1 + 5/6 + 7/12)/3.
        assert!((chance_ap(3, 3) - 1.0).abs() < 1e-12);
        assert!((chance_ap(1, 3) - (1.0 + 0.5 + 1.0 / 3.0) / 3.0).abs() < 1e-12);
        let two = (1.0 + (1.0 + 2.0 / 3.0) / 2.0 + (0.5 + 2.0 / 3.0) / 2.0) / 3.0;
        assert!((chance_ap(2, 3) - two).abs() < 1e-12, "{}", chance_ap(2, 3));
    }

    /// Small: 12 people over 8 rounds. The crafted clients at the places rank a person's places
    /// well above chance; at random points (the control) they do not — the test would fail if
    /// the updates carried nothing of the places or the scoring leaked the truth.
    #[test]
    fn crafted_clients_reveal_places_and_the_control_does_not() {
        let scale = Scale::quick(1);
        let point = CraftedPoint {
            config: LinkConfig {
                seed: 1,
                people: scale.people,
                rounds: scale.rounds,
                mlp: scale.mlp,
                ..LinkConfig::default()
            },
            arms: ARMS.to_vec(),
        };
        let f = find(&point).unwrap();
        assert!(
            f.places > 5 && f.people > 0 && f.chance > 0.0 && f.chance < 0.5,
            "{f:?}"
        );
        assert!(f.chance_ap > f.chance && f.chance_ap < 0.5, "{f:?}");
        let (at, random) = (f.arms[0], f.arms[1]);
        assert!(at.ap_mlp > 2.0 * f.chance_ap, "{f:?}");
        assert!(at.ap_knn > 2.0 * f.chance_ap, "{f:?}");
        assert!(at.top1_knn > 2.0 * f.chance, "{f:?}");
        assert!(random.ap_mlp < at.ap_mlp - 0.1, "{f:?}");
        assert!(random.ap_mlp < 1.5 * f.chance_ap, "{f:?}");
        assert!(random.ap_knn < 1.5 * f.chance_ap, "{f:?}");
    }
}
