//! # Whereabouts engine
//!
//! Everything that computes, and nothing that knows about browsers: the synthetic world, the
//! online federated learning of signal maps, the honest-but-curious server's attacks, the
//! defenses and the metrics. The web app's worker and the native CLI both drive this crate, so
//! every algorithm has one source of truth.
//!
//! Portability rule: results must not depend on the platform. Randomness comes from seeded
//! ChaCha streams, and transcendental functions go through [`libm`] (pure Rust), never through
//! the platform's C library, so the same seed gives bit-identical numbers natively and in wasm.

pub mod attack;
pub mod bench;
pub mod defense;
pub mod error;
pub mod experiments;
pub mod fl;
pub mod geo;
pub mod import;
pub mod lab;
pub mod metrics;
pub mod model;
pub mod rng;
pub mod scenario;
pub mod studies;
pub mod trace;
pub mod trajectory;
pub mod world;

/// The engine's version, shown by the app and the CLI so that exported results say what made them.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
