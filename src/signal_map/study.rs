//! Studies on the visitor's own configuration and path, run in the worker behind the lab
//! ([`whereabouts_engine::signal_map::studies`]): the privacy–utility trade-off of every defence (issue #5,
//! item 8), more local steps blurring the attack (Insight I3), and who else takes part
//! (Insight I4). Each is plotted and tabulated as it arrives.

use super::LabState;
use crate::protocol::{Response, SignalResponse};
use crate::ui::chart::{Axis, Chart, Point, Series};
use crate::ui::study::stopped;
use leptos::prelude::*;
use whereabouts_engine::signal_map::studies::{Study, StudyPoint};

/// What the page knows about the current study.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StudyView {
    pub id: u32,
    pub kind: Study,
    pub running: bool,
    pub done: usize,
    pub total: usize,
    pub points: Vec<StudyPoint>,
    pub cancelled: bool,
    pub error: Option<String>,
}

impl StudyView {
    pub fn apply(&mut self, response: Response) {
        match response {
            Response::Signal(SignalResponse::StudyProgress {
                id,
                done,
                total,
                point,
            }) if id == self.id => {
                self.done = done;
                self.total = total;
                self.points.extend(point);
            }
            Response::Signal(SignalResponse::StudyDone { id, cancelled }) if id == self.id => {
                self.running = false;
                self.cancelled = cancelled;
            }
            Response::Signal(SignalResponse::StudyError { id, message }) if id == self.id => {
                self.running = false;
                self.error = Some(message);
            }
            _ => {}
        }
    }

    /// The series so far, in order, each with its family's label (the engine numbers the
    /// series; labels are for people, never identities).
    fn series(&self) -> Vec<(usize, String)> {
        let mut out: Vec<(usize, String)> = Vec::new();
        for p in &self.points {
            if !out.iter().any(|(s, _)| *s == p.series) {
                out.push((p.series, p.family.clone()));
            }
        }
        out
    }
}

/// Colours of the families on the chart, in order of appearance (`.swatch.fN` in the CSS).
const COLOURS: [&str; 6] = [
    "#1f2328", "#2563eb", "#16a34a", "#9333ea", "#d1242f", "#ca8a04",
];

/// The studies: key, label, what it shows and how (shown above the button).
const STUDIES: [(Study, &str, &str, &str); 3] = [
    (
        Study::Defences,
        "defences",
        "Privacy–utility trade-off: every defence",
        "Runs your configuration and path with every defence at several strengths ({runs} runs) and plots how far the server's guesses land from you against how good the signal map is. Up and to the left is best: more privacy at little cost. The map's quality is the model's RMSE after your rounds: a few rounds move a federation that has already learnt very little, so a defence costs little there; from the paper's cold start with B = 20 and E = 5 the model learns within the run and the cost shows.",
    ),
    (
        Study::LocalSteps,
        "steps",
        "More local steps blur the attack (Insight I3)",
        "Under FedAvg your phone takes many small SGD steps (E epochs over mini-batches of B points) before it sends the sum as one update. Each step's gradient points at its own mini-batch, at slightly different weights; the server sees only their sum, so DLG recovers a blur of many mini-batch centroids (with FedAvg on, the map shows them as small rings around the focused round), and the model moves further, so later updates say less. This runs your path with FedSGD (one step) and FedAvg with B = 20 and 5 over E, and plots how often DLG fails (leaves the area) against the number of steps; the table adds how far the guesses that do land are from you, and the model's RMSE, which more steps do not hurt. Every run also faces a stronger server (beyond the paper) that knows B, E and η and replays your phone's training on one dummy point per step, with the same iteration budget as DLG (your 'DLG iterations' setting): dashed on the chart, its own columns in the table. Does FedAvg still protect you from it?",
    ),
    (
        Study::CoParticipants,
        "users",
        "Who else takes part (Insight I4)",
        "Runs your path alone and then with each synthetic user of this world in turn, and plots the attack's error against how different that user's whereabouts are from yours (EMD between your locations and theirs). The paper finds that dissimilar partners keep the global model from fitting you, so your updates stay large and the attack more accurate; similar partners protect you a little. With the default FedSGD the model hardly moves in a few rounds, so a partner changes little: try B = 10 and E = 5, the paper's setting for this study (Table 3).",
    ),
];

/// What a study shows, with its number of runs where the text gives it (from the engine's
/// grid, so the text cannot drift from what runs).
fn about(study: Study) -> String {
    let text = STUDIES.iter().find(|s| s.0 == study).map_or("", |s| s.3);
    text.replace(
        "{runs}",
        &whereabouts_engine::signal_map::studies::defence_grid()
            .len()
            .to_string(),
    )
}

fn study_of(key: &str) -> Study {
    STUDIES
        .iter()
        .find(|s| s.1 == key)
        .map_or(Study::Defences, |s| s.0)
}

/// How a study is plotted.
struct Axes {
    x: fn(&StudyPoint) -> Option<f64>,
    y: fn(&StudyPoint) -> Option<f64>,
    /// The same measure for the FedAvg-aware server, drawn dashed beside each series.
    y_aware: Option<fn(&StudyPoint) -> Option<f64>>,
    /// Horizontal axis in log10 (local steps span 1 to ~150).
    log_x: bool,
    x_unit: &'static str,
    x_label: &'static str,
    y_label: &'static str,
    /// The vertical axis is a percentage (0–100).
    percent: bool,
}

fn axes(study: Study) -> Axes {
    match study {
        Study::Defences => Axes {
            x: |p| p.rmse_db,
            y: |p| p.mean_error_m,
            y_aware: None,
            log_x: false,
            x_unit: "dB",
            x_label: "model RMSE (dB) → worse utility",
            y_label: "↑ distance of the server's guesses from you (more privacy)",
            percent: false,
        },
        Study::LocalSteps => Axes {
            x: |p| p.local_steps,
            y: |p| p.diverged_percent,
            y_aware: Some(|p| p.fedavg.as_ref().map(|f| f.diverged_percent)),
            log_x: true,
            x_unit: "steps",
            x_label: "local SGD steps per update (log scale) →",
            y_label: "↑ rounds in which the attack failed: its guess left the area (%)",
            percent: true,
        },
        Study::CoParticipants => Axes {
            x: |p| p.user_distance_m.or(Some(0.0)),
            y: |p| p.emd_m,
            y_aware: None,
            log_x: false,
            x_unit: "m",
            x_label: "how different the other user is from you (EMD, m; 0 = alone) →",
            y_label: "↑ EMD between the server's guesses and your rounds (more privacy)",
            percent: false,
        },
    }
}

#[component]
pub fn Studies(state: LabState) -> impl IntoView {
    let view_ = move || state.study.get();
    let chart = move || {
        let v = view_();
        let a = axes(v.kind);
        let tx = move |x: f64| if a.log_x { x.max(1.0).log10() } else { x };
        let measure = |y: fn(&StudyPoint) -> Option<f64>| -> Vec<(&StudyPoint, f64, f64)> {
            v.points
                .iter()
                .filter_map(|p| {
                    let (x, y) = ((a.x)(p)?, y(p)?);
                    (x.is_finite() && y.is_finite()).then_some((p, x, y))
                })
                .collect()
        };
        let pts = measure(a.y);
        let aware = a.y_aware.map(measure).unwrap_or_default();
        let xs = || pts.iter().map(|p| tx(p.1));
        let (lo, hi) = (
            xs().fold(f64::INFINITY, f64::min),
            xs().fold(f64::NEG_INFINITY, f64::max),
        );
        let (min_x, max_x) = match v.kind {
            Study::CoParticipants => (0.0, hi.max(1.0) * 1.05),
            _ if hi - lo < 1e-9 => (lo - 1.0, hi + 1.0),
            _ => (lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)),
        };
        let shown = move |v: f64| if a.log_x { 10f64.powf(v) } else { v };
        let y_unit = if a.percent { "%" } else { " m" };
        let mut y = Axis::from_zero(pts.iter().chain(&aware).map(|p| p.2 * 1.05), 10.0, y_unit);
        if a.percent {
            y.max = 100.0;
            y.max_text = "100%".into();
        }
        y.label = a.y_label.into();
        let unit = a.x_unit;
        // One series per family (solid: DLG), and its twin for the FedAvg-aware server (dashed).
        let series = v
            .series()
            .into_iter()
            .flat_map(|(s, _)| [(s, &pts, "", false), (s, &aware, " · FedAvg-aware", true)])
            .filter(|(_, points, ..)| !points.is_empty())
            .map(|(s, points, server, dashed)| Series {
                colour: COLOURS[s % COLOURS.len()],
                points: points
                    .iter()
                    .filter(|p| p.0.series == s)
                    .map(|p| Point {
                        x: shown(tx(p.1)),
                        y: p.2,
                        title: Some(format!(
                            "{} {}{server}: {:.0}{y_unit}; {:.1} {unit}",
                            p.0.family, p.0.parameter, p.2, p.1
                        )),
                    })
                    .collect(),
                // Co-participants are separate people, not a parameter sweep: no line.
                joined: v.kind != Study::CoParticipants,
                dashed,
            })
            .collect();
        Chart {
            width: 720.0,
            height: 300.0,
            left: 44.0,
            bottom: 30.0,
            x: Axis {
                min: shown(min_x),
                max: shown(max_x),
                log: a.log_x,
                min_text: format!("{:.1}", shown(min_x)),
                max_text: format!("{:.1} {unit}", shown(max_x)),
                label: a.x_label.into(),
            },
            y,
            series,
            dot_radius: 4.0,
            label: format!("{} against {}", a.y_label, a.x_label),
            testid: "study-chart",
        }
        .view()
    };
    // Classes, not inline styles: the CSP allows no style attributes.
    let legend = move || {
        let v = view_();
        let servers = v.points.iter().any(|p| p.fedavg.is_some()).then(|| view! {
            <span class="servers">"solid: DLG (paper) · dashed, rings: FedAvg-aware server"</span>
        });
        let families = v
            .series()
            .into_iter()
            .map(|(s, f)| view! { <span><i class=format!("swatch f{}", s % COLOURS.len())></i>{f}</span> })
            .collect_view();
        view! { {families} {servers} }
    };
    let about = move || about(state.study.with(|s| s.kind));
    let two_servers = move || state.study.with(|s| s.kind == Study::LocalSteps);
    let extra_header = move || match state.study.with(|s| s.kind) {
        Study::Defences => "Total ε",
        Study::LocalSteps => "Steps per update",
        Study::CoParticipants => "User distance",
    };
    view! {
        <section class="panel studies" aria-labelledby="studies-title"
            class:hidden=move || state.hidden.with(|h| h.iter().any(|k| k == "studies"))>
            <h2 id="studies-title">"Studies on your path"</h2>
            <label class="study">
                <select data-testid="study" aria-label="Study" prop:disabled=move || view_().running
                    on:change=move |e| {
                        let study = study_of(&event_target_value(&e));
                        state.study.update(|s| {
                            if !s.running {
                                *s = StudyView { id: s.id, kind: study, ..StudyView::default() };
                            }
                        });
                    }>
                    {STUDIES.iter().map(|&(study, key, label, _)| view! {
                        <option value=key selected=move || state.study.with(|s| s.kind == study)>{label}</option>
                    }).collect_view()}
                </select>
            </label>
            <p class="hint" data-testid="study-about">{about}</p>
            <div class="tools">
                <button type="button" data-testid="study-run" prop:disabled=move || view_().running
                    on:click=move |_| state.start_study()>"Run the study"</button>
                <button type="button" data-testid="study-cancel" prop:disabled=move || !view_().running
                    on:click=move |_| state.cancel_study()>"Cancel"</button>
                <progress data-testid="study-progress" prop:max=move || view_().total.max(1) as f64
                    prop:value=move || view_().done as f64
                    class:hidden=move || !view_().running></progress>
                <span class="stats" aria-live="polite" data-testid="study-status"
                    data-total=move || view_().total.to_string()>{move || {
                    let v = view_();
                    match (&v.error, v.running, v.cancelled) {
                        (Some(e), ..) => format!("The study stopped: {e}"),
                        (None, true, _) if v.total == 0 => "Preparing…".to_string(),
                        (None, true, _) => format!("{} of {} runs…", v.done, v.total),
                        (None, false, true) => format!("Cancelled after {} of {} runs.", v.done, v.total),
                        (None, false, false) if v.total > 0 => format!("Done: {} runs.", v.done),
                        _ => String::new(),
                    }
                }}</span>
            </div>
            <div class="study-legend" class:hidden=move || view_().points.is_empty()>{legend}</div>
            <div class:hidden=move || view_().points.is_empty()>{chart}</div>
            // A region the keyboard reaches: the table scrolls.
            <div class="table-wrap" class:hidden=move || view_().points.is_empty() role="region" aria-label="The study's runs" tabindex="0">
                <table>
                    <thead><tr><th>"Run"</th><th>"Setting"</th><th>"DLG distance"</th><th>"Analytic distance"</th><th>"EMD (random)"</th><th>"Diverged"</th><th>"RMSE"</th><th>{extra_header}</th>
                        {move || two_servers().then(|| view! {
                            <th>"FedAvg-aware distance"</th><th>"FedAvg-aware diverged"</th><th>"Step distance (DLG / aware)"</th>
                        })}</tr></thead>
                    <tbody>
                        {move || {
                            let v = view_();
                            v.points.into_iter().map(|p| {
                                let aware = p.fedavg.clone();
                                let aware_cells = (v.kind == Study::LocalSteps).then(|| {
                                    let a = aware.clone();
                                    view! {
                                        <td>{a.as_ref().and_then(|a| a.mean_error_m).map_or("—".into(), |v| format!("{v:.0} m"))}</td>
                                        <td>{a.as_ref().map_or("—".into(), |a| format!("{:.0}%", a.diverged_percent))}</td>
                                        <td>{format!("{} / {}",
                                            p.step_error_m.map_or("—".into(), |v| format!("{v:.0}")),
                                            a.as_ref().and_then(|a| a.step_error_m).map_or("—".into(), |v| format!("{v:.0} m")))}</td>
                                    }
                                });
                                let extra = match v.kind {
                                    Study::Defences => p.dp_epsilon.map_or("—".into(), |e| format!("{e:.0}")),
                                    Study::LocalSteps => p.local_steps.map_or("—".into(), |s| format!("{s:.0}")),
                                    Study::CoParticipants => p.user_distance_m.map_or("—".into(), |d| format!("{d:.0} m")),
                                };
                                view! {
                                    <tr data-testid="study-row" data-family=p.family.clone()
                                        data-series=p.series.to_string()
                                        class:failed=p.failed.is_some()
                                        data-failed=p.failed.clone().unwrap_or_default()
                                        data-parameter=p.parameter.clone()
                                        data-error=p.mean_error_m.map(|v| format!("{v:.2}")).unwrap_or_default()
                                        data-rmse=p.rmse_db.map(|v| format!("{v:.3}")).unwrap_or_default()
                                        data-diverged=p.diverged_percent.map(|v| format!("{v:.1}")).unwrap_or_default()
                                        data-steps=p.local_steps.map(|v| format!("{v:.1}")).unwrap_or_default()
                                        data-user-distance=p.user_distance_m.map(|v| format!("{v:.1}")).unwrap_or_default()
                                        data-fedavg-error=aware.as_ref().and_then(|a| a.mean_error_m).map(|v| format!("{v:.2}")).unwrap_or_default()
                                        data-fedavg-diverged=aware.as_ref().map(|a| format!("{:.1}", a.diverged_percent)).unwrap_or_default()>
                                        <td>{p.family.clone()}
                                            {stopped(p.failed.clone())}
                                        </td>
                                        <td>{p.parameter.clone()}</td>
                                        <td>{p.mean_error_m.map_or("—".into(), |v| format!("{v:.0} m"))}</td>
                                        <td>{p.analytic_error_m.map_or("—".into(), |v| format!("{v:.0} m"))}</td>
                                        <td>{format!("{} ({})", p.emd_m.map_or("—".into(), |v| format!("{v:.0}")), p.random_emd_m.map_or("—".into(), |v| format!("{v:.0} m")))}</td>
                                        <td>{p.diverged_percent.map_or("—".into(), |v| format!("{v:.0}%"))}</td>
                                        <td>{p.rmse_db.map_or("—".into(), |v| format!("{v:.1} dB"))}</td>
                                        <td>{extra}</td>
                                        {aware_cells}
                                    </tr>
                                }
                            }).collect_view()
                        }}
                    </tbody>
                </table>
            </div>
        </section>
    }
}
