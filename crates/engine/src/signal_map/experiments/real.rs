//! [000]'s tables on real drive traces (`whereabouts reproduce --real DIR`; docs/reproduce.md,
//! "On real data (5g-cork)"): the tables of the synthetic `reproduce` that attack one user
//! alone — the round length T (Figs. 4–5), the model's start, Table 2 (Diverse Batch) and the
//! defences (Fig. 15) — with the findings check read from them, each run on the phone's
//! readings of one real cell ([`crate::signal_map::real`]: the world of seed `s` is the `s`-th
//! largest cell) instead of the campus world's user 0.
//!
//! Left out: Table 3 and the co-participants table, which need several users (finding 8), and
//! one phone is one user; the studies of DLG's start, the same batch and the training, which
//! place starts on the campus world's grid, repeat a synthetic user's round (refused with
//! imported data) or sweep the training beyond [000]'s tables; and Insight I3 against the
//! FedAvg-aware server (beyond [000]), which replays every local step of a round: a real
//! cell's rounds hold thousands of one-second readings, so its runs take minutes each where the
//! whole table of one-user runs takes seconds (docs/papers.md §3a, "Real data: 5g-cork").

use super::defences::DATA_NOTE;
use super::{
    Outcome, Scale, SignalRuns, Watch, defences, findings, round_length_study, run, starts, table2,
};
use crate::signal_map::real::{CORK_5G, DriveTraces};
use crate::signal_map::scenario::ScenarioConfig;
use std::sync::Arc;
use whereabouts_core::sweep::{Runs, Sweep};
use whereabouts_core::table::Table;

/// `whereabouts reproduce --real DIR`: the tables on the real cells, a cell a seed.
pub struct RealReproduce {
    pub scale: Scale,
    pub data: Arc<DriveTraces>,
}

impl Sweep for RealReproduce {
    type Config = ScenarioConfig;
    type Outcome = Outcome;

    fn seed(config: &ScenarioConfig) -> u64 {
        config.seed
    }

    fn run(&self, config: &ScenarioConfig) -> Result<Outcome, String> {
        run(config.clone())
    }

    fn tables(&self, runs: &mut SignalRuns) -> Result<Vec<Table>, String> {
        tables(&self.scale, &self.data, runs)
    }
}

/// `config` on its seed's real cell: the phone (user 0) alone, its readings in the cell as its
/// data (the world placed around them, the rounds on their timestamps, its test set held out
/// from them).
pub fn on_cell(data: &DriveTraces, mut config: ScenarioConfig) -> Result<ScenarioConfig, String> {
    let cell = data.of_seed(config.seed)?;
    config.imported = Some(cell.trace.clone());
    config.trajectory = None;
    config.world.users = Some(1);
    config.participants = Some(vec![0]);
    config.target = 0;
    Ok(config)
}

/// The runs of a table on the real cells: each configuration moved onto its seed's cell.
struct OnReal<'a, 'b> {
    runs: &'a mut SignalRuns<'b>,
    data: &'a DriveTraces,
}

impl Runs<ScenarioConfig, Outcome> for OnReal<'_, '_> {
    fn run(&mut self, config: ScenarioConfig) -> Result<Outcome, String> {
        self.runs.run(on_cell(self.data, config)?)
    }
}

/// The cells the seeds run on, for every table's note.
fn cells_note(scale: &Scale, data: &DriveTraces) -> Result<String, String> {
    let cells = scale
        .seeds()
        .map(|s| {
            let c = data.of_seed(s)?;
            Ok(format!(
                "seed {s}: {} ({} readings, {} traces, {} days)",
                c.name(),
                c.readings(),
                c.traces,
                c.days
            ))
        })
        .collect::<Result<Vec<String>, String>>()?;
    Ok(format!(
        "On real data ({CORK_5G}): each \"world\" is one real cell's RSRP map, the seed's — {}. The phone is user 0 and trains alone; its readings in the cell are its data (\"no reading\" sentinels left out), on a local plane around them, the rounds of length T cut by their own timestamps, {:.0}% of them held out at random as the test set (docs/papers.md §3a, \"Real data: 5g-cork\"). The intervals are over these cells. The mean-label start (the start table, the defences) is the placed world's synthetic field's mean label, not the readings' mean.",
        cells.join("; "),
        100.0 * ScenarioConfig::default().test_fraction
    ))
}

/// The tables, each headed and noted with its data.
pub fn tables(
    scale: &Scale,
    data: &DriveTraces,
    runs: &mut SignalRuns,
) -> Result<Vec<Table>, String> {
    let note = cells_note(scale, data)?;
    let mut on = OnReal { runs, data };
    let mut w = Watch {
        runs: &mut on,
        stopped: Vec::new(),
    };
    let mut checks = Vec::new();
    let mut out = Vec::new();
    let t = round_length_study(scale, &mut w, &mut checks);
    out.push(w.noted(t)?);
    let t = starts(scale, &mut w);
    out.push(w.noted(t)?);
    let t = table2(scale, &mut w, &mut checks);
    out.push(w.noted(t)?);
    let t = defences(scale, &mut w, &mut checks);
    out.push(w.noted(t)?);
    checks.sort_by_key(|c| c.finding.chars().next());
    out.insert(0, findings::table(&checks, scale.seeds));
    for t in &mut out {
        t.title = format!(
            "{} — on real data ({CORK_5G}, one phone, a cell a seed)",
            t.title.replace("campus, ", "")
        );
        // What the synthetic world's notes say of its GPS and calendar does not hold here.
        t.notes
            .retain(|n| !n.contains("synthetic GPS noise") && !n.starts_with(DATA_NOTE));
        for n in &mut t.notes {
            *n = n.replace(
                "T = 1 hour uses one week of data.",
                "T = 1 hour runs over the whole calendar (the synthetic table's over one week).",
            );
        }
        t.notes.push(note.clone());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal_map::trace::RoundLength;

    /// A cell of node AA read on five days, 40 readings a day one second apart on a short walk,
    /// the RSRP falling eastwards; a second cell on one day (too few to use).
    fn traces() -> DriveTraces {
        let mut text = "Timestamp,Longitude,Latitude,CellID,NetworkMode,RSRP,NODEHEX\n".to_string();
        for day in 11..16 {
            for s in 0..40 {
                let lon = -8.49 + 0.0002 * f64::from(s);
                let rsrp = -80.0 - f64::from(s) / 2.0;
                text += &format!("2019.11.{day}_12.00.{s:02},{lon},51.89,3,LTE,{rsrp},AA\n");
            }
        }
        text += "2019.11.11_13.00.00,-8.40,51.90,7,5G,-90,BB\n";
        DriveTraces::parse(&[("walk.csv".into(), text)]).unwrap()
    }

    #[test]
    fn a_run_on_a_real_cell_is_the_phone_alone_on_its_readings() {
        let data = traces();
        let scale = Scale::quick(1);
        let mut config = super::super::campus(&scale, 2, RoundLength::Day, (None, 1));
        config.world.users = Some(7);
        config.participants = None;
        let config = on_cell(&data, config).unwrap();
        assert_eq!(config.world.users, Some(1));
        assert_eq!(config.participants, Some(vec![0]));
        let o = run(config).unwrap();
        // A round a day with readings, each attacked, on the cell's own test set.
        assert_eq!(o.records.len(), 5);
        assert!(o.records.iter().all(|r| r.points > 0 && r.points <= 40));
        assert!(o.records.iter().all(|r| r.dlg.is_some()));
        let references = o.summary.references.unwrap();
        assert!(references.mean_rmse_db > 0.0 && references.mean_rmse_db < 20.0);
        // The true centroids lie on the walk (about 550 m long), not in a synthetic world.
        for r in &o.records {
            assert!(r.true_centroid.latlon.lat > 51.889 && r.true_centroid.latlon.lat < 51.891);
        }
        // A seed past the cells is refused by name.
        let e = on_cell(
            &data,
            ScenarioConfig {
                seed: 2,
                ..ScenarioConfig::default()
            },
        )
        .unwrap_err();
        assert!(e.contains("seed 2 has none"), "{e}");
        // The tables (planned) say nothing of the synthetic campus's weeks.
        let mut plan = whereabouts_core::sweep::Plan { points: Vec::new() };
        let scale = Scale { seeds: 1, ..scale };
        let planned = tables(&scale, &data, &mut plan).unwrap();
        let defences = planned.last().unwrap();
        assert!(defences.title.starts_with("Defences compared (T = 1 day"));
        assert!(
            defences.notes.iter().all(|n| !n.contains("of the campus")),
            "{:?}",
            defences.notes
        );
    }
}
