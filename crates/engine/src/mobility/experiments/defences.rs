//! [002]'s defences by ε (Table 5) and the model's utility against ASR (Fig. 5): ST-GIA against
//! each defence at every ε of Table 5 (DP-SGD also as the authors' code, GeoI, GeoGI, the
//! adaptive PGEM with each audit), every row's total ε over the run, and the ASR also scored
//! against the person's places; the ε grid and its format the page's study shares.

use super::{MobOutcome, MobRuns, Scale, asr_estimate, cell, compared, paper_defence};
use crate::mobility::config::{Calibration, MobConfig};
use crate::mobility::defence::{Audit, Defence, DpClip};
use crate::mobility::metrics::place_chance;
use crate::mobility::traces::TraceKind;
use whereabouts_core::stats::{Estimate, Verdict};
use whereabouts_core::table::Table;

pub const EPSILONS: [f64; 5] = [1.0, 5.0, 10.0, 20.0, 50.0];

/// Table 5's defences at ε: the paper's, DP-SGD also as the authors' code does it, and the
/// adaptive PGEM with each audit.
fn defences(epsilon: f64) -> [Defence; 6] {
    [
        Defence::DpSgd {
            epsilon,
            clip: DpClip::Flat,
        },
        Defence::DpSgd {
            epsilon,
            clip: DpClip::PerTensor,
        },
        Defence::GeoI { epsilon },
        Defence::GeoGi { epsilon },
        Defence::Adaptive {
            epsilon,
            audit: Audit::SelfAudit,
        },
        Defence::Adaptive {
            epsilon,
            audit: Audit::PreviousRound,
        },
    ]
}

fn defence_label(d: &Defence) -> String {
    match d {
        Defence::Adaptive {
            audit: Audit::SelfAudit,
            ..
        } => "PGEM, adaptive (ours), self-audit".into(),
        Defence::Adaptive {
            audit: Audit::PreviousRound,
            ..
        } => "PGEM, adaptive (ours), previous round".into(),
        d => d.name().to_string(),
    }
}

/// The total ε over a run (the same on every seed: σ does not depend on the data), on the
/// defence's footing ([`Defence::total_epsilon`]).
fn total_epsilon(d: &Defence, labs: &[MobOutcome]) -> String {
    let totals: Vec<f64> = labs
        .iter()
        .filter_map(|l| {
            d.total_epsilon(l.records.len(), l.records.last().and_then(|r| r.dp_epsilon))
        })
        .collect();
    if totals.is_empty() {
        return "–".into();
    }
    format_epsilon(totals.iter().sum::<f64>() / totals.len() as f64)
}

/// An ε to a sensible precision: whole numbers from 10, else up to two decimals.
pub fn format_epsilon(e: f64) -> String {
    if e >= 10.0 {
        format!("{e:.0}")
    } else {
        let s = format!("{e:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// At each ε of Table 5, the defences with the lowest ASR by the intervals: those no other
/// defence's interval lies wholly below. One is the lowest; several are inconclusive here.
/// `asrs[k][i]`: defence k of [`defences`] at the ith ε.
fn lowest_by_epsilon(asrs: &[Vec<Option<Estimate>>]) -> String {
    let by_epsilon: Vec<String> = EPSILONS
        .iter()
        .enumerate()
        .map(|(i, &e)| {
            let at: Vec<Option<Estimate>> = asrs.iter().map(|a| a[i]).collect();
            let unbeaten: Vec<&str> = defences(e)
                .iter()
                .zip(&at)
                .filter(|(_, a)| {
                    a.is_some_and(|ek| {
                        !at.iter()
                            .flatten()
                            .any(|ej| Verdict::of(ej, &ek) == Verdict::Lower)
                    })
                })
                .map(|(d, _)| d.short_name())
                .collect();
            match unbeaten.as_slice() {
                [] => format!("ε = {e}: not measured"),
                [one] => format!("ε = {e}: {one}"),
                several if several.len() == at.len() => {
                    format!("ε = {e}: inconclusive here (no interval wholly below another)")
                }
                several => format!("ε = {e}: inconclusive here among {}", several.join(", ")),
            }
        })
        .collect();
    format!(
        "Lowest ASR by the intervals (the defences no other's interval lies wholly below) — {}.",
        by_epsilon.join("; ")
    )
}

/// Table 5 and Fig. 5: ST-GIA's ASR under each defence by ε, and the model's utility, with the
/// ASR also scored against the person's places ([`MobOutcome::place_asr`]).
pub(super) fn defence_tables(
    scale: &Scale,
    data: TraceKind,
    runs: &mut MobRuns,
) -> Result<(Table, Table), String> {
    let tau = MobConfig::default().tau_m;
    let none = scale.each(runs, data, |_| {})?;
    let labels: Vec<String> = defences(1.0).iter().map(defence_label).collect();
    // Each defence's runs at each ε.
    let mut measured: Vec<Vec<Vec<MobOutcome>>> = vec![Vec::new(); labels.len()];
    for e in EPSILONS {
        for (k, d) in defences(e).into_iter().enumerate() {
            measured[k].push(scale.each(runs, data, |c| c.defence = d)?);
        }
    }
    let causal = |ls: &[MobOutcome]| asr_estimate(ls, Calibration::Causal, tau);
    let places = |ls: &[MobOutcome]| Estimate::of(ls.iter().map(|o| o.place_asr(tau)));
    let utility_row = |label: String, epsilon: String, ls: &[MobOutcome], vs_none: bool| {
        let verdict = |f: &dyn Fn(&[MobOutcome]) -> Option<Estimate>| {
            if vs_none {
                compared(f(ls), f(&none))
            } else {
                "–".into()
            }
        };
        vec![
            label,
            epsilon,
            cell(ls, 3, |o| o.asr(Calibration::Causal, tau)),
            verdict(&causal),
            cell(ls, 3, |o| o.place_asr(tau)),
            verdict(&places),
            cell(ls, 0, |o| o.utility.0.unwrap_or(f64::NAN)),
            cell(ls, 2, |o| o.utility.1.unwrap_or(f64::NAN)),
        ]
    };
    let mut asr_rows = Vec::new();
    let mut util_rows = vec![utility_row("none".into(), "–".into(), &none, false)];
    // The paper's row once per defence it names (both audits of PGEM are its one row; the
    // authors'-code DP-SGD has none of its own).
    let mut papers_shown: Vec<&str> = Vec::new();
    for (k, d) in defences(1.0).iter().enumerate() {
        let mut row = vec![labels[k].clone()];
        let mut totals = Vec::new();
        for (i, e) in EPSILONS.iter().enumerate() {
            let ls = &measured[k][i];
            totals.push(total_epsilon(&defences(*e)[k], ls));
            row.push(cell(ls, 3, |o| o.asr(Calibration::Causal, tau)));
            util_rows.push(utility_row(labels[k].clone(), format!("{e}"), ls, true));
        }
        row.push(totals.join(" / "));
        row.push(d.total_unit().into());
        asr_rows.push(row);
        if let Some(p) = paper_defence(data, d.name()).filter(|_| !papers_shown.contains(&d.name()))
        {
            papers_shown.push(d.name());
            let mut row = vec![format!("{} (paper)", d.name())];
            row.extend(p.iter().map(|v| format!("{v:.2}")));
            row.extend(["–".into(), "–".into()]);
            asr_rows.push(row);
        }
    }
    let asrs: Vec<Vec<Option<Estimate>>> = measured
        .iter()
        .map(|by_e| by_e.iter().map(|ls| causal(ls)).collect())
        .collect();
    let mut columns = vec!["defence".to_string()];
    columns.extend(EPSILONS.iter().map(|e| format!("ε = {e}")));
    columns.push(format!(
        "total ε over the run (at ε = {})",
        EPSILONS.map(|e| e.to_string()).join(" / ")
    ));
    columns.push("unit of the total".into());
    let name = match (&scale.real, data) {
        (Some(r), _) => format!(
            "on real data ({}), weekly check-in trajectories (paper: Gowalla)",
            r.name
        ),
        (None, TraceKind::Vehicle) => "vehicle-like data (paper: NYCB)".into(),
        (None, TraceKind::CheckIn) => "check-in-like data (paper: Gowalla)".into(),
    };
    let note = format!(
        "ST-GIA (causal calibration) against each defence, mean ASR over {} rounds; undefended: {}. Each cell: {}. The ε of a column is what each defence is set to: DP-SGD's and GeoI's and GeoGI's is spent every round, PGEM's is the run's total (per km), allocated by Eqs. 10–12. Every row's total over the run is on a stated footing. DP-SGD (local DP: the server sees each phone's own noisy gradient, so any two training windows are neighbours): ε per round is exact, (ε, 10⁻⁵) for the round's window of 9 fixes, the whole gradient clipped to C = 0.2 and σ from the analytic Gaussian mechanism at Δ = 2C; its total is the Rényi-DP composition of every round's σ read at δ = 10⁻⁵, for the device's whole trajectory trained on (both are upper bounds from different accountings: the RDP total after one round already exceeds the round's exact ε). DP-SGD as in the authors' code clips each of the 6 tensors to 0.2 and calibrates the classic σ for a sensitivity of 0.2; its true replace-sensitivity is 2·0.2·√6 ≈ 0.98, and its total is accounted at that. GeoI and GeoGI: ε per km per round; every round re-noises all 9 positions of its window, so the total for the whole trajectory, each position moved by up to a km, is 9 × rounds × ε per km, and for one position, in up to 9 windows, min(rounds, 9) × ε (basic composition of pure DP, δ = 0). PGEM: its ε per km is the run's budget, which bounds one position; the whole trajectory's total is at most 9 × ε. PGEM's ASR counts only a guess near where the person was in that round; against the person's places (the next table) it is scored as the others are.",
        scale.rounds,
        cell(&none, 3, |o| o.asr(Calibration::Causal, tau)),
        scale.over()
    );
    let (half_w, half_h) = scale.half_extent();
    let chance = cell(&none, 2, |o| place_chance(&o.places, tau, half_w, half_h));
    Ok((
        Table {
            title: format!("Defences by ε ([002] Table 5) — {name}, ST-GIA as the authors' code"),
            notes: vec![note, lowest_by_epsilon(&asrs)],
            columns,
            rows: asr_rows,
        },
        Table {
            title: format!(
                "Utility against ASR ([002] Fig. 5) — {name}, ST-GIA as the authors' code"
            ),
            notes: vec![
                format!(
                    "Utility: the model's next-location error on the 20 windows after the training ones (metres) and recall@5 over the person's own places (our reading of the paper's recall@5 for a regression model). Beside it, on the same windows: staying where you are (the window's last position as the next) errs by {} m; a model that does no better has learnt nothing about where the person goes. Each cell: {}.",
                    cell(&none, 0, |o| o.stay_error.unwrap_or(f64::NAN)),
                    scale.over()
                ),
                format!(
                    "ASR against own places: the share of the attack's estimates (causal calibration) within 500 m of any of the person's places — the distinct points of their recorded trajectory, the constraint domain PGEM draws from — rather than of where they were in that round. PGEM makes the phone train on such places, so an attack that recovers what was sent fails by the paper's ASR and succeeds by this one: it learns where the person goes, though not when. Every row is scored the same way, so PGEM and the other defences stand on one footing. A guess drawn uniformly over the city lands within 500 m of one of the person's places with probability {chance}. \"Against none\": lower or higher where the defended interval lies wholly below or above the undefended one, else inconclusive here."
                ),
            ],
            columns: [
                "defence",
                "ε",
                "ASR",
                "ASR against none",
                "ASR against own places",
                "own places against none",
                "prediction error (m)",
                "recall@5",
            ]
            .map(String::from)
            .to_vec(),
            rows: util_rows,
        },
    ))
}
