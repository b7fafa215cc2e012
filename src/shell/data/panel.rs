//! The "Your own data" panel that [`super::DataState`] feeds: the drop zone and file input, the
//! samples, sub-sampling, the import's progress and cancel, the report on the imported file, the
//! CSV columns' preview (a change re-reads the file) and Forget.

use super::DataState;
use crate::protocol::{ImportReport, ImportSettings};
use leptos::{ev, prelude::*};
use whereabouts_core::import::csv::Mapping;
use whereabouts_core::import::time::DateOrder;
use whereabouts_core::import::time::format_iso;

/// The sample files in `www/samples/` (generated; see its README), with their labels.
pub const SAMPLES: [(&str, &str); 3] = [
    ("campus-week.gpx", "A week on campus (GPX)"),
    ("signal-log.csv", "A signal app's log (CSV with RSRP)"),
    ("Records.json", "Google location history"),
];

/// Sub-sampling choices: (seconds, label).
pub const THINNING: [(f64, &str); 4] = [
    (0.0, "every fix"),
    (10.0, "at most one per 10 s"),
    (60.0, "at most one per minute"),
    (300.0, "at most one per 5 minutes"),
];

/// More fixes than this and the panel suggests sub-sampling.
const MANY_FIXES: usize = 200_000;

/// The first file of a drop or a file input, if any.
fn first_file(files: Option<web_sys::FileList>) -> Option<web_sys::File> {
    files.and_then(|f| f.get(0))
}

/// Handlers that make an element a drop target for files.
pub fn on_drop(state: DataState) -> impl Fn(ev::DragEvent) + Copy + 'static {
    move |e: ev::DragEvent| {
        e.prevent_default();
        let file = first_file(e.data_transfer().and_then(|d| d.files()));
        match file {
            Some(f) => state.import_file(f, state.new_file_settings()),
            None => {
                state.import_failed("nothing to import: drop a file (not a folder or text)".into())
            }
        }
    }
}

fn mb(bytes: f64) -> String {
    if bytes >= 1e6 {
        format!("{:.1} MB", bytes / 1e6)
    } else {
        format!("{:.0} kB", (bytes / 1e3).max(1.0))
    }
}

/// "2026-01-05 04:00 to 2026-01-12 03:55 UTC (7.0 days)".
pub fn span(report: &ImportReport) -> String {
    let day = |t: f64| {
        format_iso(t)
            .replace('T', " ")
            .chars()
            .take(16)
            .collect::<String>()
    };
    format!(
        "{} to {} UTC ({:.1} days)",
        day(report.first_unix),
        day(report.last_unix),
        (report.last_unix - report.first_unix) / 86_400.0
    )
}

/// One line about the signal, as the issue asks the page to say.
pub fn signal_line(report: &ImportReport) -> &'static str {
    if report.has_signal {
        "Signal strength (RSRP) comes from your file; the model is tested on a held-out fifth of your own fixes."
    } else {
        "Your file has no signal column: RSRP at your positions comes from the synthetic signal field of the learned cell."
    }
}

#[component]
pub fn DataPanel(
    state: DataState,
    /// An instructor's link can hide the panel (`hide=data`).
    #[prop(into, optional)]
    hidden: Signal<bool>,
) -> impl IntoView {
    let input_ref = NodeRef::<leptos::html::Input>::new();
    let drop = on_drop(state);
    let over = RwSignal::new(false);
    let on_pick = move |_| {
        let Some(input) = input_ref.get_untracked() else {
            return;
        };
        if let Some(file) = first_file(input.files()) {
            state.import_file(file, state.new_file_settings());
        }
        // The same file can be picked again later.
        input.set_value("");
    };
    let thin_changed = move |e: ev::Event| {
        let value: f64 = event_target_value(&e).parse().unwrap_or(0.0);
        let csv = state.view.with_untracked(|d| d.settings.csv.clone());
        state.reimport(ImportSettings { csv, thin_s: value });
    };
    view! {
        <section class="panel data-panel" aria-labelledby="data-title" data-testid="data-panel"
            class:hidden=move || hidden.get()>
            <h2 id="data-title">"Your own data"</h2>
            <p class="privacy" data-testid="privacy-statement">
                "Your file never leaves this tab: it is read here, by WebAssembly, and nothing is uploaded "
                "— this page makes no requests to any other site. It is kept in this tab's memory only "
                "(not saved anywhere); reloading the page or "<b>"Forget my data"</b>" wipes it."
            </p>
            <div class="drop-zone" data-testid="drop-zone" data-reader=move || state.reader.get() class:over=move || over.get()
                on:dragover=move |e: ev::DragEvent| { e.prevent_default(); over.set(true); }
                on:dragleave=move |_| over.set(false)
                on:drop=move |e| { over.set(false); drop(e); }>
                <p>"Drop a GPX, CSV, GeoJSON or Google location-history file here, or "
                    <label class="file-pick">
                        "choose a file"
                        <input type="file" node_ref=input_ref data-testid="file-input"
                            accept=".csv,.tsv,.txt,.gpx,.json,.geojson,text/csv,application/gpx+xml,application/json,application/geo+json"
                            on:change=on_pick />
                    </label>"."
                </p>
                <p class="samples">"Try with a sample: "
                    {SAMPLES.iter().map(|&(name, label)| view! {
                        <button type="button" class="link" data-testid=format!("sample-{name}")
                            on:click=move |_| state.import_sample(name)>{label}</button>
                    }).collect_view()}
                </p>
                <label class="thin">"Keep "
                    <select data-testid="thin" on:change=thin_changed
                        prop:value=move || state.view.with(|d| d.settings.thin_s.to_string())>
                        {THINNING.iter().map(|&(s, label)| view! {
                            <option value=s.to_string()>{label}</option>
                        }).collect_view()}
                    </select>
                </label>
            </div>
            {move || state.view.with(|d| d.importing.clone()).map(|i| view! {
                <div class="import-progress" data-testid="import-progress" role="status">
                    <span>{if i.parsing { format!("Reading {} … parsing", i.name) } else {
                        format!("Reading {}: {} of {}", i.name, mb(i.done), mb(i.total))
                    }}</span>
                    <progress max="1" value=if i.parsing { None } else {
                        Some((i.done / i.total.max(1.0)).to_string())
                    }></progress>
                    <button type="button" data-testid="import-cancel" on:click=move |_| state.cancel_import()>"Cancel"</button>
                </div>
            })}
            {move || state.view.with(|d| d.error.clone()).map(|e| view! {
                <p class="import-error" role="alert" data-testid="import-error">{e}
                    {move || state.has_data().then_some(" Your previous data is still loaded.")}</p>
            })}
            {move || state.view.with(|d| d.cancelled).then_some(view! {
                <p class="import-note" data-testid="import-cancelled">"Import cancelled; nothing changed."</p>
            })}
            {move || state.view.with(|d| d.active.clone()).map(|r| view! { <Report state report=r /> })}
        </section>
    }
}

#[component]
fn Report(state: DataState, report: ImportReport) -> impl IntoView {
    let many = report.read > MANY_FIXES && report.thin_s == 0.0;
    let mapping = report.csv.clone();
    let preview = report.preview.clone();
    view! {
        <div class="import-report" data-testid="import-report" data-fixes=report.kept.to_string()>
            <p><b>{report.name.clone()}</b>" — "{report.format.clone()}", "{mb(report.bytes)}": "
                <span data-testid="import-count">{format!("{} fixes", report.kept)}</span>
                {(report.kept < report.read).then(|| format!(" (of {} read, sub-sampled)", report.read))}
                {(report.skipped > 0).then(|| format!(", {} rows skipped", report.skipped))}
                ", " {span(&report)} "."</p>
            <p data-testid="import-signal">{signal_line(&report)}</p>
            <ul class="import-notes">
                {report.skipped_examples.iter().map(|s| view! { <li>"Skipped "{s.clone()}</li> }).collect_view()}
                {report.warnings.iter().chain(&report.placement_notes).map(|s| view! { <li>{s.clone()}</li> }).collect_view()}
                {many.then_some(view! { <li>"A long trace: keeping at most one fix per 10 s makes every round faster."</li> })}
            </ul>
            {mapping.map(|m| view! { <MappingPreview state mapping=m preview=preview.clone() /> })}
            <p class="import-actions">
                <button type="button" class="danger" data-testid="forget" on:click=move |_| state.forget_data()>"Forget my data"</button>
                <span class="hint">"Read in "{format!("{:.0} ms", report.read_ms + report.parse_ms)}", in this tab."</span>
            </p>
        </div>
    }
}

/// The CSV columns used, changeable; a change re-reads the file with the new columns.
#[component]
fn MappingPreview(state: DataState, mapping: Mapping, preview: Vec<Vec<String>>) -> impl IntoView {
    let roles: [(&str, &str); 4] = [
        ("lat", "Latitude"),
        ("lon", "Longitude"),
        ("time", "Time"),
        ("signal", "Signal (dBm)"),
    ];
    let names = mapping.names.clone();
    let role_of = {
        let m = mapping.clone();
        move |c: usize| -> &'static str {
            if c == m.lat {
                "latitude"
            } else if c == m.lon {
                "longitude"
            } else if c == m.time {
                "time"
            } else if m.signal == Some(c) {
                "signal"
            } else {
                ""
            }
        }
    };
    let selects = roles.map(|(key, label)| {
        let m = mapping.clone();
        let current = match key {
            "lat" => Some(m.lat),
            "lon" => Some(m.lon),
            "time" => Some(m.time),
            _ => m.signal,
        };
        let on_change = move |e: ev::Event| {
            let value = event_target_value(&e);
            let column: Option<usize> = value.parse().ok();
            let mut next = m.clone();
            match (key, column) {
                ("lat", Some(c)) => next.lat = c,
                ("lon", Some(c)) => next.lon = c,
                ("time", Some(c)) => next.time = c,
                ("signal", c) => next.signal = c,
                _ => return,
            }
            let thin_s = state.view.with_untracked(|d| d.settings.thin_s);
            state.reimport(ImportSettings {
                csv: Some(next),
                thin_s,
            });
        };
        let options = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                view! { <option value=i.to_string() selected=current == Some(i)>{n.clone()}</option> }
            })
            .collect_view();
        view! {
            <label>{label}
                <select data-testid=format!("map-{key}") on:change=on_change>
                    {(key == "signal").then(|| view! { <option value="none" selected=current.is_none()>"(none)"</option> })}
                    {options}
                </select>
            </label>
        }
    });
    let reread = move |next: Mapping| {
        let thin_s = state.view.with_untracked(|d| d.settings.thin_s);
        state.reimport(ImportSettings {
            csv: Some(next),
            thin_s,
        });
    };
    // How the time column writes dates, and which column (if any) holds the zone.
    let dates = {
        let m = mapping.clone();
        let current = m.dates;
        let on_change = move |e: ev::Event| {
            let mut next = m.clone();
            next.dates = match event_target_value(&e).as_str() {
                "day_first" => DateOrder::DayFirst,
                "month_first" => DateOrder::MonthFirst,
                _ => DateOrder::Auto,
            };
            reread(next);
        };
        let options = [
            (DateOrder::Auto, "auto", "Automatic (year first; day first with dots)"),
            (DateOrder::DayFirst, "day_first", "Day first (31/03/2024)"),
            (DateOrder::MonthFirst, "month_first", "Month first (03/31/2024)"),
        ]
        .map(|(o, value, label)| view! { <option value=value selected=current == o>{label}</option> });
        view! {
            <label>"Dates"
                <select data-testid="map-dates" on:change=on_change>{options.into_iter().collect_view()}</select>
            </label>
        }
    };
    let zone = {
        let m = mapping.clone();
        let current = m.zone;
        let on_change = move |e: ev::Event| {
            let mut next = m.clone();
            next.zone = event_target_value(&e).parse().ok();
            reread(next);
        };
        let options = names
            .iter()
            .enumerate()
            .map(|(i, n)| view! { <option value=i.to_string() selected=current == Some(i)>{n.clone()}</option> })
            .collect_view();
        view! {
            <label>"Time zone"
                <select data-testid="map-zone" on:change=on_change>
                    <option value="none" selected=current.is_none()>"(none: times are UTC)"</option>
                    {options}
                </select>
            </label>
        }
    };
    view! {
        <details class="mapping" open>
            <summary>"Columns (check them; a change re-reads the file)"</summary>
            <div class="mapping-selects">{selects.into_iter().collect_view()}{dates}{zone}</div>
            <div class="table-scroll" role="region" aria-label="The file's first rows" tabindex="0">
                <table class="preview" data-testid="csv-preview">
                    <thead><tr>{mapping.names.iter().enumerate().map(|(i, n)| view! {
                        <th class=role_of(i)>{n.clone()}<small>{role_of(i)}</small></th>
                    }).collect_view()}</tr></thead>
                    <tbody>{preview.into_iter().map(|row| view! {
                        <tr>{row.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}</tr>
                    }).collect_view()}</tbody>
                </table>
            </div>
        </details>
    }
}
