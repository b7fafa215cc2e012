//! The page's side of the settings: a setting row's control (its "?" and its refusal), a lab's
//! link read and written from its rows, and the query string's pairs. The rows themselves are
//! the engine's, next to each lab's config ([`whereabouts_core::setting`]). Values are refused
//! with a message, never clamped silently.
//!
//! Every lab keeps its keys in the one query string (the address bar holds every lab's settings
//! whichever tab shows): the Signal map's keys are plain (`T`, `B`, …; they were there first),
//! every later lab's start with its own prefix (`d.` for Density).

use crate::ui::help::help;
use leptos::prelude::*;
use whereabouts_core::order;
use whereabouts_core::setting::{Kind, Setting, apply_at};

/// The query string's `key=value` pairs, values decoded.
pub fn query_pairs(query: &str) -> impl Iterator<Item = (&str, String)> {
    query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (key, decode_component(value))
        })
}

fn decode_component(s: &str) -> String {
    js_free_percent_decode(&s.replace('+', " "))
}

/// Percent-decoding without a browser (the app's URLs only carry ASCII).
fn js_free_percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What a link says to one lab: its config, the controls it hides, and what it refused.
#[derive(Clone, Debug, PartialEq)]
pub struct Link<C> {
    pub config: C,
    pub hidden: Vec<String>,
    /// Each with its place in the link (for a lab that merges problems of its own).
    pub problems: Vec<(usize, String)>,
}

impl<C> Link<C> {
    /// The lab's own key `key` in `query` (its places, its path), read by `decode`; a value it
    /// refuses joins the problems in its place in the link.
    pub fn own<T>(
        &mut self,
        query: &str,
        key: &str,
        decode: impl Fn(&str) -> Result<T, String>,
    ) -> Option<T> {
        let mut found = None;
        for (at, (k, value)) in query_pairs(query).enumerate() {
            if k == key {
                match decode(&value) {
                    Ok(v) => found = Some(v),
                    Err(e) => self.problems.push((at, e)),
                }
            }
        }
        order::sort_by_key(&mut self.problems, |(at, _)| *at);
        found
    }

    /// What the link asked for and did not get, in the link's order.
    pub fn messages(&self) -> Vec<String> {
        self.problems.iter().map(|(_, e)| e.clone()).collect()
    }
}

/// Reads a lab's settings from a query string over `config` (the lab's defaults): the values
/// of `table`'s keys (and their aliases), and `hide_key`'s list of hidden controls — the
/// table's keys, their old keys (hiding the setting) and `groups`. Other labs' keys are left
/// alone; a bad value keeps the default and is reported.
///
/// A key with the lab's `prefix` that is neither a setting, `hide_key` nor one of `own` (the
/// lab's other keys, read by the lab itself) is reported as unknown. With no prefix (the
/// Signal map's plain keys, which share the query string with the shell's) the lab names its
/// unknown keys itself.
pub fn read_link<C: Clone>(
    table: &[Setting<C>],
    prefix: &str,
    hide_key: &str,
    own: &[&str],
    groups: &[&str],
    mut config: C,
    query: &str,
) -> Link<C> {
    let pairs: Vec<(&str, String)> = query_pairs(query).collect();
    let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut problems = apply_at(table, &mut config, &borrowed);
    for (at, (key, _)) in pairs.iter().enumerate() {
        let known =
            *key == hide_key || own.contains(key) || table.iter().any(|s| s.answers_to(key));
        if !prefix.is_empty() && key.starts_with(prefix) && !known {
            problems.push((at, format!("unknown setting “{key}”")));
        }
    }
    order::sort_by_key(&mut problems, |(at, _)| *at);
    let hidden = pairs
        .iter()
        .rfind(|(k, _)| *k == hide_key)
        .map(|(_, value)| hidden_controls(table, groups, value))
        .unwrap_or_default();
    Link {
        config,
        hidden,
        problems,
    }
}

/// The controls a hide list names, each once: the table's keys and `groups`. An old key of a
/// setting (an alias) hides the setting as it did (an old `m.hide=m.data` hid the city's kind of
/// data, now `m.traces`), and a group of that name as well.
fn hidden_controls<C>(table: &[Setting<C>], groups: &[&str], list: &str) -> Vec<String> {
    let mut hidden: Vec<String> = Vec::new();
    for entry in list.split(',') {
        let own =
            (table.iter().any(|s| s.key == entry) || groups.contains(&entry)).then_some(entry);
        let renamed = table
            .iter()
            .find(|s| s.aliases.contains(&entry))
            .map(|s| s.key);
        for key in own.into_iter().chain(renamed) {
            if !hidden.iter().any(|h| h == key) {
                hidden.push(key.to_string());
            }
        }
    }
    hidden
}

/// A lab's part of the query string: every setting in the table's order, then the lab's `own`
/// `key=value` pairs (its places, its path), then the hidden controls.
pub fn write_link<C>(
    table: &[Setting<C>],
    config: &C,
    own: &[String],
    hide_key: &str,
    hidden: &[String],
) -> String {
    let mut parts = whereabouts_core::setting::pairs(table, config);
    parts.extend_from_slice(own);
    if !hidden.is_empty() {
        parts.push(format!("{hide_key}={}", hidden.join(",")));
    }
    parts.join("&")
}

/// A setting's control: its label and "?", the input its kind asks for, and the message of a
/// refused value. `value` reads the value in force (tracked), `apply` tries a new one, `shown`
/// says whether the control shows (tracked: hidden by the link, or not relevant).
pub fn setting_control<C: 'static>(
    setting: &Setting<C>,
    value: impl Fn() -> String + Copy + Send + Sync + 'static,
    apply: impl Fn(&str) -> Result<(), String> + Copy + Send + Sync + 'static,
    shown: impl Fn() -> bool + Send + Sync + 'static,
    error: RwSignal<Option<(&'static str, String)>>,
) -> impl IntoView {
    let (key, label, help_text, kind) = (setting.key, setting.title(), setting.help, setting.kind);
    let id = format!("field-{key}");
    // A refused value does not stay in its box: the box shows the value in force again, and
    // the message says what was refused and why.
    let try_apply = move |v: String, box_: Option<web_sys::HtmlInputElement>| match apply(&v) {
        Ok(()) => error.set(None),
        Err(e) => {
            let current = value();
            if let Some(input) = box_ {
                input.set_value(&current);
            }
            // Most refusals name the value already ("… (not 100)"); the rest get it here.
            let text = if e.contains(v.trim()) {
                format!("{e}; still {current}")
            } else {
                format!("{e} (“{}” refused; still {current})", v.trim())
            };
            error.set(Some((key, text)))
        }
    };
    let target_input = |e: &leptos::ev::Event| {
        e.target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(t).ok())
    };
    let error_id = format!("error-{key}-message");
    let (help_button, help_body) = help(format!("help-{key}"), &label, help_text);
    let message = move || {
        error.with(|e| {
            e.as_ref()
                .filter(|(k, _)| *k == key)
                .map(|(_, m)| m.clone())
        })
    };
    let input = match kind {
        Kind::Number { .. } => view! {
            <input id=id.clone() type="text" inputmode="decimal" data-testid=format!("input-{key}")
                prop:value=value
                aria-invalid=move || message().is_some().to_string()
                aria-describedby=error_id.clone()
                on:change=move |e| try_apply(event_target_value(&e), target_input(&e))/>
        }
        .into_any(),
        Kind::Choice(options) => view! {
            <select id=id.clone() data-testid=format!("input-{key}") aria-describedby=error_id.clone()
                on:change=move |e| try_apply(event_target_value(&e), None)>
                {options.iter().map(|(v, l)| {
                    let v = *v;
                    view! { <option value=v selected=move || value() == v>{*l}</option> }
                }).collect_view()}
            </select>
        }
        .into_any(),
        Kind::Toggle => view! {
            <input id=id.clone() type="checkbox" data-testid=format!("input-{key}")
                prop:checked=move || value() == "1"
                aria-describedby=error_id.clone()
                on:change=move |e| try_apply(if event_target_checked(&e) { "1".into() } else { "0".into() }, None)/>
        }
        .into_any(),
    };
    view! {
        <div class="field" class:hidden=move || !shown() class:toggle=matches!(kind, Kind::Toggle)>
            <label for=id>{label}</label>
            {help_button}
            {input}
            {help_body}
            <p class="field-error" role="alert" id=error_id data-testid=format!("error-{key}")
                class:hidden=move || message().is_none()>{message}</p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_pairs_are_decoded() {
        let pairs: Vec<(&str, String)> = query_pairs("?a=1&d.B=10&name=my%20walk+x&flag").collect();
        assert_eq!(
            pairs,
            vec![
                ("a", "1".into()),
                ("d.B", "10".into()),
                ("name", "my walk x".into()),
                ("flag", "".into())
            ]
        );
    }

    #[test]
    fn a_hide_list_hides_each_control_once_and_an_old_key_hides_its_setting() {
        const TABLE: &[Setting<u32>] = &[Setting {
            key: "x.new",
            aliases: &["x.old"],
            label: "New",
            unit: "",
            help: "A setting whose key was x.old.",
            section: "S",
            kind: Kind::Toggle,
            get: |c| c.to_string(),
            set: |c, v| {
                *c = whereabouts_core::setting::flag(v)? as u32;
                Ok(())
            },
            relevant: whereabouts_core::setting::always,
        }];
        let link = read_link(
            TABLE,
            "x.",
            "x.hide",
            &[],
            &["x.old", "x.panel"],
            0,
            "x.old=1&x.hide=x.panel,x.old,bogus,x.new,x.panel",
        );
        assert_eq!(link.config, 1);
        assert!(link.problems.is_empty(), "{:?}", link.problems);
        // The group named x.old and the setting it named before.
        assert_eq!(link.hidden, ["x.panel", "x.old", "x.new"]);
        assert_eq!(
            write_link(TABLE, &link.config, &[], "x.hide", &link.hidden),
            "x.new=1&x.hide=x.panel,x.old,x.new"
        );
    }
}
