//! The lab's results: summary figures (also as accessible text), the per-round table, charts of
//! error and RMSE per round, and the export buttons.

use super::LabState;
use super::export::{self, Exports};
use super::scene::RoundView;
use crate::shell::lab_views::Pending;
use crate::ui::chart::{Axis, Chart, Point, Series};
use crate::ui::count::count;
use crate::ui::help::help;
use leptos::prelude::*;
use whereabouts_engine::signal_map::defence::Defence;
use whereabouts_engine::signal_map::scenario::ScenarioConfig;
use whereabouts_engine::signal_map::settings::defence_label;
use whereabouts_engine::signal_map::undefended::closest;

fn metres(v: Option<f64>) -> String {
    v.map_or("—".into(), |m| format!("{m:.0} m"))
}

/// One row of the table, as plain values.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    round: usize,
    start: String,
    points: usize,
    batch: Option<usize>,
    truth: (f64, f64),
    truth_ll: (f64, f64),
    dlg: Option<(f64, f64)>,
    dlg_ll: Option<(f64, f64)>,
    dlg_error: Option<f64>,
    diverged: bool,
    iterations: Option<usize>,
    /// Lemma 1's estimate, plane metres (the e2e lesson checks where it lands).
    analytic: Option<(f64, f64)>,
    analytic_error: Option<f64>,
    rmse: f64,
    pending: bool,
    stale: bool,
    /// The visitor sent no update this round, and why.
    absent: Option<String>,
}

fn row(r: &RoundView, start_unix: f64, round_s: f64) -> Option<Row> {
    let start = start_unix + r.round as f64 * round_s;
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(start * 1000.0));
    let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    let start = format!(
        "{} {:02}:{:02}",
        days[date.get_utc_day() as usize % 7],
        date.get_utc_hours(),
        date.get_utc_minutes()
    );
    let Some(t) = r.target.as_ref() else {
        return Some(Row {
            round: r.round,
            start,
            points: 0,
            batch: None,
            truth: (f64::NAN, f64::NAN),
            truth_ll: (f64::NAN, f64::NAN),
            dlg: None,
            dlg_ll: None,
            dlg_error: None,
            diverged: false,
            iterations: None,
            analytic: None,
            analytic_error: None,
            rmse: r.record.as_ref().map_or(f64::NAN, |x| x.rmse_db),
            pending: false,
            stale: r.stale,
            absent: Some(r.absent.clone()?),
        });
    };
    let rec = r.record.as_ref();
    let dlg = r.dlg.as_ref();
    Some(Row {
        round: r.round,
        start,
        points: t.points.len(),
        batch: rec.map(|x| x.batch_points),
        truth: (t.truth.east, t.truth.north),
        truth_ll: rec.map_or((f64::NAN, f64::NAN), |x| {
            (x.true_centroid.latlon.lat, x.true_centroid.latlon.lon)
        }),
        dlg: dlg.map(|d| {
            (
                d.reconstruction.position.east,
                d.reconstruction.position.north,
            )
        }),
        dlg_ll: dlg.map(|d| (d.reconstruction.latlon.lat, d.reconstruction.latlon.lon)),
        dlg_error: dlg.map(|d| d.reconstruction.error_m),
        diverged: dlg.is_some_and(|d| d.result.diverged),
        iterations: dlg.map(|d| d.result.iterations),
        analytic: t.analytic.map(|a| (a.east, a.north)),
        analytic_error: t.analytic.map(|a| a.distance(&t.truth)),
        rmse: rec.map_or(f64::NAN, |x| x.rmse_db),
        pending: rec.is_none(),
        stale: r.stale,
        absent: None,
    })
}

/// What a summary card's figure means (its "?").
fn card_help(id: &str) -> &'static str {
    match id {
        "closest-attack" => {
            "The smaller of the two attacks' median errors: the server is free to use whichever attack lands closer to you."
        }
        "median-error" => {
            "Median distance between DLG's reconstruction and the true centroid of your data in each round. Rounds in which DLG diverged (left the area) are left out, and the card says how many."
        }
        "analytic-error" => {
            "Median distance between the analytic reconstruction (Lemma 1: a weighted combination of your positions, its weights summing to one, read straight out of the first layer of your update) and the true centroid of each round."
        }
        "emd" => {
            "Earth mover's distance between all your true positions and the server's DLG reconstructions (sliced Wasserstein, 1,000 projections), beside the same figure for random guesses in the area. Well below the random figure, the server has learned where you spend your time."
        }
        "diverged" => {
            "Share of rounds in which DLG left the area or did not settle: such guesses stay on the map, faded, but are left out of the medians and the EMD."
        }
        "fedavg-error" => {
            "Median distance between the FedAvg-aware server's estimate (the mean of its dummies, one per local step, weighted by the points each step trained on) and the true centroid of each round, beside DLG's on the same updates. Rounds in which its estimate left the area are left out."
        }
        "fedavg-steps" => {
            "Each local step trained on its own mini-batch: the median distance between the FedAvg-aware server's dummy for a step and that mini-batch's true centroid (over every step of every round), beside the distance from DLG's single point to the same centroids."
        }
        "dp-epsilon" => {
            "Local DP's guarantee for you over the whole run: every release your phone made (each noised local step, or each noised update) composed by Rényi DP, at δ = 1e-5. It protects everything you trained on — against this server, no attack can tell your data from any other data set with odds better than e^ε (except with probability δ). Smaller is more private; ε of 10 or more promises little."
        }
        "central-dp-epsilon" => {
            "Central DP (DP-FedAvg) over the secure sum: your user-level ε — a neighbouring data set has your whole data or none of it — at δ = 1e-5, over every round run so far (the sampled Gaussian mechanism's Rényi DP, composed and converted as Google's dp_accounting does) and for the last round alone. With a trusted aggregator every round counts, whether you were sampled or not, at the sampling rate q; with noise added by the phones the server knows who took part, so only the rounds your phone sent count, at q = 1, each for the noise actually left in the sum after dropouts. Beside it, the model's RMSE: what the noise costs the map."
        }
        "imprint" => {
            "The malicious server (Fowl et al. 2022, “Robbing the Fed”) planted an imprint layer in the model it sent, and read fixes out of the round's secure sum: every fix that was alone in its bin among all the phones' fixes comes back verbatim (to within 25 cm: the rounding of the phones' arithmetic and of the secure sum's quantisation); a bin with several gives a blend. Counted over every round so far: your fixes recovered, then everyone's. On the map, the shown round's readouts are grey crosses, your recovered fixes red rings. The server learns nothing for the map in these rounds: its RMSE does not move."
        }
        "rmse-references" => {
            "What the model's RMSE is measured against, on the same test set. Mean: predicting the average signal of all the training data everywhere — a model no better has learnt nothing about where the signal is strong. Centralised: the same model trained on every user's training data pooled in one place (no federation, no defence: 10 passes of mini-batch SGD) — what this model can reach when privacy costs nothing."
        }
        "undefended" => {
            "The same path, world, seed, federation and attack with no defence, run after yours: the server's closest attack there. Below it, the sentence says whether your defence moved the server away from you, left it where it was, or brought it closer — and why, where the figures show it. One run each."
        }
        "rmse" => {
            "How far the learned signal map is from the real signal at held-out measurements (root mean square error, dB). Lower is a better map: the utility the federation is for."
        }
        _ => "",
    }
}

/// A card's value in pieces: text, and the figures a lesson reads (`data-figure`, see
/// [`crate::ui::figures`]; the lab lists them in its spec).
type Pieces = Vec<(Option<&'static str>, String)>;

/// A piece that is the figure `name`.
fn fig(name: &'static str, text: String) -> (Option<&'static str>, String) {
    (Some(name), text)
}

/// A piece of plain text.
fn txt(text: String) -> (Option<&'static str>, String) {
    (None, text)
}

fn pieces_view(pieces: Pieces) -> impl IntoView {
    pieces
        .into_iter()
        .map(|(name, text)| match name {
            Some(name) => view! { <span data-figure=name>{text}</span> }.into_any(),
            None => text.into_any(),
        })
        .collect_view()
}

/// "1 round", "5 rounds".
pub fn rounds_text(n: usize) -> String {
    if n == 1 {
        "1 round".into()
    } else {
        format!("{n} rounds")
    }
}

/// What the warm start means for the attack ([000] Insight I2), beside the switch to cold.
const WARM_TEXT: &str = "You joined a federation that had already learnt from the other campus users for 4 weeks, so the map is a real signal map. A model that fits the data has small gradients that point every way, which makes your update much harder to read: the server lands farther from you than in the paper, whose runs start from an untrained model (Insight I2).";
/// What the cold start means, beside the switch back.
const COLD_TEXT: &str = "The paper's cold start: an untrained model that starts at 0 dBm and learns slowly with η = 0.001, so the map barely looks like one. Far from the data, every one of your fixes pulls the model the same way, and the server's reconstruction lands close to you: early rounds leak the most (Insight I2).";

/// Why the two attacks disagree, for a student: measured in the engine's test
/// `dlg_parts_from_lemma1_because_it_uses_the_post_update_weights`.
pub const TWO_ATTACKS: &str = "Why two attacks? The analytic attack (Lemma 1, used as an attack: this project's extension of [000]) reads a weighted combination of where you were straight out of the first layer of your update — weights that sum to one but can be negative, so it is an average only when they are all positive. DLG instead searches for one made-up point whose training step looks like yours — but, as the paper's algorithm is written, it compares against the model after your update, while your phone computed the update on the model before it. That small mismatch moves DLG's best match tens of metres off, even when you stood still.";

/// Central DP's privacy loss in words: user-level, per round and in total, with δ.
fn central_dp_text(c: &whereabouts_engine::signal_map::central_dp::CentralDpSummary) -> String {
    use whereabouts_engine::signal_map::central_dp::NoiseAt;
    let by = match c.noise_at {
        NoiseAt::Trusted => "noise added by a trusted aggregator",
        NoiseAt::Distributed => "noise added by the phones",
    };
    format!(
        " Central DP (DP-FedAvg, {by}, q = {}, z = {}): your user-level ε is {:.2} over {} (δ = {:e}), {:.2} for the last round alone — it bounds what the models tell about your whole data being used at all.",
        c.sampling_rate,
        c.noise_multiplier,
        c.epsilon_total,
        rounds_text(c.rounds),
        c.delta,
        c.epsilon_round,
    )
}

/// Local DP's privacy loss in words: what one release is, what is protected, the total with δ.
fn dp_text(total: f64, releases: Option<usize>, config: &ScenarioConfig) -> String {
    use whereabouts_engine::signal_map::defence::dp::{AppliedTo, PAPER_DELTA};
    let Defence::LocalDp(dp) = config.defence else {
        return String::new();
    };
    let per = match dp.applied_to {
        AppliedTo::LocalStep => "local step",
        AppliedTo::Update => "update",
    };
    let over = releases.map_or(String::new(), |k| {
        format!(" over {k} release{}", if k == 1 { "" } else { "s" })
    });
    format!(
        " Local DP: your total ε{over} is {total:.1} (δ = {PAPER_DELTA:e}, Rényi-DP composition), which protects everything you trained on; each release (ε = {} per {per}) protects your whole round of data, since any two of a phone's round data are neighbours.",
        dp.epsilon
    )
}

/// The Signal map's results; `exports` brings the CSV and JSON exports when first asked for.
#[component]
pub fn Results(state: LabState, exports: fn() -> Pending<Exports>) -> impl IntoView {
    let rows = Memo::new(move |_| {
        let wanted = state.wanted.get();
        state.scene.with(|s| {
            let (start, round_s) = s
                .world
                .as_ref()
                .map_or((0.0, 86_400.0), |w| (w.start_unix, w.round_s));
            s.rounds
                .iter()
                .filter(|r| r.round < wanted)
                .filter_map(|r| row(r, start, round_s))
                .collect::<Vec<_>>()
        })
    });
    let summary = move || state.scene.with(|s| s.summary.clone());
    let undefended = move || state.scene.with(|s| s.undefended.clone());
    let busy = move || {
        state
            .scene
            .with(|s| s.finished_through() < state.wanted.get().min(s.total_rounds))
    };
    let summary_text = move || {
        // A fresh run (after Reset, say) has attacked nothing yet: no figures to state.
        let Some(s) = summary().filter(|s| s.attacked_rounds > 0) else {
            // Nothing to run on (an empty path, from a link or cleared): no run is under way.
            let no_path = state.editor.with(|e| e.waypoints.is_empty()) && !state.has_data();
            return if no_path {
                "No path yet: draw where you went on the map, or drop your own file below, and the federation starts.".to_string()
            } else if busy() || state.playing.get() {
                "Training and attacking…".to_string()
            } else if let Some(s) = summary().filter(|_| !rows.with(Vec::is_empty)) {
                // Every round played, none with an update of yours (not sampled, refused, no
                // fixes): nothing of yours was attacked, and the page says so, with the ε the
                // rounds still charged.
                let n = rows.with(Vec::len);
                format!(
                    "No update of yours in the {} played: each round's row says why, and the server had nothing of yours to attack.{}",
                    rounds_text(n),
                    s.central_dp
                        .as_ref()
                        .map_or(String::new(), |c| central_dp_text(c))
                )
            } else {
                "Press Play to start the federation.".to_string()
            };
        };
        // The malicious server spends its rounds on the imprint: no DLG, no Lemma 1, the map
        // kept as it was (`lab/malicious.rs`); say what it got instead of a row of dashes.
        if let Some(i) = &s.imprint {
            return format!(
                "After {} under the malicious server: the model it sent carried an imprint module, and it read {} of your {} fixes out of the secure sum exactly (within 25 cm), {} of everyone's {}. It spent the rounds on that: DLG and Lemma 1, which invert the signal map's update, did not run, and the map stayed as it was (its error {}).",
                rounds_text(i.rounds),
                count(i.your_exact),
                count(i.your_fixes),
                count(i.everyone_exact),
                count(i.everyone_fixes),
                s.final_rmse_db
                    .map_or("—".into(), |r| format!("{r:.1} dB RMSE")),
            );
        }
        let mut dp = s.dp_epsilon.map_or(String::new(), |e| {
            dp_text(e, s.dp_releases, &state.settings.get())
        });
        // GeoInd's ε per fix and for the whole trajectory (the engine's words).
        dp.push_str(&s.geoind.as_ref().map_or(String::new(), |g| g.text()));
        dp.push_str(
            &s.central_dp
                .as_ref()
                .map_or(String::new(), |c| central_dp_text(c)),
        );
        let best = closest(&s).map_or(String::new(), |(name, m)| {
            format!(
                "its closest attack ({name}) puts you a median {} from where you really were",
                metres(Some(m))
            )
        });
        let absent = rows.with(|r| r.iter().filter(|x| x.absent.is_some()).count());
        let without = match absent {
            0 => String::new(),
            k => format!(" (and {} in which you sent no update)", rounds_text(k)),
        };
        let fedavg = s.fedavg.as_ref().map_or(String::new(), |f| {
            format!(
                " The FedAvg-aware server, which replays your phone's local training: its estimate lands a median {} from you (DLG {}), its dummies a median {} from the local steps' mini-batch centroids (DLG's one point {}); EMD {}; {:.0}% diverged.",
                metres(f.median_error_m),
                metres(s.median_error_m),
                metres(f.median_step_error_m),
                metres(s.median_step_error_m),
                metres(f.emd_m),
                f.diverged_percent,
            )
        });
        // DLG's median leaves its diverged rounds out: say so where there are any.
        let diverged = rows.with(|r| r.iter().filter(|x| x.diverged).count());
        let dlg = match diverged {
            0 => metres(s.median_error_m),
            k => format!(
                "{} over the {} it did not diverge",
                metres(s.median_error_m),
                rounds_text(s.attacked_rounds.saturating_sub(k))
            ),
        };
        format!(
            "After {}{without}: {best} (DLG {dlg}, analytic {}); EMD {} versus {} for random guesses; {} of the DLG runs diverged; the model's error is {}.{fedavg}{dp}",
            rounds_text(s.attacked_rounds),
            metres(s.analytic_median_error_m),
            metres(s.emd_m),
            metres(s.random_emd_m),
            s.diverged_percent
                .map_or("—".into(), |d| format!("{d:.0}%")),
            s.final_rmse_db.map_or("—".into(), |r| {
                let beside = s.references.map_or(String::new(), |x| {
                    format!(
                        " (predicting the mean everywhere: {:.1} dB; the same model trained centrally on everyone's data: {})",
                        x.mean_rmse_db,
                        x.centralised_rmse_db
                            .map_or("—".into(), |c| format!("{c:.1} dB"))
                    )
                });
                format!("{r:.1} dB RMSE{beside}")
            }),
        )
    };
    let card = move |id: &'static str,
                     label: &'static str,
                     value: Box<dyn Fn() -> Pieces + Send + Sync>| {
        let (button, text) = help(format!("help-card-{id}"), label, card_help(id));
        view! {
            <div class="card">
                <span class="card-label">{label}" "{button}</span>
                <span class="card-value" data-testid=id>{move || pieces_view(value())}</span>
                {text}
            </div>
        }
    };
    let latency = move || {
        let l = state.latency.get();
        if state.data.loaded() {
            return "Rounds follow your file's timestamps; each point is one of your fixes."
                .to_string();
        }
        match (l.analytic_ms, l.dlg_ms) {
            (None, _) => "Drag a waypoint: the server's estimate follows.".to_string(),
            (Some(a), None) => format!("Last edit: analytic estimate in {a:.0} ms, DLG running…"),
            (Some(a), Some(d)) => {
                format!("Last edit: analytic estimate in {a:.0} ms, DLG in {d:.0} ms.")
            }
        }
    };
    view! {
        <section class="panel results" aria-labelledby="results-title">
            <h2 id="results-title">"What the server learned"</h2>
            <p class="notice" role="alert" data-testid="link-notice" class:hidden=move || state.link_notice.with(|n| n.is_none())>
                {move || state.link_notice.get().unwrap_or_default()}
                " "<button type="button" class="link" data-testid="link-notice-dismiss"
                    on:click=move |_| state.link_notice.set(None)>"Dismiss"</button>
            </p>
            <p class="notice" role="alert" data-testid="notice" class:hidden=move || state.notice.with(|n| n.is_none())>
                {move || state.notice.get().unwrap_or_default()}
            </p>
            <div class="cards">
                {card("closest-attack", "Server's closest attack", Box::new(move || summary().and_then(|s| closest(&s)).map_or(vec![fig("signal.closest", "—".into())], |(name, m)| vec![fig("signal.closest", metres(Some(m))), txt(format!(" ({name})"))])))}
                {move || summary().and_then(|_| undefended()).map(|c| card("undefended", "Without the defence", Box::new(move || closest(&c.undefended).map_or(vec![fig("signal.undefended", "—".into())], |(name, m)| vec![fig("signal.undefended", metres(Some(m))), txt(format!(" ({name})"))]))))}
                {card("median-error", "Median DLG error", Box::new(move || summary().map_or(vec![fig("signal.dlg", "—".into())], |s| {
                    // The median leaves diverged runs out, and says so.
                    match rows.with(|r| r.iter().filter(|x| x.diverged).count()) {
                        0 => vec![fig("signal.dlg", metres(s.median_error_m))],
                        k => vec![fig("signal.dlg", metres(s.median_error_m)), txt(format!(" ({k} diverged left out)"))],
                    }
                })))}
                {move || summary().and_then(|s| s.fedavg.clone().map(|f| (s, f))).map(|(s, f)| view! {
                    {card("fedavg-error", "Median FedAvg-aware error", Box::new(move || vec![fig("signal.aware", metres(f.median_error_m)), txt(format!(" (DLG {})", metres(s.median_error_m)))]))}
                    {card("fedavg-steps", "Local steps' centroids", Box::new(move || vec![txt(format!("{} (DLG {})", metres(f.median_step_error_m), metres(s.median_step_error_m)))]))}
                })}
                {card("analytic-error", "Median analytic error", Box::new(move || vec![fig("signal.analytic", summary().map_or("—".into(), |s| metres(s.analytic_median_error_m)))]))}
                {card("emd", "EMD (random)", Box::new(move || summary().map_or(vec![fig("signal.emd", "—".into())], |s| vec![fig("signal.emd", metres(s.emd_m)), txt(" (".into()), fig("signal.random", metres(s.random_emd_m)), txt(")".into())])))}
                {card("diverged", "Diverged", Box::new(move || vec![fig("signal.diverged", summary().and_then(|s| s.diverged_percent).map_or("—".into(), |d| format!("{d:.0}%")))]))}
                {move || summary().and_then(|s| s.dp_epsilon).map(|e| card("dp-epsilon", "Your total ε (δ = 1e-5)", Box::new(move || vec![fig("signal.epsilon", format!("{e:.1}"))])))}
                {move || summary().and_then(|s| s.central_dp).map(|c| card("central-dp-epsilon", "Your user-level ε (δ = 1e-5)", Box::new(move || vec![fig("signal.user_epsilon", format!("{:.2}", c.epsilon_total)), txt(" in total · ".into()), fig("signal.round_epsilon", format!("{:.2}", c.epsilon_round)), txt(" a round (the last)".into())])))}
                {move || summary().and_then(|s| s.imprint).map(|i| card("imprint", "Your fixes recovered exactly", Box::new(move || vec![fig("signal.recovered", count(i.your_exact)), txt(format!(" of {} · everyone's {} of {}", count(i.your_fixes), count(i.everyone_exact), count(i.everyone_fixes)))])))}
                {card("rmse", "Model RMSE", Box::new(move || vec![fig("signal.rmse", summary().and_then(|s| s.final_rmse_db).map_or("—".into(), |r| format!("{r:.1} dB")))]))}
                {card("rmse-references", "Beside it", Box::new(move || match summary().map(|s| s.references) {
                    None => vec![txt("—".into())],
                    // Trained in the worker's spare time, after the run's own figures.
                    Some(None) => vec![txt("measuring…".into())],
                    Some(Some(r)) => vec![txt("mean ".into()), fig("signal.mean", format!("{:.1} dB", r.mean_rmse_db)), txt(" · centralised ".into()), fig("signal.centralised", r.centralised_rmse_db.map_or("—".into(), |c| format!("{c:.1} dB")))],
                }))}
            </div>
            <p class="summary" id="signal-summary" data-testid="summary" aria-live="polite">{summary_text}</p>
            {move || undefended().and_then(|c| state.settings.with(|config| c.reading(&config.defence, defence_label(&config.defence)))).map(|text| view! {
                <p class="summary" data-testid="undefended-reading" aria-live="polite">{text}</p>
            })}
            <p class="hint" data-testid="two-attacks">{TWO_ATTACKS}</p>
            <p class="hint" data-testid="start-hint">
                {move || if state.settings.with(|c| c.warm_start.is_some()) { WARM_TEXT } else { COLD_TEXT }}
                " "
                <button type="button" class="link" data-testid="switch-start"
                    on:click=move |_| {
                        let next = if state.settings.with_untracked(|c| c.warm_start.is_some()) { "cold" } else { "warm" };
                        // Both values are always valid: the only refusal is a bad path, which
                        // the notice already shows.
                        if let Err(e) = state.set_field("start", next) {
                            state.notice.set(Some(e));
                        }
                    }>
                    {move || if state.settings.with(|c| c.warm_start.is_some()) { "Try the paper's cold start" } else { "Back to the warm start" }}
                </button>
            </p>
            <p class="latency" data-testid="latency"
                data-analytic-ms=move || state.latency.get().analytic_ms.map(|v| format!("{v:.2}")).unwrap_or_default()
                data-dlg-ms=move || state.latency.get().dlg_ms.map(|v| format!("{v:.2}")).unwrap_or_default()
                data-worker-ms=move || state.latency.get().worker_ms.map(|v| format!("{v:.2}")).unwrap_or_default()
                data-edit=move || state.latency.get().edit.to_string()>{latency}</p>
            <Charts rows/>
            // The errors first: on a phone they are what fits; the rest is a swipe away.
            // The title sits outside the scrolling region, so it wraps to the screen's width.
            <p class="table-title" id="rounds-caption">"Per round: how far the server's reconstructions land from your batch's true centroid"</p>
            <p class="table-hint" aria-hidden="true">"Swipe the table sideways for the positions →"</p>
            <div class="table-wrap" role="region" aria-labelledby="rounds-caption" tabindex="0" data-testid="rounds-region">
                <table data-testid="rounds-table" aria-labelledby="rounds-caption">
                    <thead><tr>
                        <th scope="col">"Round"</th><th scope="col">"Starts"</th>
                        <th scope="col">"DLG error"</th><th scope="col">"Analytic error"</th><th scope="col">"Iter."</th><th scope="col">"RMSE"</th>
                        <th scope="col">"Points"</th><th scope="col" title="Points the phone trained on (a defence may choose fewer)">"Batch"</th>
                        <th scope="col">"True centroid"</th><th scope="col">"DLG reconstruction"</th>
                    </tr></thead>
                    <tbody>
                        <For each=move || rows.get() key=|r| (r.round, r.pending, r.stale, r.dlg_error.map(f64::to_bits), r.analytic_error.map(f64::to_bits)) let:r>
                            <tr data-testid="round-row" data-round=r.round
                                data-truth-e=format!("{:.2}", r.truth.0) data-truth-n=format!("{:.2}", r.truth.1)
                                data-dlg-e=r.dlg.map(|d| format!("{:.2}", d.0)).unwrap_or_default()
                                data-dlg-n=r.dlg.map(|d| format!("{:.2}", d.1)).unwrap_or_default()
                                data-dlg-error=r.dlg_error.map(|e| format!("{e:.3}")).unwrap_or_default()
                                data-analytic-e=r.analytic.map(|a| format!("{:.2}", a.0)).unwrap_or_default()
                                data-analytic-n=r.analytic.map(|a| format!("{:.2}", a.1)).unwrap_or_default()
                                data-analytic-error=r.analytic_error.map(|e| format!("{e:.3}")).unwrap_or_default()
                                data-absent=r.absent.clone().unwrap_or_default()
                                class:pending=r.pending class:stale=r.stale class:absent=r.absent.is_some()
                                class:selected=move || state.selected.get() == Some(r.round)
                                on:click=move |_| { state.playing.set(false); state.selected.set(Some(r.round)); }>
                                <td>{r.round + 1}</td>
                                <td>{r.start.clone()}</td>
                                {match r.absent.clone() {
                                    Some(why) => view! {
                                        <td colspan="3" class="why">{format!("No update from you: {why}.")}</td>
                                        <td>{if r.rmse.is_finite() { format!("{:.1} dB", r.rmse) } else { "…".into() }}</td>
                                        <td colspan="4"></td>
                                    }.into_any(),
                                    None => view! {
                                    <td>{match (r.dlg_error, r.pending) {
                                        (None, true) => "…".to_string(),
                                        (None, false) => "—".to_string(),
                                        (Some(_), _) if r.diverged => format!("{} (diverged)", metres(r.dlg_error)),
                                        (Some(_), _) => metres(r.dlg_error),
                                    }}</td>
                                    <td>{metres(r.analytic_error)}</td>
                                    <td>{r.iterations.map_or("…".into(), |i| i.to_string())}</td>
                                    <td>{if r.rmse.is_finite() { format!("{:.1} dB", r.rmse) } else { "…".into() }}</td>
                                    <td>{r.points}</td>
                                    <td>{r.batch.map_or("…".into(), |b| b.to_string())}</td>
                                    <td>{if r.truth_ll.0.is_finite() { format!("{:.5}, {:.5}", r.truth_ll.0, r.truth_ll.1) } else { "…".into() }}</td>
                                    <td>{r.dlg_ll.map_or(if r.pending { "…".into() } else { "—".into() }, |(lat, lon)| format!("{lat:.5}, {lon:.5}"))}</td>
                                    }.into_any(),
                                }}
                            </tr>
                        </For>
                    </tbody>
                </table>
            </div>
            <div class="tools" class:hidden=move || state.hidden.with(|h| h.iter().any(|k| k == "export"))>
                <button type="button" data-testid="export-csv" on:click=move |_| export::later(state, exports, |e| e.csv)>"Export CSV"</button>
                <button type="button" data-testid="export-json" on:click=move |_| export::later(state, exports, |e| e.json)>"Export JSON"</button>
                <button type="button" data-testid="export-png" on:click=move |_| export::png()>"Map as PNG"</button>
            </div>
        </section>
    }
}

/// Error per round (DLG, analytic) and RMSE per round, as small line charts.
#[component]
fn Charts(rows: Memo<Vec<Row>>) -> impl IntoView {
    let chart = move |title: &'static str,
                      unit: &'static str,
                      series: Vec<(&'static str, Vec<(usize, f64)>)>| {
        let n = series
            .iter()
            .flat_map(|(_, s)| s.iter().map(|p| p.0 + 1))
            .max()
            .unwrap_or(1)
            .max(2);
        let y = Axis::from_zero(
            series.iter().flat_map(|(_, s)| s.iter().map(|p| p.1)),
            1.0,
            "",
        );
        let series = series
            .into_iter()
            .map(|(colour, s)| Series {
                colour,
                points: s
                    .into_iter()
                    .map(|(i, v)| Point {
                        x: i as f64,
                        y: v,
                        title: Some(format!("round {}: {v:.1} {unit}", i + 1)),
                    })
                    .collect(),
                joined: true,
                dashed: false,
            })
            .collect();
        let chart = Chart {
            width: 300.0,
            height: 120.0,
            left: 28.0,
            bottom: 18.0,
            x: Axis {
                min: 0.0,
                max: (n - 1) as f64,
                log: false,
                min_text: "1".into(),
                max_text: format!("round {n}"),
                label: String::new(),
            },
            y,
            series,
            dot_radius: 2.5,
            label: title.into(),
            testid: "round-chart",
        };
        view! {
            <figure class="chart">
                {chart.view()}
                <figcaption>{title}" ("{unit}")"</figcaption>
            </figure>
        }
    };
    view! {
        <div class="charts">
            {move || {
                let r = rows.get();
                let dlg = r.iter().filter_map(|x| x.dlg_error.map(|e| (x.round, e))).collect();
                let an = r.iter().filter_map(|x| x.analytic_error.map(|e| (x.round, e))).collect();
                let rmse = r.iter().filter(|x| x.rmse.is_finite()).map(|x| (x.round, x.rmse)).collect();
                view! {
                    {chart("Reconstruction error per round", "m", vec![(super::draw::DLG_COLOUR, dlg), (super::draw::ANALYTIC_COLOUR, an)])}
                    {chart("Model RMSE per round", "dB", vec![("#2563eb", rmse)])}
                }
            }}
        </div>
    }
}
