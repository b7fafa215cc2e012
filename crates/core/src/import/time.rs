//! Timestamps as people's files write them: ISO 8601 / RFC 3339 (with `Z`, an offset, or none —
//! then UTC is assumed, as GPS loggers mean), `YYYY-MM-DD HH:MM:SS`, the forms signal-logging
//! apps write (`2024.03.04_07.30.00`, `2024/03/04 07:30`), day-first and month-first dates
//! (`04.03.2024 07:30:00`, `04/03/2024 7:30 PM`; [`DateOrder`] says which, see
//! [`resolve_order`]), and Unix epoch seconds, milliseconds, microseconds or nanoseconds
//! ([`epoch_seconds`]: 10¹¹ s is the year 5138, so each unit begins where the one before would
//! pass it). [`PLAUSIBLE`] bounds the moments a fix may have. A zone written in the value, or given apart
//! ([`parse_zone`]: a CSV's zone column), turns a local time into UTC.

use serde::{Deserialize, Serialize};

/// The order of a date's day, month and year. A four-digit first field is always the year;
/// otherwise `04/03/2024` is 4 March (day first) or April 3 (month first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DateOrder {
    /// Year first, or day first when the date is written with dots (`04.03.2024`, as German
    /// and most European apps write it); a date like `04/03/2024` is refused.
    #[default]
    Auto,
    DayFirst,
    MonthFirst,
}

impl DateOrder {
    pub fn describe(self) -> &'static str {
        match self {
            DateOrder::Auto => "year first (or day first with dots)",
            DateOrder::DayFirst => "day first (31/12/2024)",
            DateOrder::MonthFirst => "month first (12/31/2024)",
        }
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Unix seconds as ISO 8601 UTC, whole seconds (H. Hinnant's `civil_from_days`).
pub fn format_iso(t: f64) -> String {
    let secs = t.floor() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Parses any supported timestamp to Unix seconds (dates like `04/03/2024` need an order:
/// [`parse_time_as`]).
/// The moments a fix may have, Unix seconds: 1990-01-01 to 2100-01-01 UTC. A time outside is
/// a number in another unit or a clock that was never set, not a place and time.
pub const PLAUSIBLE: (f64, f64) = (631_152_000.0, 4_102_444_800.0);

/// The calendar year (UTC) of Unix second `t`, near enough for a message.
pub fn year_of(t: f64) -> i64 {
    1970 + (t / 31_556_952.0).floor() as i64
}

/// Unix seconds from a count since the epoch in seconds, milliseconds (above 10¹¹),
/// microseconds (above 10¹⁴) or nanoseconds (above 10¹⁷).
pub fn epoch_seconds(v: f64) -> f64 {
    if v > 1e17 {
        v / 1e9
    } else if v > 1e14 {
        v / 1e6
    } else if v > 1e11 {
        v / 1e3
    } else {
        v
    }
}

pub fn parse_time(s: &str) -> Option<f64> {
    parse_time_as(s, DateOrder::Auto, None)
}

/// Parses a timestamp whose date is in `order`; a value without its own zone is local time at
/// `zone` seconds east of UTC if given (else UTC).
pub fn parse_time_as(s: &str, order: DateOrder, zone: Option<f64>) -> Option<f64> {
    let t = s.trim().trim_matches('"');
    if let Ok(v) = t.parse::<f64>() {
        if !v.is_finite() || v < 0.0 {
            return None;
        }
        return Some(epoch_seconds(v));
    }
    let (local, own_zone) = parse_local(t, order)?;
    Some(local - own_zone.or(zone).unwrap_or(0.0))
}

/// A date-time's fields before the zone: (local seconds since the epoch, its own zone offset).
fn parse_local(t: &str, order: DateOrder) -> Option<(f64, Option<f64>)> {
    // The date: three numbers with one separator, up to a space, `T` or `_`.
    let end = t.find([' ', 'T', 't', '_']).unwrap_or(t.len());
    let (date, rest) = t.split_at(end);
    let sep = date.chars().find(|c| matches!(c, '-' | '.' | '/'))?;
    let fields: Vec<&str> = date.split(sep).collect();
    let [a, b, c] = fields[..] else {
        return None;
    };
    let number = |f: &str, lens: &[usize]| {
        (lens.contains(&f.len()) && f.bytes().all(|x| x.is_ascii_digit()))
            .then(|| f.parse::<u32>().ok())
            .flatten()
    };
    let (y, m, d) = if a.len() == 4 {
        (number(a, &[4])?, number(b, &[1, 2])?, number(c, &[1, 2])?)
    } else {
        let (x, z, y) = (number(a, &[1, 2])?, number(b, &[1, 2])?, number(c, &[4])?);
        match (order, sep) {
            (DateOrder::DayFirst, _) | (DateOrder::Auto, '.') => (y, z, x),
            (DateOrder::MonthFirst, _) => (y, x, z),
            (DateOrder::Auto, _) => return None,
        }
    };
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let mut secs = days_from_civil(i64::from(y), m, d) as f64 * 86_400.0;
    let rest = rest.trim_start_matches([' ', 'T', 't', '_']).trim();
    if rest.is_empty() {
        return Some((secs, None));
    }
    // AM/PM, then the zone: what follows the clock's digits and separators.
    let (rest, half) = match rest.get(rest.len().saturating_sub(2)..) {
        Some(x) if x.eq_ignore_ascii_case("am") => (rest[..rest.len() - 2].trim_end(), Some(0)),
        Some(x) if x.eq_ignore_ascii_case("pm") => (rest[..rest.len() - 2].trim_end(), Some(12)),
        _ => (rest, None),
    };
    let clock_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.' || c == ','))
        .unwrap_or(rest.len());
    let (clock, zone) = rest.split_at(clock_end);
    let zone = match zone.trim() {
        "" => None,
        z => Some(parse_zone(z)?),
    };
    // HH:MM[:SS[.fff]] or HH.MM.SS (apps that use dots throughout).
    let parts: Vec<&str> = if clock.contains(':') {
        clock.split(':').collect()
    } else {
        clock.splitn(3, '.').collect()
    };
    let h = number(parts.first()?, &[1, 2])?;
    let mi = number(parts.get(1)?, &[2])?;
    let sec: f64 = match parts.get(2) {
        Some(x) => {
            let x = x.replace(',', ".");
            let v: f64 = x
                .parse()
                .ok()
                .filter(|_| x.bytes().next().is_some_and(|b| b.is_ascii_digit()))?;
            if !(0.0..61.0).contains(&v) {
                return None;
            }
            v
        }
        None => 0.0,
    };
    if parts.len() > 3 || mi > 59 {
        return None;
    }
    let h = match half {
        None if h <= 23 => h,
        Some(add) if (1..=12).contains(&h) => h % 12 + add,
        _ => return None,
    };
    secs += f64::from(h) * 3600.0 + f64::from(mi) * 60.0 + sec;
    Some((secs, zone))
}

/// A time zone as files write it, in seconds east of UTC: `Z`, `UTC`, `GMT`, `+01:00`,
/// `+0100`, `+1`, `UTC+1`, `GMT-05:00`, or a few unambiguous abbreviations (CET, CEST, EET,
/// EEST, WET, WEST, BST, and the US EST/EDT, CST/CDT, MST/MDT, PST/PDT). Region names
/// (`Europe/Berlin`) need the time-zone database and are not read.
pub fn parse_zone(z: &str) -> Option<f64> {
    let z = z.trim();
    let named = [
        ("Z", 0),
        ("UTC", 0),
        ("GMT", 0),
        ("WET", 0),
        ("WEST", 1),
        ("BST", 1),
        ("CET", 1),
        ("CEST", 2),
        ("EET", 2),
        ("EEST", 3),
        ("EST", -5),
        ("EDT", -4),
        ("CST", -6),
        ("CDT", -5),
        ("MST", -7),
        ("MDT", -6),
        ("PST", -8),
        ("PDT", -7),
    ];
    if let Some((_, h)) = named.iter().find(|(n, _)| n.eq_ignore_ascii_case(z)) {
        return Some(f64::from(*h) * 3600.0);
    }
    let body = ["UTC", "GMT", "utc", "gmt"]
        .iter()
        .find_map(|p| z.strip_prefix(p))
        .unwrap_or(z);
    let sign = match body.chars().next()? {
        '+' => 1.0,
        '-' | '−' => -1.0,
        _ => return None,
    };
    let body = body[body.char_indices().nth(1)?.0..].replace(':', "");
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (h, m) = match body.len() {
        1 | 2 => (body.parse::<u32>().ok()?, 0),
        3 | 4 => {
            let split = body.len() - 2;
            (body[..split].parse().ok()?, body[split..].parse().ok()?)
        }
        _ => return None,
    };
    if h > 14 || m > 59 {
        return None;
    }
    Some(sign * (f64::from(h) * 3600.0 + f64::from(m) * 60.0))
}

/// The order a column of dates is written in (for [`DateOrder::Auto`]): day first if some
/// date's first field exceeds 12, month first if some second field does, day first if none
/// tells (then `true`: the caller says the dates were ambiguous). Dates that start with the
/// year, or use dots, decide nothing.
pub fn resolve_order<'a>(values: impl Iterator<Item = &'a str>) -> (DateOrder, bool) {
    let mut seen = false;
    for v in values {
        let t = v.trim().trim_matches('"');
        let date = &t[..t.find([' ', 'T', 't', '_']).unwrap_or(t.len())];
        let Some(sep) = date.chars().find(|c| matches!(c, '-' | '/')) else {
            continue;
        };
        let f: Vec<&str> = date.split(sep).collect();
        if f.len() != 3 || f[0].len() > 2 || f[2].len() != 4 {
            continue;
        }
        let (Ok(a), Ok(b)) = (f[0].parse::<u32>(), f[1].parse::<u32>()) else {
            continue;
        };
        seen = true;
        if a > 12 {
            return (DateOrder::DayFirst, false);
        }
        if b > 12 {
            return (DateOrder::MonthFirst, false);
        }
    }
    (
        if seen {
            DateOrder::DayFirst
        } else {
            DateOrder::Auto
        },
        seen,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn iso_and_epoch_forms_agree() {
        let t = 1_700_000_000.0; // 2023-11-14T22:13:20Z
        assert_eq!(parse_time("2023-11-14T22:13:20Z"), Some(t));
        assert_eq!(parse_time("2023-11-14T22:13:20.000Z"), Some(t));
        assert_eq!(parse_time("2023-11-14 22:13:20"), Some(t));
        assert_eq!(parse_time("2023-11-15T00:13:20+02:00"), Some(t));
        assert_eq!(parse_time("2023-11-14T14:13:20-0800"), Some(t));
        assert_eq!(parse_time("1700000000"), Some(t));
        assert_eq!(parse_time("1700000000000"), Some(t));
        assert_eq!(parse_time("1970-01-01"), Some(0.0));
        assert_eq!(parse_time("2000-02-29T00:00:00Z"), Some(951_782_400.0));
        assert_eq!(format_iso(t), "2023-11-14T22:13:20Z");
        assert_eq!(parse_time(&format_iso(951_782_400.0)), Some(951_782_400.0));
    }

    #[test]
    fn the_forms_of_signal_logging_apps_are_read() {
        let t = 1_709_537_400.0; // 2024-03-04T07:30:00Z
        assert_eq!(parse_time("2024.03.04_07.30.00"), Some(t));
        assert_eq!(parse_time("2024/03/04 07:30:00"), Some(t));
        assert_eq!(parse_time("2024/3/4 7:30"), Some(t));
        assert_eq!(parse_time("04.03.2024 07:30:00"), Some(t));
        assert_eq!(parse_time("04.03.2024 07:30:00,5"), Some(t + 0.5));
        // Slashes with the day or month first need the order.
        assert_eq!(parse_time("04/03/2024 07:30"), None);
        assert_eq!(
            parse_time_as("04/03/2024 07:30", DateOrder::DayFirst, None),
            Some(t)
        );
        assert_eq!(
            parse_time_as("03/04/2024 7:30:00 AM", DateOrder::MonthFirst, None),
            Some(t)
        );
        assert_eq!(
            parse_time_as("03/04/2024 7:30 PM", DateOrder::MonthFirst, None),
            Some(t + 43_200.0)
        );
        assert_eq!(
            parse_time_as("03/04/2024 12:10 AM", DateOrder::MonthFirst, None),
            Some(t - 7.0 * 3600.0 - 1200.0)
        );
        // Local time: the value's own zone wins over the column's.
        assert_eq!(
            parse_time_as("2024-03-04 08:30:00", DateOrder::Auto, Some(3600.0)),
            Some(t)
        );
        assert_eq!(
            parse_time_as(
                "2024-03-04 08:30:00+01:00",
                DateOrder::Auto,
                Some(-18_000.0)
            ),
            Some(t)
        );
        assert_eq!(parse_time("2024-03-04 08:30:00 CET"), Some(t));
        assert_eq!(parse_time("2024-03-04 02:30:00 UTC-5"), Some(t));
    }

    #[test]
    fn zones_are_read_as_files_write_them() {
        for (z, h) in [
            ("Z", 0.0),
            ("UTC", 0.0),
            ("+01:00", 1.0),
            ("+0100", 1.0),
            ("+1", 1.0),
            ("UTC+1", 1.0),
            ("GMT-05:00", -5.0),
            ("-0930", -9.5),
            ("CEST", 2.0),
            ("pst", -8.0),
        ] {
            assert_eq!(parse_zone(z), Some(h * 3600.0), "{z}");
        }
        for bad in ["Europe/Berlin", "+25", "1", "", "+1:75", "UTC+"] {
            assert_eq!(parse_zone(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_column_of_dates_tells_its_order() {
        let col = |v: &[&'static str]| resolve_order(v.iter().copied());
        assert_eq!(
            col(&["04/03/2024 1:00", "13/03/2024 1:00"]),
            (DateOrder::DayFirst, false)
        );
        assert_eq!(
            col(&["04/03/2024", "03/13/2024"]),
            (DateOrder::MonthFirst, false)
        );
        assert_eq!(
            col(&["04/03/2024", "05/03/2024"]),
            (DateOrder::DayFirst, true)
        );
        assert_eq!(col(&["2024-03-04T07:30:00Z"]), (DateOrder::Auto, false));
    }

    #[test]
    fn nonsense_is_refused() {
        for bad in [
            "yesterday",
            "",
            "2023-13-01",
            "2023-11-14T25:00:00Z",
            "NaN",
            "-5",
            "2023/14/11",
            "14/11/23",
            "2023-11-14 7:3",
            "2023-11-14 13:00 PM",
            "2023-11-14T07:30:00 Mars/Olympus",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }
}
