//! Central differential privacy in the Linkability lab's federation (issue 39 §3–4): DP-FedAvg
//! over the secure sum, `sees = dp` ("Sum + central DP"). The mechanism, its settings and its
//! accounting are the core's ([`whereabouts_core::privacy::central`]); what is the lab's is
//! who the users are, how a person's two devices enter the sum, and its clip's limit
//! ([`limits::DP_CLIP`]).
//!
//! **The user is a person, not a device.** DP-FedAvg (McMahan, Ramage, Talwar & Zhang, ICLR
//! 2018, Algorithm 1) protects a *user*: a neighbouring data set has one user's whole data or
//! none of it. Here a person owns two devices, each a pseudonymous client of the secure sum
//! ([004] §4.1), so a neighbour is one person's two devices' data, both or neither; the
//! population N is the people (all of them, as the paper's N is every user, whether or not
//! they have data that round), and each round samples *people*: every person is in the sample
//! independently with probability q, and a sampled person's two devices both send (a device
//! with no data that day, or whose local SGD diverged, sends a zero change; under distributed
//! noise it still sends its share of the noise). A device would not need to know its sibling
//! for this: the two can share the person's coin, as they share the person. The paper is
//! silent on users with several clients (docs/papers.md §3c).
//!
//! **A person's update is the mean of their two devices'.** Each device clips its change Δ_k
//! (over the whole model) to L2 norm C, as in the paper; a person's update is
//! ½(Δ̄_{p,0} + Δ̄_{p,1}), of norm at most C, so DP-FedAvg over people with the
//! fixed-denominator estimator f̃_f is
//! w_t = w_{t−1} − (Σ_p ½(Δ̄_{p,0} + Δ̄_{p,1}) + N(0, (z·C)²))/(qN)
//!     = w_{t−1} − (Σ_devices Δ̄_k + N(0, (2z·C)²))/(2qN),
//! (Δ_k here is w_{t−1} − w_t^k, the lab's sign.) The second line is what runs: the core's
//! round ([`noised_round`]) over the *devices*, each clipped to C, with noise multiplier 2z on
//! their sum and the expected number of devices 2qN as the denominator — a person moves the
//! device sum by at most 2C, so the noise 2z·C is z times a person's sensitivity, and the
//! average carries noise of standard deviation z·C/(qN), the paper's. Under adaptive clipping
//! (Andrew et al. 2021, Algorithm 1) every device sends b_k, so b̄ is the share of devices
//! within the clip; the count's noise is the core's for 2z and 2qN devices, twice a person's,
//! so that the update and the count together are one Gaussian mechanism of multiplier z for a
//! person (both their sensitivities double). The model moves by the mean device change, as the
//! lab's FedAvg does (unweighted here: DP-FedAvg's w_k = 1).
//!
//! **Accounting** (the core's [`account`], as in the Signal map): under a trusted aggregator
//! the sample is hidden and every round is a sampled Gaussian step (q, z); under distributed
//! noise the server sees which devices sent, so only the rounds one of your devices sent in
//! count, at q = 1, with z·√((n − d)/n) after d of n devices dropped out — and at twice that in
//! a round where only one of your two devices sent (the other dropped out): you moved the sum
//! by at most C then, not 2C, so the same noise protects you twice as well ([`charged_z`]; a
//! round charged as if both had sent would overstate your ε). The ε is a person's: both your
//! devices together.
//!
//! **The secure sum** is the lab's ([`RoundSum`], the protocol's unmasked sum word for word, as
//! under `sum`), each coordinate of a word within ±[`UPDATE_CLIP`]. A word is a clipped change
//! (every coordinate within C) plus, distributed, a share of the noise; [`check_words`] refuses
//! a clip and noise whose share could pass that bound (at [`WORD_SIGMAS`] standard
//! deviations), where the quantiser would clip the noise and the sum would no longer carry it.

use super::federation::UPDATE_CLIP;
use super::limits;
use whereabouts_core::error::ConfigError;
use whereabouts_core::privacy::central::{self, Clients, RoundFacts};
pub use whereabouts_core::privacy::central::{
    CENTRAL_DELTA, CentralDp, CentralDpRecord, CentralDpSummary, CentralState, NoiseAt, account,
};
use whereabouts_core::secagg::RoundSum;

/// How many standard deviations of a device's noise share a word must hold within the secure
/// sum's ±[`UPDATE_CLIP`]: beyond 8σ a Gaussian lies with chance 1.2·10⁻¹⁵, so over every
/// coordinate of every device's word in the longest run (4,417 × 800 × 60) none is clipped
/// in practice.
pub const WORD_SIGMAS: f64 = 8.0;

/// The fewest devices in a round's sample when anyone is sampled: one person's two.
const FEWEST_DEVICES: f64 = 2.0;

/// DP-FedAvg over the devices that runs a person-level `dp` (module doc): noise multiplier 2z,
/// the same clip, sampling rate, adaptive clipping and dropouts.
pub fn over_devices(dp: &CentralDp) -> CentralDp {
    CentralDp {
        noise_multiplier: 2.0 * dp.noise_multiplier,
        ..*dp
    }
}

/// The standard deviation of the largest share of the noise one device adds (distributed
/// noise, the fewest devices in a round) at clip `clip`, for `people` people.
pub fn largest_share(dp: &CentralDp, clip: f64, people: usize) -> f64 {
    let (z_delta, _) = over_devices(dp).noise(2 * people);
    z_delta * clip / FEWEST_DEVICES.sqrt()
}

/// Whether a word of clip `clip` (every coordinate within it) plus its noise share stays
/// within the secure sum's ±[`UPDATE_CLIP`]: the refusal names the setting and the value.
pub fn check_words(dp: &CentralDp, clip: f64, people: usize) -> Result<(), ConfigError> {
    if dp.noise_at != NoiseAt::Distributed {
        return Ok(());
    }
    let share = largest_share(dp, clip, people);
    let reach = clip + WORD_SIGMAS * share;
    if reach > UPDATE_CLIP {
        return Err(ConfigError::new(
            "central_dp.clip",
            format!(
                "a clip of {clip} with noise multiplier {} added by each client is refused: a \
                 device's share of the noise (standard deviation {share:.0} when one person is \
                 sampled) could pass the secure sum's ±{UPDATE_CLIP} a coordinate, where it \
                 would be clipped and the sum would no longer carry the noise; lower the clip or \
                 z, or let a trusted aggregator add the noise",
                dp.noise_multiplier
            ),
        ));
    }
    Ok(())
}

/// The settings within the lab's limits (the clip's is its own, [`limits::DP_CLIP`]) and,
/// under distributed noise, within the secure sum's words ([`check_words`]).
pub fn validate(dp: &CentralDp, people: usize) -> Result<(), ConfigError> {
    dp.validate(&limits::DP_CLIP)?;
    check_words(dp, dp.clip, people)
}

/// People in round `t`'s sample (Poisson, probability q each) and their devices, in order.
pub fn sample(dp: &CentralDp, people: usize, t: usize, seed: u64) -> Vec<u32> {
    let everyone: Vec<u32> = (0..people as u32).collect();
    dp.sample(&everyone, t, seed)
        .into_iter()
        .flat_map(|p| [2 * p, 2 * p + 1])
        .collect()
}

/// What a DP-FedAvg round gives the server.
#[derive(Clone, Debug)]
pub struct DpRound {
    /// (Σ clipped Δ_k + noise)/(2qN): the model moves by minus this.
    pub average: Vec<f64>,
    /// The secure sum the server unmasked (`None` when no device sent).
    pub sum: Option<RoundSum>,
    /// Sent changes the clip shortened.
    pub clipped: usize,
    /// Coordinates of the words clipped to the secure sum's ±[`UPDATE_CLIP`] (0 unless a noise
    /// share passed [`WORD_SIGMAS`] deviations).
    pub clipped_coordinates: usize,
    /// A person's noise multiplier in the sum (z, or z·√((n − d)/n) after dropouts under
    /// distributed noise).
    pub z_present: f64,
    /// Standard deviation of the noise on each coordinate of the average.
    pub noise_std: f64,
    /// Adaptive clipping: the noised unclipped fraction b̄, and the next round's clip.
    pub unclipped_fraction: Option<f64>,
    pub next_clip: f64,
}

/// Round `t` of DP-FedAvg at clip `clip` over `people` people: `sampled` devices in the sample
/// before dropouts, `sent` the devices that sent with their change (`None`: a zero change).
/// Their words go through the lab's secure sum.
#[allow(clippy::too_many_arguments)]
pub fn round(
    dp: &CentralDp,
    clip: f64,
    people: usize,
    sampled: usize,
    sent: Vec<(u32, Option<Vec<f32>>)>,
    length: usize,
    t: usize,
    seed: u64,
) -> Result<DpRound, String> {
    check_words(dp, clip, people)
        .map_err(|e| format!("round {t}: the adaptive clip grew to {clip:.3}: {e}"))?;
    let devices = over_devices(dp);
    let mut coordinates = 0;
    let r = central::noised_round(
        &devices,
        clip,
        Clients {
            sampled,
            sent,
            population: 2 * people,
            length,
        },
        t,
        seed,
        |words| {
            let fail = |e: &dyn std::fmt::Display| format!("round {t}: secure aggregation: {e}");
            let width = words[0].1.len();
            let mut sum = RoundSum::new(words.len(), UPDATE_CLIP, width).map_err(|e| fail(&e))?;
            for (client, word) in &words {
                let word: Vec<f64> = word.iter().map(|&v| f64::from(v)).collect();
                coordinates += word.iter().filter(|v| v.abs() > UPDATE_CLIP).count();
                sum.add(*client, &word).map_err(|e| fail(&e))?;
            }
            Ok((sum.value(), sum))
        },
    )?;
    Ok(DpRound {
        average: r.average,
        sum: r.secure,
        clipped: r.clipped,
        clipped_coordinates: coordinates,
        // The devices' multiplier is twice a person's (module doc).
        z_present: r.z_present / 2.0,
        noise_std: r.noise_std,
        unclipped_fraction: r.unclipped_fraction,
        next_clip: r.next_clip,
    })
}

/// The noise multiplier a round charges the visitor: the noise in the sum over what the
/// visitor's devices could move it by. Trusted: the sample is hidden, so every round is charged
/// for a person both of whose devices send (sensitivity 2C, a person's z). Distributed: the
/// server knows who sent; with one of the visitor's two devices gone (dropped out after the
/// keys) the visitor moved the device sum by at most C, so the same noise is twice the
/// multiplier (`yours_sent` of the visitor's devices sent; 0 charges nothing).
pub fn charged_z(dp: &CentralDp, round: &DpRound, yours_sent: usize) -> f64 {
    match (dp.noise_at, yours_sent) {
        (NoiseAt::Distributed, 1) => 2.0 * round.z_present,
        _ => round.z_present,
    }
}

/// The visitor's accountant after a round: trusted, every round at q; distributed, only the
/// rounds one of your devices sent in (`yours_sent` of your two), at q = 1 and at the
/// multiplier for what they sent ([`charged_z`]). With the round's record, whose `z_present`
/// is the multiplier charged.
pub fn record(
    dp: &CentralDp,
    before: Option<&CentralState>,
    round: &DpRound,
    clip: f64,
    sampled: usize,
    dropped: usize,
    yours_sent: usize,
) -> Result<CentralState, String> {
    let yours_in = yours_sent > 0;
    let facts = RoundFacts {
        sampled,
        dropped,
        yours_in,
        clip,
        clipped: round.clipped,
        z_present: charged_z(dp, round, yours_sent),
        noise_std: round.noise_std,
        unclipped_fraction: round.unclipped_fraction,
        next_clip: round.next_clip,
    };
    CentralState::after(dp, before, facts, dp.accounted_q(yours_in, false))
}
