//! Where the Density, Linkability and Mobility labs' views come from (their map, figures, study
//! and controls).
//!
//! In the site's build (`--features split`, tools/build.mjs) each lab's views are a split point
//! of the page's binary (src/main.rs): wasm-split moves the code only they reach out of the
//! page's wasm into a chunk of its own, which the page fetches the first time that lab's tab
//! shows. A first visit, which opens the Signal map, downloads only the Signal map's views
//! (issue 41 §1; BENCHMARKS.md "Download size"). In every other build (the wasm tests, trunk's)
//! there is nothing to fetch and the views are made at once.
//!
//! Only the views wait: each lab's state is made with the page, since it reads the address bar,
//! starts the lab's run and answers lessons and the instructor panel.

use crate::density::DensityState;
use crate::linkability::LinkState;
use crate::mobility::MobState;
use crate::protocol::LabKind;
use leptos::prelude::*;
use std::{future::Future, pin::Pin};

/// A lab's tab panel's two halves.
pub struct Views {
    /// The map, the figures and the study.
    pub stage: AnyView,
    /// The controls.
    pub side: AnyView,
}

/// What makes one lab's views from its state (a function of that lab's module).
pub type Make<S> = fn(S) -> Views;

/// A lab's [`Make`] on its way: here once its chunk is, or why it could not come.
pub type Fetching<S> = Pin<Box<dyn Future<Output = Result<Make<S>, String>>>>;

/// How the page gets each later lab's [`Make`].
#[derive(Clone, Copy)]
pub struct Later {
    pub density: fn() -> Fetching<DensityState>,
    pub linkability: fn() -> Fetching<LinkState>,
    pub mobility: fn() -> Fetching<MobState>,
}

impl Later {
    /// The views made here, without a fetch: every build but the site's split one, where only
    /// each lab's own split point may name its views (a function that named all three would keep
    /// them in the page's binary).
    #[cfg(not(all(feature = "split", target_family = "wasm")))]
    pub fn at_once() -> Later {
        Later {
            density: || Box::pin(std::future::ready(Ok(crate::density::views as Make<_>))),
            linkability: || Box::pin(std::future::ready(Ok(crate::linkability::views as Make<_>))),
            mobility: || Box::pin(std::future::ready(Ok(crate::mobility::views as Make<_>))),
        }
    }
}

/// What the page says when a lab's views could not be fetched.
pub fn not_fetched(kind: LabKind, why: impl std::fmt::Display) -> String {
    format!(
        "The {} lab could not be loaded ({why}). Try again, or reload the page: your settings are in the address bar.",
        kind.title()
    )
}

/// A later lab's tab panel: empty until its tab first shows, then its views once `fetch` has
/// brought them (a line says so meanwhile, and says why if they do not come, with a button that
/// fetches them again).
pub fn later_panel<S: Copy + Send + Sync + 'static>(
    kind: LabKind,
    active: RwSignal<LabKind>,
    fetch: fn() -> Fetching<S>,
    state: S,
) -> impl IntoView {
    let key = kind.key();
    // Once shown, kept: the views live on behind a hidden tab, as the Signal map's do.
    let opened =
        Memo::new(move |was: Option<&bool>| was.copied().unwrap_or(false) || active.get() == kind);
    let made: RwSignal<Option<Result<Make<S>, String>>, LocalStorage> = RwSignal::new_local(None);
    // Fetches the views (again, after a failure: wasm-split's loader keeps only a success).
    let load = move || {
        made.set(None);
        leptos::task::spawn_local(async move {
            let result = fetch().await;
            made.set(Some(result));
        });
    };
    Effect::new(move |started: Option<bool>| {
        if started == Some(true) || !opened.get() {
            return started.unwrap_or(false);
        }
        load();
        true
    });
    let panel = move || {
        match made.get() {
        None => opened.get().then(|| {
            view! {
                <p class="status lab-loading" data-testid=format!("{key}-loading") aria-live="polite">
                    {format!("Loading the {} lab…", kind.title())}
                </p>
            }
            .into_any()
        }),
        Some(Ok(make)) => {
            let Views { stage, side } = make(state);
            Some(
                view! {
                    <div class="stage">{stage}</div>
                    <aside class="side" aria-label=format!("{} settings", kind.title())>{side}</aside>
                }
                .into_any(),
            )
        }
        Some(Err(why)) => Some(
            view! {
                <p class="notice error" role="alert" data-testid=format!("{key}-not-loaded")>
                    {why}" "
                    <button type="button" data-testid=format!("{key}-retry") on:click=move |_| load()>
                        "Try again"
                    </button>
                </p>
            }
            .into_any(),
        ),
    }
    };
    view! {
        <div class="lab" id=format!("panel-{key}") role="tabpanel"
            tabindex="-1" aria-labelledby=format!("tab-{key}") hidden=move || active.get() != kind>
            {panel}
        </div>
    }
}
