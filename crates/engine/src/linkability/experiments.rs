//! The Linkability lab's studies for `whereabouts reproduce --lab linkability`
//! (docs/reproduce-linkability.md), laid out as [004]'s tables on the synthetic population:
//! identification by attack and split (Tables 4 and 6), matching (Table 8), the per-layer
//! study (Fig. 8), the open world against the share of seen people (Fig. 13), the mitigations'
//! trade-offs (Fig. 14), and beyond the paper the MLP's epochs, the unlabelled linkers and
//! linking by place. In their own files: the collaborative task (Table 3, `utility.rs`), how
//! much the identification needs (Figs. 9 and 12, `sensitivity.rs`) and the raw data beside the
//! updates (Fig. 6, Tables 5 and 7, Fig. 11, `raw.rs`).
//!
//! Its length (about 790 lines): every table of `reproduce --lab linkability`, each runner beside
//! the table it fills.

use super::attack::Identifier;
use super::attack::knn;
use super::attack::mlp::MlpSettings;
use super::attack::siamese::SiameseSettings;
use super::attack::unlabelled::{Chaining, Grouping, chain, cluster};
use super::config::{LinkConfig, Mitigation, Split};
use super::features::Layers;
use super::federation::FederationRun;
use super::metrics::Identification;
use super::model::model_spec;
use super::population::Population;
use super::scenario::{Observations, OpenWorld, identify, identify_on, match_with_mlp, open_world};
use crate::signal_map::reference::{References, knn_rmse};
use serde::{Deserialize, Serialize};
use std::ops::Range;
use whereabouts_core::rng::Stream;
use whereabouts_core::stats::{self, Estimate, Verdict};
use whereabouts_core::sweep::{LabRun, LabStudy, Runs, each};
use whereabouts_core::table::Table;

pub mod crafted;
mod raw;
pub mod secure;
mod sensitivity;
mod utility;

pub use crafted::Crafted;
pub use secure::SecureSum;

/// How big the studies are.
#[derive(Clone, Copy, Debug)]
pub struct Scale {
    pub seed: u64,
    /// The people of every study (the paper's PIPA has 53 users).
    pub people: usize,
    /// A second, larger population for the identification table (OpenImages has 327).
    pub large: Option<usize>,
    pub rounds: usize,
    pub mlp: MlpSettings,
    /// Populations (seeds `seed`, `seed + 1`, …) every figure is measured on: each cell is the
    /// mean over them with its 95% interval.
    pub seeds: u64,
}

impl Scale {
    pub fn full(seed: u64) -> Scale {
        Scale {
            seed,
            people: 53,
            large: Some(327),
            rounds: 28,
            mlp: MlpSettings::default(),
            seeds: 5,
        }
    }

    pub fn quick(seed: u64) -> Scale {
        Scale {
            seed,
            people: 12,
            large: None,
            rounds: 8,
            mlp: MlpSettings {
                epochs: 5,
                ..MlpSettings::default()
            },
            seeds: 2,
        }
    }

    /// The populations' seeds.
    pub fn seeds(&self) -> impl Iterator<Item = u64> + use<> {
        self.seed..self.seed.saturating_add(self.seeds)
    }

    fn config(&self, seed: u64, people: usize, split: Split) -> LinkConfig {
        LinkConfig {
            seed,
            people,
            rounds: self.rounds,
            split,
            mlp: self.mlp,
            ..LinkConfig::default()
        }
    }
}

/// A finished federation and its log as the attacks read it.
pub struct Observed {
    pub run: FederationRun,
    pub obs: Observations,
}

pub fn observe(config: &LinkConfig) -> Result<Observed, String> {
    config.validate().map_err(|e| e.to_string())?;
    let population = Population::generate(config).map_err(|e| e.to_string())?;
    let mut run = FederationRun::new(config, population);
    run.finish()?;
    let obs = Observations::from_log(&run.log, &run.places, None);
    Ok(Observed { run, obs })
}

/// What a point of the study measures on its federation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Analysis {
    /// Each attack, trained and tested on the closed world (Tables 4 and 6, Fig. 14).
    Identify(Vec<Identifier>),
    /// The identification MLP's matching of devices (Table 8).
    Match,
    /// The MLP and k-NN on each layer's update alone, then on all of it (Fig. 8).
    Layers,
    /// The MLP trained for each number of epochs.
    Epochs(Vec<usize>),
    /// The open world at each share of seen people (Fig. 13).
    Open(Vec<f64>),
    /// k-means of every update and chaining rounds.
    Unlabelled,
    /// The collaborative task beside its references, the k-NN regression among them (Table 3).
    Utility,
    /// The MLP trained on `k` of each person's known-device updates, for each `k` (Fig. 9).
    TrainingSize(Vec<usize>),
    /// The MLP trained on one range of rounds and tested on another, the rounds cut into this
    /// many ranges (Fig. 12): the identifications row by row (train range, then test range).
    RoundRanges(usize),
    /// The raw data beside the updates (Fig. 6, Tables 5 and 7, Fig. 11).
    Raw,
}

/// A point of the study: one federation and what is measured on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkPoint {
    pub config: LinkConfig,
    pub analysis: Analysis,
}

/// What a point found: its federation's size and utility, and its analysis's figures.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Findings {
    /// Updates the server logged, of the known devices and of the new ones.
    pub updates: usize,
    pub known_updates: usize,
    pub new_updates: usize,
    /// The global model's test RMSE (dB).
    pub test_rmse: Option<f64>,
    /// Updates a phone could not send because its local training diverged.
    #[serde(default)]
    pub diverged_updates: usize,
    /// Beside it (federations without a mitigation): the mean predictor and the centralised
    /// model on the same test set.
    #[serde(default)]
    pub references: Option<References>,
    /// Identification figures in the analysis's order: by attack, by layer then attack, or by
    /// epochs.
    pub identifications: Vec<Identification>,
    /// The matching AP.
    pub matching_ap: Option<f64>,
    /// The open world at each share of seen people.
    pub open: Vec<OpenWorld>,
    /// The unlabelled linkers.
    pub unlabelled: Option<Unlabelled>,
    /// The k-NN regression's test RMSE (dB) on the same data (Table 3).
    #[serde(default)]
    pub knn_rmse: Option<f64>,
    /// The raw data's figures (Fig. 6, Tables 5 and 7, Fig. 11).
    #[serde(default)]
    pub raw: Option<raw::RawFindings>,
}

/// What the linkers without labels found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Unlabelled {
    pub grouping: Grouping,
    pub chaining: Chaining,
}

/// The attacks each layer of the per-layer study faces.
const LAYER_ATTACKS: [Identifier; 2] = [Identifier::Mlp, Identifier::Knn];

/// The per-layer study's views of an update: each layer alone, then every parameter.
fn layer_views() -> Vec<(String, Range<usize>)> {
    let spec = model_spec();
    let mut views: Vec<(String, Range<usize>)> = spec
        .layers()
        .iter()
        .enumerate()
        .map(|(i, l)| {
            (
                format!(
                    "{} ({}→{}, {} parameters)",
                    i + 1,
                    l.inputs,
                    l.outputs,
                    l.b + l.outputs - l.w
                ),
                l.w..l.b + l.outputs,
            )
        })
        .collect();
    views.push((
        format!("all ({} parameters)", spec.parameter_count()),
        0..spec.parameter_count(),
    ));
    views
}

/// Runs one point: its federation to the end, then its analysis.
pub fn find(point: &LinkPoint) -> Result<Findings, String> {
    let config = &point.config;
    let (people, seed, mlp) = (config.people, config.seed, config.mlp);
    let o = observe(config)?;
    let mut findings = Findings {
        updates: o.obs.len(),
        known_updates: o.obs.device_rows(0).len(),
        new_updates: o.obs.device_rows(1).len(),
        test_rmse: o.run.test_rmse(),
        diverged_updates: o.run.diverged_updates,
        references: (config.mitigation == Mitigation::None).then(|| o.run.references()),
        ..Findings::default()
    };
    match &point.analysis {
        Analysis::Identify(attacks) => {
            for &attack in attacks {
                let m = identify(&o.obs, people, attack, mlp, seed)?.metrics;
                findings.identifications.push(m);
            }
        }
        Analysis::Match => {
            let net = identify(&o.obs, people, Identifier::Mlp, mlp, seed)?
                .mlp
                .ok_or("the MLP attack keeps its network")?;
            let ap = match_with_mlp(&o.obs, &net, seed).ok_or("no pairs of devices to match")?;
            findings.matching_ap = Some(ap);
        }
        Analysis::Layers => {
            for (_, range) in layer_views() {
                let obs = Observations {
                    x: Observations::from_log(&o.run.log, &o.run.places, Some(range)).x,
                    ..o.obs.clone()
                };
                for attack in LAYER_ATTACKS {
                    let m = identify(&obs, people, attack, mlp, seed)?.metrics;
                    findings.identifications.push(m);
                }
            }
        }
        Analysis::Epochs(epochs) => {
            for &epochs in epochs {
                let settings = MlpSettings { epochs, ..mlp };
                let m = identify(&o.obs, people, Identifier::Mlp, settings, seed)?.metrics;
                findings.identifications.push(m);
            }
        }
        Analysis::Open(shares) => {
            for &seen in shares {
                let w = open_world(&o.obs, people, seen, mlp, SiameseSettings::default(), seed)?;
                findings.open.push(w);
            }
        }
        Analysis::Utility => {
            let d = &o.run.population.dataset;
            findings.knn_rmse = knn_rmse(&d.train, &d.test, knn::K);
        }
        Analysis::TrainingSize(sizes) => {
            for &k in sizes {
                let world = sensitivity::fewer_updates(&o.obs, k, seed);
                let m = identify_on(&o.obs, &world, people, Identifier::Mlp, mlp, seed)?.metrics;
                findings.identifications.push(m);
            }
        }
        Analysis::RoundRanges(ranges) => {
            for world in sensitivity::round_ranges(&o.obs, config.rounds, *ranges) {
                let m = match world {
                    Some(w) => {
                        Some(identify_on(&o.obs, &w, people, Identifier::Mlp, mlp, seed)?.metrics)
                    }
                    None => None,
                };
                findings
                    .identifications
                    .push(m.unwrap_or(Identification::NONE));
            }
        }
        Analysis::Raw => findings.raw = Some(raw::raw_findings(config, &o)?),
        Analysis::Unlabelled => {
            let mut stream = Stream::new(seed, "unlabelled-kmeans");
            findings.unlabelled = Some(Unlabelled {
                grouping: cluster(&o.obs.x, &o.obs.owner, people, &mut stream),
                chaining: chain(&o.obs.x, &o.obs.round, &o.obs.owner),
            });
        }
    }
    Ok(findings)
}

/// Where the studies' points come from: computed, planned or replayed
/// ([`whereabouts_core::sweep`]).
pub type LinkRuns<'a> = dyn Runs<LinkPoint, Findings> + 'a;

/// `whereabouts reproduce --lab linkability`: every study, each federation and its analysis a
/// point of the sweep.
pub struct Reproduce(pub Scale);

impl LabStudy for Reproduce {
    type Run = LinkPoint;

    fn tables(&self, runs: &mut LinkRuns) -> Result<Vec<Table>, String> {
        all(&self.0, runs)
    }
}

/// A point of every Linkability study: its federation to the end, then its analysis
/// ([`find`]).
impl LabRun for LinkPoint {
    type Outcome = Findings;

    fn seed(&self) -> u64 {
        self.config.seed
    }

    fn run(&self) -> Result<Findings, String> {
        find(self)
    }
}

/// Every table, in order, each point asked of `runs`.
pub fn all(scale: &Scale, runs: &mut LinkRuns) -> Result<Vec<Table>, String> {
    let mut tables = vec![identification_table(scale, scale.people, runs)?];
    if let Some(large) = scale.large {
        tables.push(identification_table(scale, large, runs)?);
    }
    tables.extend([
        matching(scale, runs)?,
        layers(scale, runs)?,
        epochs(scale, runs)?,
        open(scale, runs)?,
        unlabelled(scale, runs)?,
        mitigations(scale, runs)?,
        utility::utility(scale, runs)?,
        sensitivity::training_size(scale, runs)?,
        sensitivity::round_dependence(scale, runs)?,
    ]);
    tables.extend(raw::tables(scale, runs)?);
    Ok(tables)
}

/// A percentage over the populations: mean ± 95% interval.
fn pct(values: impl IntoIterator<Item = f64>) -> String {
    stats::cell(values, 1, 100.0)
}

/// The `k`th identification of each population's findings (NaN where a placeholder has none).
fn nth(os: &[Findings], k: usize) -> Vec<Identification> {
    os.iter()
        .map(|o| {
            o.identifications
                .get(k)
                .copied()
                .unwrap_or(Identification::NONE)
        })
        .collect()
}

/// Mean AP % ± its interval, with the mean multiple of chance.
fn ap_cell(ms: &[Identification]) -> String {
    let times = Estimate::of(ms.iter().map(Identification::over_chance))
        .map_or("–".into(), |e| format!("{:.1}×", e.mean));
    format!("{} ({times})", pct(ms.iter().map(|m| m.mean_ap)))
}

/// The paper's closed-world identification: (AP, top-1, top-5) by model, Table 4 (PIPA, 53
/// users: random, photoset) and Table 6 (OpenImages, 327 users: random, day, chrono).
fn paper_identification(people: usize, attack: Identifier, split: Split) -> Option<&'static str> {
    use Identifier::*;
    use Split::*;
    Some(if people < 150 {
        match (attack, split) {
            (Mlp, Random) => "91.0 (48×) · 84.7 · 96.3",
            (Svm, Random) => "81.3 (43×) · 89.3 · 91.9",
            (Knn, Random) => "85.4 (45×) · 82.6 · 92.6",
            (Chance, Random) => "1.9 (1×) · 2.0 · 9.9",
            (Mlp, Day) => "photoset: 42.2 (22×) · 40.0 · 68.8",
            (Svm, Day) => "photoset: 27.7 (15×) · 43.7 · 49.6",
            (Knn, Day) => "photoset: 31.5 (17×) · 38.4 · 54.8",
            (Chance, Day) => "photoset: 1.9 (1×) · 2.0 · 9.9",
            _ => return None,
        }
    } else {
        match (attack, split) {
            (Mlp, Random) => "53.7 (175×) · 51.9 · 77.9",
            (Svm, Random) => "49.0 (159×) · 66.5 · 67.0",
            (Knn, Random) => "46.0 (150×) · 49.2 · 63.9",
            (Mlp, Day) => "44.0 (143×) · 42.5 · 68.6",
            (Svm, Day) => "38.2 (124×) · 56.6 · 57.4",
            (Knn, Day) => "35.6 (116×) · 40.8 · 54.9",
            (Mlp, Chrono) => "32.5 (106×) · 31.9 · 57.1",
            (Svm, Chrono) => "24.6 (80×) · 41.7 · 42.5",
            (Knn, Chrono) => "25.1 (82×) · 30.3 · 43.1",
            (Chance, _) => "0.3 (1×) · 0.3 · 1.5",
            _ => return None,
        }
    })
}

/// Tables 4 and 6: closed-world identification by attack and split.
pub fn identification_table(
    scale: &Scale,
    people: usize,
    runs: &mut LinkRuns,
) -> Result<Table, String> {
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for split in Split::ALL {
        let all = each(runs, scale.seeds(), |seed| LinkPoint {
            config: scale.config(seed, people, split),
            analysis: Analysis::Identify(Identifier::ALL.to_vec()),
        })?;
        // A federation in which a phone's local SGD diverged is a failed run: its global model
        // is not the signal map the others learn (its RMSE explodes), so its figures are left
        // out of the cells and named here.
        let (healthy, failed): (Vec<_>, Vec<_>) = scale
            .seeds()
            .zip(all)
            .partition(|(_, o)| o.diverged_updates == 0);
        let os: Vec<Findings> = healthy.into_iter().map(|(_, o)| o).collect();
        notes.push(format!(
            "{} split: {} updates a population ({} of known devices, {} of new ones); the global model's test RMSE {} dB.",
            split.name(),
            stats::cell(os.iter().map(|o| o.updates as f64), 0, 1.0),
            stats::cell(os.iter().map(|o| o.known_updates as f64), 0, 1.0),
            stats::cell(os.iter().map(|o| o.new_updates as f64), 0, 1.0),
            stats::cell(os.iter().map(|o| o.test_rmse.unwrap_or(f64::NAN)), 2, 1.0),
        ));
        if !failed.is_empty() {
            let c = scale.config(scale.seed, people, split);
            notes.push(format!(
                "{} split: the federation of {} failed and is left out (its cells are over {} populations): a phone's local SGD diverged (η = {}, E = {}, B = {}), it sent nothing that round, and the global model then blew up ({}).",
                split.name(),
                failed
                    .iter()
                    .map(|(seed, _)| format!("population {seed}"))
                    .collect::<Vec<_>>()
                    .join(" and "),
                os.len(),
                c.learning_rate,
                c.local_epochs,
                c.batch_size,
                failed
                    .iter()
                    .map(|(seed, o)| format!(
                        "population {seed}: {} updates never sent, test RMSE {:.1e} dB",
                        o.diverged_updates,
                        o.test_rmse.unwrap_or(f64::NAN)
                    ))
                    .collect::<Vec<_>>()
                    .join("; "),
            ));
        }
        for (k, attack) in Identifier::ALL.into_iter().enumerate() {
            let ms = nth(&os, k);
            rows.push(vec![
                split.name().into(),
                attack.short_label().into(),
                ap_cell(&ms),
                pct(ms.iter().map(|m| m.top1)),
                pct(ms.iter().map(|m| m.top5)),
                paper_identification(people, attack, split)
                    .unwrap_or("—")
                    .into(),
            ]);
        }
    }
    notes.push(format!(
        "Each cell: the mean over {} populations (seeds {}–{}) ± the half-width of its 95% interval (Student's t). Top-k counts tied scores at random (expected rank). Chance AP is {:.2}% (1/{people}). The paper's column: AP (×chance) · top-1 · top-5 of Table {} ({} users); its PIPA has no day split, so its photoset split (photos grouped by album) stands beside ours.",
        scale.seeds,
        scale.seed,
        scale.seed + scale.seeds - 1,
        100.0 / people as f64,
        if people < 150 { 4 } else { 6 },
        if people < 150 { "PIPA, 53" } else { "OpenImages, 327" },
    ));
    Ok(Table {
        title: format!(
            "Identification, closed world, {people} people × 2 devices, {} rounds (Tables 4 and 6)",
            scale.rounds
        ),
        notes,
        columns: [
            "split",
            "attack",
            "mean AP % (×chance)",
            "top-1 %",
            "top-5 %",
            "paper",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// Table 8: matching pairs of devices with the identification MLP.
pub fn matching(scale: &Scale, runs: &mut LinkRuns) -> Result<Table, String> {
    let mut rows = Vec::new();
    for (split, paper) in [
        (Split::Random, "99.5 (PIPA), 98.2 (OpenImages)"),
        (Split::Day, "97.2 (OpenImages); photoset 91.2 (PIPA)"),
        (Split::Chrono, "94.8 (OpenImages)"),
    ] {
        let os = each(runs, scale.seeds(), |seed| LinkPoint {
            config: scale.config(seed, scale.people, split),
            analysis: Analysis::Match,
        })?;
        rows.push(vec![
            split.name().into(),
            pct(os.iter().map(|o| o.matching_ap.unwrap_or(f64::NAN))),
            "50".into(),
            paper.into(),
        ]);
    }
    Ok(Table {
        title: format!(
            "Matching: P(same person) for a known device's update and a new device's, balanced pairs, {} people (Table 8)",
            scale.people
        ),
        notes: vec![format!(
            "The MLP's two distributions over people are combined as Σ_u p₁(u)·p₂(u) (the paper's formula was lost in the text; docs/papers.md). Chance is 50. Mean over {} populations ± 95% interval.",
            scale.seeds
        )],
        columns: ["split", "matching AP %", "chance %", "paper (AP %)"]
            .map(String::from)
            .to_vec(),
        rows,
    })
}

/// Fig. 8: which layer gives a person away (MLP on each layer's update alone).
pub fn layers(scale: &Scale, runs: &mut LinkRuns) -> Result<Table, String> {
    let os = each(runs, scale.seeds(), |seed| LinkPoint {
        config: LinkConfig {
            layers: Layers::All,
            ..scale.config(seed, scale.people, Split::Random)
        },
        analysis: Analysis::Layers,
    })?;
    let mut rows = Vec::new();
    let cells = layer_views()
        .into_iter()
        .flat_map(|(name, _)| LAYER_ATTACKS.map(|attack| (name.clone(), attack)));
    for (k, (name, attack)) in cells.enumerate() {
        let ms = nth(&os, k);
        rows.push(vec![
            name,
            attack.short_label().into(),
            ap_cell(&ms),
            pct(ms.iter().map(|m| m.top1)),
        ]);
    }
    Ok(Table {
        title: format!(
            "Per layer: identification from one layer's update, {} people, random split (Fig. 8)",
            scale.people
        ),
        notes: vec![format!(
            "The paper (PIPA, MobileNet): every layer is above chance, deeper layers more, and the final fully connected layer most; the figure itself was lost. Mean over {} populations ± 95% interval.",
            scale.seeds
        )],
        columns: ["layer", "attack", "mean AP % (×chance)", "top-1 %"]
            .map(String::from)
            .to_vec(),
        rows,
    })
}

/// The MLP's epochs, which the paper does not give (our default is 20).
pub fn epochs(scale: &Scale, runs: &mut LinkRuns) -> Result<Table, String> {
    const EPOCHS: [usize; 4] = [5, 20, 50, 100];
    let os = each(runs, scale.seeds(), |seed| LinkPoint {
        config: scale.config(seed, scale.people, Split::Random),
        analysis: Analysis::Epochs(EPOCHS.to_vec()),
    })?;
    let mut rows = Vec::new();
    for (k, epochs) in EPOCHS.into_iter().enumerate() {
        let ms = nth(&os, k);
        rows.push(vec![
            epochs.to_string(),
            ap_cell(&ms),
            pct(ms.iter().map(|m| m.top1)),
            pct(ms.iter().map(|m| m.top5)),
        ]);
    }
    Ok(Table {
        title: format!(
            "The MLP's training length (not in the paper), {} people, random split",
            scale.people
        ),
        notes: vec![format!(
            "Mean over {} populations ± 95% interval.",
            scale.seeds
        )],
        columns: ["epochs", "mean AP % (×chance)", "top-1 %", "top-5 %"]
            .map(String::from)
            .to_vec(),
        rows,
    })
}

/// Fig. 13: the open world against the share of seen people.
pub fn open(scale: &Scale, runs: &mut LinkRuns) -> Result<Table, String> {
    const SEEN: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
    let os = each(runs, scale.seeds(), |seed| LinkPoint {
        config: scale.config(seed, scale.people, Split::Random),
        analysis: Analysis::Open(SEEN.to_vec()),
    })?;
    let mut rows = Vec::new();
    for (k, seen) in SEEN.into_iter().enumerate() {
        let worlds: Vec<Option<&OpenWorld>> = os.iter().map(|o| o.open.get(k)).collect();
        let ms: Vec<Identification> = worlds
            .iter()
            .filter_map(|w| w.and_then(|w| w.identification))
            .collect();
        let ap = if ms.is_empty() {
            "—".into()
        } else {
            ap_cell(&ms)
        };
        let top1 = if ms.is_empty() {
            "—".into()
        } else {
            pct(ms.iter().map(|m| m.top1))
        };
        let matching: Vec<f64> = worlds
            .iter()
            .filter_map(|w| w.and_then(|w| w.matching_ap))
            .collect();
        let matching = Estimate::of(matching.iter().copied()).map_or("—".into(), |e| {
            format!("{} ({:.2}×)", e.cell(1, 100.0), e.mean / 0.5)
        });
        rows.push(vec![format!("{:.0}", 100.0 * seen), ap, top1, matching]);
    }
    Ok(Table {
        title: format!(
            "Open world, {} people: a third held out for the \"unknown\" class, the rest seen or unseen (Fig. 13)",
            scale.people
        ),
        notes: vec![format!(
            "Identification: the MLP over the seen people + \"unknown\"; the unseen people's second devices should come out unknown. Matching: the Siamese network on balanced cross-device pairs of everyone not held out. The paper (PIPA): identification AP 67% → 43% as seen people grow, 3× → 14× chance; matching with no seen people 1.5× (PIPA) and 1.8× (OpenImages) chance. Mean over {} populations ± 95% interval.",
            scale.seeds
        )],
        columns: [
            "seen people %",
            "identification AP % (×chance)",
            "top-1 %",
            "Siamese matching AP % (×chance)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// Beyond the paper: linking with no labels at all.
pub fn unlabelled(scale: &Scale, runs: &mut LinkRuns) -> Result<Table, String> {
    let mut rows = Vec::new();
    for split in Split::ALL {
        let os = each(runs, scale.seeds(), |seed| LinkPoint {
            config: scale.config(seed, scale.people, split),
            analysis: Analysis::Unlabelled,
        })?;
        let found: Vec<&Unlabelled> = os.iter().filter_map(|o| o.unlabelled.as_ref()).collect();
        let of = |f: &dyn Fn(&Unlabelled) -> f64, digits: usize, scale: f64| {
            stats::cell(found.iter().map(|u| f(u)), digits, scale)
        };
        rows.push(vec![
            split.name().into(),
            of(&|u| u.grouping.purity, 2, 1.0),
            of(&|u| u.grouping.adjusted_rand, 2, 1.0),
            format!(
                "{} ({})",
                of(&|u| u.chaining.same_person, 1, 100.0),
                of(&|u| u.chaining.chance, 1, 100.0)
            ),
            of(&|u| u.chaining.chains.purity, 2, 1.0),
            of(&|u| u.chaining.chains.adjusted_rand, 2, 1.0),
        ]);
    }
    Ok(Table {
        title: format!(
            "Without labels, {} people: k-means of every update, and chaining rounds by the optimal matching",
            scale.people
        ),
        notes: vec![format!(
            "k-means has one cluster per person; purity and the adjusted Rand index are against the true owners (1 is perfect, ARI 0 is chance). Chaining links each round's updates one-to-one to the next round's by Kuhn–Munkres on cosine similarity: the share of links that stay with one person, chance in brackets, and the chains' purity and ARI. Mean over {} populations ± 95% interval.",
            scale.seeds
        )],
        columns: [
            "split",
            "k-means purity",
            "k-means ARI",
            "chain links, same person % (chance)",
            "chain purity",
            "chain ARI",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// The σ of the noise mitigation, from the whole update's typical coordinate (≈ 0.001) to a
/// last-layer one's (median |Δw| ≈ 0.06 at the defaults, the largest tenth above 0.4); the
/// paper's values were lost.
pub const NOISE_GRID: [f64; 5] = [0.001, 0.003, 0.01, 0.03, 0.1];
pub const BETA_GRID: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
pub const ALPHA_GRID: [f64; 4] = [0.0, 0.5, 1.0, 2.0];

/// Every mitigation at every strength of its grid.
pub fn mitigation_grid() -> Vec<Mitigation> {
    let mut grid = vec![Mitigation::None];
    grid.extend(NOISE_GRID.map(|sigma| Mitigation::Noise { sigma }));
    grid.extend(
        BETA_GRID[1..]
            .iter()
            .map(|&beta| Mitigation::BkgRepl { beta }),
    );
    grid.extend(
        ALPHA_GRID[1..]
            .iter()
            .map(|&alpha| Mitigation::RandAug { alpha }),
    );
    grid.extend(
        ALPHA_GRID[1..]
            .iter()
            .map(|&alpha| Mitigation::MmAug { alpha }),
    );
    grid
}

/// Fig. 14: each mitigation's privacy (the attacks' AP over chance) against its utility (the
/// global model's test RMSE relative to no mitigation), over the whole grid of strengths, each
/// point marked where another point beats it on privacy and is not worse on utility.
pub fn mitigations(scale: &Scale, runs: &mut LinkRuns) -> Result<Table, String> {
    const ATTACKS: [Identifier; 3] = [Identifier::Mlp, Identifier::Knn, Identifier::Place];
    let grid = mitigation_grid();
    let mut measured = Vec::new();
    for &mitigation in &grid {
        let os = each(runs, scale.seeds(), |seed| LinkPoint {
            config: LinkConfig {
                mitigation,
                ..scale.config(seed, scale.people, Split::Random)
            },
            analysis: Analysis::Identify(ATTACKS.to_vec()),
        })?;
        measured.push(os);
    }
    let rmse = |os: &[Findings]| -> Vec<f64> {
        os.iter().map(|o| o.test_rmse.unwrap_or(f64::NAN)).collect()
    };
    let base = rmse(&measured[0]);
    let references: Vec<References> = measured[0].iter().filter_map(|o| o.references).collect();
    let privacy: Vec<Option<Estimate>> = measured
        .iter()
        .map(|os| Estimate::of(nth(os, 0).iter().map(Identification::over_chance)))
        .collect();
    let utility: Vec<Option<Estimate>> = measured.iter().map(|os| Estimate::of(rmse(os))).collect();
    let name = |m: &Mitigation| format!("{} {}", m.name(), m.strength());
    let mut rows = Vec::new();
    for (i, (mitigation, os)) in grid.iter().zip(&measured).enumerate() {
        let mut row = vec![
            mitigation.name().into(),
            format!("{}", mitigation.strength()),
        ];
        for k in 0..ATTACKS.len() {
            row.push(
                Estimate::of(nth(os, k).iter().map(Identification::over_chance))
                    .map_or("–".into(), |e| format!("{}×", e.cell(1, 1.0))),
            );
        }
        let r = rmse(os);
        row.push(stats::cell(r.iter().copied(), 2, 1.0));
        row.push(stats::cell(r.iter().zip(&base).map(|(a, b)| a / b), 2, 1.0));
        // Beaten: another point's MLP ×chance lies wholly below this one's, and its RMSE is
        // not wholly above.
        let beaten: Vec<String> = (0..grid.len())
            .filter(|&j| j != i)
            .filter(
                |&j| match (privacy[j], privacy[i], utility[j], utility[i]) {
                    (Some(pj), Some(pi), Some(uj), Some(ui)) => {
                        Verdict::of(&pj, &pi) == Verdict::Lower
                            && Verdict::of(&uj, &ui) != Verdict::Higher
                    }
                    _ => false,
                },
            )
            .map(|j| name(&grid[j]))
            .collect();
        row.push(match beaten.len() {
            0 => "—".into(),
            n if n <= 3 => beaten.join(", "),
            n => format!("{} and {} more", beaten[..2].join(", "), n - 2),
        });
        rows.push(row);
    }
    let reference = |f: &dyn Fn(&References) -> f64| stats::cell(references.iter().map(f), 2, 1.0);
    Ok(Table {
        title: format!(
            "Mitigations, {} people, random split: privacy against utility over every strength (Fig. 14)",
            scale.people
        ),
        notes: vec![
            format!(
                "Strength: σ for noise (on every coordinate), β for bkg-repl, α for rand-aug and mm-aug. Privacy: each attack's mean AP as a multiple of chance, retrained on the mitigated updates (AM5); lower is more private. Utility: the global model's RMSE on the held-out 20% (dB) and relative to no mitigation; lower is better. Each cell: the mean over {} populations ± its 95% interval. \"Beaten by\": the points whose MLP ×chance interval lies wholly below this one's and whose RMSE interval is not wholly above it — compare the mitigations over the whole curve, not at one strength each. The paper (OpenImages, at a small α): mm-aug cuts the MLP's AP by 75%, rand-aug 45%, bkg-repl 67%; noise costs utility for little privacy.",
                scale.seeds
            ),
            if references.is_empty() {
                "References: not measured.".into()
            } else {
                format!(
                    "On the same test set, without a mitigation: predicting the mean signal everywhere scores {} dB, the same model trained centrally on every device's data {} dB (signal_map::reference). A mitigation's RMSE is a cost only where the federation's model is below the mean predictor's.",
                    reference(&|r| r.mean_rmse_db),
                    reference(&|r| r.centralised_rmse_db.unwrap_or(f64::NAN)),
                )
            },
        ],
        columns: [
            "mitigation",
            "strength",
            "MLP ×chance",
            "k-NN ×chance",
            "by place ×chance",
            "test RMSE dB",
            "relative RMSE",
            "beaten by",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// Native only: the measurement runs for minutes.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// Runs every point on the spot.
    struct Direct;

    impl Runs<LinkPoint, Findings> for Direct {
        fn run(&mut self, point: LinkPoint) -> Result<Findings, String> {
            find(&point)
        }
    }

    /// The tables of [004] Table 3 and Figs. 9 and 12 at `reproduce`'s full size on five
    /// populations, before a full `reproduce` carries them (docs/reproduce-linkability.md):
    /// `cargo test --release -p whereabouts-engine --lib linkability_sensitivity_measured --
    /// --ignored --nocapture`.
    #[test]
    #[ignore = "minutes; prints Table 3 and Figs. 9 and 12"]
    fn linkability_sensitivity_measured() {
        let scale = Scale::full(1);
        for table in [
            utility::utility(&scale, &mut Direct).unwrap(),
            sensitivity::training_size(&scale, &mut Direct).unwrap(),
            sensitivity::round_dependence(&scale, &mut Direct).unwrap(),
        ] {
            println!("{}", table.to_markdown());
        }
    }
}
