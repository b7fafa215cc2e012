//! A map layer's checkbox with its "?": what the layer draws and how to read it. Every lab's
//! layer list is made of these.

use crate::ui::help::help;
use leptos::prelude::*;

/// The toggle of one layer of `layers` (`get` reads it, `set` writes it); `testid` names the
/// checkbox for the tests and the help's id.
pub fn layer_toggle<L: Send + Sync + 'static>(
    layers: RwSignal<L>,
    testid: String,
    label: &'static str,
    about: &'static str,
    get: fn(&L) -> bool,
    set: fn(&mut L, bool),
) -> impl IntoView {
    let (button, text) = help(format!("help-{testid}"), label, about);
    view! {
        <div class="layer">
            <label class="check">
                <input type="checkbox" data-testid=testid
                    prop:checked=move || layers.with(get)
                    on:change=move |e| {
                        let on = event_target_checked(&e);
                        layers.update(|l| set(l, on));
                    }/>
                {label}
            </label>
            {button}
            {text}
        </div>
    }
}
