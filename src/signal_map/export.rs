//! Exports made in the tab: the results as CSV or JSON, the map as PNG. Downloads go through
//! `blob:`/`data:` URLs of this page; nothing is sent anywhere.
//!
//! The CSV and JSON exports ([`EXPORTS`]) come when first asked for, as the later labs' views do
//! (src/shell/lab_views.rs): serde_json's encoders of the run's records and configuration were
//! 16.7 KB of the page's first download gzipped (issue 41 §1).

use super::LabState;
use crate::protocol::ImportReport;
use crate::shell::lab_views::Pending;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use whereabouts_engine::signal_map::scenario::{RoundRecord, ScenarioConfig, Summary};

/// The finished rounds as CSV (one line per round; metres on the local plane and WGS84).
pub fn records_csv(records: &[RoundRecord]) -> String {
    let mut out = String::from(
        "round,start_unix,points,true_lat,true_lon,dlg_lat,dlg_lon,dlg_error_m,dlg_iterations,dlg_diverged,analytic_lat,analytic_lon,analytic_error_m,rmse_db\n",
    );
    let opt = |v: Option<f64>, digits: usize| v.map_or(String::new(), |v| format!("{v:.digits$}"));
    for r in records {
        let d = r.dlg.as_ref();
        let a = r.analytic.as_ref();
        out.push_str(&format!(
            "{},{:.0},{},{:.6},{:.6},{},{},{},{},{},{},{},{},{:.3}\n",
            r.round,
            r.start_unix,
            r.points,
            r.true_centroid.latlon.lat,
            r.true_centroid.latlon.lon,
            opt(d.map(|d| d.reconstruction.latlon.lat), 6),
            opt(d.map(|d| d.reconstruction.latlon.lon), 6),
            opt(d.map(|d| d.reconstruction.error_m), 2),
            d.map_or(String::new(), |d| d.result.iterations.to_string()),
            d.map_or(String::new(), |d| d.result.diverged.to_string()),
            opt(a.map(|a| a.latlon.lat), 6),
            opt(a.map(|a| a.latlon.lon), 6),
            opt(a.map(|a| a.error_m), 2),
            r.rmse_db,
        ));
    }
    out
}

/// The JSON export: the configuration that ran (on the visitor's file when one is loaded, whose
/// fixes stay out of the export: the page does not hold them), the records and the summary.
pub fn run_document(
    config: &ScenarioConfig,
    data: Option<&ImportReport>,
    query: &str,
    records: &[RoundRecord],
    summary: Option<Summary>,
) -> serde_json::Value {
    let mut doc = serde_json::json!({
        "engine_version": whereabouts_engine::VERSION,
        "url_query": query,
        "config": config,
        "records": records,
        "summary": summary,
    });
    if let Some(d) = data {
        doc["data"] = serde_json::json!({
            "file": d.name,
            "fixes_kept": d.kept,
            "thin_s": d.thin_s,
            "note": "The run used this file; its fixes are not in the export. To reproduce it: \
                     save `config` as run.json and run `whereabouts run --config run.json --data FILE --thin THIN_S`.",
        });
    }
    doc
}

fn records(state: LabState) -> Vec<RoundRecord> {
    let wanted = state.wanted.get_untracked();
    state.scene.with_untracked(|s| {
        s.rounds
            .iter()
            .filter(|r| r.round < wanted && !r.stale)
            .filter_map(|r| r.record.clone())
            .collect()
    })
}

/// The exports that come when first asked for.
#[derive(Clone, Copy)]
pub struct Exports {
    pub csv: fn(LabState),
    pub json: fn(LabState),
}

/// How the page's notice begins when the exports could not come (src/main.rs).
pub const NOT_FETCHED: &str = "The export could not be loaded";

/// The CSV and JSON exports (in the site's build, a split point's).
pub const EXPORTS: Exports = Exports { csv, json };

/// Runs the export `which` picks once `fetch` has brought the exports; if they cannot come, the
/// lab's notice says why (and the next click asks again: wasm-split's loader keeps only a
/// success).
pub fn later(state: LabState, fetch: fn() -> Pending<Exports>, which: fn(Exports) -> fn(LabState)) {
    leptos::task::spawn_local(async move {
        match fetch().await {
            Ok(exports) => {
                // A notice that they could not come before is no longer true.
                let stale =
                    |n: &Option<String>| n.as_deref().is_some_and(|n| n.starts_with(NOT_FETCHED));
                if state.notice.with_untracked(stale) {
                    state.notice.set(None);
                }
                which(exports)(state)
            }
            Err(why) => state.notice.set(Some(why)),
        }
    });
}

pub fn csv(state: LabState) {
    download(
        "whereabouts-rounds.csv",
        "text/csv",
        &records_csv(&records(state)),
    );
}

pub fn json(state: LabState) {
    let (config, _) = state.run_config();
    let data = state.data.view.with_untracked(|d| d.active.clone());
    let doc = run_document(
        &config,
        data.as_ref(),
        &state.query(),
        &records(state),
        state.scene.with_untracked(|s| s.summary.clone()),
    );
    match serde_json::to_string_pretty(&doc) {
        Ok(text) => download("whereabouts-run.json", "application/json", &text),
        Err(e) => state
            .notice
            .set(Some(format!("Could not export JSON: {e}"))),
    }
}

pub fn png() {
    let Some(canvas) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("[data-testid=map-canvas]").ok().flatten())
        .and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok())
    else {
        return;
    };
    if let Ok(url) = canvas.to_data_url_with_type("image/png") {
        click_link("whereabouts-map.png", &url);
    }
}

fn download(name: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    if let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) {
        click_link(name, &url);
        let _ = web_sys::Url::revoke_object_url(&url);
    }
}

fn click_link(name: &str, url: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(a) = document.create_element("a") else {
        return;
    };
    let a: web_sys::HtmlAnchorElement = a.unchecked_into();
    a.set_href(url);
    a.set_download(name);
    a.click();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal_map::scene::tests::two_round_config;
    use whereabouts_engine::signal_map::lab::Lab;
    use whereabouts_engine::signal_map::trajectory::TrajectoryPreset;

    #[test]
    fn the_json_export_records_the_file_that_ran_not_the_drawn_path() {
        let settings = whereabouts_engine::signal_map::settings::lab_default();
        let path = TrajectoryPreset::Commute.trajectory(900.0, 850.0).waypoints;
        let drawn = crate::signal_map::config_to_run(&settings, &path, false);
        assert!(drawn.trajectory.is_some());
        let doc = run_document(&drawn, None, "seed=1", &[], None);
        assert!(doc["config"]["trajectory"].is_object());
        assert!(doc.get("data").is_none());
        // With a file loaded, the config that ran has no drawn path, and the file is named.
        let on_file = crate::signal_map::config_to_run(&settings, &path, true);
        let report: ImportReport = serde_json::from_value(serde_json::json!({
            "name": "walk.gpx", "bytes": 100.0, "format": "GPX", "read": 360, "kept": 360,
            "thin_s": 0.0, "skipped": 0, "skipped_examples": [], "warnings": [],
            "placement_notes": [], "has_signal": false, "first_unix": 0.0, "last_unix": 1.0,
            "csv": null, "preview": [], "read_ms": 1.0, "parse_ms": 1.0
        }))
        .unwrap();
        let doc = run_document(&on_file, Some(&report), "seed=1", &[], None);
        assert!(
            doc["config"].get("trajectory").is_none(),
            "{}",
            doc["config"]
        );
        assert_eq!(doc["data"]["file"], "walk.gpx");
        assert_eq!(doc["data"]["fixes_kept"], 360);
    }

    #[test]
    fn csv_has_a_header_and_a_line_per_round() {
        let mut lab = Lab::new(two_round_config(TrajectoryPreset::Weekend)).unwrap();
        lab.want(2);
        lab.finish(&mut |_| {}).unwrap();
        let csv = records_csv(&lab.records());
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        let columns = lines[0].split(',').count();
        assert!(lines.iter().all(|l| l.split(',').count() == columns));
        assert!(lines[1].starts_with("0,"));
    }
}
