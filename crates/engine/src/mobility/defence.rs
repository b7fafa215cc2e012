//! The defences of [002] Table 5: DP-SGD on the shared gradient, and three that perturb the
//! locations themselves before the phone trains on them (every position of the window and the
//! label, Algorithm 2 line 8) — GeoI (planar Laplace), GeoGI (the exponential mechanism over
//! the road graph's junctions, scored by shortest-path distance) and the paper's PGEM (Eq. 13:
//! the same mechanism over the person's own constraint domain), whose budget is spent round by
//! round by the adaptive allocation of Eqs. 10–12 ([`Budget`]).
//!
//! DP-SGD as Abadi et al. (CCS 2016) define it ([`DpClip::Flat`], the default): the per-example
//! gradient is clipped as one vector to L2 norm C = [`DPSGD_CLIP`] and N(0, σ²) added to every
//! entry. Each phone trains on exactly one window a round, so its per-example gradient is its
//! update. The neighbouring relation is local DP: the server sees each phone's own noisy
//! gradient, so any two training windows are neighbours, and replacing one moves the clipped
//! gradient by at most Δ = 2C. σ is the analytic Gaussian mechanism's for (ε, δ = 10⁻⁵) at
//! that Δ, so ε per round protects that round's window (8 positions and the label: 9 fixes) of
//! one device against a server that sees the update. Over the run, the phone's accountant
//! ([`RdpAccountant`](whereabouts_core::privacy::gaussian::RdpAccountant), Rényi-DP
//! composition read at δ = 10⁻⁵) gives the total ε that protects the whole trajectory the
//! device trained on. Both are upper bounds from different accountings: after one round the
//! RDP total exceeds the round's exact ε (the RDP→DP conversion is loose).
//!
//! The authors' code ([`DpClip::PerTensor`], an option): each of the LSTM's 6 gradient tensors
//! clipped to C and the classic σ = √(2 ln(1.25/δ))·C/ε (valid only for ε < 1) calibrated for
//! a sensitivity of C. The whole update's replace-sensitivity is 2C·√6, so the ε it states is
//! understated: the lab keeps their noise but records it at 2C·√6, and shows the true ε beside
//! the stated one.
//!
//! Units: ε of the location mechanisms is per kilometre of (road) distance — the paper leaves
//! the unit open; the authors' code measures distance in min-max-normalised coordinates, where
//! the same ε means far less noise for a user who crosses a city than for one who stays on a
//! campus. GeoI's and GeoGI's ε is spent every round (the authors' code); PGEM's is the run's
//! total.
//!
//! What a location defence's ε composes to ([`LocationLoss`]): every round re-noises the whole
//! window — its 8 positions and the label, 9 reports, each with fresh noise — and the window
//! slides by one position a round, so one true position is noised again in every window that
//! holds it, up to 9 times. By basic composition of pure DP (δ = 0), a position's own ε over
//! the run is the sum over those windows (min(T, 9)·ε for GeoI and GeoGI), and the whole
//! trajectory's, every position moved by up to a km, is the sum over every report, 9 a round
//! (9·T·ε): n reports compose to n·ε (the independent mechanism of Chatzikokolakis et al.,
//! PETS 2014, on d∞). The server sees only the gradient trained on them, which is
//! post-processing: it cannot lose more.

use super::lstm::{TENSORS, WINDOW};
use serde::{Deserialize, Serialize};
use whereabouts_core::geo::Metres;
use whereabouts_core::privacy::gaussian::{Calibration, analytic_epsilon, gaussian_sigma};
use whereabouts_core::privacy::laplace::planar_laplace;
use whereabouts_core::rng::Stream;
use whereabouts_core::world::roads::RoadNetwork;

/// DP-SGD's clipping norm C (the authors' number: in their code each tensor's, here the whole
/// gradient's) and δ.
pub const DPSGD_CLIP: f64 = 0.2;
pub const DPSGD_DELTA: f64 = 1e-5;

/// How DP-SGD clips the phone's gradient.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DpClip {
    /// The whole gradient to L2 norm C, σ from the analytic Gaussian mechanism at Δ = 2C
    /// (Abadi et al. 2016, local DP).
    #[default]
    Flat,
    /// Each of the 6 tensors to C, the classic σ at Δ = C (the authors' code; the update's true
    /// sensitivity is 2C·√6, so the ε it states is understated).
    PerTensor,
}

impl DpClip {
    /// The noise on every coordinate for a round at `epsilon` (δ = [`DPSGD_DELTA`]).
    pub fn sigma(self, epsilon: f64) -> f64 {
        match self {
            DpClip::Flat => gaussian_sigma(
                Calibration::Analytic,
                epsilon,
                DPSGD_DELTA,
                self.sensitivity(),
            ),
            DpClip::PerTensor => {
                gaussian_sigma(Calibration::Classic, epsilon, DPSGD_DELTA, DPSGD_CLIP)
            }
        }
    }

    /// The clipped gradient's true L2 sensitivity to replacing the round's window (what the
    /// accountant records): 2C for the flat clip; 2C·√6 for the per-tensor one (each of the 6
    /// tensors can move by 2C).
    pub fn sensitivity(self) -> f64 {
        match self {
            DpClip::Flat => 2.0 * DPSGD_CLIP,
            DpClip::PerTensor => 2.0 * DPSGD_CLIP * (TENSORS.len() as f64).sqrt(),
        }
    }

    /// A round's true ε at δ = [`DPSGD_DELTA`] for the noise it adds at `epsilon`: `epsilon`
    /// itself for the flat clip (σ is exact for it); for the per-tensor one, the exact ε of the
    /// classic σ at the true sensitivity.
    pub fn round_epsilon(self, epsilon: f64) -> f64 {
        match self {
            DpClip::Flat => epsilon,
            DpClip::PerTensor => {
                analytic_epsilon(self.sigma(epsilon), DPSGD_DELTA, self.sensitivity())
            }
        }
    }
}

/// Which defence the phones use.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Defence {
    None,
    /// DP-SGD: clip the gradient and add Gaussian noise for (ε, 10⁻⁵) every round, ε per round
    /// for the round's window (local DP); the clip flat (Abadi et al., the default) or per
    /// tensor (the authors' code).
    DpSgd {
        epsilon: f64,
        #[serde(default)]
        clip: DpClip,
    },
    /// Planar Laplace noise on every location, ε per km, every round.
    GeoI {
        epsilon: f64,
    },
    /// The exponential mechanism over the road graph's junctions, ε per km of shortest path,
    /// every round.
    GeoGi {
        epsilon: f64,
    },
    /// PGEM over the person's own places with the adaptive budget: ε per km is the total.
    Adaptive {
        epsilon: f64,
        audit: Audit,
    },
}

impl Defence {
    /// Its name in a sentence (a table's note): [`Self::name`] short, the audit named.
    pub fn short_name(&self) -> &'static str {
        match self {
            Defence::DpSgd {
                clip: DpClip::PerTensor,
                ..
            } => "DP-SGD (authors' code)",
            Defence::Adaptive {
                audit: Audit::SelfAudit,
                ..
            } => "PGEM (self-audit)",
            Defence::Adaptive {
                audit: Audit::PreviousRound,
                ..
            } => "PGEM (previous round)",
            other => other.name(),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Defence::None => "none",
            Defence::DpSgd {
                clip: DpClip::Flat, ..
            } => "DP-SGD",
            Defence::DpSgd {
                clip: DpClip::PerTensor,
                ..
            } => "DP-SGD as in the authors' code (per-tensor clip; ε understated)",
            Defence::GeoI { .. } => "GeoI",
            Defence::GeoGi { .. } => "GeoGI",
            Defence::Adaptive { .. } => "PGEM, adaptive (ours)",
        }
    }

    pub fn epsilon(&self) -> Option<f64> {
        match *self {
            Defence::None => None,
            Defence::DpSgd { epsilon, .. }
            | Defence::GeoI { epsilon }
            | Defence::GeoGi { epsilon }
            | Defence::Adaptive { epsilon, .. } => Some(epsilon),
        }
    }

    /// The run's total ε over `rounds` rounds, on each defence's own footing
    /// ([`Defence::total_unit`]): DP-SGD's is its accountant's, `dp_total`; a location
    /// defence's is its whole trajectory's ([`LocationLoss::trajectory`], per km).
    pub fn total_epsilon(&self, rounds: usize, dp_total: Option<f64>) -> Option<f64> {
        match *self {
            Defence::DpSgd { .. } => dp_total,
            _ => self.location_loss(rounds).map(|l| l.trajectory),
        }
    }

    /// What a location defence's ε composes to over `rounds` rounds ([`LocationLoss`]); `None`
    /// for the others.
    pub fn location_loss(&self, rounds: usize) -> Option<LocationLoss> {
        match *self {
            Defence::None | Defence::DpSgd { .. } => None,
            Defence::GeoI { epsilon } | Defence::GeoGi { epsilon } => Some(LocationLoss {
                position: rounds.min(FIXES_PER_ROUND) as f64 * epsilon,
                trajectory: (FIXES_PER_ROUND * rounds) as f64 * epsilon,
                bound: false,
            }),
            // The rounds' ε_t sum to at most ε (Eq. 12 never spends more than is left), and
            // a position is noised at most once a round.
            Defence::Adaptive { epsilon, .. } => Some(LocationLoss {
                position: epsilon,
                trajectory: FIXES_PER_ROUND as f64 * epsilon,
                bound: true,
            }),
        }
    }

    /// What [`Defence::total_epsilon`] is.
    pub fn total_unit(&self) -> &'static str {
        match self {
            Defence::None => "",
            Defence::DpSgd {
                clip: DpClip::Flat, ..
            } => {
                "(ε, 10⁻⁵)-DP by Rényi-DP composition, per device over the run (its whole trajectory trained on)"
            }
            Defence::DpSgd {
                clip: DpClip::PerTensor,
                ..
            } => {
                "the true total: Rényi-DP composition at the true sensitivity 2·0.2·√6, δ = 10⁻⁵, per device over the run (the code states ε per round, no total)"
            }
            Defence::GeoI { .. } | Defence::GeoGi { .. } => {
                "per km that each position moves, for the whole trajectory: 9 noisy positions a round × rounds × ε (basic composition, δ = 0); one position alone: min(rounds, 9) × ε, the windows that hold it"
            }
            Defence::Adaptive { .. } => {
                "per km that each position moves, for the whole trajectory: at most 9 × ε (9 noisy positions a round, the rounds' ε_t summing to at most ε; basic composition, δ = 0); one position alone: at most ε"
            }
        }
    }
}

/// The reports a round releases under a location defence: the window's 8 positions and the
/// label, each noised afresh ([002] Alg. 2 line 8).
pub const FIXES_PER_ROUND: usize = WINDOW + 1;

/// What a location defence's ε composes to over a run, per km, by basic composition of pure DP
/// (δ = 0). The window slides one position a round and every round re-noises all
/// [`FIXES_PER_ROUND`] of its positions, so a position is released once for every window that
/// holds it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocationLoss {
    /// One position: the ε of every round whose window holds it (up to 9), per km it moves.
    pub position: f64,
    /// The whole trajectory, every position moved by up to a km: the ε of every report.
    pub trajectory: f64,
    /// Whether both are upper bounds (PGEM's: its rounds' ε_t sum to at most ε) rather than
    /// exact sums (GeoI's and GeoGI's).
    pub bound: bool,
}

impl LocationLoss {
    /// In words, after `rounds` rounds (the page's budget card).
    pub fn text(&self, rounds: usize) -> String {
        let at_most = if self.bound { "at most " } else { "" };
        let plural = if rounds == 1 { "" } else { "s" };
        format!(
            "After {rounds} round{plural} (δ = 0, basic composition): ε = {at_most}{} per km for your whole trajectory, each of its positions moved by up to a km — every round re-noises all 9 positions of its window — and {at_most}{} per km for any one position, noised again in each of the up to 9 windows that hold it.",
            super::experiments::format_epsilon(self.trajectory),
            super::experiments::format_epsilon(self.position),
        )
    }
}

/// Where the adaptive allocation's ASR_t and AIT_t come from: the paper never says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Audit {
    /// The phone attacks its own clean update of this round before choosing ε_t (our reading).
    SelfAudit,
    /// The figures of the previous round's attack on what the phone sent (none in round 1:
    /// the worst case, ASR 1 and AIT 1).
    PreviousRound,
}

/// Clips the phone's gradient as `clip` says: as one vector to L2 norm [`DPSGD_CLIP`], or each
/// tensor to it.
pub fn dp_clip(gradient: &mut [f32], clip: DpClip) {
    let scale_to = |g: &mut [f32]| {
        let norm = g.iter().map(|&v| f64::from(v).powi(2)).sum::<f64>().sqrt();
        let scale = 1.0 / (norm / DPSGD_CLIP).max(1.0);
        for v in g.iter_mut() {
            *v = (f64::from(*v) * scale) as f32;
        }
    };
    match clip {
        DpClip::Flat => scale_to(gradient),
        DpClip::PerTensor => {
            for t in TENSORS {
                scale_to(&mut gradient[t.start..t.start + t.len()]);
            }
        }
    }
}

/// DP-SGD on the phone's gradient (its one window's): clipped by [`dp_clip`], then N(0, σ²)
/// added to every entry, σ = [`DpClip::sigma`]. Returns σ (what the accountant records).
pub fn dp_sgd(gradient: &mut [f32], epsilon: f64, clip: DpClip, s: &mut Stream) -> f64 {
    let sigma = clip.sigma(epsilon);
    dp_clip(gradient, clip);
    for v in gradient.iter_mut() {
        *v = (f64::from(*v) + s.gaussian(0.0, sigma)) as f32;
    }
    sigma
}

/// GeoI: `x` moved by planar Laplace noise, ε per km.
pub fn geo_i(x: Metres, epsilon_per_km: f64, s: &mut Stream) -> Metres {
    let n = planar_laplace(epsilon_per_km / 1000.0, s);
    Metres::new(x.east + n.east, x.north + n.north)
}

/// The exponential mechanism of Eq. 13: candidate i with probability ∝ exp(−ε·dᵢ/2), dᵢ in km
/// (computed stably: the smallest distance is subtracted first).
pub fn exponential_mechanism(distances_km: &[f64], epsilon_per_km: f64, s: &mut Stream) -> usize {
    let lo = distances_km.iter().copied().fold(f64::INFINITY, f64::min);
    let weights: Vec<f64> = distances_km
        .iter()
        .map(|d| libm::exp(-epsilon_per_km * (d - lo) / 2.0))
        .collect();
    let total: f64 = weights.iter().sum();
    let mut u = s.uniform() * total;
    for (i, w) in weights.iter().enumerate() {
        if u < *w {
            return i;
        }
        u -= w;
    }
    weights.len() - 1
}

/// Road distance from `x` to every junction, km: to its nearest junction straight, then along
/// the streets.
pub fn road_km_to_junctions(roads: &RoadNetwork, x: Metres) -> Vec<f64> {
    let j = roads.nearest_junction(x);
    let off = x.distance(&roads.junctions[j]);
    roads
        .distances_from(j)
        .into_iter()
        .map(|d| (d + off) / 1000.0)
        .collect()
}

/// GeoGI: a junction of the road graph drawn by the exponential mechanism around `x`.
pub fn geo_gi(roads: &RoadNetwork, x: Metres, epsilon_per_km: f64, s: &mut Stream) -> Metres {
    let d = road_km_to_junctions(roads, x);
    roads.junctions[exponential_mechanism(&d, epsilon_per_km, s)]
}

/// A person's constraint domain ([002] Def. 4, "personalized"): the places they can be at —
/// here the distinct points of their own trajectory (within 25 m), with the road distances
/// between them.
pub struct Domain {
    pub places: Vec<Metres>,
    /// Each place's nearest junction and its distance to it, metres.
    anchors: Vec<(usize, f64)>,
    /// Road distance rows, km, by source junction (computed when first needed).
    rows: std::collections::HashMap<usize, Vec<f64>>,
}

impl Domain {
    pub fn new(roads: &RoadNetwork, points: &[Metres]) -> Domain {
        let mut places: Vec<Metres> = Vec::new();
        for p in points {
            if places.iter().all(|q| q.distance(p) > 25.0) {
                places.push(*p);
            }
        }
        let anchors = places
            .iter()
            .map(|p| {
                let j = roads.nearest_junction(*p);
                (j, p.distance(&roads.junctions[j]))
            })
            .collect();
        Domain {
            places,
            anchors,
            rows: Default::default(),
        }
    }

    /// PGEM (Eq. 13): a place of the domain drawn with probability ∝ exp(−ε·d(x, c)/2), d the
    /// road distance in km.
    pub fn pgem(
        &mut self,
        roads: &RoadNetwork,
        x: Metres,
        epsilon_per_km: f64,
        s: &mut Stream,
    ) -> Metres {
        let j = roads.nearest_junction(x);
        let off = x.distance(&roads.junctions[j]);
        let row = self
            .rows
            .entry(j)
            .or_insert_with(|| roads.distances_from(j));
        let d: Vec<f64> = self
            .anchors
            .iter()
            .zip(&self.places)
            .map(|(&(k, tail), p)| {
                if k == j {
                    x.distance(p) / 1000.0
                } else {
                    (off + row[k] + tail) / 1000.0
                }
            })
            .collect();
        self.places[exponential_mechanism(&d, epsilon_per_km, s)]
    }
}

/// The adaptive budget allocation (Eqs. 10–12): in round t, with the measured risk ASR_t and
/// AIT_t, γ_t = α·ASR_t + β/AIT_t (α = β = 0.5 and identities for F1, F2, as the authors'
/// code) and ε_t = exp(−γ_t)·(ε − Σ_{i<t} εᵢ). Since γ_t ≥ 0, ε_t never exceeds what is left.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    pub total: f64,
    pub spent: Vec<f64>,
}

pub const ALPHA: f64 = 0.5;
pub const BETA: f64 = 0.5;

impl Budget {
    pub fn new(total: f64) -> Budget {
        Budget {
            total,
            spent: Vec::new(),
        }
    }

    pub fn used(&self) -> f64 {
        self.spent.iter().sum()
    }

    pub fn remaining(&self) -> f64 {
        (self.total - self.used()).max(0.0)
    }

    /// Round t's share from its risk: `asr` in [0, 1], `ait` ≥ 1 (no success within the
    /// attack's iterations counts as the iteration limit). Records and returns ε_t.
    pub fn allocate(&mut self, asr: f64, ait: f64) -> f64 {
        let gamma = ALPHA * asr.clamp(0.0, 1.0) + BETA / ait.max(1.0);
        let epsilon = libm::exp(-gamma) * self.remaining();
        self.spent.push(epsilon);
        epsilon
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn geoi_over_a_run_counts_every_noisy_position_not_every_round() {
        for d in [
            Defence::GeoI { epsilon: 2.0 },
            Defence::GeoGi { epsilon: 2.0 },
        ] {
            // 50 rounds (the paper's T): 9 noisy positions a round, so the whole trajectory's
            // ε is 9 × 50 × 2 per km, not 50 × 2; one position sits in at most 9 windows.
            assert_eq!(d.total_epsilon(50, None), Some(900.0));
            let l = d.location_loss(50).unwrap();
            assert_eq!((l.position, l.trajectory, l.bound), (18.0, 900.0, false));
            // Before the ninth round a position is in at most as many windows as rounds.
            let l = d.location_loss(4).unwrap();
            assert_eq!((l.position, l.trajectory), (8.0, 72.0));
            assert_eq!(d.location_loss(0).unwrap().trajectory, 0.0);
        }
    }

    #[test]
    fn pgem_bounds_a_position_by_its_budget_and_the_trajectory_by_nine_times_it() {
        let d = Defence::Adaptive {
            epsilon: 5.0,
            audit: Audit::SelfAudit,
        };
        let l = d.location_loss(50).unwrap();
        assert_eq!((l.position, l.trajectory, l.bound), (5.0, 45.0, true));
        assert_eq!(d.total_epsilon(50, None), Some(45.0));
        // A budget spent round by round never exceeds ε, whatever the risk: the bound holds.
        let mut b = Budget::new(5.0);
        for k in 0..50 {
            b.allocate((k % 3) as f64 / 2.0, 1.0 + k as f64);
        }
        assert!(b.used() <= l.position);
        assert!(9.0 * b.used() <= l.trajectory);
    }

    #[test]
    fn only_the_location_defences_have_a_location_loss_and_dp_sgd_keeps_its_accountant() {
        assert_eq!(Defence::None.location_loss(10), None);
        assert_eq!(Defence::None.total_epsilon(10, None), None);
        let dp = Defence::DpSgd {
            epsilon: 1.0,
            clip: DpClip::Flat,
        };
        assert_eq!(dp.location_loss(10), None);
        assert_eq!(dp.total_epsilon(10, Some(3.5)), Some(3.5));
    }

    #[test]
    fn the_budget_cards_words_name_both_units_and_delta() {
        let t = Defence::GeoI { epsilon: 1.0 }
            .location_loss(12)
            .unwrap()
            .text(12);
        assert!(t.starts_with("After 12 rounds (δ = 0"), "{t}");
        assert!(
            t.contains("ε = 108 per km for your whole trajectory"),
            "{t}"
        );
        assert!(t.contains("9 per km for any one position"), "{t}");
        let t = Defence::Adaptive {
            epsilon: 1.0,
            audit: Audit::SelfAudit,
        }
        .location_loss(1)
        .unwrap()
        .text(1);
        assert!(t.starts_with("After 1 round (δ = 0"), "{t}");
        assert!(t.contains("ε = at most 9 per km"), "{t}");
        assert!(t.contains("at most 1 per km for any one position"), "{t}");
    }
}
