//! The Linkability lab (paper [004], Orekondy et al., "Understanding and Controlling User
//! Linkability in Decentralized Learning", arXiv 1805.05838v1): people own two devices, each a
//! pseudonymous client of the signal map's federation; the honest-but-curious server links a
//! person's devices from their updates alone, and the client-side mitigations of §9 try to
//! stop it.
//!
//! The federation is the signal map's (its world, model and local training, used through
//! `signal_map`'s public API: this lab builds on that one, never the reverse).
//!
//! population (two devices each, §4.1; §7 splits) → federation (update log, §6; or only the
//! sum, or the sum + central DP: `central_dp`) → attacks (§6: identification, matching;
//! beyond: unlabelled, by place) → metrics (§8.2) → mitigations (§9).

pub mod attack;
#[cfg(not(target_arch = "wasm32"))]
pub mod bench;
pub mod central_dp;
pub mod config;
pub mod experiments;
pub mod features;
pub mod federation;
pub mod kmeans;
pub mod lab;
pub mod limits;
pub mod metrics;
pub mod mitigation;
pub mod model;
pub mod population;
pub mod scenario;
pub mod settings;
pub mod study;

#[cfg(test)]
mod central_dp_tests;
#[cfg(test)]
mod secure_tests;
#[cfg(test)]
mod tests;
