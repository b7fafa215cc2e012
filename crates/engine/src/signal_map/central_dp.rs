//! Central differential privacy in the Signal map's federation (issue 39 §3): DP-FedAvg over
//! the secure sum, `sees=dp` ("secure sum + central DP"). The mechanism, its settings and its
//! accounting are the core's, shared by every lab ([`whereabouts_core::privacy::central`]); what
//! is the Signal map's is below: its clients are phones, their update is the model change, the
//! secure sum is [`super::secure`]'s (with a Sybil server's clients taken out), and its clip's
//! limit ([`limits::DP_CLIP`]).
//!
//! **DP-FedAvg** (McMahan, Ramage, Talwar & Zhang, *Learning Differentially Private Recurrent
//! Language Models*, ICLR 2018, Algorithm 1, with every user's weight w_k = 1): each round every
//! one of the N users is in the sample independently with probability q (Poisson sampling);
//! each sampled phone clips its model change Δ_k = w_t^k − w_{t−1} to L2 norm C; the server
//! adds N(0, (z·C)²) to every coordinate of the sum and divides by the *expected* number of
//! clients, qN — the paper's fixed-denominator estimator f̃_f (rather than its f̃_c, which
//! divides by the sample's own weight), which keeps the sensitivity of the average at C/(qN)
//! whatever the sample's size. So the noise on
//! the average has standard deviation z·C/(qN). The model is w_{t−1} + that average.
//!
//! **Adaptive clipping** (Andrew, Thakkar, McMahan & Ramaswamy, *Differentially Private
//! Learning with Adaptive Clipping*, NeurIPS 2021, Algorithm 1), optional: each sampled phone
//! also sends b_k = 1[‖Δ_k‖ ≤ C]; the server forms the noised fraction
//! b̄ = (Σ b_k + N(0, σ_b²))/(qN) and moves the clip geometrically toward the target quantile γ:
//! C ← C·exp(−η_C·(b̄ − γ)), η_C = [`ADAPTIVE_LEARNING_RATE`] (the paper's 0.2). The count
//! costs privacy too: the update's noise multiplier is raised to
//! z_Δ = (z⁻² − (2σ_b)⁻²)^(−1/2) (the paper's, as TFF's `adaptive_clip_noise_params` computes
//! it: the count's sensitivity is ½ once b_k − ½ is summed), so that the two releases together
//! are one Gaussian mechanism with multiplier z.
//! σ_b is the paper's qN/20, raised to z where that is smaller ([`count_noise`], our choice
//! for federations of a few phones: docs/papers.md §3g).
//!
//! **Where the noise is added** ([`NoiseAt`]). *Trusted*: a trusted aggregator (a secure
//! enclave, say) unmasks the secure sum, adds the noise, and only the noised sum leaves it;
//! the server and its attacks see that. *Distributed*: each of the n sampled phones adds
//! N(0, (z·C)²/n) to its own clipped update before masking, so the secure sum carries
//! N(0, (z·C)²) and nobody ever sees the sum without noise. A phone that drops out after the
//! keys (round 0, where n is fixed) sends neither its update nor its noise: with d of n gone the
//! sum carries (n − d)/n of the variance, the round's noise multiplier is z·√((n − d)/n), and
//! the accountant records that ([`CentralDpRecord::z_present`]) — the ε shown is for the noise
//! actually in the sum.
//!
//! **Who is protected, and against what** (user level: a neighbouring data set has one user's
//! whole data, or none of it). *Trusted*: the release is the sampled Gaussian mechanism, each
//! round one step with (q, z): the accountant ([`whereabouts_core::privacy::rdp`]) records
//! every round, whether you were sampled or not. *Distributed*: the server runs the protocol
//! with the phones it talks to, so it knows who was sampled and sampling amplifies nothing;
//! what is hidden is the content of your update against none (your phone's participation is
//! visible, as without DP), so the round is recorded with q = 1 and only when your phone sent.
//! A Sybil server ([`super::secure`]) picks the cohort itself: no sampling, q = 1.
//!
//! The phones' words go through the real protocol as under `sees=sum`: each sends its clipped
//! (and, distributed, noised) change with weight 1, plus b_k under adaptive clipping
//! ([`round::aggregate`]). A sampled phone with no fixes this round sends a zero change (and
//! its share of the noise).

pub mod round;

use crate::signal_map::limits;
use whereabouts_core::error::ConfigError;
pub use whereabouts_core::privacy::central::{
    ADAPTIVE_LEARNING_RATE, CENTRAL_DELTA, CentralDp, CentralDpRecord, CentralDpSummary,
    CentralState, NoiseAt, account, clip_update, count_noise,
};

/// The settings within the Signal map's limits (the clip's is its own: [`limits::DP_CLIP`]).
pub fn validate(dp: &CentralDp) -> Result<(), ConfigError> {
    dp.validate(&limits::DP_CLIP)
}

#[cfg(test)]
mod tests;
