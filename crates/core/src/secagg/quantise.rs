//! Updates in and out of Z_{2^32}: f32 coordinates clipped, scaled to fixed point and summed
//! with wrapping u32 arithmetic, the sum read back as a signed number.
//!
//! - **Clip.** Each coordinate is clipped to [−c, c] (the caller's c; a non-finite coordinate is
//!   refused, not clipped).
//! - **Scale.** q = round(x · scale), half away from zero, then kept within [−m, m] with
//!   m = ⌊c · scale⌋, and stored as its two's-complement u32.
//! - **No wrap.** The sum of n such values lies in [−n·m, n·m]; with n·m ≤ 2^31 − 1 it is a
//!   valid i32, so reading the u32 sum as i32 gives it exactly. [`Quantiser::new`] refuses a
//!   scale that breaks this for the cohort; [`Quantiser::for_cohort`] takes the largest that
//!   keeps it: m = ⌊(2^31 − 1)/n⌋, scale = m / c (1,000 clients, c = 1: scale ≈ 2.1·10^6, a
//!   step of 4.7·10^−7).
//! - **Error.** One coordinate is off by at most 1/(2·scale) after clipping, the sum of n by
//!   at most n/(2·scale).

use crate::error::ConfigError;
use crate::secagg::error::{Round, SecAggError};

/// The largest |sum| an i32 holds.
pub const SUM_LIMIT: u64 = (1 << 31) - 1;

/// How a cohort's updates become words and their sum becomes floats again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quantiser {
    /// The cohort it is made for: at most this many clients may be summed.
    clients: usize,
    clip: f32,
    scale: f64,
    /// m = ⌊c · scale⌋: the largest |q| of one coordinate.
    max_word: u32,
}

impl Quantiser {
    /// For a cohort of `clients`, coordinates clipped to [−clip, clip] and multiplied by
    /// `scale`: refused when n · ⌊clip · scale⌋ could pass 2^31 − 1 (the sum would wrap).
    pub fn new(clients: usize, clip: f32, scale: f64) -> Result<Self, ConfigError> {
        if clients == 0 {
            return Err(ConfigError::new(
                "secagg.n",
                "a cohort needs at least one client",
            ));
        }
        if !(clip.is_finite() && clip > 0.0) {
            return Err(ConfigError::new(
                "secagg.clip",
                format!("must be a positive number, not {clip}"),
            ));
        }
        if !(scale.is_finite() && scale > 0.0) {
            return Err(ConfigError::new(
                "secagg.scale",
                format!("must be a positive number, not {scale}"),
            ));
        }
        let m = libm::floor(f64::from(clip) * scale);
        if m < 1.0 {
            return Err(ConfigError::new(
                "secagg.scale",
                format!(
                    "{scale} is too small for the clip {clip}: every coordinate would round to 0"
                ),
            ));
        }
        let most = SUM_LIMIT / clients as u64;
        if m > most as f64 {
            return Err(ConfigError::new(
                "secagg.scale",
                format!(
                    "{scale} can overflow 32 bits for the clip {clip} and {clients} clients: \
                     n · ⌊clip · scale⌋ = {clients} · {m} exceeds 2^31 − 1; the largest safe \
                     scale is {}",
                    most as f64 / f64::from(clip)
                ),
            ));
        }
        Ok(Self {
            clients,
            clip,
            scale,
            max_word: m as u32,
        })
    }

    /// The finest scale that cannot wrap for `clients` clients: m = ⌊(2^31 − 1)/n⌋.
    pub fn for_cohort(clients: usize, clip: f32) -> Result<Self, ConfigError> {
        if clients == 0 {
            return Self::new(clients, clip, 1.0);
        }
        let m = SUM_LIMIT / clients as u64;
        Self::new(clients, clip, m as f64 / f64::from(clip))
    }

    /// The most clients whose words may be summed without wrapping.
    pub fn clients(&self) -> usize {
        self.clients
    }

    pub fn clip(&self) -> f32 {
        self.clip
    }

    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// m: the largest |word| one client sends (as a signed value).
    pub fn max_word(&self) -> u32 {
        self.max_word
    }

    /// The most one coordinate moves in the round trip, clipping aside: 1/(2·scale).
    pub fn step_error(&self) -> f64 {
        0.5 / self.scale
    }

    /// Client `client`'s update as words; a NaN or infinite coordinate is refused.
    pub fn quantise(&self, client: u32, update: &[f32]) -> Result<Vec<u32>, SecAggError> {
        let m = f64::from(self.max_word);
        update
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                if !x.is_finite() {
                    return Err(SecAggError::ClientAbort {
                        round: Round::MaskedInputCollection,
                        client,
                        problem: format!("coordinate {i} of its update is {x}"),
                    });
                }
                let clipped = f64::from(x.clamp(-self.clip, self.clip));
                let q = libm::round(clipped * self.scale).clamp(-m, m) as i32;
                Ok(q as u32)
            })
            .collect()
    }

    /// One client's words back as floats (a quantised update, unmasked).
    pub fn unquantise(&self, words: &[u32]) -> Vec<f32> {
        words
            .iter()
            .map(|&w| (f64::from(w as i32) / self.scale) as f32)
            .collect()
    }

    /// The unmasked sum of the cohort's words as floats: the wrapping u32 sum read as i32
    /// (exact while no more than n clients summed), divided by the scale.
    pub fn unquantise_sum(&self, sum: &[u32]) -> Vec<f32> {
        self.unquantise(sum)
    }
}

/// The plain wrapping sum of quantised vectors (what secure aggregation must give exactly).
pub fn wrapping_sum<'a>(len: usize, vectors: impl IntoIterator<Item = &'a [u32]>) -> Vec<u32> {
    let mut sum = vec![0u32; len];
    for v in vectors {
        for (s, &w) in sum.iter_mut().zip(v) {
            *s = s.wrapping_add(w);
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn round_trip_within_half_a_step_and_clipping() {
        let q = Quantiser::for_cohort(100, 0.5).unwrap();
        assert_eq!(q.max_word(), 21_474_836);
        let xs: Vec<f32> = (0..2001).map(|i| (i as f32 - 1000.0) / 1000.0).collect();
        let words = q.quantise(0, &xs).unwrap();
        let back = q.unquantise(&words);
        for (&x, &y) in xs.iter().zip(&back) {
            let want = x.clamp(-0.5, 0.5);
            assert!(
                f64::from((y - want).abs()) <= q.step_error() + 1e-7,
                "{x} → {y}"
            );
        }
        // Clipped at ±c exactly.
        assert_eq!(back[0], -0.5);
        assert_eq!(back[2000], 0.5);
        assert!(q.quantise(3, &[1.0, f32::NAN]).is_err());
    }

    /// The extreme cohort (every client at +c, or every one at −c) sums without wrapping; one
    /// client more would wrap, and the quantiser refuses the scale that allows it.
    #[test]
    fn the_no_wrap_bound_holds_at_its_edge() {
        for n in [1usize, 2, 10, 100, 1000, 12345] {
            let q = Quantiser::for_cohort(n, 2.0).unwrap();
            let m = q.max_word();
            assert!(n as u64 * u64::from(m) <= SUM_LIMIT);
            for sign in [1.0f32, -1.0] {
                let one = q.quantise(0, &[sign * 5.0]).unwrap();
                let sum = wrapping_sum(1, (0..n).map(|_| one.as_slice()));
                assert_eq!(
                    i64::from(sum[0] as i32),
                    sign as i64 * n as i64 * i64::from(m)
                );
                let back = q.unquantise_sum(&sum)[0];
                assert!((back - sign * 2.0 * n as f32).abs() <= n as f32 * 1e-6 * 4.0);
            }
            // n + 1 clients at +c pass 2^31 − 1 when m is at its largest: the bound is tight.
            assert!((n as u64 + 1) * u64::from(m) > SUM_LIMIT, "n = {n}");
        }
        // A scale that could wrap is refused with the setting and the value named.
        let e = Quantiser::new(1000, 1.0, 3.0e6).unwrap_err();
        assert_eq!(e.field, "secagg.scale");
        assert!(e.problem.contains("overflow 32 bits"), "{e}");
        assert!(Quantiser::new(1000, 1.0, 2.0e6).is_ok());
        assert!(Quantiser::new(10, 0.0, 1.0).is_err());
        assert!(Quantiser::new(10, 1.0, 0.1).is_err());
    }
}
