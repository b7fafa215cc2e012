//! A setting is one row next to its lab's engine config: its key (and the old keys links may
//! still carry), label, unit, "?" help, the panel section it shows in, how it is edited (a
//! number within the engine's own [`Limit`], a choice, a toggle), and how it is read from and
//! written to the config as text. From one lab's table come the page's controls, the address
//! bar's keys, the lessons' and the instructor's keys, and the validation of every value and
//! its message; nothing about a setting is written twice.
//!
//! A value is refused with a message, never clamped silently. A link's values are applied in
//! the table's order, not the link's, so that a choice (say, the defence) is in place before the
//! parameters that belong to it; a parameter of a choice that is not in force is accepted and
//! has no effect (its control is hidden, and the link writes back its default).

use crate::limit::Limit;

/// How a setting is edited.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A number within the engine's bound for it; `step` is the control's step.
    Number { step: &'static str, limit: Limit },
    /// One of a list: `(key, label)` pairs.
    Choice(&'static [(&'static str, &'static str)]),
    /// On ("1") or off ("0").
    Toggle,
}

/// One setting of a lab whose engine config is `C`.
pub struct Setting<C: 'static> {
    /// The key in the address bar, the lessons and the instructor's links.
    pub key: &'static str,
    /// Keys older links use for the same setting (read, never written).
    pub aliases: &'static [&'static str],
    pub label: &'static str,
    /// The unit, shown after the label ("" for none).
    pub unit: &'static str,
    /// The "?" text: what the setting does, in the visitor's words.
    pub help: &'static str,
    /// The heading of the panel section the control shows under.
    pub section: &'static str,
    pub kind: Kind,
    /// The value as text, as the control and the link show it.
    pub get: fn(&C) -> String,
    /// Sets the value from text, or says what is wrong with it (without the label: the caller
    /// names the control).
    pub set: fn(&mut C, &str) -> Result<(), String>,
    /// Whether the setting matters with the others as they are (its control shows).
    pub relevant: fn(&C) -> bool,
}

impl<C> Clone for Setting<C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C> Copy for Setting<C> {}

/// A row's reading before its `get` is given: nothing (every value is refused on the way back,
/// so [`check_rows`]'s round trip names the row).
fn unread<C>(_: &C) -> String {
    String::new()
}

/// A row's writing before its `set` is given: every value refused.
fn unwritten<C>(_: &mut C, _: &str) -> Result<(), String> {
    Err("this setting cannot be set (its row has no `set`)".into())
}

/// A row is written as one constructor naming its key, label, section and kind, then what it
/// has besides: `.help(…)`, `.get(…)`, `.set(…)`, and where it needs them `.unit(…)`,
/// `.aliases(…)`, `.relevant(…)`.
impl<C> Setting<C> {
    const fn row(
        key: &'static str,
        label: &'static str,
        section: &'static str,
        kind: Kind,
    ) -> Self {
        Setting {
            key,
            aliases: &[],
            label,
            unit: "",
            help: "",
            section,
            kind,
            get: unread,
            set: unwritten,
            relevant: always,
        }
    }

    /// A number within `limit`, its control stepping by `step`.
    pub const fn number(
        key: &'static str,
        label: &'static str,
        section: &'static str,
        step: &'static str,
        limit: Limit,
    ) -> Self {
        Self::row(key, label, section, Kind::Number { step, limit })
    }

    /// One of `options` (`(key, label)` pairs).
    pub const fn choice(
        key: &'static str,
        label: &'static str,
        section: &'static str,
        options: &'static [(&'static str, &'static str)],
    ) -> Self {
        Self::row(key, label, section, Kind::Choice(options))
    }

    /// On or off.
    pub const fn toggle(key: &'static str, label: &'static str, section: &'static str) -> Self {
        Self::row(key, label, section, Kind::Toggle)
    }

    pub const fn help(mut self, help: &'static str) -> Self {
        self.help = help;
        self
    }

    pub const fn unit(mut self, unit: &'static str) -> Self {
        self.unit = unit;
        self
    }

    pub const fn aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }

    pub const fn get(mut self, get: fn(&C) -> String) -> Self {
        self.get = get;
        self
    }

    pub const fn set(mut self, set: fn(&mut C, &str) -> Result<(), String>) -> Self {
        self.set = set;
        self
    }

    pub const fn relevant(mut self, relevant: fn(&C) -> bool) -> Self {
        self.relevant = relevant;
        self
    }
}

impl<C> Setting<C> {
    /// The label with its unit: "Bandwidth h (m)".
    pub fn title(&self) -> String {
        if self.unit.is_empty() {
            self.label.to_string()
        } else {
            format!("{} ({})", self.label, self.unit)
        }
    }

    /// Whether `key` names this setting (its key or an alias).
    pub fn answers_to(&self, key: &str) -> bool {
        self.key == key || self.aliases.contains(&key)
    }
}

/// Always relevant (the default for [`Setting::relevant`]).
pub fn always<C>(_: &C) -> bool {
    true
}

/// The setting `key` (or an alias of it) of `table`.
pub fn find<'a, C>(table: &'a [Setting<C>], key: &str) -> Option<&'a Setting<C>> {
    table.iter().find(|s| s.answers_to(key))
}

/// The value of `key` as text ("" for an unknown key).
pub fn get<C>(table: &[Setting<C>], config: &C, key: &str) -> String {
    find(table, key).map_or(String::new(), |s| (s.get)(config))
}

/// Sets `key` of `config` from text; an absurd value is refused with a message naming the
/// control, and the config is left as it was.
pub fn set<C: Clone>(
    table: &[Setting<C>],
    config: &mut C,
    key: &str,
    value: &str,
) -> Result<(), String> {
    let setting = find(table, key).ok_or_else(|| format!("unknown setting “{key}”"))?;
    let mut next = config.clone();
    (setting.set)(&mut next, value).map_err(|e| format!("{}: {e}", setting.title()))?;
    *config = next;
    Ok(())
}

/// Applies `pairs` (a link's, or a lesson step's) to `config` in the table's order — a choice
/// before the parameters that belong to it, the last of two values for one setting winning —
/// and returns what was refused, in the order of `pairs`. Keys not in the table are left out.
pub fn apply<C: Clone>(
    table: &[Setting<C>],
    config: &mut C,
    pairs: &[(&str, &str)],
) -> Vec<String> {
    apply_at(table, config, pairs)
        .into_iter()
        .map(|(_, e)| e)
        .collect()
}

/// [`apply`], each problem with the place in `pairs` of the value refused (for a caller that
/// merges problems of its own in the link's order).
pub fn apply_at<C: Clone>(
    table: &[Setting<C>],
    config: &mut C,
    pairs: &[(&str, &str)],
) -> Vec<(usize, String)> {
    let mut problems: Vec<(usize, String)> = Vec::new();
    for setting in table {
        for (at, (_, value)) in pairs
            .iter()
            .enumerate()
            .filter(|(_, (k, _))| setting.answers_to(k))
        {
            if let Err(e) = set(table, config, setting.key, value) {
                problems.push((at, e));
            }
        }
    }
    crate::order::sort_by_key(&mut problems, |(at, _)| *at);
    problems
}

/// Every setting as `key=value`, in the table's order.
pub fn pairs<C>(table: &[Setting<C>], config: &C) -> Vec<String> {
    table
        .iter()
        .map(|s| format!("{}={}", s.key, (s.get)(config)))
        .collect()
}

/// What is missing from a table, if anything: every setting needs a key, a label, a help text
/// and a section; a number a bound that is not empty; a choice at least two options, each
/// with a label; no two settings may answer to the same key. Each lab's tests call it.
pub fn check_table<C>(table: &[Setting<C>]) -> Result<(), String> {
    for (i, s) in table.iter().enumerate() {
        let what = if s.key.is_empty() { "a setting" } else { s.key };
        if s.key.is_empty() || s.label.is_empty() || s.help.is_empty() || s.section.is_empty() {
            return Err(format!(
                "{what}: key, label, help and section are all needed"
            ));
        }
        match s.kind {
            Kind::Number { limit, .. }
                if limit.min.is_nan()
                    || limit.max.is_nan()
                    || limit.min > limit.max
                    || limit.text.is_empty() =>
            {
                return Err(format!("{what}: its bound is empty or unnamed"));
            }
            Kind::Choice(options)
                if options.len() < 2
                    || options.iter().any(|(k, l)| k.is_empty() || l.is_empty()) =>
            {
                return Err(format!(
                    "{what}: a choice needs two or more labelled options"
                ));
            }
            _ => {}
        }
        let keys = std::iter::once(s.key).chain(s.aliases.iter().copied());
        for key in keys {
            if table[..i].iter().any(|other| other.answers_to(key)) {
                return Err(format!("“{key}” names two settings"));
            }
        }
    }
    Ok(())
}

/// A number within `limit`, or what is wrong with it.
pub fn number(value: &str, limit: &Limit) -> Result<f64, String> {
    within(value, limit, |v| v)
}

/// `value` as a number whose form `as_used` (the value the engine will use) lies in `limit`;
/// a refusal names the bound and the value (issue 39, "Bad input").
pub fn within(value: &str, limit: &Limit, as_used: fn(f64) -> f64) -> Result<f64, String> {
    let v: f64 = value
        .trim()
        .parse()
        .map_err(|_| format!("“{value}” is not a number"))?;
    if limit.contains(as_used(v)) {
        Ok(v)
    } else {
        Err(format!("must be {} (not {})", limit.text, value.trim()))
    }
}

/// On or off.
pub fn flag(value: &str) -> Result<bool, String> {
    match value {
        "1" | "true" | "on" => Ok(true),
        "0" | "false" | "off" => Ok(false),
        _ => Err("must be 1 or 0".into()),
    }
}

/// A flag as the link writes it.
pub fn flag_text(on: bool) -> String {
    if on { "1" } else { "0" }.into()
}

/// A number as the link and the controls show it (the shortest form that reads back the same).
pub fn trim(x: f64) -> String {
    format!("{x}")
}

/// An engine enum whose values have a key (in links, lessons and configs) and a label (in the
/// page's menus); made by [`choices!`](crate::choices).
pub trait Choices: Copy + PartialEq + Sized + 'static {
    /// Every value with its key and label, in the menu's order.
    const ALL: &'static [(Self, &'static str, &'static str)];
    /// The `(key, label)` pairs of a [`Kind::Choice`].
    const MENU: &'static [(&'static str, &'static str)];
    /// What a value is, for messages ("a scheme").
    const WHAT: &'static str;

    fn key(&self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(v, _, _)| v == self)
            .map_or("", |x| x.1)
    }

    fn label(&self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(v, _, _)| v == self)
            .map_or("", |x| x.2)
    }

    /// The value whose key is `key`, or what is wrong.
    fn parse(key: &str) -> Result<Self, String> {
        Self::ALL
            .iter()
            .find(|(_, k, _)| *k == key)
            .map(|x| x.0)
            .ok_or_else(|| {
                let keys: Vec<&str> = Self::ALL.iter().map(|x| x.1).collect();
                format!("“{key}” is not {} ({})", Self::WHAT, keys.join(", "))
            })
    }
}

/// Gives an engine enum its keys and labels, once:
///
/// ```
/// #[derive(Clone, Copy, PartialEq, Debug)]
/// enum Moment { Night, Day }
/// whereabouts_core::choices!(Moment, "a moment", {
///     Moment::Night => "night", "Night: at home";
///     Moment::Day => "day", "Day: at work";
/// });
/// use whereabouts_core::setting::Choices;
/// assert_eq!(Moment::parse("day"), Ok(Moment::Day));
/// assert_eq!(Moment::Night.label(), "Night: at home");
/// ```
#[macro_export]
macro_rules! choices {
    ($ty:ty, $what:literal, { $($value:expr => $key:literal, $label:literal;)+ }) => {
        impl $crate::setting::Choices for $ty {
            const ALL: &'static [(Self, &'static str, &'static str)] = &[$(($value, $key, $label)),+];
            const MENU: &'static [(&'static str, &'static str)] = &[$(($key, $label)),+];
            const WHAT: &'static str = $what;
        }
    };
}

/// The seed's row, which every lab has: a `row` (`Setting<the lab's config>`) with `key`, shown
/// in `section`, `help` saying what it seeds; on a config's `seed: u64`, within [`crate::limit::SEED`] (what a link carries).
#[macro_export]
macro_rules! seed_setting {
    ($row:ty, $key:literal, $section:expr, $help:literal) => {
        <$row>::number($key, "Seed", $section, "1", $crate::limit::SEED)
            .help($help)
            .get(|c| c.seed.to_string())
            .set(|c, v| {
                c.seed = $crate::setting::number(v, &$crate::limit::SEED)? as u64;
                Ok(())
            })
    };
}

/// What every lab's settings test checks of its table: [`check_table`]; every row in one of
/// `sections` and its key with the lab's `prefix`; `changed` (a config with many settings away
/// from `base`) written as a link and read back over `base` to itself; each of `absurd`
/// refused with the row's title leading the message, the config left as it was. Panics with
/// what failed.
pub fn check_rows<C: Clone + PartialEq + core::fmt::Debug>(
    table: &[Setting<C>],
    sections: &[&str],
    prefix: &str,
    base: &C,
    changed: &C,
    absurd: &[(&str, &str)],
) {
    assert_eq!(check_table(table), Ok(()));
    for s in table {
        assert!(sections.contains(&s.section), "{}: its section", s.key);
        assert!(s.key.starts_with(prefix), "{}: its prefix", s.key);
    }
    let text = pairs(table, changed);
    let given: Vec<(&str, &str)> = text.iter().filter_map(|p| p.split_once('=')).collect();
    let mut back = base.clone();
    let problems = apply(table, &mut back, &given);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(&back, changed, "read back from {text:?}");
    let mut c = base.clone();
    for (key, bad) in absurd {
        let e = set(table, &mut c, key, bad).expect_err(&format!("{key}={bad} refused"));
        let title = find(table, key).expect("a row").title();
        assert!(e.starts_with(&title), "{key}={bad}: {e}");
    }
    assert_eq!(&c, base, "a refused value changes nothing");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limit::whole;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Mode {
        Plain,
        Noisy,
    }
    crate::choices!(Mode, "a mode", {
        Mode::Plain => "plain", "Plain";
        Mode::Noisy => "noisy", "With noise";
    });

    #[derive(Clone, Debug, PartialEq)]
    struct Config {
        n: usize,
        mode: Mode,
        /// Only with `Mode::Noisy`.
        sigma: Option<u32>,
    }

    const N: Limit = whole(1.0, 10.0, "a whole number from 1 to 10");
    const SIGMA: Limit = whole(1.0, 9.0, "a whole number from 1 to 9");

    type Row = Setting<Config>;

    const TABLE: &[Row] = &[
        Row::choice("mode", "Mode", "A", Mode::MENU)
            .help("How.")
            .get(|c| c.mode.key().into())
            .set(|c, v| {
                let mode = Mode::parse(v)?;
                if mode != c.mode {
                    c.mode = mode;
                    c.sigma = (mode == Mode::Noisy).then_some(2);
                }
                Ok(())
            }),
        Row::number("sigma", "Noise", "A", "1", SIGMA)
            .help("How much.")
            .get(|c| c.sigma.unwrap_or(2).to_string())
            .set(|c, v| {
                let s = number(v, &SIGMA)? as u32;
                if let Some(sigma) = c.sigma.as_mut() {
                    *sigma = s;
                }
                Ok(())
            })
            .relevant(|c| c.mode == Mode::Noisy),
        Row::number("n", "Count", "B", "1", N)
            .unit("people")
            .aliases(&["count"])
            .help("How many.")
            .get(|c| c.n.to_string())
            .set(|c, v| {
                c.n = number(v, &N)? as usize;
                Ok(())
            }),
    ];

    fn plain() -> Config {
        Config {
            n: 3,
            mode: Mode::Plain,
            sigma: None,
        }
    }

    #[test]
    fn a_link_is_applied_in_the_tables_order_and_its_problems_in_its_own() {
        // The parameter comes first in the link, its choice after it: it still applies.
        let mut c = plain();
        let problems = apply(
            TABLE,
            &mut c,
            &[
                ("n", "11"),
                ("sigma", "7"),
                ("mode", "noisy"),
                ("count", "x"),
                ("other", "1"),
            ],
        );
        assert_eq!(
            c,
            Config {
                n: 3,
                mode: Mode::Noisy,
                sigma: Some(7)
            }
        );
        assert_eq!(
            problems,
            vec![
                "Count (people): must be a whole number from 1 to 10 (not 11)".to_string(),
                "Count (people): “x” is not a number".to_string()
            ]
        );
        // The last of two values wins; an alias is read.
        let mut c = plain();
        assert!(apply(TABLE, &mut c, &[("n", "4"), ("count", "5")]).is_empty());
        assert_eq!(c.n, 5);
        assert_eq!(pairs(TABLE, &c), ["mode=plain", "sigma=2", "n=5"]);
        // A parameter of a choice not in force has no effect.
        assert!(set(TABLE, &mut c, "sigma", "9").is_ok());
        assert_eq!(c, Config { n: 5, ..plain() });
        assert!(!(TABLE[1].relevant)(&c));
    }

    #[test]
    fn a_table_without_a_help_text_or_with_a_key_twice_is_named() {
        assert_eq!(check_table(TABLE), Ok(()));
        let mut broken = TABLE.to_vec();
        broken[1].help = "";
        assert!(check_table(&broken).unwrap_err().starts_with("sigma"));
        let mut twice = TABLE.to_vec();
        twice[2].aliases = &["mode"];
        assert_eq!(
            check_table(&twice).unwrap_err(),
            "“mode” names two settings"
        );
    }

    #[test]
    fn a_refused_value_leaves_the_config_and_names_the_control() {
        let mut c = plain();
        let e = set(TABLE, &mut c, "mode", "loud").unwrap_err();
        assert_eq!(e, "Mode: “loud” is not a mode (plain, noisy)");
        assert_eq!(
            set(TABLE, &mut c, "bogus", "1").unwrap_err(),
            "unknown setting “bogus”"
        );
        assert_eq!(c, plain());
        assert_eq!(get(TABLE, &c, "count"), "3");
        assert_eq!(Mode::Noisy.key(), "noisy");
        assert_eq!(Mode::Noisy.label(), "With noise");
        assert_eq!(Mode::MENU, &[("plain", "Plain"), ("noisy", "With noise")]);
        assert_eq!(flag("on"), Ok(true));
        assert_eq!(flag_text(false), "0");
        assert_eq!(trim(0.5), "0.5");
    }

    // Native only: a panic aborts a wasm test, it cannot be caught there.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_labs_row_check_passes_a_good_table_and_catches_a_value_let_through() {
        let noisy = Config {
            n: 7,
            mode: Mode::Noisy,
            sigma: Some(4),
        };
        check_rows(
            TABLE,
            &["A", "B"],
            "",
            &plain(),
            &noisy,
            &[("n", "0"), ("mode", "x")],
        );
        // A value the table accepts is not an absurd one: the check says so.
        let caught = std::panic::catch_unwind(|| {
            check_rows(TABLE, &["A", "B"], "", &plain(), &noisy, &[("n", "5")])
        });
        assert!(caught.is_err());
        // A row outside the sections named is caught too.
        let caught =
            std::panic::catch_unwind(|| check_rows(TABLE, &["A"], "", &plain(), &noisy, &[]));
        assert!(caught.is_err());
        // So is a row that was never told how to read or write its value.
        let mut unread = TABLE.to_vec();
        unread[2] = Row::number("n", "Count", "B", "1", N).help("How many.");
        let caught = std::panic::catch_unwind(|| {
            check_rows(&unread, &["A", "B"], "", &plain(), &noisy, &[])
        });
        assert!(caught.is_err());
        assert_eq!((unread[2].get)(&plain()), "");
        assert!((unread[2].set)(&mut plain(), "3").is_err());
    }
}
