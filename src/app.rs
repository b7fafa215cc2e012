//! The page: header, the lab tabs ([`crate::shell`]), the four labs (the Signal map, Density,
//! Linkability, Mobility), the visitor's own data (shared by the labs), and the privacy footer.

use crate::labs::MENU;
use crate::ui::lesson::{self, Apply};
use crate::{
    density as density_lab, linkability as link_lab, mobility as mob_lab,
    protocol::Request,
    shell::{
        data::{DataPanel, DataState},
        engine::{Engine, EngineStatus},
        instructor::{present_from_query, present_mode},
        lab_views::{Later, later_dialog, later_panel},
        tab_bar::LabTabs,
        tabs::{LabKind, current_lab},
    },
    signal_map::{
        self,
        controls::{Controls, Playback},
        map::LabMap,
        results::Results,
        study::Studies,
    },
};
use leptos::prelude::*;

/// The page; `later` brings the Density, Linkability and Mobility labs' views when their tab
/// first shows ([`crate::shell::lab_views`]).
#[component]
pub fn App(later: Later) -> impl IntoView {
    let engine = Engine::spawn();
    let data = DataState::new(engine);
    // What the link said, kept before the first lab rewrites the address bar.
    crate::shell::run::opening_query();
    let lab = signal_map::create(engine, data);
    let status = engine.status;

    let query = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    let open_lesson: lesson::Open = RwSignal::new(lesson::from_query(&query, &MENU));
    let active = RwSignal::new(
        open_lesson
            .get_untracked()
            .map_or(current_lab(), |(l, s)| l.lab_at(s)),
    );
    let density = density_lab::create(engine, data, active);
    let linkability = link_lab::create(engine, data, active);
    let mobility = mob_lab::create(engine, data, active);
    // A lesson shows its own lab.
    Effect::new(move |_| {
        if let Some((l, s)) = open_lesson.get() {
            active.set(l.lab_at(s));
        }
    });
    let apply: Apply = Callback::new(move |(kind, settings, rounds)| match kind {
        LabKind::Signal => lab.set_state(settings, rounds),
        LabKind::Density => density.set_state(settings),
        LabKind::Linkability => linkability.set_state(settings),
        LabKind::Mobility => mobility.set_state(settings),
    });
    // A new version of the site is installed and waiting (the loader's service worker code).
    let update_ready = RwSignal::new(false);
    let on_update =
        window_event_listener_untyped("whereabouts-update", move |_| update_ready.set(true));
    on_cleanup(move || on_update.remove());
    let apply_update = move |_| {
        if let (Some(w), Ok(e)) = (
            web_sys::window(),
            web_sys::Event::new("whereabouts-apply-update"),
        ) {
            let _ = w.dispatch_event(&e);
        }
    };
    let instructor = RwSignal::new(false);
    let glossary = RwSignal::new(
        query
            .trim_start_matches('?')
            .split('&')
            .any(|p| p == "glossary" || p.starts_with("glossary=")),
    );
    let present = RwSignal::new(present_from_query(&query));
    present_mode(present);
    // Only the visible lab computes: the worker is told which tab shows, and leaving the
    // Signal map pauses its playback.
    Effect::new(move |_| {
        let shown = active.get();
        if shown != LabKind::Signal {
            lab.playing.set(false);
        }
        lab.send(Request::Show { lab: shown });
    });

    // The skip link focuses the open lab's panel (without a #fragment in the address bar).
    let skip = move |e: leptos::ev::MouseEvent| {
        e.prevent_default();
        if let Some(panel) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(&format!("panel-{}", active.get_untracked().key())))
            .and_then(|el| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el).ok())
        {
            let _ = panel.focus();
        }
    };
    let hidden = move |key: &'static str| move || lab.hidden.with(|h| h.iter().any(|k| k == key));
    view! {
        <a class="skip-link" href=move || format!("#panel-{}", active.get().key()) on:click=skip>"Skip to the lab"</a>
        <header class="site-header">
            <div class="brand">
                <svg class="logo" viewBox="0 0 24 24" aria-hidden="true">
                    <path d="M12 2a7 7 0 0 0-7 7c0 5.2 7 13 7 13s7-7.8 7-13a7 7 0 0 0-7-7zm0 9.5A2.5 2.5 0 1 1 12 6.5a2.5 2.5 0 0 1 0 5z"/>
                </svg>
                <div>
                    <h1>"Whereabouts"</h1>
                    <p class="tagline">
                        "How much of your whereabouts leaks out of federated learning — and what stops it."
                    </p>
                </div>
            </div>
            <div class="header-tools">
            <details class="lessons-menu" data-testid="lessons-menu">
                <summary>"Lessons"</summary>
                <ul>
                    {MENU.iter().map(|l| view! {
                        <li><a href=format!("?lesson={}", l.key) data-testid=format!("lesson-link-{}", l.key)
                            on:click=move |e| {
                                e.prevent_default();
                                open_lesson.set(Some((l, 0)));
                                if let Some(d) = wasm_bindgen::JsCast::dyn_ref::<web_sys::Element>(&event_target::<web_sys::EventTarget>(&e))
                                    .and_then(|a| a.closest("details").ok().flatten())
                                {
                                    let _ = d.remove_attribute("open");
                                }
                            }>
                            <strong>{l.lab_title()}</strong>" — "{l.title}
                        </a></li>
                    }).collect_view()}
                </ul>
            </details>
            <button type="button" data-testid="glossary-toggle" aria-expanded=move || glossary.get().to_string()
                on:click=move |_| glossary.update(|o| *o = !*o)>"Glossary"</button>
            <button type="button" data-testid="instructor-toggle" aria-expanded=move || instructor.get().to_string()
                on:click=move |_| instructor.update(|o| *o = !*o)>"For instructors"</button>
            <button type="button" class="present-exit" data-testid="present-exit" class:hidden=move || !present.get()
                on:click=move |_| present.set(false)>"Leave present mode (Esc)"</button>
            <details class="privacy-badge" data-testid="privacy-badge">
                <summary>
                    <svg class="lock" viewBox="0 0 24 24" aria-hidden="true">
                        <path d="M17 9V7a5 5 0 0 0-10 0v2H5v13h14V9h-2zM9 7a3 3 0 0 1 6 0v2H9V7zm4 9.7V19h-2v-2.3a2 2 0 1 1 2 0z"/>
                    </svg>
                    "Nothing leaves this tab"
                </summary>
                <p>
                    "Everything here — the phones' training, the curious server, its attack and the
                    defences — runs inside this browser tab, in WebAssembly. After the page has
                    loaded it makes no network requests: no map tiles, no fonts, no analytics. A
                    Content-Security-Policy forbids them, and our tests check it."
                </p>
            </details>
            </div>
        </header>
        <p class="notice update-notice" role="status" data-testid="update-notice" class:hidden=move || !update_ready.get()>
            "A new version of Whereabouts is ready (it works offline too). "
            <button type="button" class="link" on:click=apply_update>"Reload to use it"</button>
            " — your settings are in the address bar and stay."
        </p>
        <LabTabs active=active/>
        <div class="instructor-wrap" class:hidden=move || !instructor.get()>
            {later_dialog("instructor", "the instructor's panel", instructor.into(), later.instructor, move |make| make(instructor, active))}
        </div>
        <div class="instructor-wrap" class:hidden=move || !glossary.get()>
            {later_dialog("glossary", "the glossary", glossary.into(), later.glossary, move |make| make(glossary))}
        </div>
        <div class="lesson-wrap" class:hidden=move || open_lesson.with(Option::is_none)>
            {later_dialog("lesson", "the lesson", Signal::derive(move || open_lesson.with(Option::is_some)), later.lesson, move |make| make(open_lesson, apply))}
        </div>
        // The page's one main landmark: the four labs' tab panels.
        <main class="labs">
            {lab_panel(LabKind::Signal, active, view! {
                <section class="map-panel" aria-label="Map">
                    <LabMap state=lab/>
                </section>
                <Playback state=lab/>
                <Results state=lab exports=later.exports/>
                <Studies state=lab/>
                <p class="status" data-testid="engine-status" aria-live="polite" class:hidden=hidden("status")
                    class:ready=move || matches!(status.get(), EngineStatus::Ready { .. })
                    class:failed=move || matches!(status.get(), EngineStatus::Failed(_))
                    data-kernel=move || engine.kernel.get()>
                    {move || status.get().describe()}
                    {move || engine.kernel.get().filter(|k| k == "simd128").map(|_| ", with wasm SIMD for its attacks")}
                </p>
            }, view! { <Controls state=lab/> })}
            {later_panel(LabKind::Density, active, later.density, density)}
            {later_panel(LabKind::Linkability, active, later.linkability, linkability)}
            {later_panel(LabKind::Mobility, active, later.mobility, mobility)}
        </main>
        // The visitor's own data, shared by every lab (each may hide it from its link).
        <div class="shared-data">
            <DataPanel state=data hidden=Signal::derive(move || match active.get() {
                LabKind::Signal => hidden("data")(),
                LabKind::Density => density.hides("d.data"),
                LabKind::Linkability => linkability.hides("l.data"),
                LabKind::Mobility => mobility.hides("m.data"),
            })/>
        </div>
        <footer class="site-footer">
            <p>
                "Whereabouts re-implements “Location Leakage in Federated Signal Maps” (Bakopoulou,
                Yang, Zhang, Psounis, Markopoulou), “Privacy by Projection: Federated Population
                Density Estimation by Projecting on Random Features” (Zong, Yang, Ley, Butts,
                Markopoulou), “Understanding and Controlling User Linkability in Decentralized
                Learning” (Orekondy, Oh, Schiele, Fritz), “Enhancing Privacy of Spatiotemporal
                Federated Learning against Gradient Inversion Attacks” (Zheng, Cao, Jiang, Taura,
                Shen, Li, Yoshikawa) and related work, in Rust and WebAssembly."
            </p>
        </footer>
    }
}

/// The Signal map's tab panel (shown while its tab is the active one): its `stage` (map, results,
/// study) beside its `side` (the controls).
fn lab_panel(
    kind: LabKind,
    active: RwSignal<LabKind>,
    stage: impl IntoView + 'static,
    side: impl IntoView + 'static,
) -> impl IntoView {
    let key = kind.key();
    view! {
        <div class="lab" id=format!("panel-{key}") role="tabpanel"
            tabindex="-1" aria-labelledby=format!("tab-{key}") hidden=move || active.get() != kind>
            <div class="stage">{stage}</div>
            <aside class="side" aria-label=format!("{} settings", kind.title())>{side}</aside>
        </div>
    }
}
