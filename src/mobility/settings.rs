//! The Mobility lab's link: its settings are the engine's rows
//! ([`whereabouts_engine::mobility::settings`]) on a [`MobConfig`]; what is the page's own is
//! the route the visitor draws (`m.path`) and how the link carries it.

use crate::shell::path_link::{decode_path, encode_path};
use crate::ui::settings::{read_link, write_link};
use whereabouts_core::geo::Metres;
use whereabouts_engine::mobility::config::MobConfig;
use whereabouts_engine::mobility::limits;
use whereabouts_engine::mobility::settings::{CONTROL_GROUPS, HIDE_KEY, SETTINGS, lab_default};
use whereabouts_engine::mobility::traces::{CITY_HALF_H_M, CITY_HALF_W_M, Target};

/// The link's key for the visitor's drawn route.
pub const PATH_KEY: &str = "m.path";

/// The city's corners.
pub fn city() -> (Metres, Metres) {
    (
        Metres::new(-CITY_HALF_W_M, -CITY_HALF_H_M),
        Metres::new(CITY_HALF_W_M, CITY_HALF_H_M),
    )
}

/// Whether the target is the route the visitor draws on the map.
pub fn drawn(config: &MobConfig) -> bool {
    matches!(config.target, Target::Path { .. })
}

/// Whether the target is the visitor's file (the worker puts its points in).
pub fn is_file(config: &MobConfig) -> bool {
    matches!(config.target, Target::Fixes { .. })
}

/// `config` with the visitor's drawn `path` as its route (when the route is the target).
pub fn with_path(config: &MobConfig, path: &[Metres]) -> MobConfig {
    let mut config = config.clone();
    if let Target::Path { waypoints, .. } = &mut config.target {
        *waypoints = path.to_vec();
    }
    config
}

/// What is wrong with `config` for the engine, if anything; the file's points are the worker's
/// to put in and to check.
pub fn validate(config: &MobConfig) -> Result<(), String> {
    if is_file(config) {
        MobConfig {
            target: Target::Synthetic,
            ..config.clone()
        }
        .validate()
    } else {
        config.validate()
    }
}

/// The lab's part of the query string: every setting, the route, hidden controls.
pub fn to_query(config: &MobConfig, path: &[Metres], hidden: &[String]) -> String {
    let own = [format!("{PATH_KEY}={}", encode_path(path))];
    write_link(SETTINGS, config, &own, HIDE_KEY, hidden)
}

/// Reads the lab's keys from a query string over the lab's opening config (others' keys are
/// left alone); a bad value keeps the default and is reported, in the link's order.
pub fn from_query(query: &str) -> FromQuery {
    let mut link = read_link(
        SETTINGS,
        "m.",
        HIDE_KEY,
        &[PATH_KEY],
        CONTROL_GROUPS,
        lab_default(),
        query,
    );
    let path = link.own(query, PATH_KEY, read_path);
    FromQuery {
        problems: link.messages(),
        settings: link.config,
        path,
        hidden: link.hidden,
    }
}

/// A path from the link, within the city and of a length the lab runs.
fn read_path(value: &str) -> Result<Vec<Metres>, String> {
    let path = decode_path(value).map_err(|e| format!("Your path: {e}"))?;
    let (lo, hi) = city();
    if let Some(p) = path
        .iter()
        .find(|p| p.east < lo.east || p.east > hi.east || p.north < lo.north || p.north > hi.north)
    {
        return Err(format!(
            "Your path: the waypoint at ({:.0}, {:.0}) m is outside the city (±{:.0} × ±{:.0} m)",
            p.east, p.north, hi.east, hi.north
        ));
    }
    if !limits::WAYPOINTS.contains(path.len() as f64) {
        return Err(format!(
            "Your path: {} waypoints; it needs {}",
            path.len(),
            limits::WAYPOINTS.text
        ));
    }
    Ok(path)
}

/// What a link said to the Mobility lab.
#[derive(Clone, Debug, PartialEq)]
pub struct FromQuery {
    pub settings: MobConfig,
    pub path: Option<Vec<Metres>>,
    pub hidden: Vec<String>,
    pub problems: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use whereabouts_engine::mobility::config::Method;
    use whereabouts_engine::mobility::defence::{Audit, Defence, DpClip};
    use whereabouts_engine::mobility::settings::default_path;
    use whereabouts_engine::mobility::traces::TraceKind;

    #[test]
    fn the_link_round_trips_with_the_route_and_names_bad_ones() {
        let mut c = lab_default();
        c.seed = 9;
        c.attack.method = Method::InvGrad;
        c.defence = Defence::Adaptive {
            epsilon: 5.0,
            audit: Audit::PreviousRound,
        };
        let path = vec![Metres::new(-1200.0, 300.0), Metres::new(15.0, -3999.0)];
        let q = to_query(&c, &path, &["m.study".into()]);
        let back = from_query(&format!("lab=mobility&T=6&d.N=5&{q}"));
        assert!(back.problems.is_empty(), "{:?}", back.problems);
        assert_eq!(back.settings, c);
        assert_eq!(back.path, Some(path.clone()));
        assert_eq!(back.hidden, vec!["m.study".to_string()]);
        let run = with_path(&back.settings, &path);
        assert!(run.validate().is_ok());
        assert!(
            matches!(run.target, Target::Path { ref waypoints, snap: true } if *waypoints == path)
        );

        let far = encode_path(&[Metres::new(0.0, 0.0), Metres::new(9000.0, 0.0)]);
        let bad = from_query(&format!("m.path={far}&m.T=x&m.bogus=1"));
        assert_eq!(bad.problems.len(), 3, "{:?}", bad.problems);
        assert!(
            bad.problems[0].contains("outside the city"),
            "{:?}",
            bad.problems
        );
        assert_eq!(bad.problems[2], "unknown setting “m.bogus”");
        assert_eq!(bad.path, None);
        let one = encode_path(&[Metres::new(0.0, 0.0)]);
        let bad = from_query(&format!("m.path={one}"));
        assert!(
            bad.problems[0].contains("2 to 10,000"),
            "{:?}",
            bad.problems
        );
    }

    #[test]
    fn dpsgd_in_a_link_is_the_faithful_dp_sgd_and_dpsgd_code_the_authors() {
        let faithful = from_query("m.def=dpsgd&m.eps=5");
        assert!(faithful.problems.is_empty(), "{:?}", faithful.problems);
        assert_eq!(
            faithful.settings.defence,
            Defence::DpSgd {
                epsilon: 5.0,
                clip: DpClip::Flat
            }
        );
        let code = from_query("m.eps=5&m.def=dpsgd_code");
        assert_eq!(
            code.settings.defence,
            Defence::DpSgd {
                epsilon: 5.0,
                clip: DpClip::PerTensor
            }
        );
        assert!(to_query(&code.settings, &default_path(), &[]).contains("m.def=dpsgd_code"));
    }

    #[test]
    fn an_old_link_reads_the_citys_data_and_hides_it_with_the_data_panel() {
        let old = from_query("m.data=checkin&m.hide=m.data,m.seed");
        assert!(old.problems.is_empty(), "{:?}", old.problems);
        assert_eq!(old.settings.data, TraceKind::CheckIn);
        assert_eq!(old.hidden, ["m.data", "m.traces", "m.seed"]);
        let q = to_query(&old.settings, &default_path(), &old.hidden);
        assert!(
            q.contains("m.traces=checkin") && !q.contains("m.data=checkin"),
            "{q}"
        );
        // Written back, it reads the same.
        assert_eq!(from_query(&q).hidden, old.hidden);
        // The file reads back as the file; the page checks the rest of it.
        let file = from_query("m.who=file");
        assert!(is_file(&file.settings) && !drawn(&file.settings));
        assert!(validate(&file.settings).is_ok());
        assert!(
            file.settings.validate().is_err(),
            "no points until the worker's"
        );
        assert!(to_query(&file.settings, &default_path(), &[]).contains("m.who=file"));
    }
}
