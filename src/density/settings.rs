//! The Density lab's link: its settings are the engine's rows
//! ([`whereabouts_engine::density::settings`]) on a [`DensityConfig`]; what is the page's own is
//! the visitor's places (`d.places`) and how the link carries them.

use crate::ui::settings::{read_link, write_link};
use whereabouts_core::geo::Metres;
use whereabouts_engine::density::DensityConfig;
use whereabouts_engine::density::limits;
use whereabouts_engine::density::settings::{CONTROL_GROUPS, HIDE_KEY, SETTINGS};

/// The link's key for the visitor's places.
pub const PLACES_KEY: &str = "d.places";

/// `config` with the visitor at `places` (rounded to whole metres, as the link carries them).
pub fn with_places(config: &DensityConfig, places: &[Metres]) -> DensityConfig {
    DensityConfig {
        visitor: places
            .iter()
            .map(|p| Metres::new(p.east.round(), p.north.round()))
            .collect(),
        ..config.clone()
    }
}

/// The lab's part of the query string: every setting, the places, hidden controls.
pub fn to_query(config: &DensityConfig, places: &[Metres], hidden: &[String]) -> String {
    let own = [format!("{PLACES_KEY}={}", encode_places(places))];
    write_link(SETTINGS, config, &own, HIDE_KEY, hidden)
}

/// Reads the lab's keys from a query string (others' are left alone); a bad value keeps the
/// default and is reported, in the link's order.
pub fn from_query(query: &str) -> FromQuery {
    let mut link = read_link(
        SETTINGS,
        "d.",
        HIDE_KEY,
        &[PLACES_KEY],
        CONTROL_GROUPS,
        DensityConfig::default(),
        query,
    );
    let places = link.own(query, PLACES_KEY, decode_places);
    FromQuery {
        problems: link.messages(),
        settings: link.config,
        places,
        hidden: link.hidden,
    }
}

/// What a link said to the Density lab.
#[derive(Clone, Debug, PartialEq)]
pub struct FromQuery {
    pub settings: DensityConfig,
    pub places: Option<Vec<Metres>>,
    pub hidden: Vec<String>,
    pub problems: Vec<String>,
}

/// Places as `east_north,east_north` in whole metres (readable, and short for five places).
pub fn encode_places(places: &[Metres]) -> String {
    places
        .iter()
        .map(|p| format!("{:.0}_{:.0}", p.east.round(), p.north.round()))
        .collect::<Vec<_>>()
        .join(",")
}

/// The inverse of [`encode_places`]; what is wrong with a bad one.
pub fn decode_places(text: &str) -> Result<Vec<Metres>, String> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let half = DensityConfig::default().city_half_m;
    let places: Vec<Metres> = text
        .split(',')
        .map(|pair| {
            let (e, n) = pair
                .split_once('_')
                .ok_or_else(|| format!("Your places: “{pair}” is not east_north"))?;
            let parse = |v: &str| -> Result<f64, String> {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && x.abs() <= half)
                    .ok_or_else(|| {
                        format!("Your places: “{pair}” is not within the city (±{half:.0} m)")
                    })
            };
            Ok(Metres::new(parse(e)?, parse(n)?))
        })
        .collect::<Result<_, String>>()?;
    if places.len() > limits::MAX_VISITOR_PLACES {
        return Err(format!(
            "Your places: {} given, the lab takes at most {}",
            places.len(),
            limits::MAX_VISITOR_PLACES
        ));
    }
    Ok(places)
}

#[cfg(test)]
mod tests {
    use super::*;
    use whereabouts_engine::density::{Attack, Persistence, Scheme};

    #[test]
    fn the_link_round_trips_with_the_places_and_names_bad_ones() {
        let c = DensityConfig {
            scheme: Scheme::GeoInd {
                epsilon_per_m: 0.003,
            },
            persistence: Persistence::Redrawn,
            attack: Attack::FitPrior,
            ..DensityConfig::default()
        };
        let places = vec![Metres::new(-1200.0, 300.0), Metres::new(15.0, -3999.0)];
        let q = to_query(&c, &places, &["d.study".into()]);
        let back = from_query(&format!("lab=density&T=6&{q}"));
        assert_eq!(back.settings, c);
        assert_eq!(back.places, Some(places.clone()));
        assert_eq!(back.hidden, vec!["d.study".to_string()]);
        assert!(back.problems.is_empty(), "{:?}", back.problems);
        assert!(with_places(&c, &places).validate().is_ok());
        let bad = from_query("d.places=1_2,99999_0&d.N=abc&d.bogus=1");
        assert_eq!(bad.problems.len(), 3, "{:?}", bad.problems);
        assert!(bad.problems[0].contains("within the city"));
        assert_eq!(bad.problems[2], "unknown setting “d.bogus”");
        assert_eq!(bad.places, None);
    }
}
