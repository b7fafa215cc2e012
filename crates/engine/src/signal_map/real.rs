//! Real drive traces as the Signal map's data (`whereabouts reproduce --real DIR`;
//! docs/papers.md §3a, "Real data: 5g-cork"): the 5g-cork set's CSV traces (Raca et al., ACM
//! MMSys 2020: one phone in Cork logging GPS and its serving cell's RSRP every second, driving
//! and static), read as [000]'s federated signal map needs them. The data are never part of
//! this repository or the site; the command line reads the user's copy where it lies and hands
//! the traces' text here.
//!
//! - **One cell's map.** [000] learns the RSRP field of one cell (§2.1, §3.1: the Campus data's
//!   cell x204, one model per cell). A cell here is the serving cell as the logger names it:
//!   its node (`NODEHEX`), cell id (`CellID`) and network mode (`NetworkMode`: 5G, LTE, HSPA+…);
//!   the operator is one (`Operatorname` B) on nearly every row. Cells are ranked by readings,
//!   and a cell with readings on fewer than [`MIN_DAYS`] days is not used (too few rounds at
//!   T = 1 day to attack). The world of seed `s` is the `s`-th largest usable cell, so the
//!   figures over seeds are over cells, each its own map.
//! - **A user and rounds.** The set is one phone, so the phone is the target (user 0) and the
//!   only participant, as [000]'s campus tables attack user 0 of the Campus data (§4.1, §4.3).
//!   Its readings in the cell are its data, carried as an [`ImportedTrace`] with a signal: the
//!   world is placed around them (placement.rs: a local plane centred on the readings, the
//!   rounds cut by their own timestamps from the UTC midnight before the first), and its test
//!   set is held out from them. The traces' local time (Irish time, UTC in November–February,
//!   when every trace was taken) is read as UTC.
//! - **What is left out, counted.** RSRP at or below [`NO_READING_DBM`] is the logger's "no
//!   reading" sentinel (−200 dBm), not a measurement; a row without a readable time, position or
//!   RSRP is unreadable; a second logged twice in a cell keeps its first reading (the core
//!   importer's rule for a repeated timestamp).

use crate::signal_map::placement::ImportedTrace;
use std::collections::{BTreeMap, BTreeSet};
use whereabouts_core::import::Fix;
use whereabouts_core::import::time::parse_time;

/// The data set's folder inside `DIR`, as its README names it (the table headings' name).
pub const CORK_5G: &str = "5g-cork";
/// The traces' zip inside `DIR`.
pub const CORK_ZIP: &str = "5g-cork/5G-production-dataset.zip";
/// RSRP at or below this is the logger's "no reading" sentinel (the data's −200 dBm), dBm.
pub const NO_READING_DBM: f64 = -140.0;
/// A cell needs readings on at least this many days to be used.
pub const MIN_DAYS: usize = 5;

/// The columns a trace must have.
const COLUMNS: [&str; 7] = [
    "Timestamp",
    "Longitude",
    "Latitude",
    "NODEHEX",
    "CellID",
    "NetworkMode",
    "RSRP",
];

/// One cell's readings: the phone's data in one seed's world.
#[derive(Clone, Debug, PartialEq)]
pub struct RealCell {
    pub node: String,
    pub cell_id: String,
    pub mode: String,
    /// The phone's readings in the cell, in time order, one per second.
    pub trace: ImportedTrace,
    /// Traces and days with a reading in the cell.
    pub traces: usize,
    pub days: usize,
}

impl RealCell {
    /// "5G cell 11 of node A4DF".
    pub fn name(&self) -> String {
        format!("{} cell {} of node {}", self.mode, self.cell_id, self.node)
    }

    /// Its readings.
    pub fn readings(&self) -> usize {
        self.trace.fixes.len()
    }
}

/// The traces read: every usable cell, and what was left out.
#[derive(Clone, Debug, PartialEq)]
pub struct DriveTraces {
    /// Traces (CSV files) read.
    pub traces: usize,
    /// Data rows in them.
    pub rows: usize,
    /// Rows whose RSRP is the "no reading" sentinel, left out.
    pub sentinels: usize,
    /// Rows without a readable time, position or RSRP, left out.
    pub unreadable: usize,
    /// Second readings of a second already read in the same cell, left out.
    pub repeated: usize,
    /// The usable cells, largest (most readings) first: seed 1's, seed 2's, ….
    pub cells: Vec<RealCell>,
    /// Cells with readings on fewer than [`MIN_DAYS`] days, and their readings.
    pub small_cells: usize,
    pub small_cell_readings: usize,
}

impl DriveTraces {
    /// Reads the traces, each given as (its name in the set, its text); why not, naming the trace
    /// and what is wrong.
    pub fn parse(traces: &[(String, String)]) -> Result<DriveTraces, String> {
        if traces.is_empty() {
            return Err(format!("{CORK_5G}: no CSV trace in the set"));
        }
        type Key = (String, String, String);
        let mut by_cell: BTreeMap<Key, Vec<(Fix, usize)>> = BTreeMap::new();
        let (mut rows, mut sentinels, mut unreadable) = (0, 0, 0);
        for (k, (name, text)) in traces.iter().enumerate() {
            let mut lines = text.lines().enumerate();
            let header = lines
                .next()
                .map(|(_, h)| h)
                .ok_or_else(|| format!("{name}: the trace is empty"))?;
            let names: Vec<&str> = header.split(',').map(str::trim).collect();
            let mut at = [0usize; COLUMNS.len()];
            for (slot, column) in at.iter_mut().zip(COLUMNS) {
                *slot = names.iter().position(|n| *n == column).ok_or_else(|| {
                    format!(
                        "{name}: no “{column}” column (the header is “{header}”): not a 5g-cork trace"
                    )
                })?;
            }
            for (i, line) in lines.filter(|(_, l)| !l.trim().is_empty()) {
                rows += 1;
                let fields: Vec<&str> = line.split(',').map(str::trim).collect();
                let field = |c: usize| fields.get(at[c]).copied().unwrap_or("");
                let number = |c: usize| field(c).parse::<f64>().ok().filter(|v| v.is_finite());
                let (time, lon, lat, rsrp) =
                    (parse_time(field(0)), number(1), number(2), number(6));
                let (Some(time), Some(lon), Some(lat), Some(rsrp)) = (time, lon, lat, rsrp) else {
                    unreadable += 1;
                    continue;
                };
                if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
                    unreadable += 1;
                    continue;
                }
                if rsrp <= NO_READING_DBM {
                    sentinels += 1;
                    continue;
                }
                let key = (field(3).into(), field(4).into(), field(5).into());
                let fix = Fix {
                    time,
                    lat,
                    lon,
                    rsrp_dbm: Some(rsrp),
                    line: i + 1,
                };
                by_cell.entry(key).or_default().push((fix, k));
            }
        }
        let mut repeated = 0;
        let (mut cells, mut small_cells, mut small_cell_readings) = (Vec::new(), 0, 0);
        for ((node, cell_id, mode), mut readings) in by_cell {
            // In time order; a second read twice keeps the first (by trace, then row).
            readings.sort_by(|a, b| a.0.time.total_cmp(&b.0.time));
            let before = readings.len();
            readings.dedup_by(|b, a| b.0.time == a.0.time);
            repeated += before - readings.len();
            let days: BTreeSet<i64> = readings
                .iter()
                .map(|(f, _)| (f.time / 86_400.0).floor() as i64)
                .collect();
            if days.len() < MIN_DAYS {
                small_cells += 1;
                small_cell_readings += readings.len();
                continue;
            }
            let traces: BTreeSet<usize> = readings.iter().map(|(_, k)| *k).collect();
            let name = format!("{CORK_5G}: {mode} cell {cell_id} of node {node}");
            cells.push(RealCell {
                traces: traces.len(),
                days: days.len(),
                trace: ImportedTrace::new(name, readings.into_iter().map(|(f, _)| f).collect()),
                node,
                cell_id,
                mode,
            });
        }
        if cells.is_empty() {
            return Err(format!(
                "{CORK_5G}: no cell has readings on {MIN_DAYS} days or more ({rows} rows in {} traces, {sentinels} “no reading” sentinels, {unreadable} unreadable)",
                traces.len()
            ));
        }
        cells.sort_by(|a, b| {
            b.readings()
                .cmp(&a.readings())
                .then_with(|| (&a.node, &a.cell_id, &a.mode).cmp(&(&b.node, &b.cell_id, &b.mode)))
        });
        Ok(DriveTraces {
            traces: traces.len(),
            rows,
            sentinels,
            unreadable,
            repeated,
            cells,
            small_cells,
            small_cell_readings,
        })
    }

    /// The cell of seed `seed` (1 the largest), or why there is none, naming the seed.
    pub fn of_seed(&self, seed: u64) -> Result<&RealCell, String> {
        usize::try_from(seed)
            .ok()
            .and_then(|s| s.checked_sub(1))
            .and_then(|i| self.cells.get(i))
            .ok_or_else(|| {
                format!(
                    "--seed: {CORK_5G} has {} usable cells (seeds 1–{}, the largest first); seed {seed} has none",
                    self.cells.len(),
                    self.cells.len()
                )
            })
    }

    /// What was read and left out, in one line.
    pub fn summary(&self) -> String {
        format!(
            "{} readings of {} usable cells in {} traces ({} rows; left out: {} “no reading” sentinels (RSRP ≤ {NO_READING_DBM} dBm), {} unreadable rows, {} repeated seconds, {} readings of {} cells with fewer than {MIN_DAYS} days)",
            self.cells.iter().map(RealCell::readings).sum::<usize>(),
            self.cells.len(),
            self.traces,
            self.rows,
            self.sentinels,
            self.unreadable,
            self.repeated,
            self.small_cell_readings,
            self.small_cells,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str =
        "Timestamp,Longitude,Latitude,Speed,Operatorname,CellID,NetworkMode,RSRP,RSRQ,SNR,NODEHEX";

    /// A trace of `rows` "time,lon,lat,cell,mode,rsrp,node" rows.
    fn trace(rows: &[&str]) -> String {
        let mut text = format!("{HEADER}\n");
        for r in rows {
            let f: Vec<&str> = r.split(',').collect();
            text += &format!(
                "{},{},{},0,B,{},{},{},-10,5.0,{}\n",
                f[0], f[1], f[2], f[3], f[4], f[5], f[6]
            );
        }
        text
    }

    /// Cell 3 of node AA on `days` days (one reading at noon), and one day of cell 7.
    fn days(days: u32) -> Vec<(String, String)> {
        let rows: Vec<String> = (1..=days)
            .map(|d| format!("2019.11.{:02}_12.00.00,-8.49,51.89,3,LTE,-80,AA", d + 10))
            .collect();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        vec![
            ("a.csv".into(), trace(&rows)),
            (
                "b.csv".into(),
                trace(&["2019.11.11_09.00.00,-8.40,51.90,7,5G,-90,BB"]),
            ),
        ]
    }

    #[test]
    fn a_cell_is_its_node_id_and_mode_with_sentinels_and_repeats_counted() {
        let mut set = days(5);
        set.push((
            "c.csv".into(),
            trace(&[
                // The same second twice in cell 3: the first (by trace) is kept.
                "2019.11.11_12.00.00,-8.48,51.88,3,LTE,-70,AA",
                // A sentinel, an unreadable RSRP and an unreadable time.
                "2019.11.11_12.00.01,-8.48,51.88,3,LTE,-200,AA",
                "2019.11.11_12.00.02,-8.48,51.88,3,LTE,-,AA",
                "not-a-time,-8.48,51.88,3,LTE,-75,AA",
                // The same cell id on another node is another cell.
                "2019.11.12_12.00.03,-8.48,51.88,3,LTE,-75,CC",
            ]),
        ));
        let d = DriveTraces::parse(&set).unwrap();
        assert_eq!((d.traces, d.rows), (3, 11));
        assert_eq!((d.sentinels, d.unreadable, d.repeated), (1, 2, 1));
        assert_eq!(d.cells.len(), 1);
        let c = &d.cells[0];
        assert_eq!((c.node.as_str(), c.cell_id.as_str()), ("AA", "3"));
        assert_eq!(c.name(), "LTE cell 3 of node AA");
        assert_eq!((c.readings(), c.traces, c.days), (5, 1, 5));
        // Cell 7 of BB and cell 3 of CC have one day each.
        assert_eq!((d.small_cells, d.small_cell_readings), (2, 2));
        // In time order, the first reading of the repeated second kept (a.csv's −80 dBm).
        let fixes = &c.trace.fixes;
        assert!(fixes.windows(2).all(|w| w[0].time < w[1].time));
        assert_eq!(fixes[0].rsrp_dbm, Some(-80.0));
        assert_eq!(fixes[0].time, 1_573_473_600.0, "2019-11-11 12:00 UTC");
        assert!(fixes.iter().all(|f| f.rsrp_dbm.unwrap() > NO_READING_DBM));
        assert!(
            d.summary().contains("1 “no reading” sentinels"),
            "{}",
            d.summary()
        );
    }

    #[test]
    fn seeds_take_the_cells_largest_first_and_a_seed_past_them_is_refused() {
        let mut set = days(6);
        let rows: Vec<String> = (1..=5)
            .map(|d| format!("2019.12.{d:02}_08.00.00,-8.40,51.90,9,5G,-95,DD"))
            .collect();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        set.push(("d.csv".into(), trace(&rows)));
        let d = DriveTraces::parse(&set).unwrap();
        assert_eq!(d.of_seed(1).unwrap().node, "AA");
        assert_eq!(d.of_seed(2).unwrap().node, "DD");
        for seed in [0, 3, u64::MAX] {
            let e = d.of_seed(seed).unwrap_err();
            assert!(
                e.contains("--seed") && e.contains(&format!("seed {seed}")),
                "{e}"
            );
        }
    }

    #[test]
    fn a_set_without_usable_cells_or_columns_is_refused_by_name() {
        let e = DriveTraces::parse(&days(4)).unwrap_err();
        assert!(e.contains("no cell has readings on 5 days"), "{e}");
        let e =
            DriveTraces::parse(&[("x.csv".into(), "time,lat,lon\n1,2,3\n".into())]).unwrap_err();
        assert!(e.contains("x.csv: no “Timestamp” column"), "{e}");
        assert!(
            DriveTraces::parse(&[])
                .unwrap_err()
                .contains("no CSV trace")
        );
    }
}
