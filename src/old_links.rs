//! Old links open exactly as before: every link of `tests/links/corpus.txt` (the lessons'
//! steps, the instructor's and the end-to-end tests' links, every setting at each of its
//! choices and at both ends of its bound, broken links) is resolved by every lab as the page
//! resolves it at load — the engine config it runs, its hidden controls, the problems it
//! names, the link it writes back — and compared with `tests/links/resolved.txt`, written when
//! the corpus was made. A change of how the page reads its settings must leave that file
//! byte-identical; `WHEREABOUTS_WRITE_RESOLVED=1 cargo test old_links` rewrites it, for a
//! change that means to alter a link's meaning (say why in the commit).

use crate::shell::PATH_KEY;
use crate::shell::path_link::decode_path;
use crate::ui::settings::query_pairs;
use std::fmt::Write;
use whereabouts_engine::mobility::settings::default_path;

const CORPUS: &str = include_str!("../tests/links/corpus.txt");
const RESOLVED: &str = "tests/links/resolved.txt";

/// What one lab makes of a link: its engine config flattened to `path = value` lines, its
/// hidden controls, the problems it names and the link it writes back, split into its
/// `key=value` pairs.
struct Reading {
    config: Vec<(String, String)>,
    hidden: Vec<String>,
    problems: Vec<String>,
    link: Vec<String>,
}

impl Reading {
    fn new<T: serde::Serialize>(
        config: Result<&T, String>,
        hidden: &[String],
        problems: &[String],
        link: &str,
    ) -> Self {
        let mut flat = Vec::new();
        match config.map(serde_json::to_value) {
            Ok(Ok(v)) => flatten("", &v, &mut flat),
            Ok(Err(e)) => flat.push(("unserialisable".into(), e.to_string())),
            Err(e) => flat.push(("refused".into(), e)),
        }
        Self {
            config: flat,
            hidden: hidden.to_vec(),
            problems: problems.to_vec(),
            link: link.split('&').map(str::to_string).collect(),
        }
    }

    /// The reading as text: in full, or only where it differs from `base` (nothing where
    /// nothing does).
    fn text(&self, lab: &str, base: Option<&Reading>) -> String {
        let mut out = format!("{lab}:\n");
        let changed = |x: &(String, String)| base.is_none_or(|b| !b.config.contains(x));
        for (path, value) in self.config.iter().filter(|x| changed(x)) {
            let _ = writeln!(out, "  {path} = {value}");
        }
        if let Some(b) = base {
            for (path, _) in &b.config {
                if !self.config.iter().any(|(p, _)| p == path) {
                    let _ = writeln!(out, "  {path} (gone)");
                }
            }
        }
        if !self.hidden.is_empty() {
            let _ = writeln!(out, "  hidden {:?}", self.hidden);
        }
        if !self.problems.is_empty() {
            let _ = writeln!(out, "  problems {:?}", self.problems);
        }
        let link: Vec<&str> = self
            .link
            .iter()
            .filter(|p| base.is_none_or(|b| !b.link.contains(p)))
            .map(String::as_str)
            .collect();
        if base.is_some() && out.lines().count() == 1 && link.is_empty() {
            // As the defaults read.
            return String::new();
        }
        let _ = writeln!(out, "  link {}", link.join("&"));
        out
    }
}

/// `v` as `a.b.c = leaf` lines (a list's items by index).
fn flatten(at: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    let join = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    match v {
        serde_json::Value::Object(fields) if !fields.is_empty() => {
            for (k, v) in fields {
                flatten(&join(k), v, out);
            }
        }
        serde_json::Value::Array(items) if !items.is_empty() => {
            for (i, v) in items.iter().enumerate() {
                flatten(&join(&i.to_string()), v, out);
            }
        }
        leaf => out.push((at.to_string(), leaf.to_string())),
    }
}

/// What the four labs make of `query`, in tab order.
fn resolve(query: &str) -> [(&'static str, Reading); 4] {
    let signal = crate::signal_map::settings::from_query(query);
    let path = signal
        .path
        .clone()
        .unwrap_or_else(whereabouts_engine::signal_map::settings::default_path);
    let signal = Reading::new(
        Ok(&crate::signal_map::config_to_run(
            &signal.config,
            &path,
            false,
        )),
        &signal.hidden,
        &signal.problems,
        &crate::signal_map::settings::to_query(&signal.config, &path, &signal.hidden),
    );

    let density = crate::density::settings::from_query(query);
    let places = density
        .places
        .clone()
        .unwrap_or_else(crate::density::default_places);
    let density = Reading::new(
        Ok(&crate::density::settings::with_places(
            &density.settings,
            &places,
        )),
        &density.hidden,
        &density.problems,
        &crate::density::settings::to_query(&density.settings, &places, &density.hidden),
    );

    let link = crate::linkability::settings::from_query(query);
    let drawn = query_pairs(query)
        .find(|(k, _)| *k == PATH_KEY)
        .and_then(|(_, v)| decode_path(&v).ok());
    let problems = link.messages();
    let linkability = Reading::new(
        crate::linkability::settings::run_config(&link.config, drawn.as_deref())
            .as_ref()
            .map(|(c, _)| c)
            .map_err(Clone::clone),
        &link.hidden,
        &problems,
        &crate::linkability::settings::to_query(&link.config, &link.hidden),
    );

    let mobility = crate::mobility::settings::from_query(query);
    let path = mobility.path.clone().unwrap_or_else(default_path);
    let mobility = Reading::new(
        Ok(&crate::mobility::settings::with_path(
            &mobility.settings,
            &path,
        )),
        &mobility.hidden,
        &mobility.problems,
        &crate::mobility::settings::to_query(&mobility.settings, &path, &mobility.hidden),
    );
    [
        ("signal", signal),
        ("density", density),
        ("linkability", linkability),
        ("mobility", mobility),
    ]
}

/// The record: every lab's reading of the empty link in full, then each link of the corpus —
/// its tab and where each lab's reading differs from that.
fn resolve_corpus() -> String {
    let base = resolve("");
    let mut out = String::from("### ? (every lab's defaults, in full)\n");
    for (lab, r) in &base {
        out.push_str(&r.text(lab, None));
    }
    for query in CORPUS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let _ = write!(
            out,
            "\n### ?{query}\ntab: {}\n",
            crate::shell::tabs::lab_of(query).key()
        );
        for ((lab, r), (_, b)) in resolve(query).iter().zip(&base) {
            out.push_str(&r.text(lab, Some(b)));
        }
    }
    out
}

#[test]
fn every_old_link_opens_as_before() {
    let now = resolve_corpus();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(RESOLVED);
    if std::env::var_os("WHEREABOUTS_WRITE_RESOLVED").is_some() {
        std::fs::write(&path, &now).expect("write tests/links/resolved.txt");
        return;
    }
    let before = std::fs::read_to_string(&path).expect("tests/links/resolved.txt");
    if now != before {
        // The first link that differs, with both readings.
        let split = |s: &str| {
            s.split("\n### ")
                .map(str::to_string)
                .collect::<Vec<String>>()
        };
        let (now, before) = (split(&now), split(&before));
        let at = now.iter().zip(&before).position(|(a, b)| a != b);
        match at {
            Some(i) => panic!(
                "an old link opens differently:\nbefore:\n{}\nnow:\n{}",
                before[i], now[i]
            ),
            None => panic!(
                "the corpus resolves to {} links, the record has {}",
                now.len(),
                before.len()
            ),
        }
    }
}
