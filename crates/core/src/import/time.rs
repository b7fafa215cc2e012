//! Timestamps as people's files write them: ISO 8601 / RFC 3339 (with `Z`, an offset, or none —
//! then UTC is assumed, as GPS loggers mean), `YYYY-MM-DD HH:MM:SS`, and Unix epoch seconds or
//! milliseconds (numbers above 10¹¹ are milliseconds: 10¹¹ s is the year 5138).

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

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// Parses an ISO 8601 date-time to Unix seconds.
pub fn parse_iso(s: &str) -> Option<f64> {
    let s = s.trim();
    // `get`, not slicing: a multi-byte character may straddle byte 10 (found by the fuzzer).
    let (date, rest) = (s.get(..10)?, s.get(10..)?);
    let mut parts = date.split('-');
    let y = digits(parts.next()?, 4)? as i64;
    let mo = digits(parts.next()?, 2)?;
    let d = digits(parts.next()?, 2)?;
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    let mut secs = days_from_civil(y, mo, d) as f64 * 86_400.0;
    let rest = rest.trim_start_matches(['T', 't', ' ']);
    if rest.is_empty() {
        return Some(secs);
    }
    // Split off the zone: Z, +hh:mm, -hh:mm, +hhmm.
    let (clock, zone) = match rest.find(['Z', 'z', '+', '-']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let mut hms = clock.split(':');
    let h = digits(hms.next()?, 2)?;
    let mi = digits(hms.next()?, 2)?;
    let sec: f64 = match hms.next() {
        Some(x) => {
            let v: f64 = x.parse().ok()?;
            if !(0.0..61.0).contains(&v) {
                return None;
            }
            v
        }
        None => 0.0,
    };
    if h > 23 || mi > 59 || hms.next().is_some() {
        return None;
    }
    secs += f64::from(h) * 3600.0 + f64::from(mi) * 60.0 + sec;
    match zone {
        "" | "Z" | "z" => {}
        z => {
            let sign = if z.starts_with('-') { -1.0 } else { 1.0 };
            let body = z[1..].replace(':', "");
            let hh = digits(body.get(0..2)?, 2)?;
            let mm = if body.len() == 4 {
                digits(&body[2..4], 2)?
            } else if body.len() == 2 {
                0
            } else {
                return None;
            };
            secs -= sign * (f64::from(hh) * 3600.0 + f64::from(mm) * 60.0);
        }
    }
    Some(secs)
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

/// Parses any supported timestamp to Unix seconds.
pub fn parse_time(s: &str) -> Option<f64> {
    let t = s.trim().trim_matches('"');
    if let Ok(v) = t.parse::<f64>() {
        if !v.is_finite() || v < 0.0 {
            return None;
        }
        return Some(if v > 1e11 { v / 1000.0 } else { v });
    }
    parse_iso(t)
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
    fn nonsense_is_refused() {
        for bad in [
            "yesterday",
            "",
            "2023-13-01",
            "2023-11-14T25:00:00Z",
            "NaN",
            "-5",
            "2023/11/14",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }
}
