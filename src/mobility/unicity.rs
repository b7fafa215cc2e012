//! The Mobility lab's unicity card (issue 40 §2; de Montjoye et al. 2013): how many of your
//! points single you out among the city's people — a leak that needs no federated learning.

use super::MobState;
use crate::ui::help::help;
use leptos::prelude::*;
use whereabouts_engine::mobility::unicity::{CELL_M, YourUnicity};

const UNICITY_HELP: &str = "Unicity (de Montjoye et al., Unique in the Crowd, 2013): take p of your points at random — where you were, to a 250 m square, and at which hour of the week — and look for everyone else in the city who was at all p. If nobody was, those p points single you out: whoever holds the city's traces and learns p of your points (a receipt, a photo, a check-in) can pick out your whole trace. Each figure is the share of 200 random draws of your p points that single you out; \"you, places\" forgets the hour; \"everyone\" is the share of the city's people, you included, whom p of their points single out. In the paper four hourly points single out 95% of 1.5 million phone users. Not a federated-learning attack: nothing here is sent to the server.";

fn percent(x: Option<f64>) -> String {
    x.map_or("—".into(), |x| format!("{:.0}%", 100.0 * x))
}

/// The rows of the card's table: p, you (cells and hour), you (places only), the city.
fn rows(u: &YourUnicity) -> Vec<(usize, String, String, String)> {
    (0..u.timed.len())
        .map(|k| {
            (
                k + 1,
                percent(u.timed[k]),
                percent(u.places.get(k).copied().flatten()),
                percent(u.city_timed.get(k).copied().flatten()),
            )
        })
        .collect()
}

#[component]
pub fn UnicityCard(state: MobState) -> impl IntoView {
    let (btn, text) = help(
        "help-mob-unicity".into(),
        "Your points in the crowd",
        UNICITY_HELP,
    );
    let unicity = move || state.scene.with(|s| s.unicity.clone());
    view! {
        <div class="card" data-testid="mob-unicity-card">
            <h3>"Your points in the crowd" {btn}</h3>
            {text}
            {move || match unicity() {
                Some(u) => view! {
                    <p class="sub" data-testid="mob-unicity-people">"How often p of your points single you out among the city's "
                        <span data-figure="mobility.people">{u.people.to_string()}</span>
                        {format!(" people ({} m squares and the hour of the week; \"places\": the squares alone; \"everyone\": the share of the city's people p of their points single out):", CELL_M)}</p>
                    <table class="mini">
                        <thead><tr><th>"points"</th><th>"you"</th><th>"you, places"</th><th>"everyone"</th></tr></thead>
                        <tbody>{rows(&u).into_iter().map(|(p, timed, places, city)| view! {
                            <tr data-testid="mob-unicity-row" data-p=p.to_string()
                                data-timed=u.timed[p - 1].map(|x| format!("{x:.3}")).unwrap_or_default()>
                                <td>{p}</td>
                                <td><span data-figure=format!("mobility.you{p}")>{timed}</span></td>
                                <td><span data-figure=format!("mobility.places{p}")>{places}</span></td>
                                <td><span data-figure=format!("mobility.everyone{p}")>{city}</span></td>
                            </tr>
                        }).collect_view()}</tbody>
                    </table>
                }.into_any(),
                None => view! { <p class="sub">"Known when the last round is done."</p> }.into_any(),
            }}
        </div>
    }
}
