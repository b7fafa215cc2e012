//! # Whereabouts web app
//!
//! The Leptos single-page app — a shell with one tab per lab ([`shell`]) — and the Web Worker
//! that runs the engine off the UI thread. Data flows one way: the UI sends [`protocol::Request`]s to the worker, the worker
//! answers with a stream of [`protocol::Response`]s, and the UI draws them.

pub mod app;
pub mod basemap;
pub mod bridge;
pub mod fatal;
pub mod importer;
pub mod lab;
pub mod protocol;
pub mod shell;
pub mod worker;

/// Entry point of the page (called from `src/main.rs`).
pub fn start_app() {
    fatal::install_panic_hook();
    leptos::mount::mount_to_body(app::App);
}
