//! Central differential privacy in the Density lab (`sees = dp`, "secure sum + central DP",
//! issue 39 §3–4): DP-FedAvg over the lab's secure sum. The mechanism, its settings and its
//! accounting are the core's ([`whereabouts_core::privacy::central`]); what is the Density
//! lab's is below: who the users and the sample are, what an update is, its clip's limit
//! ([`limits::DP_CLIP`]) and the secure sum's range for the words.
//!
//! **DP-FedAvg on a density query** (McMahan, Ramage, Talwar & Zhang, ICLR 2018, Algorithm 1,
//! every weight w_k = 1). A query is one round ([003]: the server asks every phone at once);
//! asking again (`queries`) is another round, with a new sample and new noise. The users are
//! the city's phones, the N residents and the visitor (N + 1); each round each is in the sample
//! with probability q (Poisson sampling; q = 1, the default, asks everyone as [003] does). A
//! sampled phone's update Δ_k is its upload for the query, G′(d_k) on the grid ([003] Eq. 7:
//! P·Q numbers; a bump for the own bump or GeoInd), clipped to L2 norm C; the noise N(0, (z·C)²)
//! goes on every cell of the sum, and the server divides by qN: the noised average
//! (Σ clipped G′ + noise)/(qN). The paper's density is the sum over N·B (Eq. 6); under DP it is
//! that average over B — the same estimator with DP-FedAvg's fixed denominator qN in place of
//! the count of phones (equal to it at q = 1) — and over several queries the mean of the rounds'
//! averages. So the noise on one cell of the published density has standard deviation
//! z·C/(qN·B) (over √queries with several). The attacks read what the server holds of a round:
//! the noised sum, qN times the average.
//!
//! **The clip against an upload's norm.** An upload of B random features spreads over the whole
//! grid: its norm is about √(P·Q·B/2) (157 at 128² and B = 3; [`limits::DP_CLIP`]), where a bump's
//! is about √π·h over the cell (8.5 at the defaults). The noise per cell is z·C whatever C is,
//! so the random features' large norm is what central DP costs them: at the defaults the noise
//! on a cell of the density (z·C/(qN·B) ≈ 0.011) is of the order of the density itself.
//!
//! **The words through the secure sum.** Each sampled phone's word is its clipped upload (and,
//! distributed, its noise share N(0, (z·C)²/n), n the round's sample), quantised into the
//! lab's [`RoundSum`] — word for word the protocol's sum, as under `sees = sum` — with every
//! coordinate clipped to ±(min(C, the upload's largest cell) + 8 share deviations): the sum
//! cannot wrap for the city's phones (the quantiser's finest no-wrap scale), and a share is cut
//! with a chance of 1.2·10⁻¹⁵ a coordinate (under 10⁻⁶ a round of 5,001 × 16,384). The
//! round is made word by word ([`RoundWords`]: 5,001 grids of words at once would be 328 MB);
//! the visitor's word goes in when the round is read, with the visitor at the place the
//! server attacks, over the same sample and noise. A sampled phone that drops out after the
//! keys sends neither its upload nor its noise share.
//!
//! **What the visitor's ε covers.** User level: whether the visitor's whole upload was in the
//! queries at all. Trusted noise: every round a step of the sampled Gaussian (q, z), sampled or
//! not. Distributed: the server runs the protocol with the phones it asks, so only the rounds
//! the visitor's phone sent in count, each at q = 1 ([`whereabouts_core::privacy::central`]).

use super::limits;
use whereabouts_core::error::ConfigError;
pub use whereabouts_core::privacy::central::{
    CENTRAL_DELTA, CentralDp, CentralDpRecord, CentralDpSummary, CentralState, NoiseAt, account,
};
use whereabouts_core::privacy::central::{NoisedRound, RoundWords};
use whereabouts_core::secagg::RoundSum;

/// A word's noise share is kept whole out to this many of its standard deviations by the secure
/// sum's range (a chance of 1.2·10⁻¹⁵ a coordinate to be cut).
pub const SHARE_SIGMAS: f64 = 8.0;

/// The lab's clip C by default: about the median norm of an upload at the lab's defaults
/// (√(128²·3/2) = 157 for B = 3; 154–166 over 40 draws), the quantile Andrew et al. recommend,
/// so that most uploads are shortened by a few percent or not at all.
pub const DEFAULT_CLIP: f64 = 160.0;

/// DP-FedAvg's settings in the lab by default: the core's (z = 1, q = 1, a fixed clip, a
/// trusted aggregator, no dropouts) with the lab's clip.
pub fn default_settings() -> CentralDp {
    CentralDp {
        clip: DEFAULT_CLIP,
        ..CentralDp::default()
    }
}

/// The settings within their limits (the clip's is the lab's).
pub fn validate(dp: &CentralDp) -> Result<(), ConfigError> {
    dp.validate(&limits::DP_CLIP)
}

/// One query's round: its sample, the population's words in the secure sum, and the visitor's
/// part (added when the round is read).
#[derive(Clone, Debug)]
pub struct Round {
    /// Users in the sample (ascending), and those of them that dropped out after the keys.
    sampled: Vec<u32>,
    dropped: Vec<u32>,
    words: RoundWords,
    sum: RoundSum,
    /// C this round.
    pub clip: f64,
    /// The visitor's user id, and whether their phone sends this round (sampled, still there).
    visitor: u32,
    pub visitor_sends: bool,
}

impl Round {
    /// Round `t` at clip `clip` over users 0 … `population` − 1 (the visitor `visitor` among
    /// them when they have a place), each upload of `length` cells, none above
    /// `largest_cell` in any cell.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        dp: &CentralDp,
        clip: f64,
        population: usize,
        visitor: u32,
        length: usize,
        largest_cell: f64,
        t: usize,
        seed: u64,
    ) -> Result<Self, String> {
        let everyone: Vec<u32> = (0..population as u32).collect();
        let sampled = dp.sample(&everyone, t, seed);
        let dropped = dp.dropouts(&sampled, t, seed);
        let words = RoundWords::new(dp, clip, sampled.len(), population, length, t, seed);
        let (share, count_share) = words.shares();
        let word = if dp.adaptive { 1.0 } else { 0.0 };
        let range = clip.min(largest_cell).max(word) + SHARE_SIGMAS * share.max(count_share);
        let sum = RoundSum::new(population.max(1), range, words.width())
            .map_err(|e| format!("secure aggregation: {e}"))?;
        let mut round = Self {
            sampled,
            dropped,
            words,
            sum,
            clip,
            visitor,
            visitor_sends: false,
        };
        round.visitor_sends = round.sends(visitor);
        Ok(round)
    }

    /// Whether `user`'s phone sends its word this round: sampled, and not dropped out.
    pub fn sends(&self, user: u32) -> bool {
        self.sampled.binary_search(&user).is_ok() && self.dropped.binary_search(&user).is_err()
    }

    /// The range of a word's every coordinate in the secure sum.
    pub fn range(&self) -> f64 {
        f64::from(self.sum.quantiser().clip())
    }

    /// `user`'s upload into the round: clipped (and noised, distributed) as its phone masks it,
    /// summed securely. The caller adds only the phones that send.
    pub fn add(&mut self, user: u32, upload: &[f64]) -> Result<(), String> {
        add(&mut self.words, &mut self.sum, user, upload)
    }

    /// What the server gets from the round with the visitor's phone answering `visitor`
    /// (their upload from the place attacked; `None`: no place): DP-FedAvg's noised average.
    pub fn read(&self, visitor: Option<&[f64]>) -> Result<NoisedRound<()>, String> {
        let (mut words, mut sum) = (self.words.clone(), self.sum.clone());
        if let (Some(upload), true) = (visitor, self.visitor_sends) {
            add(&mut words, &mut sum, self.visitor, upload)?;
        }
        let secure = (words.sent() > 0).then(|| (sum.value(), ()));
        words.finish(secure)
    }

    /// The visitor's privacy after this round, read as `read` (the round as the server got it),
    /// from their accounting after the round before (`None`: the first round).
    pub fn account(
        &self,
        dp: &CentralDp,
        read: &NoisedRound<()>,
        before: Option<&CentralState>,
    ) -> Result<CentralState, String> {
        let facts = read.facts(
            self.sampled.len(),
            self.dropped.len(),
            self.visitor_sends,
            self.clip,
        );
        CentralState::after(dp, before, facts, dp.accounted_q(self.visitor_sends, false))
    }
}

/// `user`'s upload as its phone's word (clipped; noised, distributed) added to the secure sum.
fn add(
    words: &mut RoundWords,
    sum: &mut RoundSum,
    user: u32,
    upload: &[f64],
) -> Result<(), String> {
    let x: Vec<f32> = upload.iter().map(|&v| v as f32).collect();
    let word: Vec<f64> = words
        .word(user, Some(&x))?
        .into_iter()
        .map(f64::from)
        .collect();
    sum.add(user, &word)
        .map_err(|e| format!("secure aggregation: {e}"))
}
