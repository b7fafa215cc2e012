//! The Density lab's studies on real check-ins (`whereabouts reproduce --lab density --real
//! DIR`; docs/reproduce-density.md, "On real data (foursquare-nyc)"): the same tables as the
//! synthetic city's but the moving-user one, with the population's positions drawn from the
//! Foursquare New York sample's check-ins ([`crate::real`]) instead of the city's residents. How
//! the file becomes people and where the grid lies is docs/papers.md, "Real data:
//! foursquare-nyc".

use super::{
    DensityRuns, Scale, convergence, feature_runs, features_table, geoind_runs, geoind_table,
    matched, population, queries,
};
use crate::density::config::DensityConfig;
use crate::density::lab::DensitySummary;
use crate::real::{CheckIns, FOURSQUARE_NYC};
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;
use whereabouts_core::sweep::Runs;
use whereabouts_core::table::Table;

/// The check-ins inside the lab's square, centred on their median position.
#[derive(Clone, Debug, PartialEq)]
pub struct RealPeople {
    /// The data set's name, for the headings.
    pub name: &'static str,
    /// Every check-in within the square, on the lab's plane (the median at the origin).
    pub pool: Vec<Metres>,
    /// The square's half-side (the lab's `city_half_m`), metres.
    pub half_m: f64,
    /// The median's latitude and longitude.
    pub centre: (f64, f64),
    /// Check-ins in the file, and trajectories with a check-in inside the square.
    pub check_ins: usize,
    pub trajectories: usize,
}

impl RealPeople {
    /// The check-ins of `data` within ±`half_m` of their median latitude and longitude.
    pub fn new(data: &CheckIns, half_m: f64) -> RealPeople {
        let median = data.median();
        let inside = |c: &Metres| {
            (c.east - median.east).abs() <= half_m && (c.north - median.north).abs() <= half_m
        };
        let pool: Vec<Metres> = data
            .check_ins()
            .filter(|c| inside(&c.at))
            .map(|c| Metres::new(c.at.east - median.east, c.at.north - median.north))
            .collect();
        let trajectories = data
            .trajectories
            .iter()
            .filter(|t| t.check_ins.iter().any(|c| inside(&c.at)))
            .count();
        let centre = data.projection.to_latlon(median);
        RealPeople {
            name: FOURSQUARE_NYC,
            pool,
            half_m,
            centre: (centre.lat, centre.lon),
            check_ins: data.check_ins().count(),
            trajectories,
        }
    }

    /// Makes `config`'s population `config.population` check-ins of the square drawn without
    /// replacement by `config.seed`; an error when there are fewer.
    pub fn fill(&self, config: &mut DensityConfig) -> Result<(), String> {
        let n = config.population;
        if n > self.pool.len() {
            return Err(format!(
                "{}: a population of {n} needs that many check-ins; the square holds {}",
                self.name,
                self.pool.len()
            ));
        }
        let mut order: Vec<u32> = (0..self.pool.len() as u32).collect();
        Stream::new(config.seed, "real-residents").shuffle(&mut order);
        config.city_half_m = self.half_m;
        config.residents = order[..n].iter().map(|&i| self.pool[i as usize]).collect();
        Ok(())
    }

    /// What every real-data table says about its people.
    fn note(&self) -> String {
        format!(
            "On real data ({}): the population is check-ins, each a person at a place, drawn without replacement by the seed from the {} of the file's {} check-ins (from {} of its weekly trajectories) that lie within ±{:.0} km of their median latitude and longitude ({:.4}, {:.4}, Midtown Manhattan), the grid's centre; the grid, the bandwidth and N are the synthetic tables'. A trajectory may give several of a draw's people; many share a venue. Each seed also draws the features, the noise and the attacked sample (docs/papers.md, \"Real data: foursquare-nyc\").",
            self.name,
            self.pool.len(),
            self.check_ins,
            self.trajectories,
            self.half_m / 1000.0,
            self.centre.0,
            self.centre.1,
        )
    }
}

/// The runs of a study on real people: each configuration's population drawn before it runs.
struct OnReal<'a, 'b> {
    runs: &'a mut DensityRuns<'b>,
    people: &'a RealPeople,
}

impl Runs<DensityConfig, DensitySummary> for OnReal<'_, '_> {
    fn run(&mut self, mut config: DensityConfig) -> Result<DensitySummary, String> {
        self.people.fill(&mut config)?;
        self.runs.run(config)
    }
}

/// The real-data tables, each headed and noted with its data: every synthetic table but the
/// moving user's (a check-in is one place; two of a week's would be another study).
pub(super) fn tables(
    scale: &Scale,
    people: &RealPeople,
    runs: &mut DensityRuns,
) -> Result<Vec<Table>, String> {
    let mut on = OnReal { runs, people };
    let features = feature_runs(scale, &mut on)?;
    let geoind = geoind_runs(scale, &mut on)?;
    let mut tables = vec![
        features_table(scale, &features),
        geoind_table(scale, &geoind),
        matched(scale, &features, &geoind),
        queries(scale, &mut on)?,
        population(scale, &mut on)?,
        convergence(scale, &mut on)?,
    ];
    for t in &mut tables {
        t.title = format!(
            "{} — on real data ({}), check-ins as the population",
            t.title, people.name
        );
        t.notes.push(people.note());
    }
    Ok(tables)
}
