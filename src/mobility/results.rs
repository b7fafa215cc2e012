//! The Mobility lab's playback and figures: the round shown, how many of its window's positions
//! the server found (ASR) and how fast (AIT), every position's error, the success rate round by
//! round, the privacy budget being spent, and the model's utility — each with its "?".

use super::MobState;
use super::map::GUESS_COLOUR;
use super::membership::MembershipCard;
use super::unicity::UnicityCard;
use crate::ui::basemap::format_distance;
use crate::ui::chart::{Axis, Chart, Point, Series};
use crate::ui::help::help;
use leptos::prelude::*;
use whereabouts_engine::mobility::central_dp::{CentralDp, CentralDpRecord, NoiseAt};
use whereabouts_engine::mobility::config::Calibration;
use whereabouts_engine::mobility::defence::Defence;
use whereabouts_engine::mobility::experiments::format_epsilon;
use whereabouts_engine::mobility::lab::RoundRecord;
use whereabouts_engine::mobility::secure::SecureRound;
use whereabouts_engine::mobility::settings::DEFENCE_EPSILON;

const ROUND_HELP: &str = "In round t your phone trains on the window of positions t … t + 7 with t + 8 as the label, and sends its update. The server makes up a window and moves it, step by step, until its gradient matches yours ([002] §3). ASR, the attack success rate: the share of the 8 positions it puts within the success radius τ — scored, as in the paper, on its averaged estimates when calibration is on. AIT: the mean first iteration at which a found position came within τ (lower: found faster).";
const MEAN_HELP: &str = "The success rate of every round so far and its mean over the rounds (the paper's Table 3 reports it by round). With ST-GIA's initialisation each round starts from the last one's answer, so one good round helps the next. A round whose attack diverged — its optimiser left the finite numbers, or its guess left the city by more than ten times your trajectory's extent — found nothing: it is left out of the mean (the count is shown), out of the averaging, and the next round starts afresh instead of from it.";
const POINTS_HELP: &str = "Each position of the round's window: how far the server's reconstruction in this round landed, and how far its average over every round whose window held the position (calibration, Eq. 9; rounds whose attack diverged are left out). The next position is the label the phone trained towards.";
const BUDGET_HELP: &str = "DP-SGD: ε per round, at δ = 10⁻⁵, is what each round's noise guarantees for that round's window (its 8 positions and the next one) against a server that sees your phone's own update. The rounds add up: the total ε after n rounds (Rényi-DP accounting, read at δ = 10⁻⁵) is what protects your whole trajectory trained on so far. Both are upper bounds from different accountings — after one round the total is already above the round's own ε. DP-SGD as in the authors' code states its ε for a change of 0.2 in each of the model's 6 tensors, but the whole update can move by 2 × 0.2 × √6: the card shows the true ε beside the stated one. GeoI and GeoGI: ε per km every round — and every round re-noises all 9 positions of its window, which slides by one, so over T rounds any one position is sent up to 9 times (min(T, 9) × ε per km) and your whole trajectory, each position moved by up to a km, gets 9 × T × ε per km (δ = 0, basic composition); the card shows both. Adaptive PGEM spends a total ε over the rounds ([002] Eqs. 10–12): ε_t = e^(−γ_t)·(what is left), with γ_t = ½·ASR_t + ½/AIT_t from the measured risk, so a risky round takes less of what is left … and since γ_t ≤ 1, each round takes at least 37% of it: most of the budget goes in the first rounds. Each segment is one round's ε_t. The budget bounds any one position; since a round noises 9, your whole trajectory gets at most 9 × ε per km.";
const UTILITY_HELP: &str = "What the model is for: its mean error in predicting the next position on windows it never trained on (held out after the training rounds), and recall@5 — the share of those windows where the true next place is among the 5 of the user's places nearest the prediction (our reading of the paper's recall@5 for a regression model). Beside it, on the same windows, the trivial predictor \"stay where you are\" (the window's last position as the next): a model no better has learnt nothing about where you go. Under central DP it is the model trained on the noised sums; the same run with only the sum is the model without the noise. Known when the last round is done.";

fn percent(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

/// What a location defence's ε composes to after `rounds` rounds, in the engine's words
/// ([`LocationLoss`](whereabouts_engine::mobility::defence::LocationLoss)); nothing before the
/// first.
fn location_loss_text(defence: &Defence, rounds: usize) -> String {
    match defence.location_loss(rounds) {
        Some(l) if rounds > 0 => format!(" {}", l.text(rounds)),
        _ => String::new(),
    }
}

/// What DP-SGD's ε in record `r` means: per round, the total after its round, and for the
/// authors'-code variant the ε it states beside the true one (each marked as a figure for the
/// lessons).
fn dp_view(r: &RoundRecord) -> Option<AnyView> {
    let (round, total) = (r.dp_round_epsilon?, r.dp_epsilon?);
    let n = r.round + 1;
    let rounds = if n == 1 { "round" } else { "rounds" };
    let round = view! { <span data-figure="mobility.epsilon_round">{format_epsilon(round)}</span> };
    let total = view! { <span data-figure="mobility.epsilon">{format_epsilon(total)}</span> };
    let after = view! { <span data-figure="mobility.rounds">{n.to_string()}</span> };
    Some(match r.dp_stated_epsilon {
        None => view! {
            "DP-SGD: ε = "{round}" per round at δ = 10⁻⁵, for that round's window of 9 positions against a server that sees your phone's update. After "
            {after}{format!(" {rounds}: ε = ")}{total}
            " in total, for your whole trajectory trained on (Rényi-DP accounting, δ = 10⁻⁵). Both are upper bounds from different accountings."
        }
        .into_any(),
        Some(stated) => view! {
            "DP-SGD as in the authors' code: it states ε = "<span data-figure="mobility.epsilon_stated">{format_epsilon(stated)}</span>
            " per round, but its noise is sized for a change of 0.2 where the update can move by 2 × 0.2 × √6 ≈ 0.98. True: ε = "
            {round}" per round, and "{total}" in total after "{after}{format!(" {rounds} (Rényi-DP accounting), at δ = 10⁻⁵.")}
        }
        .into_any(),
    })
}

/// What the server saw under central DP (`m.sees=dp`): the noised average of the round's
/// sampled phones' clipped gradients, with or without yours.
/// What the server saw of a round under `m.sees=sum`: the sum of the round's phones, or, for
/// a Sybil server, what was left once it took its own phones' gradients away.
/// (The number of genuine phones and of Sybils are marked as figures for the lessons.)
fn sum_seen(s: &SecureRound) -> AnyView {
    let genuine = if s.clients == 1 {
        view! { "your phone's gradient alone" }.into_any()
    } else {
        view! { <span data-figure="mobility.phones">{s.clients.to_string()}</span>" phones' gradients" }
            .into_any()
    };
    let protocol = if s.protocol { ", the protocol run" } else { "" };
    match s.sybils {
        0 => view! {
            "the server saw only the sum of "{genuine}{format!(" (secure aggregation{protocol}) and inverted it; the errors are to your positions")}
        }
        .into_any(),
        n => view! {
            "the Sybil server put "<span data-figure="mobility.sybils">{n.to_string()}</span>
            {format!(" phone{} of its own in your round, took their gradients away from the secure sum (secure aggregation{protocol}) and inverted what was left: ", if n == 1 { "" } else { "s" })}
            {genuine}"; the errors are to your positions"
        }
        .into_any(),
    }
}

fn central_dp_seen(c: &CentralDpRecord, phones: usize) -> String {
    let whose = match (phones, c.yours_in) {
        (0, _) => "no phone sent this round: the server saw the noise alone".to_string(),
        (1, true) => "it saw the noised sum of your phone's clipped gradient alone".to_string(),
        (k, true) => {
            format!("it saw the noised sum of {k} phones' clipped gradients, yours among them")
        }
        (k, false) => format!(
            "it saw the noised sum of {k} phones' clipped gradients — not yours: your phone was not in this round's sample or dropped out"
        ),
    };
    format!(
        "Central DP: {whose}, over the expected number of phones, and inverted that; the errors are to your positions"
    )
}

/// Central DP's privacy loss in words (as the Signal map's): user-level, per round and in total,
/// with δ.
fn central_dp_text(c: &CentralDpRecord, round: usize, dp: &CentralDp) -> String {
    let by = match dp.noise_at {
        NoiseAt::Trusted => "noise added by a trusted aggregator",
        NoiseAt::Distributed => "noise added by the phones",
    };
    let n = round + 1;
    let rounds = if n == 1 { "round" } else { "rounds" };
    let this = match c.accounted_q {
        Some(_) => format!(
            "ε = {} for this round alone",
            format_epsilon(c.epsilon_round)
        ),
        None => "nothing for this round, which your phone did not send in".to_string(),
    };
    format!(
        "DP-FedAvg ({by}, q = {}, z = {}, clip C = {:.3}): your user-level ε is {} over {n} {rounds} (δ = {:e}), {this}. It bounds what the noised sums tell about whether your whole trajectory was used at all.",
        dp.sampling_rate,
        dp.noise_multiplier,
        c.clip,
        format_epsilon(c.epsilon_total),
        c.delta,
    )
}

/// Play, pause, one round, again; which round the figures show.
#[component]
pub fn MobPlayback(state: MobState) -> impl IntoView {
    let done = move || state.scene.with(|s| s.done());
    let current = move || state.viewed.get().unwrap_or(done().saturating_sub(1));
    let label = move || {
        state.scene.with(|s| {
            let total = s.rounds;
            if let Some((round, iteration)) = s.progress.filter(|_| s.running) {
                let iterations = state.settings.with_untracked(|x| x.attack.iterations);
                return format!(
                    "Round {} of {total}: the server is at step {iteration} of {iterations}",
                    round + 1
                );
            }
            match (s.done(), state.viewed.get()) {
                (0, _) if s.running => "Starting…".to_string(),
                (0, _) => String::new(),
                (n, Some(r)) => format!("Showing round {} of {n} done", r + 1),
                (n, None) if n >= total => format!("All {total} rounds done"),
                (n, None) => format!("Paused after round {n} of {total}"),
            }
        })
    };
    let pace = move || {
        state
            .scene
            .with(|s| s.ms_per_round())
            .map(|ms| format!("{ms:.0} ms a round"))
            .unwrap_or_default()
    };
    view! {
        <div class="playback" role="group" aria-label="Playback">
            <button type="button" class="primary" data-testid="mob-play"
                aria-label=move || if state.playing.get() { "Pause" } else { "Play" }
                on:click=move |_| state.toggle_play()>
                {move || if state.playing.get() { "❚❚ Pause" } else { "▶ Play" }}
            </button>
            <button type="button" data-testid="mob-step" on:click=move |_| state.step()
                title="Train and attack one more round">"Step"</button>
            <button type="button" data-testid="mob-restart" on:click=move |_| state.restart()
                title="From round 1 again">"Restart"</button>
            <input type="range" data-testid="mob-timeline" aria-label="Round shown" min="0"
                prop:max=move || done().saturating_sub(1).to_string()
                prop:value=move || current().to_string()
                prop:disabled=move || done() < 2
                on:input=move |e| {
                    if let Ok(v) = event_target_value(&e).parse::<usize>() {
                        state.viewed.set(if v + 1 >= done() { None } else { Some(v) });
                    }
                }/>
            <span class="round-label" data-testid="mob-round-label" aria-live="polite">{label}</span>
            <span class="stats" data-testid="mob-pace">{pace}</span>
        </div>
    }
}

/// The positions of `r` found within `tau`, as reconstructed and averaged (a diverged round's
/// reconstruction, and a position no round recovered, find nothing).
fn found(r: &RoundRecord, tau: f64) -> (usize, usize) {
    let within = |e: Option<Vec<f64>>| e.unwrap_or_default().iter().filter(|e| **e <= tau).count();
    (
        within(r.scored_errors(Calibration::Off)),
        within(r.scored_errors(Calibration::Causal)),
    )
}

/// An ASR, or what stands in its place when nothing of the round is scored.
fn asr_text(asr: Option<f64>) -> String {
    asr.map(percent).unwrap_or_else(|| "—".into())
}

#[component]
pub fn MobResults(state: MobState) -> impl IntoView {
    let record = move || state.scene.with(|s| s.shown(state.viewed.get()).cloned());
    let tau = move || state.settings.with(|s| s.tau_m);
    let (r_btn, r_text) = help("help-mob-round".into(), "This round", ROUND_HELP);
    let (m_btn, m_text) = help("help-mob-mean".into(), "Every round so far", MEAN_HELP);
    let (p_btn, p_text) = help(
        "help-mob-points".into(),
        "The window's positions",
        POINTS_HELP,
    );
    let (b_btn, b_text) = help("help-mob-budget".into(), "The privacy budget", BUDGET_HELP);
    let (u_btn, u_text) = help("help-mob-utility".into(), "The model", UTILITY_HELP);
    let round_card = move || {
        let r = record()?;
        let (raw, averaged) = found(&r, tau());
        // The ASR's denominator: the positions scored with the calibration in use.
        let calibration = state
            .settings
            .with(|s| s.attack.effective().2.as_recorded());
        let scored = r.scored_errors(calibration).map_or(0, |e| e.len());
        let of = if scored == r.truth.len() {
            format!("of round {}'s {} positions", r.round + 1, r.truth.len())
        } else {
            format!(
                "of the {scored} of round {}'s {} positions some round recovered",
                r.round + 1,
                r.truth.len()
            )
        };
        Some(view! {
            <p class="big" data-testid="mob-asr" data-asr=r.asr.map(|a| format!("{a:.4}")).unwrap_or_default()><span data-figure="mobility.asr">{asr_text(r.asr)}</span></p>
            <p class="sub">{match calibration {
                _ if scored == 0 => format!("none of round {}'s {} positions is scored", r.round + 1, r.truth.len()),
                Calibration::Off => format!("{of} found within {} as reconstructed (no averaging)",
                    format_distance(tau())),
                _ => format!("{of} found within {} · {} as reconstructed, {} averaged",
                    format_distance(tau()), raw, averaged),
            }}</p>
            {r.central_dp.as_ref().map(|c| {
                let phones = r.secure.as_ref().map_or(0, |s| s.clients);
                let dp = state.settings.with(|s| s.central_dp);
                view! {
                    <p class="sub" data-testid="mob-sees-dp" data-clients=phones.to_string()>{central_dp_seen(c, phones)}</p>
                    <p class="sub" data-testid="mob-central-dp" data-epsilon-total=format!("{:.4}", c.epsilon_total)
                        data-epsilon-round=format!("{:.4}", c.epsilon_round)>{central_dp_text(c, r.round, &dp)}</p>
                }
            })}
            {r.secure.as_ref().filter(|_| r.central_dp.is_none()).map(|s| view! {
                <p class="sub" data-testid="mob-sees-sum" data-clients=s.clients.to_string()
                    data-sybils=s.sybils.to_string()>{sum_seen(s)}</p>
            })}
            <p class="sub" data-testid="mob-ait">{match (r.diverged, r.ait) {
                (true, _) => "the attack diverged: this round found nothing, and is left out of the mean".into_any(),
                (false, Some(a)) => view! { "found by step "<span data-figure="mobility.ait">{format!("{a:.0}")}</span>" on average (AIT)" }.into_any(),
                (false, None) => "none found this round".into_any(),
            }}</p>
        }.into_any())
    };
    let chart = move || {
        let (records, rounds) = state.scene.with(|s| (s.records.clone(), s.rounds));
        if records.is_empty() {
            return None;
        }
        Some(
            Chart {
                width: 320.0,
                height: 130.0,
                left: 34.0,
                bottom: 24.0,
                x: Axis {
                    min: 1.0,
                    max: rounds.max(2) as f64,
                    log: false,
                    min_text: "1".into(),
                    max_text: rounds.to_string(),
                    label: "round".into(),
                },
                y: Axis {
                    min: 0.0,
                    max: 1.0,
                    log: false,
                    min_text: "0".into(),
                    max_text: "100%".into(),
                    label: "ASR".into(),
                },
                series: vec![Series {
                    colour: GUESS_COLOUR,
                    points: records
                        .iter()
                        .filter_map(|r| {
                            let asr = r.asr?;
                            Some(Point {
                                x: (r.round + 1) as f64,
                                y: asr,
                                title: Some(format!("round {}: ASR {}", r.round + 1, percent(asr))),
                            })
                        })
                        .collect(),
                    joined: true,
                    dashed: false,
                }],
                dot_radius: 2.5,
                label: "The attack's success rate by round".into(),
                testid: "mob-asr-chart",
            }
            .view(),
        )
    };
    let mean = move || state.scene.with(|s| s.mean_asr());
    let diverged = move || state.scene.with(|s| s.diverged());
    let rows = move || {
        let r = record()?;
        let t = tau();
        // A distance that is not scored (the attack diverged; nothing recovered the position)
        // says so instead of a number that may be millions of kilometres.
        let cell = |e: Option<f64>| match e {
            Some(e) => view! { <td class:found=e <= t>{format_distance(e)}</td> }.into_any(),
            None => view! { <td class="diverged">"diverged"</td> }.into_any(),
        };
        // With the calibration off nothing is averaged: the column says so, and the round's own
        // reconstruction is what is scored.
        let averaging = state.settings.with(|s| s.attack.effective().2) != Calibration::Off;
        let mut rows: Vec<_> = (0..r.truth.len())
            .map(|k| {
                let raw = (!r.diverged).then_some(r.errors_m[k]);
                let averaged = r.is_calibrated(k).then_some(r.calibrated_errors_m[k]);
                let scored = if averaging { averaged } else { raw };
                view! {
                    <tr data-testid="mob-error-row" data-error=scored.map(|e| format!("{e:.1}")).unwrap_or_default()
                        data-diverged=scored.is_none().to_string()>
                        <th scope="row">{format!("{}", r.round + k + 1)}</th>
                        {cell(raw)}
                        {if averaging { cell(averaged) } else { view! { <td class="off" title="Averaging is off">"off"</td> }.into_any() }}
                    </tr>
                }
                .into_any()
            })
            .collect();
        let label = r.reconstructed_label.distance(&r.truth_label);
        rows.push(
            view! {
                <tr><th scope="row">{format!("{} (next)", r.round + r.truth.len() + 1)}</th>{cell((!r.diverged).then_some(label))}<td>"—"</td></tr>
            }
            .into_any(),
        );
        Some(rows)
    };
    let adaptive = move || {
        state
            .settings
            .with(|s| matches!(s.defence, Defence::Adaptive { .. }))
    };
    let budget = move || {
        let total = state
            .settings
            .with(|s| s.defence.epsilon())
            .unwrap_or(DEFENCE_EPSILON);
        let spent: Vec<f64> = state.scene.with(|s| {
            s.records
                .iter()
                .take(state.viewed.get().map_or(usize::MAX, |v| v + 1))
                .filter_map(|r| r.epsilon)
                .collect()
        });
        let used: f64 = spent.iter().sum();
        let mut x = 0.0;
        let segments = spent
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let w = 100.0 * e / total;
                let rect = view! {
                    <rect x=format!("{x:.3}") y="0" width=format!("{w:.3}") height="10"
                        class=if i % 2 == 0 { "spent even" } else { "spent odd" }>
                        <title>{format!("round {}: ε = {e:.4}", i + 1)}</title>
                    </rect>
                };
                x += w;
                rect
            })
            .collect_view();
        let last = state.scene.with(|s| {
            s.shown(state.viewed.get())
                .and_then(|r| Some((r.epsilon?, r.audit)))
        });
        view! {
            <svg class="budget" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" data-testid="mob-budget"
                data-used=format!("{:.6}", used / total)
                aria-label=format!("{} of the budget ε = {} spent", percent(used / total), total)>
                <rect x="0" y="0" width="100" height="10" class="left"/>
                {segments}
            </svg>
            <p class="sub"><span data-figure="mobility.spent">{percent(used / total)}</span>{format!(" of ε = {total} spent over {} rounds", spent.len())}</p>
            <p class="sub" data-testid="mob-location-loss">{state.settings.with(|s| location_loss_text(&s.defence, spent.len()))}</p>
            {last.map(|(e, audit)| view! {
                <p class="sub" data-testid="mob-epsilon">"this round: ε_t = "<span data-figure="mobility.epsilon_t">{format!("{e:.3}")}</span>{audit.map(|(a, i)|
                    format!(", from a measured risk of ASR {} and AIT {i:.0}", percent(a))).unwrap_or_default()}</p>
            })}
        }
    };
    let fixed = move || {
        // DP-SGD's ε comes from the run (its records), not the settings.
        let dp = record().map(|r| (dp_view(&r), r.dp_epsilon));
        state.settings.with(|s| match s.defence {
            Defence::None | Defence::Adaptive { .. } => None,
            Defence::DpSgd { .. } => Some(match dp {
                Some((Some(text), total)) => (text, total),
                _ => ("DP-SGD: its ε is shown after the first round.".into_any(), None),
            }),
            Defence::GeoI { epsilon } | Defence::GeoGi { epsilon } => Some((
                format!(
                    "ε = {epsilon} per km in every round: your phone trains on the purple points instead of yours.{}",
                    location_loss_text(&s.defence, record().map_or(0, |r| r.round + 1))
                )
                .into_any(),
                None,
            )),
        })
    };
    let dp_model = move || {
        state
            .scene
            .with(|s| s.summary.as_ref().is_some_and(|x| x.central_dp.is_some()))
    };
    let utility = move || {
        state.scene.with(|s| {
            s.summary
                .as_ref()
                .and_then(|x| Some((x.utility_error_m?, x.recall_at_5, x.stay_error_m)))
        })
    };
    view! {
        <section class="panel results mob-results" aria-labelledby="mob-results-title" data-testid="mob-results"
            data-run=move || state.scene.with(|s| s.generation.to_string())
            data-done=move || state.scene.with(|s| s.done().to_string())
            data-idle=move || state.scene.with(|s| (!s.running && s.summary.is_some()).to_string())
            data-ms-per-round=move || state.scene.with(|s| s.ms_per_round().map(|t| format!("{t:.1}")).unwrap_or_default())>
            <h2 id="mob-results-title">"What the server learns"</h2>
            <p class="notice" role="alert" data-testid="mob-notice" class:hidden=move || state.notice.with(Option::is_none)>
                {move || state.notice.get().unwrap_or_default()}
            </p>
            <p class="notice" data-testid="mob-link-notice" class:hidden=move || state.link_notice.with(Option::is_none)>
                {move || state.link_notice.get().unwrap_or_default()}
                " "
                <button type="button" on:click=move |_| state.link_notice.set(None)>"Dismiss"</button>
            </p>
            <p class="hint" class:hidden=move || state.scene.with(|s| s.note.is_none())>{move || state.scene.with(|s| s.note.clone()).unwrap_or_default()}</p>
            <div class="cards">
                <div class="card headline" data-testid="mob-round-card">
                    <h3>"This round" {r_btn}</h3>
                    {r_text}
                    {move || round_card().unwrap_or_else(|| view! { <p class="sub">"Waiting for the first round…"</p> }.into_any())}
                </div>
                <div class="card" data-testid="mob-mean-card">
                    <h3>"Every round so far" {m_btn}</h3>
                    {m_text}
                    <p class="big" data-testid="mob-mean-asr" data-asr=move || mean().map(|m| format!("{m:.4}")).unwrap_or_default()>
                        <span data-figure="mobility.mean">{move || mean().map(percent).unwrap_or_else(|| "—".into())}</span></p>
                    <p class="sub" data-testid="mob-diverged" data-diverged=move || diverged().to_string()>{move || match diverged() {
                        0 => "mean success rate".to_string(),
                        1 => "mean success rate · 1 round diverged, left out".to_string(),
                        n => format!("mean success rate · {n} rounds diverged, left out"),
                    }}</p>
                    {chart}
                </div>
                <div class="card" data-testid="mob-points-card">
                    <h3>"The window's positions" {p_btn}</h3>
                    {p_text}
                    <table class="mini">
                        <thead><tr><th>"position"</th><th>"this round"</th><th>"averaged"</th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
                <div class="card" data-testid="mob-budget-card" class:hidden=move || !adaptive() && fixed().is_none()>
                    <h3>"The privacy budget" {b_btn}</h3>
                    {b_text}
                    <div class:hidden=move || !adaptive()>{budget}</div>
                    <p class="sub" data-testid="mob-fixed-epsilon" class:hidden=adaptive
                        data-dp-total=move || fixed().and_then(|f| f.1).map(|t| format!("{t:.4}")).unwrap_or_default()>
                        {move || fixed().map(|f| f.0)}</p>
                </div>
                <div class="card" data-testid="mob-utility-card">
                    <h3>"The model" {u_btn}</h3>
                    {u_text}
                    {move || match utility() {
                        Some((e, recall, stay)) => view! {
                            <p class="big" data-testid="mob-utility" data-error=format!("{e:.1}")><span data-figure="mobility.error">{format_distance(e)}</span></p>
                            <p class="sub">"mean error predicting the next position · recall@5 "
                                <span data-figure="mobility.recall">{recall.map(percent).unwrap_or_else(|| "—".into())}</span></p>
                            <p class="sub" data-testid="mob-utility-stay" data-error=stay.map(|x| format!("{x:.1}")).unwrap_or_default()>"staying where you are: "
                                <span data-figure="mobility.stay">{stay.map(format_distance).unwrap_or_else(|| "—".into())}</span></p>
                            <p class="sub" data-testid="mob-utility-dp" class:hidden=move || !dp_model()>
                                "the model trained on the noised sums (central DP); without the noise, set What the server sees to Only the sum"</p>
                        }.into_any(),
                        None => view! { <p class="sub">"Known when the last round is done."</p> }.into_any(),
                    }}
                </div>
                <UnicityCard state=state/>
                <MembershipCard state=state/>
            </div>
            <p class="sr-only" id="mob-summary" aria-live="polite" data-testid="mob-summary">{move || {
                let r = record()?;
                Some(match r.asr {
                    Some(asr) => format!("Round {}: the server found {} of your 8 positions within {}.",
                        r.round + 1, percent(asr), format_distance(tau())),
                    None => format!("Round {}: the server's attack diverged and found nothing.", r.round + 1),
                })
            }}</p>
        </section>
    }
}
