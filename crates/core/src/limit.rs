//! A bound on a numeric setting, in one place: a lab's engine refuses what lies outside and its
//! page's controls and URL parser read the same constant, so the two cannot disagree.

use crate::error::ConfigError;

/// The values a numeric setting may take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limit {
    pub min: f64,
    /// The minimum itself is refused (a quantity that must be positive).
    pub min_exclusive: bool,
    pub max: f64,
    /// Whole numbers only.
    pub whole: bool,
    /// The bound in words, for messages: "must be {text}".
    pub text: &'static str,
}

impl Limit {
    pub fn contains(&self, x: f64) -> bool {
        x.is_finite()
            && (!self.whole || x.fract() == 0.0)
            && if self.min_exclusive {
                x > self.min
            } else {
                x >= self.min
            }
            && x <= self.max
    }

    /// `x`, or an error naming `field`, the bound and `x`.
    pub fn check(&self, field: &str, x: f64) -> Result<f64, ConfigError> {
        if self.contains(x) {
            Ok(x)
        } else {
            Err(ConfigError::new(
                field,
                format!("must be {} (not {x})", self.text),
            ))
        }
    }
}

/// Whole numbers from `min` to `max`.
pub const fn whole(min: f64, max: f64, text: &'static str) -> Limit {
    Limit {
        min,
        min_exclusive: false,
        max,
        whole: true,
        text,
    }
}

/// Any number from `min` to `max`.
pub const fn closed(min: f64, max: f64, text: &'static str) -> Limit {
    Limit {
        min,
        min_exclusive: false,
        max,
        whole: false,
        text,
    }
}

/// Above 0, up to `max`.
pub const fn positive(max: f64, text: &'static str) -> Limit {
    Limit {
        min: 0.0,
        min_exclusive: true,
        max,
        whole: false,
        text,
    }
}

/// The seed: any whole number a URL (a JavaScript number) carries exactly.
pub const SEED: Limit = whole(
    0.0,
    9_007_199_254_740_991.0,
    "a whole number from 0 to 2⁵³ − 1",
);
