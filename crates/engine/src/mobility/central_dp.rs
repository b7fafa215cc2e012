//! Central differential privacy in the Mobility lab's federation (issue 39 §3): DP-FedAvg over
//! the round's secure sum, `sees = dp` ("secure sum + central DP"). The mechanism, its settings
//! and its accounting are the core's, shared by every lab
//! ([`whereabouts_core::privacy::central`]); what is the Mobility lab's is below: its clients are
//! the round's phones, their update is one window's gradient, the secure sum is
//! [`super::secure`]'s, and its clip's limit ([`limits::DP_CLIP`]).
//!
//! **The update and DP-FedAvg's average.** DP-FedAvg (McMahan, Ramage, Talwar & Zhang, ICLR
//! 2018, Algorithm 1, w_k = 1) clips each sampled client's model change Δ_k to L2 norm S, adds
//! N(0, (zS)²) to the sum and divides by the expected number of clients qN (its fixed-denominator
//! estimator f̃_f). A phone here takes one SGD step on its window t ([002] Algorithm 1), so
//! Δ_k = −η·g_k: clipping Δ_k to ηC is clipping the gradient g_k to C, and the server's
//!
//!   ḡ = (Σ_k clip_C(g_k) + N(0, (zC)²·I)) / (qN),   w ← w − η·ḡ
//!
//! is DP-FedAvg's round with S = ηC to the letter. So the lab clips and averages gradients
//! (C is a gradient norm: [`limits::DP_CLIP`]), the model moves by −η·ḡ, and ḡ is the only
//! gradient the server has: ST-GIA inverts it, as under `sees = sum` it inverts the mean. The
//! noise on ḡ has standard deviation z·C/(qN) a coordinate.
//!
//! **Who is sampled** (a choice [002] cannot make, having no DP-FedAvg; docs/papers.md §3g): N is
//! the round's trainers, the users the lab's federation draws its round from — with one client
//! training, the target and its `m.co` co-participants (users 0 … k: N = k + 1; 0 co-participants,
//! the authors' code, is N = 1); with every user training (`m.fed=fedavg`), the whole city (N =
//! `m.users`). Each is in round t's sample independently with probability q (Poisson); a sampled
//! phone may drop out after the keys (`m.dpdrop`). The target may be left out of a round: the
//! server then inverts a sum without it (or, with nobody sampled, the noise alone), and the errors
//! are still to the target's own positions.
//!
//! **The visitor's ε** (user level: one user's whole trajectory in or out): recorded every round
//! as the Signal map does — with the noise added by a trusted aggregator, a sampled Gaussian
//! step (q, z) every round whether the target was sampled or not; with the noise added by the
//! phones, the server knows who sent, so only the rounds the target's phone sent count, each at
//! q = 1, at the noise left in the sum after dropouts.
//!
//! **The secure sum's range.** Every word goes through [`secure::sum_of`], whose quantiser
//! clips a coordinate to ±[`GRADIENT_CLIP`]. A clipped gradient's coordinate is at most C ≤ 4,
//! but a phone's share of distributed noise is N(0, (z_Δ·C)²/n): with one phone in the sample,
//! all of it. [`no_wrap`] refuses a setting where [`NOISE_SIGMAS`] standard deviations of a lone
//! phone's share could pass ±64, so no noise is cut off (and each round counts any coordinate
//! that was: `SecureRound::clipped`). Under adaptive clipping the clip moves (Andrew et al.
//! 2021), so the check is made at the largest clip the lab allows, and the adaptive clip is held
//! to it ([`round`]: a post-processing of the noised count; docs/papers.md §3g).

use super::limits;
use super::lstm;
use super::secure::{self, GRADIENT_CLIP, SecureRound};
use whereabouts_core::privacy::central::{self, Clients, RoundFacts};
pub use whereabouts_core::privacy::central::{
    CENTRAL_DELTA, CentralDp, CentralDpRecord, CentralDpSummary, CentralState, NoiseAt, account,
};

/// Standard deviations of a phone's noise share that must fit in the secure sum's clip: a
/// coordinate passes 7σ with probability 2.6·10⁻¹², so over 50 rounds of 100 phones' 1,315
/// words about 2·10⁻⁵ of runs would cut one.
pub const NOISE_SIGMAS: f64 = 7.0;

/// The lab's DP-FedAvg before the visitor changes it: the core's (z = 1, q = 1, a trusted
/// aggregator, no dropouts, a fixed clip) with a clip of 1, about the median norm of the lab's
/// gradients ([`limits::DP_CLIP`]).
pub fn lab_default() -> CentralDp {
    CentralDp {
        clip: 1.0,
        ..CentralDp::default()
    }
}

/// The settings within the lab's limits and the secure sum's range, for a population of
/// `population` users, and a sample expecting at least one of them a round (the core's rule in
/// every lab: qN ≥ 1); an error names the setting and the value.
pub fn validate(dp: &CentralDp, population: usize) -> Result<(), String> {
    dp.validate(&limits::DP_CLIP).map_err(|e| e.to_string())?;
    dp.validate_sample(population, "phones a round")
        .map_err(|e| e.to_string())?;
    no_wrap(dp, population)
}

/// With the noise added by the phones, refuses a clip and z (and, under adaptive clipping, the
/// count's σ_b) whose lone phone's share could pass the secure sum's ±[`GRADIENT_CLIP`] a
/// coordinate at [`NOISE_SIGMAS`] standard deviations.
pub fn no_wrap(dp: &CentralDp, population: usize) -> Result<(), String> {
    if dp.noise_at != NoiseAt::Distributed {
        return Ok(());
    }
    let (z_delta, sigma_b) = dp.noise(population);
    let (clip, which) = if dp.adaptive {
        (
            limits::DP_CLIP.max,
            "the largest clip adaptive clipping may reach, ",
        )
    } else {
        (dp.clip, "")
    };
    let word = clip * (1.0 + NOISE_SIGMAS * z_delta);
    if word > GRADIENT_CLIP {
        return Err(format!(
            "central_dp.noise_multiplier: with the noise added by each phone, z = {} at {which}C = {clip} could put a lone phone's noised gradient past the secure sum's ±{GRADIENT_CLIP} a coordinate (C·(1 + {NOISE_SIGMAS}·z{}) = {word:.1}); lower z or the clip, or let a trusted aggregator add the noise",
            dp.noise_multiplier,
            if dp.adaptive { "_Δ" } else { "" },
        ));
    }
    if let Some(sigma_b) = sigma_b {
        let word = 1.0 + NOISE_SIGMAS * sigma_b;
        if word > GRADIENT_CLIP {
            return Err(format!(
                "central_dp.noise_multiplier: under adaptive clipping with the noise added by each phone, the count's noise σ_b = {sigma_b:.1} (the larger of qN/20 and z = {}) could put a lone phone's noised count past the secure sum's ±{GRADIENT_CLIP} (1 + {NOISE_SIGMAS}·σ_b = {word:.1}); lower z, q or the city's users, or let a trusted aggregator add the noise",
                dp.noise_multiplier
            ));
        }
    }
    Ok(())
}

/// Round `t`'s Poisson sample of the population's users 0 … N − 1 (the target is user 0), and
/// those of them that drop out after the keys.
pub fn sample(dp: &CentralDp, population: usize, t: usize, seed: u64) -> (Vec<u32>, Vec<u32>) {
    let users: Vec<u32> = (0..population as u32).collect();
    let sampled = dp.sample(&users, t, seed);
    let dropped = dp.dropouts(&sampled, t, seed);
    (sampled, dropped)
}

/// A round's phones under DP-FedAvg.
pub struct Phones {
    /// Phones in the sample before dropouts (n: each adds 1/n of the variance).
    pub sampled: usize,
    pub dropped: usize,
    /// The phones that sent, each with its gradient g_k (after its own defence, if any).
    pub sent: Vec<(u32, Vec<f32>)>,
    /// N, the users the sample is drawn from.
    pub population: usize,
}

/// What a DP-FedAvg round gives the server, and what it cost the target.
pub struct DpRound {
    /// ḡ = (Σ clip_C(g_k) + noise)/(qN): the model's step and the gradient the server inverts.
    pub average: Vec<f32>,
    /// The secure sum (absent when no phone sent).
    pub secure: Option<SecureRound>,
    /// The target's accountant, the next clip and the round's record.
    pub state: CentralState,
}

/// Round `t` of DP-FedAvg over the lab's secure sum, after the rounds whose state is `before`
/// (the target's accountant and the clip; `None` at round 0).
pub fn round(
    dp: &CentralDp,
    before: Option<&CentralState>,
    phones: Phones,
    t: usize,
    seed: u64,
) -> Result<DpRound, String> {
    let clip = before.map_or(dp.clip, |s| s.next_clip);
    let yours_in = phones.sent.iter().any(|(u, _)| *u == 0);
    let clients = Clients {
        sampled: phones.sampled,
        sent: phones.sent.into_iter().map(|(u, g)| (u, Some(g))).collect(),
        population: phones.population,
        length: lstm::PARAMETERS,
    };
    let r = central::noised_round(dp, clip, clients, t, seed, |words| {
        let words: Vec<Vec<f32>> = words.into_iter().map(|(_, w)| w).collect();
        secure::sum_of(&words, t, seed)
    })?;
    // The adaptive clip held to the lab's limit (the secure sum's range is checked at it).
    let facts = RoundFacts {
        next_clip: r.next_clip.min(limits::DP_CLIP.max),
        ..r.facts(phones.sampled, phones.dropped, yours_in, clip)
    };
    Ok(DpRound {
        average: r.average.iter().map(|x| *x as f32).collect(),
        state: CentralState::after(dp, before, facts, dp.accounted_q(yours_in, false))?,
        secure: r.secure,
    })
}
