//! # Whereabouts web app
//!
//! The Leptos single-page app — a shell with one tab per lab ([`shell`]), the components every
//! lab shares ([`ui`]) and a folder per lab ([`signal_map`], [`density`], [`linkability`]) — and the Web Worker that runs the
//! labs off the UI thread ([`worker`]). Data flows one way: the UI sends [`protocol::Request`]s to the worker, the worker
//! answers with a stream of [`protocol::Response`]s, and the UI draws them.

pub mod app;
pub mod bridge;
pub mod course;
pub mod density;
pub mod fatal;
pub mod lab_spec;
pub mod labs;
pub mod linkability;
pub mod mobility;
pub mod protocol;
pub mod shell;
pub mod signal_map;
pub mod ui;
pub mod worker;

#[cfg(test)]
mod old_links;

/// Entry point of the page (called from `src/main.rs`, which says where the later labs' views
/// come from: [`shell::lab_views`]).
pub fn start_app(later: shell::lab_views::Later) {
    fatal::install_panic_hook();
    leptos::mount::mount_to_body(move || leptos::view! { <app::App later=later/> });
}
