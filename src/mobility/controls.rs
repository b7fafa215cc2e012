//! The Mobility lab's controls: the visitor's route (undo, redo, a new one), the settings (each
//! with its "?") in four groups, and the map's layers.

use super::MobState;
use crate::ui::basemap::format_distance;
use crate::ui::layers::LayerToggles;
use leptos::prelude::*;
use whereabouts_core::world::roads::length;
use whereabouts_engine::mobility::settings::{ATTACK, DEFENCE, TRAINING, YOU, default_path};
use whereabouts_engine::mobility::traces::Target;

#[component]
pub fn MobControls(state: MobState) -> impl IntoView {
    let error = RwSignal::new(None::<(&'static str, String)>);
    let section = move |heading: &'static str| {
        state
            .run
            .section(heading, move |k, v| state.set_field(k, v), error)
    };
    let drawn = move || state.settings.with(super::settings::drawn);
    let hint = move || {
        state.settings.with(|c| match c.target {
            Target::Path { .. } => {
                "Phones learn to predict where you go next from your last 8 positions. Draw your route on the map (click to add waypoints, drag them): your phone travels it back and forth, a position every 10 minutes, and trains on it. Watch the server rebuild the positions from each update."
            }
            Target::Fixes { .. } => {
                "Your file's positions, in time order and one about every 10 minutes, placed on the city: your phone trains on them, and the server rebuilds them from its updates."
            }
            Target::Synthetic => {
                "The target is one of the city's own users (a bus, or a person's check-ins): the paper's setting."
            }
        })
    };
    let stats = move || {
        state.editor.with(|e| {
            let n = e.waypoints.len();
            format!(
                "{n} waypoint{} · {} as drawn",
                if n == 1 { "" } else { "s" },
                format_distance(length(&e.waypoints))
            )
        })
    };
    let route_hidden = move || state.hides("m.path") || !drawn();
    let edit = move |f: fn(&mut crate::ui::path_editor::PathEditor) -> bool| {
        let mut changed = false;
        state.editor.update(|e| changed = f(e));
        if changed {
            state.path_done();
        }
    };
    let layer = LayerToggles {
        layers: state.layers,
        prefix: "mob-layer-",
    };
    view! {
        <section class="panel controls" aria-labelledby="mob-controls-title">
            <h2 id="mob-controls-title">{YOU}</h2>
            <p class="hint">{hint}</p>
            {section(YOU)}
            <p class="stats" data-testid="mob-route" class:hidden=route_hidden>{stats}</p>
            <div class="tools" class:hidden=route_hidden>
                <button type="button" data-testid="mob-undo" prop:disabled=move || !state.editor.with(|e| e.can_undo())
                    on:click=move |_| edit(|e| e.undo())>"Undo"</button>
                <button type="button" data-testid="mob-redo" prop:disabled=move || !state.editor.with(|e| e.can_redo())
                    on:click=move |_| edit(|e| e.redo())>"Redo"</button>
                <button type="button" data-testid="mob-new-route" title="Start a new route: click on the map to add its waypoints"
                    on:click=move |_| edit(|e| { e.replace(Vec::new()); true })>"New route"</button>
                <button type="button" data-testid="mob-default-route" title="The route the lab opens with"
                    on:click=move |_| edit(|e| { e.replace(default_path()); true })>"Example"</button>
            </div>
            <h2>{ATTACK}</h2>
            {section(ATTACK)}
            <h2>{DEFENCE}</h2>
            {section(DEFENCE)}
            <h2>{TRAINING}</h2>
            {section(TRAINING)}
            <h2 class:hidden=move || state.hides("m.layers")>"Map layers"</h2>
            <div class="layers" class:hidden=move || state.hides("m.layers")>
                {layer.toggle("trail", "The server's optimisation",
                    "For the round shown, every iterate of the server's made-up window, from its start to where it stopped: how the attack moved its guesses.",
                    |l| l.trail, |l, v| l.trail = v)}
                {layer.toggle("estimates", "Averaged estimates so far",
                    "Each position's estimate averaged over the windows it was in so far (ST-GIA's calibration, [002] Eq. 9), with its distance from the truth in the card The window's positions.",
                    |l| l.estimates, |l, v| l.estimates = v)}
                {layer.toggle("streets", "Streets",
                    "The city's street network: routes follow it, and ST-GIA's mapping moves every guess onto it.",
                    |l| l.streets, |l, v| l.streets = v)}
            </div>
        </section>
    }
}
