//! The "?" beside a setting or a figure: a toggle button and the text it shows, in the page's
//! flow (below the control, pushing what follows down), so an open help never covers another
//! control. It closes on its button, on Escape and on a click anywhere else.

use leptos::{ev, prelude::*};
use wasm_bindgen::JsCast;

/// The "?" button and its text. `id` must be unique on the page; `about` names what it
/// explains (for screen readers: "About Seed"). Place the two parts where the layout wants
/// them: the button beside the label, the text on its own row.
pub fn help(
    id: String,
    about: &str,
    text: &'static str,
) -> (impl IntoView + use<>, impl IntoView + use<>) {
    let open = RwSignal::new(false);
    let button_id = format!("{id}-button");
    let inside = {
        let (id, button_id) = (id.clone(), button_id.clone());
        move |target: Option<web_sys::EventTarget>| {
            target
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|e| e.closest(&format!("#{id}, #{button_id}")).ok().flatten())
                .is_some()
        }
    };
    let on_click = window_event_listener(ev::click, move |e| {
        if open.get_untracked() && !inside(e.target()) {
            open.set(false);
        }
    });
    let on_key = window_event_listener(ev::keydown, {
        let button_id = button_id.clone();
        move |e| {
            if e.key() == "Escape" && open.get_untracked() {
                open.set(false);
                // Back to the button, so the keyboard user is where they were.
                if let Some(b) = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.get_element_by_id(&button_id))
                    .and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok())
                {
                    let _ = b.focus();
                }
            }
        }
    });
    on_cleanup(move || {
        on_click.remove();
        on_key.remove();
    });
    let button = view! {
        <button type="button" class="help-toggle" id=button_id aria-label=format!("About {about}")
            aria-expanded=move || open.get().to_string() aria-controls=id.clone()
            on:click=move |_| open.update(|o| *o = !*o)>"?"</button>
    };
    let text = view! {
        <p class="help-text" id=id role="note" hidden=move || !open.get()>{text}</p>
    };
    (button, text)
}
