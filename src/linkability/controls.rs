//! The Linkability lab's controls: who you are and how your data is split, the federation, the
//! server's attack and what every device does against it, each with its "?".

use super::LinkState;
use leptos::prelude::*;
use whereabouts_engine::linkability::settings::{AGAINST, FEDERATION, SERVER, YOU};

#[component]
pub fn LinkControls(state: LinkState) -> impl IntoView {
    let error = RwSignal::new(None::<(&'static str, String)>);
    let section = move |heading: &'static str| {
        state
            .run
            .section(heading, move |k, v| state.set_field(k, v), error)
    };
    view! {
        <section class="panel controls" aria-labelledby="link-controls-title">
            <h2 id="link-controls-title">{YOU}</h2>
            <p class="hint">"You own a phone and a tablet (or an old phone and a new one). Each is a separate client of the federation under its own pseudonym; both help train the signal map with what you measured. The server never learns who owns which — unless the updates tell it."</p>
            {section(YOU)}
            <h2>{FEDERATION}</h2>
            {section(FEDERATION)}
            <h2>{SERVER}</h2>
            {section(SERVER)}
            <h2>{AGAINST}</h2>
            {section(AGAINST)}
            <div class="tools">
                <button type="button" data-testid="link-run-again" title="The same settings and seed: the same numbers again" on:click=move |_| state.restart()>"Run again"</button>
                <button type="button" data-testid="link-new-draw" title="The next seed: other people, other splits, other training" on:click=move |_| {
                    let seed = state.settings.with_untracked(|c| c.seed);
                    if let Err(e) = state.set_field("l.seed", &seed.saturating_add(1).to_string()) {
                        error.set(Some((YOU, e)));
                    }
                }>"New draw"</button>
            </div>
            <p class="hint">"Run again repeats the run exactly (everything random comes from the seed); New draw takes the next seed."</p>
        </section>
    }
}
