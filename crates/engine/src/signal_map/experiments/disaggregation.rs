//! When gradient disaggregation breaks secure aggregation (issue 39 §2; `whereabouts reproduce
//! --study disaggregation`): the server sees only each round's secure sum, over many rounds with
//! random halves of the users, and each user's participation count per window of rounds; it
//! recovers the participation matrix and every user's update from the sums
//! ([`crate::signal_map::disaggregation`]: Lam et al., *Gradient Disaggregation*, ICML 2021),
//! then runs Lemma 1 ([000] §2.2) on the visitor's recovered update.
//!
//! The paper's conditions are the rows: as many rounds as users or more (fewer are refused),
//! counts fine enough to pin each user's column (windows of 4 rounds, or only the run's total),
//! and updates that stay the same between rounds (a model the server holds fixed over one day's
//! data, FedSGD; against a model that moves with FedAvg over a new day each round). Campus, the
//! visitor and 5 or 15 others (the enumeration takes at most
//! [`whereabouts_core::secagg::disaggregation::MAX_USERS`] users), every figure over the
//! scale's worlds with its 95% interval.

use super::{FEDSGD, Scale, base, cell_of};
use crate::signal_map::disaggregation::{self, Plan};
use crate::signal_map::lab::Lab;
use crate::signal_map::scenario::ScenarioConfig;
use crate::signal_map::trace::RoundLength;
use crate::signal_map::world::Preset;
use serde::{Deserialize, Serialize};
use whereabouts_core::sweep::{self, Runs, Sweep};
use whereabouts_core::table::Table;

/// The users of a world (the visitor and the others).
pub const USERS: [u32; 2] = [6, 16];
/// Rounds in a window of the users' participation counts.
pub const WINDOW: usize = 4;

/// One run: a world and what the server does over its rounds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub scenario: ScenarioConfig,
    pub plan: Plan,
}

/// What one run gave: the outcome, or why the server could not disaggregate.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    pub outcome: Option<disaggregation::Outcome>,
    pub refused: Option<String>,
}

/// The campus with `users` users on one week of daily rounds, FedSGD from [000]'s cold start;
/// every user takes part when the plan draws them.
pub fn campus(scale: &Scale, users: u32) -> ScenarioConfig {
    let mut c = base(scale, Preset::Campus, 1, RoundLength::Day, FEDSGD);
    c.world.users = Some(users as usize);
    c.world.background = Some(false);
    c.participants = Some((0..users).collect());
    c
}

/// One run of the study.
pub fn attempt(point: &Point) -> Result<Attempt, String> {
    let lab = Lab::new(point.scenario.clone())?;
    Ok(
        match disaggregation::run(&lab, point.plan, point.scenario.seed) {
            Ok(o) => Attempt {
                outcome: Some(o),
                refused: None,
            },
            Err(why) => Attempt {
                outcome: None,
                refused: Some(why),
            },
        },
    )
}

/// A row's setting: rounds as a multiple of the users (halves for ½), the window, the drift.
struct Row {
    label: &'static str,
    rounds: fn(usize) -> usize,
    window: fn(usize) -> usize,
    drift: bool,
}

const ROWS: [Row; 6] = [
    Row {
        label: "fixed model, ½ × users rounds",
        rounds: |n| n / 2,
        window: |_| WINDOW,
        drift: false,
    },
    Row {
        label: "fixed model, 1 × users rounds",
        rounds: |n| n,
        window: |_| WINDOW,
        drift: false,
    },
    Row {
        label: "fixed model, 2 × users rounds",
        rounds: |n| 2 * n,
        window: |_| WINDOW,
        drift: false,
    },
    Row {
        label: "fixed model, 4 × users rounds",
        rounds: |n| 4 * n,
        window: |_| WINDOW,
        drift: false,
    },
    Row {
        label: "fixed model, 4 × users rounds, only each user's total count",
        rounds: |n| 4 * n,
        window: |r| r,
        drift: false,
    },
    Row {
        label: "FedAvg, a new day each round, 4 × users rounds",
        rounds: |n| 4 * n,
        window: |_| WINDOW,
        drift: true,
    },
];

/// The refusals' reasons in a few words, each once ("—" without one).
fn why(attempts: &[Attempt]) -> String {
    let mut kinds: Vec<String> = Vec::new();
    for reason in attempts.iter().filter_map(|a| a.refused.as_deref()) {
        let kind = if reason.contains("at least as many rounds") {
            "fewer rounds than users".to_string()
        } else if reason.contains("has rank") {
            "the P it found is not of full rank".to_string()
        } else if reason.contains("no 0/1 participation vector") {
            "no 0/1 column fits the counts".to_string()
        } else {
            reason.chars().take(60).collect()
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    if kinds.is_empty() {
        "—".into()
    } else {
        kinds.join("; ")
    }
}

/// The table: every row at every world size.
pub fn table(scale: &Scale, runs: &mut dyn Runs<Point, Attempt>) -> Result<Table, String> {
    let mut rows = Vec::new();
    for users in USERS {
        for row in &ROWS {
            let n = users as usize;
            let rounds = (row.rounds)(n);
            let plan = Plan {
                rounds,
                window: (row.window)(rounds),
                drift: row.drift,
            };
            let attempts = sweep::each(runs, scale.seeds(), |seed| Point {
                scenario: campus(&Scale { seed, ..*scale }, users),
                plan,
            })?;
            let outcomes: Vec<Option<&disaggregation::Outcome>> =
                attempts.iter().map(|a| a.outcome.as_ref()).collect();
            let refused = attempts.iter().filter(|a| a.refused.is_some()).count();
            let exact = outcomes
                .iter()
                .filter(|o| o.is_some_and(|o| o.participation_exact))
                .count();
            let figure = |f: fn(&disaggregation::Outcome) -> Option<f64>| {
                cell_of(outcomes.iter().map(|o| o.and_then(f)), 0)
            };
            rows.push(vec![
                users.to_string(),
                row.label.into(),
                plan.rounds.to_string(),
                plan.window.to_string(),
                format!("{refused} of {}", attempts.len()),
                why(&attempts),
                format!("{exact} of {}", attempts.len()),
                cell_of(
                    outcomes.iter().map(|o| o.map(|o| 100.0 * o.relative_error)),
                    1,
                ),
                figure(|o| o.lemma1_recovered_m),
                figure(|o| o.lemma1_own_m),
                figure(|o| o.lemma1_sum_m),
            ]);
        }
    }
    Ok(Table {
        title: format!(
            "Gradient disaggregation under secure aggregation (campus, T = 1 day, FedSGD, {}; Lam et al. ICML 2021) — Lemma 1 on the recovered update",
            scale.worlds()
        ),
        notes: vec![
            "Each round every user takes part with probability ½; the server sees only the secure sum (the real protocol, Bonawitz et al. CCS 2017) and each user's participation count per window of rounds.".into(),
            "\"Refused\": the server could not disaggregate (fewer rounds than users; a participation matrix it found that is not of full rank, so some updates cannot be told apart; or no 0/1 column of the sums' space fitting a user's counts, as when the updates change between rounds). \"P exact\": it recovered who took part in which round, exactly.".into(),
            "Your update's error: max |recovered − true| over its coordinates, as a % of max |true|. Lemma 1: its guess's distance to your centroid on the day you first took part, from the recovered update, from your own update (what a server without secure aggregation sees), and from the first sum you were in (the blend).".into(),
            "A cell is the mean ± 95% interval over the worlds where the figure exists, with \"(k of n)\" where only some have it.".into(),
        ],
        columns: [
            "Users",
            "What the server does",
            "Rounds",
            "Window",
            "Refused",
            "Why",
            "P exact",
            "Your update's error (%)",
            "Lemma 1, recovered (m)",
            "Lemma 1, your update (m)",
            "Lemma 1, the sum (m)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// `whereabouts reproduce --study disaggregation`: the table on the scale's worlds.
pub struct Disaggregation(pub Scale);

impl Sweep for Disaggregation {
    type Config = Point;
    type Outcome = Attempt;

    fn seed(point: &Point) -> u64 {
        point.scenario.seed
    }

    fn run(&self, point: &Point) -> Result<Attempt, String> {
        attempt(point)
    }

    fn tables(&self, runs: &mut dyn Runs<Point, Attempt>) -> Result<Vec<Table>, String> {
        Ok(vec![table(&self.0, runs)?])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick study: the refusals and the successes fall where the paper says.
    #[test]
    fn too_few_rounds_are_refused_and_a_fixed_model_over_many_rounds_is_disaggregated() {
        let scale = Scale {
            seeds: 1,
            ..Scale::quick(3)
        };
        let few = attempt(&Point {
            scenario: campus(&scale, 6),
            plan: Plan {
                rounds: 3,
                window: WINDOW,
                drift: false,
            },
        })
        .unwrap();
        assert!(few.outcome.is_none(), "{few:?}");
        assert!(few.refused.unwrap().contains("rounds"));
        let many = attempt(&Point {
            scenario: campus(&scale, 6),
            plan: Plan {
                rounds: 24,
                window: WINDOW,
                drift: false,
            },
        })
        .unwrap();
        let o = many.outcome.expect("disaggregated");
        assert!(o.participation_exact, "{o:?}");
        assert!(o.relative_error < 1e-3, "{o:?}");
    }

    #[test]
    fn the_table_has_a_row_per_setting_and_world_size() {
        let scale = Scale {
            seeds: 1,
            ..Scale::quick(3)
        };
        let points = sweep::plan(&Disaggregation(scale)).unwrap();
        assert_eq!(points.len(), USERS.len() * ROWS.len());
        // The plan's points serialise and come back the same (a sweep stores them as JSON).
        let json = serde_json::to_string(&points[0]).unwrap();
        assert_eq!(serde_json::from_str::<Point>(&json).unwrap(), points[0]);
    }
}
