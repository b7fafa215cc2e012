//! The privacy–utility trade-off (issue #5, item 8): every defence swept over its parameter on
//! the visitor's own configuration and path, run in the worker behind the lab, plotted as
//! attack error against model RMSE.

use super::LabState;
use crate::protocol::Response;
use leptos::prelude::*;
use whereabouts_engine::experiments::SweepPoint;

/// What the page knows about the current sweep.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SweepView {
    pub id: u32,
    pub running: bool,
    pub done: usize,
    pub total: usize,
    pub points: Vec<SweepPoint>,
    pub cancelled: bool,
    pub error: Option<String>,
}

impl SweepView {
    pub fn apply(&mut self, response: Response) {
        match response {
            Response::SweepProgress {
                sweep,
                done,
                total,
                point,
            } if sweep == self.id => {
                self.done = done;
                self.total = total;
                self.points.extend(point);
            }
            Response::SweepDone { sweep, cancelled } if sweep == self.id => {
                self.running = false;
                self.cancelled = cancelled;
            }
            Response::SweepError { sweep, message } if sweep == self.id => {
                self.running = false;
                self.error = Some(message);
            }
            _ => {}
        }
    }
}

/// Colours of the defence families on the chart.
fn colour(family: &str) -> &'static str {
    match family {
        "none" => "#1f2328",
        "Diverse Batch" => "#2563eb",
        "Farthest Batch" => "#16a34a",
        "Random subset" => "#9333ea",
        "Local DP" => "#d1242f",
        "GeoInd" => "#ca8a04",
        _ => "#59636e",
    }
}

const FAMILIES: [&str; 6] = [
    "none",
    "Diverse Batch",
    "Farthest Batch",
    "Random subset",
    "Local DP",
    "GeoInd",
];

#[component]
pub fn Sweep(state: LabState) -> impl IntoView {
    let view_ = move || state.sweep.get();
    let chart = move || {
        let v = view_();
        let pts: Vec<&SweepPoint> = v
            .points
            .iter()
            .filter(|p| p.rmse_db.is_some_and(f64::is_finite) && p.mean_error_m.is_some())
            .collect();
        let (w, h, pad) = (720.0, 300.0, 44.0);
        let max_x = pts.iter().filter_map(|p| p.rmse_db).fold(1.0f64, f64::max) * 1.05;
        let min_x = pts
            .iter()
            .filter_map(|p| p.rmse_db)
            .fold(max_x, f64::min)
            .min(max_x - 1.0)
            * 0.95;
        let max_y = pts
            .iter()
            .filter_map(|p| p.mean_error_m)
            .fold(10.0f64, f64::max)
            * 1.05;
        let x = move |v: f64| pad + (w - pad - 10.0) * (v - min_x) / (max_x - min_x);
        let y = move |v: f64| h - 30.0 - (h - 45.0) * (v / max_y);
        let series = FAMILIES
            .iter()
            .map(|f| {
                let mine: Vec<&&SweepPoint> = pts.iter().filter(|p| p.family == *f).collect();
                let line = mine
                    .iter()
                    .map(|p| format!("{:.1},{:.1}", x(p.rmse_db.unwrap_or(0.0)), y(p.mean_error_m.unwrap_or(0.0))))
                    .collect::<Vec<_>>()
                    .join(" ");
                let dots = mine
                    .iter()
                    .map(|p| {
                        let title = format!(
                            "{} {}: {:.0} m from you, RMSE {:.1} dB",
                            p.family,
                            p.parameter,
                            p.mean_error_m.unwrap_or(f64::NAN),
                            p.rmse_db.unwrap_or(f64::NAN)
                        );
                        view! {
                            <circle cx=format!("{:.1}", x(p.rmse_db.unwrap_or(0.0))) cy=format!("{:.1}", y(p.mean_error_m.unwrap_or(0.0)))
                                r="4" fill=colour(f)><title>{title}</title></circle>
                        }
                    })
                    .collect_view();
                view! { <polyline points=line fill="none" stroke=colour(f) stroke-width="1.5"/> {dots} }
            })
            .collect_view();
        view! {
            <svg viewBox=format!("0 0 {w} {h}") role="img" data-testid="sweep-chart"
                aria-label="Attack error against model error for each defence">
                <line x1=pad y1=h - 30.0 x2=w - 10.0 y2=h - 30.0 stroke="#c9c2b3"/>
                <line x1=pad y1="15" x2=pad y2=h - 30.0 stroke="#c9c2b3"/>
                <text x=pad y=h - 14.0 font-size="10" fill="#59636e">{format!("{min_x:.1}")}</text>
                <text x=w - 10.0 y=h - 14.0 font-size="10" fill="#59636e" text-anchor="end">{format!("{max_x:.1} dB")}</text>
                <text x=(w + pad) / 2.0 y=h - 2.0 font-size="11" fill="#59636e" text-anchor="middle">"model RMSE (dB) → worse utility"</text>
                <text x="4" y="14" font-size="10" fill="#59636e">{format!("{max_y:.0} m")}</text>
                <text x="4" y=h - 32.0 font-size="10" fill="#59636e">"0"</text>
                <text x=pad + 6.0 y="26" font-size="11" fill="#59636e">"↑ distance of the server's guess from you (more privacy)"</text>
                {series}
            </svg>
        }
    };
    // Classes, not inline styles: the CSP allows no style attributes.
    let legend = FAMILIES
        .iter()
        .enumerate()
        .map(|(i, f)| view! { <span><i class=format!("swatch f{i}")></i>{*f}</span> })
        .collect_view();
    view! {
        <section class="panel sweep" aria-labelledby="sweep-title">
            <h2 id="sweep-title">"Privacy–utility trade-off"</h2>
            <p class="hint">"Runs your configuration and path with every defence at several strengths (20 runs, in the background) and plots how far the server's guesses land from you against how good the signal map is. With the default FedSGD the model barely learns in a few rounds; set B = 20 and E = 5 to compare utility."</p>
            <div class="tools">
                <button type="button" data-testid="sweep-run" prop:disabled=move || view_().running
                    on:click=move |_| state.start_sweep()>"Run the sweep"</button>
                <button type="button" data-testid="sweep-cancel" prop:disabled=move || !view_().running
                    on:click=move |_| state.cancel_sweep()>"Cancel"</button>
                <progress data-testid="sweep-progress" prop:max=move || view_().total.max(1) as f64
                    prop:value=move || view_().done as f64
                    class:hidden=move || view_().total == 0></progress>
                <span class="stats" aria-live="polite" data-testid="sweep-status">{move || {
                    let v = view_();
                    match (&v.error, v.running, v.cancelled) {
                        (Some(e), ..) => format!("The sweep stopped: {e}"),
                        (None, true, _) => format!("{} of {} runs…", v.done, v.total),
                        (None, false, true) => format!("Cancelled after {} of {} runs.", v.done, v.total),
                        (None, false, false) if v.total > 0 => format!("Done: {} runs.", v.done),
                        _ => String::new(),
                    }
                }}</span>
            </div>
            <div class="sweep-legend" class:hidden=move || view_().points.is_empty()>{legend}</div>
            <div class:hidden=move || view_().points.is_empty()>{chart}</div>
            <div class="table-wrap" class:hidden=move || view_().points.is_empty()>
                <table>
                    <thead><tr><th>"Defence"</th><th>"Setting"</th><th>"Distance"</th><th>"EMD (random)"</th><th>"Diverged"</th><th>"RMSE"</th><th>"Total ε"</th></tr></thead>
                    <tbody>
                        {move || view_().points.into_iter().map(|p| view! {
                            <tr data-testid="sweep-row" data-family=p.family.clone()
                                data-error=p.mean_error_m.map(|v| format!("{v:.2}")).unwrap_or_default()
                                data-rmse=p.rmse_db.map(|v| format!("{v:.3}")).unwrap_or_default()>
                                <td>{p.family.clone()}</td>
                                <td>{p.parameter.clone()}</td>
                                <td>{p.mean_error_m.map_or("—".into(), |v| format!("{v:.0} m"))}</td>
                                <td>{format!("{} ({})", p.emd_m.map_or("—".into(), |v| format!("{v:.0}")), p.random_emd_m.map_or("—".into(), |v| format!("{v:.0} m")))}</td>
                                <td>{p.diverged_percent.map_or("—".into(), |v| format!("{v:.0}%"))}</td>
                                <td>{p.rmse_db.map_or("—".into(), |v| format!("{v:.1} dB"))}</td>
                                <td>{p.dp_epsilon.map_or("—".into(), |v| format!("{v:.0}"))}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        </section>
    }
}
