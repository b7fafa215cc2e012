//! The lab's controls: playback, the path tools, the settings (with explanations) and layers.

use super::LabState;
use crate::ui::layers::LayerToggles;
use leptos::{ev, prelude::*};
use whereabouts_core::setting::Setting;
use whereabouts_engine::signal_map::scenario::ScenarioConfig;
use whereabouts_engine::signal_map::settings::{
    ATTACK, DEFENCE, FEDERATION, SETTINGS, TRAJECTORY, WORLD,
};
use whereabouts_engine::signal_map::trajectory::TrajectoryPreset;

fn is_hidden(state: LabState, key: &'static str) -> impl Fn() -> bool + Copy {
    move || is_hidden_key(state, key)
}

/// True if the link hides the control or group `key` (tracked).
fn is_hidden_key(state: LabState, key: &str) -> bool {
    state.hides(key)
}

/// Play / pause / step / reset and the round timeline.
#[component]
pub fn Playback(state: LabState) -> impl IntoView {
    let total = move || state.scene.with(|s| s.total_rounds);
    let shown = move || state.wanted.get().min(total());
    let current = move || {
        state
            .selected
            .get()
            .unwrap_or_else(|| shown().saturating_sub(1))
    };
    let label = move || {
        if total() == 0 {
            "No rounds yet".to_string()
        } else if shown() == 0 {
            format!("{} rounds ready to play", total())
        } else {
            format!("Round {} of {}", current() + 1, total())
        }
    };
    // Space toggles play unless typing in a field.
    let keys = window_event_listener(ev::keydown, move |e| {
        let typing = e
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .is_some_and(|el| {
                matches!(
                    el.tag_name().as_str(),
                    "INPUT" | "SELECT" | "TEXTAREA" | "BUTTON"
                )
            });
        // With the playback hidden (an instructor's link), Space does not play either.
        if e.key() == " " && !typing && !is_hidden(state, "playback")() {
            e.prevent_default();
            state.toggle_play();
        }
    });
    on_cleanup(move || keys.remove());
    view! {
        // Hiding the playback hides its controls, never the round it shows (a readout).
        <div class="playback" role="group" aria-label="Playback">
            <button type="button" class="primary" data-testid="play" class:hidden=is_hidden(state, "playback")
                aria-label=move || if state.playing.get() { "Pause" } else { "Play" }
                on:click=move |_| state.toggle_play()>
                {move || if state.playing.get() { "❚❚ Pause" } else { "▶ Play" }}
            </button>
            <button type="button" data-testid="step" class:hidden=is_hidden(state, "playback") on:click=move |_| state.step()
                title="Train and attack one more round">"Step"</button>
            <button type="button" data-testid="reset" class:hidden=is_hidden(state, "playback") on:click=move |_| state.reset()
                title="Back to round 0">"Reset"</button>
            <input type="range" data-testid="timeline" aria-label="Round shown" min="0" class:hidden=is_hidden(state, "playback")
                prop:max=move || shown().saturating_sub(1).to_string()
                prop:value=move || current().to_string()
                prop:disabled=move || shown() < 2
                on:input=move |e| {
                    if let Ok(v) = event_target_value(&e).parse::<usize>() {
                        state.playing.set(false);
                        state.selected.set(if v + 1 >= shown() { None } else { Some(v) });
                    }
                }/>
            <span class="round-label" data-testid="round-label" aria-live="polite">{label}</span>
        </div>
    }
}

/// The settings panel.
#[component]
pub fn Controls(state: LabState) -> impl IntoView {
    let error = RwSignal::new(None::<(&'static str, String)>);
    let section = move |heading: &'static str| {
        state
            .run
            .section(heading, move |k, v| state.set_field(k, v), error)
    };
    // A heading whose every control is hidden (by `hide=`, or not relevant) goes too; `extra`:
    // a control under it that is not a setting ("New world" goes with `seed`).
    let empty = move |heading: &'static str, extra: &'static str| {
        move || {
            let shown = |s: &Setting<ScenarioConfig>| {
                !is_hidden_key(state, s.key) && state.settings.with(s.relevant)
            };
            !SETTINGS.iter().filter(|s| s.section == heading).any(shown)
                && (extra.is_empty() || is_hidden_key(state, extra))
        }
    };
    let stats = move || {
        let n = state.editor.with(|e| e.waypoints.len());
        let (len, legs) = state.editor.with(|e| {
            (
                e.waypoints
                    .windows(2)
                    .map(|w| w[0].distance(&w[1]))
                    .sum::<f64>(),
                e.waypoints.len().saturating_sub(1).max(1),
            )
        });
        if n == 0 {
            return "No path: click or drag on the map to draw where you went.".to_string();
        }
        let leg_minutes = state
            .settings
            .with(|c| c.trajectory.as_ref().map_or(0.0, |t| t.leg_minutes));
        let hours = legs as f64 * leg_minutes / 60.0;
        format!(
            "{} · {:.1} km · {} → {}",
            if n == 1 {
                "1 waypoint".to_string()
            } else {
                format!("{n} waypoints")
            },
            len / 1000.0,
            if hours >= 48.0 {
                format!("{:.1} days", hours / 24.0)
            } else {
                format!("{hours:.0} h")
            },
            super::results::rounds_text(state.scene.with(|s| s.total_rounds))
        )
    };
    let undo = move |_| {
        if state.editor.try_update(|e| e.undo()).unwrap_or(false) {
            state.path_changed();
        }
    };
    let redo = move |_| {
        if state.editor.try_update(|e| e.redo()).unwrap_or(false) {
            state.path_changed();
        }
    };
    let clear = move |_| {
        state.playing.set(false);
        state.editor.update(|e| e.replace(Vec::new()));
        state.wanted.set(0);
        state.save_url();
        state.restart();
    };
    let new_world = move |_| {
        let seed = (js_sys::Math::random() * 1e9).floor() as u64;
        if let Err(e) = state.set_field("seed", &seed.to_string()) {
            error.set(Some(("seed", e)));
        }
    };
    let layer = LayerToggles {
        layers: state.layers,
        prefix: "layer-",
    };
    view! {
        <section class="panel controls" aria-labelledby="controls-title">
            <h2 id="controls-title">{move || if state.data.loaded() { "Your data" } else { "Your trajectory" }}</h2>
            <p class="hint">{move || if state.data.loaded() {
                "The lab runs on your imported file (below the map). Forget it there to draw a path instead."
            } else {
                "Phones learn a signal map from location and share only model updates. Draw where you went; the honest-but-curious server tries to recover it from your updates."
            }}</p>
            <div class:hidden=move || state.data.loaded()>
            <div class="tools" class:hidden=is_hidden(state, "presets")>
                <select data-testid="preset" aria-label="Ready-made trajectory"
                    on:change=move |e| {
                        if let Some(p) = TrajectoryPreset::parse(&event_target_value(&e)) {
                            state.load_preset(p);
                        }
                    }>
                    <option value="" selected>"Ready-made trajectories…"</option>
                    {TrajectoryPreset::ALL.iter().map(|p| view! { <option value=p.name()>{p.label()}</option> }).collect_view()}
                </select>
            </div>
            <div class="tools" class:hidden=is_hidden(state, "draw")>
                <button type="button" data-testid="undo" on:click=undo
                    prop:disabled=move || !state.editor.with(|e| e.can_undo())>"Undo"</button>
                <button type="button" data-testid="redo" on:click=redo
                    prop:disabled=move || !state.editor.with(|e| e.can_redo())>"Redo"</button>
                <button type="button" data-testid="clear" on:click=clear>"Clear"</button>
            </div>
            <p class="stats" data-testid="path-stats">{stats}</p>
            {section(TRAJECTORY)}
            </div>
            <h2 class:hidden=empty(FEDERATION, "")>{FEDERATION}</h2>
            {section(FEDERATION)}
            <h2 class:hidden=empty(ATTACK, "")>{ATTACK}</h2>
            {section(ATTACK)}
            <h2 class:hidden=empty(DEFENCE, "")>{DEFENCE}</h2>
            {section(DEFENCE)}
            <h2 class:hidden=empty(WORLD, "seed")>{WORLD}</h2>
            {section(WORLD)}
            <button type="button" class:hidden=is_hidden(state, "seed") data-testid="new-world" on:click=new_world>"New world"</button>
            <h2 class:hidden=is_hidden(state, "layers")>"Map layers"</h2>
            <div class="layers" class:hidden=is_hidden(state, "layers")>
                {layer.toggle("heat", "Predicted signal (heat map)",
                    "The global model's predicted signal strength (RSRP, dBm) over the area after the round shown: the map the federation is building. Dark is weak, yellow strong; the legend gives the range.",
                    |l| l.heat, |l, v| l.heat = v)}
                {layer.toggle("points", "Your measurements, by round",
                    "Every fix your phone logged, coloured by round: the data the updates are computed from. The server never sees these.",
                    |l| l.points, |l, v| l.points = v)}
                {layer.toggle("centroids", "True batch centroids",
                    "Blue dots: the average position of each round's fixes (the true centroid), which the attacks try to recover and against which their errors are measured.",
                    |l| l.centroids, |l, v| l.centroids = v)}
                {layer.toggle("dlg", "DLG reconstructions",
                    "Red diamonds: DLG's reconstruction of each round ([000] Algorithm 2). Faded: the attack left the area (diverged) and is left out of the medians.",
                    |l| l.dlg, |l, v| l.dlg = v)}
                {layer.toggle("analytic", "Analytic reconstructions",
                    "Orange squares: each round's position read from the first layer of the update (Lemma 1), with no search.",
                    |l| l.analytic, |l, v| l.analytic = v)}
                {layer.toggle("errors", "Error lines",
                    "A line from each reconstruction to its round's true centroid: its length is the error in the cards and the table. Shorter is a better attack.",
                    |l| l.errors, |l, v| l.errors = v)}
                {layer.toggle("trail", "DLG optimisation trail",
                    "For the round in focus, the path DLG's made-up location took while it searched: where it started and where it settled.",
                    |l| l.trail, |l, v| l.trail = v)}
                {layer.toggle("steps", "Mini-batch centroids (FedAvg steps)",
                    "Under FedAvg, the centroid of each local step's mini-batch for the round in focus (small rings): what each step's gradient points at, and what the FedAvg-aware server's dummies aim for.",
                    |l| l.steps, |l, v| l.steps = v)}
            </div>
        </section>
    }
}
