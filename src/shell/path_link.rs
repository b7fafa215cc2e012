//! The drawn path in the link: compact enough that the longest path the lab runs
//! ([`MAX_WAYPOINTS`]) still makes a link a web server accepts.
//!
//! `path=~…` holds whole metres as zig-zag varints (the first waypoint, then each step from the
//! one before) in URL-safe base64 without padding: a freehand path costs about 3 characters a
//! waypoint, a path of long jumps about 6. Links written before (`east.north_east.north_…`,
//! about 10 characters a waypoint) still open.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use whereabouts_core::geo::Metres;
use whereabouts_engine::signal_map::trajectory::MAX_WAYPOINTS;

/// Marks the compact form (not a character of the legacy form's digits, `-`, `.` and `_`).
const COMPACT: char = '~';

/// Links longer than this may be refused: nginx and Apache answer 414 to a request line over
/// about 8 kB by default (and Node's server, which `./x serve` uses, 431 over 16 kB of headers).
pub const LINK_WARN_CHARS: usize = 8_000;

/// Waypoints as whole metres, compactly (see the module's doc).
pub fn encode_path(path: &[Metres]) -> String {
    let mut bytes = Vec::with_capacity(path.len() * 4);
    let mut previous = (0i64, 0i64);
    for p in path {
        let here = (p.east.round() as i64, p.north.round() as i64);
        push_varint(&mut bytes, zigzag(here.0 - previous.0));
        push_varint(&mut bytes, zigzag(here.1 - previous.1));
        previous = here;
    }
    format!("{COMPACT}{}", URL_SAFE_NO_PAD.encode(bytes))
}

/// A path from a link, in either form; the message names what is wrong.
pub fn decode_path(s: &str) -> Result<Vec<Metres>, String> {
    let s = s.trim();
    let path = match s.strip_prefix(COMPACT) {
        Some(code) => decode_compact(code)?,
        None => decode_legacy(s)?,
    };
    if path.len() > MAX_WAYPOINTS {
        return Err(format!(
            "path: {} waypoints; a run takes at most {MAX_WAYPOINTS}",
            path.len()
        ));
    }
    Ok(path)
}

/// A warning when a link of `chars` characters may be too long to share.
pub fn link_warning(chars: usize) -> Option<String> {
    (chars > LINK_WARN_CHARS).then(|| {
        format!(
            "This page's link is now {:.1} kB long: many web servers refuse links over 8 kB, so \
             it may not open elsewhere. A path with fewer waypoints makes a shorter link.",
            chars as f64 / 1000.0
        )
    })
}

fn zigzag(x: i64) -> u64 {
    ((x << 1) ^ (x >> 63)) as u64
}

fn unzigzag(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

/// LEB128: seven bits a byte, low first, the high bit set on all but the last.
fn push_varint(out: &mut Vec<u8>, mut u: u64) {
    while u >= 0x80 {
        out.push((u as u8) | 0x80);
        u >>= 7;
    }
    out.push(u as u8);
}

fn decode_compact(code: &str) -> Result<Vec<Metres>, String> {
    let bytes = URL_SAFE_NO_PAD
        .decode(code)
        .map_err(|e| format!("path: the compact form is damaged ({e})"))?;
    // Coordinates beyond this are no place on Earth's plane (and keep the sums from overflowing).
    const FAR: i64 = 1 << 40;
    let mut numbers = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let (mut u, mut shift) = (0u64, 0u32);
        loop {
            let Some(&b) = bytes.get(i) else {
                return Err("path: the compact form ends in the middle of a number".into());
            };
            i += 1;
            if shift > 42 {
                return Err("path: the compact form holds a number too large for a map".into());
            }
            u |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
        }
        numbers.push(unzigzag(u));
    }
    if numbers.len() % 2 == 1 {
        return Err("path: the compact form ends in the middle of a waypoint".into());
    }
    let mut here = (0i64, 0i64);
    let mut path = Vec::with_capacity(numbers.len() / 2);
    for step in numbers.chunks(2) {
        here = (here.0 + step[0], here.1 + step[1]);
        if here.0.abs() > FAR || here.1.abs() > FAR {
            return Err(format!(
                "path: waypoint {} is too far away to be on the map",
                path.len() + 1
            ));
        }
        path.push(Metres::new(here.0 as f64, here.1 as f64));
    }
    Ok(path)
}

/// The form links had before the compact one: `e.n_e.n_…` in whole metres.
fn decode_legacy(s: &str) -> Result<Vec<Metres>, String> {
    if s.is_empty() {
        return Ok(Vec::new());
    }
    s.split('_')
        .enumerate()
        .map(|(i, pair)| {
            let bad = || {
                format!(
                    "path: point {} (“{}”) is not “east.north” in whole metres",
                    i + 1,
                    whereabouts_core::import::cut(pair)
                )
            };
            let (e, n) = pair.split_once('.').ok_or_else(bad)?;
            let e: i64 = e.parse().map_err(|_| bad())?;
            let n: i64 = n.parse().map_err(|_| bad())?;
            Ok(Metres::new(e as f64, n as f64))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(points: &[(f64, f64)]) -> Vec<Metres> {
        points.iter().map(|&(e, n)| Metres::new(e, n)).collect()
    }

    #[test]
    fn a_path_round_trips_in_whole_metres() {
        let p = path(&[
            (-382.5, 10.25),
            (0.4999, -0.5),
            (900.0, -850.0),
            (-900.0, 850.0),
        ]);
        let back = decode_path(&encode_path(&p)).unwrap();
        assert_eq!(
            back,
            path(&[
                (-383.0, 10.0),
                (0.0, -1.0),
                (900.0, -850.0),
                (-900.0, 850.0)
            ])
        );
        assert_eq!(decode_path(&encode_path(&[])).unwrap(), vec![]);
        assert_eq!(decode_path("").unwrap(), vec![]);
    }

    #[test]
    fn links_written_before_still_open() {
        assert_eq!(
            decode_path("-10.20_300.-300").unwrap(),
            path(&[(-10.0, 20.0), (300.0, -300.0)])
        );
        let e = decode_path("1.2_oops").unwrap_err();
        assert!(e.contains("point 2 (“oops”)"), "{e}");
    }

    /// The longest path a run takes fits a link servers accept, drawn freehand (steps of a few
    /// tens of metres) or in jumps across the campus; the form before did not (HTTP 431).
    #[test]
    fn the_longest_path_fits_a_link() {
        let freehand: Vec<Metres> = (0..MAX_WAYPOINTS)
            .map(|i| {
                let t = i as f64 * 0.05;
                Metres::new(800.0 * t.sin(), 30.0 * i as f64 % 1700.0 - 850.0)
            })
            .collect();
        let jumps: Vec<Metres> = (0..MAX_WAYPOINTS)
            .map(|i| {
                Metres::new(
                    if i % 2 == 0 { -900.0 } else { 900.0 },
                    (i % 17) as f64 * 100.0,
                )
            })
            .collect();
        let (f, j) = (encode_path(&freehand).len(), encode_path(&jumps).len());
        assert!(f < LINK_WARN_CHARS, "freehand: {f} characters");
        assert!(j < 16_000 - 1_000, "jumps: {j} characters");
        let legacy = freehand
            .iter()
            .map(|p| format!("{}.{}", p.east.round(), p.north.round()))
            .collect::<Vec<_>>()
            .join("_");
        assert!(
            legacy.len() > 2 * f,
            "legacy {} vs compact {f}",
            legacy.len()
        );
        assert_eq!(decode_path(&encode_path(&jumps)).unwrap(), jumps);
    }

    #[test]
    fn damaged_or_oversized_paths_are_refused_with_a_reason() {
        let two = encode_path(&path(&[(1.0, 2.0), (3.0, 4.0)]));
        for (code, says) in [
            ("~!!", "damaged"),
            // One number only: half a waypoint.
            ("~AA", "middle of a waypoint"),
            // A continuation byte with nothing after it.
            ("~gA", "middle of a number"),
            ("~_____________w", "too large"),
        ] {
            let e = decode_path(code).unwrap_err();
            assert!(e.contains(says), "{code}: {e}");
        }
        assert!(decode_path(&two).is_ok());
        let too_many = vec![Metres::new(0.0, 0.0); MAX_WAYPOINTS + 1];
        let e = decode_path(&encode_path(&too_many)).unwrap_err();
        assert!(e.contains("at most 2000"), "{e}");
    }

    #[test]
    fn only_long_links_are_warned_about() {
        assert_eq!(link_warning(LINK_WARN_CHARS), None);
        let w = link_warning(9_100).unwrap();
        assert!(w.contains("9.1 kB"), "{w}");
    }
}
