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

/// The toggles of a lab's `layers`, each named `{prefix}{name}` for the tests and its help.
pub struct LayerToggles<L: 'static> {
    pub layers: RwSignal<L>,
    pub prefix: &'static str,
}

impl<L> Clone for LayerToggles<L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L> Copy for LayerToggles<L> {}

impl<L: Send + Sync + 'static> LayerToggles<L> {
    /// The toggle of layer `name` ([`layer_toggle`]).
    pub fn toggle(
        self,
        name: &'static str,
        label: &'static str,
        about: &'static str,
        get: fn(&L) -> bool,
        set: fn(&mut L, bool),
    ) -> impl IntoView {
        layer_toggle(
            self.layers,
            format!("{}{name}", self.prefix),
            label,
            about,
            get,
            set,
        )
    }
}
