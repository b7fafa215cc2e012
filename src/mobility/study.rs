//! The privacy–utility study on the visitor's run ([`whereabouts_engine::mobility::study`],
//! [002] Table 5 and Fig. 5): no defence and every defence at every ε, plotted as the attack's
//! success against ε and as the model's error against the attack's success, and tabulated as
//! the runs arrive.

use super::MobState;
use crate::ui::basemap::format_distance;
use crate::ui::chart::{Axis, Chart, Point, Series};
use crate::ui::study::{StudyFrame, cell, stopped, study_panel};
use leptos::prelude::*;
use whereabouts_engine::mobility::experiments::EPSILONS;
use whereabouts_engine::mobility::study::{StudyPoint, TOTAL_NOTE, total_cell};

/// The page's view of the study ([`crate::ui::study`]).
pub type StudyView = crate::ui::study::StudyView<StudyPoint>;

/// The families in the charts: engine key, label, colour (`.swatch.fN` in the CSS).
const FAMILIES: [(&str, &str, usize); 5] = [
    ("none", "No defence", 0),
    ("dp_sgd", "DP-SGD", 1),
    ("geo_i", "GeoI", 2),
    ("geo_gi", "GeoGI", 3),
    ("adaptive", "Adaptive PGEM", 4),
];
const COLOURS: [&str; 5] = ["#1f2328", "#2563eb", "#16a34a", "#9333ea", "#d1242f"];

const ABOUT: &str = "Runs your trajectory, city and attack with no defence and with each defence at ε = 1, 5, 10, 20 and 50 (the paper's Table 5), every round to the end: 21 runs, a few minutes. Left: the attack's mean success rate against ε (lower is more private). Right: the model's error predicting the next position against the attack's success (Fig. 5): down and to the left is best. The table gives each run's total ε over its rounds, each defence on its own footing (below).";

fn asr_chart(points: &[StudyPoint]) -> impl IntoView + use<> {
    let none = points
        .iter()
        .find(|p| p.family == "none")
        .and_then(|p| p.asr);
    let series = FAMILIES
        .iter()
        .map(|&(family, _, colour)| Series {
            colour: COLOURS[colour],
            points: if family == "none" {
                // The undefended run as a level line across the ε axis.
                none.map_or_else(Vec::new, |a| {
                    [EPSILONS[0], EPSILONS[EPSILONS.len() - 1]]
                        .iter()
                        .map(|&e| Point {
                            x: e,
                            y: a,
                            title: Some(format!("no defence: ASR {:.2}", a)),
                        })
                        .collect()
                })
            } else {
                points
                    .iter()
                    .filter(|p| p.family == family)
                    .filter_map(|p| {
                        Some(Point {
                            x: p.epsilon?,
                            y: p.asr?,
                            title: Some(format!("{}: ASR {:.2}", p.label, p.asr?)),
                        })
                    })
                    .collect()
            },
            joined: true,
            dashed: false,
        })
        .collect();
    Chart {
        width: 360.0,
        height: 240.0,
        left: 40.0,
        bottom: 30.0,
        x: Axis {
            min: EPSILONS[0],
            max: EPSILONS[EPSILONS.len() - 1],
            log: true,
            min_text: format!("ε = {}", EPSILONS[0]),
            max_text: format!("{}", EPSILONS[EPSILONS.len() - 1]),
            label: "ε → less private".into(),
        },
        y: Axis {
            min: 0.0,
            max: 1.0,
            log: false,
            min_text: "0".into(),
            max_text: "100%".into(),
            label: "↑ attack success (ASR)".into(),
        },
        series,
        dot_radius: 3.5,
        label: "The attack's mean success rate against ε, for every defence".into(),
        testid: "mob-study-asr",
    }
    .view()
}

fn utility_chart(points: &[StudyPoint]) -> impl IntoView + use<> {
    let pts: Vec<(&StudyPoint, f64, f64)> = points
        .iter()
        .filter_map(|p| Some((p, p.asr?, p.utility_error_m?)))
        .collect();
    // The error's own range (the defences move it little: a chart from zero would be a flat
    // line), padded; the ends are labelled with their values.
    let (lo, hi) = pts
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.2), hi.max(p.2))
        });
    let pad = ((hi - lo) * 0.1).max(10.0);
    let (lo, hi) = if lo.is_finite() {
        ((lo - pad).max(0.0), hi + pad)
    } else {
        (0.0, 1000.0)
    };
    let axis = Axis {
        min: lo,
        max: hi,
        log: false,
        min_text: format_distance(lo),
        max_text: format_distance(hi),
        label: String::new(),
    };
    let series = FAMILIES
        .iter()
        .map(|&(family, _, colour)| Series {
            colour: COLOURS[colour],
            points: pts
                .iter()
                .filter(|p| p.0.family == family)
                .map(|p| Point {
                    x: p.1,
                    y: p.2,
                    title: Some(format!(
                        "{}: ASR {:.2}, error {}",
                        p.0.label,
                        p.1,
                        format_distance(p.2)
                    )),
                })
                .collect(),
            joined: false,
            dashed: false,
        })
        .collect();
    Chart {
        width: 360.0,
        height: 240.0,
        left: 52.0,
        bottom: 30.0,
        x: Axis {
            min: 0.0,
            max: 1.0,
            log: false,
            min_text: "0".into(),
            max_text: "100%".into(),
            label: "attack success (ASR) →".into(),
        },
        y: Axis {
            label: "↑ next-position error".into(),
            ..axis
        },
        series,
        dot_radius: 3.5,
        label: "The model's next-position error against the attack's success rate".into(),
        testid: "mob-study-utility",
    }
    .view()
}

#[component]
pub fn MobStudy(state: MobState) -> impl IntoView {
    let v = move || state.study.get();
    let rows = move || {
        v().points.into_iter().map(|p| view! {
            <tr data-testid="mob-study-row" data-family=p.family.clone()
                data-asr=p.asr.map(|x| format!("{x:.4}")).unwrap_or_default()
                class:failed=p.failed.is_some()>
                <td>{p.label.clone()}{stopped(p.failed.clone())}</td>
                <td>{cell(p.asr, |x| format!("{x:.2}"))}</td>
                <td>{cell(p.ait, |x| format!("{x:.0}"))}</td>
                <td>{cell(p.utility_error_m, format_distance)}</td>
                <td>{cell(p.recall_at_5, |x| format!("{:.0}%", 100.0 * x))}</td>
                <td data-testid="mob-study-total" data-total=p.total_epsilon.map(|x| format!("{x:.4}")).unwrap_or_default()>{total_cell(&p)}</td>
            </tr>
        }).collect_view()
    };
    let charts = view! {
        <div class="chart-pair" class:hidden=move || v().points.is_empty()>
            {move || asr_chart(&v().points)}
            {move || utility_chart(&v().points)}
        </div>
    };
    study_panel(
        StudyFrame {
            prefix: "mob-",
            title: "Privacy against utility, every defence",
            about: ABOUT,
            families: &FAMILIES,
            head: &[
                "Defence",
                "ASR",
                "AIT",
                "Next-position error",
                "Recall@5",
                "Total ε over the run",
            ],
            note: TOTAL_NOTE,
        },
        state.study,
        move || state.hides("m.study"),
        (move || state.start_study(), move || state.cancel_study()),
        charts,
        rows,
    )
}
