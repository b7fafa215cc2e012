//! One run of the Mobility lab ([002] Algorithms 1 and 2): T rounds of federated training of
//! the next-location LSTM; in round t each phone takes one SGD step on its window t (perturbed
//! first by a location defence, or its gradient noised by DP-SGD); the server averages and
//! attacks the target's update; its reconstructions are calibrated over rounds and scored
//! against the truth. Worked in slices of attack iterations (the page's worker), or to the end
//! (studies, the CLI). ST-GIA's parts are their own files: its start ([`super::start`], §3.1),
//! the road mapping ([`super::mapping`], §3.2) and the calibration ([`super::calibration`],
//! §3.3).
//!
//! Its length (about 830 lines): the round (training, defence, aggregation) and the attack worked
//! in slices share the run's state; what can stand alone (ST-GIA's start, mapping, calibration; the
//! LSTM; the objective) already does.

use super::attack::{Extras, Inverter, Iterate, left_the_city};
use super::calibration;
use super::central_dp::{self, CentralDpRecord, CentralDpSummary, CentralState};
use super::config::{Calibration, Init, Mapping, Method, MobConfig};
use super::defence::{self, Audit, Budget, DPSGD_DELTA, Defence, Domain, DpClip};
use super::lstm::{self, INPUT, OUTPUT, WINDOW, Window};
use super::mapping::{Map, mapper};
use super::metrics::{ait, asr, first_success};
use super::objective::Observed;
use super::pretrain;
use super::secure::{self, SecureRound};
use super::start::start_from;
use super::traces::{self, Fix, Scaler, Target};
use serde::{Deserialize, Serialize};
use whereabouts_core::driver::{Driver, Guess};
use whereabouts_core::geo::Metres;
use whereabouts_core::privacy::gaussian::RdpAccountant;
use whereabouts_core::rng::Stream;
use whereabouts_core::secagg::Sees;
use whereabouts_core::world::roads::RoadNetwork;

#[cfg(test)]
mod central_dp_tests;
#[cfg(test)]
mod secure_tests;
#[cfg(test)]
mod sybil_tests;

/// Candidates a prediction is ranked against for recall@5.
pub const RECALL_K: usize = 5;

/// What one round gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundRecord {
    /// 0-based; the paper's round t + 1.
    pub round: usize,
    /// The true points of window t (t … t+7) and the true label (t+8).
    pub truth: Vec<Metres>,
    pub truth_label: Metres,
    /// The server's reconstruction of them in this round.
    pub reconstruction: Vec<Metres>,
    pub reconstructed_label: Metres,
    /// The causal calibrated estimate of each point of window t (Eq. 9, rounds ≤ t); where no
    /// round that did not diverge recovered the point, the round's own reconstruction.
    pub calibrated: Vec<Metres>,
    /// How many recoveries each calibrated point is the mean of (0: none; the point is not
    /// scored). Empty in records stored before it existed: every point counted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calibrated_from: Vec<usize>,
    /// Each point's error as this round reconstructed it, and calibrated causally, metres.
    pub errors_m: Vec<f64>,
    pub calibrated_errors_m: Vec<f64>,
    /// ASR over window t's scored points ([`RoundRecord::scored_errors`]) with the configured
    /// calibration (all-rounds counts as causal until the run ends; the summary has it); `None`
    /// when none is scored (the attack diverged and no earlier round recovered them).
    pub asr: Option<f64>,
    /// Mean first success iteration of the points that came within τ in this round (none in a
    /// round that diverged).
    pub ait: Option<f64>,
    /// The gradient distance at the last iteration (NaN where the optimiser left the finite
    /// numbers; stored as null).
    #[serde(deserialize_with = "whereabouts_core::nan::f32_or_null")]
    pub distance: f32,
    pub evaluations: usize,
    /// The attack diverged: its optimiser left the finite numbers (the round's result is its
    /// last finite iterate) or it ended outside the city ([`super::attack::CITY_BOX`]). Its
    /// reconstruction is shown but never scored, calibrated from, or started from.
    pub diverged: bool,
    /// The adaptive defence's ε_t, the audit it came from, and what remains after it.
    pub epsilon: Option<f64>,
    pub audit: Option<(f64, f64)>,
    pub remaining: Option<f64>,
    /// What the phone trained on instead of the truth (location defences).
    pub sent: Option<Vec<Metres>>,
    /// DP-SGD: the target's total ε after this round, by Rényi-DP composition of every round's
    /// σ at the update's true sensitivity, read at δ = 10⁻⁵ (it protects the whole trajectory
    /// trained on so far). Not [`RoundRecord::epsilon`], which is PGEM's ε_t.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dp_epsilon: Option<f64>,
    /// DP-SGD: this round's exact ε at δ = 10⁻⁵ for the round's window (9 fixes), at the
    /// update's true sensitivity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dp_round_epsilon: Option<f64>,
    /// DP-SGD as in the authors' code: the ε per round it states (its σ calibrated for a
    /// sensitivity of 0.2); `dp_round_epsilon` is the true one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dp_stated_epsilon: Option<f64>,
    /// When the server sees only the sum: the round's secure aggregation (the phones in it, the
    /// quantisation step); the attack inverted the mean it unmasked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secure: Option<SecureRound>,
    /// Under central DP (`sees = dp`): the round's sample, clip, noise and the target's
    /// user-level ε this round and so far ([`central_dp`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub central_dp: Option<CentralDpRecord>,
}

impl RoundRecord {
    /// Whether calibrated point `k` is scored: some round that did not diverge recovered it.
    pub fn is_calibrated(&self, k: usize) -> bool {
        self.calibrated_from.get(k).is_none_or(|&n| n > 0)
    }

    /// The round's scored errors (metres) without calibration (none of a round that diverged)
    /// or with the causal one (the points some round recovered); `None` for the all-rounds
    /// calibration, which needs the whole run.
    pub fn scored_errors(&self, calibration: Calibration) -> Option<Vec<f64>> {
        match calibration {
            Calibration::Off if self.diverged => Some(Vec::new()),
            Calibration::Off => Some(self.errors_m.clone()),
            Calibration::Causal => Some(
                (0..self.calibrated_errors_m.len())
                    .filter(|&k| self.is_calibrated(k))
                    .map(|k| self.calibrated_errors_m[k])
                    .collect(),
            ),
            Calibration::AllRounds => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum MobEvent {
    /// An attack iteration or a few went by.
    Progress { round: usize, iteration: usize },
    /// A round finished (its last iterate's trail comes separately, on request).
    Round(Box<RoundRecord>),
}

/// The run's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MobSummary {
    pub rounds_done: usize,
    /// Rounds whose attack diverged ([`RoundRecord::diverged`]): left out of every figure below.
    #[serde(default)]
    pub diverged_rounds: usize,
    /// ASR of each round with the configured calibration (all rounds: over the whole run);
    /// `None` for a round with no scored point.
    pub asr: Vec<Option<f64>>,
    pub ait: Vec<Option<f64>>,
    /// Mean ASR over the rounds with scored points, and AIT over the rounds that had a success.
    pub mean_asr: Option<f64>,
    pub mean_ait: Option<f64>,
    /// Every scored point's final error (the CDF), metres.
    pub errors_m: Vec<f64>,
    /// The model's next-location error on held-out windows (mean, metres) and recall@5.
    pub utility_error_m: Option<f64>,
    pub recall_at_5: Option<f64>,
    /// Beside it, on the same windows: the trivial predictor "stay where you are" (the
    /// window's last position as the next), metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stay_error_m: Option<f64>,
    /// The adaptive budget spent so far.
    pub budget: Option<Budget>,
    /// DP-SGD: the target's total ε over the rounds done (Rényi-DP composition, at `dp_delta`),
    /// each round's ε (exact, at the true sensitivity), the ε per round the authors' code states
    /// (its variant only), and δ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dp_epsilon: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dp_round_epsilon: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dp_stated_epsilon: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dp_delta: Option<f64>,
    /// Under central DP (`sees = dp`): the target's user-level ε over the rounds so far and of
    /// the last round, at δ = [`central_dp::CENTRAL_DELTA`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub central_dp: Option<CentralDpSummary>,
}

enum Phase {
    /// The phone attacks its own clean update (the self-audit of the adaptive defence).
    Audit(Inverter, Round),
    /// The server attacks what the phone sent.
    Attack(Inverter, Round),
    Done,
}

/// What a round is working on.
struct Round {
    t: usize,
    /// The target's clean window and label, normalised.
    clean: (Window<f32>, [f32; OUTPUT]),
    /// The target's clean gradient (what the self-audit attacks).
    clean_gradient: Vec<f32>,
    observed: Option<Observed>,
    secure: Option<SecureRound>,
    /// Central DP: the target's accountant, the clip and the record after this round (the
    /// run's when the round ends).
    central: Option<CentralState>,
    epsilon: Option<f64>,
    audit: Option<(f64, f64)>,
    sent: Option<Vec<Metres>>,
}

/// A user in the run.
struct User {
    fixes: Vec<Fix>,
    scaler: Scaler,
    normalised: Vec<[f32; INPUT]>,
    domain: Option<Domain>,
}

pub struct MobLab {
    config: MobConfig,
    roads: RoadNetwork,
    users: Vec<User>,
    params: Vec<f32>,
    phase: Phase,
    budget: Option<Budget>,
    /// The server's reconstructed window and label, round by round (`None` where the attack
    /// diverged).
    recovered: Vec<Option<(Window<f32>, [f32; OUTPUT])>>,
    /// The phone's own last audit reconstruction (the self-audit starts from it).
    audit_previous: Option<(Window<f32>, [f32; OUTPUT])>,
    records: Vec<RoundRecord>,
    /// The last round's whole trail (the page draws it).
    pub last_trail: Vec<Iterate>,
    /// The target's points, normalised (the "own points" mapping).
    own_points: Vec<[f32; INPUT]>,
    /// The round's averaged gradient, applied when the round's attack is done (the attack
    /// inverts at the weights the phones trained from).
    pending_update: Option<Vec<f32>>,
    /// DP-SGD: the target's privacy loss so far (every round's σ at the update's true
    /// sensitivity).
    spent: RdpAccountant,
    /// Central DP: the target's accountant and the clip after the last round.
    central: Option<CentralState>,
}

/// For each point of the window, the first iteration of `trail` that put it within `tau` of
/// `truth` (metres).
fn first_successes(
    trail: &[Iterate],
    scaler: &Scaler,
    truth: &[Metres],
    tau: f64,
) -> Vec<Option<usize>> {
    (0..WINDOW)
        .map(|k| {
            let by_iteration: Vec<f64> = trail
                .iter()
                .map(|it| scaler.denormalise(it.window[k]).distance(&truth[k]))
                .collect();
            first_success(&by_iteration, tau)
        })
        .collect()
}

impl MobLab {
    pub fn config(&self) -> &MobConfig {
        &self.config
    }

    pub fn roads(&self) -> &RoadNetwork {
        &self.roads
    }

    pub fn records(&self) -> &[RoundRecord] {
        &self.records
    }

    /// The target's normalisation (the trail's iterates are normalised).
    pub fn scaler(&self) -> Scaler {
        self.users[0].scaler
    }

    /// The target's places: the distinct points (within 25 m) of their whole recorded
    /// trajectory, the constraint domain PGEM draws from ([002] Def. 4, [`Domain`]).
    pub fn places(&self) -> Vec<Metres> {
        let at: Vec<Metres> = self.users[0].fixes.iter().map(|f| f.at).collect();
        Domain::new(&self.roads, &at).places
    }

    /// Rounds finished so far.
    pub fn rounds_done(&self) -> usize {
        self.records.len()
    }

    /// Each round's reconstructed window, `None` where the attack diverged (what the
    /// calibration averages).
    fn recovered_windows(&self) -> Vec<Option<Window<f32>>> {
        self.recovered.iter().map(|r| r.map(|(w, _)| w)).collect()
    }

    /// The target's recorded trajectory.
    pub fn target(&self) -> &[Fix] {
        &self.users[0].fixes
    }

    /// Users who train (the one client and its co-participants, or everyone).
    fn trainers(&self) -> usize {
        trainers(&self.config)
    }

    /// The road mapping of kind `mapping` (§3.2), in the target's normalised coordinates.
    fn mapper(&self, mapping: Mapping) -> Option<Map<'_>> {
        mapper(mapping, self.users[0].scaler, &self.roads, &self.own_points)
    }

    /// Begins round `t`: the target's clean data and gradient; the self-audit if the defence
    /// asks for one, else the defence at once.
    fn begin_round(&mut self, t: usize) -> Result<Phase, String> {
        let clean = traces::window(&self.users[0].normalised, t).expect("enough points");
        let clean_gradient = lstm::loss_and_gradient(&self.params, &clean.0, &clean.1).1;
        let round = Round {
            t,
            clean,
            clean_gradient,
            observed: None,
            secure: None,
            central: None,
            epsilon: None,
            audit: None,
            sent: None,
        };
        match self.config.defence {
            Defence::Adaptive {
                audit: Audit::SelfAudit,
                ..
            } => {
                let start = start_from(&self.config, t, Init::Code, self.audit_previous, "audit");
                let inv = Inverter::new(
                    Method::StGia.inversion(self.config.attack.iterations),
                    Extras::default(),
                    start,
                    None,
                );
                Ok(Phase::Audit(inv, round))
            }
            _ => self.defend(round, None),
        }
    }

    /// Applies the defence for round `round.t` (with the self-audit's figures if any) and
    /// starts the server's attack on what the target sends.
    fn defend(&mut self, mut round: Round, audit: Option<(f64, f64)>) -> Result<Phase, String> {
        let t = round.t;
        // The round's settings (copies: the config also holds the target's whole trajectory).
        let (defence, attack, seed) = (self.config.defence, self.config.attack, self.config.seed);
        // The adaptive allocation: this round's ε_t from the audit's ASR and AIT.
        let epsilon_t = match defence {
            Defence::Adaptive { audit: kind, .. } => {
                let (a, i) = match kind {
                    Audit::SelfAudit => audit.expect("the self-audit ran"),
                    // The previous round's attack on what was sent; none yet: the worst case.
                    // A diverged attack found nothing: ASR 0, no success within the iterations.
                    Audit::PreviousRound => self.records.last().map_or((1.0, 1.0), |r| {
                        (
                            r.asr.unwrap_or(0.0),
                            r.ait.unwrap_or(attack.iterations as f64),
                        )
                    }),
                };
                round.audit = Some((a, i));
                let budget = self
                    .budget
                    .as_mut()
                    .expect("the adaptive defence has a budget");
                Some(budget.allocate(a, i))
            }
            _ => None,
        };
        round.epsilon = epsilon_t;
        let mut sum = vec![0.0f64; lstm::PARAMETERS];
        let trainers = self.trainers();
        let mut target_gradient = Vec::new();
        // What each phone sends, kept for the secure sum.
        let mut sent: Vec<Vec<f32>> = Vec::new();
        // Central DP: the round's Poisson sample of the trainers, less its dropouts; only they
        // train and send (`central_dp.rs`).
        let dp = self.config.central_dp;
        let central = (self.config.sees == Sees::Dp).then(|| {
            let (sampled, dropped) = central_dp::sample(&dp, trainers, t, seed);
            let senders: Vec<u32> = sampled
                .iter()
                .copied()
                .filter(|u| !dropped.contains(u))
                .collect();
            (sampled.len(), dropped.len(), senders)
        });
        let mut dp_sent: Vec<(u32, Vec<f32>)> = Vec::new();
        // Only the sum: the phones the server puts in the round (every trainer, or a Sybil
        // server's target and as few others as the phones accept: `secure.rs`).
        let (sybils, min_genuine) = (self.config.sybils, self.config.min_genuine);
        let cohort = (self.config.sees == Sees::Sum)
            .then(|| secure::cohort(sybils, min_genuine, trainers, t, seed));
        for u in 0..trainers {
            if let Some((_, _, senders)) = &central
                && !senders.contains(&(u as u32))
            {
                continue;
            }
            if let Some(cohort) = &cohort
                && !cohort.contains(&u)
            {
                continue;
            }
            let mut s = Stream::new(seed, &format!("defence-{u}-{t}"));
            let user = &mut self.users[u];
            let fixes: Vec<Metres> = (t..=t + WINDOW).map(|k| user.fixes[k].at).collect();
            let perturbed: Option<Vec<Metres>> = match defence {
                Defence::GeoI { epsilon } => Some(
                    fixes
                        .iter()
                        .map(|p| defence::geo_i(*p, epsilon, &mut s))
                        .collect(),
                ),
                Defence::GeoGi { epsilon } => Some(
                    fixes
                        .iter()
                        .map(|p| defence::geo_gi(&self.roads, *p, epsilon, &mut s))
                        .collect(),
                ),
                Defence::Adaptive { .. } => {
                    let e = epsilon_t.expect("allocated");
                    let domain = user.domain.as_mut().expect("a domain");
                    Some(
                        fixes
                            .iter()
                            .map(|p| domain.pgem(&self.roads, *p, e, &mut s))
                            .collect(),
                    )
                }
                Defence::None | Defence::DpSgd { .. } => None,
            };
            let (window, label) = match &perturbed {
                Some(p) => (
                    std::array::from_fn(|k| user.scaler.normalise(p[k])),
                    user.scaler.normalise(p[WINDOW]),
                ),
                None => traces::window(&user.normalised, t).expect("enough points"),
            };
            let mut g = if u == 0 && perturbed.is_none() {
                round.clean_gradient.clone()
            } else {
                lstm::loss_and_gradient(&self.params, &window, &label).1
            };
            if let Defence::DpSgd { epsilon, clip } = defence {
                let sigma = defence::dp_sgd(&mut g, epsilon, clip, &mut s);
                if u == 0 {
                    // The target's accountant: this round's σ at the true sensitivity.
                    self.spent.record(sigma, clip.sensitivity());
                }
            }
            // The server's FedAvg: every phone's one step averaged (equal weights).
            for (a, v) in sum.iter_mut().zip(&g) {
                *a += f64::from(*v);
            }
            if u == 0 {
                round.sent = perturbed;
                target_gradient = g.clone();
            }
            match self.config.sees {
                Sees::Sum => sent.push(g),
                Sees::Dp => dp_sent.push((u as u32, g)),
                Sees::Updates => {}
            }
        }
        let n = trainers as f64;
        let mut update: Vec<f32> = sum.iter().map(|v| (v / n) as f32).collect();
        if self.config.sees == Sees::Sum {
            // The server unmasks the sum (less its own phones' words, which it knows): the
            // model's step and the only gradient it can invert.
            sent.extend((0..sybils).map(|j| secure::sybil_gradient(&self.params, t, j, seed)));
            let (mean, info) = secure::mean_less_known(&sent, sybils, t, seed)?;
            update = mean.clone();
            target_gradient = mean;
            round.secure = Some(info);
        }
        if let Some((sampled, dropped, _)) = central {
            // The server gets ḡ = (Σ clip_C(g_k) + noise)/(qN): the model's step and the only
            // gradient it can invert.
            let phones = central_dp::Phones {
                sampled,
                dropped,
                sent: dp_sent,
                population: trainers,
            };
            let r = central_dp::round(&dp, self.central.as_ref(), phones, t, seed)?;
            update = r.average.clone();
            target_gradient = r.average;
            round.secure = r.secure;
            round.central = Some(r.state);
        }
        round.observed = Some(Observed::new(target_gradient));
        let (init, _, _) = attack.effective();
        // A round that diverged gives the next nothing to start from: it starts at random.
        let previous = self.recovered.last().copied().flatten();
        let start = start_from(&self.config, t, init, previous, "dummy");
        let known = attack.method.knows_label().then_some(round.clean.1);
        let extras = Extras {
            output_target: (attack.method == Method::Cpl)
                .then(|| lstm::predict(&self.params, &round.clean.0)),
            tv_weight: if attack.method == Method::InvGrad {
                attack.tv_weight
            } else {
                0.0
            },
        };
        let inv = Inverter::new(
            attack.method.inversion(attack.iterations),
            extras,
            start,
            known,
        );
        self.pending_update = Some(update);
        Ok(Phase::Attack(inv, round))
    }

    /// Scores the server's inversion of round `round.t` and moves the model on.
    fn end_round(&mut self, inv: Inverter, round: Round, emit: &mut dyn FnMut(MobEvent)) {
        let t = round.t;
        let tau = self.config.tau_m;
        let scaler = self.users[0].scaler;
        let (_, _, calibration) = self.config.attack.effective();
        let found = inv.finish();
        self.recovered
            .push((!found.diverged).then_some((found.window, found.label)));
        let truth: Vec<Metres> = (t..t + WINDOW).map(|k| self.users[0].fixes[k].at).collect();
        let truth_label = self.users[0].fixes[t + WINDOW].at;
        let reconstruction: Vec<Metres> = found
            .window
            .iter()
            .map(|p| scaler.denormalise(*p))
            .collect();
        let estimates = calibration::causal(&self.recovered_windows(), t);
        let calibrated: Vec<Metres> = (0..WINDOW)
            .map(|k| match estimates[k] {
                Some(e) => scaler.denormalise(e.at),
                None => reconstruction[k],
            })
            .collect();
        let calibrated_from: Vec<usize> = estimates
            .iter()
            .map(|e| e.map_or(0, |e| e.recoveries))
            .collect();
        let errors_m: Vec<f64> = reconstruction
            .iter()
            .zip(&truth)
            .map(|(a, b)| a.distance(b))
            .collect();
        let calibrated_errors_m: Vec<f64> = calibrated
            .iter()
            .zip(&truth)
            .map(|(a, b)| a.distance(b))
            .collect();
        let firsts = first_successes(&found.trail, &scaler, &truth, tau);
        let mut record = RoundRecord {
            round: t,
            truth,
            truth_label,
            reconstruction,
            reconstructed_label: scaler.denormalise(found.label),
            calibrated,
            calibrated_from,
            asr: None,
            ait: if found.diverged { None } else { ait(&firsts) },
            errors_m,
            calibrated_errors_m,
            distance: found.trail.last().map_or(f32::NAN, |i| i.distance),
            evaluations: found.evaluations,
            diverged: found.diverged,
            epsilon: round.epsilon,
            audit: round.audit,
            remaining: self.budget.as_ref().map(Budget::remaining),
            sent: round.sent,
            dp_epsilon: self.dp_total(),
            dp_round_epsilon: self.dp_round().map(|d| d.0),
            dp_stated_epsilon: self.dp_round().and_then(|d| d.1),
            secure: round.secure,
            central_dp: round.central.as_ref().map(|c| c.record.clone()),
        };
        if round.central.is_some() {
            self.central = round.central;
        }
        record.asr = record
            .scored_errors(calibration.as_recorded())
            .and_then(|e| asr(&e, tau));
        self.last_trail = found.trail;
        if let Some(update) = self.pending_update.take() {
            let lr = self.config.learning_rate;
            for (p, g) in self.params.iter_mut().zip(update) {
                *p -= lr * g;
            }
        }
        emit(MobEvent::Round(Box::new(record.clone())));
        self.records.push(record);
    }

    /// DP-SGD's total ε over the rounds so far (at δ = 10⁻⁵).
    fn dp_total(&self) -> Option<f64> {
        matches!(self.config.defence, Defence::DpSgd { .. })
            .then(|| self.spent.epsilon(DPSGD_DELTA))
    }

    /// DP-SGD's true ε of a round, and the ε the authors' code states for it (its variant).
    fn dp_round(&self) -> Option<(f64, Option<f64>)> {
        match self.config.defence {
            Defence::DpSgd { epsilon, clip } => Some((
                clip.round_epsilon(epsilon),
                (clip == DpClip::PerTensor).then_some(epsilon),
            )),
            _ => None,
        }
    }

    /// The self-audit's figures: ASR over the window's points, AIT (the iteration limit when
    /// nothing came within τ).
    fn audit_figures(&mut self, inv: &Inverter, round: &Round) -> (f64, f64) {
        let scaler = self.users[0].scaler;
        let tau = self.config.tau_m;
        let (w, y) = inv.current();
        // The phone's own audit starts the next from where this one ended, unless it left the
        // city (then at random, as the server's attack).
        self.audit_previous = (!inv.diverged && !left_the_city(&w)).then_some((w, y));
        let truth: Vec<Metres> = (0..WINDOW)
            .map(|k| scaler.denormalise(round.clean.0[k]))
            .collect();
        let errors: Vec<f64> = (0..WINDOW)
            .map(|k| scaler.denormalise(w[k]).distance(&truth[k]))
            .collect();
        let firsts = first_successes(&inv.trail, &scaler, &truth, tau);
        (
            asr(&errors, tau).unwrap_or(0.0),
            ait(&firsts).unwrap_or(self.config.attack.iterations as f64),
        )
    }

    /// The model's next-location error on each trainer's held-out windows (mean metres) and
    /// recall@5: the candidate places are the user's own distinct points; a hit when the place
    /// nearest the true next point is among the five nearest the prediction (our reading of
    /// the paper's recall@5 for a regression model).
    pub fn utility(&self) -> (Option<f64>, Option<f64>) {
        let (mut errors, mut hits, mut n) = (0.0, 0usize, 0usize);
        for user in &self.users[..self.trainers()] {
            let places = Domain::new(
                &self.roads,
                &user.fixes.iter().map(|f| f.at).collect::<Vec<_>>(),
            )
            .places;
            for t in self.config.rounds..self.config.rounds + self.config.held_out {
                let Some((w, y)) = traces::window(&user.normalised, t) else {
                    break;
                };
                let guess = user.scaler.denormalise(lstm::predict(&self.params, &w));
                let truth = user.scaler.denormalise(y);
                errors += guess.distance(&truth);
                let nearest_truth = (0..places.len()).min_by(|&a, &b| {
                    places[a]
                        .distance(&truth)
                        .total_cmp(&places[b].distance(&truth))
                });
                let mut ranked: Vec<usize> = (0..places.len()).collect();
                ranked.sort_by(|&a, &b| {
                    places[a]
                        .distance(&guess)
                        .total_cmp(&places[b].distance(&guess))
                });
                if let Some(k) = nearest_truth {
                    hits += usize::from(ranked.iter().take(RECALL_K).any(|&c| c == k));
                }
                n += 1;
            }
        }
        if n == 0 {
            (None, None)
        } else {
            (Some(errors / n as f64), Some(hits as f64 / n as f64))
        }
    }

    /// The trivial predictor's error on the same held-out windows as [`utility`](Self::utility):
    /// the next position is the window's last ("stay where you are"), mean metres.
    pub fn stay_error(&self) -> Option<f64> {
        let (mut errors, mut n) = (0.0, 0usize);
        for user in &self.users[..self.trainers()] {
            for t in self.config.rounds..self.config.rounds + self.config.held_out {
                let Some((w, y)) = traces::window(&user.normalised, t) else {
                    break;
                };
                let last = user.scaler.denormalise(w[WINDOW - 1]);
                errors += last.distance(&user.scaler.denormalise(y));
                n += 1;
            }
        }
        (n > 0).then(|| errors / n as f64)
    }

    /// Every round's points' errors with the configured calibration, over the rounds done
    /// (all rounds: the whole run so far).
    fn final_errors(&self) -> Vec<Vec<f64>> {
        self.errors_with(self.config.attack.effective().2)
    }

    /// Every round's scored points' errors (metres) with `calibration` (a post-processing: any
    /// of them can be read off one run).
    pub fn errors_with(&self, calibration: Calibration) -> Vec<Vec<f64>> {
        recorded_errors(&self.records, calibration).unwrap_or_else(|| {
            calibration::all_rounds_errors(
                &self.recovered_windows(),
                &self.users[0].scaler,
                self.records.iter().map(|r| (r.round, r.truth.as_slice())),
            )
        })
    }
}

/// Users who train: the one client and its co-participants, or every user of the city.
fn trainers(config: &MobConfig) -> usize {
    config.trainers()
}

/// Every round's scored points' errors (metres) as the records hold them
/// ([`RoundRecord::scored_errors`]): without calibration or with the causal one; `None` for the
/// all-rounds calibration, which needs the whole run.
pub fn recorded_errors(records: &[RoundRecord], calibration: Calibration) -> Option<Vec<Vec<f64>>> {
    records
        .iter()
        .map(|r| r.scored_errors(calibration))
        .collect()
}

impl Driver for MobLab {
    type Config = MobConfig;
    type Event = MobEvent;
    type Summary = MobSummary;

    fn start(config: MobConfig) -> Result<Self, String> {
        config.validate()?;
        let roads = traces::streets(config.area, config.seed);
        let points = config.rounds + WINDOW + config.held_out + 1;
        let count = trainers(&config);
        // The target's own trajectory needs no synthetic one made for it (each user's is drawn
        // from its own stream, so leaving it out changes no other draw).
        let mut traces = match (&config.target, count) {
            (Target::Synthetic, _) | (_, 2..) => {
                traces::population(config.data, &roads, count, points, config.seed)
            }
            _ => vec![Vec::new()],
        };
        match &config.target {
            Target::Synthetic => {}
            Target::Path { waypoints, snap } => {
                traces[0] = traces::path_trace(&roads, waypoints, *snap, points);
            }
            Target::Fixes { fixes } => traces[0] = fixes.clone(),
        }
        let adaptive = matches!(config.defence, Defence::Adaptive { .. });
        let users: Vec<User> = traces
            .into_iter()
            .map(|fixes| {
                let at: Vec<Metres> = fixes.iter().map(|f| f.at).collect();
                let scaler = Scaler::fit(&at);
                User {
                    normalised: at.iter().map(|p| scaler.normalise(*p)).collect(),
                    domain: adaptive.then(|| Domain::new(&roads, &at)),
                    scaler,
                    fixes,
                }
            })
            .collect();
        if users[0].fixes.len() < config.rounds + WINDOW + 1 {
            return Err(format!(
                "data: the target has {} points; {} rounds need {}",
                users[0].fixes.len(),
                config.rounds,
                config.rounds + WINDOW + 1
            ));
        }
        let own_points = users[0].normalised.clone();
        let mut params = lstm::init(&mut Stream::new(config.seed, "mobility-model"));
        if config.pretrain_epochs > 0 {
            let others = pretrain::others(config.data, &roads, config.users, points, config.seed);
            pretrain::train(
                &mut params,
                &pretrain::windows(&others),
                config.pretrain_epochs,
                &mut Stream::new(config.seed, "mobility-pretrain"),
            );
        }
        let budget = config
            .defence
            .epsilon()
            .filter(|_| adaptive)
            .map(Budget::new);
        let mut lab = MobLab {
            config,
            roads,
            users,
            params,
            phase: Phase::Done,
            budget,
            recovered: Vec::new(),
            audit_previous: None,
            records: Vec::new(),
            last_trail: Vec::new(),
            own_points,
            pending_update: None,
            spent: RdpAccountant::default(),
            central: None,
        };
        lab.phase = lab.begin_round(0)?;
        Ok(lab)
    }

    fn work(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(MobEvent),
    ) -> Result<bool, String> {
        loop {
            match std::mem::replace(&mut self.phase, Phase::Done) {
                Phase::Done => return Ok(false),
                Phase::Audit(mut inv, round) => {
                    let map = self.mapper(Mapping::OwnPoints);
                    let clean = Observed::new(round.clean_gradient.clone());
                    while !inv.done() && now() < deadline {
                        inv.step(&self.params, &clean, map.as_deref());
                    }
                    drop(map);
                    if inv.done() {
                        let figures = self.audit_figures(&inv, &round);
                        self.phase = self.defend(round, Some(figures))?;
                    } else {
                        self.phase = Phase::Audit(inv, round);
                        return Ok(true);
                    }
                }
                Phase::Attack(mut inv, round) => {
                    let (_, mapping, _) = self.config.attack.effective();
                    let map = self.mapper(mapping);
                    let observed = round.observed.as_ref().expect("sent");
                    while !inv.done() && now() < deadline {
                        inv.step(&self.params, observed, map.as_deref());
                    }
                    drop(map);
                    emit(MobEvent::Progress {
                        round: round.t,
                        iteration: inv.trail.len(),
                    });
                    if inv.done() {
                        let t = round.t;
                        self.end_round(inv, round, emit);
                        if t + 1 >= self.config.rounds {
                            return Ok(false);
                        }
                        // A call ends with each round: the caller may stop between rounds
                        // (the page's pause) and reads the round's trail before the next.
                        self.phase = self.begin_round(t + 1)?;
                        return Ok(true);
                    } else {
                        self.phase = Phase::Attack(inv, round);
                        return Ok(true);
                    }
                }
            }
            if now() >= deadline {
                return Ok(!matches!(self.phase, Phase::Done));
            }
        }
    }

    fn summary(&self) -> MobSummary {
        let tau = self.config.tau_m;
        let errors = self.final_errors();
        let asr_by_round: Vec<Option<f64>> = errors.iter().map(|e| asr(e, tau)).collect();
        let scored: Vec<f64> = asr_by_round.iter().flatten().copied().collect();
        let aits: Vec<Option<f64>> = self.records.iter().map(|r| r.ait).collect();
        let (utility_error_m, recall_at_5) = if matches!(self.phase, Phase::Done) {
            self.utility()
        } else {
            (None, None)
        };
        MobSummary {
            rounds_done: self.records.len(),
            diverged_rounds: self.records.iter().filter(|r| r.diverged).count(),
            mean_asr: (!scored.is_empty())
                .then(|| scored.iter().sum::<f64>() / scored.len() as f64),
            mean_ait: {
                let hits: Vec<f64> = aits.iter().flatten().copied().collect();
                (!hits.is_empty()).then(|| hits.iter().sum::<f64>() / hits.len() as f64)
            },
            asr: asr_by_round,
            ait: aits,
            errors_m: errors.into_iter().flatten().collect(),
            utility_error_m,
            recall_at_5,
            stay_error_m: utility_error_m.and_then(|_| self.stay_error()),
            budget: self.budget.clone(),
            dp_epsilon: self.dp_total(),
            dp_round_epsilon: self.dp_round().map(|d| d.0),
            dp_stated_epsilon: self.dp_round().and_then(|d| d.1),
            dp_delta: self.dp_round().map(|_| DPSGD_DELTA),
            central_dp: self
                .central
                .as_ref()
                .map(|c| c.summary(&self.config.central_dp, self.records.len())),
        }
    }

    fn guesses(&self) -> Vec<Guess> {
        let name = self.config.attack.method.name().to_lowercase();
        self.records
            .iter()
            .flat_map(|r| {
                let name = name.clone();
                r.calibrated
                    .iter()
                    .zip(&r.truth)
                    .enumerate()
                    .map(move |(k, (g, t))| Guess {
                        round: r.round,
                        user: 0,
                        attack: name.clone(),
                        truth: *t,
                        guess: *g,
                        diverged: !r.is_calibrated(k),
                    })
            })
            .collect()
    }
}
