//! CSV / TSV from GPS loggers and cell-signal apps: the delimiter and the columns are detected
//! (from the header's names, else from the values) and reported as a [`Mapping`] the user can
//! confirm or change.

use super::time::parse_time;
use super::{Parsed, RawFix};
use serde::{Deserialize, Serialize};

/// Which columns hold what (0-based), and how the file is split.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mapping {
    pub delimiter: char,
    pub header: bool,
    /// The header's names (or "column 1", "column 2", … without one).
    pub names: Vec<String>,
    pub lat: usize,
    pub lon: usize,
    pub time: usize,
    pub signal: Option<usize>,
}

const DELIMITERS: [char; 4] = [',', ';', '\t', '|'];

/// Splits a line on `d`, honouring double quotes ("a,b" stays one field; "" is a quote).
pub fn split(line: &str, d: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            c if c == d && !quoted => out.push(std::mem::take(&mut field)),
            c => field.push(c),
        }
    }
    out.push(field);
    out.into_iter().map(|f| f.trim().to_string()).collect()
}

/// Data lines: (1-based line number, text), without blank and `#` comment lines.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
}

/// The first `rows` data rows split by `mapping` (the page's mapping preview).
pub fn preview(text: &str, mapping: &Mapping, rows: usize) -> Vec<Vec<String>> {
    lines(text)
        .skip(usize::from(mapping.header))
        .take(rows)
        .map(|(_, l)| split(l, mapping.delimiter))
        .collect()
}

fn detect_delimiter(text: &str) -> Option<char> {
    let sample: Vec<&str> = lines(text).take(20).map(|(_, l)| l).collect();
    DELIMITERS
        .into_iter()
        .filter_map(|d| {
            let counts: Vec<usize> = sample.iter().map(|l| split(l, d).len()).collect();
            let first = *counts.first()?;
            let agree = counts.iter().filter(|&&c| c == first).count();
            (first > 1).then_some((d, agree, first))
        })
        .max_by_key(|&(_, agree, fields)| (agree, fields))
        .map(|(d, ..)| d)
}

fn is_number(s: &str) -> bool {
    s.parse::<f64>().is_ok()
}

fn find(names: &[String], wanted: &[&str]) -> Option<usize> {
    let lower: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
    // Exact names first, then names containing the word.
    wanted
        .iter()
        .find_map(|w| lower.iter().position(|n| n == w))
        .or_else(|| {
            wanted
                .iter()
                .find_map(|w| lower.iter().position(|n| n.contains(w)))
        })
}

fn guess_from_header(
    names: &[String],
) -> (Option<usize>, Option<usize>, Option<usize>, Option<usize>) {
    let lat = find(names, &["lat", "latitude", "lat_deg", "y"]);
    let lon = find(names, &["lon", "lng", "long", "longitude", "lon_deg", "x"]);
    let time = find(
        names,
        &[
            "time",
            "timestamp",
            "datetime",
            "date",
            "ts",
            "time_unix",
            "utc",
        ],
    );
    let signal = find(
        names,
        &[
            "rsrp", "rsrp_dbm", "dbm", "signal", "rssi", "level", "strength",
        ],
    );
    (lat, lon, time, signal)
}

/// Without a header: a timestamp column, then the first two coordinate-like numeric columns
/// (latitude first, the usual order), then a negative dBm-like column.
fn guess_from_values(
    row: &[String],
) -> (Option<usize>, Option<usize>, Option<usize>, Option<usize>) {
    let num: Vec<Option<f64>> = row.iter().map(|f| f.parse::<f64>().ok()).collect();
    let time = row.iter().position(|f| match f.parse::<f64>() {
        Ok(v) => v > 1e8,
        Err(_) => parse_time(f).is_some(),
    });
    let coords: Vec<usize> = (0..row.len())
        .filter(|&i| {
            Some(i) != time && num[i].is_some_and(|v| v.abs() <= 180.0 && v.fract() != 0.0)
        })
        .collect();
    let signal = (0..row.len()).find(|&i| {
        Some(i) != time
            && !coords.iter().take(2).any(|&c| c == i)
            && num[i].is_some_and(|v| (-160.0..=-20.0).contains(&v))
    });
    (
        coords.first().copied(),
        coords.get(1).copied(),
        time,
        signal,
    )
}

/// Detects the layout (unless `mapping` is given) and reads the rows.
pub fn parse(text: &str, mapping: Option<&Mapping>) -> Result<Parsed, (Option<usize>, String)> {
    let mut data = lines(text).peekable();
    let Some(&(first_line, first)) = data.peek() else {
        return Err((None, "the file is empty".into()));
    };
    let mapping = match mapping {
        Some(m) => m.clone(),
        None => {
            let delimiter = detect_delimiter(text).ok_or_else(|| {
                (
                    Some(first_line),
                    "no columns found: expected values separated by commas, semicolons, tabs or |"
                        .to_string(),
                )
            })?;
            let fields = split(first, delimiter);
            let header = fields
                .iter()
                .any(|f| !is_number(f) && parse_time(f).is_none());
            let names: Vec<String> = if header {
                fields.clone()
            } else {
                (1..=fields.len()).map(|i| format!("column {i}")).collect()
            };
            let (lat, lon, time, signal) = if header {
                guess_from_header(&fields)
            } else {
                guess_from_values(&fields)
            };
            let listed = names.join(", ");
            let (Some(lat), Some(lon)) = (lat, lon) else {
                return Err((
                    Some(first_line),
                    format!("no latitude/longitude columns found (columns: {listed})"),
                ));
            };
            let Some(time) = time else {
                return Err((
                    Some(first_line),
                    format!("no time column found (columns: {listed})"),
                ));
            };
            Mapping {
                delimiter,
                header,
                names,
                lat,
                lon,
                time,
                signal,
            }
        }
    };
    if mapping.header {
        data.next();
    }
    let width = mapping.names.len();
    let mut parsed = Parsed::default();
    let mut rows = 0;
    for (line, text) in data {
        rows += 1;
        let f = split(text, mapping.delimiter);
        if f.len() != width {
            parsed.skipped.push((
                line,
                format!("has {} fields, the first row has {width}", f.len()),
            ));
            continue;
        }
        let number = |i: usize, what: &str| -> Result<f64, String> {
            f[i].parse::<f64>()
                .map_err(|_| format!("{what} “{}” is not a number", f[i]))
        };
        let row = (|| -> Result<RawFix, String> {
            let lat = number(mapping.lat, "latitude")?;
            let lon = number(mapping.lon, "longitude")?;
            let time = parse_time(&f[mapping.time]).ok_or_else(|| {
                format!(
                    "time “{}” is not ISO 8601 or Unix seconds/milliseconds",
                    f[mapping.time]
                )
            })?;
            let rsrp_dbm = match mapping.signal {
                Some(i) if !f[i].is_empty() => Some(number(i, "signal")?),
                _ => None,
            };
            Ok(RawFix {
                line,
                time: Some(time),
                lat,
                lon,
                rsrp_dbm,
            })
        })();
        match row {
            Ok(r) => parsed.rows.push(r),
            Err(why) => parsed.skipped.push((line, why)),
        }
    }
    if rows == 0 {
        return Err((
            Some(first_line),
            "there is a header but no data rows".into(),
        ));
    }
    parsed.csv = Some(mapping);
    Ok(parsed)
}
