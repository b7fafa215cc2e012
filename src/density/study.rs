//! The privacy–utility study on the visitor's city ([`whereabouts_engine::density::study`]):
//! every B, the own bump and every GeoInd ε, each plotted as the density's quality against how
//! far the server's guesses land, and tabulated as they arrive.

use super::DensityState;
use crate::ui::basemap::format_distance;
use crate::ui::chart::{Axis, Chart, Point, Series};
use crate::ui::study::{StudyFrame, cell, stopped, study_panel};
use leptos::prelude::*;
use whereabouts_engine::density::study::StudyPoint;

/// The page's view of the study ([`crate::ui::study`]).
pub type StudyView = crate::ui::study::StudyView<StudyPoint>;

/// The families in the chart: engine name, label, colour (`.swatch.fN` in the CSS).
const FAMILIES: [(&str, &str, usize); 3] = [
    ("rff", "Random features (B)", 1),
    ("kde", "Own bump", 0),
    ("geoind", "GeoInd (ε)", 2),
];
const COLOURS: [&str; 3] = ["#1f2328", "#2563eb", "#16a34a"];

const ABOUT: &str = "Runs your city and places with every choice of what the phones send — random features with B = 0 to 50, each phone's own bump, and GeoInd from ε = 0.001 to 0.1 per m — and plots how good the server's density is (Spearman's ρ against the exact one) against how far the server's guesses land from the people (median over the attacked sample, log scale). Up and to the right is best: a good map that gives nobody away. The attack is the one chosen in the settings.";

#[component]
pub fn DensityStudy(state: DensityState) -> impl IntoView {
    let v = move || state.study.get();
    let chart = move || {
        let v = v();
        let pts: Vec<(&StudyPoint, f64, f64)> = v
            .points
            .iter()
            .filter_map(|p| Some((p, p.spearman_all?, p.median_m?)))
            .collect();
        let top = pts.iter().map(|p| p.2).fold(100.0_f64, f64::max) * 1.2;
        let series = FAMILIES
            .iter()
            .map(|&(family, _, colour)| Series {
                colour: COLOURS[colour],
                points: pts
                    .iter()
                    .filter(|p| p.0.family == family)
                    .map(|p| Point {
                        x: p.1,
                        y: p.2.max(1.0),
                        title: Some(format!(
                            "{}: ρ = {:.2}, median {}",
                            p.0.label,
                            p.1,
                            format_distance(p.2)
                        )),
                    })
                    .collect(),
                joined: family != "kde",
                dashed: false,
            })
            .collect();
        Chart {
            width: 720.0,
            height: 300.0,
            left: 44.0,
            bottom: 30.0,
            x: Axis {
                min: 0.0,
                max: 1.0,
                log: false,
                min_text: "0".into(),
                max_text: "1".into(),
                label: "density quality: Spearman's ρ → better".into(),
            },
            y: Axis {
                min: 1.0,
                max: top,
                log: true,
                min_text: "1 m".into(),
                max_text: format_distance(top),
                label: "↑ median distance of the server's guesses (more privacy)".into(),
            },
            series,
            dot_radius: 4.0,
            label: "Median error of the server's guesses against the density's Spearman ρ, for every B and GeoInd ε".into(),
            testid: "density-study-chart",
        }
        .view()
    };
    let rows = move || {
        v().points.into_iter().map(|p| view! {
            <tr data-testid="density-study-row" data-family=p.family.clone() data-label=p.label.clone()
                data-spearman=p.spearman_all.map(|x| format!("{x:.4}")).unwrap_or_default()
                data-median=p.median_m.map(|x| format!("{x:.1}")).unwrap_or_default()
                class:failed=p.failed.is_some()>
                <td>{p.label.clone()}{stopped(p.failed.clone())}</td>
                <td>{cell(p.spearman_all, |x| format!("{x:.2}"))}</td>
                <td>{cell(p.hotspot_f1, |x| format!("{x:.2}"))}</td>
                <td>{cell(p.median_m, format_distance)}</td>
                <td>{cell(p.mean_m, format_distance)}</td>
                <td>{cell(p.located, |x| format!("{:.0}%", 100.0 * x))}</td>
                <td>{cell(p.random_guess_m, format_distance)}</td>
                <td>{cell(p.visitor_m, format_distance)}</td>
            </tr>
        }).collect_view()
    };
    study_panel(
        StudyFrame {
            prefix: "density-",
            title: "Privacy–utility trade-off on your city",
            about: ABOUT,
            families: &FAMILIES,
            head: &[
                "Phones send",
                "ρ",
                "Hotspot F1",
                "Median error",
                "Mean error",
                "Found ≤ 100 m",
                "Random guess",
                "Your places",
            ],
            note: "",
        },
        state.study,
        move || state.hides("d.study"),
        (move || state.start_study(), move || state.cancel_study()),
        view! { <div class:hidden=move || v().points.is_empty()>{chart}</div> },
        rows,
    )
}
