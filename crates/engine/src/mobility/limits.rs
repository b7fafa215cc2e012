//! Every bound on a Mobility-lab setting, defined once: the engine refuses what lies outside,
//! and the page's controls and URL parser read the same constants.

pub use whereabouts_core::limit::{Limit, SEED};
use whereabouts_core::limit::{closed, positive, whole};

/// Other phones in the target's round with one client training (0: the target alone).
pub const CO_PARTICIPANTS: Limit = whole(0.0, 99.0, "a whole number from 0 to 99");
/// Users in the city (the paper: 100).
pub const USERS: Limit = whole(1.0, 1000.0, "a whole number from 1 to 1,000");
/// Global rounds T (the paper: 50).
pub const ROUNDS: Limit = whole(1.0, 500.0, "a whole number from 1 to 500");
/// Held-out windows for the utility.
pub const HELD_OUT: Limit = whole(0.0, 500.0, "a whole number from 0 to 500");
/// The phones' SGD learning rate.
pub const LEARNING_RATE: Limit = positive(10.0, "above 0, at most 10");
/// Attack iterations per round (the paper: 200).
/// Epochs the server's model is pretrained on the city's other people.
pub const PRETRAIN_EPOCHS: Limit = whole(0.0, 200.0, "a whole number from 0 to 200");
pub const ITERATIONS: Limit = whole(1.0, 5000.0, "a whole number from 1 to 5,000");
/// InvGrad's TV weight.
pub const TV_WEIGHT: Limit = closed(0.0, 100.0, "between 0 and 100");
/// The success radius τ, metres.
pub const TAU_M: Limit = positive(100_000.0, "above 0 m, at most 100 km");
/// A defence's ε (per km for the location mechanisms; the run's total for the adaptive one).
pub const EPSILON: Limit = positive(1e6, "above 0, at most 10⁶");
/// Waypoints of a drawn path.
pub const WAYPOINTS: Limit = whole(2.0, 10_000.0, "2 to 10,000 waypoints");
/// The streets' half-width and half-height (real data's extent), metres: a block to 50 km (a
/// 250 m grid of 100 km is 160,000 junctions).
pub const AREA_HALF_M: Limit = closed(250.0, 50_000.0, "between 250 m and 50 km");
/// DP-FedAvg's clip C of a phone's gradient's L2 norm under `sees = dp`. The lab's update is
/// one window's gradient of the LSTM's 1,314 weights: its L2 norm is 0.7–1.0 at the median
/// and at most 1.65 over 50 rounds of 11 phones (vehicles and check-ins, seeds 1–3, the
/// authors' fresh model), so 4 leaves room above any update the lab makes while a clip near
/// the median (the lab's 1) clips about half of them, as Andrew et al.'s γ = 0.5 aims for.
/// With the noise added by the phones, the clip and z together are also held inside the secure
/// sum's ±64 a coordinate (`config.rs`, `central_dp::no_wrap`).
pub const DP_CLIP: Limit = positive(4.0, "between 0 (not included) and 4");
/// The membership card's release (`membership.rs`): people in a group, m (at most a quarter of
/// the 99 others of the card's least crowd), and the counts' user-level ε per release.
pub const GROUP: Limit = whole(2.0, 24.0, "a whole number from 2 to 24");
pub const RELEASE_EPSILON: Limit = positive(1000.0, "above 0, at most 1,000");
/// Under `sees = sum`, the server's own phones in a round (the n − 1 attack; 0: none) and the
/// least number of genuine phones a phone sends in (1: any): the core's, the same in every lab.
pub use whereabouts_core::secagg::sybil::{MIN_GENUINE, SYBILS};
