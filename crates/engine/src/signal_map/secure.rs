//! Secure aggregation in the Signal map's federation (issue 39 §2): the server receives only
//! the sum of a round's quantised updates, and what it can still learn from that sum.
//!
//! **The protocol.** Every round that has secure aggregation on runs the core's protocol
//! ([`whereabouts_core::secagg`]: Bonawitz et al., *Practical Secure Aggregation for
//! Privacy-Preserving Machine Learning*, CCS 2017, Fig. 4, its honest-but-curious
//! variant; docs/secagg.md) over the round's clients, for real: keys, shares, masked inputs,
//! unmasking. It is not replaced by the plain sum, since it costs little here (about 1 ms a
//! client a round on the small model, docs/secagg.md "Cost"); the core's tests prove the two
//! equal, and `secure/tests.rs` checks it again inside a lab round. A round of one client is
//! the exception: the protocol needs two (the sum of one client is its input), so that client's
//! quantised words are the sum.
//!
//! **What a client sends.** FedAvg weights each update by its number of points n_k ([000]
//! Algorithm 1), which a sum of updates alone cannot do; so each client sends
//! x_k = [n_k·Δ_k, n_k], Δ_k = w_t^k − w_{t−1} its model change (as Flower's SecAgg+ workflow
//! masks [n_k, n_k·w_k]; our choice, docs/secagg.md "In the Signal map"). The first block is
//! clipped to ±[`UPDATE_CLIP`] and quantised at the finest scale that cannot wrap for the cohort
//! (core `Quantiser::for_cohort`); the weight is an integer, quantised at scale 1 (exact). The
//! server unmasks Σ x_k, so it has the FedAvg model w_t = w_{t−1} + Σ n_k·Δ_k / Σ n_k — the same
//! model as without secure aggregation, to the quantisation — and nothing of any one update.
//!
//! **What the server attacks.** The only update it has: the round's aggregate Δ̄ = w_t − w_{t−1},
//! the n-weighted mean of every participant's change. DLG and Lemma 1 run on it as on one
//! device's update; they recover a blend of all participants' data, and their error is still
//! measured to the visitor's own centroid (and, in [`SecureRecord`], to the blend's).
//!
//! **The n − 1 (Sybil) attack.** Secure aggregation hides an update among the other inputs of
//! the sum and nothing more: [Bonawitz]'s security arguments (§6) say that what the server and
//! the clients it controls see can be simulated from the sum of the *honest* clients' inputs.
//! A server that picks the round's clients can fill it with clients of its own (Sybils: it runs
//! them itself on data it made, so it knows their inputs exactly) and the one device it
//! targets; the honest sum is then the target's update, and the server gets it by subtracting
//! its Sybils' words from the secure sum — exactly, to the quantisation. This is the Sybil or
//! n − 1 attack on secure aggregation that Pasquini, Francati and Ateniese (*Eluding Secure
//! Aggregation in Federated Learning via Model Inconsistency*, CCS 2022) set beside their
//! model-inconsistency attack, and the reason deployed systems refuse rounds with too few peers
//! (epfml/disco requires at least three, "otherwise [clients] can reconstruct each other's
//! model updates by subtracting their own"). Here it is [`SecureAggregation::sybils`]: the
//! server puts the visitor in every round with as few genuine co-participants as the devices
//! accept, plus that many Sybils (whose changes it leaves out of the model: it knows them).
//!
//! **The defence.** A minimum cohort of clients the server cannot forge
//! ([`SecureAggregation::min_genuine`]): each device learns how many *genuine* (verified:
//! attested devices, say — the lab assumes the check, it does not build one) clients are in the
//! round and does not send when fewer than k are. The Sybil server must then let k − 1 other
//! genuine devices in, and after subtracting its Sybils it holds the sum of k genuine updates:
//! the blend again. A minimum counted over *all* clients does nothing: the Sybils fill it.
//!
//! **Where the protocol's code comes from.** A round runs the [`Protocol`] this thread has:
//! the core's [`secagg::run`] in every build but the site's worker, which has the
//! `fetched-protocol` feature: there the protocol and its cryptography (X25519, SHA-256,
//! ChaCha20-Poly1305, Shamir sharing: 83 KB of the worker's first download, gzipped) are a
//! chunk the worker fetches the first time a run needs them, and [`install`]s
//! (src/worker/secure.rs); until then [`installed`] is false and a round says so.

use crate::signal_map::fl::{Federation, Update};
use crate::signal_map::limits;
use crate::signal_map::trace::{Dataset, Sample, centroid};
use serde::{Deserialize, Serialize};
use whereabouts_core::error::ConfigError;
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;
use whereabouts_core::secagg::{self, Dropouts, Quantiser};

#[cfg(test)]
mod tests;

/// What sums a round's words: the core's [`secagg::run`] (its signature).
pub type Protocol = fn(
    &secagg::Config,
    &[Vec<u32>],
    &Dropouts,
    u64,
    &dyn Fn() -> f64,
) -> Result<secagg::Outcome, secagg::SecAggError>;

/// The protocol a thread starts with: the core's, unless the engine is built to have it
/// installed (`fetched-protocol`).
#[cfg(not(feature = "fetched-protocol"))]
const LINKED: Option<Protocol> = Some(secagg::run);
#[cfg(feature = "fetched-protocol")]
const LINKED: Option<Protocol> = None;

thread_local! {
    static PROTOCOL: std::cell::Cell<Option<Protocol>> = const { std::cell::Cell::new(LINKED) };
}

/// The protocol this thread's rounds run from now on (`None`: none, until one is installed).
pub fn install(protocol: Option<Protocol>) {
    PROTOCOL.with(|p| p.set(protocol));
}

/// True if this thread has a protocol to run (always, unless built with `fetched-protocol`).
pub fn installed() -> bool {
    PROTOCOL.with(|p| p.get().is_some())
}

/// Secure aggregation's settings in a signal-map run (its presence turns it on).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecureAggregation {
    /// The n − 1 attack: the server puts the target in each round with as few genuine
    /// co-participants as the devices accept and this many clients of its own. 0: an honest
    /// server, which sums whoever the federation picked.
    #[serde(default)]
    pub sybils: usize,
    /// The least number of genuine clients (the visitor included) a device sends in; fewer, and
    /// no device sends that round. 1: no minimum.
    #[serde(default = "one")]
    pub min_genuine: usize,
    /// A malicious server (Fowl et al., ICLR 2022): the model it sends carries an imprint
    /// module, and it reads fixes out of the sum ([`crate::signal_map::imprint`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imprint: Option<crate::signal_map::imprint::ImprintConfig>,
}

fn one() -> usize {
    1
}

impl Default for SecureAggregation {
    fn default() -> Self {
        Self {
            sybils: 0,
            min_genuine: 1,
            imprint: None,
        }
    }
}

impl SecureAggregation {
    pub fn validate(&self) -> Result<(), ConfigError> {
        limits::SYBILS.check("secure_aggregation.sybils", self.sybils as f64)?;
        limits::MIN_GENUINE.check("secure_aggregation.min_genuine", self.min_genuine as f64)?;
        if let Some(imprint) = &self.imprint {
            imprint.validate()?;
        }
        Ok(())
    }
}

/// The clip of a weighted coordinate n_k·Δ_k (docs/secagg.md, "In the Signal map"): far above
/// what the lab's updates reach, so nothing is clipped in practice (a round counts what is:
/// [`SecureRecord::clipped`]); at 51 clients the quantisation step is then 2.4·10⁻⁴ of a
/// weighted coordinate, about 10⁻⁶ of the mean update per coordinate over a day's points.
pub const UPDATE_CLIP: f32 = 1024.0;

/// The largest weight n_k a client sends (2^20 points, a round's data far beyond any lab's),
/// exact at scale 1 for up to 2,047 clients.
pub const MAX_WEIGHT: f32 = 1_048_576.0;

/// Points a Sybil client trains on each round (made up by the server).
pub const SYBIL_POINTS: usize = 24;

/// One client's input to the sum: its model change and its weight n_k.
#[derive(Clone, Debug, PartialEq)]
pub struct Contribution {
    pub weight: usize,
    /// Δ_k = w_t^k − w_{t−1}.
    pub delta: Vec<f32>,
}

impl Contribution {
    pub fn of(update: &Update, before: &[f32]) -> Self {
        Self {
            weight: update.batch.len(),
            delta: update
                .params
                .iter()
                .zip(before)
                .map(|(a, b)| a - b)
                .collect(),
        }
    }
}

/// How a cohort's contributions become words and their sum becomes a model change again.
#[derive(Clone, Copy, Debug)]
pub struct Encoding {
    /// n_k·Δ_k, clipped to ±[`UPDATE_CLIP`].
    pub update: Quantiser,
    /// n_k, at scale 1.
    pub weight: Quantiser,
}

impl Encoding {
    /// For a cohort of `clients` (the finest scale whose sum cannot wrap).
    pub fn for_cohort(clients: usize) -> Result<Self, String> {
        Ok(Self {
            update: Quantiser::for_cohort(clients, UPDATE_CLIP).map_err(|e| e.to_string())?,
            weight: Quantiser::new(clients, MAX_WEIGHT, 1.0).map_err(|e| e.to_string())?,
        })
    }

    /// Client `client`'s words: [q(n_k·Δ_k), q(n_k)].
    pub fn encode(&self, client: u32, c: &Contribution) -> Result<Vec<u32>, String> {
        let n = c.weight as f32;
        let weighted: Vec<f32> = c.delta.iter().map(|d| d * n).collect();
        let mut words = self
            .update
            .quantise(client, &weighted)
            .map_err(|e| e.to_string())?;
        words.extend(
            self.weight
                .quantise(client, &[n])
                .map_err(|e| e.to_string())?,
        );
        Ok(words)
    }

    /// Coordinates of `c` the clip changes.
    pub fn clipped(&self, c: &Contribution) -> usize {
        let n = c.weight as f32;
        c.delta
            .iter()
            .filter(|d| (*d * n).abs() > self.update.clip())
            .count()
    }

    /// A sum of words as the mean model change Σ n_k·Δ_k / Σ n_k and the weight Σ n_k; `None`
    /// when the weight is 0 (nobody's update is in it).
    pub fn mean(&self, sum: &[u32]) -> Option<(Vec<f32>, u64)> {
        let (update, weight) = sum.split_at(sum.len() - 1);
        let w = i64::from(weight[0] as i32);
        if w <= 0 {
            return None;
        }
        let mean = update
            .iter()
            .map(|&x| (f64::from(x as i32) / self.update.scale() / w as f64) as f32)
            .collect();
        Some((mean, w as u64))
    }

    /// The most one coordinate of a mean over `weight` points moves in the round trip, for
    /// `clients` summed: clients·(1/(2·scale))/weight.
    pub fn mean_step(&self, clients: usize, weight: u64) -> f64 {
        clients as f64 * self.update.step_error() / weight.max(1) as f64
    }
}

/// The round's cohort as the server forms it and the devices check it.
#[derive(Clone, Debug, PartialEq)]
pub struct Cohort {
    /// Genuine clients that train (empty when the devices refuse the round).
    pub genuine: Vec<u32>,
    /// Why no device sends this round, when they refuse.
    pub refused: Option<String>,
}

/// Who takes part in round `t`: an honest server sums the federation's `picked` clients; a
/// Sybil server (n − 1 attack) puts the target in with as few genuine co-participants as the
/// devices accept (`min_genuine` − 1, drawn among `users` with data in the round) and its own
/// clients. The devices then refuse the round if fewer than `min_genuine` genuine clients are
/// in it.
pub fn cohort(
    sa: &SecureAggregation,
    picked: Vec<u32>,
    target: u32,
    users: &[u32],
    data: &Dataset,
    t: usize,
    seed: u64,
) -> Cohort {
    let genuine = if sa.sybils > 0 && !data.local_data(target, t, false).is_empty() {
        let mut others: Vec<u32> = users
            .iter()
            .copied()
            .filter(|&u| u != target && !data.local_data(u, t, false).is_empty())
            .collect();
        Stream::new(seed, &format!("sybil-round-{t}")).shuffle(&mut others);
        others.truncate(sa.min_genuine.saturating_sub(1));
        let mut g = vec![target];
        g.extend(others);
        g.sort_unstable();
        g
    } else {
        picked
    };
    if genuine.is_empty() || genuine.len() >= sa.min_genuine {
        return Cohort {
            genuine,
            refused: None,
        };
    }
    Cohort {
        refused: Some(format!(
            "only {} genuine client{} in this round, fewer than the minimum cohort of {}: your phone (and every other) did not send",
            genuine.len(),
            if genuine.len() == 1 { "" } else { "s" },
            sa.min_genuine
        )),
        genuine: Vec::new(),
    }
}

/// Sybil `j`'s contribution in round `t`: the server's own client, trained from `before` like a
/// phone on [`SYBIL_POINTS`] points it made up (uniform over the area, labels the mean RSRP
/// with 6 dB of noise), so it knows the update exactly.
pub fn sybil(
    federation: &Federation,
    data: &Dataset,
    area: (Metres, Metres),
    before: &[f32],
    t: usize,
    j: usize,
    seed: u64,
) -> Result<Contribution, String> {
    let mut s = Stream::new(seed, &format!("sybil-round-{t}-client-{j}"));
    let batch: Vec<Sample> = (0..SYBIL_POINTS)
        .map(|_| {
            let pos = Metres::new(
                s.range(area.0.east, area.1.east),
                s.range(area.0.north, area.1.north),
            );
            Sample {
                user: u32::MAX,
                time: 0.0,
                pos,
                x: data.standardizer.to_input(pos),
                y: data.mean_label() + s.gaussian(0.0, 6.0) as f32,
            }
        })
        .collect();
    let result = federation.trainer()(
        &federation.spec,
        before,
        &batch,
        &federation.config.local,
        &mut s,
        None,
    )
    .map_err(|e| format!("round {t}, the server's client {j}: {e}"))?;
    Ok(Contribution {
        weight: batch.len(),
        delta: result
            .params
            .iter()
            .zip(before)
            .map(|(a, b)| a - b)
            .collect(),
    })
}

/// A round through secure aggregation, as the lab keeps it.
#[derive(Clone, Debug)]
pub struct SecureRound {
    pub encoding: Encoding,
    /// The protocol's unmasked sum of every client's words (genuine first, in the order of the
    /// round's updates, then the Sybils).
    pub sum: Vec<u32>,
    /// The Sybils' contributions (the server knows them).
    pub sybils: Vec<Contribution>,
    /// What the server holds after subtracting its Sybils' words: the genuine clients' mean
    /// change and their weight (`None`: no genuine update).
    pub genuine: Option<(Vec<f32>, u64)>,
    /// Coordinates clipped over the round's genuine clients.
    pub clipped: usize,
}

/// The sum of `contributions` (the genuine ones) and `sybils` through the core's protocol
/// (round `t`'s keys from `seed`), and what the server keeps once it takes its Sybils away.
pub fn aggregate(
    contributions: &[Contribution],
    sybils: Vec<Contribution>,
    t: usize,
    seed: u64,
) -> Result<SecureRound, String> {
    let n = contributions.len() + sybils.len();
    let encoding = Encoding::for_cohort(n)?;
    let inputs = contributions
        .iter()
        .chain(&sybils)
        .enumerate()
        .map(|(k, c)| encoding.encode(k as u32, c))
        .collect::<Result<Vec<_>, _>>()?;
    let sum = match inputs.len() {
        0 => return Err(format!("round {t}: no client to sum")),
        // The protocol needs two clients: one client's sum is its input.
        1 => inputs[0].clone(),
        _ => {
            let config = secagg::Config::secagg(n, inputs[0].len());
            let keys = Stream::new(seed, &format!("secagg-round-{t}")).next_u64();
            let run = PROTOCOL
                .with(|p| p.get())
                .ok_or_else(|| format!("round {t}: secure aggregation's protocol is not loaded"))?;
            run(&config, &inputs, &Dropouts::none(), keys, &|| 0.0)
                .map_err(|e| format!("round {t}: secure aggregation failed: {e}"))?
                .sum
        }
    };
    // The server subtracts its own clients' words, exactly (wrapping arithmetic in Z_2^32).
    let mut genuine = sum.clone();
    for words in &inputs[contributions.len()..] {
        for (g, w) in genuine.iter_mut().zip(words) {
            *g = g.wrapping_sub(*w);
        }
    }
    Ok(SecureRound {
        encoding,
        genuine: encoding.mean(&genuine),
        clipped: contributions.iter().map(|c| encoding.clipped(c)).sum(),
        sum,
        sybils,
    })
}

/// What a round under secure aggregation reports beside the attacks' errors to the visitor's
/// own centroid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SecureRecord {
    /// Genuine clients whose updates are in the server's view (the visitor included).
    pub genuine: usize,
    /// The server's own clients in the sum (subtracted again).
    pub sybils: usize,
    /// The centroid of every genuine client's round data: the blend the attacks land near.
    pub blend_centroid: Metres,
    /// From the visitor's centroid to the blend's, m.
    pub blend_distance_m: f64,
    /// DLG's and Lemma 1's distance to the blend's centroid, m.
    pub dlg_to_blend_m: Option<f64>,
    pub analytic_to_blend_m: Option<f64>,
    /// The largest |coordinate| of (the update the server attacks − the visitor's own
    /// update): the quantisation's rounding when the server holds the visitor's update alone.
    pub update_gap: f64,
    /// The most the quantisation moves one coordinate of the update the server attacks.
    pub quantisation_step: f64,
    /// Coordinates clipped (n_k·Δ_k beyond ±[`UPDATE_CLIP`]) over the genuine clients.
    pub clipped: usize,
}

impl SecureRecord {
    /// The round's figures: `updates` the genuine clients' (the target's among them), `seen`
    /// the mean change the server attacks.
    pub fn new(round: &SecureRound, updates: &[Update], target: &Update, before: &[f32]) -> Self {
        let pooled: Vec<Sample> = updates
            .iter()
            .flat_map(|u| u.round_data.iter().copied())
            .collect();
        let blend = centroid(&pooled).expect("the target's data is in the round");
        let mine = centroid(&target.round_data).expect("the target has data");
        let (seen, weight) = round
            .genuine
            .as_ref()
            .expect("the target's update is in it");
        let own = Contribution::of(target, before);
        let update_gap = seen
            .iter()
            .zip(&own.delta)
            .map(|(a, b)| f64::from((a - b).abs()))
            .fold(0.0, f64::max);
        Self {
            genuine: updates.len(),
            sybils: round.sybils.len(),
            blend_centroid: blend,
            blend_distance_m: blend.distance(&mine),
            dlg_to_blend_m: None,
            analytic_to_blend_m: None,
            update_gap,
            quantisation_step: round
                .encoding
                .mean_step(updates.len() + round.sybils.len(), *weight),
            clipped: round.clipped,
        }
    }
}
