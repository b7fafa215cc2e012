//! The visitor's own file in the Density lab: their frequent places (where their fixes gather,
//! by the core's DBSCAN), placed in the synthetic city so that the distances between them stay
//! what they are. The city is synthetic, so only the places' shape is kept: they are moved as
//! one so that their middle is the city's centre, and a place that then falls outside is left
//! out (and said so).

use super::limits::MAX_VISITOR_PLACES;
use whereabouts_core::dbscan::{clusters, dbscan};
use whereabouts_core::geo::{LatLon, LocalProjection, Metres};
use whereabouts_core::import::Fix;

/// Fixes closer than this belong to the same place, metres.
pub const PLACE_EPS_M: f64 = 100.0;
/// A place needs at least this many fixes (DBSCAN's min_samples, the point itself included).
pub const PLACE_MIN_FIXES: usize = 5;
/// A longer file is thinned to this many fixes, evenly in file order, before DBSCAN: a place
/// where a regularly sampled file spends 1% of its time keeps 50 of them, and a dense cluster
/// cannot make the neighbour search quadratic in a million fixes.
pub const MAX_PLACE_FIXES: usize = 5000;

/// The visitor's places from a file, and what the page should say about them.
#[derive(Clone, Debug, PartialEq)]
pub struct FilePlaces {
    /// Largest first (most fixes: most time, for a regularly sampled file), in the city.
    pub places: Vec<Metres>,
    /// The number of fixes at each place (of the thinned file, see [`MAX_PLACE_FIXES`]).
    pub fixes: Vec<usize>,
    /// Places found but left out (outside the city after centring, or beyond the most the lab
    /// takes).
    pub left_out: usize,
}

/// Finds the visitor's frequent places in `fixes` and places them in a city of ±`half_m`.
pub fn places_from_fixes(fixes: &[Fix], half_m: f64) -> Result<FilePlaces, String> {
    let stride = fixes.len().div_ceil(MAX_PLACE_FIXES).max(1);
    let valid: Vec<LatLon> = fixes
        .iter()
        .step_by(stride)
        .map(|f| LatLon {
            lat: f.lat,
            lon: f.lon,
        })
        .filter(LatLon::is_valid)
        .collect();
    let Some(first) = valid.first() else {
        return Err("the file has no valid positions".into());
    };
    let projection = LocalProjection::new(*first);
    let points: Vec<Metres> = valid.iter().map(|p| projection.to_metres(*p)).collect();
    let mut found: Vec<(Metres, usize)> = clusters(&dbscan(&points, PLACE_EPS_M, PLACE_MIN_FIXES))
        .into_iter()
        .map(|members| {
            let n = members.len() as f64;
            let (e, no) = members.iter().fold((0.0, 0.0), |(e, no), &i| {
                (e + points[i].east, no + points[i].north)
            });
            (Metres::new(e / n, no / n), members.len())
        })
        .collect();
    if found.is_empty() {
        return Err(format!(
            "no place in the file has {PLACE_MIN_FIXES} fixes within {PLACE_EPS_M:.0} m of each \
             other: the lab needs where you stay, not only where you pass"
        ));
    }
    found.sort_by_key(|f| std::cmp::Reverse(f.1));
    let total = found.len();
    found.truncate(MAX_VISITOR_PLACES);
    // Centre the places' bounding box on the city's centre.
    let (lo_e, hi_e, lo_n, hi_n) = found.iter().fold(
        (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ),
        |(a, b, c, d), (m, _)| (a.min(m.east), b.max(m.east), c.min(m.north), d.max(m.north)),
    );
    let (ce, cn) = ((lo_e + hi_e) / 2.0, (lo_n + hi_n) / 2.0);
    let inside: Vec<(Metres, usize)> = found
        .into_iter()
        .map(|(m, n)| (Metres::new(m.east - ce, m.north - cn), n))
        .filter(|(m, _)| m.east.abs() <= half_m && m.north.abs() <= half_m)
        .collect();
    if inside.is_empty() {
        return Err("the file's places do not fit in the city".into());
    }
    Ok(FilePlaces {
        left_out: total - inside.len(),
        places: inside.iter().map(|(m, _)| *m).collect(),
        fixes: inside.iter().map(|(_, n)| *n).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn at(projection: &LocalProjection, m: Metres, line: usize) -> Fix {
        let p = projection.to_latlon(m);
        Fix {
            time: line as f64 * 60.0,
            lat: p.lat,
            lon: p.lon,
            rsrp_dbm: None,
            line,
        }
    }

    #[test]
    fn the_places_are_where_the_fixes_gather_largest_first_and_keep_their_distance() {
        let projection = LocalProjection::new(LatLon {
            lat: 47.37,
            lon: 8.54,
        });
        let home = Metres::new(0.0, 0.0);
        let work = Metres::new(3000.0, 1000.0);
        let mut fixes = Vec::new();
        for i in 0..40 {
            let jitter = Metres::new((i % 5) as f64 * 8.0, (i % 3) as f64 * 8.0);
            fixes.push(at(
                &projection,
                Metres::new(home.east + jitter.east, home.north + jitter.north),
                fixes.len(),
            ));
            if i < 25 {
                fixes.push(at(
                    &projection,
                    Metres::new(work.east + jitter.east, work.north + jitter.north),
                    fixes.len(),
                ));
            }
        }
        // A commute in between: passing, not staying.
        for k in 1..10 {
            let f = k as f64 / 10.0;
            fixes.push(at(
                &projection,
                Metres::new(3000.0 * f, 1000.0 * f),
                fixes.len(),
            ));
        }
        let found = places_from_fixes(&fixes, 4000.0).unwrap();
        assert_eq!(found.places.len(), 2, "{found:?}");
        assert_eq!(found.fixes, vec![40, 25]);
        let d = found.places[0].distance(&found.places[1]);
        assert!((d - 3162.0).abs() < 20.0, "{d}");
        // Centred: home in the south-west, work in the north-east.
        assert!(found.places[0].east < 0.0 && found.places[1].east > 0.0);
        // A city too small for the pair keeps the larger place.
        let small = places_from_fixes(&fixes, 1000.0);
        assert!(small.is_err() || small.unwrap().places.len() < 2);
    }

    #[test]
    fn a_long_file_is_thinned_before_the_search_and_keeps_its_places() {
        let projection = LocalProjection::new(LatLon { lat: 0.0, lon: 0.0 });
        // 200,000 fixes: 70% at home, 30% at work, 2 km apart.
        let fixes: Vec<Fix> = (0..200_000)
            .map(|i| {
                let at_work = (i / 1000) % 10 >= 7;
                let jitter = (i % 7) as f64 * 3.0;
                let m = if at_work {
                    Metres::new(2000.0 + jitter, 0.0)
                } else {
                    Metres::new(jitter, jitter)
                };
                at(&projection, m, i)
            })
            .collect();
        let found = places_from_fixes(&fixes, 4000.0).unwrap();
        assert_eq!(found.places.len(), 2);
        assert_eq!(found.fixes.iter().sum::<usize>(), MAX_PLACE_FIXES);
        assert!(found.fixes[0] > 2 * found.fixes[1], "{:?}", found.fixes);
    }

    #[test]
    fn a_file_with_no_stay_says_so() {
        let projection = LocalProjection::new(LatLon { lat: 0.0, lon: 0.0 });
        let fixes: Vec<Fix> = (0..30)
            .map(|i| at(&projection, Metres::new(i as f64 * 500.0, 0.0), i))
            .collect();
        let e = places_from_fixes(&fixes, 4000.0).unwrap_err();
        assert!(e.contains("where you stay"), "{e}");
        assert!(places_from_fixes(&[], 4000.0).is_err());
    }
}
