//! The Density lab's settings: one field per setting ([`crate::ui::settings`]), keys prefixed
//! `d.` in the shared query string, and how they become an engine [`DensityConfig`].

use crate::ui::settings::{Field as SharedField, Kind, choice, key_of, limited, query_pairs, trim};
use whereabouts_core::geo::Metres;
use whereabouts_core::world::city::Moment;
use whereabouts_engine::density::limits;
use whereabouts_engine::density::{Attack, DensityConfig, Persistence, Scheme};

/// What each phone sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Send {
    /// Random Fourier features ([003] Eq. 7).
    Features,
    /// Its own kernel bump (the baseline federated KDE, Eq. 5).
    Bump,
    /// The bump of a location moved by planar-Laplace noise.
    GeoInd,
}

const SENDS: [(Send, &str); 3] = [
    (Send::Features, "rff"),
    (Send::Bump, "kde"),
    (Send::GeoInd, "geoind"),
];
const MOMENTS: [(Moment, &str); 3] = [
    (Moment::Night, "night"),
    (Moment::Day, "day"),
    (Moment::Evening, "evening"),
];
const BASES: [(Persistence, &str); 2] = [
    (Persistence::Fixed, "fixed"),
    (Persistence::Redrawn, "redrawn"),
];
const ATTACKS: [(Attack, &str); 3] = [
    (Attack::Peak, "peak"),
    (Attack::Fit, "fit"),
    (Attack::FitPrior, "fit_prior"),
];
/// The choices of B the page offers.
pub const FEATURE_CHOICES: [usize; 7] = [0, 1, 2, 3, 5, 10, 50];

/// Everything the visitor can set in the Density lab.
#[derive(Clone, Debug, PartialEq)]
pub struct DensitySettings {
    pub seed: u64,
    pub send: Send,
    /// B.
    pub features: usize,
    pub geo_epsilon_per_m: f64,
    pub bandwidth_m: f64,
    pub grid_side: usize,
    pub population: usize,
    pub moment: Moment,
    pub basis: Persistence,
    pub queries: usize,
    pub attack: Attack,
}

/// The lab opens on the paper's scheme with B = 3 (the smallest B whose peak picking finds
/// most people: the page shows the privacy claims and their limit side by side); the rest is
/// the engine's default run.
impl Default for DensitySettings {
    fn default() -> Self {
        let e = DensityConfig::default();
        DensitySettings {
            seed: e.seed,
            send: Send::Features,
            features: 3,
            geo_epsilon_per_m: 0.01,
            bandwidth_m: e.bandwidth_m,
            grid_side: e.grid_side,
            population: e.population,
            moment: e.moment,
            basis: e.persistence,
            queries: e.queries,
            attack: e.attack,
        }
    }
}

/// Where a control goes in the panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    Phones,
    Server,
    City,
}

pub type Field = SharedField<DensitySettings, Section>;

const SEND_LABELS: &[(&str, &str)] = &[
    ("rff", "Random features"),
    ("kde", "Its own bump"),
    ("geoind", "GeoInd bump"),
];
const FEATURE_LABELS: &[(&str, &str)] = &[
    ("0", "0 (nothing)"),
    ("1", "1"),
    ("2", "2"),
    ("3", "3"),
    ("5", "5"),
    ("10", "10"),
    ("50", "50"),
];
const MOMENT_LABELS: &[(&str, &str)] = &[
    ("night", "Night: at home"),
    ("day", "Day: at work"),
    ("evening", "Evening: out"),
];
const ATTACK_LABELS: &[(&str, &str)] = &[
    ("peak", "Peak picking (the paper's)"),
    ("fit", "Frequency fitting"),
    ("fit_prior", "Fitting + density prior"),
];
const BASIS_LABELS: &[(&str, &str)] = &[("fixed", "Kept"), ("redrawn", "Redrawn")];
const GRID_LABELS: &[(&str, &str)] = &[
    ("64", "64 × 64"),
    ("128", "128 × 128"),
    ("256", "256 × 256"),
];

pub const FIELDS: &[Field] = &[
    Field {
        key: "d.send",
        label: "Each phone sends",
        help: "What your phone uploads when the server asks for the density. Random features: the sum of B cosine waves of its own, kept secret, centred on you ([003] Eq. 7). Its own bump: your kernel bump on the grid, the baseline federated KDE (Eq. 5) — exact density, and the server sees exactly where you are. GeoInd: the bump of a location moved by planar-Laplace noise.",
        kind: Kind::Select(SEND_LABELS),
        get: |s| key_of(&SENDS, &s.send).into(),
        set: |s, v| {
            s.send = choice(&SENDS, v, "a scheme")?;
            Ok(())
        },
        section: Section::Phones,
    },
    Field {
        key: "d.B",
        label: "Random features B",
        help: "How many cosine waves each phone sends, each with a random frequency of its own drawn once from N(0, h⁻²) and kept. Summed over everyone, the waves average into the city's density (more waves: a better map); in one upload your location is a peak as high as B — with B = 1 a whole ridge is as high, with B = 2 a lattice of peaks; from about B = 3 yours stands out. B = 0 sends nothing: the server can only guess.",
        kind: Kind::Select(FEATURE_LABELS),
        get: |s| s.features.to_string(),
        set: |s, v| {
            let b = limited(v, &limits::FEATURES)? as usize;
            if !FEATURE_CHOICES.contains(&b) {
                return Err("must be one of 0, 1, 2, 3, 5, 10, 50".into());
            }
            s.features = b;
            Ok(())
        },
        section: Section::Phones,
    },
    Field {
        key: "d.eps",
        label: "GeoInd ε (per m)",
        help: "Planar-Laplace noise on each location before its bump is sent: the mean shift is 2/ε (0.01 per m: 200 m). Smaller ε: more privacy, a blurrier map.",
        kind: Kind::Number {
            step: "0.001",
            limit: limits::GEOIND_EPSILON_PER_M,
        },
        get: |s| trim(s.geo_epsilon_per_m),
        set: |s, v| {
            s.geo_epsilon_per_m = limited(v, &limits::GEOIND_EPSILON_PER_M)?;
            Ok(())
        },
        section: Section::Phones,
    },
    Field {
        key: "d.basis",
        label: "Random waves between queries",
        help: "Kept: each phone draws its waves once and answers every query with them (the paper's rule): asking again gives the same upload and nothing new. Drawn anew: the ablation — each answer has new waves, the server averages them, and only your own peak stays in the same place.",
        kind: Kind::Select(BASIS_LABELS),
        get: |s| key_of(&BASES, &s.basis).into(),
        set: |s, v| {
            s.basis = choice(&BASES, v, "a rule")?;
            Ok(())
        },
        section: Section::Phones,
    },
    Field {
        key: "d.attack",
        label: "The server's attack",
        help: "How the server reads one upload. Peak picking, the paper's attacker: the grid's highest cell, ties at random. Frequency fitting, stronger: it estimates your B waves' directions and offsets from the upload (an FFT, then least squares), so it knows your surface everywhere and takes its true top — with 3 or more waves that is you, to the metre. With the density prior: where several places are as high (a ridge for B = 1, a lattice for B = 2), it picks the one where the density it published says people are. Against GeoInd, the prior remaps the noisy report towards where people are.",
        kind: Kind::Select(ATTACK_LABELS),
        get: |s| key_of(&ATTACKS, &s.attack).into(),
        set: |s, v| {
            s.attack = choice(&ATTACKS, v, "an attack")?;
            Ok(())
        },
        section: Section::Server,
    },
    Field {
        key: "d.asks",
        label: "Times the server asks",
        help: "How many times the server asks each phone for its upload; it attacks the mean of the answers. “Ask again” adds one.",
        kind: Kind::Number {
            step: "1",
            limit: limits::QUERIES,
        },
        get: |s| s.queries.to_string(),
        set: |s, v| {
            s.queries = limited(v, &limits::QUERIES)? as usize;
            Ok(())
        },
        section: Section::Server,
    },
    Field {
        key: "d.h",
        label: "Bandwidth h (m)",
        help: "The kernel's width: how far one person's share of the density spreads (the Gaussian exp(−d²/2h²), [003] Eq. 1). The random frequencies are drawn at the scale 1/h, so h is also the width of an upload's ridges.",
        kind: Kind::Number {
            step: "50",
            limit: limits::BANDWIDTH_M,
        },
        get: |s| trim(s.bandwidth_m),
        set: |s, v| {
            s.bandwidth_m = limited(v, &limits::BANDWIDTH_M)?;
            Ok(())
        },
        section: Section::Server,
    },
    Field {
        key: "d.grid",
        label: "Grid",
        help: "The points at which the server asks for the density (the city is 8 km across: 128 cells are 62.5 m each). Every upload is a value per grid point.",
        kind: Kind::Select(GRID_LABELS),
        get: |s| s.grid_side.to_string(),
        set: |s, v| {
            let side = limited(v, &limits::GRID_SIDE)? as usize;
            if ![64, 128, 256].contains(&side) {
                return Err("must be 64, 128 or 256".into());
            }
            s.grid_side = side;
            Ok(())
        },
        section: Section::Server,
    },
    Field {
        key: "d.N",
        label: "People in the city N",
        help: "Synthetic residents of the city, clustered in neighbourhoods (homes), business districts (work) and a few hot spots (evenings). You come on top.",
        kind: Kind::Number {
            step: "1000",
            limit: limits::POPULATION,
        },
        get: |s| s.population.to_string(),
        set: |s, v| {
            s.population = limited(v, &limits::POPULATION)? as usize;
            Ok(())
        },
        section: Section::City,
    },
    Field {
        key: "d.when",
        label: "When the server asks",
        help: "Where the residents are: at home at night, at work by day, out in the evening. The density — and the prior a server can use — changes with it.",
        kind: Kind::Select(MOMENT_LABELS),
        get: |s| key_of(&MOMENTS, &s.moment).into(),
        set: |s, v| {
            s.moment = choice(&MOMENTS, v, "a moment")?;
            Ok(())
        },
        section: Section::City,
    },
    Field {
        key: "d.seed",
        label: "Seed",
        help: "Everything random (the city, everyone's waves, the noise) comes from this number: the same seed gives the same run.",
        kind: Kind::Number {
            step: "1",
            limit: limits::SEED,
        },
        get: |s| s.seed.to_string(),
        set: |s, v| {
            s.seed = limited(v, &limits::SEED)? as u64;
            Ok(())
        },
        section: Section::City,
    },
];

/// Hideable groups besides the fields.
pub const CONTROL_GROUPS: &[&str] = &["d.places", "d.study", "d.layers", "d.data"];

impl DensitySettings {
    pub fn get(&self, key: &str) -> String {
        crate::ui::settings::get_field(FIELDS, self, key)
    }

    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        crate::ui::settings::set_field(FIELDS, self, key, value)
    }

    /// Whether a control matters with the others.
    pub fn relevant(&self, key: &str) -> bool {
        match key {
            "d.B" => self.send == Send::Features,
            "d.eps" => self.send == Send::GeoInd,
            "d.basis" => self.send != Send::Bump,
            "d.attack" => self.send != Send::Bump,
            _ => true,
        }
    }

    pub fn scheme(&self) -> Scheme {
        match self.send {
            Send::Features => Scheme::Rff {
                features: self.features,
            },
            Send::Bump => Scheme::Kde,
            Send::GeoInd => Scheme::GeoInd {
                epsilon_per_m: self.geo_epsilon_per_m,
            },
        }
    }

    /// The engine configuration with the visitor at `places` (rounded to whole metres, as the
    /// link carries them).
    pub fn to_config(&self, places: &[Metres]) -> DensityConfig {
        DensityConfig {
            seed: self.seed,
            population: self.population,
            moment: self.moment,
            grid_side: self.grid_side,
            bandwidth_m: self.bandwidth_m,
            scheme: self.scheme(),
            persistence: self.basis,
            queries: self.queries,
            attack: self.attack,
            visitor: places
                .iter()
                .map(|p| Metres::new(p.east.round(), p.north.round()))
                .collect(),
            ..DensityConfig::default()
        }
    }

    /// The lab's part of the query string: every setting, the places, hidden controls.
    pub fn to_query(&self, places: &[Metres], hidden: &[String]) -> String {
        let mut parts: Vec<String> = FIELDS
            .iter()
            .map(|f| format!("{}={}", f.key, self.get(f.key)))
            .collect();
        parts.push(format!("d.places={}", encode_places(places)));
        if !hidden.is_empty() {
            parts.push(format!("d.hide={}", hidden.join(",")));
        }
        parts.join("&")
    }

    /// Reads the lab's keys from a query string (others' are left alone); a bad value keeps
    /// the default and is reported.
    pub fn from_query(query: &str) -> FromQuery {
        let mut out = FromQuery {
            settings: DensitySettings::default(),
            places: None,
            hidden: Vec::new(),
            problems: Vec::new(),
        };
        for (key, value) in query_pairs(query) {
            if !key.starts_with("d.") {
                continue;
            }
            match key {
                "d.places" => match decode_places(&value) {
                    Ok(p) => out.places = Some(p),
                    Err(e) => out.problems.push(e),
                },
                "d.hide" => {
                    out.hidden = value
                        .split(',')
                        .filter(|k| {
                            FIELDS.iter().any(|f| f.key == *k) || CONTROL_GROUPS.contains(k)
                        })
                        .map(str::to_string)
                        .collect()
                }
                _ => {
                    if let Err(e) = out.settings.set(key, &value) {
                        out.problems.push(e);
                    }
                }
            }
        }
        out
    }
}

/// What a link said to the Density lab.
#[derive(Clone, Debug, PartialEq)]
pub struct FromQuery {
    pub settings: DensitySettings,
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

    #[test]
    fn every_field_round_trips_through_the_url_and_the_config_is_valid() {
        let s = DensitySettings {
            send: Send::GeoInd,
            features: 10,
            geo_epsilon_per_m: 0.003,
            grid_side: 64,
            moment: Moment::Evening,
            basis: Persistence::Redrawn,
            queries: 4,
            attack: Attack::FitPrior,
            ..DensitySettings::default()
        };
        let places = vec![Metres::new(-1200.0, 300.0), Metres::new(15.0, -3999.0)];
        let q = s.to_query(&places, &["d.study".into()]);
        let back = DensitySettings::from_query(&format!("lab=density&T=6&{q}"));
        assert_eq!(back.settings, s);
        assert_eq!(back.places, Some(places.clone()));
        assert_eq!(back.hidden, vec!["d.study".to_string()]);
        assert!(back.problems.is_empty(), "{:?}", back.problems);
        assert!(s.to_config(&places).validate().is_ok());
        assert!(
            DensitySettings::default()
                .to_config(&places)
                .validate()
                .is_ok()
        );
    }

    #[test]
    fn every_bound_is_the_engines_and_absurd_values_are_named() {
        let mut s = DensitySettings::default();
        for (key, bad) in [
            ("d.N", "0"),
            ("d.N", "50001"),
            ("d.h", "5"),
            ("d.B", "4"),
            ("d.B", "-1"),
            ("d.grid", "100"),
            ("d.asks", "0"),
            ("d.eps", "0"),
            ("d.send", "carrier pigeon"),
            ("d.attack", "guess"),
        ] {
            let e = s.set(key, bad).unwrap_err();
            let label = FIELDS.iter().find(|f| f.key == key).unwrap().label;
            assert!(e.starts_with(label), "{key}: {e}");
        }
        assert_eq!(s, DensitySettings::default());
        // At the engine's own bounds the page and the engine agree.
        s.set("d.N", "50000").unwrap();
        s.set("d.h", "10").unwrap();
        assert!(s.to_config(&[]).validate().is_ok());
        let bad = DensitySettings::from_query("d.places=1_2,99999_0&d.N=abc");
        assert_eq!(bad.problems.len(), 2, "{:?}", bad.problems);
        assert!(bad.problems[0].contains("within the city"));
        assert_eq!(bad.places, None);
    }
}
