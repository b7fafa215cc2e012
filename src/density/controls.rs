//! The Density lab's controls: the visitor's places, the settings (each with its "?") and the
//! map's layers.

use super::DensityState;
use super::map::city;
use crate::ui::basemap::format_distance;
use crate::ui::layers::LayerToggles;
use leptos::prelude::*;
use whereabouts_core::geo::Metres;
use whereabouts_engine::density::limits::MAX_VISITOR_PLACES;
use whereabouts_engine::density::settings::{CITY, PHONES, SERVER};

/// Where "Add a place" puts a new one: the first of a few spots not near another place.
fn free_spot(places: &[Metres]) -> Metres {
    let (lo, hi) = city();
    let h = hi.east - lo.east;
    [
        (0.0, 0.0),
        (0.2, 0.2),
        (-0.2, 0.2),
        (0.2, -0.2),
        (-0.2, -0.2),
        (0.3, 0.0),
    ]
    .iter()
    .map(|(e, n)| Metres::new(e * h, n * h))
    .find(|c| places.iter().all(|p| p.distance(c) > 500.0))
    .unwrap_or(Metres::new(0.0, 0.0))
}

#[component]
pub fn DensityControls(state: DensityState) -> impl IntoView {
    let error = RwSignal::new(None::<(&'static str, String)>);
    let section = move |heading: &'static str| {
        state
            .run
            .section(heading, move |k, v| state.set_field(k, v), error)
    };
    let places = move || {
        let selected = state.selected.get();
        state
            .places
            .get()
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                let name = if i == 0 {
                    "where you are when asked".to_string()
                } else {
                    format!("{} from place 1", format_distance(p.distance(&state.places.get_untracked()[0])))
                };
                view! {
                    <li class:selected=i == selected data-testid="density-place">
                        <button type="button" class="link" on:click=move |_| state.selected.set(i)
                            aria-pressed=(i == selected).to_string()>
                            {format!("Place {}", i + 1)}
                        </button>
                        <span class="stats">{name}</span>
                        <button type="button" class="link" aria-label=format!("Remove place {}", i + 1)
                            data-testid="density-remove-place"
                            class:hidden=move || state.has_data()
                            on:click=move |_| state.remove_place(i)>"Remove"</button>
                    </li>
                }
            })
            .collect_view()
    };
    let add = move |_| {
        let at = state.places.with_untracked(|p| free_spot(p));
        state.add_place(at);
    };
    let full = move || state.places.with(|p| p.len() >= MAX_VISITOR_PLACES);
    let layer = LayerToggles {
        layers: state.layers,
        prefix: "density-layer-",
    };
    view! {
        <section class="panel controls" aria-labelledby="density-controls-title">
            <h2 id="density-controls-title">"Your places"</h2>
            <p class="hint">{move || if state.data.loaded() {
                "Your places are the frequent places of your file (below the map), kept at their distances and centred in the city. Forget the file to place them by hand."
            } else {
                "The city asks every phone where its owner is, to map how many people are where. Drag your numbered places on the map; the first is where you are when the server asks, and every place's upload is attacked."
            }}</p>
            <ul class="places" class:hidden=move || state.hides("d.places")>{places}</ul>
            <div class="tools" class:hidden=move || state.hides("d.places") || state.has_data()>
                <button type="button" data-testid="density-add-place" prop:disabled=full on:click=add>"Add a place"</button>
            </div>
            <h2>{PHONES}</h2>
            {section(PHONES)}
            <h2>{SERVER}</h2>
            {section(SERVER)}
            <h2>{CITY}</h2>
            {section(CITY)}
            <h2 class:hidden=move || state.hides("d.layers")>"Map layers"</h2>
            <div class="layers" class:hidden=move || state.hides("d.layers")>
                {layer.toggle("candidates", "Peaks in your upload",
                    "Black rings: the highest points of your upload's wave pattern, the places the server cannot tell from where you are. One ring: you are found; many far apart: you hide among them.",
                    |l| l.candidates, |l, v| l.candidates = v)}
                {layer.toggle("guess", "The server's guess",
                    "Where the server puts you after reading your upload (its attack in the settings), with its distance from you: the figure in the card Where the server puts you.",
                    |l| l.guess, |l, v| l.guess = v)}
            </div>
        </section>
    }
}
