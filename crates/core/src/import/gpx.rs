//! GPX 1.0/1.1: track points, route points and waypoints with their `<time>`. A small scanner,
//! not a full XML parser: GPX points are flat elements with `lat`/`lon` attributes, and a file
//! cut off mid-way (a crashed logger, an interrupted copy) still yields the points before the
//! cut, with a warning.

use super::time::parse_time;
use super::{Parsed, RawFix, line_of};

fn attribute(tag: &str, name: &str) -> Option<String> {
    let bytes = tag.as_bytes();
    let mut from = 0;
    while let Some(i) = tag[from..].find(name) {
        let at = from + i;
        from = at + name.len();
        // A whole attribute name: preceded by whitespace, followed by optional space and '='.
        if at == 0 || !bytes[at - 1].is_ascii_whitespace() {
            continue;
        }
        let rest = tag[at + name.len()..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let rest = rest.trim_start();
        let quote = rest.chars().next()?;
        if quote != '"' && quote != '\'' {
            return None;
        }
        let end = rest[1..].find(quote)?;
        return Some(rest[1..1 + end].to_string());
    }
    None
}

pub fn parse(text: &str) -> Result<Parsed, (Option<usize>, String)> {
    let Some(root) = text.find("<gpx") else {
        let first = text
            .trim_start()
            .split(|c: char| c.is_whitespace() || c == '>')
            .next()
            .unwrap_or("");
        return Err((
            Some(1),
            format!(
                "not a GPX file (it starts with {}…; expected <gpx>)",
                super::cut(first)
            ),
        ));
    };
    let mut parsed = Parsed::default();
    let mut pos = root;
    let mut cut = false;
    // Next occurrence of each point tag, searched again only once passed (linear overall).
    const TAGS: [&str; 3] = ["<trkpt", "<rtept", "<wpt"];
    let mut next: [Option<usize>; 3] = [None; 3];
    let mut searched_from = [usize::MAX; 3];
    // Line counting from the last point on, not from the start each time.
    let (mut counted_to, mut line_no) = (0usize, 1usize);
    loop {
        for k in 0..3 {
            let stale = match next[k] {
                Some(at) => at < pos,
                None => searched_from[k] == usize::MAX,
            };
            if stale {
                next[k] = text[pos..].find(TAGS[k]).map(|i| pos + i);
                searched_from[k] = pos;
            }
        }
        let Some((start, tag)) = (0..3)
            .filter_map(|k| next[k].map(|at| (at, TAGS[k])))
            .min_by_key(|(at, _)| *at)
        else {
            break;
        };
        line_no += text.as_bytes()[counted_to..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted_to = start;
        let line = line_no;
        let Some(tag_end) = text[start..].find('>').map(|i| start + i) else {
            cut = true;
            break;
        };
        let open = &text[start..=tag_end];
        let name = &tag[1..];
        let (body, after) = if open.ends_with("/>") {
            ("", tag_end + 1)
        } else {
            let close = format!("</{name}>");
            match text[tag_end..].find(&close) {
                Some(i) => (&text[tag_end + 1..tag_end + i], tag_end + i + close.len()),
                None => {
                    cut = true;
                    break;
                }
            }
        };
        pos = after;
        let coord = |which: &str| -> Result<f64, String> {
            let v = attribute(open, which)
                .ok_or_else(|| format!("<{name}> has no {which} attribute"))?;
            v.trim()
                .parse::<f64>()
                .map_err(|_| format!("{which} “{}” is not a number", super::cut(&v)))
        };
        let time = match (body.find("<time>"), body.find("</time>")) {
            (Some(a), Some(b)) if b > a => Some(&body[a + 6..b]),
            _ => None,
        };
        let row = (|| -> Result<RawFix, String> {
            let lat = coord("lat")?;
            let lon = coord("lon")?;
            let time =
                match time {
                    Some(t) => Some(parse_time(t).ok_or_else(|| {
                        format!("time “{}” is not ISO 8601", super::cut(t.trim()))
                    })?),
                    None => None,
                };
            Ok(RawFix {
                line,
                time,
                lat,
                lon,
                rsrp_dbm: None,
            })
        })();
        match row {
            Ok(r) => parsed.rows.push(r),
            Err(why) => parsed.skipped.push((line, why)),
        }
    }
    if cut || !text.contains("</gpx>") {
        let n = parsed.rows.len();
        if n == 0 {
            return Err((
                Some(line_of(text, text.len())),
                "the file ends early (cut off before any complete point; no closing </gpx>)".into(),
            ));
        }
        parsed.warnings.push(format!(
            "the file ends early (line {}, no closing </gpx>): kept the {n} complete points before the cut",
            line_of(text, text.len())
        ));
    }
    if parsed.rows.is_empty() && parsed.skipped.is_empty() {
        return Err((
            None,
            "no track points, route points or waypoints (<trkpt>, <rtept>, <wpt>)".into(),
        ));
    }
    Ok(parsed)
}
