//! `reproduce --real DIR`: the user's downloaded copy of the real data sets, read where it lies
//! (laid out as the project's shared data folder: `DIR/foursquare-nyc/Foursquare_Sample.csv`,
//! `DIR/5g-cork/5G-production-dataset.zip`). Nothing of it is copied; a missing folder or file
//! is named with what should be there.

use std::io::Read;
use std::path::Path;
use whereabouts_engine::real::{CheckIns, FOURSQUARE_FILE};
use whereabouts_engine::signal_map::real::{CORK_ZIP, DriveTraces};

/// The Foursquare New York check-ins in `dir`, or why not (naming the path).
pub fn load(dir: &Path) -> Result<CheckIns, String> {
    if !dir.is_dir() {
        return Err(format!(
            "--real {}: no such folder (it should hold your copy of the data, as {}/{FOURSQUARE_FILE})",
            dir.display(),
            dir.display()
        ));
    }
    let file = dir.join(FOURSQUARE_FILE);
    if !file.is_file() {
        return Err(format!(
            "--real {}: {} is not there (download the Foursquare New York sample and put it there; see the data's README)",
            dir.display(),
            file.display()
        ));
    }
    let bytes = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let data = CheckIns::parse(&file.display().to_string(), &bytes)?;
    eprintln!(
        "{}: {} check-ins in {} weekly trajectories ({} rows left out, {} trajectories with fewer than two check-ins)",
        file.display(),
        data.rows - data.skipped,
        data.trajectories.len(),
        data.skipped,
        data.dropped_trajectories
    );
    Ok(data)
}

/// The 5g-cork drive traces in `dir` (every CSV of the zip, the archive's `__MACOSX` copies
/// left out), or why not (naming the path).
pub fn load_cork(dir: &Path) -> Result<DriveTraces, String> {
    if !dir.is_dir() {
        return Err(format!(
            "--real {}: no such folder (it should hold your copy of the data, as {}/{CORK_ZIP})",
            dir.display(),
            dir.display()
        ));
    }
    let file = dir.join(CORK_ZIP);
    if !file.is_file() {
        return Err(format!(
            "--real {}: {} is not there (download the 5G production data set of Raca et al. and put its zip there; see the data's README)",
            dir.display(),
            file.display()
        ));
    }
    let open = std::fs::File::open(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut archive = zip::ZipArchive::new(open)
        .map_err(|e| format!("{}: not a zip archive ({e})", file.display()))?;
    let mut traces = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| format!("{}: entry {i}: {e}", file.display()))?;
        let name = entry.name().map(|n| n.to_string()).unwrap_or_default();
        if !name.ends_with(".csv") || name.contains("__MACOSX") {
            continue;
        }
        let mut text = String::new();
        entry
            .read_to_string(&mut text)
            .map_err(|e| format!("{}: {name}: {e}", file.display()))?;
        traces.push((name, text));
    }
    traces.sort();
    let data = DriveTraces::parse(&traces).map_err(|e| format!("{}: {e}", file.display()))?;
    eprintln!("{}: {}", file.display(), data.summary());
    Ok(data)
}
