//! The Signal-map lab's link: its settings are the engine's rows
//! ([`whereabouts_engine::signal_map::settings`]) on a [`ScenarioConfig`]; what is the page's
//! own is the drawn path in the link (`path`) and the rule for links older than the warm start.
//!
//! A link holds the whole configuration, the seed and the drawn path, so opening it reproduces
//! a run exactly; `hide=key,key` hides controls (the TensorFlow Playground convention for
//! instructors).

use crate::shell::PATH_KEY;
use crate::shell::path_link::{decode_path, encode_path};
use crate::ui::settings::{query_pairs, read_link, write_link};
use whereabouts_core::geo::Metres;
use whereabouts_core::order;
use whereabouts_core::setting::set;
use whereabouts_engine::signal_map::scenario::ScenarioConfig;
use whereabouts_engine::signal_map::settings::{
    CONTROL_GROUPS, HIDE_KEY, SETTINGS, lab_default, with_path,
};

/// The query string (without `?`) for a config, a path and hidden controls.
pub fn to_query(config: &ScenarioConfig, path: &[Metres], hidden: &[String]) -> String {
    let own = [format!("{PATH_KEY}={}", encode_path(path))];
    write_link(SETTINGS, config, &own, HIDE_KEY, hidden)
}

/// Reads a query string. Problems are returned as messages, in the link's order (the default
/// is kept for a bad value), so a mistyped link still opens and says what it ignored.
pub fn from_query(query: &str) -> FromQuery {
    let mut link = read_link(
        SETTINGS,
        "",
        HIDE_KEY,
        &[PATH_KEY],
        CONTROL_GROUPS,
        lab_default(),
        query,
    );
    let path = link.own(query, PATH_KEY, decode_path);
    // The plain keys share the query string with the shell's and the other labs': a key none
    // of them owns is named here.
    let keys: Vec<&str> = query_pairs(query).map(|(k, _)| k).collect();
    // An empty path opens a lab with nothing to run on: say so rather than wait.
    if let (Some(at), Some([])) = (keys.iter().position(|k| *k == PATH_KEY), path.as_deref()) {
        link.problems.push((
            at,
            "path: the link's path is empty: draw where you went on the map".into(),
        ));
    }
    for (at, key) in crate::shell::tabs::unknown_plain_keys(query) {
        link.problems
            .push((at, crate::shell::tabs::unknown_key_message(&key)));
    }
    order::sort_by_key(&mut link.problems, |(at, _)| *at);
    // A link the lab wrote before the warm start existed (it carries a path, never a start)
    // ran from the paper's cold start: it still reproduces that run.
    if keys.contains(&PATH_KEY) && !keys.contains(&"start") {
        set(SETTINGS, &mut link.config, "start", "cold").expect("a start the table offers");
    }
    FromQuery {
        problems: link.messages(),
        config: link.config,
        path,
        hidden: link.hidden,
    }
}

/// What a link said to the Signal map.
#[derive(Clone, Debug, PartialEq)]
pub struct FromQuery {
    pub config: ScenarioConfig,
    pub path: Option<Vec<Metres>>,
    pub hidden: Vec<String>,
    pub problems: Vec<String>,
}

/// The configuration a run uses: the settings on the drawn path, or — when the visitor's file
/// is loaded — on that file (the worker adds its fixes; the world's length follows them).
pub fn config_to_run(config: &ScenarioConfig, path: &[Metres], use_data: bool) -> ScenarioConfig {
    let mut config = with_path(config, path);
    if use_data {
        config.trajectory = None;
        config.world.weeks = None;
    }
    config
}

#[cfg(test)]
mod tests {
    use super::*;
    use whereabouts_engine::signal_map::scenario::OutputBias;

    #[test]
    fn the_shells_and_other_labs_keys_are_not_problems_of_the_signal_map() {
        let q = from_query("?lab=density&seed=4&d.B=3&present=1");
        assert!(q.problems.is_empty(), "{:?}", q.problems);
        assert_eq!(q.config.seed, 4);
    }

    #[test]
    fn a_shared_link_gives_the_same_engine_config() {
        let mut c = lab_default();
        for (key, value) in [("T", "6"), ("bg", "3"), ("def", "farthest"), ("dnum", "7")] {
            set(SETTINGS, &mut c, key, value).unwrap();
        }
        let path = vec![Metres::new(-382.5, 10.25), Metres::new(0.4999, -0.5)];
        let q = from_query(&to_query(&c, &path, &["seed".into(), "playback".into()]));
        assert!(q.problems.is_empty(), "{:?}", q.problems);
        let back = q.path.unwrap();
        assert_eq!(
            back,
            vec![Metres::new(-383.0, 10.0), Metres::new(0.0, -1.0)]
        );
        assert_eq!(
            config_to_run(&q.config, &back, false),
            config_to_run(&c, &path, false)
        );
        assert_eq!(q.hidden, vec!["seed".to_string(), "playback".to_string()]);
    }

    #[test]
    fn a_link_older_than_the_warm_start_still_runs_cold() {
        assert!(to_query(&lab_default(), &[], &[]).contains("start=warm"));
        assert!(from_query("?seed=3").config.warm_start.is_some());
        let old = from_query("?seed=3&path=0.0").config;
        assert_eq!((old.warm_start, old.output_bias), (None, OutputBias::Zero));
        assert!(
            from_query("?start=warm&path=0.0")
                .config
                .warm_start
                .is_some()
        );
        let q = from_query("?start=lukewarm");
        assert!(q.problems[0].contains("You join"), "{:?}", q.problems);
    }

    #[test]
    fn a_link_with_an_empty_path_says_so() {
        for link in ["?path=", "?seed=2&path=~"] {
            let q = from_query(link);
            assert_eq!(q.path, Some(Vec::new()));
            assert!(
                q.problems.iter().any(|p| p.contains("path is empty")),
                "{link}: {:?}",
                q.problems
            );
        }
        assert!(from_query("?path=0.0_10.10").problems.is_empty());
    }

    #[test]
    fn a_bad_link_opens_with_defaults_and_says_why() {
        let q = from_query("?lr=abc&E=3&path=1.2_oops&hide=seed,bogus&nonsense=1");
        assert_eq!(q.config.fl.local.epochs, 3);
        assert_eq!(
            q.config.fl.local.learning_rate,
            lab_default().fl.local.learning_rate
        );
        assert_eq!(q.problems.len(), 3, "{:?}", q.problems);
        assert!(q.problems[1].contains("point 2"));
        assert_eq!(q.problems[2], "unknown setting “nonsense”");
        assert_eq!(q.hidden, vec!["seed".to_string()]);
    }
}
