//! One round of DP-FedAvg over the Signal map's secure sum: the core's round
//! ([`whereabouts_core::privacy::central::noised_round`]: clipping, each phone's noise share,
//! the trusted aggregator's noise, the fixed-denominator average, the adaptive clip's step)
//! with the phones' words through [`secure::aggregate`], a Sybil server's clients taken out.

use super::CentralDp;
use crate::signal_map::secure::{self, Contribution, SecureRound};
use whereabouts_core::privacy::central::{self, Clients};

/// A round's inputs: who sent what.
pub struct Phones<'a> {
    /// Genuine phones in the sample, before dropouts (n: each adds 1/n of the variance).
    pub sampled: usize,
    /// The phones that sent, with their change Δ_k (`None`: no fixes this round, a zero change).
    pub sent: Vec<(u32, Option<Vec<f32>>)>,
    /// The server's own clients' changes (a Sybil server; it knows them and takes them out).
    pub sybils: Vec<Contribution>,
    /// N, the users the sample is drawn from.
    pub population: usize,
    pub before: &'a [f32],
}

/// What a DP-FedAvg round gives the server.
#[derive(Clone, Debug)]
pub struct DpRound {
    /// w_t = w_{t−1} + (Σ clipped Δ_k + noise)/(qN).
    pub after: Vec<f32>,
    /// The secure sum (absent when no phone and no Sybil sent).
    pub secure: Option<SecureRound>,
    /// Sent changes the clip shortened.
    pub clipped: usize,
    /// The noise multiplier in the sum (z, or less after dropouts under distributed noise).
    pub z_present: f64,
    /// Standard deviation of the noise on each coordinate of the average.
    pub noise_std: f64,
    /// Adaptive clipping: the noised unclipped fraction b̄ and the next clip.
    pub unclipped_fraction: Option<f64>,
    pub next_clip: f64,
}

/// Round `t` of DP-FedAvg at clip `clip` (C_t).
pub fn aggregate(
    dp: &CentralDp,
    clip: f64,
    phones: Phones,
    t: usize,
    seed: u64,
) -> Result<DpRound, String> {
    let length = phones.before.len();
    let width = length + usize::from(dp.adaptive);
    // The Sybils' changes, clipped as a genuine phone's (the server runs them by the rules).
    let sybils: Vec<Contribution> = phones
        .sybils
        .iter()
        .map(|c| Contribution {
            weight: 1,
            delta: central::contribution(&c.delta, clip, dp.adaptive, None).0,
        })
        .collect();
    let clients = Clients {
        sampled: phones.sampled,
        sent: phones.sent,
        population: phones.population,
        length,
    };
    let mut sybils = Some(sybils);
    let round = central::noised_round(dp, clip, clients, t, seed, |words| {
        let own: Vec<Contribution> = words
            .into_iter()
            .map(|(_, delta)| Contribution { weight: 1, delta })
            .collect();
        let round = secure::aggregate(&own, sybils.take().unwrap_or_default(), t, seed)?;
        // The secure sum of the genuine phones' words, the Sybils' taken out by the server.
        let sum = match &round.genuine {
            Some((mean, w)) => mean.iter().map(|x| f64::from(*x) * *w as f64).collect(),
            None => vec![0.0f64; width],
        };
        Ok((sum, round))
    })?;
    // No genuine phone sent, but Sybils did: the server still ran the protocol with them.
    let secure = match (round.secure, sybils) {
        (Some(s), _) => Some(s),
        (None, Some(sybils)) if !sybils.is_empty() => {
            Some(secure::aggregate(&[], sybils, t, seed)?)
        }
        _ => None,
    };
    let after = phones
        .before
        .iter()
        .zip(&round.average)
        .map(|(w, x)| w + *x as f32)
        .collect();
    Ok(DpRound {
        after,
        secure,
        clipped: round.clipped,
        z_present: round.z_present,
        noise_std: round.noise_std,
        unclipped_fraction: round.unclipped_fraction,
        next_clip: round.next_clip,
    })
}
