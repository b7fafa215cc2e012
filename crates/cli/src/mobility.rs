//! The `whereabouts` commands of the Mobility lab ([002]).

use std::path::Path;

/// `whereabouts reproduce --lab mobility`: the lab's studies laid out as the paper's tables
/// (Markdown, and CSV, one file per table, into `csv`).
pub fn reproduce(
    seed: u64,
    quick: bool,
    out: Option<&Path>,
    csv: Option<&Path>,
) -> Result<(), String> {
    use whereabouts_engine::mobility::experiments::{self, Scale};
    let scale = if quick {
        Scale::quick(seed)
    } else {
        Scale::full(seed)
    };
    let started = std::time::Instant::now();
    let tables = experiments::all(&scale, &mut |what| eprintln!("reproduce mobility: {what}…"))?;
    crate::publish_tables("mobility", seed, quick, started, &tables, out, csv)
}
