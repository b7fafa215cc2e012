//! A lesson's numbers, read from the lab (issue 40 §3): a lesson's prose never types a measured
//! number; it names a *figure* as `{lab.name}` (for example `{density.found}`), and the lesson
//! shows what the lab's card shows for it at that moment. A card marks the element holding a
//! figure with `data-figure="lab.name"`; the lab lists its figures' names in its spec
//! ([`crate::lab_spec::LabSpec::figures`]), which the tests hold the lessons to.
//!
//! The lesson reads the figure's text from the page, the very text the card shows, a few times
//! a second while it is open, so the two cannot disagree and nothing is computed twice. Until
//! the lab has the figure (a Signal-map round may take a minute) the lesson shows "…".

use leptos::prelude::*;
use whereabouts_core::order;

/// A piece of lesson prose: plain text, or the name of a figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part<'a> {
    Text(&'a str),
    Figure(&'a str),
}

/// `text` cut at its `{figure}` names. A brace that opens no name (`{` with no `}`, or a name
/// with a space) stays text.
pub fn parts(text: &str) -> Vec<Part<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let Some(len) = rest[open + 1..].find('}') else {
            break;
        };
        let name = &rest[open + 1..open + 1 + len];
        if name.is_empty() || name.contains(char::is_whitespace) {
            out.push(Part::Text(&rest[..=open]));
            rest = &rest[open + 1..];
            continue;
        }
        if open > 0 {
            out.push(Part::Text(&rest[..open]));
        }
        out.push(Part::Figure(name));
        rest = &rest[open + 2 + len..];
    }
    if !rest.is_empty() {
        out.push(Part::Text(rest));
    }
    // Adjacent texts (from a lone brace) are one.
    let mut merged: Vec<Part> = Vec::with_capacity(out.len());
    for p in out {
        match (merged.last_mut(), p) {
            (Some(Part::Text(a)), Part::Text(b)) => {
                // Both are slices of `text`, one after the other.
                let start = a.as_ptr() as usize - text.as_ptr() as usize;
                *a = &text[start..start + a.len() + b.len()];
            }
            _ => merged.push(p),
        }
    }
    merged
}

/// The figures `text` names.
pub fn names(text: &str) -> impl Iterator<Item = &str> {
    parts(text).into_iter().filter_map(|p| match p {
        Part::Figure(n) => Some(n),
        Part::Text(_) => None,
    })
}

/// Words that may carry digits in lesson prose without being a measurement: citations of the
/// papers' sections, equations, figures and tables, and the constants of a definition.
const CITATION_WORDS: &[&str] = &[
    "Eq.",
    "Eqs.",
    "Fig.",
    "Figs.",
    "Table",
    "Tables",
    "Theorem",
    "Lemma",
    "Algorithm",
    "Insight",
    "Insights",
    "step",
    "Step",
    "steps",
    "Seed",
    "seed",
    "Appendix",
    "al.",
];

/// The digits in `text` that are neither a figure's name, nor a citation (`[000]`, `§4.3`,
/// `Eq. 7`, `Insight I1`, `Seed 3`), nor one of `allowed` (the step's own settings' values and
/// the lesson's stated constants): what a test refuses, because a measured number typed into
/// a lesson goes stale. Returns each offending word.
pub fn stray_numbers(text: &str, allowed: &[&str]) -> Vec<String> {
    let mut plain = String::new();
    for p in parts(text) {
        if let Part::Text(t) = p {
            plain.push_str(t);
            plain.push(' ');
        }
    }
    // The allowed phrases go first (longest first, so "100 m" before "100").
    let mut allowed: Vec<&str> = allowed.to_vec();
    order::sort_by_key(&mut allowed, |a| std::cmp::Reverse(a.len()));
    for a in allowed {
        plain = replace_whole(&plain, a);
    }
    let trim = |w: &str| -> String { w.trim_matches(|c: char| ",;:()\"'".contains(c)).to_string() };
    let mut stray = Vec::new();
    // Whether the last word with digits was a citation, and the words since it only join
    // ("Insights I1 and I2", "Tables 5, 7").
    let mut citing = false;
    let mut prev = String::new();
    let mut prev_raw = "";
    for raw in plain.split_whitespace() {
        let w = trim(raw);
        if !w.bytes().any(|b| b.is_ascii_digit()) {
            if CITATION_WORDS.contains(&w.as_str()) {
                // What follows names a citation, even when a setting's value blanked its number.
                citing = true;
            } else if !["and", "or", "to"].contains(&w.as_str()) {
                citing = false;
            }
        } else {
            let joined =
                citing && (["and", "or", "to"].contains(&prev.as_str()) || prev_raw.ends_with(','));
            let cited = CITATION_WORDS.contains(&prev.as_str())
                || joined
                || (w.starts_with('[') && w.contains(']'))
                || w.starts_with('§');
            if !cited {
                stray.push(w.clone());
            }
            citing = cited;
        }
        prev = w;
        prev_raw = raw;
    }
    stray
}

/// `text` with every occurrence of `phrase` that stands as whole words blanked.
fn replace_whole(text: &str, phrase: &str) -> String {
    if phrase.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(phrase) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + phrase.len()..].chars().next();
        let edge = |c: Option<char>| c.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '.'));
        let end_ok = after.is_none_or(|c| !c.is_ascii_digit())
            && (edge(after)
                || after == Some('.')
                    && !rest[at + phrase.len() + 1..].starts_with(char::is_numeric));
        out.push_str(&rest[..at]);
        if edge(before) && end_ok {
            out.push(' ');
        } else {
            out.push_str(phrase);
        }
        rest = &rest[at + phrase.len()..];
    }
    out.push_str(rest);
    out
}

/// The text the page shows for figure `name`, if a card holds it now.
fn read(name: &str) -> Option<String> {
    let el = web_sys::window()?
        .document()?
        .query_selector(&format!("[data-figure=\"{name}\"]"))
        .ok()??;
    let text = el.text_content()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// How often an open lesson reads its figures again.
pub const READ_EVERY_MS: u64 = 500;

/// Lesson prose with its figures read from the lab; `tick` moves when they should be read
/// again.
#[component]
pub fn Prose(text: &'static str, tick: ReadSignal<u32>) -> impl IntoView {
    parts(text)
        .into_iter()
        .map(|p| match p {
            Part::Text(t) => t.into_any(),
            Part::Figure(name) => view! {
                <span class="figure" data-testid="lesson-figure" data-figure-of=name>
                    {move || {
                        tick.track();
                        read(name).unwrap_or_else(|| "…".into())
                    }}
                </span>
            }
            .into_any(),
        })
        .collect_view()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_is_cut_at_its_figures_names() {
        assert_eq!(
            parts("found {density.found} of {density.people}."),
            vec![
                Part::Text("found "),
                Part::Figure("density.found"),
                Part::Text(" of "),
                Part::Figure("density.people"),
                Part::Text("."),
            ]
        );
        assert_eq!(parts("{a.b}"), vec![Part::Figure("a.b")]);
        assert_eq!(parts("a { b } c {"), vec![Part::Text("a { b } c {")]);
        assert_eq!(parts(""), vec![]);
        assert_eq!(names("x {a.b} y {c.d}").collect::<Vec<_>>(), ["a.b", "c.d"]);
    }

    #[test]
    fn a_typed_measurement_is_stray_and_a_citation_or_setting_is_not() {
        let ok = "As [003] Eq. 7 and §4.3 say (Insights I1 and I2, Table 6), with B = 3 the \
                  server finds {density.found}; Seed 3 too.";
        assert_eq!(stray_numbers(ok, &["3"]), Vec::<String>::new());
        assert_eq!(
            stray_numbers("about 700 m off, and 33 dB", &[]),
            vec!["700".to_string(), "33".to_string()]
        );
        assert_eq!(
            stray_numbers("within 100 m, not 1000 m", &["100 m"]),
            vec!["1000".to_string()]
        );
        assert_eq!(
            stray_numbers("ε = 0.01 per metre", &["0.01"]),
            Vec::<String>::new()
        );
        assert_eq!(
            stray_numbers("ε = 0.015 per metre", &["0.01"]),
            vec!["0.015".to_string()]
        );
    }
}
