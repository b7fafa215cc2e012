//! A round under the malicious server (issue 39 §2, `sees=malicious`): it sends the phones the
//! model with its imprint module in front (Fowl et al., ICLR 2022;
//! [`crate::signal_map::imprint`]), the phones train it as they would the honest one, the round
//! goes through secure aggregation as under `sees=sum` (the core's protocol, a Sybil server's
//! clients too), and the server reads fixes out of the unmasked sum.
//!
//! The server spends the round on the attack: the update is of the model it planted, not of
//! the signal map, so it keeps w_{t−1} as the map (its RMSE does not move) and DLG and Lemma 1,
//! which invert the signal map's update, do not run.

use super::attacks::Attack;
use super::round::{LabRound, Rmse};
use super::{Lab, LabEvent, TargetRound};
use crate::signal_map::fl::Update;
use crate::signal_map::imprint::{Imprint, ImprintConfig, ImprintRecord};
use crate::signal_map::scenario::{Located, RoundRecord};
use crate::signal_map::secure::SecureRecord;
use crate::signal_map::trace::centroid;

impl Lab {
    /// Trains round `t` under the malicious server: `participants` as the cohort rules left
    /// them (`refused`: why the phones did not send), `reuse` as in `train_round`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn train_malicious_round(
        &mut self,
        t: usize,
        before: Vec<f32>,
        participants: Vec<u32>,
        refused: Option<String>,
        reuse: Option<LabRound>,
        config: &ImprintConfig,
        emit: &mut dyn FnMut(LabEvent),
    ) -> Result<(), String> {
        let sybil_count = self
            .config
            .secure_aggregation
            .as_ref()
            .map_or(0, |s| s.sybils);
        let imprint = Imprint::over_area(config.bins, &self.data.standardizer, self.world.area());
        let (spec, planted) = imprint.plant(&self.federation.spec, &before);
        let federation = self.federation.with_spec(spec);
        let updates =
            self.local_updates(&federation, t, &planted, &participants, reuse.as_ref())?;
        let mine = updates.iter().find(|u| u.user == self.config.target);
        let mut secure = None;
        let mut found = None;
        if !updates.is_empty() {
            let round = self.secure_sum(&federation, &planted, t, &updates, sybil_count)?;
            if let (Some(me), Some((mean, weight))) = (mine, &round.genuine) {
                let noise = round
                    .encoding
                    .mean_step(updates.len() + round.sybils.len(), *weight);
                let readouts = imprint.read(&planted, mean, noise);
                let others: Vec<&[_]> = updates
                    .iter()
                    .filter(|u| u.user != self.config.target)
                    .map(|u| u.batch.as_slice())
                    .collect();
                found = Some(ImprintRecord::new(
                    config.bins,
                    &readouts,
                    &self.data.standardizer,
                    &me.batch,
                    &others,
                ));
            }
            secure = Some(round);
        }
        let spent = self.spent_with(mine);
        let absent = mine
            .is_none()
            .then(|| self.absent_because(t, &participants, refused));
        emit(LabEvent::Trained {
            round: t,
            absent,
            participants: updates.iter().map(|u| u.user).collect(),
            target: mine.map(|u| TargetRound {
                points: u.round_data.iter().map(|s| s.pos).collect(),
                truth: centroid(&u.round_data).expect("participants have data"),
                analytic: None,
                dlg_start: None,
                steps: Vec::new(),
            }),
        });
        self.rounds.push(LabRound {
            after: before.clone(),
            before: planted,
            updates,
            secure,
            seen: None,
            spent,
            central: None,
            rmse: Rmse::Pending { next: 0, sum: 0.0 },
            attack: found.map(|f| Attack::Imprinted(Box::new(f))),
        });
        Ok(())
    }

    /// Round `t`'s record under the malicious server, once the model's RMSE is in.
    pub(super) fn malicious_record(
        &self,
        t: usize,
        found: ImprintRecord,
        rmse_db: f64,
    ) -> RoundRecord {
        let round = &self.rounds[t];
        let me: &Update = round
            .updates
            .iter()
            .find(|u| u.user == self.config.target)
            .expect("the target took part");
        let truth = centroid(&me.round_data).expect("participants have data");
        let secure = round
            .secure
            .as_ref()
            .map(|s| SecureRecord::new(s, &round.updates, me, &round.before));
        let (dp_epsilon, dp_releases) = match self.config.defence.dp() {
            Some(dp) => (
                Some(round.spent.epsilon(dp.delta)),
                Some(round.spent.releases()),
            ),
            None => (None, None),
        };
        RoundRecord {
            round: t,
            start_unix: self.data.t0 + t as f64 * self.data.round_s,
            participants: round.updates.iter().map(|u| u.user).collect(),
            points: me.round_data.len(),
            batch_points: me.batch.len(),
            true_centroid: Located {
                position: truth,
                latlon: self.data.projection.to_latlon(truth),
                error_m: 0.0,
            },
            dlg: None,
            fedavg: None,
            fedavg_refused: None,
            analytic: None,
            bounds: None,
            rmse_db,
            update_norm: None,
            dp_epsilon,
            dp_releases,
            secure,
            central_dp: None,
            imprint: Some(found),
        }
    }
}
