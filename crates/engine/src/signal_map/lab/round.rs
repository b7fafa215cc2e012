//! One round of the run: the participants' local updates (an edit's round keeps the others'),
//! FedAvg, the target's update handed to the attacks, then the global model's test RMSE a
//! slice at a time, then the round's record.

use super::attacks::Attack;
use super::{Lab, LabEvent, TargetRound, thinned};
use crate::signal_map::attack::dlg::DlgRun;
use crate::signal_map::attack::objective::Objective;
use crate::signal_map::central_dp::{self, CentralState};
use crate::signal_map::defence::dp::RdpAccountant;
use crate::signal_map::fl::{Federation, Update};
use crate::signal_map::model::Predictor;
use crate::signal_map::scenario::AttackInputs;
use crate::signal_map::secure::{self, Contribution, SecureRound};
use whereabouts_core::privacy::central::RoundFacts;

/// Test points evaluated between two looks at the clock.
const RMSE_CHUNK: usize = 256;

/// The global model's test RMSE, evaluated a slice at a time (the same sum, in the same
/// order, as [`whereabouts_core::metrics::rmse`]).
pub(super) enum Rmse {
    Pending { next: usize, sum: f64 },
    Done(f64),
}

pub(super) struct LabRound {
    pub(super) before: Vec<f32>,
    pub(super) after: Vec<f32>,
    pub(super) updates: Vec<Update>,
    /// Under secure aggregation: the round's secure sum and what the server kept of it.
    pub(super) secure: Option<SecureRound>,
    /// Under secure aggregation: the update the server attacks in place of the target's — the
    /// aggregate w_t − w_{t−1} on the target's round data (the errors stay the visitor's).
    pub(super) seen: Option<Update>,
    /// Under local DP, the target's privacy loss after this round (kept per round, so an edit
    /// that drops later rounds drops their releases too).
    pub(super) spent: RdpAccountant,
    /// Under central DP: the visitor's accountant after this round, the next clip, the record.
    pub(super) central: Option<CentralState>,
    pub(super) rmse: Rmse,
    pub(super) attack: Option<Attack>,
}

impl LabRound {
    pub(super) fn complete(&self) -> bool {
        matches!(self.rmse, Rmse::Done(_)) && matches!(self.attack, None | Some(Attack::Done(_)))
    }
}

impl Lab {
    /// The update the server attacks in round `t`: the target's own, or under secure
    /// aggregation the aggregate it unmasked.
    pub(super) fn attacked(&self, t: usize) -> &Update {
        let round = &self.rounds[t];
        round.seen.as_ref().unwrap_or_else(|| {
            round
                .updates
                .iter()
                .find(|u| u.user == self.config.target)
                .expect("the target took part")
        })
    }

    /// Why the target sent no update in round `t`.
    pub(super) fn absent_because(
        &self,
        t: usize,
        participants: &[u32],
        refused: Option<String>,
    ) -> String {
        let me = self.config.target;
        // The server picks among the users with data, so "no fixes" comes first.
        if self
            .data
            .local_data(me, t, self.federation.config.cumulative)
            .is_empty()
        {
            "you have no fixes in this round".into()
        } else if let Some(why) = refused {
            why
        } else if let (false, Some(dp)) = (participants.contains(&me), &self.config.central_dp) {
            format!(
                "you were not in this round's sample (DP-FedAvg samples each user with probability q = {})",
                dp.sampling_rate
            )
        } else if !participants.contains(&me) {
            "the server did not pick you this round (fraction of users C < 1)".into()
        } else {
            "the defence chose none of your fixes to train on, so your phone sent no update".into()
        }
    }

    /// The participants' local updates in round `t` (FedAvg's ClientUpdate, [000]
    /// Algorithm 1), each trained by `federation` from the global model `start`. `reuse`: the
    /// round as it was before an edit of the target's data; the other participants' updates
    /// in it are still valid and are kept, the target's is trained again.
    pub(super) fn local_updates(
        &self,
        federation: &Federation,
        t: usize,
        start: &[f32],
        participants: &[u32],
        reuse: Option<&LabRound>,
    ) -> Result<Vec<Update>, String> {
        let mut updates = Vec::with_capacity(participants.len());
        for &user in participants {
            let kept = reuse.and_then(|r| {
                (user != self.config.target)
                    .then(|| r.updates.iter().find(|u| u.user == user))
                    .flatten()
            });
            let update = match kept {
                Some(u) => Some(u.clone()),
                None => federation
                    .local_update(&self.data, user, t, start, self.selector.as_ref())
                    .map_err(|(user, e)| format!("round {t}, user {user}: {e}"))?,
            };
            updates.extend(update);
        }
        Ok(updates)
    }

    /// The Sybil server's `count` clients of round `t` ([`secure::sybil`]), each trained by
    /// `federation` from `start` on fixes the server made up.
    pub(super) fn sybils(
        &self,
        federation: &Federation,
        start: &[f32],
        t: usize,
        count: usize,
    ) -> Result<Vec<Contribution>, String> {
        let area = self.world.area();
        (0..count)
            .map(|j| secure::sybil(federation, &self.data, area, start, t, j, self.config.seed))
            .collect()
    }

    /// Round `t` under secure aggregation (Bonawitz et al., CCS 2017, Fig. 4): the `updates` the
    /// phones sent from `start`, with the server's `sybil_count` clients trained by `federation`,
    /// summed by the protocol ([`secure::aggregate`]).
    pub(super) fn secure_sum(
        &self,
        federation: &Federation,
        start: &[f32],
        t: usize,
        updates: &[Update],
        sybil_count: usize,
    ) -> Result<SecureRound, String> {
        let sybils = self.sybils(federation, start, t, sybil_count)?;
        let own: Vec<Contribution> = updates.iter().map(|u| Contribution::of(u, start)).collect();
        secure::aggregate(&own, sybils, t, self.config.seed)
    }

    /// The target's local-DP privacy loss after this round: the rounds before, plus this
    /// round's releases if it sent `target` (its update) under local DP.
    pub(super) fn spent_with(&self, target: Option<&Update>) -> RdpAccountant {
        let mut spent = self.spent();
        if let (Some(dp), Some(u)) = (self.config.defence.dp(), target) {
            dp.spend(
                &mut spent,
                dp.releases(u.batch.len(), &self.config.fl.local),
            );
        }
        spent
    }

    /// Trains round `t` (all earlier rounds trained). `reuse`: the round as it was before an
    /// edit of the target's data, whose other participants' updates are still valid.
    pub(super) fn train_round(
        &mut self,
        t: usize,
        reuse: Option<LabRound>,
        emit: &mut dyn FnMut(LabEvent),
    ) -> Result<(), String> {
        let before = self
            .rounds
            .last()
            .map_or_else(|| self.initial.clone(), |r| r.after.clone());
        // DP-FedAvg samples every user with probability q (Poisson); FedAvg picks ⌈C·K⌉.
        let mut participants = match &self.config.central_dp {
            Some(dp) => dp.sample(&self.users, t, self.config.seed),
            None => self.federation.participants(&self.data, &self.users, t),
        };
        let mut refused = None;
        if let Some(sa) = &self.config.secure_aggregation {
            let cohort = secure::cohort(
                sa,
                participants,
                self.config.target,
                &self.users,
                &self.data,
                t,
                self.config.seed,
            );
            participants = cohort.genuine;
            refused = cohort.refused;
            if let Some(imprint) = sa.imprint.clone() {
                return self.train_malicious_round(
                    t,
                    before,
                    participants,
                    refused,
                    reuse,
                    &imprint,
                    emit,
                );
            }
        }
        let sampled = participants.len();
        let dropped = match &self.config.central_dp {
            Some(dp) => dp.dropouts(&participants, t, self.config.seed),
            None => Vec::new(),
        };
        if dropped.contains(&self.config.target) {
            refused = Some(
                "your phone dropped out after the keys this round (it sent neither its update nor its noise)"
                    .into(),
            );
        }
        participants.retain(|u| !dropped.contains(u));
        let updates =
            self.local_updates(&self.federation, t, &before, &participants, reuse.as_ref())?;
        let mut central = None;
        let (after, secure, seen) = match (&self.config.secure_aggregation, &self.config.central_dp)
        {
            (Some(sa), Some(dp)) => {
                let (_, clip) = self.central_before();
                let sybils = self.sybils(&self.federation, &before, t, sa.sybils)?;
                let sent = participants
                    .iter()
                    .map(|&user| {
                        let delta = updates
                            .iter()
                            .find(|u| u.user == user)
                            .map(|u| Contribution::of(u, &before).delta);
                        (user, delta)
                    })
                    .collect();
                let round = central_dp::round::aggregate(
                    dp,
                    clip,
                    central_dp::round::Phones {
                        sampled,
                        sent,
                        sybils,
                        population: self.users.len(),
                        before: &before,
                    },
                    t,
                    self.config.seed,
                )?;
                let yours_in = updates.iter().any(|u| u.user == self.config.target);
                // A Sybil server picks the cohort: no sampling.
                let accounted_q = dp.accounted_q(yours_in, sa.sybils > 0);
                let facts = RoundFacts {
                    sampled,
                    dropped: dropped.len(),
                    yours_in,
                    clip,
                    clipped: round.clipped,
                    z_present: round.z_present,
                    noise_std: round.noise_std,
                    unclipped_fraction: round.unclipped_fraction,
                    next_clip: round.next_clip,
                };
                let (accounted, _) = self.central_before();
                central = Some(CentralState::after(dp, accounted, facts, accounted_q)?);
                let seen = updates
                    .iter()
                    .find(|u| u.user == self.config.target)
                    .map(|u| Update {
                        params: round.after.clone(),
                        ..u.clone()
                    });
                (round.after, round.secure, seen)
            }
            (Some(sa), None) if !updates.is_empty() => {
                let round = self.secure_sum(&self.federation, &before, t, &updates, sa.sybils)?;
                // The model: w_{t−1} plus the genuine clients' mean change, all the server has.
                let after: Vec<f32> = match &round.genuine {
                    Some((mean, _)) => before.iter().zip(mean).map(|(w, d)| w + d).collect(),
                    None => before.clone(),
                };
                let seen = updates
                    .iter()
                    .find(|u| u.user == self.config.target)
                    .map(|u| Update {
                        params: after.clone(),
                        ..u.clone()
                    });
                (after, Some(round), seen)
            }
            _ => (
                Federation::aggregate(&updates).unwrap_or_else(|| before.clone()),
                None,
                None,
            ),
        };
        let previous = self.previous_reconstruction();
        let target = seen
            .as_ref()
            .or_else(|| updates.iter().find(|u| u.user == self.config.target));
        let spent = self.spent_with(target);
        let inputs = target.map(|u| {
            AttackInputs::new(
                &self.config,
                &self.federation.spec,
                &self.data,
                self.world.area(),
                t,
                &before,
                u,
                previous,
            )
        });
        let absent = target
            .is_none()
            .then(|| self.absent_because(t, &participants, refused));
        emit(LabEvent::Trained {
            round: t,
            absent,
            participants: updates.iter().map(|u| u.user).collect(),
            target: inputs.as_ref().zip(target).map(|(i, u)| TargetRound {
                points: u.round_data.iter().map(|s| s.pos).collect(),
                truth: i.truth,
                analytic: i.analytic,
                dlg_start: i.start,
                steps: thinned(&i.steps),
            }),
        });
        let attack = match (inputs, target) {
            (Some(inputs), Some(update)) => Some(match inputs.start {
                Some(start) => {
                    let mut objective = Objective::new(
                        &self.federation.spec,
                        &inputs.weights,
                        &inputs.g_obs,
                        update.steps,
                    );
                    let run = DlgRun::new(
                        &mut objective,
                        &self.config.attack.settings,
                        &self.data.standardizer,
                        start,
                        self.config.attack.label_prior.of(
                            &self.data,
                            self.config.target,
                            self.config.seed,
                        ),
                    );
                    Attack::Running {
                        inputs: Box::new(inputs),
                        run: Box::new(run),
                        steps: update.steps,
                        millis: 0.0,
                    }
                }
                None => self.after_dlg(Box::new(inputs), None, &before, update),
            }),
            _ => None,
        };
        let rmse = self.unchanged_rmse(&after);
        self.rounds.push(LabRound {
            before,
            after,
            updates,
            secure,
            seen,
            spent,
            central,
            rmse,
            attack,
        });
        Ok(())
    }

    /// The test RMSE of a round's model `after` where the previous round already measured the
    /// same parameters (a round nobody took part in: a long calendar of real traces has many),
    /// else to be measured: the same sum in the same order, so the same value bit for bit.
    pub(super) fn unchanged_rmse(&self, after: &[f32]) -> Rmse {
        match self.rounds.last() {
            Some(LabRound {
                after: previous,
                rmse: Rmse::Done(value),
                ..
            }) if previous.len() == after.len()
                && previous
                    .iter()
                    .zip(after)
                    .all(|(a, b)| a.to_bits() == b.to_bits()) =>
            {
                Rmse::Done(*value)
            }
            _ => Rmse::Pending { next: 0, sum: 0.0 },
        }
    }

    /// Advances round `t` towards complete: its DLG attack first (the reconstruction the
    /// visitor waits for), then the FedAvg-aware attack if the server runs it, then the
    /// model's test RMSE, then the final record.
    pub(super) fn complete_round(
        &mut self,
        t: usize,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(LabEvent),
    ) {
        if matches!(self.rounds[t].attack, Some(Attack::Running { .. })) {
            self.advance_attack(t, now, deadline, emit);
            return;
        }
        if matches!(self.rounds[t].attack, Some(Attack::Simulating { .. })) {
            self.advance_fedavg(t, now, deadline, emit);
            return;
        }
        let round = &mut self.rounds[t];
        if let Rmse::Pending { next, sum } = &mut round.rmse {
            let test = &self.data.test;
            let params = &round.after;
            let end = (*next + RMSE_CHUNK).min(test.len());
            let mut predictor = Predictor::new(&self.federation.spec);
            for s in &test[*next..end] {
                let p = f64::from(predictor.predict(params, s.x));
                *sum += (p - f64::from(s.y)).powi(2);
            }
            *next = end;
            if end == test.len() {
                let value = if test.is_empty() {
                    f64::NAN
                } else {
                    libm::sqrt(*sum / test.len() as f64)
                };
                round.rmse = Rmse::Done(value);
            }
            return;
        }
        let Rmse::Done(rmse_db) = self.rounds[t].rmse else {
            return;
        };
        if let Some(Attack::Imprinted(found)) = &self.rounds[t].attack {
            let record = self.malicious_record(t, (**found).clone(), rmse_db);
            emit(LabEvent::Attacked(Box::new(record.clone())));
            self.rounds[t].attack = Some(Attack::Done(Box::new(record)));
            return;
        }
        if let Some(Attack::Reconstructed {
            inputs,
            dlg,
            fedavg,
        }) = self.rounds[t].attack.take()
        {
            let round = &self.rounds[t];
            let record = self.record(
                &inputs,
                &round.before,
                &round.updates,
                (dlg.map(|d| *d), fedavg.map(|f| f.map(|o| *o))),
                rmse_db,
            );
            emit(LabEvent::Attacked(Box::new(record.clone())));
            self.rounds[t].attack = Some(Attack::Done(Box::new(record)));
        }
    }
}
