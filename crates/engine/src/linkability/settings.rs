//! The Linkability lab's settings, one row each ([`whereabouts_core::setting`]): the page's
//! controls, the address bar's `l.` keys, the lessons' and the instructor's keys and the
//! messages for refused values all come from [`SETTINGS`]. The lab opens on [`lab_default`]:
//! the engine's run with the visitor walking the Signal map's simple week. DP-FedAvg's rows
//! (`l.dp…`, the core's [`whereabouts_core::central_dp_setting!`]) are in force with the sum +
//! central DP (`l.sees=dp`).

use super::attack::Identifier;
use super::config::{LinkConfig, Mitigation, Split, You};
use super::features::Layers;
use super::limits;
use crate::signal_map::placement::ImportedTrace;
use crate::signal_map::trajectory::{
    DEFAULT_FIX_MINUTES, DEFAULT_LEG_MINUTES, Trajectory, TrajectoryPreset,
};
use crate::signal_map::world::Preset;
use whereabouts_core::choices;
use whereabouts_core::secagg::Sees;
use whereabouts_core::setting::{Choices, Setting, number, trim};

/// The panel's sections, in order.
pub const YOU: &str = "You and your two devices";
pub const FEDERATION: &str = "The federation";
pub const SERVER: &str = "The server";
pub const AGAINST: &str = "Against it";
pub const SECTIONS: [&str; 4] = [YOU, FEDERATION, SERVER, AGAINST];

/// The link's key for hidden controls, and the groups of controls besides the settings.
pub const HIDE_KEY: &str = "l.hide";
pub const CONTROL_GROUPS: &[&str] = &["l.study", "l.map", "l.data"];

choices!(Split, "a split", {
    Split::Random => "random", "Random: phone and tablet together";
    Split::Day => "day", "By day: one device a day";
    Split::Chrono => "chrono", "Chronological: a new phone";
});
choices!(Layers, "a choice of layers", {
    Layers::Last => "last", "The last layer (the paper's)";
    Layers::All => "all", "Every layer";
});
choices!(Identifier, "an attack", {
    Identifier::Mlp => "mlp", "MLP (the paper's best)";
    Identifier::Svm => "svm", "Linear SVM";
    Identifier::Knn => "knn", "k-NN, K = 10";
    Identifier::Place => "place", "By place: Lemma 1 + k-NN";
    Identifier::Chance => "chance", "Chance";
});

/// Who the visitor is: one of the Signal map's ready-made paths, the path drawn there (the
/// page fills its waypoints in from the link's `path`), the imported file (the worker puts it
/// in), or a campus resident.
const WHO: &[(&str, &str)] = &[
    ("week", "A simple week (5 days)"),
    ("commute", "A commuter's week"),
    ("weekend", "A weekend out"),
    ("stay_at_home", "A stay-at-home week"),
    ("drawn", "The path you drew (Signal map)"),
    ("file", "Your file"),
    ("synthetic", "A campus resident (4 weeks)"),
];

/// The mitigations by [`Mitigation::name`].
const MITIGATIONS: &[(&str, &str)] = &[
    ("none", "None"),
    ("noise", "Gaussian noise on the update"),
    ("bkg-repl", "bkg-repl: replace with background"),
    ("rand-aug", "rand-aug: add random background"),
    ("mm-aug", "mm-aug: add a crowd's background"),
];

/// Each mitigation's strength when it is first chosen (σ, β, α).
pub const DEFAULT_SIGMA: f64 = 0.01;
pub const DEFAULT_BETA: f64 = 0.5;
pub const DEFAULT_ALPHA: f64 = 1.0;

/// A ready-made path walked on the campus, a fix every 10 minutes, as the Signal map walks it.
pub fn preset_path(preset: TrajectoryPreset) -> You {
    // The campus's extent does not depend on the seed.
    let campus = Preset::Campus.config(0);
    You::Path {
        trajectory: preset.trajectory(campus.half_width(), campus.half_height()),
    }
}

/// The path drawn in the Signal-map lab before its waypoints are known (the page fills them in
/// from the link's `path`).
pub fn drawn_path() -> You {
    You::Path {
        trajectory: Trajectory {
            waypoints: Vec::new(),
            leg_minutes: DEFAULT_LEG_MINUTES,
            sample_minutes: DEFAULT_FIX_MINUTES,
        },
    }
}

/// The visitor's file before the worker puts its fixes in.
pub fn file_to_come() -> You {
    You::File {
        trace: ImportedTrace::new(String::new(), Vec::new()),
    }
}

/// The lab's opening run: the engine's, with the visitor walking the simple week.
pub fn lab_default() -> LinkConfig {
    LinkConfig {
        you: preset_path(TrajectoryPreset::Week),
        ..LinkConfig::default()
    }
}

/// The key of who the visitor is (a path equal to a ready-made one is that one).
fn who(you: &You) -> &'static str {
    match you {
        You::Synthetic => "synthetic",
        You::File { .. } => "file",
        You::Path { .. } => TrajectoryPreset::ALL
            .into_iter()
            .find(|p| preset_path(*p) == *you)
            .map_or("drawn", |p| p.name()),
    }
}

/// The parameter a mitigation is strong in, so that switching between two with the same one
/// (rand-aug and mm-aug: α) keeps its value.
fn parameter(name: &str) -> &'static str {
    match name {
        "noise" => "sigma",
        "bkg-repl" => "beta",
        "rand-aug" | "mm-aug" => "alpha",
        _ => "",
    }
}

fn default_strength(name: &str) -> f64 {
    match parameter(name) {
        "sigma" => DEFAULT_SIGMA,
        "beta" => DEFAULT_BETA,
        _ => DEFAULT_ALPHA,
    }
}

/// The strength row of the mitigations strong in `param`: read where it is in force, else the
/// default; set only where it is in force.
fn strength_get(c: &LinkConfig, param: &str, default: f64) -> String {
    if parameter(c.mitigation.name()) == param {
        trim(c.mitigation.strength())
    } else {
        trim(default)
    }
}

fn strength_set(c: &mut LinkConfig, param: &str, value: f64) {
    let name = c.mitigation.name();
    if parameter(name) == param {
        c.mitigation = Mitigation::parse(name, value).unwrap_or(Mitigation::None);
    }
}

/// A row of the lab's table.
type Row = Setting<LinkConfig>;

/// DP-FedAvg's rows are in force only with the sum + central DP.
fn dp_on(c: &LinkConfig) -> bool {
    c.sees == Sees::Dp
}

/// Every setting of the Linkability lab, in the panel's order.
pub const SETTINGS: &[Row] = &[
    Row::choice("l.you", "You are", YOU, WHO)
        .help("Whose data your two devices hold. A ready-made path is walked on the campus from the first day, a fix every 10 minutes, like the Signal map's; the path you drew there comes with the link; your file (below) is placed as the Signal map places it, its first days used. A campus resident is one of the synthetic people, there every round.")
        .get(|c| who(&c.you).into())
        .set(|c, v| {
            // The same choice again keeps what it holds (the drawn path, the file).
            if who(&c.you) == v {
                return Ok(());
            }
            c.you = match v {
                "drawn" => drawn_path(),
                "file" => file_to_come(),
                "synthetic" => You::Synthetic,
                _ => TrajectoryPreset::ALL
                    .into_iter()
                    .find(|p| p.name() == v)
                    .map(preset_path)
                    .ok_or_else(|| {
                        let keys: Vec<&str> = WHO.iter().map(|w| w.0).collect();
                        format!("“{v}” is not a person ({})", keys.join(", "))
                    })?,
            };
            Ok(())
        }),
    Row::choice("l.split", "Your devices share your data", YOU, Split::MENU)
        .help("How each person's measurements are divided between their two devices ([004] §7). Random: each measurement on either, like a phone and a tablet used side by side. By day: all of a day's on one device. Chronological: the first half on the old phone, the rest on the new one — the hardest for the server.")
        .get(|c| Choices::key(&c.split).into())
        .set(|c, v| {
            c.split = <Split as Choices>::parse(v)?;
            Ok(())
        }),
    Row::number("l.people", "People", FEDERATION, "10", limits::PEOPLE)
        .help("People in the federation besides you, two devices each, every device a separate pseudonymous client (the paper has 53 and 327). Each person's first device is one the server has learned ('known'); the second is new, and the server must say whose it is.")
        .get(|c| c.people.to_string())
        .set(|c, v| {
            c.people = number(v, &limits::PEOPLE)? as usize;
            Ok(())
        }),
    Row::number("l.rounds", "Rounds (days)", FEDERATION, "1", limits::ROUNDS)
        .help("Rounds of online federated learning of the signal map, one a day: every device with data that day trains on it and sends its update, which the server logs under the device's pseudonym.")
        .get(|c| c.rounds.to_string())
        .set(|c, v| {
            c.rounds = number(v, &limits::ROUNDS)? as usize;
            Ok(())
        }),
    Row::number("l.E", "Local epochs E", FEDERATION, "1", limits::LOCAL_EPOCHS)
        .help("Passes each device makes over its day's measurements before it sends its update (FedAvg's E). With 5, the lab's default, the federation's map learns: 7.3 dB test error after 28 rounds against 9.7 dB for the mean predictor (seed 7); with 1 it stays near the mean predictor. More local steps also change what an update says about its owner.")
        .get(|c| c.local_epochs.to_string())
        .set(|c, v| {
            c.local_epochs = number(v, &limits::LOCAL_EPOCHS)? as usize;
            Ok(())
        }),
    Row::choice("l.sees", "What the server sees", SERVER, Sees::MENU)
        .help("Every update: the server receives each device's update under its pseudonym, as in the paper, and links them. Only the sum: secure aggregation (Bonawitz et al. 2017) — the round's devices mask their updates so that the server can unmask only their sum, round by round. The federation trains the same map; the server holds one sum a round and no update of any one device, so it has nothing to train its attack on and nothing to attribute. Sum + central DP: DP-FedAvg (McMahan et al. 2018) over the same secure sum, a person the user — each round every person is sampled with probability q and both their devices send their change clipped to C; the sum gets Gaussian noise (z·C for a person's two devices together), and the map moves by the noised average, so it learns less well; the ε shown is yours, for both your devices' whole data. What a server that learnt everyone's known devices before secure aggregation came in still reads from the sums, and from noised sums, is measured in the lab's secure-sum study (docs/reproduce-linkability.md, “Under secure aggregation”).")
        .get(|c| c.sees.key().into())
        .set(|c, v| {
            c.sees = <Sees as Choices>::parse(v)?;
            Ok(())
        }),
    whereabouts_core::central_dp_setting!(noise_multiplier, Row, "l.dpz", SERVER, dp_on),
    whereabouts_core::central_dp_setting!(
        clip,
        Row,
        "l.dpclip",
        SERVER,
        limits::DP_CLIP,
        "0.5",
        dp_on
    ),
    whereabouts_core::central_dp_setting!(sampling_rate, Row, "l.dpq", SERVER, dp_on),
    whereabouts_core::central_dp_setting!(adaptive, Row, "l.dpadapt", SERVER, dp_on),
    whereabouts_core::central_dp_setting!(target_quantile, Row, "l.dpquant", SERVER, dp_on),
    whereabouts_core::central_dp_setting!(noise_at, Row, "l.dpnoise", SERVER, dp_on),
    whereabouts_core::central_dp_setting!(dropout, Row, "l.dpdrop", SERVER, dp_on),
    Row::choice("l.attack", "The server's attack", SERVER, Identifier::MENU)
        .help("How the server attributes a new device's updates to people ([004] §6.1), trained on the known devices' updates: an MLP (128 ReLU units, dropout 0.2, SGD with momentum), a linear SVM one-vs-rest, the 10 nearest neighbours — or, beyond the paper, by place: each update's Lemma 1 reconstruction of where its owner was, compared with the known devices'.")
        .get(|c| Choices::key(&c.attack).into())
        .set(|c, v| {
            c.attack = <Identifier as Choices>::parse(v)?;
            Ok(())
        })
        .relevant(|c| c.sees == Sees::Updates),
    Row::choice("l.layers", "What it reads of an update", SERVER, Layers::MENU)
        .help("The paper's attacks read the last layer's update, scaled to unit length; every layer reads all of it (this model's first layer gives the most away).")
        .get(|c| Choices::key(&c.layers).into())
        .set(|c, v| {
            c.layers = <Layers as Choices>::parse(v)?;
            Ok(())
        })
        .relevant(|c| c.sees == Sees::Updates),
    Row::number("l.epochs", "MLP epochs", SERVER, "5", limits::EPOCHS)
        .help("Passes of the MLP's training over the known devices' updates (the paper does not say; 20 here). More epochs: a sharper attack and a longer wait.")
        .get(|c| c.mlp.epochs.to_string())
        .set(|c, v| {
            c.mlp.epochs = number(v, &limits::EPOCHS)? as usize;
            Ok(())
        })
        .relevant(|c| c.sees == Sees::Updates && c.attack == Identifier::Mlp),
    Row::choice("l.mitigation", "Every device", AGAINST, MITIGATIONS)
        .help("What every device does to blend in ([004] §9), adapted from photos to places. Noise: Gaussian noise of σ on every number of its update. bkg-repl: a share β of its measurements each round swapped for background ones, measured by people outside the federation. rand-aug: α background measurements added for each of its own. mm-aug: the background clustered into crowds, each device adding α per measurement from one crowd — a person's two devices from different ones.")
        .get(|c| c.mitigation.name().into())
        .set(|c, v| {
            let old = c.mitigation;
            let strength = if parameter(old.name()) == parameter(v) {
                old.strength()
            } else {
                default_strength(v)
            };
            c.mitigation = Mitigation::parse(v, strength).ok_or_else(|| {
                let keys: Vec<&str> = MITIGATIONS.iter().map(|m| m.0).collect();
                format!("“{v}” is not a mitigation ({})", keys.join(", "))
            })?;
            Ok(())
        }),
    Row::number("l.sigma", "Noise σ", AGAINST, "0.01", limits::NOISE_SIGMA)
        .help("The standard deviation of the noise on every number of an update. A last-layer number of an update is about 0.1 in size here.")
        .get(|c| strength_get(c, "sigma", DEFAULT_SIGMA))
        .set(|c, v| {
            strength_set(c, "sigma", number(v, &limits::NOISE_SIGMA)?);
            Ok(())
        })
        .relevant(|c| parameter(c.mitigation.name()) == "sigma"),
    Row::number("l.beta", "Share replaced β", AGAINST, "0.05", limits::BETA)
        .help("The share of a device's measurements in each round replaced by background ones (1: none of its own are left).")
        .get(|c| strength_get(c, "beta", DEFAULT_BETA))
        .set(|c, v| {
            strength_set(c, "beta", number(v, &limits::BETA)?);
            Ok(())
        })
        .relevant(|c| parameter(c.mitigation.name()) == "beta"),
    Row::number("l.alpha", "Background added α", AGAINST, "0.5", limits::ALPHA)
        .help("Background measurements added for each of the device's own in a round.")
        .get(|c| strength_get(c, "alpha", DEFAULT_ALPHA))
        .set(|c, v| {
            strength_set(c, "alpha", number(v, &limits::ALPHA)?);
            Ok(())
        })
        .relevant(|c| parameter(c.mitigation.name()) == "alpha"),
    whereabouts_core::seed_setting!(
        Row,
        "l.seed",
        FEDERATION,
        "Everything random (the people, the splits, the training, the attack) comes from this number: the same seed gives the same run."
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;
    use whereabouts_core::privacy::central::{CentralDp, NoiseAt};
    use whereabouts_core::setting::{check_rows, set};

    #[test]
    fn every_setting_round_trips_through_its_text_and_absurd_values_are_named() {
        let mut c = LinkConfig {
            seed: 11,
            people: 120,
            rounds: 14,
            split: Split::Chrono,
            layers: Layers::All,
            attack: Identifier::Svm,
            mitigation: Mitigation::MmAug { alpha: 2.0 },
            you: preset_path(TrajectoryPreset::Commute),
            sees: Sees::Dp,
            central_dp: CentralDp {
                noise_multiplier: 2.5,
                clip: 7.5,
                sampling_rate: 0.4,
                adaptive: true,
                target_quantile: 0.3,
                noise_at: NoiseAt::Distributed,
                dropout: 0.1,
            },
            ..lab_default()
        };
        c.mlp.epochs = 40;
        check_rows(
            SETTINGS,
            &SECTIONS,
            "l.",
            &lab_default(),
            &c,
            &[
                ("l.people", "3"),
                ("l.people", "401"),
                ("l.rounds", "61"),
                ("l.E", "0"),
                ("l.sigma", "-1"),
                ("l.beta", "1.5"),
                ("l.alpha", "9"),
                ("l.epochs", "0"),
                ("l.attack", "oracle"),
                ("l.mitigation", "vpn"),
                ("l.you", "someone"),
                ("l.sees", "everything"),
                ("l.dpz", "0"),
                ("l.dpz", "21"),
                ("l.dpclip", "0"),
                ("l.dpclip", "21"),
                ("l.dpq", "1.5"),
                ("l.dpquant", "1"),
                ("l.dpnoise", "enclave"),
                ("l.dpdrop", "0.95"),
                ("l.dpadapt", "perhaps"),
            ],
        );
        assert!(lab_default().validate().is_ok());
        let mut c = lab_default();
        // At the engine's own bounds the rows and the engine agree.
        set(SETTINGS, &mut c, "l.people", "400").unwrap();
        set(SETTINGS, &mut c, "l.rounds", "60").unwrap();
        assert!(c.validate().is_ok());
        // Every layer of 400 people over 60 rounds is more than the server may keep.
        set(SETTINGS, &mut c, "l.layers", "all").unwrap();
        assert!(c.validate().unwrap_err().to_string().contains("million"));
    }

    /// Only the sum leaves the attack's settings out of the panel; a value that is not a view is
    /// refused naming the setting and the value, and the config is left as it was.
    #[test]
    fn what_the_server_sees_is_every_update_or_only_the_sum() {
        let mut c = lab_default();
        assert_eq!(c.sees, Sees::Updates);
        let attack_rows = ["l.attack", "l.layers", "l.epochs"];
        let relevant = |c: &LinkConfig, key: &str| {
            let row = SETTINGS.iter().find(|s| s.key == key).unwrap();
            (row.relevant)(c)
        };
        assert!(attack_rows.iter().all(|k| relevant(&c, k)));
        set(SETTINGS, &mut c, "l.sees", "sum").unwrap();
        assert_eq!(c.sees, Sees::Sum);
        assert!(attack_rows.iter().all(|k| !relevant(&c, k)));
        assert!(relevant(&c, "l.mitigation"));
        let before = c.clone();
        let e = set(SETTINGS, &mut c, "l.sees", "everything").unwrap_err();
        assert!(
            e.starts_with("What the server sees:") && e.contains("“everything”"),
            "{e}"
        );
        assert_eq!(c, before);
    }

    /// DP-FedAvg's rows show only with the sum + central DP (γ only under adaptive clipping),
    /// set the lab's config, and the engine refuses a clip whose distributed noise could pass
    /// the secure sum's bound, naming the setting and the value.
    #[test]
    fn the_central_dp_rows_are_in_force_only_with_dp() {
        let mut c = lab_default();
        let keys = [
            "l.dpz",
            "l.dpclip",
            "l.dpq",
            "l.dpadapt",
            "l.dpnoise",
            "l.dpdrop",
        ];
        let relevant = |c: &LinkConfig, key: &str| {
            let row = SETTINGS.iter().find(|s| s.key == key).unwrap();
            (row.relevant)(c)
        };
        for sees in ["updates", "sum"] {
            set(SETTINGS, &mut c, "l.sees", sees).unwrap();
            assert!(keys.iter().all(|k| !relevant(&c, k)), "{sees}");
        }
        set(SETTINGS, &mut c, "l.sees", "dp").unwrap();
        assert!(keys.iter().all(|k| relevant(&c, k)));
        assert!(!relevant(&c, "l.dpquant"));
        set(SETTINGS, &mut c, "l.dpadapt", "on").unwrap();
        assert!(relevant(&c, "l.dpquant"));
        assert!(c.validate().is_ok());
        set(SETTINGS, &mut c, "l.dpz", "20").unwrap();
        set(SETTINGS, &mut c, "l.dpclip", "20").unwrap();
        set(SETTINGS, &mut c, "l.dpnoise", "distributed").unwrap();
        assert_eq!(c.central_dp.noise_at, NoiseAt::Distributed);
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains("central_dp.clip") && e.contains("20"), "{e}");
    }

    #[test]
    fn a_mitigation_keeps_its_strength_and_who_you_are_reads_back() {
        let mut c = lab_default();
        set(SETTINGS, &mut c, "l.mitigation", "rand-aug").unwrap();
        set(SETTINGS, &mut c, "l.alpha", "3").unwrap();
        // β belongs to another mitigation: accepted, no effect.
        set(SETTINGS, &mut c, "l.beta", "0.2").unwrap();
        set(SETTINGS, &mut c, "l.mitigation", "mm-aug").unwrap();
        assert_eq!(c.mitigation, Mitigation::MmAug { alpha: 3.0 });
        set(SETTINGS, &mut c, "l.mitigation", "noise").unwrap();
        assert_eq!(
            c.mitigation,
            Mitigation::Noise {
                sigma: DEFAULT_SIGMA
            }
        );
        for key in [
            "week",
            "commute",
            "weekend",
            "stay_at_home",
            "drawn",
            "file",
            "synthetic",
        ] {
            set(SETTINGS, &mut c, "l.you", key).unwrap();
            assert_eq!(who(&c.you), key);
        }
    }
}
