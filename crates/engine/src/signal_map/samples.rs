//! The sample files the page offers ("try with a sample"), generated from the synthetic campus
//! world so they are nobody's real whereabouts. `whereabouts samples --out www/samples` writes
//! them; a test keeps the committed copies equal to this generator's output.

use crate::signal_map::world::{Measurement, Preset, World};
use whereabouts_core::import::time::format_iso;

/// One sample: file name, what it shows, contents.
pub struct Sample {
    pub name: &'static str,
    pub label: &'static str,
    pub contents: String,
}

/// A week of a campus user's phone log, one fix per five minutes at most.
fn week(world: &World, user: u32, days: u32) -> Vec<Measurement> {
    let start = world.config.mobility.start_unix as f64;
    let mut out: Vec<Measurement> = Vec::new();
    for m in world.measurements_of(user) {
        if m.time >= start + days as f64 * 86_400.0 {
            break;
        }
        if out.last().is_none_or(|l| m.time - l.time >= 300.0) {
            out.push(*m);
        }
    }
    out
}

/// The samples: a GPX track without signal, a signal-app CSV (semicolon-separated, with RSRP)
/// and a Google Takeout `Records.json`, each a different synthetic person.
pub fn samples() -> Vec<Sample> {
    let mut config = Preset::Campus.config(2026);
    config.mobility.users = 3;
    config.mobility.weeks = 1;
    let world = World::generate(&config).expect("the campus preset is valid");
    let mut gpx = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"whereabouts samples (synthetic)\">\n<trk><name>A synthetic week on campus</name><trkseg>\n",
    );
    for m in week(&world, 0, 7) {
        gpx += &format!(
            "<trkpt lat=\"{:.6}\" lon=\"{:.6}\"><time>{}</time></trkpt>\n",
            m.lat,
            m.lon,
            format_iso(m.time)
        );
    }
    gpx += "</trkseg></trk>\n</gpx>\n";
    let mut csv = String::from("timestamp;latitude;longitude;rsrp\n");
    for m in week(&world, 1, 4) {
        csv += &format!(
            "{};{:.6};{:.6};{:.0}\n",
            format_iso(m.time),
            m.lat,
            m.lon,
            m.rsrp_dbm
        );
    }
    let records: Vec<String> = week(&world, 2, 7)
        .iter()
        .map(|m| {
            format!(
                "    {{\"latitudeE7\": {}, \"longitudeE7\": {}, \"accuracy\": 12, \"timestamp\": \"{}\"}}",
                libm::round(m.lat * 1e7) as i64,
                libm::round(m.lon * 1e7) as i64,
                format_iso(m.time)
            )
        })
        .collect();
    let json = format!("{{\n  \"locations\": [\n{}\n  ]\n}}\n", records.join(",\n"));
    vec![
        Sample {
            name: "campus-week.gpx",
            label: "a week on campus (GPX track, no signal)",
            contents: gpx,
        },
        Sample {
            name: "signal-log.csv",
            label: "four days of a signal app (CSV with RSRP)",
            contents: csv,
        },
        Sample {
            name: "Records.json",
            label: "a week of Google location history (Takeout)",
            contents: json,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;
    use whereabouts_core::import::{Format, import};

    #[test]
    fn every_sample_imports_in_its_format() {
        let formats = [Format::Gpx, Format::Csv, Format::GoogleRecords];
        for (s, format) in samples().iter().zip(formats) {
            let i = import(s.name, s.contents.as_bytes(), &Default::default()).unwrap();
            assert_eq!(i.format, format, "{}", s.name);
            assert_eq!(i.skipped, 0, "{}", s.name);
            assert!(i.fixes.len() > 200, "{}: {}", s.name, i.fixes.len());
            assert_eq!(i.has_signal(), s.name.ends_with(".csv"));
            assert!(s.contents.len() < 200_000, "{} is small", s.name);
        }
    }

    /// The committed copies in `www/samples/` are this generator's output.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_committed_samples_are_up_to_date() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/samples");
        for s in samples() {
            let committed = std::fs::read_to_string(dir.join(s.name)).unwrap_or_default();
            assert!(
                committed == s.contents,
                "www/samples/{} is stale: run `whereabouts samples --out www/samples`",
                s.name
            );
        }
    }
}
