//! The Linkability lab's controls: who you are and how your data is split, the federation, the
//! server's attack and what every device does against it, each with its "?".

use super::LinkState;
use super::settings::{FIELDS, Section};
use crate::ui::settings::field_control;
use leptos::prelude::*;

#[component]
pub fn LinkControls(state: LinkState) -> impl IntoView {
    let error = RwSignal::new(None::<(&'static str, String)>);
    let section = move |s: Section| {
        FIELDS
            .iter()
            .filter(move |f| f.section == s)
            .map(move |f| {
                let key = f.key;
                field_control(
                    *f,
                    move || state.settings.with(|s| s.get(key)),
                    move |v| state.set_field(key, v),
                    move || !state.hides(key) && state.settings.with(|s| s.relevant(key)),
                    error,
                )
            })
            .collect_view()
    };
    view! {
        <section class="panel controls" aria-labelledby="link-controls-title">
            <h2 id="link-controls-title">"You and your two devices"</h2>
            <p class="hint">"You own a phone and a tablet (or an old phone and a new one). Each is a separate client of the federation under its own pseudonym; both help train the signal map with what you measured. The server never learns who owns which — unless the updates tell it."</p>
            {section(Section::You)}
            <h2>"The federation"</h2>
            {section(Section::Federation)}
            <h2>"The server"</h2>
            {section(Section::Server)}
            <h2>"Against it"</h2>
            {section(Section::Mitigation)}
            <div class="tools">
                <button type="button" data-testid="link-run-again" on:click=move |_| state.restart()>"Run again"</button>
            </div>
        </section>
    }
}
