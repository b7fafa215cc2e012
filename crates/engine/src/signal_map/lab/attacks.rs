//! A round's attacks, resumable between slices: DLG first (the reconstruction the visitor waits
//! for, [000] Algorithm 2), then the FedAvg-aware server when it runs (beyond the paper), then
//! the record once the model's RMSE is in; and the last DLG reconstruction, where the next
//! round's Init::Previous starts.

use super::{Lab, LabEvent, thinned};
use crate::signal_map::attack::analytic;
use crate::signal_map::attack::dlg::DlgRun;
use crate::signal_map::attack::fedavg::FedAvgRun;
use crate::signal_map::attack::objective::Objective;
use crate::signal_map::attack::unroll::Unrolled;
use crate::signal_map::fl::Update;
use crate::signal_map::scenario::{AttackInputs, DlgOutcome, FedAvgOutcome, RoundRecord};
use crate::signal_map::secure::SecureRecord;
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;

/// DLG iterations between two looks at the clock.
const SLICE_ITERATIONS: usize = 16;

/// A round's attacks: DLG, then (when the server runs it) the FedAvg-aware attack, then the
/// record once the model's RMSE is in.
pub(super) enum Attack {
    Running {
        inputs: Box<AttackInputs>,
        run: Box<DlgRun>,
        steps: usize,
        millis: f64,
    },
    Simulating {
        inputs: Box<AttackInputs>,
        dlg: Option<Box<DlgOutcome>>,
        objective: Box<Unrolled>,
        run: Box<FedAvgRun>,
        millis: f64,
    },
    /// Attacks done; the record waits for the RMSE.
    Reconstructed {
        inputs: Box<AttackInputs>,
        dlg: Option<Box<DlgOutcome>>,
        fedavg: Option<Result<Box<FedAvgOutcome>, String>>,
    },
    /// The malicious server's readout (`sees=malicious`); the record waits for the RMSE.
    Imprinted(Box<crate::signal_map::imprint::ImprintRecord>),
    Done(Box<RoundRecord>),
}

impl Lab {
    /// What follows DLG on a round: the FedAvg-aware attack when the server runs it, else the
    /// wait for the RMSE.
    pub(super) fn after_dlg(
        &self,
        inputs: Box<AttackInputs>,
        dlg: Option<Box<DlgOutcome>>,
        before: &[f32],
        update: &crate::signal_map::fl::Update,
    ) -> Attack {
        match inputs.fedavg(
            &self.config,
            &self.federation.spec,
            &self.data,
            before,
            update,
        ) {
            Some(Ok((objective, run))) => Attack::Simulating {
                inputs,
                dlg,
                objective: Box::new(objective),
                run: Box::new(run),
                millis: 0.0,
            },
            Some(Err(why)) => Attack::Reconstructed {
                inputs,
                dlg,
                fedavg: Some(Err(why)),
            },
            None => Attack::Reconstructed {
                inputs,
                dlg,
                fedavg: None,
            },
        }
    }

    pub(super) fn advance_attack(
        &mut self,
        t: usize,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(LabEvent),
    ) {
        let area = self.world.area();
        let round = &mut self.rounds[t];
        let Some(Attack::Running {
            inputs,
            run,
            steps,
            millis,
        }) = round.attack.as_mut()
        else {
            return;
        };
        let settings = &self.config.attack.settings;
        let mut objective = Objective::new(
            &self.federation.spec,
            &inputs.weights,
            &inputs.g_obs,
            *steps,
        );
        let mut trail = Vec::new();
        let mut iteration = run.iterations();
        loop {
            let began = now();
            let finished = run.advance(
                &mut objective,
                settings,
                &self.data.standardizer,
                SLICE_ITERATIONS,
                &mut |it, p, _| {
                    iteration = it;
                    trail.push(p);
                },
            );
            *millis += now() - began;
            if finished || now() >= deadline {
                break;
            }
        }
        if !trail.is_empty() {
            emit(LabEvent::Progress {
                round: t,
                iteration,
                trail,
            });
        }
        if !run.is_finished() {
            return;
        }
        let Some(Attack::Running {
            inputs,
            run,
            millis,
            ..
        }) = round.attack.take()
        else {
            unreachable!("matched above")
        };
        let millis = Some(millis).filter(|_| self.timed);
        let outcome = inputs.outcome(&self.data, run.finish(area), millis);
        emit(LabEvent::Reconstructed {
            round: t,
            dlg: Box::new(outcome.clone()),
        });
        let round = &self.rounds[t];
        let update = self.attacked(t);
        let next = self.after_dlg(inputs, Some(Box::new(outcome)), &round.before, update);
        self.rounds[t].attack = Some(next);
    }

    /// [`advance_attack`](Self::advance_attack) for the FedAvg-aware attack.
    pub(super) fn advance_fedavg(
        &mut self,
        t: usize,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(LabEvent),
    ) {
        let area = self.world.area();
        let std = &self.data.standardizer;
        let Some(settings) = self.config.attack.fedavg.as_ref() else {
            return;
        };
        let Some(Attack::Simulating {
            objective,
            run,
            millis,
            ..
        }) = self.rounds[t].attack.as_mut()
        else {
            return;
        };
        let start = run.iterations();
        loop {
            let began = now();
            // One iteration costs K simulated steps: look at the clock after each.
            let finished = run.advance(objective, settings, std, 1, &mut |_, _, _| {});
            *millis += now() - began;
            if finished || now() >= deadline {
                break;
            }
        }
        // Reported at the trail's pace, and at the end.
        let every = settings.trail_every.max(1);
        if run.iterations() > start
            && (run.is_finished() || run.iterations() / every > start / every)
        {
            emit(LabEvent::Simulated {
                round: t,
                iteration: run.iterations(),
                estimate: run.estimate(std),
                dummies: thinned(&run.dummies(std)),
            });
        }
        if !run.is_finished() {
            return;
        }
        let Some(Attack::Simulating {
            inputs,
            dlg,
            mut objective,
            run,
            millis,
        }) = self.rounds[t].attack.take()
        else {
            unreachable!("matched above")
        };
        let millis = Some(millis).filter(|_| self.timed);
        let result = run.finish(&mut objective, std, area);
        let outcome = inputs.fedavg_outcome(&self.data, result, millis);
        self.rounds[t].attack = Some(Attack::Reconstructed {
            inputs,
            dlg,
            fedavg: Some(Ok(Box::new(outcome))),
        });
    }

    pub(super) fn record(
        &self,
        inputs: &AttackInputs,
        before: &[f32],
        updates: &[Update],
        attacks: (Option<DlgOutcome>, Option<Result<FedAvgOutcome, String>>),
        rmse_db: f64,
    ) -> RoundRecord {
        let update = self.attacked(inputs.round);
        let bounds = if self.config.attack.bounds {
            let mut s = Stream::new(self.config.seed, &format!("bounds-{}", inputs.round));
            analytic::bounds(
                &self.federation.spec,
                before,
                &update.batch,
                &self.data.standardizer,
                &mut s,
            )
        } else {
            None
        };
        let mut record = inputs.record(
            &self.data,
            updates.iter().map(|u| u.user).collect(),
            update,
            attacks,
            bounds,
            rmse_db,
        );
        if let Some(secure) = &self.rounds[inputs.round].secure {
            let own = updates
                .iter()
                .find(|u| u.user == self.config.target)
                .expect("the target took part");
            let mut s = SecureRecord::new(secure, updates, own, before);
            if self.config.central_dp.is_some() {
                // Under DP-FedAvg the server attacks w_t − w_{t−1}, the noised sum over qN.
                s.update_gap = update
                    .params
                    .iter()
                    .zip(before)
                    .zip(&own.params)
                    .map(|((a, b), o)| f64::from(((a - b) - (o - b)).abs()))
                    .fold(0.0, f64::max);
            }
            s.dlg_to_blend_m = record
                .dlg
                .as_ref()
                .filter(|d| !d.result.diverged)
                .map(|d| d.reconstruction.position.distance(&s.blend_centroid));
            s.analytic_to_blend_m = record
                .analytic
                .as_ref()
                .map(|a| a.position.distance(&s.blend_centroid));
            record.secure = Some(s);
        }
        record.central_dp = self.rounds[inputs.round]
            .central
            .as_ref()
            .map(|c| c.record.clone());
        if let Some(dp) = self.config.defence.dp() {
            let spent = &self.rounds[inputs.round].spent;
            record.dp_epsilon = Some(spent.epsilon(dp.delta));
            record.dp_releases = Some(spent.releases());
        }
        record
    }

    /// The last non-diverged DLG reconstruction (Init::Previous).
    pub(super) fn previous_reconstruction(&self) -> Option<Metres> {
        self.rounds.iter().rev().find_map(|r| match &r.attack {
            Some(Attack::Done(record)) => record
                .dlg
                .as_ref()
                .filter(|d| !d.result.diverged)
                .map(|d| d.reconstruction.position),
            _ => None,
        })
    }
}
