//! One round of DP-FedAvg over the secure sum (the module's header): the sampled phones'
//! clipped changes (and, distributed, their noise shares) through the core's protocol, the
//! trusted aggregator's noise, the fixed-denominator average, and the adaptive clip's step.

use super::{ADAPTIVE_LEARNING_RATE, CentralDp, NoiseAt, contribution};
use crate::signal_map::secure::{self, Contribution, SecureRound};
use whereabouts_core::rng::Stream;

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

impl CentralDp {
    /// The phones of `sampled` that drop out after the keys in round `t`, each with the
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
}

/// Round `t` of DP-FedAvg at clip `clip` (C_t).
pub fn aggregate(
    dp: &CentralDp,
    clip: f64,
    phones: Phones,
    t: usize,
    seed: u64,
) -> Result<DpRound, String> {
    let params = phones.before.len();
    let adaptive = dp.adaptive;
    let (z_delta, sigma_b) = dp.noise(phones.population);
    let sigma_b = sigma_b.unwrap_or(0.0);
    let m = dp.expected_clients(phones.population);
    let zero = vec![0.0f32; params];
    let mut clipped = 0;
    let mut own = Vec::with_capacity(phones.sent.len());
    for (user, delta) in &phones.sent {
        let delta = delta.as_deref().unwrap_or(&zero);
        let (c, within) = match dp.noise_at {
            NoiseAt::Trusted => contribution(delta, clip, adaptive, None),
            NoiseAt::Distributed => {
                let n = phones.sampled.max(1) as f64;
                let mut s = Stream::new(seed, &format!("dp-fedavg-noise-round-{t}-user-{user}"));
                contribution(
                    delta,
                    clip,
                    adaptive,
                    Some((z_delta * clip / n.sqrt(), sigma_b / n.sqrt(), &mut s)),
                )
            }
        };
        clipped += usize::from(!within);
        own.push(c);
    }
    let sybils: Vec<Contribution> = phones
        .sybils
        .iter()
        .map(|c| contribution(&c.delta, clip, adaptive, None).0)
        .collect();
    // The secure sum of the genuine phones' words, the Sybils' taken out by the server.
    let (mut sum, secure) = if own.is_empty() && sybils.is_empty() {
        (vec![0.0f64; params + usize::from(adaptive)], None)
    } else {
        let round = secure::aggregate(&own, sybils, t, seed)?;
        let sum = match &round.genuine {
            Some((mean, w)) => mean.iter().map(|x| f64::from(*x) * *w as f64).collect(),
            None => vec![0.0f64; params + usize::from(adaptive)],
        };
        (sum, Some(round))
    };
    if dp.noise_at == NoiseAt::Trusted {
        let mut s = Stream::new(seed, &format!("dp-fedavg-trusted-noise-round-{t}"));
        for (i, v) in sum.iter_mut().enumerate() {
            *v += s.gaussian(0.0, if i < params { z_delta * clip } else { sigma_b });
        }
    }
    let after = phones
        .before
        .iter()
        .zip(&sum)
        .map(|(w, x)| w + (x / m) as f32)
        .collect();
    // Under distributed noise, only the phones that sent brought their share.
    let present = match dp.noise_at {
        NoiseAt::Trusted => 1.0,
        NoiseAt::Distributed if phones.sampled == 0 => 1.0,
        NoiseAt::Distributed => phones.sent.len() as f64 / phones.sampled as f64,
    };
    let (unclipped_fraction, next_clip) = if adaptive {
        let b = sum[params] / m;
        let gamma = dp.target_quantile;
        (
            Some(b),
            clip * libm::exp(-ADAPTIVE_LEARNING_RATE * (b - gamma)),
        )
    } else {
        (None, clip)
    };
    Ok(DpRound {
        after,
        secure,
        clipped,
        z_present: dp.noise_multiplier * present.sqrt(),
        noise_std: z_delta * clip * present.sqrt() / m,
        unclipped_fraction,
        next_clip,
    })
}
