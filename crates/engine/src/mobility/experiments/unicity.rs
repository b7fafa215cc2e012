//! `whereabouts reproduce --lab mobility --study unicity` (issue 40 §2): how many of a person's
//! check-ins single them out among the others — de Montjoye et al.'s unicity ε_p
//! ([`whereabouts_core::unicity`]) at several resolutions, for p = 1 … 5, on the lab's people
//! (the synthetic city's check-in users, as long as the lab's trajectories) and, with `--real`,
//! on every weekly trajectory of the Foursquare New York sample.
//!
//! The paper's reading (mobile-phone traces, antenna cells, hourly): four points single out 95%
//! of 1.5 million people. These tables say how far that holds for check-ins, where a person has
//! a few dozen points a week instead of hundreds, and what coarser cells and hours buy.

use super::Scale;
use crate::mobility::config::MobConfig;
use crate::mobility::lstm::WINDOW;
use crate::mobility::traces::{self, Fix, TraceKind};
use crate::real::CheckIns;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use whereabouts_core::stats::Estimate;
use whereabouts_core::sweep::{Runs, Sweep, each};
use whereabouts_core::table::Table;
use whereabouts_core::unicity::{Population, Resolution, points};

/// The resolutions compared: cell side (m) and time bin (hours of the week; `None`: places only).
pub const RESOLUTIONS: [(f64, Option<f64>); 6] = [
    (100.0, Some(1.0)),
    (250.0, Some(1.0)),
    (1000.0, Some(1.0)),
    (250.0, Some(6.0)),
    (250.0, None),
    (1000.0, None),
];

/// The numbers of points drawn, p.
pub const POINTS: [usize; 5] = [1, 2, 3, 4, 5];

/// Draws of p points per person (their shares are averaged: [`whereabouts_core::unicity`]).
pub const DRAWS: usize = 20;

fn resolution((cell_m, hours): (f64, Option<f64>)) -> Resolution {
    Resolution {
        cell_m,
        bin_s: hours.map(|h| h * 3600.0),
    }
}

/// Whose traces a point measures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The synthetic city's check-in users of the point's seed: `people` of them, each with
    /// `check_ins` check-ins.
    City { people: usize, check_ins: usize },
    /// Every weekly trajectory of the real check-ins the study was given (`--real`).
    Real,
}

/// One point: a population and the seed of its draws (and, for the city, of its people).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub seed: u64,
    pub source: Source,
}

/// ε_p's figures at one resolution and p: the people's mean share of draws that single them
/// out, its 95% interval over the people, how many people had p points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    pub epsilon: f64,
    pub half_width: f64,
    pub people: usize,
}

/// What a point gives: a [`Cell`] for each resolution (rows, [`RESOLUTIONS`]) and p (columns,
/// [`POINTS`]), `None` where nobody has p points; and the people measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub people: usize,
    pub cells: Vec<Vec<Option<Cell>>>,
}

/// The study: the city's people on the scale's seeds and, given real check-ins (each weekly
/// trajectory a person, as `reproduce --real` reads them), those too.
pub struct Unicity {
    pub scale: Scale,
    pub real: Option<Arc<Vec<Vec<Fix>>>>,
}

/// The synthetic city's `people` check-in users of `seed`, `check_ins` each.
pub fn city_people(people: usize, check_ins: usize, seed: u64) -> Vec<Vec<Fix>> {
    let roads = traces::streets(None, seed);
    traces::population(TraceKind::CheckIn, &roads, people, check_ins, seed)
}

/// Every weekly trajectory of the real check-ins as a person's check-ins (`--real`).
pub fn people(data: &CheckIns) -> Vec<Vec<Fix>> {
    data.trajectories
        .iter()
        .map(|t| {
            t.check_ins
                .iter()
                .map(|c| Fix {
                    time: c.time,
                    at: c.at,
                })
                .collect()
        })
        .collect()
}

/// ε_p of `people` (their check-ins) at every resolution and p, drawn from `seed`.
pub fn measure(people: &[Vec<Fix>], seed: u64) -> Outcome {
    let cells = RESOLUTIONS
        .iter()
        .map(|&r| {
            let r = resolution(r);
            let population = Population::new(
                people
                    .iter()
                    .map(|fixes| points(fixes.iter().map(|f| (f.at, f.time)), &r))
                    .collect(),
            );
            POINTS
                .iter()
                .map(|&p| {
                    let u = population.unicity(p, DRAWS, seed);
                    Estimate::of(u.shares.iter().copied()).map(|e| Cell {
                        epsilon: e.mean,
                        half_width: e.half_width,
                        people: e.n,
                    })
                })
                .collect()
        })
        .collect();
    Outcome {
        people: people.len(),
        cells,
    }
}

impl Source {
    /// A point's people: the city's of `seed`, or the real ones the study was given.
    pub fn people(
        &self,
        real: Option<&Arc<Vec<Vec<Fix>>>>,
        seed: u64,
    ) -> Result<Arc<Vec<Vec<Fix>>>, String> {
        match *self {
            Source::City { people, check_ins } => {
                Ok(Arc::new(city_people(people, check_ins, seed)))
            }
            Source::Real => real
                .cloned()
                .ok_or_else(|| "internal: a real-data point without the real data (--real)".into()),
        }
    }

    /// The city's people at `scale`: as many as the lab's, with as many check-ins as its
    /// trajectories.
    pub fn city(scale: &Scale) -> Source {
        let config = MobConfig::default();
        Source::City {
            people: scale.users.max(2),
            check_ins: scale.rounds + WINDOW + config.held_out + 1,
        }
    }
}

impl Sweep for Unicity {
    type Config = Point;
    type Outcome = Outcome;

    fn seed(point: &Point) -> u64 {
        point.seed
    }

    fn run(&self, point: &Point) -> Result<Outcome, String> {
        let people = point.source.people(self.real.as_ref(), point.seed)?;
        Ok(measure(&people, point.seed))
    }

    fn tables(&self, runs: &mut dyn Runs<Point, Outcome>) -> Result<Vec<Table>, String> {
        let source = Source::city(&self.scale);
        let city = each(runs, self.scale.seeds(), |seed| Point { seed, source })?;
        let Source::City { people, check_ins } = source else {
            unreachable!("the city's source")
        };
        let mut tables = vec![Table {
            title: format!(
                "Unicity ε_p on the synthetic city (check-in users; {people} people of {check_ins} check-ins each; de Montjoye et al. 2013)"
            ),
            notes: vec![
                format!(
                    "ε_p: the share of people whom p of their points, drawn at random, single out (nobody else holds all p). A point is a cell of the plane and, where time is kept, a bin of the hour of the week. Each person is drawn {DRAWS} times; a cell is the mean over {} worlds (seeds {}–{}) ± its 95% interval.",
                    self.scale.seeds,
                    self.scale.seed,
                    self.scale.seed + self.scale.seeds - 1
                ),
                "The paper (1.5 million people's phone traces, antenna cells, hourly): 4 points single out 95%.".into(),
            ],
            columns: columns(),
            rows: rows(|i, j| {
                let by_seed = city
                    .iter()
                    .filter_map(|o| o.cells.get(i)?.get(j).copied().flatten());
                Estimate::of(by_seed.map(|c| c.epsilon)).map_or("—".into(), |e| e.cell(1, 100.0))
            }),
        }];
        if self.real.is_some() {
            let real = runs.run(Point {
                seed: self.scale.seed,
                source: Source::Real,
            })?;
            tables.push(Table {
                title: format!(
                    "Unicity ε_p on real check-ins (foursquare-nyc: {} weekly trajectories, each read as a person)",
                    real.people
                ),
                notes: vec![
                    format!(
                        "As above, on one data set: a cell is the mean over the people who have p points ± its 95% interval over them, with how many they are; {DRAWS} draws a person (seed {}). A person who checked in over several weeks is several trajectories here, so some people are counted more than once: the share singled out is that of weekly trajectories.",
                        self.scale.seed
                    ),
                ],
                columns: columns(),
                rows: rows(|i, j| match real.cells.get(i).and_then(|r| r.get(j)).copied().flatten() {
                    Some(c) if c.half_width.is_finite() => format!(
                        "{:.1} ± {:.1} ({})",
                        100.0 * c.epsilon,
                        100.0 * c.half_width,
                        c.people
                    ),
                    Some(c) => format!("{:.1} ({})", 100.0 * c.epsilon, c.people),
                    None => "—".into(),
                }),
            });
        }
        Ok(tables)
    }
}

/// A table's rows: a resolution's label, then `cell(resolution, p)` for each p (indices into
/// [`RESOLUTIONS`] and [`POINTS`]).
fn rows(cell: impl Fn(usize, usize) -> String) -> Vec<Vec<String>> {
    RESOLUTIONS
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            let mut row = vec![resolution(r).label()];
            row.extend((0..POINTS.len()).map(|j| cell(i, j)));
            row
        })
        .collect()
}

fn columns() -> Vec<String> {
    let mut c = vec!["Resolution".to_string()];
    c.extend(POINTS.iter().map(|p| format!("ε_{p} (%)")));
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use whereabouts_core::sweep::run_here;

    #[test]
    fn the_quick_study_fills_a_row_per_resolution_and_coarser_cells_single_out_fewer() {
        let study = Unicity {
            scale: Scale::quick(1),
            real: None,
        };
        let tables = run_here(&study, 2, &|_, _| {}).unwrap();
        assert_eq!(tables.len(), 1);
        let t = &tables[0];
        assert_eq!(t.rows.len(), RESOLUTIONS.len());
        assert!(t.rows.iter().all(|r| r.len() == 1 + POINTS.len()), "{t:?}");
        // Every figure a percentage.
        let first = |row: &[String], j: usize| -> f64 {
            row[j].split(' ').next().unwrap().parse().unwrap()
        };
        for row in &t.rows {
            for j in 1..row.len() {
                let v = first(row, j);
                assert!((0.0..=100.0).contains(&v), "{row:?}");
            }
        }
        // Places only at 1 km single out no more people than 100 m and the hour (one point).
        assert!(first(&t.rows[5], 1) <= first(&t.rows[0], 1), "{t:?}");
    }

    #[test]
    fn real_trajectories_are_measured_when_given() {
        let at = |e: f64| whereabouts_core::geo::Metres {
            east: e,
            north: 0.0,
        };
        let fix = |e: f64, time: f64| Fix { time, at: at(e) };
        // Two people share a place at the same hour; the third is alone.
        let people = vec![
            vec![fix(0.0, 0.0), fix(5000.0, 3600.0 * 30.0)],
            vec![fix(10.0, 10.0)],
            vec![fix(9000.0, 0.0)],
        ];
        let o = measure(&people, 1);
        assert_eq!(o.people, 3);
        // 100 m and the hour, one point: person 0 half the time, 1 never, 2 always.
        let c = o.cells[0][0].unwrap();
        assert_eq!(c.people, 3);
        assert!((c.epsilon - (0.5 + 0.0 + 1.0) / 3.0).abs() < 0.1, "{c:?}");
        // Two points: only person 0 has them, and they single it out.
        let c = o.cells[0][1].unwrap();
        assert_eq!((c.people, c.epsilon), (1, 1.0));
        assert!(o.cells[0][2].is_none());
        // Through the study (plan, run, merge), as `--real` runs it: a second table.
        let study = Unicity {
            scale: Scale::quick(1),
            real: Some(Arc::new(people)),
        };
        let tables = run_here(&study, 2, &|_, _| {}).unwrap();
        assert_eq!(tables.len(), 2);
        assert!(
            tables[1].title.contains("3 weekly trajectories"),
            "{}",
            tables[1].title
        );
        assert_eq!(tables[1].rows[0][2], "100.0 (1)", "{:?}", tables[1].rows[0]);
    }
}
