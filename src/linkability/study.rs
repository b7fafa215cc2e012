//! The trade-off study on the visitor's federation ([`whereabouts_engine::linkability::study`],
//! [004] Fig. 14): every mitigation at every strength, each plotted as the attack's AP over
//! chance (privacy) against the global model's error relative to no mitigation (utility), and
//! tabulated as the runs arrive.

use super::LinkState;
use crate::ui::chart::{Axis, Chart, Point, Series};
use crate::ui::study::{StudyFrame, cell, stopped, study_panel};
use leptos::prelude::*;
use whereabouts_engine::linkability::study::StudyPoint;

/// The page's view of the study ([`crate::ui::study`]).
pub type StudyView = crate::ui::study::StudyView<StudyPoint>;

/// The test RMSE of the run without mitigation (the first), the utility's yardstick.
pub fn baseline_rmse(v: &StudyView) -> Option<f64> {
    v.points
        .iter()
        .find(|p| p.mitigation == "none")
        .and_then(|p| p.test_rmse)
}

/// The families in the chart: engine name, label, colour (`.swatch.fN` in the CSS).
const FAMILIES: [(&str, &str, usize); 5] = [
    ("none", "None", 0),
    ("noise", "Noise (σ)", 4),
    ("bkg-repl", "bkg-repl (β)", 2),
    ("rand-aug", "rand-aug (α)", 5),
    ("mm-aug", "mm-aug (α)", 1),
];
const COLOURS: [&str; 6] = [
    "#1f2328", "#2563eb", "#16a34a", "#9333ea", "#d1242f", "#ca8a04",
];

const ABOUT: &str = "Runs your federation again under every mitigation at every strength — noise σ from 0.001 to 0.1, bkg-repl β from ¼ to all, rand-aug and mm-aug α from ½ to 2 — retrains the chosen attack on the mitigated updates each time, and plots how well it still links people (its mean AP as a multiple of chance, log scale) against what the signal map loses (the global model's test error relative to no mitigation). Down and to the left is best: private and still useful ([004] Fig. 14).";

fn strength_label(p: &StudyPoint) -> String {
    match p.mitigation.as_str() {
        "none" => "none".into(),
        "noise" => format!("noise σ = {}", p.strength),
        "bkg-repl" => format!("bkg-repl β = {}", p.strength),
        m => format!("{m} α = {}", p.strength),
    }
}

#[component]
pub fn LinkStudy(state: LinkState) -> impl IntoView {
    let v = move || state.study.get();
    let chart = move || {
        let v = v();
        let base = baseline_rmse(&v)?;
        let pts: Vec<(&StudyPoint, f64, f64)> = v
            .points
            .iter()
            .filter_map(|p| Some((p, p.test_rmse? / base, p.over_chance?)))
            .collect();
        let x_max = pts.iter().map(|p| p.1).fold(1.1_f64, f64::max);
        let y_max = pts.iter().map(|p| p.2).fold(2.0_f64, f64::max) * 1.3;
        let series = FAMILIES
            .iter()
            .map(|&(family, _, colour)| Series {
                colour: COLOURS[colour],
                points: pts
                    .iter()
                    .filter(|p| p.0.mitigation == family)
                    .map(|p| Point {
                        x: p.1,
                        y: p.2.max(0.5),
                        title: Some(format!(
                            "{}: {:.1}× chance, error ×{:.2}",
                            strength_label(p.0),
                            p.2,
                            p.1
                        )),
                    })
                    .collect(),
                joined: family != "none",
                dashed: false,
            })
            .collect();
        Some(
            Chart {
                width: 720.0,
                height: 300.0,
                left: 44.0,
                bottom: 30.0,
                x: Axis {
                    min: 0.95,
                    max: x_max,
                    log: false,
                    min_text: "×0.95".into(),
                    max_text: format!("×{x_max:.2}"),
                    label: "the signal map's test error, relative to no mitigation → worse".into(),
                },
                y: Axis {
                    min: 0.5,
                    max: y_max,
                    log: true,
                    min_text: "0.5×".into(),
                    max_text: format!("{y_max:.0}×"),
                    label: "↑ the attack's mean AP over chance (less privacy)".into(),
                },
                series,
                dot_radius: 4.0,
                label: "The attack's mean AP over chance against the model's relative test error, for every mitigation and strength".into(),
                testid: "link-study-chart",
            }
            .view(),
        )
    };
    let rows = move || {
        let v = v();
        let base = baseline_rmse(&v);
        v.points.into_iter().map(|p| view! {
            <tr data-testid="link-study-row" data-mitigation=p.mitigation.clone()
                data-strength=p.strength.to_string()
                data-over-chance=p.over_chance.map(|x| format!("{x:.3}")).unwrap_or_default()
                class:failed=p.failed.is_some()>
                <td>{strength_label(&p)}{stopped(p.failed.clone())}</td>
                <td>{cell(p.mean_ap, |x| format!("{:.1}%", 100.0 * x))}</td>
                <td>{cell(p.over_chance, |x| format!("{x:.1}×"))}</td>
                <td>{p.your_rank.map_or("—".into(), |r| format!("#{}", super::results::rank_text(r)))}</td>
                <td>{cell(p.test_rmse, |x| format!("{x:.2} dB"))}</td>
                <td>{cell(p.test_rmse.zip(base).map(|(r, b)| r / b), |x| format!("×{x:.2}"))}</td>
            </tr>
        }).collect_view()
    };
    study_panel(
        StudyFrame {
            prefix: "link-",
            title: "Privacy–utility trade-off of the mitigations",
            about: ABOUT,
            families: &FAMILIES,
            head: &[
                "Every device",
                "Mean AP",
                "× chance",
                "Your new device ranked",
                "Test error",
                "Relative",
            ],
            note: "",
        },
        state.study,
        move || state.hides("l.study"),
        (move || state.start_study(), move || state.cancel_study()),
        view! { <div class:hidden=move || v().points.is_empty()>{chart}</div> },
        rows,
    )
}
