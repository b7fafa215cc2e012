//! [000] §4.6, Table 3: the target with one other user (metro, T = 1 week, FedAvg B = 10,
//! E = 5), each partner's distance beside the EMD; finding 8 (docs/papers.md §4) checked on the
//! paper's own setup.

use super::findings::{self, Check, est};
use super::{
    DEFAULT_DLG, FEDSGD, ONLY_DEFAULT, Scale, SignalRuns, Table, base, cell, references_note,
    spearman, titled, user_distance,
};
use crate::signal_map::defence::{DEFAULT_MIN_SAMPLES, Defence};
use crate::signal_map::lab::Lab;
use crate::signal_map::trace::RoundLength;
use crate::signal_map::world::Preset;
use whereabouts_core::stats::Estimate;

/// Table 3's co-participant of `target` in a metro world: a user id, or the background user.
#[derive(Clone, Copy)]
enum Partner {
    Alone,
    User(u32),
    Background,
}

/// Table 3: the target with one other user (metro preset, T = 1 week, FedAvg B = 10, E = 5).
pub fn table3(
    scale: &Scale,
    runs: &mut SignalRuns,
    checks: &mut Vec<Check>,
) -> Result<Table, String> {
    let fedavg = (Some(10), 5);
    let target = 3u32;
    let probe = |s: &Scale| -> Result<Lab, String> {
        Lab::new(base(
            s,
            Preset::Metro,
            s.metro_weeks,
            RoundLength::Week,
            FEDSGD,
        ))
    };
    let probes = scale
        .seeds()
        .map(|seed| probe(&scale.on(seed)))
        .collect::<Result<Vec<_>, _>>()?;
    let partner_id = |lab: &Lab, partner: Partner| match partner {
        Partner::Alone => None,
        Partner::User(u) => Some(u),
        Partner::Background => lab
            .world()
            .users
            .iter()
            .find(|u| u.background)
            .map(|u| u.id),
    };
    let mut rows = Vec::new();
    let mut all = Vec::new();
    // Finding 8 on the paper's own setup: each world's (partner distance, EMD) under FedAvg.
    let mut partners: Vec<Vec<(f64, f64)>> = vec![Vec::new(); scale.seeds as usize];
    let mut add = |label: &str,
                   partner: Partner,
                   scheme: (Option<usize>, usize),
                   eps: Option<f64>,
                   paper: &str|
     -> Result<(), String> {
        let mut os = Vec::new();
        let mut distances = Vec::new();
        for (seed, lab) in scale.seeds().zip(&probes) {
            let s = scale.on(seed);
            let mut c = base(&s, Preset::Metro, s.metro_weeks, RoundLength::Week, scheme);
            c.target = target;
            let other = partner_id(lab, partner);
            if let (Partner::Background, None) = (partner, other) {
                continue;
            }
            c.participants = Some([target].into_iter().chain(other).collect());
            if let Some(eps_km) = eps {
                c.defence = Defence::DiverseBatch {
                    eps_km,
                    min_samples: DEFAULT_MIN_SAMPLES,
                };
            }
            let o = runs.run(c)?;
            let distance = other
                .and_then(|u| user_distance(lab, target, u, seed))
                .map_or(f64::NAN, |d| d / 1000.0);
            if scheme == fedavg && eps.is_none() && other.is_some() {
                partners[(seed - scale.seed) as usize]
                    .push((distance, o.summary.emd_m.unwrap_or(f64::NAN)));
            }
            os.push(o);
            distances.push(distance);
        }
        rows.push(vec![
            label.into(),
            est(Estimate::of(distances), 1, ""),
            cell(&os, 1, |o| o.summary.final_rmse_db),
            cell(&os, 0, |o| o.summary.emd_m),
            cell(&os, 0, |o| o.summary.random_emd_m),
            cell(&os, 0, |o| o.summary.diverged_percent),
            paper.to_string(),
        ]);
        all.extend(os);
        Ok(())
    };
    add(
        "FedSGD, 3",
        Partner::Alone,
        FEDSGD,
        None,
        "6.1 | 17.08 | 65",
    )?;
    add(
        "FedAvg, 3",
        Partner::Alone,
        fedavg,
        None,
        "5.43 | 24.13 | 91",
    )?;
    add(
        "FedAvg eps 0.005, 3",
        Partner::Alone,
        fedavg,
        Some(0.005),
        "5.42 | 25.2 | 97",
    )?;
    add(
        "FedAvg eps 0.01, 3",
        Partner::Alone,
        fedavg,
        Some(0.01),
        "5.44 | 26.9 | 97",
    )?;
    add(
        "FedAvg, 3 + background",
        Partner::Background,
        fedavg,
        None,
        "5.43 | 22.51 | 90 (with 0)",
    )?;
    for u in [0u32, 1, 2, 4] {
        add(
            &format!("FedAvg, 3 + {u}"),
            Partner::User(u),
            fedavg,
            None,
            "5.42–5.47 | 23.0–29.3 | 92–95",
        )?;
    }
    add(
        "FedSGD, 3 + 0",
        Partner::User(0),
        FEDSGD,
        None,
        "5.82 | 18.02 | 59 (with 5)",
    )?;
    let rhos: Vec<f64> = partners
        .iter()
        .filter_map(|pairs| {
            let pairs: Vec<&(f64, f64)> = pairs
                .iter()
                .filter(|(d, e)| d.is_finite() && e.is_finite())
                .collect();
            spearman(
                &pairs.iter().map(|p| p.0).collect::<Vec<_>>(),
                &pairs.iter().map(|p| p.1).collect::<Vec<_>>(),
            )
        })
        .collect();
    checks.push(findings::dissimilar_partners_leak_more(
        "8",
        "metro (Table 3), target 3, T = 1 week, FedAvg B = 10, E = 5, each partner of the five",
        &rhos,
    ));
    Ok(Table {
        title: titled(
            "Table 3 — multiple users (metro, target user 3, T = 1 week; FedAvg B = 10, E = 5)",
            DEFAULT_DLG,
        ),
        notes: vec![
            format!(
                "User distance: sliced-Wasserstein EMD between the two users' locations, km (larger = more dissimilar). Finding 8 (dissimilar co-participants increase leakage) predicts lower EMD (more leakage) for the most distant partners. The paper's users are numbered differently; its background user 0 is our background user (whose id differs between worlds). Each cell: the mean over {} ± its 95% interval.",
                scale.worlds()
            ),
            references_note(&all),
            ONLY_DEFAULT.into(),
        ],
        columns: [
            "scheme, users",
            "user distance (km)",
            "RMSE (dB)",
            "EMD (m)",
            "random EMD (m)",
            "% diverged",
            "paper: RMSE | EMD | % diverged",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}
