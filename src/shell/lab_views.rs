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
//!
//! The glossary, the instructor's panel and the lesson panel come the same way, the first time
//! they open ([`later_dialog`]): the glossary's terms and the lessons are long prose, which was
//! a fifth of the page's first download gzipped. The page keeps what it needs of the lessons
//! before then (the lessons menu, `?lesson=`): their [`crate::labs::MENU`].

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

/// Something the page fetches later, on its way: here once its chunk is, or why it could not
/// come.
pub type Pending<T> = Pin<Box<dyn Future<Output = Result<T, String>>>>;

/// A lab's [`Make`] on its way.
pub type Fetching<S> = Pending<Make<S>>;

/// What makes the glossary panel, given whether it is open.
pub type MakeGlossary = fn(RwSignal<bool>) -> AnyView;

/// What makes the instructor's panel, given whether it is open and the lab showing.
pub type MakeInstructor = fn(RwSignal<bool>, RwSignal<LabKind>) -> AnyView;

/// What makes the lesson panel, given the lesson and step showing and how a step sets its lab.
pub type MakeLesson = fn(crate::ui::lesson::Open, crate::ui::lesson::Apply) -> AnyView;

/// How the page gets each later lab's [`Make`], the glossary's, the instructor's panel's and the
/// lesson panel's, and the Signal map's CSV and JSON exports.
#[derive(Clone, Copy)]
pub struct Later {
    pub density: fn() -> Fetching<DensityState>,
    pub linkability: fn() -> Fetching<LinkState>,
    pub mobility: fn() -> Fetching<MobState>,
    pub glossary: fn() -> Pending<MakeGlossary>,
    pub instructor: fn() -> Pending<MakeInstructor>,
    pub lesson: fn() -> Pending<MakeLesson>,
    pub exports: fn() -> Pending<crate::signal_map::export::Exports>,
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
            glossary: || Box::pin(std::future::ready(Ok(crate::shell::glossary::panel as _))),
            instructor: || Box::pin(std::future::ready(Ok(crate::shell::instructor::panel as _))),
            lesson: || Box::pin(std::future::ready(Ok(crate::ui::lesson::panel as _))),
            exports: || Box::pin(std::future::ready(Ok(crate::signal_map::export::EXPORTS))),
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

/// What the page says when a panel (`what`: "the glossary") could not be fetched.
pub fn panel_not_fetched(what: &str, why: impl std::fmt::Display) -> String {
    format!("{what} could not be loaded ({why}). Try again, or reload the page.")
}

/// What a fetch brought: nothing yet, the thing, or why it did not come.
type Made<T> = RwSignal<Option<Result<T, String>>, LocalStorage>;

/// What `fetch` brought (none yet), fetched once `opened` first holds, and a function that
/// fetches it again (after a failure: wasm-split's loader keeps only a success).
fn fetched_when<T: Copy + 'static>(
    opened: impl Fn() -> bool + 'static,
    fetch: fn() -> Pending<T>,
) -> (Made<T>, impl Fn() + Copy + 'static) {
    let made: Made<T> = RwSignal::new_local(None);
    let load = move || {
        made.set(None);
        leptos::task::spawn_local(async move {
            let result = fetch().await;
            made.set(Some(result));
        });
    };
    Effect::new(move |started: Option<bool>| {
        if started == Some(true) || !opened() {
            return started.unwrap_or(false);
        }
        load();
        true
    });
    (made, load)
}

/// The line that says why something could not be fetched, with a button that fetches it again.
fn not_loaded(key: &'static str, why: String, load: impl Fn() + 'static) -> AnyView {
    view! {
        <p class="notice error" role="alert" data-testid=format!("{key}-not-loaded")>
            {why}" "
            <button type="button" data-testid=format!("{key}-retry") on:click=move |_| load()>
                "Try again"
            </button>
        </p>
    }
    .into_any()
}

/// A panel's place on the page (`key`: its test id's stem; `what`: its name in a sentence):
/// nothing until it first opens, then what `show` makes of what `fetch` brought (a line says so
/// meanwhile, or why it did not come, with "Try again").
pub fn later_dialog<T: Copy + 'static>(
    key: &'static str,
    what: &'static str,
    open: Signal<bool>,
    fetch: fn() -> Pending<T>,
    show: impl Fn(T) -> AnyView + Send + Sync + 'static,
) -> impl IntoView {
    let (made, load) = fetched_when(move || open.get(), fetch);
    move || {
        match made.get() {
        None => open.get().then(|| {
            view! {
                <p class="status panel" data-testid=format!("{key}-loading") aria-live="polite">{format!("Loading {what}…")}</p>
            }
            .into_any()
        }),
        Some(Ok(make)) => Some(show(make)),
        Some(Err(why)) => Some(not_loaded(key, why, load)),
    }
    }
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
    let (made, load) = fetched_when(move || opened.get(), fetch);
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
        Some(Err(why)) => Some(not_loaded(key, why, load)),
    }
    };
    view! {
        <div class="lab" id=format!("panel-{key}") role="tabpanel"
            tabindex="-1" aria-labelledby=format!("tab-{key}") hidden=move || active.get() != kind>
            {panel}
        </div>
    }
}
