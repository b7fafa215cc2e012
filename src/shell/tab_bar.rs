//! The tab bar: one tab per lab, in the registry's order. Every lab stays mounted when its tab
//! is hidden, so switching back finds it exactly as it was.

use super::tabs::with_lab;
use crate::protocol::LabKind;
use leptos::prelude::*;

/// Shows `lab`'s tab in the address bar, keeping every other setting (replaceState).
fn show_in_url(lab: LabKind) {
    let Some(w) = web_sys::window() else { return };
    let query = w.location().search().unwrap_or_default();
    if let Ok(history) = w.history() {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("?{}", with_lab(&query, lab))),
        );
    }
}

/// The tab bar. Arrow keys move between tabs (the ARIA tabs pattern).
#[component]
pub fn LabTabs(active: RwSignal<LabKind>) -> impl IntoView {
    let select = move |lab: LabKind| {
        if active.get_untracked() == lab {
            return;
        }
        active.set(lab);
        show_in_url(lab);
        // A canvas that was hidden has no size; the map redraws on resize.
        if let Some(w) = web_sys::window()
            && let Ok(event) = web_sys::Event::new("resize")
        {
            let _ = w.dispatch_event(&event);
        }
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let i = LabKind::ALL
            .iter()
            .position(|l| *l == active.get_untracked())
            .unwrap_or(0);
        let n = LabKind::ALL.len();
        let next = match ev.key().as_str() {
            "ArrowRight" => (i + 1) % n,
            "ArrowLeft" => (i + n - 1) % n,
            _ => return,
        };
        ev.prevent_default();
        select(LabKind::ALL[next]);
        if let Some(el) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(&format!("tab-{}", LabKind::ALL[next].key())))
            .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
        {
            let _ = el.focus();
        }
    };
    view! {
        // The tab list inside a navigation landmark (a role on the nav itself would hide the
        // landmark).
        <nav class="lab-nav" aria-label="Labs">
        <div class="lab-tabs" role="tablist" aria-label="Labs" on:keydown=on_key>
            {LabKind::ALL
                .into_iter()
                .map(|lab| {
                    let selected = move || active.get() == lab;
                    view! {
                        <a
                            id=format!("tab-{}", lab.key())
                            role="tab"
                            class="lab-tab"
                            class:active=selected
                            href=format!("?lab={}", lab.key())
                            aria-selected=move || selected().to_string()
                            aria-controls=format!("panel-{}", lab.key())
                            tabindex=move || if selected() { "0" } else { "-1" }
                            data-testid=format!("tab-{}", lab.key())
                            on:click=move |ev| {
                                ev.prevent_default();
                                select(lab);
                            }
                        >
                            {lab.title()}
                        </a>
                    }
                })
                .collect_view()}
        </div>
        </nav>
    }
}
