//! Bring your own data: the GPS and signal files people actually have, read into timed fixes
//! with messages that say which file, which line and what is wrong.
//!
//! Formats (detected from the content, not the name): CSV/TSV from GPS loggers and cell-signal
//! apps ([`csv`]), GPX tracks, routes and waypoints ([`gpx`]), GeoJSON points and lines and
//! Google location history — Takeout's `Records.json`, its Semantic Location History and the
//! newer on-device Timeline export ([`json`]). Bad rows are skipped and counted (with the first
//! reasons); a file with nothing usable is an error. Nothing here does I/O: the browser worker
//! and the CLI hand in the bytes.

pub mod csv;
pub mod gpx;
pub mod json;
pub mod thin;
pub mod time;

pub use thin::thin;

use serde::{Deserialize, Serialize};
use std::fmt;

/// One fix of the visitor's trace.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fix {
    /// Unix seconds.
    pub time: f64,
    pub lat: f64,
    pub lon: f64,
    /// Signal strength when the file has it, dBm.
    pub rsrp_dbm: Option<f64>,
    /// 1-based line in the file (CSV, GPX) or item number (JSON), for messages.
    pub line: usize,
}

/// What the file turned out to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    Csv,
    Gpx,
    GeoJson,
    GoogleRecords,
    GoogleSemantic,
    GoogleTimeline,
}

impl Format {
    pub fn describe(self) -> &'static str {
        match self {
            Format::Csv => "CSV",
            Format::Gpx => "GPX",
            Format::GeoJson => "GeoJSON",
            Format::GoogleRecords => "Google location history (Records.json)",
            Format::GoogleSemantic => "Google Semantic Location History",
            Format::GoogleTimeline => "Google Timeline export",
        }
    }
}

/// A successful import.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Import {
    pub format: Format,
    /// Sorted by time, no repeated timestamps, at least two.
    pub fixes: Vec<Fix>,
    /// Rows left out, and the first few reasons ("line 7: latitude 123 is out of range").
    pub skipped: usize,
    pub skipped_examples: Vec<String>,
    /// Things the user should know that did not stop the import.
    pub warnings: Vec<String>,
    /// The CSV columns used (so the page can show and change them).
    pub csv: Option<csv::Mapping>,
}

impl Import {
    pub fn has_signal(&self) -> bool {
        self.fixes.iter().any(|f| f.rsrp_dbm.is_some())
    }
}

/// Why a file could not be imported: which file, where, what.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportError {
    pub file: String,
    pub line: Option<usize>,
    pub problem: String,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}, line {l}: {}", self.file, self.problem),
            None => write!(f, "{}: {}", self.file, self.problem),
        }
    }
}

impl std::error::Error for ImportError {}

/// Import settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportOptions {
    /// Larger files are refused before parsing.
    pub max_bytes: usize,
    /// Use these CSV columns instead of guessing.
    pub csv: Option<csv::Mapping>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            max_bytes: 512 * 1024 * 1024,
            csv: None,
        }
    }
}

/// What a parser hands back before the common checks.
#[derive(Debug)]
pub struct Parsed {
    /// What `RawFix::line` counts: "line" (CSV, GPX) or the JSON item ("feature", …).
    pub unit: &'static str,
    pub rows: Vec<RawFix>,
    pub skipped: Vec<(usize, String)>,
    pub warnings: Vec<String>,
    pub csv: Option<csv::Mapping>,
}

impl Default for Parsed {
    fn default() -> Self {
        Self {
            unit: "line",
            rows: Vec::new(),
            skipped: Vec::new(),
            warnings: Vec::new(),
            csv: None,
        }
    }
}

/// The lowest signal a phone reports, dBm: RSRP is reported down to −140 dBm (3GPP TS 36.133
/// §9.1.4). A value below it is a logger's "no reading" (the Cork 5G traces write −200), as is
/// 0 dBm or more (Android's "unavailable" is 2³¹ − 1): the fix keeps its position and loses its
/// signal.
pub const MIN_SIGNAL_DBM: f64 = -140.0;

/// Whether a signal value is a reading, not a logger's "no reading".
pub fn is_reading(dbm: f64) -> bool {
    (MIN_SIGNAL_DBM..0.0).contains(&dbm)
}

/// A fix as read, before range checks.
#[derive(Clone, Copy, Debug)]
pub struct RawFix {
    pub line: usize,
    pub time: Option<f64>,
    pub lat: f64,
    pub lon: f64,
    pub rsrp_dbm: Option<f64>,
}

/// Reads `bytes` (the contents of the file called `name`).
pub fn import(name: &str, bytes: &[u8], options: &ImportOptions) -> Result<Import, ImportError> {
    let fail = |line: Option<usize>, problem: String| ImportError {
        file: name.to_string(),
        line,
        problem,
    };
    if bytes.len() > options.max_bytes {
        return Err(fail(
            None,
            format!(
                "the file is {:.0} MB; the limit is {:.0} MB (sub-sample it, or split it by date)",
                bytes.len() as f64 / 1e6,
                options.max_bytes as f64 / 1e6
            ),
        ));
    }
    let text = decode(bytes).map_err(|(line, problem)| fail(line, problem))?;
    let text = text.trim_start_matches('\u{feff}');
    let first = text.trim_start().chars().next();
    let Some(first) = first else {
        return Err(fail(None, "the file is empty".into()));
    };
    if let Some(problem) = not_read(text) {
        return Err(fail(Some(1), problem));
    }
    let (format, parsed) = match first {
        '<' => gpx::parse(text).map(|p| (Format::Gpx, p)),
        '{' | '[' => json::parse(text),
        _ => csv::parse(text, options.csv.as_ref()).map(|p| (Format::Csv, p)),
    }
    .map_err(|(line, problem)| fail(line, problem))?;
    let unit = parsed.unit;
    finish(format, parsed).map_err(|(line, problem)| match (unit, line) {
        ("line", _) | (_, None) => fail(line, problem),
        (unit, Some(n)) => fail(None, format!("{unit} {n}: {problem}")),
    })
}

/// The checks every format shares: finite numbers in range, latitude and longitude not
/// swapped, timestamps present, time order, repeated timestamps, at least two fixes.
fn finish(format: Format, parsed: Parsed) -> Result<Import, (Option<usize>, String)> {
    let Parsed {
        unit,
        rows,
        mut skipped,
        mut warnings,
        csv,
    } = parsed;
    if rows.is_empty() {
        return Err(match skipped.first() {
            Some((line, why)) => (
                Some(*line),
                format!(
                    "{why} — and no row was usable ({} rows skipped)",
                    skipped.len()
                ),
            ),
            None => (None, "no coordinates found".into()),
        });
    }
    // Swapped columns: "latitudes" beyond ±90 while every "longitude" fits in ±90.
    let lat_max = rows
        .iter()
        .map(|r| r.lat.abs())
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let lon_max = rows
        .iter()
        .map(|r| r.lon.abs())
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    if lat_max > 90.0 && lat_max <= 180.0 && lon_max <= 90.0 {
        let at = rows.iter().find(|r| r.lat.abs() > 90.0).map(|r| r.line);
        return Err((
            at,
            format!(
                "latitude and longitude look swapped: latitudes reach {lat_max} (beyond ±90) while every longitude is within ±90"
            ),
        ));
    }
    let mut fixes = Vec::with_capacity(rows.len());
    let mut untimed = 0;
    // Signal values that are no reading: (how many, the first's line and value).
    let mut no_reading: (usize, Option<(usize, f64)>) = (0, None);
    // A logger without a GPS fix writes 0°, 0° (in the Gulf of Guinea): not a place.
    let total = rows.len();
    let no_fix: Vec<usize> = rows
        .iter()
        .filter(|r| r.lat == 0.0 && r.lon == 0.0)
        .map(|r| r.line)
        .collect();
    if no_fix.len() == total {
        return Err((
            None,
            format!(
                "every one of the {total} points is at 0°, 0°, which is what a logger writes when it has no GPS fix: there is no position to import"
            ),
        ));
    }
    if let Some(&first) = no_fix.first() {
        warnings.push(format!(
            "{} points at 0°, 0° (a logger without a GPS fix; first at {unit} {first}) were left out",
            no_fix.len()
        ));
        skipped.extend(
            no_fix
                .iter()
                .map(|&l| (l, "at 0°, 0°: no GPS fix".to_string())),
        );
    }
    for r in rows.into_iter().filter(|r| !(r.lat == 0.0 && r.lon == 0.0)) {
        let why = if !(r.lat.is_finite() && r.lon.is_finite()) {
            Some("a coordinate is not a finite number (NaN or infinity)".to_string())
        } else if r.lat.abs() > 90.0 {
            Some(format!("latitude {} is out of range (−90 to 90)", r.lat))
        } else if r.lon.abs() > 180.0 {
            Some(format!("longitude {} is out of range (−180 to 180)", r.lon))
        } else if r.rsrp_dbm.is_some_and(|s| !s.is_finite()) {
            Some("the signal value is not a finite number".into())
        } else {
            None
        };
        if let Some(why) = why {
            skipped.push((r.line, why));
            continue;
        }
        let Some(time) = r.time else {
            untimed += 1;
            skipped.push((r.line, "no timestamp".into()));
            continue;
        };
        if !(time::PLAUSIBLE.0..time::PLAUSIBLE.1).contains(&time) {
            skipped.push((
                r.line,
                format!(
                    "its time is in the year {}, outside 1990–2100 (a count in another unit, or a clock never set)",
                    time::year_of(time)
                ),
            ));
            continue;
        }
        let rsrp_dbm = match r.rsrp_dbm {
            Some(s) if !is_reading(s) => {
                no_reading.0 += 1;
                no_reading.1.get_or_insert((r.line, s));
                None
            }
            s => s,
        };
        fixes.push(Fix {
            time,
            lat: r.lat,
            lon: r.lon,
            rsrp_dbm,
            line: r.line,
        });
    }
    if let (n, Some((line, value))) = no_reading {
        warnings.push(format!(
            "{n} signal value{s} outside a phone's range (below −140 dBm, or 0 dBm and above: a logger's “no reading”, such as {value} at {unit} {line}) left out; the positions are kept",
            s = if n == 1 { "" } else { "s" },
        ));
    }
    if fixes.is_empty() && untimed > 0 {
        return Err((
            None,
            "no timestamps found: every point needs a time (ISO 8601, or Unix seconds, milliseconds, microseconds or nanoseconds)".into(),
        ));
    }
    if fixes.is_empty() {
        let (line, why) = skipped
            .first()
            .cloned()
            .unwrap_or((0, "no usable rows".into()));
        return Err((Some(line), format!("{why} — and no row was usable")));
    }
    if fixes.windows(2).any(|w| w[1].time < w[0].time) {
        fixes.sort_by(|a, b| a.time.total_cmp(&b.time));
        warnings.push("the rows were not in time order: sorted by time".into());
    }
    let before = fixes.len();
    let mut dropped = Vec::new();
    fixes.dedup_by(|b, a| {
        let same = b.time == a.time;
        if same {
            dropped.push(b.line);
        }
        same
    });
    if before != fixes.len() {
        warnings.push(format!(
            "{} rows repeat an earlier timestamp (first at {unit} {}): kept the first of each",
            before - fixes.len(),
            dropped[0]
        ));
        skipped.extend(
            dropped
                .iter()
                .map(|&l| (l, "repeats an earlier timestamp".into())),
        );
    }
    crate::order::sort_by_key(&mut skipped, |s| s.0);
    if fixes.len() < 2 {
        // Say why the others were left out: that is what the user has to fix.
        return Err(match skipped.first() {
            Some((line, why)) => (
                Some(*line),
                format!(
                    "{why} — so only one point is left ({} skipped), and a trajectory needs at least two",
                    skipped.len()
                ),
            ),
            None => (
                Some(fixes[0].line),
                "only one point: a trajectory needs at least two".into(),
            ),
        });
    }
    Ok(Import {
        format,
        fixes,
        skipped: skipped.len(),
        skipped_examples: skipped
            .iter()
            .take(5)
            .map(|(l, why)| format!("{unit} {l}: {why}"))
            .collect(),
        warnings,
        csv,
    })
}

/// Longest field a message or the preview shows whole, in characters.
const SHOWN_CHARS: usize = 80;

/// A field as messages show it: whole if short, else its start and its length (a 5 MB field
/// must not become a 5-million-character message).
pub fn cut(s: &str) -> String {
    let n = s.chars().count();
    if n <= SHOWN_CHARS {
        s.to_string()
    } else {
        let start: String = s.chars().take(SHOWN_CHARS / 2).collect();
        format!("{start}… ({n} characters)")
    }
}

/// A message that quotes its input (a parser's error with the offending line under it) with
/// every line [`cut`]: a 2 MB line in a config must not become 2 MB of error.
pub fn cut_lines(message: &str) -> String {
    message.lines().map(cut).collect::<Vec<_>>().join("\n")
}

/// Longest word (a run without spaces) [`cut_words`] leaves whole: longer than any path or
/// name a message means to show, far shorter than an echoed input.
const WORD_CHARS: usize = 160;
/// Longest line [`cut_words`] leaves whole once its words are cut.
const LINE_CHARS: usize = 2_000;

/// A message whose prose stays whole while whatever it echoes is cut: each word over
/// [`WORD_CHARS`] characters (a 2 MB value, a file name as long as the argument allows) becomes
/// its start and its length, and a line still over [`LINE_CHARS`] (a long list of short words)
/// its start and its length. A safety net for messages that quote what they were given.
pub fn cut_words(message: &str) -> String {
    let word = |w: &str| {
        let n = w.chars().count();
        if n <= WORD_CHARS {
            w.to_string()
        } else {
            let start: String = w.chars().take(SHOWN_CHARS / 2).collect();
            format!("{start}… ({n} characters)")
        }
    };
    message
        .split('\n')
        .map(|line| {
            let line = line.split(' ').map(word).collect::<Vec<_>>().join(" ");
            let n = line.chars().count();
            if n <= LINE_CHARS {
                line
            } else {
                let start: String = line.chars().take(LINE_CHARS / 2).collect();
                format!("{start}… ({n} characters)")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Most names a message lists before it gives the rest as a count.
const LISTED: usize = 20;

/// Names for a message, comma-separated: the first [`LISTED`], then how many in all.
pub fn list_names(names: &[String]) -> String {
    if names.len() <= LISTED {
        names.join(", ")
    } else {
        format!("{}, … ({} in all)", names[..LISTED].join(", "), names.len())
    }
}

/// The text of a file: UTF-8 (a byte-order mark is dropped), or UTF-16 with its byte-order
/// mark, as spreadsheet programs save "Unicode text".
fn decode(bytes: &[u8]) -> Result<std::borrow::Cow<'_, str>, (Option<usize>, String)> {
    let utf16 = |unit: fn([u8; 2]) -> u16| {
        let units: Vec<u16> = bytes[2..]
            .chunks(2)
            .map(|c| unit([c[0], *c.get(1).unwrap_or(&0)]))
            .collect();
        String::from_utf16(&units)
            .map(std::borrow::Cow::Owned)
            .map_err(|_| {
                (
                    None,
                    "the file starts as UTF-16 text but is not valid UTF-16".to_string(),
                )
            })
    };
    match bytes {
        [0xFF, 0xFE, ..] => return utf16(u16::from_le_bytes),
        [0xFE, 0xFF, ..] => return utf16(u16::from_be_bytes),
        [0x1F, 0x8B, ..] => {
            return Err((
                None,
                "a gzip-compressed file: decompress it first (gunzip, or your archive tool), then open the file inside".into(),
            ));
        }
        [b'P', b'K', 3, 4, ..] => {
            return Err((
                None,
                "a zip archive (a KMZ, or a Takeout download?): extract it first, then open the GPX, CSV or JSON file inside".into(),
            ));
        }
        _ => {}
    }
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return Err((
            None,
            "this looks like a binary file, not text (CSV, GPX or JSON); UTF-16 text needs its byte-order mark".into(),
        ));
    }
    match std::str::from_utf8(bytes) {
        Ok(t) => Ok(std::borrow::Cow::Borrowed(t)),
        Err(e) => {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            Err((
                Some(line),
                "the file is not UTF-8 text (is it binary, or in another encoding?)".into(),
            ))
        }
    }
}

/// A common GPS format this importer does not read, named with what to do instead: KML
/// (Google Earth), TCX (Garmin Training Center) and NMEA sentences (a receiver's raw log).
fn not_read(text: &str) -> Option<String> {
    let t = text.trim_start();
    if t.starts_with('$')
        && t.get(3..6)
            .is_some_and(|s| s.chars().all(|c| c.is_ascii_uppercase()))
    {
        return Some(
            "NMEA sentences (a GPS receiver's raw log, $GPGGA…): not read here; convert them to GPX first (for instance gpsbabel -i nmea -f FILE -o gpx -F FILE.gpx)".into(),
        );
    }
    if !t.starts_with('<') {
        return None;
    }
    // The root element: the first tag that is not a declaration, comment or doctype.
    let root = t
        .split('<')
        .map(str::trim_start)
        .find(|tag| !tag.is_empty() && !tag.starts_with(['?', '!']))?;
    let name: String = root
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == ':' || *c == '_')
        .collect();
    let name = name.rsplit(':').next().unwrap_or("").to_ascii_lowercase();
    match name.as_str() {
        "kml" => Some("a KML file (Google Earth): not read here; export the track as GPX instead (Google Earth: save it as GPX, or convert it with gpsbabel)".into()),
        "trainingcenterdatabase" => Some("a TCX file (Garmin Training Center): not read here; export the activity as GPX instead (Garmin Connect and Strava both offer it)".into()),
        _ => None,
    }
}

/// 1-based line number of a byte offset.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests;
