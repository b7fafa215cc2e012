//! `whereabouts reproduce --lab density --study secure-sum` (issue 39 §2): what the server's
//! attacks on one upload reach when it sees only the sum of every phone's upload, beside what
//! they reach on the uploads themselves, and the density it publishes either way.
//!
//! The sum is the city's: every phone answers the query, and the server unmasks Σ of their
//! quantised uploads ([`super::super::lab`]: word for word the protocol's). The density is that
//! sum over N·B ([003] Eq. 6) whatever the server sees; the attacks read it where they read an
//! upload, and their errors stay measured to the attacked user's own place.

use super::{DensityRuns, LOCATED_M, Scale, median_error, privacy, privacy_cell, rank_correlation};
use crate::density::config::{Attack, DensityConfig, Scheme};
use crate::density::lab::DensitySummary;
use whereabouts_core::secagg::Sees;
use whereabouts_core::stats::{self, Verdict};
use whereabouts_core::sweep::{LabStudy, each};
use whereabouts_core::table::Table;

/// The schemes compared: random features from the ridge (B = 1) to many waves, and the own bump.
const SCHEMES: [Scheme; 5] = [
    Scheme::Rff { features: 1 },
    Scheme::Rff { features: 2 },
    Scheme::Rff { features: 3 },
    Scheme::Rff { features: 10 },
    Scheme::Kde,
];

/// The table, every run asked of `runs` once.
pub fn table(scale: &Scale, runs: &mut DensityRuns) -> Result<Table, String> {
    let mut rows = Vec::new();
    let mut random = Vec::new();
    for scheme in SCHEMES {
        // A bump has no frequencies to fit: every server picks its peak.
        let attacks: &[Attack] = match scheme {
            Scheme::Kde => &[Attack::Peak],
            _ => &[Attack::Peak, Attack::Fit, Attack::FitPrior],
        };
        for &attack in attacks {
            let mut by = |sees| {
                each(runs, scale.seeds(), |seed| DensityConfig {
                    scheme,
                    attack,
                    sees,
                    ..scale.base(seed)
                })
            };
            let every = by(Sees::Updates)?;
            let sum = by(Sees::Sum)?;
            random.extend(privacy(&every, |p| p.random_guess_m));
            rows.push(row(scheme, attack, &every, &sum));
        }
    }
    Ok(Table {
        title: format!(
            "Under secure aggregation: the server's attacks on one upload when it sees every upload \
             and when it sees only their sum (N = {}, {}², h = 300 m)",
            scale.population, scale.grid_side
        ),
        notes: vec![format!(
            "Every update: the server attacks each attacked user's own upload, as in [003]. Only the \
             sum: secure aggregation — the server unmasks the sum of all N + 1 phones' quantised \
             uploads (the protocol's sum, word for word) and attacks it in place of the upload; \
             errors stay measured to the attacked user's own place. Cells: the median distance of \
             the guess from the truth over {} attacked users of a city (share within {LOCATED_M:.0} m); \
             a uniformly random cell lands {} m away on average. ρ: Spearman's ρ of the published \
             density against the exact KDE over all cells. Verdict: where the median-error \
             intervals separate. Each cell: {}.",
            scale.attacked,
            stats::cell(random, 0, 1.0),
            scale.over()
        )],
        columns: [
            "scheme",
            "server",
            "ρ, every update",
            "ρ, only the sum",
            "every update",
            "only the sum",
            "verdict",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

fn row(
    scheme: Scheme,
    attack: Attack,
    every: &[DensitySummary],
    sum: &[DensitySummary],
) -> Vec<String> {
    let scheme = match scheme {
        Scheme::Rff { features } => format!("B = {features}"),
        Scheme::Kde => "own bump".into(),
        Scheme::GeoInd { epsilon_per_m } => format!("GeoInd ε = {epsilon_per_m}"),
    };
    let server = match attack {
        Attack::Peak => "peak picking",
        Attack::Fit => "fitting",
        Attack::FitPrior => "fitting + prior",
    };
    let verdict = match (median_error(sum), median_error(every)) {
        (Some(s), Some(e)) => match Verdict::of(&s, &e) {
            Verdict::Higher => "sum farther",
            Verdict::Lower => "sum nearer",
            Verdict::Inconclusive => "inconclusive here",
        },
        _ => "–",
    };
    let rho = |c: &[DensitySummary]| rank_correlation(c).map_or("–".into(), |e| e.cell(3, 1.0));
    vec![
        scheme,
        server.into(),
        rho(every),
        rho(sum),
        privacy_cell(every),
        privacy_cell(sum),
        verdict.into(),
    ]
}

/// The study as a sweep (each lab run a point).
pub struct SecureSum(pub Scale);

impl LabStudy for SecureSum {
    type Run = DensityConfig;

    fn tables(&self, runs: &mut DensityRuns) -> Result<Vec<Table>, String> {
        Ok(vec![table(&self.0, runs)?])
    }
}
