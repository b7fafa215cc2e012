//! `reproduce --real DIR`: the user's downloaded copy of the real data sets, read where it lies
//! (laid out as the project's shared data folder: `DIR/foursquare-nyc/Foursquare_Sample.csv`).
//! Nothing of it is copied; a missing folder or file is named with what should be there.

use std::path::Path;
use whereabouts_engine::real::{CheckIns, FOURSQUARE_FILE};

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
