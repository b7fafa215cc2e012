//! `whereabouts reproduce --lab density --study secure-sum` (issue 39 §2): what the server's
//! attacks on one upload reach when it sees only the sum of every phone's upload, beside what
//! they reach on the uploads themselves, and the density it publishes either way.
//!
//! The sum is the city's: every phone answers the query, and the server unmasks Σ of their
//! quantised uploads ([`super::super::lab`]: word for word the protocol's). The density is that
//! sum over N·B ([003] Eq. 6) whatever the server sees; the attacks read it where they read an
//! upload, and their errors stay measured to the attacked user's own place.
//!
//! The second table puts the sum + central DP (`sees = dp`, [`crate::density::central_dp`]:
//! DP-FedAvg, a query a round) beside the plain sum: two noise multipliers with a trusted
//! aggregator, and the phones' own noise shares with a tenth of them dropping out, each with the
//! clip at the scheme's median upload norm (Andrew et al.'s quantile), the visitor's ε, the
//! density's ρ and hotspot F1 and the attacks' errors. The malicious server is built only in
//! the Signal map (docs/secagg.md).

use super::{
    DensityRuns, LOCATED_M, Scale, median_error, privacy, privacy_cell, rank_correlation, utility,
};
use crate::density::central_dp::{self, CentralDp, NoiseAt};
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
    let (scheme, server) = labels(scheme, attack);
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

/// A row's scheme and server, as the tables name them.
fn labels(scheme: Scheme, attack: Attack) -> (String, &'static str) {
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
    (scheme, server)
}

/// The study as a sweep (each lab run a point).
pub struct SecureSum(pub Scale);

impl LabStudy for SecureSum {
    type Run = DensityConfig;

    fn tables(&self, runs: &mut DensityRuns) -> Result<Vec<Table>, String> {
        Ok(vec![table(&self.0, runs)?, central_table(&self.0, runs)?])
    }
}

/// The central-DP arms: (label, z, where the noise is added, dropout).
const ARMS: [(&str, f64, NoiseAt, f64); 3] = [
    ("sum + DP, z = 0.5", 0.5, NoiseAt::Trusted, 0.0),
    ("sum + DP, z = 2", 2.0, NoiseAt::Trusted, 0.0),
    (
        "sum + DP, z = 1, the phones' noise, 10% drop out",
        1.0,
        NoiseAt::Distributed,
        0.1,
    ),
];

/// An upload's median L2 norm, the clip of the study's arms: √(P·Q·B/2) for B random features
/// (each cosine's square averages ½ over a grid of several periods), √π·h over the cell for a
/// bump (Σ exp(−d²/h²) over the cells ≈ π·h²/cell²); central_dp.rs gives the measured spread.
pub fn median_norm(scheme: Scheme, config: &DensityConfig) -> f64 {
    let cells = (config.grid_side * config.grid_side) as f64;
    match scheme {
        Scheme::Rff { features } => (cells * features as f64 / 2.0).sqrt(),
        Scheme::Kde | Scheme::GeoInd { .. } => {
            let cell = 2.0 * config.city_half_m / config.grid_side as f64;
            std::f64::consts::PI.sqrt() * config.bandwidth_m / cell
        }
    }
}

/// Under secure aggregation with central DP: the sum beside DP-FedAvg's noised sum.
pub fn central_table(scale: &Scale, runs: &mut DensityRuns) -> Result<Table, String> {
    let cases: [(Scheme, Attack); 3] = [
        (Scheme::Rff { features: 3 }, Attack::Peak),
        (Scheme::Rff { features: 3 }, Attack::Fit),
        (Scheme::Kde, Attack::Peak),
    ];
    let mut rows = Vec::new();
    for (scheme, attack) in cases {
        let config = |seed, sees, dp| DensityConfig {
            scheme,
            attack,
            sees,
            central_dp: dp,
            ..scale.base(seed)
        };
        let clip = median_norm(scheme, &scale.base(scale.seed));
        let sum = each(runs, scale.seeds(), |seed| {
            config(seed, Sees::Sum, central_dp::default_settings())
        })?;
        rows.push(central_row(
            scheme,
            attack,
            "only the sum",
            None,
            &sum,
            &sum,
        ));
        for (label, z, noise_at, dropout) in ARMS {
            let dp = CentralDp {
                noise_multiplier: z,
                clip,
                noise_at,
                dropout,
                ..central_dp::default_settings()
            };
            let noised = each(runs, scale.seeds(), |seed| config(seed, Sees::Dp, dp))?;
            rows.push(central_row(
                scheme,
                attack,
                label,
                Some(clip),
                &noised,
                &sum,
            ));
        }
    }
    Ok(Table {
        title: format!(
            "Under secure aggregation with central DP: the sum beside DP-FedAvg's noised sum — \
             the visitor's user-level ε, the density and the attacks (N = {}, {}², h = 300 m, \
             one query)",
            scale.population, scale.grid_side
        ),
        notes: vec![format!(
            "Sum + DP: each query is a round of DP-FedAvg (McMahan et al. 2018) over the same \
             secure sum: every one of the N + 1 phones is asked (q = 1), clips its upload to L2 \
             norm C — the scheme's median upload norm, √(P·Q·B/2) for random features, √π·h \
             over the cell for a bump —, and noise of standard deviation z·C goes on every \
             cell of the sum: added once by a trusted aggregator, or by each phone (1/n of the \
             variance each, so a phone that drops out takes its share away). The server \
             publishes the noised sum over qN·B, noise z·C/(qN·B) a cell, and attacks the noised \
             sum. ε: the visitor's user-level ε for the query at δ = 10⁻⁵ (whether their whole \
             upload was in the sum at all; the phones' noise: the noise left after the dropouts, \
             0 when the visitor's own phone dropped out). ρ and hotspot F1: the published density \
             against the exact KDE; the only-the-sum row is the non-private reference (the same \
             uploads, unnoised), and a map of nothing (B = 0) ranks nothing: ρ = 0. Errors: the \
             median distance of the guess from the attacked user's own place over {} users a \
             city (share within {LOCATED_M:.0} m). Verdict: the median error against the \
             sum's, where the intervals separate. The malicious server is built only in the \
             Signal map. Each cell: {}.",
            scale.attacked,
            scale.over()
        )],
        columns: [
            "scheme",
            "server",
            "the server sees",
            "clip C",
            "your ε (δ = 10⁻⁵)",
            "ρ",
            "hotspot F1",
            "median error",
            "verdict",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

fn central_row(
    scheme: Scheme,
    attack: Attack,
    sees: &str,
    clip: Option<f64>,
    cities: &[DensitySummary],
    sum: &[DensitySummary],
) -> Vec<String> {
    let epsilon: Vec<f64> = cities
        .iter()
        .map(|s| s.central_dp.as_ref().map_or(f64::NAN, |c| c.epsilon_total))
        .collect();
    let verdict = match (clip, median_error(cities), median_error(sum)) {
        (None, _, _) => "–",
        (Some(_), Some(d), Some(s)) => match Verdict::of(&d, &s) {
            Verdict::Higher => "DP farther",
            Verdict::Lower => "DP nearer",
            Verdict::Inconclusive => "inconclusive here",
        },
        _ => "–",
    };
    let (scheme, server) = labels(scheme, attack);
    vec![
        scheme,
        server.into(),
        sees.into(),
        clip.map_or("–".into(), |c| format!("{c:.1}")),
        match clip {
            None => "∞ (no noise)".into(),
            Some(_) => stats::cell(epsilon, 2, 1.0),
        },
        stats::cell(utility(cities, |u| u.spearman_all), 3, 1.0),
        stats::cell(utility(cities, |u| u.hotspot_f1), 2, 1.0),
        privacy_cell(cities),
        verdict.into(),
    ]
}
