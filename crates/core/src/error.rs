//! Errors that name what is wrong and where, for people to read.

use std::fmt;

/// A configuration value the engine refuses (it never clamps silently).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The setting, as named in config files and URLs (e.g. `mobility.weeks`).
    pub field: String,
    pub problem: String,
}

impl ConfigError {
    pub fn new(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            problem: problem.into(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.problem)
    }
}

impl std::error::Error for ConfigError {}
