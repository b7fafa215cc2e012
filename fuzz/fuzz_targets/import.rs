//! Any bytes through the file importer: it must answer Ok or a message, never panic, hang or
//! run out of memory. The first byte picks a prefix that steers the input into one of the
//! parsers (CSV with a header, GPX, GeoJSON, Google Records), so each gets deep coverage.
#![no_main]

use libfuzzer_sys::fuzz_target;
use whereabouts_core::import::{ImportOptions, import};

const PREFIXES: [&[u8]; 5] = [
    b"",
    b"time,lat,lon,rsrp\n",
    b"<?xml version=\"1.0\"?><gpx version=\"1.1\"><trk><trkseg>",
    b"{\"type\":\"FeatureCollection\",\"features\":[",
    b"{\"locations\":[",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let mut input = PREFIXES[pick as usize % PREFIXES.len()].to_vec();
    input.extend_from_slice(rest);
    let options = ImportOptions {
        max_bytes: 1 << 20,
        csv: None,
    };
    if let Ok(i) = import("fuzz", &input, &options) {
        assert!(i.fixes.len() >= 2);
        assert!(i.fixes.windows(2).all(|w| w[0].time < w[1].time));
        assert!(i.fixes.iter().all(|f| f.lat.abs() <= 90.0 && f.lon.abs() <= 180.0));
    }
});
