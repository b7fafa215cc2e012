//! # Whereabouts engine
//!
//! The labs: one module per source system, each on the shared core ([`whereabouts_core`]) and
//! none reaching into another. Today: [`signal_map`] (papers [000]/[001]) and [`density`]
//! ([003]). Linkability ([004]) and Mobility ([002]) follow as sibling modules (docs/papers.md).
//!
//! The web app's worker and the native CLI both drive these modules, so every algorithm has one
//! source of truth.

pub mod config_text;
pub mod density;
pub mod linkability;
pub mod mobility;
pub mod signal_map;

/// The engine's version, shown by the app and the CLI so that exported results say what made them.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
