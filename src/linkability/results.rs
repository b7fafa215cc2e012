//! The Linkability lab's figures: where your new device comes in the server's ranking for "which
//! devices are this person's?", how well the attack identifies everyone (mean AP over chance,
//! top-1, top-5), matching, and what the federation's model is worth — each with its "?". When
//! the server sees only the sum (`l.sees=sum`), one message in place of the attack's cards says
//! what it has (the round sums, no update of any device) and where the study of a server that
//! trained its attack earlier is. With the sum + central DP (`l.sees=dp`) the same message,
//! with your user-level ε per round and in total ([`central_dp_text`]); the map's error beside
//! its references is then DP-FedAvg's.

use super::LinkState;
use crate::ui::help::help;
use leptos::prelude::*;
use whereabouts_core::privacy::central::{CentralDpSummary, NoiseAt};
use whereabouts_core::secagg::Sees;
use whereabouts_engine::linkability::lab::{LinkSummary, Phase};
use whereabouts_engine::linkability::population::{device, owner};

const RANK_HELP: &str = "The server has learned every person's known device from its updates. For each new device it asks: how likely is this one yours? — the attack's score for you, averaged over the device's updates — and ranks them. Rank 1: the server's first answer is your new device. With N new devices, a guess would put it at (N + 1)/2 on average. When devices tie on the score, your rank is the middle of the places they share (tied for first between two: 1.5): a tie never counts in your favour or against you.";
const IDENT_HELP: &str = "For every new device's update, the attack scores every person; AP (average precision) asks, person by person, how high that person's updates come in the ranking of all updates by their score, averaged over people ([004] §8.2). Chance: random scores, 1/N. Top-1: the share of updates whose best-scored person is the owner; top-5: among the five best.";
const MATCH_HELP: &str = "Are these two updates, one from a known device and one from a new one, the same person's? The MLP's two guesses over people are combined into one probability, over balanced pairs (half the same person, half not); AP 50% is chance ([004] §6.2).";
const SUM_HELP: &str = "Secure aggregation (Bonawitz et al. 2017): each round's devices mask their updates so that the server can unmask only their sum. The federation learns the same map, but the server never holds one device's update, so no pseudonym comes with an update: the identification and matching attacks have nothing to learn from and nothing to attribute. A server that learnt everyone's known devices before secure aggregation was switched on can still score each sum with its old attack; the Linkability lab's secure-sum study measures how often its first answer is one of the sum's owners, against the number of devices in a sum (docs/reproduce-linkability.md, “Under secure aggregation”).";
const DP_HELP: &str = "DP-FedAvg (McMahan et al. 2018) over the secure sum, a person the user: each round every person is in the sample with probability q, both their devices train, clip their change to C and mask it; the server unmasks only the sum, with Gaussian noise on it (standard deviation z·C on the sum of a person's share, z·C/(qN) a coordinate on the average it moves the map by). As with only the sum, it holds no update of any device, so it has nothing to link; the noise also bounds what the sums tell about you at all — your ε, for both your devices' whole data, is below. The price is the map's accuracy: compare its error with the mean predictor's and a centrally trained model's. The lab's secure-sum study scores noised sums with an attack trained earlier and the map's error under two noise levels (docs/reproduce-linkability.md, “Under secure aggregation”).";
const MODEL_HELP: &str = "What the federation is for: the signal map every device helped train, its error on held-out measurements (20% of everyone's). Beside it, on the same measurements: predicting the mean signal everywhere (a map no better has learnt nothing), and the same model trained centrally on every device's data (what it reaches when privacy costs nothing). A mitigation that hides people may cost accuracy; the study below measures both.";

fn percent(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// A device's name as the page shows it: its pseudonym, and for yours which one.
fn device_name(client: u32) -> String {
    format!("device {client}")
}

/// `summary` without its map of updates and its confusion.
fn light(summary: &LinkSummary) -> LinkSummary {
    LinkSummary {
        people: summary.people,
        rounds_done: summary.rounds_done,
        updates: summary.updates,
        test_rmse: summary.test_rmse,
        diverged_updates: summary.diverged_updates,
        references: summary.references,
        attack: summary.attack,
        identification: summary.identification,
        matching_ap: summary.matching_ap,
        ranking: summary.ranking.clone(),
        your_rank: summary.your_rank,
        map: Vec::new(),
        confusion: Vec::new(),
        your_updates: summary.your_updates,
        notes: summary.notes.clone(),
        round_sums: summary.round_sums,
        summed_updates: summary.summed_updates,
        clipped: summary.clipped,
        central_dp: summary.central_dp.clone(),
        central_rounds: summary.central_rounds.clone(),
        dp_clipped_updates: summary.dp_clipped_updates,
    }
}

/// Central DP's privacy loss in words: a person's (both devices') user-level ε, per round and
/// in total, with δ (as the Signal map words it).
pub fn central_dp_text(c: &CentralDpSummary) -> String {
    let by = match c.noise_at {
        NoiseAt::Trusted => "noise added by a trusted aggregator",
        NoiseAt::Distributed => "noise added by the devices",
    };
    format!(
        "Central DP (DP-FedAvg, {by}, q = {}, z = {}): your user-level ε is {:.2} over {} round{} (δ = {:e}), {:.2} for the last round alone — it bounds what the noised sums tell about your whole data, both devices', being used at all.",
        c.sampling_rate,
        c.noise_multiplier,
        c.epsilon_total,
        c.rounds,
        if c.rounds == 1 { "" } else { "s" },
        c.delta,
        c.epsilon_round,
    )
}

/// [`central_dp_text`] with its figures marked for the lessons: the total ε, the last round's,
/// the rounds and δ.
fn central_dp_view(c: &CentralDpSummary) -> impl IntoView + use<> {
    let by = match c.noise_at {
        NoiseAt::Trusted => "noise added by a trusted aggregator",
        NoiseAt::Distributed => "noise added by the devices",
    };
    view! {
        {format!("Central DP (DP-FedAvg, {by}, q = {}, z = {}): your user-level ε is ", c.sampling_rate, c.noise_multiplier)}
        <span data-figure="linkability.epsilon">{format!("{:.2}", c.epsilon_total)}</span>" over "
        <span data-figure="linkability.rounds">{c.rounds.to_string()}</span>
        {format!(" round{} (δ = ", if c.rounds == 1 { "" } else { "s" })}
        <span data-figure="linkability.delta">{format!("{:e}", c.delta)}</span>"), "
        <span data-figure="linkability.epsilon_round">{format!("{:.2}", c.epsilon_round)}</span>
        " for the last round alone — it bounds what the noised sums tell about your whole data, both devices', being used at all."
    }
}

#[component]
pub fn Results(state: LinkState) -> impl IntoView {
    // The figures without the map and the confusion (thousands of numbers each, drawn by their
    // own panels): the cards read these many times.
    let summary = move || state.scene.with(|s| s.summary.as_ref().map(light));
    // Only the sum (with or without central DP): no attack, so its cards give way to one
    // message.
    let sums = move || state.settings.with(|c| c.sees != Sees::Updates);
    let dp = move || state.settings.with(|c| c.sees == Sees::Dp);
    let progress = move || {
        state.scene.with(|s| {
            s.progress.map(|(phase, done, total)| match phase {
                Phase::Federation if dp() => format!(
                    "Round {done} of {total}: the sampled people's devices train, clip their changes and mask them; the server unmasks only the round's noised sum…"
                ),
                Phase::Federation if sums() => format!(
                    "Round {done} of {total}: every device trains on its day and masks its update; the server unmasks only the round's sum…"
                ),
                Phase::Federation => format!(
                    "Round {done} of {total}: every device trains on its day and sends its update; the server logs it under the device's pseudonym…"
                ),
                Phase::Attack => format!(
                    "The server trains its MLP on the known devices' updates: {:.0}%…",
                    100.0 * done as f64 / total.max(1) as f64
                ),
                Phase::Done => String::new(),
            })
        })
    };
    let fraction = move || {
        state.scene.with(|s| {
            s.progress.map_or(0.0, |(phase, done, total)| {
                let f = done as f64 / total.max(1) as f64;
                match phase {
                    Phase::Federation => 0.5 * f,
                    Phase::Attack => 0.5 + 0.5 * f,
                    Phase::Done => 1.0,
                }
            })
        })
    };
    let (r_btn, r_text) = help("help-link-rank".into(), "Your new device", RANK_HELP);
    let (i_btn, i_text) = help("help-link-ident".into(), "Identification", IDENT_HELP);
    let (m_btn, m_text) = help("help-link-match".into(), "Matching", MATCH_HELP);
    let (g_btn, g_text) = help("help-link-model".into(), "The signal map", MODEL_HELP);
    let (s_btn, s_text) = help("help-link-sum".into(), "Only the sum", SUM_HELP);
    let (d_btn, d_text) = help("help-link-dp".into(), "Sum + central DP", DP_HELP);
    let sum_card = move || {
        let s = summary()?;
        Some(view! {
            <p class="big" data-testid="link-round-sums" data-sums=s.round_sums.to_string()>
                <span data-figure="linkability.sums">{s.round_sums.to_string()}</span>" round sums"
            </p>
            <p class="sub">"The server unmasked one sum a round — "
                <span data-figure="linkability.summed">{s.summed_updates.to_string()}</span>" updates from "
                <span data-figure="linkability.devices">{(2 * s.people).to_string()}</span>
                " devices added up — and holds no update of any device: nothing to train its attack on, nothing to attribute, no device of yours to rank."
            </p>
            <p class="sub">"What a server that learnt everyone's known devices before secure aggregation still gets from sums — its first answer against the number of devices in a sum — is the table “Under secure aggregation” in docs/reproduce-linkability.md ("<code>"whereabouts reproduce --lab linkability --study secure-sum"</code>")."</p>
            {(s.clipped > 0).then(|| view! { <p class="sub">{format!("{} coordinates were clipped on the way into the sums.", s.clipped)}</p> })}
            {s.central_dp.as_ref().map(|c| {
                let last = s.central_rounds.last();
                view! {
                    <p class="sub" data-testid="link-central-dp" data-epsilon=format!("{:.4}", c.epsilon_total) data-epsilon-round=format!("{:.4}", c.epsilon_round) data-delta=c.delta.to_string()>
                        {central_dp_view(c)}
                    </p>
                    <p class="sub">"The noise on each number of the average the map moved by: standard deviation "
                        <span data-figure="linkability.noise">{last.map_or("—".into(), |r| format!("{:.3}", r.noise_std))}</span>
                        {format!(
                            "; {} of the devices' changes were cut to the clip{}.",
                            s.dp_clipped_updates,
                            last.map_or(String::new(), |r| format!(" (C = {:.2} in the last round)", r.clip)),
                        )}
                    </p>
                }
            })}
        }.into_any())
    };
    let rank_card = move || {
        let s = summary()?;
        let n = s.ranking.len();
        let rank = s.your_rank?;
        Some(view! {
            <p class="big" data-testid="link-your-rank" data-rank=rank.to_string() data-of=n.to_string()>
                "#"<span data-figure="linkability.rank">{rank_text(rank)}</span>
                <span class="of">" of "<span data-figure="linkability.new">{n.to_string()}</span></span>
            </p>
            <p class="sub">{if rank == 1.0 {
                "The server's first answer to “which new device is this person's?” is your new device.".to_string()
            } else {
                format!("A guess would rank it {:.0} on average.", (n as f64 + 1.0) / 2.0)
            }}</p>
            <p class="sub">{format!("Your devices sent {} and {} updates.", s.your_updates[0], s.your_updates[1])}</p>
        }.into_any())
    };
    let ranking = move || {
        let s = summary()?;
        let mut shown: Vec<(usize, _)> = s.ranking.iter().cloned().enumerate().take(8).collect();
        if let Some(r) = s.ranking.iter().position(|d| d.yours).filter(|&r| r >= 8) {
            shown.push((r, s.ranking[r].clone()));
        }
        Some(view! {
            <ol class="ranking" data-testid="link-ranking">
                {shown.into_iter().map(|(i, d)| {
                    view! {
                        <li class:yours=d.yours data-testid="link-ranked" data-yours=d.yours.to_string()>
                            <span class="rank">{format!("{}.", i + 1)}</span>
                            <span class="name">{device_name(d.client)}</span>
                            <span class="whose">{if d.yours {
                                "your new device".to_string()
                            } else {
                                format!("person {}'s {}", owner(d.client), if device(d.client) == 1 { "new device" } else { "device" })
                            }}</span>
                            <span class="score">{format!("{:.3}", d.score)}</span>
                        </li>
                    }
                }).collect_view()}
            </ol>
        })
    };
    view! {
        <section class="panel results link-results" aria-labelledby="link-results-title" data-testid="link-results"
            data-run=move || state.scene.with(|s| s.generation.to_string())
            data-idle=move || state.scene.with(|s| (!s.running && s.summary.is_some()).to_string())
            data-attack-ms=move || state.scene.with(|s| s.attack_ms().map(|t| format!("{t:.0}")).unwrap_or_default())
            data-total-ms=move || state.scene.with(|s| s.finished_ms.map(|t| format!("{:.0}", t - s.started_ms)).unwrap_or_default())>
            <h2 id="link-results-title">"What the server links"</h2>
            <p class="notice" role="alert" data-testid="linkability-notice" class:hidden=move || state.notice.with(Option::is_none)>
                {move || state.notice.get().unwrap_or_default()}
            </p>
            <p class="notice" data-testid="linkability-link-notice" class:hidden=move || state.link_notice.with(Option::is_none)>
                {move || state.link_notice.get().unwrap_or_default()}
                " "
                <button type="button" on:click=move |_| state.link_notice.set(None)>"Dismiss"</button>
            </p>
            {move || state.scene.with(|s| s.notes.clone()).into_iter().map(|n| view! { <p class="hint" data-testid="link-note">{n}</p> }).collect_view()}
            <div class="run-progress" class:hidden=move || !state.scene.with(|s| s.running)>
                <progress data-testid="link-progress" max="1" prop:value=fraction></progress>
                <span class="stats" aria-live="polite">{progress}</span>
            </div>
            <div class="cards" class:hidden=move || state.blocked()>
                <div class="card headline" data-testid="link-sum-card" class:hidden=move || !sums()>
                    <h3 class:hidden=dp>"Only the sum: nothing to link" {s_btn}</h3>
                    {s_text}
                    <h3 class:hidden=move || !dp()>"Sum + central DP: nothing to link" {d_btn}</h3>
                    {d_text}
                    {move || sum_card().unwrap_or_else(|| view! { <p class="sub">"The devices train; the server waits for the round's sum…"</p> }.into_any())}
                </div>
                <div class="card headline" data-testid="link-rank-card" class:hidden=sums>
                    <h3>"Your new device, as the server ranks it" {r_btn}</h3>
                    {r_text}
                    {move || rank_card().unwrap_or_else(|| view! { <p class="sub">"Waiting for the server…"</p> }.into_any())}
                </div>
                <div class="card" data-testid="link-ident-card" class:hidden=sums>
                    <h3>"Identification" {i_btn}</h3>
                    {i_text}
                    {move || match summary().and_then(|s| Some((s.identification?, s.attack?))) {
                        Some((m, attack)) => view! {
                            <p class="big" data-testid="link-ap" data-ap=format!("{:.4}", m.mean_ap) data-over-chance=format!("{:.3}", m.over_chance())>
                                <span data-figure="linkability.times">{format!("{:.0}×", m.over_chance())}</span>" chance"
                            </p>
                            <p class="sub">{format!("{}: mean AP ", attack.short_label())}
                                <span data-figure="linkability.ap">{percent(m.mean_ap)}</span>" (chance "
                                <span data-figure="linkability.chance">{percent(m.chance_ap)}</span>") · top-1 "
                                <span data-figure="linkability.top1">{percent(m.top1)}</span>" · top-5 "
                                <span data-figure="linkability.top5">{percent(m.top5)}</span>
                            </p>
                        }.into_any(),
                        None => view! { <p class="sub">"…"</p> }.into_any(),
                    }}
                </div>
                <div class="card" data-testid="link-match-card" class:hidden=move || sums() || summary().is_some_and(|s| s.matching_ap.is_none())>
                    <h3>"Matching" {m_btn}</h3>
                    {m_text}
                    {move || match summary().and_then(|s| s.matching_ap) {
                        Some(ap) => view! {
                            <p class="big" data-testid="link-matching" data-ap=format!("{ap:.4}")><span data-figure="linkability.matching">{percent(ap)}</span></p>
                            <p class="sub">"AP over balanced pairs of a known and a new device; chance 50%"</p>
                        }.into_any(),
                        None => view! { <p class="sub">"…"</p> }.into_any(),
                    }}
                </div>
                <div class="card" data-testid="link-model-card">
                    <h3>"The signal map" {g_btn}</h3>
                    {g_text}
                    {move || match summary().and_then(|s| Some((s.test_rmse?, s.people, s.rounds_done, s.updates, s.round_sums, s.summed_updates))) {
                        Some((rmse, people, rounds, updates, sums, summed)) => view! {
                            <p class="big" data-testid="link-rmse" data-rmse=format!("{rmse:.4}")><span data-figure="linkability.rmse">{format!("{rmse:.2} dB")}</span></p>
                            <p class="sub">{if dp() {
                                format!("DP-FedAvg's test error after {rounds} rounds · {summed} device updates of {people} people, clipped and noised, the server seeing only their {sums} noised round sums")
                            } else if sums > 0 {
                                format!("test error after {rounds} rounds · {summed} updates from {} devices of {people} people, the server seeing only their {sums} round sums", 2 * people)
                            } else {
                                format!("test error after {rounds} rounds · {updates} updates from {} devices of {people} people", 2 * people)
                            }}</p>
                            <p class="sub" data-testid="link-rmse-references">{move || match summary().and_then(|s| s.references) {
                                None => view! { "the mean predictor and a centralised model: being computed…" }.into_any(),
                                Some(r) => view! {
                                    "mean predictor "<span data-figure="linkability.mean">{format!("{:.2} dB", r.mean_rmse_db)}</span>
                                    " · centralised "<span data-figure="linkability.central">{r.centralised_rmse_db.map_or("—".into(), |c| format!("{c:.2} dB"))}</span>
                                }.into_any(),
                            }}</p>
                            {move || summary().map(|s| s.diverged_updates).filter(|&n| n > 0).map(|n| view! { <p class="sub" data-testid="link-diverged">{format!("{n} updates never sent: a phone's local training diverged, so it sent nothing that round")}</p> })}
                        }.into_any(),
                        None => view! { <p class="sub">"…"</p> }.into_any(),
                    }}
                </div>
            </div>
            <div class="ranking-card" class:hidden=move || sums() || summary().is_none()>
                <h3>"The server's answer to “which new device is this person's?” for you"</h3>
                <p class="sub">"The new devices by the attack's score for you (its mean over the device's updates); the names are the pseudonyms the server sees, whose they are is what only this page knows."</p>
                {ranking}
            </div>
            <p class="sr-only" aria-live="polite" data-testid="link-summary">{move || {
                let s = summary()?;
                if s.round_sums > 0 {
                    let dp = s.central_dp.as_ref().map_or(String::new(), |c| format!(" {}", central_dp_text(c)));
                    return Some(format!("The server holds {} round sums and no update of any device: it has nothing to link.{dp}", s.round_sums));
                }
                let m = s.identification?;
                Some(format!("The server ranks your new device {} of {}; its attack is {:.0} times chance.", rank_text(s.your_rank?), s.ranking.len(), m.over_chance()))
            }}</p>
        </section>
    }
}

/// An expected rank: whole when it is, else one decimal (ties share the places they tie for).
pub fn rank_text(rank: f64) -> String {
    if rank.fract() == 0.0 {
        format!("{rank:.0}")
    } else {
        format!("{rank:.1}")
    }
}
