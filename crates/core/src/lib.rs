//! # Whereabouts core
//!
//! What every lab shares and no lab owns: geometry ([`geo`]), seeded portable randomness
//! ([`rng`]), configuration errors ([`error`]) and bounds ([`limit`]), metrics ([`metrics`]),
//! the import parsers for people's own GPS files ([`import`]), the synthetic people and their routines ([`world`]),
//! clustering ([`dbscan`]), privacy mechanisms on plain vectors and locations ([`privacy`]),
//! the attacks' dual numbers ([`dual`]) and Adam ([`optim`]),
//! federated-learning plumbing ([`fl`]), secure aggregation ([`secagg`]: Bonawitz et al.'s
//! protocol and SecAgg+, simulated in one process), the interface every lab's engine implements
//! ([`driver`]), the study runner ([`study`]), studies as sweeps of independent points
//! ([`sweep`]) and their tables ([`table`]). No lab is a dependency: the compiler keeps the boundary.
//!
//! Portability rule: results must not depend on the platform beyond float rounding.
//! Randomness comes from seeded ChaCha streams, and transcendental functions go through
//! [`libm`] (pure Rust), never through the platform's C library.

pub mod dbscan;
pub mod driver;
pub mod dual;
pub mod error;
pub mod fl;
pub mod geo;
pub mod import;
pub mod limit;
pub mod membership;
pub mod metrics;
pub mod nan;
pub mod optim;
pub mod order;
pub mod privacy;
pub mod rng;
pub mod secagg;
pub mod setting;
pub mod stats;
pub mod study;
pub mod sweep;
pub mod table;
pub mod unicity;
pub mod world;

// The wasm tests run where this code runs on the page: in a dedicated worker of headless
// Chromium (`wasm-pack test --headless --chrome`, as `./x test` runs them), not in node.
#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);
