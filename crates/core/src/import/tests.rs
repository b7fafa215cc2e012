use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn ok(name: &str, text: &str) -> Import {
    import(name, text.as_bytes(), &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn csv_with_a_header_and_a_signal_column() {
    let i = ok(
        "a.csv",
        "Timestamp;Latitude;Longitude;RSRP (dBm)\n2024-05-01 10:00:00;33.6455;-117.8425;-95\n2024-05-01 10:01:00;33.6460;-117.8430;-97\n",
    );
    assert_eq!(i.format, Format::Csv);
    let m = i.csv.as_ref().unwrap();
    assert_eq!(
        (m.delimiter, m.lat, m.lon, m.time, m.signal),
        (';', 1, 2, 0, Some(3))
    );
    assert_eq!(i.fixes.len(), 2);
    assert_eq!(i.fixes[0].rsrp_dbm, Some(-95.0));
    assert_eq!(i.fixes[1].line, 3);
    assert!(i.has_signal());
}

#[test]
fn csv_without_a_header_is_read_from_its_values() {
    let i = ok(
        "b.tsv",
        "1714557600\t33.6455\t-117.8425\n1714557660000\t33.6460\t-117.8430\n",
    );
    let m = i.csv.unwrap();
    assert_eq!(
        (m.header, m.time, m.lat, m.lon, m.signal),
        (false, 0, 1, 2, None)
    );
    assert_eq!(i.fixes[1].time - i.fixes[0].time, 60.0);
}

#[test]
fn a_mapping_chosen_by_the_user_is_used() {
    let text = "a,b,c\n33.6455,-117.8425,1714557600\n33.6460,-117.8430,1714557660\n";
    let e = import("c.csv", text.as_bytes(), &ImportOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains("no latitude/longitude columns"),
        "{e}"
    );
    let mapping = csv::Mapping {
        delimiter: ',',
        header: true,
        names: vec!["a".into(), "b".into(), "c".into()],
        lat: 0,
        lon: 1,
        time: 2,
        signal: None,
    };
    let opts = ImportOptions {
        csv: Some(mapping),
        ..ImportOptions::default()
    };
    assert_eq!(
        import("c.csv", text.as_bytes(), &opts).unwrap().fixes.len(),
        2
    );
}

#[test]
fn gpx_tracks_routes_and_waypoints() {
    let i = ok(
        "t.gpx",
        r#"<?xml version="1.0"?><gpx version="1.1"><wpt lat='33.6' lon='-117.8'><time>2024-05-01T09:59:00Z</time></wpt>
<trk><trkseg><trkpt lat="33.6455" lon="-117.8425"><ele>10</ele><time>2024-05-01T10:00:00Z</time></trkpt>
<trkpt lon="-117.8430" lat="33.6460"><time>2024-05-01T10:01:00Z</time></trkpt></trkseg></trk></gpx>"#,
    );
    assert_eq!(i.format, Format::Gpx);
    assert_eq!(i.fixes.len(), 3);
    assert_eq!(i.fixes[2].lon, -117.8430);
    assert_eq!(i.fixes[1].line, 2);
    assert!(i.warnings.is_empty());
}

#[test]
fn geojson_lines_with_coord_times_and_points() {
    let i = ok(
        "g.geojson",
        r#"{"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"coordTimes":["2024-05-01T10:00:00Z","2024-05-01T10:01:00Z"]},
         "geometry":{"type":"LineString","coordinates":[[-117.8425,33.6455],[-117.8430,33.6460]]}},
        {"type":"Feature","properties":{"time":1714557720,"rsrp":-101},"geometry":{"type":"Point","coordinates":[-117.844,33.647]}}]}"#,
    );
    assert_eq!(i.format, Format::GeoJson);
    assert_eq!(i.fixes.len(), 3);
    assert_eq!((i.fixes[0].lat, i.fixes[0].lon), (33.6455, -117.8425));
    assert_eq!(i.fixes[2].rsrp_dbm, Some(-101.0));
}

#[test]
fn google_location_histories_in_their_common_layouts() {
    let records = ok(
        "Records.json",
        r#"{"locations":[{"latitudeE7":336455000,"longitudeE7":-1178425000,"timestamp":"2024-05-01T10:00:00.000Z"},
        {"latitudeE7":336460000,"longitudeE7":-1178430000,"timestampMs":"1714557660000"}]}"#,
    );
    assert_eq!(records.format, Format::GoogleRecords);
    assert!((records.fixes[0].lat - 33.6455).abs() < 1e-9);

    let semantic = ok(
        "2024_MAY.json",
        r#"{"timelineObjects":[
        {"placeVisit":{"location":{"latitudeE7":336455000,"longitudeE7":-1178425000},
          "duration":{"startTimestamp":"2024-05-01T08:00:00Z","endTimestamp":"2024-05-01T09:00:00Z"}}},
        {"activitySegment":{"startLocation":{"latitudeE7":336455000,"longitudeE7":-1178425000},
          "endLocation":{"latitudeE7":336600000,"longitudeE7":-1178300000},
          "duration":{"startTimestamp":"2024-05-01T09:00:00Z","endTimestamp":"2024-05-01T09:30:00Z"},
          "waypointPath":{"waypoints":[{"latE7":336500000,"lngE7":-1178400000}]}}}]}"#,
    );
    assert_eq!(semantic.format, Format::GoogleSemantic);
    // Visit start and end, then the activity's start (same time as the visit's end: dropped as a
    // repeated timestamp), waypoint and end.
    assert_eq!(semantic.fixes.len(), 4);
    assert_eq!(semantic.fixes[2].time - semantic.fixes[1].time, 900.0);

    let timeline = ok(
        "Timeline.json",
        r#"{"semanticSegments":[{"startTime":"2024-05-01T10:00:00.000+02:00","endTime":"2024-05-01T11:00:00.000+02:00",
          "timelinePath":[{"point":"33.6455°, -117.8425°","time":"2024-05-01T10:05:00.000+02:00"},
                          {"point":"33.6460°, -117.8430°","time":"2024-05-01T10:10:00.000+02:00"}]}],
          "rawSignals":[{"position":{"LatLng":"33.6470°, -117.8440°","timestamp":"2024-05-01T10:20:00.000+02:00"}}]}"#,
    );
    assert_eq!(timeline.format, Format::GoogleTimeline);
    assert_eq!(timeline.fixes.len(), 3);

    let ios = ok(
        "location-history.json",
        r#"[{"startTime":"2024-05-01T10:00:00Z","endTime":"2024-05-01T11:00:00Z",
            "visit":{"topCandidate":{"placeLocation":"geo:33.6455,-117.8425"}}},
           {"startTime":"2024-05-01T11:00:00Z","endTime":"2024-05-01T11:20:00Z",
            "timelinePath":[{"point":"geo:33.6500,-117.8400","durationMinutesOffsetFromStartTime":"10"}]}]"#,
    );
    assert_eq!(ios.format, Format::GoogleTimeline);
    assert_eq!(ios.fixes.len(), 3);
    assert_eq!(ios.fixes[2].time - ios.fixes[0].time, 4200.0);
}

#[test]
fn a_file_too_large_is_refused_before_parsing() {
    let opts = ImportOptions {
        max_bytes: 10,
        csv: None,
    };
    let e = import("big.csv", b"time,lat,lon\n1,2,3\n", &opts).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("big.csv: the file is 0 MB; the limit is 0 MB"),
        "{e}"
    );
}

#[test]
fn bad_rows_are_skipped_and_counted() {
    let i = ok(
        "d.csv",
        "time,lat,lon\n2024-05-01T10:00:00Z,33.6455,-117.8425\n2024-05-01T10:01:00Z,99,-117\n2024-05-01T10:02:00Z,33.6470,-117.8440\nnope,1,2\n",
    );
    assert_eq!(i.fixes.len(), 2);
    assert_eq!(i.skipped, 2);
    assert_eq!(
        i.skipped_examples,
        vec![
            "line 3: latitude 99 is out of range (−90 to 90)".to_string(),
            "line 5: time “nope” is not ISO 8601 or Unix seconds/milliseconds".to_string()
        ]
    );
}

#[test]
fn geojson_multilines_take_per_line_times() {
    let i = ok(
        "m.geojson",
        r#"{"type":"Feature","properties":{"coordTimes":[["2024-05-01T10:00:00Z","2024-05-01T10:01:00Z"],["2024-05-01T11:00:00Z"]]},
        "geometry":{"type":"MultiLineString","coordinates":[[[-117.8425,33.6455],[-117.8430,33.6460]],[[-117.8440,33.6470]]]}}"#,
    );
    assert_eq!(i.fixes.len(), 3);
    assert_eq!(i.fixes[2].time - i.fixes[0].time, 3600.0);
}
