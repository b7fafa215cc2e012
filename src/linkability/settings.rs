//! The Linkability lab's settings: one field per setting ([`crate::ui::settings`]), keys prefixed
//! `l.` in the shared query string, and how they become an engine [`LinkConfig`].

use crate::ui::settings::{Field as SharedField, Kind, choice, key_of, limited, query_pairs, trim};
use whereabouts_core::geo::Metres;
use whereabouts_engine::linkability::attack::Identifier;
use whereabouts_engine::linkability::config::{LinkConfig, Mitigation, Split, You};
use whereabouts_engine::linkability::features::Layers;
use whereabouts_engine::linkability::limits;
use whereabouts_engine::signal_map::trajectory::{
    DEFAULT_FIX_MINUTES, DEFAULT_LEG_MINUTES, Trajectory, TrajectoryPreset,
};

/// Who the visitor is, as the page offers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// One of the campus's synthetic people.
    Synthetic,
    /// One of the Signal map's ready-made paths.
    Preset(TrajectoryPreset),
    /// The path drawn in the Signal-map lab (the link's `path`).
    Drawn,
    /// The imported file.
    File,
}

const WHO: [(Who, &str); 7] = [
    (Who::Preset(TrajectoryPreset::Week), "week"),
    (Who::Preset(TrajectoryPreset::Commute), "commute"),
    (Who::Preset(TrajectoryPreset::Weekend), "weekend"),
    (Who::Preset(TrajectoryPreset::StayAtHome), "stay_at_home"),
    (Who::Drawn, "drawn"),
    (Who::File, "file"),
    (Who::Synthetic, "synthetic"),
];
const WHO_LABELS: &[(&str, &str)] = &[
    ("week", "A simple week (5 days)"),
    ("commute", "A commuter's week"),
    ("weekend", "A weekend out"),
    ("stay_at_home", "A stay-at-home week"),
    ("drawn", "The path you drew (Signal map)"),
    ("file", "Your file"),
    ("synthetic", "A campus resident (4 weeks)"),
];
const SPLITS: [(Split, &str); 3] = [
    (Split::Random, "random"),
    (Split::Day, "day"),
    (Split::Chrono, "chrono"),
];
const SPLIT_LABELS: &[(&str, &str)] = &[
    ("random", "Random: phone and tablet together"),
    ("day", "By day: one device a day"),
    ("chrono", "Chronological: a new phone"),
];
const LAYERS: [(Layers, &str); 2] = [(Layers::Last, "last"), (Layers::All, "all")];
const LAYER_LABELS: &[(&str, &str)] = &[
    ("last", "The last layer (the paper's)"),
    ("all", "Every layer"),
];
const ATTACKS: [(Identifier, &str); 5] = [
    (Identifier::Mlp, "mlp"),
    (Identifier::Svm, "svm"),
    (Identifier::Knn, "knn"),
    (Identifier::Place, "place"),
    (Identifier::Chance, "chance"),
];
const ATTACK_LABELS: &[(&str, &str)] = &[
    ("mlp", "MLP (the paper's best)"),
    ("svm", "Linear SVM"),
    ("knn", "k-NN, K = 10"),
    ("place", "By place: Lemma 1 + k-NN"),
    ("chance", "Chance"),
];
/// The mitigations by name (the engine's names).
pub const MITIGATIONS: [&str; 5] = ["none", "noise", "bkg-repl", "rand-aug", "mm-aug"];
const MITIGATION_LABELS: &[(&str, &str)] = &[
    ("none", "None"),
    ("noise", "Gaussian noise on the update"),
    ("bkg-repl", "bkg-repl: replace with background"),
    ("rand-aug", "rand-aug: add random background"),
    ("mm-aug", "mm-aug: add a crowd's background"),
];

/// Everything the visitor can set in the Linkability lab.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSettings {
    pub seed: u64,
    pub who: Who,
    pub people: usize,
    pub rounds: usize,
    pub split: Split,
    pub layers: Layers,
    pub attack: Identifier,
    pub epochs: usize,
    /// The mitigation's name ([`MITIGATIONS`]) and each one's strength, kept apart so that
    /// switching between them keeps each one's.
    pub mitigation: &'static str,
    pub sigma: f64,
    pub beta: f64,
    pub alpha: f64,
}

/// The engine's run, with the visitor walking the Signal map's default week.
impl Default for LinkSettings {
    fn default() -> Self {
        let e = LinkConfig::default();
        LinkSettings {
            seed: e.seed,
            who: Who::Preset(TrajectoryPreset::Week),
            people: e.people,
            rounds: e.rounds,
            split: e.split,
            layers: e.layers,
            attack: e.attack,
            epochs: e.mlp.epochs,
            mitigation: "none",
            sigma: 0.01,
            beta: 0.5,
            alpha: 1.0,
        }
    }
}

/// Where a control goes in the panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    You,
    Federation,
    Server,
    Mitigation,
}

pub type Field = SharedField<LinkSettings, Section>;

pub const FIELDS: &[Field] = &[
    Field {
        key: "l.you",
        label: "You are",
        help: "Whose data your two devices hold. A ready-made path is walked on the campus from the first day, a fix every 10 minutes, like the Signal map's; the path you drew there comes with the link; your file (below) is placed as the Signal map places it, its first days used. A campus resident is one of the synthetic people, there every round.",
        kind: Kind::Choice(WHO_LABELS),
        get: |s| key_of(&WHO, &s.who).into(),
        set: |s, v| {
            s.who = choice(&WHO, v, "a person")?;
            Ok(())
        },
        section: Section::You,
    },
    Field {
        key: "l.split",
        label: "Your devices share your data",
        help: "How each person's measurements are divided between their two devices ([004] §7). Random: each measurement on either, like a phone and a tablet used side by side. By day: all of a day's on one device. Chronological: the first half on the old phone, the rest on the new one — the hardest for the server.",
        kind: Kind::Choice(SPLIT_LABELS),
        get: |s| key_of(&SPLITS, &s.split).into(),
        set: |s, v| {
            s.split = choice(&SPLITS, v, "a split")?;
            Ok(())
        },
        section: Section::You,
    },
    Field {
        key: "l.people",
        label: "People",
        help: "People in the federation besides you, two devices each, every device a separate pseudonymous client (the paper has 53 and 327). Each person's first device is one the server has learned ('known'); the second is new, and the server must say whose it is.",
        kind: Kind::Number {
            step: "10",
            limit: limits::PEOPLE,
        },
        get: |s| s.people.to_string(),
        set: |s, v| {
            s.people = limited(v, &limits::PEOPLE)? as usize;
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "l.rounds",
        label: "Rounds (days)",
        help: "Rounds of online federated learning of the signal map, one a day: every device with data that day trains on it and sends its update, which the server logs under the device's pseudonym.",
        kind: Kind::Number {
            step: "1",
            limit: limits::ROUNDS,
        },
        get: |s| s.rounds.to_string(),
        set: |s, v| {
            s.rounds = limited(v, &limits::ROUNDS)? as usize;
            Ok(())
        },
        section: Section::Federation,
    },
    Field {
        key: "l.attack",
        label: "The server's attack",
        help: "How the server attributes a new device's updates to people ([004] §6.1), trained on the known devices' updates: an MLP (128 ReLU units, dropout 0.2, SGD with momentum), a linear SVM one-vs-rest, the 10 nearest neighbours — or, beyond the paper, by place: each update's Lemma 1 reconstruction of where its owner was, compared with the known devices'.",
        kind: Kind::Choice(ATTACK_LABELS),
        get: |s| key_of(&ATTACKS, &s.attack).into(),
        set: |s, v| {
            s.attack = choice(&ATTACKS, v, "an attack")?;
            Ok(())
        },
        section: Section::Server,
    },
    Field {
        key: "l.layers",
        label: "What it reads of an update",
        help: "The paper's attacks read the last layer's update, scaled to unit length; every layer reads all of it (this model's first layer gives the most away).",
        kind: Kind::Choice(LAYER_LABELS),
        get: |s| key_of(&LAYERS, &s.layers).into(),
        set: |s, v| {
            s.layers = choice(&LAYERS, v, "a choice of layers")?;
            Ok(())
        },
        section: Section::Server,
    },
    Field {
        key: "l.epochs",
        label: "MLP epochs",
        help: "Passes of the MLP's training over the known devices' updates (the paper does not say; 20 here). More epochs: a sharper attack and a longer wait.",
        kind: Kind::Number {
            step: "5",
            limit: limits::EPOCHS,
        },
        get: |s| s.epochs.to_string(),
        set: |s, v| {
            s.epochs = limited(v, &limits::EPOCHS)? as usize;
            Ok(())
        },
        section: Section::Server,
    },
    Field {
        key: "l.mitigation",
        label: "Every device",
        help: "What every device does to blend in ([004] §11), adapted from photos to places. Noise: Gaussian noise of σ on every number of its update. bkg-repl: a share β of its measurements each round swapped for background ones, measured by people outside the federation. rand-aug: α background measurements added for each of its own. mm-aug: the background clustered into crowds, each device adding α per measurement from one crowd — a person's two devices from different ones.",
        kind: Kind::Choice(MITIGATION_LABELS),
        get: |s| s.mitigation.into(),
        set: |s, v| {
            s.mitigation = MITIGATIONS
                .into_iter()
                .find(|m| *m == v)
                .ok_or_else(|| format!("“{v}” is not a mitigation ({})", MITIGATIONS.join(", ")))?;
            Ok(())
        },
        section: Section::Mitigation,
    },
    Field {
        key: "l.sigma",
        label: "Noise σ",
        help: "The standard deviation of the noise on every number of an update. A last-layer number of an update is about 0.1 in size here.",
        kind: Kind::Number {
            step: "0.01",
            limit: limits::NOISE_SIGMA,
        },
        get: |s| trim(s.sigma),
        set: |s, v| {
            s.sigma = limited(v, &limits::NOISE_SIGMA)?;
            Ok(())
        },
        section: Section::Mitigation,
    },
    Field {
        key: "l.beta",
        label: "Share replaced β",
        help: "The share of a device's measurements in each round replaced by background ones (1: none of its own are left).",
        kind: Kind::Number {
            step: "0.05",
            limit: limits::BETA,
        },
        get: |s| trim(s.beta),
        set: |s, v| {
            s.beta = limited(v, &limits::BETA)?;
            Ok(())
        },
        section: Section::Mitigation,
    },
    Field {
        key: "l.alpha",
        label: "Background added α",
        help: "Background measurements added for each of the device's own in a round.",
        kind: Kind::Number {
            step: "0.5",
            limit: limits::ALPHA,
        },
        get: |s| trim(s.alpha),
        set: |s, v| {
            s.alpha = limited(v, &limits::ALPHA)?;
            Ok(())
        },
        section: Section::Mitigation,
    },
    Field {
        key: "l.seed",
        label: "Seed",
        help: "Everything random (the people, the splits, the training, the attack) comes from this number: the same seed gives the same run.",
        kind: Kind::Number {
            step: "1",
            limit: limits::SEED,
        },
        get: |s| s.seed.to_string(),
        set: |s, v| {
            s.seed = limited(v, &limits::SEED)? as u64;
            Ok(())
        },
        section: Section::Federation,
    },
];

/// Hideable groups besides the fields.
pub const CONTROL_GROUPS: &[&str] = &["l.study", "l.map", "l.data"];

impl LinkSettings {
    pub fn get(&self, key: &str) -> String {
        crate::ui::settings::get_field(FIELDS, self, key)
    }

    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        crate::ui::settings::set_field(FIELDS, self, key, value)
    }

    /// Whether a control matters with the others.
    pub fn relevant(&self, key: &str) -> bool {
        match key {
            "l.sigma" => self.mitigation == "noise",
            "l.beta" => self.mitigation == "bkg-repl",
            "l.alpha" => matches!(self.mitigation, "rand-aug" | "mm-aug"),
            "l.epochs" => self.attack == Identifier::Mlp,
            _ => true,
        }
    }

    pub fn mitigation(&self) -> Mitigation {
        let strength = match self.mitigation {
            "noise" => self.sigma,
            "bkg-repl" => self.beta,
            _ => self.alpha,
        };
        Mitigation::parse(self.mitigation, strength).unwrap_or(Mitigation::None)
    }

    /// The engine configuration; `drawn` is the path drawn in the Signal map, if the link has
    /// one. The imported file is the worker's to put in (it holds the fixes).
    pub fn to_config(&self, drawn: Option<&[Metres]>) -> Result<LinkConfig, String> {
        let e = LinkConfig::default();
        let half = whereabouts_engine::signal_map::world::Preset::Campus.config(self.seed);
        let you = match self.who {
            Who::Synthetic | Who::File => You::Synthetic,
            Who::Preset(p) => You::Path {
                trajectory: p.trajectory(half.half_width(), half.half_height()),
            },
            Who::Drawn => You::Path {
                trajectory: Trajectory {
                    waypoints: drawn
                        .filter(|p| !p.is_empty())
                        .ok_or("You are: no path drawn yet — draw one in the Signal-map lab")?
                        .to_vec(),
                    leg_minutes: DEFAULT_LEG_MINUTES,
                    sample_minutes: DEFAULT_FIX_MINUTES,
                },
            },
        };
        let config = LinkConfig {
            seed: self.seed,
            people: self.people,
            rounds: self.rounds,
            split: self.split,
            layers: self.layers,
            attack: self.attack,
            mlp: whereabouts_engine::linkability::attack::mlp::MlpSettings {
                epochs: self.epochs,
                ..e.mlp
            },
            mitigation: self.mitigation(),
            you,
            ..e
        };
        config.validate().map_err(|e| e.to_string())?;
        Ok(config)
    }

    /// The lab's part of the query string: every setting, hidden controls.
    pub fn to_query(&self, hidden: &[String]) -> String {
        let mut parts: Vec<String> = FIELDS
            .iter()
            .map(|f| format!("{}={}", f.key, self.get(f.key)))
            .collect();
        if !hidden.is_empty() {
            parts.push(format!("l.hide={}", hidden.join(",")));
        }
        parts.join("&")
    }

    /// Reads the lab's keys from a query string (others' are left alone); a bad value keeps
    /// the default and is reported.
    pub fn from_query(query: &str) -> FromQuery {
        let mut out = FromQuery {
            settings: LinkSettings::default(),
            hidden: Vec::new(),
            problems: Vec::new(),
        };
        for (key, value) in query_pairs(query) {
            if !key.starts_with("l.") {
                continue;
            }
            if key == "l.hide" {
                out.hidden = value
                    .split(',')
                    .filter(|k| FIELDS.iter().any(|f| f.key == *k) || CONTROL_GROUPS.contains(k))
                    .map(str::to_string)
                    .collect();
            } else if let Err(e) = out.settings.set(key, &value) {
                out.problems.push(e);
            }
        }
        out
    }
}

/// What a link said to the Linkability lab.
#[derive(Clone, Debug, PartialEq)]
pub struct FromQuery {
    pub settings: LinkSettings,
    pub hidden: Vec<String>,
    pub problems: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_round_trips_through_the_url_and_the_config_is_valid() {
        let s = LinkSettings {
            seed: 11,
            who: Who::Preset(TrajectoryPreset::Commute),
            people: 120,
            rounds: 14,
            split: Split::Chrono,
            layers: Layers::All,
            attack: Identifier::Svm,
            epochs: 40,
            mitigation: "mm-aug",
            sigma: 0.05,
            beta: 0.25,
            alpha: 2.0,
        };
        let q = s.to_query(&["l.study".into()]);
        let back = LinkSettings::from_query(&format!("lab=linkability&T=6&d.B=3&{q}"));
        assert_eq!(back.settings, s);
        assert_eq!(back.hidden, vec!["l.study".to_string()]);
        assert!(back.problems.is_empty(), "{:?}", back.problems);
        let config = s.to_config(None).unwrap();
        assert_eq!(config.mitigation, Mitigation::MmAug { alpha: 2.0 });
        assert!(matches!(config.you, You::Path { .. }));
        assert!(LinkSettings::default().to_config(None).is_ok());
    }

    #[test]
    fn every_bound_is_the_engines_and_absurd_values_are_named() {
        let mut s = LinkSettings::default();
        for (key, bad) in [
            ("l.people", "3"),
            ("l.people", "401"),
            ("l.rounds", "61"),
            ("l.sigma", "-1"),
            ("l.beta", "1.5"),
            ("l.alpha", "9"),
            ("l.epochs", "0"),
            ("l.attack", "oracle"),
            ("l.mitigation", "vpn"),
            ("l.you", "someone"),
        ] {
            let e = s.set(key, bad).unwrap_err();
            let label = FIELDS.iter().find(|f| f.key == key).unwrap().label;
            assert!(e.starts_with(label), "{key}: {e}");
        }
        assert_eq!(s, LinkSettings::default());
        s.set("l.people", "400").unwrap();
        s.set("l.rounds", "60").unwrap();
        assert!(
            s.to_config(None).is_ok(),
            "the engine takes the page's bounds"
        );
        // Every layer of 400 people over 60 rounds is more than the server may keep.
        s.set("l.layers", "all").unwrap();
        assert!(s.to_config(None).unwrap_err().contains("million"));
        // The drawn path needs a path.
        let drawn = LinkSettings {
            who: Who::Drawn,
            ..LinkSettings::default()
        };
        assert!(
            drawn
                .to_config(None)
                .unwrap_err()
                .contains("Signal-map lab")
        );
        assert!(drawn.to_config(Some(&[Metres::new(10.0, 20.0)])).is_ok());
    }
}
