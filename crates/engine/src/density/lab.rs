//! One Density-lab run on the shared [`Driver`] interface: the city's people where they are at
//! the moment asked, their uploads, the server's density estimate beside the exact KDE, the
//! server's attack (peak picking, or fitting) on a sample of uploads and on each of the
//! visitor's, and what the visitor's consecutive answers reveal of how far they moved.
//!
//! Work goes in stages, each in small steps so the browser's worker can read the page between
//! them: the exact KDE (one bump per person), the server's estimate (one person's uploads per
//! step; for random features the waves are spread into a NUFFT, [`super::nufft`]), then one
//! attack per step. When the visitor drags a place, [`DensityLab::set_visitor`] swaps their
//! contribution in the finished sums and attacks their answers again, without redoing the rest.
//!
//! **Only the sum** (`sees = sum`, issue 39 §2): the server receives, for each query, the sum of
//! every phone's upload under secure aggregation ([Bonawitz] Fig. 4) and nothing else. Each
//! phone's upload on the grid is clipped (to ±B for random features, whose upload is at most B
//! in any cell; to ±1 for a bump) and quantised at the finest scale that cannot wrap for the
//! N + 1 phones, and the words are summed in Z_{2^32} ([`RoundSum`]): word for word the sum the
//! protocol unmasks (tested), gathered without running it, since one query is a round of 5,001
//! phones sending 16,384 words each — SecAgg+ at 1,000 phones and 16,384 words takes 12.5 s
//! natively for one round (docs/secagg.md, "In the other labs"). The density is that sum over
//! N·B (Eq. 6, unchanged but for the quantisation); every attack on a user's upload — the
//! population's sample and each of the visitor's places — reads the query's sum instead (with
//! the visitor at that place), and the moves are read from the sums with the visitor at the two
//! places (everyone else held still: the server's best case).
//!
//! **Secure sum + central DP** (`sees = dp`, issue 39 §3–4): each query is a round of DP-FedAvg
//! over the same secure sum ([`super::central_dp`] says what the users, the sample, an update
//! and its clip are here): the sampled phones' uploads clipped to L2 norm C go through the sum
//! word by word, the noise z·C goes on every cell, and the server's density is the noised
//! average over qN, over B (Eq. 6 with DP-FedAvg's fixed denominator), the mean of the rounds'
//! with several queries. The attacks read the noised sums where they read the plain sum; the
//! visitor's user-level ε is accounted round by round; the density the same uploads give
//! without central DP is kept beside it as the non-private reference.

use super::attack;
use super::central_dp::{self, CentralDpRecord, CentralDpSummary, CentralState};
use super::config::{Attack, DensityConfig, Persistence, Scheme};
use super::fit::{self, Fit};
use super::grid::Grid;
use super::kde;
use super::nufft::CosineSum;
use super::rff::Basis;
use super::search;
use serde::{Deserialize, Serialize};
use whereabouts_core::driver::{Driver, Guess};
use whereabouts_core::geo::Metres;
use whereabouts_core::metrics;
use whereabouts_core::privacy::laplace::planar_laplace;
use whereabouts_core::rng::Stream;
use whereabouts_core::secagg::{RoundSum, Sees};
use whereabouts_core::world::city::City;

/// The share of cells counted as hotspots (hotspot F1's k = 5% of the grid).
pub const HOTSPOT_SHARE: f64 = 0.05;
/// A guess this close counts as "located" in the privacy figures, metres.
pub const LOCATED_M: f64 = 100.0;

/// What a run reports as it works.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum DensityEvent {
    Progress {
        stage: String,
        done: usize,
        total: usize,
    },
    /// The exact KDE and the server's estimate, normalised (row-major over the grid).
    Density { exact: Vec<f64>, estimate: Vec<f64> },
    /// The server's guess of one attacked user.
    Guess(Guess),
    /// One of the visitor's answers as the server sees it, and what it makes of it.
    Visitor(VisitorAnswer),
}

/// The server's estimate of how far the visitor moved between two places ([`search::displacement`]):
/// with one basis kept for both answers, their phases differ by the frequencies times the move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Move {
    /// The visitor's places, from and to.
    pub from: usize,
    pub to: usize,
    /// The true displacement (to − from) and the server's estimate of it, metres east and north.
    pub truth: Metres,
    pub guess: Metres,
}

impl Move {
    /// How far the estimate is from the true displacement, metres.
    pub fn error_m(&self) -> f64 {
        (self.guess.east - self.truth.east).hypot(self.guess.north - self.truth.north)
    }
}

/// One of the visitor's places: the answer the server attacks, its candidates and its guess.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VisitorAnswer {
    /// Which of the visitor's places.
    pub place: usize,
    /// The (mean) answer the server attacked, row-major over the grid.
    pub surface: Vec<f64>,
    /// The places the attack could not tell apart, best first (at most [`MAX_CANDIDATES`]): the
    /// local maxima for peak picking, the fitted surface's tied maxima for fitting.
    pub candidates: Vec<Metres>,
    pub guess: Guess,
}

/// Candidates reported per visitor answer.
pub const MAX_CANDIDATES: usize = 50;
/// Most features for which the visitor's moves are worked out (a fit per move).
const FIT_FOR_MOVES: usize = 50;

/// How well the server's density matches the exact KDE ([003] "Performance: rank correlation").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Utility {
    /// Spearman's ρ over all cells (0 for an estimate that is one constant: it ranks nothing).
    pub spearman_all: f64,
    /// Spearman's ρ over the cells at or above the exact KDE's median.
    pub spearman_top_half: f64,
    /// Share of the exact KDE's top 5% cells among the estimate's top 5%.
    pub hotspot_f1: f64,
    /// The root mean squared difference of the estimate from the exact KDE over the grid
    /// ([`super::convergence`]); absent in runs stored before it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rmse: Option<f64>,
}

/// How far the server's guesses land ([003] "Privacy: L2-distance-based metric").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Privacy {
    /// Uploads attacked (the population's sample; the visitor's are reported apart).
    pub attacked: usize,
    pub mean_m: f64,
    pub median_m: f64,
    /// Share of guesses within [`LOCATED_M`] of the truth.
    pub located: f64,
    /// The mean distance of a uniformly random grid cell from the same people (nothing shared).
    pub random_guess_m: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DensitySummary {
    pub utility: Option<Utility>,
    pub privacy: Option<Privacy>,
    /// What the visitor's consecutive answers reveal of their moves (place k to k + 1).
    #[serde(default)]
    pub moves: Vec<Move>,
    /// Under central DP (`sees = dp`): the visitor's user-level ε, per round (query) and in
    /// total, at δ = [`central_dp::CENTRAL_DELTA`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub central_dp: Option<CentralDpSummary>,
    /// Under central DP: what each round (query) did and cost the visitor.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub central_dp_rounds: Vec<CentralDpRecord>,
    /// Under central DP: the density the same uploads give without it (no clip, no noise: what
    /// every update or the sum publishes), the non-private reference beside `utility`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub without_dp: Option<Utility>,
}

#[derive(Clone, Debug, PartialEq)]
enum Stage {
    Exact(usize),
    Estimate(usize),
    Attacks(usize),
    Visitor(usize),
    Done,
}

pub struct DensityLab {
    config: DensityConfig,
    grid: Grid,
    /// Where each of the N people is at the moment asked (index = user id).
    people: Vec<Metres>,
    /// Σ of the people's bumps (unnormalised; the visitor's apart).
    exact_sum: Vec<f64>,
    /// Σ of the people's answers to query 0 (unnormalised).
    estimate_sum: Vec<f64>,
    spreading: Option<CosineSum>,
    /// The users the server attacks.
    targets: Vec<u32>,
    guesses: Vec<Guess>,
    /// The random-guess distance of each attacked user (nothing shared), made with its guess.
    random_guess: Vec<f64>,
    /// The density the server published (the estimate, normalised): the fitting attack's prior.
    published: Vec<f64>,
    visitor: Vec<VisitorAnswer>,
    /// Under secure aggregation: the population's quantised sum for each distinct query (the
    /// visitor's words go in when a sum is read); empty when the server sees every update.
    sums: Vec<RoundSum>,
    /// The fitted maxima of the round's sums (the fitting attacks read the same sums for every
    /// user of the population's sample: fitted once).
    sum_tied: Option<Vec<search::Candidate>>,
    /// Under central DP: the users the rounds sample from (N, and the visitor with a place), each
    /// query's round as gathered (the one under way apart), the visitor's accounting after each,
    /// and the noised sums of every round with the visitor at their first place (what the
    /// server attacks for the population's sample, and publishes over qN·B).
    dp_population: usize,
    dp_rounds: Vec<central_dp::Round>,
    dp_gathering: Option<central_dp::Round>,
    dp_states: Vec<CentralState>,
    dp_first: Vec<Vec<f64>>,
    stage: Stage,
}

/// People per step of the exact KDE and the estimate; attacks per step.
const STEP_PEOPLE: usize = 64;

impl DensityLab {
    pub fn config(&self) -> &DensityConfig {
        &self.config
    }

    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// Where the population is (the visitor not included).
    pub fn people(&self) -> &[Metres] {
        &self.people
    }

    /// The visitor's user id: after the population's.
    pub fn visitor_id(&self) -> u32 {
        self.people.len() as u32
    }

    /// Number of users in the density: the population and, with a place, the visitor.
    fn users(&self) -> usize {
        self.people.len() + usize::from(!self.config.visitor.is_empty())
    }

    /// The user's randomness for query `k`: the fixed draw, or one per query.
    fn query_label(&self, k: usize) -> Option<usize> {
        match self.config.persistence {
            Persistence::Fixed => None,
            Persistence::Redrawn => Some(k),
        }
    }

    fn basis(&self, user: u32, k: usize) -> Basis {
        let features = match self.config.scheme {
            Scheme::Rff { features } => features,
            _ => 0,
        };
        Basis::of_user(
            self.config.seed,
            user,
            features,
            self.config.bandwidth_m,
            self.query_label(k),
        )
    }

    /// The location a GeoInd user reports at query `k`: the true one plus planar-Laplace noise.
    fn reported(&self, user: u32, d: Metres, k: usize, epsilon_per_m: f64) -> Metres {
        let label = match self.query_label(k) {
            None => format!("geoind-{user}"),
            Some(k) => format!("geoind-{user}-query-{k}"),
        };
        let noise = planar_laplace(epsilon_per_m, &mut Stream::new(self.config.seed, &label));
        Metres::new(d.east + noise.east, d.north + noise.north)
    }

    /// User `user`'s answer to query `k` from `d`, added to `acc` with `weight`.
    fn add_answer(&self, acc: &mut [f64], user: u32, d: Metres, k: usize, weight: f64) {
        let h = self.config.bandwidth_m;
        match self.config.scheme {
            Scheme::Kde => kde::add_bump(acc, &self.grid, d, h, weight),
            Scheme::Rff { .. } => self.basis(user, k).add_upload(acc, &self.grid, d, weight),
            Scheme::GeoInd { epsilon_per_m } => {
                let z = self.reported(user, d, k, epsilon_per_m);
                kde::add_bump(acc, &self.grid, z, h, weight)
            }
        }
    }

    /// The user's distinct answers to the configured queries: one with fixed randomness (or a
    /// plain bump: every answer is that surface, bit for bit), one per query when redrawn.
    fn answers(&self, user: u32, d: Metres) -> Vec<Vec<f64>> {
        (0..self.distinct_queries())
            .map(|k| self.answer(user, d, k))
            .collect()
    }

    /// User `user`'s answer to query `k` from `d`, on the grid.
    pub(crate) fn answer(&self, user: u32, d: Metres, k: usize) -> Vec<f64> {
        let mut acc = vec![0.0; self.grid.len()];
        self.add_answer(&mut acc, user, d, k, 1.0);
        acc
    }

    /// How many of the configured queries have answers of their own: one with fixed randomness
    /// (or a plain bump), every query when redrawn.
    fn distinct_queries(&self) -> usize {
        match (self.config.persistence, self.config.scheme) {
            (Persistence::Fixed, _) | (_, Scheme::Kde) => 1,
            (Persistence::Redrawn, _) => self.config.queries,
        }
    }

    /// The largest |value| of one upload in any cell: B for random features (a sum of B
    /// cosines), 1 for a bump. Secure aggregation clips each upload to it (nothing is clipped).
    fn upload_clip(&self) -> f64 {
        match self.config.scheme {
            Scheme::Rff { features } => features.max(1) as f64,
            Scheme::Kde | Scheme::GeoInd { .. } => 1.0,
        }
    }

    /// Under secure aggregation, the sums the server unmasks for each distinct query, with the
    /// visitor answering from `visitor` (their first place in the round; any of their places
    /// when the server attacks that one) as numbers on the grid.
    fn round_sums(&self, visitor: Option<Metres>) -> Result<Vec<Vec<f64>>, String> {
        self.sums
            .iter()
            .enumerate()
            .map(|(k, pop)| {
                let mut sum = pop.clone();
                if let Some(d) = visitor {
                    let id = self.visitor_id();
                    sum.add(id, &self.answer(id, d, k))
                        .map_err(|e| format!("secure aggregation: {e}"))?;
                }
                Ok(sum.value())
            })
            .collect()
    }

    /// What the server holds of `user` at `d` (their place `place`): their own answers, or
    /// under secure aggregation the round's sums (with the visitor at `d` when it is theirs).
    fn server_view(&self, user: u32, d: Metres) -> Result<Vec<Vec<f64>>, String> {
        match self.config.sees {
            Sees::Updates => Ok(self.answers(user, d)),
            Sees::Sum if user == self.visitor_id() => self.round_sums(Some(d)),
            Sees::Sum => self.round_sums(self.config.visitor.first().copied()),
            Sees::Dp if user == self.visitor_id() => self.dp_sums(Some(d)),
            Sees::Dp => Ok(self.dp_first.clone()),
        }
    }

    /// Under central DP, round `t` as it is gathered: its sample, its clip (C, or the adaptive
    /// clip the round before left), the words' range in the secure sum.
    fn dp_round(&self, t: usize) -> Result<central_dp::Round, String> {
        let dp = &self.config.central_dp;
        let clip = self.dp_states.last().map_or(dp.clip, |s| s.next_clip);
        central_dp::Round::new(
            dp,
            clip,
            self.dp_population,
            self.visitor_id(),
            self.grid.len(),
            self.upload_clip(),
            t,
            self.config.seed,
        )
    }

    /// Under central DP, the noised sum the server holds of every round (query), qN times
    /// DP-FedAvg's noised average, with the visitor's phone answering from `visitor`.
    fn dp_sums(&self, visitor: Option<Metres>) -> Result<Vec<Vec<f64>>, String> {
        let id = self.visitor_id();
        let m = self.config.central_dp.expected_clients(self.dp_population);
        self.dp_rounds
            .iter()
            .enumerate()
            .map(|(t, round)| {
                let upload = visitor.map(|d| self.answer(id, d, t));
                let read = round.read(upload.as_deref())?;
                Ok(read.average.into_iter().map(|x| x * m).collect())
            })
            .collect()
    }

    /// The server's guess at `user` (place `place`) from their answers, by the configured
    /// attack, with the candidates it could not tell apart (best first).
    fn attack(
        &self,
        user: u32,
        place: usize,
        truth: Metres,
        answers: &[Vec<f64>],
        fitted: Option<&[search::Candidate]>,
    ) -> (Guess, Vec<Metres>) {
        let mut s = Stream::new(self.config.seed, &format!("attack-{user}-{place}"));
        let mean = attack::average(answers);
        let peak = |s: &mut Stream| {
            let candidates = attack::local_maxima(&mean, &self.grid)
                .into_iter()
                .take(MAX_CANDIDATES)
                .map(|k| self.grid.point(k))
                .collect();
            (attack::peak(&mean, &self.grid, s), candidates)
        };
        let prior = (self.config.attack == Attack::FitPrior).then_some(self.published.as_slice());
        let (guess, candidates) = match (self.config.attack, self.config.scheme) {
            (Attack::Peak, _) | (_, Scheme::Kde) => peak(&mut s),
            (_, Scheme::Rff { features }) if features > 0 => {
                let tied = match fitted {
                    Some(t) => t.to_vec(),
                    None => self.fitted_maxima(answers, features),
                };
                match search::choose(&tied, prior, &self.grid, &mut s) {
                    Some(g) => (g, tied.iter().take(MAX_CANDIDATES).map(|c| c.at).collect()),
                    None => peak(&mut s),
                }
            }
            (Attack::FitPrior, Scheme::Rff { .. }) => {
                // Nothing shared: the densest place the server published is its best bet.
                let all: Vec<search::Candidate> = (0..self.grid.len())
                    .map(|k| search::Candidate {
                        at: self.grid.point(k),
                        value: 0.0,
                    })
                    .collect();
                let g = search::choose(&all, prior, &self.grid, &mut s).unwrap_or(truth);
                (g, vec![g])
            }
            (Attack::FitPrior, Scheme::GeoInd { epsilon_per_m }) => {
                self.geoind_posterior(answers, epsilon_per_m, &mut s)
            }
            _ => peak(&mut s),
        };
        (
            Guess {
                round: place,
                user,
                attack: self.config.attack.name().into(),
                truth,
                guess,
                diverged: false,
            },
            candidates,
        )
    }

    /// The fitting attack's candidates: the tied maxima of the surface fitted to `answers`.
    fn fitted_maxima(&self, answers: &[Vec<f64>], features: usize) -> Vec<search::Candidate> {
        let fits: Vec<Fit> = answers
            .iter()
            .map(|a| fit::fit(a, &self.grid, features))
            .collect();
        Fit::combine(&fits, 1.0 / fits.len() as f64)
            .map(|f| search::tied_maxima(&f, &self.grid))
            .unwrap_or_default()
    }

    /// GeoInd's strongest server: each answer is a bump at a reported location ẑ_k (its peak);
    /// its belief about the user is the posterior published density × Π_k exp(−ε‖x − ẑ_k‖)
    /// (the planar-Laplace likelihood of the reports, Andrés et al., CCS 2013, §4), and its
    /// guess the place of least expected distance under that belief, the posterior's geometric
    /// median (Bayesian remapping: Chatzikokolakis, ElSalamouny, Palamidessi, "Efficient
    /// utility improvement for location privacy", PoPETs 2017, §3). The posterior's mode would
    /// not do: the likelihood's cusp keeps it at ẑ wherever the prior is smooth. The reports
    /// are returned as the candidates.
    fn geoind_posterior(
        &self,
        answers: &[Vec<f64>],
        epsilon: f64,
        s: &mut Stream,
    ) -> (Metres, Vec<Metres>) {
        let reports: Vec<Metres> = answers
            .iter()
            .map(|a| attack::peak(a, &self.grid, s))
            .collect();
        // In logarithms, so that far cells do not all underflow.
        let log_post: Vec<f64> = (0..self.grid.len())
            .map(|k| {
                let x = self.grid.point(k);
                let prior = self.published.get(k).copied().unwrap_or(0.0).max(0.0);
                let like: f64 = reports.iter().map(|z| -epsilon * x.distance(z)).sum();
                if prior > 0.0 {
                    prior.ln() + like
                } else {
                    f64::NEG_INFINITY
                }
            })
            .collect();
        let best = log_post.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if best == f64::NEG_INFINITY {
            return (reports[0], reports);
        }
        let weights: Vec<f64> = log_post.iter().map(|l| (l - best).exp()).collect();
        let points: Vec<Metres> = (0..self.grid.len()).map(|k| self.grid.point(k)).collect();
        (geometric_median(&points, &weights), reports)
    }

    fn answer_visitor(&self, place: usize) -> Result<VisitorAnswer, String> {
        let d = self.config.visitor[place];
        let user = self.visitor_id();
        let answers = self.server_view(user, d)?;
        let (guess, candidates) = self.attack(user, place, d, &answers, None);
        Ok(VisitorAnswer {
            place,
            surface: attack::average(&answers),
            candidates,
            guess,
        })
    }

    /// The moves between the visitor's consecutive places as two answers reveal them: only with
    /// random features (B ≥ 1) and one basis for both answers (the poster's fixed basis). Made
    /// with the run's figures, not with every edit of a drag (a fit each).
    pub fn moves(&self) -> Vec<Move> {
        if self.stage != Stage::Done {
            return Vec::new();
        }
        let features = match self.config.scheme {
            Scheme::Rff { features } if features > 0 => features,
            _ => return Vec::new(),
        };
        if self.config.persistence != Persistence::Fixed || features > FIT_FOR_MOVES {
            return Vec::new();
        }
        let user = self.visitor_id();
        let basis = self.basis(user, 0);
        // What the server holds of the visitor at a place: their upload, or the round's sum.
        let view = |d: Metres| match self.config.sees {
            Sees::Updates => Some(basis.upload(&self.grid, d)),
            Sees::Sum => self.round_sums(Some(d)).ok()?.into_iter().next(),
            // Every round's noised sum: their mean.
            Sees::Dp => Some(attack::average(&self.dp_sums(Some(d)).ok()?)),
        };
        self.config
            .visitor
            .windows(2)
            .enumerate()
            .filter_map(|(k, pair)| {
                let first = fit::fit(&view(pair[0])?, &self.grid, features);
                let second = fit::phases(&first, &view(pair[1])?, &self.grid);
                let guess = search::displacement(&first, &second, &self.grid)?;
                Some(Move {
                    from: k,
                    to: k + 1,
                    truth: Metres::new(pair[1].east - pair[0].east, pair[1].north - pair[0].north),
                    guess,
                })
            })
            .collect()
    }

    /// The exact KDE, normalised over every user (the visitor's first place included).
    pub fn exact(&self) -> Vec<f64> {
        let mut out = self.exact_sum.clone();
        if let Some(&d) = self.config.visitor.first() {
            kde::add_bump(&mut out, &self.grid, d, self.config.bandwidth_m, 1.0);
        }
        let n = self.users().max(1) as f64;
        out.iter_mut().for_each(|v| *v /= n);
        out
    }

    /// The server's estimate from the answers to query 0: Σ/N for bumps, Σ/(N·B) for random
    /// features ([003] Eq. 6); all zeros when nothing is shared.
    /// Under central DP, the mean over the rounds of DP-FedAvg's noised average over B.
    pub fn estimate(&self) -> Vec<f64> {
        let out = match self.config.sees {
            Sees::Updates => self.every_update_sum(),
            // The sum the server unmasked (the visitor's words fit the cohort: it counts them).
            Sees::Sum => self
                .round_sums(self.config.visitor.first().copied())
                .ok()
                .and_then(|s| s.into_iter().next())
                .unwrap_or_else(|| vec![0.0; self.grid.len()]),
            Sees::Dp => return self.dp_estimate(),
        };
        self.per_phone(out)
    }

    /// Σ of every phone's answer to query 0 (the visitor's from their first place), unnoised.
    fn every_update_sum(&self) -> Vec<f64> {
        let mut out = self.estimate_sum.clone();
        if let Some(&d) = self.config.visitor.first() {
            self.add_answer(&mut out, self.visitor_id(), d, 0, 1.0);
        }
        out
    }

    /// B, what one phone's answer adds up to at its own place (1 for a bump; 0 with no
    /// features, when nothing is divided).
    fn per_user(&self) -> f64 {
        match self.config.scheme {
            Scheme::Rff { features } => features as f64,
            _ => 1.0,
        }
    }

    /// A sum of every phone's answer as the density: over N·B ([003] Eq. 6).
    fn per_phone(&self, mut out: Vec<f64>) -> Vec<f64> {
        let n = self.users().max(1) as f64 * self.per_user();
        if n > 0.0 {
            out.iter_mut().for_each(|v| *v /= n);
        }
        out
    }

    /// DP-FedAvg's density: each round's noised sum over qN (its average), over B, the mean of
    /// the rounds'; all zeros before the rounds are made.
    fn dp_estimate(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.grid.len()];
        if self.dp_first.is_empty() {
            return out;
        }
        let m = self.config.central_dp.expected_clients(self.dp_population);
        let per_user = match self.per_user() {
            b if b > 0.0 => b,
            _ => 1.0,
        };
        let n = m * per_user * self.dp_first.len() as f64;
        for sum in &self.dp_first {
            out.iter_mut().zip(sum).for_each(|(o, s)| *o += s);
        }
        out.iter_mut().for_each(|v| *v /= n);
        out
    }

    /// True when only the visitor's answers are left to attack (after [`Self::set_visitor`] on a
    /// finished run): the worker does them at once rather than in later slices.
    pub fn visitor_pending(&self) -> bool {
        matches!(self.stage, Stage::Visitor(_))
    }

    /// The visitor's answers as the server saw and attacked them.
    pub fn visitor_answers(&self) -> &[VisitorAnswer] {
        &self.visitor
    }

    /// The visitor moved (or added, or removed) places: their part of the density and their
    /// answers are redone; the population's work is kept.
    pub fn set_visitor(
        &mut self,
        places: Vec<Metres>,
        emit: &mut dyn FnMut(DensityEvent),
    ) -> Result<(), String> {
        let mut next = self.config.clone();
        next.visitor = places;
        next.validate().map_err(|e| e.to_string())?;
        self.config = next;
        self.visitor.clear();
        // The population's sample attacked the round's sum with the visitor where they were;
        // its guesses stay as made (the visitor's share of 5,001 moves the sum's maxima by
        // nothing a run measures), only the visitor's answers are redone.
        if self.config.sees == Sees::Dp && !self.dp_first.is_empty() {
            self.dp_first = self.dp_sums(self.config.visitor.first().copied())?;
        }
        if matches!(self.stage, Stage::Visitor(_) | Stage::Done) {
            self.published = self.estimate();
            emit(DensityEvent::Density {
                exact: self.exact(),
                estimate: self.published.clone(),
            });
            self.stage = Stage::Visitor(0);
        }
        Ok(())
    }

    /// The estimate made: published, sent, and (under secure aggregation with a fitting attack)
    /// the round's sums fitted once for the population's sample.
    fn finish_estimate(&mut self, emit: &mut dyn FnMut(DensityEvent)) -> Result<(), String> {
        self.published = self.estimate();
        emit(DensityEvent::Density {
            exact: self.exact(),
            estimate: self.published.clone(),
        });
        if let (Sees::Sum | Sees::Dp, Attack::Fit | Attack::FitPrior, Scheme::Rff { features }) =
            (self.config.sees, self.config.attack, self.config.scheme)
            && features > 0
        {
            let sums = match self.config.sees {
                Sees::Dp => self.dp_first.clone(),
                _ => self.round_sums(self.config.visitor.first().copied())?,
            };
            self.sum_tied = Some(self.fitted_maxima(&sums, features));
        }
        self.stage = Stage::Attacks(0);
        Ok(())
    }

    /// Utility of the current estimate (None until it is made).
    fn utility(&self) -> Option<Utility> {
        self.estimated()
            .then(|| self.utility_of(&self.exact(), &self.estimate()))
    }

    /// Under central DP, the utility of the density the same uploads give without it: the
    /// non-private reference (None until the estimate is made, and under every update or the sum).
    fn without_dp(&self) -> Option<Utility> {
        (self.config.sees == Sees::Dp && self.estimated()).then(|| {
            let plain = self.per_phone(self.every_update_sum());
            self.utility_of(&self.exact(), &plain)
        })
    }

    /// Whether the server's estimate is made.
    fn estimated(&self) -> bool {
        matches!(
            self.stage,
            Stage::Attacks(_) | Stage::Visitor(_) | Stage::Done
        )
    }

    /// How well `estimate` matches the exact KDE `exact`.
    fn utility_of(&self, exact: &[f64], estimate: &[f64]) -> Utility {
        let (exact, estimate) = (exact.to_vec(), estimate.to_vec());
        let mut sorted = exact.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[sorted.len() / 2];
        let (top_e, top_x): (Vec<f64>, Vec<f64>) = estimate
            .iter()
            .zip(&exact)
            .filter(|(_, x)| **x >= median)
            .map(|(e, x)| (*e, *x))
            .unzip();
        let k = ((exact.len() as f64 * HOTSPOT_SHARE).round() as usize).max(1);
        Utility {
            spearman_all: metrics::spearman(&estimate, &exact).unwrap_or(0.0),
            spearman_top_half: metrics::spearman(&top_e, &top_x).unwrap_or(0.0),
            hotspot_f1: metrics::hotspot_f1(&estimate, &exact, k).unwrap_or(0.0),
            rmse: Some(super::convergence::measured_rmse(&estimate, &exact)),
        }
    }

    fn privacy(&self) -> Option<Privacy> {
        let own: Vec<&Guess> = self
            .guesses
            .iter()
            .filter(|g| g.user != self.visitor_id())
            .collect();
        if own.is_empty() {
            return None;
        }
        let errors: Vec<f64> = own.iter().map(|g| g.error_m()).collect();
        let n = errors.len() as f64;
        Some(Privacy {
            attacked: own.len(),
            mean_m: errors.iter().sum::<f64>() / n,
            median_m: metrics::median(&errors).unwrap_or(0.0),
            located: errors.iter().filter(|&&e| e <= LOCATED_M).count() as f64 / n,
            random_guess_m: self.random_guess.iter().sum::<f64>() / n,
        })
    }
}

impl Driver for DensityLab {
    type Config = DensityConfig;
    type Event = DensityEvent;
    type Summary = DensitySummary;

    fn start(config: DensityConfig) -> Result<Self, String> {
        config.validate().map_err(|e| e.to_string())?;
        let half = config.city_half_m;
        let grid = Grid::centred(half, half, config.grid_side, config.grid_side);
        grid.validate().map_err(|e| e.to_string())?;
        let people: Vec<Metres> = if config.residents.is_empty() {
            let city = City::generate(half, half, config.seed);
            (0..config.population)
                .map(|i| city.resident(config.seed, i).at(config.moment))
                .collect()
        } else {
            config.residents.clone()
        };
        let mut targets: Vec<u32> = (0..people.len() as u32).collect();
        Stream::new(config.seed, "attacked").shuffle(&mut targets);
        targets.truncate(config.attacked);
        let spreading = (config.sees == Sees::Updates
            && matches!(config.scheme, Scheme::Rff { features } if features > 0))
        .then(|| CosineSum::new(grid.p, grid.q));
        let mut lab = DensityLab {
            exact_sum: vec![0.0; grid.len()],
            estimate_sum: vec![0.0; grid.len()],
            grid,
            people,
            spreading,
            targets,
            guesses: Vec::new(),
            random_guess: Vec::new(),
            published: Vec::new(),
            visitor: Vec::new(),
            sums: Vec::new(),
            sum_tied: None,
            dp_population: 0,
            dp_rounds: Vec::new(),
            dp_gathering: None,
            dp_states: Vec::new(),
            dp_first: Vec::new(),
            stage: Stage::Exact(0),
            config,
        };
        // DP-FedAvg's users: every phone of the city (the visitor's with a place).
        lab.dp_population = lab.users();
        if lab.config.sees == Sees::Sum {
            // Each query's round is every phone: the population and, with a place, the visitor.
            let clip = lab.upload_clip();
            let sum = RoundSum::new(lab.users(), clip, lab.grid.len())
                .map_err(|e| format!("secure aggregation: {e}"))?;
            lab.sums = vec![sum; lab.distinct_queries()];
        }
        Ok(lab)
    }

    fn work(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(DensityEvent),
    ) -> Result<bool, String> {
        let h = self.config.bandwidth_m;
        loop {
            match self.stage.clone() {
                Stage::Exact(i) => {
                    let end = (i + STEP_PEOPLE).min(self.people.len());
                    for k in i..end {
                        kde::add_bump(&mut self.exact_sum, &self.grid, self.people[k], h, 1.0);
                    }
                    emit(DensityEvent::Progress {
                        stage: "exact".into(),
                        done: end,
                        total: self.people.len(),
                    });
                    self.stage = if end == self.people.len() {
                        Stage::Estimate(0)
                    } else {
                        Stage::Exact(end)
                    };
                }
                Stage::Estimate(i) if self.config.sees == Sees::Dp => {
                    // Round t (query t): the sampled phones' uploads into its secure sum, word by
                    // word; every phone's answer to query 0 kept unnoised for the reference.
                    let t = self.dp_rounds.len();
                    let mut round = match self.dp_gathering.take() {
                        Some(r) => r,
                        None => self.dp_round(t)?,
                    };
                    let people = self.people.len();
                    let end = (i + STEP_PEOPLE).min(people);
                    for user in i..end {
                        let u = user as u32;
                        let sends = round.sends(u);
                        if sends || t == 0 {
                            let a = self.answer(u, self.people[user], t);
                            if t == 0 {
                                self.estimate_sum
                                    .iter_mut()
                                    .zip(&a)
                                    .for_each(|(s, x)| *s += x);
                            }
                            if sends {
                                round.add(u, &a)?;
                            }
                        }
                    }
                    emit(DensityEvent::Progress {
                        stage: "estimate".into(),
                        done: t * people + end,
                        total: self.config.queries * people,
                    });
                    if end < people {
                        self.dp_gathering = Some(round);
                        self.stage = Stage::Estimate(end);
                    } else {
                        // The round as the server gets it, with the visitor's phone at their
                        // first place: what it cost the visitor, and the next round's clip.
                        let first = self.config.visitor.first().copied();
                        let upload = first.map(|d| self.answer(self.visitor_id(), d, t));
                        let read = round.read(upload.as_deref())?;
                        let state =
                            round.account(&self.config.central_dp, &read, self.dp_states.last())?;
                        self.dp_states.push(state);
                        self.dp_rounds.push(round);
                        if t + 1 < self.config.queries {
                            self.stage = Stage::Estimate(0);
                        } else {
                            self.dp_first = self.dp_sums(first)?;
                            self.finish_estimate(emit)?;
                        }
                    }
                }
                Stage::Estimate(i) if self.config.sees == Sees::Sum => {
                    // Each phone's answers quantised into the queries' sums.
                    let end = (i + STEP_PEOPLE).min(self.people.len());
                    for user in i..end {
                        for k in 0..self.sums.len() {
                            let a = self.answer(user as u32, self.people[user], k);
                            self.sums[k]
                                .add(user as u32, &a)
                                .map_err(|e| format!("secure aggregation: {e}"))?;
                        }
                    }
                    emit(DensityEvent::Progress {
                        stage: "estimate".into(),
                        done: end,
                        total: self.people.len(),
                    });
                    if end == self.people.len() {
                        self.finish_estimate(emit)?;
                    } else {
                        self.stage = Stage::Estimate(end);
                    }
                }
                Stage::Estimate(i) => {
                    let end = (i + STEP_PEOPLE).min(self.people.len());
                    match self.config.scheme {
                        Scheme::Kde => {
                            if i == 0 {
                                self.estimate_sum = self.exact_sum.clone();
                            }
                        }
                        Scheme::Rff { features } => {
                            if features > 0 {
                                for user in i..end {
                                    let basis = self.basis(user as u32, 0);
                                    let waves = basis.waves(&self.grid, self.people[user]);
                                    let sum = self.spreading.as_mut().expect("spreading");
                                    waves.for_each(|w| sum.add(&w));
                                }
                            }
                        }
                        Scheme::GeoInd { epsilon_per_m } => {
                            for user in i..end {
                                let z =
                                    self.reported(user as u32, self.people[user], 0, epsilon_per_m);
                                kde::add_bump(&mut self.estimate_sum, &self.grid, z, h, 1.0);
                            }
                        }
                    }
                    emit(DensityEvent::Progress {
                        stage: "estimate".into(),
                        done: end,
                        total: self.people.len(),
                    });
                    if end == self.people.len() {
                        if let Some(sum) = self.spreading.take() {
                            self.estimate_sum = sum.finish();
                        }
                        self.finish_estimate(emit)?;
                    } else {
                        self.stage = Stage::Estimate(end);
                    }
                }
                Stage::Attacks(i) => {
                    if let Some(&user) = self.targets.get(i) {
                        let d = self.people[user as usize];
                        let answers = self.server_view(user, d)?;
                        let (guess, _) =
                            self.attack(user, 0, d, &answers, self.sum_tied.as_deref());
                        emit(DensityEvent::Guess(guess.clone()));
                        self.guesses.push(guess);
                        self.random_guess
                            .push(attack::random_guess_distance(&self.grid, d));
                        emit(DensityEvent::Progress {
                            stage: "attacks".into(),
                            done: i + 1,
                            total: self.targets.len(),
                        });
                        self.stage = Stage::Attacks(i + 1);
                    } else {
                        self.stage = Stage::Visitor(0);
                    }
                }
                Stage::Visitor(place) => {
                    if place < self.config.visitor.len() {
                        let answer = self.answer_visitor(place)?;
                        emit(DensityEvent::Visitor(answer.clone()));
                        self.visitor.push(answer);
                        self.stage = Stage::Visitor(place + 1);
                    } else {
                        self.stage = Stage::Done;
                    }
                }
                Stage::Done => return Ok(false),
            }
            if now() >= deadline {
                return Ok(self.stage != Stage::Done);
            }
        }
    }

    fn summary(&self) -> DensitySummary {
        DensitySummary {
            utility: self.utility(),
            privacy: self.privacy(),
            moves: self.moves(),
            central_dp: self
                .dp_states
                .last()
                .map(|s| s.summary(&self.config.central_dp, self.dp_states.len())),
            central_dp_rounds: self.dp_states.iter().map(|s| s.record.clone()).collect(),
            without_dp: self.without_dp(),
        }
    }

    fn guesses(&self) -> Vec<Guess> {
        let mut all = self.guesses.clone();
        all.extend(self.visitor.iter().map(|a| a.guess.clone()));
        all
    }
}

/// The weighted geometric median of `points` (the place of least weighted total distance) by
/// Weiszfeld's iteration from the weighted mean (Weiszfeld 1937; Vardi & Zhang, PNAS 2000, for
/// the step at a data point, avoided here by a metre's floor on the distances).
fn geometric_median(points: &[Metres], weights: &[f64]) -> Metres {
    let total: f64 = weights.iter().sum();
    let mut x = Metres::new(
        points
            .iter()
            .zip(weights)
            .map(|(p, w)| p.east * w)
            .sum::<f64>()
            / total,
        points
            .iter()
            .zip(weights)
            .map(|(p, w)| p.north * w)
            .sum::<f64>()
            / total,
    );
    for _ in 0..100 {
        let (mut e, mut n, mut norm) = (0.0, 0.0, 0.0);
        for (p, &w) in points.iter().zip(weights) {
            if w > 0.0 {
                let k = w / p.distance(&x).max(1.0);
                e += k * p.east;
                n += k * p.north;
                norm += k;
            }
        }
        let next = Metres::new(e / norm, n / norm);
        let step = next.distance(&x);
        x = next;
        if step < 0.01 {
            break;
        }
    }
    x
}
