//! What the page knows about the running lab: built only from the worker's events.

use whereabouts_core::geo::Metres;
use whereabouts_core::order;
use whereabouts_engine::signal_map::lab::{HeatMap, LabEvent, TargetRound, WorldView, thinned};
use whereabouts_engine::signal_map::scenario::{DlgOutcome, RoundRecord, Summary};
use whereabouts_engine::signal_map::undefended::Comparison;

/// One round as the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundView {
    pub round: usize,
    pub participants: Vec<u32>,
    pub target: Option<TargetRound>,
    /// Why the visitor sent no update this round (then `target` is `None`).
    pub absent: Option<String>,
    /// DLG's path so far (start first).
    pub trail: Vec<Metres>,
    /// DLG's result, once it has finished.
    pub dlg: Option<DlgOutcome>,
    /// The FedAvg-aware attack while it runs (and at its end): the round estimate and each
    /// dummy, a reconstructed mini-batch centroid.
    pub simulated: Option<(Metres, Vec<Metres>)>,
    /// Final results (with the model's test RMSE), once the round is complete.
    pub record: Option<RoundRecord>,
    /// The trajectory changed and this round is being recomputed (drawn faded).
    pub stale: bool,
}

impl RoundView {
    /// The DLG dummy's latest position (final once attacked).
    pub fn dlg_position(&self) -> Option<Metres> {
        match &self.dlg {
            Some(d) => Some(d.reconstruction.position),
            None => self.trail.last().copied(),
        }
    }
}

/// The lab as the page sees it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    pub world: Option<WorldView>,
    pub total_rounds: usize,
    pub initial_rmse_db: Option<f64>,
    pub rounds: Vec<RoundView>,
    /// Latest heat map per round (index = round); `initial_heat` before any round.
    pub heat: Vec<Option<HeatMap>>,
    pub initial_heat: Option<HeatMap>,
    pub summary: Option<Summary>,
    /// Under a defence: the summary beside the same run without it (for the rounds done).
    pub undefended: Option<Comparison>,
}

impl Scene {
    pub fn started(
        world: WorldView,
        total_rounds: usize,
        initial_rmse_db: f64,
        heat: Option<HeatMap>,
    ) -> Self {
        Self {
            world: Some(world),
            total_rounds,
            initial_rmse_db: Some(initial_rmse_db),
            initial_heat: heat,
            ..Self::default()
        }
    }

    pub fn round(&self, t: usize) -> Option<&RoundView> {
        self.rounds.iter().find(|r| r.round == t)
    }

    fn round_mut(&mut self, t: usize) -> Option<&mut RoundView> {
        self.rounds.iter_mut().find(|r| r.round == t)
    }

    /// Applies one lab event.
    pub fn apply(&mut self, event: LabEvent) {
        match event {
            LabEvent::Edited {
                first_changed,
                total_rounds,
            } => {
                self.total_rounds = total_rounds;
                self.rounds.retain(|r| r.round < total_rounds);
                for r in self.rounds.iter_mut().filter(|r| r.round >= first_changed) {
                    r.stale = true;
                }
                self.summary = None;
                self.undefended = None;
            }
            LabEvent::Trained {
                round,
                participants,
                target,
                absent,
            } => {
                let trail = target
                    .as_ref()
                    .and_then(|t| t.dlg_start)
                    .into_iter()
                    .collect();
                let view = RoundView {
                    round,
                    participants,
                    target,
                    absent,
                    trail,
                    dlg: None,
                    simulated: None,
                    record: None,
                    stale: false,
                };
                match self.round_mut(round) {
                    Some(r) => *r = view,
                    None => {
                        self.rounds.push(view);
                        order::sort_by_key(&mut self.rounds, |r| r.round);
                    }
                }
            }
            LabEvent::Progress { round, trail, .. } => {
                if let Some(r) = self.round_mut(round) {
                    r.trail.extend(trail);
                }
            }
            LabEvent::Reconstructed { round, dlg } => {
                if let Some(r) = self.round_mut(round) {
                    r.trail = dlg.result.trail.clone();
                    r.dlg = Some(*dlg);
                }
            }
            LabEvent::Simulated {
                round,
                estimate,
                dummies,
                ..
            } => {
                if let Some(r) = self.round_mut(round) {
                    r.simulated = Some((estimate, dummies));
                }
            }
            LabEvent::Attacked(record) => {
                if let Some(r) = self.round_mut(record.round) {
                    r.dlg = record.dlg.clone();
                    if let Some(f) = &record.fedavg {
                        r.simulated = Some((f.reconstruction.position, thinned(&f.result.dummies)));
                    }
                    r.record = Some(*record);
                }
            }
            // Whole-run bookends: the worker drives the lab in slices and never sends them.
            LabEvent::Started { .. } | LabEvent::Finished(_) => {}
        }
    }

    pub fn set_heat(&mut self, heat: HeatMap) {
        match heat.round {
            None => self.initial_heat = Some(heat),
            Some(t) => {
                if self.heat.len() <= t {
                    self.heat.resize(t + 1, None);
                }
                self.heat[t] = Some(heat);
            }
        }
    }

    /// The heat map to show with round `t` selected (the latest at or before it).
    pub fn heat_for(&self, t: Option<usize>) -> Option<&HeatMap> {
        t.and_then(|t| self.heat.iter().take(t + 1).rev().find_map(|h| h.as_ref()))
            .or(self.initial_heat.as_ref())
    }

    /// Rounds finished (trained and attacked), counted from round 0 without a gap.
    pub fn finished_through(&self) -> usize {
        (0..self.total_rounds)
            .take_while(|&t| {
                self.round(t)
                    .is_some_and(|r| !r.stale && (r.record.is_some() || r.target.is_none()))
            })
            .count()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use whereabouts_engine::signal_map::lab::Lab;
    use whereabouts_engine::signal_map::scenario::{ScenarioConfig, WorldChoice};
    use whereabouts_engine::signal_map::trajectory::TrajectoryPreset;
    use whereabouts_engine::signal_map::world::Preset;

    /// A two-round lab on one synthetic user's campus (shared by the lab's UI tests).
    pub(crate) fn two_round_config(preset: TrajectoryPreset) -> ScenarioConfig {
        ScenarioConfig {
            world: WorldChoice {
                preset: Preset::Campus,
                users: Some(1),
                weeks: Some(1),
                cell: None,
                background: None,
            },
            max_rounds: Some(2),
            trajectory: Some(preset.trajectory(900.0, 850.0)),
            ..ScenarioConfig::default()
        }
    }

    #[test]
    fn the_scene_follows_a_lab_and_an_edit() {
        let config = two_round_config(TrajectoryPreset::Commute);
        let mut lab = Lab::new(config.clone()).unwrap();
        let mut scene = Scene::started(lab.world_view(), 2, 1.0, None);
        lab.want(2);
        lab.finish(&mut |e| scene.apply(e)).unwrap();
        assert_eq!(scene.finished_through(), 2);
        let r1 = scene.round(1).unwrap();
        assert_eq!(
            r1.dlg_position(),
            r1.record
                .as_ref()
                .unwrap()
                .dlg
                .as_ref()
                .map(|d| d.reconstruction.position)
        );
        let mut moved = config.trajectory.unwrap();
        moved.waypoints[12] = Metres::new(0.0, 0.0);
        lab.set_trajectory(moved, &mut |e| scene.apply(e)).unwrap();
        // Round 1 retrained (analytic shown), its DLG pending.
        assert_eq!(scene.finished_through(), 1);
        assert!(scene.round(1).unwrap().record.is_none());
        lab.finish(&mut |e| scene.apply(e)).unwrap();
        assert_eq!(scene.finished_through(), 2);
    }
}
