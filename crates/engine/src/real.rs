//! Real check-ins for `whereabouts reproduce --real DIR` (docs/papers.md, "Real data:
//! foursquare-nyc"): the Foursquare New York sample a user downloaded (`DIR/foursquare-nyc/
//! Foursquare_Sample.csv`, the layout of the project's shared data folder), read as the labs
//! need it. The data are never part of this repository or the site; only their path is given.
//!
//! The file has no user id: each weekly trajectory (`tid`) is read as one person's file through
//! the core importer ([`whereabouts_core::import`], which reads the `lat_lon` column's
//! "lat lon" form and the `date_time` column), so a trajectory's check-ins are in time order and
//! a repeated timestamp keeps its first row — the authors' code for [002] drops duplicates and
//! does not resample check-ins (the 10-minute increments of [002] §5.1 are the bus data's). All
//! trajectories share one plane: a local projection centred on the middle of the check-ins'
//! extent, so distances are metres as the labs score them.

use whereabouts_core::geo::{LatLon, LocalProjection, Metres};
use whereabouts_core::import::{ImportOptions, import};
use whereabouts_core::rng::Stream;

/// The data set's folder inside `DIR`, as its README names it (the table headings' name).
pub const FOURSQUARE_NYC: &str = "foursquare-nyc";
/// The check-ins' file inside `DIR`.
pub const FOURSQUARE_FILE: &str = "foursquare-nyc/Foursquare_Sample.csv";

/// One check-in on the data's plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckIn {
    /// Unix seconds (the file's local time read as UTC: only the order is used).
    pub time: f64,
    pub at: Metres,
}

/// One weekly trajectory (`tid`): a person in the labs.
#[derive(Clone, Debug, PartialEq)]
pub struct Trajectory {
    pub tid: String,
    /// In time order, no repeated timestamp.
    pub check_ins: Vec<CheckIn>,
}

/// The file read: every usable trajectory on one plane.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckIns {
    /// By `tid` (numerically where the ids are numbers).
    pub trajectories: Vec<Trajectory>,
    /// The plane's origin: the middle of the check-ins' latitude and longitude extent.
    pub projection: LocalProjection,
    /// The half-width and half-height of the check-ins' extent around the origin, metres.
    pub half_w_m: f64,
    pub half_h_m: f64,
    /// Data rows in the file, and rows the importer left out (repeated timestamps, bad rows).
    pub rows: usize,
    pub skipped: usize,
    /// Trajectories left out whole (fewer than two usable check-ins).
    pub dropped_trajectories: usize,
}

impl CheckIns {
    /// Reads the Foursquare sample's bytes (`name` for messages); why not, naming the file and
    /// what is wrong.
    pub fn parse(name: &str, bytes: &[u8]) -> Result<CheckIns, String> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| format!("{name}: not UTF-8 text ({e}): not the Foursquare sample"))?;
        let mut lines = text.lines();
        let header = lines
            .next()
            .ok_or_else(|| format!("{name}: the file is empty"))?;
        let names: Vec<&str> = header.split(',').map(str::trim).collect();
        let tid = names.iter().position(|n| *n == "tid").ok_or_else(|| {
            format!(
                "{name}: no “tid” column (the header is “{header}”): not the Foursquare sample's layout"
            )
        })?;
        // The columns once, from the whole file, so every trajectory is read alike.
        let whole = import(name, bytes, &ImportOptions::default()).map_err(|e| e.to_string())?;
        let options = ImportOptions {
            csv: whole.csv.clone(),
            ..ImportOptions::default()
        };
        let mut by_tid: std::collections::BTreeMap<(u64, String), String> = Default::default();
        let mut rows = 0;
        for line in lines.filter(|l| !l.trim().is_empty()) {
            rows += 1;
            let id = line.split(',').nth(tid).unwrap_or("").trim().to_string();
            let key = (id.parse::<u64>().unwrap_or(u64::MAX), id);
            let chunk = by_tid.entry(key).or_insert_with(|| format!("{header}\n"));
            chunk.push_str(line);
            chunk.push('\n');
        }
        if rows == 0 {
            return Err(format!("{name}: a header but no check-ins"));
        }
        let mut read = Vec::new();
        let (mut skipped, mut dropped) = (0, 0);
        for ((_, id), chunk) in by_tid {
            match import(&format!("{name} (tid {id})"), chunk.as_bytes(), &options) {
                Ok(i) => {
                    skipped += i.skipped;
                    read.push((id, i.fixes));
                }
                Err(_) => {
                    dropped += 1;
                    skipped += chunk.lines().count() - 1;
                }
            }
        }
        let all = read.iter().flat_map(|(_, f)| f);
        let (mut s, mut n, mut w, mut e) = (90.0f64, -90.0f64, 180.0f64, -180.0f64);
        for f in all {
            s = s.min(f.lat);
            n = n.max(f.lat);
            w = w.min(f.lon);
            e = e.max(f.lon);
        }
        if read.is_empty() {
            return Err(format!("{name}: no trajectory has two usable check-ins"));
        }
        let projection = LocalProjection::new(LatLon {
            lat: (s + n) / 2.0,
            lon: (w + e) / 2.0,
        });
        let corner = projection.to_metres(LatLon { lat: n, lon: e });
        let trajectories = read
            .into_iter()
            .map(|(tid, fixes)| Trajectory {
                tid,
                check_ins: fixes
                    .iter()
                    .map(|f| CheckIn {
                        time: f.time,
                        at: projection.to_metres(LatLon {
                            lat: f.lat,
                            lon: f.lon,
                        }),
                    })
                    .collect(),
            })
            .collect();
        Ok(CheckIns {
            trajectories,
            projection,
            half_w_m: corner.east.abs(),
            half_h_m: corner.north.abs(),
            rows,
            skipped,
            dropped_trajectories: dropped,
        })
    }

    /// Every check-in of every trajectory.
    pub fn check_ins(&self) -> impl Iterator<Item = &CheckIn> {
        self.trajectories.iter().flat_map(|t| &t.check_ins)
    }

    /// The check-ins' median latitude and median longitude, on the plane.
    pub fn median(&self) -> Metres {
        let mut east: Vec<f64> = self.check_ins().map(|c| c.at.east).collect();
        let mut north: Vec<f64> = self.check_ins().map(|c| c.at.north).collect();
        east.sort_by(f64::total_cmp);
        north.sort_by(f64::total_cmp);
        Metres::new(east[east.len() / 2], north[north.len() / 2])
    }

    /// The trajectories with at least `points` check-ins, in a fixed shuffled order (the same
    /// for every run): seed s takes the ((s − 1) mod count)-th, so consecutive seeds are
    /// different people.
    pub fn long_enough(&self, points: usize) -> Vec<&Trajectory> {
        let mut long: Vec<&Trajectory> = self
            .trajectories
            .iter()
            .filter(|t| t.check_ins.len() >= points)
            .collect();
        Stream::new(0, "real-trajectories").shuffle(&mut long);
        long
    }
}

/// The trajectory of seed `seed` among `long` ([`CheckIns::long_enough`], or anything kept in
/// its order).
pub fn of_seed<T: Copy>(long: &[T], seed: u64) -> Option<T> {
    (!long.is_empty()).then(|| long[(seed.wrapping_sub(1) % long.len() as u64) as usize])
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const SAMPLE: &str = "tid,lat_lon,date_time,time,rating\n\
        126,40.8331652006224 -73.9418603427692,2012-11-12 05:17:18,317,-1\n\
        126,40.8340978041072 -73.9452672225881,2012-11-12 23:24:55,1404,8.2\n\
        7,40.70 -74.00,2012-11-13 10:00:00,600,-1\n\
        126,40.8340978041072 -73.9452672225881,2012-11-12 23:24:55,1404,8.2\n\
        7,40.71 -74.01,2012-11-13 09:00:00,540,-1\n\
        7,40.72 -74.02,2012-11-13 11:00:00,660,-1\n\
        9,40.72 -74.02,2012-11-13 11:00:00,660,-1\n";

    #[test]
    fn each_tid_is_one_persons_check_ins_in_time_order_on_one_plane() {
        let c = CheckIns::parse("sample.csv", SAMPLE.as_bytes()).unwrap();
        assert_eq!(c.rows, 7);
        let tids: Vec<&str> = c.trajectories.iter().map(|t| t.tid.as_str()).collect();
        assert_eq!(tids, ["7", "126"], "numerically; tid 9 has one check-in");
        assert_eq!(c.dropped_trajectories, 1);
        // The repeated timestamp of tid 126 keeps its first row.
        assert_eq!(c.trajectories[1].check_ins.len(), 2);
        assert_eq!(c.skipped, 2);
        let seven = &c.trajectories[0].check_ins;
        assert!(seven.windows(2).all(|w| w[0].time < w[1].time));
        // 0.01° of latitude is about 1112 m; the extent's middle is the origin.
        let step = seven[1].at.north - seven[0].at.north;
        assert!((step + 1112.0).abs() < 5.0, "{step}");
        let (s, n) = (40.70, 40.8340978041072);
        assert!(
            (c.half_h_m - (n - s) / 2.0 * 111_195.0).abs() < 50.0,
            "{}",
            c.half_h_m
        );
        assert_eq!(c.long_enough(3).len(), 1);
        assert_eq!(of_seed(&c.long_enough(3), 4).unwrap().tid, "7");
        assert!(of_seed(&c.long_enough(4), 1).is_none());
    }

    #[test]
    fn a_file_without_tid_or_check_ins_is_refused_by_name() {
        let e = CheckIns::parse("x.csv", b"lat,lon,time\n1,2,3\n").unwrap_err();
        assert!(e.starts_with("x.csv: no “tid” column"), "{e}");
        let e = CheckIns::parse("y.csv", b"").unwrap_err();
        assert!(e.contains("y.csv: the file is empty"), "{e}");
        let e = CheckIns::parse("z.csv", &[0xff, 0xfe]).unwrap_err();
        assert!(e.contains("z.csv: not UTF-8"), "{e}");
    }
}
