//! Every bound on a Linkability-lab setting, defined once: the engine refuses what lies
//! outside, and the page's controls and URL parser read the same constants.

pub use whereabouts_core::limit::{Limit, SEED};
use whereabouts_core::limit::{closed, positive, whole};

/// People in the federation, two devices each (the paper has 53 and 327).
pub const PEOPLE: Limit = whole(4.0, 400.0, "a whole number from 4 to 400");
/// Rounds of online FL, one a day.
pub const ROUNDS: Limit = whole(4.0, 60.0, "a whole number from 4 to 60");
/// C, the share of the devices with data that take part in a round.
pub const PARTICIPATION: Limit = positive(1.0, "above 0 and at most 1");
/// The phones' learning rate.
pub const LEARNING_RATE: Limit = positive(1.0, "above 0 and at most 1");
/// B, the phones' mini-batch.
pub const BATCH_SIZE: Limit = whole(1.0, 1000.0, "a whole number from 1 to 1,000");
/// σ of the Gaussian noise on each update coordinate.
pub const NOISE_SIGMA: Limit = closed(0.0, 10.0, "between 0 and 10");
/// β, the share of a device's measurements replaced by background ones.
pub const BETA: Limit = closed(0.0, 1.0, "between 0 and 1");
/// α, background measurements added per own measurement.
pub const ALPHA: Limit = closed(0.0, 8.0, "between 0 and 8");
/// The phones' local epochs.
pub const LOCAL_EPOCHS: Limit = whole(1.0, 20.0, "a whole number from 1 to 20");
/// Epochs of the attack networks.
pub const EPOCHS: Limit = whole(1.0, 500.0, "a whole number from 1 to 500");
/// Numbers the server may keep in its update log (every kept coordinate of every update): about
/// 256 MB of f32, what a browser tab can hold beside the rest.
pub const LOGGED_NUMBERS: f64 = 64e6;
/// DP-FedAvg's clip C of a device's change Δ_k (L2 norm over the whole model), under
/// `sees = dp`. The lab's changes at the defaults (seeds 1 and 7, 28 rounds, 3,356 updates
/// each) have a median norm of 2.6–3.3, 90% below 4.9–6.3 and 99% below 9.7–11.3 (a diverging
/// phone's reach 849): a clip up to 20 leaves every healthy update whole, and one far below
/// the median cuts every update short. The secure sum's ±[`super::federation::UPDATE_CLIP`] a
/// coordinate bounds it further under distributed noise ([`super::central_dp::check_words`]).
pub const DP_CLIP: Limit = positive(20.0, "between 0 (not included) and 20");
/// The clip the lab's `dp` opens with: about the median norm of a device's change at the
/// defaults (Andrew et al. 2021 aim their adaptive clip at the median; figures above).
pub const DP_DEFAULT_CLIP: f64 = 3.0;
