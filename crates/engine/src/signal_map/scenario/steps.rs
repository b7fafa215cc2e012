//! The per-round steps every part of a signal-map run shares ([`crate::signal_map::lab::Lab`],
//! the one round pipeline): what the server derives from the target's update before attacking it
//! ([`AttackInputs`]), the stop before the target's DP budget would be exceeded, and the
//! whole-run figures over the round records ([`summarize`]).

use super::{
    DlgOutcome, FedAvgOutcome, FedAvgSummary, Located, RoundRecord, ScenarioConfig, Summary,
};
use crate::signal_map::attack::dlg::{self, DlgResult, InitContext};
use crate::signal_map::attack::fedavg::{FedAvgResult, FedAvgRun};
use crate::signal_map::attack::unroll::{LocalSchedule, Unrolled};
use crate::signal_map::attack::{analytic, observed_gradient};
use crate::signal_map::defence::dp::RdpAccountant;
use crate::signal_map::fl::Update;
use crate::signal_map::model::MlpSpec;
use crate::signal_map::trace::{Dataset, centroid};
use whereabouts_core::geo::Metres;
use whereabouts_core::metrics;
use whereabouts_core::rng::Stream;

/// What the server derives from the target's update of round `t` before attacking it (used by
/// the lab's round pipeline, [`crate::signal_map::lab::Lab`]).
pub(crate) struct AttackInputs {
    pub round: usize,
    pub truth: Metres,
    /// g_obs = (w_before − w_after)/η.
    pub g_obs: Vec<f32>,
    /// ‖w_after − w_before‖₂.
    pub update_norm: f64,
    /// Lemma 1's estimate (also DLG's default starting point).
    pub analytic: Option<Metres>,
    /// Where the dummy gradient is taken (pre- or post-update weights).
    pub weights: Vec<f32>,
    /// DLG's starting point, when DLG runs.
    pub start: Option<Metres>,
    /// The true centroid of each local step's mini-batch (what the FedAvg-aware dummies aim
    /// at; empty for a single step).
    pub steps: Vec<Metres>,
    /// Where the starting points are drawn (the FedAvg-aware attack draws one per dummy).
    pub context: InitContext,
}

impl AttackInputs {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        config: &ScenarioConfig,
        spec: &MlpSpec,
        data: &Dataset,
        area: (Metres, Metres),
        t: usize,
        before: &[f32],
        update: &Update,
        previous: Option<Metres>,
    ) -> Self {
        let truth = centroid(&update.round_data).expect("participants have data");
        let g_obs = observed_gradient(before, &update.params, config.fl.local.learning_rate);
        let update_norm = libm::sqrt(
            before
                .iter()
                .zip(&update.params)
                .map(|(a, b)| f64::from(b - a).powi(2))
                .sum(),
        );
        let analytic = if config.attack.analytic || config.attack.dlg {
            analytic::reconstruct(spec, &g_obs, &data.standardizer)
        } else {
            None
        };
        let settings = &config.attack.settings;
        let start = config.attack.dlg.then(|| {
            let ctx = InitContext {
                area,
                previous,
                true_centroid: Some(truth),
                analytic,
            };
            let mut s = Stream::new(config.seed, &format!("dlg-init-{t}"));
            dlg::initial_point(settings.init, &ctx, &mut s)
        });
        let weights = match settings.weights {
            dlg::DummyWeights::PostUpdate => update.params.clone(),
            dlg::DummyWeights::PreUpdate => before.to_vec(),
        };
        let steps = if update.batch_means.len() > 1 {
            update
                .batch_means
                .iter()
                .map(|m| {
                    data.standardizer
                        .to_metres([f64::from(m[0]), f64::from(m[1])])
                })
                .collect()
        } else {
            Vec::new()
        };
        Self {
            round: t,
            truth,
            g_obs,
            update_norm,
            analytic: analytic.filter(|_| config.attack.analytic),
            weights,
            start,
            steps,
            context: InitContext {
                area,
                previous,
                true_centroid: Some(truth),
                analytic,
            },
        }
    }

    /// The FedAvg-aware attack on this update, ready to run, if the server runs it: the
    /// simulation of the phone's training (B, E, η from the protocol, n from the update) and
    /// the dummies at their starting points. `Err` says why it cannot run.
    pub fn fedavg(
        &self,
        config: &ScenarioConfig,
        spec: &MlpSpec,
        data: &Dataset,
        before: &[f32],
        update: &Update,
    ) -> Option<Result<(Unrolled, FedAvgRun), String>> {
        let cfg = config.attack.fedavg.as_ref()?;
        let local = &config.fl.local;
        let schedule = LocalSchedule::new(
            update.batch.len(),
            local.batch_size,
            local.epochs,
            local.learning_rate,
            cfg.dummies,
        );
        Some(
            Unrolled::new(
                spec,
                before,
                &update.params,
                schedule,
                cfg.label,
                cfg.distance,
            )
            .map(|mut objective| {
                let mut s = Stream::new(config.seed, &format!("fedavg-init-{}", self.round));
                let run = FedAvgRun::new(
                    &mut objective,
                    cfg,
                    &data.standardizer,
                    &self.context,
                    config
                        .attack
                        .label_prior
                        .of(data, config.target, config.seed),
                    &mut s,
                );
                (objective, run)
            }),
        )
    }

    /// The FedAvg-aware result as the round reports it.
    pub fn fedavg_outcome(
        &self,
        data: &Dataset,
        result: FedAvgResult,
        millis: Option<f64>,
    ) -> FedAvgOutcome {
        let step_errors_m: Vec<f64> = self
            .steps
            .iter()
            .zip(&result.dummy_of)
            .map(|(truth, &d)| result.dummies[d].distance(truth))
            .collect();
        FedAvgOutcome {
            reconstruction: self.locate(data, result.position),
            median_step_error_m: metrics::median(&step_errors_m),
            step_errors_m,
            result,
            millis,
        }
    }

    pub fn locate(&self, data: &Dataset, p: Metres) -> Located {
        Located {
            position: p,
            latlon: data.projection.to_latlon(p),
            error_m: p.distance(&self.truth),
        }
    }

    pub fn outcome(&self, data: &Dataset, result: DlgResult, millis: Option<f64>) -> DlgOutcome {
        let to_steps: Vec<f64> = self
            .steps
            .iter()
            .map(|s| s.distance(&result.position))
            .collect();
        DlgOutcome {
            reconstruction: self.locate(data, result.position),
            median_step_error_m: metrics::median(&to_steps),
            result,
            millis,
        }
    }

    pub fn record(
        &self,
        data: &Dataset,
        participants: Vec<u32>,
        update: &Update,
        (dlg, fedavg): (Option<DlgOutcome>, Option<Result<FedAvgOutcome, String>>),
        bounds: Option<analytic::Bounds>,
        rmse_db: f64,
    ) -> RoundRecord {
        RoundRecord {
            round: self.round,
            start_unix: data.t0 + self.round as f64 * data.round_s,
            participants,
            points: update.round_data.len(),
            batch_points: update.batch.len(),
            true_centroid: self.locate(data, self.truth),
            dlg,
            fedavg_refused: fedavg.as_ref().and_then(|f| f.as_ref().err().cloned()),
            fedavg: fedavg.and_then(Result::ok),
            analytic: self.analytic.map(|p| self.locate(data, p)),
            bounds,
            rmse_db,
            update_norm: Some(self.update_norm),
            dp_epsilon: None,
            dp_releases: None,
            secure: None,
            central_dp: None,
            imprint: None,
        }
    }
}

/// Why training must stop before the target's next update, if its DP budget would be exceeded
/// (`spent`: the target's privacy loss so far; `points`: its data in the next round, which
/// sets how many local steps, each a release, that round takes).
pub(crate) fn dp_budget_stop(
    config: &ScenarioConfig,
    spent: &RdpAccountant,
    round: usize,
    points: usize,
) -> Option<String> {
    let dp = config.defence.dp()?;
    let budget = dp.budget?;
    let mut after = *spent;
    dp.spend(&mut after, dp.releases(points, &config.fl.local));
    let next = after.epsilon(dp.delta);
    (next > budget).then(|| {
        format!(
            "stopped before round {}: the target's total ε would be {next:.2} > budget {budget} (δ = {})",
            round + 1,
            dp.delta
        )
    })
}

/// Whole-run figures over `records` (see [`Summary`]).
pub(crate) fn summarize(
    config: &ScenarioConfig,
    data: &Dataset,
    area: (Metres, Metres),
    records: &[RoundRecord],
    rounds_run: usize,
) -> Summary {
    let dlg: Vec<&DlgOutcome> = records.iter().filter_map(|r| r.dlg.as_ref()).collect();
    let ok: Vec<&DlgOutcome> = dlg.iter().copied().filter(|d| !d.result.diverged).collect();
    let errors: Vec<f64> = ok.iter().map(|d| d.reconstruction.error_m).collect();
    let analytic: Vec<f64> = records
        .iter()
        .filter_map(|r| r.analytic.as_ref().map(|a| a.error_m))
        .collect();
    let truth: Vec<Metres> = records
        .iter()
        .flat_map(|r| {
            data.local_data(config.target, r.round, false)
                .iter()
                .map(|s| s.pos)
        })
        .collect();
    let recon: Vec<Metres> = ok.iter().map(|d| d.reconstruction.position).collect();
    let mut s = Stream::new(config.seed, "emd");
    let emd_m = metrics::emd(&truth, &recon, &mut s);
    let random_emd_m = if recon.is_empty() {
        None
    } else {
        metrics::random_guess_emd(&truth, recon.len(), area, 5, &mut s)
    };
    Summary {
        rounds: rounds_run,
        attacked_rounds: records.len(),
        median_error_m: metrics::median(&errors),
        mean_error_m: (!errors.is_empty())
            .then(|| errors.iter().sum::<f64>() / errors.len() as f64),
        analytic_median_error_m: metrics::median(&analytic),
        emd_m,
        random_emd_m,
        diverged_percent: (!dlg.is_empty())
            .then(|| 100.0 * (dlg.len() - ok.len()) as f64 / dlg.len() as f64),
        mean_iterations: (!dlg.is_empty()).then(|| {
            dlg.iter().map(|d| d.result.iterations as f64).sum::<f64>() / dlg.len() as f64
        }),
        final_rmse_db: records.last().map(|r| r.rmse_db),
        dp_epsilon: records.last().and_then(|r| r.dp_epsilon),
        dp_releases: records.last().and_then(|r| r.dp_releases),
        stopped: None,
        geoind: match config.defence {
            crate::signal_map::defence::Defence::GeoInd { epsilon_per_m } => Some(Box::new(
                crate::signal_map::defence::geoind::GeoIndLoss::of(
                    epsilon_per_m,
                    &records.iter().map(|r| r.batch_points).collect::<Vec<_>>(),
                    config.fl.cumulative,
                ),
            )),
            _ => None,
        },
        references: None,
        median_step_error_m: metrics::median(
            &dlg.iter()
                .filter_map(|d| d.median_step_error_m)
                .collect::<Vec<_>>(),
        ),
        fedavg: summarize_fedavg(config, &truth, records),
        central_dp: None,
        imprint: crate::signal_map::imprint::ImprintSummary::of(records),
    }
}

/// The FedAvg-aware attack's figures over `records` (`truth`: the target's true locations).
fn summarize_fedavg(
    config: &ScenarioConfig,
    truth: &[Metres],
    records: &[RoundRecord],
) -> Option<FedAvgSummary> {
    let all: Vec<&FedAvgOutcome> = records.iter().filter_map(|r| r.fedavg.as_ref()).collect();
    if all.is_empty() {
        return None;
    }
    let ok: Vec<&FedAvgOutcome> = all.iter().copied().filter(|f| !f.result.diverged).collect();
    let errors: Vec<f64> = ok.iter().map(|f| f.reconstruction.error_m).collect();
    let steps: Vec<f64> = all
        .iter()
        .flat_map(|f| f.step_errors_m.iter().copied())
        .collect();
    let recon: Vec<Metres> = ok.iter().map(|f| f.reconstruction.position).collect();
    let mut s = Stream::new(config.seed, "emd-fedavg");
    Some(FedAvgSummary {
        attacked_rounds: all.len(),
        median_error_m: metrics::median(&errors),
        mean_error_m: (!errors.is_empty())
            .then(|| errors.iter().sum::<f64>() / errors.len() as f64),
        emd_m: metrics::emd(truth, &recon, &mut s),
        diverged_percent: 100.0 * (all.len() - ok.len()) as f64 / all.len() as f64,
        median_step_error_m: metrics::median(&steps),
        mean_iterations: all.iter().map(|f| f.result.iterations as f64).sum::<f64>()
            / all.len() as f64,
    })
}
