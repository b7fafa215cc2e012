//! Every bound on a signal-map setting, defined once: the engine's validation refuses what lies
//! outside, and the page's controls and URL parser read the same constants (a test there checks
//! that each control refuses exactly what the engine refuses).

pub use whereabouts_core::limit::{Limit, SEED};
use whereabouts_core::limit::{closed, positive, whole};

/// T, the round length, in hours: one minute to 31 days.
pub const ROUND_HOURS: Limit = closed(1.0 / 60.0, 744.0, "between 1 minute and 31 days (in hours)");
/// B, the local mini-batch size (∞, the whole round's data, is "no limit" and always allowed).
pub const BATCH_SIZE: Limit = whole(1.0, 1_000_000.0, "a whole number from 1 to 1,000,000");
/// E, the local epochs.
pub const EPOCHS: Limit = whole(1.0, 1000.0, "a whole number from 1 to 1,000");
/// η, the local learning rate, as training uses it (in f32).
pub const LEARNING_RATE: Limit = positive(10.0, "between 0 (not included) and 10");
/// C, the fraction of the round's users that take part.
pub const CLIENT_FRACTION: Limit = positive(1.0, "between 0 (not included) and 1");
/// DLG's iterations per round.
pub const DLG_ITERATIONS: Limit = whole(1.0, 1_000_000.0, "a whole number from 1 to 1,000,000");
/// DLG's step size (Adam or SGD), in standardised units.
pub const DLG_LEARNING_RATE: Limit = positive(10.0, "between 0 (not included) and 10");
/// A drawn path's time per leg, minutes: one minute to one week.
pub const LEG_MINUTES: Limit = closed(1.0, 10_080.0, "between 1 minute and 1 week");
/// A drawn path's time between GPS fixes, minutes (also at most the leg time).
pub const FIX_MINUTES: Limit = closed(0.1, 10_080.0, "between 0.1 minutes and 1 week");
/// DBSCAN's eps for the batch defences, km.
pub const DBSCAN_EPS_KM: Limit = positive(100.0, "between 0 (not included) and 100 km");
/// DBSCAN's min_samples.
pub const MIN_SAMPLES: Limit = whole(1.0, 10_000.0, "a whole number from 1 to 10,000");
/// Farthest Batch's number of points.
pub const FARTHEST_NUM: Limit = whole(1.0, 1_000_000.0, "a whole number from 1 to 1,000,000");
/// Local DP's ε per release (each local step, or the update: `applied_to`).
pub const DP_EPSILON: Limit = positive(1e6, "between 0 (not included) and 1,000,000");
/// GeoInd's ε per metre (0.01 is a 200 m mean shift).
pub const GEOIND_EPSILON_PER_M: Limit = positive(
    10.0,
    "between 0 (not included) and 10 per metre (0.01 means a 200 m mean shift)",
);
/// GAN obfuscation's level ρ, the privatizer's weight on utility ([000] §4.5; 1 keeps the data,
/// smaller is more private). Bounded below: the privatizer's loss ρ·U − (1 − ρ)·L_A is
/// unbounded below as ρ → 0, where its outputs run off to infinity (the authors' logs show a
/// distortion of 6,714 standard deviations at ρ = 0); our choice, see docs/papers.md §3a.
pub const GAN_RHO: Limit = closed(0.01, 1.0, "between 0.01 and 1");
/// DP-FedAvg's noise multiplier z, sampling rate q, adaptive clipping's target quantile γ and
/// the dropout chance: the core's, the same in every lab. z ≤ 20 with C ≤ 5 keeps a phone's
/// distributed noise far inside the secure sum's ±1024 clip.
pub use whereabouts_core::privacy::central::{
    DROPOUT as DP_DROPOUT, NOISE_MULTIPLIER as DP_NOISE_MULTIPLIER, QUANTILE as DP_QUANTILE,
    SAMPLING_RATE as DP_SAMPLING_RATE,
};
/// DP-FedAvg's clip C of an update's L2 norm.
pub const DP_CLIP: Limit = positive(5.0, "between 0 (not included) and 5");
/// Under secure aggregation, the server's own clients in a round (the n − 1 attack; 0: none),
/// and the least number of genuine clients a device sends in (1: any): the core's, the same in
/// every lab.
pub use whereabouts_core::secagg::sybil::{MIN_GENUINE, SYBILS};
/// The malicious server's imprint module: its bins (each a row of the planted layer and a
/// column of the next, all through the secure sum).
pub const IMPRINT_BINS: Limit = whole(2.0, 1024.0, "a whole number from 2 to 1024");

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn limits_hold_their_ends_and_refuse_the_rest() {
        assert!(EPOCHS.contains(1.0) && EPOCHS.contains(1000.0));
        assert!(!EPOCHS.contains(0.0) && !EPOCHS.contains(1001.0) && !EPOCHS.contains(1.5));
        assert!(!LEARNING_RATE.contains(0.0) && LEARNING_RATE.contains(10.0));
        assert!(!LEARNING_RATE.contains(f64::NAN) && !LEARNING_RATE.contains(f64::INFINITY));
        let e = EPOCHS
            .check("fl.local.epochs", 0.0)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("fl.local.epochs") && e.contains("1 to 1,000"),
            "{e}"
        );
    }
}
