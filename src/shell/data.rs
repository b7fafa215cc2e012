//! "Your own data": drop or choose a GPS / signal file, or try a sample; watch it import with
//! progress and cancel; check the CSV columns in a preview; forget it.
//!
//! The shell owns it: one imported file feeds every lab. Each import runs in a fresh worker
//! ([`crate::worker::import`]) that is terminated when it is done or cancelled. The labs keep
//! running meanwhile, and what they show changes only when an import succeeds: a failed or
//! cancelled import leaves the previous data and results as they were. The fixes go to the
//! engine worker (a `Float64Array`), where every lab finds them; the page keeps only the report
//! and the `File` handle (to re-read it with other columns or another sub-sampling). A lab
//! follows [`DataView::revision`] to restart when the data changes.

use super::engine::Engine;
use crate::bridge::{EngineBridge, WORKER_URL};
use crate::protocol::{
    ImportReport, ImportRequest, ImportResponse, ImportSettings, Request, Response,
};
use leptos::{ev, prelude::*};
use wasm_bindgen::JsCast;
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

/// An import under way.
#[derive(Clone, Debug, PartialEq)]
pub struct Importing {
    pub name: String,
    pub done: f64,
    pub total: f64,
    pub parsing: bool,
}

/// What the data panel shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DataView {
    /// The data the lab runs on (None: the drawn path).
    pub active: Option<ImportReport>,
    pub importing: Option<Importing>,
    /// Why the last import failed (the previous data stays).
    pub error: Option<String>,
    /// The last import was cancelled (nothing changed).
    pub cancelled: bool,
    pub settings: ImportSettings,
    /// Counts the changes of `active` (a file imported, or forgotten): labs restart on it.
    pub revision: u32,
}

/// The visitor's data, shared by every lab (all `Copy` handles).
#[derive(Clone, Copy)]
pub struct DataState {
    pub view: RwSignal<DataView>,
    engine: Engine,
    /// The worker reading a file (a fresh one per import, terminated to cancel), and the file
    /// it is reading, which becomes `file` only once it has been read.
    importer: StoredValue<Option<(EngineBridge, web_sys::File)>, LocalStorage>,
    /// Numbers imports; only the current one's messages are heard.
    import_id: StoredValue<u32>,
    /// The imported file's handle (to read it again with other columns); None after Forget.
    file: StoredValue<Option<web_sys::File>, LocalStorage>,
}

impl DataState {
    pub fn new(engine: Engine) -> Self {
        DataState {
            view: RwSignal::new(DataView::default()),
            engine,
            importer: StoredValue::new_local(None),
            import_id: StoredValue::new(0),
            file: StoredValue::new_local(None),
        }
    }

    /// True while a file is loaded (untracked: for event handlers).
    pub fn has_data(&self) -> bool {
        self.view.with_untracked(|d| d.active.is_some())
    }

    /// True while a file is loaded (tracked: for views).
    pub fn loaded(&self) -> bool {
        self.view.with(|d| d.active.is_some())
    }

    /// Hands the fixes (or `None`: forget them) to the engine worker.
    fn send(&self, name: String, fixes: Option<wasm_bindgen::JsValue>) {
        if let Err(e) = self.engine.send(&Request::Data { name, fixes }) {
            self.view.update(|d| d.error = Some(e));
        }
    }

    /// Settings for a new file: columns detected afresh, the chosen sub-sampling kept.
    fn new_file_settings(&self) -> ImportSettings {
        ImportSettings {
            csv: None,
            thin_s: self.view.with_untracked(|d| d.settings.thin_s),
        }
    }

    /// Reads `file` in a fresh import worker with the current settings.
    pub fn import_file(&self, file: web_sys::File, settings: ImportSettings) {
        self.stop_import();
        let name = file.name();
        self.view.update(|d| {
            d.importing = Some(Importing {
                name,
                done: 0.0,
                total: file.size(),
                parsing: false,
            });
            d.error = None;
            d.cancelled = false;
            d.settings = settings.clone();
        });
        let state = *self;
        // Messages of an earlier import (already queued when it was terminated) are dropped.
        let id = self.import_id.get_value() + 1;
        self.import_id.set_value(id);
        let spawned = EngineBridge::spawn(WORKER_URL, move |r| {
            if state.import_id.get_value() == id {
                state.on_import(r)
            }
        });
        match spawned {
            Ok(bridge) => {
                let request = Request::Import(ImportRequest::File {
                    settings,
                    file: Some(file.clone()),
                });
                if let Err(e) = bridge.send(&request) {
                    bridge.terminate();
                    self.import_failed(e);
                    return;
                }
                self.importer.set_value(Some((bridge, file)));
            }
            Err(e) => self.import_failed(e),
        }
    }

    /// Reads the same file again with other settings (columns, sub-sampling).
    pub fn reimport(&self, settings: ImportSettings) {
        match self.file.get_value() {
            Some(file) => self.import_file(file, settings),
            None => self.view.update(|d| d.settings = settings),
        }
    }

    /// Terminates the import under way, if any; returns the file it was reading.
    fn stop_import(&self) -> Option<web_sys::File> {
        let running = self.importer.get_value();
        self.importer.set_value(None);
        self.import_id.set_value(self.import_id.get_value() + 1);
        running.map(|(bridge, file)| {
            bridge.terminate();
            file
        })
    }

    pub fn cancel_import(&self) {
        self.stop_import();
        self.view.update(|d| {
            d.importing = None;
            d.cancelled = true;
        });
    }

    fn import_failed(&self, message: String) {
        self.stop_import();
        self.view.update(|d| {
            d.importing = None;
            d.error = Some(message);
        });
    }

    fn on_import(&self, response: Response) {
        match response {
            Response::Import(ImportResponse::Progress {
                done,
                total,
                parsing,
            }) => self.view.update(|d| {
                if let Some(i) = d.importing.as_mut() {
                    i.done = done;
                    i.total = total;
                    i.parsing = parsing;
                }
            }),
            Response::Import(ImportResponse::Done { report, fixes }) => {
                // Only a file that was read becomes the one "Keep" and the columns re-read.
                let file = self.stop_import();
                self.file.set_value(file);
                self.send(report.name.clone(), fixes);
                let settings = ImportSettings {
                    csv: report.csv.clone(),
                    thin_s: report.thin_s,
                };
                let revision = self.view.with_untracked(|d| d.revision) + 1;
                self.view.set(DataView {
                    active: Some(*report),
                    settings,
                    revision,
                    ..DataView::default()
                });
            }
            Response::Import(ImportResponse::Failed { error }) => {
                self.import_failed(error.to_string())
            }
            Response::Fatal { message } => {
                self.import_failed(format!("the import worker failed: {message}"))
            }
            Response::Rejected { reason } => self.import_failed(reason),
            _ => {}
        }
    }

    /// Wipes the imported data from the page and the worker; the lab goes back to the path.
    pub fn forget_data(&self) {
        self.stop_import();
        self.file.set_value(None);
        self.send(String::new(), None);
        let revision = self.view.with_untracked(|d| d.revision) + 1;
        self.view.set(DataView {
            revision,
            ..DataView::default()
        });
    }

    /// Fetches a sample from this site (same origin) and imports it.
    pub fn import_sample(&self, name: &'static str) {
        let state = *self;
        wasm_bindgen_futures::spawn_local(async move {
            match fetch_file(name).await {
                Ok(file) => state.import_file(file, state.new_file_settings()),
                Err(e) => state.import_failed(format!("{name}: could not load the sample: {e}")),
            }
        });
    }
}

async fn fetch_file(name: &str) -> Result<web_sys::File, String> {
    use wasm_bindgen_futures::JsFuture;
    let window = web_sys::window().ok_or("no window")?;
    let response: web_sys::Response =
        JsFuture::from(window.fetch_with_str(&format!("./samples/{name}")))
            .await
            .map_err(|e| format!("{e:?}"))?
            .dyn_into()
            .map_err(|_| "not a response".to_string())?;
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    let blob = JsFuture::from(response.blob().map_err(|e| format!("{e:?}"))?)
        .await
        .map_err(|e| format!("{e:?}"))?;
    let parts = js_sys::Array::of1(&blob);
    web_sys::File::new_with_blob_sequence(&parts, name).map_err(|e| format!("{e:?}"))
}

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
pub fn DataPanel(state: DataState) -> impl IntoView {
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
        <section class="panel data-panel" aria-labelledby="data-title" data-testid="data-panel">
            <h2 id="data-title">"Your own data"</h2>
            <p class="privacy" data-testid="privacy-statement">
                "Your file never leaves this tab: it is read here, by WebAssembly, and nothing is uploaded "
                "— this page makes no requests to any other site. It is kept in this tab's memory only "
                "(not saved anywhere); reloading the page or "<b>"Forget my data"</b>" wipes it."
            </p>
            <div class="drop-zone" data-testid="drop-zone" class:over=move || over.get()
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
            <div class="table-scroll">
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
