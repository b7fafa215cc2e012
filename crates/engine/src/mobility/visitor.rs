//! The visitor's own file as the Mobility lab's target: their recorded positions in time order,
//! thinned to one about every 10 minutes (the paper's sampling of the bus data, §5.1: a model
//! over the last 8 positions of a 1-second log would see 8 seconds), projected onto a plane and
//! centred on the synthetic city. Only the trajectory's shape is kept: the city's streets are
//! synthetic, so a point the file puts beyond them stays where it is, and the page says how
//! many there are (the road mapping can only move them to the nearest street).

use super::traces::{CITY_HALF_H_M, CITY_HALF_W_M, Fix};
use whereabouts_core::geo::{LatLon, LocalProjection, Metres};
use whereabouts_core::import::Fix as FileFix;

/// The least time between two kept positions, seconds.
pub const INTERVAL_S: f64 = 600.0;

/// The file as the lab's target, and what the page should say about it.
#[derive(Clone, Debug, PartialEq)]
pub struct FileTarget {
    /// In time order, at least [`INTERVAL_S`] apart, on the city's plane.
    pub fixes: Vec<Fix>,
    /// Positions of the file that had a time and a valid position.
    pub usable: usize,
    /// Kept positions beyond the city's streets.
    pub outside: usize,
}

impl FileTarget {
    /// A sentence for the page, if anything is worth saying.
    pub fn note(&self) -> Option<String> {
        (self.outside > 0).then(|| {
            format!(
                "{} of your {} points lie beyond the synthetic city's streets (it is {:.0} × {:.0} km): the road mapping can only move a guess to the nearest street.",
                self.outside,
                self.fixes.len(),
                2.0 * CITY_HALF_W_M / 1000.0,
                2.0 * CITY_HALF_H_M / 1000.0
            )
        })
    }
}

/// The target from an imported file (see the module's doc); why not, if it has no usable
/// positions.
pub fn target_from_file(fixes: &[FileFix]) -> Result<FileTarget, String> {
    let mut usable: Vec<&FileFix> = fixes
        .iter()
        .filter(|f| {
            f.time.is_finite()
                && LatLon {
                    lat: f.lat,
                    lon: f.lon,
                }
                .is_valid()
        })
        .collect();
    if usable.is_empty() {
        return Err(
            "the file has no positions with a time: the lab needs the order and the pace of your moves".into(),
        );
    }
    usable.sort_by(|a, b| a.time.total_cmp(&b.time));
    let mut kept: Vec<&FileFix> = Vec::new();
    for f in &usable {
        if kept.last().is_none_or(|k| f.time - k.time >= INTERVAL_S) {
            kept.push(f);
        }
    }
    let projection = LocalProjection::new(LatLon {
        lat: kept[0].lat,
        lon: kept[0].lon,
    });
    let plane: Vec<Metres> = kept
        .iter()
        .map(|f| {
            projection.to_metres(LatLon {
                lat: f.lat,
                lon: f.lon,
            })
        })
        .collect();
    // Centre the bounding box on the city's centre.
    let (lo_e, hi_e, lo_n, hi_n) = plane.iter().fold(
        (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ),
        |(a, b, c, d), m| (a.min(m.east), b.max(m.east), c.min(m.north), d.max(m.north)),
    );
    let (ce, cn) = ((lo_e + hi_e) / 2.0, (lo_n + hi_n) / 2.0);
    let fixes: Vec<Fix> = kept
        .iter()
        .zip(&plane)
        .map(|(f, m)| Fix {
            time: f.time,
            at: Metres::new(m.east - ce, m.north - cn),
        })
        .collect();
    let outside = fixes
        .iter()
        .filter(|f| f.at.east.abs() > CITY_HALF_W_M || f.at.north.abs() > CITY_HALF_H_M)
        .count();
    Ok(FileTarget {
        fixes,
        usable: usable.len(),
        outside,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn fix(time: f64, lat: f64, lon: f64) -> FileFix {
        FileFix {
            time,
            lat,
            lon,
            rsrp_dbm: None,
            line: 0,
        }
    }

    #[test]
    fn a_log_is_put_in_time_order_thinned_to_ten_minutes_and_centred() {
        // A minute-by-minute walk north for two hours, given out of order, with a bad row.
        let mut fixes: Vec<FileFix> = (0..120)
            .rev()
            .map(|i| fix(1e9 + 60.0 * i as f64, 47.0 + 1e-4 * i as f64, 8.0))
            .collect();
        fixes.push(fix(f64::NAN, 47.0, 8.0));
        fixes.push(fix(1e9 + 30.0, 95.0, 8.0));
        let target = target_from_file(&fixes).unwrap();
        assert_eq!(target.usable, 120);
        assert_eq!(target.fixes.len(), 12, "one every 10 minutes");
        assert!(
            target
                .fixes
                .windows(2)
                .all(|w| w[1].time - w[0].time >= INTERVAL_S)
        );
        // 0.001° of latitude every 10 minutes is about 111 m, and the middle is the centre.
        let step = target.fixes[1].at.north - target.fixes[0].at.north;
        assert!((step - 111.2).abs() < 1.0, "{step}");
        let first = target.fixes[0].at.north;
        let last = target.fixes[11].at.north;
        assert!((first + last).abs() < 1e-6, "{first} {last}");
        assert_eq!(target.outside, 0);
        assert!(target.note().is_none());
    }

    #[test]
    fn a_file_without_times_or_wider_than_the_city_is_said_so() {
        let e = target_from_file(&[fix(f64::NAN, 47.0, 8.0)]).unwrap_err();
        assert!(e.contains("no positions with a time"), "{e}");
        // 15 km east and back: both ends are beyond the 12 km city.
        let fixes: Vec<FileFix> = (0..3)
            .map(|i| fix(600.0 * i as f64, 47.0, 8.0 + 0.2 * (i % 2) as f64))
            .collect();
        let target = target_from_file(&fixes).unwrap();
        assert_eq!(target.outside, 3);
        assert!(target.note().unwrap().contains("3 of your 3 points"));
    }
}
