//! Central differential privacy for a federation of any lab (issue 39 §3): DP-FedAvg over a
//! secure sum, each lab's "secure sum + central DP".
//!
//! **DP-FedAvg** (McMahan, Ramage, Talwar & Zhang, *Learning Differentially Private Recurrent
//! Language Models*, ICLR 2018, Algorithm 1, with every user's weight w_k = 1): each round every
//! one of the N users is in the sample independently with probability q (Poisson sampling);
//! each sampled client clips its update Δ_k (a model change, or a lab's upload) to L2 norm C;
//! the server adds N(0, (z·C)²) to every coordinate of the sum and divides by the *expected*
//! number of clients, qN — the paper's fixed-denominator estimator f̃_f (rather than its f̃_c,
//! which divides by the sample's own weight), which keeps the sensitivity of the average at
//! C/(qN) whatever the sample's size. So the noise on the average has standard deviation
//! z·C/(qN).
//!
//! **Adaptive clipping** (Andrew, Thakkar, McMahan & Ramaswamy, *Differentially Private
//! Learning with Adaptive Clipping*, NeurIPS 2021, Algorithm 1), optional: each sampled client
//! also sends b_k = 1[‖Δ_k‖ ≤ C]; the server forms the noised fraction
//! b̄ = (Σ b_k + N(0, σ_b²))/(qN) and moves the clip geometrically toward the target quantile γ:
//! C ← C·exp(−η_C·(b̄ − γ)), η_C = [`ADAPTIVE_LEARNING_RATE`] (the paper's 0.2). The count
//! costs privacy too: the update's noise multiplier is raised to
//! z_Δ = (z⁻² − (2σ_b)⁻²)^(−1/2) (the paper's, as TFF's `adaptive_clip_noise_params` computes
//! it: the count's sensitivity is ½ once b_k − ½ is summed), so that the two releases together
//! are one Gaussian mechanism with multiplier z.
//! σ_b is the paper's qN/20, raised to z where that is smaller ([`count_noise`], our choice
//! for federations of a few clients: docs/papers.md §3g).
//!
//! **Where the noise is added** ([`NoiseAt`]). *Trusted*: a trusted aggregator (a secure
//! enclave, say) unmasks the secure sum, adds the noise, and only the noised sum leaves it;
//! the server and its attacks see that. *Distributed*: each of the n sampled clients adds
//! N(0, (z·C)²/n) to its own clipped update before masking, so the secure sum carries
//! N(0, (z·C)²) and nobody ever sees the sum without noise. A client that drops out after the
//! keys (round 0, where n is fixed) sends neither its update nor its noise: with d of n gone the
//! sum carries (n − d)/n of the variance, the round's noise multiplier is z·√((n − d)/n), and
//! the accountant records that ([`CentralDpRecord::z_present`]) — the ε shown is for the noise
//! actually in the sum.
//!
//! **Who is protected, and against what** (user level: a neighbouring data set has one user's
//! whole data, or none of it). *Trusted*: the release is the sampled Gaussian mechanism, each
//! round one step with (q, z): the accountant ([`super::rdp`]) records every round, whether
//! the visitor was sampled or not. *Distributed*: the server runs the protocol with the clients
//! it talks to, so it knows who was sampled and sampling amplifies nothing; what is hidden is
//! the content of the visitor's update (its participation is visible, as without DP), so the
//! round is recorded with q = 1 and only when the visitor's client sent.
//!
//! [`noised_round`] is one round: the lab passes its own secure sum (the core's protocol over
//! the clients' words), so every lab's clients go through the real protocol. Tests:
//! `central/tests.rs`; the Signal map's use of it: its `central_dp` module.

use super::rdp::SampledGaussianAccountant;
use crate::error::ConfigError;
use crate::limit::{Limit, closed, positive};
use crate::rng::Stream;
use serde::{Deserialize, Serialize};

/// DP-FedAvg's noise multiplier z (the noise's standard deviation over the clip).
pub const NOISE_MULTIPLIER: Limit = positive(20.0, "between 0 (not included) and 20");
/// DP-FedAvg's sampling rate q.
pub const SAMPLING_RATE: Limit = positive(1.0, "between 0 (not included) and 1");
/// Adaptive clipping's target quantile γ, inside (0, 1).
pub const QUANTILE: Limit = Limit {
    min: 0.0,
    min_exclusive: true,
    max: 0.99,
    whole: false,
    text: "between 0 (not included) and 0.99",
};
/// The chance that a sampled client drops out after the keys.
pub const DROPOUT: Limit = closed(0.0, 0.9, "between 0 and 0.9");

/// δ of every ε the lab reports for central DP (with N of a few users, δ ≪ 1/N).
pub const CENTRAL_DELTA: f64 = 1e-5;
/// η_C, the adaptive clip's learning rate (Andrew et al.'s recommended 0.2).
pub const ADAPTIVE_LEARNING_RATE: f64 = 0.2;

/// Where DP-FedAvg's noise is added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoiseAt {
    /// By a trusted aggregator, once, after the secure sum.
    #[default]
    Trusted,
    /// By every sampled client, 1/n of the variance each, before masking.
    Distributed,
}

crate::choices!(NoiseAt, "where the noise is added", {
    NoiseAt::Trusted => "trusted", "Trusted aggregator";
    NoiseAt::Distributed => "distributed", "Each client (distributed)";
});

/// DP-FedAvg's settings (in every lab, "secure sum + central DP").
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CentralDp {
    /// z, the noise multiplier: the noise's standard deviation over the clip.
    pub noise_multiplier: f64,
    /// C, the clip of every update's L2 norm (the first round's, under adaptive clipping).
    pub clip: f64,
    /// q, the probability that a user is in a round's sample.
    pub sampling_rate: f64,
    /// Adaptive clipping on (else the clip stays C).
    #[serde(default)]
    pub adaptive: bool,
    /// γ, adaptive clipping's target fraction of updates left unclipped.
    #[serde(default = "half")]
    pub target_quantile: f64,
    #[serde(default)]
    pub noise_at: NoiseAt,
    /// The chance that a sampled client drops out after the keys (its update and its noise are
    /// not in the sum).
    #[serde(default)]
    pub dropout: f64,
}

fn half() -> f64 {
    0.5
}

impl Default for CentralDp {
    fn default() -> Self {
        Self {
            noise_multiplier: 1.0,
            clip: 0.1,
            sampling_rate: 1.0,
            adaptive: false,
            target_quantile: 0.5,
            noise_at: NoiseAt::Trusted,
            dropout: 0.0,
        }
    }
}

/// `value` checked against `limit`, or an error naming the setting, the bound and the value.
fn check(field: &str, limit: &Limit, value: f64) -> Result<(), ConfigError> {
    limit.check(field, value).map(|_| ())
}

impl CentralDp {
    /// Every setting within its limit, the clip within `clip` (a lab's own: its updates' scale
    /// and its secure sum's range decide it); an error names the setting and the value.
    pub fn validate(&self, clip: &Limit) -> Result<(), ConfigError> {
        check(
            "central_dp.noise_multiplier",
            &NOISE_MULTIPLIER,
            self.noise_multiplier,
        )?;
        check("central_dp.clip", clip, self.clip)?;
        check(
            "central_dp.sampling_rate",
            &SAMPLING_RATE,
            self.sampling_rate,
        )?;
        check(
            "central_dp.target_quantile",
            &QUANTILE,
            self.target_quantile,
        )?;
        check("central_dp.dropout", &DROPOUT, self.dropout)
    }

    /// Refuses a sample that expects fewer than one of `population` clients a round (qN < 1),
    /// the same rule in every lab (docs/papers.md §3g): the average divides by qN, so below 1
    /// it would multiply the sum — one client's clipped update, and the noise, counted more
    /// than once — and most rounds would have nobody in them. `clients` names them in the
    /// lab's words ("phones a round", "phones a query").
    pub fn validate_sample(&self, population: usize, clients: &str) -> Result<(), ConfigError> {
        let expected = self.expected_clients(population);
        if expected < 1.0 {
            return Err(ConfigError::new(
                "central_dp.sampling_rate",
                format!(
                    "{} expects {expected:.2} of the {population} {clients} (q × N): \
                     DP-FedAvg's average over qN needs at least 1",
                    self.sampling_rate
                ),
            ));
        }
        Ok(())
    }

    /// The sampling rate the visitor's accountant records for a round (`None`: the round
    /// cost the visitor nothing). Trusted: the sample is hidden, every round is a sampled
    /// Gaussian step at q — or at 1 where the server picks the cohort itself (`server_picks`,
    /// a Sybil server). Distributed: the server knows who sent; only the rounds the visitor
    /// sent in count, unamplified.
    pub fn accounted_q(&self, visitor_sent: bool, server_picks: bool) -> Option<f64> {
        match self.noise_at {
            NoiseAt::Trusted if server_picks => Some(1.0),
            NoiseAt::Trusted => Some(self.sampling_rate),
            NoiseAt::Distributed => visitor_sent.then_some(1.0),
        }
    }

    /// qN, the expected number of clients: the average's fixed denominator.
    pub fn expected_clients(&self, population: usize) -> f64 {
        self.sampling_rate * population as f64
    }

    /// The round's Poisson sample of `users`: each independently with probability q.
    pub fn sample(&self, users: &[u32], t: usize, seed: u64) -> Vec<u32> {
        let mut s = Stream::new(seed, &format!("dp-fedavg-sample-round-{t}"));
        users
            .iter()
            .copied()
            .filter(|_| s.chance(self.sampling_rate))
            .collect()
    }

    /// The clients of `sampled` that drop out after the keys in round `t`, each with the
    /// setting's probability.
    pub fn dropouts(&self, sampled: &[u32], t: usize, seed: u64) -> Vec<u32> {
        if self.dropout == 0.0 {
            return Vec::new();
        }
        let mut s = Stream::new(seed, &format!("dp-fedavg-dropout-round-{t}"));
        sampled
            .iter()
            .copied()
            .filter(|_| s.chance(self.dropout))
            .collect()
    }

    /// (z_Δ, σ_b): the update's noise multiplier and the count's noise standard deviation
    /// (`None` with a fixed clip).
    pub fn noise(&self, population: usize) -> (f64, Option<f64>) {
        let z = self.noise_multiplier;
        match self.adaptive {
            false => (z, None),
            true => {
                let sigma_b = count_noise(z, self.expected_clients(population));
                let z_delta = 1.0 / libm::sqrt(1.0 / (z * z) - 1.0 / (4.0 * sigma_b * sigma_b));
                (z_delta, Some(sigma_b))
            }
        }
    }
}

/// σ_b, the noise on the unclipped count: Andrew et al.'s qN/20, but at least z, so that
/// z_Δ = (z⁻² − (2σ_b)⁻²)^(−1/2) exists and is at most 2/√3·z (docs/papers.md §3g).
pub fn count_noise(z: f64, expected_clients: f64) -> f64 {
    (expected_clients / 20.0).max(z)
}

/// Δ clipped to L2 norm `clip` (unchanged within it), and whether it was within.
pub fn clip_update(delta: &[f32], clip: f64) -> (Vec<f32>, bool) {
    let norm = libm::sqrt(delta.iter().map(|d| f64::from(*d).powi(2)).sum::<f64>());
    if norm <= clip {
        (delta.to_vec(), true)
    } else {
        let s = clip / norm;
        (
            delta.iter().map(|d| (f64::from(*d) * s) as f32).collect(),
            false,
        )
    }
}

/// A client's words for DP-FedAvg: its update clipped to `clip`, and under adaptive clipping
/// b_k as one more coordinate; under distributed noise, its share of the noise (standard
/// deviation `share` on the update, `count_share` on b_k) from its own stream. With whether the
/// update was within the clip.
pub fn contribution(
    delta: &[f32],
    clip: f64,
    adaptive: bool,
    noise: Option<(f64, f64, &mut Stream)>,
) -> (Vec<f32>, bool) {
    let (mut clipped, within) = clip_update(delta, clip);
    if adaptive {
        clipped.push(if within { 1.0 } else { 0.0 });
    }
    if let Some((share, count_share, s)) = noise {
        let n = delta.len();
        for (i, v) in clipped.iter_mut().enumerate() {
            let sd = if i < n { share } else { count_share };
            *v += s.gaussian(0.0, sd) as f32;
        }
    }
    (clipped, within)
}

/// What DP-FedAvg did in a round, and what it cost the visitor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CentralDpRecord {
    /// Genuine clients in the round's sample, and how many of them dropped out.
    pub sampled: usize,
    pub dropped: usize,
    /// Whether the visitor's client sent its update this round.
    pub yours_in: bool,
    /// The clip C this round, and how many of the sent updates it shortened.
    pub clip: f64,
    pub clipped: usize,
    /// The noise multiplier actually in the sum (z, or z·√((n − d)/n) after dropouts under
    /// distributed noise).
    pub z_present: f64,
    /// The standard deviation of the noise on each coordinate of the average, z_Δ·C/(qN)
    /// (distributed: of the noise present).
    pub noise_std: f64,
    /// The sampling rate the accountant used this round (q; 1 where the server knows or picks
    /// the sample), or `None` when the round cost the visitor nothing (distributed, not sent).
    pub accounted_q: Option<f64>,
    /// User-level ε of this round alone, and over every round so far, at [`CENTRAL_DELTA`].
    pub epsilon_round: f64,
    pub epsilon_total: f64,
    pub delta: f64,
    /// Under adaptive clipping: the noised unclipped fraction b̄ and the next round's clip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unclipped_fraction: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_clip: Option<f64>,
}

/// The run's central-DP figures: what the page and the tables put beside the lab's utility.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CentralDpSummary {
    pub rounds: usize,
    /// User-level ε over every round so far, and of the last round alone, at `delta`.
    pub epsilon_total: f64,
    pub epsilon_round: f64,
    pub delta: f64,
    pub sampling_rate: f64,
    pub noise_multiplier: f64,
    pub noise_at: NoiseAt,
}

/// What a run keeps after each round under central DP: the visitor's accountant, the next
/// round's clip, and the round's record.
#[derive(Clone, Debug, PartialEq)]
pub struct CentralState {
    pub accountant: SampledGaussianAccountant,
    pub next_clip: f64,
    pub record: CentralDpRecord,
}

impl CentralState {
    /// The run's figures after this round (`rounds` run so far).
    pub fn summary(&self, dp: &CentralDp, rounds: usize) -> CentralDpSummary {
        CentralDpSummary {
            rounds,
            epsilon_total: self.record.epsilon_total,
            epsilon_round: self.record.epsilon_round,
            delta: CENTRAL_DELTA,
            sampling_rate: dp.sampling_rate,
            noise_multiplier: dp.noise_multiplier,
            noise_at: dp.noise_at,
        }
    }
}

/// What a lab's DP-FedAvg round did, for the visitor's record ([`CentralState::after`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundFacts {
    /// Genuine clients in the round's sample, and how many of them dropped out.
    pub sampled: usize,
    pub dropped: usize,
    /// Whether the visitor's client sent its update.
    pub yours_in: bool,
    /// The round's clip, and how many of the sent updates it shortened.
    pub clip: f64,
    pub clipped: usize,
    /// The noise multiplier the round charges the visitor, and the noise's standard deviation
    /// on each coordinate of the average.
    pub z_present: f64,
    pub noise_std: f64,
    /// Adaptive clipping: the noised unclipped fraction, and the next round's clip (the same
    /// clip without it).
    pub unclipped_fraction: Option<f64>,
    pub next_clip: f64,
}

impl<R> NoisedRound<R> {
    /// The round's facts for the visitor's record, with the lab's sample: `sampled` clients,
    /// `dropped` of them silent, the visitor's among the senders or not, at clip `clip`.
    pub fn facts(&self, sampled: usize, dropped: usize, yours_in: bool, clip: f64) -> RoundFacts {
        RoundFacts {
            sampled,
            dropped,
            yours_in,
            clip,
            clipped: self.clipped,
            z_present: self.z_present,
            noise_std: self.noise_std,
            unclipped_fraction: self.unclipped_fraction,
            next_clip: self.next_clip,
        }
    }
}

impl CentralState {
    /// The visitor's accounting after a round, the same in every lab: the accountant of the
    /// rounds before (`before`; `None` at the first) charged for `round` at `accounted_q` and
    /// its multiplier ([`account`]), the next round's clip, and the round's record at
    /// [`CENTRAL_DELTA`].
    pub fn after(
        dp: &CentralDp,
        before: Option<&CentralState>,
        round: RoundFacts,
        accounted_q: Option<f64>,
    ) -> Result<CentralState, String> {
        let mut accountant = before.map(|s| s.accountant.clone()).unwrap_or_default();
        let (epsilon_round, epsilon_total) =
            account(&mut accountant, accounted_q, round.z_present)?;
        Ok(CentralState {
            accountant,
            next_clip: round.next_clip,
            record: CentralDpRecord {
                sampled: round.sampled,
                dropped: round.dropped,
                yours_in: round.yours_in,
                clip: round.clip,
                clipped: round.clipped,
                z_present: round.z_present,
                noise_std: round.noise_std,
                accounted_q,
                epsilon_round,
                epsilon_total,
                delta: CENTRAL_DELTA,
                unclipped_fraction: round.unclipped_fraction,
                next_clip: dp.adaptive.then_some(round.next_clip),
            },
        })
    }
}

/// The visitor's privacy loss after a round: the accountant, and the round's own ε.
pub fn account(
    accountant: &mut SampledGaussianAccountant,
    q: Option<f64>,
    z_present: f64,
) -> Result<(f64, f64), String> {
    let Some(q) = q else {
        return Ok((0.0, accountant.epsilon(CENTRAL_DELTA).0));
    };
    let mut one = SampledGaussianAccountant::default();
    one.record(q, z_present, 1).map_err(|e| e.to_string())?;
    accountant
        .record(q, z_present, 1)
        .map_err(|e| e.to_string())?;
    Ok((
        one.epsilon(CENTRAL_DELTA).0,
        accountant.epsilon(CENTRAL_DELTA).0,
    ))
}

/// A round's clients: who sent what.
pub struct Clients {
    /// Genuine clients in the sample, before dropouts (n: each adds 1/n of the variance).
    pub sampled: usize,
    /// The clients that sent, with their update Δ_k (`None`: nothing this round, a zero
    /// update — a sampled client still sends, and its share of the noise).
    pub sent: Vec<(u32, Option<Vec<f32>>)>,
    /// N, the users the sample is drawn from.
    pub population: usize,
    /// The length of an update.
    pub length: usize,
}

/// What a DP-FedAvg round gives the server, with the secure sum's own record `R`.
#[derive(Clone, Debug)]
pub struct NoisedRound<R> {
    /// (Σ clipped Δ_k + noise)/(qN): what the server adds to its model (or takes as the
    /// round's estimate).
    pub average: Vec<f64>,
    /// What the lab's secure sum returned beside the sum (`None` when no client sent).
    pub secure: Option<R>,
    /// Sent updates the clip shortened.
    pub clipped: usize,
    /// The noise multiplier in the sum (z, or less after dropouts under distributed noise).
    pub z_present: f64,
    /// Standard deviation of the noise on each coordinate of the average.
    pub noise_std: f64,
    /// Adaptive clipping: the noised unclipped fraction b̄, and the next round's clip.
    pub unclipped_fraction: Option<f64>,
    pub next_clip: f64,
}

/// Round `t` of DP-FedAvg at clip `clip` (C_t). `secure_sum` is the lab's secure aggregation
/// of the clients' words (each of `length` + 1 coordinates under adaptive clipping, the noise
/// share in it under distributed noise): it returns their sum — of the genuine clients only,
/// when the lab's server adds clients of its own — and its record. It is called only when some
/// client sent. The same round as [`RoundWords`] makes it, with every word held at once.
pub fn noised_round<R>(
    dp: &CentralDp,
    clip: f64,
    clients: Clients,
    t: usize,
    seed: u64,
    secure_sum: impl FnOnce(Vec<(u32, Vec<f32>)>) -> Result<(Vec<f64>, R), String>,
) -> Result<NoisedRound<R>, String> {
    let mut round = RoundWords::new(
        dp,
        clip,
        clients.sampled,
        clients.population,
        clients.length,
        t,
        seed,
    );
    let mut words = Vec::with_capacity(clients.sent.len());
    for (user, delta) in &clients.sent {
        words.push((*user, round.word(*user, delta.as_deref())?));
    }
    let secure = match words.is_empty() {
        true => None,
        false => Some(secure_sum(words)?),
    };
    round.finish(secure)
}

/// Round `t` of DP-FedAvg with its clients' words made one at a time: [`noised_round`] for a
/// lab whose round is too large to hold every client's words before the secure sum (the
/// Density lab's: a city of 5,001 phones, each with a grid of 16,384 cells, is 328 MB of
/// words), which adds each word to its secure sum as it is made and hands the sum to
/// [`Self::finish`]. The same words, noise and result as [`noised_round`], bit for bit.
#[derive(Clone, Debug)]
pub struct RoundWords {
    dp: CentralDp,
    clip: f64,
    /// Genuine clients in the sample (n), N, and the update's length.
    sampled: usize,
    population: usize,
    length: usize,
    t: usize,
    seed: u64,
    /// z_Δ and σ_b ([`CentralDp::noise`]; σ_b is 0 with a fixed clip).
    z_delta: f64,
    sigma_b: f64,
    /// Words made, and how many of their updates the clip shortened.
    sent: usize,
    clipped: usize,
}

impl RoundWords {
    /// Round `t` at clip `clip` of `sampled` clients drawn from `population`, each update of
    /// `length` numbers.
    pub fn new(
        dp: &CentralDp,
        clip: f64,
        sampled: usize,
        population: usize,
        length: usize,
        t: usize,
        seed: u64,
    ) -> Self {
        let (z_delta, sigma_b) = dp.noise(population);
        Self {
            dp: *dp,
            clip,
            sampled,
            population,
            length,
            t,
            seed,
            z_delta,
            sigma_b: sigma_b.unwrap_or(0.0),
            sent: 0,
            clipped: 0,
        }
    }

    /// The numbers in a word: the update's, and b_k under adaptive clipping.
    pub fn width(&self) -> usize {
        self.length + usize::from(self.dp.adaptive)
    }

    /// The standard deviation of one client's noise share on a coordinate of its update and on
    /// b_k (both 0 when a trusted aggregator adds the noise).
    pub fn shares(&self) -> (f64, f64) {
        match self.dp.noise_at {
            NoiseAt::Trusted => (0.0, 0.0),
            NoiseAt::Distributed => {
                let n = self.sampled.max(1) as f64;
                (self.z_delta * self.clip / n.sqrt(), self.sigma_b / n.sqrt())
            }
        }
    }

    /// Words made so far.
    pub fn sent(&self) -> usize {
        self.sent
    }

    /// Client `user`'s word, as it masks it: its update Δ_k (`None`: a zero update) clipped,
    /// b_k under adaptive clipping, its share of the noise under distributed noise.
    pub fn word(&mut self, user: u32, delta: Option<&[f32]>) -> Result<Vec<f32>, String> {
        let length = self.length;
        let zero;
        let delta = match delta {
            Some(d) => d,
            None => {
                zero = vec![0.0f32; length];
                &zero
            }
        };
        if delta.len() != length {
            return Err(format!(
                "client {user}'s update has {} numbers, the round's {length}",
                delta.len()
            ));
        }
        let adaptive = self.dp.adaptive;
        let (c, within) = match self.dp.noise_at {
            NoiseAt::Trusted => contribution(delta, self.clip, adaptive, None),
            NoiseAt::Distributed => {
                let (share, count_share) = self.shares();
                let mut s = Stream::new(
                    self.seed,
                    &format!("dp-fedavg-noise-round-{}-user-{user}", self.t),
                );
                contribution(
                    delta,
                    self.clip,
                    adaptive,
                    Some((share, count_share, &mut s)),
                )
            }
        };
        self.clipped += usize::from(!within);
        self.sent += 1;
        Ok(c)
    }

    /// What the round gives the server from the secure sum of every word made, with the lab's
    /// record of it (`None` when no client sent): the trusted aggregator's noise, the average
    /// over qN, the adaptive clip's step.
    pub fn finish<R>(&self, secure: Option<(Vec<f64>, R)>) -> Result<NoisedRound<R>, String> {
        let (length, width) = (self.length, self.width());
        let dp = &self.dp;
        let m = dp.expected_clients(self.population);
        let (mut sum, secure) = match secure {
            None => (vec![0.0f64; width], None),
            Some((sum, record)) => {
                if sum.len() != width {
                    return Err(format!(
                        "the secure sum has {} numbers, the round's {width}",
                        sum.len()
                    ));
                }
                (sum, Some(record))
            }
        };
        if dp.noise_at == NoiseAt::Trusted {
            let mut s = Stream::new(
                self.seed,
                &format!("dp-fedavg-trusted-noise-round-{}", self.t),
            );
            for (i, v) in sum.iter_mut().enumerate() {
                *v += s.gaussian(
                    0.0,
                    if i < length {
                        self.z_delta * self.clip
                    } else {
                        self.sigma_b
                    },
                );
            }
        }
        // Under distributed noise, only the clients that sent brought their share.
        let present = match dp.noise_at {
            NoiseAt::Trusted => 1.0,
            NoiseAt::Distributed if self.sampled == 0 => 1.0,
            NoiseAt::Distributed => self.sent as f64 / self.sampled as f64,
        };
        let (unclipped_fraction, next_clip) = if dp.adaptive {
            let b = sum[length] / m;
            (
                Some(b),
                self.clip * libm::exp(-ADAPTIVE_LEARNING_RATE * (b - dp.target_quantile)),
            )
        } else {
            (None, self.clip)
        };
        Ok(NoisedRound {
            average: sum[..length].iter().map(|x| x / m).collect(),
            secure,
            clipped: self.clipped,
            z_present: dp.noise_multiplier * present.sqrt(),
            noise_std: self.z_delta * self.clip * present.sqrt() / m,
            unclipped_fraction,
            next_clip,
        })
    }
}

pub mod settings;

#[cfg(test)]
mod tests;
