//! The import worker's job: read the visitor's file in chunks (reporting progress), parse it
//! with the engine's importer, sub-sample it, and hand back a report and the packed fixes.
//!
//! It runs in the import worker, started with the page and kept between files, so the page
//! stays responsive, the lab keeps running, and cancelling is `terminate()`: nothing
//! half-imported can reach the lab. When the import worker cannot start (a page that went
//! offline after a cancel), the engine worker runs the same code. The file is a
//! `File` handle (not copied) and is read with `FileReaderSync` in 4 MB slices.
//!
//! In the site's build (`--features split`) [`run`] and the importer it reaches (CSV, GPX,
//! GeoJSON and the time formats) are a split point of the worker's binary (src/bin/worker.rs):
//! wasm-split moves them into a chunk of their own ([`Load`]), fetched once the lab's first
//! run is done (the page's `ImportRequest::Prepare`, so that a file dropped later imports at
//! once, offline too) or by the first file if it comes sooner: the first load does not hold it
//! (issue 41 §1; BENCHMARKS.md "Download size"). In every other build [`at_once`] has it.

use crate::protocol::{ImportReport, ImportResponse, ImportSettings, Response, pack};
use std::{future::Future, pin::Pin};
use wasm_bindgen::JsCast;
use whereabouts_core::import::{Import, ImportError, ImportOptions, csv, import, thin};
use whereabouts_engine::signal_map::placement::ImportedTrace;

/// Bytes read between two progress reports.
const CHUNK: f64 = 4.0 * 1024.0 * 1024.0;
/// Rows shown in the CSV mapping preview.
const PREVIEW_ROWS: usize = 5;

/// What imports a file: [`run`].
pub type Run = fn(&web_sys::File, &ImportSettings, &dyn Fn() -> f64, &mut dyn FnMut(Response));

/// How the worker fetches the importer's chunk: the split build's worker binary gives one to
/// [`super::start`].
pub type Load = fn() -> Loading;

/// The importer on its way, or why it could not come.
pub type Loading = Pin<Box<dyn Future<Output = Result<Run, String>>>>;

/// The importer now, if its code is in the binary: `None` in the split build, where it must be
/// fetched (a [`Load`]).
pub fn at_once() -> Option<Run> {
    #[cfg(all(feature = "split", target_family = "wasm"))]
    {
        None
    }
    #[cfg(not(all(feature = "split", target_family = "wasm")))]
    Some(run)
}

/// What the page is told when the importer could not come (`why`): the import of `file` failed,
/// and the lab keeps what it had.
pub fn unloaded(file: &web_sys::File, why: &str) -> Response {
    Response::Import(ImportResponse::Failed {
        error: ImportError {
            file: file.name(),
            line: None,
            problem: format!(
                "the importer's code could not be loaded ({why}); check the connection and try again"
            ),
        },
    })
}

/// Reads and imports `file`, emitting progress, then `ImportDone` or `ImportFailed`.
pub fn run(
    file: &web_sys::File,
    settings: &ImportSettings,
    now: &dyn Fn() -> f64,
    emit: &mut dyn FnMut(Response),
) {
    let name = file.name();
    let fail = |problem: String| {
        Response::Import(ImportResponse::Failed {
            error: ImportError {
                file: name.clone(),
                line: None,
                problem,
            },
        })
    };
    let options = ImportOptions {
        csv: settings.csv.clone(),
        ..ImportOptions::default()
    };
    let total = file.size();
    if total > options.max_bytes as f64 {
        emit(fail(format!(
            "the file is {:.0} MB; the limit is {:.0} MB (sub-sample it, or split it by date)",
            total / 1e6,
            options.max_bytes as f64 / 1e6
        )));
        return;
    }
    let began = now();
    let bytes = match read(file, total, emit) {
        Ok(b) => b,
        Err(problem) => {
            emit(fail(problem));
            return;
        }
    };
    let read_ms = now() - began;
    emit(Response::Import(ImportResponse::Progress {
        done: total,
        total,
        parsing: true,
    }));
    let began = now();
    let result = import(&name, &bytes, &options);
    let parse_ms = now() - began;
    match result.and_then(|i| report(&name, &bytes, i, settings, read_ms, parse_ms)) {
        Ok((report, fixes)) => emit(Response::Import(ImportResponse::Done {
            report: Box::new(report),
            fixes: Some(pack(&fixes)),
        })),
        Err(error) => emit(Response::Import(ImportResponse::Failed { error })),
    }
}

/// Reads the whole file in [`CHUNK`]s, reporting after each.
fn read(
    file: &web_sys::File,
    total: f64,
    emit: &mut dyn FnMut(Response),
) -> Result<Vec<u8>, String> {
    let reader = web_sys::FileReaderSync::new()
        .map_err(|e| format!("this browser cannot read files in a worker: {e:?}"))?;
    let mut bytes = Vec::with_capacity(total as usize);
    let mut at = 0.0;
    while at < total {
        let end = (at + CHUNK).min(total);
        let slice = file
            .slice_with_f64_and_f64(at, end)
            .map_err(|e| format!("could not read bytes {at}–{end}: {e:?}"))?;
        let buffer = reader
            .read_as_array_buffer(&slice)
            .map_err(|e| format!("could not read the file (was it moved or deleted?): {e:?}"))?;
        let array = js_sys::Uint8Array::new(buffer.unchecked_ref());
        let start = bytes.len();
        bytes.resize(start + array.length() as usize, 0);
        array.copy_to(&mut bytes[start..]);
        at = end;
        emit(Response::Import(ImportResponse::Progress {
            done: at,
            total,
            parsing: false,
        }));
    }
    Ok(bytes)
}

/// What the page shows about an import, and the fixes the lab gets (sub-sampled). Fails if
/// sub-sampling or placement leave nothing to run on.
pub fn report(
    name: &str,
    bytes: &[u8],
    import: Import,
    settings: &ImportSettings,
    read_ms: f64,
    parse_ms: f64,
) -> Result<
    (
        ImportReport,
        std::sync::Arc<[whereabouts_core::import::Fix]>,
    ),
    ImportError,
> {
    let fail = |problem: String| ImportError {
        file: name.to_string(),
        line: None,
        problem,
    };
    let fixes = thin(&import.fixes, settings.thin_s);
    if fixes.len() < 2 {
        return Err(fail(format!(
            "keeping one fix per {} s leaves fewer than two; choose a shorter interval",
            settings.thin_s
        )));
    }
    let trace = ImportedTrace::new(name.to_string(), fixes);
    let placement = trace.placement().map_err(fail)?;
    let preview = match &import.csv {
        Some(mapping) => {
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(64 * 1024)]);
            csv::preview(text.trim_start_matches('\u{feff}'), mapping, PREVIEW_ROWS)
        }
        None => Vec::new(),
    };
    let report = ImportReport {
        name: name.to_string(),
        bytes: bytes.len() as f64,
        format: import.format.describe().to_string(),
        read: import.fixes.len(),
        kept: trace.fixes.len(),
        thin_s: settings.thin_s,
        skipped: import.skipped,
        skipped_examples: import.skipped_examples.clone(),
        warnings: import.warnings.clone(),
        placement_notes: placement.notes.clone(),
        has_signal: trace.has_signal(),
        first_unix: trace.fixes[0].time,
        last_unix: trace.fixes[trace.fixes.len() - 1].time,
        csv: import.csv.clone(),
        preview,
        read_ms,
        parse_ms,
    };
    Ok((report, trace.fixes))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "timestamp;latitude;longitude;rsrp\n\
        2026-01-05T08:00:00Z;47.3700;8.5400;-91\n\
        2026-01-05T08:00:05Z;47.3701;8.5401;-92\n\
        2026-01-05T08:00:30Z;47.3702;8.5402;-93\n\
        2026-01-05T08:01:00Z;47.3703;8.5403;-94\n";

    fn imported(settings: &ImportSettings) -> Result<ImportReport, ImportError> {
        let i = import("log.csv", CSV.as_bytes(), &ImportOptions::default()).unwrap();
        report("log.csv", CSV.as_bytes(), i, settings, 1.0, 2.0).map(|(r, _)| r)
    }

    #[test]
    fn the_report_has_the_mapping_preview_and_the_signal() {
        let r = imported(&ImportSettings::default()).unwrap();
        assert_eq!((r.read, r.kept, r.skipped), (4, 4, 0));
        assert!(r.has_signal);
        assert_eq!(r.csv.as_ref().map(|m| m.delimiter), Some(';'));
        assert_eq!(r.preview.len(), 4);
        assert_eq!(r.preview[0][3], "-91");
        assert_eq!(r.last_unix - r.first_unix, 60.0);
    }

    #[test]
    fn sub_sampling_keeps_one_fix_per_interval_and_refuses_to_leave_one() {
        let r = imported(&ImportSettings {
            thin_s: 30.0,
            ..ImportSettings::default()
        })
        .unwrap();
        assert_eq!((r.read, r.kept), (4, 3));
        let e = imported(&ImportSettings {
            thin_s: 3600.0,
            ..ImportSettings::default()
        })
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("log.csv: keeping one fix per 3600 s"),
            "{e}"
        );
    }
}
