use super::*;
use crate::import::time::DateOrder;
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
        dates: DateOrder::Auto,
        zone: None,
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
            "line 5: time “nope” is not a date and time (such as 2024-03-04 07:30:00) nor Unix seconds, milliseconds, microseconds or nanoseconds".to_string()
        ]
    );
}

#[test]
fn epoch_counts_in_any_unit_read_as_the_same_moment_and_implausible_years_are_named() {
    // 2024-05-01T10:00:00Z as seconds, milliseconds, microseconds and nanoseconds.
    let i = ok(
        "e.csv",
        "time,lat,lon\n1714557600,33.6455,-117.8425\n1714557660000,33.6460,-117.8430\n1714557720000000,33.6465,-117.8435\n1714557780000000000,33.6470,-117.8440\n",
    );
    let times: Vec<f64> = i.fixes.iter().map(|f| f.time).collect();
    assert_eq!(
        times,
        vec![1714557600.0, 1714557660.0, 1714557720.0, 1714557780.0]
    );
    // A time in the year 56143 (microseconds read as milliseconds would give it) or 1970 is
    // no moment a phone logged: the row is left out and named.
    let e = crate::import::import(
        "far.csv",
        b"time,lat,lon\n1714557600000000000000,33.6455,-117.8425\n60,33.6460,-117.8430\n",
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
    assert!(e.problem.contains("outside 1990–2100"), "{e}");
    let i = ok(
        "mixed.csv",
        "time,lat,lon\n1714557600,33.6455,-117.8425\n60,33.6460,-117.8430\n1714557720,33.6465,-117.8435\n",
    );
    assert_eq!(i.fixes.len(), 2);
    assert_eq!(
        i.skipped_examples,
        vec!["line 3: its time is in the year 1970, outside 1990–2100 (a count in another unit, or a clock never set)".to_string()]
    );
}

#[test]
fn cr_line_ends_and_quoted_line_breaks_are_read_as_rfc_4180_has_them() {
    let rows: Vec<String> = (0..100)
        .map(|k| {
            format!(
                "2024-05-01T10:{:02}:{:02}Z,33.{:04},-117.8425",
                k / 60,
                k % 60,
                6455 + k
            )
        })
        .collect();
    // Old Mac and Excel: a lone CR ends each line.
    let cr = format!("time,lat,lon\r{}\r", rows.join("\r"));
    let i = ok("mac.csv", &cr);
    assert_eq!(i.fixes.len(), 100);
    // A quoted note with a line break (and a quote in it) stays in its row; the line numbers
    // are the editor's.
    let quoted: Vec<String> = rows
        .iter()
        .map(|r| format!("{r},\"first line\nsecond, with \"\"quotes\"\"\""))
        .collect();
    let text = format!("time,lat,lon,note\n{}\n", quoted.join("\n"));
    let i = ok("notes.csv", &text);
    assert_eq!(i.fixes.len(), 100);
    assert_eq!(i.fixes[1].line, 4, "row 2 starts on line 4");
    // A stray quote inside a value does not swallow the rows after it.
    let text = "time,lat,lon,who\n2024-05-01T10:00:00Z,33.6455,-117.8425,5'10\" tall\n2024-05-01T10:01:00Z,33.6460,-117.8430,x\n2024-05-01T10:02:00Z,33.6465,-117.8435,y\n";
    assert_eq!(ok("stray.csv", text).fixes.len(), 3);
}

#[test]
fn a_file_with_200000_columns_is_named_in_a_few_of_them() {
    let names: Vec<String> = (0..200_000).map(|i| format!("c{i}")).collect();
    let text = format!("{}\n{}\n", names.join(","), vec!["1"; 200_000].join(","));
    let e = import("wide.csv", text.as_bytes(), &ImportOptions::default()).unwrap_err();
    let said = e.to_string();
    assert!(said.len() < 400, "{said}");
    assert!(
        said.contains("c0, c1,") && said.contains("… (200000 in all)"),
        "{said}"
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

/// The forms files take when real apps write them (#14): each is read, with the right times.
#[test]
fn files_as_signal_logging_apps_write_them() {
    let t = 1_709_537_400.0; // 2024-03-04T07:30:00Z
    // A signal logger's own timestamps.
    let i = ok(
        "f.csv",
        "Timestamp,Latitude,Longitude,Level\n2024.03.04_07.30.00,47.37,8.54,-95\n2024.03.04_07.31.00,47.371,8.541,-96\n",
    );
    assert_eq!(i.fixes[0].time, t);
    // A European spreadsheet: semicolons, decimal commas, day-first local times with a zone.
    let i = ok(
        "f.csv",
        "Datum;Breite;Länge;Zone;RSRP\n04.03.2024 08:30:00;47,37;8,54;+01:00;-95,5\n04.03.2024 08:31:00;47,371;8,541;+01:00;-96\n",
    );
    assert_eq!(
        (i.fixes[0].time, i.fixes[0].lat, i.fixes[0].rsrp_dbm),
        (t, 47.37, Some(-95.5))
    );
    assert_eq!(i.csv.as_ref().unwrap().zone, Some(3));
    // Without a header: the columns are still found in a decimal-comma file.
    let i = ok(
        "f.csv",
        "04.03.2024 07:30:00;47,37;8,54\n04.03.2024 07:31:00;47,371;8,541\n",
    );
    assert_eq!(i.fixes.len(), 2);
    // Slashed dates: the column decides; if nothing does, day first, with a warning.
    let i = ok(
        "f.csv",
        "time,lat,lon\n03/04/2024 7:30 AM,47.37,8.54\n03/13/2024 7:30 AM,47.37,8.54\n",
    );
    assert_eq!(
        (i.csv.as_ref().unwrap().dates, i.fixes[0].time),
        (DateOrder::MonthFirst, t)
    );
    let i = ok(
        "f.csv",
        "time,lat,lon\n04/03/2024 07:30,47.37,8.54\n05/03/2024 07:30,47.37,8.54\n",
    );
    assert_eq!(i.fixes[0].time, t);
    assert!(
        i.warnings.iter().any(|w| w.contains("day first")),
        "{:?}",
        i.warnings
    );
    // The user's choice of order is used.
    let mut mapping = i.csv.clone().unwrap();
    mapping.dates = DateOrder::MonthFirst;
    let opts = ImportOptions {
        csv: Some(mapping),
        ..ImportOptions::default()
    };
    let again = import(
        "f.csv",
        b"time,lat,lon\n04/03/2024 07:30,47.37,8.54\n05/03/2024 07:30,47.37,8.54\n",
        &opts,
    )
    .unwrap();
    assert_eq!(again.fixes[0].time, 1_712_129_400.0); // 3 April
}

#[test]
fn utf16_with_a_byte_order_mark_is_text() {
    let text = "time,lat,lon\n2024-03-04T07:30:00Z,47.37,8.54\n2024-03-04T07:31:00Z,47.371,8.541\n";
    let mut le = vec![0xFF, 0xFE];
    le.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    let mut be = vec![0xFE, 0xFF];
    be.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
    for bytes in [le, be] {
        let i = import("u.csv", &bytes, &ImportOptions::default()).unwrap();
        assert_eq!(i.fixes.len(), 2);
    }
    // Without the mark, zero bytes still mean "binary", and say how to fix it.
    let bare: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let e = import("u.csv", &bare, &ImportOptions::default()).unwrap_err();
    assert!(e.problem.contains("byte-order mark"), "{e}");
}

#[test]
fn fixes_at_zero_zero_are_left_out_and_a_file_of_nothing_else_is_refused() {
    let i = ok(
        "f.csv",
        "time,lat,lon\n2024-03-04T07:30:00Z,0,0\n2024-03-04T07:31:00Z,47.37,8.54\n2024-03-04T07:32:00Z,0.0,0.0\n2024-03-04T07:33:00Z,47.371,8.541\n",
    );
    assert_eq!(i.fixes.len(), 2);
    assert!(
        i.warnings
            .iter()
            .any(|w| w.starts_with("2 points at 0°, 0°")),
        "{:?}",
        i.warnings
    );
    assert_eq!(i.skipped, 2);
    let e = import(
        "gps.csv",
        b"time,lat,lon\n2024-03-04T07:30:00Z,0,0\n2024-03-04T07:31:00Z,0,0\n",
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert!(e.problem.contains("no GPS fix"), "{e}");
}

#[test]
fn one_bad_time_is_named_as_the_cause() {
    let e = import(
        "two.csv",
        b"time,lat,lon\n2024-03-04T07:30:00Z,47.37,8.54\nyesterday,47.371,8.541\n",
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.line, Some(3));
    assert!(e.problem.starts_with("time “yesterday” is not"), "{e}");
    assert!(e.problem.contains("only one point is left"), "{e}");
}

#[test]
fn a_huge_field_is_cut_with_its_length() {
    let huge = "9".repeat(5_000_000) + "x";
    let text = format!(
        "time,lat,lon\n2024-03-04T07:30:00Z,{huge},8.54\n2024-03-04T07:31:00Z,47.37,8.54\n2024-03-04T07:32:00Z,47.38,8.54\n"
    );
    let i = import("big.csv", text.as_bytes(), &ImportOptions::default()).unwrap();
    let example = &i.skipped_examples[0];
    assert!(
        example.len() < 200 && example.contains("(5000001 characters)"),
        "{example}"
    );
    // A huge header name too.
    let text = format!("{huge},b\n1,2\n");
    let e = import("big.csv", text.as_bytes(), &ImportOptions::default()).unwrap_err();
    assert!(e.problem.len() < 300, "{} characters", e.problem.len());
    // And the preview.
    let mapping = i.csv.unwrap();
    let text = format!("time,lat,lon\n2024-03-04T07:30:00Z,{huge},8.54\n");
    let rows = csv::preview(&text, &mapping, 5);
    assert!(rows[0][1].len() < 100);
    // A GPX file's first tag and a JSON file's top-level names (issue 41 §5.7: 2 MB each).
    let big = "x".repeat(2_000_000);
    for (name, text) in [
        ("big.gpx", format!("<{big}>")),
        ("big.json", format!("{{\"{big}\": 1}}")),
    ] {
        let e = import(name, text.as_bytes(), &ImportOptions::default()).unwrap_err();
        assert!(
            e.problem.len() < 200 && e.problem.contains(" characters)"),
            "{name}: {}",
            e.problem.len()
        );
    }
}

#[test]
fn a_message_keeps_its_prose_and_cuts_what_it_echoes() {
    // A short message, a path of 100 characters: unchanged.
    let path = format!("/data/{}.csv", "p".repeat(90));
    let said = format!("{path}, line 2: latitude 123 is out of range (−90 to 90)");
    assert_eq!(cut_words(&said), said);
    // An echoed argument of 100,000 characters: its start and length, the prose after it kept.
    let e = cut_words(&format!(
        "--lab {}: no lab is called so\nnext line",
        "x".repeat(100_000)
    ));
    assert!(
        e.starts_with(&format!(
            "--lab {}… (100001 characters) no lab",
            "x".repeat(40)
        )),
        "{e}"
    );
    assert!(e.ends_with("called so\nnext line"), "{e}");
    // A line of a million short words: its start and its length.
    let e = cut_words(&"1, ".repeat(1_000_000));
    assert!(
        e.len() < 1_100 && e.ends_with("(3000000 characters)"),
        "{}",
        e.len()
    );
}

#[test]
fn latitude_and_longitude_in_one_column_as_foursquare_writes_them() {
    // Foursquare's check-ins: `lat_lon` holds both, `time` is the minute of the day and
    // `date_time` the moment.
    let i = ok(
        "checkins.csv",
        "tid,lat_lon,date_time,time,rating\n126,40.8331652006224 -73.9418603427692,2012-11-12 05:17:18,317,-1\n126,40.8340978041072 -73.9452672225881,2012-11-12 23:24:55,1404,8.2\n",
    );
    let m = i.csv.as_ref().unwrap();
    assert!(m.paired());
    assert!(
        !i.warnings.iter().any(|w| w.contains("different traces")),
        "one trajectory: {:?}",
        i.warnings
    );
    assert_eq!((m.lat, m.time), (1, 2));
    assert_eq!(i.fixes.len(), 2);
    assert_eq!(
        (i.fixes[0].lat, i.fixes[0].lon, i.fixes[0].time),
        (40.8331652006224, -73.9418603427692, 1_352_697_438.0)
    );
    // Two trajectories in one file are read as one, and the page says so.
    let i = ok(
        "checkins.csv",
        "tid,lat_lon,date_time\n126,40.83 -73.94,2012-11-12 05:17:18\n127,40.76 -73.88,2012-11-15 17:49:01\n",
    );
    assert!(
        i.warnings
            .iter()
            .any(|w| w == "the column “tid” names 2 different traces (people or trips): they are read here as one person's"),
        "{:?}",
        i.warnings
    );
    // A name that puts the longitude first is read that way; a semicolon file may use a comma.
    let i = ok(
        "f.csv",
        "time;lon_lat\n2024-03-04T07:30:00Z;8.54, 47.37\n2024-03-04T07:31:00Z;8.541, 47.371\n",
    );
    assert_eq!((i.fixes[0].lat, i.fixes[0].lon), (47.37, 8.54));
    // One number where two belong is named.
    let e = import(
        "f.csv",
        b"time,lat_lon\n2024-03-04T07:30:00Z,47.37\n",
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert!(
        e.problem
            .contains("“47.37” is not a latitude and a longitude"),
        "{e}"
    );
}

#[test]
fn a_signal_outside_a_phones_range_is_no_reading_and_the_position_stays() {
    // The Cork 5G traces write −200 dBm when there is no reading; Android's "unavailable" is
    // 2³¹ − 1.
    let i = ok(
        "cork.csv",
        "Timestamp,Longitude,Latitude,RSRP\n2019.11.25_15.34.34,-8.4993,51.8937,-79\n2019.11.25_15.34.35,-8.4996,51.8934,-200\n2019.11.25_15.34.36,-8.4999,51.8931,2147483647\n2019.11.25_15.34.37,-8.5002,51.8928,-140\n",
    );
    let signal: Vec<Option<f64>> = i.fixes.iter().map(|f| f.rsrp_dbm).collect();
    assert_eq!(signal, [Some(-79.0), None, None, Some(-140.0)]);
    assert!(
        i.warnings
            .iter()
            .any(|w| w.starts_with("2 signal values outside a phone's range")
                && w.contains("-200 at line 3")),
        "{:?}",
        i.warnings
    );
}
