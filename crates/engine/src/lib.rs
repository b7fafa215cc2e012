//! # Whereabouts engine
//!
//! The labs: one module per source system, each on the shared core ([`whereabouts_core`]):
//! [`signal_map`] (papers [000]/[001]), [`density`] ([003]), [`linkability`] ([004]: it builds
//! on the Signal map's world, model and federation through their public API, never the
//! reverse) and [`mobility`] ([002]). Each lab's `settings` module holds its settings as rows
//! (key, label, help, bound, get/set on its config): the page's controls and links and the
//! CLI's `--set` are made from them.
//!
//! The web app's worker and the native CLI both drive these modules, so every algorithm has one
//! source of truth.

pub mod config_text;
pub mod density;
pub mod linkability;
pub mod mobility;
pub mod real;
pub mod signal_map;

// The wasm tests run where this code runs on the page: in a dedicated worker of headless
// Chromium (`wasm-pack test --headless --chrome`, as `./x test` runs them), not in node.
#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);

/// The engine's version, shown by the app and the CLI so that exported results say what made them.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
