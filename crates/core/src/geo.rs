//! Geographic coordinates and the local metric plane.
//!
//! The paper measures every distance in metres on UTM coordinates ([000] §3.2). The engine
//! works in east/north metres on a local plane around the area's centre instead: it is defined
//! for any place on Earth without UTM's zones, and the synthetic worlds are generated on it, so
//! their distances are exact. For real coordinates it agrees with the great-circle distance to
//! 0.1% over tens of kilometres at mid latitudes (under a metre across a campus); at London's
//! latitude an east–west span of 72 km, 35 km north of the centre, is 0.7% long (docs/papers.md
//! §3a, "Local plane instead of UTM").

use serde::{Deserialize, Serialize};

/// Mean Earth radius in metres (IUGG), used for great-circle distances.
pub const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// A WGS84 position in decimal degrees.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatLon {
    pub lat: f64,
    pub lon: f64,
}

impl LatLon {
    pub const fn new(lat: f64, lon: f64) -> Self {
        Self { lat, lon }
    }

    /// Whether this is a position on Earth: finite, |lat| ≤ 90, |lon| ≤ 180.
    pub fn is_valid(&self) -> bool {
        self.lat.is_finite()
            && self.lon.is_finite()
            && (-90.0..=90.0).contains(&self.lat)
            && (-180.0..=180.0).contains(&self.lon)
    }
}

/// A point on the local plane, in metres east and north of the projection's origin.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metres {
    pub east: f64,
    pub north: f64,
}

impl Metres {
    pub const fn new(east: f64, north: f64) -> Self {
        Self { east, north }
    }

    /// Euclidean distance in metres.
    pub fn distance(&self, other: &Metres) -> f64 {
        libm::hypot(self.east - other.east, self.north - other.north)
    }
}

/// Great-circle distance in metres (haversine formula).
pub fn haversine_m(a: LatLon, b: LatLon) -> f64 {
    let (p1, p2) = (a.lat.to_radians(), b.lat.to_radians());
    let dp = p2 - p1;
    let dl = (b.lon - a.lon).to_radians();
    let s = libm::sin(dp / 2.0);
    let t = libm::sin(dl / 2.0);
    let h = s * s + libm::cos(p1) * libm::cos(p2) * t * t;
    2.0 * EARTH_RADIUS_M * libm::asin(libm::sqrt(h.min(1.0)))
}

/// Local equirectangular projection around an origin: exact at the origin, and within 0.1% of
/// the great-circle distance over tens of kilometres at mid latitudes (tested below).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocalProjection {
    pub origin: LatLon,
    m_per_deg_lat: f64,
    m_per_deg_lon: f64,
}

impl LocalProjection {
    pub fn new(origin: LatLon) -> Self {
        let m_per_deg = EARTH_RADIUS_M * core::f64::consts::PI / 180.0;
        Self {
            origin,
            m_per_deg_lat: m_per_deg,
            m_per_deg_lon: m_per_deg * libm::cos(origin.lat.to_radians()),
        }
    }

    /// The point's metres east and north of the origin; east is measured the short way round,
    /// so a walk across the antimeridian (179.9° E to 179.9° W) stays a walk of metres.
    pub fn to_metres(&self, p: LatLon) -> Metres {
        Metres {
            east: wrap_degrees(p.lon - self.origin.lon) * self.m_per_deg_lon,
            north: (p.lat - self.origin.lat) * self.m_per_deg_lat,
        }
    }

    /// The position `m` metres from the origin, its longitude in [−180°, 180°).
    pub fn to_latlon(&self, m: Metres) -> LatLon {
        LatLon {
            lat: self.origin.lat + m.north / self.m_per_deg_lat,
            lon: wrap_degrees(self.origin.lon + m.east / self.m_per_deg_lon),
        }
    }
}

/// An angle in degrees brought into [−180, 180); one already there is returned untouched (adding
/// and taking 180 again would round away its last digits).
pub fn wrap_degrees(d: f64) -> f64 {
    if (-180.0..180.0).contains(&d) {
        d
    } else {
        (d + 180.0).rem_euclid(360.0) - 180.0
    }
}

/// The median of longitudes, taken the short way round: each is first brought within 180° of
/// the first (so 179.9° E and 179.9° W are 0.2° apart, not 359.8°), the result wrapped back.
pub fn median_longitude(lons: impl Iterator<Item = f64>) -> f64 {
    let mut lons = lons.peekable();
    let Some(&first) = lons.peek() else {
        return 0.0;
    };
    let mut near: Vec<f64> = lons.map(|l| first + wrap_degrees(l - first)).collect();
    near.sort_by(f64::total_cmp);
    let n = near.len();
    let m = if n % 2 == 1 {
        near[n / 2]
    } else {
        (near[n / 2 - 1] + near[n / 2]) / 2.0
    };
    wrap_degrees(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_walk_across_the_antimeridian_stays_a_walk_of_metres() {
        // Fiji: 179.99° E to 179.99° W is 0.02° of longitude, about 2 km at 17° S.
        let proj = LocalProjection::new(LatLon::new(-17.0, 179.995));
        let west = proj.to_metres(LatLon::new(-17.0, -179.995));
        assert!((west.east - 1_063.4).abs() < 1.0, "{west:?}");
        let back = proj.to_latlon(west);
        assert!((back.lon + 179.995).abs() < 1e-9, "{back:?}");
        assert!((median_longitude([179.99, -179.99, 179.98].into_iter()) - 179.99).abs() < 1e-9);
        let m = median_longitude([179.99, -179.99].into_iter());
        assert!(m.abs() > 179.9, "{m}");
        assert_eq!(wrap_degrees(190.0), -170.0);
        assert_eq!(wrap_degrees(-180.0), -180.0);
        assert_eq!(
            wrap_degrees(0.001_234_567_891),
            0.001_234_567_891,
            "untouched"
        );
    }

    #[test]
    fn haversine_matches_a_known_distance() {
        // One degree of latitude along a meridian is R·π/180 ≈ 111,195 m.
        let d = haversine_m(LatLon::new(33.0, -117.8), LatLon::new(34.0, -117.8));
        assert!((d - 111_195.1).abs() < 1.0, "got {d}");
        assert_eq!(
            haversine_m(LatLon::new(10.0, 20.0), LatLon::new(10.0, 20.0)),
            0.0
        );
    }

    #[test]
    fn projection_round_trips_and_agrees_with_haversine() {
        let origin = LatLon::new(33.6405, -117.8443);
        let proj = LocalProjection::new(origin);
        let p = LatLon::new(33.70, -117.75);
        let m = proj.to_metres(p);
        let back = proj.to_latlon(m);
        assert!((back.lat - p.lat).abs() < 1e-12 && (back.lon - p.lon).abs() < 1e-12);
        let planar = m.distance(&Metres::new(0.0, 0.0));
        let sphere = haversine_m(origin, p);
        assert!(
            (planar - sphere).abs() / sphere < 1e-3,
            "{planar} vs {sphere}"
        );
    }

    #[test]
    fn validity_rejects_out_of_range_and_nan() {
        assert!(LatLon::new(51.5, -0.1).is_valid());
        assert!(!LatLon::new(91.0, 0.0).is_valid());
        assert!(!LatLon::new(0.0, 181.0).is_valid());
        assert!(!LatLon::new(f64::NAN, 0.0).is_valid());
    }
}
