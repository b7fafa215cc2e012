//! The import worker's messages: the import worker (or, when it cannot start, the engine
//! worker) reads a file in slices, parses it and answers with the fixes. Cancel terminates the
//! import worker; the page starts another.

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;
use whereabouts_core::import::{ImportError, csv::Mapping};

/// What the page asks of an import worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "import")]
pub enum Request {
    /// Read `file` in chunks and parse it. The `File` travels as an attachment (structured
    /// clone, not copied).
    File {
        settings: ImportSettings,
        #[serde(skip)]
        file: Option<web_sys::File>,
    },
    /// Have the importer's code ready (in the site's build, fetch its chunk now), so that a
    /// file dropped later imports at once, offline too. The page asks once its lab's first run
    /// is done, so the fetch is not part of the first load (src/worker/import.rs).
    Prepare,
}

/// What an import worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "import")]
pub enum Response {
    /// Under way: `done` of `total` bytes read, or parsing (`parsing`).
    Progress {
        done: f64,
        total: f64,
        parsing: bool,
    },
    /// The file was read; the fixes (after sub-sampling) are a packed attachment.
    Done {
        report: Box<ImportReport>,
        #[serde(skip)]
        fixes: Option<JsValue>,
    },
    /// The file could not be imported: which file, where, what.
    Failed { error: ImportError },
    /// The importer's code is here (after [`Request::Prepare`], or before a file's import).
    Prepared,
}

/// What the visitor chose for an import.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ImportSettings {
    /// CSV columns chosen in the preview (None: detect).
    pub csv: Option<Mapping>,
    /// Keep at most one fix per this many seconds (0: keep all).
    pub thin_s: f64,
}

/// What the page shows about an import.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportReport {
    pub name: String,
    pub bytes: f64,
    pub format: String,
    /// Fixes read, and kept after sub-sampling.
    pub read: usize,
    pub kept: usize,
    pub thin_s: f64,
    pub skipped: usize,
    pub skipped_examples: Vec<String>,
    pub warnings: Vec<String>,
    /// Where the world goes: what was left out (far trips, old weeks).
    pub placement_notes: Vec<String>,
    pub has_signal: bool,
    pub first_unix: f64,
    pub last_unix: f64,
    /// The CSV columns used, and the first rows split into fields (for the mapping preview).
    pub csv: Option<Mapping>,
    pub preview: Vec<Vec<String>>,
    pub read_ms: f64,
    pub parse_ms: f64,
}
