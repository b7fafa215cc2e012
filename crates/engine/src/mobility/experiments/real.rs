//! The Mobility lab's tables on real check-ins (`whereabouts reproduce --lab mobility --real
//! DIR`; docs/reproduce-mobility.md, "On real data (foursquare-nyc)"): [002]'s attacks by round
//! (Table 4), ST-GIA's ablation (Fig. 4) and the defences by ε with their utility (Table 5,
//! Fig. 5), each run's target one weekly trajectory of the Foursquare New York sample
//! ([`crate::real`]). How the file becomes targets, rounds and streets is docs/papers.md, "Real
//! data: foursquare-nyc"; the tables and their 95% intervals are the synthetic ones'.

use super::{MobRuns, Scale, ablation, attacks, defence_tables};
use crate::mobility::config::MobConfig;
use crate::mobility::lstm::WINDOW;
use crate::mobility::traces::{BLOCK_M, Fix, Target, TraceKind};
use crate::real::{CheckIns, FOURSQUARE_NYC, of_seed};
use whereabouts_core::table::Table;

/// The weekly trajectories long enough to be a run's target, and the streets' area.
#[derive(Clone, Debug, PartialEq)]
pub struct RealTargets {
    /// The data set's name, for the headings.
    pub name: &'static str,
    /// The streets' half-width and half-height: the check-ins' extent and a block.
    pub area: [f64; 2],
    /// Each eligible trajectory's `tid` and check-ins, in the order seeds take them.
    pub targets: Vec<(String, Vec<Fix>)>,
    /// Trajectories in the file.
    pub trajectories: usize,
    /// The least check-ins a target has: `rounds` windows of [`WINDOW`] and a label.
    pub points: usize,
}

impl RealTargets {
    /// The targets of `rounds` rounds among `data`'s trajectories; an error when none is long
    /// enough.
    pub fn new(data: &CheckIns, rounds: usize) -> Result<RealTargets, String> {
        let points = rounds + WINDOW + 1;
        let targets: Vec<(String, Vec<Fix>)> = data
            .long_enough(points)
            .into_iter()
            .map(|t| {
                let fixes = t
                    .check_ins
                    .iter()
                    .map(|c| Fix {
                        time: c.time,
                        at: c.at,
                    })
                    .collect();
                (t.tid.clone(), fixes)
            })
            .collect();
        if targets.is_empty() {
            return Err(format!(
                "{FOURSQUARE_NYC}: no weekly trajectory has the {points} check-ins {rounds} rounds need"
            ));
        }
        Ok(RealTargets {
            name: FOURSQUARE_NYC,
            area: [data.half_w_m + BLOCK_M, data.half_h_m + BLOCK_M],
            targets,
            trajectories: data.trajectories.len(),
            points,
        })
    }

    /// Seed `seed`'s target: its tid and check-ins.
    fn of_seed(&self, seed: u64) -> &(String, Vec<Fix>) {
        let order: Vec<&(String, Vec<Fix>)> = self.targets.iter().collect();
        of_seed(&order, seed).expect("at least one target")
    }

    /// Makes `config` a run on seed `config.seed`'s trajectory over the data's streets.
    pub(super) fn apply(&self, config: &mut MobConfig) {
        config.data = TraceKind::CheckIn;
        config.target = Target::Fixes {
            fixes: self.of_seed(config.seed).1.clone(),
        };
        config.area = Some(self.area);
    }

    /// What every real-data table says about its data.
    fn note(&self, scale: &Scale) -> String {
        let by_seed: Vec<String> = scale
            .seeds()
            .map(|s| {
                let (tid, fixes) = self.of_seed(s);
                format!("seed {s}: tid {tid} ({} check-ins)", fixes.len())
            })
            .collect();
        format!(
            "On real data ({}): each weekly trajectory (tid) is a person, its check-ins in time order one point each (no resampling, a repeated timestamp kept once). A run's target is a trajectory with at least {} check-ins ({} rounds of windows of {WINDOW} and a label; {} of the file's {} trajectories), one per seed — {}; the check-ins after its training ones are its held-out windows (up to 20). Positions are metres on one local projection of the check-ins' extent; the streets (the road mapping, GeoGI's junctions, PGEM's graph distance) are the engine's synthetic {BLOCK_M:.0} m grid laid over that extent, ±{:.1} × ±{:.1} km, since no map of New York's streets is at hand: a real check-in lies within about half a block of a street, not on one. One client, as the authors' code (docs/papers.md, \"Real data: foursquare-nyc\").",
            self.name,
            self.points,
            scale.rounds,
            self.targets.len(),
            self.trajectories,
            by_seed.join(", "),
            self.area[0] / 1000.0,
            self.area[1] / 1000.0,
        )
    }
}

/// The real-data tables: the attacks by round, the ablation, the defences by ε and their
/// utility, each noted with its data.
pub(super) fn tables(
    scale: &Scale,
    real: &RealTargets,
    runs: &mut MobRuns,
) -> Result<Vec<Table>, String> {
    let data = TraceKind::CheckIn;
    let mut tables = vec![attacks(scale, data, runs)?, ablation(scale, &[data], runs)?];
    let (by_epsilon, utility) = defence_tables(scale, data, runs)?;
    tables.push(by_epsilon);
    tables.push(utility);
    for t in &mut tables {
        t.notes.push(real.note(scale));
    }
    Ok(tables)
}
