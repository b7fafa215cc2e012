//! The lab shell's link: one tab per lab, chosen by `?lab=` in the query string (so a static
//! host needs no rewrites), with the rest of the query left to the labs' own settings, each
//! lab's keys its own (by its [`LabKind::prefix`]). The address bar keeps every lab's settings
//! whichever tab is showing. The tab bar itself is [`super::tab_bar`].

pub use crate::protocol::LabKind;

/// The lab a query string asks for (the Signal map when it names none or an unknown one).
pub fn lab_of(query: &str) -> LabKind {
    lab_param(query)
        .and_then(|v| LabKind::parse(&v))
        .unwrap_or(LabKind::Signal)
}

/// The decoded value of `lab=` in a query string, if any.
fn lab_param(query: &str) -> Option<String> {
    query
        .trim_start_matches('?')
        .split('&')
        .find_map(|pair| pair.strip_prefix("lab="))
        .map(str::to_string)
}

/// `query` (without `?`) with `lab=` set for `lab`: first, and left out for the Signal map,
/// so the links made before the shell existed stay what they were.
pub fn with_lab(query: &str, lab: LabKind) -> String {
    let rest = query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty() && !p.starts_with("lab="));
    let lab_part = (lab != LabKind::Signal).then(|| format!("lab={}", lab.key()));
    lab_part
        .into_iter()
        .chain(rest.map(str::to_string))
        .collect::<Vec<_>>()
        .join("&")
}

/// True if `key` in the query string is one of `lab`'s settings.
pub fn owns(lab: LabKind, key: &str) -> bool {
    match lab.prefix() {
        "" => !SHELL_KEYS.contains(&key) && !other_lab_key(key),
        prefix => key.starts_with(prefix),
    }
}

/// The shell's own keys in the query string, no lab's: the tab showing, the lesson and its
/// step (ui/lesson.rs), present mode (shell/instructor.rs), the glossary open (`glossary`).
pub const SHELL_KEYS: [&str; 5] = ["lab", "lesson", "step", "present", "glossary"];

/// The keys of `query` that no part of the page reads, with their place in the query: plain
/// keys (no lab's prefix) that are neither the shell's nor one of the Signal map's settings, its
/// path or its hidden controls. The Signal map names them, and so does every other lab, so that
/// the tab on show says so whichever it is.
pub fn unknown_plain_keys(query: &str) -> Vec<(usize, String)> {
    use whereabouts_engine::signal_map::settings::{HIDE_KEY, SETTINGS};
    crate::ui::settings::query_pairs(query)
        .enumerate()
        .filter(|(_, (key, _))| {
            owns(LabKind::Signal, key)
                && *key != super::PATH_KEY
                && *key != HIDE_KEY
                && !SETTINGS.iter().any(|s| s.answers_to(key))
        })
        .map(|(at, (key, _))| (at, key.to_string()))
        .collect()
}

/// What a lab says of a key nothing reads.
pub fn unknown_key_message(key: &str) -> String {
    format!("unknown setting “{key}”")
}

/// True if `key` belongs to a lab other than the Signal map (which ignores it).
pub fn other_lab_key(key: &str) -> bool {
    LabKind::ALL
        .iter()
        .any(|l| !l.prefix().is_empty() && key.starts_with(l.prefix()))
}

/// `current` with `lab`'s own settings replaced by `own` (both without `?`), every other lab's
/// kept, labs in tab order, then the shell's lesson, step and present mode as they were, and
/// `lab=` for the tab `shown`.
pub fn merge_query(current: &str, lab: LabKind, own: &str, shown: LabKind) -> String {
    let pairs = |q: &str| -> Vec<String> {
        q.trim_start_matches('?')
            .split('&')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    };
    let key = |p: &str| p.split('=').next().unwrap_or("").to_string();
    let (current, own) = (pairs(current), pairs(own));
    let merged: Vec<String> = LabKind::ALL
        .iter()
        .flat_map(|&l| {
            let source = if l == lab { &own } else { &current };
            source
                .iter()
                .filter(move |p| owns(l, &key(p)))
                .cloned()
                .collect::<Vec<_>>()
        })
        .chain(
            current
                .iter()
                .filter(|p| key(p) != "lab" && SHELL_KEYS.contains(&key(p).as_str()))
                .cloned(),
        )
        .collect();
    with_lab(&merged.join("&"), shown)
}

/// Writes `lab`'s settings (`own`, a query without `?`) into the address bar beside every
/// other lab's (replaceState: no history spam, and a reload keeps them); the link's length.
pub fn save_lab_query(lab: LabKind, own: &str) -> Option<usize> {
    let w = web_sys::window()?;
    let current = w.location().search().unwrap_or_default();
    let query = merge_query(&current, lab, own, lab_of(&current));
    let history = w.history().ok()?;
    let _ = history.replace_state_with_url(
        &wasm_bindgen::JsValue::NULL,
        "",
        Some(&format!("?{query}")),
    );
    Some(w.location().href().map_or(query.len(), |h| h.len()))
}

/// The lab the address bar names now.
pub fn current_lab() -> LabKind {
    let query = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    lab_of(&query)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_names_the_lab_and_the_signal_map_is_the_default() {
        assert_eq!(lab_of(""), LabKind::Signal);
        assert_eq!(lab_of("?seed=3&lab=density"), LabKind::Density);
        assert_eq!(lab_of("lab=mobility"), LabKind::Mobility);
        assert_eq!(lab_of("lab=nonsense&T=4"), LabKind::Signal);
        for lab in LabKind::ALL {
            assert_eq!(LabKind::parse(lab.key()), Some(lab));
        }
    }

    #[test]
    fn switching_tabs_keeps_every_other_setting() {
        let q = "seed=3&T=24&path=1.2_3.4";
        let d = with_lab(q, LabKind::Density);
        assert_eq!(d, "lab=density&seed=3&T=24&path=1.2_3.4");
        let l = with_lab(&format!("?{d}"), LabKind::Linkability);
        assert_eq!(l, "lab=linkability&seed=3&T=24&path=1.2_3.4");
        // Back on the Signal map the link is what it was before there were tabs.
        assert_eq!(with_lab(&l, LabKind::Signal), q);
    }

    #[test]
    fn each_lab_writes_its_own_keys_and_keeps_the_others() {
        assert!(owns(LabKind::Density, "d.B") && !owns(LabKind::Density, "B"));
        assert!(owns(LabKind::Signal, "B") && !owns(LabKind::Signal, "d.B"));
        assert!(!owns(LabKind::Signal, "lab") && other_lab_key("m.win"));
        let q = "lab=density&T=24&B=8&d.B=3&d.h=300";
        // The Signal map saves: its keys replaced, the Density lab's kept, the tab kept.
        let s = merge_query(q, LabKind::Signal, "T=6&B=inf", LabKind::Density);
        assert_eq!(s, "lab=density&T=6&B=inf&d.B=3&d.h=300");
        // The Density lab saves: the Signal map's kept; on the Signal map's tab no `lab=`.
        let d = merge_query(&s, LabKind::Density, "d.B=10", LabKind::Signal);
        assert_eq!(d, "T=6&B=inf&d.B=10");
    }

    #[test]
    fn a_lesson_and_present_mode_survive_every_labs_save() {
        assert!(!owns(LabKind::Signal, "lesson") && !owns(LabKind::Signal, "present"));
        let q = "lab=density&T=24&d.B=3&lesson=density&step=2&present=1";
        let s = merge_query(q, LabKind::Signal, "T=6", LabKind::Density);
        assert_eq!(s, "lab=density&T=6&d.B=3&lesson=density&step=2&present=1");
        let d = merge_query(&s, LabKind::Density, "d.B=50", LabKind::Density);
        assert_eq!(d, "lab=density&T=6&d.B=50&lesson=density&step=2&present=1");
    }
}
