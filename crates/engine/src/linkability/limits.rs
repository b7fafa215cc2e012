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
