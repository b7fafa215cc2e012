//! JSON files: GeoJSON (points, lines; times from `properties.time`/`timestamp` or
//! `coordTimes`) and a phone's exported location history from Google — Takeout's
//! `Records.json` (`locations` with `latitudeE7`), Semantic Location History
//! (`timelineObjects`: place visits and activity segments) and the on-device Timeline export
//! (`semanticSegments` / `rawSignals`, or the iOS array of segments with `geo:` points).
//! Items are numbered from 1 in messages (JSON has no useful "line" per point).

use super::time::parse_time;
use super::{Format, Parsed, RawFix};
use serde_json::Value;

type Failure = (Option<usize>, String);

pub fn parse(text: &str) -> Result<(Format, Parsed), Failure> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let line = Some(e.line());
        match e.classify() {
            serde_json::error::Category::Eof => (
                line,
                "the file ends early (truncated JSON): it was cut off before the end".to_string(),
            ),
            _ => (line, format!("invalid JSON: {e}")),
        }
    })?;
    let key = |k: &str| value.get(k).is_some();
    if value.get("type").and_then(Value::as_str).is_some() && !key("semanticSegments") {
        return Ok((Format::GeoJson, unit(geojson(&value)?, "feature")));
    }
    if key("locations") {
        return Ok((Format::GoogleRecords, unit(records(&value)?, "location")));
    }
    if key("timelineObjects") {
        return Ok((
            Format::GoogleSemantic,
            unit(semantic(&value)?, "timeline object"),
        ));
    }
    if key("semanticSegments") || key("rawSignals") {
        return Ok((Format::GoogleTimeline, unit(timeline(&value)?, "item")));
    }
    if let Some(items) = value.as_array()
        && items.first().is_some_and(|i| i.get("startTime").is_some())
    {
        return Ok((
            Format::GoogleTimeline,
            unit(segments(items, &mut Parsed::default())?, "segment"),
        ));
    }
    let keys = match &value {
        Value::Object(m) => m
            .keys()
            .take(6)
            .map(|k| super::cut(k))
            .collect::<Vec<_>>()
            .join(", "),
        Value::Array(_) => "an array".into(),
        _ => "a single value".into(),
    };
    Err((
        None,
        format!("not GeoJSON or a Google location history (top level: {keys})"),
    ))
}

/// Positions in JSON are items, not lines.
fn unit(mut p: Parsed, unit: &'static str) -> Parsed {
    p.unit = unit;
    p
}

/// A fix without a signal (location histories have none) at item `item`.
fn located(item: usize, (lat, lon): (f64, f64), time: Option<f64>) -> RawFix {
    RawFix {
        line: item,
        time,
        lat,
        lon,
        rsrp_dbm: None,
    }
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn time_of(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::String(s) => parse_time(s),
        n @ Value::Number(_) => number(n).and_then(|x| parse_time(&x.to_string())),
        _ => None,
    }
}

fn signal_of(props: Option<&Value>) -> Option<f64> {
    let p = props?;
    ["rsrp", "rsrp_dbm", "dbm", "signal"]
        .iter()
        .find_map(|k| p.get(*k).and_then(number))
}

fn geojson(value: &Value) -> Result<Parsed, Failure> {
    let mut parsed = Parsed::default();
    let features: Vec<&Value> = match value.get("type").and_then(Value::as_str) {
        Some("FeatureCollection") => value
            .get("features")
            .and_then(Value::as_array)
            .ok_or((
                None,
                "a FeatureCollection without a \"features\" array".to_string(),
            ))?
            .iter()
            .collect(),
        Some("Feature") => vec![value],
        _ => vec![value],
    };
    let mut other = Vec::new();
    for (i, f) in features.iter().enumerate() {
        let item = i + 1;
        let (geometry, props) = match f.get("type").and_then(Value::as_str) {
            Some("Feature") => (
                f.get("geometry").unwrap_or(&Value::Null),
                f.get("properties"),
            ),
            _ => (*f, None),
        };
        let kind = geometry.get("type").and_then(Value::as_str).unwrap_or("");
        let coords = geometry.get("coordinates");
        let times: Option<&Vec<Value>> = props.and_then(|p| {
            p.get("coordTimes")
                .or_else(|| p.get("times"))
                .and_then(Value::as_array)
        });
        let point_time = props.and_then(|p| {
            ["time", "timestamp", "datetime", "date"]
                .iter()
                .find_map(|k| p.get(*k))
        });
        let signal = signal_of(props);
        let mut push = |c: &Value, t: Option<&Value>| {
            let Some(arr) = c.as_array() else {
                parsed
                    .skipped
                    .push((item, "a position is not an array".to_string()));
                return;
            };
            let (lon, lat) = (arr.first().and_then(number), arr.get(1).and_then(number));
            let (Some(lon), Some(lat)) = (lon, lat) else {
                parsed
                    .skipped
                    .push((item, "a position is not [longitude, latitude]".to_string()));
                return;
            };
            // [lon, lat, elevation, time] also appears in the wild.
            let time = time_of(t).or_else(|| time_of(arr.get(3)));
            parsed.rows.push(RawFix {
                line: item,
                time,
                lat,
                lon,
                rsrp_dbm: signal,
            });
        };
        match (kind, coords) {
            ("Point", Some(c)) => push(c, point_time),
            ("MultiPoint" | "LineString", Some(Value::Array(cs))) => {
                for (k, c) in cs.iter().enumerate() {
                    push(c, times.and_then(|t| t.get(k)));
                }
            }
            ("MultiLineString", Some(Value::Array(lines))) => {
                // coordTimes is one array per line (togeojson), or one flat array.
                let mut k = 0;
                for (j, line) in lines.iter().filter_map(Value::as_array).enumerate() {
                    for (i, c) in line.iter().enumerate() {
                        let t = times.and_then(|t| match t.get(j) {
                            Some(Value::Array(per_line)) => per_line.get(i),
                            _ => t.get(k),
                        });
                        push(c, t);
                        k += 1;
                    }
                }
            }
            ("", _) => parsed
                .skipped
                .push((item, "it has no geometry".to_string())),
            (k, _) => {
                other.push(k.to_string());
                parsed
                    .skipped
                    .push((item, format!("it is a {k}, not a point or line")));
            }
        }
    }
    if parsed.rows.is_empty() && !other.is_empty() {
        other.dedup();
        return Err((
            None,
            format!("no points or lines, only {}", other.join(", ")),
        ));
    }
    if features.is_empty() {
        return Err((None, "the FeatureCollection has no features".into()));
    }
    Ok(parsed)
}

fn e7(v: &Value, lat: &str, lon: &str) -> Option<(f64, f64)> {
    Some((number(v.get(lat)?)? / 1e7, number(v.get(lon)?)? / 1e7))
}

fn records(value: &Value) -> Result<Parsed, Failure> {
    let list = value
        .get("locations")
        .and_then(Value::as_array)
        .ok_or((None, "\"locations\" is not an array".to_string()))?;
    if list.is_empty() {
        return Err((None, "the location history has no locations".into()));
    }
    let mut parsed = Parsed::default();
    for (i, r) in list.iter().enumerate() {
        let item = i + 1;
        let Some((lat, lon)) = e7(r, "latitudeE7", "longitudeE7") else {
            parsed
                .skipped
                .push((item, "it has no latitudeE7/longitudeE7".to_string()));
            continue;
        };
        let time = time_of(r.get("timestamp")).or_else(|| time_of(r.get("timestampMs")));
        parsed.rows.push(located(item, (lat, lon), time));
    }
    Ok(parsed)
}

fn duration(d: Option<&Value>) -> (Option<f64>, Option<f64>) {
    let d = d.unwrap_or(&Value::Null);
    (
        time_of(d.get("startTimestamp")).or_else(|| time_of(d.get("startTimestampMs"))),
        time_of(d.get("endTimestamp")).or_else(|| time_of(d.get("endTimestampMs"))),
    )
}

fn semantic(value: &Value) -> Result<Parsed, Failure> {
    let list = value
        .get("timelineObjects")
        .and_then(Value::as_array)
        .ok_or((None, "\"timelineObjects\" is not an array".to_string()))?;
    let mut parsed = Parsed::default();
    for (i, o) in list.iter().enumerate() {
        let item = i + 1;
        let mut push = |p: (f64, f64), t: Option<f64>| parsed.rows.push(located(item, p, t));
        if let Some(v) = o.get("placeVisit") {
            let (start, end) = duration(v.get("duration"));
            match v
                .get("location")
                .and_then(|l| e7(l, "latitudeE7", "longitudeE7"))
            {
                Some(p) => {
                    push(p, start);
                    if end.is_some() && end != start {
                        push(p, end);
                    }
                }
                None => parsed
                    .skipped
                    .push((item, "a place visit without a location".to_string())),
            }
        } else if let Some(a) = o.get("activitySegment") {
            let (start, end) = duration(a.get("duration"));
            let from = a
                .get("startLocation")
                .and_then(|l| e7(l, "latitudeE7", "longitudeE7"));
            let to = a
                .get("endLocation")
                .and_then(|l| e7(l, "latitudeE7", "longitudeE7"));
            let path: Vec<(f64, f64)> = a
                .get("waypointPath")
                .and_then(|w| w.get("waypoints"))
                .and_then(Value::as_array)
                .map(|ws| ws.iter().filter_map(|w| e7(w, "latE7", "lngE7")).collect())
                .unwrap_or_default();
            let points: Vec<(f64, f64)> = from.into_iter().chain(path).chain(to).collect();
            if points.is_empty() {
                parsed
                    .skipped
                    .push((item, "an activity without locations".to_string()));
                continue;
            }
            // Times along the segment, evenly spaced between its start and end.
            let n = points.len();
            for (k, p) in points.into_iter().enumerate() {
                let t = match (start, end) {
                    (Some(s), Some(e)) if n > 1 => Some(s + (e - s) * k as f64 / (n - 1) as f64),
                    (s, _) => s,
                };
                push(p, t);
            }
        } else {
            parsed
                .skipped
                .push((item, "neither a place visit nor an activity".to_string()));
        }
    }
    Ok(parsed)
}

/// "33.6455°, -117.8425°" or "geo:33.6455,-117.8425".
fn lat_lng(s: &str) -> Option<(f64, f64)> {
    let s = s.trim().trim_start_matches("geo:");
    let (a, b) = s.split_once(',')?;
    let clean = |x: &str| x.trim().trim_end_matches('°').trim().parse::<f64>().ok();
    Some((clean(a)?, clean(b)?))
}

fn point_of(v: Option<&Value>) -> Option<(f64, f64)> {
    match v? {
        Value::String(s) => lat_lng(s),
        o @ Value::Object(_) => o
            .get("latLng")
            .or_else(|| o.get("LatLng"))
            .and_then(Value::as_str)
            .and_then(lat_lng),
        _ => None,
    }
}

fn segments(items: &[Value], parsed: &mut Parsed) -> Result<Parsed, Failure> {
    for (i, s) in items.iter().enumerate() {
        let item = i + 1;
        let start = time_of(s.get("startTime"));
        let end = time_of(s.get("endTime"));
        let mut push = |p: (f64, f64), t: Option<f64>| parsed.rows.push(located(item, p, t));
        let mut any = false;
        if let Some(path) = s.get("timelinePath").and_then(Value::as_array) {
            for p in path {
                let t = time_of(p.get("time")).or_else(|| {
                    let off = p
                        .get("durationMinutesOffsetFromStartTime")
                        .and_then(number)?;
                    Some(start? + off * 60.0)
                });
                if let Some(ll) = point_of(p.get("point")) {
                    push(ll, t);
                    any = true;
                }
            }
        }
        if let Some(ll) = s
            .get("visit")
            .and_then(|v| v.get("topCandidate"))
            .and_then(|c| point_of(c.get("placeLocation")))
        {
            push(ll, start);
            if end.is_some() && end != start {
                push(ll, end);
            }
            any = true;
        }
        if let Some(a) = s.get("activity") {
            if let Some(ll) = point_of(a.get("start")) {
                push(ll, start);
                any = true;
            }
            if let Some(ll) = point_of(a.get("end")) {
                push(ll, end);
                any = true;
            }
        }
        if !any {
            parsed
                .skipped
                .push((item, "a segment without locations".to_string()));
        }
    }
    Ok(std::mem::take(parsed))
}

fn timeline(value: &Value) -> Result<Parsed, Failure> {
    let mut parsed = Parsed::default();
    if let Some(items) = value.get("semanticSegments").and_then(Value::as_array) {
        parsed = segments(items, &mut parsed)?;
    }
    if let Some(raw) = value.get("rawSignals").and_then(Value::as_array) {
        for (i, r) in raw.iter().enumerate() {
            if let Some(p) = r.get("position")
                && let Some(ll) = point_of(p.get("LatLng").or_else(|| p.get("latLng")))
            {
                parsed
                    .rows
                    .push(located(i + 1, ll, time_of(p.get("timestamp"))));
            }
        }
    }
    if parsed.rows.is_empty() && parsed.skipped.is_empty() {
        return Err((
            None,
            "the Timeline export has no segments or signals with locations".into(),
        ));
    }
    Ok(parsed)
}
