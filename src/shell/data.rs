//! "Your own data": drop or choose a GPS / signal file, or try a sample; watch it import with
//! progress and cancel; check the CSV columns in a preview; forget it.
//!
//! The shell owns it: one imported file feeds every lab. Imports run in an import worker
//! ([`crate::worker::import`]) started with the page and kept, so a visitor who goes offline can
//! still import (once the importer's code has come: in the site's build a chunk of the worker,
//! which both workers are asked to fetch once the lab's first run is done, [`DataState::prepare`]);
//! Cancel terminates it and starts another. If it cannot start, the engine worker
//! reads the file instead (then Cancel only ignores the result). The labs keep
//! running meanwhile, and what they show changes only when an import succeeds: a failed or
//! cancelled import leaves the previous data and results as they were. The fixes go to the
//! engine worker (a `Float64Array`), where every lab finds them; the page keeps only the report
//! and the `File` handle (to re-read it with other columns or another sub-sampling). A lab
//! follows [`DataView::revision`] to restart when the data changes.
//!
//! This file holds the state and its two import paths (the import worker, or the engine worker
//! when that cannot load); the panel that shows it is [`panel`].

use super::engine::Engine;
use crate::bridge::{EngineBridge, WORKER_URL};
use crate::protocol::{
    ImportReport, ImportRequest, ImportResponse, ImportSettings, Request, Response,
};
use leptos::prelude::*;
use std::collections::VecDeque;
use wasm_bindgen::JsCast;

pub mod panel;

pub use panel::DataPanel;

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
    /// Which worker reads files: "starting" (the import worker is loading, or has not yet got
    /// its importer's code), "ready" (the import worker, its importer here: a file imports at
    /// once, offline too) or "engine" (the fallback); the drop zone carries it as `data-reader`.
    pub reader: RwSignal<&'static str>,
    /// The engine worker has answered that the lab's first run is done: from then on the
    /// workers that read files are asked to have their importer ready ([`DataState::prepare`]),
    /// a fetch that is kept out of the first load (src/worker/import.rs).
    results_in: StoredValue<bool>,
    /// The engine worker said its importer is ready (until then each [`DataState::prepare`]
    /// asks it again).
    engine_prepared: StoredValue<bool>,
    engine: Engine,
    /// The import worker: started with the page and kept between imports (a visitor who goes
    /// offline can still import, once it has its importer), replaced after a cancel. `None`
    /// once it failed to start.
    importer: StoredValue<Option<Importer>, LocalStorage>,
    /// Numbers import workers; only the current one is heard.
    importer_serial: StoredValue<u32>,
    /// The import under way.
    running: StoredValue<Option<Running>, LocalStorage>,
    /// Numbers imports.
    import_id: StoredValue<u32>,
    /// Imports handed to the engine worker, oldest first: it reads them one after the other and
    /// ends each with one `Done` or `Failed`, so its answers are matched in order.
    engine_imports: StoredValue<VecDeque<u32>>,
    /// The imported file's handle (to read it again with other columns); None after Forget.
    file: StoredValue<Option<web_sys::File>, LocalStorage>,
}

/// A running import worker.
#[derive(Clone)]
struct Importer {
    bridge: EngineBridge,
    /// It said Ready: it loaded (a later failure is the file's, not the network's).
    ready: bool,
}

/// An import under way: which, what, and whether the engine worker reads it (the fallback when
/// the import worker cannot run; it cannot be stopped there, so a cancelled one is ignored).
#[derive(Clone)]
struct Running {
    id: u32,
    file: web_sys::File,
    settings: ImportSettings,
    on_engine: bool,
}

impl DataState {
    pub fn new(engine: Engine) -> Self {
        let state = DataState {
            view: RwSignal::new(DataView::default()),
            reader: RwSignal::new("starting"),
            results_in: StoredValue::new(false),
            engine_prepared: StoredValue::new(false),
            engine,
            importer: StoredValue::new_local(None),
            importer_serial: StoredValue::new(0),
            running: StoredValue::new_local(None),
            import_id: StoredValue::new(0),
            engine_imports: StoredValue::new(VecDeque::new()),
            file: StoredValue::new_local(None),
        };
        engine.listen(move |response| match response {
            Response::Import(r) => {
                state.on_engine_import(r);
                None
            }
            other => {
                if !state.results_in.get_value() && first_results(&other) {
                    state.results_in.set_value(true);
                    state.prepare();
                }
                Some(other)
            }
        });
        state.spawn_importer();
        // Back online: a worker whose importer could not come asks again.
        let online = window_event_listener(leptos::ev::online, move |_| {
            if state.reader.get_untracked() != "ready" || !state.engine_prepared.get_value() {
                state.prepare();
            }
        });
        on_cleanup(move || online.remove());
        state
    }

    /// Starts a fresh import worker (it loads while the page is online, and stays).
    fn spawn_importer(&self) {
        let serial = self.importer_serial.get_value() + 1;
        self.importer_serial.set_value(serial);
        let state = *self;
        match EngineBridge::spawn(WORKER_URL, move |r| state.on_importer(serial, r)) {
            Ok(bridge) => {
                self.importer.set_value(Some(Importer {
                    bridge,
                    ready: false,
                }));
                self.reader.set("starting");
            }
            Err(_) => {
                self.importer.set_value(None);
                self.reader.set("engine");
                self.prepare();
            }
        }
    }

    /// Once the lab's first run is done, asks the workers that read files to have their
    /// importer ready: the import worker once it has loaded, and the engine worker too (until
    /// it answers `Prepared`), which reads the files if an import worker cannot start (offline
    /// after a cancel, say).
    fn prepare(&self) {
        if !self.results_in.get_value() {
            return;
        }
        let request = Request::Import(ImportRequest::Prepare);
        if !self.engine_prepared.get_value() {
            let _ = self.engine.send(&request);
        }
        if let Some(i) = self.importer.get_value().filter(|i| i.ready) {
            // A worker that cannot take it is replaced, and asked again, as it says Fatal.
            let _ = i.bridge.send(&request);
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

    /// Reads `file` with `settings` in the import worker (or the engine worker if it cannot).
    pub fn import_file(&self, file: web_sys::File, settings: ImportSettings) {
        self.abandon_import();
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
        let id = self.import_id.get_value() + 1;
        self.import_id.set_value(id);
        self.running.set_value(Some(Running {
            id,
            file,
            settings,
            on_engine: false,
        }));
        self.dispatch();
    }

    /// Sends the running import to the import worker, or to the engine worker if there is none.
    fn dispatch(&self) {
        let Some(mut running) = self.running.get_value() else {
            return;
        };
        let request = Request::Import(ImportRequest::File {
            settings: running.settings.clone(),
            file: Some(running.file.clone()),
        });
        let sent = self
            .importer
            .get_value()
            .is_some_and(|i| i.bridge.send(&request).is_ok());
        if sent {
            return;
        }
        match self.engine.send(&request) {
            Ok(()) => {
                self.engine_imports
                    .update_value(|q| q.push_back(running.id));
                running.on_engine = true;
                self.running.set_value(Some(running));
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

    /// Drops the import under way, if any: its worker is replaced (the engine worker cannot be
    /// stopped; its answer will be ignored).
    fn abandon_import(&self) {
        if let Some(running) = self.running.get_value() {
            self.running.set_value(None);
            if !running.on_engine {
                if let Some(i) = self.importer.get_value() {
                    i.bridge.terminate();
                }
                self.spawn_importer();
            }
        }
    }

    pub fn cancel_import(&self) {
        self.abandon_import();
        self.view.update(|d| {
            d.importing = None;
            d.cancelled = true;
        });
    }

    fn import_failed(&self, message: String) {
        self.running.set_value(None);
        self.view.update(|d| {
            d.importing = None;
            d.error = Some(message);
        });
    }

    /// An answer of import worker `serial`.
    fn on_importer(&self, serial: u32, response: Response) {
        if self.importer_serial.get_value() != serial {
            return;
        }
        let mine = self.running.get_value().is_some_and(|r| !r.on_engine);
        let loaded = self
            .importer
            .with_value(|i| i.as_ref().is_some_and(|i| i.ready));
        match response {
            Response::Ready { .. } => {
                self.importer.update_value(|i| {
                    if let Some(i) = i.as_mut() {
                        i.ready = true;
                    }
                });
                self.prepare();
            }
            Response::Import(ImportResponse::Prepared) => self.reader.set("ready"),
            Response::Import(r) if mine => self.on_import(r),
            // It never loaded (offline since before it started, say): the engine worker reads
            // the files instead.
            Response::Fatal { message } if !loaded => {
                web_sys::console::warn_1(
                    &format!("the import worker did not start ({message}); imports run in the engine worker").into(),
                );
                self.importer.set_value(None);
                self.reader.set("engine");
                self.prepare();
                if mine {
                    self.dispatch();
                }
            }
            // It failed on a file (out of memory, say): say so, and start a fresh one.
            Response::Fatal { message } => {
                if let Some(i) = self.importer.get_value() {
                    i.bridge.terminate();
                }
                self.spawn_importer();
                if mine {
                    self.import_failed(format!("the import worker failed on this file: {message}"));
                }
            }
            Response::Rejected { reason } if mine => self.import_failed(reason),
            _ => {}
        }
    }

    /// An import answer of the engine worker: the oldest import handed to it.
    fn on_engine_import(&self, response: ImportResponse) {
        // The engine worker's importer is ready: it answers no import with that.
        if response == ImportResponse::Prepared {
            self.engine_prepared.set_value(true);
            return;
        }
        let oldest = self.engine_imports.with_value(|q| q.front().copied());
        if !matches!(response, ImportResponse::Progress { .. }) {
            self.engine_imports.update_value(|q| {
                q.pop_front();
            });
        }
        let current = self
            .running
            .get_value()
            .is_some_and(|r| r.on_engine && Some(r.id) == oldest);
        if current {
            self.on_import(response);
        }
    }

    fn on_import(&self, response: ImportResponse) {
        match response {
            ImportResponse::Progress {
                done,
                total,
                parsing,
            } => self.view.update(|d| {
                if let Some(i) = d.importing.as_mut() {
                    i.done = done;
                    i.total = total;
                    i.parsing = parsing;
                }
            }),
            ImportResponse::Done { report, fixes } => {
                // Only a file that was read becomes the one "Keep" and the columns re-read.
                let file = self.running.get_value().map(|r| r.file);
                self.running.set_value(None);
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
            ImportResponse::Failed { error } => self.import_failed(error.to_string()),
            ImportResponse::Prepared => {}
        }
    }

    /// Wipes the imported data from the page and the worker; the lab goes back to the path.
    pub fn forget_data(&self) {
        self.abandon_import();
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

/// True for an answer of the engine worker that ends the first load: the Signal map's run is
/// idle with at least one round done (the rounds the page wants so far; an Idle before the
/// first round is not the end of anything) or could not run; a Density, Linkability or
/// Mobility message (that lab's engine has come and talks; the page gets those families as
/// `Later`).
fn first_results(response: &Response) -> bool {
    use crate::protocol::SignalResponse;
    match response {
        Response::Signal(SignalResponse::Idle { summary, .. }) => summary.rounds > 0,
        Response::Signal(SignalResponse::Error { .. }) | Response::Later { .. } => true,
        _ => false,
    }
}

/// A sample from this site, as a `File`; a failure in plain words (the samples are files of
/// this site, which an offline page cannot reach unless the browser kept them).
async fn fetch_file(name: &str) -> Result<web_sys::File, String> {
    use wasm_bindgen_futures::JsFuture;
    const UNREACHABLE: &str = "this page cannot reach its site (are you offline?); the samples are files of the site. Your own files import offline.";
    let window = web_sys::window().ok_or("no window")?;
    let response: web_sys::Response =
        JsFuture::from(window.fetch_with_str(&format!("./samples/{name}")))
            .await
            .map_err(|_| UNREACHABLE.to_string())?
            .dyn_into()
            .map_err(|_| "the site answered with something that is not a file".to_string())?;
    if !response.ok() {
        return Err(format!("the site answered HTTP {}", response.status()));
    }
    let blob = JsFuture::from(response.blob().map_err(|_| UNREACHABLE.to_string())?)
        .await
        .map_err(|_| UNREACHABLE.to_string())?;
    let parts = js_sys::Array::of1(&blob);
    web_sys::File::new_with_blob_sequence(&parts, name)
        .map_err(|_| "the sample could not be made into a file".to_string())
}
