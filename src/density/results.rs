//! The Density lab's figures: where the server puts you (per place, with the peaks that rival
//! yours and random guessing beside it), what the server infers of your moves, the density's
//! quality, and the attack on the whole city — each with its "?".

use super::DensityState;
use crate::ui::basemap::format_distance;
use crate::ui::help::help;
use leptos::prelude::*;
use whereabouts_core::secagg::Sees;
use whereabouts_engine::density::Scheme;
use whereabouts_engine::density::attack::random_guess_distance;
use whereabouts_engine::density::central_dp::{CentralDpRecord, CentralDpSummary, NoiseAt};

const GUESS_HELP: &str = "The server attacks the upload you sent from this place (the mean of your answers, if it asked several times) and names one point; this is its distance from where you were. Random guessing — a point anywhere in the city — lands this far on average. Peaks as high as yours: the points of your upload within 10% of your own peak, which the paper says the server cannot tell from yours (claim 1). When the server sees only the sum (secure aggregation), it has no upload of yours: it attacks the sum of everyone's, with you at this place, the same way; with central DP, the noised sum.";
const MOVE_HELP: &str = "Your phone answers from each of your places with the same secret waves (the paper's rule). Each wave's offset then shifts by exactly the wave's direction times your move, so two answers together tell the server how far and which way you went, even where neither answer says where you are. It fits the waves of one answer, reads the offsets of the other, and takes the shortest move that fits. With 1 or 2 waves many moves fit, and a long move hides behind a shorter one. Worked out when your places stop moving.";
const UTILITY_HELP: &str = "How well the server's density (everyone's uploads summed, [003] Eq. 6) matches the exact density (Eq. 1) on the grid: Spearman's rank correlation ρ over all cells and over the busier half, and hotspot F1, the overlap of the two maps' top 5% cells. 1 is perfect. Under central DP the map is the noised sum over qN·B; beside it, the same uploads' density without the noise (what the sum alone publishes: the non-private reference), and a map of nothing (no features) ranks nothing: ρ = 0.";
const DP_HELP: &str = "Secure sum + central DP (DP-FedAvg, McMahan et al. 2018): each time the server asks, every phone is in the round with probability q, clips its upload to L2 norm C, and noise of standard deviation z·C goes on every cell of the sum (added by a trusted aggregator, or in shares by the phones). ε is user-level: it bounds what the published sums tell about whether your whole upload was in them at all, with probability δ of more. It adds up over the queries: asking again costs more ε. An upload of B waves spreads over the whole grid, so its norm — and the noise the clip calls for — is large beside a bump's.";
const CITY_HELP: &str = "The server attacks a random sample of the city's uploads the same way as yours: the median and mean distance of its guesses from the people, the share it finds within 100 m, and random guessing for comparison.";

/// Central DP's figures in words: what is protected, δ, per query and in total, and the noise on
/// a cell of the map.
fn central_dp_text(c: &CentralDpSummary, rounds: &[CentralDpRecord], features: f64) -> String {
    let by = match c.noise_at {
        NoiseAt::Trusted => "noise added by a trusted aggregator",
        NoiseAt::Distributed => "noise added by the phones",
    };
    let queries = match c.rounds {
        1 => "1 query".to_string(),
        n => format!("{n} queries"),
    };
    // The map is the mean of the rounds' averages over B: its noise per cell.
    let per_cell = rounds
        .iter()
        .map(|r| r.noise_std.powi(2))
        .sum::<f64>()
        .sqrt()
        / rounds.len().max(1) as f64
        / features;
    format!(
        "Your user-level ε over {queries} (DP-FedAvg, {by}, q = {}, z = {}): {:.2} in total, {:.2} for the last query alone, at δ = {:e} — it bounds what the published sums tell about whether your whole upload was in them at all. Noise on each cell of the map: {per_cell:.4} (standard deviation).",
        c.sampling_rate, c.noise_multiplier, c.epsilon_total, c.epsilon_round, c.delta,
    )
}

fn percent(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

#[component]
pub fn Results(state: DensityState) -> impl IntoView {
    let answer = move || {
        let i = state.selected.get();
        state.scene.with(|s| s.answers.get(i).cloned().flatten())
    };
    let guess_card = move || {
        let a = answer()?;
        let (rivals, random) = state.scene.with(|s| {
            (
                s.rivals(&a),
                s.grid
                    .as_ref()
                    .map(|g| random_guess_distance(g, a.guess.truth)),
            )
        });
        let (shares, sum, dp) = state.settings.with(|s| {
            (
                matches!(s.scheme, Scheme::Rff { .. }) && s.sees == Sees::Updates,
                s.sees == Sees::Sum,
                s.sees == Sees::Dp,
            )
        });
        Some(view! {
            <p class="big" data-testid="density-error" data-error=format!("{:.1}", a.guess.error_m())>
                <span data-figure="density.error">{format_distance(a.guess.error_m())}</span>
            </p>
            <p class="sub">"from place " {a.place + 1} " · random guessing: "
                <span data-testid="density-random">{random.map(format_distance).unwrap_or_default()}</span></p>
            {sum.then(|| view! {
                <p class="sub" data-testid="density-sees-sum">"read from the sum of everyone's uploads (secure aggregation): the server has none of yours"</p>
            })}
            {dp.then(|| view! {
                <p class="sub" data-testid="density-sees-dp">"read from the noised sum of everyone's uploads (secure aggregation + central DP): the server has none of yours"</p>
            })}
            {shares.then(|| view! {
                <p class="sub" data-testid="density-rivals" data-rivals=rivals.to_string()>
                    <span data-figure="density.rivals">{rivals.to_string()}</span>
                    {format!(" peak{} as high as yours (within 10%)", if rivals == 1 { "" } else { "s" })}
                </p>
            })}
        }.into_any())
    };
    let moves = move || {
        state.scene.with(|s| {
            s.summary
                .as_ref()
                .map(|x| x.moves.clone())
                .unwrap_or_default()
        })
    };
    let (m_btn, m_text) = help("help-density-move".into(), "Your moves", MOVE_HELP);
    let utility = move || {
        state
            .scene
            .with(|s| s.summary.as_ref().and_then(|x| x.utility.clone()))
    };
    let privacy = move || {
        state
            .scene
            .with(|s| s.summary.as_ref().and_then(|x| x.privacy.clone()))
    };
    let progress = move || {
        state.scene.with(|s| {
            s.progress.as_ref().map(|(stage, done, total)| {
                let what = match stage.as_str() {
                    "exact" => "the exact density",
                    "estimate" => "everyone's uploads",
                    "attacks" => "attacking the city's uploads",
                    _ => "working",
                };
                format!("Computing {what}: {done} of {total}…")
            })
        })
    };
    let (g_btn, g_text) = help(
        "help-density-guess".into(),
        "Where the server puts you",
        GUESS_HELP,
    );
    let (u_btn, u_text) = help("help-density-utility".into(), "The density", UTILITY_HELP);
    let (c_btn, c_text) = help("help-density-city".into(), "The whole city", CITY_HELP);
    let (d_btn, d_text) = help("help-density-dp".into(), "Central DP", DP_HELP);
    let central = move || {
        state.scene.with(|s| {
            let x = s.summary.as_ref()?;
            Some((
                x.central_dp.clone()?,
                x.central_dp_rounds.clone(),
                x.without_dp.clone(),
            ))
        })
    };
    let features = move || {
        state.settings.with(|s| match s.scheme {
            Scheme::Rff { features } if features > 0 => features as f64,
            _ => 1.0,
        })
    };
    let ask = move |_| {
        if let Err(e) = state.ask_again() {
            state.notice.set(Some(e));
        }
    };
    let queries = move || state.settings.with(|s| s.queries);
    view! {
        <section class="panel results density-results" aria-labelledby="density-results-title" data-testid="density-results"
            data-run=move || state.scene.with(|s| s.generation.to_string())
            data-idle=move || state.scene.with(|s| (!s.running && s.summary.is_some()).to_string())
            data-aggregate-ms=move || state.scene.with(|s| s.aggregate_ms.map(|t| format!("{t:.1}")).unwrap_or_default())
            data-edit=move || state.latency.with(|l| l.edit.to_string())
            data-latency=move || state.latency.with(|l| format!("{:.2} {:.2}", l.total_ms.unwrap_or(f64::NAN), l.worker_ms.unwrap_or(f64::NAN)))>
            <h2 id="density-results-title">"What the server learns"</h2>
            <p class="notice" role="alert" data-testid="density-notice" class:hidden=move || state.notice.with(Option::is_none)>
                {move || state.notice.get().unwrap_or_default()}
            </p>
            <p class="notice" data-testid="density-link-notice" class:hidden=move || state.link_notice.with(Option::is_none)>
                {move || state.link_notice.get().unwrap_or_default()}
                " "
                <button type="button" on:click=move |_| state.link_notice.set(None)>"Dismiss"</button>
            </p>
            <p class="hint" class:hidden=move || state.scene.with(|s| s.note.is_none())>{move || state.scene.with(|s| s.note.clone()).unwrap_or_default()}</p>
            <p class="stats" aria-live="polite" data-testid="density-progress">{progress}</p>
            <div class="cards">
                <div class="card headline" data-testid="density-guess-card">
                    <h3>"Where the server puts you" {g_btn}</h3>
                    {g_text}
                    {move || guess_card().unwrap_or_else(|| view! { <p class="sub">"Waiting for your upload…"</p> }.into_any())}
                    <div class="tools">
                        <button type="button" data-testid="density-ask-again" on:click=ask
                            title="The server asks every phone once more and attacks the mean of your answers">"Ask again"</button>
                        <span class="stats" data-testid="density-queries">{move || format!("asked {} time{}", queries(), if queries() == 1 { "" } else { "s" })}</span>
                    </div>
                </div>
                <div class="card" data-testid="density-move-card" class:hidden=move || moves().is_empty()>
                    <h3>"Your moves" {m_btn}</h3>
                    {m_text}
                    {move || moves().into_iter().map(|m| {
                        let moved = m.truth.east.hypot(m.truth.north);
                        view! {
                            <p class="big" data-testid="density-move" data-error=format!("{:.1}", m.error_m())>
                                {format!("{} off", format_distance(m.error_m()))}
                            </p>
                            <p class="sub">{format!("place {} → {}: you moved {}", m.from + 1, m.to + 1, format_distance(moved))}</p>
                        }
                    }).collect_view()}
                </div>
                <div class="card" data-testid="density-utility-card">
                    <h3>"The density" {u_btn}</h3>
                    {u_text}
                    {move || match utility() {
                        Some(u) => view! {
                            <p class="big" data-testid="density-spearman" data-value=format!("{:.4}", u.spearman_all)>"ρ = "<span data-figure="density.rho">{format!("{:.2}", u.spearman_all)}</span></p>
                            <p class="sub">{format!("busier half ρ = {:.2} · hotspot F1 = ", u.spearman_top_half)}<span data-figure="density.f1">{format!("{:.2}", u.hotspot_f1)}</span></p>
                            {move || central().and_then(|(_, _, w)| w).map(|w| view! {
                                <p class="sub" data-testid="density-without-dp" data-value=format!("{:.4}", w.spearman_all)>
                                    {format!("without central DP (the same uploads' sum): ρ = {:.2}, hotspot F1 = {:.2} · a map of nothing: ρ = 0", w.spearman_all, w.hotspot_f1)}
                                </p>
                            })}
                        }.into_any(),
                        None => view! { <p class="sub">"Computing…"</p> }.into_any(),
                    }}
                </div>
                <div class="card" data-testid="density-dp-card" class:hidden=move || central().is_none()>
                    <h3>"Central DP" {d_btn}</h3>
                    {d_text}
                    {move || central().map(|(c, rounds, _)| view! {
                        <p class="big" data-testid="density-epsilon" data-value=format!("{:.4}", c.epsilon_total)>"ε = "<span data-figure="density.epsilon">{format!("{:.2}", c.epsilon_total)}</span></p>
                        <p class="sub" data-testid="density-dp-text">{central_dp_text(&c, &rounds, features())}</p>
                    })}
                </div>
                <div class="card" data-testid="density-city-card">
                    <h3>"The whole city" {c_btn}</h3>
                    {c_text}
                    {move || match privacy() {
                        Some(p) => view! {
                            <p class="big" data-testid="density-median" data-value=format!("{:.1}", p.median_m)>
                                <span data-figure="density.median">{format_distance(p.median_m)}</span>" median"
                            </p>
                            <p class="sub">
                                <span data-figure="density.found">{percent(p.located)}</span>" of "
                                <span data-figure="density.people">{p.attacked.to_string()}</span>" people found within 100 m · mean "
                                <span data-figure="density.mean">{format_distance(p.mean_m)}</span>" · random guessing "
                                <span data-figure="density.random">{format_distance(p.random_guess_m)}</span>
                            </p>
                        }.into_any(),
                        None => view! { <p class="sub">{move || state.scene.with(|s| format!("{} uploads attacked…", s.attacked.len()))}</p> }.into_any(),
                    }}
                </div>
            </div>
            <p class="sr-only" id="density-summary" aria-live="polite" data-testid="density-summary">{move || {
                let a = answer()?;
                Some(format!("The server's guess is {} from your place {}.", format_distance(a.guess.error_m()), a.place + 1))
            }}</p>
        </section>
    }
}
