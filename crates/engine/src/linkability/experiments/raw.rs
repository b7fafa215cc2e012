//! The person in the raw data, as [004] measures it beside the updates: the distinctiveness of
//! each user's data (§7.3, Fig. 6: the median distance between a user's own items against the
//! median distance to random items of the data set), identification from a single raw item, the
//! upper reference of Tables 5 and 7 (§8.2, "Comparison with Image Classification": a user
//! classifier on one raw image, the same client splits), and identification from an aggregate of
//! n raw items (§8.2, Fig. 11: "users are classified based on aggregated subsets of their
//! images", the aggregate A = the mean, testing the conjecture that an update is an aggregate
//! statistic of its client's data).
//!
//! The paper's raw items are photos, embedded by an ImageNet MobileNet; here they are a device's
//! training points, each as the model sees it: its standardised position and its RSRP
//! (docs/papers.md §3c). Every figure is measured on the same federation as the updates it is
//! set beside.

use super::{Analysis, LinkPoint, LinkRuns, Observed, Scale, ap_cell, paper_identification, pct};
use crate::linkability::attack::Identifier;
use crate::linkability::attack::mlp::MlpSettings;
use crate::linkability::config::{LinkConfig, Split};
use crate::linkability::features::{Matrix, distance2};
use crate::linkability::metrics::{Identification, Scores, identification};
use crate::linkability::population::owner;
use crate::linkability::scenario::{ClosedWorld, Observations, identify};
use crate::signal_map::trace::{Dataset, Sample};
use serde::{Deserialize, Serialize};
use whereabouts_core::rng::Stream;
use whereabouts_core::stats::{self, Estimate, Verdict};
use whereabouts_core::sweep::each;
use whereabouts_core::table::Table;

/// The attacks on one raw point (Tables 5 and 7: the network, the SVM and k-NN; the prior and
/// chance below them).
pub const POINT_ATTACKS: [Identifier; 4] = [
    Identifier::Mlp,
    Identifier::Svm,
    Identifier::Knn,
    Identifier::Chance,
];
/// The attacks on an aggregate of points and on the updates beside them.
pub const AGGREGATE_ATTACKS: [Identifier; 3] = [Identifier::Mlp, Identifier::Svm, Identifier::Knn];
/// Fig. 11's set sizes n.
pub const SIZES: [usize; 6] = [1, 2, 5, 10, 20, 50];
/// The most training points a device contributes to the single-point classifiers (and the most
/// test points a new device is judged on): the SVM's and the MLP's cost grows with them, and 200
/// a device is 21,200 points at 53 people (docs/papers.md §3c).
pub const POINTS_PER_DEVICE: usize = 200;
/// Pairs of points drawn for each person's intra- and inter-user medians (Fig. 6).
pub const PAIRS: usize = 1000;

/// How a set of points becomes one feature vector ([004] Fig. 11's A).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Aggregator {
    /// The mean of the points' features (the paper's example, A = mean).
    Mean,
    /// The mean and the standard deviation of each feature.
    MeanSpread,
}

impl Aggregator {
    pub const ALL: [Aggregator; 2] = [Aggregator::Mean, Aggregator::MeanSpread];

    pub fn name(self) -> &'static str {
        match self {
            Aggregator::Mean => "mean",
            Aggregator::MeanSpread => "mean and sd",
        }
    }

    /// The aggregate of `points` (each [`FEATURES`] wide; at least one).
    pub fn apply(self, points: &[[f32; FEATURES]]) -> Vec<f32> {
        let n = points.len().max(1) as f64;
        let mean: Vec<f64> = (0..FEATURES)
            .map(|c| points.iter().map(|p| f64::from(p[c])).sum::<f64>() / n)
            .collect();
        let mut out: Vec<f32> = mean.iter().map(|&m| m as f32).collect();
        if self == Aggregator::MeanSpread {
            out.extend((0..FEATURES).map(|c| {
                let var = points
                    .iter()
                    .map(|p| (f64::from(p[c]) - mean[c]).powi(2))
                    .sum::<f64>()
                    / n;
                var.sqrt() as f32
            }));
        }
        out
    }

    fn width(self) -> usize {
        match self {
            Aggregator::Mean => FEATURES,
            Aggregator::MeanSpread => 2 * FEATURES,
        }
    }
}

/// A raw point's features: east and north (standardised, the model's input) and the RSRP (dBm,
/// its label). The attacks standardise every column over their training rows.
pub const FEATURES: usize = 3;

pub fn point_features(s: &Sample) -> [f32; FEATURES] {
    [s.x[0], s.x[1], s.y]
}

/// Fig. 6 for one population: each person's median distance between two of their own items
/// (intra) and between one of theirs and one of someone else's (inter).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Distinctiveness {
    /// (intra, inter) of each person with at least two items, in person order.
    pub people: Vec<[f64; 2]>,
}

impl Distinctiveness {
    /// The share of people whose intra-user distance is below their inter-user one (a tie
    /// counts half). NaN with no person.
    pub fn below(&self) -> f64 {
        let score: f64 = self
            .people
            .iter()
            .map(|[a, b]| match a.total_cmp(b) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Greater => 0.0,
            })
            .sum();
        score / self.people.len() as f64
    }

    /// The median over people of the intra-user distance (0), the inter-user one (1).
    pub fn median(&self, k: usize) -> f64 {
        median(self.people.iter().map(|p| p[k]).collect())
    }

    /// The median over people of intra / inter.
    pub fn median_ratio(&self) -> f64 {
        median(self.people.iter().map(|[a, b]| a / b).collect())
    }
}

/// The median of `values` (the mean of the middle two for an even count; NaN for none).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.retain(|v| v.is_finite());
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// [004] Fig. 6 on `owner.len()` items: for each person, the median `distance` over [`PAIRS`]
/// random pairs of two different items of theirs (intra) and over as many pairs of an item of
/// theirs and an item of someone else (inter, the paper's "random images in the dataset", drawn
/// from the other people's).
pub fn distinctiveness(
    owner: &[usize],
    people: usize,
    distance: impl Fn(usize, usize) -> f64,
    stream: &mut Stream,
) -> Distinctiveness {
    let mut by_owner: Vec<Vec<usize>> = vec![Vec::new(); people];
    for (i, &o) in owner.iter().enumerate() {
        if o < people {
            by_owner[o].push(i);
        }
    }
    let others_total = owner.len();
    let mut out = Distinctiveness::default();
    for (person, mine) in by_owner.iter().enumerate() {
        let others = others_total - mine.len();
        if mine.len() < 2 || others == 0 {
            continue;
        }
        let pick = |s: &mut Stream, v: &[usize]| v[s.below(v.len() as u64) as usize];
        let intra: Vec<f64> = (0..PAIRS)
            .map(|_| {
                let a = pick(stream, mine);
                let mut b = a;
                while b == a {
                    b = pick(stream, mine);
                }
                distance(a, b)
            })
            .collect();
        let inter: Vec<f64> = (0..PAIRS)
            .map(|_| {
                let a = pick(stream, mine);
                let mut b = stream.below(others_total as u64) as usize;
                while owner[b] == person {
                    b = stream.below(others_total as u64) as usize;
                }
                distance(a, b)
            })
            .collect();
        out.people.push([median(intra), median(inter)]);
    }
    out
}

/// Raw rows as the attacks read them: a feature row each, with the owner, client and round of
/// the point or set it was made from (device 0's rows train, device 1's are attributed, as for
/// the updates: the same client split).
fn observations(rows: Vec<(u32, usize, Vec<f32>)>, width: usize) -> Observations {
    let mut obs = Observations {
        x: Matrix::new(width),
        place: Matrix::new(2),
        ..Observations::default()
    };
    for (client, round, x) in rows {
        obs.x.push(&x);
        obs.place.push(&[0.0, 0.0]);
        obs.owner.push(owner(client));
        obs.client.push(client);
        obs.round.push(round);
    }
    obs
}

/// Each client's training points, in client order.
fn by_client(dataset: &Dataset, people: usize) -> Vec<(u32, &[Sample])> {
    (0..2 * people as u32)
        .map(|c| (c, dataset.user_data(c)))
        .collect()
}

/// Single points: at most [`POINTS_PER_DEVICE`] of each device's training points, drawn at
/// random (stream `raw-points`).
pub fn point_rows(dataset: &Dataset, people: usize, seed: u64) -> Observations {
    let mut stream = Stream::new(seed, "raw-points");
    let mut rows = Vec::new();
    for (client, mine) in by_client(dataset, people) {
        let mut order: Vec<usize> = (0..mine.len()).collect();
        stream.shuffle(&mut order);
        order.truncate(POINTS_PER_DEVICE);
        order.sort_unstable();
        rows.extend(order.into_iter().map(|i| {
            let s = &mine[i];
            (client, dataset.round_of(s.time), point_features(s).to_vec())
        }));
    }
    observations(rows, FEATURES)
}

/// A round's batch: for every device and round with data, the aggregate of the points that
/// device trains on in that round (the very data its update of the round is computed from).
pub fn batch_rows(
    dataset: &Dataset,
    people: usize,
    rounds: usize,
    aggregator: Aggregator,
) -> Observations {
    let mut rows = Vec::new();
    for (client, _) in by_client(dataset, people) {
        for t in 0..rounds {
            let local = dataset.local_data(client, t, false);
            if !local.is_empty() {
                let points: Vec<[f32; FEATURES]> = local.iter().map(point_features).collect();
                rows.push((client, t, aggregator.apply(&points)));
            }
        }
    }
    observations(rows, aggregator.width())
}

/// Fig. 11's sets: `sets` sets a device of `n` of its training points each (drawn without
/// replacement within a set, all of them where the device has fewer; stream `raw-sets-n`), each
/// aggregated. A device without points gives no set.
pub fn set_rows(
    dataset: &Dataset,
    people: usize,
    n: usize,
    sets: usize,
    aggregator: Aggregator,
    seed: u64,
) -> Observations {
    let mut stream = Stream::new(seed, &format!("raw-sets-{n}"));
    let mut rows = Vec::new();
    for (client, mine) in by_client(dataset, people) {
        if mine.is_empty() {
            continue;
        }
        let mut order: Vec<usize> = (0..mine.len()).collect();
        for set in 0..sets {
            let k = n.min(mine.len());
            for i in 0..k {
                let j = i + stream.below((order.len() - i) as u64) as usize;
                order.swap(i, j);
            }
            let points: Vec<[f32; FEATURES]> = order[..k]
                .iter()
                .map(|&i| point_features(&mine[i]))
                .collect();
            rows.push((client, set, aggregator.apply(&points)));
        }
    }
    observations(rows, aggregator.width())
}

/// The prior ([004] Tables 5 and 7, "Prior"): every test row scores each person by their share
/// of the training rows.
pub fn prior(obs: &Observations, people: usize) -> Option<Identification> {
    let world = ClosedWorld::of(obs);
    let mut share = vec![0.0; people];
    for &i in &world.train {
        share[obs.owner[i]] += 1.0 / world.train.len() as f64;
    }
    let mut scores = Scores::zeros(world.test.len(), people);
    for r in 0..world.test.len() {
        scores.row_mut(r).copy_from_slice(&share);
    }
    let truth: Vec<usize> = world.test.iter().map(|&i| obs.owner[i]).collect();
    identification(&scores, &truth)
}

/// What the raw data gave on one federation.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RawFindings {
    /// One point → person: [`POINT_ATTACKS`], then the prior (Tables 5 and 7).
    pub point: Vec<Identification>,
    /// A round's batch (its mean) → person: [`AGGREGATE_ATTACKS`].
    pub batch: Vec<Identification>,
    /// The update → person on the same federation: [`AGGREGATE_ATTACKS`].
    pub update: Vec<Identification>,
    /// Fig. 11: for each of [`SIZES`], each [`Aggregator`], each of the MLP and k-NN.
    pub sets: Vec<Identification>,
    /// Fig. 6 on the points' positions (metres).
    pub data: Distinctiveness,
    /// Fig. 6 on the updates (unit-normalised last layer).
    pub updates: Distinctiveness,
}

/// Fig. 11's attacks.
pub const SET_ATTACKS: [Identifier; 2] = [Identifier::Mlp, Identifier::Knn];

/// The index in [`RawFindings::sets`] of size `s` (index into [`SIZES`]), aggregator `a` and
/// attack `k` (index into [`SET_ATTACKS`]).
pub fn set_index(s: usize, a: usize, k: usize) -> usize {
    (s * Aggregator::ALL.len() + a) * SET_ATTACKS.len() + k
}

fn run_attacks(
    obs: &Observations,
    people: usize,
    attacks: &[Identifier],
    mlp: MlpSettings,
    seed: u64,
) -> Result<Vec<Identification>, String> {
    attacks
        .iter()
        .map(|&a| identify(obs, people, a, mlp, seed).map(|i| i.metrics))
        .collect()
}

/// Every raw-data figure on the finished federation `o` of `config`.
pub fn raw_findings(config: &LinkConfig, o: &Observed) -> Result<RawFindings, String> {
    let (people, seed, mlp) = (config.people, config.seed, config.mlp);
    let dataset = &o.run.population.dataset;
    let points = point_rows(dataset, people, seed);
    let mut point = run_attacks(&points, people, &POINT_ATTACKS, mlp, seed)?;
    point.push(prior(&points, people).ok_or("no test points")?);
    let batches = batch_rows(dataset, people, config.rounds, Aggregator::Mean);
    let batch = run_attacks(&batches, people, &AGGREGATE_ATTACKS, mlp, seed)?;
    let update = run_attacks(&o.obs, people, &AGGREGATE_ATTACKS, mlp, seed)?;
    let mut sets = Vec::new();
    for n in SIZES {
        for aggregator in Aggregator::ALL {
            let obs = set_rows(dataset, people, n, config.rounds, aggregator, seed);
            sets.extend(run_attacks(&obs, people, &SET_ATTACKS, mlp, seed)?);
        }
    }
    let train = &dataset.train;
    let owners: Vec<usize> = train.iter().map(|s| owner(s.user)).collect();
    let data = distinctiveness(
        &owners,
        people,
        |a, b| {
            let (p, q) = (train[a].pos, train[b].pos);
            (p.east - q.east).hypot(p.north - q.north)
        },
        &mut Stream::new(seed, "distinctiveness-data"),
    );
    let updates = distinctiveness(
        &o.obs.owner,
        people,
        |a, b| distance2(o.obs.x.row(a), o.obs.x.row(b)).sqrt(),
        &mut Stream::new(seed, "distinctiveness-updates"),
    );
    Ok(RawFindings {
        point,
        batch,
        update,
        sets,
        data,
        updates,
    })
}

/// The raw findings of every population of `split`.
fn measured(scale: &Scale, split: Split, runs: &mut LinkRuns) -> Result<Vec<RawFindings>, String> {
    let os = each(runs, scale.seeds(), |seed| LinkPoint {
        config: scale.config(seed, scale.people, split),
        analysis: Analysis::Raw,
    })?;
    Ok(os.into_iter().map(|o| o.raw.unwrap_or_default()).collect())
}

/// The three tables of the raw data, from one federation a population and split: Fig. 6,
/// Tables 5 and 7, Fig. 11.
pub fn tables(scale: &Scale, runs: &mut LinkRuns) -> Result<Vec<Table>, String> {
    let mut by_split = Vec::new();
    for split in Split::ALL {
        by_split.push((split, measured(scale, split, runs)?));
    }
    let random = by_split
        .iter()
        .find(|(split, _)| *split == Split::Random)
        .map_or(&[][..], |(_, raws)| raws.as_slice());
    Ok(vec![
        distinctiveness_table(scale, &by_split),
        raw_identification(scale, &by_split),
        aggregation(scale, random),
    ])
}

/// The `k`th figure of `pick` in each population (NaN where a placeholder has none).
fn kth(
    raws: &[RawFindings],
    pick: fn(&RawFindings) -> &Vec<Identification>,
    k: usize,
) -> Vec<Identification> {
    raws.iter()
        .map(|r| pick(r).get(k).copied().unwrap_or(Identification::NONE))
        .collect()
}

/// Table 5's figures for the single-image classifiers, AP (×chance) · top-1 · top-5 (PIPA, 53
/// users; its photoset split beside our day split).
fn paper_point(attack: Option<Identifier>, split: Split) -> &'static str {
    use Identifier::*;
    match (attack, split) {
        (Some(Mlp), Split::Random) => "MobileNet 60.9 (32×) · 73.1 · 90.7",
        (Some(Svm), Split::Random) => "18.1 (10×) · 47.6 · 50.5",
        (Some(Knn), Split::Random) => "34.5 (18×) · 47.2 · 72.3",
        (Some(Chance), Split::Random) => "1.9 (1×) · 1.9 · 5.8",
        (None, Split::Random) => "1.9 (1×) · 11.5 · 38.8",
        (Some(Mlp), Split::Day) => "photoset: MobileNet 38.8 (21×) · 53.2 · 76.1",
        (Some(Svm), Split::Day) => "photoset: 10.9 (6×) · 36.8 · 40.0",
        (Some(Knn), Split::Day) => "photoset: 18.0 (10×) · 32.4 · 55.0",
        (Some(Chance), Split::Day) => "photoset: 1.9 (1×) · 1.8 · 5.6",
        (None, Split::Day) => "photoset: 1.9 (1×) · 11.2 · 38.6",
        _ => "—",
    }
}

/// [004] Tables 5 and 7 beside Table 4: identification from one raw point, from a round's batch
/// of points (their mean) and from the update, on the same federations and client splits.
pub fn raw_identification(scale: &Scale, by_split: &[(Split, Vec<RawFindings>)]) -> Table {
    fn cells(
        rows: &mut Vec<Vec<String>>,
        split: Split,
        input: &str,
        label: &str,
        ms: &[Identification],
        paper: &str,
    ) {
        rows.push(vec![
            split.name().into(),
            input.into(),
            label.into(),
            ap_cell(ms),
            pct(ms.iter().map(|m| m.top1)),
            pct(ms.iter().map(|m| m.top5)),
            paper.into(),
        ]);
    }
    let mut rows = Vec::new();
    for (split, raws) in by_split {
        let (split, raws) = (*split, raws.as_slice());
        for (k, attack) in POINT_ATTACKS.into_iter().enumerate() {
            let label = if attack == Identifier::Mlp {
                "MLP (the network)"
            } else {
                attack.short_label()
            };
            let ms = kth(raws, |r| &r.point, k);
            cells(
                &mut rows,
                split,
                "one point",
                label,
                &ms,
                paper_point(Some(attack), split),
            );
        }
        let ms = kth(raws, |r| &r.point, POINT_ATTACKS.len());
        cells(
            &mut rows,
            split,
            "one point",
            "Prior",
            &ms,
            paper_point(None, split),
        );
        for (k, attack) in AGGREGATE_ATTACKS.into_iter().enumerate() {
            let ms = kth(raws, |r| &r.batch, k);
            cells(
                &mut rows,
                split,
                "a round's batch (mean)",
                attack.short_label(),
                &ms,
                "—",
            );
        }
        for (k, attack) in AGGREGATE_ATTACKS.into_iter().enumerate() {
            let ms = kth(raws, |r| &r.update, k);
            let paper = paper_identification(scale.people, attack, split).unwrap_or("—");
            cells(
                &mut rows,
                split,
                "the update (last layer)",
                attack.short_label(),
                &ms,
                paper,
            );
        }
    }
    Table {
        title: format!(
            "Identification from the raw data: one point, a round's batch, the update, {} people, closed world ([004] §8.2, Tables 5 and 7 beside Table 4)",
            scale.people
        ),
        notes: vec![
            format!(
                "A point is a training point as the model sees it: its standardised position and its RSRP; each column is standardised over the training rows, as for the updates. The known device's points train, the new device's are attributed (the updates' client split); at most {POINTS_PER_DEVICE} random points a device on each side. A round's batch is the mean of the points a device trains on in one round, the data its update of that round is computed from: one row per update. MLP, SVM and k-NN are the update attacks' (128 hidden units, one-vs-rest linear SVM, K = 10); the prior scores every person by their share of the training rows. The update rows are the same federation's (Table 4's attacks on it)."
            ),
            format!(
                "The paper's column: Table 5 (PIPA, 53 users: a MobileNet, and SVM and k-NN on ImageNet features, classifying one photo) for the point rows, Table 4 for the update rows; its PIPA has no day split, so its photoset split stands beside ours, and no chrono split (Table 7, OpenImages, 327 users, gives chrono: MobileNet 16.8 (55×), k-NN 5.5 (18×), SVM 2.8 (9×)). Chance AP is {:.2}% (1/{}). Mean over {} populations (seeds {}–{}) ± 95% interval.",
                100.0 / scale.people as f64,
                scale.people,
                scale.seeds,
                scale.seed,
                scale.seed + scale.seeds - 1
            ),
        ],
        columns: [
            "split",
            "input",
            "attack",
            "mean AP % (×chance)",
            "top-1 %",
            "top-5 %",
            "paper",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// [004] Fig. 11: identification from the aggregate of n random points of a device, by n, beside
/// the update-based identification of the same federations (random split).
pub fn aggregation(scale: &Scale, raws: &[RawFindings]) -> Table {
    let ap = |ms: &[Identification]| Estimate::of(ms.iter().map(|m| m.mean_ap));
    let mut rows = Vec::new();
    for (s, n) in SIZES.into_iter().enumerate() {
        let mut row = vec![n.to_string()];
        for a in 0..Aggregator::ALL.len() {
            for k in 0..SET_ATTACKS.len() {
                row.push(ap_cell(&kth(raws, |r| &r.sets, set_index(s, a, k))));
            }
        }
        rows.push(row);
    }
    let update: Vec<Vec<Identification>> = [0, 2].map(|k| kth(raws, |r| &r.update, k)).to_vec();
    let mut row = vec!["the update".to_string()];
    for _ in Aggregator::ALL {
        row.extend(update.iter().map(|ms| ap_cell(ms)));
    }
    rows.push(row);
    // The readings: the mean of 50 points against one point and against the update (MLP).
    let last = SIZES.len() - 1;
    let of = |s: usize| ap(&kth(raws, |r| &r.sets, set_index(s, 0, 0)));
    let verdict = |a: Option<Estimate>, b: Option<Estimate>| match (a, b) {
        (Some(a), Some(b)) => match Verdict::of(&a, &b) {
            Verdict::Higher => "higher, the intervals separate",
            Verdict::Lower => "lower, the intervals separate",
            Verdict::Inconclusive => "inconclusive here, the intervals overlap",
        },
        _ => "not measured",
    };
    Table {
        title: format!(
            "Aggregation: the person from the mean of n of a device's points, {} people, random split, mean AP % (×chance) ([004] §8.2, Fig. 11)",
            scale.people
        ),
        notes: vec![
            format!(
                "Each device gives {} sets of n of its training points (as many as its rounds, so the attack learns from as many rows as from the updates), drawn at random without replacement within a set (all its points where it has fewer than n); a set's aggregate is the mean of its points' features (standardised position and RSRP), or the mean and the standard deviation of each. The known device's sets train, the new device's are attributed. The last row is the update-based MLP and k-NN on the same federations. The paper (figure lost): AP rises with n and plateaus, level with the update-based attack on PIPA and above it on OpenImages. Mean over {} populations ± 95% interval.",
                scale.rounds, scale.seeds
            ),
            format!(
                "MLP on the mean: n = {} against n = 1 {}; against the update {}.",
                SIZES[last],
                verdict(of(last), of(0)),
                verdict(of(last), ap(&update[0])),
            ),
        ],
        columns: std::iter::once("n".to_string())
            .chain(Aggregator::ALL.iter().flat_map(|a| {
                SET_ATTACKS
                    .iter()
                    .map(move |k| format!("{}: {}", a.name(), k.short_label()))
            }))
            .collect(),
        rows,
    }
}

/// [004] Fig. 6: each person's intra-user distance against their inter-user distance, in the
/// data (positions) and in the updates, summarised over people.
pub fn distinctiveness_table(scale: &Scale, by_split: &[(Split, Vec<RawFindings>)]) -> Table {
    let mut rows = Vec::new();
    let mut row = |what: String, unit: (usize, f64), ds: Vec<&Distinctiveness>| {
        let (digits, factor) = unit;
        rows.push(vec![
            what,
            pct(ds.iter().map(|d| d.below())),
            stats::cell(ds.iter().map(|d| d.median(0)), digits, factor),
            stats::cell(ds.iter().map(|d| d.median(1)), digits, factor),
            stats::cell(ds.iter().map(|d| d.median_ratio()), 2, 1.0),
        ]);
    };
    for (split, raws) in by_split {
        if *split == Split::Random {
            row(
                "the data: positions (m)".into(),
                (0, 1.0),
                raws.iter().map(|r| &r.data).collect(),
            );
        }
        row(
            format!("the updates, {} split (unit norm)", split.name()),
            (3, 1.0),
            raws.iter().map(|r| &r.updates).collect(),
        );
    }
    Table {
        title: format!(
            "Distinctiveness: each person's intra-user against inter-user distance, {} people ([004] §7.3, Fig. 6)",
            scale.people
        ),
        notes: vec![format!(
            "Intra-user: the median distance between two of a person's own items; inter-user: between one of theirs and one of someone else's (the paper: random images of the data set); each a median over {PAIRS} random pairs. The data row's items are every training point of the person (both devices; the split does not change them), the distance in metres between positions; the update rows' items are the person's updates (both devices), Euclidean between the unit-normalised last-layer updates. Then over the people of a population: the share whose intra-user distance is below their inter-user one (half for people drawn alike), the medians, and the median of each person's ratio. The paper (image features, figure lost): intra-user distances are much lower than inter-user ones. Mean over {} populations ± 95% interval.",
            scale.seeds
        )],
        columns: [
            "items",
            "people with intra < inter %",
            "median intra",
            "median inter",
            "median intra / inter",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// `people` people, each `per` items on a line: person p's items at `centre(p)` plus noise
    /// of width `spread`.
    fn items(
        people: usize,
        per: usize,
        centre: impl Fn(usize) -> f64,
        spread: f64,
    ) -> (Vec<usize>, Vec<f64>) {
        let mut stream = Stream::new(3, "items");
        let mut owner = Vec::new();
        let mut x = Vec::new();
        for p in 0..people {
            for _ in 0..per {
                owner.push(p);
                x.push(centre(p) + spread * stream.normal());
            }
        }
        (owner, x)
    }

    #[test]
    fn distinctiveness_is_one_for_people_apart_and_a_half_for_people_alike() {
        let (owner, x) = items(40, 30, |p| 100.0 * p as f64, 1.0);
        let d = distinctiveness(
            &owner,
            40,
            |a, b| (x[a] - x[b]).abs(),
            &mut Stream::new(1, "d"),
        );
        assert_eq!(d.people.len(), 40);
        assert_eq!(d.below(), 1.0);
        assert!(d.median_ratio() < 0.1, "{}", d.median_ratio());
        // Everyone drawn from one distribution: a coin flip a person, the ratio about 1.
        let (owner, x) = items(400, 30, |_| 0.0, 1.0);
        let d = distinctiveness(
            &owner,
            400,
            |a, b| (x[a] - x[b]).abs(),
            &mut Stream::new(1, "d"),
        );
        assert!((d.below() - 0.5).abs() < 0.1, "{}", d.below());
        assert!(
            (d.median_ratio() - 1.0).abs() < 0.05,
            "{}",
            d.median_ratio()
        );
    }

    #[test]
    fn median_and_aggregates() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(vec![]).is_nan());
        let points = [[0.0, 2.0, -80.0], [2.0, 2.0, -100.0]];
        assert_eq!(Aggregator::Mean.apply(&points), vec![1.0, 2.0, -90.0]);
        assert_eq!(
            Aggregator::MeanSpread.apply(&points),
            vec![1.0, 2.0, -90.0, 1.0, 0.0, 10.0]
        );
    }

    /// Rows for `people` people, each device `per` points around the person's own centre far
    /// apart from the others' relative to the spread of a single point (or all at one centre).
    fn sets_of(people: usize, apart: bool, n: usize) -> Observations {
        let mut stream = Stream::new(5, "points");
        let mut rows = Vec::new();
        for p in 0..people {
            let centre = if apart { p as f64 } else { 0.0 };
            for d in 0..2 {
                let client = crate::linkability::population::client(p, d);
                let mine: Vec<[f32; FEATURES]> = (0..200)
                    .map(|_| [0; FEATURES].map(|_| (centre + 3.0 * stream.normal()) as f32))
                    .collect();
                for set in 0..20 {
                    let pick: Vec<[f32; FEATURES]> =
                        (0..n).map(|_| mine[stream.below(200) as usize]).collect();
                    rows.push((client, set, Aggregator::Mean.apply(&pick)));
                }
            }
        }
        observations(rows, FEATURES)
    }

    #[test]
    fn the_mean_of_many_points_identifies_people_apart_and_not_people_alike() {
        let settings = MlpSettings::default();
        let ap = |obs: &Observations| {
            identify(obs, 10, Identifier::Knn, settings, 1)
                .unwrap()
                .metrics
        };
        let one = ap(&sets_of(10, true, 1));
        let fifty = ap(&sets_of(10, true, 50));
        // One point is barely a person (centres 1 apart in each feature, points spread by 3);
        // fifty points' mean (spread 3/√50 ≈ 0.4) nearly always is.
        assert!(fifty.mean_ap > 0.8, "{fifty:?}");
        assert!(fifty.mean_ap > one.mean_ap + 0.3, "{one:?} {fifty:?}");
        // People drawn alike: no n identifies them.
        let alike = ap(&sets_of(10, false, 50));
        assert!(alike.over_chance() < 2.0, "{alike:?}");
    }

    #[test]
    fn the_prior_scores_chance_ap_and_the_commonest_persons_share_top1() {
        // Person 0 has three training rows, person 1 one; two test rows each.
        let rows = vec![
            (0, 0, vec![0.0]),
            (0, 1, vec![0.0]),
            (0, 2, vec![0.0]),
            (2, 0, vec![0.0]),
            (1, 0, vec![0.0]),
            (1, 1, vec![0.0]),
            (3, 0, vec![0.0]),
            (3, 1, vec![0.0]),
        ];
        let m = prior(&observations(rows, 1), 2).unwrap();
        assert_eq!(m.mean_ap, m.chance_ap);
        assert_eq!(m.top1, 0.5);
        assert_eq!(m.top5, 1.0);
    }

    /// A small federation: every figure is there, one point already tells people apart better
    /// than chance, and the mean of fifty better than one point.
    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn a_small_federations_raw_figures() {
        let config = LinkConfig {
            seed: 2,
            people: 8,
            rounds: 6,
            mlp: MlpSettings {
                epochs: 5,
                ..MlpSettings::default()
            },
            ..LinkConfig::default()
        };
        let o = super::super::observe(&config).unwrap();
        let raw = raw_findings(&config, &o).unwrap();
        assert!(!o.obs.is_empty());
        assert_eq!(raw.point.len(), POINT_ATTACKS.len() + 1);
        assert_eq!(raw.batch.len(), AGGREGATE_ATTACKS.len());
        assert_eq!(raw.update.len(), AGGREGATE_ATTACKS.len());
        assert_eq!(
            raw.sets.len(),
            SIZES.len() * Aggregator::ALL.len() * SET_ATTACKS.len()
        );
        assert_eq!(raw.data.people.len(), 8);
        let knn = raw.point[2];
        assert!(knn.over_chance() > 1.5, "{knn:?}");
        let one = raw.sets[set_index(0, 0, 1)];
        let fifty = raw.sets[set_index(SIZES.len() - 1, 0, 1)];
        assert!(fifty.mean_ap > one.mean_ap, "{one:?} {fifty:?}");
        // People go to their own places: their points lie nearer each other than others'.
        assert!(raw.data.below() > 0.5, "{:?}", raw.data);
    }

    /// Every point on the spot.
    #[cfg(not(target_arch = "wasm32"))]
    struct Direct;

    #[cfg(not(target_arch = "wasm32"))]
    impl whereabouts_core::sweep::Runs<LinkPoint, super::super::Findings> for Direct {
        fn run(&mut self, point: LinkPoint) -> Result<super::super::Findings, String> {
            super::super::find(&point)
        }
    }

    /// The three tables at `reproduce`'s full size on five populations (seeds 1–5), as
    /// docs/reproduce-linkability.md gives them: `cargo test --release -p whereabouts-engine
    /// --lib linkability_raw_measured -- --ignored --nocapture` (`WHEREABOUTS_QUICK=1`: at
    /// `--quick`'s size).
    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    #[ignore = "minutes; prints Fig. 6, Tables 5 and 7, Fig. 11"]
    fn linkability_raw_measured() {
        let scale = if std::env::var_os("WHEREABOUTS_QUICK").is_some() {
            Scale::quick(1)
        } else {
            Scale::full(1)
        };
        let start = std::time::Instant::now();
        for table in tables(&scale, &mut Direct).unwrap() {
            println!("{}", table.to_markdown());
        }
        println!("{:.0} s", start.elapsed().as_secs_f64());
    }
}
