//! CSV / TSV from GPS loggers and cell-signal apps: the delimiter and the columns are detected
//! (from the header's names, else from the values) and reported as a [`Mapping`] the user can
//! confirm or change. Files from European locales (semicolons, decimal commas) read as written,
//! and so do local times with a zone column and day-first or month-first dates.

use super::time::{DateOrder, parse_time_as, parse_zone, resolve_order};
use super::{Parsed, RawFix, cut};
use serde::{Deserialize, Serialize};

/// Which columns hold what (0-based), and how the file is split.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mapping {
    pub delimiter: char,
    pub header: bool,
    /// The header's names (or "column 1", "column 2", … without one).
    pub names: Vec<String>,
    /// The latitude's and the longitude's columns. One column for both (`lat == lon`) holds
    /// the two numbers apart ("40.83 -73.94", as Foursquare's `lat_lon`): latitude first,
    /// unless the column's name puts the longitude first ("lon_lat").
    pub lat: usize,
    pub lon: usize,
    pub time: usize,
    pub signal: Option<usize>,
    /// How the time column writes its dates (detected, or the user's choice).
    #[serde(default)]
    pub dates: DateOrder,
    /// A column with each row's time zone (the times are then local).
    #[serde(default)]
    pub zone: Option<usize>,
}

impl Mapping {
    /// Reads a number as this file writes it: with a decimal comma unless commas split fields.
    pub fn number(&self, s: &str) -> Option<f64> {
        number_in(s, self.delimiter)
    }

    /// Whether the latitude and the longitude share one column.
    pub fn paired(&self) -> bool {
        self.lat == self.lon
    }

    /// Latitude and longitude from a row's fields, or what is wrong.
    fn position(&self, f: &[String]) -> Result<(f64, f64), String> {
        let number = |s: &str, what: &str| {
            self.number(s)
                .ok_or_else(|| format!("{what} “{}” is not a number", cut(s)))
        };
        if !self.paired() {
            return Ok((
                number(&f[self.lat], "latitude")?,
                number(&f[self.lon], "longitude")?,
            ));
        }
        let both = &f[self.lat];
        // Two numbers apart: by spaces ("40.83 -73.94", or "40,83 -73,94" with decimal commas),
        // else by a comma or semicolon the file does not split on ("8.54, 47.37").
        let spaced: Vec<&str> = both.split_whitespace().collect();
        let parts = if spaced.len() == 2 && spaced.iter().all(|p| self.number(p).is_some()) {
            spaced
        } else {
            both.split([',', ';']).map(str::trim).collect()
        };
        let [a, b] = parts[..] else {
            return Err(format!(
                "“{}” is not a latitude and a longitude (two numbers apart, such as 40.83 -73.94)",
                cut(both)
            ));
        };
        let name = self.names[self.lat].to_lowercase();
        let lat_at = name.find("lat");
        let lon_at = ["lon", "lng"].iter().filter_map(|w| name.find(w)).min();
        if matches!((lat_at, lon_at), (Some(t), Some(n)) if n < t) {
            Ok((number(b, "latitude")?, number(a, "longitude")?))
        } else {
            Ok((number(a, "latitude")?, number(b, "longitude")?))
        }
    }
}

fn number_in(s: &str, delimiter: char) -> Option<f64> {
    match s.parse::<f64>() {
        Ok(v) => Some(v),
        Err(_) if delimiter != ',' && s.contains(',') => s.replacen(',', ".", 1).parse().ok(),
        Err(_) => None,
    }
}

/// Whether a field reads as a time in some date order.
fn time_like(f: &str) -> bool {
    [DateOrder::Auto, DateOrder::DayFirst, DateOrder::MonthFirst]
        .into_iter()
        .any(|o| parse_time_as(f, o, None).is_some())
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

/// Data rows: (1-based line where the row starts, its text), without blank and `#` comment
/// lines ([`records`]).
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    records(text)
        .into_iter()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
}

/// The rows of `text` as RFC 4180 has them: split at every line end — `\n`, `\r\n`, or a lone
/// `\r` (old Mac and Excel files) — outside double quotes, so a quoted field may hold a line
/// break. A quote opens a quoted field only at a field's start (after a line end or one of
/// [`DELIMITERS`]), so a stray quote in a value (5'10") does not swallow the rows after it.
/// Lines are counted as an editor counts them.
fn records(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut start_line, mut line, mut quoted) = (0, 1, 1, false);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' if quoted => {
                if bytes.get(i + 1) == Some(&b'"') {
                    i += 1;
                } else {
                    quoted = false;
                }
            }
            b'"' => {
                let before = bytes[start..i].iter().rev().find(|b| **b != b' ').copied();
                quoted =
                    before.is_none_or(|b| DELIMITERS.iter().any(|d| *d as u32 == u32::from(b)));
            }
            b'\n' | b'\r' => {
                let crlf = bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n');
                if !quoted {
                    out.push((start_line, &text[start..i]));
                    start = i + 1 + usize::from(crlf);
                    start_line = line + 1;
                }
                line += 1;
                i += usize::from(crlf);
            }
            _ => {}
        }
        i += 1;
    }
    if start < text.len() {
        out.push((start_line, &text[start..]));
    }
    out
}

/// The first `rows` data rows split by `mapping` (the page's mapping preview).
pub fn preview(text: &str, mapping: &Mapping, rows: usize) -> Vec<Vec<String>> {
    lines(text)
        .skip(usize::from(mapping.header))
        .take(rows)
        .map(|(_, l)| split(l, mapping.delimiter).iter().map(|f| cut(f)).collect())
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

/// A zone column, by its exact name only ("tz" inside another name means nothing).
fn zone_column(names: &[String]) -> Option<usize> {
    let wanted = [
        "zone",
        "timezone",
        "time zone",
        "time_zone",
        "tz",
        "utc_offset",
        "utc offset",
        "offset",
    ];
    names
        .iter()
        .position(|n| wanted.contains(&n.to_lowercase().as_str()))
}

/// Every column that `wanted` names, in the order [`find`] prefers them.
fn all_named(names: &[String], wanted: &[&str]) -> Vec<usize> {
    let lower: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
    let exact = wanted
        .iter()
        .filter_map(|w| lower.iter().position(|n| n == w));
    let within = wanted.iter().flat_map(|w| {
        lower
            .iter()
            .enumerate()
            .filter(move |(_, n)| n.contains(w))
            .map(|(i, _)| i)
    });
    let mut found = Vec::new();
    for i in exact.chain(within) {
        if !found.contains(&i) {
            found.push(i);
        }
    }
    found
}

/// Whether a field reads as a moment: a date and time, or a Unix count (seconds or finer; not a
/// small number such as a minute of the day).
fn moment_like(f: &str) -> bool {
    match f.parse::<f64>() {
        Ok(v) => v > 1e8,
        Err(_) => time_like(f),
    }
}

/// `sample` is the first data row: of the columns a time's name fits, the first whose value in
/// it reads as a moment (Foursquare's `time` is the minute of the day; its `date_time` the
/// moment).
fn guess_from_header(
    names: &[String],
    sample: Option<&[String]>,
) -> (Option<usize>, Option<usize>, Option<usize>, Option<usize>) {
    let lat = find(
        names,
        &["lat", "latitude", "lat_deg", "y", "breite", "breitengrad"],
    );
    let lon = find(
        names,
        &[
            "lon",
            "lng",
            "long",
            "longitude",
            "lon_deg",
            "x",
            "länge",
            "laenge",
            "längengrad",
        ],
    );
    let times = all_named(
        names,
        &[
            "time",
            "timestamp",
            "datetime",
            "date_time",
            "date",
            "datum",
            "zeit",
            "ts",
            "time_unix",
            "utc",
        ],
    );
    let time = sample
        .and_then(|row| {
            times
                .iter()
                .copied()
                .find(|&i| row.get(i).is_some_and(|f| moment_like(f)))
        })
        .or(times.first().copied());
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
    delimiter: char,
) -> (Option<usize>, Option<usize>, Option<usize>, Option<usize>) {
    let num: Vec<Option<f64>> = row.iter().map(|f| number_in(f, delimiter)).collect();
    let time = row.iter().position(|f| moment_like(f));
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

/// A column naming whose trace or trip a row is, by its exact name ("tid", "user_id", …).
fn owner_column(names: &[String]) -> Option<usize> {
    let wanted = [
        "tid",
        "trajectory",
        "trajectory_id",
        "traj_id",
        "trip",
        "trip_id",
        "track",
        "track_id",
        "user",
        "user_id",
        "userid",
        "uid",
        "person",
        "person_id",
    ];
    names
        .iter()
        .position(|n| wanted.contains(&n.to_lowercase().as_str()))
}

/// Detects the layout (unless `mapping` is given) and reads the rows.
pub fn parse(text: &str, mapping: Option<&Mapping>) -> Result<Parsed, (Option<usize>, String)> {
    let mut data = lines(text).peekable();
    let Some(&(first_line, first)) = data.peek() else {
        return Err((None, "the file is empty".into()));
    };
    let mut ambiguous_dates = false;
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
                .any(|f| number_in(f, delimiter).is_none() && !time_like(f));
            let names: Vec<String> = if header {
                fields.iter().map(|f| cut(f)).collect()
            } else {
                (1..=fields.len()).map(|i| format!("column {i}")).collect()
            };
            let (lat, lon, time, signal) = if header {
                let sample = lines(text).nth(1).map(|(_, l)| split(l, delimiter));
                guess_from_header(&fields, sample.as_deref())
            } else {
                guess_from_values(&fields, delimiter)
            };
            let listed = super::list_names(&names);
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
            // The dates' order, from the first rows that tell it.
            let (dates, ambiguous) = resolve_order(
                lines(text)
                    .skip(usize::from(header))
                    .take(5_000)
                    .filter_map(|(_, l)| split(l, delimiter).into_iter().nth(time))
                    .collect::<Vec<_>>()
                    .iter()
                    .map(String::as_str),
            );
            if ambiguous {
                ambiguous_dates = true;
            }
            Mapping {
                delimiter,
                header,
                zone: if header { zone_column(&fields) } else { None },
                names,
                lat,
                lon,
                time,
                signal,
                dates,
            }
        }
    };
    if mapping.header {
        data.next();
    }
    let width = mapping.names.len();
    let mut parsed = Parsed::default();
    let mut rows = 0;
    // Whose trace each row is, when a column says so: several are read as one.
    let owner = mapping
        .header
        .then(|| owner_column(&mapping.names))
        .flatten();
    let mut owners = std::collections::BTreeSet::new();
    for (line, text) in data {
        rows += 1;
        let f = split(text, mapping.delimiter);
        if let Some(o) = owner.filter(|&o| o < f.len()) {
            owners.insert(f[o].clone());
        }
        if f.len() != width {
            parsed.skipped.push((
                line,
                format!("has {} fields, the first row has {width}", f.len()),
            ));
            continue;
        }
        let number = |i: usize, what: &str| -> Result<f64, String> {
            mapping
                .number(&f[i])
                .ok_or_else(|| format!("{what} “{}” is not a number", cut(&f[i])))
        };
        let row = (|| -> Result<RawFix, String> {
            let (lat, lon) = mapping.position(&f)?;
            let zone = match mapping.zone.map(|z| &f[z]) {
                None => None,
                Some(z) if z.is_empty() => None,
                Some(z) => Some(parse_zone(z).ok_or_else(|| {
                    format!(
                        "time zone “{}” is not an offset such as +01:00, UTC+1 or CET (region names such as Europe/Berlin are not read)",
                        cut(z)
                    )
                })?),
            };
            let time = parse_time_as(&f[mapping.time], mapping.dates, zone).ok_or_else(|| {
                let order = match mapping.dates {
                    DateOrder::Auto => String::new(),
                    o => format!(", dates {}", o.describe()),
                };
                format!(
                    "time “{}” is not a date and time (such as 2024-03-04 07:30:00{order}) nor Unix seconds, milliseconds, microseconds or nanoseconds",
                    cut(&f[mapping.time]),
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
    if let Some(o) = owner.filter(|_| owners.len() > 1) {
        parsed.warnings.push(format!(
            "the column “{}” names {} different traces (people or trips): they are read here as one person's",
            cut(&mapping.names[o]),
            owners.len()
        ));
    }
    if ambiguous_dates {
        parsed.warnings.push(
            "every date could be day first or month first (such as 04/03/2024): read as day first (4 March); choose “month first” beside the columns if they are not".into(),
        );
    }
    parsed.csv = Some(mapping);
    Ok(parsed)
}
