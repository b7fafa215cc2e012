//! The defences compared ([000] §4.4–4.5, Figs. 13–15; App. B, Figs. 27–30): each defence
//! swept over its parameter, privacy against utility, under the four protocols the paper runs
//! them under — rounds of one day and of one week, each under FedSGD and FedAvg (B = 20, E = 5),
//! the campus, from the mean label ([`Arm`]); findings 6 and 7 (docs/papers.md §4) checked on
//! each as the paper states them there, finding 7 against local DP, GeoInd and GAN obfuscation.

use super::findings::{self, Check, Figures};
use super::{
    DEFAULT_DLG, FEDSGD, ONLY_DEFAULT, Outcome, Scale, SignalRuns, Table, campus, cell, each,
    references_note, summaries, titled,
};
use crate::signal_map::defence::dp::{AppliedTo, LocalDp};
use crate::signal_map::defence::{DEFAULT_MIN_SAMPLES, Defence};
use crate::signal_map::scenario::{OutputBias, ScenarioConfig};
use crate::signal_map::trace::RoundLength;
use whereabouts_core::sweep::Sweep;

/// GAN obfuscation's levels in the comparison (ours: [000] gives its ρ only as curve points of
/// Fig. 15; docs/papers.md §3a).
pub const GAN_RHOS: [f64; 3] = [0.9, 0.5, 0.1];

/// How the note on the arm's synthetic data begins (the tables on real data leave it out).
pub const DATA_NOTE: &str = "Data:";

/// A noise defence finding 7 compares the batch defences with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Noise {
    LocalDp,
    GeoInd,
    Gan,
}

impl Noise {
    fn name(self) -> &'static str {
        match self {
            Noise::LocalDp => "local DP",
            Noise::GeoInd => "GeoInd",
            Noise::Gan => "GAN",
        }
    }
}

/// One protocol the defences are compared under: [000] runs the comparison at T = 1 day and
/// 1 week, each under FedSGD and FedAvg (B = 20, E = 5), and says for each which noise
/// defences the batch defences beat.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arm {
    pub round_length: RoundLength,
    /// (B, E); [`FEDSGD`] is B = ∞, E = 1.
    pub scheme: (Option<usize>, usize),
    /// Where the paper shows it.
    pub source: &'static str,
    /// The noise defences [000] says both batch defences beat under this protocol (finding 7).
    pub beats: &'static [Noise],
    /// What [000] reports for this protocol, in its words.
    pub claim: &'static str,
}

/// The protocol of Fig. 15 (and Figs. 14, 28): T = 1 day, FedAvg B = 20, E = 5.
pub const DAY_FEDAVG: Arm = Arm {
    round_length: RoundLength::Day,
    scheme: (Some(20), 5),
    source: "[000] §4.5, Fig. 15",
    beats: &[Noise::LocalDp, Noise::GeoInd, Noise::Gan],
    claim: "The paper's Fig. 15 gives no table; it reports Farthest Batch beyond EMD 21 / 680 m with better RMSE than DP, GeoInd and GAN obfuscation, and GAN obfuscation of similar utility to Farthest Batch at the same privacy but far costlier.",
};

/// The other three protocols of [000]'s comparison (App. B): daily FedSGD, weekly FedSGD and
/// weekly FedAvg.
pub const OTHER_ARMS: [Arm; 3] = [
    Arm {
        round_length: RoundLength::Day,
        scheme: FEDSGD,
        source: "[000] §4.4–4.5, App. B, Figs. 13, 15 and 27",
        beats: &[Noise::LocalDp, Noise::GeoInd, Noise::Gan],
        claim: "The paper (Figs. 13, 15 and 27, curves only): Farthest Batch beyond Diverse Batch, and both with a better trade-off than DP and GeoInd (App. B.1), Farthest Batch better than GAN obfuscation at equal privacy (Fig. 15, which covers FedSGD and FedAvg).",
    },
    Arm {
        round_length: RoundLength::Week,
        scheme: FEDSGD,
        source: "[000] App. B, Fig. 29",
        beats: &[Noise::GeoInd],
        claim: "The paper (Fig. 29, curves only): Farthest Batch beyond Diverse Batch; both better than GeoInd, but only \"partially\" better than DP, so finding 7 is checked here against GeoInd alone (the paper makes no claim against GAN obfuscation at T = 1 week beyond \"similar utility\").",
    },
    Arm {
        round_length: RoundLength::Week,
        scheme: (Some(20), 5),
        source: "[000] App. B, Fig. 30",
        beats: &[Noise::LocalDp, Noise::GeoInd],
        claim: "The paper (Fig. 30, curves only): Farthest Batch beyond Diverse Batch; both \"outperform DP thoroughly\" and beat GeoInd (no claim against GAN obfuscation at T = 1 week beyond \"similar utility\", so it is not checked).",
    },
];

impl Arm {
    fn fedsgd(&self) -> bool {
        self.scheme == FEDSGD
    }

    /// "T = 1 day, FedAvg" — how the findings check names the protocol.
    pub fn setting(&self) -> String {
        format!(
            "T = 1 {}, {}",
            self.period(),
            if self.fedsgd() { "FedSGD" } else { "FedAvg" }
        )
    }

    fn period(&self) -> &'static str {
        match self.round_length {
            RoundLength::Week => "week",
            _ => "day",
        }
    }

    /// "T = 1 day, FedAvg B = 20, E = 5" — the table's heading.
    fn protocol(&self) -> String {
        match self.scheme {
            FEDSGD => format!("T = 1 {}, FedSGD", self.period()),
            (b, e) => format!(
                "T = 1 {}, FedAvg B = {}, E = {e}",
                self.period(),
                b.map_or("∞".into(), |b| b.to_string())
            ),
        }
    }

    /// Weeks of the campus the arm runs on: the daily arms' and Table 2's weekly.
    fn weeks(&self, scale: &Scale) -> u32 {
        match self.round_length {
            RoundLength::Week => scale.campus_weeks,
            _ => scale.days_weeks,
        }
    }

    /// The findings' labels: Fig. 15's protocol keeps the plain ones ("6").
    fn finding(&self, base: &str, part: Option<&str>) -> String {
        let own = (*self != DAY_FEDAVG).then(|| self.setting());
        match (part, own) {
            (None, None) => base.into(),
            (None, Some(own)) => format!("{base} ({own})"),
            (Some(part), None) => format!("{base} ({part})"),
            (Some(part), Some(own)) => format!("{base} ({part}; {own})"),
        }
    }
}

/// Each defence with its parameter, as the comparison sweeps them; under FedSGD one local step
/// is the update, so local DP "once an update" would repeat "a local step" and is left out.
fn settings(arm: &Arm) -> Vec<(String, Defence)> {
    let mut settings: Vec<(String, Defence)> = vec![("none".into(), Defence::None)];
    for eps_km in [0.005, 0.05] {
        settings.push((
            format!("Diverse Batch eps {eps_km} km"),
            Defence::DiverseBatch {
                eps_km,
                min_samples: DEFAULT_MIN_SAMPLES,
            },
        ));
    }
    for num in [20, 5, 1] {
        settings.push((
            format!("Farthest Batch eps 0.05, num {num}"),
            Defence::FarthestBatch {
                eps_km: 0.05,
                min_samples: DEFAULT_MIN_SAMPLES,
                num,
            },
        ));
    }
    for epsilon in [100.0, 10.0, 1.0] {
        settings.push((
            format!("local DP ε {epsilon} a local step"),
            Defence::LocalDp(LocalDp::at(epsilon)),
        ));
    }
    if !arm.fedsgd() {
        settings.push((
            "local DP ε 100 once an update".into(),
            Defence::LocalDp(LocalDp {
                applied_to: AppliedTo::Update,
                ..LocalDp::at(100.0)
            }),
        ));
    }
    for e in [0.02, 0.005, 0.002, 0.001, 0.0005] {
        settings.push((
            format!("GeoInd ε {e}/m (mean shift {:.0} m)", 2.0 / e),
            Defence::GeoInd { epsilon_per_m: e },
        ));
    }
    for rho in GAN_RHOS {
        settings.push((format!("GAN obfuscation ρ {rho}"), Defence::Gan { rho }));
    }
    settings
}

/// [000] §4.5 (Fig. 15; App. B.1, Fig. 28): each defence swept over its parameter (campus,
/// T = 1 day, FedAvg B = 20, E = 5, from the mean label — a model that learns within the run
/// and under clipping, so RMSE means something): privacy (distance to the D_t centroid, EMD)
/// against utility (RMSE).
pub fn defences(
    scale: &Scale,
    runs: &mut SignalRuns,
    checks: &mut Vec<Check>,
) -> Result<Table, String> {
    defences_under(&DAY_FEDAVG, scale, runs, checks)
}

/// The defences compared under `arm`'s protocol, the same settings, worlds and intervals as
/// Fig. 15's; findings 6 and 7 checked as [000] states them for that protocol.
pub fn defences_under(
    arm: &Arm,
    scale: &Scale,
    runs: &mut SignalRuns,
    checks: &mut Vec<Check>,
) -> Result<Table, String> {
    let weeks = arm.weeks(scale);
    let mut rows = Vec::new();
    let (mut dp, mut geoind, mut gan) = (Vec::new(), Vec::new(), Vec::new());
    let (mut diverse, mut farthest) = (None, None);
    let mut all = Vec::new();
    for (label, defence) in settings(arm) {
        let os = each(scale, runs, |s| ScenarioConfig {
            output_bias: OutputBias::MeanLabel,
            defence,
            ..campus(s, weeks, arm.round_length, arm.scheme)
        })?;
        let figures = Figures::of(&summaries(&os));
        match &defence {
            Defence::DiverseBatch { eps_km, .. } if *eps_km == 0.05 => diverse = Some(figures),
            Defence::FarthestBatch { num: 5, .. } => farthest = Some(figures),
            Defence::LocalDp(_) => dp.push((label.clone(), figures)),
            Defence::GeoInd { .. } => geoind.push((label.clone(), figures)),
            Defence::Gan { .. } => gan.push((label.clone(), figures)),
            _ => {}
        }
        rows.push(vec![
            label,
            cell(&os, 0, |o| o.summary.mean_error_m),
            cell(&os, 0, |o| o.summary.emd_m),
            cell(&os, 0, |o| o.summary.random_emd_m),
            cell(&os, 0, |o| o.summary.diverged_percent),
            cell(&os, 1, |o| o.summary.final_rmse_db),
            cell(&os, 0, |o| o.summary.dp_epsilon),
            cell(&os, 1, |o| Some(o.chosen_percent())),
        ]);
        all.extend(os);
    }
    let setting = arm.setting();
    if let (Some(diverse), Some(farthest)) = (diverse, farthest) {
        checks.push(findings::farthest_beats_diverse(
            &arm.finding("6", None),
            &setting,
            &farthest,
            &diverse,
        ));
        for (short, name, batch) in [
            ("Diverse", "Diverse Batch eps 0.05 km", diverse),
            ("Farthest", "Farthest Batch num 5", farthest),
        ] {
            for (noise, settings) in [
                (Noise::LocalDp, &dp),
                (Noise::GeoInd, &geoind),
                (Noise::Gan, &gan),
            ] {
                if !arm.beats.contains(&noise) {
                    continue;
                }
                checks.push(findings::beats_at_equal_privacy(
                    &arm.finding("7", Some(&format!("{short} vs {}", noise.name()))),
                    &setting,
                    name,
                    &batch,
                    noise.name(),
                    settings,
                ));
            }
        }
    }
    let mut notes = vec![format!(
        "Findings 6 and 7 predict that Farthest Batch moves the reconstruction further than Diverse Batch, and that at equal privacy (distance, EMD) the batch defences cost less RMSE than the noise defences the paper names for this protocol ({}); the findings check says which hold. The model starts at the mean label so that clipping does not freeze it (from 0 dBm a clipped step moves the bias by η·ℂ = 0.001 dB). Local DP: ℂ = 1, δ = 1e-5, σ calibrated (analytic) at the sensitivity 2ℂ; \"a local step\" clips and noises every local step's mini-batch gradient as [000] §4.5 states, \"once an update\" the gradient the whole update stands for{}. Total ε: what protects one device's round of data, RDP-composed over every release of the target's run (δ = 1e-5). GAN obfuscation: every round the device trains a privatizer and an adversary on its data (after [000]'s ref. [15] as its authors' code builds it; at least 500 mini-batches) and trains on the privatizer's positions and labels; ρ weighs the distortion against the adversary's error (docs/papers.md §3a). Each cell: the mean over {} ± its 95% interval. {}",
        arm.beats
            .iter()
            .map(|n| n.name())
            .collect::<Vec<_>>()
            .join(", "),
        if arm.fedsgd() {
            " (under FedSGD the one local step is the update, so only \"a local step\" runs)"
        } else {
            ""
        },
        scale.worlds(),
        arm.claim,
    )];
    let rounds = match arm.round_length {
        RoundLength::Week => weeks,
        _ => 7 * weeks,
    };
    notes.push(format!(
        "{DATA_NOTE} {weeks} week{} of the campus a world, {rounds} round{}.",
        if weeks == 1 { "" } else { "s" },
        if rounds == 1 { "" } else { "s" }
    ));
    notes.push(references_note(&all));
    notes.push(ONLY_DEFAULT.into());
    Ok(Table {
        title: titled(
            &format!(
                "Defences compared (campus, {}, start at the mean label) — {}",
                arm.protocol(),
                arm.source
            ),
            DEFAULT_DLG,
        ),
        notes,
        columns: [
            "defence",
            "avg dist (m)",
            "EMD (m)",
            "random EMD (m)",
            "% diverged",
            "RMSE (dB)",
            "total ε",
            "% data used",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// The defences compared under every protocol of [000]'s comparison, with the findings check
/// of findings 6 and 7 first: what `reproduce` prints of them, as a study of its own
/// (`whereabouts reproduce --study defences-compared`).
pub fn all_arms(scale: &Scale, runs: &mut SignalRuns) -> Result<Vec<Table>, String> {
    let mut checks = Vec::new();
    let mut tables = vec![defences(scale, runs, &mut checks)?];
    for arm in &OTHER_ARMS {
        tables.push(defences_under(arm, scale, runs, &mut checks)?);
    }
    checks.sort_by_key(|c| c.finding.chars().next());
    tables.insert(0, findings::table(&checks, scale.seeds));
    Ok(tables)
}

/// `whereabouts reproduce --study defences-compared`: [000]'s defence comparison under its four
/// protocols (Figs. 13–15, 27–30) on the scale's worlds.
pub struct DefencesCompared(pub Scale);

impl Sweep for DefencesCompared {
    type Config = ScenarioConfig;
    type Outcome = Outcome;

    fn seed(config: &ScenarioConfig) -> u64 {
        config.seed
    }

    fn run(&self, config: &ScenarioConfig) -> Result<Outcome, String> {
        super::run(config.clone())
    }

    fn tables(&self, runs: &mut SignalRuns) -> Result<Vec<Table>, String> {
        all_arms(&self.0, runs)
    }
}

/// Native only: the measurement runs for minutes.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::super::{Outcome, findings, run};
    use super::*;
    use crate::signal_map::lab::Lab;
    use std::collections::BTreeMap;
    use std::time::Instant;
    use whereabouts_core::rng::Stream;
    use whereabouts_core::sweep::Runs;

    /// Every protocol of [000]'s comparison is planned under its own heading, each point runs
    /// that protocol, and the findings check gets each arm's checks as the paper states them
    /// (planned, not run: the runs take minutes); then the weekly FedSGD arm's undefended point
    /// runs small.
    #[test]
    fn every_protocol_of_the_comparison_is_planned_and_named() {
        use whereabouts_core::sweep::Plan;
        let scale = Scale {
            seeds: 1,
            campus_weeks: 1,
            dlg_iterations: 30,
            ..Scale::quick(3)
        };
        let mut plan = Plan { points: Vec::new() };
        let tables = all_arms(&scale, &mut plan).unwrap();
        assert_eq!(tables.len(), 5);
        let expected = [
            ("T = 1 day, FedAvg B = 20, E = 5", 18, "Fig. 15"),
            ("T = 1 day, FedSGD", 17, "Figs. 13, 15 and 27"),
            ("T = 1 week, FedSGD", 17, "Fig. 29"),
            ("T = 1 week, FedAvg B = 20, E = 5", 18, "Fig. 30"),
        ];
        for (table, (protocol, rows, figure)) in tables[1..].iter().zip(expected) {
            assert!(
                table
                    .title
                    .contains(&format!("(campus, {protocol}, start at the mean label)")),
                "{}",
                table.title
            );
            assert!(table.title.contains(figure), "{}", table.title);
            assert_eq!(table.rows.len(), rows, "{}", table.title);
        }
        // Each says what data it ran on: the daily arms on days_weeks, the weekly on campus_weeks.
        let data = |t: &Table| t.notes.iter().find(|n| n.starts_with(DATA_NOTE)).cloned();
        assert_eq!(
            data(&tables[2]).unwrap(),
            "Data: 1 week of the campus a world, 7 rounds."
        );
        assert_eq!(
            data(&tables[4]).unwrap(),
            "Data: 1 week of the campus a world, 1 round."
        );
        // Under FedSGD the one local step is the update: no "once an update" row.
        assert!(
            !tables[2]
                .rows
                .iter()
                .any(|r| r[0].contains("once an update"))
        );
        // One world: a point a row, each under its arm's protocol and weeks of data.
        assert_eq!(plan.points.len(), 18 + 17 + 17 + 18);
        let protocol = |i: usize| {
            let c = &plan.points[i];
            (
                c.round_length,
                c.fl.local.batch_size,
                c.fl.local.epochs,
                c.world.weeks,
                c.output_bias,
            )
        };
        let (day, week) = (Some(scale.days_weeks), Some(scale.campus_weeks));
        let mean = OutputBias::MeanLabel;
        assert_eq!(protocol(0), (RoundLength::Day, Some(20), 5, day, mean));
        assert_eq!(protocol(18), (RoundLength::Day, None, 1, day, mean));
        assert_eq!(protocol(35), (RoundLength::Week, None, 1, week, mean));
        assert_eq!(protocol(52), (RoundLength::Week, Some(20), 5, week, mean));
        assert_eq!(protocol(69), (RoundLength::Week, Some(20), 5, week, mean));
        // The findings check: Fig. 15's seven under their plain labels; daily FedSGD's finding 6
        // and 7 against all three noise defences; weekly FedSGD's against GeoInd alone (the
        // paper: "partially" better than DP); weekly FedAvg's against local DP and GeoInd.
        let checks = &tables[0].rows;
        let labels: Vec<&str> = checks.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(labels.len(), 7 + 7 + 3 + 5, "{labels:?}");
        for label in [
            "6",
            "7 (Farthest vs GAN)",
            "6 (T = 1 day, FedSGD)",
            "7 (Diverse vs GAN; T = 1 day, FedSGD)",
            "6 (T = 1 week, FedSGD)",
            "7 (Farthest vs GeoInd; T = 1 week, FedSGD)",
            "7 (Diverse vs local DP; T = 1 week, FedAvg)",
        ] {
            assert!(labels.contains(&label), "{label}: {labels:?}");
        }
        for absent in [
            "7 (Farthest vs local DP; T = 1 week, FedSGD)",
            "7 (Farthest vs GAN; T = 1 week, FedAvg)",
        ] {
            assert!(!labels.contains(&absent), "{absent}");
        }
        let weekly = checks
            .iter()
            .find(|r| r[0] == "6 (T = 1 week, FedSGD)")
            .unwrap();
        assert!(weekly[1].starts_with("T = 1 week, FedSGD: "), "{weekly:?}");
        // The weekly FedSGD arm's undefended point runs: one weekly round, attacked.
        let o = run(plan.points[35].clone()).unwrap();
        assert_eq!(o.records.len(), 1);
        assert!(o.summary.final_rmse_db.is_some_and(f64::is_finite));
        assert!(o.records[0].dlg.is_some());
    }

    /// Runs every configuration on the spot and adds up each family's wall time.
    struct Timed(BTreeMap<&'static str, (f64, usize)>);

    impl Runs<ScenarioConfig, Outcome> for Timed {
        fn run(&mut self, config: ScenarioConfig) -> Result<Outcome, String> {
            let family = match config.defence {
                Defence::None => "none",
                Defence::Gan { .. } => "GAN obfuscation",
                _ => "other defences",
            };
            let t = Instant::now();
            let o = run(config)?;
            let e = self.0.entry(family).or_default();
            e.0 += t.elapsed().as_secs_f64();
            e.1 += o.records.len();
            Ok(o)
        }
    }

    /// The defences table with its GAN arms at `reproduce`'s full size on five worlds, the
    /// findings checked on it, and what the obfuscation costs a round, before a full
    /// `reproduce` carries it (docs/reproduce.md, "GAN obfuscation, run since the output
    /// below"): `cargo test --release -p whereabouts-engine --lib gan_defences_measured --
    /// --ignored --nocapture`.
    #[test]
    #[ignore = "minutes; prints the defences table with GAN obfuscation"]
    fn gan_defences_measured() {
        let scale = Scale::full(1);
        let mut runs = Timed(BTreeMap::new());
        let mut checks = Vec::new();
        let table = defences(&scale, &mut runs, &mut checks).unwrap();
        println!("{}", findings::table(&checks, scale.seeds).to_markdown());
        println!("{}", table.to_markdown());
        for (family, (secs, rounds)) in &runs.0 {
            println!(
                "{family}: {rounds} rounds, {secs:.1} s of runs, {:.0} ms a round",
                1000.0 * secs / *rounds as f64
            );
        }
    }

    /// What each local defence costs a device-round on the defences table's worlds (its
    /// selection alone, before training), and what GAN obfuscation does to the round's data:
    /// `cargo test --release -p whereabouts-engine --lib gan_obfuscation_timed -- --ignored
    /// --nocapture`.
    #[test]
    #[ignore = "a minute; prints each defence's cost a round and the GAN's effect on the data"]
    fn gan_obfuscation_timed() {
        use crate::signal_map::defence::gan::{Gan, LabelScale, TRAINING};
        use crate::signal_map::trace::centroid;
        let scale = Scale::full(1);
        let mut arms: Vec<(String, Defence)> = vec![
            (
                "Farthest Batch eps 0.05, num 5".into(),
                Defence::FarthestBatch {
                    eps_km: 0.05,
                    min_samples: DEFAULT_MIN_SAMPLES,
                    num: 5,
                },
            ),
            (
                "GeoInd ε 0.002/m".into(),
                Defence::GeoInd {
                    epsilon_per_m: 0.002,
                },
            ),
        ];
        arms.extend(GAN_RHOS.map(|rho| (format!("GAN obfuscation ρ {rho}"), Defence::Gan { rho })));
        // The page's opening run (the visitor alone on the simple week, daily FedSGD rounds),
        // undefended and obfuscated: what a GAN arm would add to the page's study.
        for defence in [Defence::None, Defence::Gan { rho: 0.5 }] {
            let config = ScenarioConfig {
                defence,
                ..crate::signal_map::settings::lab_default()
            };
            let start = Instant::now();
            let o = run(config).unwrap();
            println!(
                "the page's opening run, {defence:?}: {} rounds, {:.2} s",
                o.records.len(),
                start.elapsed().as_secs_f64()
            );
        }
        for (label, defence) in arms {
            let (mut secs, mut rounds, mut points) = (0.0, 0, 0);
            // GAN only: distortion, the adversary's error over its no-information error (the
            // fixes' mean distance to their centroid), and how far the centroid moved (m).
            let (mut distortion, mut fooled, mut shift) = (Vec::new(), Vec::new(), Vec::new());
            for seed in scale.seeds() {
                let config = ScenarioConfig {
                    output_bias: OutputBias::MeanLabel,
                    defence,
                    ..campus(
                        &scale.on(seed),
                        scale.days_weeks,
                        RoundLength::Day,
                        (Some(20), 5),
                    )
                };
                let lab = Lab::new(config).unwrap();
                let data = lab.data();
                let selector = defence.selector(data);
                for t in 0..lab.total_rounds() {
                    let d = data.local_data(0, t, false);
                    if d.is_empty() {
                        continue;
                    }
                    let start = Instant::now();
                    let batch = selector
                        .select(d, &mut Stream::new(seed, "timing"))
                        .unwrap();
                    secs += start.elapsed().as_secs_f64();
                    rounds += 1;
                    points += d.len();
                    if let Defence::Gan { rho } = defence {
                        let gan = Gan {
                            rho,
                            standardizer: data.standardizer,
                            labels: LabelScale::fit(
                                data.train.iter().chain(&data.test).map(|s| s.y),
                            ),
                            training: TRAINING,
                        };
                        let o = gan.obfuscate(d, &mut Stream::new(seed, "effect")).unwrap();
                        let truth = centroid(d).unwrap();
                        let c = data.standardizer.to_input(truth);
                        let spread = d
                            .iter()
                            .map(|s| f64::from(s.x[0] - c[0]).hypot(f64::from(s.x[1] - c[1])))
                            .sum::<f64>()
                            / d.len() as f64;
                        distortion.push(o.distortion);
                        fooled.push(o.adversary_error / spread);
                        shift.push(centroid(&batch).unwrap().distance(&truth));
                    }
                }
            }
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
            let effect = if distortion.is_empty() {
                String::new()
            } else {
                format!(
                    "; distortion {:.3} sd, adversary's error {:.2} of its no-information error, centroid moved {:.0} m (median {:.0} m)",
                    mean(&distortion),
                    mean(&fooled),
                    mean(&shift),
                    whereabouts_core::metrics::median(&shift).unwrap()
                )
            };
            println!(
                "{label}: {rounds} device-rounds of {:.0} fixes on average, {:.2} ms each{effect}",
                points as f64 / rounds as f64,
                1000.0 * secs / rounds as f64
            );
        }
    }
}
