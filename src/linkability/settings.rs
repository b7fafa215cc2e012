//! The Linkability lab's link: its settings are the engine's rows
//! ([`whereabouts_engine::linkability::settings`]) on a [`LinkConfig`]; what is the page's own is
//! how a run's config is made from them — the path drawn in the Signal map filled in from the
//! link's `path`, the visitor's file left for the worker to put in.

use crate::ui::settings::{Link, read_link, write_link};
use whereabouts_core::geo::Metres;
use whereabouts_engine::linkability::config::{LinkConfig, You};
use whereabouts_engine::linkability::settings::{CONTROL_GROUPS, HIDE_KEY, SETTINGS, lab_default};

/// The lab's part of the query string: every setting, hidden controls.
pub fn to_query(config: &LinkConfig, hidden: &[String]) -> String {
    write_link(SETTINGS, config, &[], HIDE_KEY, hidden)
}

/// Reads the lab's keys from a query string (others' are left alone); a bad value keeps the
/// default and is reported.
pub fn from_query(query: &str) -> Link<LinkConfig> {
    read_link(
        SETTINGS,
        "l.",
        HIDE_KEY,
        &[],
        CONTROL_GROUPS,
        lab_default(),
        query,
    )
}

/// The config a run is started with, and whether the worker puts the visitor's file in; or
/// what is wrong. `drawn` is the path drawn in the Signal map, if the link has one.
pub fn run_config(
    config: &LinkConfig,
    drawn: Option<&[Metres]>,
) -> Result<(LinkConfig, bool), String> {
    let mut run = config.clone();
    let use_data = match &mut run.you {
        // The worker holds the file: it replaces `you` with it.
        You::File { .. } => {
            run.you = You::Synthetic;
            true
        }
        You::Path { trajectory } if trajectory.waypoints.is_empty() => {
            trajectory.waypoints = drawn
                .filter(|p| !p.is_empty())
                .ok_or("You are: no path drawn yet — draw one in the Signal-map lab")?
                .to_vec();
            false
        }
        _ => false,
    };
    run.validate().map_err(|e| e.to_string())?;
    Ok((run, use_data))
}

/// Whether the settings are valid, the visitor's path or file aside (they come at the start).
pub fn check(config: &LinkConfig) -> Result<(), String> {
    let mut c = config.clone();
    if matches!(&c.you, You::File { .. })
        || matches!(&c.you, You::Path { trajectory } if trajectory.waypoints.is_empty())
    {
        c.you = You::Synthetic;
    }
    c.validate().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use whereabouts_core::setting::set;
    use whereabouts_engine::linkability::config::Mitigation;

    #[test]
    fn the_link_round_trips_and_a_run_fills_in_the_drawn_path_or_leaves_the_file() {
        let mut c = lab_default();
        set(SETTINGS, &mut c, "l.mitigation", "mm-aug").unwrap();
        set(SETTINGS, &mut c, "l.alpha", "2").unwrap();
        set(SETTINGS, &mut c, "l.you", "commute").unwrap();
        let q = to_query(&c, &["l.study".into()]);
        let back = from_query(&format!("lab=linkability&T=6&d.B=3&{q}"));
        assert_eq!(back.config, c);
        assert_eq!(back.hidden, vec!["l.study".to_string()]);
        assert!(back.problems.is_empty(), "{:?}", back.problems);
        let (run, use_data) = run_config(&c, None).unwrap();
        assert_eq!(run.mitigation, Mitigation::MmAug { alpha: 2.0 });
        assert_eq!((run, use_data), (c.clone(), false));

        set(SETTINGS, &mut c, "l.you", "drawn").unwrap();
        assert!(run_config(&c, None).unwrap_err().contains("Signal-map lab"));
        let (run, _) = run_config(&c, Some(&[Metres::new(10.0, 20.0)])).unwrap();
        assert!(matches!(&run.you, You::Path { trajectory } if trajectory.waypoints.len() == 1));

        set(SETTINGS, &mut c, "l.you", "file").unwrap();
        let (run, use_data) = run_config(&c, None).unwrap();
        assert_eq!((run.you, use_data), (You::Synthetic, true));
        let bad = from_query("l.people=abc&l.bogus=1");
        assert_eq!(bad.problems.len(), 2, "{:?}", bad.problems);
        assert_eq!(bad.problems[1].1, "unknown setting “l.bogus”");
    }
}
