//! The Density lab's studies for `whereabouts reproduce --lab density` (docs/reproduce-density.md):
//! the privacy–utility trade-off over B for each attack, geo-indistinguishability over ε,
//! repeated queries with a fixed and a redrawn basis, the population size, and what a moving
//! user's two answers give away. [003] is a poster whose figures are lost, so the tables stand
//! on their own; the reading against its three privacy claims is in the document's preface.

use super::config::{Attack, DensityConfig, Persistence, Scheme};
use super::fit;
use super::grid::Grid;
use super::lab::{DensityLab, DensitySummary, LOCATED_M};
use super::rff::Basis;
use super::search;
use whereabouts_core::driver::Driver;
use whereabouts_core::geo::Metres;
use whereabouts_core::metrics;
use whereabouts_core::rng::Stream;
use whereabouts_core::sweep::{Runs, Sweep};
use whereabouts_core::table::Table;
use whereabouts_core::world::city::{City, Moment};

/// How big the studies are.
#[derive(Clone, Copy, Debug)]
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
}

impl Scale {
    /// The lab's default city (N = 5,000 on 128 × 128 cells of 62.5 m, h = 300 m).
    pub fn full(seed: u64) -> Scale {
        Scale {
            seed,
            population: 5000,
            grid_side: 128,
            attacked: 200,
            populations: &[1000, 2000, 5000, 10_000, 20_000],
            queries: &[1, 5, 20, 50],
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
        }
    }

    fn base(&self) -> DensityConfig {
        DensityConfig {
            seed: self.seed,
            population: self.population,
            grid_side: self.grid_side,
            attacked: self.attacked,
            ..DensityConfig::default()
        }
    }
}

/// The B of the feature sweep (the page's choices).
const FEATURES: [usize; 7] = [0, 1, 2, 3, 5, 10, 50];
const ATTACKS: [Attack; 3] = [Attack::Peak, Attack::Fit, Attack::FitPrior];

/// Where the studies' runs come from: computed, planned or replayed
/// ([`whereabouts_core::sweep`]).
pub type DensityRuns<'a> = dyn Runs<DensityConfig, DensitySummary> + 'a;

/// Every table, in order, each run asked of `runs`.
pub fn all(scale: &Scale, runs: &mut DensityRuns) -> Result<Vec<Table>, String> {
    Ok(vec![
        features(scale, runs)?,
        geoind(scale, runs)?,
        queries(scale, runs)?,
        population(scale, runs)?,
        moves(scale),
    ])
}

/// `whereabouts reproduce --lab density`: every study, each lab run a point of the sweep (the
/// moving-user table is computed apart from the runs, when the tables are made).
pub struct Reproduce(pub Scale);

impl Sweep for Reproduce {
    type Config = DensityConfig;
    type Outcome = DensitySummary;

    fn seed(config: &DensityConfig) -> u64 {
        config.seed
    }

    fn run(&self, config: &DensityConfig) -> Result<DensitySummary, String> {
        summary_of(config.clone())
    }

    fn tables(&self, runs: &mut DensityRuns) -> Result<Vec<Table>, String> {
        all(&self.0, runs)
    }
}

/// One lab run to the end: a point of the sweep.
pub fn summary_of(config: DensityConfig) -> Result<DensitySummary, String> {
    let mut lab = DensityLab::start(config)?;
    lab.finish(&mut |_| {})?;
    Ok(lab.summary())
}

/// The three utility cells of a run ("–" when it has none).
fn utility_cells(s: &DensitySummary) -> [String; 3] {
    s.utility
        .as_ref()
        .map_or(["–".into(), "–".into(), "–".into()], |u| {
            [
                f2(u.spearman_all),
                f2(u.spearman_top_half),
                f2(u.hotspot_f1),
            ]
        })
}

fn f2(x: f64) -> String {
    format!("{x:.2}")
}

/// "median m (located %)" of a run.
fn privacy_cell(s: &DensitySummary) -> String {
    s.privacy.as_ref().map_or("–".into(), |p| {
        format!("{:.0} m ({:.0}%)", p.median_m, 100.0 * p.located)
    })
}

fn features(scale: &Scale, runs: &mut DensityRuns) -> Result<Table, String> {
    let mut rows = Vec::new();
    let mut random = 0.0;
    let schemes = FEATURES
        .iter()
        .map(|&b| (format!("B = {b}"), Scheme::Rff { features: b }))
        .chain(std::iter::once(("own bump".to_string(), Scheme::Kde)));
    for (label, scheme) in schemes {
        let mut row = vec![label.clone()];
        for (k, attack) in ATTACKS.into_iter().enumerate() {
            let s = runs.run(DensityConfig {
                scheme,
                attack,
                ..scale.base()
            })?;
            if k == 0 {
                row.extend(utility_cells(&s));
                random = s.privacy.as_ref().map_or(0.0, |p| p.random_guess_m);
            }
            row.push(privacy_cell(&s));
        }
        rows.push(row);
    }
    Ok(Table {
        title: format!(
            "Random features: utility, and each attack's error over B (N = {}, {}², h = 300 m)",
            scale.population, scale.grid_side
        ),
        notes: vec![format!(
            "Privacy cells: the median distance of the server's guess from the truth over {} attacked \
             uploads, and the share within {LOCATED_M:.0} m. A uniformly random cell lands {random:.0} m \
             away on average. Peak picking is the poster's attacker; fitting estimates the user's \
             frequencies and phases and maximises the fitted surface (ties at random); with the prior, \
             ties go to the densest place the server published.",
            scale.attacked
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
    })
}

fn geoind(scale: &Scale, runs: &mut DensityRuns) -> Result<Table, String> {
    let mut rows = Vec::new();
    for eps in super::study::GEOIND_EPSILONS {
        let mut row = vec![format!("{eps}"), format!("{:.0} m", 2.0 / eps)];
        for (k, attack) in [Attack::Peak, Attack::FitPrior].into_iter().enumerate() {
            let s = runs.run(DensityConfig {
                scheme: Scheme::GeoInd { epsilon_per_m: eps },
                attack,
                ..scale.base()
            })?;
            if k == 0 {
                row.extend(utility_cells(&s));
            }
            row.push(privacy_cell(&s));
        }
        rows.push(row);
    }
    Ok(Table {
        title: "Geo-indistinguishability over ε (the poster's comparator)".into(),
        notes: vec![
            "The report is the bump's peak; the remapping server guesses the place of least expected \
             distance under the published density times the planar-Laplace likelihood."
                .into(),
        ],
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
    })
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
                let s = runs.run(DensityConfig {
                    scheme: Scheme::Rff { features: b },
                    persistence,
                    queries: q,
                    ..scale.base()
                })?;
                row.push(privacy_cell(&s));
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
        notes: vec![
            "Median error (share within 100 m). With a fixed basis every answer is the same surface; \
             redrawn per query, the user's own peak stays while the others move."
                .into(),
        ],
        columns,
        rows,
    })
}

fn population(scale: &Scale, runs: &mut DensityRuns) -> Result<Table, String> {
    let mut rows = Vec::new();
    for &n in scale.populations {
        let mut row = vec![format!("{n}")];
        for (b, attack) in [(1, Attack::FitPrior), (3, Attack::Peak)] {
            let s = runs.run(DensityConfig {
                population: n,
                scheme: Scheme::Rff { features: b },
                attack,
                ..scale.base()
            })?;
            row.extend(utility_cells(&s));
            if b == 1 {
                row.push(privacy_cell(&s));
            }
        }
        rows.push(row);
    }
    Ok(Table {
        title: "Population size: the projection noise averages out as 1/√(N·B)".into(),
        notes: vec![
            "\"B = 1: fitting + prior\" is the fitting server with the density prior against one \
             feature: whether the published density it leans on helps it more as N grows."
                .into(),
        ],
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

/// Residents who work away from home, night (home) then day (work), one basis for both answers:
/// how well the server recovers the displacement from the phases, against how well it locates
/// the home by fitting alone.
fn moves(scale: &Scale) -> Table {
    let base = scale.base();
    let half = base.city_half_m;
    let grid = Grid::centred(half, half, base.grid_side, base.grid_side);
    let city = City::generate(half, half, base.seed);
    let movers: Vec<(u32, Metres, Metres)> = (0..base.population)
        .map(|i| {
            let r = city.resident(base.seed, i);
            (i as u32, r.at(Moment::Night), r.at(Moment::Day))
        })
        .filter(|(_, a, b)| a.distance(b) > 200.0)
        .take(scale.attacked.min(100))
        .collect();
    let mut rows = Vec::new();
    for b in [1, 2, 3, 5, 10] {
        let mut s = Stream::new(base.seed, "moves");
        let (mut moved, mut walked, mut place) = (Vec::new(), Vec::new(), Vec::new());
        for &(user, home, work) in &movers {
            let basis = Basis::of_user(base.seed, user, b, base.bandwidth_m, None);
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
        let cell = |xs: &[f64]| {
            let within = xs.iter().filter(|&&e| e <= LOCATED_M).count() as f64;
            format!(
                "{:.0} m ({:.0}%)",
                metrics::median(xs).unwrap_or(f64::NAN),
                100.0 * within / xs.len().max(1) as f64
            )
        };
        rows.push(vec![
            format!("B = {b}"),
            cell(&moved),
            cell(&walked),
            cell(&place),
        ]);
    }
    let distances: Vec<f64> = movers.iter().map(|(_, a, b)| a.distance(b)).collect();
    Table {
        title: "A moving user with one basis: home at night, work by day ([003] claim 3, \"even if the user moves\")"
            .into(),
        notes: vec![format!(
            "{} residents whose work is more than 200 m from home (median {:.0} m apart), and the same \
             residents walking 300 m from home. Median error (share within 100 m) of the displacement \
             the two answers' phases give (the shortest among ties), beside the home's location from \
             the first answer alone by fitting.",
            movers.len(),
            metrics::median(&distances).unwrap_or(f64::NAN)
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
        assert_eq!(tables.len(), 5);
        for t in &tables {
            assert!(!t.rows.is_empty(), "{}", t.title);
            for r in &t.rows {
                assert_eq!(r.len(), t.columns.len(), "{}: {r:?}", t.title);
            }
        }
    }
}
