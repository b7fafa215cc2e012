//! The Density lab's studies for `whereabouts reproduce --lab density` (docs/reproduce-density.md):
//! the privacy–utility trade-off over B for each attack, geo-indistinguishability over ε and at
//! the utility of B = 1 and B = 2, repeated queries with a fixed and a redrawn basis, the
//! population size, and what a moving user's two answers give away. [003] is a poster whose
//! figures are lost, so the tables stand on their own; the reading against its three privacy
//! claims is in the document's preface. Every figure is measured on `Scale::seeds` cities and
//! given as its mean with its 95% interval ([`whereabouts_core::stats`]); a comparison holds only
//! where the intervals separate.
//!
//! Its length (about 800 lines): every table of `reproduce --lab density`, each runner beside the
//! table it fills.

use super::config::{Attack, DensityConfig, Persistence, Scheme};
use super::convergence;
use super::fit;
use super::grid::Grid;
use super::lab::{DensityLab, DensitySummary, LOCATED_M, Privacy, Utility};
use super::rff::Basis;
use super::search;
use whereabouts_core::driver::Driver;
use whereabouts_core::geo::Metres;
use whereabouts_core::metrics;
use whereabouts_core::rng::Stream;
use whereabouts_core::stats::{self, Estimate, Verdict};
use whereabouts_core::sweep::{LabRun, LabStudy, Runs, each};
use whereabouts_core::table::Table;
use whereabouts_core::world::city::{City, Moment};

mod real;
mod secure;

pub use real::RealPeople;
pub use secure::SecureSum;

/// How big the studies are, and on which people.
#[derive(Clone, Debug)]
pub struct Scale {
    pub seed: u64,
    /// N for every study but the N sweep.
    pub population: usize,
    pub grid_side: usize,
    /// Uploads attacked per run.
    pub attacked: usize,
    /// The N sweep.
    pub populations: &'static [usize],
    /// The repeated-queries study's query counts.
    pub queries: &'static [usize],
    /// Cities (seeds `seed`, `seed + 1`, …) every figure is measured on: each cell is the mean
    /// over them with its 95% interval.
    pub seeds: u64,
    /// Real check-ins as the population instead of the synthetic city (`reproduce --real`):
    /// each seed draws its N people from them ([`RealPeople`]).
    pub real: Option<std::sync::Arc<RealPeople>>,
}

impl Scale {
    /// The lab's default city (N = 5,000 on 128 × 128 cells of 62.5 m, h = 300 m), five times.
    pub fn full(seed: u64) -> Scale {
        Scale {
            seed,
            population: 5000,
            grid_side: 128,
            attacked: 200,
            populations: &[1000, 2000, 5000, 10_000, 20_000],
            queries: &[1, 5, 20, 50],
            seeds: 5,
            real: None,
        }
    }

    /// A smoke-test size.
    pub fn quick(seed: u64) -> Scale {
        Scale {
            seed,
            population: 1000,
            grid_side: 48,
            attacked: 30,
            populations: &[500, 2000],
            queries: &[1, 10],
            seeds: 2,
            real: None,
        }
    }

    /// The cities' seeds.
    pub fn seeds(&self) -> impl Iterator<Item = u64> + use<> {
        self.seed..self.seed.saturating_add(self.seeds)
    }

    /// "the mean over 5 cities (seeds 1–5) ± its 95% interval", for the tables' notes.
    fn over(&self) -> String {
        let cities = match self.real {
            Some(_) => "draws of the check-ins",
            None => "cities",
        };
        format!(
            "the mean over {} {cities} (seeds {}–{}) ± its 95% interval (Student's t)",
            self.seeds,
            self.seed,
            self.seed + self.seeds - 1
        )
    }

    /// The base configuration of the city of `seed`.
    fn base(&self, seed: u64) -> DensityConfig {
        DensityConfig {
            seed,
            population: self.population,
            grid_side: self.grid_side,
            attacked: self.attacked,
            ..DensityConfig::default()
        }
    }
}

/// The B of the convergence table.
const CONVERGENCE_FEATURES: [usize; 3] = [1, 3, 10];

/// The B of the feature sweep (the page's choices).
const FEATURES: [usize; 7] = [0, 1, 2, 3, 5, 10, 50];
const ATTACKS: [Attack; 3] = [Attack::Peak, Attack::Fit, Attack::FitPrior];
/// GeoInd's servers: the report itself (peak picking; the fitting server has no frequencies to
/// fit in a bump and takes it too, [`Attack::Fit`]) and the Bayesian remapping by the prior.
const GEOIND_ATTACKS: [Attack; 2] = [Attack::Peak, Attack::FitPrior];
/// GeoInd's ε per metre below the page's grid ([`super::study::GEOIND_EPSILONS`]): the page's
/// smallest ε already ranks the cells better than B = 1 and B = 2, and the matched-utility
/// table needs the ε on either side of theirs.
const GEOIND_LOW: [f64; 2] = [0.0003, 0.0006];

/// Where the studies' runs come from: computed, planned or replayed
/// ([`whereabouts_core::sweep`]).
pub type DensityRuns<'a> = dyn Runs<DensityConfig, DensitySummary> + 'a;

/// Every table, in order, each run asked of `runs` once.
pub fn all(scale: &Scale, runs: &mut DensityRuns) -> Result<Vec<Table>, String> {
    if let Some(people) = &scale.real {
        return real::tables(scale, people, runs);
    }
    let features = feature_runs(scale, runs)?;
    let geoind = geoind_runs(scale, runs)?;
    Ok(vec![
        features_table(scale, &features),
        geoind_table(scale, &geoind),
        matched(scale, &features, &geoind),
        queries(scale, runs)?,
        population(scale, runs)?,
        convergence(scale, runs)?,
        moves(scale),
    ])
}

/// `whereabouts reproduce --lab density`: every study, each lab run a point of the sweep (the
/// moving-user table is computed apart from the runs, when the tables are made).
pub struct Reproduce(pub Scale);

impl LabStudy for Reproduce {
    type Run = DensityConfig;

    fn tables(&self, runs: &mut DensityRuns) -> Result<Vec<Table>, String> {
        all(&self.0, runs)
    }
}

/// A point of every Density study: one lab run to the end, summarised.
impl LabRun for DensityConfig {
    type Outcome = DensitySummary;

    fn seed(&self) -> u64 {
        self.seed
    }

    fn run(&self) -> Result<DensitySummary, String> {
        let mut lab = DensityLab::start(self.clone())?;
        lab.finish(&mut |_| {})?;
        Ok(lab.summary())
    }
}

/// One setting on every city: its runs, seed by seed.
type Cities = Vec<DensitySummary>;

/// A utility figure of each city (NaN where a run has none: a placeholder).
fn utility(cities: &[DensitySummary], f: fn(&Utility) -> f64) -> Vec<f64> {
    cities
        .iter()
        .map(|s| s.utility.as_ref().map_or(f64::NAN, f))
        .collect()
}

/// A privacy figure of each city (NaN where a run has none).
fn privacy(cities: &[DensitySummary], f: fn(&Privacy) -> f64) -> Vec<f64> {
    cities
        .iter()
        .map(|s| s.privacy.as_ref().map_or(f64::NAN, f))
        .collect()
}

/// ρ over all cells, over the cities.
fn rank_correlation(cities: &[DensitySummary]) -> Option<Estimate> {
    Estimate::of(utility(cities, |u| u.spearman_all))
}

/// The median error over the cities (each city's median over its attacked uploads).
fn median_error(cities: &[DensitySummary]) -> Option<Estimate> {
    Estimate::of(privacy(cities, |p| p.median_m))
}

/// The three utility cells: ρ all cells, ρ top half, hotspot F1, each mean ± interval.
fn utility_cells(cities: &[DensitySummary]) -> [String; 3] {
    [
        |u: &Utility| u.spearman_all,
        |u: &Utility| u.spearman_top_half,
        |u: &Utility| u.hotspot_f1,
    ]
    .map(|f| stats::cell(utility(cities, f), 2, 1.0))
}

/// "median ± m (located ± %)": the median error of the guesses and the share within
/// [`LOCATED_M`], each over the cities.
fn privacy_cell(cities: &[DensitySummary]) -> String {
    errors_cell(
        &privacy(cities, |p| p.median_m),
        &privacy(cities, |p| p.located),
    )
}

/// "median ± m (located ± %)" from each city's median error and located share.
fn errors_cell(medians: &[f64], located: &[f64]) -> String {
    match Estimate::of(medians.iter().copied()) {
        None => "–".into(),
        Some(m) => format!(
            "{} m ({}%)",
            m.cell(0, 1.0),
            stats::cell(located.iter().copied(), 0, 100.0)
        ),
    }
}

/// A scheme's runs under each of its attacks.
struct Measured {
    label: String,
    scheme: Scheme,
    /// In the order of the attacks asked for.
    by_attack: Vec<Cities>,
}

/// Every city's run of `scheme` under each of `attacks`.
fn measure(
    scale: &Scale,
    runs: &mut DensityRuns,
    label: String,
    scheme: Scheme,
    attacks: &[Attack],
) -> Result<Measured, String> {
    let by_attack = attacks
        .iter()
        .map(|&attack| {
            each(runs, scale.seeds(), |seed| DensityConfig {
                scheme,
                attack,
                ..scale.base(seed)
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(Measured {
        label,
        scheme,
        by_attack,
    })
}

/// Random features over B and the own bump, each under every attack.
fn feature_runs(scale: &Scale, runs: &mut DensityRuns) -> Result<Vec<Measured>, String> {
    FEATURES
        .iter()
        .map(|&b| (format!("B = {b}"), Scheme::Rff { features: b }))
        .chain(std::iter::once(("own bump".to_string(), Scheme::Kde)))
        .map(|(label, scheme)| measure(scale, runs, label, scheme, &ATTACKS))
        .collect()
}

/// GeoInd over ε (the page's grid and the smaller ε below it), under its two servers.
fn geoind_runs(scale: &Scale, runs: &mut DensityRuns) -> Result<Vec<Measured>, String> {
    GEOIND_LOW
        .iter()
        .chain(&super::study::GEOIND_EPSILONS)
        .map(|&eps| {
            let scheme = Scheme::GeoInd { epsilon_per_m: eps };
            measure(scale, runs, format!("{eps}"), scheme, &GEOIND_ATTACKS)
        })
        .collect()
}

fn features_table(scale: &Scale, features: &[Measured]) -> Table {
    let mut random = Vec::new();
    let rows = features
        .iter()
        .map(|m| {
            random.extend(privacy(&m.by_attack[0], |p| p.random_guess_m));
            let mut row = vec![m.label.clone()];
            row.extend(utility_cells(&m.by_attack[0]));
            row.extend(m.by_attack.iter().map(|c| privacy_cell(c)));
            row
        })
        .collect();
    Table {
        title: format!(
            "Random features: utility, and each attack's error over B (N = {}, {}², h = 300 m)",
            scale.population, scale.grid_side
        ),
        notes: vec![format!(
            "Privacy cells: the median distance of the server's guess from the truth over {} attacked \
             uploads of a city, and the share within {LOCATED_M:.0} m. A uniformly random cell lands {} m \
             away on average. Peak picking is the poster's attacker; fitting estimates the user's \
             frequencies and phases and maximises the fitted surface (ties at random); with the prior, \
             ties go to the densest place the server published. Each cell: {}.",
            scale.attacked,
            stats::cell(random, 0, 1.0),
            scale.over()
        )],
        columns: [
            "scheme",
            "ρ all cells",
            "ρ top half",
            "hotspot F1",
            "peak picking",
            "fitting",
            "fitting + prior",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// GeoInd's ε per metre.
fn epsilon(m: &Measured) -> f64 {
    match m.scheme {
        Scheme::GeoInd { epsilon_per_m } => epsilon_per_m,
        _ => f64::NAN,
    }
}

fn geoind_table(scale: &Scale, geoind: &[Measured]) -> Table {
    let rows = geoind
        .iter()
        .map(|m| {
            let mut row = vec![m.label.clone(), format!("{:.0} m", 2.0 / epsilon(m))];
            row.extend(utility_cells(&m.by_attack[0]));
            row.extend(m.by_attack.iter().map(|c| privacy_cell(c)));
            row
        })
        .collect();
    Table {
        title: "Geo-indistinguishability over ε (the poster's comparator)".into(),
        notes: vec![format!(
            "The report is the bump's peak; the remapping server guesses the place of least expected \
             distance under the published density times the planar-Laplace likelihood. Each cell: {}.",
            scale.over()
        )],
        columns: [
            "ε per m",
            "mean shift 2/ε",
            "ρ all cells",
            "ρ top half",
            "hotspot F1",
            "the report",
            "remapped by the prior",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// Of the GeoInd runs, the one whose ρ over all cells matches `target`: among the ε whose
/// interval overlaps `target`'s, the nearest mean; with none overlapping, the nearest mean
/// (`false`: not matched within the intervals).
fn matching_epsilon<'a>(target: &Estimate, geoind: &'a [Measured]) -> Option<(&'a Measured, bool)> {
    let rho: Vec<(&Measured, Estimate)> = geoind
        .iter()
        .filter_map(|m| rank_correlation(&m.by_attack[0]).map(|e| (m, e)))
        .collect();
    let nearest = |within: bool| {
        rho.iter()
            .filter(|(_, e)| !within || Verdict::of(e, target) == Verdict::Inconclusive)
            .min_by(|a, b| {
                (a.1.mean - target.mean)
                    .abs()
                    .total_cmp(&(b.1.mean - target.mean).abs())
            })
            .map(|(m, _)| *m)
    };
    nearest(true)
        .map(|m| (m, true))
        .or_else(|| nearest(false).map(|m| (m, false)))
}

/// Which of two schemes keeps its users further from the server's guesses: by the intervals of
/// their median errors.
fn more_private(a: &Cities, a_name: &str, b: &Cities, b_name: &str) -> String {
    match (median_error(a), median_error(b)) {
        (Some(x), Some(y)) => match Verdict::of(&x, &y) {
            Verdict::Higher => a_name.into(),
            Verdict::Lower => b_name.into(),
            Verdict::Inconclusive => "inconclusive here".into(),
        },
        _ => "–".into(),
    }
}

/// [003]'s comparator at equal utility: for B = 1 and B = 2, the GeoInd ε whose rank correlation
/// over all cells matches theirs ([`matching_epsilon`]), and each attack against both.
fn matched(scale: &Scale, features: &[Measured], geoind: &[Measured]) -> Table {
    let mut rows = Vec::new();
    let mut others = Vec::new();
    for b in [1, 2] {
        let Some(rff) = features
            .iter()
            .find(|m| m.scheme == Scheme::Rff { features: b })
        else {
            continue;
        };
        let Some(target) = rank_correlation(&rff.by_attack[0]) else {
            continue;
        };
        let Some((geo, overlaps)) = matching_epsilon(&target, geoind) else {
            continue;
        };
        let eps = format!(
            "{}{}",
            geo.label,
            if overlaps { "" } else { " (nearest; ρ apart)" }
        );
        let [_, rff_top, rff_f1] = utility_cells(&rff.by_attack[0]);
        let [_, geo_top, geo_f1] = utility_cells(&geo.by_attack[0]);
        others.push(format!(
            "{}: {rff_top} and {rff_f1}, GeoInd ε = {}: {geo_top} and {geo_f1}",
            rff.label, geo.label
        ));
        // Each attack against random features, and the same server against GeoInd: the report
        // for the peak picker and the fitting server (a bump has no frequencies to fit), the
        // remapping by the prior for the fitting server with the prior.
        for (k, attack) in ["peak picking", "fitting", "fitting + prior"]
            .into_iter()
            .enumerate()
        {
            let against_geoind = &geo.by_attack[if k == 2 { 1 } else { 0 }];
            rows.push(vec![
                rff.label.clone(),
                target.cell(2, 1.0),
                eps.clone(),
                stats::cell(utility(&geo.by_attack[0], |u| u.spearman_all), 2, 1.0),
                attack.into(),
                privacy_cell(&rff.by_attack[k]),
                privacy_cell(against_geoind),
                more_private(
                    &rff.by_attack[k],
                    &rff.label,
                    against_geoind,
                    &format!("GeoInd ε = {}", geo.label),
                ),
            ]);
        }
    }
    Table {
        title: "GeoInd and random features at matched utility ([003]'s comparator against B ≤ 2)"
            .into(),
        notes: vec![
            format!(
                "For B = 1 and B = 2, the GeoInd ε of the grid (the table above) whose ρ over all cells \
             matches B's: of the ε whose interval overlaps B's, the one with the nearest mean (\"nearest; \
             ρ apart\" where none overlaps: the grid does not reach B's utility, and the comparison is \
             then at a different utility). No interpolation: every figure is a run's. Each server \
             against random features beside the same server against GeoInd: the peak picker and the \
             fitting server take GeoInd's report (a bump has no frequencies to fit), the fitting server \
             with the prior remaps it by the published density. Cells: median error (share within \
             {LOCATED_M:.0} m), {}. \"More private\": the scheme whose median-error interval lies wholly \
             above the other's; overlapping intervals are inconclusive here.",
                scale.over()
            ),
            format!(
                "The match is on ρ over all cells alone, which a density smoothed by large noise keeps \
             (the city is densest at its centre); the other two utility figures at the matched ε, ρ \
             over the top half and hotspot F1 — {}.",
                others.join("; ")
            ),
        ],
        columns: [
            "features",
            "ρ all cells",
            "GeoInd ε per m",
            "its ρ all cells",
            "server",
            "random features",
            "GeoInd",
            "more private",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

fn queries(scale: &Scale, runs: &mut DensityRuns) -> Result<Table, String> {
    let mut rows = Vec::new();
    for b in [1, 3] {
        for persistence in [Persistence::Fixed, Persistence::Redrawn] {
            let name = match persistence {
                Persistence::Fixed => "fixed",
                Persistence::Redrawn => "redrawn",
            };
            let mut row = vec![format!("B = {b}, {name} basis")];
            for &q in scale.queries {
                let cities = each(runs, scale.seeds(), |seed| DensityConfig {
                    scheme: Scheme::Rff { features: b },
                    persistence,
                    queries: q,
                    ..scale.base(seed)
                })?;
                row.push(privacy_cell(&cities));
            }
            rows.push(row);
        }
    }
    let mut columns = vec!["answers".to_string()];
    columns.extend(
        scale
            .queries
            .iter()
            .map(|&q| format!("{q} {}", if q == 1 { "query" } else { "queries" })),
    );
    Ok(Table {
        title: "Repeated queries: the server averages a user's answers and picks the peak ([003] claim 3)"
            .into(),
        notes: vec![format!(
            "Median error (share within {LOCATED_M:.0} m), {}. With a fixed basis every answer is the same \
             surface; redrawn per query, the user's own peak stays while the others move.",
            scale.over()
        )],
        columns,
        rows,
    })
}

/// [003]'s lost "Convergence Analysis" (`convergence.rs`): the estimate's error against the exact
/// KDE over N and B, beside the 1/√(N·B) theory gives, and the slope of ln error against
/// ln(N·B) city by city.
fn convergence(scale: &Scale, runs: &mut DensityRuns) -> Result<Table, String> {
    let base = scale.base(scale.seed);
    let half = base.city_half_m;
    let grid = Grid::centred(half, half, base.grid_side, base.grid_side);
    let h = base.bandwidth_m;
    let closed = convergence::mse_per_feature_closed(&grid, h);
    // How far the closed form is from the exact variance on the first city (its edges).
    let exact = {
        let mut first = DensityConfig {
            population: scale.population,
            ..base.clone()
        };
        if let Some(people) = &scale.real {
            people.fill(&mut first)?;
        }
        let lab = DensityLab::start(first)?;
        convergence::mse_per_feature(lab.grid(), lab.people(), h)
    };
    let rmse = |s: &DensitySummary| s.utility.as_ref().and_then(|u| u.rmse).unwrap_or(f64::NAN);
    let mut rows = Vec::new();
    let mut slopes = Vec::new();
    for b in CONVERGENCE_FEATURES {
        // Each city's (N·B, error) over the Ns, for its slope.
        let mut by_city: Vec<Vec<(f64, f64)>> = vec![Vec::new(); scale.seeds as usize];
        for &n in scale.populations {
            let cities = each(runs, scale.seeds(), |seed| DensityConfig {
                population: n,
                scheme: Scheme::Rff { features: b },
                attack: Attack::Peak,
                ..scale.base(seed)
            })?;
            let theory = convergence::rmse(closed, n, b);
            for (c, s) in cities.iter().enumerate() {
                by_city[c].push(((n * b) as f64, rmse(s)));
            }
            rows.push(vec![
                n.to_string(),
                b.to_string(),
                (n * b).to_string(),
                stats::cell(cities.iter().map(rmse), 2, 1e3),
                format!("{:.2}", theory * 1e3),
                stats::cell(cities.iter().map(|s| rmse(s) / theory), 3, 1.0),
            ]);
        }
        let slope = Estimate::of(
            by_city
                .iter()
                .map(|p| convergence::log_slope(p).unwrap_or(f64::NAN)),
        );
        let reading = match slope {
            Some(e) if e.low() <= -0.5 && -0.5 <= e.high() => "its interval holds −½",
            Some(_) => "its interval does not hold −½",
            None => "not measured",
        };
        slopes.push(format!(
            "B = {b}: {} ({reading})",
            slope.map_or("–".into(), |e| e.cell(3, 1.0))
        ));
    }
    Ok(Table {
        title: "Convergence: the estimate's error against the 1/√(N·B) theory gives ([003] \"Convergence Analysis\", lost; derived)"
            .into(),
        notes: vec![
            format!(
                "Error: the root mean squared difference of the server's estimate (Eq. 6) from the exact KDE (Eq. 1) over the {side} × {side} grid, ×10⁻³ (the kernel is 1 at its centre). Theory: every one of the N·B features is independent and unbiased, with variance ½ + ½k⁴ − k² (k = k_h(g − d_i)), so the mean squared error is that variance's mean over the grid and the people divided by N·B; where every kernel lies inside the grid the mean is ½ − 3πh²/(4A) = {closed:.5} (A the grid's area, h = {h:.0} m), the theory column. The exact mean on city {seed} with N = {n} is {exact:.5} ({pct:+.2}%: kernels cut by the city's edge). Each cell: {over}.",
                side = base.grid_side,
                seed = scale.seed,
                n = scale.population,
                pct = 100.0 * (exact / closed - 1.0),
                over = scale.over(),
            ),
            format!(
                "The slope of ln error against ln(N·B) over the Ns, city by city (theory: −½): {}.",
                slopes.join("; ")
            ),
        ],
        columns: [
            "N",
            "B",
            "N·B",
            "error (×10⁻³)",
            "theory (×10⁻³)",
            "error / theory",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

fn population(scale: &Scale, runs: &mut DensityRuns) -> Result<Table, String> {
    let mut rows = Vec::new();
    for &n in scale.populations {
        let mut row = vec![format!("{n}")];
        for (b, attack) in [(1, Attack::FitPrior), (3, Attack::Peak)] {
            let cities = each(runs, scale.seeds(), |seed| DensityConfig {
                population: n,
                scheme: Scheme::Rff { features: b },
                attack,
                ..scale.base(seed)
            })?;
            row.extend(utility_cells(&cities));
            if b == 1 {
                row.push(privacy_cell(&cities));
            }
        }
        rows.push(row);
    }
    Ok(Table {
        title: "Population size: the projection noise averages out as 1/√(N·B)".into(),
        notes: vec![format!(
            "\"B = 1: fitting + prior\" is the fitting server with the density prior against one \
             feature: whether the published density it leans on helps it more as N grows. Each cell: {}.",
            scale.over()
        )],
        columns: [
            "N",
            "B = 1: ρ all",
            "ρ top half",
            "hotspot F1",
            "B = 1: fitting + prior",
            "B = 3: ρ all",
            "ρ top half",
            "hotspot F1",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// The features of the moving-user table.
const MOVES_FEATURES: [usize; 5] = [1, 2, 3, 5, 10];

/// What one city's moving residents give away, for each B of [`MOVES_FEATURES`]: the errors
/// (metres) of the displacement the two answers' phases give, home → work and for a 300 m walk,
/// and of the home located from the first answer alone by fitting.
struct Moves {
    /// How far each resident's work is from home, metres.
    apart_m: Vec<f64>,
    by_features: Vec<[Vec<f64>; 3]>,
}

/// Residents of the city of `seed` who work more than 200 m from home (at most
/// `scale.attacked`, and 100), night (home) then day (work), one basis for both answers.
fn moves_of(scale: &Scale, seed: u64) -> Moves {
    let base = scale.base(seed);
    let half = base.city_half_m;
    let grid = Grid::centred(half, half, base.grid_side, base.grid_side);
    let city = City::generate(half, half, seed);
    let movers: Vec<(u32, Metres, Metres)> = (0..base.population)
        .map(|i| {
            let r = city.resident(seed, i);
            (i as u32, r.at(Moment::Night), r.at(Moment::Day))
        })
        .filter(|(_, a, b)| a.distance(b) > 200.0)
        .take(scale.attacked.min(100))
        .collect();
    let by_features = MOVES_FEATURES
        .iter()
        .map(|&b| {
            let mut s = Stream::new(seed, "moves");
            let (mut moved, mut walked, mut place) = (Vec::new(), Vec::new(), Vec::new());
            for &(user, home, work) in &movers {
                let basis = Basis::of_user(seed, user, b, base.bandwidth_m, None);
                let first = fit::fit(&basis.upload(&grid, home), &grid, b);
                // To work, and a 300 m walk from home in a random direction (kept in the city).
                let angle = s.range(0.0, std::f64::consts::TAU);
                let walk = Metres::new(
                    (home.east + 300.0 * angle.cos()).clamp(-half, half),
                    (home.north + 300.0 * angle.sin()).clamp(-half, half),
                );
                for (to, errors) in [(work, &mut moved), (walk, &mut walked)] {
                    let second = fit::phases(&first, &basis.upload(&grid, to), &grid);
                    let truth = Metres::new(to.east - home.east, to.north - home.north);
                    if let Some(g) = search::displacement(&first, &second, &grid) {
                        errors.push((g.east - truth.east).hypot(g.north - truth.north));
                    }
                }
                let tied = search::tied_maxima(&first, &grid);
                if let Some(g) = search::choose(&tied, None, &grid, &mut s) {
                    place.push(g.distance(&home));
                }
            }
            [moved, walked, place]
        })
        .collect();
    Moves {
        apart_m: movers.iter().map(|(_, a, b)| a.distance(b)).collect(),
        by_features,
    }
}

/// "n", or "least–most" where the counts differ.
fn range(counts: impl Iterator<Item = usize>) -> String {
    let counts: Vec<usize> = counts.collect();
    match (counts.iter().min(), counts.iter().max()) {
        (Some(lo), Some(hi)) if lo < hi => format!("{lo}–{hi}"),
        (Some(n), _) => n.to_string(),
        _ => "–".into(),
    }
}

/// Each city's median of `errors`, and its share within [`LOCATED_M`].
fn median_and_located(errors: &[f64]) -> (f64, f64) {
    let within = errors.iter().filter(|&&e| e <= LOCATED_M).count();
    (
        metrics::median(errors).unwrap_or(f64::NAN),
        within as f64 / errors.len().max(1) as f64,
    )
}

/// Residents who work away from home, night (home) then day (work), one basis for both answers:
/// how well the server recovers the displacement from the phases, against how well it locates
/// the home by fitting alone, on every city of the scale. Computed apart from the sweep's runs
/// (each city's fits take a fraction of a second).
fn moves(scale: &Scale) -> Table {
    let cities: Vec<Moves> = scale.seeds().map(|seed| moves_of(scale, seed)).collect();
    let rows = MOVES_FEATURES
        .iter()
        .enumerate()
        .map(|(k, b)| {
            let mut row = vec![format!("B = {b}")];
            row.extend((0..3).map(|j| {
                let (medians, located): (Vec<f64>, Vec<f64>) = cities
                    .iter()
                    .map(|c| median_and_located(&c.by_features[k][j]))
                    .unzip();
                errors_cell(&medians, &located)
            }));
            row
        })
        .collect();
    let of_cities = |f: &dyn Fn(&Moves) -> f64| stats::cell(cities.iter().map(f), 0, 1.0);
    Table {
        title: "A moving user with one basis: home at night, work by day ([003] claim 3, \"even if the user moves\")"
            .into(),
        notes: vec![format!(
            "{} residents of each city whose work is more than 200 m from home (median {} m apart), \
             and the same residents walking 300 m from home. Median error (share within {LOCATED_M:.0} m) of the \
             displacement the two answers' phases give (the shortest among ties), beside the home's \
             location from the first answer alone by fitting. Each cell: {}.",
            range(cities.iter().map(|c| c.apart_m.len())),
            of_cities(&|c| metrics::median(&c.apart_m).unwrap_or(f64::NAN)),
            scale.over()
        )],
        columns: [
            "features",
            "home → work",
            "a 300 m walk",
            "the home, by fitting",
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

    #[test]
    fn the_quick_studies_fill_every_table() {
        let tables =
            whereabouts_core::sweep::run_here(&Reproduce(Scale::quick(1)), 1, &|_, _| {}).unwrap();
        assert_eq!(tables.len(), 7);
        for t in &tables {
            assert!(!t.rows.is_empty(), "{}", t.title);
            for r in &t.rows {
                assert_eq!(r.len(), t.columns.len(), "{}: {r:?}", t.title);
            }
        }
    }
}
